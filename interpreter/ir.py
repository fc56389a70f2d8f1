"""The checked, resolved form of a procedure that the evaluator runs.

The checker turns the parser's AST into these nodes: every name is resolved
(a local slot, an input, a choice or a constant), and every die roll and
procedure call is hoisted into its own statement.  Expressions are then free
of chance, so the evaluator can explore every die face of a statement and
merge equal states (see evaluator.py).

Expression nodes reuse the AST classes where nothing needs resolving.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import ast
from .ruleset import Choice, InputSpec, ModifierEntry, ModifierList
from .tables import Table
from .values import Type


# ---- expressions ---------------------------------------------------------------


@dataclass(frozen=True)
class Local(ast.Expr):
    name: str
    slot: int


@dataclass(frozen=True)
class InputRef(ast.Expr):
    name: str


@dataclass(frozen=True)
class Literal(ast.Expr):
    """A constant from the ruleset, or a literal list folded at check time."""

    value: Any
    name: str | None = None


@dataclass(frozen=True)
class Guard(ast.Expr):
    """A value whose type the checker could not know, checked where it is used.

    ``expected`` lists the types that are acceptable; ``what`` names the use
    ("the left side of +") for the error a mismatch raises.
    """

    value: ast.Expr
    expected: tuple[Type, ...]
    what: str


@dataclass(frozen=True)
class AggregateIR(ast.Expr):
    function: str
    element: ast.Expr
    slot: int
    collection: ast.Expr
    condition: ast.Expr | None


@dataclass(frozen=True)
class LookupIR(ast.Expr):
    table: Table
    row: ast.Expr
    column: ast.Expr | None
    shift: ast.Expr | None


@dataclass(frozen=True)
class ModifierSumIR(ast.Expr):
    modifier_list: ModifierList
    entries: tuple[tuple[ModifierEntry, ast.Expr], ...]


# ---- statements ----------------------------------------------------------------


@dataclass(frozen=True)
class Assign(ast.Stmt):
    name: str
    slot: int
    value: ast.Expr
    declare: bool


@dataclass(frozen=True)
class Roll(ast.Stmt):
    """Roll ``count`` dice of ``sides`` faces into a hidden slot."""

    slot: int
    count: ast.Expr
    sides: ast.Expr
    text: str


@dataclass(frozen=True)
class CallProcedure(ast.Stmt):
    """Resolve another procedure; its outcome goes into a hidden slot."""

    slot: int
    procedure: str
    args: tuple[tuple[str, ast.Expr], ...]


@dataclass(frozen=True)
class Block:
    statements: tuple[ast.Stmt, ...]
    # Slots declared in this block: cleared when it ends, so that states
    # that differ only in dead variables merge.
    local_slots: tuple[int, ...]


@dataclass(frozen=True)
class IfIR(ast.Stmt):
    branches: tuple[tuple[ast.Expr, Block], ...]
    otherwise: Block | None


@dataclass(frozen=True)
class Loop(ast.Stmt):
    var: str
    var_slot: int
    sequence_slot: int
    index_slot: int
    iterable: ast.Expr
    body: Block


@dataclass(frozen=True)
class WhileLoop(ast.Stmt):
    condition: ast.Expr
    limit: ast.Expr
    count_slot: int
    limit_slot: int
    body: Block


@dataclass(frozen=True)
class OutcomeIR(ast.Stmt):
    name: str
    fields: tuple[tuple[str, ast.Expr], ...]
    rule: str | None


@dataclass(frozen=True)
class CompiledProcedure:
    name: str
    title: str
    rule: str
    inputs: tuple[InputSpec, ...]
    choices: tuple[Choice, ...]
    body: Block
    slot_count: int
    outcome_type: Type
    outcome_names: tuple[str, ...]

    def input(self, name: str) -> InputSpec | None:
        return next((spec for spec in self.inputs if spec.name == name), None)

    def choice(self, name: str) -> Choice | None:
        return next((choice for choice in self.choices if choice.name == name), None)
