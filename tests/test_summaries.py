"""Summaries: marginals over chosen outcome fields, means of numeric fields, Monte Carlo standard errors
(``odds --by``, ``--digits``, ``Distribution.marginal``/``means``, ``Sample.means``).

The ruleset here is counted by hand.  ``volley`` rolls one die: 1-4 miss (damage 0), 5 hits for
2 damage, 6 hits for 3 damage.  So

    P(miss) = 4/6 = 2/3, P(hit) = 2/6 = 1/3
    damage: 0 with 2/3, 2 with 1/6, 3 with 1/6; mean = (2 + 3) / 6 = 5/6

``strike`` is the same roll, but a miss carries no damage field at all: the mean damage is then
over the hits only, (2 + 3) / 2 = 5/2, present with probability 1/3.
"""

from __future__ import annotations

import io
import json
import math
from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import odds
from interpreter.api import monte_carlo
from interpreter.cli import main

VOLLEY = procedure(
    """
    let die = 1d6
    if die >= 5 then
      outcome hit(damage = die - 3)
    else
      outcome miss(damage = 0)
    end
    """
)
STRIKE = procedure(
    """
    let die = 1d6
    if die >= 5 then
      outcome hit(damage = die - 3, critical = die == 6)
    else
      outcome miss
    end
    """
)


@pytest.fixture
def volley(make_ruleset):
    return make_ruleset({"volley": VOLLEY, "strike": STRIKE})


@pytest.fixture
def volley_file(write_yaml):
    return str(write_yaml(ruleset_text({"volley": VOLLEY, "strike": STRIKE})))


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# ---- the API --------------------------------------------------------------------------------


def test_marginal_by_outcome_name(volley):
    marginal = odds(volley, "volley").marginal(["outcome"])
    assert marginal.as_dict() == {("miss",): Fraction(2, 3), ("hit",): Fraction(1, 3)}
    assert marginal.probability("hit") == Fraction(1, 3)


def test_marginal_by_a_numeric_field_is_in_ascending_order(volley):
    marginal = odds(volley, "volley").marginal("damage")
    # 0: faces 1-4; 2: face 5; 3: face 6
    assert list(marginal.rows) == [((0,), Fraction(2, 3)), ((2,), Fraction(1, 6)), ((3,), Fraction(1, 6))]


def test_marginal_over_two_fields(volley):
    marginal = odds(volley, "volley").marginal(["outcome", "damage"])
    assert marginal.as_dict() == {("miss", 0): Fraction(2, 3), ("hit", 2): Fraction(1, 6), ("hit", 3): Fraction(1, 6)}


def test_marginal_of_a_field_some_outcomes_lack(volley):
    # a miss has no damage field: its mass sits under None
    assert odds(volley, "strike").marginal("damage").as_dict() == {(None,): Fraction(2, 3), (2,): Fraction(1, 6), (3,): Fraction(1, 6)}


def test_means(volley):
    means = odds(volley, "volley").means()
    assert list(means) == ["damage"]
    assert means["damage"].value == Fraction(5, 6)
    assert means["damage"].probability == 1


def test_mean_over_the_outcomes_that_carry_the_field(volley):
    means = odds(volley, "strike").means()
    assert list(means) == ["damage"]  # critical is true/false: not a number
    assert (means["damage"].value, means["damage"].probability) == (Fraction(5, 2), Fraction(1, 3))


def test_marginal_takes_only_field_names(volley):
    from interpreter import UsageError

    with pytest.raises(UsageError):
        odds(volley, "volley").marginal([])
    with pytest.raises(UsageError):
        odds(volley, "volley").marginal([3])


def test_monte_carlo_standard_errors(volley):
    sample = monte_carlo(volley, "volley", trials=3000, seed=7)
    counts = {o.name: 0 for o, _ in sample.counts}
    for outcome, count in sample.counts:
        counts[outcome.name] += count
    share = counts["hit"] / 3000
    # the standard error of a share: sqrt(p (1 - p) / n)
    assert sample.standard_error("hit") == pytest.approx(math.sqrt(share * (1 - share) / 3000))
    estimates = {e.key: e for e in sample.marginal("outcome")}
    assert estimates[("hit",)].count == counts["hit"]
    assert estimates[("hit",)].standard_error == pytest.approx(math.sqrt(share * (1 - share) / 3000))
    # the exact 1/3 lies within four standard errors (a failure here is a 1-in-15,000 event)
    assert abs(share - 1 / 3) < 4 * estimates[("hit",)].standard_error
    # the mean damage and its standard error s / sqrt(n), from the counts by hand
    by_damage = {o.get("damage"): c for o, c in sample.counts}
    n = sum(by_damage.values())
    mean = sum(d * c for d, c in by_damage.items()) / n
    variance = sum((d - mean) ** 2 * c for d, c in by_damage.items()) / (n - 1)
    found = sample.means()["damage"]
    assert found.value == pytest.approx(mean)
    assert found.standard_error == pytest.approx(math.sqrt(variance / n))
    assert abs(found.value - 5 / 6) < 4 * found.standard_error


# ---- the command line -------------------------------------------------------------------------


