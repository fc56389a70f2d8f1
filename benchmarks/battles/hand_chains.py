"""Hand-written Markov chains for the battle benchmarks: independent of wartable.

Nothing here imports the interpreter: the dice are enumerated directly and
each battle is solved by a memoised recursion over its states, with a round
that changes nothing summed as a geometric series.  benchmarks/battles/run.py
compares wartable's exact odds with these, fraction for fraction.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache
from math import comb

# ---- Risk --------------------------------------------------------------------------------------


@cache
def risk_round(attack_dice: int, defend_dice: int) -> dict[tuple[int, int], Fraction]:
    """(attacker's losses, defender's losses) -> probability, by enumerating every roll.

    The highest dice are paired; the defender wins ties.
    """
    counts: dict[tuple[int, int], int] = {}
    for faces in itertools.product(range(1, 7), repeat=attack_dice + defend_dice):
        attack = sorted(faces[:attack_dice], reverse=True)
        defend = sorted(faces[attack_dice:], reverse=True)
        attacker_lost = sum(1 for a, d in zip(attack, defend) if a <= d)
        defender_lost = min(attack_dice, defend_dice) - attacker_lost
        counts[attacker_lost, defender_lost] = counts.get((attacker_lost, defender_lost), 0) + 1
    total = 6 ** (attack_dice + defend_dice)
    return {key: Fraction(n, total) for key, n in counts.items()}


@cache
def risk_attacker_wins(attackers: int, defenders: int) -> Fraction:
    """The chance that ``attackers`` armies (those free to attack) destroy ``defenders``.

    Each round the attacker rolls min(3, attackers) dice, the defender min(2, defenders).
    """
    if defenders == 0:
        return Fraction(1)
    if attackers == 0:
        return Fraction(0)
    return sum(
        (p * risk_attacker_wins(attackers - lost_a, defenders - lost_d)
         for (lost_a, lost_d), p in risk_round(min(3, attackers), min(2, defenders)).items()),
        Fraction(0),
    )


# ---- an Axis-and-Allies-style land battle ------------------------------------------------------------


def binomial(n: int, hit: Fraction) -> list[Fraction]:
    return [comb(n, k) * hit**k * (1 - hit) ** (n - k) for k in range(n + 1)]


def land_round(infantry: int, tanks: int, defenders: int) -> dict[tuple[int, int, int], Fraction]:
    """The next state after one round: infantry hit on 1, tanks on 3 or less, defenders on 2 or less.

    Hits are taken cheapest first: the attacker loses infantry before tanks.
    """
    attack = [Fraction(0)] * (infantry + tanks + 1)
    for i, pi in enumerate(binomial(infantry, Fraction(1, 6))):
        for t, pt in enumerate(binomial(tanks, Fraction(1, 2))):
            attack[i + t] += pi * pt
    defend = binomial(defenders, Fraction(1, 3))
    out: dict[tuple[int, int, int], Fraction] = {}
    for a_hits, pa in enumerate(attack):
        for d_hits, pd in enumerate(defend):
            lost_infantry = min(d_hits, infantry)
            state = (infantry - lost_infantry, max(tanks - (d_hits - lost_infantry), 0), max(defenders - a_hits, 0))
            out[state] = out.get(state, 0) + pa * pd
    return out


@cache
def land_battle(infantry: int, tanks: int, defenders: int) -> dict[tuple, Fraction]:
    """Final states of the battle to the finish: ('attacker_wins', inf, tanks) / ('defender_holds', n) / ('both_destroyed',)."""
    if defenders > 0 and infantry + tanks == 0:
        return {("defender_holds", defenders): Fraction(1)}
    if defenders == 0:
        return {("attacker_wins", infantry, tanks) if infantry + tanks else ("both_destroyed",): Fraction(1)}
    step = land_round(infantry, tanks, defenders)
    here = (infantry, tanks, defenders)
    stay = step.pop(here, Fraction(0))
    result: dict[tuple, Fraction] = {}
    for state, p in step.items():
        for end, q in land_battle(*state).items():
            result[end] = result.get(end, 0) + p * q / (1 - stay)
    return result
