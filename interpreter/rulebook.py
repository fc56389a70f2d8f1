"""Procedures in rulebook form: the syntax tree read back as numbered steps.

``expr_text`` writes an expression back in the procedure language (the
reader of a player aid knows ``2d6 + drm``); ``steps`` turns a block into
nested steps ("Roll 2d6 (roll).", "If …:", "Result: intercepted."), each as
plain data for a reporter to format.  Nothing here is English put together
by the evaluator: it reads the frozen syntax tree the parser made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import ast

# Binding strength, loosest first (see grammar.lark).
_PRECEDENCE = {
    ast.Conditional: 0,
    ast.Logical: 1,
    ast.Not: 3,
    ast.Compare: 4,
    ast.RangeExpr: 5,
    ast.Binary: 6,
    ast.Negate: 8,
}
_BINARY_LEVEL = {"+": 6, "-": 6, "*": 7, "//": 7, "%": 7}
_COMPARE = {"notin": "not in"}


def _level(expr: ast.Expr) -> int:
    if isinstance(expr, ast.Binary):
        return _BINARY_LEVEL.get(expr.op, 6)
    if isinstance(expr, ast.Logical):
        return 1 if expr.op == "or" else 2
    return _PRECEDENCE.get(type(expr), 10)


def _wrapped(expr: ast.Expr, level: int) -> str:
    text = expr_text(expr)
    return f"({text})" if _level(expr) < level else text


def _args(args: tuple[ast.Arg, ...]) -> str:
    return ", ".join(f"{a.name} = {expr_text(a.value)}" if a.name else expr_text(a.value) for a in args)


def _string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def expr_text(expr: Any) -> str:
    """An expression written back in the procedure language."""
    if isinstance(expr, ast.BoolLit):
        return "true" if expr.value else "false"
    if isinstance(expr, ast.IntLit):
        return str(expr.value)
    if isinstance(expr, ast.StrLit):
        return _string(expr.value)
    if isinstance(expr, ast.Name):
        return expr.name
    if isinstance(expr, ast.Dice):
        return expr.text
    if isinstance(expr, ast.ListLit):
        return "[" + ", ".join(expr_text(i) for i in expr.items) + "]"
    if isinstance(expr, ast.Attribute):
        return f"{_wrapped(expr.subject, 9)}.{expr.name}"
    if isinstance(expr, ast.Index):
        return f"{_wrapped(expr.subject, 9)}[{expr_text(expr.index)}]"
    if isinstance(expr, ast.Negate):
        return f"-{_wrapped(expr.operand, 8)}"
    if isinstance(expr, ast.Not):
        return f"not {_wrapped(expr.operand, 3)}"
    if isinstance(expr, ast.Binary):
        level = _level(expr)
        return f"{_wrapped(expr.left, level)} {expr.op} {_wrapped(expr.right, level + 1)}"
    if isinstance(expr, ast.Compare):
        return f"{_wrapped(expr.left, 5)} {_COMPARE.get(expr.op, expr.op)} {_wrapped(expr.right, 5)}"
    if isinstance(expr, ast.Logical):
        level = _level(expr)
        return f"{_wrapped(expr.left, level)} {expr.op} {_wrapped(expr.right, level + 1)}"
    if isinstance(expr, ast.Conditional):
        return f"if {expr_text(expr.condition)} then {expr_text(expr.then)} else {_wrapped(expr.otherwise, 0)}"
    if isinstance(expr, ast.RangeExpr):
        return f"{_wrapped(expr.low, 6)} .. {_wrapped(expr.high, 6)}"
    if isinstance(expr, ast.Call):
        return f"{expr.function}({_args(expr.args)})"
    if isinstance(expr, ast.Aggregate):
        condition = f" if {expr_text(expr.condition)}" if expr.condition is not None else ""
        return f"{expr.function}({expr_text(expr.element)} for {expr.var} in {expr_text(expr.collection)}{condition})"
    if isinstance(expr, ast.Lookup):
        return f"lookup {expr.table}({_args(expr.args)})"
    if isinstance(expr, ast.ModifierSum):
        return f"{'shifts' if expr.kind == 'column_shift' else 'modifiers'} {expr.list_name}"
    if isinstance(expr, ast.Resolve):
        return f"resolve {expr.procedure}({_args(expr.args)})"
    return "…"


# ---- steps ---------------------------------------------------------------------------


@dataclass
class Step:
    """One step: a ``kind``, the parts a reporter shows, and sub-steps."""

    kind: str  # roll, let, lookup, modifiers, resolve, set, if, elif, else, for, while, break, outcome, require, note
    parts: dict = field(default_factory=dict)
    steps: list["Step"] = field(default_factory=list)
    line: int = 0

    def to_plain(self) -> dict:
        doc = {"kind": self.kind, **self.parts, "line": self.line}
        if self.steps:
            doc["steps"] = [s.to_plain() for s in self.steps]
        return doc


def _let_kind(value: ast.Expr) -> str:
    if isinstance(value, ast.Dice) or (isinstance(value, ast.Call) and value.function == "dice"):
        return "roll"
    if isinstance(value, ast.Binary) and any(isinstance(side, ast.Dice) for side in (value.left, value.right)):
        return "roll"
    if isinstance(value, ast.Lookup):
        return "lookup"
    if isinstance(value, ast.ModifierSum):
        return "modifiers"
    if isinstance(value, ast.Resolve):
        return "resolve"
    return "let"


def steps(block: ast.Block) -> list[Step]:
    result = []
    for statement in block.statements:
        line = statement.pos.line
        if isinstance(statement, ast.Let):
            kind = _let_kind(statement.value)
            parts = {"name": statement.name, "expr": expr_text(statement.value)}
            if kind == "lookup":
                parts["table"] = statement.value.table
            elif kind == "modifiers":
                parts["list"] = statement.value.list_name
                parts["modifier_kind"] = statement.value.kind
            elif kind == "resolve":
                parts["procedure"] = statement.value.procedure
            result.append(Step(kind, parts, line=line))
        elif isinstance(statement, ast.Set):
            result.append(Step("set", {"name": statement.name, "expr": expr_text(statement.value)}, line=line))
        elif isinstance(statement, ast.If):
            for index, (condition, body) in enumerate(statement.branches):
                result.append(Step("if" if index == 0 else "elif", {"condition": expr_text(condition)}, steps(body), line=condition.pos.line))
            if statement.otherwise is not None:
                result.append(Step("else", {}, steps(statement.otherwise), line=statement.otherwise.pos.line))
        elif isinstance(statement, ast.For):
            result.append(Step("for", {"var": statement.var, "expr": expr_text(statement.iterable)}, steps(statement.body), line=line))
        elif isinstance(statement, ast.While):
            result.append(Step(
                "while", {"condition": expr_text(statement.condition), "limit": expr_text(statement.limit) if statement.limit is not None else None}, steps(statement.body), line=line
            ))
        elif isinstance(statement, ast.Break):
            result.append(Step("break", {}, line=line))
        elif isinstance(statement, ast.Outcome):
            fields = [{"name": f.name, "expr": expr_text(f.value)} for f in statement.fields]
            result.append(Step("outcome", {"name": statement.name, "fields": fields, "rule": statement.rule}, line=line))
        elif isinstance(statement, ast.Require):
            result.append(Step("require", {"condition": expr_text(statement.condition), "message": statement.message}, line=line))
        elif isinstance(statement, ast.Note):
            result.append(Step("note", {"text": statement.text}, line=line))
        else:  # pragma: no cover - a statement kind added later
            result.append(Step("other", {}, line=line))
    return result
