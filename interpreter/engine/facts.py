"""What the engine knows about a procedure's IR before it writes code: small passes, each with one job.

- :func:`structure`: per statement, whether it rolls (or calls), loops, how
  deeply its ``if``s nest, which slots it may assign; the aggregates'
  variables (never part of a state) and the loops' hidden slots.
- :func:`ranges`: slots known to hold an int in [low, high] (the total of a
  roll of literal dice, and ``let`` copies of it never set again).
- :class:`~.liveness.Liveness`: the slots live before and after every
  statement, at every block's start and every loop's head;
  :class:`~.liveness.FieldLiveness`: which fields of them a `while` loop's
  head state still needs.

:class:`Facts` runs them once per procedure and keeps the answers, keyed by
node identity (the IR's nodes are named tuples compared by nobody).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ir
from .liveness import FieldLiveness, FieldReads, Liveness
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
        # the fields of each variable read later, at a `while` loop's head (exact odds keep only those of an outcome)
        self.head_fields: dict[int, FieldReads] = {}
        if any(type(statement) is ir.WhileLoop for statement in ir.statements_in(procedure.body)):
            fields = FieldLiveness()
            fields.block(procedure.body, {}, {})
            self.head_fields = fields.head


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


def assigned_once(block: ir.Block) -> dict[int, ir.Assign]:
    """Slots that one statement writes, a ``let``, and nothing else: their value is that statement's wherever they
    are read (the checker lets a name be read only after its ``let``), by slot."""
    writes: dict[int, int] = {}
    lets: dict[int, ir.Assign] = {}
    for statement in ir.statements_in(block):
        for slot in written_slots(statement):
            writes[slot] = writes.get(slot, 0) + 1
        if type(statement) is ir.Assign and statement.declare:
            lets[statement.slot] = statement
    return {slot: let for slot, let in lets.items() if writes[slot] == 1}


def structure(block: ir.Block, facts: Facts) -> None:
    """Bound slots, rolls, loops, if-depth and assigned slots of every statement (children before parents)."""
    order = list(ir.statements_in(block))
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
    statements = list(ir.statements_in(block))
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


def free_locals_in(expr: Any) -> set[int]:
    """The slots an expression reads that it does not bind: an aggregate's own variable, bound inside its element and
    condition, is not among them (a function written for the expression takes these as its arguments)."""
    if type(expr) is ir.Local:
        return {expr.slot}
    if type(expr) is ir.Aggregate:
        inner = set().union(*(free_locals_in(part) for part in (expr.element, expr.condition) if part is not None))
        return free_locals_in(expr.collection) | (inner - {expr.slot})
    return set().union(*(free_locals_in(child) for child in ir.sub_expressions(expr)))


def outcome_key_slots(block: ir.Block, direct: Callable[[ir.CallProcedure], bool]) -> dict[int, str]:
    """Slots that may hold a resolved procedure's outcome key instead of its outcome value: slot -> procedure.

    Why: a play resolves a procedure about 171 times in a fifteen-a-side battle and its caller reads a field
    or two of each outcome; an ``OutcomeValue`` made and read by name cost more than the callee's own dice.
    A slot qualifies when every write to it is a call of one procedure whose inputs are built at the call
    (``direct``), or a ``let`` copy of a qualifying slot of the same procedure, and every read of it is the
    subject of a field (``x.hits``, ``x.outcome``) or such a copy: then no one sees the key but code that
    reads fields from it (see :class:`.expressions.Expressions`).  Anything else (passed on, compared, put
    in an outcome or a list) keeps the outcome value.
    """
    statements = list(ir.statements_in(block))
    writers: dict[int, list[Any]] = {}
    for statement in statements:
        for slot in written_slots(statement):
            writers.setdefault(slot, []).append(statement)
    other_reads = _reads_not_by_field(statements)
    owner: dict[int, str] = {}
    for slot, found in writers.items():
        calls = {s.procedure for s in found if type(s) is ir.CallProcedure}
        if slot not in other_reads and len(calls) <= 1 and all(_call_or_copy(s, direct) for s in found):
            owner[slot] = next(iter(calls), "")  # "": written by copies only, its procedure not known yet
    copies = [(s.slot, s.value.slot) for s in statements if type(s) is ir.Assign and type(s.value) is ir.Local]  # (target, source)
    while _settle(owner, copies):
        pass
    return {slot: procedure for slot, procedure in owner.items() if procedure}  # "": copies of copies only


def _reads_not_by_field(statements: list[Any]) -> set[int]:
    """Slots read other than as the subject of a field, or by a `let` copy (judged with its target)."""
    found: set[int] = set()
    for statement in statements:
        if type(statement) is ir.Assign and type(statement.value) is ir.Local:
            continue
        stack = list(ir.statement_expressions(statement))
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ir.Field and type(node.subject) is ir.Local:
                continue  # a field read: what a key answers
            if kind is ir.Local:
                found.add(node.slot)
            else:
                stack.extend(ir.sub_expressions(node))
    return found


def _settle(owner: dict[int, str], copies: list[tuple[int, int]]) -> bool:
    """One round of the fixed point of :func:`outcome_key_slots`; whether anything changed.  A copy into a slot
    that does not qualify sees the value itself (its source does not qualify either); a copy takes its source's
    procedure, and a slot whose copies bring another procedure, or a value that does not qualify, drops out."""
    changed = False
    for target, source in copies:
        if target not in owner and source in owner:
            del owner[source]
            changed = True
    copied_from: dict[int, list[int]] = {}
    for target, source in copies:
        copied_from.setdefault(target, []).append(source)
    for slot in list(owner):
        sources = [owner.get(source) for source in copied_from.get(slot, ())]
        procedures = ({owner[slot]} | {source for source in sources if source}) - {""}
        if None in sources or len(procedures) > 1:
            del owner[slot]
            changed = True
        elif procedures and owner[slot] == "":
            owner[slot] = procedures.pop()
            changed = True
    return changed


def _call_or_copy(statement: Any, direct: Callable[[ir.CallProcedure], bool]) -> bool:
    if type(statement) is ir.CallProcedure:
        return direct(statement)
    return type(statement) is ir.Assign and type(statement.value) is ir.Local


def read_input_places(procedure: ir.CheckedProcedure) -> tuple[int, ...] | None:
    """The places in ``procedure``'s inputs tuple (inputs, then choices) that its body reads, or None
    when it reads them all.

    A resolved call's exact result depends on these alone, so the memo of resolved calls keys it
    by them (runtime.Run.call_exact_read): calls that differ only in an input the callee never
    reads share one result instead of each working it out again.
    """
    read = {node.name for node in ir.walk(*procedure.body.statements) if type(node) is ir.InputRef}
    names = [spec.name for spec in procedure.inputs] + [choice.name for choice in procedure.choices]
    places = tuple(place for place, name in enumerate(names) if name in read)
    return None if len(places) == len(names) else places


def cannot_fail(e: Any) -> bool:
    """Can evaluating ``e`` neither raise nor charge the budget, whatever the run?  True only for: a constant; a
    variable, an input or an aggregate's item read; a field read the checker proves (``ir.Field.proven_field_type``:
    the subject is a record of a type with that field, interpreter/proven_types.py) of such a value; ``==``/``!=``
    of two such values (Python's equality of numbers, text, tuples and records); ``in``/``not in`` a constant list;
    ``and``/``or``/``not`` of such values.  Anything else may fail or charge (an index, arithmetic, a division, a
    call, an aggregate, a lookup, a guard, an ordering of values the checker cannot prove comparable).  An ``any``
    or ``all`` whose items all pass may stop at its first decisive item (playwork): no later item could have
    raised, and none charges."""
    kind = type(e)
    if kind in (ir.Const, ir.Local, ir.InputRef):
        return True
    if kind is ir.Field:
        return e.proven_field_type is not None and cannot_fail(e.subject)
    if kind is ir.Comparison:
        if e.op in ("==", "!="):
            return cannot_fail(e.left) and cannot_fail(e.right)
        return e.op in ("in", "notin") and type(e.right) is ir.Const and type(e.right.value) in (tuple, frozenset) and cannot_fail(e.left)
    if kind is ir.Logical:
        return cannot_fail(e.left) and cannot_fail(e.right)
    if kind is ir.Not:
        return cannot_fail(e.operand)
    return False
