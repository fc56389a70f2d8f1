"""Exact odds: hand-derived values, conservation of mass, truncation, open
choices, and agreement with Monte Carlo (a chi-square test at a fixed seed)
for every bundled procedure the rulesets' own examples exercise."""

from __future__ import annotations

import functools
import io
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter import load_ruleset, odds, resolve
from interpreter.api import monte_carlo, odds_by_choice
from interpreter.cli import main
from interpreter.limits import Limits
from interpreter.resources import bundled_names

# The cross-check runs every example's exact odds on whatever machine runs the suite:
# deterministic budgets (the defaults) but no wall clock, so a busy machine is not a failure.
NO_CLOCK = Limits(timeout=None)

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.yaml"


def write(tmp_path: Path, body: str, extra: str = "") -> Path:
    path = tmp_path / "r.yaml"
    path.write_text(
        "wartable: 1\nname: r\ntitle: r\nsource: test\nversion: '1'\n" + extra + "procedures:\n" + body, encoding="utf-8"
    )
    return path


# ---- hand-derived values ------------------------------------------------------------


@pytest.mark.parametrize(
    "zones, expected",
    [
        # seed 000 table: 1-2 Automatic; 3-4 lists 2..6 (5 of 6); 5-6 lists 3..6 (4 of 6);
        # 7-8 lists 4,5,6 (3 of 6); 9-10 lists 5,6 (2 of 6); 11+ lists 6 (1 of 6)
        (1, Fraction(1)), (2, Fraction(1)), (3, Fraction(5, 6)), (4, Fraction(5, 6)), (5, Fraction(2, 3)),
        (6, Fraction(2, 3)), (7, Fraction(1, 2)), (8, Fraction(1, 2)), (9, Fraction(1, 3)), (10, Fraction(1, 3)),
        (11, Fraction(1, 6)), (12, Fraction(1, 6)), (40, Fraction(1, 6)),
    ],
)
def test_eto_interception_odds_by_zones(zones, expected):
    distribution = odds(load_ruleset("eto"), "interception", {"zones": zones})
    assert distribution.probability("intercepted") == expected
    assert distribution.probability("not_intercepted") == 1 - expected


@pytest.mark.parametrize(
    "drm, expected",
    [
        # success when 2d6 + drm <= 3, i.e. 2d6 <= 3 - drm; ways to roll <= t with 2d6:
        # t=2:1, t=3:3, t=4:6, t=5:10, t=6:15 (out of 36)
        (0, Fraction(3, 36)), (-1, Fraction(6, 36)), (-2, Fraction(10, 36)), (-3, Fraction(15, 36)),
        (1, Fraction(1, 36)), (2, Fraction(0)),
    ],
)
def test_two_dice_plus_drm(drm, expected):
    assert odds(load_ruleset(BENCH), "drm_roll", {"drm": drm}).probability("success") == expected


def test_minefield_hand_values():
    bench = load_ruleset(BENCH)
    # 5 mines, 3 ships, detonation on 1-2 (1/3), stop when all 3 are lost:
    # lose 0: (2/3)^5 = 32/243; lose 1: 5 * (1/3) * (2/3)^4 = 80/243;
    # lose 2: C(5,2) (1/3)^2 (2/3)^3 = 80/243; lose 3: the rest = 51/243 = 17/81
    distribution = odds(bench, "minefield", {"mines": 5, "ships": 3})
    assert distribution.probability("crossed", lost=0) == Fraction(32, 243)
    assert distribution.probability("crossed", lost=1) == Fraction(80, 243)
    assert distribution.probability("crossed", lost=2) == Fraction(80, 243)
    assert distribution.probability("crossed", lost=3) == Fraction(17, 81)
    # 100 mines, 10 ships: surviving with none lost is (2/3)^100
    big = odds(bench, "minefield", {"mines": 100, "ships": 10})
    assert big.probability("crossed", lost=0) == Fraction(2, 3) ** 100
    assert sum(p for _, p in big.outcomes) == 1


