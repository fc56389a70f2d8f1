"""Fast whole-battle sampling (issue 24): the shortcuts keep sizes, charges and counts as they were.

Each shortcut taken for speed in a play has a slower general form beside it; these tests hold the two
to the same answers: value sizes (``values.measure``'s fast paths against its general walk), work charged
(``Budget.charge_items`` against ``Budget.charge``), and Monte Carlo counts of whole battles against the
reference evaluator for one seed.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from conftest import procedure

from interpreter import load_ruleset, resolve
from interpreter.api import monte_carlo
from interpreter.engine import inline, procedure_source
from interpreter.errors import RuleViolation
from interpreter.limits import Budget, LimitExceeded, Limits
from interpreter.values import OutcomeValue, Record, _measure_nested, measure

SITUATIONS = Path(__file__).resolve().parents[1] / "rulesdata" / "eia_situations"
UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)

BIG = 1 << 40


def ship(kind: str, value: int, status: str = "fit") -> Record:
    return Record("ship", (("kind", kind), ("value", value), ("status", status)))


def random_value(rng: random.Random, depth: int) -> object:
    """A value of the shapes plays make: numbers, records (plain, or holding a list), lists of them, lists of lists."""
    choice = rng.randrange(6 if depth > 0 else 3)
    if choice == 0:
        return rng.randrange(10)
    if choice == 1:
        return ship(rng.choice(["heavy", "frigate"]), rng.randrange(4))
    if choice == 2:
        return rng.choice(["fit", True])
    if choice == 5:
        return Record("fleet", (("ships", tuple(random_value(rng, depth - 1) for _ in range(rng.randrange(3)))),))
    if choice == 4 and rng.random() < 0.2:
        return OutcomeValue("hit", (("ships", tuple(random_value(rng, depth - 1) for _ in range(2))),))
    return tuple(random_value(rng, depth - 1) for _ in range(rng.randrange(25)))


def test_measure_fast_paths_agree_with_the_general_walk():
    rng = random.Random(24)
    for _ in range(3000):
        value = random_value(rng, 3)
        assert measure(value, BIG, BIG) == _measure_nested(value, BIG, BIG), value


def test_check_value_charges_what_measure_counts():
    # check_value measures short lists in place: the work it charges is measure's count, value by value
    rng = random.Random(25)
    budget = Budget(Limits(max_work=None, timeout=None))
    for _ in range(2000):
        value = random_value(rng, 3)
        before = budget.work
        assert budget.check_value(value, None) is value
        assert budget.work - before == measure(value, BIG, BIG)[0], value


def test_check_value_refuses_a_short_list_nesting_too_deep():
    value: object = ()
    for _ in range(4):
        value = (value,)  # 4 lists around an empty one: 5 deep
    with pytest.raises(LimitExceeded, match="nest lists more than 4 deep"):
        Budget(Limits(max_value_depth=4)).check_value(value, None)
    assert Budget(Limits(max_value_depth=5)).check_value(value, None) is value


def test_measure_of_the_values_a_battle_makes_counted_by_hand():
    line = (ship("heavy", 3), ship("warship", 2), ship("frigate", 1))  # 3 ships of 3 fields: 3 + 9 = 12 items
    assert measure(line, BIG, BIG) == (12, 1)  # a list of plain records nests one list deep
    columns = (line, line[:2])  # 2 columns: 2 + 12 + (2 + 6) = 22 items, lists in a list: 2 deep
    assert measure(columns, BIG, BIG) == (22, 2)
    assert measure(line[0], BIG, BIG) == (3, 0)  # a record alone: its 3 fields, no list
    fleet = Record("fleet", (("ships", line),))  # 1 field holding the line: 1 + 12 items, a list inside
    assert measure((fleet,), BIG, BIG) == (14, 2)
    long = tuple(ship("heavy", n) for n in range(20))  # past the short-list loop: 20 + 60 items
    assert measure(long, BIG, BIG) == (80, 1)
    assert measure(tuple(range(40)), BIG, BIG) == (40, 1)


def test_a_list_of_long_lists_stops_at_the_item_limit():
    long = tuple(range(1000))
    items, _ = measure((long,) * 50, 2_000, BIG)  # 50,050 items in all: the walk stops once past 2,000
    assert 2_000 < items < 50_050


def test_charge_items_spends_like_charge_and_stops_at_the_work_budget():
    budget = Budget(Limits(max_work=100, timeout=None))
    budget.charge_items(60, None)
    budget.charge(40, None)
    assert budget.work == 100  # exactly at the budget: allowed
    with pytest.raises(LimitExceeded, match="more than 100 units of work"):
        budget.charge_items(1, None)


def test_charge_items_reads_the_clock_every_clock_every_units():
    readings = []
    budget = Budget(Limits(max_work=None, timeout=None), on_clock=readings.append)
    for _ in range(Budget.CLOCK_EVERY // 100 - 1):
        budget.charge_items(100, None)
    assert readings == []  # 19,900 units: no reading yet
    budget.charge_items(100, None)
    assert readings == [Budget.CLOCK_EVERY]


# ---- resolved outcomes held as keys (engine.facts.outcome_key_slots) -------------------------------------------------

# `shot` has three outcomes: `hit` with two fields, `near` with one (in another place), `miss` with none.
SHOT = procedure(
    """
    let d = 1d6
    if d >= 5 then
      outcome hit(damage = d - 4, loud = true)
    elif d == 4 then
      outcome near(loud = false)
    end
    outcome miss
    """
)


@pytest.fixture(params=["in place", "called"])
def form(request, monkeypatch):
    """Whether ``shot`` is written into its caller (engine.inline, the default) or called (inlining off)."""
    if request.param == "called":
        monkeypatch.setattr(inline, "MAX_INLINE_NODES", 0)
    return request.param


def key_ruleset(make_ruleset, caller: str):
    return make_ruleset({"p": procedure(caller), "shot": SHOT})


def keyed_calls(source: str, form: str) -> int:
    """How many calls of ``shot`` give the caller its key: from its play function, or its code written in place."""
    if form == "called":
        assert "written in place" not in source
        return source.count("PLAYSP['shot'](rt, R, depth + 1")
    assert "PLAYSP" not in source
    return source.count("# resolve 'shot' written in place")


def played(ruleset, engine: str, seed: int):
    """One play's outcome, or its error's words.  Monte Carlo does not reach a callee written in place: a sampled
    procedure's trials call what it resolves (engine.sample); a single play runs the play function, which does."""
    try:
        return resolve(ruleset, "p", seed=seed, trace=False, engine=engine).outcome
    except RuleViolation as error:
        return str(error)


