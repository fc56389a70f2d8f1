"""Exact odds: a value that reads only inputs and constants is worked out once a pass over the states.

Issue 24 ("exact where it can be"): eia's ``columns_act`` ends with a pass over about 21,000 states
on 3 v 3, and each state counted the ships lost in the columns it was given (``ships_with(attacker,
"sunk")``: four aggregates over the inputs, the same for every state).  Such a value is now computed
on first use in a pass and kept for the rest of it (``engine.exact``, ``Expressions(hoist_aggregates=True)``).
What must not change: the odds (counted by hand below, and the reference evaluator agrees), which
values are kept (one reading a state's variable is worked out per state), and where an error is
raised (the first state that reaches the value raises it, with the evaluator's message).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_in, procedure

from interpreter import odds
from interpreter.engine import procedure_source
from interpreter.errors import WartableError

ENGINES = ("compiled", "reference")

PROCEDURES = {
    "bump": procedure("""
        if 1d6 > 3 then
          outcome up
        end
        outcome same
    """),
    # The call splits the procedure: the statements after it are one pass over the states (a, b).
    "p": procedure("""
        let a = 1d6
        let b = resolve bump()
        set a = a + (if b.outcome == "up" then 1 else 0)
        let big = count(x for x in xs if x > 2)
        let above = count(x for x in xs if x > a)
        let picked = xs[at]
        outcome o(v = big + above, picked = picked)
    """, inputs="{xs: {type: list, of: int}, at: {type: int, default: 1}}"),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("hoisting"), PROCEDURES)


def test_a_value_of_inputs_alone_is_kept_for_the_pass_and_one_of_a_state_is_not(rules):
    source = procedure_source(rules, "p", "exact")
    pass_lines = source[source.index("set a = a + "):]
    # `big` reads xs alone: kept in a local set to UNSET before the loop over the states
    big = next(line for line in pass_lines.splitlines() if line.lstrip().startswith("v") and "> 2)" in line)
    assert " is not UNSET else (" in big
    # `above` reads a, which differs from state to state: worked out for each
    above = next(line for line in pass_lines.splitlines() if "> v" in line and "CNT(" in line)
    assert "UNSET" not in above


@pytest.mark.parametrize("engine", ENGINES)
def test_odds_are_unchanged(rules, engine):
    # a = first die + 1 when bump's die shows 4-6 (1/2): P(a=1) = 1/12, P(a=2..6) = 2/12 each, P(a=7) = 1/12.
    # xs = [1, 3, 5]: big = 2 always; above = count of xs over a: 2 for a in {1, 2}, 1 for {3, 4}, 0 for {5, 6, 7}.
    # v = 4: 1/12 + 2/12 = 1/4; v = 3: 2/12 + 2/12 = 1/3; v = 2: 2/12 + 2/12 + 1/12 = 5/12.
    dist = odds(rules, "p", {"xs": [1, 3, 5]}, engine=engine)
    got = {outcome.fields["v"]: p for outcome, p in dist.outcomes}
    assert got == {4: Fraction(1, 4), 3: Fraction(1, 3), 2: Fraction(5, 12)}
    assert {outcome.fields["picked"] for outcome, _ in dist.outcomes} == {1}


def test_an_error_in_a_value_kept_for_the_pass_is_raised_as_before(rules):
    # xs[4] of a list of 3: `picked` reads inputs alone (kept for the pass); the first state raises the error,
    # with the evaluator's message and position
    messages = []
    for engine in ENGINES:
        with pytest.raises(WartableError) as caught:
            odds(rules, "p", {"xs": [1, 3, 5], "at": 4}, engine=engine)
        messages.append(str(caught.value))
    assert "index 4 is outside the list (1 to 3)" in messages[0]
    assert "let picked = xs[at]" in messages[0]
    assert messages[0] == messages[1]
