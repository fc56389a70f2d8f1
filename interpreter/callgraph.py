"""Which procedure resolves which, and how deep everything nests: a pass before the checker.

Like Jinja2's ``idtracking``, this pass only reads the syntax tree.  It
finds every ``resolve`` so the checker can

- refuse procedures that call each other in a cycle,
- check callees before their callers (a caller then knows the type of each
  field of the outcome it reads), and
- refuse a ruleset whose procedures nest so deeply, counting blocks,
  expressions and calls through every procedure they resolve, that running
  them could exhaust Python's stack.

Everything here walks with explicit stacks: no recursion on the depth of
what a stranger wrote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from . import syntax
from .errors import DiagnosticList
from .ruleset import Ruleset

# Nesting levels one chain of calls may reach: a block, an expression inside
# another, a procedure resolved by another each count one.  The evaluator
# spends at most a few Python frames per level, so this keeps a run well
# inside Python's default recursion limit.  Not a game number.
MAX_NESTING = 150


@dataclass(frozen=True)
class CallSite:
    """One ``resolve`` of a procedure by another, with where it is written."""

    callee: str
    pos: syntax.Pos
    depth: int  # nesting levels above the call inside its procedure


@dataclass(frozen=True)
class CallGraph:
    """Which procedures resolve which, with nesting depths, an order callees first, and the procedures in a cycle."""

    calls: dict[str, tuple[CallSite, ...]]
    own_depth: dict[str, int]  # deepest nesting inside each procedure, calls not followed
    order: tuple[str, ...]  # callees before callers; procedures in a cycle are left out
    in_cycle: frozenset[str]


def children(node: object) -> Iterator[tuple[object, int]]:
    """The nodes directly inside ``node``, each with the nesting it adds (0 or 1)."""
    if isinstance(node, syntax.Block):
        for statement in node.statements:
            yield statement, 0
        return
    if isinstance(node, syntax.If):
        for condition, body in node.branches:
            yield condition, 1
            yield body, 1
        if node.otherwise is not None:
            yield node.otherwise, 1
        return
    for spec in dataclasses.fields(node):  # type: ignore[arg-type]
        value = getattr(node, spec.name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, (syntax.Expr, syntax.Block)):
                yield item, 1
            elif isinstance(item, (syntax.Arg, syntax.OutcomeField)):
                yield item.value, 1


def build_call_graph(ruleset: Ruleset, diagnostics: DiagnosticList) -> CallGraph:
    """The call graph of ``ruleset``'s procedures; cycles and excessive nesting reported."""
    condition_depth = {name: max((_depth(entry.condition)[0] for entry in modifiers.entries), default=0)
                       for name, modifiers in ruleset.modifiers.items()}
    calls: dict[str, tuple[CallSite, ...]] = {}
    own_depth: dict[str, int] = {}
    for name, procedure in ruleset.procedures.items():
        deepest, sites = _depth(procedure.body, condition_depth)
        calls[name] = tuple(site for site in sites if site.callee in ruleset.procedures)
        own_depth[name] = deepest
    order, in_cycle = _order(calls, ruleset, diagnostics)
    graph = CallGraph(calls, own_depth, order, frozenset(in_cycle))
    _check_nesting(graph, ruleset, diagnostics)
    return graph


