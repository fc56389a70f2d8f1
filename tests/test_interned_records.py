"""Interned records and outcomes (issue 24): equal records (and equal outcomes) are one object, whatever made them.

Hashing and equality of records are the built-in ones, by identity; these
tests check that this is still content equality for users (every path that
makes a record gives the one object for one content), that records read back
from the cache or made in several threads at once are interned too, that the
table lets go of records nobody uses, and that a record of ``True`` is never
taken for a record of ``1`` (equal to Python, different to a player).
"""

from __future__ import annotations

import copy
import gc
import io
import pickle
import random
import sys
import threading
from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import cache, load_ruleset, odds
from interpreter.api import monte_carlo
from interpreter.values import OutcomeValue, Record, interned_count, show

ENGINES = ("compiled", "reference")

TYPES = """
types:
  ship:
    fields:
      kind: {type: enum, values: [big, small]}
      hits: {type: int, default: 0}
tables:
  fire:
    title: "Fire"
    rule: "r"
    rows: {name: "Die", dice: 1d6}
    edges: {rows: error}
    results:
      rolls: hit_on
      fields:
        sure: {type: bool, default: false}
        hit_on: {type: rolls, default: []}
      codes:
        Sure:
          meaning: "A sure hit."
          set: {sure: true}
    cells: {"1-3": "5,6", "4-5": "6", "6": Sure}
"""

