"""Lint: table rows and columns no lookup can ever reach.

A 1d6 table printed with rows 1-8 where every lookup is ``t[1d6]`` (plus a
modifier list whose sum is known) never reads rows 7 and 8: the author most
likely meant another die, or forgot a modifier.  The pass reads the checked
procedures (the IR, where helpers are inlined and modifier lists are sums of
known entries) and works out, for every lookup's key, the values it can hold:
an interval of whole numbers (dice totals, literal numbers, bounded inputs,
``+ - *``, ``min``/``max``/``abs``, modifier sums, loops over a range) or a set
of texts (literals, enum inputs, choices).  Each possible key is then placed on
the table exactly as a play would place it (``tables.place``, ``tables.shift``),
so clamps, open headings and ``otherwise`` are read the same way.

It says nothing unless it is certain: a table whose lookups include one key it
cannot bound (a field, an index, a procedure's outcome, a loop that grows a
number) is skipped on that axis, and odds axes are skipped altogether.  The
value of a variable is the union over every place that writes it, with a
variable that depends on itself taken as unknown: a superset of what a play can
see, so a row found unreachable really is.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from . import ir
from .errors import Diagnostic
from .tables import Axis, OffTable, Placement, Table, place, shift

# How many keys (or shifts) one lookup's range may span and still be placed one by one; a wider range says nothing.
_MOST_KEYS = 10_000
# How deep an expression or a chain of variables is followed before its value is taken as unknown (no deep recursion).
_MOST_DEPTH = 60


class Numbers(NamedTuple):
    """Whole numbers from ``low`` to ``high`` (None: unbounded on that side)."""

    low: int | None
    high: int | None


class Texts(NamedTuple):
    """One of these texts."""

    values: frozenset[str]


Known = Numbers | Texts | None  # None: not known at load


def unreachable_cells(compiled: Mapping[str, ir.CheckedProcedure], warning: str) -> list[Diagnostic]:
    """A warning at every row or column heading that no lookup of its table can reach, each message starting ``warning``."""
    keys: dict[str, _TableKeys] = {}
    for procedure in compiled.values():
        values = _Values(procedure)
        for node in ir.walk(*procedure.body.statements):
            if type(node) is ir.Lookup:
                found = keys.setdefault(node.table.name, _TableKeys(node.table))
                found.add(values, node)
    return [diagnostic for found in keys.values() for diagnostic in found.warnings(warning)]


class _TableKeys:
    """Every lookup of one table: which row and column headings each can reach (None once one cannot be known)."""

    def __init__(self, table: Table):
        self.table = table
        self.rows: set[int] | None = set()
        self.columns: set[int] | None = set()
        self.row_keys: list[Known] = []
        self.column_keys: list[Known] = []

    def add(self, values: _Values, lookup: ir.Lookup) -> None:
        if self.rows is not None:
            row_key = values.of(lookup.row)
            self.row_keys.append(row_key)
            self.rows = _union(self.rows, _reached(self.table.rows, row_key, Numbers(0, 0), "row"))
        if self.table.columns is not None and lookup.column is None:
            self.columns = None  # not a lookup the checker lets through; nothing is said of the columns
        if self.columns is not None and self.table.columns is not None and lookup.column is not None:
            column_key = values.of(lookup.column)
            self.column_keys.append(column_key)
            shifts = Numbers(0, 0) if lookup.shift is None else values.of(lookup.shift)
            self.columns = _union(self.columns, _reached(self.table.columns, column_key, shifts, "column"))

    def warnings(self, warning: str) -> Iterator[Diagnostic]:
        table = self.table
        for axis, reached, known, what in ((table.rows, self.rows, self.row_keys, "row"), (table.columns, self.columns, self.column_keys, "column")):
            if axis is None or not reached or not known:
                continue  # not known; or every key falls off the table, a worse mistake (a constant key's own warning)
            for index, heading in enumerate(axis.headings):
                if index in reached or heading.pos is None:
                    continue
                yield heading.pos.diagnostic(
                    f"{warning}{what} '{heading.label}' of table '{table.name}' is never reached: its lookups' {what} keys "
                    f"{_describe(known)}, which reach only {_labels(axis, reached)}; a cell there is never read")


def _union(reached: set[int], more: set[int] | None) -> set[int] | None:
    return None if more is None else reached | more


def _reached(axis: Axis, key: Known, shifts: Known, what: str) -> set[int] | None:
    """The headings of ``axis`` that ``key`` (moved by ``shifts`` columns) can land on, as a play places it; None: not known."""
    if key is None or any(heading.ratio is not None for heading in axis.headings) or not isinstance(shifts, Numbers):
        return None
    keys = _keys(axis, key)
    moves = _span(shifts, _MOST_KEYS)
    if keys is None or moves is None:
        return None
    bases: set[int] = set()
    for value in keys:
        try:
            bases.add(place(axis, value, what).index)
        except OffTable:
            continue  # a play through this key stops: it reaches no heading
    reached: set[int] = set()
    for base in bases:
        for move in moves:
            try:
                index = shift(axis, Placement(base), move).index
            except OffTable:
                continue
            if 0 <= index < len(axis.headings):
                reached.add(index)
    return reached


def _keys(axis: Axis, key: Numbers | Texts) -> list[Any] | None:
    """The keys worth placing one by one: every text; the whole numbers of the range, cut to one beyond the headings' own
    bounds (a key further out lands where that one does); None when that is still too many."""
    if isinstance(key, Texts):
        return sorted(key.values)
    bounds = [bound for heading in axis.headings if heading.numeric for bound in (heading.low, heading.high) if bound is not None]
    low, high = key.low, key.high
    if bounds:
        below, beyond = min(bounds) - 1, max(bounds) + 1
        low = below if low is None else min(max(low, below), beyond)
        high = beyond if high is None else max(min(high, beyond), below)
    numbers = _span(Numbers(low, high), _MOST_KEYS)
    return None if numbers is None else list(numbers)


def _span(numbers: Numbers, most: int) -> range | None:
    if numbers.low is None or numbers.high is None or numbers.high - numbers.low >= most:
        return None
    return range(numbers.low, numbers.high + 1)


def _describe(known: list[Known]) -> str:
    """What the keys of every lookup can be, for the message: 'run 1 to 6', "are 'a' or 'b'"."""
    numbers = [key for key in known if isinstance(key, Numbers)]
    texts = sorted({text for key in known if isinstance(key, Texts) for text in key.values})
    parts = []
    if numbers:
        joined = _join_all(numbers)
        parts.append(f"run {_show_numbers(joined)}")
    if texts:
        shown = ", ".join(repr(text) for text in texts[:8]) + (", ..." if len(texts) > 8 else "")
        parts.append(f"name only {shown}")
    return " and ".join(parts)


def _show_numbers(numbers: Numbers) -> str:
    if numbers.low is None:
        return f"up to {numbers.high}"
    if numbers.high is None:
        return f"from {numbers.low} up"
    return f"{numbers.low} to {numbers.high}" if numbers.low != numbers.high else f"only {numbers.low}"


def _labels(axis: Axis, reached: set[int]) -> str:
    labels = [f"'{axis.headings[index].label}'" for index in sorted(reached)]
    if not labels:
        return "no heading"
    return ", ".join(labels[:8]) + (", ..." if len(labels) > 8 else "")


def _join_all(numbers: list[Numbers]) -> Numbers:
    joined = numbers[0]
    for more in numbers[1:]:
        joined = _join_numbers(joined, more)
    return joined


def _join_numbers(a: Numbers, b: Numbers) -> Numbers:
    low = None if a.low is None or b.low is None else min(a.low, b.low)
    high = None if a.high is None or b.high is None else max(a.high, b.high)
    return Numbers(low, high)


def _join(a: Known, b: Known) -> Known:
    if isinstance(a, Numbers) and isinstance(b, Numbers):
        return _join_numbers(a, b)
    if isinstance(a, Texts) and isinstance(b, Texts):
        return Texts(a.values | b.values)
    return None


class _Values:
    """What each expression of one checked procedure can hold, worked out on demand.

    A variable's value is the union over every statement that writes it; a variable read while its own value is being
    worked out (``set n = n + 1``), or a chain deeper than ``_MOST_DEPTH``, is not known.
    """

    def __init__(self, procedure: ir.CheckedProcedure):
        self.procedure = procedure
        self.writes: dict[int, list[Any]] = {}  # slot -> the statements (or loop iterables) that write it
        for statement in ir.statements_in(procedure.body):
            kind = type(statement)
            if kind is ir.Assign or kind is ir.Roll or kind is ir.CallProcedure:
                self.writes.setdefault(statement.slot, []).append(statement)
            elif kind is ir.ForLoop:
                self.writes.setdefault(statement.var_slot, []).append(statement)
        self.known: dict[int, Known] = {}
        self.pending: set[int] = set()

    def of(self, expr: Any, depth: int = 0) -> Known:
        """What ``expr`` can hold; None when that is not known."""
        if depth > _MOST_DEPTH:
            return None
        kind = type(expr)
        if kind is ir.Const:
            return _constant(expr.value)
        if kind is ir.Local:
            return self._slot(expr.slot, depth + 1)
        if kind is ir.InputRef:
            return self._input(expr.name)
        if kind is ir.Guard:
            return self.of(expr.value, depth + 1)
        if kind is ir.Negate:
            operand = self.of(expr.operand, depth + 1)
            return Numbers(_negated(operand.high), _negated(operand.low)) if isinstance(operand, Numbers) else None
        if kind is ir.Arithmetic:
            return _arithmetic(expr.op, self.of(expr.left, depth + 1), self.of(expr.right, depth + 1))
        if kind is ir.Conditional:
            return _join(self.of(expr.then, depth + 1), self.of(expr.otherwise, depth + 1))
        if kind is ir.CallFunction:
            return self._call(expr, depth)
        if kind is ir.ModifierSum:
            values = [entry.value for entry, _ in expr.entries]
            return Numbers(sum(min(0, value) for value in values), sum(max(0, value) for value in values))
        if kind is ir.Lookup:
            return _cells(expr.table)
        return None

    def _call(self, expr: ir.CallFunction, depth: int) -> Known:
        name = expr.function.name
        if name in ("min", "max") and len(expr.args) >= 2:
            arguments = [self.of(arg, depth + 1) for arg in expr.args]
            if not all(isinstance(arg, Numbers) for arg in arguments):
                return None
            return _min_max(name, [arg for arg in arguments if isinstance(arg, Numbers)])
        if name == "abs" and len(expr.args) == 1:
            operand = self.of(expr.args[0], depth + 1)
            return _absolute(operand) if isinstance(operand, Numbers) else None
        return None

    def _slot(self, slot: int, depth: int) -> Known:
        if slot in self.known:
            return self.known[slot]
        writes = self.writes.get(slot)
        if not writes or slot in self.pending or depth > _MOST_DEPTH:
            return None
        self.pending.add(slot)
        value: Known = self._written(writes[0], depth)
        for write in writes[1:]:
            if value is None:
                break
            value = _join(value, self._written(write, depth))
        self.pending.discard(slot)
        self.known[slot] = value
        return value

    def _written(self, statement: Any, depth: int) -> Known:
        """What one statement writes into its slot."""
        kind = type(statement)
        if kind is ir.Assign:
            return self.of(statement.value, depth + 1)
        if kind is ir.Roll:
            return self._roll(statement, depth)
        if kind is ir.ForLoop:
            return self._element(statement.iterable, depth)
        return None  # a procedure's outcome

    def _roll(self, roll: ir.Roll, depth: int) -> Known:
        """A total of ``count`` dice of ``sides`` faces (1 to sides each, re-rolled or not), or how many succeed."""
        count, sides = self.of(roll.count, depth + 1), self.of(roll.sides, depth + 1)
        if not isinstance(count, Numbers) or count.low is None or count.high is None or count.low < 0:
            return None
        if roll.kind == "successes":
            return Numbers(0, count.high)
        if roll.kind != "sum" or not isinstance(sides, Numbers) or sides.low is None or sides.high is None or sides.low < 1:
            return None
        return Numbers(count.low, count.high * sides.high)

    def _element(self, iterable: Any, depth: int) -> Known:
        """What a `for` loop's variable holds: a number of a range, or an item of a list known at load."""
        if type(iterable) is ir.Range:
            low, high = self.of(iterable.low, depth + 1), self.of(iterable.high, depth + 1)
            if isinstance(low, Numbers) and isinstance(high, Numbers):
                return Numbers(low.low, high.high)
            return None
        if type(iterable) is ir.Const and isinstance(iterable.value, tuple) and iterable.value:
            items = [_constant(item) for item in iterable.value]
            value = items[0]
            for item in items[1:]:
                value = _join(value, item)
            return value
        return None

    def _input(self, name: str) -> Known:
        from .values import IntType, StrType

        spec = self.procedure.input(name)
        if spec is not None:
            if isinstance(spec.type, IntType):
                return Numbers(spec.type.low, spec.type.high)
            if isinstance(spec.type, StrType) and spec.type.values:
                return Texts(frozenset(spec.type.values))
            return None
        choice = self.procedure.choice(name)
        return Texts(frozenset(choice.options)) if choice is not None and choice.options else None


