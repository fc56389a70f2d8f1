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

from collections.abc import Callable, Iterator
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
    of_outcome: bool = False  # the checker knows the subject is a resolved outcome (compiled reads try that first)
    # the field's declared type when the checker proves the subject a record (not an outcome) of a type with this field:
    # the read cannot fail (proven_types; what a number, text or yes/no field holds is not proven); None otherwise
    proven_field_type: Type | None = None


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
    (``successes(n, s, faces)``).  ``reroll``: each die showing a face in
    that list is rolled again (``reroll(2d6, [1])``), once, or until it
    shows another face when ``reroll_once`` is false.
    """

    pos: Pos
    slot: int
    # The node's own word for it; it hides tuple.count, which nothing calls on a node.
    count: Expr  # type: ignore[assignment]
    sides: Expr
    text: str
    kind: str = "sum"
    faces: Expr | None = None  # successes: the faces that count
    reroll: Expr | None = None  # the faces each die is rolled again on; None: no re-roll
    reroll_once: bool = True  # False: again and again, until the die shows another face


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
    """A line for the trace; ``parts`` (empty for a plain text) are strings and expressions whose values it shows."""

    pos: Pos
    text: str
    parts: tuple[str | Expr, ...] = ()
    rule: str | None = None


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


# Each node kind's children, one entry a kind: what every pass that walks the IR reads (ir.walk, the engine's
# analyses).  Checked when the module loads against EXPRESSIONS and STATEMENTS, so a new node kind cannot be
# walked past silently.
_SUB_EXPRESSIONS: dict[type, Callable[[Any], tuple]] = {
    Const: lambda e: (),
    Local: lambda e: (),
    InputRef: lambda e: (),
    ListOf: lambda e: e.items,
    Guard: lambda e: (e.value,),
    Canonical: lambda e: (e.value,),
    Field: lambda e: (e.subject,),
    Index: lambda e: (e.subject, e.index),
    Negate: lambda e: (e.operand,),
    Not: lambda e: (e.operand,),
    Arithmetic: lambda e: (e.left, e.right),
    Comparison: lambda e: (e.left, e.right),
    Logical: lambda e: (e.left, e.right),
    Conditional: lambda e: (e.condition, e.then, e.otherwise),
    Range: lambda e: (e.low, e.high),
    CallFunction: lambda e: e.args,
    Aggregate: lambda e: (e.collection, e.element) + ((e.condition,) if e.condition is not None else ()),
    Lookup: lambda e: tuple(part for part in (e.row, e.column, e.shift) if part is not None),
    ModifierSum: lambda e: tuple(condition for _, condition in e.entries),
}

_STATEMENT_EXPRESSIONS: dict[type, Callable[[Any], tuple]] = {
    Assign: lambda s: (s.value,),
    Roll: lambda s: tuple(part for part in (s.count, s.sides, s.faces, s.reroll) if part is not None),
    CallProcedure: lambda s: tuple(value for _, value in s.args),
    If: lambda s: tuple(condition for condition, _ in s.branches),
    ForLoop: lambda s: (s.iterable,),
    WhileLoop: lambda s: (s.condition,) if s.limit is None else (s.condition, s.limit),
    Outcome: lambda s: tuple(value for _, value in s.fields),
    Require: lambda s: (s.condition,),
    Break: lambda s: (),
    Note: lambda s: tuple(part for part in s.parts if not isinstance(part, str)),
}

_STATEMENT_BLOCKS: dict[type, Callable[[Any], tuple]] = {
    If: lambda s: tuple(body for _, body in s.branches) + ((s.otherwise,) if s.otherwise is not None else ()),
    ForLoop: lambda s: (s.body,),
    WhileLoop: lambda s: (s.body,),
}


def _check_children_cover_every_kind() -> None:
    if set(_SUB_EXPRESSIONS) != set(EXPRESSIONS) or set(_STATEMENT_EXPRESSIONS) != set(STATEMENTS) or not set(_STATEMENT_BLOCKS) <= set(STATEMENTS):
        raise AssertionError("ir: the tables of children must name exactly the node kinds of EXPRESSIONS and STATEMENTS")


_check_children_cover_every_kind()


def sub_expressions(node: Any) -> tuple:
    """The expressions directly inside an expression node (for passes that walk the IR)."""
    children = _SUB_EXPRESSIONS.get(type(node))
    if children is None:  # pragma: no cover - an internal bug
        raise AssertionError(f"not an IR expression: {node!r}")
    return children(node)


def statement_expressions(statement: Any) -> tuple:
    """The expressions a statement evaluates itself (not those of the blocks inside it)."""
    children = _STATEMENT_EXPRESSIONS.get(type(statement))
    if children is None:  # pragma: no cover - an internal bug
        raise AssertionError(f"not an IR statement: {statement!r}")
    return children(statement)


def statement_blocks(statement: Any) -> tuple:
    """The blocks directly inside a statement."""
    blocks = _STATEMENT_BLOCKS.get(type(statement))
    return () if blocks is None else blocks(statement)


def statements_in(block: Block) -> Iterator[Any]:
    """Every statement inside ``block``, at any depth, parents before their children."""
    stack: list[Any] = [block]
    while stack:
        node = stack.pop()
        if type(node) is Block:
            stack.extend(node.statements)
            continue
        yield node
        stack.extend(statement_blocks(node))


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


def literal_ints(faces: Expr) -> tuple | None:
    """The numbers of a list or range written with literal numbers (``[1, 2]``, ``1 .. 2``), else None.

    ``reroll``'s faces: checked at load when written out (interpreter/rerolls.py), so compiled plays take them as a
    constant (engine/play.py).  Here, not in rerolls.py, so that running compiled code never imports the syntax tree.
    """
    if isinstance(faces, Const) and faces.name is None and type(faces.value) is tuple:  # a list literal, folded at load
        return faces.value
    if isinstance(faces, ListOf):
        items = [item.value for item in faces.items if isinstance(item, Const)]
        return tuple(items) if len(items) == len(faces.items) else None
    if isinstance(faces, Range) and isinstance(faces.low, Const) and isinstance(faces.high, Const):
        low, high = faces.low.value, faces.high.value
        if type(low) is int and type(high) is int and high - low < 10_000:
            return tuple(range(low, high + 1))
    return None
