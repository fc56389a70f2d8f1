"""The Python API checks its arguments and answers with the project's own errors, never a TypeError."""

from __future__ import annotations

from fractions import Fraction

import pytest

from interpreter import UsageError, load_ruleset, odds, resolve
from interpreter.aid import player_aid
from interpreter.api import monte_carlo, odds_by_choice
from interpreter.diff import changes, odds_changes, what_if
from interpreter.limits import Limits
from interpreter.sweep import dimension_from_values, parse_dimension, run_sweep


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
    # the secondary functions, each checked by interpreter/arguments.py
    (lambda eto: odds(eto, "interception", {"zones": 7}, budget="x"), "budget must be a Budget (or None), not str"),
    (lambda eto: resolve(eto, "interception", {"zones": 7}, dice=[4], trace="yes"), "trace must be True or False, not str"),
    (lambda eto: odds_by_choice(eto, "interception", {"zones": 7}, max_combinations="64"), "max_combinations must be a whole number"),
    (lambda eto: odds_by_choice(eto, "interception", {"zones": 7}, progress=5), "progress must be a function (or None), not int"),
    (lambda eto: monte_carlo(eto, "interception", {"zones": 7}, trials=10, progress="bar"), "progress must be a function"),
    (lambda eto: player_aid("eto"), "the ruleset must be a ruleset from load_ruleset(...), not str"),
    (lambda eto: player_aid(eto, limits=5), "limits must be a Limits(...), not int"),
    (lambda eto: run_sweep(eto, "interception", "zones=1..3"), "dimensions are a list of Dimension"),
    (lambda eto: run_sweep(eto, "interception", ["zones=1..3"]), "each dimension must be a Dimension (from parse_dimension), not str"),
    (lambda eto: run_sweep(eto, "interception", [], budget=3), "budget must be a Budget (or None), not int"),
    (lambda eto: run_sweep(eto, "interception", [], by=[1]), "by must be a list of names (strings)"),
    (lambda eto: run_sweep("eto", "interception", []), "the ruleset must be a ruleset from load_ruleset"),
    (lambda eto: parse_dimension(eto, "interception", 5), "a dimension must be text such as 'zones=1..3', not int"),
    (lambda eto: dimension_from_values(eto, "interception", "zones", "123"), "the values are a list, not str"),
    (lambda eto: changes("eto", eto), "a ruleset must be a ruleset from load_ruleset(...), not str"),
    (lambda eto: odds_changes(None, None), "before must be a Distribution"),
    (lambda eto: what_if("eto", ["us_box_zones=3"]), "the ruleset must be a ruleset from load_ruleset"),
    (lambda eto: what_if(eto, [3]), "changes must be a list of names (strings)"),
    (lambda eto: odds(eto, "interception", {"zones": 7}).marginal(["nope"]), "procedure 'interception' has no field 'nope'"),
    (lambda eto: odds(eto, "interception", {"zones": 7}).marginal(["automatc"]), "did you mean 'automatic'?"),
    (lambda eto: odds(eto, "interception", {"zones": 7}).marginal([]), "name at least one"),
    (lambda eto: odds(eto, "interception", {"zones": 7}).probability("intercepted", automatc=True), "outcome 'intercepted' has no field 'automatc' (did you mean 'automatic'?"),
    (lambda eto: odds(eto, "interception", {"zones": 7}).probability(1), "an outcome is named by a string, not int"),
    (lambda eto: monte_carlo(eto, "interception", {"zones": 7}, trials=10, seed=1).standard_error(None), "an outcome is named by a string"),
    (lambda eto: monte_carlo(eto, "interception", {"zones": 1}, trials=10, seed=1).standard_error("intercepted", automatc=True),
     "outcome 'intercepted' has no field 'automatc' (did you mean 'automatic'?"),
])
def test_misuse_raises_a_usage_error(eto, call, fragment):
    with pytest.raises(UsageError) as info:
        call(eto)
    assert fragment in str(info.value)


def test_limits_none_means_the_defaults(eto):
    # row 7-8 lists 4, 5, 6: three faces of six
    assert odds(eto, "interception", {"zones": 7}, limits=None).probability("intercepted") == Fraction(1, 2)
    assert resolve(eto, "interception", {"zones": 7}, dice=[4], limits=None).outcome.name == "intercepted"


def test_a_field_of_an_impossible_outcome_is_not_a_mistake(eto):
    # zones 1: the interception is automatic (row 1-2), so not_intercepted has probability 0 and is absent
    # from the distribution; the outcome type still declares automatic, so asking is no mistake: 0
    distribution = odds(eto, "interception", {"zones": 1})
    assert distribution.probability("not_intercepted", automatic=False) == 0
    assert distribution.probability("intercepted", automatic=True) == 1
    assert distribution.marginal(["automatic"]).probability(True) == 1


def test_misuse_is_positioned_at_the_api_input(eto):
    with pytest.raises(UsageError) as info:
        odds(eto, "interception", {"zones": 7}, budget="x")
    (diagnostic,) = info.value.diagnostics
    assert (diagnostic.file, diagnostic.line, diagnostic.column) == ("<inputs>", 1, 1)
