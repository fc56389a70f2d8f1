"""The hand-written references of benchmarks/eia_battle/ stay honest: same rules as rulesdata/eia.yaml.

benchmarks/eia_battle/run.py reports wartable's speed as a ratio to a hand loop
(hand_battle.py) and to a hand exact solver (hand_exact.py).  A ratio means
something only while the hand code plays the same battle: these tests compare
the exact solver with ``wartable odds`` fraction for fraction on small battles,
and the hand loop with wartable's sampled distribution (every outcome's share,
every reason's share and every field's mean within 4 standard errors).  The
bigger comparisons (3 v 3 exact, 10,000 plays of fifteen_a_side) are run.py's.
"""

from __future__ import annotations

import importlib
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from interpreter import load_ruleset, odds
from interpreter.api import monte_carlo
from interpreter.limits import Limits

ROOT = Path(__file__).resolve().parents[1]
HAND = ROOT / "benchmarks" / "eia_battle"
SITUATIONS = ROOT / "rulesdata" / "eia_situations"
UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)

WARSHIP = {"kind": "warship"}
HEAVY = {"kind": "heavy"}
FRIGATE = {"kind": "frigate"}
TRADE = {"kind": "trade"}


@pytest.fixture(scope="module")
def hand():
    """hand_battle and hand_exact, imported as the scripts they are (run.py puts their folder on the path too)."""
    sys.path.insert(0, str(HAND))
    try:
        yield importlib.import_module("hand_battle"), importlib.import_module("hand_exact")
    finally:
        sys.path.remove(str(HAND))


@pytest.fixture(scope="module")
def eia():
    return load_ruleset("eia")


def wartable_exact(eia, inputs) -> dict:
    dist = odds(eia, "battle", inputs, limits=UNLIMITED)
    assert dist.truncated == 0
    return {tuple(value for _, value in outcome.fields): p for outcome, p in dist.outcomes}


@pytest.fixture(scope="module")
def wartable_samples(eia):
    """wartable's counts of a bundled situation's battle, sampled once per module: {name: counts}."""
    cache: dict = {}

    def counts(name: str, plays: int) -> dict:
        if (name, plays) not in cache:
            sample = monte_carlo(eia, "battle", situation(eia, name), trials=plays, seed=5, limits=UNLIMITED)
            totals: dict = {}
            for outcome, n in sample.counts:
                key = tuple(value for _, value in outcome.fields)
                totals[key] = totals.get(key, 0) + n
            cache[name, plays] = totals
        return cache[name, plays]

    return counts


def situation(eia, name: str) -> dict:
    data = yaml.safe_load((SITUATIONS / f"{name}.yaml").read_text(encoding="utf-8"))
    names = {spec.name for spec in eia.compiled["battle"].inputs}
    return {k: v for k, v in data.items() if k in names}


def test_shot_odds_by_hand(hand, eia):
    _, hand_exact = hand
    # Warship at warship, modifier 0: a 6 sinks (no roll-on: the result is not below 6), a 5 damages.
    assert dict(hand_exact.shot_odds(0)) == {2: Fraction(1, 6), 1: Fraction(1, 6), 0: Fraction(4, 6)}
    # Transport carrying troops at a heavy ship, modifier -2 -1 -1 = -4: only a natural 6 counts (result 2),
    # then roll-on dice: a 6 (+3, result 5) rolls again; 1-3 leave 5 (damaged), 4-6 make 6-8 (sunk).
    # Sunk: 1/6 * 1/6 * 3/6 = 1/72; damaged: 1/6 * 1/6 * 3/6 = 1/72 (a first roll-on of 1-5 leaves 2-4: no effect).
    odds_by_hand = dict(hand_exact.shot_odds(-4))
    assert odds_by_hand[2] == Fraction(1, 72) and odds_by_hand[1] == Fraction(1, 72)
    wartable = odds(eia, "shot", {"shooter": "transport", "shooter_carrying": True, "target": "heavy"})
    assert wartable.probability("sunk") == odds_by_hand[2] and wartable.probability("damaged") == odds_by_hand[1]


