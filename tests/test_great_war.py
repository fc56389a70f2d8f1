"""The great_war ruleset (seed 004, a WWI naval table set).

Every printed table is typed in again below from the seed text (not from
program output) and compared cell by cell with the loaded tables; the
procedures are checked with scripted dice (outcome and trace) and with exact
odds counted by hand; a few checks go through the command line in-process.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from interpreter import load_ruleset, odds, resolve
from interpreter.cli import main
from interpreter.errors import RuleViolation, UsageError
from interpreter.tables import OffTable, lookup
from interpreter.values import Record


@pytest.fixture(scope="module")
def gw():
    return load_ruleset("great_war")


def unit(nation: str, kind: str, contact: int = 1, combat: int = 1) -> dict:
    return {"nation": nation, "type": kind, "contact": contact, "combat": combat}


def variant(tmp_path: Path, override: str) -> Path:
    """A one-line variant of great_war (the notes' `variant:` readings)."""
    path = tmp_path / "variant.yaml"
    path.write_text(
        "wartable: 1\nname: gw_variant\ntitle: variant\nsource: test\nversion: '1'\nextends: great_war\n"
        "override:\n" + override,
        encoding="utf-8",
    )
    return path


def trace_text(play) -> str:
    return "\n".join(event.message for event in play.trace)


def lookups(play) -> list[dict]:
    return [dict(event.data) for event in play.trace if event.kind == "lookup"]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# ---- the seed's tables, typed again from shared/seeds/004 -------------------------------

SEED_NAVAL_CONTACT = """\
Die roll\t-2(-)\t-1\t0\t+1\t+2\t+3(+)
1\tN\tN\tN\tN\tN\tN
2\tN\tD\tD\tD\tD\tC
3\tD\tD\tC\tC\tC\tA
4\tD\tC\tC\tC\tA\tA
5\tD\tC\tC\tA\tA\tA
6\tC\tA\tA\tA\tA\tA"""

SEED_NAVAL_COMBAT = """\
Die Roll\t1-5\t6-15\t16-30\t31-50\t51-75\t76-99\t100+
1\t0\t0\t2\t2\t4\t4\t4
2\t0\t1\t4\t4\t6\t8\t8
3\t1\t2\t4\t6\t8\t12\t12
4\t2\t4\t6\t8\t12\t12\t16
5\t2\t4\t8\t12\t12\t16\t20
6\t4\t6\t12\t12\t16\t20\t24"""

SEED_BOMBARDMENT = """\
Die Roll\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10
1\t_*\t_*\t_*\t_*\t_*\t_*\t_*\t_*\t_*\t_*
2\t-\t-\t-\t-\tB\tB\tB\tB\tB\tB
3\t-\t-\tB\tB\tB\tB\tB\tX\tX\tX
4\t-\tB\tB\tB\tB\tB\tX\tX\tX\tX
5\tB\tB\tB\tB\tB\tX\tX\tX\tX\tXX
6\tB\tB\tB\tB\tX\tX\tX\tX\tXX\tXX"""

SEED_COMMERCE_RAIDING = """\
Die Roll\t1(-)\t2\t3\t4\t5\t6\t7\t8\t9\t10-11\t12-15\t16-20\t21-30\t31+
1\t0+D\t0+D\t0+D\t0+D\t1+D\t1+D\t1+D\t2+D\t2+D\t2+D\t3+D\t3+D\t4+D\t5+D
2\t0\t0\t0\t1\t1\t1\t2\t2\t2\t2\t3\t4\t5\t6
3\t0\t0\t1\t1\t1\t2\t2\t2\t3\t3\t3\t4\t5\t7
4\t0\t1\t1\t1\t2\t2\t2\t3\t3\t4\t4\t5\t6\t8
5\t1\t1\t2\t2\t2\t3\t3\t3\t4\t4\t5\t6\t7\t9
6\t1+A\t2+A\t2+A\t3+A\t3+A\t3+A\t4+A\t4+A\t4+A\t5+A\t5+A\t6+A\t8+A\t10+A"""

SEED_MERCHANT_SHIPPING = """\
Die Roll\t0-20\t21-40\t41-60\t61-80\t81-100+
1\t-\t-\t-\t-\t-
2\tS\t-\t-\t-\t-
3\tS\tS\tS\t-\t-
4\tSS/I\tS\tS\t-\t-
5\tSS/I\tS/I\tS\tS\t-
6\tSS/I\tSS/I\tS/I\tS\t-"""

SEED_MOBILIZATION = """\
Die roll\tno defenders\tless than -3\t-3 to +3\tmore than +3\tno attackers
1\t5\t2 + GE\t1 + GE\t0\t0
2\t5\t3\t2\t1\t0
3\t5\t3\t2\t2\t0
4\t5\t4\t3\t2\t0
5\t5\t4\t3\t2\t0
6\t5\t5\t4 + GE\t3 + GE\t0"""

SEED_SUPPLY_ATTRITION = """\
Terrain\tin winter\tin other seasons
Desert or Mountain\t1 – 3\t1 – 2
Other\t1 – 2\t1"""

SEED_NAVAL_ATTRITION = "Eliminate on a roll of 1 – 2 in all seasons"


def parse(text: str) -> tuple[list[str], list[str], list[list[str]]]:
    """(column headings, row headings, cells) of a tab-separated seed table."""
    lines = [line.split("\t") for line in text.splitlines()]
    header, body = lines[0], lines[1:]
    return header[1:], [row[0] for row in body], [row[1:] for row in body]


def cell_text(value) -> str:
    return value.get("code") if isinstance(value, Record) else str(value)


@pytest.mark.parametrize(
    "table_name, seed",
    [
        ("naval_contact_table", SEED_NAVAL_CONTACT),
        ("naval_combat_table", SEED_NAVAL_COMBAT),
        ("bombardment_table", SEED_BOMBARDMENT),
        ("commerce_raiding_table", SEED_COMMERCE_RAIDING),
        ("merchant_shipping_table", SEED_MERCHANT_SHIPPING),
        ("mobilization_loss_table", SEED_MOBILIZATION),
        ("supply_attrition_table", SEED_SUPPLY_ATTRITION),
    ],
    ids=lambda value: value if "\t" not in str(value) else "seed",
)
def test_tables_are_typed_in_as_the_seed_prints_them(gw, table_name, seed):
    columns, rows, cells = parse(seed)
    table = gw.tables[table_name]
    assert table.columns.labels() == columns
    assert table.rows.labels() == rows
    assert [[cell_text(v) for v in row] for row in table.cells] == cells
    assert [list(row) for row in table.printed] == cells


# Keys inside each column heading (both ends of a range, values past an open end).
CONTACT_KEYS = {"-2(-)": [-2, -3, -9], "-1": [-1], "0": [0], "+1": [1], "+2": [2], "+3(+)": [3, 4, 12]}
COMBAT_KEYS = {"1-5": [1, 5], "6-15": [6, 15], "16-30": [16, 30], "31-50": [31, 50], "51-75": [51, 75],
               "76-99": [76, 99], "100+": [100, 101, 1000]}
RAIDING_KEYS = {"1(-)": [1, 0, -7], "10-11": [10, 11], "12-15": [12, 15], "16-20": [16, 20], "21-30": [21, 30],
                "31+": [31, 32, 200], **{str(n): [n] for n in range(2, 10)}}
SHIPPING_KEYS = {"0-20": [0, 20], "21-40": [21, 40], "41-60": [41, 60], "61-80": [61, 80], "81-100+": [81, 100, 101, 500]}
MOBILIZATION_KEYS = {"no defenders": ["no defenders"], "less than -3": [-4, -30], "-3 to +3": [-3, 0, 3],
                     "more than +3": [4, 30], "no attackers": ["no attackers"]}


@pytest.mark.parametrize(
    "table_name, seed, keys",
    [
        ("naval_contact_table", SEED_NAVAL_CONTACT, CONTACT_KEYS),
        ("naval_combat_table", SEED_NAVAL_COMBAT, COMBAT_KEYS),
        ("bombardment_table", SEED_BOMBARDMENT, {str(n): [n] for n in range(1, 11)}),
        ("commerce_raiding_table", SEED_COMMERCE_RAIDING, RAIDING_KEYS),
        ("merchant_shipping_table", SEED_MERCHANT_SHIPPING, SHIPPING_KEYS),
        ("mobilization_loss_table", SEED_MOBILIZATION, MOBILIZATION_KEYS),
    ],
    ids=["contact", "combat", "bombardment", "commerce_raiding", "merchant_shipping", "mobilization"],
)
def test_lookup_finds_every_seed_cell_by_its_key(gw, table_name, seed, keys):
    columns, rows, cells = parse(seed)
    table = gw.tables[table_name]
    checked = 0
    for row_label, row in zip(rows, cells):
        for column_label, expected in zip(columns, row):
            for key in keys[column_label]:
                result = lookup(table, int(row_label), key)
                assert cell_text(result.value) == expected, (row_label, column_label, key)
                assert result.column.label == column_label
                checked += 1
    assert checked >= 6 * len(columns)


def test_supply_attrition_cells_are_die_faces(gw):
    # Seed: Desert or Mountain 1 – 3 (winter), 1 – 2 (other seasons); Other 1 – 2, 1.
    table = gw.tables["supply_attrition_table"]
    expected = {
        ("desert", "winter"): (1, 2, 3), ("mountain", "winter"): (1, 2, 3),
        ("desert", "summer"): (1, 2), ("mountain", "spring"): (1, 2), ("mountain", "autumn"): (1, 2),
        ("other", "winter"): (1, 2), ("other", "spring"): (1,), ("other", "summer"): (1,), ("other", "autumn"): (1,),
        ("clear", "winter"): (1, 2), ("swamp", "summer"): (1,),  # any other terrain is "Other"
    }
    for (terrain, season), faces in expected.items():
        assert lookup(table, terrain, season).value.get("eliminated_on") == faces, (terrain, season)
    naval = gw.tables["naval_attrition_table"]
    assert naval.printed[0][0] == SEED_NAVAL_ATTRITION.split("roll of ")[1].split(" in all")[0]
    assert lookup(naval, "naval").value.get("eliminated_on") == (1, 2)


def test_structured_cells_carry_the_seed_meanings(gw):
    contact = gw.tables["naval_contact_table"]
    meanings = {  # N: no combat; C: simultaneous; D / A: that side has the advantage
        "N": (False, "none"), "C": (True, "none"), "D": (True, "defender"), "A": (True, "attacker"),
    }
    for row in contact.cells:
        for cell in row:
            assert (cell.get("combat"), cell.get("advantage")) == meanings[cell.get("code")]

    bombardment = gw.tables["bombardment_table"]
    effects = {  # (eliminate attacker if fortification, eliminate fortress, morale if city, devastate city)
        "-": (False, False, 0, False),
        "_*": (True, False, 0, False),
        "B": (False, True, 0, False),
        "X": (False, True, -1, False),
        "XX": (False, True, 2, True),
    }
    for row in bombardment.cells:
        for cell in row:
            fields = ("eliminate_attacker_if_fortification", "eliminate_fortress", "enemy_morale_if_city", "devastate_city")
            assert tuple(cell.get(f) for f in fields) == effects[cell.get("code")]

    raiding = gw.tables["commerce_raiding_table"]
    first, last = raiding.cells[0], raiding.cells[5]
    assert [c.get("points") for c in first] == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5]
    assert all(c.get("raider_loss") and not c.get("convoy_loss") for c in first)
    assert [c.get("points") for c in last] == [1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 8, 10]
    assert all(c.get("convoy_loss") and not c.get("raider_loss") for c in last)
    assert not any(c.get("raider_loss") or c.get("convoy_loss") for row in raiding.cells[1:5] for c in row)

    shipping = gw.tables["merchant_shipping_table"]
    # S: Allied Morale -5; SS: -10; /I: Industrial Collapse
    losses = {"-": (0, False), "S": (5, False), "SS/I": (10, True), "S/I": (5, True)}
    for row in shipping.cells:
        for cell in row:
            assert (cell.get("allied_morale_loss"), cell.get("industrial_collapse")) == losses[cell.get("code")]

    mobilization = gw.tables["mobilization_loss_table"]
    assert (mobilization.cells[0][1].get("points"), mobilization.cells[0][1].get("general_engagement")) == (2, True)
    assert (mobilization.cells[5][3].get("points"), mobilization.cells[5][3].get("general_engagement")) == (3, True)
    assert (mobilization.cells[1][1].get("points"), mobilization.cells[1][1].get("general_engagement")) == (3, False)
    ge_cells = {(r, c) for r, row in enumerate(mobilization.cells) for c, cell in enumerate(row) if cell.get("general_engagement")}
    assert ge_cells == {(0, 1), (0, 2), (5, 2), (5, 3)}


