"""One runtime for both back ends (issue 22): the reference evaluator walks the tree, runtime does the rest.

The evaluator once kept its own copies of the state algebra, dice counting,
limits, callee binding and error texts; these tests pin what sharing them
means: the shared pieces compute what a hand count says, both engines now
check a roll in the same order, and the evaluator has no message of its own
left to drift.
"""

from __future__ import annotations

import inspect
import re

import pytest

from interpreter import evaluator, ir, odds, resolve, runtime
from interpreter.errors import WartableError
from interpreter.limits import Budget, LimitExceeded, Limits

ENGINES = ("compiled", "reference")


def _error_of(call) -> tuple[str, int, int, str]:
    with pytest.raises(WartableError) as caught:
        call()
    diagnostic = caught.value.diagnostics[0]
    return type(caught.value).__name__, diagnostic.line, diagnostic.column, diagnostic.message


# ---- the shared state algebra ---------------------------------------------------------------------------------------


def test_spread_writes_each_states_values_over_a_common_denominator():
    # Two states over denominator 2, weight 1 each.  State a rolls a d2: values 1 and 2, one way each of 2.
    # State b takes 5 in one way and 6 in two, of 3.  Common total lcm(2, 3) = 6, new denominator 2 * 6 = 12:
    # a's values scale by 1 * 6 / 2 = 3 (3 and 3), b's by 1 * 6 / 3 = 2 (2 and 4); 3 + 3 + 2 + 4 = 12.
    budget = Budget(Limits(max_work=None, timeout=None))
    made = runtime.spread(budget, 2, 1, [(("a", None), 1, ((1, 1), (2, 1)), 2), (("b", None), 1, ((5, 1), (6, 2)), 3)], None)
    assert made.denom == 12
    assert made.weights == {("a", 1): 3, ("a", 2): 3, ("b", 5): 2, ("b", 6): 4}
    # a unit a value spread (denominators this short add nothing): 2 + 2
    assert budget.work == 4


def test_spread_stops_at_the_state_limit():
    budget = Budget(Limits(max_states=2, timeout=None))
    with pytest.raises(LimitExceeded, match="exact odds need more than 2 states here"):
        runtime.spread(budget, 1, 0, [((None,), 1, ((1, 1), (2, 1), (3, 1)), 3)], None)


def test_forgetting_dead_variables_merges_the_states_that_differed_only_in_them():
    # (1, x, 7) and (1, y, 7) become (1, None, 7): weights 2 + 3; (2, x, 7) stays alone with 5
    weights = {(1, "x", 7): 2, (1, "y", 7): 3, (2, "x", 7): 5}
    assert runtime.forget_all(weights, (1,)) == {(1, None, 7): 5, (2, None, 7): 5}
    assert runtime.forget((1, "x", 7), (0, 2)) == (None, "x", None)
    assert runtime.put((1, "x", 7), 1, "z") == (1, "z", 7)


def test_an_accumulator_rescales_to_the_least_common_multiple():
    # 1/4 of a and 2/4 of b, plus 1/6 of b: over 12, a = 3, b = 6 + 2 = 8
    acc = runtime.Acc({"a": 1, "b": 2}, 4)
    acc.absorb({"b": 1}, 6)
    assert (acc.weights, acc.denom) == ({"a": 3, "b": 8}, 12)


def test_a_state_is_described_by_its_variables():
    assert runtime.describe_state((3, "x"), (("ships", 0), ("side", 1))) == "ships = 3, side = x"  # brief() shows a string bare
    assert runtime.describe_state((), ()) == "its first state"


# ---- the evaluator is tree walking only ------------------------------------------------------------------------------


def test_the_evaluator_handles_every_node_kind(one_procedure):
    executor = evaluator.Executor(one_procedure("outcome v"))
    assert set(executor._eval) == set(ir.EXPRESSIONS)
    assert set(executor._exec) == set(ir.STATEMENTS)


def test_the_evaluator_words_no_error_of_its_own():
    # every message a user can see comes from runtime (or limits, pools, tables): one text for both back ends
    source = inspect.getsource(evaluator)
    assert not re.search(r"\.diagnostic\(|\bbreach\(|RuleViolation|RulesetError", source)


# ---- one order of checks ---------------------------------------------------------------------------------------------

# Too many dice, and faces that fail to evaluate (the list has one item): which error a roll reports depends on
# the order of its checks.
BAD_ROLL = "let xs = [1]\noutcome hits(n = successes(2000, 6, [xs[5]]))"


@pytest.mark.parametrize("engine", ENGINES)
def test_exact_successes_evaluate_their_faces_before_checking_the_dice(one_procedure, engine):
    ruleset = one_procedure(BAD_ROLL)
    # the faces are an argument of Run.successes: evaluated first, so the index fails (line 2 of the body)
    kind, _, _, message = _error_of(lambda: odds(ruleset, "p", engine=engine))
    assert (kind, message) == ("RuleViolation", "index 5 is outside the list (1 to 1)")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_play_checks_the_dice_before_the_faces(one_procedure, engine):
    ruleset = one_procedure(BAD_ROLL)
    # a play checks the dice first (Run.check_dice), then draws, then counts the faces
    kind, _, _, message = _error_of(lambda: resolve(ruleset, "p", seed=1, trace=False, engine=engine))
    assert kind == "LimitExceeded"
    assert message.startswith("cannot roll 2000 dice (0 to 1000)")


def test_both_engines_report_a_roll_at_the_same_place(one_procedure):
    ruleset = one_procedure(BAD_ROLL)
    exact = {engine: _error_of(lambda engine=engine: odds(ruleset, "p", engine=engine)) for engine in ENGINES}
    played = {engine: _error_of(lambda engine=engine: resolve(ruleset, "p", seed=1, trace=False, engine=engine)) for engine in ENGINES}
    assert exact["compiled"] == exact["reference"]
    assert played["compiled"] == played["reference"]