def test_thirty_dice():
    distribution = odds(load_ruleset(BENCH), "sum_of_dice", {"count": 30})
    # the lowest total needs every die on 1: (1/6)^30; 31 needs one die on 2: 30/6^30
    assert distribution.probability("total", value=30) == Fraction(1, 6**30)
    assert distribution.probability("total", value=31) == Fraction(30, 6**30)
    assert len(distribution.outcomes) == 151  # totals 30..180


def test_while_limit_reports_truncated_mass(tmp_path):
    ruleset = load_ruleset(write(tmp_path, """\
  explode:
    title: exploding d6
    rule: test
    body: |
      let total = 0
      let again = true
      while again limit 20 do
        let d = 1d6
        set total = total + d
        set again = d == 6
      end
      outcome done(high = total >= 7)
"""))
    distribution = odds(ruleset, "explode")
    # twenty sixes in a row still want to roll again: (1/6)^20 is dropped
    assert distribution.truncated == Fraction(1, 6**20)
    assert distribution.truncated < Fraction(1, 10**12)
    # a total of 7 or more needs a first six: 1/6, less the dropped mass
    assert distribution.probability("done", high=True) == Fraction(1, 6) - Fraction(1, 6**20)
    assert sum(p for _, p in distribution.outcomes) + distribution.truncated == 1


def test_open_choice_gives_one_distribution_per_option(tmp_path):
    ruleset = load_ruleset(write(tmp_path, """\
  duel:
    title: duel
    rule: test
    choices:
      stance: {options: [bold, careful], default: careful}
    body: |
      let need = if stance == "bold" then 3 else 5
      if 1d6 >= need then
        outcome hit
      else
        outcome miss
      end
"""))
    results = {chosen["stance"]: d for chosen, d in odds_by_choice(ruleset, "duel")}
    assert results["bold"].probability("hit") == Fraction(4, 6)  # 3,4,5,6
    assert results["careful"].probability("hit") == Fraction(2, 6)  # 5,6
    out, err = io.StringIO(), io.StringIO()
    assert main(["odds", str(tmp_path / "r.yaml"), "duel"], stdout=out, stderr=err) == 0
    text = out.getvalue()
    assert "with stance = bold:" in text and "with stance = careful:" in text
    assert "2/3" in text and "1/3" in text
    out = io.StringIO()
    assert main(["odds", str(tmp_path / "r.yaml"), "duel", "--choose", "stance=bold", "--json"], stdout=out, stderr=err) == 0
    document = json.loads(out.getvalue())
    assert [o["probability"] for o in document["outcomes"] if o["name"] == "hit"] == ["2/3"]
    assert document["truncated"] == "0/1"


# ---- every bundled procedure: mass conserved, Monte Carlo agrees -----------------------


@functools.cache
def bundled(name: str):
    """Each bundled ruleset loaded once for this module (rulesets are immutable)."""
    return load_ruleset(name)


