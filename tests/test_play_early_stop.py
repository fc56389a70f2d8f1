"""Issue 24, sampling round eight (part A): a play's ``any``/``all`` stops at its first decisive item when no later
item can fail (playwork.stops_early, facts.cannot_fail: constants, variables, fields the checker proves a record
has, ``==``/``!=``, ``in`` a constant list, ``and``/``or``/``not``).  Where an item may fail (an index, a division,
a field of a value the checker types ``any``), every item is still evaluated and a later item's error is raised as
the evaluator raises it.  Counts against the evaluator's; values counted by hand.
"""

from __future__ import annotations

import pytest

from interpreter import resolve
from interpreter.api import monte_carlo
from interpreter.engine import playwork, procedure_source
from interpreter.errors import RulesetError, RuleViolation
from interpreter.limits import Budget, Limits

UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)
TYPES = "types:\n  ship:\n    fields:\n      kind: {type: str}\n      hits: {type: int, default: 0}\n"
INPUTS = "{ships: {type: list, of: ship}, columns: {type: list, of: {type: list, of: ship}}}"
# a statement's any and all, and an inner any in a list's condition: every item provably readable
STOPPING = """\
let hit = any(s.hits == 1 for s in ships)
let big = all(s.kind == "big" for s in ships if s.hits != 2)
let open = list(j for j in 1 .. count(columns) if any(s.kind in ["big", "small"] and not s.hits == 0 for s in columns[j]))
outcome v(hit = hit, big = big, n = count(open))
"""
SHIPS = [{"kind": "big", "hits": 1}, {"kind": "small", "hits": 2}, {"kind": "big"}]
COLUMNS = [[{"kind": "big"}, {"kind": "big", "hits": 3}], [{"kind": "tiny", "hits": 1}], [{"kind": "small", "hits": 1}]]


def test_any_and_all_over_proven_records_stop_at_the_first_decisive_item(one_procedure):
    ruleset = one_procedure(STOPPING, inputs=INPUTS, extra=TYPES)
    play = procedure_source(ruleset, "p", "play")
    assert play.count("; break") == 3  # the any, the all, the inner any
    assert "; break" not in procedure_source(ruleset, "p", "exact")
    for engine in ("compiled", "reference"):
        outcome = resolve(ruleset, "p", {"ships": SHIPS, "columns": COLUMNS}, seed=1, trace=False, engine=engine).outcome
        # hit: the first ship has 1 hit; big: the ships not of 2 hits are the 1st and 3rd, both big; open: column 1's
        # second ship (big, 3 hits), column 3's ship (small, 1 hit); column 2's is tiny: 2 columns
        assert (outcome.get("hit"), outcome.get("big"), outcome.get("n")) == (True, True, 2)


def test_stopping_early_charges_what_the_whole_walk_charged(one_procedure, monkeypatch):
    work = []
    for stopping in (True, False):
        if not stopping:  # the same play written without stopping (a fresh ruleset: its code is written anew)
            monkeypatch.setattr(playwork, "stops_early", lambda e: False)
        ruleset = one_procedure(STOPPING, inputs=INPUTS, extra=TYPES)
        assert ("; break" in procedure_source(ruleset, "p", "play")) is stopping
        budget = Budget(UNLIMITED)
        resolve(ruleset, "p", {"ships": SHIPS, "columns": COLUMNS}, seed=1, budget=budget, trace=False)
        work.append(budget.work)
    # the walks are charged by their lists' lengths, not per item evaluated: the same work either way
    assert work[0] == work[1] > 0


def test_counts_equal_the_evaluators_when_stopping_early(one_procedure):
    body = "let d = 1d3\nlet ships = [ship(kind = \"big\", hits = d), ship(kind = \"small\", hits = 4 - d)]\n" + \
        "let hit = any(s.hits == 1 for s in ships)\nlet all_big = all(s.kind == \"big\" for s in ships if s.hits > 1)\n" + \
        "outcome v(hit = hit, all_big = all_big)"
    ruleset = one_procedure(body, extra=TYPES)
    assert procedure_source(ruleset, "p", "play").count("; break") == 1  # the all's condition orders: no stop
    counts = [monte_carlo(ruleset, "p", trials=300, seed=5, engine=engine).counts for engine in ("compiled", "reference")]
    assert counts[0] == counts[1]
    # d = 1: hits 1, 3 (hit; all_big: only small has > 1: false); d = 2: 2, 2 (no hit; false); d = 3: 3, 1 (hit;
    # only big has > 1: true): three outcomes of about 100 each
    assert len(counts[0]) == 3 and sum(n for _, n in counts[0]) == 300


# ---- the boundary: a later item that may fail is still evaluated, and raises as the evaluator raises ----------------

LATER_ITEMS_THAT_FAIL = {
    # the first ship's kind is big (true), the second's 0 hits divide by zero
    "a division": (
        "let hit = any(s.kind == \"big\" or 6 // s.hits > 1 for s in ships)",
        {"ships": [{"kind": "big"}, {"kind": "small"}], "columns": []}, "divi"),
    # two ships: j = 1 finds column 1's first ship with 0 hits (true); j = 2 meets an empty column
    "an index": (
        "let hit = any(columns[j][1].hits == 0 for j in 1 .. count(ships))",
        {"ships": SHIPS[:2], "columns": [[{"kind": "big"}], []]}, "index|position|empty"),
    # `append([], ...)` is typed a list of any (see test_proven_types): its items' fields are not proven, and the
    # text "x" after the true first item has no field kind
    "a field of a value typed any": (
        "let found = append(append([], ships[1]), \"x\")\nlet hit = any(s.kind == \"big\" for s in found)",
        {"ships": SHIPS, "columns": []}, "field|record"),
}


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("later", sorted(LATER_ITEMS_THAT_FAIL))
def test_a_later_item_that_fails_after_a_true_item_still_raises(one_procedure, engine, later):
    # every item evaluated (no early stop written), in both engines
    statements, given, message = LATER_ITEMS_THAT_FAIL[later]
    ruleset = one_procedure(statements + "\noutcome v(hit = hit)", inputs=INPUTS, extra=TYPES)
    assert "; break" not in procedure_source(ruleset, "p", "play")
    with pytest.raises((RuleViolation, RulesetError), match=message):
        resolve(ruleset, "p", given, seed=1, trace=False, engine=engine)
