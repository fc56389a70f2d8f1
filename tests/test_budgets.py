"""Budgets: work, states, time, integer size, value size and nesting, dice, trials.

Each breach is a LimitExceeded positioned at the statement or expression
that crossed the line, naming the limit and how to raise it.  Every limit is
a setting: a test shows the same procedure passing under a larger one.
"""

from __future__ import annotations

import gc
from fractions import Fraction

import pytest
from conftest import procedure

from interpreter import odds, resolve
from interpreter.api import monte_carlo
from interpreter.errors import UsageError
from interpreter.limits import LimitExceeded, Limits, keep_newest, remember

# conftest: the first body line is line 11, and body text starts in column 7.
BODY_LINE, BODY_COLUMN = 11, 7


def breach(run) -> tuple[int, int, str]:
    with pytest.raises(LimitExceeded) as info:
        run()
    (diagnostic,) = info.value.diagnostics
    return diagnostic.line, diagnostic.column, diagnostic.message


# ---- integers ---------------------------------------------------------------------------------------------------

SQUARING = "let x = 2\nfor i in 1 .. 6 do\n  set x = x * x\nend\noutcome v(x = x)"


def test_integers_stop_growing_at_the_bit_limit(one_procedure):
    ruleset = one_procedure(SQUARING)
    # 2 squared six times: 4, 16, 256, 65536, 2**32, 2**64; 2**64 needs 65 bits, past the default 64
    line, column, message = breach(lambda: odds(ruleset, "p"))
    assert (line, column) == (BODY_LINE + 2, BODY_COLUMN + 10)  # at `x * x`
    assert "4294967296 * 4294967296 grows past 64 bits (max_int_bits" in message
    assert resolve(ruleset, "p", dice=[], limits=Limits(max_int_bits=65)).outcome.get("x") == 2**64


def test_a_sum_stops_at_the_bit_limit(one_procedure):
    # 2**62 + 2**62 + 2**62 = 3 * 2**62 needs 64 bits; + 2**62 more is 2**64, 65 bits
    ruleset = one_procedure("let big = 4611686018427387904\noutcome v(x = sum([big, big, big, big]))")
    assert "a sum grows past 64 bits" in breach(lambda: odds(ruleset, "p"))[2]


# ---- states -----------------------------------------------------------------------------------------------------

TWO_D20 = "let a = 1d20\nlet b = 1d20\noutcome v(x = a - b)"


def test_states_are_counted_as_they_split(one_procedure):
    ruleset = one_procedure(TWO_D20)
    # after the second roll a and b are both live: 20 x 20 = 400 states
    assert odds(ruleset, "p", limits=Limits(max_states=400)).probability("v", x=0) == Fraction(20, 400)
    line, column, message = breach(lambda: odds(ruleset, "p", limits=Limits(max_states=399)))
    assert (line, column) == (BODY_LINE + 1, BODY_COLUMN + 8)  # the second roll
    assert "more than 399 states" in message and "--max-states" in message


def test_three_live_thousand_sided_dice_stop_quickly(one_procedure):
    ruleset = one_procedure("let a = 1d1000\nlet b = 1d1000\nlet c = 1d1000\noutcome v(x = a + b + c)")
    # 1000 x 1000 states after the second roll: past the default 200,000
    line, _, message = breach(lambda: odds(ruleset, "p"))
    assert line == BODY_LINE + 1 and "max_states" in message


def test_a_roll_with_too_many_totals_is_refused_before_it_is_counted(one_procedure):
    ruleset = one_procedure("outcome v(x = 1000d1000)")
    # 1000d1000 has 1000 x 999 + 1 = 999,001 totals, past the default 100,000
    line, column, message = breach(lambda: odds(ruleset, "p"))
    assert (line, column) == (BODY_LINE, BODY_COLUMN + 14)
    assert "1000d1000 has 999,001 totals" in message


