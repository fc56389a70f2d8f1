"""Issue 24, sampling round eight (part A): record types the checker can vouch for (interpreter/proven_types.py).

A variable the checker types as a ``ship`` holds a ship at run time: a value typed ``any`` set into it is guarded
(the same error, at the same place, in both back ends), a record of another type is refused at load
(tests/bad_rulesets/dsl_*_of_another_type.yaml), and the branches of an ``if`` that give records of two types with
the same fields are typed as their union.
"""

from __future__ import annotations

import re

import pytest

from interpreter import resolve
from interpreter.api import monte_carlo
from interpreter.engine import procedure_source
from interpreter.errors import RulesetError
from interpreter.proven_types import conforms, join_proven, records_differ
from interpreter.values import INT, STR, ListType, Record, RecordType

TYPES = """\
types:
  ship:
    description: "A ship."
    fields:
      kind: {type: str, description: "Kind."}
  crew:
    description: "A crew."
    fields:
      kind: {type: str, description: "Kind."}
"""
# `append([], ...)` is typed a list of any (the empty list's type): its item is typed any, and `set best = ...`
# puts it where a ship is wanted: a run-time guard checks it is one.
SET_ANY = """\
let best = ships[1]
let found = append([], picks[1])
set best = found[1]
outcome done(kind = best.kind)
"""
GUARD_CALL = re.compile(r"\bg\d+\(")  # how generated code calls a guard (runtime.make_guard, passed by reference)
INPUTS = "{ships: {type: list, of: ship}, picks: {type: list, of: crew}}"
INPUTS_SHIPS = "{ships: {type: list, of: ship}, picks: {type: list, of: ship}}"


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_an_unknown_value_set_into_a_ship_variable_is_guarded(one_procedure, engine):
    ruleset = one_procedure(SET_ANY, inputs=INPUTS, extra=TYPES)
    assert GUARD_CALL.search(procedure_source(ruleset, "p", "play"))  # the guard is written (ir.Guard: a reference g<n> called)
    with pytest.raises(RulesetError) as raised:
        resolve(ruleset, "p", {"ships": [{"kind": "frigate"}], "picks": [{"kind": "gunner"}]}, seed=1, trace=False, engine=engine)
    # at the value of `set best = found[1]` (its body line, indented 6 in the file: `      set best = ` is 17 characters)
    assert "what 'best' holds must be ship, but here it is a record ({kind: gunner})" in str(raised.value)
    assert ":18: " in str(raised.value) and "set best = found[1]" in str(raised.value)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_ship_from_an_unknown_value_passes_the_guard(one_procedure, engine):
    ruleset = one_procedure(SET_ANY, inputs=INPUTS_SHIPS, extra=TYPES)
    outcome = resolve(ruleset, "p", {"ships": [{"kind": "frigate"}], "picks": [{"kind": "brig"}]}, seed=1, trace=False, engine=engine).outcome
    assert outcome.get("kind") == "brig"


def test_both_engines_word_the_guard_alike(one_procedure):
    ruleset = one_procedure(SET_ANY, inputs=INPUTS, extra=TYPES)
    messages = []
    for engine in ("compiled", "reference"):
        with pytest.raises(RulesetError) as raised:
            monte_carlo(ruleset, "p", {"ships": [{"kind": "frigate"}], "picks": [{"kind": "gunner"}]}, trials=3, seed=1, engine=engine)
        messages.append(str(raised.value))
    assert messages[0] == messages[1] and "what 'best' holds" in messages[0]


def test_a_record_conforms_by_its_type_name_and_every_field():
    ship = RecordType("ship", (("kind", STR), ("hits", INT)))
    assert conforms(Record("ship", (("kind", "brig"), ("hits", 0))), ship)
    assert not conforms(Record("crew", (("kind", "brig"), ("hits", 0))), ship)  # another type, the same fields
    assert not conforms(Record("ship", (("kind", "brig"),)), ship)  # a field missing
    assert not conforms(Record("ship", (("kind", "brig"), ("hits", "none"))), ship)  # a field of another kind (a guard's check)
    assert conforms((Record("ship", (("kind", "a"), ("hits", 1))),), ListType(ship))


def test_two_tables_cells_join_as_a_union():
    naval = RecordType("cell of naval", (("code", STR), ("loss", INT)))
    supply = RecordType("cell of supply", (("code", STR), ("loss", INT)))
    union = join_proven(naval, supply)
    assert union is not None and union.union_of == ("cell of naval", "cell of supply")
    assert conforms(Record("cell of naval", (("code", "x"), ("loss", 1))), union)
    assert conforms(Record("cell of supply", (("code", "x"), ("loss", 1))), union)
    assert not conforms(Record("cell of other", (("code", "x"), ("loss", 1))), union)
    assert not records_differ(union, naval) and records_differ(naval, union)  # a naval cell fits the union, not the other way
    assert join_proven(naval, RecordType("cell of other", (("code", STR),))) is None  # other fields: no one type


def test_an_empty_list_set_into_a_list_of_ships_needs_no_guard(one_procedure):
    body = "let fleet = ships\nset fleet = []\noutcome done(n = count(fleet))"
    ruleset = one_procedure(body, inputs=INPUTS, extra=TYPES)
    assert not GUARD_CALL.search(procedure_source(ruleset, "p", "play"))  # no guard
    for engine in ("compiled", "reference"):
        assert resolve(ruleset, "p", {"ships": [{"kind": "brig"}], "picks": []}, seed=1, trace=False, engine=engine).outcome.get("n") == 0
