"""The telemetry component's options: what is recorded and how much of it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TelemetryOptions"]

_MAX_ATTRIBUTE_CHARS = 1_048_576
_MAX_OPEN_SPANS = 1_000_000


def _bounded(name: str, value: object, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{name}: expected an integer from {low} to {high}, got {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class TelemetryOptions:
    """What ``ToolTelemetry`` records.

    Arguments and results are private by default: they reach spans only when the host opts in,
    and then only after redaction, cut to ``max_attribute_chars``. ``max_open_spans`` bounds the
    spans of calls that started but never reported an end (a host that cancelled dispatch).
    ``enrich_framework_spans`` (default on) adds Prism's attributes and status to a framework's
    own ``execute_tool`` span for the call instead of opening a child span beside it.
    """

    record_arguments: bool = False
    record_results: bool = False
    max_attribute_chars: int = 4096
    max_open_spans: int = 10_000
    enrich_framework_spans: bool = True

    def __post_init__(self) -> None:
        for name in ("record_arguments", "record_results", "enrich_framework_spans"):
            if type(getattr(self, name)) is not bool:
                raise ValueError(f"{name}: expected True or False, got {getattr(self, name)!r}")
        _bounded("max_attribute_chars", self.max_attribute_chars, 16, _MAX_ATTRIBUTE_CHARS)
        _bounded("max_open_spans", self.max_open_spans, 1, _MAX_OPEN_SPANS)
