"""`resolve` passes an argument as it is only where its checked type leaves nothing to coerce or check.

The compiled engine skips coercing such arguments (ir.CallProcedure.trusted,
inputs.coercion_keeps); every argument that a range, an enumeration, a list
size, an order-free list or an unknown type still holds to is coerced and
checked on every call, as the reference evaluator does.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_in, procedure
from test_order_free import TYPES  # the same ship: kind big or small, hits

from interpreter import ir, odds, resolve
from interpreter.errors import RuleViolation
from interpreter.inputs import coercion_keeps
from interpreter.values import (
    ANY,
    BOOL,
    INT,
    STR,
    IntType,
    ListType,
    RecordType,
    StrType,
)

ENGINES = ("compiled", "reference")
SHIP = RecordType("ship", (("kind", StrType(("big", "small"))), ("hits", INT)))


@pytest.mark.parametrize("expected, actual, keeps", [
    (INT, INT, True),
    (INT, IntType(1, 6), True),  # any int fits an int input without a range
    (IntType(1, 6), INT, False),  # a range is checked at every call
    (IntType(1, 6), IntType(1, 6), False),
    (BOOL, BOOL, True),
    (STR, STR, True),
    (StrType(("a", "b")), StrType(("a", "b")), False),  # an enumeration is checked at every call
    (SHIP, SHIP, True),
    (SHIP, RecordType("admiral", ()), False),
    (ListType(SHIP), ListType(SHIP), True),
    (ListType(SHIP), ListType(SHIP, ordered=False), True),  # an order-free list may stand in an ordered one as it is
    (ListType(SHIP, ordered=False), ListType(SHIP), False),  # but an ordered one must be put in canonical order
    (ListType(SHIP, max_items=3), ListType(SHIP), False),
    (ListType(IntType(0, 6)), ListType(INT), False),
    (INT, ANY, False),
    (ANY, INT, False),
    (INT, BOOL, False),
])
def test_what_needs_no_coercion(expected, actual, keeps):
    assert coercion_keeps(expected, actual) is keeps


PROCEDURES = {
    "hit": procedure("""
        let shot = 1d6
        if shot >= need then
          outcome hit(target = with_field(target, "hits", target.hits + 1), rolled = face_bonus)
        end
        outcome miss(target = target, rolled = face_bonus)
    """, inputs="{target: {type: ship}, need: {type: int, min: 1, max: 6}, face_bonus: {type: int}}"),
    "attack": procedure("""
        let first = resolve hit(target = fleet[1], need = need, face_bonus = 0)
        outcome done(target = first.target)
    """, inputs="{fleet: {type: list, of: ship}, need: {type: int}}"),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("coercion"), PROCEDURES, extra=TYPES)


def _calls(statements):
    for statement in statements:
        if type(statement) is ir.CallProcedure:
            yield statement
        for part in statement:
            if type(part) is ir.Block:
                yield from _calls(part.statements)
            elif isinstance(part, tuple) and part and all(type(item) is ir.Block for item in part):
                for block in part:
                    yield from _calls(block.statements)


def test_the_checker_marks_what_a_call_passes_as_it_is(rules):
    # target: a ship given as a ship (the same record type) -> as it is;
    # face_bonus: an int literal for an int input without a range -> as it is;
    # need: an int for an input held to 1..6 -> coerced and checked.
    (call,) = _calls(rules.compiled["attack"].body.statements)
    assert call.trusted == frozenset({"target", "face_bonus"})


@pytest.mark.parametrize("engine", ENGINES)
def test_a_range_is_still_checked_at_every_call(rules, engine):
    # need = 7 is outside hit's 1..6: the call is refused, in both engines.
    with pytest.raises(RuleViolation, match="at most 6"):
        odds(rules, "attack", {"fleet": [{"kind": "big"}], "need": 7}, engine=engine)
    with pytest.raises(RuleViolation, match="at most 6"):
        resolve(rules, "attack", {"fleet": [{"kind": "big"}], "need": 7}, dice=[6], engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_passed_record_arrives_whole(rules, engine):
    # need 5: rolls 5-6 of 6 hit -> 1/3; the ship arrives with its fields and leaves with hits 1.
    dist = odds(rules, "attack", {"fleet": [{"kind": "small", "hits": 2}], "need": 5}, engine=engine)
    targets = {(t.get("kind"), t.get("hits")): p for t, p in ((o.get("target"), p) for o, p in dist.outcomes)}
    assert targets == {("small", 3): Fraction(1, 3), ("small", 2): Fraction(2, 3)}


def test_a_resolved_procedures_equal_outcomes_are_one_object(rules):
    # Exact odds hand a caller the outcomes of what it resolves; equal outcomes
    # are one object, so the caller's states compare them by identity.
    from interpreter.limits import Limits
    from interpreter.runtime import Run
    from interpreter.values import Record

    program = rules.program("hit")
    inputs = {"target": Record("ship", (("kind", "big"), ("hits", 0))), "need": 6, "face_bonus": 0}
    first, _ = program.run_exact(Run(rules, Limits()), inputs)
    again, _ = program.run_exact(Run(rules, Limits()), inputs)
    assert len(first) == 2  # hit (a 6: 1/6) and miss (5/6)
    assert all(any(a is b for b in again) for a in first)
    # Made afresh, an outcome is still the one object (outcomes are interned, as records are).
    key = (0, inputs["target"], 0)
    assert program.outcome(key) is program.outcome(key)


# ---- the inputs of a resolved procedure built where it is called (plays and Monte Carlo) ----------------------

DIRECT = {
    "roll_at": procedure("""
        let die = 1d6
        outcome rolled(hit = die >= need, side = side, bonus = bonus)
    """, inputs="{need: {type: int, min: 1, max: 6}, side: {type: enum, values: [red, blue]}, bonus: {type: int, default: 2}}"),
    # arguments written in the other order from the inputs: need after side; bonus left to its default
    "caller": procedure("""
        let r = resolve roll_at(side = colour, need = at)
        outcome done(hit = r.hit, side = r.side, bonus = r.bonus)
    """, inputs="{at: {type: int}, colour: {type: str}}"),
    "chooser": procedure("""
        if tactic == "close" then
          outcome near
        end
        outcome away
    """, choices="{tactic: {options: [close, far], default: close}}"),
    "asks": procedure("""
        let r = resolve chooser()
        outcome done(near = r.outcome == "near")
    """),
}


@pytest.fixture(scope="module")
def direct(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("direct"), DIRECT)


def test_a_play_builds_the_callees_inputs_where_it_calls(direct):
    # roll_at has no choices: its inputs tuple is built at the call (and, the caller reading only its fields,
    # it gives its outcome key: engine.facts.outcome_key_slots, its play function called from the run's table, its
    # inputs one by one: Run.plays_positional); chooser's choice comes from the run
    assert "PLAYSP['roll_at'](rt, R, depth + 1, " in direct.program("caller").source
    assert "call_play('chooser'" in direct.program("asks").source


@pytest.mark.parametrize("engine", ENGINES)
def test_a_call_built_in_place_gives_what_the_evaluator_gives(direct, engine):
    # need 5 (rolled a 5 -> hit), side blue kept, bonus from roll_at's default: 2
    play = resolve(direct, "caller", {"at": 5, "colour": "blue"}, dice=[5], engine=engine, trace=False)
    assert (play.outcome.get("hit"), play.outcome.get("side"), play.outcome.get("bonus")) == (True, "blue", 2)
    # rolls 5-6 of 6 reach need 5 -> 1/3
    assert odds(direct, "caller", {"at": 5, "colour": "red"}, engine=engine).probability("done", hit=True, side="red", bonus=2) == Fraction(1, 3)
    assert resolve(direct, "asks", dice=[], engine=engine, trace=False).outcome.get("near") is True  # the default option


@pytest.mark.parametrize("given, message", [
    ({"at": 7, "colour": "blue"}, "input 'need' of roll_at must be at most 6"),
    ({"at": 3, "colour": "green"}, "input 'side' of roll_at must be one of red, blue"),
    # both wrong: the callee's inputs are checked in their declared order, need first
    ({"at": 9, "colour": "green"}, "input 'need' of roll_at must be at most 6"),
])
def test_a_call_built_in_place_refuses_what_the_evaluator_refuses(direct, given, message):
    errors = []
    for engine in ENGINES:
        with pytest.raises(RuleViolation) as caught:
            resolve(direct, "caller", given, dice=[4], engine=engine, trace=False)
        errors.append(caught.value.format())
        with pytest.raises(RuleViolation) as caught:
            odds(direct, "caller", given, engine=engine)  # exact odds build the tuple at the call too
        errors.append(caught.value.format())
    assert len(set(errors)) == 1
    assert message in errors[0]


def test_exact_odds_remember_a_call_built_in_place(direct):
    # the second call with the same inputs is answered from the ruleset's memo, with the same answer:
    # rolls 3-6 of 6 reach need 3 -> 2/3
    direct.exact_results.clear()
    first = odds(direct, "caller", {"at": 3, "colour": "red"})
    assert any(key[0] == "roll_at" for key in direct.exact_results)
    assert odds(direct, "caller", {"at": 3, "colour": "red"}) == first
    assert first.probability("done", hit=True, side="red", bonus=2) == Fraction(2, 3)


def test_a_bad_list_item_is_named_by_its_position_counted_from_1():
    """The third item of a list is `[3]`, as the language indexes it and as schema paths read; the error's path
    (where a position is looked up in a file) keeps the list's own index, 2."""
    from interpreter.inputs import CoercionError, coerce
    from interpreter.values import IntType, ListType

    with pytest.raises(CoercionError) as caught:
        coerce([1, 2, "x"], ListType(IntType(0, 9)), "input 'units'")
    assert caught.value.message == "input 'units'[3] must be a whole number, not 'x'"
    assert caught.value.path == (2,)
