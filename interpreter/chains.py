"""`while` loops in exact odds, solved as Markov chains.

A loop's state is the tuple of the variables live at its head.  One round
of the loop takes a state to a distribution over next states, outcomes that
end the procedure, and states that leave the loop (the condition failed, or
a `break`).  That round depends on the state alone, so it is computed once
per distinct state (a :class:`Round`, memoised) however many times and in
however many rounds the state is reached.  Both back ends use this module:
the reference evaluator and the compiled code differ only in how they
compute one round.

Two kinds of loop:

* ``while COND do ... end`` runs until the condition fails, a fight to the
  finish.  :func:`solve_until` explores every state the loop can reach,
  orders them by Tarjan's strongly connected components, and pushes the
  probability mass through them once, in dependency order: a state that a
  round can leave unchanged keeps probability p_stay and sends the rest on
  scaled by 1 / (1 - p_stay) (the geometric series, summed exactly); states
  that can cycle among themselves are solved as a linear system, exactly
  while there are at most ``MAX_EXACT_CYCLE`` of them, and otherwise
  iterated until the work budget says stop, the mass still cycling then
  reported as truncated.  A set of states the loop can never leave is an
  error at the loop.

* ``while COND limit N do ... end`` runs at most N rounds (a rule: "at most
  two rounds").  :func:`solve_limited` advances every state a round at a
  time, reusing each state's memoised round, and drops the mass still
  looping at the bound (reported as truncated, as before).

Weights are integers over a denominator (as everywhere in exact odds); the
chain solve carries one exact mass per state, a reduced (numerator, denominator)
pair (Fractions only inside the linear solve of a cycle).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from math import gcd
from typing import NamedTuple

from . import ir
from .errors import RuleViolation
from .limits import STATEMENT_WORK, LimitExceeded

# States that cycle among themselves (other than a round that changes nothing) are solved
# exactly by Gaussian elimination on Fractions up to this many at once (cubic work).
MAX_EXACT_CYCLE = 60


class Round(NamedTuple):
    """What one round of a loop does to one state, all weights over ``denom``.

    ``looping`` is False when the condition failed at the head: the state
    leaves the loop without running the body (``exits`` holds it).
    ``limit`` is the state's bound on rounds (None: until the condition fails).
    """

    looping: bool
    limit: int | None
    states: dict  # next head state -> weight
    finished: dict  # outcome key -> weight (an outcome inside the body ends the procedure)
    exits: dict  # state after the loop -> weight (condition failed, or `break`)
    denom: int


def make_round(looping: bool, limit, states: dict, states_denom: int, finished: dict, finished_denom: int, exits: dict, exits_denom: int) -> Round:
    """A Round from three weight maps with denominators of their own."""
    common = states_denom
    for weights, denom in ((finished, finished_denom), (exits, exits_denom)):
        if weights and denom != common:
            common = math.lcm(common, denom)
    return Round(
        looping, limit,
        _scaled(states, common // states_denom),
        _scaled(finished, common // finished_denom) if finished else {},
        _scaled(exits, common // exits_denom) if exits else {},
        common,
    )


def _scaled(weights: dict, factor: int) -> dict:
    return weights if factor == 1 else {key: w * factor for key, w in weights.items()}


# ---- totals taken out of the chain --------------------------------------------------------


def accumulated(loop: ir.WhileLoop) -> frozenset[int]:
    """The slots ``loop`` only adds to: totals its rounds need not be run for.

    A slot qualifies when the body assigns it exactly once, ``set v = v + e``
    (``e`` not reading ``v``), outside any loop nested in the body, and reads
    it nowhere else (not in the condition, the limit or any other statement).
    A round from a state then does the same whatever ``v`` holds, except that
    ``v`` leaves it increased by ``e`` (by 0 on a path that does not assign
    it): the round from the state with ``v`` = 0, shifted (:func:`lifted`).
    Lost ships counted round by round (eia's ``battle``) are such totals:
    without this every distinct running total ran the body again.
    """
    reads: dict[int, int] = {}
    for node in ir.walk(loop.condition, *loop.body.statements, *((loop.limit,) if loop.limit is not None else ())):
        if type(node) is ir.Local:
            reads[node.slot] = reads.get(node.slot, 0) + 1
    written: dict[int, int] = {}
    candidates: set[int] = set()
    _written_slots(loop.body, written, candidates, nested=False)
    return frozenset(slot for slot in candidates if written.get(slot) == 1 and reads.get(slot) == 1)


def _written_slots(block: ir.Block, written: dict[int, int], candidates: set[int], nested: bool) -> None:
    """Count every slot the statements of ``block`` write; ``candidates`` gets the slots of
    ``set v = v + e`` (e not reading v) outside nested loops."""
    for statement in block.statements:
        slots: tuple[int, ...] = ()
        if isinstance(statement, (ir.Assign, ir.Roll, ir.CallProcedure)):
            slots = (statement.slot,)
        elif isinstance(statement, ir.ForLoop):
            slots = (statement.var_slot, statement.sequence_slot, statement.index_slot)
        elif isinstance(statement, ir.WhileLoop):
            slots = (statement.count_slot, statement.limit_slot)
        for slot in slots:
            written[slot] = written.get(slot, 0) + 1
        if isinstance(statement, ir.Assign) and not nested and _adds_to_itself(statement):
            candidates.add(statement.slot)
        inner = nested or isinstance(statement, (ir.ForLoop, ir.WhileLoop))
        for child in ir.statement_blocks(statement):
            _written_slots(child, written, candidates, inner)


def _adds_to_itself(statement: ir.Assign) -> bool:
    """``set v = v + e`` with ``e`` not reading ``v`` (integer addition: the checker types ``+``'s operands as int)."""
    value = statement.value
    if type(value) is not ir.Arithmetic or value.op != "+":
        return False
    left = value.left
    if type(left) is not ir.Local or left.slot != statement.slot:
        return False
    return not any(type(node) is ir.Local and node.slot == statement.slot for node in ir.walk(value.right))


class Totals(NamedTuple):
    """Where a loop's totals (:func:`accumulated`) sit in its states.

    ``head``: their places in a state at the loop's head; ``exits``: in a state
    after the loop (None where the total is not kept there).  ``head_width`` /
    ``exit_width``: 1 when such a state is the one variable's value itself
    (compiled code), else 0 (a tuple however many it holds).
    """

    head: tuple[int, ...]
    exits: tuple[int | None, ...]
    head_width: int
    exit_width: int


def lifted(round_of: Callable[[object], Round], totals: Totals, low: int, high: int) -> Callable[[object], Round]:
    """``round_of`` for states that differ only in their totals, computed once for all of them.

    The round from a state is the round from the same state with every total
    0 (computed once, memoised here), its next states and exits shifted by the
    state's totals: the same keys, weights and denominator the body would give,
    so the chain and every result are unchanged.  A state whose totals are not
    all ints, or whose shifted totals leave [low, high] (the body would report
    the overflow), or whose zeroed round fails, runs the body itself.
    """
    base_rounds: dict = {}
    head = totals.head
    single_head = totals.head_width == 1

    # totals side by side (eia's battle: four of them): read and zeroed by slicing
    side_by_side = bool(head) and head == tuple(range(head[0], head[0] + len(head)))
    start, end = (head[0], head[0] + len(head)) if side_by_side else (0, 0)
    zeros = (0,) * len(head)

    def round_from(state: object) -> Round:
        values = (state,) if single_head else state
        assert isinstance(values, tuple)
        amounts = values[start:end] if side_by_side else tuple([values[place] for place in head])
        if not _INTS.issuperset(map(type, amounts)):
            return round_of(state)
        if single_head:
            base_state: object = 0
        elif side_by_side:
            base_state = values[:start] + zeros + values[end:]
        else:
            zeroed = list(values)
            for place in head:
                zeroed[place] = 0
            base_state = tuple(zeroed)
        base = base_rounds.get(base_state)
        if base is None:
            try:
                base = base_rounds[base_state] = round_of(base_state)
            except LimitExceeded:  # e.g. 0 + e past max_int_bits where v + e is not: the state's own round says
                return round_of(state)
        if not any(amounts):
            return base
        shifted = _shifted(base, amounts, totals, low, high)
        return shifted if shifted is not None else round_of(state)

    return round_from


_INTS = frozenset((int,))  # the exact type a total must have to be shifted (any other value, a bool too, runs the body)


def _shifted(base: Round, amounts: tuple[int, ...], totals: Totals, low: int, high: int) -> Round | None:
    """``base`` with every next state and exit increased by ``amounts`` (None: a total past [low, high])."""
    states = _shift_keys(base.states, totals.head, totals.head_width, amounts, low, high)
    exits = _shift_keys(base.exits, totals.exits, totals.exit_width, amounts, low, high)
    if states is None or exits is None:
        return None
    return Round(base.looping, base.limit, states, base.finished, exits, base.denom)


def _shift_keys(weights: dict, places: tuple[int | None, ...], width: int, amounts: tuple[int, ...], low: int, high: int) -> dict | None:
    kept = [(place, amount) for place, amount in zip(places, amounts) if place is not None and amount]
    if not kept:
        return weights
    shifted: dict = {}
    for key, weight in weights.items():
        values = [key] if width == 1 else list(key)
        for place, amount in kept:
            total = values[place] + amount
            if total > high or total < low:
                return None
            values[place] = total
        shifted[values[0] if width == 1 else tuple(values)] = weight
    return shifted


class Chain:
    """One loop's rounds, memoised per state for the length of one solve."""

    __slots__ = ("budget", "memo", "pos", "round_of")

    def __init__(self, round_of: Callable[[object], Round], budget, pos):
        self.round_of = round_of
        self.budget = budget  # charged for every round computed; bounds the states held (max_states)
        self.pos = pos  # the loop's position, for errors
        self.memo: dict = {}

    def round(self, state) -> Round:
        found = self.memo.get(state)
        if found is None:
            self.budget.check_states(len(self.memo) + 1, self.pos)
            found = self.memo[state] = self.round_of(state)
            self.budget.charge(STATEMENT_WORK + len(found.states) + len(found.finished) + len(found.exits), self.pos)
        return found


# ---- at most N rounds -------------------------------------------------------------------


def solve_limited(chain: Chain, start: dict, denom: int) -> tuple[dict, dict, int]:
    """(outcomes, exits, denominator) of a bounded loop; the mass looping at its bound is dropped."""
    finished: dict = {}
    exits: dict = {}
    out_denom = denom  # finished and exits are kept over this denominator
    current, current_denom = start, denom
    rounds = 0
    while current:
        advancing = []
        common = 1
        leaving: dict = {}
        for state, weight in current.items():
            step = chain.round(state)
            if not step.looping:
                for key, w in step.exits.items():  # weight 1 of 1: the state as it leaves
                    leaving[key] = leaving.get(key, 0) + weight * w
            elif step.limit is not None and rounds < step.limit:  # a bounded loop's rounds all carry their limit
                advancing.append((weight, step))
                if step.denom != common:
                    common = math.lcm(common, step.denom)
            # else: still looping at its bound: dropped (truncated)
        out_denom = _absorb(exits, finished, out_denom, leaving, None, current_denom)
        if not advancing:
            break
        chain.budget.charge(len(advancing) * STATEMENT_WORK, chain.pos)  # a round's own bookkeeping
        after: dict = {}
        ended: dict = {}
        left: dict = {}
        for weight, step in advancing:
            scale = weight * (common // step.denom)
            for key, w in step.states.items():
                after[key] = after.get(key, 0) + w * scale
            for key, w in step.finished.items():
                ended[key] = ended.get(key, 0) + w * scale
            for key, w in step.exits.items():
                left[key] = left.get(key, 0) + w * scale
        current_denom *= common
        out_denom = _absorb(exits, finished, out_denom, left, ended, current_denom)
        current = after
        rounds += 1
    return finished, exits, out_denom


def _absorb(exits: dict, finished: dict, denom: int, new_exits: dict, new_finished: dict | None, new_denom: int) -> int:
    """Add weights over ``new_denom`` into ``exits``/``finished`` (over ``denom``); the new common denominator."""
    if not new_exits and not new_finished:
        return denom
    common = math.lcm(denom, new_denom)
    if common != denom:
        scale = common // denom
        for target in (exits, finished):
            for key in target:
                target[key] *= scale
    scale = common // new_denom
    for target, new in ((exits, new_exits), (finished, new_finished or {})):
        for key, w in new.items():
            target[key] = target.get(key, 0) + w * scale
    return common


# ---- until the condition fails ----------------------------------------------------------


def solve_until(chain: Chain, start: dict, denom: int, describe: Callable[[object], str]) -> tuple[dict, dict, int]:
    """(outcomes, exits, denominator) of a loop run until its condition fails, exactly.

    ``describe(state)`` names a state in the error for a loop that can never end.
    The result is exact unless more than ``MAX_EXACT_CYCLE`` states cycle
    among themselves: then a remainder of at most 2**-64 of their mass is dropped
    and shows as truncated.
    """
    order = _components(chain, start)
    mass: dict = {state: _ratio(weight, denom) for state, weight in start.items()}
    finished: dict = {}
    exits: dict = {}
    for component in order:
        if len(component) == 1:
            state = component[0]
            incoming = mass.pop(state, None)
            if incoming is None or not incoming[0]:
                continue
            step = chain.memo[state]
            if not step.looping:
                _add(exits, step.exits, incoming)
                continue
            stay = step.states.get(state, 0)
            if stay == step.denom:
                _never_ends(chain, describe, state)
            # the geometric series over rounds that change nothing: incoming / (denom - stay), still reduced
            numerator, denominator = incoming
            leaving = step.denom - stay
            divisor = gcd(numerator, leaving)
            share = (numerator // divisor, denominator * (leaving // divisor)) if divisor != 1 else (numerator, denominator * leaving)
            _spread(step, share, mass, finished, exits, skip=state)
            continue
        _solve_cycle(chain, component, mass, finished, exits, describe)
    return _to_weights(finished, exits)


# A probability mass in the solve: (numerator, denominator), reduced, the denominator positive.  Plain
# integers, not Fractions: the solve adds a share to a state hundreds of thousands of times, and
# Fraction's arithmetic (written in Python, through its operator dispatch) cost several times the
# few integer operations and gcds below, which give the same reduced values.
Ratio = tuple[int, int]


def _ratio(numerator: int, denominator: int) -> Ratio:
    divisor = gcd(numerator, denominator)
    return (numerator // divisor, denominator // divisor) if divisor > 1 else (numerator, denominator)


_NO_KEY = object()  # _add's skip when no key is skipped (no state or outcome key is this object)


def _spread(step: Round, share: Ratio, mass: dict, finished: dict, exits: dict, skip=_NO_KEY) -> None:
    _add(mass, step.states, share, skip)
    _add(finished, step.finished, share)
    _add(exits, step.exits, share)


def _add(target: dict, weights: dict, share: Ratio, skip: object = _NO_KEY) -> None:
    """``target[key] += share * w`` for every ``key: w`` of ``weights`` but ``skip``, every mass kept reduced
    (Fraction's own steps: the gcd of the denominators first, so that the numbers stay as small as the
    fractions they stand for).  Written out in one loop, not a call per key: the solve makes hundreds of
    thousands of these additions (eia 3 v 3: 173,000), and a call each cost about a tenth of them."""
    numerator, denominator = share
    get = target.get
    for key, w in weights.items():
        if skip is not _NO_KEY and key == skip:
            continue
        if w == 1:
            n, m = numerator, denominator
        else:
            divisor = gcd(w, denominator)  # share is reduced: only w and the denominator can share a factor
            if divisor == 1:
                n, m = numerator * w, denominator
            else:
                n, m = numerator * (w // divisor), denominator // divisor
        old = get(key)
        if old is None:
            target[key] = (n, m)
            continue
        old_numerator, old_denominator = old
        divisor = gcd(old_denominator, m)
        if divisor == 1:
            target[key] = (old_numerator * m + n * old_denominator, old_denominator * m)
            continue
        scale = old_denominator // divisor
        total = old_numerator * (m // divisor) + n * scale
        common = gcd(total, divisor)
        if common == 1:
            target[key] = (total, scale * m)
        else:
            target[key] = (total // common, scale * (m // common))


def _never_ends(chain: Chain, describe, state) -> None:
    raise RuleViolation(chain.pos.diagnostic(
        f"this `while` loop can never end: from {describe(state)} every round leads back to states where "
        "its condition still holds; make the body change what the condition reads, or bound it with `limit N`"
    ))


def _components(chain: Chain, start: dict) -> list:
    """Every state the loop reaches, as strongly connected components in dependency order (sources first).

    Tarjan's algorithm without recursion; it emits components sinks first.
    """
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    emitted: list = []
    counter = 0
    for root in start:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(chain.round(root).states))]
        while work:
            state, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(chain.round(successor).states)))
                    advanced = True
                    break
                if successor in on_stack and index[successor] < low[state]:
                    low[state] = index[successor]
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[state])
            if low[state] == index[state]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == state:
                        break
                emitted.append(component)
    emitted.reverse()
    return emitted


def _solve_cycle(chain: Chain, component: list, mass: dict, finished: dict, exits: dict, describe) -> None:
    """States that can reach each other: the expected visits x solve x = m + x·P inside the component."""
    inside = {state: number for number, state in enumerate(component)}
    incoming = [Fraction(*mass.pop(state, (0, 1))) for state in component]
    if not any(incoming):
        return
    steps = [chain.memo[state] for state in component]
    closed = all(
        step.looping and not step.finished and not step.exits and all(key in inside for key in step.states)
        for step in steps
    )
    if closed:
        _never_ends(chain, describe, component[0])
    if len(component) <= MAX_EXACT_CYCLE:
        visits = _linear_solve(chain, steps, inside, incoming)
    else:
        visits = _iterate_cycle(chain, steps, inside, incoming)
    for state, step, x in zip(component, steps, visits):
        if not x:
            continue
        visits_share = x / step.denom
        share = (visits_share.numerator, visits_share.denominator)
        _add(mass, {key: w for key, w in step.states.items() if key not in inside}, share)
        _add(finished, step.finished, share)
        _add(exits, step.exits, share)


def _linear_solve(chain: Chain, steps: list, inside: dict, incoming: list) -> list:
    """x (I - P) = m, by Gauss-Jordan elimination on exact fractions (the transposed system)."""
    size = len(steps)
    chain.budget.charge(size * size * size, chain.pos)
    # row i of the transposed system: x_i - sum_j P[j][i] x_j = m_i
    rows = [[Fraction(0)] * size + [Fraction(incoming[i])] for i in range(size)]
    for i in range(size):
        rows[i][i] += 1
    for j, step in enumerate(steps):
        for key, w in step.states.items():
            row = inside.get(key)
            if row is not None:
                rows[row][j] -= Fraction(w, step.denom)
    for column in range(size):
        pivot = next(r for r in range(column, size) if rows[r][column])
        rows[column], rows[pivot] = rows[pivot], rows[column]
        head = rows[column]
        inverse = 1 / head[column]
        for c in range(column, size + 1):
            head[c] *= inverse
        for r in range(size):
            if r != column and rows[r][column]:
                factor = rows[r][column]
                row = rows[r]
                for c in range(column, size + 1):
                    if head[c]:
                        row[c] -= factor * head[c]
    return [rows[i][size] for i in range(size)]


def _iterate_cycle(chain: Chain, steps: list, inside: dict, incoming: list) -> list:
    """Visits by pushing the mass round the cycle, sweep after sweep (each charged to the budget),
    until what still cycles is at most 2**-64 of what came in; that remainder is dropped (truncated)."""
    visits = [Fraction(0)] * len(steps)
    pending = list(incoming)
    negligible = sum(incoming) / 2**64
    budget, pos = chain.budget, chain.pos
    # what a state's sweep costs before the size of its fractions: two Fraction operations for its own bookkeeping
    # (its share divided out, its visits added) and two for each transition (multiplied, added), each about 5
    # microseconds, a statement's work (measured: about 30 microseconds a state of two transitions a sweep)
    moves = [2 * STATEMENT_WORK * (1 + len(step.states)) for step in steps]
    while sum(pending) > negligible:
        budget.charge(len(steps) * STATEMENT_WORK, pos)
        moved = [Fraction(0)] * len(steps)
        for j, (step, amount) in enumerate(zip(steps, pending)):
            if not amount:
                continue
            # the masses' denominators grow sweep after sweep: a fraction of many words costs more to add
            budget.charge(moves[j] * (1 + (amount.denominator.bit_length() >> 8)), pos)
            visits[j] += amount
            share = amount / step.denom
            for key, w in step.states.items():
                i = inside.get(key)
                if i is not None:
                    moved[i] += share * w
        pending = moved
    return visits


def _to_weights(finished: dict, exits: dict) -> tuple[dict, dict, int]:
    """The masses (reduced numerator, denominator) as integer weights over their least common denominator."""
    common = 1
    for target in (finished, exits):
        for _, denominator in target.values():
            if common % denominator:
                common = math.lcm(common, denominator)
    def weights(target):
        return {key: numerator * (common // denominator) for key, (numerator, denominator) in target.items() if numerator}
    return weights(finished), weights(exits), common
