"""What both back ends run on: one :class:`Run` per API call, the state algebra, and helpers.

The code :mod:`compiler` generates is straight Python over local variables;
anything that may fail with a positioned error, or that touches a budget,
goes through a function here.  The reference evaluator (evaluator.py) walks
the IR and calls the same functions: the same accumulator (:class:`Acc`),
spreads and clearing of states, dice counts, checks, charges, callee binding
and error texts, so that the two back ends cannot drift apart.  Nothing here
is global state: a :class:`Run` holds one call's budget, memos and interned
loop sequences, and dies with the call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NoReturn

from . import chains, pools
from .errors import RulesetError, RuleViolation
from .functions import FUNCTIONS
from .inputs import CoercionError, coerce
from .limits import (
    BIG_VALUE_ITEMS,
    CALL_WORK,
    STATEMENT_WORK,
    Budget,
    LimitExceeded,
    Limits,
    breach,
    remember,
    too_many_states,
)
from .proven_types import conforms
from .values import OutcomeValue, Record, brief, kind_of_value, show

if TYPE_CHECKING:  # pragma: no cover
    from .errors import Pos
    from .values import Type


class Acc:
    """Weights over a common denominator, absorbing others (rescaled to the least common multiple).

    The state algebra of both back ends: compiled code gathers outcomes and
    loop exits in one, and the evaluator carries every distribution of states
    in one.  An empty accumulator takes the first weights it absorbs as they
    are, without a copy: whoever absorbs hands its dictionary over.
    """

    __slots__ = ("denom", "weights")

    def __init__(self, weights: dict | None = None, denom: int = 1) -> None:
        self.weights: dict = {} if weights is None else weights
        self.denom = denom

    def absorb(self, weights: dict, denom: int) -> None:
        if not weights:
            return
        mine = self.weights
        if not mine:
            self.weights, self.denom = weights, denom
            return
        if denom != self.denom:
            common = math.lcm(self.denom, denom)
            if common != self.denom:
                scale = common // self.denom
                mine = self.weights = {key: w * scale for key, w in mine.items()}
                self.denom = common
            if common != denom:
                scale = common // denom
                for key, w in weights.items():
                    mine[key] = mine.get(key, 0) + w * scale
                return
        for key, w in weights.items():
            mine[key] = mine.get(key, 0) + w


def reduced(weights: dict, denom: int) -> tuple[dict, int]:
    """``weights`` over ``denom`` with their common divisor taken out: the same probabilities in smaller numbers.

    A die's faces counted per branch give ratios such as 2 : 4 over 6, which are 1 : 2 over 3;
    left unreduced, every caller that spreads the result multiplies its denominator by 6 instead
    of 3, and a battle of n such rounds carries 6**n where 3**n would do.  One gcd over the
    weights (in C) once per result, against integers that stay smaller everywhere after it.
    """
    divisor = math.gcd(denom, *weights.values())
    if divisor <= 1:
        return weights, denom
    return {key: w // divisor for key, w in weights.items()}, denom // divisor


def put(state: tuple, slot: int, value: Any) -> tuple:
    """``state`` with ``value`` in ``slot``."""
    return state[:slot] + (value,) + state[slot + 1:]


def forget(state: tuple, slots: tuple[int, ...]) -> tuple:
    """``state`` with the variables in ``slots`` cleared (None)."""
    new = list(state)
    for slot in slots:
        new[slot] = None
    return tuple(new)


def forget_all(weights: dict, slots: tuple[int, ...]) -> dict:
    """Weighted states with the variables in ``slots`` cleared, so that states differing only in them merge."""
    out: dict = {}
    for state, weight in weights.items():
        new = list(state)
        for slot in slots:
            new[slot] = None
        key = tuple(new)
        out[key] = out.get(key, 0) + weight
    return out


# One state's share of a spread: the state, its weight, its (value, ways) pairs, and the ways they total.
Spread = tuple[tuple, int, Collection[tuple[Any, int]], int]


def spread(budget: Budget, denom: int, slot: int, per_state: list[Spread], pos: Pos) -> Acc:
    """States x values: each state's value distribution (a roll, a call's outcomes) written into ``slot``.

    Each state's values are over its own total; the result is over ``denom``
    times their least common multiple.  A value spread costs a unit, and one
    more for each 1,024 bits of the weights it multiplies; the states held are
    checked against ``max_states`` as they grow.
    """
    common = 1
    for _, _, _, total in per_state:
        common = math.lcm(common, total)
    out: dict = {}
    each = 1 + (denom.bit_length() >> 10)
    for state, weight, values, total in per_state:
        budget.charge(len(values) * each, pos)
        scale = weight * (common // total)
        head, tail = state[:slot], state[slot + 1:]
        for value, count in values:
            new = head + (value,) + tail
            out[new] = out.get(new, 0) + count * scale
        budget.check_states(len(out), pos)
    return Acc(out, denom * common)


def describe_state(values: Sequence[Any], names: Iterable[tuple[str, int]]) -> str:
    """A loop's state in words, for an error: each variable named with its value (shortened)."""
    return ", ".join(f"{name} = {brief(values[place], 60)}" for name, place in names) or "its first state"


