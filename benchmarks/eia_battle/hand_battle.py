"""A hand-written play of eia `battle` under the default choices: the sampling reference.

Issue 24 asks how far wartable's whole-battle sampling is from a loop a competent
programmer would write for the same rules (same states, same dice).  This module is that
loop: plain Python, ships as tuples, one seeded ``random.Random``, the ruleset's tables
and constants copied in as literals (a benchmark may hold game numbers; ``interpreter/``
may not).  It imports nothing from wartable, so the time of ``play`` is the hand figure.

It follows rulesdata/eia.yaml's ``battle`` and what it calls (``trivial_check``,
``value_order``, ``divide_into_columns``, ``initiative``, ``battle_round``,
``columns_act``, ``column_action``, ``column_exchange``, ``reload_roll``,
``tactical_contest``, ``volley``, ``shot``, ``end_of_round``) with the choices that
``wartable list eia`` shows as defaults: formation split, orders attack, targets weakest,
intent first_strike, extra ships fire, free target untouched, reload heavy_first,
continue, retreat if_weaker.  Under these, no column ever protects the fleet, so the
protector branches of ``column_action`` never run and are left out; a defender never
evades.  The constants are the ruleset's (positions close up, higher results sink, roll-on
on a natural 6, initiative once, no round limit, end-of-round tie ends at 7 or more).

Every die is drawn as wartable draws it (``int(random() * 6) + 1`` on ``random.Random(seed)``)
and in the ruleset's order, so one seed gives the same counts as ``wartable run --n``:
tests/test_hand_reference.py checks that, and the looser statistical agreement (within 4
standard errors) that would still hold should wartable's order of draws change.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# A ship: (kind, carrying, status, fired); ``carrying`` already includes the kinds that always carry.
Ship = tuple[str, bool, int, bool]
Column = tuple[Ship, ...]

FIT, DAMAGED, SUNK, CAPTURED = 0, 1, 2, 3  # status; afloat is status < SUNK
STATUS_CODES = {"fit": FIT, "damaged": DAMAGED, "sunk": SUNK, "captured": CAPTURED}

# ---- constants and tables copied from rulesdata/eia.yaml -------------------------------------
SINK_RESULT = 6  # sink_result (higher_results_sink: true)
DAMAGE_RESULT = 5  # damage_result
ROLL_ON_FACE = 6  # roll_on_face (roll_on_uses_natural_six: true)
ROLL_ON_LIMIT = 20  # roll_on_limit
ROLL_ON_BONUS = (0, 0, 0, 0, 1, 2, 3)  # table roll_on by face (index 0 unused); 6 rolls again
ALWAYS_CARRYING_KINDS = frozenset({"trade"})  # always_carrying_kinds
TRADE_SHIP_KINDS = frozenset({"trade"})  # trade_ship_kinds
PROTECT_OWN_BONUS = 1  # protect_own_bonus
RELOAD_MAX_SHIPS = 5  # reload_max_ships
END_OF_COMBAT_RESULT = 7  # end_of_combat_result (end_on_exact_result: false)
SPLIT_COLUMN_SIZE = 4  # split_column_size
TRIVIAL_SHIP_LIMIT = 5  # trivial_ship_limit
TRIVIAL_SUPERIORITY_RATIO = 5  # trivial_superiority_ratio
# modifiers shot_drms
SHOOTER_DRM = {"heavy": 1, "warship": 0, "frigate": -1, "transport": -2, "trade": 0}
CARRYING_DRM = -1
TARGET_DRM = {"heavy": -1, "warship": 0, "frigate": 1, "transport": 0, "trade": 0}
# unspecified_rolls: every maneuver, tactical contest and tactical rating roll is 1d6.

OUTCOME_FIELDS = (
    "reason", "attacker_sunk", "attacker_captured", "attacker_damaged", "attacker_retreated",
    "defender_sunk", "defender_captured", "defender_damaged", "defender_retreated",
)


def shot_modifier(shooter: Ship, target_kind: str) -> int:
    """The sum of the shot modifiers (modifiers shot_drms) for this shooter at this kind of target."""
    return SHOOTER_DRM[shooter[0]] + (CARRYING_DRM if shooter[1] else 0) + TARGET_DRM[target_kind]


def after_hit(target: Ship, result: int) -> Ship:
    """The target after a shot's result: sunk, damaged, captured (damaged again) or unchanged."""
    if result == SUNK:
        return (target[0], target[1], SUNK, target[3])
    if result == DAMAGED:
        return (target[0], target[1], CAPTURED if target[2] == DAMAGED else DAMAGED, target[3])
    return target


