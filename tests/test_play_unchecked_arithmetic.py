"""Eighth round (issue 24): arithmetic inside an aggregate that a play proves inside the integer bounds before the
statement (``engine/bounds.py``) runs unchecked; when the proof fails at run time every step is checked as before.

Each test compares both engines, with answers counted by hand.
"""

from __future__ import annotations

import re

import pytest

from interpreter import resolve
from interpreter.api import monte_carlo
from interpreter.engine import procedure_source
from interpreter.limits import LimitExceeded, Limits

# divide_into_columns' formula: positions 1 .. count(xs) cut into `parts` columns, evenly, in order
COLUMNS = """
let xs = list(i for i in 1 .. size)
let parts = ceil_div(count(xs), 4)
let cols = list(list(xs[i] for i in 1 .. count(xs) if min(((i - 1) * parts) // count(xs) + 1, parts) == c) for c in 1 .. parts)
outcome done(first = count(cols[1]), last = count(cols[count(cols)]), columns = count(cols))
"""

PROOF = re.compile(r"\bak\d+ = ")


def answers(ruleset, limits=None):
    return [resolve(ruleset, "p", {"size": 10}, engine=engine, trace=False, limits=limits).outcome for engine in ("compiled", "reference")]


def test_proven_steps_run_unchecked_and_cut_the_columns_as_the_evaluator(one_procedure):
    ruleset = one_procedure(COLUMNS, inputs="{size: {type: int, default: 10}}")
    play = procedure_source(ruleset, "p", "play")
    # the proof: |i - 1| <= count(xs) + 1, the product below (count + 1) * |parts| + (count + 1) + |parts|, the
    # quotient adds count(xs) (the divisor), the sum 1
    assert "= ((((len(v1) + 1) * abs(v2) + (len(v1) + 1) + abs(v2)) + len(v1)) + 1) <= HI" in play
    assert len(PROOF.findall(play)) == 1
    assert not PROOF.search(procedure_source(ruleset, "p", "exact"))
    # size 10: parts = ceil(10 / 4) = 3; ((i - 1) * 3) // 10 + 1 for i = 1 .. 10 is 1 1 1 1 2 2 2 3 3 3: columns of 4, 3, 3
    compiled, reference = answers(ruleset)
    assert compiled == reference
    assert (compiled.get("first"), compiled.get("last"), compiled.get("columns")) == (4, 3, 3)


def test_a_proof_that_fails_at_run_time_checks_every_step(one_procedure):
    ruleset = one_procedure(COLUMNS, inputs="{size: {type: int, default: 10}}")
    # max_int_bits 6: HI = 63 >= the magnitude (11 * 3 + 11 + 3) + 10 + 1 = 58: unchecked, the same columns
    unchecked = answers(ruleset, Limits(max_int_bits=6))
    assert unchecked[0] == unchecked[1] and unchecked[0].get("first") == 4
    # max_int_bits 4: HI = 15 < 58: checked; i = 7 makes (7 - 1) * 3 = 18 > 15, refused alike by both engines
    messages = []
    for engine in ("compiled", "reference"):
        with pytest.raises(LimitExceeded) as refused:
            resolve(ruleset, "p", {"size": 10}, engine=engine, trace=False, limits=Limits(max_int_bits=4))
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "6 * 3 grows past 4 bits" in messages[0]


def test_a_range_below_zero_is_bounded_by_both_ends(one_procedure):
    # i in -3 .. 2: |i| <= 3 + 2 = 5; i * i <= 5 * 5 + 5 + 5 = 35.  Squares 9 4 1 0 1 4 add up to 19.
    ruleset = one_procedure("let squares = list(i * i for i in -3 .. 2)\noutcome done(total = sum(squares))")
    play = procedure_source(ruleset, "p", "play")
    assert "= ((3 + 2) * (3 + 2) + (3 + 2) + (3 + 2)) <= HI" in play
    for limits in (None, Limits(max_int_bits=5)):  # HI 31 < 35: every step checked, none past 31
        totals = [monte_carlo(ruleset, "p", trials=2, seed=1, limits=limits, engine=engine).counts for engine in ("compiled", "reference")]
        assert totals[0] == totals[1] and totals[0][0][0].get("total") == 19


def test_arithmetic_on_a_value_not_proven_an_int_stays_checked(one_procedure):
    # an input (not proven: only counts, constants, ranges' variables and lets of those are) and a record's field
    body = "let doubled = list(n * k for k in 1 .. 3)\noutcome done(total = sum(doubled))"
    ruleset = one_procedure(body, inputs="{n: {type: int, default: 2}}")
    assert not PROOF.search(procedure_source(ruleset, "p", "play"))
    # 2 * (1 + 2 + 3) = 12
    assert resolve(ruleset, "p", {"n": 2}, trace=False).outcome.get("total") == 12


def test_a_proven_division_still_refuses_zero_alike(one_procedure):
    # ((i - 1) * 2) // count(xs) is proven (every step at most (3 + 1) * 2 + (3 + 1) + 2 + count(xs) + 0); with xs
    # empty the divisor is 0, refused by both engines with the same message; with xs = [7, 8]: 0 // 2, 2 // 2, 4 // 2
    from interpreter.errors import RuleViolation

    body = "let qs = list(((i - 1) * 2) // count(xs) for i in 1 .. 3)\noutcome done(total = sum(qs))"
    ruleset = one_procedure(body, inputs="{xs: {type: list, of: int, default: []}}")
    assert PROOF.search(procedure_source(ruleset, "p", "play"))
    messages = []
    for engine in ("compiled", "reference"):
        with pytest.raises(RuleViolation) as refused:
            resolve(ruleset, "p", {"xs": []}, engine=engine, trace=False)
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "division by zero" in messages[0]
    totals = [resolve(ruleset, "p", {"xs": [7, 8]}, engine=engine, trace=False).outcome.get("total") for engine in ("compiled", "reference")]
    assert totals == [0 + 1 + 2] * 2


COUNTED_ITEMS = """
let cols = xs
let n = 0
for round in 1 .. 2 do
  set n = n + count(c for c in cols if count(c) * 2 > 3)
end
outcome v(n = n)
"""


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_the_length_of_an_aggregates_own_item_is_no_bound_read_before_the_statement(one_procedure, engine):
    # count(c) of the walk's own item changes while the statement runs (and is unbound before it: the proof read it
    # there, an UnboundLocalError); its step is checked as it goes.  [1, 2]: 2 * 2 = 4 > 3; [3]: 2 > 3 no; twice: 2
    ruleset = one_procedure(COUNTED_ITEMS, inputs="{xs: {type: list, of: {type: list, of: int}, default: [[1, 2], [3]]}}")
    assert "len(v" not in "".join(line for line in procedure_source(ruleset, "p", "play").splitlines() if PROOF.search(line))
    assert resolve(ruleset, "p", {"xs": [[1, 2], [3]]}, engine=engine, trace=False).outcome.get("n") == 2