def _chi_square_threshold(degrees: int) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile at p = 0.001."""
    z = 3.0902
    return degrees * (1 - 2 / (9 * degrees) + z * math.sqrt(2 / (9 * degrees))) ** 3


def _example_cases():
    cases = []
    for name in bundled_names():
        ruleset = bundled(name)
        seen = set()
        for example in ruleset.examples:
            data = example.data
            if "violation" in data:
                continue
            key = (example.procedure, json.dumps(data.get("inputs") or {}, sort_keys=True), json.dumps(data.get("choices") or {}, sort_keys=True))
            if key in seen:
                continue
            seen.add(key)
            cases.append(pytest.param(name, example.procedure, data.get("inputs") or {}, data.get("choices") or {}, id=f"{name}:{example.name}"))
    return cases


def test_every_bundled_procedure_has_an_example():
    missing = []
    for name in bundled_names():
        ruleset = bundled(name)
        covered = {e.procedure for e in ruleset.examples if "violation" not in e.data}
        missing += [f"{name}.{p}" for p in ruleset.procedures if p not in covered]
    assert missing == []


@pytest.mark.parametrize("ruleset_name, procedure, inputs, choices", _example_cases())
def test_odds_sum_to_one_and_agree_with_monte_carlo(ruleset_name, procedure, inputs, choices):
    ruleset = bundled(ruleset_name)
    exact = odds(ruleset, procedure, inputs, choices=choices, limits=NO_CLOCK)
    assert sum(p for _, p in exact.outcomes) + exact.truncated == 1
    assert exact.truncated < Fraction(1, 10**12)
    trials = 600
    sample = monte_carlo(ruleset, procedure, inputs, trials=trials, seed=20261123, choices=choices, limits=NO_CLOCK)
    observed = dict(sample.counts)
    # every outcome seen must be possible
    assert set(observed) <= {o for o, _ in exact.outcomes}
    # pool outcomes expected fewer than 5 times into one bin
    bins, pooled_expected, pooled_observed = [], 0.0, 0
    for outcome, p in exact.outcomes:
        expected = float(p) * trials
        if expected < 5:
            pooled_expected += expected
            pooled_observed += observed.get(outcome, 0)
        else:
            bins.append((expected, observed.get(outcome, 0)))
    if pooled_expected > 0:
        bins.append((pooled_expected, pooled_observed))
    if len(bins) < 2:
        return  # a certain outcome: nothing to test beyond the subset check
    statistic = sum((o - e) ** 2 / e for e, o in bins)
    assert statistic < _chi_square_threshold(len(bins) - 1), (statistic, bins)


def test_monte_carlo_cli_is_seeded_and_reproducible():
    runs = []
    for _ in range(2):
        out, err = io.StringIO(), io.StringIO()
        code = main(["run", "eto", "interception", "--set", "zones=7", "--n", "2000", "--seed", "7", "--json"], stdout=out, stderr=err)
        assert code == 0
        runs.append(json.loads(out.getvalue()))
    assert runs[0] == runs[1]
    assert runs[0]["trials"] == 2000 and runs[0]["seed"] == 7
    counts = {o["name"]: o["count"] for o in runs[0]["outcomes"]}
    assert sum(counts.values()) == 2000
    # 1/2 each way: 2000 trials leave the count within 5 standard deviations (sd = sqrt(500) ~ 22.4) of 1000
    assert abs(counts["intercepted"] - 1000) < 5 * 22.4


def test_replaying_a_seed_replays_the_dice():
    eto = load_ruleset("eto")
    first = resolve(eto, "interception", {"zones": 9})
    again = resolve(eto, "interception", {"zones": 9}, seed=first.seed)
    assert first.seed is not None
    assert again.dice == first.dice and again.outcome == first.outcome


def test_choose_reaches_a_choice_of_a_resolved_procedure():
    # eia column_attack resolves tactical_contest, whose choice defender_intent decides evading.
    # Seed 003: "The defender chooses whether he wants to gain first strike or evade combat ...
    # If one side wins, they get what they wanted." Scripted: attacker 2, defender 5 -> the
    # defender wins the contest; with evade chosen the columns do not fight.
    argv = ["run", "eia", "column_attack", "--set", "attacker=[{kind: warship}]", "--set", "defender=[{kind: warship}]",
            "--choose", "defender_intent=evade", "--dice", "2,5", "--json"]
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, stdout=out, stderr=err) == 0, err.getvalue()
    assert json.loads(out.getvalue())["outcome"]["name"] == "evaded"
    # an option the nested choice does not have is a usage error on the command line
    out, err = io.StringIO(), io.StringIO()
    argv[argv.index("defender_intent=evade")] = "defender_intent=flee"
    assert main(argv, stdout=out, stderr=err) == 2
    assert "choice 'defender_intent' must be one of" in err.getvalue()