class PlayFunctions(dict):
    """A resolved procedure's play function by name, looked up (and compiled) the first time a play calls it.

    Generated plays call a callee through this table (``rt.plays[name](rt, inputs, roll, depth)``): one
    dictionary read instead of a method of :class:`Run` and ``ruleset.program`` on every call; the caller charges
    the call's own cost (CALL_WORK) first, as :meth:`Run.call_play` does.
    """

    __slots__ = ("ruleset",)

    def __init__(self, ruleset: Any) -> None:
        super().__init__()
        self.ruleset = ruleset

    def __missing__(self, name: str) -> Callable[..., Any]:
        function: Callable[..., Any] = self.ruleset.program(name).play
        self[name] = function
        return function


class PositionalPlayFunctions(PlayFunctions):
    """A resolved procedure's play function taking its inputs one by one (``rt.plays_positional[name](rt, roll, depth,
    input...)``, the ``positional`` attribute of its play function, engine.play.write_play): a call with its
    arguments written where it is made builds no inputs tuple, and the callee reads no input out of one (about 24 ns
    an input: column_action has 19, called 21 times a play of fifteen_a_side)."""

    __slots__ = ()

    def __missing__(self, name: str) -> Callable[..., Any]:
        function: Callable[..., Any] = self.ruleset.program(name).play.positional
        self[name] = function
        return function


