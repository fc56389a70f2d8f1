"""The inputs above a result, as a player reads them (interpreter/brief_values.py, render._show_runs).

Records leave out the fields at their declared defaults; a run of equal records is written once
with its count; ``--json`` keeps every field.  Expected lines are read off the situation files and
the types' defaults by hand (eia's ``ship``: carrying no, value 0, status fit, fired no).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter import load_ruleset
from interpreter.brief_values import inputs_without_defaults, without_defaults
from interpreter.cli import main
from interpreter.values import Record

ROOT = Path(__file__).resolve().parent.parent
FIFTEEN = str(ROOT / "rulesdata" / "eia_situations" / "fifteen_a_side.yaml")


def test_a_fleet_reads_as_runs_of_ships_without_their_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "eia", "battle", "--situation", FIFTEEN, "--n", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    # fifteen_a_side.yaml, attacker: three {kind: heavy, value: 3}, nine {kind: warship, value: 2},
    # three {kind: frigate, value: 1} (15 lines, in that order)
    assert "attacker = [3 × {kind: heavy, value: 3}, 9 × {kind: warship, value: 2}, 3 × {kind: frigate, value: 1}]" in out
    # numbers are not runs: [2, 2, 1, 1] stays as written, not "[2 × 2, 2 × 1]"
    assert "defender_admirals = [2, 2, 1, 1]" in out
    # the situation has 15 + 15 ships; each was a line of ~65 characters wrapped at 200: the heading now fits in a few
    heading = out.split("\n")[: next(i for i, line in enumerate(out.split("\n")) if line.startswith("note:"))]
    assert len(heading) <= 4 and "carrying: no" not in out.split("note:")[0]


def test_json_keeps_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "eia", "battle", "--situation", FIFTEEN, "--n", "20", "--seed", "1", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    # the first attacker ship in full: the situation's {kind: heavy, value: 3} and the defaults
    assert document["inputs"]["attacker"][0] == {"kind": "heavy", "carrying": False, "value": 3, "status": "fit", "fired": False}
    assert len(document["inputs"]["attacker"]) == 15


def test_odds_heading_of_two_equal_units(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "naval_mines", "cross_minefield", "--set", "mines=1", "--set", "units=[{kind: destroyer}, {kind: destroyer}]"]) == 0
    # naval_unit's in_naval_battle and mission_done_this_turn default to no: left out
    assert "units = [2 × {kind: destroyer}]" in capsys.readouterr().out


def test_without_defaults_leaves_out_defaults_only_of_declared_record_types() -> None:
    types = load_ruleset("eia").types
    fit = Record("ship", {"kind": "warship", "carrying": False, "value": 0, "status": "fit", "fired": False})
    sunk = Record("ship", {"kind": "warship", "carrying": False, "value": 0, "status": "sunk", "fired": False})
    # a list of columns: each ship without its defaults, the sunk one keeping its status
    assert without_defaults(((fit, sunk),), types) == [[{"kind": "warship"}, {"kind": "warship", "status": "sunk"}]]
    # a table's cell is no declared type: every field stays
    cell = Record("cell of t", {"hits": 0})
    assert inputs_without_defaults({"cell": cell, "n": 3}, types) == {"cell": {"hits": 0}, "n": 3}


def test_outcomes_holding_ships_are_listed_briefly(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "eia", "volley", "--set", "shooters=[{kind: heavy}, {kind: warship}]", "--set", "targets=[{kind: frigate}]"]) == 0
    out = capsys.readouterr().out
    # The heavy ship fires at the frigate at +2 (heavy +1, at a frigate +1): 4-6 sink (1/2), 3 damages (1/6), 1-2 miss (1/3).
    # Sunk: the warship finds no enemy ship afloat and keeps its fire (fired: no).  Otherwise it fires at +1:
    # 5-6 sink (1/3), 4 damages (1/6; a damaged frigate is captured), 1-3 miss (1/2).
    #   sunk by the warship: 1/6 x 1/3 + 1/3 x 1/3 = 1/6;  captured: 1/6 x 1/6 = 1/36
    #   damaged: 1/6 x 1/2 + 1/3 x 1/6 = 5/36;  unharmed: 1/3 x 1/2 = 1/6
    # Records as briefly as the inputs, so the five outcomes fit a screen and are listed, not summarised.
    both = "shooters = [{kind: heavy, fired: yes}, {kind: warship, fired: yes}])"
    for line in (
        "volley(targets = [{kind: frigate, status: sunk}], shooters = [{kind: heavy, fired: yes}, {kind: warship}]) 1/2",
        f"volley(targets = [{{kind: frigate, status: sunk}}], {both} 1/6",
        f"volley(targets = [{{kind: frigate}}], {both} 1/6",
        f"volley(targets = [{{kind: frigate, status: damaged}}], {both} 5/36",
        f"volley(targets = [{{kind: frigate, status: captured}}], {both} 1/36",
    ):
        assert line in " ".join(out.split())  # the spaces between columns collapsed to one
    assert "a summary of" not in out