def test_modifier_lists_match_the_seed(gw):
    drms = {e.label: e.value for e in gw.modifiers["interception_drms"].entries}
    assert drms == {
        "Intercepting side is at Air Level 4 or 5": -1,
        "All units in intercepting fleet have higher contact ratings than lowest in fleet being intercepted.": -1,
        "Side being intercepted is at Air Level 5": 1,
        "All units in fleet being intercepted have higher contact ratings than lowest in fleet intercepting.": 1,
        "Side being intercepted is SS units only.": 1,
    }
    assert gw.modifiers["interception_drms"].kind == "drm"
    shifts = {e.label: e.value for e in gw.modifiers["contact_shifts"].entries}
    assert shifts == {
        "Attacking fleet contains all German naval units": 2,
        "Attacking fleet contains all British and/or US naval units": 1,
        "Defender in port/coastal/small island hex": 1,
        "Attacker at Air Doctrine Level 4 or higher (owing to seaplanes)": 1,
        "Defender at Air Doctrine Level 4 or higher (owing to seaplanes)": -1,
        "Defending fleet contains all British, German and/or US naval units": -1,
    }
    assert gw.modifiers["contact_shifts"].kind == "column_shift"
    constants = {name: c.value for name, c in gw.constants.items()}
    assert constants["interception_threshold"] == 3
    assert constants["air_level_bonus"] == 4 and constants["air_level_top"] == 5
    assert constants["usw_multiplier"] == 2
    assert constants["general_engagement_max_units"] == 10


def test_table_edges(gw):
    combat = gw.tables["naval_combat_table"]
    with pytest.raises(OffTable, match="off the table"):
        lookup(combat, 3, 0)  # no strength, no fire
    with pytest.raises(OffTable):
        lookup(combat, 7, 10)  # a d6 has no 7
    bombardment = gw.tables["bombardment_table"]
    beyond = lookup(bombardment, 6, 14)  # more than 10 squadrons: the 10 column
    assert beyond.value.get("code") == "XX" and beyond.column.label == "10" and beyond.column_clamped_from == "14"
    contact = gw.tables["naval_contact_table"]
    assert lookup(contact, 2, 2, column_shift=5).column.label == "+3(+)"  # shifts clamp at the edge
    assert lookup(contact, 2, -1, column_shift=-3).column.label == "-2(-)"
    with pytest.raises(OffTable):
        lookup(gw.tables["merchant_shipping_table"], 2, -1)


# ---- interception -------------------------------------------------------------------

BASE_INTERCEPTING = [unit("British", "BC", contact=2)]
BASE_INTERCEPTED = [unit("German", "CA", contact=2)]


def interception_odds(gw, **changes) -> Fraction:
    inputs = {"mission": "commerce_raiding", "defender": BASE_INTERCEPTING, "attacker": BASE_INTERCEPTED}
    inputs.update(changes)
    distribution = odds(gw, "interception", inputs)
    assert distribution.probability("intercepted") + distribution.probability("not_intercepted") == 1
    return distribution.probability("intercepted")


# Ways to roll at most t on 2d6: t=2: 1, t=3: 3, t=4: 6, t=5: 10, t=6: 15 (of 36).
@pytest.mark.parametrize(
    "changes, expected",
    [
        # no DRM: 2d6 <= 3: (1,1),(1,2),(2,1) = 3 of 36
        ({}, Fraction(3, 36)),
        # -1 a) Air Level 4: 2d6 <= 4: (1,1),(1,2),(2,1),(1,3),(2,2),(3,1) = 6 of 36
        ({"defender_air_level": 4}, Fraction(6, 36)),
        # -1 a) Air Level 5 too ("4 or 5")
        ({"defender_air_level": 5}, Fraction(6, 36)),
        # Air Level 3: no DRM, 3 of 36
        ({"defender_air_level": 3}, Fraction(3, 36)),
        # -1 b) intercepting 3, 4 all above the lowest intercepted (2); intercepted 2, 5 not all above 3: 6 of 36
        ({"defender": [unit("British", "BC", 3), unit("British", "BB", 4)],
          "attacker": [unit("German", "CA", 2), unit("German", "BB", 5)]}, Fraction(6, 36)),
        # +1 a) intercepted at Air Level 5: 2d6 <= 2: (1,1) = 1 of 36
        ({"attacker_air_level": 5}, Fraction(1, 36)),
        # intercepted at Air Level 4: no DRM (only 5 counts): 3 of 36
        ({"attacker_air_level": 4}, Fraction(3, 36)),
        # +1 b) intercepted 3 above the lowest intercepting (2); intercepting 2, 4 not all above 3: 1 of 36
        ({"defender": [unit("British", "BC", 2), unit("British", "BB", 4)],
          "attacker": [unit("German", "CA", 3)]}, Fraction(1, 36)),
        # +1 c) SS units only: 1 of 36
        ({"attacker": [unit("German", "SS", 2), unit("German", "SS", 2)]}, Fraction(1, 36)),
        # SS mixed with a cruiser: not "SS units only": 3 of 36
        ({"attacker": [unit("German", "SS", 2), unit("German", "CA", 2)]}, Fraction(3, 36)),
        # -1 a) and -1 b): net -2, 2d6 <= 5: 1+2+3+4 = 10 of 36
        ({"defender_air_level": 4, "defender": [unit("British", "BC", 3)]}, Fraction(10, 36)),
        # +1 a), +1 c): net +2, 2d6 <= 1: impossible
        ({"attacker_air_level": 5, "attacker": [unit("German", "SS", 2)]}, Fraction(0)),
        # -1 a) and +1 c): net 0: 3 of 36
        ({"defender_air_level": 5, "attacker": [unit("German", "SS", 2)]}, Fraction(3, 36)),
    ],
)
def test_interception_odds_by_hand(gw, changes, expected):
    assert interception_odds(gw, **changes) == expected