def both_engines(ruleset, trials: int = 300, seed: int = 5):
    compiled = monte_carlo(ruleset, "p", trials=trials, seed=seed).counts
    assert compiled == monte_carlo(ruleset, "p", trials=trials, seed=seed, engine="reference").counts
    assert [played(ruleset, "compiled", k) for k in range(60)] == [played(ruleset, "reference", k) for k in range(60)]
    return compiled


def test_a_caller_reading_only_fields_gets_keys_and_the_same_counts(make_ruleset, form):
    # `loud` sits first in `near` and second in `hit`: read through the per-outcome places; `outcome`, by number
    caller = """
    let total = 0
    let louds = 0
    for i in 1 .. 3 do
      let s = resolve shot()
      if s.outcome == "hit" then
        set total = total + s.damage
      end
      if s.outcome != "miss" and s.loud then
        set louds = louds + 1
      end
    end
    outcome done(total = total, louds = louds)
    """
    ruleset = key_ruleset(make_ruleset, caller)
    assert keyed_calls(procedure_source(ruleset, "p", "play"), form) == 1  # the key, from the play function or in place
    counts = both_engines(ruleset)
    assert sum(n for _, n in counts) == 300
    # each shot: damage 1 or 2 with 1/6 each; 3 shots: at most 6 damage, at most 3 loud shots
    assert all(0 <= o.fields["total"] <= 6 and 0 <= o.fields["louds"] <= 3 for o, _ in counts)


def test_an_outcome_passed_on_stays_an_outcome_value(make_ruleset, form):
    # `s` goes into a list: no key (the list would hold it); `t` only has a field read: a key
    caller = """
    let s = resolve shot()
    let t = resolve shot()
    let kept = [s]
    outcome done(first = kept[1].outcome, second = t.outcome)
    """
    ruleset = key_ruleset(make_ruleset, caller)
    source = procedure_source(ruleset, "p", "play")
    assert keyed_calls(source, form) == 1 and source.count("call_play_direct") == 1
    both_engines(ruleset)


def test_a_missing_field_read_from_a_key_words_the_evaluators_error(make_ruleset, form):
    caller = """
    let s = resolve shot()
    outcome done(damage = s.damage)
    """
    ruleset = key_ruleset(make_ruleset, caller)
    assert keyed_calls(procedure_source(ruleset, "p", "play"), form) == 1  # the key, from the play function or in place
    messages = []
    for engine in ("compiled", "reference"):
        with pytest.raises(RuleViolation) as caught:
            monte_carlo(ruleset, "p", trials=50, seed=1, engine=engine)  # a `miss` or `near` in 50 shots
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert "has no field 'damage'" in messages[0]
    # single plays (the play function: the key read from the code written in place, or from the call)
    refused = [played(ruleset, "compiled", k) for k in range(30)]
    assert refused == [played(ruleset, "reference", k) for k in range(30)]
    assert any(type(r) is str and "has no field 'damage'" in r for r in refused)


@pytest.mark.parametrize(("situation", "trials"), [("three_a_side", 40), ("fifteen_a_side", 8)])
def test_whole_eia_battles_count_alike_in_both_engines(situation, trials):
    eia = load_ruleset("eia")
    data = yaml.safe_load((SITUATIONS / f"{situation}.yaml").read_text(encoding="utf-8"))
    names = {spec.name for spec in eia.compiled["battle"].inputs}
    inputs = {k: v for k, v in data.items() if k in names}
    compiled = monte_carlo(eia, "battle", inputs, trials=trials, seed=7, limits=UNLIMITED)
    reference = monte_carlo(eia, "battle", inputs, trials=trials, seed=7, limits=UNLIMITED, engine="reference")
    assert compiled.counts == reference.counts
