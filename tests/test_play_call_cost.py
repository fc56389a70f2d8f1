"""Eighth round (issue 24): a resolved call's own cost in plays, with the evaluator's answers and errors.

A call's work is compared with one comparison against ``Budget.call_alarm``; a play function starts only the
counters it reads; literal dice test only the limits a die can pass; ``r.outcome == "name"`` on a callee's outcome
key tests the key's number.  Each test compares both engines or counts by hand.
"""

from __future__ import annotations

import pytest
from conftest import procedure

from interpreter import resolve
from interpreter.api import monte_carlo
from interpreter.engine import procedure_source
from interpreter.limits import CALL_WORK, Budget, LimitExceeded, Limits

CALLER = """
let hits = 0
let misses = 0
for k in 1 .. n do
  let s = resolve shot()
  if s.outcome == "hit" then
    set hits = hits + 1
  end
  if s.outcome != "miss" and s.outcome != "nothing" then
    set misses = misses + 0
  else
    set misses = misses + 1
  end
end
outcome done(hits = hits, misses = misses)
"""

SHOT = """
let die = 1d6
if die >= 5 then
  outcome hit
end
if die == 1 then
  outcome hit(close = true)
end
outcome miss
"""


@pytest.fixture
def calling(make_ruleset):
    return make_ruleset({"p": procedure(CALLER, inputs="{n: {type: int, default: 4}}"), "shot": procedure(SHOT)})


def both(ruleset, trials, seed, **kwargs):
    counts = [monte_carlo(ruleset, "p", trials=trials, seed=seed, engine=engine, **kwargs).counts for engine in ("compiled", "reference")]
    assert counts[0] == counts[1]
    return counts[0]


def test_a_callees_outcome_name_is_tested_by_its_number_where_no_outcome_so_named_has_fields(calling):
    play = procedure_source(calling, "p", "play")
    # shot's outcomes are numbered as written: hit 0, hit(close) 1, miss 2.  "hit" names an outcome with a field:
    # read by name as before; "miss" is number 2 alone; no outcome is "nothing": != is true without a test
    assert "== 'hit'" in play
    assert "!= 2) and True)" in play
    counts = both(calling, 600, 7, inputs={"n": 4})
    # every round is a hit (die 5, 6, or 1 with close) or a miss (2 .. 4): hits + misses = 4 in every play
    assert sum(n for _, n in counts) == 600
    assert all(outcome.get("hits") + outcome.get("misses") == 4 for outcome, _ in counts)


def test_a_play_starts_only_the_counters_it_reads(calling):
    shot = procedure_source(calling, "shot", "play")
    # no loop, no list, no outlined part, one die of six faces: no w, no local work, no r, one limit tested
    assert "w = 0" not in shot and "u = 0" not in shot and "r = None" not in shot and "BUD" not in shot
    assert "POK1_6 = 6 <= rt.limits.max_faces\n" in shot
    caller = procedure_source(calling, "p", "play")
    assert "w = 0" in caller and "r = None" not in caller


def test_a_die_past_the_faces_limit_is_refused_alike(calling):
    messages = []
    for engine in ("compiled", "reference"):
        with pytest.raises(LimitExceeded) as refused:
            monte_carlo(calling, "p", trials=2, seed=1, engine=engine, limits=Limits(max_faces=4))
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "max_faces" in messages[0]


def test_the_call_alarm_is_never_above_either_threshold_of_a_charge():
    budget = Budget(Limits(max_work=100, timeout=None))
    # at first: the clock's first read at CLOCK_EVERY (20,000), the cap past 100 units: 101
    assert budget.call_alarm == 101
    budget.charge(60, None)
    budget.start_play()  # a new play from 60: the cap moves on to 161, the alarm stays at 101 (lower: safe)
    assert budget.call_alarm == 101
    budget.charge(50, None)  # 110: neither threshold of charge() (110 - 60 = 50 <= 100), but past the alarm
    assert budget.work == 110 >= budget.call_alarm
    budget.checkpoint(None)  # what a call does then: nothing to refuse, the alarm set again to 60 + 100 + 1
    assert budget.call_alarm == 161
    with pytest.raises(LimitExceeded, match="more than 100 units of work"):
        budget.charge(51, None)  # 161 - 60 = 101 > 100


def test_a_call_past_the_work_budget_is_refused_at_the_call_in_both_engines(calling):
    # each round of n = 40 charges the call's CALL_WORK (16) and its loop round's work: the budget is spent at some
    # call; both engines stop at the same place with the same message
    def refused(engine):
        with pytest.raises(LimitExceeded) as caught:
            resolve(calling, "p", {"n": 40}, seed=3, engine=engine, trace=False, limits=Limits(max_work=10 * CALL_WORK))
        return str(caught.value)

    compiled, reference = refused("compiled"), refused("reference")
    assert compiled == reference and "resolve shot" in compiled
