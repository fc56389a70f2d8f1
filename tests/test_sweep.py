"""``wartable sweep``: the exact odds at every combination of some inputs, as a terminal table, CSV,
JSON or markdown.  Every cell is checked against ``odds`` for the same inputs, and the ETO cells
against the seed's table by hand:

    Naval Interception Table: 1-2 Automatic | 3-4 2,3,4,5,6 | 5-6 3,4,5,6 | 7-8 4,5,6 | 9-10 5,6 | 11+ 6
    so P(intercepted) by zones: 1-2 -> 1; 3-4 -> 5/6; 5-6 -> 4/6 = 2/3; 7-8 -> 3/6 = 1/2; 9-10 -> 2/6 = 1/3; 11+ -> 1/6
    from the U.S. box the row is always 11+: 1/6.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
from fractions import Fraction

import pytest

from interpreter import load_ruleset, odds
from interpreter.cli import main

BY_ZONES = {1: Fraction(1), 2: Fraction(1), 3: Fraction(5, 6), 4: Fraction(5, 6), 5: Fraction(2, 3), 6: Fraction(2, 3),
            7: Fraction(1, 2), 8: Fraction(1, 2), 9: Fraction(1, 3), 10: Fraction(1, 3), 11: Fraction(1, 6), 12: Fraction(1, 6)}
UNIT = "{nation: Other, type: BB, contact: 2, combat: 20}"


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def sweep_json(argv: list[str]) -> dict:
    code, out, err = run(["sweep"] + argv + ["--json"])
    assert code == 0, err
    return json.loads(out)


def test_zones_by_hand_and_by_odds():
    document = sweep_json(["eto", "interception", "--over", "zones=1..12"])
    eto = load_ruleset("eto")
    assert [row["at"]["zones"] for row in document["rows"]] == list(range(1, 13))
    assert [c["label"] for c in document["columns"]] == ["intercepted", "not_intercepted"]
    for row in document["rows"]:
        zones = row["at"]["zones"]
        found = {o["values"]["outcome"]: Fraction(o["probability"]) for o in row["outcomes"]}
        assert found["intercepted"] == BY_ZONES[zones]
        assert found["not_intercepted"] == 1 - BY_ZONES[zones]
        assert {k: v for k, v in found.items() if v} == odds(eto, "interception", {"zones": zones}).by_name()


def test_two_dimensions_every_combination_matches_odds():
    document = sweep_json(["eto", "interception", "--over", "zones=5..8", "--over", "from_us_box=false,true"])
    eto = load_ruleset("eto")
    # rows in order: the first dimension slowest
    assert [(r["at"]["zones"], r["at"]["from_us_box"]) for r in document["rows"]] == [
        (5, False), (5, True), (6, False), (6, True), (7, False), (7, True), (8, False), (8, True)
    ]
    for row in document["rows"]:
        inputs = {"zones": row["at"]["zones"], "from_us_box": row["at"]["from_us_box"]}
        expected = BY_ZONES[11] if inputs["from_us_box"] else BY_ZONES[inputs["zones"]]
        exact = odds(eto, "interception", inputs).by_name()
        for outcome in row["outcomes"]:
            name = outcome["values"]["outcome"]
            assert Fraction(outcome["probability"]) == exact.get(name, Fraction(0))
        assert Fraction(row["outcomes"][0]["probability"]) == expected


def test_a_field_inside_an_input_and_a_choice():
    # great_war naval contact: the attacker's first unit's contact rating varies (the defender's is 2),
    # and the attacker's choice on an A result.
    argv = ["great_war", "naval_contact", "--set", f"attacker=[{UNIT}]", "--set", f"defender=[{UNIT}]",
            "--over", "attacker[1].contact=0..5", "--over", "attacker_advantage=fire_first,refuse"]
    document = sweep_json(argv)
    great_war = load_ruleset("great_war")
    assert len(document["rows"]) == 12
    for row in document["rows"]:
        unit = {"nation": "Other", "type": "BB", "contact": row["at"]["attacker[1].contact"], "combat": 20}
        defender = {"nation": "Other", "type": "BB", "contact": 2, "combat": 20}
        exact = odds(great_war, "naval_contact", {"attacker": [unit], "defender": [defender]},
                     choices={"attacker_advantage": row["at"]["attacker_advantage"]}).by_name()
        found = {o["values"]["outcome"]: Fraction(o["probability"]) for o in row["outcomes"]}
        assert {k: v for k, v in found.items() if v} == exact
    # Differential 0 (contact 2 against 2), column "0": N on 1; D on 2, 3... (see the table):
    # N 1, D 2, C 3, C 4, C 5, A 6 -> no_combat 1/6, defender first 1/6, simultaneous 1/2, attacker first 1/6
    row = next(r for r in document["rows"] if r["at"] == {"attacker[1].contact": 2, "attacker_advantage": "fire_first"})
    found = {o["values"]["outcome"]: o["probability"] for o in row["outcomes"]}
    assert (found["no_combat"], found["defender_fires_first"], found["simultaneous_combat"], found["attacker_fires_first"]) == ("1/6", "1/6", "1/2", "1/6")


def test_by_a_numeric_field_with_means():
    # great_war naval combat, strength 20 reads column 16-30: 2, 4, 4, 6, 8, 12 -> mean 36/6 = 6
    # strength 3 reads column 1-5: 0, 0, 1, 2, 2, 4 -> mean 9/6 = 3/2
    document = sweep_json(["great_war", "naval_combat", "--set", f"firing=[{UNIT}]", "--over", "firing[1].combat=3,20",
                           "--by", "protection_factors_eliminated"])
    assert [c["label"] for c in document["columns"]] == ["0", "1", "2", "4", "6", "8", "12"]
    weak, strong = document["rows"]
    assert [o["probability"] for o in weak["outcomes"]] == ["1/3", "1/6", "1/3", "1/6", "0/1", "0/1", "0/1"]
    assert [o["probability"] for o in strong["outcomes"]] == ["0/1", "0/1", "1/6", "1/3", "1/6", "1/6", "1/6"]
    assert (weak["means"]["protection_factors_eliminated"]["mean"], strong["means"]["protection_factors_eliminated"]["mean"]) == ("3/2", "6/1")


def test_csv_and_markdown_and_table():
    argv = ["sweep", "eto", "interception", "--over", "zones=6..7"]
    code, out, _ = run(argv + ["--format", "csv", "--exact"])
    assert code == 0
    assert list(csv.reader(io.StringIO(out))) == [
        ["zones", "intercepted", "not_intercepted"],
        ["6", "2/3", "1/3"], ["7", "1/2", "1/2"],
    ]
    code, out, _ = run(argv + ["--format", "csv"])  # decimals by default: repr of the nearest float
    assert code == 0
    assert list(csv.reader(io.StringIO(out))) == [
        ["zones", "intercepted", "not_intercepted"],
        ["6", "0.6666666666666666", "0.3333333333333333"], ["7", "0.5", "0.5"],
    ]
    code, out, _ = run(argv + ["--format", "markdown", "--digits", "3"])
    assert out.splitlines() == [
        "| zones | intercepted | not_intercepted |",
        "|---|---:|---:|",
        "| 6 | 0.667 | 0.333 |",
        "| 7 | 0.500 | 0.500 |",
    ]
    code, out, _ = run(argv)
    lines = out.splitlines()
    assert lines[0] == "eto interception: exact odds by zones"
    assert lines[-2].split() == ["6", "2/3", "1/3"] and lines[-1].split() == ["7", "1/2", "1/2"]


# "wartable sweep eto interception --over " is 39 characters: the argument starts in column 40
@pytest.mark.parametrize("over, column, message", [
    pytest.param("zonez=1..3", 40, "--over: procedure 'interception' has no input or choice 'zonez'", id="unknown-input"),
    pytest.param("zones=3..1", 46, "--over: the range 3..1 runs backwards", id="backwards"),
    pytest.param("zones=0..3", 46, "--over: input 'zones' must be at least 1, not 0", id="below-minimum"),
    pytest.param("zones=1,x", 48, "--over: expected a whole number, not 'x'", id="not-a-number"),
    pytest.param("zones", 40, "--over: give NAME=A..B or NAME=V1,V2,...", id="no-values"),
    # shell-quoted (brackets): the quote is column 40, the argument starts in 41, its [ in 46
    pytest.param("zones[1]=1..2", 46, "--over: zones[1]: [1] needs a list, and this is int", id="index-into-a-number"),
    # a value twice made the same row twice, silently: "zones=1,2," is 10 characters, the second 2 is in 40 + 10;
    # "from_us_box=yes," is 16 (40 + 16)
    pytest.param("zones=1,2,2", 50, "--over: 2 is listed twice", id="value-twice"),
    # shell-quoted (spaces): the argument starts in 41, "zones=1, 2, " is 12 characters
    pytest.param("zones=1, 2, 02", 53, "--over: 02 is listed twice", id="value-twice-written-otherwise"),
    pytest.param("from_us_box=yes,true", 56, "--over: true is listed twice", id="yes-and-true"),
])
def test_bad_over_is_positioned(over, column, message):
    argv = ["sweep", "eto", "interception", "--over", over]
    code, out, err = run(argv)
    assert (code, out) == (2, ""), err
    lines = err.splitlines()
    assert lines[0].startswith(f"<command line>:1:{column}: {message}"), err
    assert lines[1] == "    wartable " + " ".join(shlex.quote(arg) for arg in argv)
    assert lines[2] == "    " + " " * (column - 1) + "^"
    assert "Traceback" not in err


def test_a_choice_option_swept_twice_is_refused(tmp_path):
    # the same option twice gave two identical rows; "wartable sweep eto interception --set zones=3 --over " is 53
    # characters: mission=shipping,change_base, is 29 more, so the second shipping starts in column 83
    code, out, err = run(["sweep", "eto", "interception", "--set", "zones=3", "--over", "mission=shipping,change_base,shipping"])
    assert (code, out) == (2, ""), err
    assert err.startswith("<command line>:1:83: --over: shipping is listed twice"), err


def test_sweep_needs_an_over():
    code, _, err = run(["sweep", "eto", "interception"])
    assert code == 2
    assert "sweep needs at least one --over" in err


def test_a_swept_input_need_not_be_set():
    # zones is required, but the sweep gives it
    code, _, err = run(["sweep", "eto", "interception", "--over", "zones=1,2"])
    assert code == 0, err


def test_sweep_api_matches_odds():
    from interpreter.sweep import parse_dimension, run_sweep

    eto = load_ruleset("eto")
    result = run_sweep(eto, "interception", [parse_dimension(eto, "interception", "zones=2..4")])
    assert [cell.at for cell in result.cells] == [(2,), (3,), (4,)]
    assert [cell.distribution.probability("intercepted") for cell in result.cells] == [BY_ZONES[2], BY_ZONES[3], BY_ZONES[4]]


def test_outcome_from_names_take_their_place_in_the_order(tmp_path):
    """`outcome from` names (the table's cells, in the order the table declares them: DE, DR, EX) stand where the
    statement is written, before the `outcome miss` written after it; they used to sort after every written name.
    By hand, with d = 1d6: 1 -> DE, 2 -> DR, 3-4 -> EX (rows clamp), 5-6 -> miss: 1/6, 1/6, 2/6, 2/6."""
    from conftest import procedure, ruleset_text

    from interpreter.sweep import parse_dimension, run_sweep

    table = """\
    tables:
      crt:
        title: "CRT"
        rule: "r"
        rows: {name: "Die roll"}
        edges: {rows: clamp}
        cells:
          "1": DE
          "2": DR
          "3": EX
    """
    body = """
    let d = 1d6 + bonus
    if d <= 4 then
      outcome from lookup crt(row = d)
    end
    outcome miss()
    """
    path = tmp_path / "crt.yaml"
    path.write_text(ruleset_text({"attack": procedure(body, inputs="{bonus: {type: int, min: 0, max: 1}}")}, extra=table), encoding="utf-8")
    ruleset = load_ruleset(path)
    result = run_sweep(ruleset, "attack", [parse_dimension(ruleset, "attack", "bonus=0")])
    assert result.keys() == [("DE",), ("DR",), ("EX",), ("miss",)]
    assert [result.cells[0].distribution.probability(name) for name in ("DE", "DR", "EX", "miss")] == [
        Fraction(1, 6), Fraction(1, 6), Fraction(1, 3), Fraction(1, 3)]
