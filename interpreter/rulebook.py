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

from . import syntax

# Binding strength, loosest first (see grammar.lark).
_PRECEDENCE = {
    syntax.Conditional: 0,
    syntax.Logical: 1,
    syntax.Not: 3,
    syntax.Compare: 4,
    syntax.RangeExpr: 5,
    syntax.Binary: 6,
    syntax.Negate: 8,
}
_BINARY_LEVEL = {"+": 6, "-": 6, "*": 7, "//": 7, "%": 7}
_COMPARE = {"notin": "not in"}


def _level(expr: syntax.Expr) -> int:
    if isinstance(expr, syntax.Binary):
        return _BINARY_LEVEL.get(expr.op, 6)
    if isinstance(expr, syntax.Logical):
        return 1 if expr.op == "or" else 2
    return _PRECEDENCE.get(type(expr), 10)


def _wrapped(expr: syntax.Expr, level: int) -> str:
    text = expr_text(expr)
    return f"({text})" if _level(expr) < level else text


def _args(args: tuple[syntax.Arg, ...]) -> str:
    return ", ".join(f"{a.name} = {expr_text(a.value)}" if a.name else expr_text(a.value) for a in args)


def _string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def expr_text(expr: Any) -> str:
    """An expression written back in the procedure language."""
    if isinstance(expr, syntax.BoolLit):
        return "true" if expr.value else "false"
    if isinstance(expr, syntax.IntLit):
        return str(expr.value)
    if isinstance(expr, syntax.StrLit):
        return _string(expr.value)
    if isinstance(expr, syntax.Name):
        return expr.name
    if isinstance(expr, syntax.Dice):
        return expr.text
    if isinstance(expr, syntax.ListLit):
        return "[" + ", ".join(expr_text(i) for i in expr.items) + "]"
    if isinstance(expr, syntax.Attribute):
        return f"{_wrapped(expr.subject, 9)}.{expr.name}"
    if isinstance(expr, syntax.Index):
        return f"{_wrapped(expr.subject, 9)}[{expr_text(expr.index)}]"
    if isinstance(expr, syntax.Negate):
        return f"-{_wrapped(expr.operand, 8)}"
    if isinstance(expr, syntax.Not):
        return f"not {_wrapped(expr.operand, 3)}"
    if isinstance(expr, syntax.Binary):
        level = _level(expr)
        return f"{_wrapped(expr.left, level)} {expr.op} {_wrapped(expr.right, level + 1)}"
    if isinstance(expr, syntax.Compare):
        return f"{_wrapped(expr.left, 5)} {_COMPARE.get(expr.op, expr.op)} {_wrapped(expr.right, 5)}"
    if isinstance(expr, syntax.Logical):
        level = _level(expr)
        return f"{_wrapped(expr.left, level)} {expr.op} {_wrapped(expr.right, level + 1)}"
    if isinstance(expr, syntax.Conditional):
        return f"if {expr_text(expr.condition)} then {expr_text(expr.then)} else {_wrapped(expr.otherwise, 0)}"
    if isinstance(expr, syntax.RangeExpr):
        return f"{_wrapped(expr.low, 6)} .. {_wrapped(expr.high, 6)}"
    if isinstance(expr, syntax.Call):
        return f"{expr.function}({_args(expr.args)})"
    if isinstance(expr, syntax.Aggregate):
        condition = f" if {expr_text(expr.condition)}" if expr.condition is not None else ""
        return f"{expr.function}({expr_text(expr.element)} for {expr.var} in {expr_text(expr.collection)}{condition})"
    if isinstance(expr, syntax.Lookup):
        return f"lookup {expr.table}({_args(expr.args)})"
    if isinstance(expr, syntax.ModifierSum):
        return f"{'shifts' if expr.kind == 'column_shift' else 'modifiers'} {expr.list_name}"
    if isinstance(expr, syntax.Resolve):
        return f"resolve {expr.procedure}({_args(expr.args)})"
    return "…"


# ---- steps ---------------------------------------------------------------------------


@dataclass
class Step:
    """One step: a ``kind``, the parts a reporter shows, and sub-steps."""

    kind: str  # roll, let, lookup, modifiers, resolve, set, if, elif, else, for, while, break, outcome, require, note
    parts: dict = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    line: int = 0

    def to_plain(self) -> dict:
        doc = {"kind": self.kind, **self.parts, "line": self.line}
        if self.steps:
            doc["steps"] = [s.to_plain() for s in self.steps]
        return doc


def _let_kind(value: syntax.Expr) -> str:
    if isinstance(value, syntax.Dice) or (isinstance(value, syntax.Call) and value.function == "dice"):
        return "roll"
    if isinstance(value, syntax.Binary) and any(isinstance(side, syntax.Dice) for side in (value.left, value.right)):
        return "roll"
    if isinstance(value, syntax.Lookup):
        return "lookup"
    if isinstance(value, syntax.ModifierSum):
        return "modifiers"
    if isinstance(value, syntax.Resolve):
        return "resolve"
    return "let"


def steps(block: syntax.Block) -> list[Step]:
    result = []
    for statement in block.statements:
        line = statement.pos.line
        if isinstance(statement, syntax.Let):
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
        elif isinstance(statement, syntax.Set):
            result.append(Step("set", {"name": statement.name, "expr": expr_text(statement.value)}, line=line))
        elif isinstance(statement, syntax.If):
            for index, (condition, body) in enumerate(statement.branches):
                result.append(Step("if" if index == 0 else "elif", {"condition": expr_text(condition)}, steps(body), line=condition.pos.line))
            if statement.otherwise is not None:
                result.append(Step("else", {}, steps(statement.otherwise), line=statement.otherwise.pos.line))
        elif isinstance(statement, syntax.For):
            result.append(Step("for", {"var": statement.var, "expr": expr_text(statement.iterable)}, steps(statement.body), line=line))
        elif isinstance(statement, syntax.While):
            result.append(Step(
                "while", {"condition": expr_text(statement.condition), "limit": expr_text(statement.limit) if statement.limit is not None else None}, steps(statement.body), line=line
            ))
        elif isinstance(statement, syntax.Break):
            result.append(Step("break", {}, line=line))
        elif isinstance(statement, syntax.Outcome):
            fields = [{"name": f.name, "expr": expr_text(f.value)} for f in statement.fields]
            result.append(Step("outcome", {"name": statement.name, "fields": fields, "rule": statement.rule}, line=line))
        elif isinstance(statement, syntax.Require):
            result.append(Step("require", {"condition": expr_text(statement.condition), "message": statement.message}, line=line))
        elif isinstance(statement, syntax.Note):
            result.append(Step("note", {"text": statement.text}, line=line))
        else:  # pragma: no cover - a statement kind added later
            result.append(Step("other", {}, line=line))
    return result
