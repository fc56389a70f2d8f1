"""The checker's part for records (issue 23): record literals, record updates, destructuring, ``outcome from``.

All four are sugar: each is checked here against the declared types and expanded into IR nodes that
already exist (constants, ``with_field`` calls, field reads, assignments, an ``if`` over outcome
names), so neither back end, nor the differential tests, know them.  Kept apart from ``checker.py``,
which calls in here, so that module stays one reader's size.

Why sugar and not nodes of their own: ``let {sunk, damaged} = resolve p(...)`` then compiles to what
``let r = resolve p(...)`` and ``let sunk = r.sunk`` compiled to (minus the variable ``r``), so the
generated code and the exact odds are the ones the long form had; and a record literal whose fields
are all known when the ruleset loads is one constant record, built once.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import ir, syntax
from .checker_scope import Context, Scope, Variable
from .errors import DiagnosticList
from .functions import FUNCTIONS
from .proven_types import records_differ
from .values import (
    ANY,
    IntType,
    OutcomeType,
    Record,
    RecordType,
    StrType,
    Type,
    base_kind,
    compatible,
    is_order_free,
)

if TYPE_CHECKING:  # pragma: no cover - types only
    from .checker import Checker

# The most outcomes one `outcome from` may name: each is a branch with its own copy of the fields, so a
# stranger's table of thousands of distinct texts would make a procedure that size.  A printed CRT has 5-10.
MAX_OUTCOME_FROM_NAMES = 100

# What an outcome's name may be: a word of the language (the names `outcome NAME` accepts).
_OUTCOME_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _fields_hint(name: str, fields: Iterable[str]) -> str:
    names = list(fields)
    close = difflib.get_close_matches(name, names, n=1)
    return f" (did you mean '{close[0]}'?)" if close else f" (fields: {', '.join(names) or 'none'})"


# ---- record literals and updates ----------------------------------------------------------------


def record_literal(checker: Checker, expr: syntax.Call, record_type: RecordType, scope: Scope,
                   context: Context) -> tuple[ir.Expr, Type]:
    """``ship(kind = "heavy", status = "fit")``: a record of a declared type, every field named once.

    A field left out takes its default; one with no default is an error, as are an unknown field and a
    value of the wrong type, each at its own position.  Compiled as the constant record of the fields known
    at load time, with each field known only at run time put in by ``with_field`` (type order kept, so the
    record is the one an input of the same fields makes).
    """
    given: dict[str, tuple[syntax.Pos, ir.Expr, Type]] = {}
    for arg in expr.args:
        if arg.name is None:
            checker.error(arg.pos, f"a record literal names each field: {record_type.name}(FIELD = value, ...){context.where}")
            continue
        value, value_type = checker._expr(arg.value, scope, context)
        if arg.name in given:
            checker.error(arg.pos, f"field '{arg.name}' given twice in {record_type.name}(...)")
            continue
        field_type = record_type.field(arg.name)
        if field_type is None:
            hint = _fields_hint(arg.name, (n for n, _ in record_type.fields))
            checker.error(arg.pos, f"record type {record_type.name} has no field '{arg.name}'{hint}{context.where}")
            continue
        given[arg.name] = (arg.pos, _field_value(checker, record_type, arg.name, arg.value, value, value_type), field_type)
    defaults = dict(record_type.defaults)
    missing = [name for name, _ in record_type.fields if name not in given and name not in defaults]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        checker.error(expr.pos, f"{record_type.name}(...) is missing field{plural} {', '.join(repr(m) for m in missing)} "
                                f"(no default in types: {record_type.name}){context.where}")
    pairs: list[tuple[str, Any]] = []
    later: list[tuple[str, syntax.Pos, ir.Expr]] = []
    for name, _ in record_type.fields:
        found = given.get(name)
        if found is not None and type(found[1]) is ir.Const:
            pairs.append((name, found[1].value))
        else:
            pairs.append((name, defaults.get(name)))  # the default, or a place kept for a value known at run time
            if found is not None:
                later.append((name, found[0], found[1]))
    made: ir.Expr = ir.Const(expr.pos, Record(record_type.name, tuple(pairs)))
    for name, pos, value in later:
        made = ir.CallFunction(pos, FUNCTIONS["with_field"], (made, ir.Const(pos, name), value))
    return made, record_type


def _field_value(checker: Checker, record_type: RecordType, name: str, source: syntax.Expr, value: ir.Expr,
                 value_type: Type) -> ir.Expr:
    """A field's value checked against the field's declared type (what ``with_field`` checks, said of this field)."""
    field_type = record_type.field(name) or ANY
    if not compatible(field_type, value_type) or records_differ(field_type, value_type):
        checker.error(source.pos, f"field '{name}' of {record_type.name} holds {field_type.describe()}, not {value_type.describe()}")
        return value
    if isinstance(field_type, StrType) and isinstance(source, syntax.StrLit):
        checker._check_enum_value(field_type, source)
    if isinstance(field_type, IntType) and isinstance(source, syntax.IntLit) and not (
            (field_type.low is None or source.value >= field_type.low) and (field_type.high is None or source.value <= field_type.high)):
        checker.error(source.pos, f"field '{name}' of {record_type.name} holds {_bounds(field_type)}, not {source.value}")
    value = checker.guard(source, value_type, (field_type,), f"field '{name}'", value)
    if is_order_free(field_type) and type(value) is not ir.Canonical:
        value = ir.Canonical(value.pos, value)  # an order-free field keeps its items in order
    return value


def _bounds(bounded: IntType) -> str:
    """How a message names a whole number's bounds: 'a number from 0 to 9', 'a number of at least 1'."""
    if bounded.low is not None and bounded.high is not None:
        return f"a number from {bounded.low} to {bounded.high}"
    return f"a number of at least {bounded.low}" if bounded.low is not None else f"a number of at most {bounded.high}"


