"""The context exact-odds code is written in, as small objects instead of string-keyed dictionaries.

A *layout* is the tuple of slots a state holds, in slot order; a state is
the tuple of those variables' values (one variable: the value itself; none:
``()``; see :func:`state_key`).  A *pass* (a segment) runs straight
statements for every state in ``D`` and writes the states after them into
``N``, the finished outcomes into ``f`` and the states leaving a loop by
``break`` into ``x``; the :class:`Frame` says how, and :class:`Targets`
records which of those a pass turned out to use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import ir

if TYPE_CHECKING:  # pragma: no cover - types only
    from ..errors import Pos
    from .writer import CodeWriter

Layout = tuple[int, ...]


def layout_of(slots: Sequence[int] | frozenset[int] | set[int]) -> Layout:
    return tuple(sorted(slots))


def state_key(layout: Layout, replace: Mapping[int, str] | None = None) -> str:
    """Source for a state of ``layout`` (a slot may be replaced by an expression).

    A state is the tuple of its variables; a state of one variable is the
    variable's value itself (one tuple fewer to make and to hash); no variable is ().
    """
    parts = [(replace or {}).get(slot, f"v{slot}") for slot in layout]
    if not parts:
        return "()"
    if len(parts) == 1:
        return parts[0]
    return "(" + ", ".join(parts) + ")"


def unpack(layout: Layout, source: str) -> str | None:
    """Source setting the variables of ``layout`` from a state (None: it holds none)."""
    if not layout:
        return None
    if len(layout) == 1:
        return f"v{layout[0]} = {source}"
    return ", ".join(f"v{slot}" for slot in layout) + f" = {source}"


@dataclass(frozen=True)
class LoopExit:
    """The loop a `break` leaves: the layout of the states after it."""

    layout: Layout


@dataclass(frozen=True)
class Prologue:
    """A loop round's head check, written before the round's first statement, for each state at the head."""

    layout: Layout
    emit: Callable[[CodeWriter, Frame], None]
    pos: Pos


@dataclass(frozen=True)
class Epilogue:
    """The state the last statement of a round hands to the next round (a slot may be replaced: ``i + 1``).

    ``leaves_unless``: a `while` loop's condition, tested on the state there: a state that fails it
    leaves the loop from this round (as a state of ``exit_layout``) instead of becoming a state of the
    chain whose only round is to leave (eia's battle: two states in three end the battle).
    """

    layout: Layout
    replace: Mapping[int, str] = field(default_factory=dict)
    leaves_unless: Any = None
    exit_layout: Layout = ()


class Targets:
    """What a pass's code turned out to write to: finished outcomes, loop exits, a count of states."""

    __slots__ = ("counted", "exits", "finished")

    def __init__(self) -> None:
        self.finished = False
        self.exits = False
        self.counted = False


class PassMemo:
    """A pass whose states each go to one place the state alone decides (no dice, no input read): the run
    keeps, per state, where it went (``name`` in the generated code, ``Run.pass_memo``), and a state met in
    an earlier run of the pass goes there again without its statements.  ``targets``: the accumulators
    its paths write to (``N``, ``f``, ``x``), each with its number in the kept entries (MEMO_TARGETS)."""

    __slots__ = ("name", "targets")

    def __init__(self, name: str) -> None:
        self.name = name
        self.targets: set[str] = set()

    def keep(self, into: str) -> str:
        """The line that keeps where the state ``st`` went (its key ``k`` in accumulator ``into``)."""
        self.targets.add(into)
        return f"if {self.name} is not None: {self.name}[st] = ({MEMO_TARGETS.index(into)}, k)"


# Kinds of expression whose value costs more than looking a state up in a memo (see memo_reads).
_MEMO_WORTHY = (ir.Aggregate, ir.CallFunction, ir.Lookup, ir.ModifierSum, ir.ListOf, ir.Range)
# and fields or items read, from this many on (eia battle_round's outcome reads ten fields of columns_act's)
_MEMO_WORTHY_READS = 4


def memo_reads(nodes: Sequence[Any]) -> tuple[str, ...] | None:
    """The inputs (and choices) ``nodes`` read, by name, when what they work out for a state is worth
    remembering by the state (PassMemo; a call's arguments, ExactCompound): they roll nothing and work out
    something costlier than a lookup (an aggregate, a function, a table, four or more field or item
    reads); else None.  The memo is kept per value of those inputs (Run.pass_memo)."""
    worthy = False
    reads = 0
    read: set[str] = set()
    for node in ir.walk(*nodes):
        kind = type(node)
        if kind is ir.Roll:
            return None
        if kind is ir.InputRef:
            read.add(node.name)
        worthy = worthy or kind in _MEMO_WORTHY
        reads += kind is ir.Field or kind is ir.Index
    return tuple(sorted(read)) if worthy or reads >= _MEMO_WORTHY_READS else None


# The accumulators a memoised pass's state may go to, numbered in the kept entries: the next pass's
# states, the finished outcomes, the states leaving the loop.
MEMO_TARGETS = ("N", "f", "x")


@dataclass(frozen=True)
class Frame:
    """How the statements of a pass end, for one state: ``weight`` the state's weight (source),
    ``exit_layout`` the states after the pass, ``loop`` the loop a `break` leaves,
    ``epilogue`` the next round's state when the pass ends a loop round; ``memo``: where the pass
    keeps each state's place, if it does (see PassMemo)."""

    weight: str
    exit_layout: Layout
    loop: LoopExit | None
    epilogue: Epilogue | None
    targets: Targets
    memo: PassMemo | None = None

    def with_weight(self, weight: str) -> Frame:
        return Frame(weight, self.exit_layout, self.loop, self.epilogue, self.targets, self.memo)


@dataclass(frozen=True)
class Segment:
    """One pass to write: ``statements`` (straight ones, at most one literal roll) from states of
    ``layout`` to states of ``exit_layout``.  ``exits`` names the accumulator of `break`s;
    ``known_states``: D is known not to be empty (no ``if D:``); ``entry``: the whole
    procedure from its single starting state, returning its outcomes."""

    statements: tuple[Any, ...]
    layout: Layout
    exit_layout: Layout
    fallback_pos: Pos
    loop: LoopExit | None = None
    prologue: Prologue | None = None
    epilogue: Epilogue | None = None
    exits: str = "X"
    known_states: bool = False
    entry: bool = False


@dataclass(frozen=True)
class LoopRound:
    """A block run as one round of a loop: the head check before it, the next round's state after it."""

    prologue: Prologue
    epilogue: Epilogue


def literal_dice(roll: Any) -> tuple[int, int]:
    """(count, sides) of a roll of literal dice (ir.Roll whose count and sides are ir.Const)."""
    from .. import ir

    count, sides = roll.count, roll.sides
    assert type(count) is ir.Const and type(sides) is ir.Const, "only a literal roll is counted when the ruleset loads"
    return count.value, sides.value


class Dice(tuple[tuple[tuple[int, int], ...], int]):
    """A literal roll counted when the ruleset loads: (faces as (total, ways), how many ways in all)."""

    __slots__ = ()

    @property
    def faces(self) -> tuple[tuple[int, int], ...]:
        return self[0]

    @property
    def total(self) -> int:
        return self[1]
