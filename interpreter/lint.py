"""Lint: what a ruleset that loads may still get wrong.

The checker (checker.py) decides whether a ruleset can run at all and refuses
it when not.  This pass only reads a ruleset that loaded and warns where it
most likely does not say what its author meant: an odds column looked up with
a whole number, a lookup key known at load that matches no row, an index no
list could hold, one outcome name with two sets of fields, one field name
averaged over outcomes that may mean different things, and constants, tables,
modifier lists and types nothing uses, and (lint_cells.py) table rows and
columns no lookup can reach.  ``check`` prints each as
``file:line:column: warning: ...``; ``check --strict`` makes them errors.
Warnings never change whether a ruleset loads: a ruleset written against an
older wartable still loads unchanged.

Like Jinja2's idtracking, it walks each procedure once, in order, keeping what
each local name was bound to (odds, a whole number, something else) and
collecting every name that anything uses; the walk keeps its own stack, never
recursing on the depth of a stranger's expression.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from . import syntax
from .errors import Diagnostic
from .lint_cells import unreachable_cells
from .load_limits import DEFAULT_LOAD_LIMITS
from .ruleset import Procedure, Ruleset
from .tables import OffTable, Table, place
from .values import IntType, ListType, RecordType, Type

WARNING = "warning: "

# What an expression is, as far as its syntax and the names it reads tell.
ODDS, NUMBER, OTHER = "odds", "number", "other"
_NUMBER_FUNCTIONS = frozenset({"count", "sum", "abs", "ceil_div", "successes"})
_NUMBER_AGGREGATES = frozenset({"count", "sum"})
_ARITHMETIC = frozenset({"+", "-", "*", "//", "%"})


def lint(ruleset: Any) -> tuple[Diagnostic, ...]:
    """Every warning about ``ruleset`` (a CompiledRuleset or its model), in file order; each message starts ``warning: ``."""
    model: Ruleset = getattr(ruleset, "model", ruleset)
    compiled = getattr(ruleset, "compiled", {})
    numbers = {
        name: frozenset(f for f, field_type in checked.outcome_type.fields if isinstance(field_type, IntType)) for name, checked in compiled.items()
    }
    named_from = {name: _outcome_from_names(checked) for name, checked in compiled.items()}
    everything = [*_Linter(model, numbers, named_from).run(), *unreachable_cells(compiled, WARNING)]
    found = sorted(dict.fromkeys(everything), key=lambda d: (d.file, d.line, d.column, d.message))
    cap = DEFAULT_LOAD_LIMITS.max_diagnostics  # a stranger's 5,000 unused constants print 100 warnings and a count
    if len(found) > cap:
        rest = found[cap]
        found[cap:] = [Diagnostic(rest.file, rest.line, rest.column,
                                  f"{WARNING}... and {len(found) - cap:,} more warnings (the first {cap} are shown)", rest.line_text)]
    return tuple(found)


def as_errors(warnings: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """The warnings as errors (``check --strict``): the same positions, without the ``warning: `` mark."""
    return tuple(Diagnostic(d.file, d.line, d.column, d.message.removeprefix(WARNING), d.line_text) for d in warnings)


class _Linter:
    """One pass over one ruleset: the warnings found, and every constant, table, modifier list and type named."""

    def __init__(self, model: Ruleset, numbers: dict[str, frozenset[str]], named_from: dict[str, dict[syntax.Pos, tuple[str, ...]]]):
        self.model = model
        self.numbers = numbers  # per checked procedure, its outcome fields that are whole numbers (what odds averages)
        self.named_from = named_from  # per checked procedure, the names each `outcome from` makes (by the statement's position)
        self.found: list[Diagnostic] = []
        self.used: set[str] = set()  # constants, tables and modifier lists named anywhere

    def warn(self, pos: syntax.Pos | None, message: str) -> None:
        if pos is not None:
            self.found.append(pos.diagnostic(WARNING + message))

    def run(self) -> list[Diagnostic]:
        for modifier_list in self.model.modifiers.values():
            for entry in modifier_list.entries:
                for expr in _walk(entry.condition):
                    self._expression(expr, _Bindings(None, self.model))
        for helper in self.model.functions.values():
            # A helper's body is checked where it is called; here it only marks what it names as used
            # (a constant read by a helper alone is used), so its parameters are no bindings of a procedure.
            for expr in _walk(helper.body):
                self._expression(expr, _Bindings(None, self.model))
        for procedure in self.model.procedures.values():
            self._procedure(procedure)
        for table in self.model.tables.values():
            self._odds_categories(table)
        self._unused()
        return self.found

    # ---- one procedure -----------------------------------------------------------------

    def _procedure(self, procedure: Procedure) -> None:
        bindings = _Bindings(procedure, self.model)
        outcomes: list[tuple[syntax.Outcome, object]] = []  # each outcome and where its fields come from (one statement)
        named_from = self.named_from.get(procedure.name, {})
        for statement, expressions in _statements(procedure.body):
            for expression in expressions:
                for expr in _walk(expression):
                    self._expression(expr, bindings)
            if isinstance(statement, (syntax.Let, syntax.Set)):
                bindings.bind(statement.name, bindings.kind(statement.value))
            elif isinstance(statement, syntax.Destructure):
                for binding in statement.bindings:
                    bindings.bind(binding.name, OTHER)
            elif isinstance(statement, syntax.For):
                bindings.bind(statement.var, NUMBER if isinstance(statement.iterable, syntax.RangeExpr) else OTHER)
            elif isinstance(statement, syntax.Outcome):
                outcomes.append((statement, statement.name))
            elif isinstance(statement, syntax.OutcomeFrom):
                # One outcome a text the value can hold, each with the statement's fields (as the checker makes them);
                # the fields are one expression for all of them, so they mean one thing across those names.
                outcomes.extend((syntax.Outcome(statement.pos, name, statement.fields, statement.rule), id(statement))
                                for name in named_from.get(statement.pos, ()))
        self._outcome_fields(procedure, outcomes)

    def _expression(self, expr: syntax.Expr, bindings: _Bindings) -> None:
        if isinstance(expr, (syntax.Name, syntax.Call)):  # a call uses its helper function, or its type (a record literal)
            self.used.add(expr.name if isinstance(expr, syntax.Name) else expr.function)
        elif isinstance(expr, syntax.ModifierSum):
            self.used.add(expr.list_name)
        elif isinstance(expr, syntax.Lookup):
            self.used.add(expr.table)
            self._lookup(expr, bindings)
        elif isinstance(expr, syntax.Index):
            self._index(expr, bindings)

    def _lookup(self, expr: syntax.Lookup, bindings: _Bindings) -> None:
        table = self.model.tables.get(expr.table)
        if table is None:
            return
        for name, value in _lookup_keys(expr):
            axis = table.rows if name == "row" else table.columns
            if axis is None:
                continue
            odds_axis = any(h.ratio is not None for h in axis.headings)
            if odds_axis and bindings.kind(value) == NUMBER:
                self.warn(value.pos, f"the odds {name}s of table '{table.name}' are looked up with a whole number, not ratio(...): "
                                     "attack // defense reads 1 against 2 as 0, below every column, where ratio(attack, defense) "
                                     "reads the 1:2 column; write ratio(attack, defense)")
            self._constant_key(table, name, value, bindings)

    def _constant_key(self, table: Table, name: str, value: syntax.Expr, bindings: _Bindings) -> None:
        """A key known at load (a literal, a constant) that matches no row or column: every play through it stops."""
        key = bindings.constant(value)
        axis = table.rows if name == "row" else table.columns
        if key is None or axis is None or isinstance(key, (bool, tuple)):
            return
        try:
            place(axis, key, name)
        except OffTable as error:
            self.warn(value.pos, f"the {name} key {key!r} matches no {name} of table '{table.name}' ({error.message}): every play "
                                 "through this lookup stops there")

    def _index(self, expr: syntax.Index, bindings: _Bindings) -> None:
        """An index known at load that no list holds (below 1), or past a list whose length is known at load too."""
        position = bindings.constant(expr.index)
        if type(position) is not int:
            return
        known = bindings.constant(expr.subject)
        length = len(known) if isinstance(known, tuple) else len(expr.subject.items) if isinstance(expr.subject, syntax.ListLit) else None
        if position < 1 or (length is not None and position > length):
            within = f"1 to {length}" if length is not None else "lists are indexed from 1"
            self.warn(expr.index.pos, f"index {position} is outside the list ({within}): every play through it stops there")

    def _outcome_fields(self, procedure: Procedure, outcomes: list[tuple[syntax.Outcome, object]]) -> None:
        """One outcome name, one set of fields.  A number field several outcomes carry but not all may mean a different
        thing in each (the attacker's subs left in one, the defender's in another): odds averages them as one mean.
        A field every outcome carries is taken as the procedure's own; true/false fields are not averaged; a field
        given once for every name of one ``outcome from`` is one expression, so one meaning (its origin is the statement)."""
        first: dict[str, syntax.Outcome] = {}
        carriers: dict[str, dict[str, syntax.OutcomeField]] = {}  # field -> outcome name -> where it is first given
        origins: dict[str, set[object]] = {}  # field -> the outcome names or `outcome from` statements that give it
        for outcome, origin in outcomes:
            names = [f.name for f in outcome.fields]
            earlier = first.setdefault(outcome.name, outcome)
            earlier_names = [f.name for f in earlier.fields]
            if sorted(names) != sorted(earlier_names):
                self.warn(outcome.pos, f"outcome {outcome.name} carries {_fields(names)} here but {_fields(earlier_names)} at line "
                                       f"{earlier.pos.line}: one outcome name should carry one set of fields; give each its own name")
            for item in outcome.fields:
                carriers.setdefault(item.name, {}).setdefault(outcome.name, item)
                origins.setdefault(item.name, set()).add(origin)
        numbers = self.numbers.get(procedure.name)
        for field_name, by_outcome in carriers.items():
            if 2 <= len(by_outcome) < len(first) and len(origins[field_name]) >= 2 and (numbers is None or field_name in numbers):
                names = list(by_outcome)
                without = [name for name in first if name not in by_outcome]
                self.warn(by_outcome[names[1]].pos, f"field '{field_name}' is carried by outcomes {_names(names)} (not by {_names(without)}): "
                                                    f"odds averages it over all of them as one mean; if it means a different thing in "
                                                    f"each, give it distinct names ({names[0]}_{field_name}, {names[1]}_{field_name})")

    # ---- tables ----------------------------------------------------------------------

    def _odds_categories(self, table: Table) -> None:
        """A category among odds columns (the checker refuses numbers and headings that name odds): only a text key reads it."""
        for axis in (table.rows, table.columns):
            if axis is None or not any(h.ratio is not None for h in axis.headings):
                continue
            for heading in axis.headings:
                if heading.ratio is None and not heading.numeric:
                    self.warn(heading.pos, f"heading '{heading.label}' of table '{table.name}' is a category among odds headings: "
                                           "ratio(...) never reads it, only a text key; for odds below the first column say `below:`")

    # ---- what nothing uses -------------------------------------------------------------

    def _unused(self) -> None:
        model = self.model
        for name, constant in model.constants.items():
            if name not in self.used:
                self.warn(constant.pos, f"constant '{name}' is never used")
        for name, table in model.tables.items():
            if name not in self.used:
                self.warn(table.pos, f"table '{name}' is never looked up")
        for name, modifier_list in model.modifiers.items():
            if name not in self.used:
                self.warn(modifier_list.pos, f"modifier list '{name}' is never used")
        for name, helper in model.functions.items():
            if name not in self.used:
                self.warn(helper.pos, f"function '{name}' is never called")
        reached = _types_reached(model)
        for name, declared in model.types.items():
            if id(declared) not in reached and name not in self.used:
                self.warn(model.type_positions.get(name), f"type '{name}' is never used")


class _Bindings:
    """What each local name of one procedure was bound to so far (odds, a whole number, other), and what names mean."""

    def __init__(self, procedure: Procedure | None, model: Ruleset):
        self.procedure = procedure
        self.model = model
        self.locals: dict[str, set[str]] = {}

    def bind(self, name: str, kind: str) -> None:
        self.locals.setdefault(name, set()).add(kind)

    def _name_kind(self, name: str) -> str:
        if name in self.locals:
            kinds = self.locals[name]
            return ODDS if ODDS in kinds else NUMBER if kinds == {NUMBER} else OTHER
        spec = self.procedure.input(name) if self.procedure is not None else None
        if spec is not None:
            return NUMBER if isinstance(spec.type, IntType) else OTHER
        constant = self.model.constants.get(name)
        return NUMBER if constant is not None and type(constant.value) is int else OTHER

    def kind(self, expr: syntax.Expr) -> str:
        """ODDS, NUMBER or OTHER: what ``expr`` gives, from its syntax and the names it reads (shallow: no recursion)."""
        leaf = self._leaf(expr)
        if leaf is not None:
            return leaf
        if isinstance(expr, syntax.Aggregate):
            return NUMBER if expr.function in _NUMBER_AGGREGATES else OTHER
        if isinstance(expr, syntax.Binary) and expr.op in _ARITHMETIC:
            sides = {self._shallow(expr.left), self._shallow(expr.right)}
            return NUMBER if sides == {NUMBER} else OTHER
        if isinstance(expr, syntax.Negate):
            return NUMBER if self._shallow(expr.operand) == NUMBER else OTHER
        if isinstance(expr, syntax.Conditional):
            sides = {self._shallow(expr.then), self._shallow(expr.otherwise)}
            return sides.pop() if len(sides) == 1 else OTHER
        return OTHER

    def _shallow(self, expr: syntax.Expr) -> str:
        """The kind of an operand, read one level deep (a name, a literal, a call): enough for `a // d`."""
        leaf = self._leaf(expr)
        return OTHER if leaf is None else leaf

    def _leaf(self, expr: syntax.Expr) -> str | None:
        """The kind of a literal, a name or a call; None for any other expression."""
        if isinstance(expr, (syntax.IntLit, syntax.Dice, syntax.ModifierSum)):
            return NUMBER
        if isinstance(expr, syntax.Name):
            return self._name_kind(expr.name)
        if isinstance(expr, syntax.Call):
            return ODDS if expr.function == "ratio" else NUMBER if expr.function in _NUMBER_FUNCTIONS else OTHER
        return None

    def constant(self, expr: syntax.Expr) -> Any:
        """The value of a literal number or text, or of a constant no local or input hides; else None."""
        if isinstance(expr, (syntax.IntLit, syntax.StrLit)):
            return expr.value
        if isinstance(expr, syntax.Negate) and isinstance(expr.operand, syntax.IntLit):
            return -expr.operand.value
        if isinstance(expr, syntax.Name) and expr.name not in self.locals and expr.name in self.model.constants and not self._hidden(expr.name):
            return self.model.constants[expr.name].value
        return None

    def _hidden(self, name: str) -> bool:
        """Whether an input or choice of the procedure hides the constant ``name`` (the checker refuses that, but a lint reads what loaded)."""
        return self.procedure is not None and (self.procedure.input(name) is not None or self.procedure.choice(name) is not None)


def _outcome_from_names(checked: Any) -> dict[syntax.Pos, tuple[str, ...]]:
    """The names each ``outcome from`` of a checked procedure makes, by the statement's position: the checker writes
    one ``outcome NAME(fields)`` a name at that position (the syntax tree does not know the names)."""
    from . import ir

    names: dict[syntax.Pos, dict[str, None]] = {}
    for node in ir.walk(*checked.body.statements):
        if type(node) is ir.Outcome:
            names.setdefault(node.pos, {}).setdefault(node.name, None)
    order = {name: index for index, name in enumerate(checked.outcome_names)}  # the order the table or enum declares
    return {pos: tuple(sorted(found, key=lambda name: order.get(name, len(order)))) for pos, found in names.items()}


def _lookup_keys(expr: syntax.Lookup) -> Iterator[tuple[str, syntax.Expr]]:
    """(row or column, the key's expression) of a lookup, by name or by position."""
    for index, arg in enumerate(expr.args):
        name = arg.name if arg.name is not None else ("row", "column")[index] if index < 2 else None
        if name in ("row", "column"):
            yield name, arg.value


def _statements(block: syntax.Block) -> Iterator[tuple[syntax.Stmt, tuple[syntax.Expr, ...]]]:
    """Every statement of ``block`` and those nested in it, in the order they are written, with the expressions it holds."""
    for statement in syntax.statements_in_order(block):
        yield statement, _expressions_of(statement)


def _expressions_of(statement: syntax.Stmt) -> tuple[syntax.Expr, ...]:
    """The expressions a statement holds itself (not those of the statements nested in it)."""
    if isinstance(statement, (syntax.Let, syntax.Set, syntax.Destructure)):
        return (statement.value,)
    if isinstance(statement, syntax.If):
        return tuple(condition for condition, _ in statement.branches)
    if isinstance(statement, syntax.For):
        return (statement.iterable,)
    if isinstance(statement, syntax.While):
        return (statement.condition,) + ((statement.limit,) if statement.limit is not None else ())
    if isinstance(statement, syntax.Outcome):
        return tuple(f.value for f in statement.fields)
    if isinstance(statement, syntax.OutcomeFrom):
        return (statement.source, *(f.value for f in statement.fields))
    if isinstance(statement, syntax.Require):
        return (statement.condition,)
    return ()


def _walk(expr: syntax.Expr) -> Iterator[syntax.Expr]:
    """``expr`` and every expression inside it, with a stack of its own (no recursion on the depth)."""
    stack: list[Any] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, (syntax.Arg, syntax.OutcomeField)):  # an OutcomeField inside `with {...}`
            stack.append(node.value)
            continue
        if not isinstance(node, syntax.Expr):
            continue
        yield node
        for part in dataclasses.fields(node):
            value = getattr(node, part.name)
            if isinstance(value, tuple):
                stack.extend(value)
            elif isinstance(value, (syntax.Expr, syntax.Arg, syntax.OutcomeField)):
                stack.append(value)


def _types_reached(model: Ruleset) -> set[int]:
    """The identities of every type a procedure's inputs or a typed constant reach, through lists and record fields."""
    reached: set[int] = set()
    stack: list[Type] = [spec.type for procedure in model.procedures.values() for spec in procedure.inputs]
    stack.extend(constant.declared for constant in model.constants.values() if constant.declared is not None)
    while stack:
        current = stack.pop()
        if id(current) in reached:
            continue
        reached.add(id(current))
        if isinstance(current, ListType):
            stack.append(current.element)
        elif isinstance(current, RecordType):
            stack.extend(field_type for _, field_type in current.fields)
    return reached


def _fields(names: list[str]) -> str:
    return f"({', '.join(names)})" if names else "no fields"


def _names(names: list[str], shown: int = 6) -> str:
    listed = ", ".join(names[:shown])
    return listed if len(names) <= shown else f"{listed}, ... ({len(names)} in all)"