class Run:
    """One API call of compiled code: its limits and budget, choices, memos, interned sequences."""

    __slots__ = (
        "budget",
        "call_memo",
        "changed_records",
        "choices",
        "choices_key",
        "dice_memo",
        "flat_items",
        "int_high",
        "int_low",
        "limits",
        "max_states",
        "pass_memos",
        "plays",
        "plays_positional",
        "projections",
        "ruleset",
        "sequence_numbers",
        "sequences",
        "work_chunk",
    )

    def __init__(self, ruleset, limits: Limits, budget: Budget | None = None, choices: dict | None = None):
        self.ruleset = ruleset  # a CompiledRuleset: its program(name) is a procedure's generated code
        self.limits = limits
        self.budget = budget or Budget(limits)
        self.choices = choices or {}
        self.int_low, self.int_high, self.max_states, self.work_chunk = limits.derived
        # a list of plain values shorter than this is within max_value_items and below BIG_VALUE_ITEMS: Budget.check_flat
        # would only charge it, which a play's statement does in place (engine.expressions, Expressions.local_work)
        self.flat_items = min(BIG_VALUE_ITEMS, limits.max_value_items + 1)
        self.call_memo: dict | None = None  # made when first needed
        self.dice_memo: dict | None = None
        self.choices_key: tuple | None = None  # the choices as a memo key part, made when first needed
        self.sequences: list = []
        self.sequence_numbers: dict = {}
        self.plays = PlayFunctions(ruleset)
        self.plays_positional = PositionalPlayFunctions(ruleset)
        self.projections: dict = {}  # (outcome, fields kept) -> the outcome with those fields alone (see projected)
        self.changed_records: dict = {}  # (record, field, plain value, its type) -> with_field's record (see changed_record)
        self.pass_memos: dict = {}  # a pass's site -> {state: (accumulator number, key)} (see pass_memo)

    # ---- budgets ------------------------------------------------------------------

    def charge_pass(self, states: int, statements: int, denom: int, pos) -> None:
        """One pass over ``states`` states running ``statements`` statements: what the evaluator charges for them."""
        budget = self.budget
        budget.charge(states * statements * (STATEMENT_WORK + (denom.bit_length() >> 10) + budget.big_state), pos)

    def spend(self, units: int, pos) -> int:
        """Report work counted locally (STATEMENT_WORK a statement, see Budget.charge_statements); the local counter starts again from 0."""
        self.budget.charge_statements(units, pos)
        return 0

    def too_many_states(self, pos: Pos) -> NoReturn:
        raise too_many_states(pos, self.max_states)

    # ---- loops ----------------------------------------------------------------------

    def intern(self, sequence: Any, pos) -> int:
        """A loop's sequence as a small number, so states hash a number, not a long list."""
        number = self.sequence_numbers.get(sequence)
        if number is None:
            self.budget.charge(len(sequence), pos)
            number = self.sequence_numbers[sequence] = len(self.sequences)
            self.sequences.append(sequence)
        return number

    def projected(self, value: Any, keep: frozenset[str]) -> Any:
        """``value`` with only the fields in ``keep`` when it is an outcome (the others are never read again:
        engine.liveness.FieldLiveness); any other value as it is.  Remembered per run."""
        if type(value) is not OutcomeValue:
            return value
        key = (value, keep)
        found = self.projections.get(key)
        if found is None:
            fields = value.fields
            if all(name in keep for name, _ in fields):
                found = value
            else:
                found = OutcomeValue(value.name, tuple(pair for pair in fields if pair[0] in keep))
            self.projections[key] = found
        return found

    def solve_while(self, H: dict, d: int, FIN: Acc, round_of: Callable, I: tuple | None, depth: int, limited: bool, pos: Pos,
                    names: Iterable[tuple[str, int]], width: int, totals: chains.Totals | None = None) -> tuple[dict, int]:
        """A `while` loop from the states at its head: the states after it (outcomes go to FIN).

        ``round_of(rt, I, depth, state)`` is the loop's round for one state
        (a chains.Round); ``names`` pairs variable names with their place in a
        state of ``width`` variables, to describe one in an error.  ``totals``:
        where the loop's running totals sit (chains.accumulated), whose rounds
        are computed once for every total (chains.lifted).
        """
        def one_round(state: Any) -> chains.Round:
            return round_of(self, I, depth, state)  # a generated function (Callable: untyped)

        rounds = one_round if totals is None else chains.lifted(one_round, totals, self.int_low, self.int_high)
        chain = chains.Chain(rounds, self.budget, pos)
        if limited:
            finished, exits, denom = chains.solve_limited(chain, H, d)
        else:
            def describe(state: Any) -> str:
                return describe_state(state if width != 1 else (state,), names)
            finished, exits, denom = chains.solve_until(chain, H, d, describe)
        if finished:
            FIN.absorb(finished, denom)
        return exits, denom

    # ---- dice -----------------------------------------------------------------------

    def check_dice(self, count: Any, sides: Any, pos, exact: bool) -> None:
        limits = self.limits
        if not isinstance(count, int) or count < 0 or count > limits.max_dice_per_roll:
            raise breach(pos, "max_dice_per_roll", f"cannot roll {count} dice (0 to {limits.max_dice_per_roll})")
        if not isinstance(sides, int) or sides < 1 or sides > limits.max_faces:
            raise breach(pos, "max_faces", f"a die must have 1 to {limits.max_faces} faces, not {sides}")
        if exact:
            if count * (sides - 1) + 1 > limits.max_roll_totals:
                raise breach(pos, "max_roll_totals", f"{count}d{sides} has {count * (sides - 1) + 1:,} totals, more than exact odds follow")
        else:  # dice about to be drawn one by one: steps toward a look at the clock (Budget.step)
            budget = self.budget
            budget.steps_left -= count
            if budget.steps_left <= 0:
                budget.step(pos)

    def dice(self, count: Any, sides: Any, pos) -> tuple[tuple, int]:
        """((total, ways), ...) of ``count`` dice of ``sides`` faces, and sides ** count."""
        self.check_dice(count, sides, pos, True)
        key = (count, sides)
        memo = self.dice_memo
        if memo is None:
            memo = self.dice_memo = {}
        found = memo.get(key)
        if found is None:
            self.budget.charge(dice_work(count, sides), pos)
            found = memo[key] = (tuple(dice_distribution(count, sides).items()), sides**count)
        return found

    def pool(self, count: Any, sides: Any, pos) -> tuple[tuple, int]:
        """((faces highest first, ways), ...) of ``count`` dice of ``sides`` faces, and sides ** count."""
        self.check_dice(count, sides, pos, False)
        key = ("pool", count, sides)
        memo = self.dice_memo
        if memo is None:
            memo = self.dice_memo = {}
        found = memo.get(key)
        if found is None:
            pools.check_pool(count, sides, pos, self.limits)
            self.budget.charge(pools.pool_work(count, sides), pos)
            found = memo[key] = (tuple(pools.pool_distribution(count, sides).items()), sides**count)
        return found

    def successes(self, count: Any, sides: Any, faces: tuple, pos) -> tuple[tuple, int]:
        """((successes, ways), ...) of ``count`` dice of ``sides`` faces counting ``faces``, and sides ** count."""
        self.check_dice(count, sides, pos, False)
        hits = len(pools.counted_faces(faces, sides, pos))
        key = ("successes", count, sides, hits)
        memo = self.dice_memo
        if memo is None:
            memo = self.dice_memo = {}
        found = memo.get(key)
        if found is None:  # worked out once a run: 1,000 dice take a millisecond, and a loop may roll them every round
            self.budget.charge(pools.successes_work(count, sides), pos)
            found = memo[key] = (tuple(pools.successes_distribution(count, sides, hits).items()), sides**count)
        return found

    def counted_faces(self, faces: tuple, sides: int, pos) -> frozenset:
        return pools.counted_faces(faces, sides, pos)

    def rerolled(self, kind: str, count: Any, sides: Any, counted: Any, rerolled: Any, once: bool, pos) -> tuple[tuple, int]:
        """((value, ways), ...) of a roll whose dice are each rolled again on the faces ``rerolled`` (once, or until
        another face shows), and the common total: the plain roll counted with each face weighted by its chance on
        one re-rolled die (pools.reroll_face_weights), never as nested rolls.  ``kind`` as for ir.Roll; ``counted``:
        the faces a successes roll counts (None for the others), checked first, as the plain roll checks them."""
        self.check_dice(count, sides, pos, kind == "sum")
        hits = pools.counted_faces(counted, sides, pos) if kind == "successes" else frozenset()
        redo = pools.rerolled_faces(rerolled, sides, once, pos)
        key = ("reroll", kind, count, sides, redo, once, hits)
        memo = self.dice_memo
        if memo is None:
            memo = self.dice_memo = {}
        found = memo.get(key)
        if found is None:
            weights, total = pools.reroll_face_weights(sides, redo, once)
            ways: dict
            if kind == "sum":
                self.budget.charge(sides + pools.weighted_sum_work(count, weights, dice_work(count, sides)), pos)
                ways = pools.weighted_sum_distribution(count, weights, lambda: self.budget.check_clock(pos))
            elif kind == "pool":
                pools.check_pool(count, sides, pos, self.limits)
                self.budget.charge(sides + pools.pool_work(count, sides), pos)
                ways = pools.weighted_pool_distribution(count, weights)
            else:
                self.budget.charge(sides + pools.successes_work(count, total), pos)
                ways = pools.successes_distribution(count, total, sum(weights[face - 1] for face in hits))
            found = memo[key] = (tuple(ways.items()), total**count)
        return found

    def rerolled_draw(self, roll_die: Callable[[int], int], count: int, sides: int, rerolled: Any, once: bool, pos) -> list[int]:
        """One play's faces of ``count`` dice re-rolled on ``rerolled``, drawn from ``roll_die`` (a dice source's
        ``roll``); a die's re-roll is drawn right after it, the order scripted dice are read in.  Until none is
        left, each draw past a die's first two is a unit of the play's work, charged die by die: a d1000 re-rolled
        on 999 faces takes 1,000 draws on average, and the work budget, not luck, bounds a play."""
        redo = pools.rerolled_faces(rerolled, sides, once, pos)
        faces = []
        for _ in range(count):
            face = roll_die(sides)
            if face in redo:
                face = roll_die(sides)
                extra = 0
                while not once and face in redo:
                    extra += 1
                    face = roll_die(sides)
                if extra:
                    self.budget.charge_items(extra, pos)
            faces.append(face)
        return faces

    def rerolled_faces(self, rerolled: Any, sides: int, once: bool, pos) -> frozenset:
        """The faces a compiled play rolls a die again on, checked as :meth:`rerolled_draw` checks them."""
        return pools.rerolled_faces(rerolled, sides, once, pos)

    # ---- procedures -----------------------------------------------------------------

    def pass_memo(self, site: object, states: int, *given: Any) -> dict | None:
        """Where each state went in earlier runs of the pass at ``site`` in this run (engine.frame.PassMemo):
        {state: (accumulator number, key)}, one memo per value of ``given``, the inputs the pass reads; None
        when the pass keeps none.  ``states``: how many states this run of the pass looks up.

        Per run, as its limits are (a state worked out under them).  Inputs are told apart by exact type
        as well (1 and True are equal keys; _memo_shape); a pass given a list of plain values keeps none.
        Every MEMO_TRIAL states a site was asked for, its memos are weighed: dropped for the rest of the
        run (the pass keeps none) when they found fewer than one state in eight of those, for a state met again
        saves its statements, several times what a lookup and an entry cost, but eia's columns_act meets
        only 3% of the states of the pass after column_action again; forgotten (bounded memory) when they
        hold more than PASS_MEMO_ENTRIES states."""
        kinds: Any = ()
        if given:
            kinds = _memo_shape(given)
            if kinds is None:
                return None
        entry = self.pass_memos.get(site)
        if entry is None:
            # its memos by inputs; the states asked for since the last weighing, and how many they held then
            entry = self.pass_memos[site] = [{}, 0, 0]
        memos = entry[0]
        if memos is None:
            return None
        asked = entry[1]
        if asked >= MEMO_TRIAL:
            kept = sum(map(len, memos.values()))
            if 8 * (kept - entry[2]) > 7 * asked:
                entry[0] = None  # nearly every state asked for since the last weighing was new: not worth keeping
                return None
            if kept > PASS_MEMO_ENTRIES:
                memos.clear()
                kept = 0
            asked, entry[2] = 0, kept
        entry[1] = asked + states
        key = (given, kinds)
        memo = memos.get(key)
        if memo is None:
            memo = memos[key] = {}
        return memo

    def _call_memo(self) -> dict:
        """The memo of resolved procedures: the ruleset's own (kept from one call to the next), else one of this run's."""
        memo = self.call_memo = getattr(self.ruleset, "exact_results", None)
        if memo is None:
            memo = self.call_memo = {}
        return memo

    def call_exact(self, name: str, given: dict, pos, depth: int, trusted: frozenset = frozenset()) -> tuple[tuple, int]:
        """((outcome, weight), ...) of a resolved procedure over its denominator, remembered per inputs.

        Remembered for the ruleset, from one API call to the next (the same
        procedure with the same inputs, choices and limits gives the same
        outcomes): the 100 battles of a sweep share their rounds.
        """
        program = self.ruleset.program(name)
        inputs = callee_inputs(program.procedure, given, self.choices, pos, trusted)
        values = program.inputs_tuple(inputs)
        read = self.ruleset.read_inputs(name)
        keyed = inputs.items() if read is None else [(program.input_names[place], values[place]) for place in read]
        key = (name, tuple(sorted(keyed)), self._choices_key(), self.limits)
        return self._remembered(key, name, values, depth)

    def call_exact_direct(self, name: str, values: tuple, depth: int) -> tuple[tuple, int]:
        """:meth:`call_exact` with the callee's inputs tuple built and checked at the call.

        Remembered in the same memo, under a key of its own shape (five parts, the inputs as a tuple in
        the callee's order), so it never meets a key of call_exact's.  A callee that leaves some
        inputs unread is called through :meth:`call_exact_read` instead.
        """
        return self._remembered((name, values, self._choices_key(), self.limits, "tuple"), name, values, depth)

    def call_exact_read(self, name: str, values: tuple, read: tuple, depth: int) -> tuple[tuple, int]:
        """:meth:`call_exact_direct` for a callee that reads only some of its inputs: remembered by
        ``read``, those inputs alone (engine.facts.read_input_places), so that calls differing in
        the others share one entry.  The key has call_exact_direct's shape; its tuple is shorter
        than the callee's inputs, so it never meets one of that method's keys.
        """
        return self._remembered((name, read, self._choices_key(), self.limits, "tuple"), name, values, depth)

    def _choices_key(self) -> tuple:
        """The run's choices as a memo key part, made when first needed."""
        choices = self.choices_key
        if choices is None:
            choices = self.choices_key = tuple(sorted(self.choices.items()))
        return choices

    def _remembered(self, key: tuple, name: str, values: tuple, depth: int) -> tuple[tuple, int]:
        """A resolved procedure's ((outcome, weight), ...) and denominator from the memo, or worked out and kept."""
        memo = self.call_memo
        if memo is None:
            memo = self._call_memo()
        found = memo.get(key)
        if found is None:
            program = self.ruleset.program(name)
            self.budget.charge(CALL_WORK, program.procedure.body.pos)  # a call's own cost, as the evaluator charges it
            weights, denom = program.exact(self, values, depth)
            weights, denom = reduced(weights, denom)
            found = (tuple(program.outcomes(weights).items()), denom)
            remember(memo, key, found, self.limits.memo_entries)
        return found

    def call_play(self, name: str, given: dict, pos, depth: int, roll: Callable, trusted: frozenset = frozenset()) -> OutcomeValue:
        # a call's own cost; charge() also reads the clock every CLOCK_CALLS charges, so a tree of calls
        # cannot run past the timeout
        program = self.ruleset.program(name)
        self.budget.charge(CALL_WORK, pos)
        inputs = callee_inputs(program.procedure, given, self.choices, pos, trusted)
        return program.run_play(self, inputs, roll, depth)

    def call_play_direct(self, name: str, values: tuple, depth: int, roll: Callable, pos=None) -> OutcomeValue:
        """:meth:`call_play` with the callee's inputs tuple built and checked at the call."""
        program = self.ruleset.program(name)
        self.budget.charge(CALL_WORK, program.procedure.body.pos if pos is None else pos)  # as call_play
        return program.outcome(program.play(self, values, roll, depth))


