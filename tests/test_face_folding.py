"""Exact odds count a die's faces per branch when the die only chooses a branch of the `if` after it.

The compiled engine then runs the rest of the pass once a branch instead of once a face
(engine.folding: fold_target).  Every value is counted by hand in a comment; the reference
evaluator, which never folds, must agree exactly, and so must a die that cannot be folded.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from conftest import load_in, procedure

from interpreter import odds
from interpreter.errors import RuleViolation

ENGINES = ("compiled", "reference")

PROCEDURES = {
    # The minefield of seed 002's Example 2 in small: each mine rolls 1d6 and hits on 1-2.
    "mines": procedure("""
        let lost = 0
        for mine in 1 .. mines do
          if 1d6 <= 2 then
            set lost = lost + 1
          end
        end
        outcome crossed(lost = lost)
    """, inputs="{mines: {type: int, min: 0}}"),
    # The die is read after the `if`: it stays in the state, no folding.
    "kept": procedure("""
        let d = 1d6
        let big = false
        if d >= 5 then
          set big = true
        end
        outcome rolled(face = d, big = big)
    """),
    # The die is read inside a branch: no folding.
    "inside": procedure("""
        let d = 1d6
        if d >= 4 then
          outcome high(face = d)
        end
        outcome low
    """),
    # The condition reads the state (a variable changed by an earlier roll): counted per state.
    "threshold": procedure("""
        let need = 1d3 + 2
        if 1d6 >= need then
          outcome hit
        end
        if 1d6 == 6 then
          outcome lucky
        end
        outcome miss
    """),
    # A condition that fails on some faces only: the same error as face by face.
    "divides": procedure("""
        if 12 // (1d6 - 3) > 100 then
          outcome never
        end
        outcome fine
    """),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("folding"), PROCEDURES)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_minefield_by_hand(rules, engine):
    # Three mines, each hitting with 2/6 = 1/3: lost ~ Binomial(3, 1/3):
    # 0: (2/3)^3 = 8/27, 1: 3 * 1/3 * 4/9 = 12/27, 2: 3 * 1/9 * 2/3 = 6/27, 3: 1/27.
    dist = odds(rules, "mines", {"mines": 3}, engine=engine)
    assert {o.get("lost"): p for o, p in dist.outcomes} == {
        0: Fraction(8, 27), 1: Fraction(12, 27), 2: Fraction(6, 27), 3: Fraction(1, 27)}


def test_the_minefield_is_folded_and_the_others_are_not(rules):
    # folded: the rest of the pass runs over the faces counted per branch (G...), not over the faces
    branches = re.compile(r"for v\d+, c in G\d+\.items\(\):")

    def exact_source(name):
        return rules.program(name).source.split("\ndef y")[0]  # the exact-odds function comes first

    assert branches.search(exact_source("mines"))
    assert branches.search(exact_source("threshold"))
    assert not branches.search(exact_source("kept")) and not branches.search(exact_source("inside"))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_die_read_later_keeps_its_faces(rules, engine):
    # faces 1-6 each 1/6; big on 5-6
    dist = odds(rules, "kept", engine=engine)
    assert {(o.get("face"), o.get("big")): p for o, p in dist.outcomes} == {
        (face, face >= 5): Fraction(1, 6) for face in range(1, 7)}
    inside = odds(rules, "inside", engine=engine)
    assert inside.probability("low") == Fraction(1, 2)
    assert {o.get("face"): p for o, p in inside.outcomes if o.name == "high"} == {4: Fraction(1, 6), 5: Fraction(1, 6), 6: Fraction(1, 6)}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_condition_that_reads_the_state(rules, engine):
    # need = 3, 4 or 5 (1/3 each); hit when 1d6 >= need: 4/6, 3/6, 2/6 -> (4 + 3 + 2)/18 = 1/2.
    # Else (1/2) a second 1d6: lucky on a 6 (1/6) -> 1/12, miss 5/12.
    dist = odds(rules, "threshold", engine=engine)
    assert (dist.probability("hit"), dist.probability("lucky"), dist.probability("miss")) == (
        Fraction(1, 2), Fraction(1, 12), Fraction(5, 12))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_condition_that_fails_on_one_face(rules, engine):
    # 12 // (3 - 3) on a 3: division by zero, at the condition, as face by face
    with pytest.raises(RuleViolation, match="division by zero"):
        odds(rules, "divides", engine=engine)


# ---- a die read only as a table's row: faces counted per cell (engine.folding: fold_lookup) ----------------------------

CRT = """
tables:
  crt:
    title: "Combat results"
    rule: "test table"
    rows: {name: "Die", dice: 1d6}
    columns: {name: "Odds", entries: ["1", "2", "3"]}
    edges: {rows: error, columns: error}
    cells:
      "1": [miss, miss, hit]
      "2": [miss, hit, hit]
      "3-4": [miss, hit, kill]
      "5-6": [hit, kill, kill]
  bands:
    title: "Two dice"
    rule: "test table"
    rows: {name: "Dice", dice: 2d6}
    edges: {rows: error}
    cells: {"2-6": low, "7": seven, "8-12": high}
