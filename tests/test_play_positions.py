"""Eighth round (issue 24): in a play's fast form, a list's item at a position proven at least 1
(``engine/bounds.Positions``) is read without testing the position; anything else is tested as before.
Both engines compared, answers counted by hand."""

from __future__ import annotations

import pytest

from interpreter import resolve
from interpreter.engine import procedure_source
from interpreter.errors import RuleViolation

PLACES = """
let places = if pick then list(i for i in 1 .. count(xs) if xs[i] > 2) else list(i for i in 1 .. count(xs))
let total = 0
for k in places do
  let at = places[1]
  set total = total + xs[k] + xs[at]
end
outcome done(total = total)
"""


def test_positions_from_a_list_of_positions_are_read_without_a_test(one_procedure):
    ruleset = one_procedure(PLACES, inputs="{xs: {type: list, of: int, default: [1, 5, 3, 2]}, pick: {type: bool, default: true}}")
    play = procedure_source(ruleset, "p", "play")
    # places (positions 1 .. count(xs)), k walks them, at is places' first item: xs[k] and xs[at] read directly
    # in the fast form; the tested form is kept for the error's wording
    assert "(b33 := i0[v4 - 1])" in play and "(b36 := i0[v7 - 1])" in play
    assert "(i0[ix22 - 1] if 0 < (ix22 := v4) <= len(i0) else IDX(i0, ix22, p21))" in play
    for pick, expected in ((True, 5 + 5 + 3 + 5), (False, 1 + 1 + 5 + 1 + 3 + 1 + 2 + 1)):
        # pick: places 2, 3 (5 and 3 are above 2), at = 2: (5 + 5) + (3 + 5); else places 1 .. 4, at = 1
        outcomes = [resolve(ruleset, "p", {"xs": [1, 5, 3, 2], "pick": pick}, engine=engine, trace=False).outcome for engine in ("compiled", "reference")]
        assert outcomes[0] == outcomes[1] and outcomes[0].get("total") == expected


def test_a_position_not_proven_above_zero_is_tested_and_refused_alike(one_procedure):
    # i - 2 is -1 for i = 1: not proven at least 1, so tested; both engines refuse position -1 with one message
    body = "let ps = list(i - 2 for i in 1 .. 3)\nlet x = xs[ps[1]]\noutcome done(x = x)"
    ruleset = one_procedure(body, inputs="{xs: {type: list, of: int, default: [1, 2]}}")
    assert "IDX(i0, " in procedure_source(ruleset, "p", "play")
    messages = []
    for engine in ("compiled", "reference"):
        with pytest.raises(RuleViolation) as refused:
            resolve(ruleset, "p", {"xs": [1, 2]}, engine=engine, trace=False)
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "index -1 is outside the list" in messages[0]


def test_a_proven_position_past_the_end_is_refused_alike(one_procedure):
    # positions of a longer list used on a shorter one: 3 is at least 1 but past the end of ys (two items)
    body = "let places = list(i for i in 1 .. count(xs))\nlet total = 0\nfor k in places do\n  set total = total + ys[k]\nend\noutcome done(total = total)"
    ruleset = one_procedure(body, inputs="{xs: {type: list, of: int, default: [1, 2, 3]}, ys: {type: list, of: int, default: [4, 5]}}")
    messages = []
    for engine in ("compiled", "reference"):
        with pytest.raises(RuleViolation) as refused:
            resolve(ruleset, "p", {"xs": [1, 2, 3], "ys": [4, 5]}, engine=engine, trace=False)
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "index 3 is outside the list (1 to 2)" in messages[0]


def test_a_list_of_positions_is_checked_as_plain_values_and_charged_alike(one_procedure):
    # picked = positions of xs above 1, then the same positions again read through picked: a list of ints at least
    # 1, checked by its length (check_flat) like a range's numbers.  The same list made of picked[k] + 0 (not proven:
    # an arithmetic element) goes through check_value; both charge the same work, and both engines answer alike.
    from interpreter.limits import Budget, Limits

    body = "let picked = list(i for i in 1 .. count(xs) if xs[i] > 1)\nlet again = list(ITEM for k in 1 .. count(picked))\noutcome done(n = count(again), last = again[count(again)])"
    inputs = "{xs: {type: list, of: int, default: [2, 1, 3, 4]}}"
    proven, unproven = (one_procedure(body.replace("ITEM", item), inputs=inputs) for item in ("picked[k]", "picked[k] + 0"))
    assert "BUD.check_value(" not in procedure_source(proven, "p", "play")
    assert "BUD.check_value(" in procedure_source(unproven, "p", "play")
    work = []
    for ruleset in (proven, unproven):
        budget = Budget(Limits(max_work=None, timeout=None))
        outcome = resolve(ruleset, "p", {"xs": [2, 1, 3, 4]}, budget=budget, trace=False).outcome
        # positions 1, 3, 4 (2, 3 and 4 are above 1): three items, the last 4
        assert outcome == resolve(ruleset, "p", {"xs": [2, 1, 3, 4]}, engine="reference", trace=False).outcome
        assert (outcome.get("n"), outcome.get("last")) == (3, 4)
        work.append(budget.work)
    assert work[0] == work[1] > 0