def record_update(checker: Checker, expr: syntax.RecordUpdate, scope: Scope, context: Context) -> tuple[ir.Expr, Type]:
    """``s with {status = "sunk"}``: a copy of the record with the named fields changed (``with_field`` each)."""
    made, subject_type = checker._expr(expr.subject, scope, context)
    record_type = subject_type if isinstance(subject_type, RecordType) else None
    if record_type is None and base_kind(subject_type) != "any":
        checker.error(expr.subject.pos, f"`with {{...}}` changes the fields of a record, not of {subject_type.describe()}{context.where}")
    seen: set[str] = set()
    for field in expr.fields:
        value, value_type = checker._expr(field.value, scope, context)
        if field.name in seen:
            checker.error(field.pos, f"field '{field.name}' given twice in `with {{...}}`")
            continue
        seen.add(field.name)
        if record_type is not None:
            if record_type.field(field.name) is None:
                hint = _fields_hint(field.name, (n for n, _ in record_type.fields))
                checker.error(field.pos, f"record type {record_type.name} has no field '{field.name}'{hint}{context.where}")
                continue
            value = _field_value(checker, record_type, field.name, field.value, value, value_type)
        made = ir.CallFunction(field.pos, FUNCTIONS["with_field"], (made, ir.Const(field.pos, field.name), value))
    return made, subject_type


# ---- destructuring ------------------------------------------------------------------------------------


def outcome_fields(procedure: syntax.Block) -> list[tuple[str, syntax.Pos, frozenset[str]]]:
    """Each outcome statement of a procedure's body: its name (``outcome from ...`` for the named-from-a-value
    kind), where it is, and the fields it gives."""
    found = []
    for statement in walk_statements(procedure):
        if isinstance(statement, syntax.Outcome):
            found.append((statement.name, statement.pos, frozenset(f.name for f in statement.fields)))
        elif isinstance(statement, syntax.OutcomeFrom):
            found.append(("outcome from ...", statement.pos, frozenset(f.name for f in statement.fields)))
    return found


def _binding_type(checker: Checker, binding: syntax.Binding, value_type: Type) -> Type:
    """The type of one destructured field; an error where the value does not always have it."""
    if isinstance(value_type, RecordType):
        found = value_type.field(binding.field)
        if found is None:
            hint = _fields_hint(binding.field, (n for n, _ in value_type.fields))
            checker.error(binding.pos, f"record type {value_type.name} has no field '{binding.field}'{hint}")
            return ANY
        return found
    if isinstance(value_type, OutcomeType):
        if binding.field == "outcome":
            return value_type.field("outcome") or ANY  # every outcome has its name
        callee = checker.ruleset.procedures.get(value_type.procedure)
        for name, pos, fields in outcome_fields(callee.body) if callee is not None else ():
            if binding.field not in fields:
                checker.error(binding.pos, f"outcome {name} of {value_type.procedure} (line {pos.line}) gives no field "
                                           f"'{binding.field}': a destructured field must be given by every outcome")
                return ANY
        return value_type.field(binding.field) or ANY
    if base_kind(value_type) != "any":
        checker.error(binding.pos, f"`{{...}} =` takes the fields of a record or an outcome, not of {value_type.describe()}")
    return ANY


