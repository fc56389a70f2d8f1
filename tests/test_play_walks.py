"""Issue 24, fast whole-battle sampling: a play's aggregate over a list that exists charges its walk with its finish.

``list(i for i in 1 .. count(xs) ...)``, ``count(x for x in xs ...)`` and the like walk ``xs`` (or its
positions) directly in a play: no ``counted``/``counted_range`` call of their own; the walk's units
(``2 * len(xs)`` for the positions, as CRNG charges the range made and walked; ``len(xs)`` for the items,
as CNT charges) go to the budget with the finish (``Budget.check_value``/``check_flat``'s ``walked``,
``Budget.walked``).  Exact odds keep CRNG and CNT.  Each test compares with counts derived by hand or
with the reference evaluator.
"""

from __future__ import annotations

import re

import pytest
from conftest import procedure

from interpreter import resolve
from interpreter.api import monte_carlo
from interpreter.engine import procedure_source
from interpreter.errors import RuleViolation
from interpreter.limits import Budget, LimitExceeded, Limits
from interpreter.runtime import Run
from interpreter.values import OutcomeValue, Record

UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)

WALKS = """\
let ys = list(i for i in 1 .. count(xs) if xs[i] > 2)
let n = count(x for x in xs if x > 1)
let zs = list(x for x in xs if x != 3)
outcome v(n = n, m = count(ys), k = count(zs))
"""
INPUTS = "{xs: {type: list, of: int, default: [1, 2, 3, 4, 5]}}"


def play_work(ruleset, xs: list[int]) -> int:
    """The work one play spends (its straight statements are counted in a local that reaches the budget only
    past Run.work_chunk: what is left is the values made and the lists walked)."""
    budget = Budget(UNLIMITED)
    resolve(ruleset, "p", {"xs": xs}, seed=1, budget=budget, trace=False)
    return budget.work


def test_a_play_walks_a_list_and_its_positions_without_a_call_of_their_own(one_procedure):
    ruleset = one_procedure(WALKS, inputs=INPUTS)
    play = procedure_source(ruleset, "p", "play")
    # a statement's walk of the positions reads their count once (playwork.walk_assigned), for its range and charge
    length = re.search(r"(ln\d+) = len\(i0\)\n", play)
    assert length is not None and f"range(1, {length[1]} + 1)" in play and "CRNG(" not in play and "CNT(" not in play
    # the walks charged with their finishes, to the play's local work counter (Expressions.local_work); the count
    # assigned in a statement is a loop over xs (Expressions._walk_assigned), its walk charged after it
    assert f"+ 2 * {length[1]}) >= 0" in play and "u += len(i0)" in play
    exact = procedure_source(ruleset, "p", "exact")
    assert "CRNG(" in exact and "CNT(" in exact  # exact odds charge before the walk, as before


def test_the_walks_are_charged_what_the_general_path_charged(one_procedure):
    ruleset = one_procedure(WALKS, inputs=INPUTS)
    # xs of 5: ys walks 1 .. 5 (5 made + 5 walked = 10) and holds 3, 4, 5 (3 items): 13; n walks 5: 5;
    # zs walks 5 and holds 4 items: 9.  27 units in all.  With 8 numbers (1 .. 8): 16 + 6, 8, 8 + 7: 45.
    assert play_work(ruleset, [1, 2, 3, 4, 5]) == 27
    assert play_work(ruleset, [1, 2, 3, 4, 5, 6, 7, 8]) == 45
    outcome = resolve(ruleset, "p", {"xs": [1, 2, 3, 4, 5]}, seed=1, trace=False).outcome
    assert (outcome.get("n"), outcome.get("m"), outcome.get("k")) == (4, 3, 4)


def test_a_walk_still_stops_at_the_work_budget(one_procedure):
    ruleset = one_procedure(WALKS, inputs=INPUTS)
    # the first statement alone costs 13 units (above): a budget of 12 stops it there, pointing at the aggregate
    # (charged with its finish: before, CRNG's first charge pointed at the range)
    with pytest.raises(LimitExceeded, match="more than 12 units of work") as stopped:
        resolve(ruleset, "p", {"xs": [1, 2, 3, 4, 5]}, seed=1, trace=False, limits=Limits(max_work=12, timeout=None))
    shown = str(stopped.value).splitlines()
    assert shown[1].strip() == "let ys = list(i for i in 1 .. count(xs) if xs[i] > 2)"
    assert shown[2].index("^") == shown[1].index("list(")