def coerced_input(value: Any, expected, what: str, pos) -> Any:
    """One argument of a resolved procedure coerced to its input's type, as callee_inputs coerces it."""
    try:
        return coerce(value, expected, what)
    except CoercionError as error:
        raise RuleViolation(pos.diagnostic(error.message)) from None


def callee_inputs(callee, given: dict[str, Any], choices: dict[str, str], pos, trusted: frozenset = frozenset()) -> dict[str, Any]:
    """The inputs a resolved procedure receives: given values coerced, defaults and choices filled in.

    ``trusted`` names the given values whose checked type needs no coercion
    (``ir.CallProcedure.trusted``): they are passed as they are.
    """
    inputs = {}
    for spec in callee.inputs:
        name = spec.name
        if name in trusted:  # given at the call
            inputs[name] = given[name]
            continue
        inputs[name] = coerced_input(given.get(name, spec.default), spec.type, f"input '{name}' of {callee.name}", pos)
    for choice in callee.choices:
        option = given.get(choice.name, choices.get(choice.name, choice.default))
        if option not in choice.options:
            raise RuleViolation(pos.diagnostic(f"choice '{choice.name}' of {callee.name} must be one of {', '.join(choice.options)}, not {option!r}"))
        inputs[choice.name] = option
    return inputs