@pytest.mark.parametrize("mission", ["coastal_bombardment", "commerce_raiding", "rebasing"])
def test_interception_missions_with_a_roll(gw, mission):
    assert interception_odds(gw, mission=mission) == Fraction(3, 36)


def test_interception_scripted_dice_and_trace(gw):
    inputs = {
        "mission": "rebasing",
        "defender": [unit("British", "BC", 3)],
        "attacker": [unit("German", "SS", 2)],
        "defender_air_level": 4,
    }
    # DRMs: -1 a) and -1 b) (3 > 2), +1 c) SS only: net -1; 2 + 2 = 4, modified 3: intercepted
    play = resolve(gw, "interception", inputs, dice=[2, 2])
    assert play.outcome.name == "intercepted"
    text = trace_text(play)
    assert "roll 2d6: 2 + 2 = 4" in text
    assert "DRM -1: Intercepting side is at Air Level 4 or 5" in text
    assert "DRM -1: All units in intercepting fleet have higher contact ratings" in text
    assert "DRM +1: Side being intercepted is SS units only." in text
    assert "Side being intercepted is at Air Level 5" not in text
    assert "net DRM -1" in text
    assert "modified = 3" in text
    rules = [event.rule for event in play.trace if event.kind == "modifier"]
    assert "-1 DRM a) Intercepting side is at Air Level 4 or 5" in rules
    # 2 + 3 = 5, modified 4: not intercepted
    assert resolve(gw, "interception", inputs, dice=[2, 3]).outcome.name == "not_intercepted"


def test_interception_of_a_general_engagement_is_not_given_by_the_seed(gw):
    inputs = {"mission": "general_engagement", "defender": BASE_INTERCEPTING, "attacker": BASE_INTERCEPTED}
    with pytest.raises(RuleViolation, match="Interception occurs on a die roll of 3 or less for Coastal Bombardment"):
        resolve(gw, "interception", inputs, dice=[1, 1])
    with pytest.raises(RuleViolation, match="no interception roll"):
        odds(gw, "interception", inputs)
    assert any("General Engagement" in note.seed for note in gw.notes if "Interception" in note.topic)


def test_interception_input_checks(gw):
    with pytest.raises(UsageError, match="at most 5"):
        odds(gw, "interception", {"mission": "rebasing", "defender": BASE_INTERCEPTING,
                                  "attacker": BASE_INTERCEPTED, "defender_air_level": 6})
    with pytest.raises(UsageError, match="must be one of"):
        odds(gw, "interception", {"mission": "shipping", "defender": BASE_INTERCEPTING,
                                  "attacker": BASE_INTERCEPTED})
    with pytest.raises(RuleViolation, match="at least one unit"):
        odds(gw, "interception", {"mission": "rebasing", "defender": [], "attacker": BASE_INTERCEPTED})


# ---- naval contact -----------------------------------------------------------------

# Outcomes of each column (rows 1-6) with the default choices (fire first):
# -2(-): N N D D D C; -1: N D D C C A; 0: N D C C C A; +1: N D C C A A; +2: N D C A A A; +3(+): N C A A A A
SIXTH = Fraction(1, 6)
COLUMN_ODDS = {
    "-2(-)": {"no_combat": 2 * SIXTH, "defender_fires_first": 3 * SIXTH, "simultaneous_combat": SIXTH},
    "-1": {"no_combat": SIXTH, "defender_fires_first": 2 * SIXTH, "simultaneous_combat": 2 * SIXTH, "attacker_fires_first": SIXTH},
    "0": {"no_combat": SIXTH, "defender_fires_first": SIXTH, "simultaneous_combat": 3 * SIXTH, "attacker_fires_first": SIXTH},
    "+1": {"no_combat": SIXTH, "defender_fires_first": SIXTH, "simultaneous_combat": 2 * SIXTH, "attacker_fires_first": 2 * SIXTH},
    "+2": {"no_combat": SIXTH, "defender_fires_first": SIXTH, "simultaneous_combat": SIXTH, "attacker_fires_first": 3 * SIXTH},
    "+3(+)": {"no_combat": SIXTH, "simultaneous_combat": SIXTH, "attacker_fires_first": 4 * SIXTH},
}

FRENCH = [unit("French", "BB", 2)]
ITALIAN = [unit("Italian", "BB", 2)]  # French against Italian: no column shift applies


@pytest.mark.parametrize(
    "changes, column",
    [
        ({}, "0"),
        # 2R attacking fleet all German
        ({"attacker": [unit("German", "BB", 2), unit("German", "BC", 1)]}, "+2"),
        # 1R all British and/or US
        ({"attacker": [unit("British", "BB", 2), unit("US", "BB", 1)]}, "+1"),
        ({"attacker": [unit("US", "BB", 2)]}, "+1"),
        # German with British: neither 2R nor 1R
        ({"attacker": [unit("German", "BB", 2), unit("British", "BB", 1)]}, "0"),
        # 1R defender in port / coastal / small island hex
        ({"defender_hex": "port"}, "+1"),
        ({"defender_hex": "coastal"}, "+1"),
        ({"defender_hex": "small_island"}, "+1"),
        ({"defender_hex": "open_sea"}, "0"),
        # 1R attacker at Air Doctrine Level 4 or higher; 3 gives nothing
        ({"attacker_air_doctrine": 4}, "+1"),
        ({"attacker_air_doctrine": 5}, "+1"),
        ({"attacker_air_doctrine": 3}, "0"),
        # 1L defender at Air Doctrine Level 4 or higher
        ({"defender_air_doctrine": 4}, "-1"),
        # 1L defending fleet all British, German and/or US
        ({"defender": [unit("German", "BB", 2), unit("US", "CA", 1)]}, "-1"),
        ({"defender": [unit("British", "BB", 2)]}, "-1"),
        ({"defender": [unit("British", "BB", 2), unit("French", "CA", 1)]}, "0"),
        # cumulative: 2R + 1R + 1R - 1L = 3R from 0
        ({"attacker": [unit("German", "BB", 2)], "defender_hex": "port", "attacker_air_doctrine": 4,
          "defender_air_doctrine": 4}, "+3(+)"),
        # 2R + 1R + 1R = 4R from 0: clamped at +3(+)
        ({"attacker": [unit("German", "BB", 2)], "defender_hex": "port", "attacker_air_doctrine": 4}, "+3(+)"),
        # differential -1, then 1L + 1L = -3: clamped at -2(-)
        ({"attacker": [unit("French", "BB", 1)], "defender": [unit("British", "BB", 2)], "defender_air_doctrine": 5}, "-2(-)"),
        # differential -5 is in -2(-); +6 is in +3(+)
        ({"defender": [unit("Italian", "BB", 7)]}, "-2(-)"),
        ({"attacker": [unit("French", "BB", 8)]}, "+3(+)"),
    ],
)
def test_contact_column_and_shifts(gw, changes, column):
    inputs = {"attacker": FRENCH, "defender": ITALIAN, **changes}
    distribution = odds(gw, "naval_contact", inputs)
    assert distribution.by_name() == {k: v for k, v in COLUMN_ODDS[column].items()}
    play = resolve(gw, "naval_contact", inputs, dice=[2])
    assert lookups(play)[0]["column"] == column


def test_contact_trace_names_the_shifts_and_the_cell(gw):
    inputs = {"attacker": [unit("German", "BB", 3)], "defender": [unit("British", "BC", 2)], "defender_hex": "port"}
    # differential +1; 2R German, 1R port, 1L defender all British: net 2R -> +3(+); row 3 is A
    play = resolve(gw, "naval_contact", inputs, dice=[3])
    assert play.outcome.name == "attacker_fires_first"
    text = trace_text(play)
    assert "column shift 2R: Attacking fleet contains all German naval units" in text
    assert "column shift 1R: Defender in port/coastal/small island hex" in text
    assert "column shift 1L: Defending fleet contains all British, German and/or US naval units" in text
    assert "net column shift 2R" in text
    assert "column +1 shifted 2 right -> +3(+)" in text
    assert lookups(play)[0] == {**lookups(play)[0], "table": "naval_contact_table", "row": "3", "column": "+3(+)"}
    clamped = resolve(gw, "naval_contact", {**inputs, "defender": [unit("Italian", "BB", 2)], "attacker_air_doctrine": 4}, dice=[1])
    assert "(clamped at the edge)" in trace_text(clamped)  # +1 with 2R + 1R + 1R = +5