def destructure(checker: Checker, statement: syntax.Destructure, scope: Scope) -> list[ir.Stmt]:
    """``let {a, b as c} = value`` / ``set {a, b} = value``: one assignment a field, read from the value.

    A value already in a slot (a resolved outcome, a variable, an input) is read where it is; any other is
    first kept in a hidden variable, so it is computed once.
    """
    hoisted: list[ir.Stmt] = []
    value, value_type = checker._expr(statement.value, scope, Context(hoisted))
    if type(value) not in (ir.Local, ir.InputRef, ir.Const):
        slot = checker._alloc(scope)
        hoisted.append(ir.Assign(statement.pos, "{...}", slot, value, True))
        value = ir.Local(statement.pos, "{...}", slot)
    bound: set[str] = set()
    for binding in statement.bindings:
        field_type = _binding_type(checker, binding, value_type)
        if binding.name in bound:
            checker.error(binding.pos, f"'{binding.name}' is bound twice in one `{{...}}`")
            continue
        bound.add(binding.name)
        read: ir.Expr = ir.Field(binding.pos, value, binding.field)
        if statement.declare:
            existing = checker._existing_name(binding.name, scope)
            if existing:
                checker.error(binding.pos, f"'{binding.name}' is already {existing}; use `set {{...}} = ...` to change variables, "
                                           f"or `{binding.field} as NEW_NAME`")
            slot = checker._alloc(scope)
            scope.names[binding.name] = Variable(slot, field_type, binding.pos)
            hoisted.append(ir.Assign(binding.pos, binding.name, slot, checker._kept_in_order(read, field_type, scope), True))
            continue
        variable = scope.find(binding.name)
        if variable is None:
            checker.error(binding.pos, f"cannot set '{binding.name}': no variable of that name{checker._suggest(binding.name, scope)}; "
                                       f"declare it with `let {{...}} = ...`")
            continue
        if not compatible(variable.type, field_type) or records_differ(variable.type, field_type):
            checker.error(binding.pos, f"'{binding.name}' holds {variable.type.describe()}, not {field_type.describe()}")
        read = checker.guard_records(binding.pos, field_type, variable.type, f"what '{binding.name}' holds", read)
        hoisted.append(ir.Assign(binding.pos, binding.name, variable.slot, checker._kept_in_order(read, variable.type, scope), False))
    return hoisted


# ---- outcome from ---------------------------------------------------------------------------------------


def _known_texts(checker: Checker, source: syntax.Expr, value_type: Type) -> tuple[str, ...] | None:
    """Every text ``source`` can hold, as the checker knows it when the ruleset loads; None when it cannot know."""
    if isinstance(source, syntax.StrLit):
        return (source.value,)
    if isinstance(source, syntax.Conditional):
        then = _known_texts(checker, source.then, ANY)
        otherwise = _known_texts(checker, source.otherwise, ANY)
        return None if then is None or otherwise is None else tuple(dict.fromkeys(then + otherwise))
    if isinstance(source, syntax.Lookup):
        table = checker.ruleset.tables.get(source.table)
        if table is None or table.result_fields is not None:
            return None
        cells = [cell for row in table.cells for cell in row]
        return tuple(dict.fromkeys(cells)) if all(type(cell) is str for cell in cells) else None
    if isinstance(value_type, StrType) and value_type.values:
        return value_type.values
    if isinstance(source, syntax.Name):
        bound = _only_binding(checker, source.name)
        return _known_texts(checker, bound, ANY) if bound is not None and not isinstance(bound, syntax.Name) else None
    return None


def _only_binding(checker: Checker, name: str) -> syntax.Expr | None:
    """The value of the one ``let NAME = ...`` of the procedure when nothing else binds or sets the name (so
    ``let r = lookup crt(...)`` then ``outcome from r`` knows r's texts); None when that is not so."""
    lets: list[syntax.Expr] = []
    others = 0  # a `set`, a destructuring or a loop that binds the name: its texts are not the let's
    for statement in walk_statements(checker.procedure.body):
        if isinstance(statement, syntax.Let) and statement.name == name:
            lets.append(statement.value)
        else:
            others += name in _names_bound_otherwise(statement)
    return lets[0] if len(lets) == 1 and not others else None


def _names_bound_otherwise(statement: syntax.Stmt) -> tuple[str, ...]:
    """The names a statement binds other than by `let`: a `set`, a destructuring, a loop variable."""
    if isinstance(statement, syntax.Set):
        return (statement.name,)
    if isinstance(statement, syntax.Destructure):
        return tuple(binding.name for binding in statement.bindings)
    if isinstance(statement, syntax.For):
        return (statement.var,)
    return ()