# ---- dice arithmetic ----------------------------------------------------------------


def dice_work(count: int, sides: int) -> int:
    """The work units the evaluator charges to count ``count`` dice: the sum over dice of totals so far plus faces."""
    return count * (1 + sides) + (sides - 1) * count * (count - 1) // 2


def dice_distribution(count: int, sides: int) -> dict[int, int]:
    """Ways to roll each total with ``count`` dice of ``sides`` faces (exact integers).

    The generating polynomial (1 + x + ... + x^(sides-1)) ** count is one big
    integer power when its coefficients fit (each below sides ** count): the
    digits in base 2^bits are the ways.  Otherwise one die at a time, each
    total a sliding window over the last one's.
    """
    if count == 0:
        return {0: 1}
    totals = count * (sides - 1) + 1
    width = (sides**count).bit_length() // 8 + 1  # bytes a coefficient takes, with room to spare
    bits = width * 8
    if totals * bits <= 1 << 22:
        base = 1 << bits
        one = (base**sides - 1) // (base - 1)  # 1 + x + ... + x^(sides-1) at x = 2^bits
        # the digits read from the bytes, each a slice: shifting the whole product for each digit made this
        # quadratic (70d100: 7,000 shifts of a 3-million-bit integer, a second)
        packed = (one**count).to_bytes(totals * width, "little")
        from_bytes = int.from_bytes
        return {count + offset: from_bytes(packed[offset * width:(offset + 1) * width], "little") for offset in range(totals)}
    ways = [1]
    for _ in range(count):
        step, window = [], 0
        for total in range(len(ways) + sides - 1):
            if total < len(ways):
                window += ways[total]
            if total >= sides:
                window -= ways[total - sides]
            step.append(window)
        ways = step
    return {count + offset: n for offset, n in enumerate(ways)}


