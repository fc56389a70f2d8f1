"""Liveness: which slots are read later, before and after every statement (a backward pass).

Exact odds keep states made only of the live slots, so that states that
differ in dead variables merge; plays pass only live slots to an outlined
statement.  ``out`` is what is live after a statement, ``brk`` what is live
where a ``break`` lands (after the loop around it).  Loops iterate to a
fixed point.  Aggregate variables (``bound``) are never part of a state.
"""

from __future__ import annotations

from typing import Any

from .. import ir
from .visitor import NodeVisitor

Slots = frozenset[int]
NOTHING: Slots = frozenset()


class Liveness(NodeVisitor):
    """The live slots around each statement, block and loop head of one procedure (by node identity)."""

    covers = ir.STATEMENTS

    def __init__(self, bound: set[int]) -> None:
        self.bound = bound
        self.before: dict[int, Slots] = {}
        self.after: dict[int, Slots] = {}
        self.head: dict[int, Slots] = {}
        self.block_in: dict[int, Slots] = {}
        self._uses: dict[int, Slots] = {}

    def uses(self, expr: Any) -> Slots:
        """The slots ``expr`` reads (None reads nothing), bound ones left out; kept per node."""
        if expr is None:
            return NOTHING
        key = id(expr)
        found = self._uses.get(key)
        if found is None:
            slots = {node.slot for node in ir.walk(expr) if type(node) is ir.Local}
            found = self._uses[key] = frozenset(slots - self.bound)
        return found

    def block(self, block: ir.Block, out: Slots, brk: Slots) -> Slots:
        live = out
        for statement in reversed(block.statements):
            self.after[id(statement)] = live
            live = self.visitors[type(statement)](self, statement, live, brk)
            self.before[id(statement)] = live
        self.block_in[id(block)] = live
        return live

    def visit_Assign(self, s: ir.Assign, out: Slots, brk: Slots) -> Slots:
        return (out - {s.slot}) | self.uses(s.value)

    def visit_Roll(self, s: ir.Roll, out: Slots, brk: Slots) -> Slots:
        return (out - {s.slot}) | self.uses(s.count) | self.uses(s.sides) | self.uses(s.faces) | self.uses(s.reroll)

    def visit_CallProcedure(self, s: ir.CallProcedure, out: Slots, brk: Slots) -> Slots:
        used = NOTHING.union(*(self.uses(value) for _, value in s.args)) if s.args else NOTHING
        return (out - {s.slot}) | used

    def visit_Require(self, s: ir.Require, out: Slots, brk: Slots) -> Slots:
        return out | self.uses(s.condition)

    def visit_Note(self, s: ir.Note, out: Slots, brk: Slots) -> Slots:
        return out

    def visit_Outcome(self, s: ir.Outcome, out: Slots, brk: Slots) -> Slots:
        return NOTHING.union(*(self.uses(value) for _, value in s.fields)) if s.fields else NOTHING

    def visit_Break(self, s: ir.Break, out: Slots, brk: Slots) -> Slots:
        return brk

    def visit_If(self, s: ir.If, out: Slots, brk: Slots) -> Slots:
        live = NOTHING
        for condition, body in s.branches:
            live |= self.uses(condition) | self.block(body, out, brk)
        live |= self.block(s.otherwise, out, brk) if s.otherwise is not None else out
        return live

    def visit_ForLoop(self, s: ir.ForLoop, out: Slots, brk: Slots) -> Slots:
        carried = frozenset((s.sequence_slot, s.index_slot))
        head = carried | out
        while True:
            body_in = self.block(s.body, head, out)
            new = carried | out | (body_in - {s.var_slot})
            if new == head:
                break
            head = new
        self.head[id(s)] = head
        return (head - carried) | self.uses(s.iterable)

    def visit_WhileLoop(self, s: ir.WhileLoop, out: Slots, brk: Slots) -> Slots:
        # the round count is the solver's, not the states' (chains.py); a bound travels with its state
        carried = frozenset((s.limit_slot,)) if s.limit is not None else NOTHING
        head = carried | self.uses(s.condition) | out
        while True:
            body_in = self.block(s.body, head, out)
            new = carried | self.uses(s.condition) | out | body_in
            if new == head:
                break
            head = new
        self.head[id(s)] = head
        return (head - carried) | self.uses(s.limit)
