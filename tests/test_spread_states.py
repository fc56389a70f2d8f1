"""Exact odds spread every state over the values of a resolved procedure or a roll counted at run time.

A state that keeps all it had and adds the new value becomes one new state per value, so the
compiled engine stores those without looking them up (engine.exact_compound: ExactCompound._spread); a state that
loses a variable at the spread (read only as an argument) must still be merged with the states
it now equals.  Every value is counted by hand in a comment; the reference evaluator agrees.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_in, procedure

from interpreter import odds

ENGINES = ("compiled", "reference")

PROCEDURES = {
    "third": procedure("""
        let d = 1d3
        outcome rolled(x = d + n)
    """, inputs="{n: {type: int, default: 0}}"),
    # Both results stay: a then (a, b), nine states of one way each.
    "both_kept": procedure("""
        let a = resolve third()
        let b = resolve third()
        outcome sum(t = a.x + b.x)
    """),
    # a is read only as b's argument: after the second spread the states keep b alone, and the
    # three ways to reach each b.x are merged.
    "first_dropped": procedure("""
        let a = resolve third()
        let b = resolve third(n = a.x)
        outcome last(y = b.x)
    """),
    # Dice counted at run time (the count is an input): the same spread over their totals.
    "run_time_dice": procedure("""
        let a = dice(n, 2)
        let b = dice(n, 2)
        outcome difference(t = a - b)
    """, inputs="{n: {type: int, min: 0}}"),
}


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("spread"), PROCEDURES)


def _odds(ruleset, name, engine, **inputs) -> dict:
    dist = odds(ruleset, name, inputs, engine=engine)
    assert dist.truncated == 0
    return {tuple(outcome.fields_dict().values()): p for outcome, p in dist.outcomes}


@pytest.mark.parametrize("engine", ENGINES)
def test_two_results_kept_are_nine_states(ruleset, engine):
    # a.x + b.x over 3 x 3 equally likely pairs: 2 (1,1); 3 (1,2),(2,1); 4 three ways; 5 two; 6 one
    assert _odds(ruleset, "both_kept", engine) == {
        (2,): Fraction(1, 9), (3,): Fraction(2, 9), (4,): Fraction(3, 9), (5,): Fraction(2, 9), (6,): Fraction(1, 9),
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_a_result_read_only_as_an_argument_is_merged_away(ruleset, engine):
    # b.x = a.x + d with a.x and d each 1..3: the same counts as the sum above, reached after a
    # was dropped from the states (2: 1 way of 9, 3: 2, 4: 3, 5: 2, 6: 1)
    assert _odds(ruleset, "first_dropped", engine) == {
        (2,): Fraction(1, 9), (3,): Fraction(2, 9), (4,): Fraction(3, 9), (5,): Fraction(2, 9), (6,): Fraction(1, 9),
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_dice_counted_at_run_time(ruleset, engine):
    # one d2 each: a - b is 0 for (1,1),(2,2): 2 of 4; 1 for (2,1); -1 for (1,2)
    assert _odds(ruleset, "run_time_dice", engine, n=1) == {(0,): Fraction(1, 2), (1,): Fraction(1, 4), (-1,): Fraction(1, 4)}
    # two d2 each: totals 2, 3, 4 in 1, 2, 1 ways of 4; a - b = 0 in 1 + 4 + 1 = 6 ways of 16,
    # 1 and -1 in 2 + 2 = 4 ways, 2 and -2 in 1 way
    assert _odds(ruleset, "run_time_dice", engine, n=2) == {
        (0,): Fraction(6, 16), (1,): Fraction(4, 16), (-1,): Fraction(4, 16), (2,): Fraction(1, 16), (-2,): Fraction(1, 16),
    }