def test_contact_uses_the_highest_unit_contact_rating(gw, tmp_path):
    # attacker 1 and 4, defender 2 and 3: highest 4 - 3 = +1 (row 3: C); lowest 1 - 2 = -1 (row 3: D)
    inputs = {"attacker": [unit("French", "BB", 1), unit("French", "CA", 4)],
              "defender": [unit("Italian", "BB", 2), unit("Italian", "CA", 3)]}
    play = resolve(gw, "naval_contact", inputs, dice=[3])
    assert play.outcome.name == "simultaneous_combat" and lookups(play)[0]["column"] == "+1"
    lowest = load_ruleset(variant(tmp_path, "  constants:\n    fleet_contact_rating: {value: lowest}\n"))
    play = resolve(lowest, "naval_contact", inputs, dice=[3])
    assert play.outcome.name == "defender_fires_first" and lookups(play)[0]["column"] == "-1"
    assert any(note.seed == "Attacker's contact rating minus defender's contact rating." and "lowest" in note.variant for note in gw.notes)


def test_contact_choices_refuse_or_fire_first(gw):
    inputs = {"attacker": FRENCH, "defender": ITALIAN}  # column 0: N D C C C A
    assert resolve(gw, "naval_contact", inputs, dice=[2]).outcome.name == "defender_fires_first"
    refused = resolve(gw, "naval_contact", inputs, dice=[2], choices={"defender_advantage": "refuse"})
    assert refused.outcome.name == "combat_refused" and refused.outcome.get("by") == "defender"
    # the attacker's policy does not touch a D result
    assert resolve(gw, "naval_contact", inputs, dice=[2], choices={"attacker_advantage": "refuse"}).outcome.name == "defender_fires_first"
    refused = resolve(gw, "naval_contact", inputs, dice=[6], choices={"attacker_advantage": "refuse"})
    assert refused.outcome.name == "combat_refused" and refused.outcome.get("by") == "attacker"
    assert resolve(gw, "naval_contact", inputs, dice=[1], choices={"attacker_advantage": "refuse"}).outcome.name == "no_combat"
    assert resolve(gw, "naval_contact", inputs, dice=[4]).outcome.name == "simultaneous_combat"
    both = odds(gw, "naval_contact", inputs, choices={"attacker_advantage": "refuse", "defender_advantage": "refuse"})
    # column 0: D on a 2 (1/6), A on a 6 (1/6), C on 3-5 (1/2), N on a 1 (1/6)
    assert both.probability("combat_refused", by="defender") == SIXTH
    assert both.probability("combat_refused", by="attacker") == SIXTH
    assert both.probability("simultaneous_combat") == Fraction(1, 2)
    assert both.probability("no_combat") == SIXTH


# ---- naval combat ------------------------------------------------------------------


@pytest.mark.parametrize(
    "strengths, die, eliminated",
    [
        ([5], 6, 4),           # 1-5, row 6
        ([1], 3, 1),           # 1-5, row 3
        ([10, 5], 2, 1),       # 15: 6-15, row 2
        ([20, 11], 2, 4),      # 31: 31-50, row 2
        ([30], 5, 8),          # 16-30, row 5
        ([75], 4, 12),         # 51-75, row 4
        ([50, 49], 6, 20),     # 99: 76-99, row 6
        ([100], 6, 24),        # 100+, row 6
        ([90, 90], 1, 4),      # 180: 100+, row 1
    ],
)
def test_naval_combat_scripted(gw, strengths, die, eliminated):
    firing = [unit("German", "BB", 2, s) for s in strengths]
    play = resolve(gw, "naval_combat", {"firing": firing}, dice=[die])
    assert play.outcome.name == "fire" and play.outcome.get("protection_factors_eliminated") == eliminated


def test_naval_combat_odds(gw):
    # 16-30 column: 2, 4, 4, 6, 8, 12 -> P(4) = 2/6, each of 2, 6, 8, 12 1/6
    distribution = odds(gw, "naval_combat", {"firing": [unit("British", "BB", 2, 12), unit("British", "BC", 2, 8)]})
    assert distribution.probability("fire", protection_factors_eliminated=4) == Fraction(1, 3)
    for value in (2, 6, 8, 12):
        assert distribution.probability("fire", protection_factors_eliminated=value) == SIXTH


def test_naval_combat_without_strength_is_off_the_table(gw):
    with pytest.raises(RuleViolation, match="0 is off the table"):
        resolve(gw, "naval_combat", {"firing": [unit("German", "SS", 1, 0)]}, dice=[3])
    with pytest.raises(RuleViolation, match="off the table"):
        odds(gw, "naval_combat", {"firing": []})


# ---- refusing combat -----------------------------------------------------------------

BASE = "friendly_naval_base_adjacent_to_sea_area"
PREVIOUS = "nearest_naval_base_or_port_in_previous_sea_area"
COMPLETE, RETURNS = "may_complete_mission", "returns_to_friendly_naval_base_adjacent_to_sea_area"


@pytest.mark.parametrize(
    "refusing, other, moves_to, other_side, dominated",
    [
        # 2) a re-basing force withdraws to the previous Sea Area; 3) the interceptor returns to base
        ("rebasing", "interception", PREVIOUS, RETURNS, False),
        ("coastal_bombardment", "interception", BASE, RETURNS, False),
        ("commerce_raiding", "interception", BASE, RETURNS, False),
        # 3) the other side may complete a Coastal Bombardment, Commerce Raiding or Re-basing mission
        ("interception", "coastal_bombardment", BASE, COMPLETE, False),
        ("interception", "commerce_raiding", BASE, COMPLETE, False),
        ("interception", "rebasing", BASE, COMPLETE, False),
        # 3) General Engagement: returns, and the Sea Area is dominated by the remaining side
        ("interception", "general_engagement", BASE, RETURNS, True),
        ("none", "general_engagement", BASE, RETURNS, True),
        ("general_engagement", "general_engagement", BASE, RETURNS, True),
        # Interception of a General Engagement
        ("general_engagement", "interception", BASE, RETURNS, True),
        # a side on no mission stays (see notes)
        ("general_engagement", "none", BASE, "stays", False),
        ("rebasing", "none", PREVIOUS, "stays", False),
    ],
)
def test_refuse_combat(gw, refusing, other, moves_to, other_side, dominated):
    # the refusing side is the attacker here; its mission is `refusing`, the other side's `other`
    play = resolve(gw, "refuse_combat", {"refusing": "attacker", "mission": refusing, "defender_mission": other}, dice=[])
    assert play.outcome.name == "combat_refused"
    assert play.outcome.fields_dict() == {
        "refusing_force_moves_to": moves_to, "other_side": other_side, "sea_area_dominated_by_remaining_side": dominated,
    }
    assert "1) If a side refuses combat, then no combat occurs." in trace_text(play)


# ---- bombardment ---------------------------------------------------------------------


def squadrons(n: int, extra: list | None = None) -> list:
    kinds = ["BB", "BC", "PD"]
    return [unit("British", kinds[i % 3], 2, 5) for i in range(n)] + (extra or [])


@pytest.mark.parametrize(
    "fleet, die, fortification, city, expected",
    [
        # 1 squadron (CA and SS are not counted), row 5: B
        (squadrons(1, [unit("British", "CA"), unit("British", "SS")]), 5, True, False, (False, True, False, 0)),
        # B without a fortress: nothing to eliminate
        (squadrons(1, [unit("British", "CA")]), 5, False, False, (False, False, False, 0)),
        # _*: eliminate an attacker if a fortification is in the hex, otherwise no effect
        (squadrons(3), 1, True, True, (True, False, False, 0)),
        (squadrons(3), 1, False, True, (False, False, False, 0)),
        # -: no effect (2 squadrons, row 3)
        (squadrons(2), 3, True, True, (False, False, False, 0)),
        # X: fortress, and -1 enemy morale if a city is in the hex (7 squadrons, row 4)
        (squadrons(7), 4, True, True, (False, True, False, -1)),
        (squadrons(7), 4, True, False, (False, True, False, 0)),
        # XX: fortress, devastate the city, +2 enemy morale (9 squadrons, row 6)
        (squadrons(9), 6, True, True, (False, True, True, 2)),
        (squadrons(9), 6, False, False, (False, False, False, 0)),
        # 12 squadrons: the 10 column (row 5: XX; 9 would give X)
        (squadrons(12), 5, False, True, (False, False, True, 2)),
    ],
)
def test_bombardment(gw, fleet, die, fortification, city, expected):
    play = resolve(gw, "bombardment", {"attacker": fleet, "enemy_fortification": fortification, "city_in_hex": city}, dice=[die])
    fields = ("attacking_unit_eliminated", "fortress_eliminated", "city_devastated", "enemy_morale_change")
    assert play.outcome.name == "bombarded"
    assert tuple(play.outcome.get(f) for f in fields) == expected


