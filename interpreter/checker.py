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

import difflib
from dataclasses import dataclass, field
from typing import Iterable

from . import ast, ir
from .errors import DiagnosticList
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
    type_of_value,
)

AGGREGATES = {"all", "any", "count", "sum", "min", "max", "list", "sort", "sort_desc"}
BUILTINS = {
    "min", "max", "abs", "count", "sum", "all", "any", "dice", "ceil_div", "ratio",
    "append", "replace_at", "remove_at", "with_field", "repeat",
}


def cell_type(table: Table) -> Type:
    if table.result_fields is not None:
        return RecordType(f"cell of {table.name}", (("code", STR),) + tuple(table.result_fields))
    kinds = {base_kind(type_of_value(v)) for row in table.cells for v in row}
    if kinds == {"int"}:
        return INT
    if kinds == {"str"}:
        return STR
    return ANY


@dataclass
class _Variable:
    slot: int
    type: Type
    pos: ast.Pos


@dataclass
class _Scope:
    parent: "_Scope | None"
    names: dict[str, _Variable] = field(default_factory=dict)
    slots: list[int] = field(default_factory=list)

    def find(self, name: str) -> _Variable | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def visible(self) -> set[str]:
        names: set[str] = set()
        scope: _Scope | None = self
        while scope is not None:
            names.update(scope.names)
            scope = scope.parent
        return names


@dataclass
class _Context:
    """Per-expression state: where hoisted rolls go, or why rolls are not allowed."""

    hoist: list | None
    no_dice_reason: str = ""
    where: str = ""  # appended to messages, e.g. " (in modifier list drms)"


