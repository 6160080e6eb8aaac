"""The fastjsonschema engine, with every channel from schema text to executed code closed.

fastjsonschema turns a schema into Python source and ``exec``s it. Here:

* the schema is a plain-JSON copy (exact builtin types: ``repr`` is the builtin one);
* ``use_default=False`` (defaults would be written into code *and* into the caller's data);
* no custom formats (their names would be spliced into source);
* the remote-ref resolver gets a handler table that claims every URI scheme and refuses it, so
  ``urllib`` is unreachable (and non-fragment refs never get this far);
* the per-error ``definition=`` literal is replaced by at most the ``const`` value, which keeps
  the generated code linear in the schema size, and generation stops at a code budget;
* the generated source is parsed and checked against a whitelist (``_codecheck``) and runs with
  a minimal ``__builtins__``.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Callable, Iterator, Mapping
from types import CodeType
from typing import Any, Final

from fastjsonschema import (
    JsonSchemaDefinitionException,
    JsonSchemaValueException,
    JsonSchemaValuesException,
)
from fastjsonschema.draft04 import CodeGeneratorDraft04
from fastjsonschema.draft06 import CodeGeneratorDraft06
from fastjsonschema.draft07 import CodeGeneratorDraft07
from fastjsonschema.draft2019 import CodeGeneratorDraft2019
from fastjsonschema.ref_resolver import RefResolver

from ._childcompile import IN_PROCESS_SOURCE, compile_in_child
from ._codecheck import SAFE_BUILTINS, GeneratedCodeRejected, check_generated_code
from ._drafts import Draft
from ._exact import is_multiple, unique_items
from ._regex import PatternRefused, Re2Pattern, compile_pattern
from ._walk import Json, SchemaRejected

__all__ = ["FASTJSONSCHEMA_EXCEPTIONS", "RemoteRefRefused", "compile_fastjsonschema"]

FASTJSONSCHEMA_EXCEPTIONS: Final = (JsonSchemaValueException, JsonSchemaValuesException)

CODE_BUDGET_FACTOR: Final = 32
"""Generated source may be at most this many times the schema's encoded size (+ 64 KiB)."""

_AST_LOCK: Final = threading.Lock()
"""Serializes ``ast.parse``. Before CPython 3.11.8 / 3.12.2 (gh-106905) an interpreter has one
AST-constructor depth counter: two threads parsing at once (a GC pause inside one parse is enough
to switch) fail with a spurious ``SystemError: AST constructor recursion depth mismatch``."""

_PARSE_ATTEMPTS: Final = 3


class RemoteRefRefused(Exception):
    """fastjsonschema tried to resolve a URI; nothing is ever fetched."""


class _CodeTooLarge(Exception):
    pass


def _refuse(uri: str) -> Any:
    raise RemoteRefRefused(f"reference {uri[:120]!r} would need a fetch; nothing is fetched")