def test_bombardment_clamps_past_ten_squadrons(gw):
    play = resolve(gw, "bombardment", {"attacker": squadrons(12), "city_in_hex": True}, dice=[5])
    assert "column key 12 is off the table; clamped to column 10" in trace_text(play)
    assert lookups(play)[0]["column"] == "10"
    # column 10: _*, B, X, X, XX, XX: devastation on 5-6 (1/3), -1 morale on 3-4 (1/3)
    distribution = odds(gw, "bombardment", {"attacker": squadrons(15), "city_in_hex": True, "enemy_fortification": True})
    assert distribution.probability("bombarded", city_devastated=True, enemy_morale_change=2) == Fraction(1, 3)
    assert distribution.probability("bombarded", enemy_morale_change=-1) == Fraction(1, 3)
    assert distribution.probability("bombarded", attacking_unit_eliminated=True) == SIXTH
    assert distribution.probability("bombarded", fortress_eliminated=True) == Fraction(5, 6)


def test_bombardment_needs_a_squadron(gw):
    with pytest.raises(RuleViolation, match=r"Squadrons \(not factors!\) firing"):
        resolve(gw, "bombardment", {"attacker": [unit("British", "CA", 2, 9)]}, dice=[6])


# ---- commerce raiding ----------------------------------------------------------------

RAIDERS = [unit("German", "SS", 1, 4), unit("German", "SS", 1, 4)]  # combat 8
CONVOYS = [unit("British", "ESC", 2, 1), unit("British", "ESC", 3, 1)]  # contact 5


def raid(gw, die, **inputs):
    inputs = {("attacker" if name == "raiders" else name): value for name, value in inputs.items()}
    given = {"attacker": RAIDERS, "convoys": CONVOYS, **inputs}
    play = resolve(gw, "commerce_raiding", given, dice=[die])
    assert play.outcome.name == "raid"
    return play


def test_commerce_raiding_column_is_combat_minus_convoy_contact(gw):
    # 8 - 5 = 3: row 6, column 3: 2+A
    play = raid(gw, 6)
    assert lookups(play)[0]["column"] == "3"
    assert play.outcome.fields_dict() == {
        "merchant_ship_points": 2, "attacking_unit_eliminated": False,
        "transport_flotilla_eliminated": False, "convoy_unit_eliminated": True,
    }


def test_commerce_raiding_usw_doubles_the_points(gw):
    assert raid(gw, 6, unrestricted_submarine_warfare=True).outcome.get("merchant_ship_points") == 4
    assert raid(gw, 5, unrestricted_submarine_warfare=True).outcome.get("merchant_ship_points") == 4  # 2 doubled
    assert raid(gw, 5).outcome.get("merchant_ship_points") == 2
    # column 3 under USW: 0, 0, 1, 1, 2, 2 doubled -> 0 on 1-2, 2 on 3-4, 4 on 5-6: each 1/3
    distribution = odds(gw, "commerce_raiding", {"attacker": RAIDERS, "convoys": CONVOYS, "unrestricted_submarine_warfare": True})
    for points in (0, 2, 4):
        assert distribution.probability("raid", merchant_ship_points=points) == Fraction(1, 3)


def test_commerce_raiding_plus_d(gw):
    # row 1, column 3: 0+D
    play = raid(gw, 1, convoy_tactic=True, transport_flotilla_in_area=True)
    assert play.outcome.get("attacking_unit_eliminated") and play.outcome.get("transport_flotilla_eliminated")
    play = raid(gw, 1, convoy_tactic=False, transport_flotilla_in_area=True)
    assert not play.outcome.get("attacking_unit_eliminated") and play.outcome.get("transport_flotilla_eliminated")
    play = raid(gw, 1, convoy_tactic=True)
    assert play.outcome.get("attacking_unit_eliminated") and not play.outcome.get("transport_flotilla_eliminated")
    # no convoy units in the box: no attacking unit lost; column 8 - 0 = 8, row 1: 2+D
    play = raid(gw, 1, convoys=[], convoy_tactic=True)
    assert not play.outcome.get("attacking_unit_eliminated") and play.outcome.get("merchant_ship_points") == 2
    # other rows have no +D
    assert not raid(gw, 2, convoy_tactic=True, transport_flotilla_in_area=True).outcome.get("transport_flotilla_eliminated")


def test_commerce_raiding_flotilla_variant(gw, tmp_path):
    strict = load_ruleset(variant(tmp_path, "  constants:\n    flotilla_loss_needs_convoy_tactic: {value: true}\n"))
    inputs = {"attacker": RAIDERS, "convoys": CONVOYS, "transport_flotilla_in_area": True}
    assert not resolve(strict, "commerce_raiding", {**inputs, "convoy_tactic": False}, dice=[1]).outcome.get("transport_flotilla_eliminated")
    assert resolve(strict, "commerce_raiding", {**inputs, "convoy_tactic": True}, dice=[1]).outcome.get("transport_flotilla_eliminated")


def test_commerce_raiding_plus_a_needs_a_convoying_unit(gw):
    assert not raid(gw, 6, convoys=[]).outcome.get("convoy_unit_eliminated")  # 8: row 6 4+A, nobody to eliminate
    assert raid(gw, 6, convoys=[]).outcome.get("merchant_ship_points") == 4


def test_commerce_raiding_edges(gw):
    # 1 - 10 = -9: the 1(-) column, row 5: 1
    play = raid(gw, 5, raiders=[unit("Ottoman", "CA", 1, 1)], convoys=[unit("US", "ESC", 10, 1)])
    assert lookups(play)[0]["column"] == "1(-)" and play.outcome.get("merchant_ship_points") == 1
    # 45 - 0: the 31+ column, row 6: 10+A, doubled 20
    big = [unit("German", "BC", 1, 15), unit("Austro-Hungarian", "BB", 1, 30)]
    play = raid(gw, 6, raiders=big, convoys=[], unrestricted_submarine_warfare=True)
    assert lookups(play)[0]["column"] == "31+" and play.outcome.get("merchant_ship_points") == 20


def test_commerce_raiding_sides(gw):
    with pytest.raises(RuleViolation, match="Central Power"):
        raid(gw, 3, raiders=[unit("British", "SS", 1, 4)])
    with pytest.raises(RuleViolation, match="Allied convoys"):
        raid(gw, 3, convoys=[unit("German", "ESC", 1, 1)])
    with pytest.raises(RuleViolation, match="at least one raiding unit"):
        raid(gw, 3, raiders=[])


# ---- merchant shipping ---------------------------------------------------------------


def test_merchant_shipping(gw):
    play = resolve(gw, "merchant_shipping", {"merchant_shipping_level": 20}, dice=[4])
    assert play.outcome.fields_dict() == {"allied_morale_loss": 10, "industrial_collapse": True}  # SS/I
    play = resolve(gw, "merchant_shipping", {"merchant_shipping_level": 41}, dice=[6])
    assert play.outcome.fields_dict() == {"allied_morale_loss": 5, "industrial_collapse": True}  # S/I
    play = resolve(gw, "merchant_shipping", {"merchant_shipping_level": 61}, dice=[5])
    assert play.outcome.fields_dict() == {"allied_morale_loss": 5, "industrial_collapse": False}  # S
    # 0-20: -, S, S, SS/I, SS/I, SS/I
    distribution = odds(gw, "merchant_shipping", {"merchant_shipping_level": 0})
    assert distribution.probability("shipping", allied_morale_loss=0) == SIXTH
    assert distribution.probability("shipping", allied_morale_loss=5, industrial_collapse=False) == Fraction(1, 3)
    assert distribution.probability("shipping", allied_morale_loss=10, industrial_collapse=True) == Fraction(1, 2)
    # 81-100+ and beyond: always no effect
    assert odds(gw, "merchant_shipping", {"merchant_shipping_level": 140}).probability("shipping", allied_morale_loss=0) == 1
    with pytest.raises(UsageError, match="at least 0"):
        odds(gw, "merchant_shipping", {"merchant_shipping_level": -1})


# ---- mobilization point loss ---------------------------------------------------------


def escorts(*strengths: int, nation: str = "British") -> list:
    kinds = ["CA", "ESC", "SS"]
    return [unit(nation, kinds[i % 3], 1, s) for i, s in enumerate(strengths)]