def make_ship(spec: Mapping[str, Any]) -> tuple[Ship, int]:
    """A ship tuple and its value (for a trivial combat's order) from a situation's ship mapping."""
    kind = spec["kind"]
    carrying = bool(spec.get("carrying", False)) or kind in ALWAYS_CARRYING_KINDS
    return (kind, carrying, STATUS_CODES[spec.get("status", "fit")], bool(spec.get("fired", False))), int(spec.get("value", 0))


def is_trivial(attacker: Sequence[Ship], defender: Sequence[Ship]) -> bool:
    """trivial_check: fewer than 5 ships, a side of trade ships only, or a 5 to 1 superiority."""
    a_ships = sum(1 for s in attacker if s[2] < SUNK)
    d_ships = sum(1 for s in defender if s[2] < SUNK)
    if a_ships < 1 or d_ships < 1:
        raise ValueError("each side needs a ship afloat")
    a_warships = sum(1 for s in attacker if s[2] < SUNK and s[0] not in TRADE_SHIP_KINDS)
    d_warships = sum(1 for s in defender if s[2] < SUNK and s[0] not in TRADE_SHIP_KINDS)
    if a_ships + d_ships < TRIVIAL_SHIP_LIMIT or a_warships == 0 or d_warships == 0:
        return True
    return a_warships >= TRIVIAL_SUPERIORITY_RATIO * d_warships or d_warships >= TRIVIAL_SUPERIORITY_RATIO * a_warships


def value_order(ships: Sequence[tuple[Ship, int]]) -> list[Column]:
    """value_order: one column, most valuable first (stable), the carrying ships last."""
    fighting = sorted((sv for sv in ships if not sv[0][1]), key=lambda sv: sv[1], reverse=True)
    carried = sorted((sv for sv in ships if sv[0][1]), key=lambda sv: sv[1], reverse=True)
    return [tuple(s for s, _ in fighting + carried)]