def outcome_from(checker: Checker, statement: syntax.OutcomeFrom, scope: Scope) -> list[ir.Stmt]:
    """``outcome from value(fields)``: one outcome a text the value can hold, chosen by the value.

    Compiled as ``if value == "AE" then outcome AE(fields) elif ... else`` a run-time error naming the texts
    (only reached by a value the checker could not see, such as a plain text passed in).  The fields are
    checked once; their errors are said once, not once a name.
    """
    hoisted: list[ir.Stmt] = []
    value, value_type = checker._expr(statement.source, scope, Context(hoisted))
    if base_kind(value_type) not in ("str", "any"):
        checker.error(statement.source.pos, f"`outcome from` names the outcome from a text, not from {value_type.describe()}")
        return hoisted
    names = _known_texts(checker, statement.source, value_type)
    if names is None:
        checker.error(statement.source.pos, "`outcome from` needs a value whose texts are known when the ruleset loads: "
                                            "a table of text cells (`outcome from lookup crt(...)`), an enum (a choice, an enum "
                                            "input or field) or texts in an `if ... then ... else`")
        return hoisted
    if len(names) > MAX_OUTCOME_FROM_NAMES:
        checker.error(statement.source.pos, f"`outcome from` a value of {len(names)} different texts: at most {MAX_OUTCOME_FROM_NAMES} "
                                            "outcomes may be named from one value")
        return hoisted
    bad = [name for name in names if not _OUTCOME_NAME.match(name)]
    if bad:
        where = f"table '{statement.source.table}' has the cell" if isinstance(statement.source, syntax.Lookup) else "the value may be"
        checker.error(statement.source.pos, f"{where} '{bad[0]}', which cannot name an outcome: an outcome's name is a word "
                                            f"(letters, digits and _, not first a digit)")
        return hoisted
    if type(value) is ir.Const:
        names = (value.value,)  # known now: the one outcome, no test
    elif type(value) not in (ir.Local, ir.InputRef):
        slot = checker._alloc(scope)
        hoisted.append(ir.Assign(statement.pos, "outcome from", slot, value, True))
        value = ir.Local(statement.pos, "outcome from", slot)
    checker.outcome_from_names[id(statement)] = names
    branches = _named_outcomes(checker, statement, names, scope)
    if len(branches) == 1:
        return [*hoisted, *branches[0][1].statements]
    tests = tuple((ir.Comparison(statement.pos, "==", value, ir.Const(statement.pos, name)), block) for name, block in branches)
    message = f"`outcome from` gave a text that names no outcome: it must be one of {', '.join(names)}"
    otherwise = ir.Block(statement.pos, (ir.Require(statement.pos, ir.Const(statement.pos, False), message),), ())
    return [*hoisted, ir.If(statement.pos, tests, otherwise)]


def _named_outcomes(checker: Checker, statement: syntax.OutcomeFrom, names: Iterable[str], scope: Scope) -> list[tuple[str, ir.Block]]:
    """One block a name: ``outcome NAME(fields)`` checked as written; the errors of its fields said once."""
    said = checker.diagnostics
    branches = []
    try:
        for name in names:
            block = syntax.Block(statement.pos, (syntax.Outcome(statement.pos, name, statement.fields, statement.rule),))
            branches.append((name, checker._block(block, Scope(scope))))
            checker.diagnostics = DiagnosticList()  # the next names repeat the first one's errors
    finally:
        checker.diagnostics = said
    return branches


def outcome_names(checker: Checker, body: syntax.Block) -> tuple[str, ...]:
    """A procedure's outcome names, in the order of :func:`walk_statements` (an ``outcome from``: its texts, in order)."""
    names: dict[str, None] = {}
    for statement in walk_statements(body):
        if isinstance(statement, syntax.Outcome):
            names.setdefault(statement.name, None)
        elif isinstance(statement, syntax.OutcomeFrom):
            names.update(dict.fromkeys(checker.outcome_from_names.get(id(statement), ())))
    return tuple(names)


def walk_statements(block: syntax.Block) -> Iterable[syntax.Stmt]:
    """Every statement of a body and of the blocks inside its statements (an ``if``'s `else` before its branches:
    the order outcome names have always been listed in)."""
    stack = list(reversed(block.statements))
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, syntax.If):
            for _, body in reversed(statement.branches):
                stack.extend(reversed(body.statements))
            if statement.otherwise is not None:
                stack.extend(reversed(statement.otherwise.statements))
        elif isinstance(statement, (syntax.For, syntax.While)):
            stack.extend(reversed(statement.body.statements))