# ---- expression helpers (each raises the evaluator's own message) ------------------------


def overflow(rt: Run, pos: Pos, left: Any, op: str, right: Any) -> NoReturn:
    raise breach(pos, "max_int_bits", f"{show(left)[:30]} {op} {show(right)[:30]} grows past {rt.limits.max_int_bits} bits")


def divide(pos: Pos, left: int, op: str, right: int) -> int:
    if right == 0:
        raise RuleViolation(pos.diagnostic("division by zero"))
    return left // right if op == "//" else left % right


def field(subject: Any, name: str, pos: Pos) -> Any:
    if type(subject) is Record:
        value = subject._fields.get(name, _MISSING_FIELD)
        if value is not _MISSING_FIELD:
            return value
    elif isinstance(subject, OutcomeValue):
        value = (subject._by_name or subject.fields_by_name()).get(name, _MISSING_FIELD)  # `outcome`: its name
        if value is _MISSING_FIELD:
            raise RuleViolation(pos.diagnostic(f"outcome {subject.name} has no field '{name}'"))
        return value
    elif isinstance(subject, Record) and subject.has(name):  # pragma: no cover - no subclasses today
        return subject.get(name)
    raise RuleViolation(pos.diagnostic(f"{brief(subject)} has no field '{name}'"))


def key_field(positions: tuple[int, ...], names: tuple[str, ...], key: Any, name: str, pos: Pos) -> Any:
    """Field ``name`` of a resolved outcome held as its key (engine.facts.outcome_key_slots): ``positions``
    gives, per outcome number, where the field sits in the key (0: not there), ``names`` each number's name."""
    if type(key) is tuple:
        place = positions[key[0]]
        if place:
            return key[place]
    no_key_field(names, key, name, pos)


