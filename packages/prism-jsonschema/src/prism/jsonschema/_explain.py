"""Why an engine refused a value, in detail: its errors with JSON Pointers (every one up to
``max_errors`` when collecting is cheap, else the first), never more than ``RS_QUOTED`` of quoted
text, and the bound or budget a value breaks before jsonschema-rs can read it."""

from __future__ import annotations

from typing import Any

from prism.core import ToolArgumentValidationIssue, ToolArgumentValidationResult

from ._cache import Entry
from ._errors import MORE, fastjsonschema_errors, rs_errors, rs_first_error
from ._exact import ExactChecksExceeded
from ._fastjsonschema import FASTJSONSCHEMA_EXCEPTIONS
from ._hotpath import OK, failure
from ._instance import InstanceBounds, InstanceRejected
from ._regex import PatternInputRefused
from ._scan import Impure, text_of
from ._verdicts import (
    COLLECT_QUOTED,
    RS_QUOTED,
    engine_crash,
    nodes_over_budget,
    rs_failed,
    unquoted,
)
from ._weight import nodes_and_weight, rs_weight

__all__ = ["Explainer"]


class Explainer:
    """The failure results of one validator's options (its bounds, ``max_errors`` and
    ``max_validation_work``), given to the engine runs as their ``invalid``/``slow`` paths."""

    __slots__ = ("_bounds", "_budget", "_max_errors")

    def __init__(self, bounds: InstanceBounds, max_errors: int, budget: int) -> None:
        self._bounds = bounds
        self._max_errors = max_errors
        self._budget = budget

    def rs_slow(self, entry: Entry, value: object) -> ToolArgumentValidationResult:
        """jsonschema-rs said no (or could not read the value): find out why, precisely."""
        try:
            instance = self._bounds.check(value)
        except InstanceRejected as exc:
            return failure(exc.error)
        if rs_weight(instance, entry.node_limit) > entry.node_limit:
            weighing = " (an integer past 64 bits weighs (bits/64)**2)"
            return nodes_over_budget(entry, self._budget, weighing)
        try:
            if entry.fast(instance):  # the bounds schema is stricter than JSON (huge integers)
                return OK
        except Exception as exc:  # an engine bug must not escape as a crash
            return rs_failed(exc, instance)
        return self.rs_invalid(entry, instance)

    def rs_invalid(self, entry: Entry, instance: object) -> ToolArgumentValidationResult:
        try:  # every jsonschema-rs error quotes its instance, the whole value at worst
            quoted = text_of(instance, 1 << 62, RS_QUOTED)[1]
        except Impure:  # tuples, subclasses: count (and quote) the plain copy
            try:
                instance = self._bounds.check(instance)
            except InstanceRejected as exc:
                return failure(exc.error)
            quoted = text_of(instance, 1 << 62, RS_QUOTED)[1]
        if quoted > RS_QUOTED:
            return failure(unquoted(quoted))
        try:
            if max(entry.expanded, 1) * quoted <= RS_QUOTED and _collects(entry, instance):
                errors = rs_errors(entry.rs_validator.iter_errors(instance), self._max_errors)
            else:  # iter_errors builds them all, eagerly
                errors = rs_first_error(entry.rs_validator, instance)
        except Exception as exc:  # an engine bug must not escape as a crash
            return rs_failed(exc, instance)
        return failure(*errors)

    def engine_failure(
        self, entry: Entry, instance: object, exc: Exception
    ) -> ToolArgumentValidationResult:
        if isinstance(exc, FASTJSONSCHEMA_EXCEPTIONS):
            if entry.collect_all is None or _collects(entry, instance):
                return self._fastjsonschema_failure(exc, entry.collect_all, instance)
            first = fastjsonschema_errors(exc, instance, 1)
            return failure(*first, ToolArgumentValidationIssue(path=None, message=MORE))
        if isinstance(exc, PatternInputRefused | ExactChecksExceeded):
            return failure(ToolArgumentValidationIssue(path=None, message=str(exc)))
        return failure(ToolArgumentValidationIssue(path=None, message=engine_crash(exc)))

    def _fastjsonschema_failure(
        self, first: Exception, collect_all: Any, instance: object
    ) -> ToolArgumentValidationResult:
        found: Exception = first
        if collect_all is not None:
            try:
                collect_all(instance)
            except FASTJSONSCHEMA_EXCEPTIONS as exc:
                found = exc
            except Exception:  # keep the first error rather than lose it
                pass
        return failure(*fastjsonschema_errors(found, instance, self._max_errors))


def _collects(entry: Entry, instance: object) -> bool:
    """Whether collecting every error is cheap for this pair (else: the first only)."""
    cap = entry.collect_limit
    errors = max(entry.expanded, 1)  # errors per value node, at most
    nodes, weight = nodes_and_weight(instance, cap, COLLECT_QUOTED // errors)
    return nodes <= cap and errors * nodes * weight <= COLLECT_QUOTED
