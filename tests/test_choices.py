"""Which player choices are open: a choice that a `resolve` fixes is not the player's to make."""

from __future__ import annotations

from fractions import Fraction

from interpreter.api import odds_by_choice, reachable_choices

from conftest import procedure

CALLEE = procedure('if c == "x" then\n  outcome a\nend\noutcome b', choices='{c: {options: [x, z], default: x, rule: "r"}}')


def test_a_choice_fixed_by_resolve_is_not_open(make_ruleset):
    ruleset = make_ruleset({"q": CALLEE, "p": procedure('let r = resolve q(c = "z")\noutcome v(n = r.outcome)')})
    assert reachable_choices(ruleset, "p") == []
    (only,) = odds_by_choice(ruleset, "p")
    # c is "z" on the only path, so q always ends in b
    assert only[1].probability("v", n="b") == Fraction(1)


def test_a_choice_reached_without_fixing_it_stays_open(make_ruleset):
    body = 'let r = resolve q(c = "z")\nlet s = resolve q()\noutcome v(n = r.outcome, m = s.outcome)'
    ruleset = make_ruleset({"q": CALLEE, "p": procedure(body)})
    assert [choice.name for choice in reachable_choices(ruleset, "p")] == ["c"]
    by_choice = {chosen["c"]: distribution for chosen, distribution in odds_by_choice(ruleset, "p")}
    # the second call follows the player's choice; the first is always z (outcome b)
    assert by_choice["x"].probability("v", n="b", m="a") == 1
    assert by_choice["z"].probability("v", n="b", m="b") == 1
