"""A hand-written exact solver of eia `battle` under the default choices: the exact reference.

Issue 24 compares wartable's exact odds of `battle` (3 v 3 ships of the line) with "an
equally exact hand Fraction solver".  This is that solver: the same rules as
hand_battle.py (which holds the tables and constants, copied from rulesdata/eia.yaml),
every die face weighed with a ``Fraction``, each piece memoised on its inputs (a shot's
odds per modifier, a volley, a column exchange, one round's column actions), and the
battle's round loop solved as a Markov chain as wartable solves it: every head state the
loop can reach is found once, the states are ordered by their strongly connected
components (Tarjan), and the probability mass is pushed through them once in dependency
order, a round that leaves the state unchanged summed as a geometric series (divided by
1 - p_stay) and states that cycle among themselves (a carrying ship that reloads and
cannot fire toggles its fired flag) solved as a linear system on Fractions.

It imports nothing from wartable.  tests/test_hand_reference.py compares it with
``wartable odds`` fraction for fraction on small battles; benchmarks/eia_battle/run.py on 3 v 3.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # run or imported as a script beside hand_battle.py
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from hand_battle import (  # a sibling script, not a package
    CAPTURED,
    DAMAGE_RESULT,
    DAMAGED,
    END_OF_COMBAT_RESULT,
    FIT,
    PROTECT_OWN_BONUS,
    ROLL_ON_BONUS,
    ROLL_ON_FACE,
    ROLL_ON_LIMIT,
    SINK_RESULT,
    SUNK,
    Column,
    Setup,
    after_hit,
    count,
    destroyed,
    final,
    shot_modifier,
)
from hand_battle import _reload as reload_column

SIXTH = Fraction(1, 6)
Columns = tuple[Column, ...]
Flags = tuple[bool, ...]
Dist = dict[Any, Fraction]


def add(dist: Dist, key: Any, p: Fraction) -> None:
    """Merge ``p`` into ``dist[key]``: equal states are one state."""
    dist[key] = dist.get(key, 0) + p


def shot_odds(modifier: int) -> tuple[tuple[int, Fraction], ...]:
    """shot's exact odds for a modifier: (SUNK | DAMAGED | FIT, probability) with the roll-on after a natural 6."""
    odds: Dist = {}

    def settle(result: int, p: Fraction, natural_six: bool, rolls_on: int) -> None:
        if natural_six and result < SINK_RESULT and rolls_on < ROLL_ON_LIMIT:
            for face in range(1, 7):
                settle(result + ROLL_ON_BONUS[face], p * SIXTH, face == 6, rolls_on + 1)
            return
        add(odds, SUNK if result >= SINK_RESULT else DAMAGED if result == DAMAGE_RESULT else FIT, p)

    for die in range(1, 7):
        settle(modifier + die, SIXTH, die == ROLL_ON_FACE, 0)
    return tuple((r, p) for r, p in odds.items() if p)


def contest_odds(a_bonus: int, b_bonus: int) -> tuple[Fraction, Fraction, Fraction]:
    """Two d6 rolls plus bonuses: P(a higher), P(b higher), P(tie)."""
    a = b = tie = 0
    for x in range(1, 7):
        for y in range(1, 7):
            if x + a_bonus > y + b_bonus:
                a += 1
            elif y + b_bonus > x + a_bonus:
                b += 1
            else:
                tie += 1
    return Fraction(a, 36), Fraction(b, 36), Fraction(tie, 36)


