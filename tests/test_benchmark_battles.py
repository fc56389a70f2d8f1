"""The battle rulesets of benchmarks/battles/, which the README shows: they load, and their small cases match hand counts.

The benchmark itself (benchmarks/battles/run.py) checks the large cases against
hand-written Markov chains; these tests keep the rulesets honest on every run
of the suite, through the API and through the installed command.
"""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from test_cli import installed_wartable

from interpreter import load_ruleset, odds

BATTLES = Path(__file__).resolve().parents[1] / "benchmarks" / "battles"


@pytest.fixture(scope="module")
def risk():
    return load_ruleset(BATTLES / "risk.yaml")


@pytest.fixture(scope="module")
def land():
    return load_ruleset(BATTLES / "land_battle.yaml")


def test_risk_one_army_against_one(risk):
    # One die each; the attacker must roll higher (ties to the defender):
    # pairs with a > d: 15 of 36 -> 5/12.  One roll decides the battle.
    dist = odds(risk, "battle", {"attackers": 1, "defenders": 1})
    assert dist.truncated == 0
    assert dist.probability("attacker_wins") == Fraction(15, 36)
    assert dist.probability("defender_holds") == Fraction(21, 36)


def test_risk_one_army_against_two(risk):
    # One attacking die against two: it must beat the higher of two dice,
    # sum over a of ((a-1)/6)^2 / 6 = (0+1+4+9+16+25)/216 = 55/216; a loss ends
    # the battle (no army left).  Then one against one: 15/36.
    # 55/216 * 15/36 = 825/7776.
    dist = odds(risk, "battle", {"attackers": 1, "defenders": 2})
    assert dist.probability("attacker_wins") == Fraction(825, 7776)
    assert dist.probability("attacker_wins", attackers_left=1) == Fraction(825, 7776)


def test_land_battle_one_tank_against_one_infantry(land):
    # Each round the tank hits on 1-3 (1/2), the infantry on 1-2 (1/3).
    # Tank hits, infantry misses: 1/2 * 2/3 = 1/3; infantry hits only: 1/2 * 1/3 = 1/6;
    # both hit: 1/6; neither: 1/3, and the round is fought again.  Dividing by
    # 1 - 1/3 = 2/3: attacker wins 1/2, defender holds 1/4, both destroyed 1/4.
    dist = odds(land, "battle", {"infantry": 0, "tanks": 1, "defenders": 1})
    assert dist.truncated == 0
    assert dist.probability("attacker_wins", infantry_left=0, tanks_left=1) == Fraction(1, 2)
    assert dist.probability("defender_holds", defenders_left=1) == Fraction(1, 4)
    assert dist.probability("both_destroyed") == Fraction(1, 4)


def test_the_installed_command_sums_a_battle_by_outcome(tmp_path):
    # The same one tank against one infantry as above: 1/2, 1/4, 1/4; the tank
    # left when the attacker wins is always 1 (mean 1, present in 1/2).
    result = subprocess.run(
        [str(installed_wartable()), "odds", str(BATTLES / "land_battle.yaml"), "battle",
         "--set", "infantry=0", "--set", "tanks=1", "--set", "defenders=1", "--by", "outcome", "--json"],
        check=False, cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    marginal = {row["values"]["outcome"]: row["probability"] for row in data["marginal"]}
    assert marginal == {"attacker_wins": "1/2", "defender_holds": "1/4", "both_destroyed": "1/4"}
    assert data["means"]["tanks_left"]["mean"] == "1/1"  # always p/q (README, --json)
    assert data["means"]["tanks_left"]["probability"] == "1/2"
