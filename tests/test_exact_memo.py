"""Resolved calls in exact odds: results kept over reduced denominators, memo keys of the inputs read.

Issue 24 ("exact where it can be"): a callee whose die only chooses a branch weighs its outcomes
2 : 4 over 6, which is 1 : 2 over 3; kept reduced, the caller's denominators grow by 3 a call,
not 6.  And a callee is remembered by the inputs it reads: calls that differ only in an input it
never reads share one memo entry.  Every probability is counted by hand in a comment, and the
reference evaluator (which shares the memo's keys, runtime.Run.call_exact) must agree exactly.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_in, procedure

from interpreter import odds
from interpreter.limits import Limits
from interpreter.runtime import Run, reduced

ENGINES = ("compiled", "reference")

PROCEDURES = {
    # 1-2 hit, 3-6 miss: weights 2 and 4 of 6, that is 1 and 2 of 3.
    "shot": procedure("""
        if 1d6 <= 2 then
          outcome hit
        end
        outcome miss
    """),
    # two shots: hits counted; each shot's result over 3 (reduced), so the pair over 3 * 3 = 9
    "two_shots": procedure("""
        let first = resolve shot()
        let second = resolve shot()
        let hits = (if first.outcome == "hit" then 1 else 0) + (if second.outcome == "hit" then 1 else 0)
        outcome fired(hits = hits)
    """),
    # reads `need`, never `label`: its result depends on `need` alone
    "check": procedure("""
        if 1d6 >= need then
          outcome pass
        end
        outcome fail
    """, inputs="{need: {type: int, min: 1, max: 6}, label: {type: int, default: 0}}"),
    # calls check with the same need and a label that differs with the die: six calls, one result
    "labelled": procedure("""
        let tag = 1d6
        let result = resolve check(need = 5, label = tag)
        outcome done(passed = result.outcome == "pass")
    """),
    # the same through the general call path (the callee has a choice: its inputs are checked at the callee)
    "chosen": procedure("""
        if 1d6 >= need then
          outcome pass
        end
        outcome fail
    """, inputs="{need: {type: int, min: 1, max: 6}, label: {type: int, default: 0}}",
        choices="{style: {options: [plain, fancy], default: plain}}"),
    "labelled_choice": procedure("""
        let tag = 1d6
        let result = resolve chosen(need = 5, label = tag)
        outcome done(passed = result.outcome == "pass")
    """),
}


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("exact_memo"), PROCEDURES)


def test_reduced_takes_the_common_divisor_out():
    # 2 and 4 over 6: gcd 2 -> 1 and 2 over 3; 1 and 5 over 6: gcd 1, unchanged (the same dict)
    assert reduced({"a": 2, "b": 4}, 6) == ({"a": 1, "b": 2}, 3)
    weights = {"a": 1, "b": 5}
    assert reduced(weights, 6) == (weights, 6) and reduced(weights, 6)[0] is weights
    # one outcome, certain: 36 of 36 -> 1 of 1
    assert reduced({"a": 36}, 36) == ({"a": 1}, 1)


def test_a_callee_result_is_kept_over_its_reduced_denominator(ruleset):
    ruleset.exact_results.clear()
    assert odds(ruleset, "two_shots").probability("fired", hits=2) == Fraction(1, 9)  # (1/3) ** 2
    kept = [found for key, found in ruleset.exact_results.items() if key[0] == "shot"]
    assert len(kept) == 1
    outcomes, denom = kept[0]
    # hit 1, miss 2, over 3 (not 2 and 4 over 6)
    assert denom == 3 and sorted(weight for _, weight in outcomes) == [1, 2]


def test_the_callers_denominator_multiplies_by_the_reduced_one(ruleset):
    ruleset.exact_results.clear()
    program = ruleset.program("two_shots")
    weights, denom = program.exact(Run(ruleset, Limits()), (), 0)
    # two calls over 3 each: 9 (unreduced, 36); hits 0: 2*2 = 4, hits 1: 2*1 + 1*2 = 4, hits 2: 1
    assert denom == 9
    assert sorted(weights.values()) == [1, 4, 4]


@pytest.mark.parametrize("engine", ENGINES)
def test_two_shots_agree_with_the_hand_count(ruleset, engine):
    dist = odds(ruleset, "two_shots", engine=engine)
    # 0 hits: (2/3)^2 = 4/9; 1 hit: 2 * 1/3 * 2/3 = 4/9; 2 hits: 1/9
    assert [dist.probability("fired", hits=n) for n in (0, 1, 2)] == [Fraction(4, 9), Fraction(4, 9), Fraction(1, 9)]


@pytest.mark.parametrize("caller", ["labelled", "labelled_choice"])
@pytest.mark.parametrize("engine", ENGINES)
def test_a_callee_with_an_unread_input_gives_the_hand_count(ruleset, caller, engine):
    # need 5: faces 5 and 6 of 6 pass -> 1/3, whatever the label
    assert odds(ruleset, caller, engine=engine).probability("done", passed=True) == Fraction(1, 3)


@pytest.mark.parametrize("caller, callee", [("labelled", "check"), ("labelled_choice", "chosen")])
def test_calls_differing_in_an_unread_input_share_one_memo_entry(ruleset, caller, callee):
    # the compiled engine's memo (the ruleset's); labelled builds check's inputs at the call and keys
    # them by need alone (Run.call_exact_read), labelled_choice goes through Run.call_exact (chosen
    # has a choice, its inputs are checked at the callee)
    ruleset.exact_results.clear()
    assert odds(ruleset, caller).probability("done", passed=True) == Fraction(1, 3)
    # six labels (the tag's faces), one entry: `label` is never read by the callee (six before)
    assert sum(1 for key in ruleset.exact_results if key[0] == callee) == 1
    source = ruleset.program(caller).source
    assert ("call_exact_read('check'" in source) == (callee == "check")


def test_a_callee_reading_every_input_is_called_with_its_whole_tuple(ruleset):
    # shot has no input; two_shots calls it by the plain direct path (no projection to build)
    assert "call_exact_direct('shot'" in ruleset.program("two_shots").source


def test_the_inputs_read_are_worked_out_from_the_body(ruleset):
    # check's inputs tuple: need (place 0), label (place 1); only need is read
    assert ruleset.read_inputs("check") == (0,)
    # chosen: need, label, then the choice style (never read)
    assert ruleset.read_inputs("chosen") == (0,)
    # labelled reads no input at all (it has none): every place read, None
    assert ruleset.read_inputs("labelled") is None
