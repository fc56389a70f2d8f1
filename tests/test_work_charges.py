"""Work charges that grow with what is really done (issue 21, item 7).

A unit of work is about one die face spread or one list item made.  These
tests check each charge that was missing: a state holding a long list (hashed
item by item at every statement), a play's dice counted one by one,
``successes`` worked out once a run, a resolved call's own cost, a trace
event, a sweep cell's own cost.  Each test runs both engines where a
procedure runs, and would pass on the old charges only if the charge were
missing (the limits sit between the old and the new work).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from conftest import procedure

from interpreter import odds, resolve
from interpreter.limits import (
    BIG_VALUE_ITEMS,
    CALL_WORK,
    EXACT_CALL_WORK,
    STATEMENT_WORK,
    TRACE_EVENT_WORK,
    Budget,
    LimitExceeded,
    Limits,
)
from interpreter.pools import successes_distribution, successes_work
from interpreter.runtime import dice_distribution
from interpreter.sweep import parse_dimension, run_sweep

ENGINES = ("compiled", "reference")


def work_of(run) -> int:
    """The work units ``run(budget)`` spends, with no limit on work."""
    budget = Budget(Limits(max_work=None, timeout=None))
    run(budget)
    return budget.work


# ---- big values in states -------------------------------------------------------------------------------------------


def test_a_big_value_sets_the_state_surcharge_a_small_one_does_not():
    budget = Budget(Limits())
    budget.check_value((0,) * (BIG_VALUE_ITEMS - 1), None)
    assert budget.big_state == 0
    budget.check_value((0,) * BIG_VALUE_ITEMS, None)
    assert budget.big_state == BIG_VALUE_ITEMS
    budget.check_value((0,) * 10, None)  # the largest made so far stands
    assert budget.big_state == BIG_VALUE_ITEMS
    # a list of 1,000 records of 2 fields holds 3,000 items (measure counts the fields): it counts
    budget.check_value(((1, 2),) * 1000, None)
    assert budget.big_state == 3000


LONG_LIST = "let xs = repeat(0, 5000)\nlet a = 1\nlet b = a + 1\noutcome v(n = count(xs) + b)"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_state_holding_a_long_list_pays_its_size_at_every_statement(one_procedure, engine):
    ruleset = one_procedure(LONG_LIST)
    # Before the charge: 4 statements x 4 units + 5,000 for the list made = 5,016 units.
    # With it: each of the 3 statements after the list is made costs 4 + 5,000, so the reference engine spends
    # 4 + 5,000 + 3 x 5,004 = 20,016; the compiled one runs the body in one pass and charges all 4 statements
    # at the end, 4 x 5,004 + 5,000 = 25,016.  Both are over 15,000 and under 30,000.
    with pytest.raises(LimitExceeded, match="more than 15,000 units of work"):
        odds(ruleset, "p", limits=Limits(max_work=15_000), engine=engine)
    assert odds(ruleset, "p", limits=Limits(max_work=30_000), engine=engine).probability("v", n=5002) == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_play_with_a_long_list_pays_its_size_per_statement_in_a_loop(one_procedure, engine):
    body = "let xs = repeat(0, 5000)\nlet t = 0\nfor i in 1 .. 1000 do\n  set t = t + 1\nend\noutcome v(t = t + count(xs))"
    ruleset = one_procedure(body)
    # 1,000 rounds of one statement.  The reference engine: a round's bookkeeping (4) and its statement
    # (4 + 5,000), 5.008 million units.  The compiled play counts 4 a statement and the range's 1,000 items in
    # a local (5,000) and reports them as statements, each with the surcharge: 5,000 + 1,250 x 5,000 = 6.255
    # million.  Both between 4 and 8 million; without the surcharge about 15,000.
    with pytest.raises(LimitExceeded, match="units of work"):
        resolve(ruleset, "p", seed=1, trace=False, limits=Limits(max_work=4_000_000), engine=engine)
    assert resolve(ruleset, "p", seed=1, trace=False, limits=Limits(max_work=8_000_000), engine=engine).outcome.get("t") == 6000


# ---- dice in a play ---------------------------------------------------------------------------------------------------

TEN_ROLLS = "let t = 0\nfor i in 1 .. 10 do\n  let d = 1000d6\n  set t = t + d\nend\noutcome v(big = t > 0)"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_play_pays_a_unit_a_die(one_procedure, engine):
    ruleset = one_procedure(TEN_ROLLS)
    # 10 rolls of 1,000 dice: 10,000 units for the dice alone, and the loop's statements and range besides (the
    # reference engine about 10,140 in all).  The compiled play reports its local count each time it passes the
    # chunk (a quarter of max_work here, 1,750), so at most 1,750 are left unreported at the end: more than
    # 8,000 reported.  Without the charge a roll cost its statement only, about 200 units in all.
    with pytest.raises(LimitExceeded, match="more than 7,000 units of work"):
        resolve(ruleset, "p", seed=1, trace=False, limits=Limits(max_work=7_000), engine=engine)
    assert resolve(ruleset, "p", seed=1, trace=False, limits=Limits(max_work=11_000), engine=engine).outcome.get("big") is True


def test_a_few_dice_cost_no_more_than_their_statement(one_procedure):
    # 4 dice or fewer are covered by the statement's own work.  `set t = t + 2d6` is a roll and an assignment:
    # a round costs its bookkeeping (4), two statements (8), one value spread (1) and its entry into the loop
    # (1), 14 units; 1,000 rounds and the range's 1,000 items make 15,012 (measured: 12 for the statements
    # around the loop).  A unit a die would add 2,000 more, past 16,000.
    ruleset = one_procedure("let t = 0\nfor i in 1 .. 1000 do\n  set t = t + 2d6\nend\noutcome v(big = t > 0)")
    assert resolve(ruleset, "p", seed=1, trace=False, limits=Limits(max_work=16_000), engine="reference").outcome.get("big") is True


# ---- successes and sums ----------------------------------------------------------------------------------------------


def test_successes_weights_are_the_binomial_terms():
    # 4 dice of 6 faces, 2 counted: C(4, j) 2^j 4^(4 - j): 256, 512, 384, 128, 16; they add up to 6^4 = 1,296
    assert successes_distribution(4, 6, 2) == {0: 256, 1: 512, 2: 384, 3: 128, 4: 16}
    assert successes_distribution(3, 6, 0) == {0: 216}  # nothing counts: always 0
    assert successes_distribution(3, 6, 6) == {3: 216}  # everything counts: always 3
    assert successes_distribution(0, 6, 2) == {0: 1}
    big = successes_distribution(1000, 6, 2)
    assert big[500] == comb(1000, 500) * 2**500 * 4**500 and sum(big.values()) == 6**1000


def test_successes_work_grows_with_the_length_of_the_weights():
    # a unit a term, and one more a term for each 4,096 bits of sides ** count
    assert successes_work(8, 6) == 9  # 8 x 3 bits = 24 bits: no extra
    assert successes_work(1000, 6) == 1001  # 1000 x 3 = 3,000 bits: none either
    assert successes_work(1000, 1000) == 1001 * 3  # 1000 x 10 = 10,000 bits: 2 more a term


@pytest.mark.parametrize("engine", ENGINES)
def test_successes_are_worked_out_once_a_run(one_procedure, engine, monkeypatch):
    from interpreter import pools

    made = []
    original = pools.successes_distribution

    def counting(count, sides, hits):
        made.append((count, sides, hits))
        return original(count, sides, hits)

    monkeypatch.setattr(pools, "successes_distribution", counting)
    ruleset = one_procedure("let t = 0\nfor i in 1 .. 3 do\n  let s = successes(8, 6, [6])\n  set t = (t + s) % 2\nend\noutcome v(t = t)")
    distribution = odds(ruleset, "p", engine=engine)
    # three rounds, one distribution worked out (it was worked out in every round, for every state)
    assert made == [(8, 6, 1)]
    # t is the parity of the sixes of 24 dice: odd with probability (1 - (1 - 2/6) ** 24) / 2
    assert distribution.probability("v", t=1) == (1 - Fraction(2, 3) ** 24) / 2


@pytest.mark.parametrize("count, sides", [(0, 6), (1, 6), (2, 6), (3, 1), (30, 6), (5, 1000), (40, 100)])
def test_sums_of_dice_read_from_bytes_are_the_sliding_window_counts(count, sides):
    ways = [1]
    for _ in range(count):
        ways = [sum(ways[t - face] for face in range(sides) if 0 <= t - face < len(ways)) for t in range(len(ways) + sides - 1)]
    assert dice_distribution(count, sides) == {count + offset: n for offset, n in enumerate(ways)}


def test_a_sum_of_three_dice_by_hand():
    # 3d6 = 10: the 27 orderings of {1,3,6}, {1,4,5}, {2,2,6}, {2,3,5}, {2,4,4}, {3,3,4}: 6 + 6 + 3 + 6 + 3 + 3
    assert dice_distribution(3, 6)[10] == 27


# ---- resolved calls, traces, sweeps ---------------------------------------------------------------------------------

CALLER = procedure("let t = 0\nfor i in 1 .. 10 do\n  let r = resolve q(a = i * k)\n  set t = t + r.x\nend\noutcome v(t = t)",
                   inputs="{k: {type: int}}")
CALLEE = procedure("outcome w(x = a)", inputs="{a: {type: int}}")


@pytest.mark.parametrize("engine", ENGINES)
def test_each_call_worked_out_costs_its_own_charge(make_ruleset, engine):
    ruleset = make_ruleset({"p": CALLER, "q": CALLEE})
    # k = 1: ten calls with ten inputs, each worked out; k = 0: ten calls with a = 0, worked out once.
    # The nine calls more cost their statement (4) and CALL_WORK (16) each: 180 units more; the old charges
    # made it 36.
    def spent(k):
        if hasattr(ruleset, "exact_results"):
            ruleset.exact_results.clear()
        return work_of(lambda budget: odds(ruleset, "p", {"k": k}, budget=budget, engine=engine))
    assert spent(1) - spent(0) == 9 * (CALL_WORK + STATEMENT_WORK)


def test_a_traced_play_pays_for_each_event(one_procedure):
    ruleset = one_procedure("let a = 1d6\nlet b = 1d6\noutcome v(x = a + b)")
    # the untraced play (reference engine) and the traced one differ by the events only: two rolls and an outcome
    limits = Limits(max_work=None, timeout=None)
    traced = resolve(ruleset, "p", seed=3, limits=limits, trace=True)
    untraced_work = _play_work(ruleset, trace=False)
    traced_work = _play_work(ruleset, trace=True)
    assert traced_work - untraced_work == len(traced.trace) * TRACE_EVENT_WORK
    assert len(traced.trace) == 3


def _play_work(ruleset, trace: bool) -> int:
    from interpreter.dice import SeededDice
    from interpreter.evaluator import Executor

    budget = Budget(Limits(max_work=None, timeout=None))
    executor = Executor(ruleset, dice=SeededDice(3), trace=trace, budget=budget, limits=budget.limits)
    executor.run_procedure(ruleset.compiled["p"], {})
    return budget.work


def test_a_sweep_cell_costs_a_call_of_its_own(one_procedure):
    ruleset = one_procedure("if 1d6 <= n then\n  outcome hit\nend\noutcome miss", inputs="{n: {type: int}}")
    dimension = parse_dimension(ruleset, "p", "n=1..6")
    budget = Budget(Limits(max_work=None, timeout=None))
    sweep = run_sweep(ruleset, "p", [dimension], budget=budget)
    assert sweep.cells[2].distribution.probability("hit") == Fraction(3, 6)
    # six cells: at least EXACT_CALL_WORK each, besides what their procedures cost
    assert budget.work >= 6 * EXACT_CALL_WORK
    fewer = Budget(Limits(max_work=None, timeout=None))
    run_sweep(ruleset, "p", [parse_dimension(ruleset, "p", "n=1..3")], budget=fewer)
    assert budget.work - fewer.work >= 3 * EXACT_CALL_WORK


@pytest.mark.parametrize("nested_ifs", [0, 26])
def test_each_monte_carlo_play_has_the_whole_budget_for_its_dice(one_procedure, nested_ifs):
    # Five rolls of 1,000 dice a play, no loop: 5,000 units of dice a play, whichever way the compiled trial is
    # written (inline, or a function of its own past 24 nested ifs).  200 plays spend 1,000,000 units in all,
    # far past max_work = 20,000, yet each play has the whole budget to itself: none fails.
    opening = "".join("  " * depth + "if true then\n" for depth in range(nested_ifs))
    closing = "".join("  " * depth + "end\n" for depth in reversed(range(nested_ifs)))
    inner = "  " * nested_ifs
    rolls = "".join(f"{inner}let roll{k} = 1000d6\n" for k in range(5))
    body = opening + rolls + f"{inner}outcome v(big = roll0 + roll1 + roll2 + roll3 + roll4 > 0)\n" + closing
    if nested_ifs:
        body += "outcome v(big = false)"
    ruleset = one_procedure(body)
    from interpreter.api import monte_carlo

    sample = monte_carlo(ruleset, "p", trials=200, seed=5, limits=Limits(max_work=20_000))
    assert {outcome.get("big"): count for outcome, count in sample.counts} == {True: 200}
