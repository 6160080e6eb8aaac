"""The expanded size of a schema: how many schema nodes one data node can be checked against.

Counted once at registration on the reference graph (memoised, so it costs the graph's size,
not the expansion's): every ``$ref`` counts as its target inlined. Refused:

* a cycle that never descends into the data (``$ref``/``allOf``/``not`` ... back to itself):
  evaluation would not terminate;
* recursion that can take two routes to the same place (two references to one recursive
  schema reached on the same data path): work would double at every level of the data;
* an expanded size over ``max_expanded_size``.

With neither cycle kind, each data node is checked against at most the expanded size in schema
nodes, so validating costs at most expanded size x data nodes (bounded per call).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Final

from ._refgraph import Targets
from ._walk import Json, SchemaRejected
from ._weight import weigh

__all__ = ["compare_weight", "expanded_size", "expanded_weight"]

Label = tuple[str, str | int | None] | None
"""``None``: same data node (in place); ``("p", name)``/``("i", index)``: that child;
``("p", None)``/``("i", None)``/``("k", None)``: any property / item / property name."""

_IN_PLACE: Final = ("not", "if", "then", "else")
_IN_PLACE_LISTS: Final = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAPS: Final = ("dependentSchemas", "dependencies")
_DESCENDING: Final[dict[str, Label]] = {
    "additionalProperties": ("p", None), "unevaluatedProperties": ("p", None),
    "propertyNames": ("k", None), "additionalItems": ("i", None), "contains": ("i", None),
    "unevaluatedItems": ("i", None),
}  # fmt: skip
_MAX_PAIRS: Final = 200_000

Edge = tuple[int, Label]


def _children(node: dict[str, Json]) -> Iterator[tuple[Json, Label]]:
    for key in _IN_PLACE:
        if key in node:
            yield node[key], None
    for key in _IN_PLACE_LISTS:
        for child in node.get(key) or ():  # type: ignore[union-attr]
            yield child, None
    for key in _IN_PLACE_MAPS:
        for child in (node.get(key) or {}).values():  # type: ignore[union-attr]
            if not isinstance(child, list):
                yield child, None
    for key, label in _DESCENDING.items():
        if key in node:
            yield node[key], label
    for name, child in (node.get("properties") or {}).items():  # type: ignore[union-attr]
        yield child, ("p", name)
    for child in (node.get("patternProperties") or {}).values():  # type: ignore[union-attr]
        yield child, ("p", None)
    yield from _items(node)


def _items(node: dict[str, Json]) -> Iterator[tuple[Json, Label]]:
    prefix = node.get("prefixItems")
    for index, child in enumerate(prefix if isinstance(prefix, list) else ()):
        yield child, ("i", index)
    items = node.get("items")
    if isinstance(items, list):
        for index, child in enumerate(items):
            yield child, ("i", index)
    elif items is not None:
        yield items, ("i", None)


def _graph(nodes: list[dict[str, Json]], targets: Targets) -> tuple[list[list[Edge]], list[int]]:
    """The reference graph: per node its edges to child nodes, and its boolean-schema leaves."""
    index = {id(node): i for i, node in enumerate(nodes)}
    graph: list[list[Edge]] = []
    leaves = [0] * len(nodes)
    for node in nodes:
        edges: list[Edge] = []
        pairs = [(c, None) for c in targets.get(id(node), ())]
        for child, label in [*_children(node), *pairs]:
            if isinstance(child, dict):
                edges.append((index[id(child)], label))
            else:
                leaves[len(graph)] += 1
        graph.append(edges)
    return graph, leaves


def expanded_size(nodes: list[dict[str, Json]], targets: Targets, limit: int) -> int:
    """The expanded size of ``nodes[0]`` (the root); ``SchemaRejected`` as described above."""
    graph, leaves = _graph(nodes, targets)
    _refuse_in_place_cycles(graph)
    components = _components(graph)
    for members in components:
        _refuse_ambiguous_recursion(graph, members)
    return _size(graph, leaves, components, limit)


def _refuse_in_place_cycles(graph: list[list[Edge]]) -> None:
    state = [0] * len(graph)  # 0 new, 1 on the stack, 2 done
    for start in range(len(graph)):
        if state[start]:
            continue
        stack = [(start, iter(graph[start]))]
        state[start] = 1
        while stack:
            node, edges = stack[-1]
            for child, label in edges:
                if label is not None:
                    continue
                if state[child] == 1:
                    raise SchemaRejected(
                        "schema has a reference cycle that never descends into the data "
                        "(validation would not terminate)"
                    )
                if state[child] == 0:
                    state[child] = 1
                    stack.append((child, iter(graph[child])))
                    break
            else:
                state[node] = 2
                stack.pop()


def _components(graph: list[list[Edge]]) -> list[list[int]]:
    """Strongly connected components, each after every component it reaches (Tarjan)."""
    order: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    for start in range(len(graph)):
        if start in order:
            continue
        work = [(start, iter(graph[start]))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for child, _label in edges:
                if child not in order:
                    order[child] = low[child] = len(order)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], order[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == order[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    out.append(members)
    return out


def _refuse_ambiguous_recursion(graph: list[list[Edge]], members: list[int]) -> None:
    """Within one recursive group: no two routes may read the same data path to one node
    (checked on the product of the group with itself, descending steps only)."""
    group = set(members)
    if len(members) == 1 and all(child not in group for child, _ in graph[members[0]]):
        return
    steps = _descending_steps(graph, group)
    frontier: list[tuple[int, int]] = []
    for node in members:
        options = steps[node]
        for i, (label, child) in enumerate(options):
            for other_label, other in options[i + 1 :]:
                if _compatible(label, other_label):
                    frontier.append(_pair(child, other))
    seen: set[tuple[int, int]] = set()
    while frontier:
        a, b = pair = frontier.pop()
        if a == b:
            raise SchemaRejected(
                "schema recursion can reach one subschema by two routes on the same data path "
                "(validation work would double at every level of the data)"
            )
        if pair in seen:
            continue
        seen.add(pair)
        if len(seen) > _MAX_PAIRS:
            raise SchemaRejected("schema recursion is too intricate to prove its work bounded")
        for label, child in steps[a]:
            for other_label, other in steps[b]:
                if _compatible(label, other_label):
                    frontier.append(_pair(child, other))


def _descending_steps(
    graph: list[list[Edge]], group: set[int]
) -> dict[int, list[tuple[Label, int]]]:
    """Per node: the descending steps into the group it takes through in-place edges."""
    steps: dict[int, list[tuple[Label, int]]] = {}

    def visit(node: int) -> list[tuple[Label, int]]:
        found = steps.get(node)
        if found is not None:
            return found
        out: list[tuple[Label, int]] = []
        for child, label in graph[node]:
            if child not in group:
                continue
            if label is None:
                out.extend(visit(child))
            else:
                out.append((label, child))
        if len(set(out)) != len(out):
            raise SchemaRejected(
                "schema recursion is entered twice from one place on the same data path "
                "(validation work would double at every level of the data)"
            )
        steps[node] = out
        return out

    for node in group:
        visit(node)
    return steps


def _compatible(one: Label, other: Label) -> bool:
    if one is None or other is None:
        return one is other
    return one[0] == other[0] and (one[1] is None or other[1] is None or one[1] == other[1])


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)


def _size(
    graph: list[list[Edge]], leaves: list[int], components: list[list[int]], limit: int
) -> int:
    """Most schema nodes any one data node is checked against, from the root (an upper bound).

    ``D(s) = sum(D(in-place child)) + leaves + max(1, max over one child's label class of
    sum(D(descending child)))``; a recursive group counts its members once (it is unambiguous)
    plus what it reaches outside itself.
    """
    root = _fold(
        graph,
        components,
        [1 + leaf for leaf in leaves],
        lambda here, extra: min(here - 1 + max(1, extra), limit + 1),
    )
    if root > limit:
        raise SchemaRejected(
            f"schema's expanded size (every $ref inlined: schema nodes one data node is "
            f"checked against) is more than max_expanded_size={limit:,}"
        )
    return root


def expanded_weight(nodes: list[dict[str, Json]], targets: Targets, own: list[int]) -> int:
    """Like the expanded size, with node ``i`` weighing ``own[i]`` (none for a node without
    weight): the most weight any one data node meets, every ``$ref`` inlined. Call it only on
    a graph ``expanded_size`` accepted (no in-place cycle, no ambiguous recursion)."""
    graph, _leaves = _graph(nodes, targets)
    return _fold(graph, _components(graph), own, lambda here, extra: here + extra)


def _fold(
    graph: list[list[Edge]],
    components: list[list[int]],
    own: list[int],
    close: Callable[[int, int], int],
) -> int:
    """The root's total over the component graph (every component after those it reaches):
    a component's own weights plus its in-place children's totals, then ``close(here, extra)``
    with ``extra`` the most its descending children put on one data node."""
    component_of = {node: c for c, members in enumerate(components) for node in members}
    sizes: list[int] = []
    for c, members in enumerate(components):
        here = 0
        below: list[tuple[Label, int]] = []
        for node in members:
            here += own[node]
            for child, label in graph[node]:
                target = component_of[child]
                if target == c:
                    continue
                if label is None:
                    here += sizes[target]
                else:
                    below.append((label, sizes[target]))
        extra = _widest_child(below) if len(members) == 1 else sum(w for _l, w in below)
        sizes.append(close(here, extra))
    return sizes[component_of[0]]


def _widest_child(below: list[tuple[Label, int]]) -> int:
    """The most work descending steps put on one child: named steps add to wildcards."""
    wild: dict[str, int] = {}
    named: dict[tuple[str, str | int], int] = {}
    for label, weight in below:
        assert label is not None
        kind, name = label
        if name is None:
            wild[kind] = wild.get(kind, 0) + weight
        else:
            named[(kind, name)] = named.get((kind, name), 0) + weight
    best = max(wild.values(), default=0)
    for (kind, _name), weight in named.items():
        best = max(best, weight + wild.get(kind, 0))
    return best


NODES_PER_COMPARE_UNIT: Final = 8
"""``enum``/``const`` data nodes that weigh one schema node in the work estimate."""


def compare_weight(nodes: Iterable[dict[str, Json]]) -> int:
    """What comparing a value with every ``enum`` and ``const`` of the schema costs, in schema
    nodes (added to the expanded size, an upper bound: each data node may be compared)."""
    data = 0
    for node in nodes:
        for keyword in ("enum", "const"):
            if keyword in node:
                data += weigh(node[keyword], 1 << 40)
    return data // NODES_PER_COMPARE_UNIT