def no_key_field(names: tuple[str, ...], key: Any, name: str, pos: Pos) -> NoReturn:
    """The error :func:`field` gives for an outcome without field ``name``, the outcome held as its key."""
    raise RuleViolation(pos.diagnostic(f"outcome {names[key[0] if type(key) is tuple else key]} has no field '{name}'"))


def index(subject: tuple, position: int, pos: Pos) -> Any:
    if not 1 <= position <= len(subject):
        raise RuleViolation(pos.diagnostic(f"index {position} is outside the list (1 to {len(subject)})"))
    return subject[position - 1]


def counted(rt: Run, collection: tuple, pos: Pos) -> tuple:
    """An aggregate's list, its length charged as work (as the evaluator does; Budget.charge_items in place:
    a play walks hundreds of lists)."""
    budget = rt.budget
    work = budget.work = budget.work + len(collection)
    if work >= budget.next_clock_check or work - budget.play_start > budget.work_cap:
        budget.checkpoint(pos)
    return collection


def counted_range(rt: Run, low: int, high: int, range_pos: Pos, pos: Pos) -> range:
    """``counted(rt, make_range(rt, low, high, range_pos), pos)`` without making the list: what an aggregate
    over a range walks in a play (the same checks and charges, in the same order)."""
    size = high - low + 1
    if size > rt.limits.max_value_items:
        raise breach(range_pos, "max_value_items", f"range {low} .. {high} would hold more than {rt.limits.max_value_items:,} items")
    budget, items = rt.budget, max(0, size)
    # make_range's charge_items, then counted's charge, both in place (an aggregate over a range in every play)
    work = budget.work = budget.work + items
    if work >= budget.next_clock_check or work - budget.play_start > budget.work_cap:
        budget.checkpoint(range_pos)
    work = budget.work = budget.work + items
    if work >= budget.next_clock_check or work - budget.play_start > budget.work_cap:
        budget.checkpoint(pos)
    return range(low, high + 1)


def _function_run(name: str) -> Callable[..., Any]:
    """The run of built-in function ``name`` (every built-in but dice has one)."""
    run = FUNCTIONS[name].run
    if run is None:  # pragma: no cover - dice only
        raise AssertionError(f"built-in {name} has no run")
    return run


_with_field = _function_run("with_field")
# Plain field values whose with_field results a play remembers (equal values of one type are interchangeable).
_PLAIN_FIELD_VALUES = frozenset((int, bool, str))
# States a pass's memos are asked for between two weighings (Run.pass_memo): kept when they found one in
# eight, forgotten all at once past PASS_MEMO_ENTRIES states.
MEMO_TRIAL = 8192
PASS_MEMO_ENTRIES = 1 << 16
# Remembered with_field results per run, at most (then forgotten all at once: bounded memory, only slower).
CHANGED_RECORDS = 4096
# Kinds of input a pass's memo is kept by: equal only when the same (with the type in the key), hashed in one step.
_MEMO_KEY_KINDS = frozenset((int, bool, str, Record, OutcomeValue))
_IDENTICAL_ITEMS = frozenset((str, Record, OutcomeValue))


def _memo_shape(given: tuple) -> tuple | None:
    """The exact types of the inputs a pass reads, for its memo's key (1 and True are equal keys, but a
    state may go elsewhere for each); None for a list of plain values ([1] equals [True])."""
    kinds = tuple(map(type, given))
    if _MEMO_KEY_KINDS.issuperset(kinds):
        return kinds
    identical = _IDENTICAL_ITEMS.issuperset
    for value, kind in zip(given, kinds):
        if kind is tuple:
            # a list of records, outcomes or text, or of such lists (a side's columns): equal only when the same
            if not identical(map(type, value)) and not all(type(item) is tuple and identical(map(type, item)) for item in value):
                return None
        elif kind not in _MEMO_KEY_KINDS:
            return None
    return kinds


def changed_record(rt: Run, pos: Pos, record: Any, name: str, value: Any) -> Any:
    """``with_field(record, name, value)`` in compiled code (plays and exact odds), remembered per run for a plain
    value: records are interned (values.Record), so the record with one field changed is the same object every
    time, and a battle changes the same few fields of the same ships to the same few values hundreds of times a
    play (exact day_battleships: 1.3 million with_field calls, 35.0 -> 28.7 s with the memo and Record._fields
    made with the record).  A result taken from the memo is charged as with_field charges it
    (``Budget.check_value``: its size, and the big-value mark); it was within the run's limits when made."""
    kind = type(value)
    if type(record) is not Record or kind not in _PLAIN_FIELD_VALUES:
        return _with_field(rt, pos, record, name, value)
    key = (record, name, value, kind)  # the type too: 1 and True are equal keys
    memo = rt.changed_records
    made = memo.get(key)
    if made is None:
        made = _with_field(rt, pos, record, name, value)  # an error (no such field) is never remembered
        if len(memo) >= CHANGED_RECORDS:
            memo.clear()
        memo[key] = made
        return made
    # check_value's charge (Budget.charge_measured) in place: the record was within this run's limits when made, and is
    # again; a play of fifteen_a_side takes about 90 records from here
    items = (made._measure or made._measured())[0]
    budget = rt.budget
    if items >= BIG_VALUE_ITEMS and items > budget.big_state:
        budget.big_state = items
    work = budget.work = budget.work + items
    if work >= budget.next_clock_check or work - budget.play_start > budget.work_cap:
        budget.checkpoint(pos)
    return made