def test_sums_of_many_faces_are_exact(one_procedure):
    ruleset = one_procedure("outcome v(x = 3d100)")
    distribution = odds(ruleset, "p")
    # 3d100 totals 3..300; a total of 5 is 1+1+3, 1+3+1, 3+1+1, 1+2+2, 2+1+2, 2+2+1: 6 of 100**3
    assert distribution.probability("v", x=5) == Fraction(6, 100**3)
    # 150 = a + b + c with each 1..100: compositions of 147 into three parts 0..99:
    # C(149, 2) - 3 * C(49, 2) = 11026 - 3 * 1176 = 7498
    assert distribution.probability("v", x=150) == Fraction(7498, 100**3)


# ---- values -----------------------------------------------------------------------------------------------------

def test_a_repeated_repeat_is_refused_by_its_size(one_procedure):
    ruleset = one_procedure("let xs = repeat(repeat(repeat(0, 100000), 100000), 100000)\noutcome v(n = count(xs))")
    # the inner list holds 100,000 items (the limit); 100,000 copies of it hold 10**10
    line, column, message = breach(lambda: odds(ruleset, "p"))
    assert (line, column) == (BODY_LINE, BODY_COLUMN + 16)  # the middle repeat(
    assert "more than 100,000 items" in message and "max_value_items" in message


def test_lists_cannot_nest_past_the_depth_limit(one_procedure):
    ruleset = one_procedure("let ys = []\nfor i in 1 .. 100 do\n  set ys = [ys]\nend\noutcome v(n = count(ys))")
    line, column, message = breach(lambda: resolve(ruleset, "p", dice=[]))
    assert (line, column) == (BODY_LINE + 2, BODY_COLUMN + 11)
    assert "more than 16 deep" in message
    # [] inside 15 more lists is 16 deep: within the limit
    shallow = one_procedure("let ys = []\nfor i in 1 .. 15 do\n  set ys = [ys]\nend\noutcome v(n = count(ys))")
    assert resolve(shallow, "p", dice=[]).outcome.get("n") == 1


def test_a_long_range_is_refused_by_its_size(one_procedure):
    ruleset = one_procedure("outcome v(n = count(1 .. 1000000))")
    assert "range 1 .. 1000000 would hold more than 100,000 items" in breach(lambda: odds(ruleset, "p"))[2]


@pytest.mark.parametrize("call", ["resolve", "resolve_reference", "odds", "monte_carlo"])
def test_an_input_larger_than_the_value_limits_is_refused_by_name(one_procedure, call):
    # xs of 4 items against max_value_items = 2: refused before any engine makes a value of it, in the same words
    # (each engine refused the first list it made from it instead, each in its own words and place)
    ruleset = one_procedure(
        "let ys = list(xs[i] + 1 for i in 1 .. count(xs))\noutcome v(total = sum(ys))",
        inputs="{xs: {type: list, of: {type: int}}}",
    )
    small = Limits(max_value_items=2)
    run = {
        "resolve": lambda given: resolve(ruleset, "p", given, seed=1, limits=small),
        "resolve_reference": lambda given: resolve(ruleset, "p", given, seed=1, limits=small, engine="reference"),
        "odds": lambda given: odds(ruleset, "p", given, limits=small),
        "monte_carlo": lambda given: monte_carlo(ruleset, "p", given, trials=2, limits=small),
    }[call]
    with pytest.raises(LimitExceeded) as refused:
        run({"xs": [1, 2, 3, 4]})
    assert str(refused.value).startswith("<inputs>:1:1: input 'xs' holds more than 2 items (max_value_items")
    # two items are within the limit: ys = [2, 3], total 5
    result = run({"xs": [1, 2]})
    assert (result.outcome if call.startswith("resolve") else result.outcomes[0][0] if call == "odds" else result.counts[0][0]).get("total") == 5


# ---- work and time --------------------------------------------------------------------------------------------------

def test_work_is_one_budget_for_the_whole_call(one_procedure):
    ruleset = one_procedure("let t = 0\nfor i in 1 .. 100000 do\n  set t = t + 1\nend\noutcome v(t = t)")
    line, _, message = breach(lambda: odds(ruleset, "p", limits=Limits(max_work=10_000)))
    assert line in (BODY_LINE + 1, BODY_LINE + 2)
    assert "more than 10,000 units of work" in message and "--max-work" in message
    assert odds(ruleset, "p", limits=Limits(max_work=None)).probability("v", t=100000) == 1


