"""Issue 24, fast whole-battle sampling: a play's aggregate over a list that exists charges its walk with its finish.

``list(i for i in 1 .. count(xs) ...)``, ``count(x for x in xs ...)`` and the like walk ``xs`` (or its
positions) directly in a play: no ``counted``/``counted_range`` call of their own; the walk's units
(``2 * len(xs)`` for the positions, as CRNG charges the range made and walked; ``len(xs)`` for the items,
as CNT charges) go to the budget with the finish (``Budget.check_value``/``check_flat``'s ``walked``,
``Budget.walked``).  Exact odds keep CRNG and CNT.  Each test compares with counts derived by hand or
with the reference evaluator.
"""

from __future__ import annotations

import pytest

from interpreter import resolve
from interpreter.api import monte_carlo
from interpreter.engine import procedure_source
from interpreter.limits import Budget, LimitExceeded, Limits

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
    assert "range(1, len(i0) + 1)" in play and "CRNG(" not in play and "CNT(" not in play
    assert "2 * len(i0))" in play and "len(i0), " in play  # the walks charged with their finishes
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
