"""No "any" holes: every value that reaches an operator has a type the checker knows.

Outcome fields read through `resolve`, constants and table cells are typed
exactly at load time; a mix is a positioned error there.  What stays
unknown (an empty list's items) is checked where it is used, with a
positioned error instead of a Python TypeError.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure

from interpreter import RulesetError, odds, resolve
from interpreter.errors import RuleViolation

# conftest.ruleset_text: five header lines, "procedures:", "  p:", title, rule, then "body: |" on line 10,
# so the first body line is line 11 and body text starts in column 7.
BODY_LINE, BODY_COLUMN = 11, 7


def only(error: Exception):
    (diagnostic,) = error.diagnostics
    return diagnostic


def load_error(make_ruleset, procedures, extra=""):
    with pytest.raises(RulesetError) as info:
        make_ruleset(procedures, extra)
    return info.value


# ---- outcome fields read through resolve -----------------------------------------------------------------------

def test_an_outcome_field_keeps_one_type_across_outcomes(make_ruleset):
    callee = procedure('let d = 1d2\nif d == 1 then\n  outcome a(x = 1)\nend\noutcome b(x = "s")')
    error = load_error(make_ruleset, {"q": callee, "p": procedure("let r = resolve q()\noutcome v(y = r.x + 1)")})
    diagnostic = only(error)
    # q is written first: its body starts on line 11; `outcome b(x = "s")` is its fifth line, x at column 11 + 6
    assert (diagnostic.line, diagnostic.column) == (BODY_LINE + 4, BODY_COLUMN + 10)
    assert "field 'x' is str here, but int in outcome a at line 13" in diagnostic.message


def test_a_typed_outcome_field_is_checked_where_it_is_read(make_ruleset):
    callee = procedure('let d = 1d2\nif d == 1 then\n  outcome a(x = "one")\nend\noutcome b(x = "two")')
    error = load_error(make_ruleset, {"q": callee, "p": procedure("let r = resolve q()\noutcome v(y = r.x + 1)")})
    assert "the left side of + must be int, not str" in only(error).message


def test_outcome_fields_typed_before_their_callers_whatever_the_order(make_ruleset):
    # p is written before q, which it resolves: q is still checked first, so r.x is known to be int
    ruleset = make_ruleset({
        "p": procedure("let r = resolve q()\noutcome v(y = r.x + 1)"),
        "q": procedure("let d = 1d2\nif d == 1 then\n  outcome a(x = 1)\nend\noutcome b(x = 2)"),
    })
    # x is 1 or 2 with 1/2 each, so y is 2 or 3 with 1/2 each
    distribution = odds(ruleset, "p")
    assert distribution.probability("v", y=2) == Fraction(1, 2)
    assert distribution.probability("v", y=3) == Fraction(1, 2)


def test_a_field_only_some_outcomes_have_fails_where_it_is_missing(make_ruleset):
    ruleset = make_ruleset({
        "q": procedure("let d = 1d2\nif d == 1 then\n  outcome a(x = 1)\nend\noutcome b"),
        "p": procedure("let r = resolve q()\noutcome v(y = r.x)"),
    })
    assert resolve(ruleset, "p", dice=[1]).outcome.get("y") == 1
    with pytest.raises(RuleViolation, match="outcome b has no field 'x'"):
        resolve(ruleset, "p", dice=[2])
    # the compiled code reads an outcome's field in one step, and words the same error where it is missing
    assert resolve(ruleset, "p", dice=[1], trace=False).outcome.get("y") == 1
    with pytest.raises(RuleViolation, match="outcome b has no field 'x'"):
        resolve(ruleset, "p", dice=[2], trace=False)
    with pytest.raises(RuleViolation, match="outcome b has no field 'x'"):
        odds(ruleset, "p")  # the face 2 of q's d2 reaches it


# ---- constants and table cells -------------------------------------------------------------------------------------

def test_a_constant_list_must_not_mix_types(make_ruleset):
    extra = 'constants:\n  things: {value: [1, "a"], rule: "r"}\n'
    error = load_error(make_ruleset, {"p": procedure("outcome v(x = things[1] + 1)")}, extra)
    diagnostic = only(error)
    assert "constant 'things' mixes values of different types" in diagnostic.message
    assert diagnostic.line == 7  # header (5 lines), "constants:" on 6, the constant's key on 7


def test_a_uniform_constant_list_is_typed_by_its_items(make_ruleset):
    extra = 'constants:\n  things: {value: [4, 5, 6], rule: "r"}\n'
    ruleset = make_ruleset({"p": procedure("outcome v(x = sum(things) + things[2])")}, extra)
    assert resolve(ruleset, "p", dice=[]).outcome.get("x") == 4 + 5 + 6 + 5


def test_a_table_mixing_numbers_and_text_cannot_be_looked_up(make_ruleset):
    extra = """\
    tables:
      mixed:
        title: "Mixed"
        rule: "r"
        rows: {name: "Die", dice: 1d2}
        edges: {rows: error}
        cells: {"1": 3, "2": "X"}
    """
    error = load_error(make_ruleset, {"p": procedure("let c = lookup mixed(row = 1)\noutcome v(x = c + 1)")}, extra)
    diagnostic = only(error)
    assert "table 'mixed' mixes cells of different types" in diagnostic.message
    # the lookup: header 5 lines + 7 table lines = 12, procedures: 13, p: 14, title 15, rule 16, body: 17
    assert (diagnostic.line, diagnostic.column) == (18, BODY_COLUMN + 8)


# ---- what stays unknown is checked where it is used ----------------------------------------------------------------

def test_an_unknown_item_type_is_checked_at_the_operator(one_procedure):
    ruleset = one_procedure('let xs = []\nset xs = ["a"]\nif xs[1] < 3 then\n  outcome small\nend\noutcome big')
    for run in (lambda: odds(ruleset, "p"), lambda: resolve(ruleset, "p", dice=[])):
        with pytest.raises(RulesetError) as info:
            run()
        diagnostic = only(info.value)
        assert (diagnostic.line, diagnostic.column) == (BODY_LINE + 2, BODY_COLUMN + 3)  # at `xs[1]`
        assert "the left side of < must be int or odds ratio, but here it is text" in diagnostic.message


def test_an_unknown_list_is_checked_before_it_is_summed(one_procedure):
    ruleset = one_procedure('let xs = []\nset xs = ["a", "b"]\noutcome v(total = sum(xs))')
    with pytest.raises(RulesetError, match=r"what sum\(\) reads must be list of int"):
        odds(ruleset, "p")


def test_unknown_items_that_fit_pass_their_check(one_procedure):
    ruleset = one_procedure("let xs = []\nset xs = [2, 3]\noutcome v(total = sum(xs) + xs[1])")
    assert resolve(ruleset, "p", dice=[]).outcome.get("total") == 2 + 3 + 2
