"""A list literal of plain values is a constant (checker): made once at load, not built and measured each time.

``s.status in ["fit", "damaged"]`` is the commonest list in a ruleset; as a constant it costs what a
``constants:`` list costs.  A literal holding a list, a record or a computed item is still built where it is
read, and checked against the value limits there.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from interpreter import ir, odds, resolve
from interpreter.limits import Budget, LimitExceeded, Limits

ENGINES = ("compiled", "reference")


def assigned_value(ruleset, procedure: str = "p"):
    """The checked expression of the procedure's first statement (a `let`)."""
    first = ruleset.compiled[procedure].body.statements[0]
    assert type(first) is ir.Assign
    return first.value


def test_a_list_of_plain_literals_is_one_constant(one_procedure):
    ruleset = one_procedure('let kinds = ["fit", "damaged"]\noutcome done(kinds = kinds)')
    value = assigned_value(ruleset)
    assert type(value) is ir.Const and value.value == ("fit", "damaged") and value.name is None


@pytest.mark.parametrize("written", ["[[1], [2]]", "[1, d]", "[]"])
def test_a_list_holding_a_list_or_a_computed_item_is_built_where_it_is_read(one_procedure, written):
    ruleset = one_procedure(f"let d = 1d6\nlet x = {written}\noutcome done(n = count(x))")
    built = [s.value for s in ruleset.compiled["p"].body.statements if type(s) is ir.Assign and s.value is not None]
    assert [type(value) for value in built if type(value) in (ir.ListOf, ir.Const)] == [ir.ListOf]


@pytest.mark.parametrize("engine", ENGINES)
def test_membership_in_a_folded_list_counts_by_hand(one_procedure, engine):
    # faces 1, 2 and 6 of 6 are in the list -> 3/6 = 1/2; the rest (3, 4, 5) -> 1/2
    ruleset = one_procedure("let d = 1d6\nif d in [1, 2, 6] then\n  outcome listed\nend\noutcome other")
    dist = odds(ruleset, "p", engine=engine)
    assert dist.probability("listed") == Fraction(1, 2) and dist.probability("other") == Fraction(1, 2)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_literal_list_costs_what_a_constant_list_costs(one_procedure, engine):
    # 1,000 rounds reading a list of 3: written out, it is charged as the constant `small` is (nothing for
    # the list itself), in each engine; i in 1..3 -> n = 3 either way
    loop = "let n = 0\nfor i in 1 .. 1000 do\n  if i in {} then\n    set n = n + 1\n  end\nend\noutcome done(n = n)"
    written = one_procedure(loop.format("[1, 2, 3]"))
    named = one_procedure(loop.format("small"), extra="constants:\n  small: {value: [1, 2, 3], rule: \"test\"}\n")
    work = {}
    for label, ruleset in (("written", written), ("named", named)):
        budget = Budget(Limits(max_work=None, timeout=None))
        assert resolve(ruleset, "p", seed=1, trace=False, budget=budget, engine=engine).outcome.get("n") == 3
        work[label] = budget.work
    assert work["written"] == work["named"]


def test_a_nested_literal_is_still_refused_past_the_depth_limit(one_procedure):
    # [[1], [2]] nests two deep: past max_value_depth 1 it is refused where it is built, as before
    ruleset = one_procedure("let x = [[1], [2]]\noutcome done(n = count(x))")
    with pytest.raises(LimitExceeded, match="nest lists more than 1 deep"):
        odds(ruleset, "p", limits=Limits(max_value_depth=1))
