"""Integer arithmetic a play may do without checking each step against the run's integer bounds.

Every ``+``, ``-`` and ``*`` a play does is checked against ``rt.int_low .. rt.int_high``
(``LO <= (t := a + b) <= HI``: about ten opcodes).  Inside an aggregate that check is
repeated for every item: eia's ``divide_into_columns`` works out
``min(((i - 1) * parts) // count(fighting) + 1, parts)`` for each ship in each column,
three checked steps each time.  A statement can instead prove, once before it runs,
that no step can leave the bounds, and then do the steps as plain Python.

The proof (:func:`unchecked_arithmetic`): an expression is an int when it is an int
constant, ``count`` of a variable or input (a length), a variable of an aggregate over a
range whose ends are ints, a variable set only by its ``let`` of an int expression
(``facts.assigned_once``: wherever it is read it holds that let's value), or ``+``,
``-``, ``*``, ``//``, ``%``, ``-x``, ``abs``, ``min``, ``max`` or ``ceil_div`` of ints.
For such an expression, :class:`Magnitudes` writes the source of a number that is at
least the absolute value of the expression *and of every step inside it*, made only of
values that stay the same while the statement runs: a constant's value, a length
(``len(xs)``), a ``let`` variable's ``abs(v)``, an aggregate variable's range ends
bounded the same way; then ``a + b`` for a sum, a difference, a ``min``, a ``max``, a
quotient or a remainder (``|a // b| <= |a|`` for an int ``b`` other than 0, ``|a % b| <
|b|``; ``ceil_div`` likewise), ``a * b + a + b`` for a product (at least each factor too).
The statement computes ``magnitude <= HI`` once (Python's own ints: the sum cannot
overflow); the int bounds are symmetric (``Limits.derived``: ``LO == -HI``), so the
steps are then inside both.  When the test fails (a tiny ``max_int_bits``, huge lists)
every step is checked as before.  Division by 0 is still tested in place.

Values are immutable and an expression assigns nothing, so what the magnitude reads
before the statement is what the steps read during it.  Aggregate variables are read
only through their ranges' ends (an aggregate over a list of lists gives no bound).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .. import ir
from ..runtime import overflow

if TYPE_CHECKING:  # pragma: no cover - types only
    from .expressions import Expressions

# Arithmetic the play checks step by step (`//` and `%` by a constant other than 0 are written plain already).
CHECKED_OPERATORS = ("+", "-", "*")

# Functions of ints whose result is an int no larger than the sum of their arguments' magnitudes.
BOUNDED_FUNCTIONS = ("min", "max", "ceil_div", "abs")


class Magnitudes:
    """Sources of magnitudes (see the module docstring) for the expressions of one statement.

    ``lets``: variables set only by their ``let`` (facts.assigned_once); ``aggregate_slots``: every aggregate
    variable of the procedure (facts.bound), readable only through a range recorded in ``ranges`` while the
    walk is inside that aggregate; ``source`` gives the Python source of a variable or input."""

    def __init__(self, lets: Mapping[int, ir.Assign], aggregate_slots: set[int], source: Callable[[Any], str]) -> None:
        self.lets = lets
        self.aggregate_slots = aggregate_slots
        self.source = source
        self.ranges: dict[int, ir.Range] = {}

    def is_int(self, e: Any, seen: frozenset[int] = frozenset()) -> bool:
        """Whether ``e`` always gives an int (``seen``: let variables already being followed)."""
        kind = type(e)
        if kind is ir.Const:
            return type(e.value) is int
        if kind is ir.Local:
            if e.slot in self.aggregate_slots:
                span = self.ranges.get(e.slot)
                return span is not None and self.is_int(span.low, seen) and self.is_int(span.high, seen)
            let = self.lets.get(e.slot)
            return let is not None and e.slot not in seen and self.is_int(let.value, seen | {e.slot})
        if kind is ir.Arithmetic:
            return e.op in ("+", "-", "*", "//", "%") and self.is_int(e.left, seen) and self.is_int(e.right, seen)
        if kind is ir.Negate:
            return self.is_int(e.operand, seen)
        if kind is ir.CallFunction:
            return _counted_variable(e) is not None or (
                _bounded_call(e) and all(self.is_int(argument, seen) for argument in e.args))
        return False

    def magnitude(self, e: Any) -> str | None:
        """Source of a number at least ``|e|`` and the magnitude of every step inside ``e``, read from values that
        stay the same while the statement runs; None when ``e`` is not proven an int."""
        kind = type(e)
        if kind is ir.Const:
            return repr(abs(e.value)) if type(e.value) is int else None
        if kind is ir.Local:
            return self._variable(e)
        if kind is ir.Negate:
            return self.magnitude(e.operand)
        if kind is ir.CallFunction:
            counted = _counted_variable(e)
            if counted is not None:
                # an aggregate's own variable changes while the statement runs (and is unbound before it)
                return None if type(counted) is ir.Local and counted.slot in self.aggregate_slots else f"len({self.source(counted)})"
            if not _bounded_call(e):
                return None
            parts = [self.magnitude(argument) for argument in e.args]
            return _sum(parts)
        if kind is ir.Arithmetic and e.op in ("+", "-", "*", "//", "%"):
            left, right = self.magnitude(e.left), self.magnitude(e.right)
            if left is None or right is None:
                return None
            if e.op == "*":
                return f"({left} * {right} + {left} + {right})"
            return f"({left} + {right})"
        return None

    def _variable(self, e: ir.Local) -> str | None:
        if e.slot in self.aggregate_slots:
            span = self.ranges.get(e.slot)
            if span is None:
                return None
            low, high = self.magnitude(span.low), self.magnitude(span.high)
            if low is None or high is None:
                return None
            # 1 .. n: every item is at most n (an empty range has none)
            return high if type(span.low) is ir.Const and span.low.value in (0, 1) else f"({low} + {high})"
        return f"abs({self.source(e)})" if self.is_int(e) else None


def _sum(parts: list[str | None]) -> str | None:
    if any(part is None for part in parts):
        return None
    return "(" + " + ".join(part for part in parts if part is not None) + ")"


def _counted_variable(e: ir.CallFunction) -> Any:
    """The variable or input of ``count(xs)`` (a length: an int of its own), or None."""
    if e.function.name == "count" and len(e.args) == 1 and type(e.args[0]) in (ir.Local, ir.InputRef):
        return e.args[0]
    return None


def _bounded_call(e: ir.CallFunction) -> bool:
    name = e.function.name
    return name in BOUNDED_FUNCTIONS and (len(e.args) >= 2 if name in ("min", "max") else True)


def unchecked_arithmetic(value: Any, magnitudes: Magnitudes) -> list[tuple[ir.Arithmetic, str]]:
    """The outermost arithmetic inside an aggregate of ``value`` whose steps include a checked one and whose
    magnitude is proven (see the module docstring), each with its magnitude's source.  Outside aggregates a step
    runs once a statement: a test before the statement would cost what it saves."""
    found: list[tuple[ir.Arithmetic, str]] = []
    _search(value, magnitudes, found, inside=False)
    return found


def _search(e: Any, magnitudes: Magnitudes, found: list[tuple[ir.Arithmetic, str]], inside: bool) -> None:
    if type(e) is ir.Aggregate:
        _search(e.collection, magnitudes, found, inside)
        had = e.slot in magnitudes.ranges
        if type(e.collection) is ir.Range:
            magnitudes.ranges[e.slot] = e.collection
        try:
            for part in (e.element, e.condition):
                if part is not None:
                    _search(part, magnitudes, found, inside=True)
        finally:
            if not had:
                magnitudes.ranges.pop(e.slot, None)
        return
    if inside and type(e) is ir.Arithmetic and _has_checked_step(e):
        bound = magnitudes.magnitude(e)
        if bound is not None:
            found.append((e, bound))
            return
    for child in ir.sub_expressions(e):
        _search(child, magnitudes, found, inside)


def _has_checked_step(e: Any) -> bool:
    return any(type(node) is ir.Arithmetic and node.op in CHECKED_OPERATORS for node in ir.walk(e))


def prove_arithmetic(e: Expressions, value: Any) -> None:
    """Before an assignment of ``value`` in a play: for each arithmetic inside an aggregate whose steps are proven
    inside the integer bounds when its magnitude is at most HI (see the module docstring), that test written now
    into a local, which the arithmetic reads (:func:`both_forms`)."""
    e.unchecked_flags.clear()  # the last assignment's (its nodes are not met again)
    magnitudes = Magnitudes(e.c.play_lets, e.c.facts.bound, lambda leaf: variable_source(e, leaf))
    for node, magnitude in unchecked_arithmetic(value, magnitudes):
        proof = e.w.temp("ak")
        e.w.line(f"{proof} = {magnitude} <= {e.w.need('HI', 'rt.int_high')}")
        e.unchecked_flags[id(node)] = proof


def variable_source(e: Expressions, leaf: Any) -> str:
    return f"v{leaf.slot}" if type(leaf) is ir.Local else e.c.input_local(e.w, leaf.name)


def both_forms(e: Expressions, proof: str, write: Callable[[], str]) -> str:
    """Proven arithmetic (``write()`` gives its source): its plain steps when ``proof`` holds, else its checked ones
    (Expressions writes a step plain while ``unchecked_steps`` is set; a division still tests its divisor)."""
    e.unchecked_steps = True
    try:
        plain = write()
    finally:
        e.unchecked_steps = False
    return f"({plain} if {proof} else {write()})"


def _make_arithmetic(op: str) -> Callable[..., int]:
    apply = {"+": operator.add, "-": operator.sub, "*": operator.mul}[op]

    def run(rt: Any, pos: Any, left: int, right: int) -> int:
        result: int = apply(left, right)
        if result > rt.int_high or result < rt.int_low:
            overflow(rt, pos, left, op, right)
        return result

    return run


# + - * checked against the run's integer bounds, where the source cannot hold an assignment expression
CHECKED_ARITHMETIC = {op: _make_arithmetic(op) for op in ("+", "-", "*")}


# How many definitions a proof of positions follows before it gives up (lets of lets of lists...).
POSITIONS_DEPTH = 12


class Positions:
    """Which ints of a play are at least 1: a list's position read as ``xs[p]`` then needs no ``0 < p`` test in a
    statement's fast form (Expressions.assign), which leaves a position past the end to Python's IndexError.

    At least 1: an int constant of 1 or more; a variable of an aggregate or of a ``for`` over a range from such
    a constant, or over a list whose items all are; an item of such a list; a variable set only by its ``let`` of
    any of these.  A list whose items all are: a ``let`` of ``list(e for ...)`` whose ``e`` is (volley's
    ``own_places = list(i for i in 1 .. count(shooters) if ...)``), of such a list, or of ``if c then a else b``
    where both are.  A ``for`` variable counts
    when its loop is the only statement that writes it (so its body does not); an aggregate's variable when one
    aggregate alone has that slot."""

    def __init__(self, body: ir.Block, lets: Mapping[int, ir.Assign]) -> None:
        from .facts import written_slots

        self.lets = lets
        writes: dict[int, int] = {}
        self.loops: dict[int, ir.ForLoop] = {}
        for statement in ir.statements_in(body):
            for slot in written_slots(statement):
                writes[slot] = writes.get(slot, 0) + 1
            if type(statement) is ir.ForLoop:
                self.loops[statement.var_slot] = statement
        self.loops = {slot: loop for slot, loop in self.loops.items() if writes[slot] == 1}
        aggregates: dict[int, list[ir.Aggregate]] = {}
        for node in ir.walk(*body.statements):
            if type(node) is ir.Aggregate:
                aggregates.setdefault(node.slot, []).append(node)
        self.aggregates = {slot: found[0] for slot, found in aggregates.items() if len(found) == 1}

    def positive(self, e: Any, depth: int = 0) -> bool:
        """Whether ``e`` is always an int of 1 or more."""
        if depth > POSITIONS_DEPTH:
            return False
        kind = type(e)
        if kind is ir.Const:
            return type(e.value) is int and e.value >= 1
        if kind is ir.Index:
            return self.positive_items(e.subject, depth + 1)
        if kind is not ir.Local:
            return False
        walked = self.aggregates.get(e.slot)
        if walked is None:
            loop = self.loops.get(e.slot)
            walked_over = loop.iterable if loop is not None else None
        else:
            walked_over = walked.collection
        if walked_over is not None:
            if type(walked_over) is ir.Range:
                return self.positive(walked_over.low, depth + 1)
            return self.positive_items(walked_over, depth + 1)
        let = self.lets.get(e.slot)
        return let is not None and self.positive(let.value, depth + 1)

    def positive_items(self, e: Any, depth: int = 0) -> bool:
        """Whether ``e`` is always a list whose every item is an int of 1 or more."""
        if depth > POSITIONS_DEPTH:
            return False
        if type(e) is ir.Local:
            let = self.lets.get(e.slot)
            return let is not None and self.positive_items(let.value, depth + 1)
        if type(e) is ir.Conditional:
            return self.positive_items(e.then, depth + 1) and self.positive_items(e.otherwise, depth + 1)
        return type(e) is ir.Aggregate and e.function.name == "list" and self.positive(e.element, depth + 1)


def positive_read(e: Expressions, index: Any, subject: str, position: str) -> str | None:
    """``xs[p]`` in a play's fast form (Expressions.assign) where ``p`` is proven at least 1 (:class:`Positions`): the
    item read without a test (a position past the end raises IndexError, and the statement's tested form words
    the error); None anywhere else."""
    if e.fast_fields and subject.isidentifier() and e.c.positions.positive(index):
        e.fast_reads += 1
        return f"{subject}[{position} - 1]"
    return None
