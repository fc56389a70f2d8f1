"""Monte Carlo in fixed-seed chunks (interpreter/parallel.py): the same counts for any number of workers.

The counts are checked against a hand loop that draws the dice the way the documented
derivation says (chunk k of a run seeded s: random.Random(chunk_seed(s, k)), chunk 0 being
random.Random(s) itself), so a test fails if the derivation, the chunk size or the merge changes.
"""

from __future__ import annotations

import hashlib
import io
import json
import random

import pytest
from conftest import procedure, ruleset_text

from interpreter.api import monte_carlo, odds
from interpreter.cli import main
from interpreter.errors import RuleViolation, UsageError
from interpreter.limits import Budget, LimitExceeded, Limits
from interpreter.parallel import CHUNK_PLAYS, chunk_seed, chunks, default_jobs
from interpreter.sweep import parse_dimension, run_sweep

FACE = procedure("let r = 1d6\noutcome face(r = r)")
# the total in base 7, one digit a die: every sequence of n dice gives its own total, so exact odds hold 6**n states
DIGITS = procedure("let t = 0\nfor i in 1 .. n do\n  set t = t * 7 + 1d6\nend\noutcome o(t = t)", inputs="{n: {type: int}}")
FAILS_LATE = procedure("let r = 1d6\nlet s = 1d6\nlet u = 1d6\nrequire not (r == 6 and s == 6 and u == 6), \"three sixes\"\noutcome ok()")


@pytest.fixture
def rules(make_ruleset):
    return make_ruleset({"face": FACE, "digits": DIGITS, "fails_late": FAILS_LATE})


def hand_counts(seed: int, trials: int, one_play) -> dict[int, int]:
    """Counts of ``one_play(draw)`` over ``trials`` plays, drawn chunk by chunk as parallel.py documents (a die is
    int(draw() * 6) + 1)."""
    counts: dict[int, int] = {}
    for index, plays in chunks(trials):
        draw = random.Random(chunk_seed(seed, index)).random
        for _ in range(plays):
            key = one_play(draw)
            counts[key] = counts.get(key, 0) + 1
    return counts


def hand_faces(seed: int, trials: int) -> dict[int, int]:
    """One d6 a play."""
    return hand_counts(seed, trials, lambda draw: int(draw() * 6) + 1)


def faces(sample) -> dict[int, int]:
    return {outcome.get("r"): count for outcome, count in sample.counts}


def test_chunk_seeds_are_the_documented_derivation():
    # chunk 0 is the run's own seed; chunk k > 0 the first 8 bytes of SHA-256("wartable chunk {seed} {k}")
    assert chunk_seed(7, 0) == 7
    assert chunk_seed(7, 1) == int.from_bytes(hashlib.sha256(b"wartable chunk 7 1").digest()[:8], "big")
    assert chunk_seed(7, 2) != chunk_seed(7, 1) != chunk_seed(8, 1)


def test_chunks_of_a_run_that_is_not_a_multiple_of_the_chunk_size():
    assert CHUNK_PLAYS == 1_000
    assert chunks(2_500) == [(0, 1_000), (1, 1_000), (2, 500)]
    assert chunks(1_000) == [(0, 1_000)]
    assert chunks(1) == [(0, 1)]


def test_counts_are_the_hand_loop_and_equal_for_any_number_of_workers(rules):
    # 2,500 plays: chunks of 1,000, 1,000 and 500, each from its own stream
    expected = hand_faces(11, 2_500)
    assert sum(expected.values()) == 2_500
    for jobs in (1, 2, 3):
        assert faces(monte_carlo(rules, "face", trials=2_500, seed=11, jobs=jobs)) == expected


def test_a_run_of_one_chunk_draws_the_dice_it_always_drew(rules):
    # up to CHUNK_PLAYS plays, chunk 0 is random.Random(seed): the single stream of before
    draw = random.Random(5).random
    expected: dict[int, int] = {}
    for _ in range(700):
        face = int(draw() * 6) + 1
        expected[face] = expected.get(face, 0) + 1
    assert faces(monte_carlo(rules, "face", trials=700, seed=5, jobs=2)) == expected