def _depth(root: object, condition_depth: dict[str, int] | None = None) -> tuple[int, list[CallSite]]:
    """(deepest nesting under ``root``, the resolve sites with their nesting)."""
    deepest, sites = 0, []
    stack: list[tuple[object, int]] = [(root, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, syntax.Resolve):
            sites.append(CallSite(node.procedure, node.pos, level))
        if isinstance(node, syntax.ModifierSum) and condition_depth is not None:
            level += condition_depth.get(node.list_name, 0)
        deepest = max(deepest, level)
        for child, added in children(node):
            stack.append((child, level + added))
    return deepest, sites


def _order(calls: dict[str, tuple[CallSite, ...]], ruleset: Ruleset, diagnostics: DiagnosticList) -> tuple[tuple[str, ...], set[str]]:
    """Callees first (depth-first post-order, iterative); each cycle reported once."""
    state: dict[str, str] = {}
    order: list[str] = []
    in_cycle: set[str] = set()
    for start in ruleset.procedures:
        if start in state:
            continue
        state[start] = "active"
        path: list[str] = [start]
        pending: list[Iterator[CallSite]] = [iter(calls[start])]
        while pending:
            site = next(pending[-1], None)
            if site is None:
                pending.pop()
                finished = path.pop()
                state[finished] = "done"
                order.append(finished)
                continue
            callee = site.callee
            if state.get(callee) == "active":
                cycle = path[path.index(callee):] + [callee]
                if not in_cycle.issuperset(cycle):
                    diagnostics.add(site.pos.diagnostic(f"procedures call each other in a cycle: {' -> '.join(cycle)}"))
                in_cycle.update(cycle)
            elif callee not in state:
                state[callee] = "active"
                path.append(callee)
                pending.append(iter(calls[callee]))
    return tuple(name for name in order if name not in in_cycle), in_cycle


def _check_nesting(graph: CallGraph, ruleset: Ruleset, diagnostics: DiagnosticList) -> None:
    """Nesting through calls, callees first: report each procedure that reaches past MAX_NESTING once."""
    total: dict[str, tuple[int, tuple[str, ...]]] = {}
    too_deep: set[str] = set()
    for name in graph.order:
        best = graph.own_depth[name]
        chain: tuple[str, ...] = (name,)
        for site in graph.calls[name]:
            callee_total, callee_chain = total.get(site.callee, (0, (site.callee,)))
            through = site.depth + 1 + callee_total
            if through > best:
                best, chain = through, (name,) + callee_chain
        total[name] = (best, chain)
        if best <= MAX_NESTING:
            continue
        too_deep.add(name)
        if not too_deep.intersection(chain[1:]):  # report where it starts, not every caller above
            diagnostics.add(ruleset.procedures[name].pos.diagnostic(
                f"procedure '{name}' nests {best} levels deep ({_chain_text(chain)}), counting blocks, "
                f"expressions and resolved procedures; the limit is {MAX_NESTING}"
            ))


def _chain_text(chain: tuple[str, ...]) -> str:
    if len(chain) <= 8:
        return " -> ".join(chain)
    return " -> ".join(chain[:4]) + f" -> ... ({len(chain) - 6} more) -> " + " -> ".join(chain[-2:])


def _reached_nodes(ruleset: Ruleset, procedure: str) -> Iterator[object]:
    """Every syntax node ``procedure`` may run, in source order: its body, the bodies of the procedures it
    resolves (each once) and the conditions of the modifier lists they sum (each once)."""
    seen_procedures = {procedure}
    seen_modifiers: set[str] = set()
    seen_helpers: set[str] = set()
    stack: list[object] = [ruleset.procedures[procedure].body]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, syntax.Resolve) and node.procedure in ruleset.procedures and node.procedure not in seen_procedures:
            seen_procedures.add(node.procedure)
            stack.append(ruleset.procedures[node.procedure].body)
        elif isinstance(node, syntax.ModifierSum) and node.list_name in ruleset.modifiers and node.list_name not in seen_modifiers:
            seen_modifiers.add(node.list_name)
            stack.extend(entry.condition for entry in ruleset.modifiers[node.list_name].entries)
        elif isinstance(node, syntax.Call) and node.function in ruleset.functions and node.function not in seen_helpers:
            seen_helpers.add(node.function)  # a helper function's body runs where it is called
            stack.append(ruleset.functions[node.function].body)
        stack.extend(child for child, _ in reversed(list(children(node))))


def tables_read(ruleset: Ruleset, procedure: str) -> tuple[str, ...]:
    """Every table ``procedure`` may look up, itself, in the modifier conditions it sums, or through
    the procedures it resolves; in the order first met."""
    found = (node.table for node in _reached_nodes(ruleset, procedure) if isinstance(node, syntax.Lookup) and node.table in ruleset.tables)
    return tuple(dict.fromkeys(found))


def _reached(ruleset: Ruleset, procedure: str) -> tuple[frozenset[str], frozenset[str]]:
    """The procedures ``procedure`` may resolve (itself included), directly or through others, and the names they
    and the modifier lists they sum refer to (constants among them)."""
    procedures, names = {procedure}, set()
    for node in _reached_nodes(ruleset, procedure):
        if isinstance(node, syntax.Resolve) and node.procedure in ruleset.procedures:
            procedures.add(node.procedure)
        elif isinstance(node, syntax.Name):
            names.add(node.name)
    return frozenset(procedures), frozenset(names)


def readings(ruleset: Ruleset, procedure: str) -> tuple[str, ...]:
    """The topics of the notes whose reading (``procedures:``, ``constants:``) ``procedure``'s result may rest on."""
    if not any(note.procedures or note.constants for note in ruleset.notes):
        return ()
    procedures, names = _reached(ruleset, procedure)
    return tuple(
        note.topic for note in ruleset.notes
        if procedures.intersection(note.procedures) or names.intersection(note.constants)
    )


def illustrative_tables(ruleset: Ruleset, procedure: str) -> tuple[str, ...]:
    """The tables marked ``example: true`` (illustrative, not the game's own) that ``procedure`` may read."""
    return tuple(name for name in tables_read(ruleset, procedure) if ruleset.tables[name].example)