def make_range(rt: Run, low: int, high: int, pos: Pos) -> tuple:
    if high - low + 1 > rt.limits.max_value_items:
        raise breach(pos, "max_value_items", f"range {low} .. {high} would hold more than {rt.limits.max_value_items:,} items")
    rt.budget.charge_items(max(high - low + 1, 0), pos)
    return tuple(range(low, high + 1))


def range_size(rt: Run, low: int, high: int, pos: Pos) -> int:
    """What ``make_range`` checks and charges, for a loop that runs over the range without making it."""
    size = high - low + 1
    if size > rt.limits.max_value_items:
        raise breach(pos, "max_value_items", f"range {low} .. {high} would hold more than {rt.limits.max_value_items:,} items")
    rt.budget.charge(max(size, 0), pos)
    return size


def make_guard(pos: Pos, expected: tuple[Type, ...], what: str) -> Callable[[Any], Any]:
    """A check of a value whose type the checker could not know (ir.Guard)."""

    def guard(value: Any) -> Any:
        for option in expected:
            if conforms(value, option):
                return value
        wrong_type(pos, value, expected, what)

    return guard


def wrong_type(pos: Pos, value: Any, expected: tuple[Type, ...], what: str) -> NoReturn:
    """A value the checker could not type turned out not to be any of ``expected`` (ir.Guard)."""
    wanted = " or ".join(option.describe() for option in expected)
    raise RulesetError(pos.diagnostic(
        f"{what} must be {wanted}, but here it is {kind_of_value(value)} ({brief(value)}); "
        "the checker could not know this value's type"
    ))


def violated(pos: Pos, message: str) -> NoReturn:
    raise RuleViolation(pos.diagnostic(f"rule violated: {message}"))


def not_a_list(pos: Pos, value: Any) -> NoReturn:
    raise RuleViolation(pos.diagnostic(f"`for` needs a list, not {brief(value)}"))


def negative_limit(pos: Pos, limit: int) -> NoReturn:
    raise RuleViolation(pos.diagnostic(f"a `while` limit must be 0 or more, not {limit}"))


def past_limit(pos: Pos, limit: int) -> NoReturn:
    raise LimitExceeded(pos.diagnostic(f"`while` loop ran past its limit of {limit} rounds"))


def too_deep(rt: Run, pos: Pos) -> NoReturn:
    raise breach(pos, "max_call_depth", f"procedures nest deeper than {rt.limits.max_call_depth} calls")


def off_table(table: Any, pos: Pos, message: str) -> NoReturn:
    raise RuleViolation(pos.diagnostic(f"{table.title}: {message}"))


_MISSING_FIELD = Record.MISSING


def _fast_fraction(numerator: int, denominator: int) -> Fraction:
    """``Fraction(numerator, denominator)`` for integers with a positive denominator.

    Made without Fraction's argument parsing (a tenth of its cost): the
    numerator and denominator are reduced here and set on a new instance.
    Checked when this module loads; plain ``Fraction(...)`` otherwise.
    """
    divisor = math.gcd(numerator, denominator)
    made = _new_fraction(Fraction)
    # Fraction's own private slots, set as its constructor sets them (the shortcut is checked below)
    made._numerator = numerator // divisor  # type: ignore[attr-defined]
    made._denominator = denominator // divisor  # type: ignore[attr-defined]
    return made


_new_fraction = object.__new__


def _fraction_shortcut_works() -> bool:
    try:
        probes = [(3, 6), (0, 5), (-4, 6), (10**30, 3 * 10**30), (7, 1)]
        return all(
            _fast_fraction(n, d) == Fraction(n, d) and hash(_fast_fraction(n, d)) == hash(Fraction(n, d)) and str(_fast_fraction(n, d)) == str(Fraction(n, d))
            for n, d in probes
        )
    except (AttributeError, TypeError, ValueError):  # pragma: no cover - a Python whose Fraction keeps other fields
        return False


fraction = _fast_fraction if _fraction_shortcut_works() else Fraction