def test_walks_give_the_evaluators_counts(one_procedure):
    body = "let die = 1d6\nlet xs = [die, 7 - die, 3]\n" + WALKS.replace("> 2", "> die")
    ruleset = one_procedure(body)
    counts = [monte_carlo(ruleset, "p", trials=300, seed=5, engine=engine).counts for engine in ("compiled", "reference")]
    assert counts[0] == counts[1]
    assert sum(n for _, n in counts[0]) == 300


# ---- record fields read without a kind test, the tested form on AttributeError/KeyError -----------------------------

SHIP_TYPES = "types:\n  ship:\n    fields:\n      kind: {type: str}\n      hits: {type: int, default: 0}\n"
READS = "let h = target.hits + 1\nif target.hits > 1 then\n  outcome worn(h = h)\nend\noutcome fresh(h = h)"


def play_of(ruleset, target):
    """The play function of ``p`` called on ``target`` as its input, as a caller's play calls it (Run.plays): the
    input not coerced, so that a value the checker could not foresee reaches the field reads."""
    rt = Run(ruleset, UNLIMITED)
    return rt.plays["p"](rt, (target,), None, 0)


# The same reads of a value the checker cannot prove a ship (an item of `append([], target)`, typed a list of any):
# round eight's proven reads (interpreter/proven_types.py) read `target.hits` straight from the record, with nothing
# behind it; the fast form and the tested form behind it stay for reads the checker cannot vouch for.
UNPROVEN_READS = "let found = append([], target)\n" + READS.replace("target.hits", "found[1].hits")


def test_a_play_reads_record_fields_in_a_fast_form_with_the_tested_form_behind_it(make_ruleset):
    ruleset = make_ruleset({"p": procedure(UNPROVEN_READS, inputs="{target: {type: ship}}")}, extra=SHIP_TYPES)
    play = procedure_source(ruleset, "p", "play")
    assert "._fields['hits']" in play and play.count("except FMISS:") == 2  # the let and the if's condition
    assert "_fields['hits']" not in procedure_source(ruleset, "p", "exact").replace("._fields.get('hits'", "")
    proven = make_ruleset({"p": procedure(READS, inputs="{target: {type: ship}}")}, extra=SHIP_TYPES)
    play = procedure_source(proven, "p", "play")
    assert "i0._fields['hits']" in play and "except FMISS:" not in play  # proven: read straight, nothing behind it
    assert "_fields['hits']" not in procedure_source(proven, "p", "exact").replace("._fields.get('hits'", "")


@pytest.mark.parametrize("reads", [READS, UNPROVEN_READS])
def test_fast_reads_give_the_evaluators_answers_and_errors(make_ruleset, reads):
    ruleset = make_ruleset({"p": procedure(reads, inputs="{target: {type: ship}}")}, extra=SHIP_TYPES)
    for engine in ("compiled", "reference"):
        # hits 2: h = 3 and worn; hits 0: h = 1 and fresh
        assert resolve(ruleset, "p", {"target": {"kind": "big", "hits": 2}}, seed=1, trace=False, engine=engine).outcome.name == "worn"
        fresh = resolve(ruleset, "p", {"target": {"kind": "big"}}, seed=1, trace=False, engine=engine).outcome
        assert (fresh.name, fresh.get("h")) == ("fresh", 1)
    assert play_of(ruleset, Record("ship", (("kind", "big"), ("hits", 2)))) == (0, 3)  # outcome 0 (worn), h = 3
    if reads is READS:
        return  # below, values a caller never passes where a ship is proven (its inputs are coerced or proven ships)
    # an outcome where a record was expected: the fast form's AttributeError, then the tested form reads it
    assert play_of(ruleset, OutcomeValue("shot", (("hits", 0),))) == (1, 1)
    # a record without the field: the fast form's KeyError, then the tested form's error, worded as FLD words it
    with pytest.raises(RuleViolation, match="has no field 'hits'"):
        play_of(ruleset, Record("ship", (("kind", "big"),)))


