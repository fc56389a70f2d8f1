"""The checked, resolved form of a procedure: what the evaluator and the compiler run.

The checker turns the parser's AST into these nodes.  Every name is
resolved (a local slot, an input, a choice or a constant), every built-in
function is its entry in :mod:`functions`, every table and modifier list is
the object itself, and every die roll and procedure call is hoisted into a
statement of its own.  Expressions are then free of chance, so an executor
can explore every face of a statement and merge equal states.

The node set is closed: :data:`EXPRESSIONS` and :data:`STATEMENTS` list
every class, none of them is an AST class, and both back ends (the
tree-walking evaluator and the compiler to Python) handle each one.  Nodes
are named tuples: immutable, cheap to build at load time, and compared by
nobody (the back ends key nodes by identity).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # pragma: no cover - types only
    from .errors import Pos
    from .functions import AggregateFunction, Function
    from .ruleset import Choice, InputSpec, ModifierEntry, ModifierList
    from .tables import Table
    from .values import OutcomeType, Type


# ---- expressions ---------------------------------------------------------------


class Const(NamedTuple):
    """A value known when the ruleset loads: a literal, a constant (``name``), a folded list."""

    pos: Pos
    value: Any
    name: str | None = None


class Local(NamedTuple):
    """A variable, or the hidden slot a roll or a call was hoisted into."""

    pos: Pos
    name: str
    slot: int


class InputRef(NamedTuple):
    """An input or a choice of the procedure."""

    pos: Pos
    name: str


class ListOf(NamedTuple):
    """``[a, b, c]`` with items computed at run time."""

    pos: Pos
    items: tuple[Expr, ...]


class Guard(NamedTuple):
    """A value whose type the checker could not know, checked where it is used.

    ``expected`` lists the types that are acceptable; ``what`` names the use
    ("the left side of +") for the error a mismatch raises.
    """

    pos: Pos
    value: Expr
    expected: tuple[Type, ...]
    what: str


class Canonical(NamedTuple):
    """A new value of an order-free list: its items put in canonical order (values.canonical)."""

    pos: Pos
    value: Expr


class Field(NamedTuple):
    """``subject.name``: a record's field, or an outcome's field (``.outcome`` is its name)."""

    pos: Pos
    subject: Expr
    name: str


class Index(NamedTuple):
    """``subject[index]``, 1-based."""

    pos: Pos
    subject: Expr
    # The node's own word for it; it hides tuple.index, which nothing calls on a node.
    index: Expr  # type: ignore[assignment]


class Negate(NamedTuple):
    pos: Pos
    operand: Expr


class Not(NamedTuple):
    pos: Pos
    operand: Expr


class Arithmetic(NamedTuple):
    """op is one of + - * // %."""

    pos: Pos
    op: str
    left: Expr
    right: Expr


class Comparison(NamedTuple):
    """op is one of == != < <= > >= in notin."""

    pos: Pos
    op: str
    left: Expr
    right: Expr


class Logical(NamedTuple):
    """op is 'and' or 'or'; short-circuits."""

    pos: Pos
    op: str
    left: Expr
    right: Expr


class Conditional(NamedTuple):
    """``if condition then a else b``: only the branch taken is evaluated."""

    pos: Pos
    condition: Expr
    then: Expr
    otherwise: Expr


class Range(NamedTuple):
    """``low .. high``: the integers from low to high inclusive."""

    pos: Pos
    low: Expr
    high: Expr


class CallFunction(NamedTuple):
    """A built-in function (never ``dice``: rolls are :class:`Roll` statements)."""

    pos: Pos
    function: Function
    args: tuple[Expr, ...]


class Aggregate(NamedTuple):
    """``function(element for var in collection if condition)``; ``var`` lives in ``slot``."""

    pos: Pos
    function: AggregateFunction
    element: Expr
    slot: int
    collection: Expr
    condition: Expr | None


class Lookup(NamedTuple):
    pos: Pos
    table: Table
    row: Expr
    column: Expr | None
    shift: Expr | None


class ModifierSum(NamedTuple):
    """The sum of the entries whose condition holds (a DRM list or a column-shift list)."""

    pos: Pos
    modifier_list: ModifierList
    entries: tuple[tuple[ModifierEntry, Expr], ...]


# ---- statements ----------------------------------------------------------------


class Assign(NamedTuple):
    pos: Pos
    name: str
    slot: int
    value: Expr
    declare: bool


class Roll(NamedTuple):
    """Roll ``count`` dice of ``sides`` faces into a hidden slot.

    ``kind`` says what the slot receives: "sum" the total (``2d6``,
    ``dice(n, s)``); "pool" the faces, highest first (``pool(n, s)``);
    "successes" how many dice show a face in the list ``faces``
    (``successes(n, s, faces)``).
    """

    pos: Pos
    slot: int
    # The node's own word for it; it hides tuple.count, which nothing calls on a node.
    count: Expr  # type: ignore[assignment]
    sides: Expr
    text: str
    kind: str = "sum"
    faces: Expr | None = None  # successes: the faces that count


class CallProcedure(NamedTuple):
    """Resolve another procedure; its outcome goes into a hidden slot."""

    pos: Pos
    slot: int
    procedure: str
    args: tuple[tuple[str, Expr], ...]
    # The arguments whose checked type needs no coercion to the input's (inputs.coercion_keeps):
    # passed as they are; every other argument is coerced on every call.
    trusted: frozenset[str] = frozenset()


