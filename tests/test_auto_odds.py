"""``odds --auto`` / estimate.auto_odds: exact when it fits a share of the budget, else sampled to a standard error.

The test procedure's state space is known: ``digits`` keeps the total of n dice in base 7
(one digit a die, 1 to 6), so every sequence of dice is its own state: 6**n states, and
exact odds cost about 7.6 units of work a state (measured: n=5 59,112; n=6 354,602).
n = 3 (216 states, 1,652 units) fits a quarter of the default 2,000,000; n = 12 (2.2e9
states) never could.
"""

from __future__ import annotations

import io
import json
import math

import pytest
from conftest import procedure, ruleset_text

from interpreter.api import odds
from interpreter.cli import main
from interpreter.errors import UsageError
from interpreter.estimate import (
    FIRST_CHUNKS,
    PROBE_SHARE,
    auto_odds,
    estimated_outcomes,
)
from interpreter.limits import LimitExceeded, Limits
from interpreter.parallel import CHUNK_PLAYS

DIGITS = procedure("let t = 0\nfor i in 1 .. n do\n  set t = t * 7 + 1d6\nend\noutcome o(t = t)", inputs="{n: {type: int}}")
# the same states, and one outcome of two: whether the last die was even (a share of exactly 1/2)
PARITY = procedure("let t = 0\nfor i in 1 .. n do\n  set t = t * 7 + 1d6\nend\noutcome o(even = t % 2 == 0)", inputs="{n: {type: int}}")
GROWS = procedure("let x = 2\nfor i in 1 .. 100 do\n  set x = x * x\nend\noutcome o(x = x)")


@pytest.fixture
def rules(make_ruleset):
    return make_ruleset({"digits": DIGITS, "parity": PARITY, "grows": GROWS})


def test_a_small_procedure_goes_exact(rules):
    found = auto_odds(rules, "digits", {"n": 3})
    assert found.mode == "exact" and found.sample is None and found.label() == "exact"
    assert found.distribution.outcomes == odds(rules, "digits", {"n": 3}).outcomes
    assert len(found.distribution.outcomes) == 6**3


def test_a_big_procedure_is_sampled_until_the_standard_error_is_met(rules):
    # exact would hold 6**12 states: the attempt runs out of its quarter of the work (500,000 units) and sampling
    # takes over.  The share of `even` is 1/2, so p(1 - p) is about 0.25 and se = 0.005 needs 0.25 / 0.005**2 =
    # 10,000 plays: after the first 4 chunks (4,000 plays) the counted share (within a few points of 1/2, so
    # p(1 - p) > 0.225) asks for ceil(p(1 - p) / 0.000025 / 1,000) = 10 chunks; at 10,000 plays the error is at
    # most sqrt(0.25 / 10,000) = 0.005: done.
    found = auto_odds(rules, "parity", {"n": 12}, se=0.005, seed=9)
    assert found.mode == "sampled" and found.distribution is None
    assert found.sample.trials == 10_000 and found.standard_error <= 0.005 and found.requested_se == 0.005
    assert found.exact_work is not None and found.exact_work > PROBE_SHARE * Limits().max_work
    shares = {outcome.get("even"): count / found.sample.trials for outcome, count in found.sample.counts}
    assert abs(shares[True] - 0.5) < 4 * found.standard_error
    assert found.label().startswith(f"sampled (exact would need more than {found.exact_work:,} units of work")
    assert found.label().endswith("10,000 plays, ± " + f"{found.standard_error:.4f}")


def test_rare_outcomes_stop_after_the_first_batch(rules):
    # every play its own outcome (6**12 totals): no share is above a few in 4,000, so the first batch of
    # FIRST_CHUNKS chunks already has a standard error far below 0.005 (and the name's share is 1: no error)
    found = auto_odds(rules, "digits", {"n": 12}, seed=1)
    assert found.sample.trials == FIRST_CHUNKS * CHUNK_PLAYS == 4_000
    # Chao1: nearly every outcome seen once, so the estimate is far above the 4,000 plays
    assert estimated_outcomes(found.sample) > 100_000


def test_sampling_is_the_same_for_any_number_of_workers(rules):
    one = auto_odds(rules, "parity", {"n": 12}, se=0.01, seed=4, jobs=1)
    two = auto_odds(rules, "parity", {"n": 12}, se=0.01, seed=4, jobs=2)
    assert one.sample.counts == two.sample.counts and one.sample.trials == two.sample.trials


