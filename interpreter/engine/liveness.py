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


# ---- the fields of a value read later ------------------------------------------------------

# What is read of a slot: some of its fields by name, or the whole value (WHOLE).
WHOLE: None = None
FieldReads = dict[int, "frozenset[str] | None"]


class FieldLiveness(NodeVisitor):
    """Which fields of each variable are read later, at the head of every `while` loop (by node identity).

    Liveness keeps a variable or drops it; a resolved outcome kept in a loop's
    state may be read only by some of its fields afterwards (eia's ``battle``
    reads the losses of a round only in the round that made them).  Exact odds
    then keep the outcome with those fields alone (``runtime.Run.projected``),
    so that states differing only in fields never read again merge.  The same
    backward pass as :class:`Liveness`, a slot standing for its fields read
    (``x.f``, a destructuring) or for the whole value (any other read).
    """

    covers = ir.STATEMENTS

    def __init__(self) -> None:
        self.head: dict[int, FieldReads] = {}

    def uses(self, expr: Any) -> FieldReads:
        """What ``expr`` reads: a field of a variable (``x.f``) as that field, any other read as the whole."""
        found: FieldReads = {}
        stack = [expr] if expr is not None else []
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ir.Field and type(node.subject) is ir.Local:
                _join_one(found, node.subject.slot, frozenset((node.name,)))
            elif kind is ir.Local:
                found[node.slot] = WHOLE
            else:
                stack.extend(ir.sub_expressions(node))
        return found

    def block(self, block: ir.Block, out: FieldReads, brk: FieldReads) -> FieldReads:
        live = out
        for statement in reversed(block.statements):
            live = self.visitors[type(statement)](self, statement, live, brk)
        return live

    def visit_Assign(self, s: ir.Assign, out: FieldReads, brk: FieldReads) -> FieldReads:
        return _join(_without(out, s.slot), self.uses(s.value))

    def visit_Roll(self, s: ir.Roll, out: FieldReads, brk: FieldReads) -> FieldReads:
        live = _without(out, s.slot)
        for expr in (s.count, s.sides, s.faces, s.reroll):
            live = _join(live, self.uses(expr))
        return live

    def visit_CallProcedure(self, s: ir.CallProcedure, out: FieldReads, brk: FieldReads) -> FieldReads:
        live = _without(out, s.slot)
        for _, value in s.args:
            live = _join(live, self.uses(value))
        return live

    def visit_Require(self, s: ir.Require, out: FieldReads, brk: FieldReads) -> FieldReads:
        return _join(out, self.uses(s.condition))

    def visit_Note(self, s: ir.Note, out: FieldReads, brk: FieldReads) -> FieldReads:
        return out

    def visit_Outcome(self, s: ir.Outcome, out: FieldReads, brk: FieldReads) -> FieldReads:
        live: FieldReads = {}
        for _, value in s.fields:
            live = _join(live, self.uses(value))
        return live

    def visit_Break(self, s: ir.Break, out: FieldReads, brk: FieldReads) -> FieldReads:
        return brk

    def visit_If(self, s: ir.If, out: FieldReads, brk: FieldReads) -> FieldReads:
        live = self.block(s.otherwise, out, brk) if s.otherwise is not None else out
        for condition, body in s.branches:
            live = _join(_join(live, self.uses(condition)), self.block(body, out, brk))
        return live

    def visit_ForLoop(self, s: ir.ForLoop, out: FieldReads, brk: FieldReads) -> FieldReads:
        carried: FieldReads = {s.sequence_slot: WHOLE, s.index_slot: WHOLE}
        head = _join(carried, out)
        while True:
            new = _join(_join(carried, out), _without(self.block(s.body, head, out), s.var_slot))
            if new == head:
                break
            head = new
        return _join(_without(_without(head, s.sequence_slot), s.index_slot), self.uses(s.iterable))

    def visit_WhileLoop(self, s: ir.WhileLoop, out: FieldReads, brk: FieldReads) -> FieldReads:
        carried: FieldReads = {s.limit_slot: WHOLE} if s.limit is not None else {}
        head = _join(_join(carried, self.uses(s.condition)), out)
        while True:
            new = _join(_join(_join(carried, self.uses(s.condition)), out), self.block(s.body, head, out))
            if new == head:
                break
            head = new
        self.head[id(s)] = head
        return _join(_without(head, s.limit_slot) if s.limit is not None else head, self.uses(s.limit))


def _join_one(live: FieldReads, slot: int, fields: frozenset[str] | None) -> None:
    if slot in live:
        known = live[slot]
        live[slot] = WHOLE if known is None or fields is None else known | fields
    else:
        live[slot] = fields


def _join(a: FieldReads, b: FieldReads) -> FieldReads:
    if not b:
        return a
    joined = dict(a)
    for slot, fields in b.items():
        _join_one(joined, slot, fields)
    return joined


def _without(live: FieldReads, slot: int) -> FieldReads:
    if slot not in live:
        return live
    rest = dict(live)
    del rest[slot]
    return rest