# ---- short lists' measures remembered by their contents (Budget.check_value) ---------------------------------------


def test_an_equal_list_is_charged_its_measure_again_from_memory():
    ship = Record("ship", (("kind", "big"), ("hits", 0)))
    budget = Budget(UNLIMITED)
    column = (ship, ship, ship)
    budget.check_value(column, None)
    # 3 records of 2 fields: 3 + 3 x 2 = 9 units; an equal list (another tuple) charges 9 again, from memory
    assert budget.work == 9
    assert budget.check_value(tuple([ship] * 3), None) == column and budget.work == 18
    columns = (column, (ship,))
    budget.check_value(columns, None)
    # 2 lists holding 9 and 3 units: 2 + 9 + 3 = 14
    assert budget.work == 32
    assert len(budget._sizes) == 2  # the column and the columns, each once


def test_a_list_past_the_limits_is_refused_every_time_and_never_remembered():
    budget = Budget(Limits(max_value_items=5, max_work=None, timeout=None))
    for _ in range(2):
        with pytest.raises(LimitExceeded, match="more than 5 items"):
            budget.check_value(((1, 2, 3), (4, 5)), None)  # 2 + 3 + 2 = 7 items
    assert budget._sizes == {}


def test_the_remembered_sizes_are_bounded():
    from interpreter.limits import SIZES_HELD, SIZES_KEPT

    budget = Budget(UNLIMITED)
    for n in range(SIZES_KEPT + 3):
        budget.check_value((n,), None)
    assert len(budget._sizes) == 3  # full at SIZES_KEPT: forgotten, then the last 3 kept
    # 16 lists of 1,000 numbers: 16 + 16,000 = 16,016 items held each; 13 of them (208,208) pass SIZES_HELD (200,000)
    budget = Budget(UNLIMITED)
    for n in range(13):
        budget.check_value(tuple(tuple(range(n, n + 1000)) for _ in range(16)), None)
    assert 12 * 16_016 <= SIZES_HELD < 13 * 16_016
    assert len(budget._sizes) == 1 and budget._sizes_held == 16_016  # forgotten at the 13th, which is kept


@pytest.mark.parametrize(("k", "expected"), [(2, 20), (3, None), (0, None), (-1, None)])
def test_a_fast_item_read_past_the_end_words_the_evaluators_error(one_procedure, k, expected):
    # xs = [10, 20]: item 2 is 20; 3 is past the end (the fast form's IndexError, then IDX's words); 0 and -1
    # never reach Python's indexing (a negative position would read from the end)
    ruleset = one_procedure("let xs = [10, 20]\nlet y = xs[k] + ship.hits\noutcome o(y = y)",
                            inputs="{k: {type: int}, ship: {type: ship}}", extra=SHIP_TYPES)
    fast, slow = (line.strip() for line in procedure_source(ruleset, "p", "play").splitlines() if line.strip().startswith("v1 = "))
    assert "len(v0)" not in fast and "len(v0)" in slow  # the fast form, then the tested one
    results = []
    for engine in ("compiled", "reference"):
        try:
            results.append(resolve(ruleset, "p", {"k": k, "ship": {"kind": "big", "hits": 1}}, seed=1, trace=False, engine=engine).outcome.get("y"))
        except RuleViolation as error:
            results.append(str(error))
    assert results[0] == results[1]
    if expected is not None:
        assert results[0] == expected + 1
    else:
        assert f"index {k} is outside the list (1 to 2)" in results[0]