@pytest.mark.parametrize(
    "maintaining, enemy, die, column, points, ge",
    [
        (escorts(2), escorts(6, nation="German"), 6, "less than -3", 5, False),        # 2 - 6 = -4
        (escorts(2), escorts(6, nation="German"), 1, "less than -3", 2, True),         # 2 + GE
        (escorts(3), escorts(6, nation="German"), 6, "-3 to +3", 4, True),            # -3: 4 + GE
        (escorts(4, 5), escorts(6, nation="German"), 6, "-3 to +3", 4, True),         # +3
        (escorts(4, 6), escorts(6, nation="German"), 6, "more than +3", 3, True),     # +4: 3 + GE
        (escorts(4, 6), escorts(6, nation="German"), 2, "more than +3", 1, False),
        # battleships do not count: 2 - 6 = -4
        (escorts(2) + [unit("British", "BB", 1, 50)], escorts(6, nation="German"), 4, "less than -3", 4, False),
        # no CA, ESC or SS on the transporting side: no defenders, 5 on any roll
        ([unit("British", "BB", 1, 50)], escorts(1, nation="German"), 1, "no defenders", 5, False),
        ([], escorts(1, nation="German"), 3, "no defenders", 5, False),
        # none on the enemy side: no attackers, 0
        (escorts(1), [unit("German", "BC", 1, 40)], 6, "no attackers", 0, False),
        # none on either side: the constant's column (no attackers)
        ([], [], 6, "no attackers", 0, False),
    ],
)
def test_mobilization_loss(gw, maintaining, enemy, die, column, points, ge):
    play = resolve(gw, "mobilization_loss", {"maintaining": maintaining, "enemy": enemy}, dice=[die])
    assert lookups(play)[0]["column"] == column
    assert play.outcome.get("points") == points and play.outcome.get("general_engagement") == ge
    assert play.outcome.get("general_engagement_max_units") == (10 if ge else 0)


def test_mobilization_loss_odds_and_variant(gw, tmp_path):
    # -3 to +3: 1+GE, 2, 2, 3, 3, 4+GE -> GE on 1 and 6: 1/3; 2 points 1/3; 3 points 1/3
    distribution = odds(gw, "mobilization_loss", {"maintaining": escorts(5), "enemy": escorts(5, nation="German")})
    assert distribution.probability("mobilization_points_lost", general_engagement=True) == Fraction(1, 3)
    assert distribution.probability("mobilization_points_lost", points=2) == Fraction(1, 3)
    assert distribution.probability("mobilization_points_lost", points=3) == Fraction(1, 3)
    other = load_ruleset(variant(tmp_path, '  constants:\n    mobilization_column_without_units: {value: "no defenders"}\n'))
    assert odds(other, "mobilization_loss", {"maintaining": [], "enemy": []}).probability("mobilization_points_lost", points=5) == 1


# ---- supply attrition ----------------------------------------------------------------


@pytest.mark.parametrize(
    "inputs, p_eliminated",
    [
        # Desert or Mountain: 1 – 3 in winter (3 of 6), 1 – 2 otherwise (2 of 6)
        ({"terrain": "desert", "season": "winter"}, Fraction(1, 2)),
        ({"terrain": "mountain", "season": "winter"}, Fraction(1, 2)),
        ({"terrain": "desert", "season": "summer"}, Fraction(1, 3)),
        ({"terrain": "mountain", "season": "autumn"}, Fraction(1, 3)),
        # Other: 1 – 2 in winter, 1 otherwise
        ({"terrain": "other", "season": "winter"}, Fraction(1, 3)),
        ({"terrain": "other", "season": "spring"}, SIXTH),
        # naval units: 1 – 2 in all seasons, whatever the terrain
        ({"unit_kind": "naval", "season": "summer"}, Fraction(1, 3)),
        ({"unit_kind": "naval", "season": "winter", "terrain": "desert"}, Fraction(1, 3)),
        # a naval unit cannot trace a LOC (land units only)
        ({"unit_kind": "naval", "season": "spring", "can_trace_loc": True}, Fraction(1, 3)),
        # on-map Uprising marker, off-map only exemptions on the map, a non-Japanese unit in China, Japanese elsewhere
        ({"unit_type": "uprising_marker", "season": "spring"}, SIXTH),
        ({"home_or_colony_with_mobilization": True, "naval_transported": True, "season": "spring"}, SIXTH),
        ({"location": "off_map_china", "season": "winter"}, Fraction(1, 3)),
        ({"nation": "Japanese", "location": "off_map_other", "season": "winter"}, Fraction(1, 3)),
        ({"nation": "Japanese", "location": "other_hex", "season": "winter"}, Fraction(1, 3)),
        # off-map exemptions are for land units only
        ({"unit_kind": "naval", "location": "off_map_other", "naval_transported": True, "season": "winter"}, Fraction(1, 3)),
    ],
)
def test_supply_attrition_odds(gw, inputs, p_eliminated):
    given = {"unit_kind": "land", "nation": "French", **inputs}
    distribution = odds(gw, "supply_attrition", given)
    assert distribution.probability("eliminated") == p_eliminated
    assert distribution.probability("survives") == 1 - p_eliminated


@pytest.mark.parametrize(
    "inputs, reason",
    [
        ({"can_trace_loc": True}, "traces a LOC"),
        ({"neutral": True}, "neutral unit"),
        ({"unit_type": "guerrilla"}, "guerrilla"),
        ({"unit_type": "fortification"}, "fortification"),
        ({"unit_type": "headquarters"}, "headquarters"),
        ({"unit_type": "headquarters", "location": "off_map_other"}, "headquarters"),  # "whether on-map or off"
        ({"neutral": True, "unit_kind": "naval"}, "neutral unit"),
        ({"location": "naval_base"}, "naval_base"),
        ({"location": "industrial_city"}, "industrial_city"),
        ({"location": "fortified_zone"}, "fortified_zone"),
        ({"location": "port"}, "port"),
        ({"location": "city"}, "city"),
        ({"location": "port", "unit_kind": "naval"}, "port"),
        ({"location": "off_map_other", "home_or_colony_with_mobilization": True}, "off-map home country or colony with a mobilization symbol"),
        ({"location": "off_map_siberia", "nation": "Russian", "home_or_colony_with_mobilization": True},
         "off-map home country or colony with a mobilization symbol"),
        ({"location": "off_map_other", "naval_transported": True}, "off-map, transported by naval transport units"),
        ({"location": "off_map_other", "unit_type": "uprising_marker"}, "off-map Uprising marker"),
        ({"location": "off_map_japan", "nation": "Japanese"}, "Japanese unit in Japan, China, Siberia or Pacific Ocean"),
        ({"location": "off_map_china", "nation": "Japanese"}, "Japanese unit in Japan, China, Siberia or Pacific Ocean"),
        ({"location": "off_map_siberia", "nation": "Japanese"}, "Japanese unit in Japan, China, Siberia or Pacific Ocean"),
        ({"location": "off_map_pacific_ocean", "nation": "Japanese", "unit_kind": "naval"},
         "Japanese unit in Japan, China, Siberia or Pacific Ocean"),
    ],
)
def test_supply_attrition_exemptions(gw, inputs, reason):
    given = {"unit_kind": "land", "nation": "French", "season": "winter", "terrain": "desert", **inputs}
    play = resolve(gw, "supply_attrition", given, dice=[])  # no die is rolled
    assert play.outcome.name == "exempt" and play.outcome.get("reason") == reason
    assert odds(gw, "supply_attrition", given).probability("exempt") == 1


def test_supply_attrition_scripted(gw):
    given = {"unit_kind": "land", "nation": "Italian", "season": "spring", "terrain": "other"}
    play = resolve(gw, "supply_attrition", given, dice=[1])
    assert play.outcome.name == "eliminated"
    assert lookups(play)[0] == {**lookups(play)[0], "row": "Other", "column": "in other seasons"}
    assert resolve(gw, "supply_attrition", given, dice=[2]).outcome.name == "survives"
    naval = resolve(gw, "supply_attrition", {"unit_kind": "naval", "nation": "British", "season": "summer"}, dice=[2])
    assert naval.outcome.name == "eliminated" and lookups(naval)[0]["table"] == "naval_attrition_table"


# ---- every procedure cites its rule; the command line -----------------------------------


def test_every_element_cites_a_rule(gw):
    assert all(t.rule.startswith("Seed 004") for t in gw.tables.values())
    assert all(m.rule and all(e.rule for e in m.entries) for m in gw.modifiers.values())
    assert all(c.rule for c in gw.constants.values())
    assert all(p.rule.startswith("Seed 004") for p in gw.procedures.values())
    assert set(gw.procedures) == {
        "interception", "naval_contact", "naval_combat", "refuse_combat", "bombardment",
        "commerce_raiding", "merchant_shipping", "mobilization_loss", "supply_attrition",
        "absorb_losses", "fire_on_fleet", "engagement", "mission",
    }


def test_cli_check_test_and_show():
    assert cli("check", "great_war")[0] == 0
    code, out, _ = cli("test", "great_war")
    assert code == 0 and "0 failed" in out
    code, out, _ = cli("show", "great_war", "commerce_raiding_table")
    assert code == 0
    assert "10+A" in out and "31+" in out and "1(-)" in out


def test_cli_run_with_trace():
    code, out, _ = cli(
        "run", "great_war", "interception", "--set", "mission=coastal_bombardment",
        "--set", "defender=[{nation: British, type: BB, contact: 3, combat: 9}]",
        "--set", "attacker=[{nation: German, type: SS, contact: 2, combat: 2}]",
        "--set", "defender_air_level=5", "--dice", "1,3", "--trace",
    )
    # -1 a), -1 b) (3 > 2), +1 c): net -1; 1 + 3 = 4, modified 3
    assert code == 0
    assert "net DRM -1" in out and "outcome: intercepted" in out


