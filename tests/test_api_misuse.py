"""The Python API checks its arguments and answers with the project's own errors, never a TypeError."""

from __future__ import annotations

from fractions import Fraction

import pytest

from interpreter import UsageError, load_ruleset, odds, resolve
from interpreter.api import monte_carlo, odds_by_choice
from interpreter.limits import Limits


@pytest.fixture(scope="module")
def eto():
    return load_ruleset("eto")


@pytest.mark.parametrize("call, fragment", [
    (lambda eto: resolve("eto", "interception", {"zones": 7}, dice=[4]), "expected a ruleset"),
    (lambda eto: resolve(eto, 7, {"zones": 7}, dice=[4]), "named by a string"),
    (lambda eto: resolve(eto, "interception", [("zones", 7)], dice=[4]), "inputs are a mapping"),
    (lambda eto: resolve(eto, "interception", {7: 7}, dice=[4]), "input names are strings"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, dice=["a"]), "a scripted die face must be a whole number"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, dice="4"), "dice are a list of die faces"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, dice=4), "dice are a list of die faces"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, dice=[0]), "from 1"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, dice=[10**5000]), "from 1 to 2**64 - 1"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, seed="x"), "the seed must be a whole number"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, seed=-1), "the seed must be a whole number"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, seed=1, dice=[4]), "not both"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, dice=[4], choices=["a"]), "choices are a mapping"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, dice=[4], limits="fast"), "limits are a Limits"),
    (lambda eto: resolve(eto, "interception", {"zones": 10**5000}, dice=[4]), "at most 64 bits"),
    (lambda eto: resolve(eto, "interception", {"zones": "7"}, dice=[4]), "must be a whole number"),
    (lambda eto: odds(eto, "interception", "zones=7"), "inputs are a mapping"),
    (lambda eto: odds(eto, "no_such_procedure"), "has no procedure 'no_such_procedure'"),
    # a choice the procedure (and every procedure it resolves) lacks: refused, not ignored
    (lambda eto: odds(eto, "interception", {"zones": 7}, choices={"zone": "7"}), "has no choice 'zone' (choices: none)"),
    (lambda eto: monte_carlo(eto, "interception", {"zones": 7}, trials=10, choices={"x": "y"}), "has no choice 'x'"),
    (lambda eto: odds_by_choice(eto, "interception", {"zones": 7}, limits=3), "limits are a Limits"),
    (lambda eto: monte_carlo(eto, "interception", {"zones": 7}, trials="10"), "trials must be a whole number"),
    (lambda eto: monte_carlo(eto, "interception", {"zones": 7}, trials=0), "trials must be a whole number from 1"),
    (lambda eto: monte_carlo(eto, "interception", {"zones": 7}, trials=10, seed=1.5), "the seed must be a whole number"),
    (lambda eto: Limits(max_states=-1), "Limits.max_states must be a positive number"),
])
def test_misuse_raises_a_usage_error(eto, call, fragment):
    with pytest.raises(UsageError) as info:
        call(eto)
    assert fragment in str(info.value)


def test_limits_none_means_the_defaults(eto):
    # row 7-8 lists 4, 5, 6: three faces of six
    assert odds(eto, "interception", {"zones": 7}, limits=None).probability("intercepted") == Fraction(1, 2)
    assert resolve(eto, "interception", {"zones": 7}, dice=[4], limits=None).outcome.name == "intercepted"