def test_odds_by_outcome_text(volley_file):
    code, out, err = run(["odds", volley_file, "volley", "--by", "outcome"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1] == "by outcome:"
    assert lines[2].split()[:3] == ["miss", "2/3", "66.6667%"]
    assert lines[3].split()[:3] == ["hit", "1/3", "33.3333%"]
    assert lines[4] == "means:"
    assert lines[5].split() == ["mean", "damage", "5/6", "(0.8333)"]


def test_odds_by_field_with_digits(volley_file):
    code, out, err = run(["odds", volley_file, "volley", "--by", "damage", "--digits", "3"])
    assert code == 0, err
    rows = [line.split() for line in out.splitlines()[2:5]]
    # decimals only: 2/3 = 0.667, 1/6 = 0.167
    assert [row[:4] for row in rows] == [["damage", "=", "0", "0.667"], ["damage", "=", "2", "0.167"], ["damage", "=", "3", "0.167"]]
    assert "/" not in out  # no fractions at all
    assert out.splitlines()[-1].split() == ["mean", "damage", "0.833"]


def test_odds_json_has_means_and_the_marginal(volley_file):
    code, out, err = run(["odds", volley_file, "strike", "--by", "outcome", "--json", "--digits", "2"])
    assert code == 0, err
    document = json.loads(out)
    assert document["by"] == ["outcome"]
    assert document["marginal"] == [
        {"values": {"outcome": "miss"}, "probability": "2/3", "p": 0.67},
        {"values": {"outcome": "hit"}, "probability": "1/3", "p": 0.33},
    ]
    assert document["means"] == {"damage": {"mean": "5/2", "value": 2.5, "probability": "1/3"}}


def test_monte_carlo_json_has_standard_errors(volley_file):
    code, out, err = run(["run", volley_file, "volley", "--n", "1000", "--seed", "3", "--by", "outcome", "--json"])
    assert code == 0, err
    document = json.loads(out)
    for entry in document["outcomes"] + document["marginal"]:
        p = entry["count"] / 1000
        assert entry["p"] == p
        assert entry["standard_error"] == pytest.approx(math.sqrt(p * (1 - p) / 1000))
    assert set(document["means"]["damage"]) == {"value", "probability", "standard_error"}


def test_monte_carlo_text_shows_plus_minus(volley_file):
    code, out, err = run(["run", volley_file, "volley", "--n", "500", "--seed", "3"])
    assert code == 0, err
    assert all("±" in line for line in out.splitlines()[1:3]), out


def test_by_unknown_field_is_positioned(volley_file):
    argv = ["odds", volley_file, "volley", "--by", "outcome,dmg"]
    code, out, err = run(argv)
    assert (code, out) == (2, "")
    line = "wartable " + " ".join(argv)
    column = line.index("outcome,dmg") + len("outcome,") + 1  # the d of dmg
    assert err.splitlines()[0].startswith(f"<command line>:1:{column}: --by: outcomes of 'volley' have no field 'dmg'"), err
    assert err.splitlines()[2] == "    " + " " * (column - 1) + "^"
    assert "Traceback" not in err


def test_digits_out_of_range(volley_file):
    code, _, err = run(["odds", volley_file, "volley", "--digits", "40"])
    assert code == 2
    assert "--digits: at most 15 places" in err


def test_by_needs_many_plays_in_run(volley_file):
    code, _, err = run(["run", volley_file, "volley", "--by", "outcome", "--dice", "5"])
    assert code == 2
    assert "--by summarises many plays: give --n TRIALS too" in err


# ---- moments of a sample in integers -------------------------------------------------------------------


def test_counted_moments_by_hand():
    from interpreter.summaries import counted_moments

    # values 1 (twice) and 4 (once): k = 3, mean (1 + 1 + 4) / 3 = 2, squares 2 * (1 - 2)^2 + (4 - 2)^2 = 6
    assert counted_moments([(1, 2), (4, 1)]) == (3, Fraction(2), Fraction(6))
    # values -1 and 2, once each: mean 1/2, squares (3/2)^2 + (3/2)^2 = 9/2
    assert counted_moments([(-1, 1), (2, 1)]) == (2, Fraction(1, 2), Fraction(9, 2))


def test_counted_moments_are_the_fractions_summed_pair_by_pair():
    """The integer form (k S2 - S1^2) / k against the sum the summaries made before, pair by pair in Fractions."""
    import random

    from interpreter.summaries import counted_moments

    rng = random.Random(7)
    for _ in range(200):
        pairs = [(rng.randint(-10**20, 10**20) if rng.random() < 0.2 else rng.randint(-9, 9), rng.randint(1, 50))
                 for _ in range(rng.randint(1, 30))]
        k = sum(c for _, c in pairs)
        mean = sum((Fraction(v) * c for v, c in pairs), Fraction(0)) / k
        squares = sum((Fraction(v - mean) ** 2 * c for v, c in pairs), Fraction(0))
        assert counted_moments(pairs) == (k, mean, squares)


def test_a_sample_of_many_distinct_outcomes_is_summarised_as_before(tmp_path):
    # 2,000 plays of three d1000s: nearly every play a distinct outcome; the means and their errors (from the
    # integer moments) are those of the Fractions summed pair by pair
    path = tmp_path / "r.yaml"
    path.write_text(ruleset_text({"p": procedure("outcome o(x = 1d1000, y = 1d1000 - 500, z = 1d6)")}), encoding="utf-8")
    from interpreter import load_ruleset

    sample = monte_carlo(load_ruleset(path), "p", trials=2000, seed=3)
    for name, found in sample.means().items():
        pairs = [(dict(outcome.fields)[name], count) for outcome, count in sample.counts]
        mean = sum((Fraction(v) * c for v, c in pairs), Fraction(0)) / 2000
        variance = sum((Fraction(v - mean) ** 2 * c for v, c in pairs), Fraction(0)) / 1999
        assert (found.value, found.standard_error) == (float(mean), math.sqrt(variance / 2000))
