"""OpenTelemetry for Prism: one span per tool call (GenAI conventions) and call metrics.

``ToolTelemetry`` is an event sink: pass it as ``emit=``. Arguments and results are recorded
only when the host opts in, and then redacted first. See docs/otel.md.
"""

from ._instrument import TracedTools
from ._options import TelemetryOptions
from ._telemetry import ToolTelemetry

__all__ = ["TelemetryOptions", "ToolTelemetry", "TracedTools"]