def split_columns(ships: Sequence[Ship]) -> list[Column]:
    """divide_into_columns, formation split: as few columns of at most 4 fighting ships as hold them, evenly."""
    fighting = [s for s in ships if not s[1]]
    carried = [s for s in ships if s[1]]
    if not fighting:
        return [tuple(carried)]
    parts = -(-len(fighting) // SPLIT_COLUMN_SIZE)
    columns = [[s for i, s in enumerate(fighting) if (i * parts) // len(fighting) == c] for c in range(parts)]
    columns[-1].extend(carried)
    return [tuple(c) for c in columns]


@dataclass(frozen=True)
class Setup:
    """A situation turned into the battle's starting columns (deterministic: done once, not per play)."""

    attacker: tuple[Column, ...]
    defender: tuple[Column, ...]
    a_rating: tuple[int, ...]  # tactical rating of each column's admiral (0: none)
    d_rating: tuple[int, ...]
    a_maneuver: int
    d_maneuver: int
    trivial: bool

    @classmethod
    def from_situation(cls, situation: Mapping[str, Any]) -> Setup:
        """trivial_check, then value_order (trivial) or divide_into_columns (split), admirals in column order."""
        attacker = [make_ship(s) for s in situation["attacker"]]
        defender = [make_ship(s) for s in situation["defender"]]
        if is_trivial([s for s, _ in attacker], [s for s, _ in defender]):
            # Leader values have no effect: every rating 0.
            return cls(tuple(value_order(attacker)), tuple(value_order(defender)), (0,), (0,), 0, 0, True)
        a_columns, d_columns = split_columns([s for s, _ in attacker]), split_columns([s for s, _ in defender])
        a_admirals = situation.get("attacker_admirals", ())
        d_admirals = situation.get("defender_admirals", ())
        # columns_act: a column without an admiral rates 0; extra ratings are ignored.
        return cls(
            tuple(a_columns), tuple(d_columns),
            tuple(a_admirals[k] if k < len(a_admirals) else 0 for k in range(len(a_columns))),
            tuple(d_admirals[k] if k < len(d_admirals) else 0 for k in range(len(d_columns))),
            int(situation.get("attacker_maneuver", 0)), int(situation.get("defender_maneuver", 0)), False,
        )


# ---- one play -----------------------------------------------------------------------------------

def _shot(rand: Callable[[], float], modifier: int) -> int:
    """shot: SUNK, DAMAGED or FIT (no effect), with the roll-on after a natural 6."""
    die = int(rand() * 6) + 1
    result = modifier + die
    if die == ROLL_ON_FACE and result < SINK_RESULT:
        for _ in range(ROLL_ON_LIMIT):
            face = int(rand() * 6) + 1
            result += ROLL_ON_BONUS[face]
            if face != 6 or result >= SINK_RESULT:
                break
    if result >= SINK_RESULT:
        return SUNK
    return DAMAGED if result == DAMAGE_RESULT else FIT


def _volley(rand: Callable[[], float], shooters: Column, targets: Column, barred: bool) -> tuple[Column, Column]:
    """volley: (the targets after the fire, the shooters with the ships that fired marked)."""
    own = [i for i, s in enumerate(shooters) if s[2] < SUNK]
    enemy = [j for j, t in enumerate(targets) if t[2] < SUNK]
    hit = list(targets)
    marked = list(shooters)
    fired_upon = []
    pairs = min(len(own), len(enemy))
    for k, i in enumerate(own):
        ship = shooters[i]
        if ship[2] != FIT or (barred and ship[3]):
            continue
        if k < pairs:  # the enemy ship at the same position (afloat by construction)
            aim = enemy[k]
        else:  # an extra ship: the first enemy ship afloat not yet fired upon, else (not carrying) the first afloat
            aim = -1
            for j, t in enumerate(hit):
                if t[2] < SUNK and j not in fired_upon:
                    aim = j
                    break
            if aim < 0 and not ship[1]:
                for j, t in enumerate(hit):
                    if t[2] < SUNK:
                        aim = j
                        break
            if aim < 0:
                continue
        target = hit[aim]
        hit[aim] = after_hit(target, _shot(rand, shot_modifier(ship, target[0])))
        fired_upon.append(aim)
        if not ship[3]:
            marked[i] = (ship[0], ship[1], ship[2], True)
    return tuple(hit), tuple(marked)


def _reload(column: Column) -> Column:
    """reload_roll on a success: up to 5 fit ships that fired reload, heavy ships first."""
    order = sorted(range(len(column)), key=lambda j: 0 if column[j][0] == "heavy" else 1)
    ships = list(column)
    done = 0
    for i in order:
        s = ships[i]
        if done < RELOAD_MAX_SHIPS and s[2] == FIT and s[3]:
            ships[i] = (s[0], s[1], s[2], False)
            done += 1
    return tuple(ships)


def _exchange(rand: Callable[[], float], attacker: Column, defender: Column, a_rating: int, d_rating: int,
              protects_own: bool, attacked_before: bool) -> tuple[Column, Column]:
    """column_exchange with first-strike intent (never evades): the two columns after the fire."""
    if attacked_before and int(rand() * 6) + 1 <= d_rating:
        defender = _reload(defender)
    a_total = a_rating + int(rand() * 6) + 1
    d_total = d_rating + (PROTECT_OWN_BONUS if protects_own else 0) + int(rand() * 6) + 1
    if a_total > d_total:
        hit, marked = _volley(rand, attacker, defender, False)
        hit_back, marked_back = _volley(rand, hit, marked, attacked_before)
        return hit_back, marked_back
    if d_total > a_total:
        hit, marked = _volley(rand, defender, attacker, attacked_before)
        hit_back, marked_back = _volley(rand, hit, marked, False)
        return marked_back, hit_back
    d_hit, a_marked = _volley(rand, attacker, defender, False)
    a_hit, d_marked = _volley(rand, defender, attacker, attacked_before)
    return (tuple((s[0], s[1], s[2], m[3]) for s, m in zip(a_hit, a_marked)),
            tuple((s[0], s[1], s[2], m[3]) for s, m in zip(d_hit, d_marked)))


def _act(rand: Callable[[], float], own: list[Column], enemy: list[Column], k: int, own_guard: list[bool],
         enemy_hit: list[bool], enemy_guard: list[bool], own_rating: Sequence[int], enemy_rating: Sequence[int]) -> None:
    """column_action with orders attack and targets weakest, in place on the side's lists."""
    mine = own[k]
    if not any(s[2] < SUNK for s in mine):
        return
    best = -1
    best_key = 0
    for j, column in enumerate(enemy):
        if any(s[2] < SUNK for s in column):
            barred = enemy_hit[j]
            key = sum(1 for s in column if s[2] == FIT and not (barred and s[3]))
            if best < 0 or key < best_key:
                best, best_key = j, key
    if best < 0:
        return
    if not any(s[2] == FIT for s in mine):
        own_guard[k] = True  # protect own column
        return
    own[k], enemy[best] = _exchange(rand, mine, enemy[best], own_rating[k], enemy_rating[best], enemy_guard[best], enemy_hit[best])
    enemy_hit[best] = True


def _close_up(columns: list[Column]) -> tuple[list[Column], int, int]:
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
    return closed, sunk, captured


def _initiative(rand: Callable[[], float], setup: Setup) -> bool:
    """initiative: True when the attacker has it (more columns, else maneuver rolls until one is higher)."""
    if len(setup.attacker) != len(setup.defender):
        return len(setup.attacker) > len(setup.defender)
    while True:
        a = int(rand() * 6) + 1 + setup.a_maneuver
        b = int(rand() * 6) + 1 + setup.d_maneuver
        if a != b:
            return a > b


def count(columns: Sequence[Column], status: int) -> int:
    """Ships of one status in a side's columns."""
    return sum(1 for c in columns for s in c if s[2] == status)


def destroyed(a_afloat: int, d_afloat: int) -> str:
    """battle_round: the reason when a side has no ship left, else ''."""
    if a_afloat and d_afloat:
        return ""
    return "both_destroyed" if a_afloat == d_afloat else "attacker_destroyed" if a_afloat == 0 else "defender_destroyed"


def final(reason: str, a: Sequence[Column], d: Sequence[Column], lost: Sequence[int]) -> tuple:
    """battle_over's fields (OUTCOME_FIELDS order) from the last columns and the losses (a sunk, captured, d sunk, captured)."""
    a_gone = sum(len(c) for c in a) if reason == "attacker_retreats" else 0
    d_gone = sum(len(c) for c in d) if reason == "defender_retreats" else 0
    return (reason, lost[0], lost[1], count(a, DAMAGED), a_gone, lost[2], lost[3], count(d, DAMAGED), d_gone)


def _columns_act(rand: Callable[[], float], setup: Setup, a: list[Column], d: list[Column],
                 a_hit: list[bool], d_hit: list[bool], attacker_first: bool) -> None:
    """columns_act: the side with the initiative acts with its first column, then the other, and so on."""
    a_guard = [False] * len(a)
    d_guard = [False] * len(d)
    for k in range(max(len(a), len(d))):
        for attacker_turn in ((True, False) if attacker_first else (False, True)):
            if attacker_turn:
                if k < len(a):
                    _act(rand, a, d, k, a_guard, d_hit, d_guard, setup.a_rating, setup.d_rating)
            elif k < len(d):
                _act(rand, d, a, k, d_guard, a_hit, a_guard, setup.d_rating, setup.a_rating)


def play(setup: Setup, rng: random.Random) -> tuple:
    """One play of `battle`: the battle_over outcome's fields, in OUTCOME_FIELDS order."""
    rand = rng.random
    a, d = list(setup.attacker), list(setup.defender)
    # Ships lost before the battle stay in the first round's columns but are not its losses.
    a_sunk, a_captured = -count(a, SUNK), -count(a, CAPTURED)
    d_sunk, d_captured = -count(d, SUNK), -count(d, CAPTURED)
    a_hit = [False] * len(a)
    d_hit = [False] * len(d)
    attacker_first = _initiative(rand, setup)
    round_number = 1
    while True:
        _columns_act(rand, setup, a, d, a_hit, d_hit, attacker_first)
        a, sunk, captured = _close_up(a)
        a_sunk, a_captured = a_sunk + sunk, a_captured + captured
        d, sunk, captured = _close_up(d)
        d_sunk, d_captured = d_sunk + sunk, d_captured + captured
        reason = _round_end(rand, a, d, setup, round_number)
        if reason:
            return final(reason, a, d, (a_sunk, a_captured, d_sunk, d_captured))
        round_number = min(round_number + 1, END_OF_COMBAT_RESULT + 1)


def _round_end(rand: Callable[[], float], a: list[Column], d: list[Column], setup: Setup, round_number: int) -> str:
    """battle_round's ending and end_of_round: the reason the battle ends, or '' when it goes on."""
    reason = destroyed(sum(len(c) for c in a), sum(len(c) for c in d))
    if reason or setup.trivial:
        return reason or "trivial_one_round"
    a_fit, d_fit = count(a, FIT), count(d, FIT)
    a_total = int(rand() * 6) + 1 + setup.a_maneuver
    d_total = int(rand() * 6) + 1 + setup.d_maneuver
    if a_total > d_total:
        return "attacker_retreats" if a_fit < d_fit or a_fit == 0 else ""
    if d_total > a_total:
        return "defender_retreats" if d_fit < a_fit or d_fit == 0 else ""
    return "tie_roll" if int(rand() * 6) + 1 + round_number - 1 >= END_OF_COMBAT_RESULT else ""


def sample(situation: Mapping[str, Any], plays: int, seed: int = 1) -> dict[tuple, int]:
    """Counts of battle_over outcomes (fields in OUTCOME_FIELDS order) over ``plays`` seeded plays."""
    setup = Setup.from_situation(situation)
    rng = random.Random(seed)
    counts: dict[tuple, int] = {}
    for _ in range(plays):
        outcome = play(setup, rng)
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def largest_deviation(first: Mapping[tuple, int], second: Mapping[tuple, int]) -> tuple[float, str]:
    """The largest gap between two samples of outcomes, in standard errors, and what it is on.

    Compared: the share of every reason and of every value of every numeric field (the
    summary a player reads: "3 ships sunk"), and the mean of every numeric field; each gap
    is over the standard error of a difference of two independent sample estimates (pooled
    share for shares, each sample's variance for means).  The shares of whole outcomes are
    left out: there are hundreds, mostly rare, and their largest gap by chance alone nears
    4.  Two samples of the same rules stay within about 4 here (one gap of 4 is a 1 in
    16,000 event; there are about 50).
    """
    n1, n2 = sum(first.values()), sum(second.values())
    worst, where = 0.0, ""

    def share_gap(label: str, c1: int, c2: int) -> None:
        nonlocal worst, where
        pooled = (c1 + c2) / (n1 + n2)
        se = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)) ** 0.5
        gap = abs(c1 / n1 - c2 / n2) / se if se > 0 else 0.0
        if gap > worst:
            worst, where = gap, label

    for index, name in enumerate(OUTCOME_FIELDS):
        for value in {o[index] for o in first} | {o[index] for o in second}:
            share_gap(f"{name} == {value!r}", sum(c for o, c in first.items() if o[index] == value),
                      sum(c for o, c in second.items() if o[index] == value))
    for index in range(1, len(OUTCOME_FIELDS)):
        moments = []
        for counts, n in ((first, n1), (second, n2)):
            mean = sum(o[index] * c for o, c in counts.items()) / n
            variance = sum((o[index] - mean) ** 2 * c for o, c in counts.items()) / (n - 1)
            moments.append((mean, variance / n))
        se = (moments[0][1] + moments[1][1]) ** 0.5
        gap = abs(moments[0][0] - moments[1][0]) / se if se > 0 else 0.0
        if gap > worst:
            worst, where = gap, f"mean of {OUTCOME_FIELDS[index]}"
    return worst, where