"""

LOOKUPS = {
    # a CRT resolved by one die: the die is copied into `die` and read only as the row
    "fire": procedure("""
        let die = 1d6
        let result = lookup crt(row = die, column = odds, shift = shift)
        outcome fired(result = result)
    """, inputs="{odds: {type: int}, shift: {type: int, default: 0}}"),
    # the rest of the pass runs once a cell: a second die after the lookup
    "twice": procedure("""
        let result = lookup crt(row = 1d6, column = 2)
        let again = 1d6
        outcome fired(result = result, sixes = again == 6)
    """),
    # two dice: each cell weighted by the ways its totals are rolled
    "pair": procedure("""
        let total = 2d6
        let band = lookup bands(row = total)
        outcome rolled(band = band)
    """),
    # the die read again after the lookup: no folding
    "shown": procedure("""
        let die = 1d6
        let result = lookup crt(row = die, column = 1)
        outcome fired(result = result, face = die)
    """),
}


@pytest.fixture(scope="module")
def lookups(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("lookup_folding"), LOOKUPS, extra=CRT)


def test_a_die_read_only_as_a_row_is_counted_per_cell(lookups):
    cells = re.compile(r"for v\d+, c in cells\d+\[")

    def exact_source(name):
        return lookups.program(name).source.split("\ndef y")[0]

    assert cells.search(exact_source("fire")) and cells.search(exact_source("twice")) and cells.search(exact_source("pair"))
    assert not cells.search(exact_source("shown"))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_combat_results_table_by_hand(lookups, engine):
    # column 1: faces 1-4 miss (4/6), 5-6 hit (2/6)
    dist = odds(lookups, "fire", {"odds": 1}, engine=engine)
    assert {o.get("result"): p for o, p in dist.outcomes} == {"miss": Fraction(2, 3), "hit": Fraction(1, 3)}
    # column 2 shifted +1 to column 3: face 1-2 hit (2/6), 3-6 kill (4/6)
    dist = odds(lookups, "fire", {"odds": 2, "shift": 1}, engine=engine)
    assert {o.get("result"): p for o, p in dist.outcomes} == {"hit": Fraction(1, 3), "kill": Fraction(2, 3)}
    # column 2: face 1 miss, 2-4 hit, 5-6 kill; then a six on a second die (1/6) or not (5/6)
    dist = odds(lookups, "twice", engine=engine)
    assert dist.probability("fired", result="miss", sixes=True) == Fraction(1, 36)
    assert dist.probability("fired", result="hit", sixes=False) == Fraction(3, 6) * Fraction(5, 6)
    assert dist.probability("fired", result="kill", sixes=True) == Fraction(2, 36)


@pytest.mark.parametrize("engine", ENGINES)
def test_two_dice_weigh_each_cell_by_its_ways(lookups, engine):
    # 2d6: totals 2-6 are 1+2+3+4+5 = 15 ways of 36, 7 is 6 ways, 8-12 are 5+4+3+2+1 = 15
    dist = odds(lookups, "pair", engine=engine)
    assert {o.get("band"): p for o, p in dist.outcomes} == {"low": Fraction(15, 36), "seven": Fraction(6, 36), "high": Fraction(15, 36)}
    # the unfolded die, for comparison: column 1 per face
    shown = odds(lookups, "shown", engine=engine)
    assert {o.get("face"): o.get("result") for o, _ in shown.outcomes} == {1: "miss", 2: "miss", 3: "miss", 4: "miss", 5: "hit", 6: "hit"}


def test_a_column_off_the_table_fails_alike(lookups):
    errors = []
    for engine in ENGINES:
        with pytest.raises(Exception) as caught:
            odds(lookups, "fire", {"odds": 4}, engine=engine)  # no column 4, and columns: error
        errors.append((type(caught.value).__name__, str(caught.value)))
    assert errors[0] == errors[1]
    assert "4" in errors[0][1]