def test_both_engines_count_alike_across_workers(rules):
    compiled = monte_carlo(rules, "digits", {"n": 2}, trials=2_100, seed=3, jobs=1)
    reference = monte_carlo(rules, "digits", {"n": 2}, trials=2_100, seed=3, jobs=2, engine="reference")
    assert compiled.counts == reference.counts
    assert sum(count for _, count in compiled.counts) == 2_100


def test_progress_runs_to_the_end_across_workers(rules):
    seen: list[tuple[int, int]] = []
    monte_carlo(rules, "face", trials=3_000, seed=1, jobs=2, progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 3_000) and seen[-1] == (3_000, 3_000)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_an_error_in_a_worker_is_the_error_of_one_process(rules):
    # three sixes (1 chance in 216) come within 3,000 plays: the same error, at the same place, for any jobs
    errors = []
    for jobs in (1, 2):
        with pytest.raises(RuleViolation) as caught:
            monte_carlo(rules, "fails_late", trials=3_000, seed=2, jobs=jobs)
        errors.append(caught.value.format())
    assert errors[0] == errors[1] and "three sixes" in errors[0]


@pytest.mark.parametrize("jobs", [0, -1, True, 1.5, "2", 10_000])
def test_bad_jobs_are_refused(rules, jobs):
    with pytest.raises(UsageError, match="jobs"):
        monte_carlo(rules, "face", trials=10, seed=1, jobs=jobs)


def test_default_jobs_is_at_least_one():
    assert default_jobs() >= 1


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def rules_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.yaml").write_text(ruleset_text({"face": FACE, "digits": DIGITS}), encoding="utf-8")
    return "r.yaml"


def test_run_n_jobs_1_and_2_print_the_same_counts(rules_file):
    outputs = [run_cli(["run", rules_file, "face", "--n", "2500", "--seed", "4", "--jobs", jobs, "--json"]) for jobs in ("1", "2")]
    assert outputs[0][0] == 0 and outputs[0] == outputs[1]
    counts = {entry["fields"]["r"]: entry["count"] for entry in json.loads(outputs[0][1])["outcomes"]}
    assert counts == hand_faces(4, 2_500)


def test_jobs_without_n_is_refused(rules_file):
    code, _, err = run_cli(["run", rules_file, "face", "--jobs", "2"])
    assert code == 2 and "--jobs shares out many plays: give --n TRIALS too" in err


def test_sweep_jobs_1_and_2_give_the_same_table(rules_file):
    outputs = [run_cli(["sweep", rules_file, "digits", "--over", "n=1..4", "--jobs", jobs, "--format", "json"]) for jobs in ("1", "2")]
    assert outputs[0][0] == 0 and outputs[0] == outputs[1]


# ---- a budget per sweep row --------------------------------------------------------------------------
# Exact odds of `digits` cost 6**n * ~7.6 units of work (measured: n=4: 9,862; n=5: 59,112; n=6: 354,602),
# plus EXACT_CALL_WORK (64) for the row's call.  Rows n = 1..5 each fit in 60,000; together they need
# 52 + 282 + 1,652 + 9,862 + 59,112 + 5 * 64 = 71,280: more than one shared budget of 60,000.


def test_each_sweep_row_has_its_own_work_budget(rules):
    dimension = parse_dimension(rules, "digits", "n=1..5")
    limits = Limits(max_work=60_000)
    swept = run_sweep(rules, "digits", [dimension], limits=limits)
    assert [len(cell.distribution.outcomes) for cell in swept.cells] == [6, 36, 216, 1_296, 7_776]
    with pytest.raises(LimitExceeded):  # the same rows under one shared budget (a player aid's heat maps)
        run_sweep(rules, "digits", [dimension], budget=Budget(limits))


def test_a_sweep_row_over_its_budget_is_named(rules_file):
    code, _, err = run_cli(["sweep", rules_file, "digits", "--over", "n=4..6", "--max-work", "60000", "--jobs", "1"])
    assert code == 1 and "in the row n=6: this procedure needs more than 60,000 units of work" in err


def test_the_row_is_named_from_a_worker_too(rules_file):
    code, _, err = run_cli(["sweep", rules_file, "digits", "--over", "n=4..6", "--max-work", "60000", "--jobs", "2"])
    assert code == 1 and "in the row n=6:" in err