def test_cli_refusal_of_a_general_engagement_interception():
    code, _, err = cli(
        "run", "great_war", "interception", "--set", "mission=general_engagement",
        "--set", "defender=[{nation: British, type: BB, contact: 3, combat: 9}]",
        "--set", "attacker=[{nation: German, type: BB, contact: 2, combat: 9}]", "--dice", "1,1",
    )
    assert code == 1 and "rule violated" in err and "Coastal Bombardment, Commerce Raiding, or Re-basing" in err


def test_cli_odds_json_and_what_if():
    args = [
        "odds", "great_war", "interception", "--set", "mission=rebasing",
        "--set", "defender=[{nation: British, type: BB, contact: 2, combat: 9}]",
        "--set", "attacker=[{nation: German, type: BB, contact: 2, combat: 9}]",
    ]
    code, out, _ = cli(*args, "--json")
    assert code == 0
    data = json.loads(out)
    # no DRM: 3 of 36
    assert {o["name"]: o["probability"] for o in data["outcomes"]} == {"intercepted": "1/12", "not_intercepted": "11/12"}
    # threshold 4: 2d6 <= 4 in 6 of 36
    code, out, _ = cli(*args, "--what-if", "interception_threshold=4")
    assert code == 0 and "1/6" in out


def test_cli_bad_value_is_a_usage_error():
    code, _, err = cli("run", "great_war", "merchant_shipping", "--set", "merchant_shipping_level=lots", "--dice", "3")
    assert code == 2 and "merchant_shipping_level" in err


# ---- a whole engagement and the mission as played -------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
SITUATIONS = ROOT / "rulesdata" / "great_war_situations"


def ship(nation: str, kind: str, contact: int, combat: int, protection: int) -> dict:
    return {"nation": nation, "type": kind, "contact": contact, "combat": combat, "protection": protection}


FLEET = [ship("British", "BB", 2, 16, 8), ship("British", "CA", 2, 4, 2), ship("British", "ESC", 2, 2, 1), ship("British", "CA", 2, 4, 2)]


AT_MOST = "  constants:\n    losses_cover_the_result: {value: false}\n"


@pytest.mark.parametrize(
    "points, policy, lost, protection, left",
    [
        # least combat strength first: ESC 1, CA 2, CA 2 (2 left), the BB's 8 do not fit; the
        # remainder 2 eliminates the next in the owner's order, the BB: 1 + 2 + 2 + 8 = 13
        (7, "weakest_first", 4, 13, []),
        (9, "weakest_first", 4, 13, []),
        # most protection first: BB 8 (1 left), the CAs' 2 do not fit, ESC 1: nothing left over
        (9, "largest_first", 2, 9, ["CA", "CA"]),
        # as listed: BB 8 (1 left), CA no, ESC 1, CA no: nothing left over
        (9, "listed", 2, 9, ["CA", "CA"]),
        # most protection first, 3: the BB no, CA 2 (1 left), CA no, ESC 1: nothing left over
        (3, "largest_first", 2, 3, ["BB", "CA"]),
        # 1 as listed: the BB no, CA no, ESC 1: exact
        (1, "listed", 1, 1, ["BB", "CA", "CA"]),
        # 0: nothing, and no remainder
        (0, "weakest_first", 0, 0, ["BB", "CA", "ESC", "CA"]),
    ],
)
def test_the_owner_chooses_which_units_absorb_losses(gw, points, policy, lost, protection, left):
    outcome = resolve(gw, "absorb_losses", {"fleet": FLEET, "points": points, "policy": policy}, dice=[]).outcome
    assert (outcome.get("units_eliminated"), outcome.get("protection_eliminated")) == (lost, protection)
    assert [u.get("type") for u in outcome.get("fleet")] == left


@pytest.mark.parametrize(
    "points, policy, lost, protection, left",
    [
        # least combat strength first: ESC 1, CA 2, CA 2 (2 left), the BB's 8 do not fit: 5
        (7, "weakest_first", 3, 5, ["BB"]),
        (9, "weakest_first", 3, 5, ["BB"]),
        # most protection first: BB 8 (1 left), the CAs' 2 do not fit, ESC 1
        (9, "largest_first", 2, 9, ["CA", "CA"]),
        # 1 as listed, the BB first: BB no, CA no, ESC 1
        (1, "listed", 1, 1, ["BB", "CA", "CA"]),
    ],
)
def test_losses_at_most_the_result_variant(gw, tmp_path, points, policy, lost, protection, left):
    # The other reading (notes: "other reading"): the remainder is lost.
    at_most = load_ruleset(variant(tmp_path, AT_MOST))
    outcome = resolve(at_most, "absorb_losses", {"fleet": FLEET, "points": points, "policy": policy}, dice=[]).outcome
    assert (outcome.get("units_eliminated"), outcome.get("protection_eliminated")) == (lost, protection)
    assert [u.get("type") for u in outcome.get("fleet")] == left


def test_the_issue_case_a_6_against_a_6_factor_bc_and_an_escort(gw, tmp_path):
    # 6 factors against a BC (combat 12, protection 6) and an escort (combat 1, protection 1),
    # weakest first: the escort 1 (5 left), the BC's 6 do not fit.  At least the number: the
    # remainder 5 eliminates the BC, 7 factors.  At most: the escort alone, 1 factor.
    fleet = [ship("British", "BC", 2, 12, 6), ship("British", "ESC", 2, 1, 1)]
    outcome = resolve(gw, "absorb_losses", {"fleet": fleet, "points": 6}, dice=[]).outcome
    assert (outcome.get("units_eliminated"), outcome.get("protection_eliminated")) == (2, 7)
    at_most = load_ruleset(variant(tmp_path, AT_MOST))
    outcome = resolve(at_most, "absorb_losses", {"fleet": fleet, "points": 6}, dice=[]).outcome
    assert (outcome.get("units_eliminated"), outcome.get("protection_eliminated")) == (1, 1)


def test_odds_say_the_loss_rule_is_a_reading_and_name_the_other(gw):
    code, out, err = cli("odds", "great_war", "engagement", "--situation", str(SITUATIONS / "one_a_side.yaml"))
    assert code == 0, err
    joined = " ".join(out.split())
    assert "rests on the ruleset's readings" in joined
    assert "Losses: at least the Naval Combat Table's number, in whole units (other reading: --what-if losses_cover_the_result=false)" in joined


def test_engagement_refused_by_the_side_with_the_advantage(gw):
    # French against Italian: column 0 (N D C C C A); a 6 is A and the attacker refuses: no fire.
    inputs = {"attacker": [ship("French", "BB", 2, 10, 3)], "defender": [ship("Italian", "BB", 2, 10, 3)]}
    play = resolve(gw, "engagement", inputs, dice=[6], choices={"attacker_advantage": "refuse"})
    assert play.outcome.get("result") == "refused_by_attacker" and play.dice == (6,)
    assert play.outcome.get("attacker_units_lost") == 0 and play.outcome.get("defender_units_lost") == 0


def test_engagement_survivors_fire_back_with_what_is_left(gw):
    # Column 0, a 2 is D: the Italian BB (20: 16-30) fires first, a 1: 2 factors; the French
    # CA (combat 6, protection 2) goes first (weakest) and takes them all, no remainder.  The
    # French survivors total 12: column 6-15 (18 would have been 16-30), a 1: 0 factors.
    inputs = {"attacker": [ship("French", "BB", 2, 12, 6), ship("French", "CA", 1, 6, 2)],
              "defender": [ship("Italian", "BB", 2, 20, 8)], "report": "units"}
    play = resolve(gw, "engagement", inputs, dice=[2, 1, 1], trace=True)
    outcome = play.outcome
    assert (outcome.name, outcome.get("result")) == ("engaged", "defender_first")
    assert (outcome.get("attacker_units_lost"), outcome.get("defender_units_lost")) == (1, 0)
    assert [u.get("type") for u in outcome.get("attacker")] == ["BB"]
    assert [d["column"] for d in lookups(play) if d["table"] == "naval_combat_table"] == ["16-30", "6-15"]