def test_one_against_one_no_hit_by_hand(hand):
    _, hand_exact = hand
    # A trivial combat (fewer than 5 ships): one round.  The side with the initiative attacks, then the other
    # side's column, still fit, attacks back.  Each exchange fires one shot a side however the tactical contest
    # goes (first strike, back fire, or simultaneous), each missing with 4/6: no hit in one exchange 16/36 = 4/9,
    # in both 16/81.
    dist = hand_exact.exact({"attacker": [WARSHIP], "defender": [WARSHIP]})
    assert dist[("trivial_one_round", 0, 0, 0, 0, 0, 0, 0, 0)] == Fraction(16, 81)
    assert sum(dist.values()) == 1


@pytest.mark.parametrize(
    "inputs",
    [
        pytest.param({"attacker": [WARSHIP], "defender": [WARSHIP]}, id="1v1"),
        pytest.param({"attacker": [WARSHIP] * 2, "defender": [WARSHIP] * 2}, id="2v2"),
        # Not trivial (5 ships): rounds until a side is lost, retreats or a tie roll reaches 7; the defender's
        # lone ship is attacked again every round after the first (reload rolls against its admiral's 3).
        pytest.param({"attacker": [HEAVY, WARSHIP, FRIGATE, WARSHIP], "defender": [WARSHIP],
                      "attacker_admirals": [2], "defender_admirals": [3], "attacker_maneuver": 1}, id="4v1-admirals"),
        # Trade ships (always carrying) fire only at an enemy ship not yet fired upon: one that reloads and finds
        # none keeps its fired flag cleared, so states cycle through each other (components of up to 4 states,
        # solved as a linear system by the hand solver, as wartable solves them).
        pytest.param({"attacker": [WARSHIP, TRADE, TRADE, TRADE], "defender": [WARSHIP],
                      "attacker_admirals": [3], "defender_admirals": [4]}, id="4v1-trade-cycles"),
    ],
)
def test_hand_exact_equals_wartable_fraction_for_fraction(hand, eia, inputs):
    _, hand_exact = hand
    expected = wartable_exact(eia, inputs)
    assert hand_exact.exact(inputs) == expected


@pytest.mark.parametrize(("name", "plays"), [("three_a_side", 1500), ("fifteen_a_side", 200)])
def test_hand_loop_matches_wartable_sampling(hand, eia, wartable_samples, name, plays):
    hand_battle, _ = hand
    inputs = situation(eia, name)
    gap, where = hand_battle.largest_deviation(hand_battle.sample(inputs, 4 * plays, seed=11), wartable_samples(name, plays))
    assert gap < 4, f"{name}: {where} differs by {gap:.1f} standard errors"


@pytest.mark.parametrize(("name", "plays"), [("one_a_side", 300), ("three_a_side", 300), ("fifteen_a_side", 60)])
def test_hand_loop_draws_the_same_dice(hand, eia, wartable_samples, name, plays):
    # Stronger than the statistics: the hand loop rolls the ruleset's dice in the ruleset's order, each die as
    # wartable rolls it (int(random() * 6) + 1 on random.Random(seed)), so one seed gives the same counts,
    # outcome for outcome.  wartable keeps its counts for a seed across back ends; should its order of draws
    # change on purpose, this test says so and the statistical ones above still hold.
    hand_battle, _ = hand
    assert hand_battle.sample(situation(eia, name), plays, seed=5) == wartable_samples(name, plays)


def test_the_sampling_check_sees_a_rule_left_out(hand, eia, wartable_samples):
    hand_battle, _ = hand
    # The check above has teeth at its size: without the admirals and the maneuver rating (one rule's inputs
    # left out), the hand loop's three_a_side is many standard errors away from wartable's.
    inputs = situation(eia, "three_a_side")
    wrong = {k: v for k, v in inputs.items() if k not in ("attacker_admirals", "defender_admirals", "attacker_maneuver")}
    gap, where = hand_battle.largest_deviation(hand_battle.sample(wrong, 6000, seed=11), wartable_samples("three_a_side", 1500))
    assert gap > 4, f"{where}: {gap:.1f}"
