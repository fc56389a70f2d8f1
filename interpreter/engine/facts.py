"""What the engine knows about a procedure's IR before it writes code: small passes, each with one job.

- :func:`structure`: per statement, whether it rolls (or calls), loops, how
  deeply its ``if``s nest, which slots it may assign; the aggregates'
  variables (never part of a state) and the loops' hidden slots.
- :func:`ranges`: slots known to hold an int in [low, high] (the total of a
  roll of literal dice, and ``let`` copies of it never set again).
- :class:`~.liveness.Liveness`: the slots live before and after every
  statement, at every block's start and every loop's head.

:class:`Facts` runs them once per procedure and keeps the answers, keyed by
node identity (the IR's nodes are named tuples compared by nobody).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import ir
from .liveness import Liveness
from .visitor import NodeVisitor

MAX_INLINE_IFS = 24  # nested `if`s written inline in one function (deeper ones: a pass, or a function, of their own)


class Facts:
    """The answers of the analysis passes for one procedure."""

    def __init__(self, procedure: ir.CheckedProcedure) -> None:
        self.rolls: dict[int, bool] = {}  # statement contains a roll or a call
        self.loops: dict[int, bool] = {}  # statement contains a loop
        self.if_depth: dict[int, int] = {}  # nested `if`s inside a statement (itself included)
        self.assigned: dict[int, frozenset[int]] = {}  # slots a statement may assign
        self.bound: set[int] = set()  # aggregate variables: never part of a state
        self.sequence_slots: set[int] = set()  # a `for` loop's list and position: states carry them, plays do not
        structure(procedure.body, self)
        self.ranges: dict[int, tuple[int, int]] = ranges(procedure.body)  # slots known to hold an int in [low, high]
        liveness = Liveness(self.bound)
        liveness.block(procedure.body, frozenset(), frozenset())
        self.before = liveness.before  # live slots before each statement
        self.after = liveness.after  # live slots after each statement
        self.head = liveness.head  # live slots at a loop's head
        self.block_in = liveness.block_in  # live slots at a block's start
        self.uses = liveness.uses  # the slots an expression reads


def statements_in(block: ir.Block) -> Iterator[Any]:
    """Every statement inside ``block``, at any depth, parents before their children."""
    stack: list[Any] = [block]
    while stack:
        node = stack.pop()
        if type(node) is ir.Block:
            stack.extend(node.statements)
            continue
        yield node
        stack.extend(ir.statement_blocks(node))


class WrittenSlots(NodeVisitor):
    """The slots a statement writes itself (not those its blocks write)."""

    covers = ir.STATEMENTS

    def __call__(self, statement: Any) -> tuple[int, ...]:
        written: tuple[int, ...] = self.visitors[type(statement)](self, statement)
        return written

    def visit_Assign(self, s: ir.Assign) -> tuple[int, ...]:
        return (s.slot,)

    def visit_Roll(self, s: ir.Roll) -> tuple[int, ...]:
        return (s.slot,)

    def visit_CallProcedure(self, s: ir.CallProcedure) -> tuple[int, ...]:
        return (s.slot,)

    def visit_ForLoop(self, s: ir.ForLoop) -> tuple[int, ...]:
        return (s.var_slot, s.sequence_slot, s.index_slot)

    def visit_WhileLoop(self, s: ir.WhileLoop) -> tuple[int, ...]:
        return (s.count_slot, s.limit_slot)

    def visit_If(self, s: ir.If) -> tuple[int, ...]:
        return ()

    def visit_Outcome(self, s: ir.Outcome) -> tuple[int, ...]:
        return ()

    def visit_Break(self, s: ir.Break) -> tuple[int, ...]:
        return ()

    def visit_Require(self, s: ir.Require) -> tuple[int, ...]:
        return ()

    def visit_Note(self, s: ir.Note) -> tuple[int, ...]:
        return ()


written_slots = WrittenSlots()


def structure(block: ir.Block, facts: Facts) -> None:
    """Bound slots, rolls, loops, if-depth and assigned slots of every statement (children before parents)."""
    order = list(statements_in(block))
    for statement in order:
        for expr in ir.statement_expressions(statement):
            for node in ir.walk(expr):
                if type(node) is ir.Aggregate:
                    facts.bound.add(node.slot)
    for statement in reversed(order):
        kind = type(statement)
        key = id(statement)
        inner = [s for b in ir.statement_blocks(statement) for s in b.statements]
        facts.rolls[key] = kind in (ir.Roll, ir.CallProcedure) or any(facts.rolls[id(s)] for s in inner)
        facts.loops[key] = kind in (ir.ForLoop, ir.WhileLoop) or any(facts.loops[id(s)] for s in inner)
        facts.if_depth[key] = (1 if kind is ir.If else 0) + max((facts.if_depth[id(s)] for s in inner), default=0)
        assigned = set(written_slots(statement))
        if kind is ir.ForLoop:
            facts.sequence_slots.update((statement.sequence_slot, statement.index_slot))
        for s in inner:
            assigned |= facts.assigned[id(s)]
        facts.assigned[key] = frozenset(assigned)


def ranges(block: ir.Block) -> dict[int, tuple[int, int]]:
    """Slots that hold the total of a roll of literal dice, and `let` copies of them never `set` again."""
    statements = list(statements_in(block))
    writes: dict[int, int] = {}
    for s in statements:
        for slot in written_slots(s):
            writes[slot] = writes.get(slot, 0) + 1
    known: dict[int, tuple[int, int]] = {}
    for s in statements:
        if type(s) is ir.Roll and s.kind == "sum" and type(s.count) is ir.Const and type(s.sides) is ir.Const and writes.get(s.slot) == 1:
            count, sides = s.count.value, s.sides.value
            if type(count) is int and type(sides) is int and count >= 0 and sides >= 1:
                known[s.slot] = (count, count * sides)
    for s in statements:
        if type(s) is ir.Assign and type(s.value) is ir.Local and s.value.slot in known and writes.get(s.slot) == 1:
            known[s.slot] = known[s.value.slot]
    return known


def locals_in(expr: Any) -> set[int]:
    """The slots an expression reads (aggregate variables included)."""
    return {node.slot for node in ir.walk(expr) if type(node) is ir.Local}
