"""Dice pools: pool(n, s), successes(n, s, faces), highest/lowest(list, k), in both engines.

Every expected value is counted by hand in a comment.
"""

from __future__ import annotations

import subprocess
from fractions import Fraction
from math import comb

import pytest
from conftest import procedure, ruleset_text
from test_cli import installed_wartable

from interpreter import load_ruleset, odds, resolve
from interpreter.api import monte_carlo
from interpreter.errors import RulesetError, RuleViolation
from interpreter.limits import LimitExceeded

ENGINES = ("compiled", "reference")

PROCEDURES = {
    "keep_two": procedure("""
        let rolled = pool(3, 6)
        outcome total(sum = sum(highest(rolled, 2)))
    """),
    "risk_round": procedure("""
        let attack = pool(3, 6)
        let defend = pool(2, 6)
        let attacker_lost = count(i for i in 1 .. 2 if attack[i] <= defend[i])
        outcome losses(attacker = attacker_lost, defender = 2 - attacker_lost)
    """),
    "hits": procedure("""
        outcome hits(n = successes(8, 6, 1 .. 2))
    """),
    "pool_of": procedure("""
        let rolled = pool(dice, 6)
        outcome rolled(faces = rolled)
    """, inputs="{dice: {type: int}}"),
    "lowest_of": procedure("""
        let rolled = pool(2, 4)
        outcome kept(low = lowest(rolled, 1), all = highest(rolled, 5))
    """),
    "keep_of": procedure("""
        outcome kept(xs = highest([3, 1, 2], k))
    """, inputs="{k: {type: int}}"),
    "bad_face": procedure("""
        outcome hits(n = successes(2, 6, [0, 7]))
    """),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    path = tmp_path_factory.mktemp("pools") / "pools.yaml"
    path.write_text(ruleset_text(PROCEDURES), encoding="utf-8")
    return path, load_ruleset(path)


def table(ruleset, name, inputs=None, engine="compiled", limits=None):
    return {o.fields: p for o, p in odds(ruleset, name, inputs or {}, engine=engine, limits=limits).outcomes}


@pytest.mark.parametrize("engine", ENGINES)
def test_three_dice_keep_the_highest_two(rules, engine):
    found = table(rules[1], "keep_two", engine=engine)
    # 12: all three 6 (1 way), or exactly two 6s (3 places for the other die x 5 faces = 15): 16/216.
    assert found[(("sum", 12),)] == Fraction(16, 216)
    # 2: all three 1s: 1/216.
    assert found[(("sum", 2),)] == Fraction(1, 216)
    # 3: the two highest are 2 and 1, so the pool is (2, 1, 1): 3 orderings: 3/216.
    assert found[(("sum", 3),)] == Fraction(3, 216)
    assert sum(found.values()) == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_risk_round_of_three_against_two(rules, engine):
    # The published counts of 7776 = 6^5 rolls: the defender loses 2 in 2890, each loses 1 in 2611,
    # the attacker loses 2 in 2275 (2890 + 2611 + 2275 = 7776).
    found = table(rules[1], "risk_round", engine=engine)
    assert found == {
        (("attacker", 0), ("defender", 2)): Fraction(2890, 7776),
        (("attacker", 1), ("defender", 1)): Fraction(2611, 7776),
        (("attacker", 2), ("defender", 0)): Fraction(2275, 7776),
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_successes_are_binomial(rules, engine):
    found = table(rules[1], "hits", engine=engine)
    # a die hits on 1-2 (2 faces of 6): P(k hits) = C(8, k) 2^k 4^(8-k) / 6^8.
    assert found[(("n", 0),)] == Fraction(4**8, 6**8)
    assert found[(("n", 3),)] == Fraction(comb(8, 3) * 2**3 * 4**5, 6**8)
    assert len(found) == 9


@pytest.mark.parametrize("engine", ENGINES)
def test_a_pool_is_one_state_per_multiset(rules, engine):
    # 2d6 as a pool: 6 doubles (1 way each) and 15 pairs (2 ways each): 21 pools of 36 rolls.
    found = table(rules[1], "pool_of", {"dice": 2}, engine=engine)
    assert len(found) == 21
    assert found[(("faces", (6, 5)),)] == Fraction(2, 36)
    assert found[(("faces", (4, 4)),)] == Fraction(1, 36)
    # 4d6: C(4 + 5, 4) = 126 pools; (6, 5, 5, 1) in 4!/(1! 2! 1!) = 12 of 1296 orderings.
    found = table(rules[1], "pool_of", {"dice": 4}, engine=engine)
    assert len(found) == 126
    assert found[(("faces", (6, 5, 5, 1)),)] == Fraction(12, 1296)
    # no dice: the empty pool, certainly
    assert table(rules[1], "pool_of", {"dice": 0}, engine=engine) == {(("faces", ()),): 1}


@pytest.mark.parametrize("engine", ENGINES)
def test_highest_and_lowest(rules, engine):
    found = table(rules[1], "lowest_of", engine=engine)
    # pool(2, 4) = (3, 1) in 2 of 16 rolls; lowest 1 -> (1,), highest 5 of 2 -> the whole pool.
    assert found[(("low", (1,)), ("all", (3, 1)))] == Fraction(2, 16)
    assert table(rules[1], "keep_of", {"k": 2}, engine=engine) == {(("xs", (3, 2)),): 1}
    assert table(rules[1], "keep_of", {"k": 0}, engine=engine) == {(("xs", ()),): 1}


@pytest.mark.parametrize("engine", ENGINES)
def test_scripted_and_seeded_plays(rules, engine):
    # attack 1, 6, 3 -> (6, 3, 1); defend 2, 5 -> (5, 2): 6 > 5 and 3 > 2, the defender loses 2.
    play = resolve(rules[1], "risk_round", {}, dice=[1, 6, 3, 2, 5], engine=engine)
    assert play.outcome.fields == (("attacker", 0), ("defender", 2))
    # successes of 8 scripted dice: 1 and 2 count: 1, 2, 3, 4, 5, 6, 2, 2 -> 4
    play = resolve(rules[1], "hits", {}, dice=[1, 2, 3, 4, 5, 6, 2, 2], engine=engine)
    assert play.outcome.get("n") == 4 and play.unused_dice == 0


def test_monte_carlo_agrees_across_engines(rules):
    counts = [monte_carlo(rules[1], "risk_round", {}, trials=300, seed=5, engine=engine).counts for engine in ENGINES]
    assert counts[0] == counts[1]


@pytest.mark.parametrize("engine", ENGINES)
def test_bad_pools_are_positioned_errors(rules, engine):
    path, ruleset = rules
    with pytest.raises(RuleViolation) as caught:
        odds(ruleset, "bad_face", {}, engine=engine)
    assert "successes() counts face 0, but the dice have faces 1 to 6" in caught.value.diagnostics[0].message
    with pytest.raises(RuleViolation) as caught:
        odds(ruleset, "keep_of", {"k": -1}, engine=engine)
    assert "highest() keeps 0 or more items, not -1" in caught.value.diagnostics[0].message
    # 60 dice of 6: C(65, 5) = 8,259,888 pools, over the 100,000 exact odds follow: refused before any is made
    with pytest.raises(LimitExceeded) as caught:
        odds(ruleset, "pool_of", {"dice": 60}, engine=engine)
    diagnostic = caught.value.diagnostics[0]
    assert "pool(60, 6) has 8,259,888 distinct rolls" in diagnostic.message
    assert path.read_text().splitlines()[diagnostic.line - 1].strip().startswith("let rolled = pool(dice, 6)")


def test_misused_pools_do_not_load(write_yaml):
    path = write_yaml(ruleset_text({"p": procedure("""
        let a = pool(3)
        let b = successes(2, 6, "x")
        let c = highest(5, 1)
        outcome done
    """)}))
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path)
    messages = [d.message for d in caught.value.diagnostics]
    assert any("pool(count, faces) takes two arguments" in m for m in messages), messages
    assert any("successes() needs a list of number" in m or "successes() needs a list" in m for m in messages), messages
    assert any("highest() needs a list" in m for m in messages), messages


def test_the_command_line_rolls_a_pool(rules, tmp_path):
    path, _ = rules
    done = subprocess.run([str(installed_wartable()), "run", str(path), "risk_round", "--dice", "1,6,3,2,5"],
                          check=False, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "losses(attacker = 0, defender = 2)" in done.stdout
    traced = subprocess.run([str(installed_wartable()), "run", str(path), "risk_round", "--dice", "1,6,3,2,5", "--trace"],
                            check=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "roll pool(3, 6): 1, 6, 3 -> [6, 3, 1]" in traced.stdout, traced.stdout
