"""Semantic check and compilation: AST -> resolved IR.

This pass (like Jinja2's idtracking, or cel-python's check stage) runs once
when a ruleset loads.  It resolves every name (local, input, choice,
constant, table, modifier list, procedure), infers types where it can,
rejects what cannot run (unknown names, wrong types, break outside a loop,
a procedure that may end without an outcome, calls that form a cycle), and
hoists every die roll and procedure call into a statement of its own.

All problems are collected; nothing stops at the first.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, overload

from . import checker_records as records
from . import ir, rerolls, syntax
from .callgraph import MAX_NESTING, build_call_graph, children
from .checker_scope import Context as _Context
from .checker_scope import Scope as _Scope
from .checker_scope import Variable as _Variable
from .checker_sides import passed_arguments, passed_hint, report_missing
from .errors import DiagnosticList
from .functions import AGGREGATES, FUNCTIONS, CallSite
from .inputs import coercion_keeps
from .proven_types import (
    guard_needed,
    holds_records,
    join_proven,
    records_differ,
)
from .ruleset import ModifierList, Procedure, Ruleset
from .tables import Table
from .values import (
    ANY,
    BOOL,
    INT,
    RATIO,
    STR,
    ListType,
    OutcomeType,
    RecordType,
    StrType,
    Type,
    base_kind,
    compatible,
    is_order_free,
    join,
    type_of_value,
    unknown_within,
)

# Bounds on expanding helper functions (see Checker._helper_call): far above a real ruleset's (eia: one
# helper, 24 calls, none nested), far below what exhausts Python's stack or the machine's patience.
MAX_HELPER_DEPTH = 32
MAX_HELPER_CALLS = 10_000
# Kinds of literal items a list literal of them folds into a constant (plain values: a list of them is one list
# deep and as long as its text; lists and records inside keep the run-time build, checked against the limits).
_FOLDED_ITEM_KINDS = frozenset((int, str, bool))


def _helper_calls(body: syntax.Expr, helpers: Any) -> list[tuple[str, syntax.Pos]]:
    """The helper functions a helper's body calls, with where, in the order written."""
    found: list[tuple[str, syntax.Pos]] = []
    stack: list[object] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, syntax.Call) and node.function in helpers:
            found.append((node.function, node.pos))
        stack.extend(child for child, _ in reversed(list(children(node))))
    return found


