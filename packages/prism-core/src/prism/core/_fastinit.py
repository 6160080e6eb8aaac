"""A faster ``__init__`` for the frozen, slotted dataclasses built on every dispatch.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``
looked up anew per field; setting the slots through their member descriptors is about twice as
fast. The class stays a frozen, slotted, keyword-only dataclass: only ``__init__`` changes.

Kept because each is worth about 10% of a dispatch on its own and about a quarter together
(bare and full-pipeline rows, measured by swapping each out in one process). Both are guarded:
``fast_init`` refuses classes it cannot reproduce, and a positional factory checks the field
order its call site passes when the module is imported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["fast_init", "positional_factory"]

C = TypeVar("C", bound=type)
T = TypeVar("T")


def _slot(cls: type, name: str) -> Any:
    """The slot descriptor of field ``name``: on ``cls`` or the base class that declares it."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    raise TypeError(f"fast init of {cls.__name__}: field {name} has no slot")


def fast_init(cls: C) -> C:
    """Replace ``cls.__init__`` with a keyword-only one that sets slots directly."""
    if not (dataclasses.is_dataclass(cls) and "__slots__" in cls.__dict__):
        raise TypeError(f"fast_init.cls must be a slotted dataclass, got {cls!r}")
    if hasattr(cls, "__post_init__"):
        raise TypeError(
            f"fast init of {cls.__name__}: it has __post_init__; keep the generated __init__"
        )
    namespace: dict[str, Any] = {"_MISSING": dataclasses.MISSING}
    params: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cls):
        if not f.init:
            raise TypeError(
                f"fast init of {cls.__name__}: field {f.name} is init=False; not supported"
            )
        namespace[f"_set_{f.name}"] = _slot(cls, f.name).__set__
        if f.default is not dataclasses.MISSING:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"if {f.name} is _MISSING: {f.name} = _factory_{f.name}()")
        else:
            params.append(f.name)
        body.append(f"_set_{f.name}(self, {f.name})")
    source = f"def __init__(self, *, {', '.join(params)}):\n    " + "\n    ".join(body)
    exec(source, namespace)  # the source is built from field names only, never from data
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = {f.name: f.type for f in dataclasses.fields(cls)}
    init.__annotations__["return"] = None
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def positional_factory(cls: type[T], order: tuple[str, ...]) -> Callable[..., T]:
    """A private positional constructor for ``cls`` taking its fields in ``order``.

    For the hottest internal call sites only: skips keyword parsing and defaults entirely.
    ``order`` is the order the call site passes them in; it must name every field of ``cls``
    in declaration order, so reordering or adding a field fails at import, not silently.
    """
    names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    if names != order:
        raise TypeError(
            f"fast init of {cls.__name__}: fields are {names}; the positional call site passes "
            f"{order}"
        )
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    namespace.update({f"_set_{n}": _slot(cls, n).__set__ for n in names})
    body = "\n    ".join(f"_set_{n}(self, {n})" for n in names)
    source = f"def make({', '.join(names)}):\n    self = _new(_cls)\n    {body}\n    return self"
    exec(source, namespace)  # built from field names only, never from data
    make: Callable[..., T] = namespace["make"]
    return make
