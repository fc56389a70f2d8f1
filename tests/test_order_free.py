"""Order-free lists (`order: free`): one canonical order, so lists that differ only in order merge.

Every expected value is counted by hand in a comment; both engines must agree.
"""

from __future__ import annotations

import subprocess
from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text
from test_cli import installed_wartable

from interpreter import load_ruleset, odds
from interpreter.errors import RulesetError
from interpreter.limits import LimitExceeded, Limits

ENGINES = ("compiled", "reference")

TYPES = """
types:
  ship:
    fields:
      kind: {type: enum, values: [big, small]}
      hits: {type: int, default: 0}
"""

PROCEDURES = {
    "volley": procedure("""
        let hit = list(s for s in fleet if false)
        for s in fleet do
          let shot = 1d6
          set hit = append(hit, if shot == 6 then with_field(s, "hits", s.hits + 1) else s)
        end
        outcome after(fleet = hit)
    """, inputs="{fleet: {type: list, of: ship, order: free}}"),
    "free_hand": procedure("""
        let hand = start
        for i in 1 .. dice do
          set hand = append(hand, 1d6)
        end
        outcome hand(faces = hand)
    """, inputs="{start: {type: list, of: {type: int}, order: free, default: []}, dice: {type: int, default: 2}}"),
    "ordered_hand": procedure("""
        let hand = start
        for i in 1 .. dice do
          set hand = append(hand, 1d6)
        end
        outcome hand(faces = hand)
    """, inputs="{start: {type: list, of: {type: int}, default: []}, dice: {type: int, default: 2}}"),
    "echo": procedure("""
        outcome given(fleet = fleet, first = fleet[1].kind)
    """, inputs="{fleet: {type: list, of: ship, order: free}}"),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    path = tmp_path_factory.mktemp("free") / "free.yaml"
    path.write_text(ruleset_text(PROCEDURES, extra=TYPES), encoding="utf-8")
    return path, load_ruleset(path)


def table(ruleset, name, inputs, engine, limits=None):
    return {o.fields: p for o, p in odds(ruleset, name, inputs, engine=engine, limits=limits).outcomes}


@pytest.mark.parametrize("engine", ENGINES)
def test_two_fleets_in_different_orders_give_identical_odds(rules, engine):
    one = table(rules[1], "volley", {"fleet": [{"kind": "big"}, {"kind": "small"}]}, engine)
    other = table(rules[1], "volley", {"fleet": [{"kind": "small"}, {"kind": "big"}]}, engine)
    assert one == other
    # each ship is hit on a 6 alone: neither 25/36, only the big one 5/36, only the small one 5/36, both 1/36
    shown = {tuple(sorted((s.get("kind"), s.get("hits")) for s in fields[0][1])): p for fields, p in one.items()}
    assert shown == {
        (("big", 0), ("small", 0)): Fraction(25, 36),
        (("big", 1), ("small", 0)): Fraction(5, 36),
        (("big", 0), ("small", 1)): Fraction(5, 36),
        (("big", 1), ("small", 1)): Fraction(1, 36),
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_interchangeable_items_merge(rules, engine):
    # Two dice into an order-free hand: 6 doubles and 15 pairs = 21 hands; (1, 2) in 2 of 36 rolls.
    free = table(rules[1], "free_hand", {}, engine)
    assert len(free) == 21
    assert free[(("faces", (1, 2)),)] == Fraction(2, 36)
    # The same into an ordered list: every sequence apart, 36 of them, (1, 2) in 1 of 36.
    ordered = table(rules[1], "ordered_hand", {}, engine)
    assert len(ordered) == 36
    assert ordered[(("faces", (1, 2)),)] == Fraction(1, 36)
    assert ordered[(("faces", (2, 1)),)] == Fraction(1, 36)


@pytest.mark.parametrize("engine", ENGINES)
def test_merging_keeps_the_states_few(rules, engine):
    # Four dice: C(4 + 5, 4) = 126 order-free hands, 6^4 = 1296 ordered ones; 500 states allowed.
    small = Limits(max_states=500)
    assert len(table(rules[1], "free_hand", {"dice": 4}, engine, small)) == 126
    with pytest.raises(LimitExceeded):
        table(rules[1], "ordered_hand", {"dice": 4}, engine, small)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_order_free_input_is_kept_in_canonical_order(rules, engine):
    # Given small first, the value is held big first (records compare field by field: "big" < "small"),
    # so positions count in that order.
    found = table(rules[1], "echo", {"fleet": [{"kind": "small"}, {"kind": "big"}]}, engine)
    ((fields, p),) = found.items()
    assert dict(fields)["first"] == "big" and p == 1
    found = table(rules[1], "free_hand", {"start": [5, 3, 5], "dice": 0}, engine)
    assert found == {(("faces", (3, 5, 5)),): 1}


def test_a_bad_order_is_a_positioned_schema_error(write_yaml):
    path = write_yaml(ruleset_text({"p": procedure("outcome done", inputs="{xs: {type: list, of: {type: int}, order: random}}")}))
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path)
    diagnostic = caught.value.diagnostics[0]
    line = path.read_text().splitlines()[diagnostic.line - 1]
    assert "order" in line and "random" in line[diagnostic.column - 1:], (diagnostic, line)
    assert "ordered" in diagnostic.message and "free" in diagnostic.message


def test_the_command_line_gives_one_answer_for_both_orders(rules, tmp_path):
    path, _ = rules
    outputs = []
    for fleet in ("[{kind: big}, {kind: small}]", "[{kind: small}, {kind: big}]"):
        done = subprocess.run([str(installed_wartable()), "odds", str(path), "volley", "--set", f"fleet={fleet}"],
                              check=False, cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.split("\n", 2)[2])  # after the title and the inputs line
    assert outputs[0] == outputs[1]
    assert "25/36" in outputs[0]
