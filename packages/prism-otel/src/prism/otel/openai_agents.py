"""The OpenAI Agents SDK's tracing bridged to OpenTelemetry (needs ``openai-agents``).

``add_trace_processor(OpenAIAgentsBridge(tracer_provider=...))`` makes the SDK's agent and tool
spans OpenTelemetry spans that Prism's tool spans nest in and enrich. See docs/otel.md.
"""

from ._agents_bridge import OpenAIAgentsBridge

__all__ = ["OpenAIAgentsBridge"]