def _constant(value: Any) -> Known:
    if type(value) is int:
        return Numbers(value, value)
    if type(value) is str:
        return Texts(frozenset((value,)))
    return None


def _cells(table: Table) -> Known:
    """Any cell of ``table`` (and its result below the first odds column), when all are numbers or all texts."""
    values: list[Any] = [cell for row in table.cells for cell in row]
    for axis in (table.rows, table.columns):
        if axis is not None and axis.below_value is not None:
            values.append(axis.below_value)
    if values and all(type(value) is int for value in values):
        return Numbers(min(values), max(values))
    if values and all(type(value) is str for value in values):
        return Texts(frozenset(values))
    return None


def _negated(bound: int | None) -> int | None:
    return None if bound is None else -bound


def _arithmetic(op: str, left: Known, right: Known) -> Known:
    if not isinstance(left, Numbers) or not isinstance(right, Numbers):
        return None
    if op == "+":
        return Numbers(_add(left.low, right.low), _add(left.high, right.high))
    if op == "-":
        return Numbers(_add(left.low, _negated(right.high)), _add(left.high, _negated(right.low)))
    if op == "*" and None not in (left.low, left.high, right.low, right.high):
        products = [a * b for a in (left.low, left.high) for b in (right.low, right.high)]  # type: ignore[operator]  # none is None: tested above
        return Numbers(min(products), max(products))
    if op == "//" and right.low is not None and right.low == right.high and right.low > 0:
        divisor = right.low
        return Numbers(None if left.low is None else left.low // divisor, None if left.high is None else left.high // divisor)
    if op == "%" and right.low is not None and right.low == right.high and right.low > 0:
        return Numbers(0, right.low - 1)
    return None


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _min_max(name: str, arguments: list[Numbers]) -> Numbers:
    """min(a, b, ...) or max(a, b, ...) of ranges: the least (or greatest) of the lows, and of the highs."""
    lows = [arg.low for arg in arguments]
    highs = [arg.high for arg in arguments]
    if name == "min":
        low = None if None in lows else min(low for low in lows if low is not None)
        bounded = [high for high in highs if high is not None]
        return Numbers(low, min(bounded) if bounded else None)
    bounded = [low for low in lows if low is not None]
    high = None if None in highs else max(high for high in highs if high is not None)
    return Numbers(max(bounded) if bounded else None, high)


def _absolute(operand: Numbers) -> Numbers:
    if operand.low is not None and operand.low >= 0:
        return operand
    if operand.high is not None and operand.high <= 0:
        return Numbers(_negated(operand.high), _negated(operand.low))
    if operand.low is None or operand.high is None:
        return Numbers(0, None)
    return Numbers(0, max(-operand.low, operand.high))