class Checker:
    def __init__(self, ruleset: Ruleset, diagnostics: DiagnosticList):
        self.ruleset = ruleset
        self.diagnostics = diagnostics
        self.calls: dict[str, list[tuple[str, ast.Pos]]] = {}
        self.outcome_types = {name: self._outcome_type(proc) for name, proc in ruleset.procedures.items()}
        self.cell_types = {name: cell_type(table) for name, table in ruleset.tables.items()}

    # ---- entry point -----------------------------------------------------------

    def check(self) -> dict[str, ir.CompiledProcedure]:
        compiled = {}
        for name, procedure in self.ruleset.procedures.items():
            compiled[name] = self._compile_procedure(procedure)
        self._check_cycles()
        return compiled

    def error(self, pos: ast.Pos, message: str) -> None:
        self.diagnostics.add(pos.diagnostic(message))

    # ---- procedures --------------------------------------------------------------

    def _compile_procedure(self, procedure: Procedure) -> ir.CompiledProcedure:
        self.procedure = procedure
        self.next_slot = 0
        self.loop_depth = 0
        for spec in procedure.inputs:
            self._check_shadowing(spec.name, spec.pos, "input")
        for choice in procedure.choices:
            self._check_shadowing(choice.name, choice.pos, "choice")
            if procedure.input(choice.name):
                self.error(choice.pos, f"choice '{choice.name}' has the same name as an input")
        body = self._block(procedure.body, _Scope(None))
        if not self._always_ends(procedure.body):
            last = procedure.body.statements[-1].pos if procedure.body.statements else procedure.body.pos
            self.error(last, f"procedure '{procedure.name}' may reach its end without an outcome: end every path with `outcome NAME(...)`")
        outcome = self.outcome_types[procedure.name]
        names = tuple(dict.fromkeys(s.name for s in _walk_statements(procedure.body) if isinstance(s, ast.Outcome)))
        return ir.CompiledProcedure(
            procedure.name, procedure.title, procedure.rule, procedure.inputs, procedure.choices, body, self.next_slot, outcome, names
        )

    def _check_shadowing(self, name: str, pos: ast.Pos, what: str) -> None:
        if name in self.ruleset.constants:
            self.error(pos, f"{what} '{name}' has the same name as a constant; rename one of them")

    def _outcome_type(self, procedure: Procedure) -> OutcomeType:
        fields: dict[str, Type] = {}
        for statement in _walk_statements(procedure.body):
            if isinstance(statement, ast.Outcome):
                for f in statement.fields:
                    fields.setdefault(f.name, ANY)
        return OutcomeType(procedure.name, tuple(fields.items()))

    def _always_ends(self, block: ast.Block) -> bool:
        statements = [s for s in block.statements if not isinstance(s, ast.Note)]
        if not statements:
            return False
        last = statements[-1]
        if isinstance(last, ast.Outcome):
            return True
        if isinstance(last, ast.If) and last.otherwise is not None:
            return all(self._always_ends(body) for _, body in last.branches) and self._always_ends(last.otherwise)
        return False

    def _alloc(self, scope: _Scope | None) -> int:
        slot = self.next_slot
        self.next_slot += 1
        if scope is not None:
            scope.slots.append(slot)
        return slot

    # ---- statements ----------------------------------------------------------------

    def _block(self, block: ast.Block, scope: _Scope) -> ir.Block:
        statements: list[ast.Stmt] = []
        ended_by: ast.Stmt | None = None
        for statement in block.statements:
            if ended_by is not None:
                kind = "outcome" if isinstance(ended_by, ast.Outcome) else "break"
                self.error(statement.pos, f"unreachable: this statement follows the {kind} at line {ended_by.pos.line}")
                ended_by = None  # one report per block is enough
            statements.extend(self._statement(statement, scope))
            if isinstance(statement, (ast.Outcome, ast.Break)):
                ended_by = statement
        return ir.Block(tuple(statements), tuple(scope.slots))

    def _statement(self, statement: ast.Stmt, scope: _Scope) -> list[ast.Stmt]:
        hoisted: list[ast.Stmt] = []
        context = _Context(hoisted)
        if isinstance(statement, ast.Let):
            value, value_type = self._expr(statement.value, scope, context)
            existing = self._existing_name(statement.name, scope)
            if existing:
                self.error(statement.pos, f"'{statement.name}' is already {existing}; use `set {statement.name} = ...` to change a variable")
            slot = self._alloc(scope)
            scope.names[statement.name] = _Variable(slot, value_type, statement.pos)
            return hoisted + [ir.Assign(statement.pos, statement.name, slot, value, True)]
        if isinstance(statement, ast.Set):
            value, value_type = self._expr(statement.value, scope, context)
            variable = scope.find(statement.name)
            if variable is None:
                existing = self._existing_name(statement.name, scope)
                if existing:
                    self.error(statement.pos, f"cannot set '{statement.name}': it is {existing}, not a variable; copy it with `let`")
                else:
                    self.error(statement.pos, f"cannot set '{statement.name}': no variable of that name{self._suggest(statement.name, scope)}; declare it with `let`")
                return hoisted
            if not compatible(variable.type, value_type):
                self.error(statement.value.pos, f"'{statement.name}' holds {variable.type.describe()}, not {value_type.describe()}")
            return hoisted + [ir.Assign(statement.pos, statement.name, variable.slot, value, False)]
        if isinstance(statement, ast.If):
            branches = []
            for index, (condition, body) in enumerate(statement.branches):
                if index == 0:
                    condition_ir, condition_type = self._expr(condition, scope, context)
                else:
                    condition_ir, condition_type = self._expr(
                        condition, scope, _Context(None, "roll dice in a `let` before the `if`, not in an `elif` condition")
                    )
                self._expect(condition, condition_type, BOOL, "a condition")
                branches.append((condition_ir, self._block(body, _Scope(scope))))
            otherwise = self._block(statement.otherwise, _Scope(scope)) if statement.otherwise is not None else None
            return hoisted + [ir.IfIR(statement.pos, tuple(branches), otherwise)]
        if isinstance(statement, ast.For):
            iterable, iterable_type = self._expr(
                statement.iterable, scope, _Context(None, "a loop's bounds cannot roll dice: roll into a `let` first")
            )
            element = ANY
            if isinstance(iterable_type, ListType):
                element = iterable_type.element
            elif base_kind(iterable_type) != "any":
                self.error(statement.iterable.pos, f"`for` needs a list or a range such as 1 .. n, not {iterable_type.describe()}")
            existing = self._existing_name(statement.var, scope)
            if existing:
                self.error(statement.pos, f"loop variable '{statement.var}' is already {existing}")
            var_slot, sequence_slot, index_slot = self._alloc(None), self._alloc(None), self._alloc(None)
            inner = _Scope(scope)
            inner.names[statement.var] = _Variable(var_slot, element, statement.pos)
            self.loop_depth += 1
            body_scope = _Scope(inner)
            body = self._block(statement.body, body_scope)
            self.loop_depth -= 1
            return [ir.Loop(statement.pos, statement.var, var_slot, sequence_slot, index_slot, iterable, body)]
        if isinstance(statement, ast.While):
            no_dice = _Context(None, "a loop's condition and limit cannot roll dice: roll into a variable inside the loop")
            condition, condition_type = self._expr(statement.condition, scope, no_dice)
            self._expect(statement.condition, condition_type, BOOL, "a `while` condition")
            limit, limit_type = self._expr(statement.limit, scope, no_dice)
            self._expect(statement.limit, limit_type, INT, "a `while` limit")
            count_slot, limit_slot = self._alloc(None), self._alloc(None)
            self.loop_depth += 1
            body = self._block(statement.body, _Scope(scope))
            self.loop_depth -= 1
            return [ir.WhileLoop(statement.pos, condition, limit, count_slot, limit_slot, body)]
        if isinstance(statement, ast.Break):
            if self.loop_depth == 0:
                self.error(statement.pos, "`break` outside a loop")
            return [statement]
        if isinstance(statement, ast.Outcome):
            fields = []
            seen: dict[str, ast.Pos] = {}
            for f in statement.fields:
                if f.name in seen:
                    self.error(f.pos, f"field '{f.name}' given twice in outcome {statement.name}")
                seen[f.name] = f.pos
                value, _ = self._expr(f.value, scope, context)
                fields.append((f.name, value))
            return hoisted + [ir.OutcomeIR(statement.pos, statement.name, tuple(fields), statement.rule)]
        if isinstance(statement, ast.Require):
            condition, condition_type = self._expr(statement.condition, scope, context)
            self._expect(statement.condition, condition_type, BOOL, "a `require` condition")
            return hoisted + [ast.Require(statement.pos, condition, statement.message)]
        if isinstance(statement, ast.Note):
            return [statement]
        raise AssertionError(f"unknown statement {statement!r}")  # pragma: no cover

    def _existing_name(self, name: str, scope: _Scope) -> str:
        if scope.find(name) is not None:
            return f"a variable (declared at line {scope.find(name).pos.line})"
        if self.procedure.input(name):
            return "an input of this procedure"
        if self.procedure.choice(name):
            return "a choice of this procedure"
        if name in self.ruleset.constants:
            return "a constant"
        return ""

    def _expect(self, expr: ast.Expr, actual: Type, expected: Type, what: str) -> None:
        if not compatible(expected, actual):
            self.error(expr.pos, f"{what} must be {expected.describe()}, not {actual.describe()}")

    def _suggest(self, name: str, scope: _Scope) -> str:
        candidates = (
            scope.visible()
            | {s.name for s in self.procedure.inputs}
            | {c.name for c in self.procedure.choices}
            | set(self.ruleset.constants)
        )
        close = difflib.get_close_matches(name, sorted(candidates), n=1)
        return f" (did you mean '{close[0]}'?)" if close else ""

    # ---- expressions -----------------------------------------------------------------

    def _expr(self, expr: ast.Expr, scope: _Scope, context: _Context) -> tuple[ast.Expr, Type]:
        method = getattr(self, "_expr_" + type(expr).__name__)
        return method(expr, scope, context)

    def _expr_IntLit(self, expr, scope, context):
        return expr, INT

    def _expr_StrLit(self, expr, scope, context):
        return expr, STR

    def _expr_BoolLit(self, expr, scope, context):
        return expr, BOOL

    def _expr_ListLit(self, expr, scope, context):
        items, types = [], []
        for item in expr.items:
            item_ir, item_type = self._expr(item, scope, context)
            items.append(item_ir)
            types.append(item_type)
        kinds = {base_kind(t) for t in types} - {"any"}
        if len(kinds) > 1:
            self.error(expr.pos, "a list's items must all be of one type")
        element = types[0] if types and len(kinds) == 1 else ANY
        return ast.ListLit(expr.pos, tuple(items)), ListType(element)

    def _expr_Name(self, expr, scope, context):
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
            return ir.Literal(expr.pos, constant.value, expr.name), type_of_value(constant.value)
        if expr.name in self.ruleset.tables:
            self.error(expr.pos, f"'{expr.name}' is a table: read it with `lookup {expr.name}(row = ...)`{context.where}")
        elif expr.name in self.ruleset.modifiers:
            kind = "modifiers" if self.ruleset.modifiers[expr.name].kind == "drm" else "shifts"
            self.error(expr.pos, f"'{expr.name}' is a modifier list: add it up with `{kind} {expr.name}`{context.where}")
        elif expr.name in self.ruleset.procedures:
            self.error(expr.pos, f"'{expr.name}' is a procedure: call it with `resolve {expr.name}(...)`{context.where}")
        else:
            self.error(expr.pos, f"unknown name '{expr.name}'{self._suggest(expr.name, scope)}{context.where}")
        return expr, ANY

    def _expr_Attribute(self, expr, scope, context):
        subject, subject_type = self._expr(expr.subject, scope, context)
        result = ANY
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
        return ast.Attribute(expr.pos, subject, expr.name), result

    def _expr_Index(self, expr, scope, context):
        subject, subject_type = self._expr(expr.subject, scope, context)
        index, index_type = self._expr(expr.index, scope, context)
        self._expect(expr.index, index_type, INT, "an index")
        element = subject_type.element if isinstance(subject_type, ListType) else ANY
        if base_kind(subject_type) not in ("list", "any"):
            self.error(expr.pos, f"cannot index {subject_type.describe()}")
        return ast.Index(expr.pos, subject, index), element

    def _expr_Negate(self, expr, scope, context):
        operand, operand_type = self._expr(expr.operand, scope, context)
        self._expect(expr.operand, operand_type, INT, "the operand of -")
        return ast.Negate(expr.pos, operand), INT

    def _expr_Not(self, expr, scope, context):
        operand, operand_type = self._expr(expr.operand, scope, context)
        self._expect(expr.operand, operand_type, BOOL, "the operand of `not`")
        return ast.Not(expr.pos, operand), BOOL

    def _expr_Binary(self, expr, scope, context):
        left, left_type = self._expr(expr.left, scope, context)
        right, right_type = self._expr(expr.right, scope, context)
        self._expect(expr.left, left_type, INT, f"the left side of {expr.op}")
        self._expect(expr.right, right_type, INT, f"the right side of {expr.op}")
        return ast.Binary(expr.pos, expr.op, left, right), INT

    def _expr_Compare(self, expr, scope, context):
        left, left_type = self._expr(expr.left, scope, context)
        right, right_type = self._expr(expr.right, scope, context)
        if expr.op in ("in", "notin"):
            if isinstance(right_type, ListType):
                if not compatible(right_type.element, left_type):
                    self.error(expr.pos, f"{left_type.describe()} can never be in a {right_type.describe()}")
            elif base_kind(right_type) != "any":
                self.error(expr.right.pos, f"`in` needs a list on its right, not {right_type.describe()}")
        elif expr.op in ("==", "!="):
            if not compatible(left_type, right_type):
                self.error(expr.pos, f"comparing {left_type.describe()} with {right_type.describe()} is always {expr.op == '!='}")
            elif isinstance(left_type, StrType) and isinstance(expr.right, ast.StrLit):
                self._check_enum_value(left_type, expr.right)
            elif isinstance(right_type, StrType) and isinstance(expr.left, ast.StrLit):
                self._check_enum_value(right_type, expr.left)
        else:
            # numbers and odds ratios order together: ratio(a, d) >= 3 means odds of 3:1 or better
            for side, side_type, where in ((expr.left, left_type, "left"), (expr.right, right_type, "right")):
                if base_kind(side_type) not in ("int", "ratio", "any"):
                    self.error(side.pos, f"the {where} side of {expr.op} must be a number or an odds ratio, not {side_type.describe()}")
        return ast.Compare(expr.pos, expr.op, left, right), BOOL

    def _check_enum_value(self, enum: StrType, literal: ast.StrLit) -> None:
        if enum.values and literal.value not in enum.values:
            self.error(literal.pos, f"'{literal.value}' is not one of {', '.join(enum.values)}")

    def _expr_Logical(self, expr, scope, context):
        left, left_type = self._expr(expr.left, scope, context)
        right, right_type = self._expr(
            expr.right, scope, _Context(None, f"the right side of `{expr.op}` is not always evaluated: roll into a `let` first", context.where)
        )
        self._expect(expr.left, left_type, BOOL, f"the left side of `{expr.op}`")
        self._expect(expr.right, right_type, BOOL, f"the right side of `{expr.op}`")
        return ast.Logical(expr.pos, expr.op, left, right), BOOL

    def _expr_Conditional(self, expr, scope, context):
        condition, condition_type = self._expr(expr.condition, scope, context)
        self._expect(expr.condition, condition_type, BOOL, "a condition")
        branch_context = _Context(None, "only one branch of `if ... then ... else` is evaluated: roll into a `let` first", context.where)
        then, then_type = self._expr(expr.then, scope, branch_context)
        otherwise, otherwise_type = self._expr(expr.otherwise, scope, branch_context)
        if not compatible(then_type, otherwise_type):
            self.error(expr.pos, f"the branches give {then_type.describe()} and {otherwise_type.describe()}")
        result = then_type if base_kind(then_type) != "any" else otherwise_type
        return ast.Conditional(expr.pos, condition, then, otherwise), result

    def _expr_RangeExpr(self, expr, scope, context):
        low, low_type = self._expr(expr.low, scope, context)
        high, high_type = self._expr(expr.high, scope, context)
        self._expect(expr.low, low_type, INT, "the start of a range")
        self._expect(expr.high, high_type, INT, "the end of a range")
        return ast.RangeExpr(expr.pos, low, high), ListType(INT)

    def _expr_Dice(self, expr, scope, context):
        return self._roll(expr.pos, expr.count, expr.sides, expr.text, scope, context)

    def _roll(self, pos, count, sides, text, scope, context):
        if context.hoist is None:
            self.error(pos, f"dice cannot be rolled here: {context.no_dice_reason}{context.where}")
            return ast.IntLit(pos, 0), INT
        inner = _Context(None, "the number and size of dice cannot themselves be rolled", context.where)
        count_ir, count_type = self._expr(count, scope, inner)
        sides_ir, sides_type = self._expr(sides, scope, inner)
        self._expect(count, count_type, INT, "the number of dice")
        self._expect(sides, sides_type, INT, "the number of faces")
        slot = self._alloc(scope)
        context.hoist.append(ir.Roll(pos, slot, count_ir, sides_ir, text))
        return ir.Local(pos, text, slot), INT

    def _expr_Call(self, expr, scope, context):
        name = expr.function
        if name not in BUILTINS:
            close = difflib.get_close_matches(name, sorted(BUILTINS), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (functions: {', '.join(sorted(BUILTINS))})"
            if name in self.ruleset.tables:
                hint = f": '{name}' is a table, read it with `lookup {name}(row = ...)`"
            elif name in self.ruleset.procedures:
                hint = f": '{name}' is a procedure, call it with `resolve {name}(...)`"
            self.error(expr.pos, f"unknown function '{name}'{hint}{context.where}")
            return expr, ANY
        for arg in expr.args:
            if arg.name is not None:
                self.error(arg.pos, f"{name}() takes no named arguments{context.where}")
        if name == "dice":
            if len(expr.args) != 2:
                self.error(expr.pos, "dice(count, faces) takes two arguments")
                return expr, INT
            return self._roll(expr.pos, expr.args[0].value, expr.args[1].value, "dice", scope, context)
        args = [self._expr(arg.value, scope, context) for arg in expr.args]
        new = ast.Call(expr.pos, name, tuple(ast.Arg(a.pos, None, value) for a, (value, _) in zip(expr.args, args)))
        types = [t for _, t in args]
        if name in ("min", "max", "sum") and len(types) == 1:
            self._expect_list_of(expr.args[0].value, types[0], INT, name)
            return new, INT
        if name in ("min", "max"):
            if not types:
                self.error(expr.pos, f"{name}() needs at least one argument")
            for arg, t in zip(expr.args, types):
                self._expect(arg.value, t, INT, f"an argument of {name}()")
            return new, INT
        if name in ("all", "any"):
            if len(types) != 1:
                self.error(expr.pos, f"{name}() takes one list")
            else:
                self._expect_list_of(expr.args[0].value, types[0], BOOL, name)
            return new, BOOL
        if name in ("count", "sum"):
            if len(types) != 1:
                self.error(expr.pos, f"{name}() takes one list")
            elif base_kind(types[0]) not in ("list", "any"):
                self.error(expr.args[0].value.pos, f"{name}() needs a list, not {types[0].describe()}")
            return new, INT
        if name == "abs":
            if len(types) != 1:
                self.error(expr.pos, "abs() takes one number")
            else:
                self._expect(expr.args[0].value, types[0], INT, "the argument of abs()")
            return new, INT
        if name in ("ceil_div", "ratio"):
            usage = "ceil_div(a, b)" if name == "ceil_div" else "ratio(attack, defense)"
            if len(types) != 2:
                self.error(expr.pos, f"{usage} takes two numbers")
            for arg, t in zip(expr.args, types):
                self._expect(arg.value, t, INT, f"an argument of {name}()")
            return new, (INT if name == "ceil_div" else RATIO)
        return self._list_builtin(expr, new, name, types)

    def _list_builtin(self, expr, new, name: str, types: list[Type]):
        """append, replace_at, remove_at, repeat, with_field: new values, never mutation."""
        arity = {"append": 2, "replace_at": 3, "remove_at": 2, "repeat": 2, "with_field": 3}[name]
        usage = {
            "append": "append(list, item)",
            "replace_at": "replace_at(list, position, item)",
            "remove_at": "remove_at(list, position)",
            "repeat": "repeat(item, times)",
            "with_field": 'with_field(record, "field", value)',
        }[name]
        if len(types) != arity:
            self.error(expr.pos, f"{usage} takes {arity} arguments")
            return new, ANY
        args = [a.value for a in expr.args]
        if name == "repeat":
            self._expect(args[1], types[1], INT, "the count of repeat()")
            return new, ListType(types[0])
        if name == "with_field":
            record_type = types[0]
            if not isinstance(args[1], ast.StrLit):
                self.error(args[1].pos, 'with_field needs the field name as a literal string: with_field(ship, "damaged", true)')
                return new, record_type
            if isinstance(record_type, RecordType):
                field_type = record_type.field(args[1].value)
                if field_type is None:
                    self.error(args[1].pos, f"{record_type.describe()} has no field '{args[1].value}' (fields: {', '.join(n for n, _ in record_type.fields)})")
                elif not compatible(field_type, types[2]):
                    self.error(args[2].pos, f"field '{args[1].value}' holds {field_type.describe()}, not {types[2].describe()}")
            elif base_kind(record_type) != "any":
                self.error(args[0].pos, f"with_field needs a record, not {record_type.describe()}")
            return new, record_type
        list_type = types[0]
        if base_kind(list_type) not in ("list", "any"):
            self.error(args[0].pos, f"{name}() needs a list, not {list_type.describe()}")
            return new, ANY
        element = list_type.element if isinstance(list_type, ListType) else ANY
        if name in ("replace_at", "remove_at"):
            self._expect(args[1], types[1], INT, f"the position in {name}()")
        item_type = types[-1] if name in ("append", "replace_at") else None
        if item_type is not None and not compatible(element, item_type):
            self.error(args[-1].pos, f"a {list_type.describe()} cannot hold {item_type.describe()}")
        return new, list_type

    def _expect_list_of(self, expr, actual: Type, element: Type, function: str) -> None:
        if isinstance(actual, ListType):
            if not compatible(element, actual.element):
                self.error(expr.pos, f"{function}() needs a list of {element.describe()}, not {actual.describe()}")
        elif base_kind(actual) != "any":
            self.error(expr.pos, f"{function}() needs a list, not {actual.describe()}")

    def _expr_Aggregate(self, expr, scope, context):
        if expr.function not in AGGREGATES:
            self.error(expr.pos, f"'{expr.function}(... for ... in ...)' is not an aggregate; use one of {', '.join(sorted(AGGREGATES))}")
            return expr, ANY
        inner_context = _Context(None, "dice cannot be rolled inside an aggregate", context.where)
        collection, collection_type = self._expr(expr.collection, scope, inner_context)
        element = collection_type.element if isinstance(collection_type, ListType) else ANY
        if base_kind(collection_type) not in ("list", "any"):
            self.error(expr.collection.pos, f"`for {expr.var} in` needs a list, not {collection_type.describe()}")
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
            self._expect(expr.condition, condition_type, BOOL, "an aggregate's `if` condition")
        function = expr.function
        result: Type = INT
        if function in ("all", "any"):
            self._expect(expr.element, value_type, BOOL, f"what {function}() tests")
            result = BOOL
        elif function in ("sum", "min", "max"):
            self._expect(expr.element, value_type, INT, f"what {function}() adds up or compares")
        elif function == "list":
            result = ListType(value_type)
        elif function in ("sort", "sort_desc"):
            self._expect(expr.element, value_type, INT, f"the key {function}() orders by")
            result = ListType(element)
        return ir.AggregateIR(expr.pos, function, value, slot, collection, condition), result

    def _expr_Lookup(self, expr, scope, context):
        table = self.ruleset.tables.get(expr.table)
        if table is None:
            close = difflib.get_close_matches(expr.table, sorted(self.ruleset.tables), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            self.error(expr.pos, f"unknown table '{expr.table}'{hint}{context.where}")
            return expr, ANY
        args: dict[str, ast.Expr] = {}
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
        compiled: dict[str, ast.Expr] = {}
        for name, value in args.items():
            value_ir, value_type = self._expr(value, scope, context)
            if name == "shift":
                self._expect(value, value_type, INT, "a column shift")
            elif base_kind(value_type) not in ("int", "str", "ratio", "any"):
                self.error(value.pos, f"a {name} key must be a number, an odds ratio or a category, not {value_type.describe()}")
            compiled[name] = value_ir
        placeholder = ast.IntLit(expr.pos, 0)
        return (
            ir.LookupIR(expr.pos, table, compiled.get("row", placeholder), compiled.get("column"), compiled.get("shift")),
            self.cell_types[expr.table],
        )

    def _expr_ModifierSum(self, expr, scope, context):
        modifier_list: ModifierList | None = self.ruleset.modifiers.get(expr.list_name)
        keyword = "modifiers" if expr.kind == "drm" else "shifts"
        if modifier_list is None:
            close = difflib.get_close_matches(expr.list_name, sorted(self.ruleset.modifiers), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            self.error(expr.pos, f"unknown modifier list '{expr.list_name}'{hint}")
            return expr, INT
        if modifier_list.kind != expr.kind:
            right = "modifiers" if modifier_list.kind == "drm" else "shifts"
            self.error(expr.pos, f"'{expr.list_name}' is a {modifier_list.kind} list: use `{right} {expr.list_name}`, not `{keyword}`")
        entries = []
        where = f" (in {modifier_list.kind} list '{modifier_list.name}', used by procedure '{self.procedure.name}')"
        for entry in modifier_list.entries:
            condition, condition_type = self._expr(
                entry.condition, scope, _Context(None, "a modifier's condition cannot roll dice", where)
            )
            self._expect(entry.condition, condition_type, BOOL, "a modifier's `when`")
            entries.append((entry, condition))
        return ir.ModifierSumIR(expr.pos, modifier_list, tuple(entries)), INT

    def _expr_Resolve(self, expr, scope, context):
        callee = self.ruleset.procedures.get(expr.procedure)
        if callee is None:
            close = difflib.get_close_matches(expr.procedure, sorted(self.ruleset.procedures), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            self.error(expr.pos, f"unknown procedure '{expr.procedure}'{hint}")
            return expr, ANY
        if context.hoist is None:
            self.error(expr.pos, f"a procedure cannot be resolved here: {context.no_dice_reason.replace('roll', 'resolve it')}")
            return expr, ANY
        self.calls.setdefault(self.procedure.name, []).append((expr.procedure, expr.pos))
        args = []
        given = set()
        for arg in expr.args:
            if arg.name is None:
                self.error(arg.pos, f"name each argument of resolve {expr.procedure}(...): NAME = value")
                continue
            value, value_type = self._expr(arg.value, scope, context)
            spec = callee.input(arg.name)
            choice = callee.choice(arg.name)
            if spec is None and choice is None:
                names = [s.name for s in callee.inputs] + [c.name for c in callee.choices]
                self.error(arg.pos, f"procedure '{expr.procedure}' has no input '{arg.name}' (inputs: {', '.join(names) or 'none'})")
                continue
            expected = spec.type if spec is not None else StrType(choice.options)
            if not compatible(expected, value_type):
                self.error(arg.value.pos, f"input '{arg.name}' of '{expr.procedure}' is {expected.describe()}, not {value_type.describe()}")
            elif isinstance(expected, StrType) and isinstance(arg.value, ast.StrLit):
                self._check_enum_value(expected, arg.value)
            given.add(arg.name)
            args.append((arg.name, value))
        for spec in callee.inputs:
            if spec.required and spec.name not in given:
                self.error(expr.pos, f"resolve {expr.procedure}(...) is missing input '{spec.name}'")
        slot = self._alloc(scope)
        context.hoist.append(ir.CallProcedure(expr.pos, slot, expr.procedure, tuple(args)))
        return ir.Local(expr.pos, f"resolve {expr.procedure}", slot), self.outcome_types[expr.procedure]

    # ---- whole-ruleset checks ---------------------------------------------------------

    def _check_cycles(self) -> None:
        state: dict[str, str] = {}
        reported: set[str] = set()

        def visit(name: str, path: list[tuple[str, ast.Pos | None]]) -> None:
            state[name] = "active"
            for callee, pos in self.calls.get(name, ()):
                if state.get(callee) == "active":
                    names = [n for n, _ in path] + [name]
                    cycle = names[names.index(callee):] + [callee]
                    if callee not in reported:
                        reported.add(callee)
                        self.error(pos, f"procedures call each other in a cycle: {' -> '.join(cycle)}")
                elif callee not in state:
                    visit(callee, path + [(name, pos)])
            state[name] = "done"

        for name in self.ruleset.procedures:
            if name not in state:
                visit(name, [])


def _walk_statements(block: ast.Block) -> Iterable[ast.Stmt]:
    stack = list(reversed(block.statements))
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, ast.If):
            for _, body in reversed(statement.branches):
                stack.extend(reversed(body.statements))
            if statement.otherwise is not None:
                stack.extend(reversed(statement.otherwise.statements))
        elif isinstance(statement, (ast.For, ast.While)):
            stack.extend(reversed(statement.body.statements))


def compile_ruleset(ruleset: Ruleset, diagnostics: DiagnosticList) -> dict[str, ir.CompiledProcedure]:
    return Checker(ruleset, diagnostics).check()