def test_lifted_budgets_stay_exact(rules):
    # n = 6 needs 354,602 units: more than a quarter of max_work=1,000,000 (250,000), so it is sampled;
    # with the work and state budgets lifted there is nothing to run out of (but time): exact
    assert auto_odds(rules, "digits", {"n": 6}, limits=Limits(max_work=1_000_000)).mode == "sampled"
    assert auto_odds(rules, "digits", {"n": 6}, limits=Limits(max_work=None, max_states=None)).mode == "exact"


def test_other_breaches_are_errors_not_samples(rules):
    # an integer past 64 bits is a mistake in the rules: sampling it would only hide it
    with pytest.raises(LimitExceeded) as caught:
        auto_odds(rules, "grows")
    assert caught.value.limit == "max_int_bits"


@pytest.mark.parametrize("se", [0, 0.5, 2, -0.1, float("nan"), "0.01", True, 0.00001])
def test_bad_standard_errors_are_refused(rules, se):
    with pytest.raises(UsageError, match="se is a standard error"):
        auto_odds(rules, "digits", {"n": 3}, se=se)


def test_estimated_outcomes_by_hand(rules):
    # counts 3, 2, 1, 1, 1: 5 seen, f1 = 3, f2 = 1: 5 + 3 * 2 // (2 * 2) = 6
    from interpreter.api import Sample
    from interpreter.values import OutcomeValue

    counts = tuple((OutcomeValue("o", (("t", i),)), c) for i, c in enumerate([3, 2, 1, 1, 1]))
    assert estimated_outcomes(Sample("t", "digits", {}, 1, 8, counts)) == 6


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def rules_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.yaml").write_text(ruleset_text({"digits": DIGITS, "parity": PARITY}), encoding="utf-8")
    return "r.yaml"


def test_cli_labels_exact_and_sampled(rules_file):
    code, out, _ = run_cli(["odds", rules_file, "digits", "--set", "n=2", "--auto", "--json"])
    document = json.loads(out)
    assert code == 0 and document["mode"] == "exact" and len(document["outcomes"]) == 36
    code, out, _ = run_cli(["odds", rules_file, "parity", "--set", "n=12", "--auto", "--se", "0.01", "--jobs", "2", "--json"])
    document = json.loads(out)
    # se 0.01: 0.25 / 0.01**2 = 2,500 plays, fewer than the first batch: 4,000 plays, error sqrt(~0.25 / 4,000) ~ 0.0079
    assert code == 0 and document["mode"] == "sampled" and document["trials"] == 4_000
    assert document["requested_se"] == 0.01 and document["standard_error"] <= 0.01
    assert math.isclose(document["standard_error"], math.sqrt(0.25 / 4_000), rel_tol=0.01)
    code, out, _ = run_cli(["odds", rules_file, "parity", "--set", "n=12", "--auto", "--se", "0.01", "--seed", "3"])
    assert code == 0 and out.startswith("sampled (exact would need more than ") and ": 4,000 plays, ± 0.00" in out.splitlines()[0]
    assert "(seed 3)" in out


def test_plain_odds_over_budget_says_to_sample(rules_file):
    code, _, err = run_cli(["odds", rules_file, "digits", "--set", "n=6", "--max-work", "100000"])
    # the flag that raises the budget, and the two ways to sample; the API's Limits(...) is not a command-line user's
    assert code == 1 and "needs more than 100,000 units of work (max_work; raise it with --max-work N, 0: no limit)" in err
    assert "or sample instead: `odds --auto` (±0.005) or `run --n 10000`" in err and "Limits(" not in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--se", "0.01"], "--se says how --auto samples: give --auto too"),
    (["--jobs", "2"], "--jobs says how --auto samples: give --auto too"),
    (["--seed", "2"], "--seed says how --auto samples: give --auto too"),
    (["--auto", "--se", "2"], "--se takes a standard error from 0.0001 to below 0.5"),
    (["--auto", "--se", "nan"], "--se takes a standard error"),
    (["--auto", "--jobs", "0"], "--jobs takes a whole number"),
    (["--auto", "--jobs", "100000"], "--jobs: at most 256 worker processes"),
    (["--auto", "--what-if", "x=1"], "--auto and --what-if: give one"),
])
def test_bad_auto_options_are_positioned(rules_file, argv, message):
    code, _, err = run_cli(["odds", rules_file, "digits", "--set", "n=2", *argv])
    assert code == 2 and message in err and err.startswith("<command line>:1:")