def _substitute(node: Any, bindings: dict[str, syntax.Expr]) -> Any:
    """``node`` with each name in ``bindings`` replaced by its expression (a helper's parameters by the call's
    arguments). An aggregate's own variable hides a parameter of the same name inside it. The depth is the
    helper body's, held to the parse limits (max_procedure_depth)."""
    if isinstance(node, syntax.Name):
        return bindings.get(node.name, node)
    if isinstance(node, syntax.Aggregate) and node.var in bindings:
        inner = {name: value for name, value in bindings.items() if name != node.var}
        return dataclasses.replace(
            node, collection=_substitute(node.collection, bindings), element=_substitute(node.element, inner),
            condition=_substitute(node.condition, inner),
        )
    if isinstance(node, tuple):
        return tuple(_substitute(item, bindings) for item in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changed = {f.name: _substitute(getattr(node, f.name), bindings) for f in dataclasses.fields(node) if f.name != "pos"}
        return dataclasses.replace(node, **changed)
    return node


class Checker:
    def __init__(self, ruleset: Ruleset, diagnostics: DiagnosticList):
        self.ruleset = ruleset
        self.diagnostics = diagnostics
        # Filled in callee-first order: a caller reads the fields of outcomes already typed.
        self.outcome_types: dict[str, OutcomeType] = {}
        self.cell_types: dict[str, Type] = {}  # typed at their first lookup, where a mix is reported
        self.constant_types = {name: self._constant_type(constant) for name, constant in ruleset.constants.items()}
        self.expanding: list[str] = []  # the helper functions being expanded, innermost last (a cycle is refused)
        self.helper_calls_left = MAX_HELPER_CALLS  # for the whole ruleset: see _helper_call
        self.cyclic_helpers: frozenset[str] = frozenset()  # found by check(), before any procedure
        self.outcome_from_names: dict[int, tuple[str, ...]] = {}  # each `outcome from`'s names (by the statement's id)

    # ---- entry point -----------------------------------------------------------

    def check(self) -> dict[str, ir.CheckedProcedure]:
        graph = build_call_graph(self.ruleset, self.diagnostics)
        self.cyclic_helpers = self._report_helper_cycles()
        compiled = {}
        for name in graph.order:
            procedure = self.ruleset.procedures[name]
            if graph.own_depth[name] > MAX_NESTING:
                continue  # reported by the call graph; too deep to check safely
            compiled[name] = self._compile_procedure(procedure)
        for name in graph.in_cycle:  # reported; checked for their other errors with untyped outcomes
            self.outcome_types.setdefault(name, OutcomeType(name, ()))
        for name in graph.in_cycle:
            if graph.own_depth[name] <= MAX_NESTING:
                compiled[name] = self._compile_procedure(self.ruleset.procedures[name])
        return {name: compiled[name] for name in self.ruleset.procedures if name in compiled}

    def error(self, pos: syntax.Pos, message: str) -> None:
        self.diagnostics.add(pos.diagnostic(message))

    # ---- procedures --------------------------------------------------------------

    def _compile_procedure(self, procedure: Procedure) -> ir.CheckedProcedure:
        self.procedure = procedure
        self.next_slot = 0
        self.loop_depth = 0
        for spec in procedure.inputs:
            self._check_shadowing(spec.name, spec.pos, "input")
        for choice in procedure.choices:
            self._check_shadowing(choice.name, choice.pos, "choice")
            if procedure.input(choice.name):
                self.error(choice.pos, f"choice '{choice.name}' has the same name as an input")
        self.outcome_fields: dict[str, tuple[Type, syntax.Pos, str]] = {}
        body = self._block(procedure.body, _Scope(None))
        if not self._always_ends(procedure.body):
            last = procedure.body.statements[-1].pos if procedure.body.statements else procedure.body.pos
            self.error(last, f"procedure '{procedure.name}' may reach its end without an outcome: end every path with `outcome NAME(...)`")
        outcome = OutcomeType(procedure.name, tuple((name, found[0]) for name, found in self.outcome_fields.items()))
        self.outcome_types.setdefault(procedure.name, outcome)
        names = records.outcome_names(self, procedure.body)
        return ir.CheckedProcedure(
            procedure.name, procedure.title, procedure.rule, procedure.inputs, procedure.choices, body, self.next_slot, outcome, names
        )

    def _check_shadowing(self, name: str, pos: syntax.Pos, what: str) -> None:
        if name in self.ruleset.constants:
            self.error(pos, f"{what} '{name}' has the same name as a constant; rename one of them")

    def _outcome_field(self, outcome: syntax.Outcome, field: syntax.OutcomeField, field_type: Type) -> None:
        """One field of one outcome: a field keeps one type across all of a procedure's outcomes."""
        earlier = self.outcome_fields.get(field.name)
        if earlier is None:
            self.outcome_fields[field.name] = (field_type, field.pos, outcome.name)
            return
        joined = join(earlier[0], field_type)
        if joined is None:
            self.error(field.pos, f"field '{field.name}' is {field_type.describe()} here, but {earlier[0].describe()} "
                                  f"in outcome {earlier[2]} at line {earlier[1].line}: a field keeps one type in every outcome")
        else:
            self.outcome_fields[field.name] = (joined, earlier[1], earlier[2])

    def _constant_type(self, constant) -> Type:
        found = constant.declared if constant.declared is not None else type_of_value(constant.value)  # declared: checked at load
        if found is None:
            self.error(constant.pos, f"constant '{constant.name}' mixes values of different types: a list holds items of one type")
            return ANY
        return found

    def _cell_type(self, table: Table, pos: syntax.Pos) -> Type:
        if table.name not in self.cell_types:
            self.cell_types[table.name] = self._uniform_cell_type(table, pos)
        return self.cell_types[table.name]

    def _uniform_cell_type(self, table: Table, pos: syntax.Pos) -> Type:
        if table.result_fields is not None:
            return RecordType(f"cell of {table.name}", (("code", STR),) + tuple(table.result_fields))
        found: Type | None = None
        for row in table.cells:
            for value in row:
                value_type = type_of_value(value)
                found = value_type if found is None else (join(found, value_type) if value_type is not None else None)
                if found is None:
                    self.error(pos, f"table '{table.name}' mixes cells of different types (numbers and text?), so what "
                                    f"this lookup gives has no one type: give the table results: with codes, or make every cell the same kind")
                    return ANY
        return found or ANY

    def _always_ends(self, block: syntax.Block) -> bool:
        statements = [s for s in block.statements if not isinstance(s, syntax.Note)]
        if not statements:
            return False
        last = statements[-1]
        if isinstance(last, (syntax.Outcome, syntax.OutcomeFrom)):
            return True
        if isinstance(last, syntax.If) and last.otherwise is not None:
            return all(self._always_ends(body) for _, body in last.branches) and self._always_ends(last.otherwise)
        return False

    def _alloc(self, scope: _Scope | None) -> int:
        slot = self.next_slot
        self.next_slot += 1
        if scope is not None:
            scope.slots.append(slot)
        return slot

    # ---- statements ----------------------------------------------------------------

    def _block(self, block: syntax.Block, scope: _Scope) -> ir.Block:
        statements: list[ir.Stmt] = []
        ended_by: syntax.Stmt | None = None
        for statement in block.statements:
            if ended_by is not None:
                kind = "break" if isinstance(ended_by, syntax.Break) else "outcome"
                self.error(statement.pos, f"unreachable: this statement follows the {kind} at line {ended_by.pos.line}")
                ended_by = None  # one report per block is enough
            statements.extend(self._statement(statement, scope))
            if isinstance(statement, (syntax.Outcome, syntax.Break, syntax.OutcomeFrom)):
                ended_by = statement
        return ir.Block(block.pos, tuple(statements), tuple(scope.slots))

    def _kept_in_order(self, value: ir.Expr, target: Type, scope: _Scope) -> ir.Expr:
        """A value stored where an order-free list is kept, put in canonical order unless it already is."""
        if not is_order_free(target) or type(value) is ir.Canonical:
            return value
        if type(value) is ir.InputRef:  # inputs are coerced, so in canonical order
            spec = self.procedure.input(value.name)
            if spec is not None and is_order_free(spec.type):
                return value
        if type(value) is ir.Local:  # another order-free variable: kept in order already
            source = scope.find(value.name)
            if source is not None and source.slot == value.slot and is_order_free(source.type):
                return value
        return ir.Canonical(value.pos, value)

    def _statement(self, statement: syntax.Stmt, scope: _Scope) -> list[ir.Stmt]:
        """One statement's checked form: the rolls and calls hoisted out of it, then itself."""
        check = self._STATEMENT_CHECKS.get(type(statement))
        if check is None:  # pragma: no cover - the table covers every statement class (see below the class)
            raise AssertionError(f"unknown statement {statement!r}")
        return check(self, statement, scope)

    def _let(self, statement: syntax.Let, scope: _Scope) -> list[ir.Stmt]:
        hoisted: list[ir.Stmt] = []
        value, value_type = self._expr(statement.value, scope, _Context(hoisted))
        existing = self._existing_name(statement.name, scope)
        if existing:
            self.error(statement.pos, f"'{statement.name}' is already {existing}; use `set {statement.name} = ...` to change a variable")
        slot = self._alloc(scope)
        scope.names[statement.name] = _Variable(slot, value_type, statement.pos)
        return [*hoisted, ir.Assign(statement.pos, statement.name, slot, self._kept_in_order(value, value_type, scope), True)]

    def _set(self, statement: syntax.Set, scope: _Scope) -> list[ir.Stmt]:
        hoisted: list[ir.Stmt] = []
        value, value_type = self._expr(statement.value, scope, _Context(hoisted))
        variable = scope.find(statement.name)
        if variable is None:
            existing = self._existing_name(statement.name, scope)
            if existing:
                self.error(statement.pos, f"cannot set '{statement.name}': it is {existing}, not a variable; copy it with `let`")
            else:
                self.error(statement.pos, f"cannot set '{statement.name}': no variable of that name{self._suggest(statement.name, scope)}; declare it with `let`")
            return hoisted
        if not compatible(variable.type, value_type) or records_differ(variable.type, value_type):
            self.error(statement.value.pos, f"'{statement.name}' holds {variable.type.describe()}, not {value_type.describe()}")
        value = self.guard_records(statement.value.pos, value_type, variable.type, f"what '{statement.name}' holds", value)
        return [*hoisted, ir.Assign(statement.pos, statement.name, variable.slot, self._kept_in_order(value, variable.type, scope), False)]

    def _if(self, statement: syntax.If, scope: _Scope) -> list[ir.Stmt]:
        """Only the first condition may roll dice: it is always evaluated, the others are not."""
        hoisted: list[ir.Stmt] = []
        branches = []
        for index, (condition, body) in enumerate(statement.branches):
            context = _Context(hoisted) if index == 0 else _Context(None, "roll dice in a `let` before the `if`, not in an `elif` condition")
            condition_ir, condition_type = self._expr(condition, scope, context)
            branches.append((self.expect(condition, condition_type, BOOL, "a condition", condition_ir), self._block(body, _Scope(scope))))
        otherwise = self._block(statement.otherwise, _Scope(scope)) if statement.otherwise is not None else None
        return [*hoisted, ir.If(statement.pos, tuple(branches), otherwise)]

    def _for(self, statement: syntax.For, scope: _Scope) -> list[ir.Stmt]:
        iterable, iterable_type = self._expr(
            statement.iterable, scope, _Context(None, "a loop's bounds cannot roll dice: roll into a `let` first")
        )
        element: Type = ANY
        if isinstance(iterable_type, ListType):
            element = iterable_type.element
        elif base_kind(iterable_type) != "any":
            self.error(statement.iterable.pos, f"`for` needs a list or a range such as 1 .. n, not {iterable_type.describe()}")
        iterable = self.expect(statement.iterable, iterable_type, ListType(ANY), "what `for` runs over", iterable)
        existing = self._existing_name(statement.var, scope)
        if existing:
            self.error(statement.pos, f"loop variable '{statement.var}' is already {existing}")
        var_slot, sequence_slot, index_slot = self._alloc(None), self._alloc(None), self._alloc(None)
        inner = _Scope(scope)
        inner.names[statement.var] = _Variable(var_slot, element, statement.pos)
        body = self._loop_body(statement.body, _Scope(inner))
        return [ir.ForLoop(statement.pos, statement.var, var_slot, sequence_slot, index_slot, iterable, body)]

    def _while(self, statement: syntax.While, scope: _Scope) -> list[ir.Stmt]:
        no_dice = _Context(None, "a loop's condition and limit cannot roll dice: roll into a variable inside the loop")
        condition, condition_type = self._expr(statement.condition, scope, no_dice)
        condition = self.expect(statement.condition, condition_type, BOOL, "a `while` condition", condition)
        limit = None
        if statement.limit is not None:
            limit, limit_type = self._expr(statement.limit, scope, no_dice)
            limit = self.expect(statement.limit, limit_type, INT, "a `while` limit", limit)
        count_slot, limit_slot = self._alloc(None), self._alloc(None)
        body = self._loop_body(statement.body, _Scope(scope))
        variables = tuple(sorted((name, variable.slot) for name in scope.visible() if (variable := scope.find(name)) is not None))
        return [ir.WhileLoop(statement.pos, condition, limit, count_slot, limit_slot, body, variables)]

    def _loop_body(self, block: syntax.Block, scope: _Scope) -> ir.Block:
        """A loop's body, where `break` is allowed."""
        self.loop_depth += 1
        body = self._block(block, scope)
        self.loop_depth -= 1
        return body

    def _break(self, statement: syntax.Break, scope: _Scope) -> list[ir.Stmt]:
        if self.loop_depth == 0:
            self.error(statement.pos, "`break` outside a loop")
        return [ir.Break(statement.pos)]

    def _outcome(self, statement: syntax.Outcome, scope: _Scope) -> list[ir.Stmt]:
        hoisted: list[ir.Stmt] = []
        context = _Context(hoisted)
        fields = []
        seen: dict[str, syntax.Pos] = {}
        for f in statement.fields:
            if f.name in seen:
                self.error(f.pos, f"field '{f.name}' given twice in outcome {statement.name}")
            seen[f.name] = f.pos
            value, value_type = self._expr(f.value, scope, context)
            self._outcome_field(statement, f, value_type)
            fields.append((f.name, value))
        return [*hoisted, ir.Outcome(statement.pos, statement.name, tuple(fields), statement.rule)]

    def _require(self, statement: syntax.Require, scope: _Scope) -> list[ir.Stmt]:
        hoisted: list[ir.Stmt] = []
        condition, condition_type = self._expr(statement.condition, scope, _Context(hoisted))
        checked = self.expect(statement.condition, condition_type, BOOL, "a `require` condition", condition)
        return [*hoisted, ir.Require(statement.pos, checked, statement.message)]

    def _note(self, statement: syntax.Note, scope: _Scope) -> list[ir.Stmt]:
        parts: list[str | ir.Expr] = []
        for part in statement.parts:
            if isinstance(part, str):
                parts.append(part)
                continue
            hoisted: list[ir.Stmt] = []
            value, _ = self._expr(part, scope, _Context(hoisted))
            if hoisted:  # a roll or a resolve inside the placeholder: the note would change the game
                self.error(part.pos, "a note only shows values: it cannot roll dice or resolve a procedure (roll into a `let` first)")
            parts.append(value)
        return [ir.Note(statement.pos, statement.text, tuple(parts), statement.rule)]

    # One method per statement class; _statement looks the method up by the statement's class.
    _STATEMENT_CHECKS: ClassVar[dict[type[syntax.Stmt], Callable[[Checker, Any, _Scope], list[ir.Stmt]]]] = {
        syntax.Let: _let, syntax.Set: _set, syntax.If: _if, syntax.For: _for, syntax.While: _while,
        syntax.Break: _break, syntax.Outcome: _outcome, syntax.Require: _require, syntax.Note: _note,
        syntax.Destructure: records.destructure, syntax.OutcomeFrom: records.outcome_from,  # checker_records.py
    }

    def _existing_name(self, name: str, scope: _Scope) -> str:
        variable = scope.find(name)
        if variable is not None:
            return f"a variable (declared at line {variable.pos.line})"
        if self.procedure.input(name):
            return "an input of this procedure"
        if self.procedure.choice(name):
            return "a choice of this procedure"
        if name in self.ruleset.constants:
            return "a constant"
        return ""

    @overload
    def expect(self, expr: syntax.Expr, actual: Type, expected: Type, what: str, value: ir.Expr) -> ir.Expr: ...
    @overload
    def expect(self, expr: syntax.Expr, actual: Type, expected: Type, what: str, value: None = None) -> None: ...

    def expect(self, expr: syntax.Expr, actual: Type, expected: Type, what: str, value: ir.Expr | None = None) -> ir.Expr | None:
        """Report a value of the wrong type; a value whose type is not known here gets a run-time check.

        Returns ``value`` (the checked form of ``expr``), wrapped in a guard where needed.
        """
        if not compatible(expected, actual):
            self.error(expr.pos, f"{what} must be {expected.describe()}, not {actual.describe()}")
            return value
        return self.guard(expr, actual, (expected,), what, value)

    @overload
    def guard(self, expr: syntax.Expr, actual: Type, expected: tuple[Type, ...], what: str, value: ir.Expr) -> ir.Expr: ...
    @overload
    def guard(self, expr: syntax.Expr, actual: Type, expected: tuple[Type, ...], what: str, value: None) -> None: ...

    def guard(self, expr: syntax.Expr, actual: Type, expected: tuple[Type, ...], what: str, value: ir.Expr | None) -> ir.Expr | None:
        """``value`` wrapped in a run-time type check where its static type cannot promise ``expected``."""
        if value is None or not any(unknown_within(option, actual) for option in expected):
            return value
        return ir.Guard(expr.pos, value, expected, what)

    def guard_records(self, pos: syntax.Pos, actual: Type, expected: Type, what: str, value: ir.Expr) -> ir.Expr:
        """``value`` guarded where a value the checker types ``any`` is put in a place typed with records (set, a
        destructuring set): the place's type is then a proof (proven_types)."""
        if _empty(value) or not guard_needed(expected, actual):  # `set ships = []`: an empty list is a list of ships
            return value
        return ir.Guard(pos, value, (expected,), what)

    def _suggest(self, name: str, scope: _Scope) -> str:
        candidates = (
            scope.visible()
            | {s.name for s in self.procedure.inputs}
            | {c.name for c in self.procedure.choices}
            | set(self.ruleset.constants)
        )
        return _did_you_mean(name, candidates)

    # ---- expressions -----------------------------------------------------------------

    def _expr(self, expr: syntax.Expr, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        method = getattr(self, "_expr_" + type(expr).__name__)
        return method(expr, scope, context)

    def _expr_IntLit(self, expr: syntax.IntLit, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        return ir.Const(expr.pos, expr.value), INT

    def _expr_StrLit(self, expr: syntax.StrLit, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        return ir.Const(expr.pos, expr.value), STR

    def _expr_BoolLit(self, expr: syntax.BoolLit, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        return ir.Const(expr.pos, expr.value), BOOL

    def _expr_ListLit(self, expr: syntax.ListLit, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        items, types = [], []
        for item in expr.items:
            item_ir, item_type = self._expr(item, scope, context)
            items.append(item_ir)
            types.append(item_type)
        kinds = {base_kind(t) for t in types} - {"any"}
        if len(kinds) > 1:
            self.error(expr.pos, "a list's items must all be of one type")
        element = types[0] if types and len(kinds) == 1 else ANY
        if any(holds_records(t) for t in types):  # the type is a proof (proven_types): every item's (an empty list is of every type)
            known = [t for item, t in zip(items, types) if not _empty(item)] or types
            element = known[0]
            for item_type in known[1:]:
                element = join_proven(element, item_type) or ANY
        literals = [item.value for item in items if isinstance(item, ir.Const) and type(item.value) in _FOLDED_ITEM_KINDS]
        if items and len(literals) == len(items):
            # a list of literal numbers, text or yes/no (`s.status in ["fit", "damaged"]`) is a constant, as a
            # constant from `constants:` is: made once at load, not built and measured each time it is read
            return ir.Const(expr.pos, tuple(literals)), ListType(element)
        return ir.ListOf(expr.pos, tuple(items)), ListType(element)

    def _expr_Name(self, expr: syntax.Name, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        variable = scope.find(expr.name)
        if variable is not None:
            return ir.Local(expr.pos, expr.name, variable.slot), variable.type
        spec = self.procedure.input(expr.name)
        if spec is not None:
            return ir.InputRef(expr.pos, expr.name), spec.type
        choice = self.procedure.choice(expr.name)
        if choice is not None:
            return ir.InputRef(expr.pos, expr.name), StrType(choice.options)
        constant = self.ruleset.constants.get(expr.name)
        if constant is not None:
            return ir.Const(expr.pos, constant.value, expr.name), self.constant_types[expr.name]
        if expr.name in self.ruleset.tables:
            self.error(expr.pos, f"'{expr.name}' is a table: read it with `lookup {expr.name}(row = ...)`{context.where}")
        elif expr.name in self.ruleset.modifiers:
            kind = "modifiers" if self.ruleset.modifiers[expr.name].kind == "drm" else "shifts"
            self.error(expr.pos, f"'{expr.name}' is a modifier list: add it up with `{kind} {expr.name}`{context.where}")
        elif expr.name in self.ruleset.procedures:
            self.error(expr.pos, f"'{expr.name}' is a procedure: call it with `resolve {expr.name}(...)`{context.where}")
        else:
            self.error(expr.pos, f"unknown name '{expr.name}'{self._suggest(expr.name, scope)}{context.where}")
        return _invalid(expr), ANY

    def _expr_Attribute(self, expr: syntax.Attribute, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        subject, subject_type = self._expr(expr.subject, scope, context)
        result: Type = ANY
        if isinstance(subject_type, (RecordType, OutcomeType)):
            found = subject_type.field(expr.name)
            if found is None:
                fields = [n for n, _ in subject_type.fields]
                if isinstance(subject_type, OutcomeType):
                    fields = ["outcome"] + fields
                close = difflib.get_close_matches(expr.name, fields, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else f" (fields: {', '.join(fields)})"
                self.error(expr.pos, f"{subject_type.describe()} has no field '{expr.name}'{hint}{context.where}")
            else:
                result = found
        elif base_kind(subject_type) != "any":
            self.error(expr.pos, f"{subject_type.describe()} has no fields; '.{expr.name}' needs a record{context.where}")
        # a read that cannot fail: the subject is proven a record of a type with this field (proven_types)
        proven = result if isinstance(subject_type, RecordType) and subject_type.field(expr.name) is not None else None
        return ir.Field(expr.pos, subject, expr.name, isinstance(subject_type, OutcomeType), proven), result

    def _expr_Index(self, expr: syntax.Index, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        subject, subject_type = self._expr(expr.subject, scope, context)
        index, index_type = self._expr(expr.index, scope, context)
        index = self.expect(expr.index, index_type, INT, "an index", index)
        element = subject_type.element if isinstance(subject_type, ListType) else ANY
        if base_kind(subject_type) not in ("list", "any"):
            self.error(expr.pos, f"cannot index {subject_type.describe()}")
        subject = self.guard(expr.subject, subject_type, (ListType(ANY),), "what is indexed", subject)
        return ir.Index(expr.pos, subject, index), element

    def _expr_Negate(self, expr: syntax.Negate, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        operand, operand_type = self._expr(expr.operand, scope, context)
        operand = self.expect(expr.operand, operand_type, INT, "the operand of -", operand)
        return ir.Negate(expr.pos, operand), INT

    def _expr_Not(self, expr: syntax.Not, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        operand, operand_type = self._expr(expr.operand, scope, context)
        operand = self.expect(expr.operand, operand_type, BOOL, "the operand of `not`", operand)
        return ir.Not(expr.pos, operand), BOOL

    def _expr_Binary(self, expr: syntax.Binary, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        left, left_type = self._expr(expr.left, scope, context)
        right, right_type = self._expr(expr.right, scope, context)
        left = self.expect(expr.left, left_type, INT, f"the left side of {expr.op}", left)
        right = self.expect(expr.right, right_type, INT, f"the right side of {expr.op}", right)
        return ir.Arithmetic(expr.pos, expr.op, left, right), INT

    def _expr_Compare(self, expr: syntax.Compare, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        left, left_type = self._expr(expr.left, scope, context)
        right, right_type = self._expr(expr.right, scope, context)
        if expr.op in ("in", "notin"):
            if isinstance(right_type, ListType):
                if not compatible(right_type.element, left_type):
                    self.error(expr.pos, f"{left_type.describe()} can never be in a {right_type.describe()}")
            elif base_kind(right_type) != "any":
                self.error(expr.right.pos, f"`in` needs a list on its right, not {right_type.describe()}")
            right = self.guard(expr.right, right_type, (ListType(ANY),), f"the right side of `{'not in' if expr.op == 'notin' else 'in'}`", right)
        elif expr.op in ("==", "!="):
            if not compatible(left_type, right_type):
                self.error(expr.pos, f"comparing {left_type.describe()} with {right_type.describe()} is always {expr.op == '!='}")
            elif isinstance(left_type, StrType) and isinstance(expr.right, syntax.StrLit):
                self._check_enum_value(left_type, expr.right)
            elif isinstance(right_type, StrType) and isinstance(expr.left, syntax.StrLit):
                self._check_enum_value(right_type, expr.left)
        else:
            # numbers and odds ratios order together: ratio(a, d) >= 3 means odds of 3:1 or better
            for side, side_type, where in ((expr.left, left_type, "left"), (expr.right, right_type, "right")):
                if base_kind(side_type) not in ("int", "ratio", "any"):
                    self.error(side.pos, f"the {where} side of {expr.op} must be a number or an odds ratio, not {side_type.describe()}")
            left = self.guard(expr.left, left_type, (INT, RATIO), f"the left side of {expr.op}", left)
            right = self.guard(expr.right, right_type, (INT, RATIO), f"the right side of {expr.op}", right)
        return ir.Comparison(expr.pos, expr.op, left, right), BOOL

    def _check_enum_value(self, enum: StrType, literal: syntax.StrLit) -> None:
        if enum.values and literal.value not in enum.values:
            self.error(literal.pos, f"'{literal.value}' is not one of {', '.join(enum.values)}")

    def _expr_Logical(self, expr: syntax.Logical, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        left, left_type = self._expr(expr.left, scope, context)
        right, right_type = self._expr(
            expr.right, scope, _Context(None, f"the right side of `{expr.op}` is not always evaluated: roll into a `let` first", context.where)
        )
        left = self.expect(expr.left, left_type, BOOL, f"the left side of `{expr.op}`", left)
        right = self.expect(expr.right, right_type, BOOL, f"the right side of `{expr.op}`", right)
        return ir.Logical(expr.pos, expr.op, left, right), BOOL

    def _expr_Conditional(self, expr: syntax.Conditional, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        condition, condition_type = self._expr(expr.condition, scope, context)
        condition = self.expect(expr.condition, condition_type, BOOL, "a condition", condition)
        branch_context = _Context(None, "only one branch of `if ... then ... else` is evaluated: roll into a `let` first", context.where)
        then, then_type = self._expr(expr.then, scope, branch_context)
        otherwise, otherwise_type = self._expr(expr.otherwise, scope, branch_context)
        if not compatible(then_type, otherwise_type):
            self.error(expr.pos, f"the branches give {then_type.describe()} and {otherwise_type.describe()}")
        result = then_type if base_kind(then_type) != "any" else otherwise_type
        if holds_records(then_type) or holds_records(otherwise_type):  # the type is a proof (proven_types): either branch's,
            # an empty list (`if c then ships else []`) being a list of every type
            then_type, otherwise_type = (otherwise_type if _empty(then) else then_type), (then_type if _empty(otherwise) else otherwise_type)
            result = join_proven(then_type, otherwise_type) or ANY
        return ir.Conditional(expr.pos, condition, then, otherwise), result

    def _expr_RangeExpr(self, expr: syntax.RangeExpr, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        low, low_type = self._expr(expr.low, scope, context)
        high, high_type = self._expr(expr.high, scope, context)
        low = self.expect(expr.low, low_type, INT, "the start of a range", low)
        high = self.expect(expr.high, high_type, INT, "the end of a range", high)
        return ir.Range(expr.pos, low, high), ListType(INT)

    def _expr_Dice(self, expr: syntax.Dice, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        return self._roll(expr.pos, expr.count, expr.sides, expr.text, scope, context)

    def _roll(self, pos: syntax.Pos, count: syntax.Expr, sides: syntax.Expr, text: str, scope: _Scope, context: _Context,
              kind: str = "sum", faces: syntax.Expr | None = None) -> tuple[ir.Expr, Type]:
        result = ListType(INT) if kind == "pool" else INT
        if context.hoist is None:
            self.error(pos, f"dice cannot be rolled here: {context.no_dice_reason}{context.where}")
            return ir.Const(pos, () if kind == "pool" else 0), result
        inner = _Context(None, "the number and size of dice cannot themselves be rolled", context.where)
        count_ir, count_type = self._expr(count, scope, inner)
        sides_ir, sides_type = self._expr(sides, scope, inner)
        count_ir = self.expect(count, count_type, INT, "the number of dice", count_ir)
        sides_ir = self.expect(sides, sides_type, INT, "the number of faces", sides_ir)
        faces_ir = None
        if faces is not None:
            faces_ir, faces_type = self._expr(faces, scope, inner)
            faces_ir = self.expect_list_of(faces, faces_type, INT, text, faces_ir)
        slot = self._alloc(scope)
        context.hoist.append(ir.Roll(pos, slot, count_ir, sides_ir, text, kind, faces_ir))
        return ir.Local(pos, text, slot), result

    def _expr_Call(self, expr: syntax.Call, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        name = expr.function
        own = self._ruleset_call(expr, scope, context)
        if own is not None:
            return own
        function = FUNCTIONS.get(name)
        if function is None:
            close = difflib.get_close_matches(name, sorted(FUNCTIONS), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (functions: {', '.join(sorted(FUNCTIONS))})"
            if name in self.ruleset.tables:
                hint = f": '{name}' is a table, read it with `lookup {name}(row = ...)`"
            elif name in self.ruleset.procedures:
                hint = f": '{name}' is a procedure, call it with `resolve {name}(...)`"
            self.error(expr.pos, f"unknown function '{name}'{hint}{context.where}")
            return _invalid(expr), ANY
        for arg in expr.args:
            if arg.name is not None:
                self.error(arg.pos, f"{name}() takes no named arguments{context.where}")
        if name == "reroll":  # a roll with faces to roll again (interpreter/rerolls.py)
            return rerolls.check_reroll(self, expr, scope, context)
        if function.rolls:
            arity = function.arity[0]
            if len(expr.args) != arity:
                self.error(expr.pos, f"{function.usage} takes {'two' if arity == 2 else 'three'} arguments")
                return _invalid(expr), ListType(INT) if name == "pool" else INT
            kind = {"dice": "sum", "pool": "pool", "successes": "successes"}[name]
            faces = expr.args[2].value if kind == "successes" else None
            return self._roll(expr.pos, expr.args[0].value, expr.args[1].value, name, scope, context, kind, faces)
        args = [self._expr(arg.value, scope, context) for arg in expr.args]
        site = CallSite(expr, [arg.value for arg in expr.args], [value for value, _ in args], [t for _, t in args])
        result = function.type_rule(self, site)
        made = ir.CallFunction(expr.pos, function, tuple(site.values))
        if is_order_free(result) and name in ("append", "replace_at", "remove_at"):
            return ir.Canonical(expr.pos, made), result  # a changed order-free list, put back in order
        return made, result

    def _ruleset_call(self, expr: syntax.Call, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type] | None:
        """A call of a ruleset's own helper function, or a record literal of a declared type (``ship(kind = ...)``,
        checker_records.py) unless a built-in has the name; None for any other call."""
        helper, record_type = self.ruleset.functions.get(expr.function), self.ruleset.types.get(expr.function)
        if helper is not None:
            return self._helper_call(expr, helper, scope, context)
        if isinstance(record_type, RecordType) and expr.function not in FUNCTIONS:
            return records.record_literal(self, expr, record_type, scope, context)
        return None

    def _report_helper_cycles(self) -> frozenset[str]:
        """The helper functions that call themselves, through others or directly, each cycle reported once at the
        call that closes it. Found on the definitions, not while expanding: ``d(d(1))`` nests a helper in its own
        argument and is no cycle. An explicit stack: a chain of helpers may be long."""
        helpers = self.ruleset.functions
        calls = {name: _helper_calls(helper.body, helpers) for name, helper in helpers.items()}
        cyclic: set[str] = set()
        done: set[str] = set()
        for start in helpers:
            if start in done:
                continue
            path, stack = [start], [iter(calls[start])]
            while stack:
                step = next(stack[-1], None)
                if step is None:
                    done.add(path.pop())
                    stack.pop()
                    continue
                callee, pos = step
                if callee in path:
                    loop = path[path.index(callee):]
                    cyclic.update(loop)
                    chain = " -> ".join([*loop, callee])
                    self.error(pos, f"helper function '{callee}' calls itself ({chain}): a helper is expanded where it is called")
                elif callee not in done:
                    path.append(callee)
                    stack.append(iter(calls[callee]))
        return frozenset(cyclic)

    def _helper_call(self, expr: syntax.Call, helper: Any, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        """A call of a ruleset's helper function, checked as its body with each parameter standing for its argument.

        The arguments are expressions of the caller's, put in place of the parameters before checking, so the
        helper costs nothing at run time and both back ends run what they always ran. Nothing in the expansion
        may roll a die or resolve a procedure: an argument would be rolled once per use of its parameter.
        """
        name = helper.name
        # A stranger's helpers may nest deep (h999 calls h998 ...) or double at each level (h(x) = g(x) + g(x)):
        # each expansion is checked anew, so both are bounded, and refused once with the limit named.
        if len(self.expanding) >= MAX_HELPER_DEPTH or self.helper_calls_left <= 0:
            if self.helper_calls_left > -1:
                self.helper_calls_left = -1  # said once
                self.error(expr.pos, f"helper functions expand too far here: at most {MAX_HELPER_DEPTH} nested inside each other "
                                     f"and {MAX_HELPER_CALLS:,} calls expanded in a ruleset")
            return _invalid(expr), ANY
        self.helper_calls_left -= 1
        if name in self.cyclic_helpers:  # reported at its definition (_report_helper_cycles)
            return _invalid(expr), ANY
        if any(arg.name is not None for arg in expr.args) or len(expr.args) != len(helper.params):
            params = ", ".join(helper.params)
            self.error(expr.pos, f"{name}({params}) takes {len(helper.params)} argument{'s' if len(helper.params) != 1 else ''}, "
                                 f"by position{context.where}")
            return _invalid(expr), ANY
        bindings = {param: arg.value for param, arg in zip(helper.params, expr.args)}
        inner = _Context(None, f"a helper function's call cannot roll dice or resolve a procedure (in {name}(...)): roll into a `let` first",
                         context.where or f" (in helper function {name}, called at line {expr.pos.line})")
        self.expanding.append(name)
        try:
            return self._expr(_substitute(helper.body, bindings), scope, inner)
        finally:
            self.expanding.pop()

    def expect_list_of(self, expr, actual: Type, element: Type, function: str, value: ir.Expr) -> ir.Expr:
        if isinstance(actual, ListType):
            if not compatible(element, actual.element):
                self.error(expr.pos, f"{function}() needs a list of {element.describe()}, not {actual.describe()}")
                return value
        elif base_kind(actual) != "any":
            self.error(expr.pos, f"{function}() needs a list, not {actual.describe()}")
            return value
        return self.guard(expr, actual, (ListType(element),), f"what {function}() reads", value)

    def _expr_Aggregate(self, expr: syntax.Aggregate, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        aggregate = AGGREGATES.get(expr.function)
        if aggregate is None:
            self.error(expr.pos, f"'{expr.function}(... for ... in ...)' is not an aggregate; use one of {', '.join(sorted(AGGREGATES))}")
            return _invalid(expr), ANY
        inner_context = _Context(None, "dice cannot be rolled inside an aggregate", context.where)
        collection, collection_type = self._expr(expr.collection, scope, inner_context)
        element = collection_type.element if isinstance(collection_type, ListType) else ANY
        if base_kind(collection_type) not in ("list", "any"):
            self.error(expr.collection.pos, f"`for {expr.var} in` needs a list, not {collection_type.describe()}")
        collection = self.guard(expr.collection, collection_type, (ListType(ANY),), f"what {expr.function}() runs over", collection)
        existing = self._existing_name(expr.var, scope)
        if existing:
            self.error(expr.pos, f"'{expr.var}' is already {existing}; pick another name for the aggregate's variable")
        slot = self._alloc(None)
        inner = _Scope(scope)
        inner.names[expr.var] = _Variable(slot, element, expr.pos)
        value, value_type = self._expr(expr.element, inner, inner_context)
        condition = None
        if expr.condition is not None:
            condition, condition_type = self._expr(expr.condition, inner, inner_context)
            condition = self.expect(expr.condition, condition_type, BOOL, "an aggregate's `if` condition", condition)
        value, result = aggregate.type_rule(self, expr, value, value_type, element)
        made = ir.Aggregate(expr.pos, aggregate, value, slot, collection, condition)
        if expr.function == "list" and is_order_free(collection_type) and isinstance(result, ListType):
            # items made from an order-free list's: their order means nothing either
            return ir.Canonical(expr.pos, made), ListType(result.element, ordered=False)
        return made, result

    def _expr_Lookup(self, expr: syntax.Lookup, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        table = self.ruleset.tables.get(expr.table)
        if table is None:
            self.error(expr.pos, f"unknown table '{expr.table}'{_did_you_mean(expr.table, self.ruleset.tables)}{context.where}")
            return _invalid(expr), ANY
        args: dict[str, syntax.Expr] = {}
        positional_names = ["row", "column"]
        for index, arg in enumerate(expr.args):
            name = arg.name
            if name is None:
                if index >= len(positional_names):
                    self.error(arg.pos, "lookup takes at most row and column by position; give shift by name: shift = ...")
                    continue
                name = positional_names[index]
            if name not in ("row", "column", "shift"):
                self.error(arg.pos, f"lookup has no argument '{name}' (row, column, shift)")
                continue
            if name in args:
                self.error(arg.pos, f"'{name}' given twice")
            args[name] = arg.value
        if "row" not in args:
            self.error(expr.pos, f"lookup {expr.table} needs a row (row = ...)")
        if table.columns is not None and "column" not in args:
            self.error(expr.pos, f"table '{expr.table}' has columns ({table.columns.name}): give column = ...")
        if table.columns is None:
            for name in ("column", "shift"):
                if name in args:
                    self.error(args[name].pos, f"table '{expr.table}' has no columns, so no {name}")
        compiled: dict[str, ir.Expr] = {}
        for name, value in args.items():
            value_ir, value_type = self._expr(value, scope, context)
            if name == "shift":
                value_ir = self.expect(value, value_type, INT, "a column shift", value_ir)
            elif base_kind(value_type) not in ("int", "str", "ratio", "any"):
                self.error(value.pos, f"a {name} key must be a number, an odds ratio or a category, not {value_type.describe()}")
            else:
                value_ir = self.guard(value, value_type, (INT, STR, RATIO), f"the {name} key", value_ir)
            compiled[name] = value_ir
        placeholder = ir.Const(expr.pos, 0)
        return (
            ir.Lookup(expr.pos, table, compiled.get("row", placeholder), compiled.get("column"), compiled.get("shift")),
            self._cell_type(table, expr.pos),
        )

    def _expr_ModifierSum(self, expr: syntax.ModifierSum, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        modifier_list: ModifierList | None = self.ruleset.modifiers.get(expr.list_name)
        keyword = "modifiers" if expr.kind == "drm" else "shifts"
        if modifier_list is None:
            self.error(expr.pos, f"unknown modifier list '{expr.list_name}'{_did_you_mean(expr.list_name, self.ruleset.modifiers)}")
            return _invalid(expr), INT
        if modifier_list.kind != expr.kind:
            right = "modifiers" if modifier_list.kind == "drm" else "shifts"
            self.error(expr.pos, f"'{expr.list_name}' is a {modifier_list.kind} list: use `{right} {expr.list_name}`, not `{keyword}`")
        entries = []
        where = f" (in {modifier_list.kind} list '{modifier_list.name}', used by procedure '{self.procedure.name}')"
        for entry in modifier_list.entries:
            condition, condition_type = self._expr(
                entry.condition, scope, _Context(None, "a modifier's condition cannot roll dice", where)
            )
            condition = self.expect(entry.condition, condition_type, BOOL, "a modifier's `when`", condition)
            entries.append((entry, condition))
        return ir.ModifierSum(expr.pos, modifier_list, tuple(entries)), INT

    _expr_RecordUpdate = records.record_update  # `s with {status = "sunk"}`: checker_records.py

    def _expr_Resolve(self, expr: syntax.Resolve, scope: _Scope, context: _Context) -> tuple[ir.Expr, Type]:
        callee = self.ruleset.procedures.get(expr.procedure)
        if callee is None:
            if expr.procedure not in self.ruleset.unparsed:  # a body that did not parse is reported there, once
                self.error(expr.pos, f"unknown procedure '{expr.procedure}'{_did_you_mean(expr.procedure, self.ruleset.procedures)}")
            return _invalid(expr), ANY
        if context.hoist is None:
            self.error(expr.pos, f"a procedure cannot be resolved here: {context.no_resolve_reason()}")
            return _invalid(expr), ANY
        args = []
        given = set()
        trusted = set()
        for arg in expr.args + passed_arguments(expr, callee, self.procedure, self.error):
            if arg.name is None:
                self.error(arg.pos, f"name each argument of resolve {expr.procedure}(...): NAME = value")
                continue
            value, value_type = self._expr(arg.value, scope, context)
            spec = callee.input(arg.name)
            choice = callee.choice(arg.name)
            if spec is not None:
                expected = spec.type
            elif choice is not None:
                expected = StrType(choice.options)
            else:
                names = [s.name for s in callee.inputs] + [c.name for c in callee.choices]
                self.error(arg.pos, f"procedure '{expr.procedure}' has no input '{arg.name}' (inputs: {', '.join(names) or 'none'})")
                continue
            if not compatible(expected, value_type) or records_differ(expected, value_type):  # coerce takes its own type only
                self.error(arg.value.pos, f"input '{arg.name}' of '{expr.procedure}' is {expected.describe()}, not {value_type.describe()}"
                                          f"{passed_hint(expr, arg)}")
            elif isinstance(expected, StrType) and isinstance(arg.value, syntax.StrLit):
                self._check_enum_value(expected, arg.value)
            given.add(arg.name)
            args.append((arg.name, value))
            if spec is not None and coercion_keeps(spec.type, value_type):
                trusted.add(arg.name)
        report_missing(expr, callee, self.procedure, given, self.error)
        slot = self._alloc(scope)
        context.hoist.append(ir.CallProcedure(expr.pos, slot, expr.procedure, tuple(args), frozenset(trusted)))
        return ir.Local(expr.pos, f"resolve {expr.procedure}", slot), self.outcome_types.get(expr.procedure, OutcomeType(expr.procedure, ()))


def _empty(value: ir.Expr) -> bool:
    """Is ``value`` the empty list literal ``[]``?  It is a list of every type (typed ``list of any``)."""
    return (type(value) is ir.ListOf and not value.items) or (type(value) is ir.Const and value.value == ())


# Checked when the module loads: a statement class added to syntax.py without its method fails here, not in use.
_UNCHECKED_STATEMENTS = set(syntax.Stmt.__subclasses__()) ^ set(Checker._STATEMENT_CHECKS)
if _UNCHECKED_STATEMENTS:  # pragma: no cover
    raise AssertionError(f"Checker._STATEMENT_CHECKS and syntax.Stmt's classes differ: {sorted(c.__name__ for c in _UNCHECKED_STATEMENTS)}")


def _did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` naming the closest candidate, or nothing when none is close."""
    close = difflib.get_close_matches(name, sorted(candidates), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _invalid(expr: syntax.Expr) -> ir.Const:
    """What an expression the checker refused compiles to: the ruleset will not load, so it never runs."""
    return ir.Const(expr.pos, None)


def compile_ruleset(ruleset: Ruleset, diagnostics: DiagnosticList) -> dict[str, ir.CheckedProcedure]:
    return Checker(ruleset, diagnostics).check()
