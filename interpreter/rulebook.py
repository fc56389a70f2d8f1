"""Procedures in rulebook form: the syntax tree read back as numbered steps.

``expr_text`` writes an expression back in the procedure language (the
reader of a player aid knows ``2d6 + drm``); ``steps`` turns a block into
nested steps ("Roll 2d6 (roll).", "If …:", "Result: intercepted."), each as
plain data for a reporter to format.  Nothing here is English put together
by the evaluator: it reads the frozen syntax tree the parser made.
"""

from __future__ import annotations

from collections.abc import Callable
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
    """An expression written back in the procedure language ("…" for what is no expression)."""
    write = _WRITERS.get(type(expr))
    return write(expr) if write is not None else "…"


def _infix(expr: syntax.Binary | syntax.Logical) -> str:
    """``a op b``, left-associative: the right side is wrapped at one level tighter."""
    level = _level(expr)
    return f"{_wrapped(expr.left, level)} {expr.op} {_wrapped(expr.right, level + 1)}"


def _aggregate(expr: syntax.Aggregate) -> str:
    condition = f" if {expr_text(expr.condition)}" if expr.condition is not None else ""
    return f"{expr.function}({expr_text(expr.element)} for {expr.var} in {expr_text(expr.collection)}{condition})"


# One writer per expression class.
_WRITERS: dict[type, Callable[[Any], str]] = {
    syntax.BoolLit: lambda expr: "true" if expr.value else "false",
    syntax.IntLit: lambda expr: str(expr.value),
    syntax.StrLit: lambda expr: _string(expr.value),
    syntax.Name: lambda expr: expr.name,
    syntax.Dice: lambda expr: expr.text,
    syntax.ListLit: lambda expr: "[" + ", ".join(expr_text(i) for i in expr.items) + "]",
    syntax.Attribute: lambda expr: f"{_wrapped(expr.subject, 9)}.{expr.name}",
    syntax.Index: lambda expr: f"{_wrapped(expr.subject, 9)}[{expr_text(expr.index)}]",
    syntax.Negate: lambda expr: f"-{_wrapped(expr.operand, 8)}",
    syntax.Not: lambda expr: f"not {_wrapped(expr.operand, 3)}",
    syntax.Binary: _infix,
    syntax.Compare: lambda expr: f"{_wrapped(expr.left, 5)} {_COMPARE.get(expr.op, expr.op)} {_wrapped(expr.right, 5)}",
    syntax.Logical: _infix,
    syntax.Conditional: lambda expr: f"if {expr_text(expr.condition)} then {expr_text(expr.then)} else {_wrapped(expr.otherwise, 0)}",
    syntax.RangeExpr: lambda expr: f"{_wrapped(expr.low, 6)} .. {_wrapped(expr.high, 6)}",
    syntax.Call: lambda expr: f"{expr.function}({_args(expr.args)})",
    syntax.Aggregate: _aggregate,
    syntax.Lookup: lambda expr: f"lookup {expr.table}({_args(expr.args)})",
    syntax.ModifierSum: lambda expr: f"{'shifts' if expr.kind == 'column_shift' else 'modifiers'} {expr.list_name}",
    syntax.Resolve: lambda expr: f"resolve {expr.procedure}({', '.join(filter(None, [_args(expr.args), '...' if expr.pass_rest else '']))})",
}


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


def _let_step(statement: syntax.Let) -> Step:
    """A ``let`` as the step it reads as: a roll, a lookup (and its table), modifiers (and their list)..."""
    value = statement.value
    parts = {"name": statement.name, "expr": expr_text(value)}
    if isinstance(value, syntax.Lookup):
        parts["table"] = value.table
    elif isinstance(value, syntax.ModifierSum):
        parts["list"] = value.list_name
        parts["modifier_kind"] = value.kind
    elif isinstance(value, syntax.Resolve):
        parts["procedure"] = value.procedure
    return Step(_let_kind(value), parts, line=statement.pos.line)


def steps(block: syntax.Block) -> list[Step]:
    result = []
    for statement in block.statements:
        line = statement.pos.line
        if isinstance(statement, syntax.Let):
            result.append(_let_step(statement))
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