def test_a_loop_for_any_evaluates_every_item_as_the_list_does(one_procedure):
    # any(...) assigned in a statement is a loop in a play (Expressions._walk_assigned), which must not stop at the
    # first true item: the evaluator makes the whole list first, so ys = [1, 5] reads xs[1] (true), then xs[5], which
    # is outside xs (3 items): both engines stop there with the same error; with ys = [1, 2] both count 300 plays true.
    body = "let die = 1d6\nlet xs = [die, 2, 3]\nlet t = any(xs[i] > 0 for i in ys)\nlet n = count(i for i in ys if xs[i] > 1)\noutcome v(t = t, n = n)"
    for ys, expected in (("[1, 2]", None), ("[1, 5]", "index 5 is outside the list (1 to 3)")):
        ruleset = one_procedure(body, inputs=f"{{ys: {{type: list, of: int, default: {ys}}}}}")
        if expected is None:
            counts = [monte_carlo(ruleset, "p", trials=300, seed=5, engine=engine).counts for engine in ("compiled", "reference")]
            assert counts[0] == counts[1]
            # n: xs[2] = 2 counts always, xs[1] = the die when it is above 1 (5 faces in 6); t is true every play
            assert {outcome.get("t") for outcome, _ in counts[0]} == {True} and sum(n for _, n in counts[0]) == 300
            assert {outcome.get("n") for outcome, _ in counts[0]} == {1, 2}  # a 1 in 300 plays: all but (5/6)**300
            continue
        for engine in ("compiled", "reference"):
            with pytest.raises(RuleViolation, match=expected.replace("(", r"\(").replace(")", r"\)")):
                monte_carlo(ruleset, "p", trials=10, seed=5, engine=engine)


def test_a_statement_walking_a_range_is_a_loop_that_compiles_and_counts_by_hand(one_procedure):
    # count/any/list over a range assigned by a statement are loops in a play (playwork.walk_assigned); the range is
    # walked by CRNG, which charges it as it is made, so nothing is left to add after the loop (before, an empty
    # `u += ` made the play function fail to compile).  n = 5: i in 1 .. 5 above 2 is 3, 4, 5 -> k = 3; some i
    # above 3 -> a = true; 2 * i for i in 2 .. 5 -> [4, 6, 8, 10], 4 items.
    body = ("let k = count(i for i in 1 .. n if i > 2)\nlet a = any(i > 3 for i in 1 .. n)\n"
            "let l = list(i * 2 for i in 2 .. n)\noutcome o(k = k, a = a, m = count(l))")
    ruleset = one_procedure(body, inputs="{n: {type: int, min: 0, max: 10}}")
    assert "u += \n" not in procedure_source(ruleset, "p", "play")
    budget = Budget(UNLIMITED)
    outcome = resolve(ruleset, "p", {"n": 5}, seed=1, budget=budget, trace=False).outcome
    assert (outcome.get("k"), outcome.get("a"), outcome.get("m")) == (3, True, 4)
    # CRNG charges a range of r numbers 2 * r (made and walked): 10 + 10 + 8; the list of 4 items 4 more: 32
    assert budget.work == 32


NESTED = """\
let js = list(j for j in 1 .. count(xs) if any(xs[i] > j for i in ys))
let ks = sort(count(i for i in ys if xs[i] >= j) for j in 1 .. count(xs))
outcome v(n = count(js), k = ks[1])
"""


def test_an_aggregate_inside_a_statements_walk_is_an_inner_loop_charged_by_hand(one_procedure):
    # seventh round: any/all/count as the condition or element of a statement's walk (list, sort, ...) is an inner loop
    # in a play (playwork._inner_walk), no list made.  xs = [1, 2, 3], ys = [1, 2]:
    # js walks the positions of xs (2 * 3 = 6) and ys once for each (3 * 2 = 6); j = 1: xs[2] = 2 > 1, kept;
    # j = 2, 3: neither 1 nor 2 is above: js = [1], 1 item.  13 units.
    # ks walks the positions of xs (6) and ys for each (6): keys j = 1: 2 (1 and 2 >= 1), j = 2: 1, j = 3: 0, so
    # sorted by key the positions 3, 2, 1: 12 units, and k = ks[1] = 3.  25 units in all; n = 1.  The evaluator
    # charges its 3 statements 4 units each too (37), which a play counts in its own local, charged past the chunk.
    ruleset = one_procedure(NESTED, inputs="{xs: {type: list, of: int, default: [1, 2, 3]}, ys: {type: list, of: int, default: [1, 2]}}")
    play = procedure_source(ruleset, "p", "play")
    assert "any([" not in play.split("except FMISS")[0] and "for v1 in i1:" in play  # the inner walk is a loop over ys
    for engine, work in (("compiled", 25), ("reference", 37)):
        budget = Budget(UNLIMITED)
        outcome = resolve(ruleset, "p", {}, seed=1, budget=budget, trace=False, engine=engine).outcome
        assert (outcome.get("n"), outcome.get("k")) == (1, 3)
        assert budget.work == work


