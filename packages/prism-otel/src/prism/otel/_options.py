"""The telemetry component's options: what is recorded and how much of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import final

from prism.core.options import check_count, check_flag

__all__ = ["TelemetryOptions"]

_MAX_ATTRIBUTE_CHARS = 1_048_576
_MAX_OPEN_SPANS = 1_000_000


@final
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
        where = "TelemetryOptions."
        for name in ("record_arguments", "record_results", "enrich_framework_spans"):
            check_flag(where + name, getattr(self, name))
        chars = self.max_attribute_chars
        check_count(where + "max_attribute_chars", chars, cap=_MAX_ATTRIBUTE_CHARS, minimum=16)
        check_count(where + "max_open_spans", self.max_open_spans, cap=_MAX_OPEN_SPANS)