class Solver:
    """Exact odds of one situation's battle; the memo tables live and die with the solver."""

    def __init__(self, setup: Setup):
        self.setup = setup
        self.shots: dict[int, tuple[tuple[int, Fraction], ...]] = {}
        self.volleys: dict[tuple[Column, Column, bool], Dist] = {}
        self.exchanges: dict[tuple, Dist] = {}
        self.rounds: dict[tuple, Dist] = {}
        self.templates: dict[tuple, tuple[Dist, Dist]] = {}
        self.values: dict[tuple, tuple[Dist, Dist]] = {}  # head state -> its round: (ends, next states)

    # ---- the pieces ---------------------------------------------------------------------------

    def shot(self, modifier: int) -> tuple[tuple[int, Fraction], ...]:
        odds = self.shots.get(modifier)
        if odds is None:
            odds = self.shots[modifier] = shot_odds(modifier)
        return odds

    def volley(self, shooters: Column, targets: Column, barred: bool) -> Dist:
        """volley: {(targets after the fire, shooters marked): probability}."""
        key = (shooters, targets, barred)
        known = self.volleys.get(key)
        if known is not None:
            return known
        own = [i for i, s in enumerate(shooters) if s[2] < SUNK]
        enemy = [j for j, t in enumerate(targets) if t[2] < SUNK]
        pairs = min(len(own), len(enemy))
        states: Dist = {(targets, shooters, ()): Fraction(1)}
        for k, i in enumerate(own):
            ship = shooters[i]
            if ship[2] != FIT or (barred and ship[3]):
                continue
            fired = (ship[0], ship[1], ship[2], True)
            following: Dist = {}
            for (hit, marked, fired_upon), p in states.items():
                aim = enemy[k] if k < pairs else self.free_aim(hit, fired_upon, ship[1])
                if aim < 0:
                    add(following, (hit, marked, fired_upon), p)
                    continue
                now_marked = marked[:i] + (fired,) + marked[i + 1:]
                target = hit[aim]
                for effect, q in self.shot(shot_modifier(ship, target[0])):
                    after = after_hit(target, effect)
                    add(following, (hit[:aim] + (after,) + hit[aim + 1:], now_marked, (*fired_upon, aim)), p * q)
            states = following
        result: Dist = {}
        for (hit, marked, _), p in states.items():
            add(result, (hit, marked), p)
        self.volleys[key] = result
        return result

    @staticmethod
    def free_aim(hit: Column, fired_upon: tuple[int, ...], carrying: bool) -> int:
        """An extra ship's target: the first afloat not yet fired upon, else (not carrying) the first afloat; -1: none."""
        for j, t in enumerate(hit):
            if t[2] < SUNK and j not in fired_upon:
                return j
        if not carrying:
            for j, t in enumerate(hit):
                if t[2] < SUNK:
                    return j
        return -1

    def exchange(self, attacker: Column, defender: Column, a_rating: int, d_rating: int,
                 protects_own: bool, attacked_before: bool) -> Dist:
        """column_exchange (first-strike intent): {(attacker after, defender after): probability}."""
        key = (attacker, defender, a_rating, d_rating, protects_own, attacked_before)
        known = self.exchanges.get(key)
        if known is not None:
            return known
        defending: Dist = {defender: Fraction(1)}
        if attacked_before:
            success = Fraction(max(0, min(6, d_rating)), 6)  # reload_roll: 1d6 at or below the rating
            defending = {}
            if success:
                add(defending, reload_column(defender), success)
            if success != 1:
                add(defending, defender, 1 - success)
        first, second, tie = contest_odds(a_rating, d_rating + (PROTECT_OWN_BONUS if protects_own else 0))
        result: Dist = {}
        for column, p in defending.items():
            if first:
                for (hit, marked), q in self.volley(attacker, column, False).items():
                    for back, r in self.volley(hit, marked, attacked_before).items():
                        add(result, back, p * first * q * r)
            if second:
                for (hit, marked), q in self.volley(column, attacker, attacked_before).items():
                    for (hit_back, marked_back), r in self.volley(hit, marked, False).items():
                        add(result, (marked_back, hit_back), p * second * q * r)
            if tie:
                defence = self.volley(column, attacker, attacked_before)
                for (d_hit, a_marked), q in self.volley(attacker, column, False).items():
                    for (a_hit, d_marked), r in defence.items():
                        merged = (tuple((s[0], s[1], s[2], m[3]) for s, m in zip(a_hit, a_marked)),
                                  tuple((s[0], s[1], s[2], m[3]) for s, m in zip(d_hit, d_marked)))
                        add(result, merged, p * tie * q * r)
        self.exchanges[key] = result
        return result

    def act(self, own: Columns, enemy: Columns, k: int, own_guard: Flags, enemy_hit: Flags,
            enemy_guard: Flags, own_rating: tuple[int, ...], enemy_rating: tuple[int, ...]) -> Iterable[tuple[tuple, Fraction]]:
        """column_action (attack, weakest): ((own, enemy, own_guard, enemy_hit), probability) pairs."""
        mine = own[k]
        unchanged = ((own, enemy, own_guard, enemy_hit), Fraction(1))
        if not any(s[2] < SUNK for s in mine):
            return (unchanged,)
        best, best_key = -1, 0
        for j, column in enumerate(enemy):
            if any(s[2] < SUNK for s in column):
                key = sum(1 for s in column if s[2] == FIT and not (enemy_hit[j] and s[3]))
                if best < 0 or key < best_key:
                    best, best_key = j, key
        if best < 0:
            return (unchanged,)
        if not any(s[2] == FIT for s in mine):
            return (((own, enemy, own_guard[:k] + (True,) + own_guard[k + 1:], enemy_hit), Fraction(1)),)
        hit = enemy_hit[:best] + (True,) + enemy_hit[best + 1:]
        fights = self.exchange(mine, enemy[best], own_rating[k], enemy_rating[best], enemy_guard[best], enemy_hit[best])
        return (((own[:k] + (a,) + own[k + 1:], enemy[:best] + (d,) + enemy[best + 1:], own_guard, hit), p)
                for (a, d), p in fights.items())

    def columns_act(self, a: Columns, d: Columns, a_hit: Flags, d_hit: Flags, attacker_first: bool) -> Dist:
        """columns_act, then the columns close up: {(a, d, a_hit, d_hit, losses this round): probability}."""
        key = (a, d, a_hit, d_hit, attacker_first)
        known = self.rounds.get(key)
        if known is not None:
            return known
        setup = self.setup
        states: Dist = {(a, d, a_hit, d_hit, (False,) * len(a), (False,) * len(d)): Fraction(1)}
        for k in range(max(len(a), len(d))):
            for attacker_turn in ((True, False) if attacker_first else (False, True)):
                if k >= (len(a) if attacker_turn else len(d)):
                    continue
                following: Dist = {}
                for (sa, sd, sa_hit, sd_hit, sa_guard, sd_guard), p in states.items():
                    if attacker_turn:
                        for (own, enemy, guard, hit), q in self.act(sa, sd, k, sa_guard, sd_hit, sd_guard, setup.a_rating, setup.d_rating):
                            add(following, (own, enemy, sa_hit, hit, guard, sd_guard), p * q)
                    else:
                        for (own, enemy, guard, hit), q in self.act(sd, sa, k, sd_guard, sa_hit, sa_guard, setup.d_rating, setup.a_rating):
                            add(following, (enemy, own, hit, sd_hit, sa_guard, guard), p * q)
                states = following
        result: Dist = {}
        for (sa, sd, sa_hit, sd_hit, _, _), p in states.items():
            closed_a, a_sunk, a_captured = close_up(sa)
            closed_d, d_sunk, d_captured = close_up(sd)
            add(result, (closed_a, closed_d, sa_hit, sd_hit, (a_sunk, a_captured, d_sunk, d_captured)), p)
        self.rounds[key] = result
        return result

    # ---- the battle's round loop, a Markov chain --------------------------------------------

    def round_from(self, state: tuple) -> tuple[Dist, Dist]:
        """One battle_round from a head state: ({final outcome: p}, {next head state: p})."""
        a, d, a_hit, d_hit, lost, round_number, attacker_first = state
        ends_by_columns, nexts_by_columns = self.round_template(a, d, a_hit, d_hit, attacker_first, round_number)
        ends: Dist = {}
        nexts: Dist = {}
        for (reason, na, nd, new_lost), p in ends_by_columns.items():
            add(ends, final(reason, na, nd, tuple(x + y for x, y in zip(lost, new_lost))), p)
        following = min(round_number + 1, END_OF_COMBAT_RESULT + 1)
        for (na, nd, na_hit, nd_hit, new_lost), p in nexts_by_columns.items():
            add(nexts, (na, nd, na_hit, nd_hit, tuple(x + y for x, y in zip(lost, new_lost)), following, attacker_first), p)
        return ends, nexts

    def round_template(self, a: Columns, d: Columns, a_hit: Flags, d_hit: Flags, attacker_first: bool,
                       round_number: int) -> tuple[Dist, Dist]:
        """battle_round apart from the losses carried in: ({(reason, columns, losses this round): p},
        {(columns, attacked flags, losses this round): p}), memoised (many head states differ only in
        the losses of earlier rounds)."""
        key = (a, d, a_hit, d_hit, attacker_first, round_number)
        known = self.templates.get(key)
        if known is not None:
            return known
        setup = self.setup
        ends: Dist = {}
        nexts: Dist = {}
        win, lose, tie = contest_odds(setup.a_maneuver, setup.d_maneuver)
        tie_ends = Fraction(sum(1 for die in range(1, 7) if die + round_number - 1 >= END_OF_COMBAT_RESULT), 6)
        for (na, nd, na_hit, nd_hit, new_lost), p in self.columns_act(a, d, a_hit, d_hit, attacker_first).items():
            reason = destroyed(sum(len(c) for c in na), sum(len(c) for c in nd))
            if reason or setup.trivial:
                add(ends, (reason or "trivial_one_round", na, nd, new_lost), p)
                continue
            a_fit, d_fit = count(na, FIT), count(nd, FIT)
            stay = Fraction(0)
            if a_fit < d_fit or a_fit == 0:
                add(ends, ("attacker_retreats", na, nd, new_lost), p * win)
            else:
                stay += win
            if d_fit < a_fit or d_fit == 0:
                add(ends, ("defender_retreats", na, nd, new_lost), p * lose)
            else:
                stay += lose
            if tie_ends:
                add(ends, ("tie_roll", na, nd, new_lost), p * tie * tie_ends)
            stay += tie * (1 - tie_ends)
            if stay:
                add(nexts, (na, nd, na_hit, nd_hit, new_lost), p * stay)
        self.templates[key] = (ends, nexts)
        return ends, nexts

    def components(self, starts: Iterable[tuple]) -> list[list[tuple]]:
        """The head states reachable from ``starts`` in strongly connected components (Tarjan's algorithm,
        without recursion), each before the components it leads to; every state's round is computed once
        and kept in ``self.values``."""
        index: dict[tuple, int] = {}
        low: dict[tuple, int] = {}
        stack: list[tuple] = []
        on_stack: set[tuple] = set()
        found: list[list[tuple]] = []
        for root in starts:
            if root in index:
                continue
            work: list[tuple[tuple, Any]] = [(root, None)]
            while work:
                state, successors = work[-1]
                if successors is None:
                    index[state] = low[state] = len(index)
                    stack.append(state)
                    on_stack.add(state)
                    if state not in self.values:
                        self.values[state] = self.round_from(state)
                    successors = iter(self.values[state][1])
                    work[-1] = (state, successors)
                deeper = False
                for following in successors:
                    if following not in index:
                        work.append((following, None))
                        deeper = True
                        break
                    if following in on_stack:
                        low[state] = min(low[state], index[following])
                if deeper:
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
                    found.append(component)
        found.reverse()
        return found

    def push(self, starts: Mapping[tuple, Fraction]) -> Dist:
        """Push the probability mass from the start states through the chain once, component by component in
        dependency order: a state that a round can leave unchanged keeps p_stay and sends the rest on scaled
        by 1 / (1 - p_stay); states that cycle among themselves share their mass by a linear system."""
        mass: Dist = dict(starts)
        outcomes: Dist = {}
        for component in self.components(starts):
            if len(component) == 1:
                state = component[0]
                m = mass.pop(state, None)
                if m is None:
                    continue
                stay = self.values[state][1].get(state)
                through = {state: m / (1 - stay) if stay else m}
            else:
                through = self.through_cycle(component, [mass.pop(state, Fraction(0)) for state in component])
            inside = set(component)
            for state, m in through.items():
                ends, nexts = self.values[state]
                for outcome, p in ends.items():
                    add(outcomes, outcome, m * p)
                for following, p in nexts.items():
                    if following not in inside:
                        add(mass, following, m * p)
        return outcomes

    def through_cycle(self, component: list[tuple], inflow: list[Fraction]) -> dict[tuple, Fraction]:
        """The mass that passes through each state of a cycling component: m = inflow + m P (P among the
        component's states), solved exactly by Gaussian elimination on (I - P transposed) m = inflow."""
        size = len(component)
        position = {state: i for i, state in enumerate(component)}
        rows = [[Fraction(int(i == j)) for j in range(size)] + [inflow[i]] for i in range(size)]
        for j, state in enumerate(component):
            for following, p in self.values[state][1].items():
                i = position.get(following)
                if i is not None:
                    rows[i][j] -= p
        for col in range(size):
            pivot = next(r for r in range(col, size) if rows[r][col])
            rows[col], rows[pivot] = rows[pivot], rows[col]
            head = rows[col]
            scale = head[col]
            head[:] = [x / scale for x in head]
            for r in range(size):
                factor = rows[r][col]
                if r != col and factor:
                    rows[r] = [x - factor * y for x, y in zip(rows[r], head)]
        return {state: rows[i][size] for i, state in enumerate(component)}

    def solve(self) -> Dist:
        """The battle from the start: initiative (more columns, else maneuver rolls until one wins), then the rounds."""
        setup = self.setup
        a, d = setup.attacker, setup.defender
        lost = (-count(a, SUNK), -count(a, CAPTURED), -count(d, SUNK), -count(d, CAPTURED))
        start = (a, d, (False,) * len(a), (False,) * len(d), lost, 1)
        if len(a) != len(d):
            return self.push({(*start, len(a) > len(d)): Fraction(1)})
        win, lose, _ = contest_odds(setup.a_maneuver, setup.d_maneuver)
        return self.push({(*start, True): win / (win + lose), (*start, False): lose / (win + lose)})


def close_up(columns: Columns) -> tuple[Columns, int, int]:
    """The columns without their lost ships (damaged ships' fired cleared), and the ships sunk and captured."""
    sunk = captured = 0
    closed = []
    for column in columns:
        kept = []
        for s in column:
            if s[2] == SUNK:
                sunk += 1
            elif s[2] == CAPTURED:
                captured += 1
            elif s[2] == DAMAGED and s[3]:
                kept.append((s[0], s[1], DAMAGED, False))
            else:
                kept.append(s)
        closed.append(tuple(kept))
    return tuple(closed), sunk, captured


def exact(situation: Mapping[str, Any]) -> Dist:
    """Exact odds of `battle` for a situation: {battle_over fields (OUTCOME_FIELDS order): Fraction}."""
    return Solver(Setup.from_situation(situation)).solve()
