"""Running totals taken out of a `while` loop's chain (chains.accumulated, chains.lifted), and a
resolved outcome kept at a loop's head with only the fields read later (engine FieldLiveness).

A total that a loop only adds to (``set v = v + e``, ``v`` read nowhere else) does not change what
a round does: the round from a state is computed once for every total and shifted.  Every
expected value is derived by hand in a comment, on both back ends, which must agree exactly.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import chains, ir, load_ruleset, odds
from interpreter.engine.liveness import FieldLiveness
from interpreter.limits import LimitExceeded, Limits

ENGINES = ("compiled", "reference")

# Two rounds, each adding 1d3 to the score: the score is start + 2d3.
TWO_ROUNDS = procedure("""
    let score = start
    let rounds_left = 2
    while rounds_left > 0 do
      let r = 1d3
      set score = score + r
      set rounds_left = rounds_left - 1
    end
    outcome total(score = score)
""", inputs="{start: {type: int}}")

# Two ships; each round 1d6: 1 ends the fight (`break`), 5-6 sinks a ship, 2-4 changes nothing.
HITS = procedure("""
    let ships = 2
    let sunk = 0
    while ships > 0 do
      let r = 1d6
      if r == 1 then
        break
      end
      if r >= 5 then
        set ships = ships - 1
        set sunk = sunk + 1
      end
    end
    outcome over(sunk = sunk)
""")

# A total the loop adds to but nothing reads afterwards, and an outcome inside the loop: two rounds of
# 1d2, a 2 in the first round ends the procedure at once.
DEAD_TOTAL = procedure("""
    let wasted = 0
    let rounds_left = 2
    while rounds_left > 0 do
      let r = 1d2
      if r == 2 and rounds_left == 2 then
        outcome early
      end
      set wasted = wasted + r
      set rounds_left = rounds_left - 1
    end
    outcome late
""")

# A resolved outcome carried at the loop's head: its `gained` field is read only in the round that made it.
STEP = procedure("""
    let r = 1d2
    outcome moved(left = left - 1, gained = r)
""", inputs="{left: {type: int}}")
WALK = procedure("""
    let now = resolve step(left = 3)
    let total = now.gained
    while now.left > 0 do
      set now = resolve step(left = now.left)
      set total = total + now.gained
    end
    outcome walked(total = total)
""")

# Not totals: read in the condition; assigned twice; assigned inside a nested loop; added to from the right.
NOT_TOTALS = procedure("""
    let a = 0
    let b = 0
    let c = 0
    let e = 0
    let f = 0
    while a < 2 do
      let r = 1d2
      set a = a + r
      set b = b + r
      set b = b + 1
      for i in 1 .. 2 do
        set c = c + i
      end
      set e = r + e
      set f = f + r
    end
    outcome done(a = a, b = b, c = c, e = e, f = f)