def test_per_row_odds_equal_plain_odds(rules):
    swept = run_sweep(rules, "digits", [parse_dimension(rules, "digits", "n=2..3")], jobs=2)
    assert [cell.distribution.outcomes for cell in swept.cells] == [odds(rules, "digits", {"n": n}).outcomes for n in (2, 3)]


def test_a_workers_result_travels_back_whatever_its_fractions_size():
    # Python 3.10 pickles a Fraction through str(), refused past 4,300 digits: a sweep row of 1,450 rolls'
    # odds never came back from its worker (tests/test_long_fractions.py::test_sweep_every_format timed out)
    import pickle
    from fractions import Fraction

    from interpreter.parallel import _packed

    huge = Fraction(10**5000 + 1, 3 * 10**4400 + 7)
    assert pickle.loads(_packed({"row": huge, "n": 2})) == {"row": huge, "n": 2}


# ---- distinct outcomes a sample counts: at most max_states ---------------------------------------------------
# Without a bound, a procedure whose outcome holds three d1000s sampled a million times kept about a million distinct
# outcomes (2.3 GB with two workers, 65 s against the 20 s timeout). Chunks are added up in chunk order as they come
# in, and the run stops at the chunk that passes max_states, whatever the number of workers.


def hand_digits(seed: int, trials: int) -> dict[int, int]:
    """`digits` with n = 2: t = (0 * 7 + d1) * 7 + d2, one total per pair of faces (d1 drawn first)."""
    return hand_counts(seed, trials, lambda draw: (int(draw() * 6) + 1) * 7 + int(draw() * 6) + 1)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_sample_of_more_distinct_outcomes_than_max_states_is_refused(rules, jobs):
    # two dice give 6 * 6 = 36 totals, all distinct (7a + b); the first chunk of seed 1 shows every one of them
    assert len(hand_digits(1, 1_000)) == 36
    with pytest.raises(LimitExceeded) as caught:
        monte_carlo(rules, "digits", {"n": 2}, trials=3_000, seed=1, limits=Limits(max_states=35), jobs=jobs)
    (diagnostic,) = caught.value.diagnostics
    assert caught.value.limit == "max_states"
    assert diagnostic.message == ("a sample would count more than 35 distinct outcomes "
                                  "(max_states; raise it with --max-states N (0 for no limit) or Limits(max_states=...))")
    assert diagnostic.line_text.strip() == "let t = 0"  # the procedure's first statement: the sample, not one play


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_sample_of_as_many_distinct_outcomes_as_max_states_is_counted(rules, jobs):
    # the same 36 totals, 36 allowed: the limit counts distinct outcomes, not plays (3,000 of them)
    sample = monte_carlo(rules, "digits", {"n": 2}, trials=3_000, seed=1, limits=Limits(max_states=36), jobs=jobs)
    assert {outcome.get("t"): count for outcome, count in sample.counts} == hand_digits(1, 3_000)


def test_max_states_0_lifts_the_bound_on_a_sample_and_the_command_names_the_flag(rules_file):
    refused = run_cli(["run", rules_file, "digits", "--set", "n=2", "--n", "2000", "--seed", "1", "--max-states", "35"])
    assert refused[0] == 1 and refused[1] == ""
    assert "r.yaml:" in refused[2] and "a sample would count more than 35 distinct outcomes" in refused[2]
    assert "--max-states N (0 for no limit)" in refused[2] and "Traceback" not in refused[2]
    lifted = run_cli(["run", rules_file, "digits", "--set", "n=2", "--n", "2000", "--seed", "1", "--max-states", "0", "--json"])
    assert lifted[0] == 0
    counts = {entry["fields"]["t"]: entry["count"] for entry in json.loads(lifted[1])["outcomes"]}
    assert counts == hand_digits(1, 2_000)


def test_odds_auto_samples_within_max_states_too(rules_file):
    # 36 states are too many for exact odds under --max-states 35, so --auto samples, and its sample holds 36 outcomes
    code, out, err = run_cli(["odds", rules_file, "digits", "--set", "n=2", "--auto", "--seed", "1", "--max-states", "35"])
    assert code == 1 and out == ""
    assert "a sample would count more than 35 distinct outcomes" in err
