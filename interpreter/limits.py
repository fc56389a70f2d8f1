"""Budgets for running procedures: one place for every execution limit.

Rulesets come from strangers, so a procedure may try to do far more work
than any game needs: integers that double forever, a million states, lists
built from lists of lists.  :class:`Limits` holds every budget with its
default (none of them is a game number); :class:`Budget` is one run's
spending against them.  A breach raises :class:`LimitExceeded`, positioned at
the statement or expression that crossed the line, naming the limit and how
to raise it.

The defaults keep a 2-core laptop responsive: every hostile case in
``tests/hostile/`` ends within a couple of seconds and well under 200 MB.
Honest heavy work (a large battle's exact odds) raises them explicitly:
``--max-work``, ``--max-states`` and ``--timeout`` on the command line, or
``Limits(...)`` in the API (``None`` lifts a budget).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from time import monotonic
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import Source, UsageError, WartableError

# Units of work one statement costs for one state: about what it costs in time
# against one die face spread or one list item made (a unit each); weights
# that are long integers cost more.  Both engines count in these units.
STATEMENT_WORK = 4

# A resolved procedure call costs more than its statements: its inputs are
# checked, its memo key is built and hashed, its outcomes are gathered (about
# 20 microseconds in exact odds, against 1 for a unit).  Charged once for
# each call worked out (a memo miss), in both engines and in a single play.
CALL_WORK = 16

# One exact-odds call from a sweep or a play aid: the inputs prepared, a
# Budget and a run made, the outcomes turned into reduced fractions (about
# 100 microseconds on a small procedure, whatever the procedure does).
EXACT_CALL_WORK = 64

# A step of a play's trace (`run` shows every roll, call, cell and outcome): an event
# made and kept to the end of the play, memory as well as time.
TRACE_EVENT_WORK = 16

# A value of at least this many items (a list of 10,000 numbers) is hashed
# item by item whenever a state holding it is: once one is made, every
# statement costs each state its size too (Budget.big_state).  Smaller values
# are left out: their hashing is part of STATEMENT_WORK.
BIG_VALUE_ITEMS = 1_000

# Lists up to this long are measured by Budget.check_value in place (most lists a play makes are this short).
SHORT_LIST = 16

# Budget.check_value remembers the size of short lists it measured, by their contents: a battle makes
# the same fleets, columns and lists of positions over and over (fifteen_a_side: about 290 lists a play,
# most equal to one made before), and hashing a tuple of interned records or numbers in C costs a tenth of
# measuring it in Python.  Forgotten all at once past this many lists, or past SIZES_HELD items held
# (the memory a remembered list keeps alive is bounded by it).
SIZES_KEPT = 4096
SIZES_HELD = 200_000


class LimitExceeded(WartableError):
    """A procedure ran past one of its budgets: ``limit`` names it (a field of Limits; "" when not told),
    so that a caller can tell a budget it may trade for sampling (``odds --auto``) from any other."""

    limit: str = ""


class TimeoutExceeded(LimitExceeded):
    """The command's time ran out: a command running many computations under one budget
    (``test``) stops there, where another breach fails one computation only."""


@dataclass(frozen=True)
class Limits:
    """Every execution budget, with its default.  ``None`` lifts a budget."""

    # Work units: one statement run for one state, one die face enumerated,
    # one list item or record field made, one state moved by a merge.
    max_work: int | None = 2_000_000
    # Distinct states held at once by exact odds (each is a tuple of variables), and distinct outcomes a Monte
    # Carlo sample counts (parallel.Tally).
    max_states: int | None = 200_000
    # Seconds of wall-clock time for one command or API call.
    timeout: float | None = 20.0
    # Size of any integer a procedure makes, in bits (sign not counted).
    max_int_bits: int = 64
    # Items in one value, nested lists and record fields counted.
    max_value_items: int = 100_000
    # Lists inside lists (and records) one value may nest.
    max_value_depth: int = 16
    max_dice_per_roll: int = 1_000
    max_faces: int = 1_000
    # Totals of one exact roll: count x (faces - 1) + 1.
    max_roll_totals: int = 100_000
    # Plays of one Monte Carlo run.
    max_trials: int = 100_000_000
    # Procedures resolved inside one another at run time.
    max_call_depth: int = 64
    # Outcome distributions remembered for procedures resolved with the same inputs: at least this many, and
    # as many as max_states (every one when max_states is lifted; see memo_entries).
    max_memo_entries: int = 10_000
    # Steps a traced play keeps: the first half and the last half, with a count of those left out
    # between (a 150,000-round loop's whole trace took 387 MB).  The longest bundled trace, a
    # fifteen-a-side eia battle, has 3,360 steps.
    max_trace_steps: int = 10_000

    if TYPE_CHECKING:  # set per instance in __post_init__; ClassVar to mypy so that it makes no fields of them
        derived: ClassVar[tuple[int, int, float, int]]
        _hash: ClassVar[int]

    def __post_init__(self) -> None:
        check_positive_fields(self, "a positive number", optional=("max_work", "max_states", "timeout"), fractional=("timeout",))
        bound = 1 << self.max_int_bits
        # Worked out once for compiled code (not fields: they take no part in equality):
        # the integer range, the state limit as a number, the chunk in which straight-line code reports work.
        object.__setattr__(self, "derived", (
            -bound + 1,
            bound - 1,
            self.max_states if self.max_states is not None else float("inf"),
            4096 if self.max_work is None else max(1, min(4096, self.max_work // 4)),
        ))
        # Limits are part of every key of the memo of resolved procedures: hashed once.
        object.__setattr__(self, "_hash", hash(tuple(getattr(self, spec.name) for spec in fields(self))))

    def __hash__(self) -> int:  # equal limits (compared field by field) hash alike: the fields' tuple, hashed once
        return self._hash

    @property
    def memo_entries(self) -> int:
        """How many outcome distributions of resolved procedures the memo keeps before it forgets its older half:
        max_memo_entries, or max_states when that is larger, or all of them when max_states is lifted.

        Between calls the ruleset's memo keeps only the max_memo_entries newest (api.odds, keep_newest): a
        call's lifted budget does not leave a gigabyte attached to the ruleset.

        Why it follows the state budget: a computation allowed to hold N states may remember as many calls (a
        call's entry is about a state's size), and the memo is what makes a battle's rounds cost one call per
        distinct round.  Bounded by max_memo_entries alone, exact eia battle 4 v 4 forgot and recomputed its
        rounds over and over: 220 s of CPU with every other budget lifted, 68 s with the memo following
        max_states (lifted).  Under the default work budget a run still makes at most max_work / CALL_WORK
        entries (each call worked out costs CALL_WORK).
        """
        if self.max_states is None:
            return sys.maxsize
        return max(self.max_memo_entries, self.max_states)


def check_positive_fields(
    limits: Any, wanted: str, optional: tuple[str, ...] = (), fractional: tuple[str, ...] = ()
) -> None:
    """Every field of the dataclass ``limits`` is ``wanted`` (positive; a whole number unless ``fractional``;
    None allowed if ``optional``), else a UsageError naming the field: limits come from the API as well as
    the command line, and a zero or a negative budget would fail every computation later, far from its cause."""
    for spec in fields(limits):
        value = getattr(limits, spec.name)
        if value is None and spec.name in optional:
            continue
        whole = isinstance(value, int) and not isinstance(value, bool)
        if not (whole or (spec.name in fractional and isinstance(value, float))) or value <= 0:
            lifted = " (or None for no limit)" if spec.name in optional else ""
            raise UsageError(Source("<limits>", "").diagnostic(
                1, 1, f"{type(limits).__name__}.{spec.name} must be {wanted}{lifted}, not {value!r}"
            ))


# How a user raises each budget, for the message that reports its breach.
_RAISE_MAX_STATES = "raise it with --max-states N (0 for no limit) or Limits(max_states=...)"
RAISE_HINTS = {
    "max_work": "raise it with --max-work N (0 for no limit) or Limits(max_work=...)",
    "max_states": f"{_RAISE_MAX_STATES}; `run --n` estimates instead",
    "timeout": "raise it with --timeout SECONDS (0 for no limit) or Limits(timeout=...)",
    "max_trials": "use fewer trials, or raise Limits(max_trials=...)",
}


def keep_newest(memo: dict, keep: int) -> None:
    """Forget all but the ``keep`` newest entries of ``memo`` (a dictionary keeps insertion order): what a
    ruleset's memo keeps from one call to the next, however far a call let it grow (Limits.memo_entries).
    An entry another thread forgot first is skipped."""
    excess = len(memo) - keep
    if excess > 0:
        for old in list(memo)[:excess]:
            memo.pop(old, None)


def remember(memo: dict, key, value, limit: int) -> None:
    """Keep ``value`` under ``key`` in a memo of at most ``limit`` entries.

    A full memo forgets its older half (a dictionary keeps insertion order),
    not everything: the small procedures resolved inside a battle's rounds
    were worked out early and are met again in every later round, and
    emptying the memo made them all be worked out again (3% of the
    instructions of an exact three-a-side eia battle).  Forgetting only
    makes a later call slower, never different.  A ruleset's memo may be
    shared by threads: an entry another thread forgot first is skipped.
    """
    if len(memo) >= limit:
        keep_newest(memo, limit // 2)
    memo[key] = value


def breach(pos, limit: str, message: str, hint: str | None = None) -> LimitExceeded:
    """A LimitExceeded at ``pos`` (a syntax.Pos, or None) naming the limit and how to raise it (``hint``, else the
    limit's own in RAISE_HINTS)."""
    hint = hint or RAISE_HINTS.get(limit, f"raise Limits({limit}=...) in the API")
    text = f"{message} ({limit}; {hint})"
    kind = TimeoutExceeded if limit == "timeout" else LimitExceeded
    error = kind(Source("<limits>", "").diagnostic(1, 1, text) if pos is None else pos.diagnostic(text))
    error.limit = limit
    return error


def too_many_states(pos, limit: float) -> LimitExceeded:
    """The breach of ``max_states`` (exact odds holding more states than ``limit``), at ``pos``."""
    return breach(pos, "max_states", f"exact odds need more than {limit:,} states here")


def too_many_outcomes(pos, limit: int) -> LimitExceeded:
    """The breach of ``max_states`` by a Monte Carlo sample counting more than ``limit`` distinct outcomes, at ``pos``
    (the procedure's): each is held until the sample is counted out (about 1.3 KB each)."""
    return breach(pos, "max_states", f"a sample would count more than {limit:,} distinct outcomes", _RAISE_MAX_STATES)


class Budget:
    """One run's spending against :class:`Limits`: work, states, time, value sizes.

    The clock is read where time may pass unseen by the work budget, so that a
    timeout holds wherever a command spends its time: every CLOCK_EVERY units of
    work or CLOCK_CALLS charges (a resolved call is a charge); in a play, every
    CLOCK_STEPS dice drawn (:meth:`step`), since a play's small rolls cost no
    work (before calls were charged, a play of a tree of `resolve` calls ran 95 s
    past a 2 s timeout); and
    between batches of Monte Carlo plays sized to last about BATCH_SECONDS
    (:meth:`next_batch`), since a play's own loops report their work in chunks
    that a short play never fills.
    """

    __slots__ = (
        "_batch_clock",
        "_kinds",
        "_max_work",
        "_measure",
        "_sizes",
        "_sizes_held",
        "big_state",
        "call_alarm",
        "charges",
        "deadline",
        "limits",
        "next_clock_check",
        "on_clock",
        "play_start",
        "sizes_known",
        "steps_left",
        "work",
        "work_cap",
    )

    # Look at the clock every CLOCK_EVERY units of work, or every CLOCK_CALLS charges
    # (a unit of work is not always cheap: it may hash a long list).
    CLOCK_EVERY = 20_000
    CLOCK_CALLS = 64
    # In a play: look at the clock every CLOCK_STEPS dice drawn one by one (a die takes about 0.1 µs:
    # a read every 0.1 ms, a fraction of a percent of the time for a read that costs about 0.1 µs).
    # A resolved call is charged CALL_WORK, so charge() reads the clock for trees of calls.
    CLOCK_STEPS = 1024
    # Monte Carlo reads the clock between batches of plays lasting about this long, at most
    # MAX_BATCH plays (a batch of fast plays then costs one read per 4,096 plays, as before).
    BATCH_SECONDS = 0.02
    MAX_BATCH = 4096

    def __init__(self, limits: Limits, on_clock=None):
        self.limits = limits
        self.on_clock = on_clock  # called with the work spent each time the clock is read (a progress line)
        self._measure: Callable[[Any, int, int], tuple[int, int]] | None = None  # values.measure, bound on first use: `wartable --help` needs limits, not values
        self._kinds: tuple[type, type] = (type(None), type(None))  # values.Record and values.OutcomeValue, bound with it
        # short lists measured, by contents -> (items, depth), and the items they hold (see SIZES_KEPT)
        self._sizes: dict[tuple, tuple[int, int]] = {}
        # the same dictionary, for a play's statement to find a list's measure in place (engine.playwork.checked_locally):
        # a list found there is within this budget's limits and already counted in big_state.  An attribute, not a
        # property: every play function that makes a list reads it when it starts (about 100 calls a play)
        self.sizes_known = self._sizes
        self._sizes_held = 0
        # work: never reset (the clock is read every CLOCK_EVERY units); play_start: work spent before the
        # current play (each Monte Carlo play gets the budget; compiled trials set it)
        self.work = self.play_start = 0
        # charges since the clock was last read (CLOCK_CALLS); compiled plays charge a resolved call in place (engine.play)
        self.charges = 0
        timeout = limits.timeout
        self.deadline = None if timeout is None else monotonic() + timeout
        self._max_work = limits.max_work
        # the work a play may spend (no limit: infinity), so that a charge tests it in one comparison
        self.work_cap: float = float("inf") if limits.max_work is None else limits.max_work
        # the work at which the clock is read next (see charge_items: hot paths test this and work_cap in place)
        self.next_clock_check = self.CLOCK_EVERY
        # the work at or past which a compiled play's resolved call (engine.play) goes to checkpoint for its work:
        # at most min(next_clock_check, play_start + work_cap + 1), the work at which either comparison of charge()
        # holds.  Both only grow (the clock's next read moves on, a new play starts where the work is), so a value
        # left from before is only lower: a call then goes to checkpoint, which decides exactly and sets it again.
        # One comparison instead of two for about 160 calls a play of fifteen_a_side.
        self.call_alarm: float = min(self.next_clock_check, self.work_cap + 1)
        # steps_left: dice a play may draw before the clock is read; compiled code and
        # runtime.Run count it down themselves (a method call per die would cost more than the die)
        self.steps_left = self.CLOCK_STEPS
        self._batch_clock = 0.0  # when the current batch of Monte Carlo plays began
        # Units each state pays per statement for hashing the biggest value made so far, once it has
        # BIG_VALUE_ITEMS or more (0 until then): states are dictionary keys, and a tuple does not keep its
        # hash, so a state holding a list of 10,000 numbers is hashed item by item at every statement.
        # The largest value made stands in for every state's (measuring each state would cost the hot path);
        # both engines make the same values, so they charge alike.
        self.big_state = 0

    def start_play(self) -> None:
        """A new play of a Monte Carlo run: the work budget starts afresh, the clock runs on."""
        self.play_start = self.work

    def charge(self, units: int, pos) -> None:
        """Spend ``units`` of work at ``pos``; raise when a budget is spent.  Each charge counts towards a
        look at the clock (CLOCK_CALLS): a charge may stand for costly work, such as a resolved call."""
        work = self.work = self.work + units
        self.charges += 1
        if work >= self.next_clock_check or work - self.play_start > self.work_cap or self.charges >= self.CLOCK_CALLS:
            self.checkpoint(pos)

    def charge_items(self, units: int, pos) -> None:
        """Spend ``units`` of work for items of values made or walked (cheap each, so not counted towards
        CLOCK_CALLS: the clock is read every CLOCK_EVERY units).  Hot callers (runtime.counted) write
        its two comparisons in place; the rare case goes to :meth:`checkpoint`."""
        work = self.work = self.work + units
        if work >= self.next_clock_check or work - self.play_start > self.work_cap:
            self.checkpoint(pos)

    def checkpoint(self, pos) -> None:
        """A charge reached a threshold: raise when the work budget is spent; read the clock when due."""
        if self.work - self.play_start > self.work_cap:
            raise breach(pos, "max_work", f"this procedure needs more than {self._max_work:,} units of work")
        if self.work >= self.next_clock_check or self.charges >= self.CLOCK_CALLS:
            self.next_clock_check = self.work + self.CLOCK_EVERY
            self.charges = 0
            self.check_clock(pos)
        self.call_alarm = min(self.next_clock_check, self.play_start + self.work_cap + 1)

    def check_clock(self, pos) -> None:
        if self.on_clock is not None:
            self.on_clock(self.work)
        if self.deadline is not None and monotonic() > self.deadline:
            raise self.timed_out(pos)

    def timed_out(self, pos) -> LimitExceeded:
        return breach(pos, "timeout", f"stopped after {self.limits.timeout:g} seconds")

    def step(self, pos) -> None:
        """``steps_left`` ran out (dice drawn in a play): read the clock, count again."""
        self.steps_left = self.CLOCK_STEPS
        self.check_clock(pos)

    def next_batch(self, played: int, pos) -> int:
        """Read the clock after ``played`` Monte Carlo plays (0 before the first); how many to play next.

        The batch lasts about BATCH_SECONDS whatever a play costs: one play at a
        time while plays are slow, up to MAX_BATCH when they are fast (doubling at
        most each time, so that one quick batch cannot launch a long one).
        """
        if self.on_clock is not None:
            self.on_clock(self.work)
        if self.deadline is None:
            return self.MAX_BATCH
        now = monotonic()
        if now > self.deadline:
            raise self.timed_out(pos)
        elapsed, self._batch_clock = now - self._batch_clock, now
        if played <= 0:
            return 1
        wanted = int(played * self.BATCH_SECONDS / elapsed) if elapsed > 0 else self.MAX_BATCH
        return max(1, min(wanted, 2 * played, self.MAX_BATCH))

    def check_states(self, count: int, pos) -> None:
        limit = self.limits.max_states
        if limit is not None and count > limit:
            raise too_many_states(pos, limit)

    def check_value(self, value: Any, pos, walked: int = 0) -> Any:
        """``value`` itself, if its items and nesting are within the limits; charges its size (and ``walked``
        units more: a play's list charges the walk of the list it was made from with it, see
        engine.expressions)."""
        measure = self._measure
        if measure is None:
            # bound on first use (see __init__)
            from .values import OutcomeValue, Record
            from .values import measure as measure_value

            measure = self._measure = measure_value
            self._kinds = (Record, OutcomeValue)
        limits = self.limits
        short = type(value) is tuple and len(value) <= SHORT_LIST
        known = self._sizes.get(value) if short else None
        if known is not None:
            items, depth = known  # an equal list was measured (and found within these limits) before
        elif short:
            # values.measure's common case, in place (a play makes hundreds of short lists): plain items, records
            record, outcome = self._kinds
            items, depth = len(value), 1
            for item in value:
                kind = type(item)
                if kind is record:
                    size, inner = item._measure or item._measured()
                    items += size
                    if inner >= depth:
                        depth = inner + 1
                elif kind is tuple or kind is outcome:
                    items, depth = measure(value, limits.max_value_items, limits.max_value_depth)
                    break
        else:
            items, depth = measure(value, limits.max_value_items, limits.max_value_depth)
        if items > limits.max_value_items:
            raise breach(pos, "max_value_items", f"a value would hold more than {limits.max_value_items:,} items")
        if depth > limits.max_value_depth:
            raise breach(pos, "max_value_depth", f"a value would nest lists more than {limits.max_value_depth} deep")
        if short and known is None:
            self._remember_size(value, items, depth)
        if items >= BIG_VALUE_ITEMS and items > self.big_state:
            self.big_state = items
        # charge_items, in place: a play makes hundreds of lists
        work = self.work = self.work + items + walked
        if work >= self.next_clock_check or work - self.play_start > self.work_cap:
            self.checkpoint(pos)
        return value

    def check_changed(self, made: tuple, before: tuple, removed: Any, added: Any, pos) -> tuple:
        """:meth:`check_value` of ``made``, the list ``before`` with ``removed`` replaced by ``added`` (replace_at; or
        ``added`` appended, ``removed`` None): a list not met before is measured from ``before``'s remembered measure
        and the two items' (records know theirs; a list is looked up) rather than item by item.  A side's columns
        replaced one at a time (columns_act, column_action: about 14 a play of fifteen_a_side) were measured
        column by column.  The same measure, so the same checks, charge and remembered size: ``made``'s (items,
        depth) follows from ``before``'s unless ``before`` is not remembered or too long, an item's measure is not at
        hand, or a shallower item replaces a deeper one.  A record's measure and :meth:`charge_measured` are written
        in place: about 120 calls a play of fifteen_a_side, four method calls each before (eighth round)."""
        sizes = self._sizes
        short = len(made) <= SHORT_LIST
        known = sizes.get(made) if short else None
        if known is not None:
            items, depth = known  # within these limits when measured
        else:
            was = sizes.get(before) if short and len(before) <= SHORT_LIST else None
            if was is None:
                return self.check_value(made, pos)
            record, removed_kind, added_kind = self._kinds[0], type(removed), type(added)  # (kinds held apart: no narrowing)
            if removed is None:
                out: tuple[int, int] | None = (0, 0)
            else:
                out = (removed._measure or removed._measured()) if removed_kind is record else self._item_measure(removed)
            into = (added._measure or added._measured()) if added_kind is record else self._item_measure(added)
            if out is None or into is None or into[1] < out[1]:
                return self.check_value(made, pos)
            items, depth = was[0] - out[0] + into[0] + len(made) - len(before), max(was[1], into[1] + 1)
            limits = self.limits
            if items > limits.max_value_items or depth > limits.max_value_depth:
                return self.check_value(made, pos)  # worded there
            self._remember_size(made, items, depth)
        if items >= BIG_VALUE_ITEMS and items > self.big_state:  # charge_measured, in place
            self.big_state = items
        work = self.work = self.work + items
        if work >= self.next_clock_check or work - self.play_start > self.work_cap:
            self.checkpoint(pos)
        return made

    def _item_measure(self, item: Any) -> tuple[int, int] | None:
        """What an item adds to a list's measure: its items, and its depth (a list's depth is one more than its
        deepest item's); None for what is not at hand (an outcome, a list not remembered)."""
        kind = type(item)
        record, outcome = self._kinds
        if kind is record:
            measured: tuple[int, int] = item._measure or item._measured()
            return measured
        if kind is tuple:
            return self._sizes.get(item)
        if kind is outcome or self._measure is None:
            return None
        return (0, 0)

    def _remember_size(self, value: tuple, items: int, depth: int) -> None:
        """Keep a short list's measure for check_value (see SIZES_KEPT): all forgotten when too many are kept."""
        sizes = self._sizes
        held = self._sizes_held + items
        if len(sizes) >= SIZES_KEPT or held > SIZES_HELD:
            sizes.clear()
            held = items
        sizes[value] = (items, depth)
        self._sizes_held = held

    def check_flat(self, value: tuple, pos, walked: int = 0) -> tuple:
        """:meth:`check_value` of a list known to hold plain values only (the numbers of a range): its size is its
        length and its depth 1, no item looked at (``walked``: as in check_value)."""
        items, limits = len(value), self.limits
        if items > limits.max_value_items:
            raise breach(pos, "max_value_items", f"a value would hold more than {limits.max_value_items:,} items")
        if limits.max_value_depth < 1:
            raise breach(pos, "max_value_depth", f"a value would nest lists more than {limits.max_value_depth} deep")
        if items >= BIG_VALUE_ITEMS and items > self.big_state:
            self.big_state = items
        # charge_measured, in place: a play makes hundreds of these
        work = self.work = self.work + items + walked
        if work >= self.next_clock_check or work - self.play_start > self.work_cap:
            self.checkpoint(pos)
        return value

    def walked(self, value: Any, units: int, pos) -> Any:
        """``value`` itself, once ``units`` of work are charged: what a play's aggregate (a count, a sum) walked
        over a list that exists, charged with its finish rather than by a call of its own (engine.expressions)."""
        work = self.work = self.work + units
        if work >= self.next_clock_check or work - self.play_start > self.work_cap:
            self.checkpoint(pos)
        return value

    def charge_measured(self, items: int, pos) -> None:
        """Charge a value of ``items`` items already measured and within the size limits (check_value's charge;
        check_value keeps its own copy in place, as it runs for every list a play builds)."""
        if items >= BIG_VALUE_ITEMS and items > self.big_state:
            self.big_state = items
        work = self.work = self.work + items
        if work >= self.next_clock_check or work - self.play_start > self.work_cap:
            self.checkpoint(pos)

    def charge_statements(self, units: int, pos) -> None:
        """Spend ``units`` counted as STATEMENT_WORK per statement run (compiled plays count them in a local),
        with the hashing of big states the evaluator charges per statement (:attr:`big_state`)."""
        if self.big_state:
            units += units // STATEMENT_WORK * self.big_state
        self.charge(units, pos)