""")


@pytest.fixture
def rules(write_yaml):
    path = write_yaml(ruleset_text({
        "two_rounds": TWO_ROUNDS, "hits": HITS, "dead_total": DEAD_TOTAL, "step": STEP, "walk": WALK,
        "not_totals": NOT_TOTALS,
    }))
    return load_ruleset(path)


def exact(ruleset, name, inputs=None, engine="compiled", limits=None):
    distribution = odds(ruleset, name, inputs or {}, engine=engine, limits=limits)
    assert distribution.truncated == 0
    return {(o.name, o.fields): p for o, p in distribution.outcomes}


def the_loop(ruleset, name):
    procedure = ruleset.compiled[name]
    loop = next(s for s in ir.statements_in(procedure.body) if type(s) is ir.WhileLoop)
    return procedure, loop


def slot_of(loop, name):
    return dict(loop.variables)[name]


def test_only_totals_are_taken_out_of_the_chain(rules):
    _, loop = the_loop(rules, "two_rounds")
    assert chains.accumulated(loop) == {slot_of(loop, "score")}  # rounds_left is read in the condition
    _, loop = the_loop(rules, "not_totals")
    # a: read in the condition; b: assigned twice; c: inside a nested `for`; e: `r + e`; f: the one total
    assert chains.accumulated(loop) == {slot_of(loop, "f")}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_total_added_round_by_round(rules, engine):
    # 2d3: 2 in 1 way, 3 in 2, 4 in 3, 5 in 2, 6 in 1, of 9; from start 10 each one 10 more.
    outcomes = exact(rules, "two_rounds", {"start": 10}, engine=engine)
    expected = {12: 1, 13: 2, 14: 3, 15: 2, 16: 1}
    assert outcomes == {("total", (("score", score),)): Fraction(ways, 9) for score, ways in expected.items()}


@pytest.mark.parametrize("engine", ENGINES)
def test_totals_leave_the_loop_by_break_and_by_its_condition(rules, engine):
    # A round that changes something: 1 breaks (1/6), 5-6 sinks (2/6); 2-4 (3/6) repeats it, so of the
    # rounds that change something a break is 1/3 and a sinking 2/3.  sunk 0: 1/3; sunk 1: 2/3 * 1/3 = 2/9;
    # sunk 2 (the condition fails): 2/3 * 2/3 = 4/9.
    outcomes = exact(rules, "hits", engine=engine)
    assert outcomes == {
        ("over", (("sunk", 0),)): Fraction(1, 3),
        ("over", (("sunk", 1),)): Fraction(2, 9),
        ("over", (("sunk", 2),)): Fraction(4, 9),
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_a_total_nothing_reads_afterwards_and_an_outcome_inside_the_loop(rules, engine):
    # A 2 in the first round (1/2) ends early; otherwise the second round runs whatever it rolls: late 1/2.
    outcomes = exact(rules, "dead_total", engine=engine)
    assert outcomes == {("early", ()): Fraction(1, 2), ("late", ()): Fraction(1, 2)}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_resolved_outcome_at_the_head_with_a_field_read_only_in_its_round(rules, engine):
    # Three steps of 1d2 each (the first before the loop): the total is 3d2, 3 to 6 in 1, 3, 3, 1 ways of 8.
    outcomes = exact(rules, "walk", engine=engine)
    expected = {3: 1, 4: 3, 5: 3, 6: 1}
    assert outcomes == {("walked", (("total", total),)): Fraction(ways, 8) for total, ways in expected.items()}


def test_the_fields_read_at_a_loops_head(rules):
    # `now` at the head: `left` is read by the condition and the call; `gained` only after `now` is set again.
    procedure, loop = the_loop(rules, "walk")
    fields = FieldLiveness()
    fields.block(procedure.body, {}, {})
    assert fields.head[id(loop)][slot_of(loop, "now")] == frozenset({"left"})
    assert fields.head[id(loop)][slot_of(loop, "total")] is None  # read whole (its own addition)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_total_past_the_integer_bound_is_the_bodys_own_error(rules, engine):
    # max_int_bits 4: integers from -15 to 15.  From 9 the largest score is 9 + 3 + 3 = 15: no error,
    # the 2d3 of the first test 3 lower (11 to 15).
    small = Limits(max_int_bits=4)
    outcomes = exact(rules, "two_rounds", {"start": 9}, engine=engine, limits=small)
    assert outcomes[("total", (("score", 15),))] == Fraction(1, 9)
    # From 10, 10 + 3 + 3 = 16 is past the bound: the addition's own error, at its line.
    with pytest.raises(LimitExceeded) as raised:
        odds(rules, "two_rounds", {"start": 10}, engine=engine, limits=small)
    assert raised.value.limit == "max_int_bits"
    assert "grows past 4 bits" in str(raised.value)
    # the first state explored whose round passes the bound, as without totals taken out: 13 + 3
    assert "13 + 3 grows past 4 bits" in str(raised.value)
    assert "set score = score + r" in str(raised.value)


def test_a_round_is_computed_once_for_every_total():
    # States (position, total): the round from (1, t) is the round from (1, 0) shifted by t.  From (1, 0)
    # a made-up round goes to (2, 3) with weight 1 and leaves as (0, 5) with weight 1, of 2.
    computed = []

    def round_of(state):
        computed.append(state)
        return chains.Round(True, None, {(2, state[1] + 3): 1}, {}, {(0, state[1] + 5): 1}, 2)

    totals = chains.Totals(head=(1,), exits=(1,), head_width=0, exit_width=0)
    rounds = chains.lifted(round_of, totals, -15, 15)
    assert rounds((1, 4)) == chains.Round(True, None, {(2, 7): 1}, {}, {(0, 9): 1}, 2)
    assert rounds((1, 6)) == chains.Round(True, None, {(2, 9): 1}, {}, {(0, 11): 1}, 2)
    assert computed == [(1, 0)]  # the body ran once, for the total 0
    # 11 + 5 = 16 is past 15: the state's own round runs (and would report the overflow)
    assert rounds((1, 11)) == chains.Round(True, None, {(2, 14): 1}, {}, {(0, 16): 1}, 2)
    assert computed == [(1, 0), (1, 11)]
    # a total that is not an int (True) is not shifted either
    rounds((1, True))
    assert computed[-1] == (1, True)


def test_totals_side_by_side_and_apart_are_shifted_alike():
    # States (position, a, b, tag), totals a and b side by side at the head (shifted by slices: eia's battle
    # keeps four so), apart in the states leaving (a, tag, b).  From (1, 0, 0, "x") a made-up round goes to
    # (2, 1, 2, "x") and leaves as (3, "y", 4), each with weight 1 of 2.
    computed = []

    def round_of(state):
        computed.append(state)
        _, a, b, tag = state
        return chains.Round(True, None, {(2, a + 1, b + 2, tag): 1}, {}, {(a + 3, "y", b + 4): 1}, 2)

    totals = chains.Totals(head=(1, 2), exits=(0, 2), head_width=0, exit_width=0)
    rounds = chains.lifted(round_of, totals, -15, 15)
    assert rounds((1, 4, 5, "x")) == chains.Round(True, None, {(2, 5, 7, "x"): 1}, {}, {(7, "y", 9): 1}, 2)
    assert rounds((1, 0, 5, "x")) == chains.Round(True, None, {(2, 1, 7, "x"): 1}, {}, {(3, "y", 9): 1}, 2)
    assert computed == [(1, 0, 0, "x")]
    # 12 + 3 = 15 is within the bound, 12 + 4 = 16 (leaving) is not: the state's own round runs
    assert rounds((1, 0, 12, "x")) == chains.Round(True, None, {(2, 1, 14, "x"): 1}, {}, {(3, "y", 16): 1}, 2)
    assert computed[-1] == (1, 0, 12, "x")
    # and past it at the head (14 + 2 = 16), side by side
    count = len(computed)
    rounds((1, 0, 14, "x"))
    assert computed[count:] == [(1, 0, 14, "x")]
