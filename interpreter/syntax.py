"""Typed, frozen syntax tree of the procedure language.

Every node carries a :class:`Pos` that points into the YAML file the text
came from, so an error in a procedure is reported at the ruleset's own line
and column.  Nodes are plain data: name resolution lives in ``checker``,
meaning in ``evaluator``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

# Positions live with the errors: a checked ruleset needs them, not the syntax tree (see cache.py).
from .errors import Pos

# ---- expressions -----------------------------------------------------------


@dataclass(frozen=True)
class Expr:
    """An expression: every kind below, each with its position."""

    pos: Pos


@dataclass(frozen=True)
class IntLit(Expr):
    """An integer literal."""

    value: int


@dataclass(frozen=True)
class StrLit(Expr):
    """A string literal (escapes already read)."""

    value: str


@dataclass(frozen=True)
class BoolLit(Expr):
    """``true`` or ``false``."""

    value: bool


@dataclass(frozen=True)
class ListLit(Expr):
    """``[a, b, ...]``."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Name(Expr):
    """A variable, input, choice or constant, by name (resolved by the checker)."""

    name: str


@dataclass(frozen=True)
class Attribute(Expr):
    """``subject.name``: a field of a record or outcome."""

    subject: Expr
    name: str


@dataclass(frozen=True)
class Index(Expr):
    """``subject[index]``: an item of a list (from 1)."""

    subject: Expr
    index: Expr


@dataclass(frozen=True)
class Negate(Expr):
    """``-operand``."""

    operand: Expr


@dataclass(frozen=True)
class Not(Expr):
    """``not operand``."""

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
    """``if condition then a else b`` as an expression."""

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
    """One argument of a call, a lookup or a resolve: named, or positional (name None)."""

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
    """``lookup TABLE(row = ..., column = ..., shift = ...)``: a table's cell."""

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
    # Where `...` stands, if it does: it passes every other input of the callee the caller has (checker_sides).
    pass_rest: Pos | None = None


@dataclass(frozen=True)
class RecordUpdate(Expr):
    """``subject with {name = value, ...}``: a copy of a record with the named fields changed."""

    subject: Expr
    fields: tuple[OutcomeField, ...]


# ---- statements ------------------------------------------------------------


@dataclass(frozen=True)
class Stmt:
    """A statement: every kind below, each with its position."""

    pos: Pos


@dataclass(frozen=True)
class Let(Stmt):
    """``let name = value``: a new variable."""

    name: str
    value: Expr


@dataclass(frozen=True)
class Set(Stmt):
    """``set name = value``: a new value for a variable."""

    name: str
    value: Expr


@dataclass(frozen=True)
class If(Stmt):
    """``if ... then ... elif ... else ... end``: each branch a condition and a block."""

    branches: tuple[tuple[Expr, Block], ...]
    otherwise: Block | None


@dataclass(frozen=True)
class For(Stmt):
    """``for var in iterable do ... end``."""

    var: str
    iterable: Expr
    body: Block


@dataclass(frozen=True)
class While(Stmt):
    """``while condition [limit N] do ... end``."""

    condition: Expr
    limit: Expr | None  # None: until the condition fails
    body: Block


@dataclass(frozen=True)
class Break(Stmt):
    """``break``: leave the innermost loop."""



@dataclass(frozen=True)
class OutcomeField:
    """One ``name = value`` of an outcome statement."""

    pos: Pos
    name: str
    value: Expr


@dataclass(frozen=True)
class Outcome(Stmt):
    """``outcome name(fields) [rule "..."]``: the procedure ends with this result."""

    name: str
    fields: tuple[OutcomeField, ...]
    rule: str | None


@dataclass(frozen=True)
class Require(Stmt):
    """``require condition, "message"``: a rule the inputs must satisfy."""

    condition: Expr
    message: str


@dataclass(frozen=True)
class Note(Stmt):
    """``note "text"`` (optionally ``rule "…"``): a line for the trace, with no effect.

    ``parts`` is empty for a plain text; for a text with ``{expression}``
    placeholders (``{{`` and ``}}`` for braces) it is the text cut into
    strings and the expressions whose values the trace shows between them.
    """

    text: str
    parts: tuple[str | Expr, ...] = ()
    rule: str | None = None  # ``note "..." rule "..."``: the rule the step applies, shown with it


@dataclass(frozen=True)
class Binding:
    """One name of a destructuring: ``field`` of the value, bound to ``name`` (``field as name``)."""

    pos: Pos
    field: str
    name: str


@dataclass(frozen=True)
class Destructure(Stmt):
    """``let {a, b as c} = value`` (``declare``) or ``set {a, b} = value``: names bound to the value's fields.

    Sugar: the checker expands it into one assignment a field, so neither back end knows it.
    """

    bindings: tuple[Binding, ...]
    value: Expr
    declare: bool


@dataclass(frozen=True)
class OutcomeFrom(Stmt):
    """``outcome from value(fields) [rule "..."]``: the outcome named by a text (a table's cell, an enum).

    The checker knows every text the value can hold; each becomes an outcome of the procedure.
    """

    source: Expr
    fields: tuple[OutcomeField, ...]
    rule: str | None


@dataclass(frozen=True)
class Block:
    """Statements run in order."""

    pos: Pos
    statements: tuple[Stmt, ...]


def statements_in_order(block: Block) -> Iterator[Stmt]:
    """Every statement of ``block`` and of the blocks inside it, in the order they are written (an ``if``'s
    branches, then its ``else``), with a stack of its own (no recursion on the depth)."""
    stack: list[Stmt] = list(reversed(block.statements))
    while stack:
        statement = stack.pop()
        yield statement
        nested: list[Block] = []
        if isinstance(statement, If):
            nested = [body for _, body in statement.branches] + ([statement.otherwise] if statement.otherwise is not None else [])
        elif isinstance(statement, (For, While)):
            nested = [statement.body]
        for body in reversed(nested):
            stack.extend(reversed(body.statements))