def test_the_clock_stops_a_long_computation(one_procedure):
    ruleset = one_procedure("let t = 0\nfor i in 1 .. 100000 do\n  set t = t + 1\nend\noutcome v(t = t)")
    message = breach(lambda: odds(ruleset, "p", limits=Limits(max_work=None, timeout=1e-9)))[2]
    assert "stopped after 1e-09 seconds" in message and "--timeout" in message


def test_monte_carlo_gives_each_play_the_whole_work_budget(one_procedure):
    ruleset = one_procedure("let d = 1d6\noutcome v(high = d >= 4)")
    # each play costs a few units; 2,000 plays cost far more than 100 in all
    sample = monte_carlo(ruleset, "p", trials=2000, seed=7, limits=Limits(max_work=100))
    assert sum(count for _, count in sample.counts) == 2000


def test_monte_carlo_trials_are_capped(one_procedure):
    ruleset = one_procedure("outcome v")
    with pytest.raises(LimitExceeded, match="max_trials"):
        monte_carlo(ruleset, "p", trials=10**12, seed=1)


def test_a_bounded_memo_gives_the_same_odds(make_ruleset):
    ruleset = make_ruleset({
        "q": procedure("let d = 1d6\noutcome r(x = d + n)", inputs="{n: {type: int}}"),
        "p": procedure("let total = 0\nfor n in 1 .. 3 do\n  let r = resolve q(n = n)\n  set total = total + r.x\nend\noutcome v(t = total)"),
    })
    # the total is 3d6 + (1 + 2 + 3): 3d6 totals 9 in 25 ways of 216, so t = 15 has probability 25/216
    for limits in (Limits(), Limits(max_memo_entries=1)):
        assert odds(ruleset, "p", limits=limits).probability("v", t=15) == Fraction(25, 216)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_memo_smaller_than_the_calls_forgets_and_gives_the_same_odds(make_ruleset, engine):
    ruleset = make_ruleset({
        "q": procedure("outcome r(x = n)", inputs="{n: {type: int}}"),
        "p": procedure("let total = 0\nfor n in 1 .. 12 do\n  let r = resolve q(n = n)\n  set total = total + r.x\nend\noutcome v(t = total)"),
    })
    # one state at a time, twelve distinct calls of q; a memo of max(1, 4) = 4 entries forgets its older half
    # again and again: the total is 1 + 2 + ... + 12 = 78, with probability 1 whatever the memo keeps
    assert Limits(max_memo_entries=1, max_states=4).memo_entries == 4
    assert odds(ruleset, "p", limits=Limits(max_memo_entries=1, max_states=4), engine=engine).probability("v", t=78) == 1
    if engine == "compiled":  # the ruleset's memo (the reference engine keeps one a run) kept at most 4 of the 12 calls of q
        assert 0 < len(ruleset.exact_results) <= 4


def test_after_a_call_the_rulesets_memo_keeps_max_memo_entries(make_ruleset):
    ruleset = make_ruleset({
        "q": procedure("outcome r(x = n)", inputs="{n: {type: int}}"),
        "p": procedure("let total = 0\nfor n in 1 .. 12 do\n  let r = resolve q(n = n)\n  set total = total + r.x\nend\noutcome v(t = total)"),
    })
    # states lifted: during the call every one of the 12 calls of q is remembered; after it, the 3 newest
    # (max_memo_entries): q(n = 10), q(n = 11), q(n = 12), made last
    assert odds(ruleset, "p", limits=Limits(max_states=None, max_memo_entries=3)).probability("v", t=78) == 1
    assert len(ruleset.exact_results) == 3
    assert [key[1] for key in ruleset.exact_results] == [(10,), (11,), (12,)]