def test_engagement_one_unit_a_side_by_hand(gw, tmp_path):
    # German BC (contact 3, combat 12) attacks a British BC (contact 2, combat 14), protection 6
    # each: differential +1, 2R all German, 1L all British: column +2, N D C A A A.
    # 12 and 14 both read column 6-15 (0, 1, 2, 4, 4, 6).
    # At least the number (default): any result but 0 eliminates the one unit: h = 5/6, miss 1/6.
    # British lost: C 1/6 * 5/6 + A 3/6 * 5/6 + D 1/6 * (1/6 * 5/6) = (30 + 90 + 5)/216 = 125/216.
    # German lost: C 1/6 * 5/6 + A 3/6 * (1/6 * 5/6) + D 1/6 * 5/6 = (30 + 15 + 30)/216 = 25/72.
    # Both lost: only in C, 1/6 * 5/6 * 5/6 = 25/216.
    situation = yaml.safe_load((SITUATIONS / "one_a_side.yaml").read_text(encoding="utf-8"))
    dist = odds(gw, "engagement", situation)
    assert dist.probability("engagement_over", defender_units_lost=1) == Fraction(125, 216)
    assert dist.probability("engagement_over", attacker_units_lost=1) == Fraction(25, 72)
    assert dist.probability("engagement_over", attacker_units_lost=1, defender_units_lost=1) == Fraction(25, 216)
    assert dist.probability("engagement_over", result="no_contact") == SIXTH
    assert dist.truncated == 0
    # At most the number (the variant): only a 6 (6 factors) eliminates: h = 1/6, miss 5/6.
    # British lost: C 1/6 * 1/6 + A 3/6 * 1/6 + D 1/6 * (5/6 * 1/6) = (6 + 18 + 5)/216 = 29/216.
    # German lost: C 1/36 + A 3/6 * (5/6 * 1/6) + D 1/6 * 1/6 = (2 + 5 + 2)/72 = 1/8.
    # Both lost: only in C, 1/6 * 1/36 = 1/216.
    dist = odds(load_ruleset(variant(tmp_path, AT_MOST)), "engagement", situation)
    assert dist.probability("engagement_over", defender_units_lost=1) == Fraction(29, 216)
    assert dist.probability("engagement_over", attacker_units_lost=1) == Fraction(1, 8)
    assert dist.probability("engagement_over", attacker_units_lost=1, defender_units_lost=1) == Fraction(1, 216)


def test_engagement_four_a_side_sums_to_one(gw):
    # four_a_side: differential +1, 2R German, 1R coastal, 1L British: +3(+), N C A A A A.
    situation = yaml.safe_load((SITUATIONS / "four_a_side.yaml").read_text(encoding="utf-8"))
    names = {spec.name for spec in gw.compiled["engagement"].inputs}
    dist = odds(gw, "engagement", {k: v for k, v in situation.items() if k in names})
    assert dist.probability("engagement_over", result="no_contact") == SIXTH
    assert dist.probability("engagement_over", result="simultaneous") == SIXTH
    assert dist.probability("engagement_over", result="attacker_first") == 4 * SIXTH
    assert sum(p for _, p in dist.outcomes) == 1


def test_engagement_needs_protection_factors(gw):
    with pytest.raises(RuleViolation, match="Target Protection Factors eliminated"):
        resolve(gw, "engagement", {"attacker": [unit("German", "BC", 3, 12)], "defender": [ship("British", "BC", 2, 14, 6)]}, dice=[])


def raid_situation(**changes) -> dict:
    data = yaml.safe_load((SITUATIONS / "commerce_raid.yaml").read_text(encoding="utf-8"))
    return {**data, **changes}


# commerce_raid: interception DRMs -1 b) (British 2, 2 above the lowest German 1) and +1 c)
# (SS only): net 0, so 1 + 1 = 2 intercepts.  Contact: 1 - 2 = -1, 2R German, 1L British:
# column 0 (N D C C C A).  Raiders' combat 4 + 4 + 3 = 11 against convoy contact 2 + 2 = 4:
# column 7.  USW doubles the points.
@pytest.mark.parametrize(
    "changes, dice, choices, name, fields",
    [
        # no intercepting fleet: straight to the raid; row 3, column 7: 2, doubled 4
        ({"defender": []}, [3], {}, "raided", {"intercepted": False, "engagement": "not_intercepted", "merchant_ship_points": 4}),
        # not intercepted (6 + 6 = 12): the raid; row 2, column 7: 2, doubled 4
        ({}, [6, 6, 2], {}, "raided", {"intercepted": False, "merchant_ship_points": 4}),
        # intercepted; a 6 is A and the raider refuses: it withdraws, no raid
        ({}, [1, 1, 6], {"attacker_advantage": "refuse"}, "mission_abandoned", {"engagement": "refused_by_attacker"}),
        # intercepted; a 2 is D and the British refuse: the raid goes ahead (row 3: 2, doubled 4)
        ({}, [1, 1, 2, 3], {"defender_advantage": "refuse"}, "raided",
         {"intercepted": True, "engagement": "refused_by_defender", "merchant_ship_points": 4}),
        # intercepted; a 3 is C: the raiders (11: 6-15) roll 1, nothing; the British (6: 6-15)
        # roll 6: 6 factors, the three U-boats' 1 each: no raider left
        ({}, [1, 1, 3, 1, 6], {}, "mission_abandoned", {"engagement": "simultaneous", "attacker_units_lost": 3}),
        # intercepted; C: the raiders roll 6 (6 factors: the CA 2 and the ESC 1), the British 3
        # (6: 6-15, 2 factors: two U-boats, weakest first: the 3 and one 4); the last U-boat
        # (4 - 4 = column 1(-)) raids: row 5: 1, doubled 2
        ({}, [1, 1, 3, 6, 3, 5], {}, "raided",
         {"engagement": "simultaneous", "attacker_units_lost": 2, "defender_units_lost": 2, "merchant_ship_points": 2}),
    ],
)
def test_a_commerce_raid_as_played(gw, changes, dice, choices, name, fields):
    play = resolve(gw, "mission", raid_situation(**changes), dice=dice, choices=choices)
    assert play.outcome.name == name and play.unused_dice == 0
    for field, value in fields.items():
        assert play.outcome.get(field) == value, field


def test_a_bombardment_as_played_and_who_attacks(gw, tmp_path):
    situation = yaml.safe_load((SITUATIONS / "four_a_side.yaml").read_text(encoding="utf-8"))
    # Not intercepted (6 + 6): two battlecruiser squadrons bombard: column 2, a 4 is B: the
    # fortress is eliminated.
    play = resolve(gw, "mission", situation, dice=[6, 6, 4])
    assert play.outcome.name == "bombarded" and play.outcome.get("fortress_eliminated") is True
    # Intercepted: +1 b) (every German above the lowest British, 1): 1 + 1 + 1 = 3.  Contact row
    # 1 is N everywhere; the column shows who attacks.  The raider attacking: +1, 2R German, 1R
    # coastal, 1L British: +3(+).  The interceptor attacking (the variant): 2 - 3 = -1, 1R
    # British, 1R coastal, 1L German: +0.
    play = resolve(gw, "mission", situation, dice=[1, 1, 1, 4], trace=True)
    assert play.outcome.get("engagement") == "no_contact"
    assert [d["column"] for d in lookups(play) if d["table"] == "naval_contact_table"] == ["+3(+)"]
    swapped = load_ruleset(variant(tmp_path, "  constants:\n    interceptor_is_attacker: {value: true}\n"))
    play = resolve(swapped, "mission", situation, dice=[1, 1, 1, 4], trace=True)
    assert [d["column"] for d in lookups(play) if d["table"] == "naval_contact_table"] == ["0"]


def steps_of(situation: dict) -> list[str]:
    mission_step = "commerce_raiding" if situation["mission"] == "commerce_raiding" else "bombardment"
    return ["interception", "naval_contact", "engagement", mission_step, "refuse_combat", "mission"]


@pytest.mark.parametrize("situation", ["commerce_raid.yaml", "four_a_side.yaml"])
def test_one_situation_runs_through_every_step_of_a_mission(gw, situation):
    # The same file for every step: each step takes the keys it has inputs for, under the same
    # names (attacker, defender, ...); together they use every key.
    path = SITUATIONS / situation
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    used = set()
    for step in steps_of(data):
        names = {spec.name for spec in gw.compiled[step].inputs}
        given = {k: v for k, v in data.items() if k in names}
        used |= set(given)
        resolve(gw, step, given, seed=3)
        code, out, err = cli("run", "great_war", step, "--situation", str(path), "--seed", "3")
        assert code == 0, (step, err)
        assert "outcome:" in out
        assert all("warning:" in line for line in err.splitlines() if line.strip() and not line.startswith(" "))
    assert used == set(data)


def installed_wartable() -> Path:
    script = Path(sys.executable).parent / "wartable"
    if not script.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the console script {script} is not installed (CI is set)")
        pytest.skip(f"the console script {script} is not installed (pip install . to test it)")
    return script


def test_installed_command_prints_an_engagement_and_a_battle():
    for argv, expected in [
        (["run", "great_war", "engagement", "--situation", "rulesdata/great_war_situations/four_a_side.yaml", "--seed", "4"],
         ["resolve naval_contact", "outcome: engagement_over("]),
        (["run", "eia", "battle", "--situation", "rulesdata/eia_situations/three_a_side.yaml", "--seed", "3"],
         ["resolve battle_round", "The attacker's column acts.", "outcome: battle_over("]),
    ]:
        result = subprocess.run([str(installed_wartable()), *argv], check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        for text in expected:
            assert text in result.stdout, text
