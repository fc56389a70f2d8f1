"""Results that rest on illustrative tables (`example: true`) say so, in text and JSON."""

from __future__ import annotations

import io
import json

from conftest import procedure

from interpreter.callgraph import illustrative_tables
from interpreter.cli import main

TABLES = """\
tables:
  made_up:
    title: "Made up"
    rule: "r"
    example: true
    rows: {name: "Die", dice: 1d6}
    edges: {rows: error}
    cells: {"1-3": 0, "4-6": 1}
  real:
    title: "Real"
    rule: "r"
    rows: {name: "Die", dice: 1d6}
    edges: {rows: error}
    cells: {"1-6": 1}
"""


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    return main(argv, stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_illustrative_tables_are_found_through_calls(make_ruleset):
    ruleset = make_ruleset({
        "q": procedure("let d = 1d6\noutcome r(x = lookup made_up(row = d))"),
        "p": procedure("let r = resolve q()\nlet d = 1d6\noutcome v(x = r.x + lookup real(row = d))"),
        "plain": procedure("let d = 1d6\noutcome v(x = lookup real(row = d))"),
    }, extra=TABLES)
    assert illustrative_tables(ruleset, "p") == ("made_up",)
    assert illustrative_tables(ruleset, "plain") == ()


def test_odds_say_they_rest_on_an_illustrative_table():
    # the seed names the Naval Bounce but gives no table: the bundled one is illustrative
    code, out, err = run(["odds", "surface_combat", "naval_bounce"])
    assert code == 0, err
    assert "depends on ILLUSTRATIVE tables, not the game's own (example: true): naval_bounce_table" in out
    code, out, err = run(["odds", "surface_combat", "naval_bounce", "--json"])
    assert json.loads(out)["illustrative_tables"] == ["naval_bounce_table"]
    code, out, err = run(["run", "surface_combat", "naval_bounce", "--seed", "3", "--json"])
    assert json.loads(out)["illustrative_tables"] == ["naval_bounce_table"]


def test_odds_of_the_games_own_tables_say_nothing():
    code, out, _ = run(["odds", "eto", "interception", "--set", "zones=7", "--json"])
    assert code == 0 and json.loads(out)["illustrative_tables"] == []
    code, out, _ = run(["odds", "eto", "interception", "--set", "zones=7"])
    assert "ILLUSTRATIVE" not in out