PROCEDURES = {
    # given ship back as it came (inputs: API, YAML situation, --set), and changed by with_field
    "echo": procedure("""
        outcome given(ship = ship, hit = with_field(ship, "hits", ship.hits + 1))
    """, inputs="{ship: {type: ship}}"),
    # a d6 decides whether the first ship of the line takes a hit: replace_at and with_field together
    "volley": procedure("""
        let shot = 1d6
        let line = fleet
        if shot >= 4 then
          set line = replace_at(line, 1, with_field(line[1], "hits", line[1].hits + 1))
        end
        outcome after(fleet = line)
    """, inputs="{fleet: {type: list, of: ship}}"),
    # a table cell (a record the builder made) given back
    "cell": procedure("""
        let cell = lookup fire(row = 3)
        outcome read(cell = cell)
    """),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    path = tmp_path_factory.mktemp("interned") / "interned.yaml"
    path.write_text(ruleset_text(PROCEDURES, extra=TYPES), encoding="utf-8")
    return path, load_ruleset(path)


def ship(kind: str, hits: int) -> Record:
    return Record("ship", (("kind", kind), ("hits", hits)))


def test_the_constructor_gives_one_object_for_one_content():
    assert Record("ship", {"kind": "big", "hits": 0}) is ship("big", 0)
    assert Record("ship", [("kind", "big"), ("hits", 0)]) is ship("big", 0)
    assert ship("big", 0) is not ship("big", 1)
    assert ship("big", 0) is not Record("boat", (("kind", "big"), ("hits", 0)))  # another type, another record
    assert ship("big", 0) != Record("ship", (("hits", 0), ("kind", "big")))  # fields in another order: as before


def test_python_equal_values_of_other_types_stay_apart():
    # 1 == True == Fraction(1) to Python, but a player reads "1", "yes" and "1:1": one record each,
    # so a ruleset whose field holds yes/no never gets back a record of another ruleset's 1 (or the reverse).
    one, yes, ratio = Record("t", (("a", 1),)), Record("t", (("a", True),)), Record("t", (("a", Fraction(1)),))
    assert len({id(one), id(yes), id(ratio)}) == 3
    assert [show(one), show(yes), show(ratio)] == ["{a: 1}", "{a: yes}", "{a: 1:1}"]
    # and inside lists, at any depth: (1, (2,)) against (True, (2,)) and (1, (True,))
    deep = [Record("t", (("a", (1, (2,))),)), Record("t", (("a", (True, (2,))),)), Record("t", (("a", (1, (True,))),))]
    assert len({id(record) for record in deep}) == 3
    assert Record("t", (("a", (1, (2,))),)) is deep[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_inputs_and_with_field_give_the_interned_record_exact(rules, engine):
    dist = odds(rules[1], "echo", {"ship": {"kind": "big"}}, engine=engine)
    ((outcome, probability),) = dist.outcomes
    assert probability == 1
    fields = dict(outcome.fields)
    assert fields["ship"] is ship("big", 0)  # coerced input, the default hits filled in
    assert fields["hit"] is ship("big", 1)  # with_field


@pytest.mark.parametrize("engine", ENGINES)
def test_inputs_and_with_field_give_the_interned_record_sampled(rules, engine):
    sample = monte_carlo(rules[1], "echo", {"ship": {"kind": "small", "hits": 2}}, trials=3, seed=1, engine=engine)
    ((outcome, count),) = sample.counts
    assert count == 3
    fields = dict(outcome.fields)
    assert fields["ship"] is ship("small", 2) and fields["hit"] is ship("small", 3)


@pytest.mark.parametrize("engine", ENGINES)
def test_replace_at_gives_interned_records_in_both_modes(rules, engine):
    fleet = [{"kind": "big"}, {"kind": "small"}]
    dist = odds(rules[1], "volley", {"fleet": fleet}, engine=engine)
    # a d6: 4, 5, 6 hit the first ship (3 of 6), 1, 2, 3 do not
    found = {dict(outcome.fields)["fleet"]: probability for outcome, probability in dist.outcomes}
    hit, missed = (ship("big", 1), ship("small", 0)), (ship("big", 0), ship("small", 0))
    assert found == {hit: Fraction(1, 2), missed: Fraction(1, 2)}
    for made in found:
        assert all(record is expected for record, expected in zip(made, hit if made == hit else missed))
    sample = monte_carlo(rules[1], "volley", {"fleet": fleet}, trials=40, seed=3, engine=engine)
    for outcome, _ in sample.counts:
        made = dict(outcome.fields)["fleet"]
        assert made[0] in (ship("big", 0), ship("big", 1)) and made[1] is ship("small", 0)
        assert made[0] is ship("big", made[0].get("hits"))


def test_a_table_cell_is_interned(rules):
    # fire row 3 is "5,6": sure no (the default), hit on 5 and 6
    ((outcome, _),) = odds(rules[1], "cell").outcomes
    cell = dict(outcome.fields)["cell"]
    assert cell is Record("cell of fire", (("code", "5,6"), ("sure", False), ("hit_on", (5, 6))))


def test_yaml_situation_and_set_give_interned_records(rules, tmp_path):
    import argparse

    from interpreter.cli_inputs import gather_inputs
    from interpreter.command_line import CommandLine

    path, ruleset = rules
    situation = tmp_path / "situation.yaml"
    situation.write_text("ship: {kind: big, hits: 4}\n", encoding="utf-8")
    argv = ["run", str(path), "echo", "--situation", str(situation), "--set", "ship={kind: small}"]
    from_file = argparse.Namespace(situation=str(situation), assignments=[], procedure="echo")
    from_set = argparse.Namespace(situation=None, assignments=["ship={kind: small}"], procedure="echo")
    procedure_ = ruleset.compiled["echo"]
    assert gather_inputs(procedure_, from_file, CommandLine(argv), ruleset=ruleset)["ship"] is ship("big", 4)
    assert gather_inputs(procedure_, from_set, CommandLine(argv), ruleset=ruleset)["ship"] is ship("small", 0)


def test_pickle_and_copy_give_the_interned_record():
    made = Record("ship", (("kind", "big"), ("hits", 7), ("escorts", (ship("small", 0), ship("small", 1)))))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(made, protocol=protocol)) is made
    assert copy.copy(made) is made and copy.deepcopy(made) is made


def test_a_ruleset_read_back_from_the_cache_holds_interned_records(rules, tmp_path, monkeypatch):
    monkeypatch.setenv("WARTABLE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("WARTABLE_CACHE", raising=False)
    if not cache.enabled():
        pytest.skip("the cache is off where files have no owner")
    first = load_ruleset(rules[0])
    second = load_ruleset(rules[0])  # from the cache: unpickled
    assert second is not first
    found: list[Record] = []

    class Collecting(cache._Pickler):
        def reducer_override(self, obj):
            if type(obj) is Record:
                found.append(obj)
            return super().reducer_override(obj)

    Collecting(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(second)
    # the table's six cells, three of them distinct ("5,6" three times, "6" twice, "Sure" once)
    assert len({id(record) for record in found if record.type_name == "cell of fire"}) == 3
    for record in found:
        assert Record(record.type_name, record.items()) is record
    ((outcome, _),) = odds(second, "cell").outcomes
    assert dict(outcome.fields)["cell"] is Record("cell of fire", (("code", "5,6"), ("sure", False), ("hit_on", (5, 6))))


def _random_value(rng: random.Random, depth: int = 0):
    choice = rng.randrange(5 if depth < 2 else 3)
    if choice == 0:
        return rng.randrange(3)
    if choice == 1:
        return rng.choice(["a", "b"])
    if choice == 2:
        return rng.random() < 0.5
    if choice == 3:
        return tuple(_random_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    return _random_record(rng, depth + 1)


def _random_record(rng: random.Random, depth: int = 0) -> Record:
    names = rng.sample(["x", "y", "z"], rng.randrange(1, 3))
    return Record(rng.choice(["p", "q"]), tuple((name, _random_value(rng, depth)) for name in names))


def _reference(value):
    """What equality meant before interning, made exact about types: records as tuples of their contents."""
    if type(value) is Record:
        return ("record", value.type_name, tuple((name, _reference(item)) for name, item in value.items()))
    if type(value) is tuple:
        return ("list", tuple(_reference(item) for item in value))
    return (type(value).__name__, value)


def test_equality_and_hashing_agree_with_a_tuple_reference_on_random_records():
    rng = random.Random(24)
    records = [_random_record(rng) for _ in range(3000)]
    by_record: dict[Record, list[int]] = {}
    by_reference: dict[tuple, list[int]] = {}
    for index, record in enumerate(records):
        by_record.setdefault(record, []).append(index)
        by_reference.setdefault(_reference(record), []).append(index)
    # the same groups: equal records (one dictionary key) exactly where the references are equal
    assert sorted(by_record.values()) == sorted(by_reference.values())
    assert len(by_record) < len(records)  # small alphabets: many repeats, so the test groups something
    for _ in range(3000):
        a, b = rng.choice(records), rng.choice(records)
        assert (a == b) == (_reference(a) == _reference(b)) == (a is b)
        assert a != _reference(a)  # a record is not equal to a tuple, as before
        assert repr(a) == repr(Record(a.type_name, a.items()))
    # a record rebuilt from its contents is the same object, so it finds itself in a dictionary or set
    assert all(by_record[Record(r.type_name, r.items())] == by_record[r] for r in records[:200])


@pytest.mark.parametrize("kind", [Record, OutcomeValue])  # records, and outcomes (values.OutcomeValue)
def test_threads_making_the_same_values_get_one_object_each(kind):
    threads_count, per_thread = 8, 300
    barrier = threading.Barrier(threads_count)
    made: list[list[object]] = [[] for _ in range(threads_count)]

    def make(into: list[object]) -> None:
        barrier.wait()  # all start together, so they race to add the same values
        for index in range(per_thread):
            into.append(kind("raced", (("index", index), ("kind", "x"))))

    threads = [threading.Thread(target=make, args=(into,)) for into in made]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can: the lookup and the adding interleave
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    for index in range(per_thread):
        assert len({id(into[index]) for into in made}) == 1


def test_records_nobody_uses_leave_the_table():
    gc.collect()
    before = interned_count()
    made = [Record("short lived", (("index", index),)) for index in range(500)]
    assert interned_count() == before + 500
    again = [Record("short lived", (("index", index),)) for index in range(500)]
    assert interned_count() == before + 500 and all(x is y for x, y in zip(made, again))
    del made, again
    gc.collect()
    assert interned_count() == before
    # made again, they are new (and interned again)
    remade = Record("short lived", (("index", 1),))
    assert interned_count() == before + 1 and Record("short lived", (("index", 1),)) is remade


def test_an_outcome_holding_records_hashes_like_its_contents():
    one = OutcomeValue("after", (("fleet", (ship("big", 1),)),))
    other = OutcomeValue.made("after", (("fleet", (Record("ship", {"kind": "big", "hits": 1}),)),))
    assert one == other and hash(one) == hash(other) and {one: 1}[other] == 1
    assert one is other


# ---- outcomes are interned too (exact odds keep them in every state) ---------------------------------


def test_equal_outcomes_are_one_object_and_python_equal_values_stay_apart():
    assert OutcomeValue("hit", (("hits", 1),)) is OutcomeValue.made("hit", (("hits", 1),))
    assert OutcomeValue("hit", ()) is OutcomeValue("hit")
    assert OutcomeValue("hit", ()) is not OutcomeValue("miss", ())
    assert OutcomeValue("hit", (("hits", 1),)) is not Record("hit", (("hits", 1),))  # an outcome is not a record
    # 1, True and 1:1 are three answers to a player, so three outcomes (a dataclass compared them equal)
    one, yes, ratio = (OutcomeValue("o", (("a", value),)) for value in (1, True, Fraction(1)))
    assert len({id(one), id(yes), id(ratio)}) == 3 and one != yes
    assert OutcomeValue("o", (("a", (1, (2,))),)) is not OutcomeValue("o", (("a", (1, (True,))),))
    # an outcome inside a record or an outcome is told apart by identity
    assert Record("r", (("last", one),)) is not Record("r", (("last", yes),))
    assert Record("r", (("last", one),)).size == Record("r", (("last", yes),)).size == 2  # the outcome's field counts


def test_pickle_and_copy_give_the_interned_outcome():
    made = OutcomeValue("after", (("fleet", (ship("big", 1), ship("small", 0))), ("rounds", 3)))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(made, protocol=protocol)) is made
    assert copy.copy(made) is made and copy.deepcopy(made) is made
    assert made.fields["rounds"] == 3 and made.fields_by_name()["outcome"] == "after"


def test_a_list_of_records_is_shaped_by_identity_and_a_list_of_numbers_item_by_item():
    # values._deep_shape marks a list of records, outcomes or text without its items (a list equal to it holds
    # the same objects); a list holding a number is shaped item by item, so 1 and True inside stay apart
    big = ship("big", 1)
    assert Record("t", (("a", (big, 1)),)) is not Record("t", (("a", (big, True)),))
    assert OutcomeValue("o", (("a", (big, 1)),)) is not OutcomeValue("o", (("a", (big, True)),))
    assert Record("t", (("a", (big, "x")),)) is Record("t", (("a", (ship("big", 1), "x")),))
    # a record holding a list of records is not plain: its size counts the list's items (1 field + 1 + 2 ships' 4)
    assert Record("fleet", (("ships", (big, ship("small", 0))),)).size == 1 + 2 + 4


def test_columns_of_records_are_shaped_without_their_items_and_numbers_in_them_still_apart():
    # values._deep_shape: a list of lists of records, outcomes or text (a side's columns of ships) is marked
    # without walking its ships (issue 24: exact eia makes 30,000 outcomes holding columns on 3 v 3); a list
    # equal to it holds the same ships in lists of the same lengths, so one object per content still holds
    big, small = ship("big", 1), ship("small", 0)
    columns = ((big,), (small, big), ())
    assert OutcomeValue("o", (("a", columns),)) is OutcomeValue("o", (("a", ((ship("big", 1),), (small, big), ())),))
    assert Record("t", (("a", columns),)) is Record("t", (("a", tuple((*c,) for c in columns)),))
    assert OutcomeValue("o", (("a", columns),)) is not OutcomeValue("o", (("a", ((big,), (small, big))),))
    # a number anywhere in such a list: shaped item by item, so 1 and True stay apart at every depth
    assert OutcomeValue("o", (("a", ((big,), (1,))),)) is not OutcomeValue("o", (("a", ((big,), (True,))),))
    assert OutcomeValue("o", (("a", ((big,), 1)),)) is not OutcomeValue("o", (("a", ((big,), True)),))
    assert Record("t", (("a", ((big, (1,)),)),)) is not Record("t", (("a", ((big, (True,)),)),))
    assert Record("t", (("a", ((big, (1,)),)),)) is Record("t", (("a", ((big, (1,)),)),))


def test_an_outcomes_fields_by_name_are_its_fields_read_by_name_first_of_equal_names_winning():
    # fields_by_name (what compiled field reads use) is made from the pairs, not through Fields.get one name at
    # a time; it must still answer as Fields.get does, the first of two equal names winning
    made = OutcomeValue("twice", (("a", 1), ("b", (ship("big", 1),)), ("a", 3)))
    assert made.fields_by_name() == {"a": made.fields["a"], "b": made.fields["b"], "outcome": "twice"} == {"a": 1, "b": (ship("big", 1),), "outcome": "twice"}


def test_a_records_names_and_text_are_interned():
    # seventh round: compiled plays compare fields with constants (`s._fields['status'] == 'fit'`) and read them by
    # constant names; interned, both match by identity.  Text built at run time (not interned by Python) comes back
    # as the interned string, equal and identical.
    import sys

    parts = ["sta", "tus_x", "f", "it_x"]
    name, value = parts[0] + parts[1], parts[2] + parts[3]
    assert name is not sys.intern("status_x") and value is not sys.intern("fit_x")  # built apart from the constants
    made = Record("ship_x", ((name, value), ("hits", 2)))
    (stored_name, stored_value), _ = made.items()
    assert stored_name is sys.intern("status_x") and stored_value is sys.intern("fit_x")
    assert made._fields["status_x"] is sys.intern("fit_x") and made.get("hits") == 2