class Block(NamedTuple):
    pos: Pos
    statements: tuple[Stmt, ...]
    # Slots declared in this block: cleared when it ends, so that states
    # that differ only in dead variables merge.
    local_slots: tuple[int, ...]


class If(NamedTuple):
    pos: Pos
    branches: tuple[tuple[Expr, Block], ...]
    otherwise: Block | None


class ForLoop(NamedTuple):
    pos: Pos
    var: str
    var_slot: int
    sequence_slot: int
    index_slot: int
    iterable: Expr
    body: Block


class WhileLoop(NamedTuple):
    pos: Pos
    condition: Expr
    limit: Expr | None  # None: until the condition fails
    count_slot: int
    limit_slot: int
    body: Block
    variables: tuple[tuple[str, int], ...] = ()  # the variables in scope (name, slot), to describe a state


class Outcome(NamedTuple):
    pos: Pos
    name: str
    fields: tuple[tuple[str, Expr], ...]
    rule: str | None


class Break(NamedTuple):
    pos: Pos


class Require(NamedTuple):
    pos: Pos
    condition: Expr
    message: str


class Note(NamedTuple):
    pos: Pos
    text: str


Expr = (
    Const | Local | InputRef | ListOf | Guard | Canonical | Field | Index | Negate | Not | Arithmetic | Comparison
    | Logical | Conditional | Range | CallFunction | Aggregate | Lookup | ModifierSum
)
Stmt = Assign | Roll | CallProcedure | If | ForLoop | WhileLoop | Outcome | Break | Require | Note

EXPRESSIONS: tuple[type, ...] = (
    Const, Local, InputRef, ListOf, Guard, Canonical, Field, Index, Negate, Not, Arithmetic, Comparison, Logical,
    Conditional, Range, CallFunction, Aggregate, Lookup, ModifierSum,
)
STATEMENTS: tuple[type, ...] = (Assign, Roll, CallProcedure, If, ForLoop, WhileLoop, Outcome, Break, Require, Note)


class CheckedProcedure(NamedTuple):
    """A procedure after the checker: its inputs and choices, its IR body, its outcome type."""

    name: str
    title: str
    rule: str
    inputs: tuple[InputSpec, ...]
    choices: tuple[Choice, ...]
    body: Block
    slot_count: int
    outcome_type: OutcomeType
    outcome_names: tuple[str, ...]

    def input(self, name: str) -> InputSpec | None:
        return next((spec for spec in self.inputs if spec.name == name), None)

    def choice(self, name: str) -> Choice | None:
        return next((choice for choice in self.choices if choice.name == name), None)


CompiledProcedure = CheckedProcedure  # the name callers knew before the compiler to Python existed


def sub_expressions(node: Any) -> tuple:
    """The expressions directly inside an expression node (for passes that walk the IR)."""
    kind = type(node)
    if kind in (Const, Local, InputRef):
        return ()
    if kind is ListOf:
        return node.items
    if kind is Guard or kind is Canonical:
        return (node.value,)
    if kind is Field:
        return (node.subject,)
    if kind is Index:
        return (node.subject, node.index)
    if kind in (Negate, Not):
        return (node.operand,)
    if kind in (Arithmetic, Comparison, Logical):
        return (node.left, node.right)
    if kind is Conditional:
        return (node.condition, node.then, node.otherwise)
    if kind is Range:
        return (node.low, node.high)
    if kind is CallFunction:
        return node.args
    if kind is Aggregate:
        return (node.collection, node.element) + ((node.condition,) if node.condition is not None else ())
    if kind is Lookup:
        return tuple(e for e in (node.row, node.column, node.shift) if e is not None)
    if kind is ModifierSum:
        return tuple(condition for _, condition in node.entries)
    raise AssertionError(f"not an IR expression: {node!r}")  # pragma: no cover


def statement_expressions(statement: Any) -> tuple:
    """The expressions a statement evaluates itself (not those of the blocks inside it)."""
    kind = type(statement)
    if kind is Assign:
        return (statement.value,)
    if kind is Roll:
        return (statement.count, statement.sides) if statement.faces is None else (statement.count, statement.sides, statement.faces)
    if kind is CallProcedure:
        return tuple(value for _, value in statement.args)
    if kind is If:
        return tuple(condition for condition, _ in statement.branches)
    if kind is ForLoop:
        return (statement.iterable,)
    if kind is WhileLoop:
        return (statement.condition,) if statement.limit is None else (statement.condition, statement.limit)
    if kind is Outcome:
        return tuple(value for _, value in statement.fields)
    if kind is Require:
        return (statement.condition,)
    if kind in (Break, Note):
        return ()
    raise AssertionError(f"not an IR statement: {statement!r}")  # pragma: no cover


def statement_blocks(statement: Any) -> tuple:
    """The blocks directly inside a statement."""
    kind = type(statement)
    if kind is If:
        return tuple(body for _, body in statement.branches) + ((statement.otherwise,) if statement.otherwise is not None else ())
    if kind in (ForLoop, WhileLoop):
        return (statement.body,)
    return ()


def walk(*nodes: Any) -> Iterator[Any]:
    """Every node under ``nodes`` (statements or expressions), themselves included, depth first:
    a statement's own expressions and the statements of its blocks, an expression's sub-expressions.
    A generator, so a question answered early (is there a call?) stops the walk there."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if type(node) in STATEMENTS:
            stack.extend(statement_expressions(node))
            for block in statement_blocks(node):
                stack.extend(block.statements)
        else:
            stack.extend(sub_expressions(node))