class _RefuseEveryScheme(Mapping[str, Callable[[str], Any]]):
    """A handler table that has an entry for every scheme, so urllib is never consulted."""

    def __getitem__(self, scheme: str) -> Callable[[str], Any]:
        return _refuse

    def __contains__(self, scheme: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


REFUSE_EVERY_SCHEME: Final = _RefuseEveryScheme()


class _SchemaPositionsResolver(RefResolver):
    """Upstream's ``walk`` descends into every dict (``const``, ``enum`` values included),
    registers each ``$id`` it finds (a later one replacing the root) and rewrites every
    ``$ref`` string in place. The checked copy has no id below its root, and references are
    joined with the scope when resolved, so this walk does nothing."""

    def walk(self, node: Any, depth: int = 0, rewrite_refs: bool = True) -> None:
        return None


class _Bounded:
    """Mixin over a fastjsonschema generator: linear code size, hard code budget."""

    _prism_budget: int = 0
    _prism_size: int = 0
    _prism_rule: str | None = None
    _code: list[str]

    def l(self, line: str, *args: Any, **kwds: Any) -> Any:  # noqa: E743 - upstream name
        indent = super().l(line, *args, **kwds)  # type: ignore[misc]
        self._prism_size += len(self._code[-1]) + 1
        if self._prism_size > self._prism_budget:
            raise _CodeTooLarge
        return indent

    def exc(self, msg: str, *args: Any, append_to_msg: str | None = None, rule: Any = None) -> Any:
        self._prism_rule = rule
        return super().exc(msg, *args, append_to_msg=append_to_msg, rule=rule)  # type: ignore[misc]

    def generate_pattern(self) -> None:
        # Upstream compiles the pattern with `re` here (refusing RE2 syntax such as \p{L});
        # the slot is filled with the RE2 pattern when the code is loaded.
        pattern = self._definition["pattern"]  # type: ignore[attr-defined]
        with self.l("if isinstance({variable}, str):"):
            self._compile_regexps[pattern] = None  # type: ignore[attr-defined]
            with self.l("if not REGEX_PATTERNS[{}].search({variable}):", repr(pattern)):
                self.exc("{name} must match pattern {}", self.e(pattern), rule="pattern")  # type: ignore[attr-defined]

    def generate_multiple_of(self) -> None:
        # Upstream divides through a float or a 28-digit Decimal: both round, and a rounded
        # quotient that looks whole accepts a non-multiple. `prism_multiple_of` is exact.
        divisor = self._definition["multipleOf"]  # type: ignore[attr-defined]
        if not _is_number(divisor):
            raise JsonSchemaDefinitionException("multipleOf must be a number")
        number = "isinstance({variable}, (int, float)) and not isinstance({variable}, bool)"
        with self.l(f"if {number} and not prism_multiple_of({{variable}}, {divisor!r}):"):
            self.exc("{name} must be multiple of {multipleOf}", rule="multipleOf")

    def generate_unique_items(self) -> None:
        # Upstream puts the items themselves in a ``set``: distinct integers that hash alike
        # (every ``k * (2**61 - 1)``) made it quadratic. ``prism_unique_items`` keys each item
        # by strings only (see ``_exact.unique_items``), with the same equality.
        if not self._definition["uniqueItems"]:  # type: ignore[attr-defined]
            return
        self.create_variable_is_list()  # type: ignore[attr-defined]
        with self.l("if {variable}_is_list and not prism_unique_items({variable}):"):
            self.exc("{name} must contain unique items", rule="uniqueItems")

    def _expand_refs(self, definition: Any) -> Any:
        # Upstream embeds the whole (ref-expanded) definition in every raise: quadratic code
        # and a second ref-resolution path. Only `const` messages read it.
        if self._prism_rule == "const" and isinstance(definition, dict) and "const" in definition:
            return {"const": definition["const"]}
        return {}


def _require_internals() -> None:
    # The overrides below hook these upstream methods; if a release renames them, fail loudly
    # at import rather than silently lose the code budget and the linear-size guarantee.
    missing = [name for name in ("l", "exc", "e", "_expand_refs", "generate_func_code")
               if not callable(getattr(CodeGeneratorDraft04, name, None))]  # fmt: skip
    if missing:
        raise ImportError(
            f"this fastjsonschema release lacks {missing}; prism-jsonschema supports >=2.22.3,<3"
        )


_require_internals()


def _is_number(value: object) -> bool:
    return type(value) is int or type(value) is float


def _bounded(base: type) -> type:
    return type(f"Prism{base.__name__}", (_Bounded, base), {})


_GENERATORS: Final[dict[Draft, type]] = {
    4: _bounded(CodeGeneratorDraft04),
    6: _bounded(CodeGeneratorDraft06),
    7: _bounded(CodeGeneratorDraft07),
    2019: _bounded(CodeGeneratorDraft2019),
    2020: _bounded(CodeGeneratorDraft2019),
}


def compile_fastjsonschema(
    document: dict[str, Json],
    draft: Draft,
    *,
    schema_bytes: int,
    code_budget: int = 1 << 62,
    regexes: Mapping[str, Re2Pattern],
    validate_formats: bool,
    fast_fail: bool,
) -> Callable[[object], object]:
    """Generate, check and load the validator function for ``document`` (consumed: mutated)."""
    resolver = _SchemaPositionsResolver.from_schema(
        document, handlers=REFUSE_EVERY_SCHEME, store={}
    )
    generator = _GENERATORS[draft](
        document,
        resolver=resolver,
        formats={},
        use_default=False,
        use_formats=validate_formats,
        detailed_exceptions=True,
        fast_fail=fast_fail,
    )
    generator._prism_budget = min(CODE_BUDGET_FACTOR * schema_bytes + 65_536, code_budget)
    try:
        source = generator.func_code
    except _CodeTooLarge:
        raise SchemaRejected(
            "schema would generate too much validation code for the fastjsonschema engine"
        ) from None
    except RemoteRefRefused as exc:
        raise SchemaRejected(str(exc)) from None
    except JsonSchemaDefinitionException as exc:
        raise SchemaRejected(f"schema is not valid: {exc}") from None
    patterns = _linear_patterns(generator, regexes, validate_formats)
    return _load(source, generator, resolver.get_scope_name(), patterns)


def _linear_patterns(
    generator: Any, regexes: Mapping[str, Re2Pattern], validate_formats: bool
) -> dict[str, object]:
    """``REGEX_PATTERNS`` for the generated code: every schema pattern matched by RE2.

    Upstream keys schema patterns and format regexes in one table; the format regexes are
    fastjsonschema's own (trusted) and stay on ``re``. A pattern spelled like a format name
    would share the format's slot, so that schema is refused.
    """
    table: dict[str, object] = {}
    formats = {f"{name}_re_pattern" for name in generator.FORMAT_REGEXS}
    for key, compiled in generator.global_state["REGEX_PATTERNS"].items():
        if key in regexes:
            if validate_formats and key in formats:
                raise SchemaRejected(
                    f"pattern {key!r} is spelled like a format slot; the fastjsonschema engine "
                    "cannot tell them apart: use engine='jsonschema-rs'"
                )
            table[key] = regexes[key]
        elif key in formats:
            table[key] = _format_regex(key, compiled)
        else:  # a pattern the walk never saw: refuse rather than run it on `re`
            raise SchemaRejected(f"pattern {key[:80]!r} was not checked; refusing the schema")
    return table


_EMAIL: Final = r"^[^@.](?:[^@.]|\.[^@.])*@[^@]+\.[^@]+\z"
"""Upstream's email regex without its lookaround (quadratic on `re` for a long run of dots):
local part starts and ends with no dot, has no two dots in a row, no `@`."""


def _format_regex(key: str, compiled: Any) -> object:
    r"""A format slot on RE2 when it can be (upstream's `\Z` is RE2's `\z`); the two that use
    lookaround are anchored with bounded repetitions (`idn-hostname`) or linear (`duration`)."""
    source = _EMAIL if key == "email_re_pattern" else compiled.pattern.replace(r"\Z", r"\z")
    try:
        return compile_pattern(source)
    except PatternRefused:
        return compiled


def _load(
    source: str, generator: Any, root: str, patterns: dict[str, object]
) -> Callable[[object], object]:
    try:
        functions, code = _checked_code(source)
    except (SyntaxError, ValueError, GeneratedCodeRejected) as exc:
        raise SchemaRejected(f"generated validator failed the safety check: {exc}") from None
    if not functions or functions[0] != root:
        raise SchemaRejected("generated validator failed the safety check: no root function")
    namespace: dict[str, Any] = dict(generator.global_state)
    namespace.pop("re", None)
    namespace["REGEX_PATTERNS"] = patterns
    namespace["prism_multiple_of"] = is_multiple
    namespace["prism_unique_items"] = unique_items
    namespace["__builtins__"] = dict(SAFE_BUILTINS)
    exec(code, namespace)
    function: Callable[[object], object] = namespace[root]
    return function


def _checked_code(source: str) -> tuple[list[str], CodeType]:
    """The whitelisted functions and code object of ``source``: compiled in a child when
    large, so no GIL-holding step here outlasts a few milliseconds (see ``_childcompile``)."""
    if len(source) > IN_PROCESS_SOURCE:
        compiled = compile_in_child(source)
        if compiled is not None:
            return compiled
    tree = _parse(source)
    functions = check_generated_code(tree)
    return functions, compile(tree, "<prism-jsonschema>", "exec")


def _parse(source: str) -> ast.Module:
    """``ast.parse`` under ``_AST_LOCK``, retried if a parse outside this module still raced it."""
    with _AST_LOCK:
        for _attempt in range(_PARSE_ATTEMPTS - 1):
            try:
                return ast.parse(source, mode="exec")
            except SystemError:  # the interpreter's fault, not the source's: parsing is pure
                continue
        return ast.parse(source, mode="exec")
