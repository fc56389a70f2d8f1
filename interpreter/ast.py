"""Typed, frozen syntax tree of the procedure language.

Every node carries a :class:`Pos` that points into the YAML file the text
came from, so an error in a procedure is reported at the ruleset's own line
and column.  Nodes are plain data: name resolution lives in ``checker``,
meaning in ``evaluator``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Diagnostic, Source


@dataclass(frozen=True)
class Pos:
    source: Source
    line: int
    column: int

    def diagnostic(self, message: str) -> Diagnostic:
        return self.source.diagnostic(self.line, self.column, message)

    def __str__(self) -> str:
        return f"{self.source.name}:{self.line}:{self.column}"


# ---- expressions -----------------------------------------------------------


@dataclass(frozen=True)
class Expr:
    pos: Pos


@dataclass(frozen=True)
class IntLit(Expr):
    value: int


@dataclass(frozen=True)
class StrLit(Expr):
    value: str


@dataclass(frozen=True)
class BoolLit(Expr):
    value: bool


@dataclass(frozen=True)
class ListLit(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Name(Expr):
    name: str


@dataclass(frozen=True)
class Attribute(Expr):
    subject: Expr
    name: str


@dataclass(frozen=True)
class Index(Expr):
    subject: Expr
    index: Expr


@dataclass(frozen=True)
class Negate(Expr):
    operand: Expr


@dataclass(frozen=True)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    """Arithmetic: op is one of + - * // %."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Expr):
    """op is one of == != < <= > >= in notin."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Logical(Expr):
    """op is 'and' or 'or'; short-circuits."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Conditional(Expr):
    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True)
class RangeExpr(Expr):
    """``a .. b``: the integers from a to b inclusive."""

    low: Expr
    high: Expr


@dataclass(frozen=True)
class Dice(Expr):
    """``NdX``: the sum of count dice of sides faces, rolled anew each time."""

    count: Expr
    sides: Expr
    text: str


@dataclass(frozen=True)
class Arg:
    pos: Pos
    name: str | None
    value: Expr


@dataclass(frozen=True)
class Call(Expr):
    """A built-in function: min, max, abs, count, sum, all, any, dice, ..."""

    function: str
    args: tuple[Arg, ...]


@dataclass(frozen=True)
class Aggregate(Expr):
    """``f(element for var in collection if condition)``."""

    function: str
    element: Expr
    var: str
    collection: Expr
    condition: Expr | None


@dataclass(frozen=True)
class Lookup(Expr):
    table: str
    args: tuple[Arg, ...]


@dataclass(frozen=True)
class ModifierSum(Expr):
    """``modifiers NAME`` (kind 'drm') or ``shifts NAME`` (kind 'column_shift')."""

    kind: str
    list_name: str


@dataclass(frozen=True)
class Resolve(Expr):
    """``resolve PROCEDURE(args)``: run another procedure, yield its outcome."""

    procedure: str
    args: tuple[Arg, ...]


# ---- statements ------------------------------------------------------------


@dataclass(frozen=True)
class Stmt:
    pos: Pos


@dataclass(frozen=True)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(frozen=True)
class Set(Stmt):
    name: str
    value: Expr


@dataclass(frozen=True)
class If(Stmt):
    branches: tuple[tuple[Expr, "Block"], ...]
    otherwise: "Block | None"


@dataclass(frozen=True)
class For(Stmt):
    var: str
    iterable: Expr
    body: "Block"


@dataclass(frozen=True)
class While(Stmt):
    condition: Expr
    limit: Expr | None  # None: until the condition fails
    body: "Block"


@dataclass(frozen=True)
class Break(Stmt):
    pass


@dataclass(frozen=True)
class OutcomeField:
    pos: Pos
    name: str
    value: Expr


@dataclass(frozen=True)
class Outcome(Stmt):
    name: str
    fields: tuple[OutcomeField, ...]
    rule: str | None


@dataclass(frozen=True)
class Require(Stmt):
    condition: Expr
    message: str


@dataclass(frozen=True)
class Note(Stmt):
    text: str


@dataclass(frozen=True)
class Block:
    pos: Pos
    statements: tuple[Stmt, ...]
