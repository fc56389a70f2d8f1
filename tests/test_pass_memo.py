"""Exact odds: a pass whose states each go to one place decided by the state alone is remembered per run.

Issue 24 ("exact where it can be"), seventh round: eia's ``battle_round`` counts the ships afloat in
each outcome of ``columns_act`` (a pass reading that outcome and constants alone), and ``battle``
calls it once per round number with the same columns: the same outcomes came back and were counted
again in every round.  A pass that rolls nothing and reads no input now keeps, per run, where each
state went (``engine.frame.PassMemo``, ``Run.pass_memo``); a state met again goes there without its
statements.  What must not change: the odds (counted by hand below; the reference evaluator agrees),
and a pass that reads an input is remembered per value of it (its states go elsewhere when it differs).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_in, procedure

from interpreter import odds
from interpreter.engine import procedure_source
from interpreter.errors import WartableError
from interpreter.limits import Limits
from interpreter.runtime import MEMO_TRIAL, Run
from interpreter.values import Record

ENGINES = ("compiled", "reference")

PROCEDURES = {
    "coin": procedure("""
        if 1d2 == 1 then
          outcome heads(n = 1)
        end
        outcome tails(n = 2)
    """),
    # Two passes after calls: the first reads `c` and constants alone (one memo), the second reads the
    # input `bump` too (a memo per bump: the same state goes elsewhere for another bump).
    "step": procedure("""
        let c = resolve coin()
        let twice = sum(x for x in [c.n, c.n])
        let d = resolve coin()
        outcome s(total = twice + sum(x for x in [d.n, bump]))
    """, inputs="{bump: {type: int, default: 0}}"),
    # step run twice in one run, with two bumps: the second run meets the first one's states
    "both": procedure("""
        let a = resolve step(bump = 0)
        let b = resolve step(bump = 10)
        outcome o(a = a.total, b = b.total)
    """),
    "tally": procedure("""
        if 1d2 == 1 then
          outcome t(v = n + extra)
        end
        outcome t(v = 10 * n + extra)
    """, inputs="{n: {type: int}, extra: {type: int, default: 0}}"),
    # a call whose arguments are worked out from the state (an aggregate) and an input: its result for a
    # state is remembered per value of the input
    "spreads": procedure("""
        let c = resolve coin()
        let r = resolve tally(n = sum(x for x in [c.n, c.n]), extra = bump)
        outcome o(v = r.v)
    """, inputs="{bump: {type: int, default: 0}}"),
    "both_spreads": procedure("""
        let a = resolve spreads(bump = 0)
        let b = resolve spreads(bump = 100)
        outcome o(a = a.v, b = b.v)
    """),
    # the remembered pass's error: raised for the state that reaches it, in every run of the pass
    "failing": procedure("""
        let c = resolve coin()
        let e = [1, 2][c.n + count(x for x in [c.n] if x > 1)]
        outcome o(e = e)
    """),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("pass_memo"), PROCEDURES)


def test_a_pass_is_remembered_per_value_of_the_inputs_it_reads(rules):
    source = procedure_source(rules, "step", "exact")
    assert source.count("rt.pass_memo(") == 2
    # the pass of `twice` (its ruleset line follows as a comment) reads no input: one memo for the run
    first = source[source.index("rt.pass_memo("):]
    assert first.startswith("rt.pass_memo(site") and first[: first.index("\n")].endswith(", len(D))")
    assert "let twice = sum(x for x in [c.n, c.n])" in first[: first.index("let d = resolve coin()")]
    # the one after the second call reads `bump`: a memo per value of it
    second = source[source.rindex("rt.pass_memo("):]
    assert second[: second.index("\n")].endswith(", len(D), i0)")
    assert "outcome s(total = " in second


@pytest.mark.parametrize("engine", ENGINES)
def test_odds_are_unchanged_and_an_input_read_after_is_not_remembered(rules, engine):
    # coin: n = 1 or 2, 1/2 each.  step(bump) = 2*c + d + bump with c, d independent coins:
    # 3 (c=1, d=1), 4 (1, 2), 5 (2, 1), 6 (2, 2), 1/4 each, plus bump.  both: step(0) and step(10)
    # independent, so each (a, b) with a in 3..6 and b in 13..16 has 1/16.  (Were the pass reading
    # bump remembered whatever bump, step(10)'s states would go where step(0)'s went: b in 3..6.)
    dist = odds(rules, "both", engine=engine)
    got = {(outcome.fields["a"], outcome.fields["b"]): p for outcome, p in dist.outcomes}
    assert got == {(a, b): Fraction(1, 16) for a in range(3, 7) for b in range(13, 17)}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_remembered_pass_gives_the_same_odds_when_run_again(rules, engine):
    # step(0) alone: 3, 4, 5, 6 with 1/4 each (see above), the memo filled by the first call and read by the second
    for _ in range(2):
        dist = odds(rules, "step", {"bump": 0}, engine=engine)
        assert {outcome.fields["total"]: p for outcome, p in dist.outcomes} == {t: Fraction(1, 4) for t in range(3, 7)}


def test_an_error_in_a_remembered_pass_is_raised_as_the_evaluator_raises_it(rules):
    # c.n = 2: [1, 2][2 + 1] is outside the list; c.n = 1: [1, 2][1 + 0] = 1.  The failing state is never
    # remembered, so every run of the pass raises it, with the evaluator's message.
    messages = []
    for engine in (*ENGINES, "compiled"):
        with pytest.raises(WartableError) as caught:
            odds(rules, "failing", engine=engine)
        messages.append(str(caught.value))
    assert "index 3 is outside the list (1 to 2)" in messages[0]
    assert messages[0] == messages[1] == messages[2]
    assert "rt.pass_memo(" in procedure_source(rules, "failing", "exact")


def test_the_run_keeps_a_memo_per_input_value_and_type_and_none_for_a_list(rules):
    run = Run(rules.compiled, Limits())
    site = object()
    one = run.pass_memo(site, 1, 1)
    assert one is not None and run.pass_memo(site, 1, 1) is one
    assert run.pass_memo(site, 1, True) is not one  # 1 == True, but a state may go elsewhere for each
    assert run.pass_memo(site, 1, 2) is not one
    assert run.pass_memo(site, 1, (1, 2)) is None  # a list of numbers: [1] == [True]
    # a list of records or text, or of such lists (a side's columns), is equal only to the same items
    ship = Record("ship", {"kind": "warship"})
    columns = run.pass_memo(site, 1, ((ship,), (ship, ship)), ("a",))
    assert columns is not None and run.pass_memo(site, 1, ((ship,), (ship, ship)), ("a",)) is columns
    assert run.pass_memo(site, 1, ((ship,), (ship, 1))) is None


def test_a_memo_that_finds_almost_nothing_is_dropped_for_the_run(rules):
    run = Run(rules.compiled, Limits())
    kept, dropped = object(), object()
    assert MEMO_TRIAL == 8 * 1024
    for site, found in ((kept, 1), (dropped, 8)):
        # each run of the pass asks for 1,024 states: 8 runs ask for MEMO_TRIAL (8,192), and the ninth weighs
        # them.  `kept` met all but 1,024 of them again (its memo holds 1,024 states); `dropped` met none
        # again (8,192 states kept): 8 * 8,192 > 7 * 8,192, fewer than 1 in 8 found
        memo = run.pass_memo(site, 1024)
        memo.update((n, (0, n)) for n in range(found * 1024))
        for _ in range(7):
            assert run.pass_memo(site, 1024) is memo
    assert run.pass_memo(kept, 1024) is not None
    assert run.pass_memo(dropped, 1024) is None
    assert run.pass_memo(dropped, 1) is None  # for the rest of the run


def test_a_call_whose_arguments_are_worked_out_from_the_state_remembers_its_results_per_input(rules):
    source = procedure_source(rules, "spreads", "exact")
    memo = source[source.index("rt.pass_memo("):]
    assert memo[: memo.index("\n")].endswith(", len(D), i0)")  # by bump
    assert "PM" in memo and ".get(st)) is None:" in memo and "= (vals, T)" in memo


@pytest.mark.parametrize("engine", ENGINES)
def test_the_remembered_results_of_a_call_give_the_same_odds(rules, engine):
    # coin n = 1 or 2 (1/2 each): tally's n = 2n = 2 or 4; tally gives n + extra or 10 n + extra (1/2 each).
    # spreads(bump): 2, 20, 4, 40 plus bump, 1/4 each; both_spreads: (a, b) with a in {2, 20, 4, 40} and
    # b in {102, 120, 104, 140}, independent: 1/16 each.  (Were the results remembered whatever bump, the
    # second call's would be the first's: b in {2, 20, 4, 40}.)
    dist = odds(rules, "both_spreads", engine=engine)
    got = {(outcome.fields["a"], outcome.fields["b"]): p for outcome, p in dist.outcomes}
    assert got == {(a, b + 100): Fraction(1, 16) for a in (2, 20, 4, 40) for b in (2, 20, 4, 40)}
