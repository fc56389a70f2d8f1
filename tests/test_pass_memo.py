"""Exact odds: a pass whose states each go to one place decided by the state alone is remembered per run.

Issue 24 ("exact where it can be"), seventh round: eia's ``battle_round`` counts the ships afloat in
each outcome of ``columns_act`` (a pass reading that outcome and constants alone), and ``battle``
calls it once per round number with the same columns: the same outcomes came back and were counted
again in every round.  A pass that rolls nothing and reads no input now keeps, per run, where each
state went (``engine.frame.PassMemo``, ``Run.pass_memo``); a state met again goes there without its
statements.  What must not change: the odds (counted by hand below; the reference evaluator agrees),
and a pass that reads an input must not be remembered (its states go elsewhere when the input differs).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_in, procedure

from interpreter import odds
from interpreter.engine import procedure_source
from interpreter.errors import WartableError

ENGINES = ("compiled", "reference")

PROCEDURES = {
    "coin": procedure("""
        if 1d2 == 1 then
          outcome heads(n = 1)
        end
        outcome tails(n = 2)
    """),
    # Two passes after calls: the first reads `c` and constants alone (remembered), the second reads the
    # input `bump` too (not remembered: the same state goes elsewhere for another bump).
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


def test_only_the_pass_that_reads_no_input_is_remembered(rules):
    source = procedure_source(rules, "step", "exact")
    assert source.count("rt.pass_memo(") == 1
    # the pass of `twice` (its ruleset line follows as a comment) keeps one; the one reading `bump`, after the
    # second call, none
    remembered = source[source.index("rt.pass_memo("):]
    assert "let twice = sum(x for x in [c.n, c.n])" in remembered[: remembered.index("let d = resolve coin()")]
    assert "pass_memo" not in source[source.index("outcome s(total = "):]


@pytest.mark.parametrize("engine", ENGINES)
def test_odds_are_unchanged_and_an_input_read_after_is_not_remembered(rules, engine):
    # coin: n = 1 or 2, 1/2 each.  step(bump) = 2*c + d + bump with c, d independent coins:
    # 3 (c=1, d=1), 4 (1, 2), 5 (2, 1), 6 (2, 2), 1/4 each, plus bump.  both: step(0) and step(10)
    # independent, so each (a, b) with a in 3..6 and b in 13..16 has 1/16.  (Were the pass reading
    # bump remembered, step(10)'s states would go where step(0)'s went: b in 3..6.)
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