def test_keep_newest_forgets_the_oldest():
    memo = {key: key.upper() for key in "abcde"}
    keep_newest(memo, 2)
    assert memo == {"d": "D", "e": "E"}
    keep_newest(memo, 5)  # fewer than kept: unchanged
    assert memo == {"d": "D", "e": "E"}


def test_the_memo_follows_the_state_budget():
    assert Limits().memo_entries == 200_000  # the default max_states, larger than max_memo_entries (10,000)
    assert Limits(max_states=500).memo_entries == 10_000  # max_memo_entries, larger than max_states
    assert Limits(max_states=None).memo_entries >= 2**62  # lifted with the state budget: every call remembered


def test_a_full_memo_forgets_its_older_half():
    memo: dict = {}
    for key in "abcd":
        remember(memo, key, key.upper(), limit=4)
    assert list(memo) == ["a", "b", "c", "d"]
    # full at 4: "a" and "b" (the older half) go, then "e" comes in
    remember(memo, "e", "E", limit=4)
    assert memo == {"c": "C", "d": "D", "e": "E"}
    for key in "fghij":
        remember(memo, key, key.upper(), limit=4)
        assert len(memo) <= 4
    remember(memo, "z", "Z", limit=1)  # a memo of one entry keeps only the newest
    assert memo == {"z": "Z"}


# ---- the cyclic garbage collector -------------------------------------------------------------------------------

# Every sequence of four dice is a state of its own: 1,296 lists made, far more than the 700
# allocations after which Python's collector would start a young collection.
MANY_STATES = procedure("let seen = []\nfor i in 1 .. 4 do\n  set seen = append(seen, 1d6)\nend\noutcome v(s = seen)")


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_exact_odds_pause_the_collector_and_resume_it(make_ruleset, engine):
    ruleset = make_ruleset({"p": MANY_STATES})
    odds(ruleset, "p", engine=engine)  # the first call compiles the procedure (or imports the evaluator)
    started = []
    callback = lambda phase, info: started.append(info["generation"]) if phase == "start" else None
    assert gc.isenabled()
    gc.collect()  # the collector's counts start from zero
    gc.callbacks.append(callback)
    try:
        distribution = odds(ruleset, "p", engine=engine)
    finally:
        gc.callbacks.remove(callback)
    assert started == []
    # one sequence of 6**4 = 1296: [6, 6, 6, 6]
    assert distribution.probability("v", s=(6, 6, 6, 6)) == Fraction(1, 1296)
    assert gc.isenabled()


def test_the_collector_is_resumed_after_an_error_and_left_off_when_it_was_off(make_ruleset):
    ruleset = make_ruleset({"p": MANY_STATES})
    with pytest.raises(LimitExceeded):
        odds(ruleset, "p", limits=Limits(max_work=10))
    assert gc.isenabled()
    gc.disable()
    try:
        odds(ruleset, "p")
        assert not gc.isenabled()
    finally:
        gc.enable()


# ---- the limits themselves --------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [{"max_work": -1}, {"max_states": 0}, {"timeout": "soon"}, {"max_int_bits": None}, {"max_faces": True}])
def test_a_bad_limit_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="Limits"):
        Limits(**bad)


@pytest.mark.parametrize("value, expected", [
    ((1, 2, 3), (3, 1)),  # a flat list: its items, one level
    ((), (0, 1)),
    # a record of a plain field and a list of two: 2 fields + 2 items = 4, one list inside;
    # in a list: 1 item + the record's 4 = 5, two levels
    (("REC",), (5, 2)),
    (((1, 2), (3,)), (5, 2)),  # lists inside: 2 lists + 3 items, two levels (the general walk)
    # two items (7 and a list); the list's one item; the record's 4: 2 + 1 + 4 = 7; the record's list is level 3
    ((7, ("REC",)), (7, 3)),
])
def test_a_value_is_measured_as_its_items_and_nesting(value, expected):
    from interpreter.values import Record, measure

    record = Record("ship", (("kind", "big"), ("hits", (1, 2))))

    def build(v):
        return record if v == "REC" else tuple(build(x) for x in v) if type(v) is tuple else v

    assert measure(build(value), 1000, 100) == expected