def test_an_inner_any_evaluates_every_item_as_the_list_does(one_procedure):
    # the inner loop must not stop at the first true item: with ys = [1, 5], xs[1] = the die > 0 is true, then
    # xs[5] is outside xs (3 items): both engines stop there with the same error; with ys = [1, 2] the same counts.
    body = "let die = 1d6\nlet xs = [die, 2, 3]\nlet js = list(j for j in 1 .. 2 if any(xs[i] > 0 for i in ys))\noutcome v(n = count(js))"
    for ys in ("[1, 2]", "[1, 5]"):
        ruleset = one_procedure(body, inputs=f"{{ys: {{type: list, of: int, default: {ys}}}}}")
        if ys == "[1, 2]":
            counts = [monte_carlo(ruleset, "p", trials=200, seed=3, engine=engine).counts for engine in ("compiled", "reference")]
            assert counts[0] == counts[1]
            assert [(outcome.get("n"), n) for outcome, n in counts[0]] == [(2, 200)]  # every item above 0: both js
            continue
        for engine in ("compiled", "reference"):
            with pytest.raises(RuleViolation, match=r"index 5 is outside the list \(1 to 3\)"):
                monte_carlo(ruleset, "p", trials=10, seed=5, engine=engine)


def test_a_constant_switch_takes_its_branch_and_the_walk_there_is_a_loop(one_procedure):
    # `if switch then list(...) else list(...)` with switch a yes/no constant: a play writes only the branch taken
    # (Expressions.decided), so the list there is a statement's loop.  xs = [die, 2, 3]: the items above 1 are 2 and
    # 3, and the die when it shows 2 or more (5 faces in 6): n is 3 or 2, the same counts as the evaluator's.
    body = ("let die = 1d6\nlet xs = [die, 2, 3]\nlet ys = if switch then list(i for i in 1 .. count(xs) if xs[i] > 1)"
            " else list(i for i in 1 .. count(xs))\noutcome v(n = count(ys))")
    ruleset = one_procedure(body, extra="constants:\n  switch: {value: true, rule: \"test\"}\n")
    play = procedure_source(ruleset, "p", "play")
    assert " if True else " not in play and "for v" in play
    counts = [monte_carlo(ruleset, "p", trials=300, seed=5, engine=engine).counts for engine in ("compiled", "reference")]
    assert counts[0] == counts[1]
    assert {outcome.get("n") for outcome, _ in counts[0]} == {2, 3}


def test_the_positions_of_two_lists_are_walked_without_a_range_made(one_procedure):
    # seventh round: `1 .. min(count(xs), count(ys))` walks positions inside both lists: no CRNG, items read without a
    # bounds check, the walk charged as CRNG charged it (2 a position).  xs = [1, 5, 3], ys = [2, 2]: positions 1, 2;
    # xs[2] = 5 > 2 only: ks = [2].  2 * 2 + 1 = 5 units; the evaluator also charges its 2 statements 4 units each: 13.
    body = "let ks = list(k for k in 1 .. min(count(xs), count(ys)) if xs[k] > ys[k])\noutcome v(n = count(ks), k = ks[1])"
    ruleset = one_procedure(body, inputs="{xs: {type: list, of: int, default: [1, 5, 3]}, ys: {type: list, of: int, default: [2, 2]}}")
    play = procedure_source(ruleset, "p", "play")
    length = re.search(r"(ln\d+) = min\(len\(i0\), len\(i1\)\)\n", play)  # read once for the range and its charge
    assert "CRNG(" not in play.split("except FMISS")[0] and length is not None and f"range(1, {length[1]} + 1)" in play
    for engine, work in (("compiled", 5), ("reference", 13)):
        budget = Budget(UNLIMITED)
        outcome = resolve(ruleset, "p", {}, seed=1, budget=budget, trace=False, engine=engine).outcome
        assert (outcome.get("n"), outcome.get("k")) == (1, 2)
        assert budget.work == work
