"""Tests for variants: ``extends:`` with ``override:`` / ``add:`` / ``remove:``.

Covers interpreter/merge.py (the merge, by name, keeping every position),
interpreter/loader.py (chains, cycles, relative and bundled bases),
interpreter/diff.py (data_changes, odds_changes, what_if) and the CLI
commands built on them (show/run --provenance, diff, odds --what-if).

Expected values are derived by hand; the counting is written next to each
one.  Positions are 1-based ``line:column``; every variant written here
starts with the same six header lines (see ``variant``), so its body starts
on line 7.  Tests run inside tmp_path (``ws`` fixture), so files are named
as typed: ``base.yaml``, ``v.yaml``.
"""

from __future__ import annotations

import io
import json
import re
from fractions import Fraction

import pytest

from interpreter import RulesetError, load_ruleset, odds, resolve
from interpreter.cli import main
from interpreter.diff import WhatIfError, data_changes, what_if
from interpreter.examples import run_examples
from interpreter.resources import data_dir

# --- a small base ruleset with a 2-D table, a DRM list and a constant ------------------
#
# 2d6 probabilities used below (ways out of 36): totals 2..12 come up
# 1,2,3,4,5,6,5,4,3,2,1 ways, so
#   P(2d6 <= 5) = 1+2+3+4       = 10/36 = 5/18
#   P(2d6 <= 6) = 10+5          = 15/36 = 5/12
#   P(2d6 <= 7) = 15+6          = 21/36 = 7/12
#   P(2d6 <= 8) = 21+5          = 26/36 = 13/18
# attack hits when 2d6 + DRMs <= threshold (7): with no DRM 7/12; with +1
# it needs 2d6 <= 6: 5/12; with -1, 2d6 <= 8: 13/18.

BASE = """\
wartable: 1
name: skirmish
title: "Skirmish"
source: "wartable test fixture"
version: "1"
constants:
  threshold: {value: 7, rule: "Hit on 7 or less"}
tables:
  combat:
    title: "Combat Results Table"
    rule: "CRT"
    rows: {name: "Die roll", dice: 1d6}
    columns:
      name: "Odds"
      entries: ["-1", "0", "+1"]
    edges: {rows: error, columns: clamp}
    cells:
      "1-2": [AR, EX, DR]
      "3-4": [AE, AR, EX]
      "5-6": [AE, AE, AR]
  reach:
    title: "Reach Table"
    rule: "Reach"
    rows: {name: "Hexes"}
    edges: {rows: error}
    cells:
      "1-2": 3
      "3-4": 2
      "5+": 1
modifiers:
  drm:
    kind: drm
    rule: "DRMs"
    entries:
      veteran: {label: "Veterans", value: -1, when: "veteran", rule: "DRM a"}
      rough: {label: "Rough terrain", value: 1, when: "terrain == \\"rough\\"", rule: "DRM b"}
procedures:
  attack:
    title: "Attack roll"
    rule: "Attack"
    inputs:
      veteran: {type: bool, default: false}
      terrain: {type: enum, values: [clear, rough], default: clear}
    body: |
      let roll = 2d6 + modifiers drm
      if roll <= threshold then
        outcome hit
      else
        outcome miss
      end
  melee:
    title: "Melee"
    rule: "CRT"
    inputs:
      odds: {type: int}
    body: |
      let die = 1d6
      let cell = lookup combat(row = die, column = odds)
      outcome result(code = cell)
examples:
  - name: "Low roll hits"
    procedure: attack
    dice: [3, 4]
    expect: {outcome: hit}
  - name: "Attack odds"
    procedure: attack
    odds:
      - {outcome: hit, probability: "7/12"}
"""
# Lines of BASE referred to below (count from "wartable: 1" = line 1):
#   12  rows: {name: "Die roll", dice: 1d6}     -> "1d6" at column 36
#   18  "1-2": [AR, EX, DR]      19  "3-4": [AE, AR, EX]      20  "5-6": [AE, AE, AR]
#   27  "1-2": 3                 28  "3-4": 2                 29  "5+": 1
#   35  veteran: {...}           36  rough: {...}
#   61  - name: "Low roll hits"  64  expect: {outcome: hit}  ("hit" at column 23)
#   65  - name: "Attack odds"

HEADER = """\
wartable: 1
name: v
title: "V"
source: "wartable test variant"
version: "1"
extends: {extends}
"""  # six lines: a variant's body starts on line 7


def variant(body: str, extends: str = "base.yaml", name: str = "v") -> str:
    return HEADER.replace("{extends}", extends).replace("name: v", f"name: {name}") + body


@pytest.fixture
def ws(tmp_path, monkeypatch):
    """A workspace: cwd = tmp_path holding base.yaml; returns a writer."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.yaml").write_text(BASE, encoding="utf-8")

    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return name

    return write


def only_error(path: str):
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    found = list(info.value.diagnostics)
    assert len(found) == 1, [d.format() for d in found]
    return found[0]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def p_hit(ruleset, **inputs) -> Fraction:
    return odds(ruleset, "attack", inputs).probability("hit")


def row_of(output: str, heading: str) -> list[str]:
    """The whitespace-split line of a rendered table that starts with ``heading``."""
    rows = [line.split() for line in output.splitlines() if line.split()[:1] == [heading]]
    assert len(rows) == 1, output
    return rows[0]


# ==== the base itself ====================================================================


def test_base_fixture_is_valid_and_has_the_hand_derived_odds(ws):
    base = load_ruleset("base.yaml")
    assert p_hit(base) == Fraction(7, 12)  # 21/36
    assert p_hit(base, veteran=True) == Fraction(13, 18)  # -1: 2d6 <= 8, 26/36
    assert p_hit(base, terrain="rough") == Fraction(5, 12)  # +1: 2d6 <= 6, 15/36
    assert all(r.passed for r in run_examples(base))


# ==== loading ============================================================================


def test_bundled_variant_loads():
    harder = load_ruleset("eto_one_more_pip")
    assert harder.name == "eto_one_more_pip"
    table = harder.tables["naval_interception"]
    # rows 1-2, 3-4, 5-6 from eto; 7-8, 9-10, 11+ from the variant
    assert [p[0] for p in table.printed] == ["Automatic", "2,3,4,5,6", "3,4,5,6", "5,6", "6", "-"]
    assert table.cells[3][0].get("succeeds_on") == (5, 6)
    assert table.cells[5][0].get("succeeds_on") == ()  # "-": no face intercepts
    # eto's 7 examples, minus 2 removed, plus the variant's 4
    assert len(harder.examples) == 7 - 2 + 4
    assert all(r.passed for r in run_examples(harder))


def test_override_a_single_row(ws):
    path = ws("v.yaml", variant(
        "override:\n"                 # 7
        "  tables:\n"                 # 8
        "    reach:\n"                # 9
        "      cells:\n"              # 10
        '        "5+": 0\n'           # 11
    ))
    table = load_ruleset(path).tables["reach"]
    assert [row[0] for row in table.cells] == [3, 2, 0]
    assert table.provenance == (("base.yaml:27",), ("base.yaml:28",), ("v.yaml:11",))


def test_override_a_single_cell_of_a_2d_table_by_column_heading(ws):
    path = ws("v.yaml", variant(
        "override:\n"                 # 7
        "  tables:\n"                 # 8
        "    combat:\n"               # 9
        "      cells:\n"              # 10
        '        "3-4": {"0": DR}\n'  # 11: column "0" is the middle one
    ))
    ruleset = load_ruleset(path)
    table = ruleset.tables["combat"]
    assert table.printed == (("AR", "EX", "DR"), ("AE", "DR", "EX"), ("AE", "AE", "AR"))
    # only the overridden cell comes from the variant
    assert table.provenance == (
        ("base.yaml:18", "base.yaml:18", "base.yaml:18"),
        ("base.yaml:19", "v.yaml:11", "base.yaml:19"),
        ("base.yaml:20", "base.yaml:20", "base.yaml:20"),
    )
    # column 0, die 1-2 / 3-4 / 5-6: EX, DR, AE -> each 2 faces of 6 = 1/3
    melee = odds(ruleset, "melee", {"odds": 0})
    assert melee.probability("result", code="DR") == Fraction(1, 3)
    assert melee.probability("result", code="AR") == 0
    base_melee = odds(load_ruleset("base.yaml"), "melee", {"odds": 0})
    assert base_melee.probability("result", code="AR") == Fraction(1, 3)
    assert data_changes(load_ruleset("base.yaml"), ruleset) == ["table combat[3-4, 0]: AR -> DR"]


def test_override_a_whole_row_of_a_2d_table_as_a_list(ws):
    path = ws("v.yaml", variant(
        "override:\n"                       # 7
        "  tables:\n"                       # 8
        "    combat:\n"                     # 9
        "      cells:\n"                    # 10
        '        "5-6": [DE, DE, DE]\n'     # 11
    ))
    table = load_ruleset(path).tables["combat"]
    assert table.printed[2] == ("DE", "DE", "DE")
    assert table.provenance[2] == ("v.yaml:11",) * 3
    assert table.provenance[1] == ("base.yaml:19",) * 3


def test_override_a_constant_keeps_its_rule(ws):
    path = ws("v.yaml", variant(
        "override:\n"                          # 7
        "  constants:\n"                       # 8
        "    threshold: {value: 8}\n"          # 9
    ))
    ruleset = load_ruleset(path)
    assert ruleset.constants["threshold"].value == 8
    assert ruleset.constants["threshold"].rule == "Hit on 7 or less"  # field-level merge
    assert p_hit(ruleset) == Fraction(13, 18)  # 2d6 <= 8: 26/36


def test_override_a_modifier_entry_value_keeps_label_rule_and_when(ws):
    path = ws("v.yaml", variant(
        "override:\n"                      # 7
        "  modifiers:\n"                   # 8
        "    drm:\n"                       # 9
        "      entries:\n"                 # 10
        "        rough: {value: 2}\n"      # 11
    ))
    ruleset = load_ruleset(path)
    entries = {e.name: e for e in ruleset.modifiers["drm"].entries}
    assert list(entries) == ["veteran", "rough"]
    rough = entries["rough"]
    assert (rough.value, rough.label, rough.rule) == (2, "Rough terrain", "DRM b")
    # the condition is still terrain == "rough": clear terrain is untouched ...
    assert p_hit(ruleset) == Fraction(7, 12)
    # ... and rough terrain now needs 2d6 + 2 <= 7, i.e. 2d6 <= 5: 10/36
    assert p_hit(ruleset, terrain="rough") == Fraction(5, 18)
    assert data_changes(load_ruleset("base.yaml"), ruleset) == ["modifier drm.rough: +1 -> +2 (Rough terrain)"]


def test_override_a_procedure_input_default(ws):
    path = ws("v.yaml", variant(
        "override:\n"                           # 7
        "  procedures:\n"                       # 8
        "    attack:\n"                         # 9
        "      inputs:\n"                       # 10
        "        terrain: {default: rough}\n"   # 11
    ))
    ruleset = load_ruleset(path)
    spec = ruleset.procedures["attack"].input("terrain")
    assert spec.default == "rough"
    assert spec.type.values == ("clear", "rough")  # type and values kept from the base
    assert ruleset.procedures["attack"].input("veteran").default is False
    assert p_hit(ruleset) == Fraction(5, 12)  # rough by default: +1
    assert p_hit(ruleset, terrain="clear") == Fraction(7, 12)
    # the default of terrain moves from clear to rough (the override above)
    assert data_changes(load_ruleset("base.yaml"), ruleset) == [
        "procedure attack: input terrain changed (enum(clear, rough), default clear -> enum(clear, rough), default rough)"]


def test_override_an_example_by_name(ws):
    path = ws("v.yaml", variant(
        "override:\n"                                         # 7
        "  constants:\n"                                      # 8
        "    threshold: {value: 6}\n"                         # 9
        "  examples:\n"                                       # 10
        '    - name: "Attack odds"\n'                         # 11
        "      odds:\n"                                       # 12
        '        - {outcome: hit, probability: "5/12"}\n'     # 13: 2d6 <= 6 = 15/36
    ))
    ruleset = load_ruleset(path)
    assert [e.name for e in ruleset.examples] == ["Low roll hits", "Attack odds"]
    example = ruleset.examples[1]
    assert example.procedure == "attack"  # kept from the base
    assert list(example.data["odds"]) == [{"outcome": "hit", "probability": "5/12"}]
    odds_mark = example.where("odds.0")
    assert (odds_mark.source.name, odds_mark.line) == ("v.yaml", 13)
    results = {r.example.name: r for r in run_examples(ruleset)}
    assert results["Attack odds"].passed
    # the base's own example now fails (3 + 4 = 7 > 6), reported in the base file
    failed = results["Low roll hits"]
    assert not failed.passed
    assert {(d.file, d.line) for d in failed.problems} == {("base.yaml", 64)}


def test_add_a_constant_a_table_and_a_procedure(ws):
    path = ws("v.yaml", variant(
        "add:\n"                                                    # 7
        "  constants:\n"                                            # 8
        '    rally_bonus: {value: 1, rule: "Rally bonus"}\n'        # 9
        "  tables:\n"                                               # 10
        "    morale:\n"                                             # 11
        '      title: "Morale Table"\n'                             # 12
        '      rule: "Morale"\n'                                    # 13
        '      rows: {name: "Die roll", dice: 1d6}\n'               # 14
        "      edges: {rows: error}\n"                              # 15
        "      cells:\n"                                            # 16
        '        "1-3": 0\n'                                        # 17
        '        "4-6": 1\n'                                        # 18
        "  procedures:\n"                                           # 19
        "    rally:\n"                                              # 20
        '      title: "Rally"\n'                                    # 21
        '      rule: "Rally"\n'                                     # 22
        "      body: |\n"                                           # 23
        "        let die = 1d6\n"                                   # 24
        "        let level = lookup morale(row = die) + rally_bonus\n"  # 25
        "        if level >= 2 then\n"                              # 26
        "          outcome rallied\n"                               # 27
        "        else\n"                                            # 28
        "          outcome broken\n"                                # 29
        "        end\n"                                             # 30
    ))
    ruleset = load_ruleset(path)
    assert ruleset.constants["rally_bonus"].value == 1
    assert ruleset.tables["morale"].provenance == (("v.yaml:17",), ("v.yaml:18",))
    # level = 0 + 1 on 1-3, 1 + 1 on 4-6: rallied on 3 faces of 6
    assert odds(ruleset, "rally").probability("rallied") == Fraction(1, 2)
    assert resolve(ruleset, "rally", dice=[4]).outcome.name == "rallied"
    assert resolve(ruleset, "rally", dice=[3]).outcome.name == "broken"
    assert p_hit(ruleset) == Fraction(7, 12)  # the base's procedures still work
    assert data_changes(load_ruleset("base.yaml"), ruleset) == [
        "constant rally_bonus: added", "table morale: added", "procedure rally: added",
    ]


def test_remove_a_modifier_entry(ws):
    path = ws("v.yaml", variant(
        "remove:\n"                       # 7
        "  modifiers:\n"                  # 8
        "    drm:\n"                      # 9
        "      entries: [veteran]\n"      # 10
    ))
    ruleset = load_ruleset(path)
    assert [e.name for e in ruleset.modifiers["drm"].entries] == ["rough"]
    # veterans no longer get -1: 7/12 (the base gives 13/18)
    assert p_hit(ruleset, veteran=True) == Fraction(7, 12)
    assert p_hit(load_ruleset("base.yaml"), veteran=True) == Fraction(13, 18)
    assert data_changes(load_ruleset("base.yaml"), ruleset) == ["modifier drm.veteran: removed (Veterans)"]


def test_remove_a_row_of_a_table_not_keyed_by_dice(ws):
    path = ws("v.yaml", variant(
        "remove:\n"                   # 7
        "  tables:\n"                 # 8
        "    reach:\n"                # 9
        '      cells: ["5+"]\n'       # 10
    ))
    table = load_ruleset(path).tables["reach"]
    assert table.rows.labels() == ["1-2", "3-4"]
    assert table.provenance == (("base.yaml:27",), ("base.yaml:28",))


def test_remove_a_row_of_a_die_keyed_table_fails_the_coverage_check(ws):
    path = ws("v.yaml", variant(
        "remove:\n"                   # 7
        "  tables:\n"                 # 8
        "    combat:\n"               # 9
        '      cells: ["5-6"]\n'      # 10
    ))
    error = only_error(path)
    # reported at the table's dice (base line 12: 'rows: {name: "Die roll", dice: 1d6}', "1d6" at column 36)
    assert (error.file, error.line, error.column) == ("base.yaml", 12, 36)
    assert error.message == "rows do not cover the die: 1d6 rolls 1-6, but no row holds 5, 6"


def test_remove_an_example_by_name(ws):
    path = ws("v.yaml", variant(
        "remove:\n"                             # 7
        '  examples: ["Low roll hits"]\n'       # 8
    ))
    ruleset = load_ruleset(path)
    assert [e.name for e in ruleset.examples] == ["Attack odds"]
    # the remaining example still points at its own line in the base (65), after renumbering
    assert (ruleset.examples[0].pos.source.name, ruleset.examples[0].pos.line) == ("base.yaml", 65)
    assert data_changes(load_ruleset("base.yaml"), ruleset) == ["example removed: Low roll hits"]


def test_chain_variant_of_a_variant_with_relative_paths_the_user_allows(ws):
    ws("v1.yaml", variant(
        "override:\n"                         # 7
        "  tables:\n"                         # 8
        "    combat:\n"                       # 9
        "      cells:\n"                      # 10
        '        "1-2": {"-1": EX}\n'         # 11
        "  constants:\n"                      # 12
        "    threshold: {value: 8}\n",        # 13
        name="v1",
    ))
    path = ws("sub/v2.yaml", variant(
        "override:\n"                         # 7
        "  tables:\n"                         # 8
        "    combat:\n"                       # 9
        "      cells:\n"                      # 10
        '        "1-2": {"+1": DE}\n',        # 11
        extends="../v1.yaml",  # relative to sub/v2.yaml
        name="v2",
    ))
    # ../v1.yaml is outside sub/: only a base the user allows may be there
    assert "outside this ruleset's folder (sub/)" in only_error(path).message
    ruleset = load_ruleset(path, base_paths=["."])
    assert ruleset.name == "v2"
    table = ruleset.tables["combat"]
    assert table.printed[0] == ("EX", "EX", "DE")
    assert table.provenance[0] == ("v1.yaml:11", "base.yaml:18", "sub/v2.yaml:11")
    assert ruleset.constants["threshold"].value == 8  # from the middle of the chain
    assert p_hit(ruleset) == Fraction(13, 18)


def test_chain_error_names_the_immediate_base(ws):
    ws("v1.yaml", variant("override:\n  constants:\n    threshold: {value: 8}\n", name="v1"))
    path = ws("v2.yaml", variant(
        "override:\n"                          # 7
        "  constants:\n"                       # 8
        "    treshold: {value: 9}\n",          # 9
        extends="v1.yaml", name="v2",
    ))
    error = only_error(path)
    assert (error.file, error.line, error.column) == ("v2.yaml", 9, 5)
    assert "no constant 'treshold' in v1 (did you mean 'threshold'?)" in error.message


def test_extends_a_bundled_name(ws):
    # eto_one_more_pip is itself a variant of eto: a three-level chain through bundled names
    path = ws("v.yaml", variant(
        "override:\n"                             # 7
        "  tables:\n"                             # 8
        "    naval_interception:\n"               # 9
        "      cells:\n"                          # 10
        '        "5-6": "4,5,6"\n',               # 11
        extends="eto_one_more_pip",
    ))
    ruleset = load_ruleset(path)
    # 5-6 now lists 3 faces (1/2, was 4 faces = 2/3); 7-8 keeps the middle's 5,6 (1/3)
    assert odds(ruleset, "interception", {"zones": 5}).probability("intercepted") == Fraction(1, 2)
    assert odds(ruleset, "interception", {"zones": 7}).probability("intercepted") == Fraction(1, 3)
    table = ruleset.tables["naval_interception"]
    assert table.provenance[2] == ("v.yaml:11",)
    assert table.provenance[3][0].endswith("eto_one_more_pip.yaml:27")
    assert table.provenance[0][0].endswith(ROW_1_2.removeprefix("rulesdata/"))


def test_extends_a_folder_whose_tables_are_included(ws):
    ws("basedir/ruleset.yaml", (
        "wartable: 1\n"
        "name: folder\n"
        'title: "Folder"\n'
        'source: "t"\n'
        'version: "1"\n'
        "include: [tables.yaml]\n"
    ))
    ws("basedir/tables.yaml", (
        "tables:\n"                           # 1
        "  reach:\n"                          # 2
        '    title: "Reach"\n'                # 3
        '    rule: "Reach"\n'                 # 4
        '    rows: {name: "Hexes"}\n'         # 5
        "    edges: {rows: error}\n"          # 6
        "    cells:\n"                        # 7
        '      "1-2": 3\n'                    # 8
        '      "3+": 1\n'                     # 9
    ))
    path = ws("v.yaml", variant(
        "override:\n"            # 7
        "  tables:\n"            # 8
        "    reach:\n"           # 9
        "      cells:\n"         # 10
        '        "3+": 2\n',     # 11
        extends="basedir",
    ))
    table = load_ruleset(path).tables["reach"]
    assert [row[0] for row in table.cells] == [3, 2]
    assert table.provenance == (("basedir/tables.yaml:8",), ("v.yaml:11",))


# ==== errors, positioned in the variant file ==============================================

ERRORS = [
    pytest.param(
        "override:\n"                    # 7
        "  tables:\n"                    # 8
        "    combta:\n"                  # 9: key at column 5
        '      title: "X"\n',            # 10
        (9, 5), "override targets nothing: no table 'combta' in skirmish (did you mean 'combat'?)",
        id="override-unknown-table"),
    pytest.param(
        "override:\n"                    # 7
        "  tables:\n"                    # 8
        "    combat:\n"                  # 9
        "      cells:\n"                 # 10
        '        "7-9": [AR, AR, DR]\n', # 11: key at column 9
        (11, 9), "override targets nothing: no row '7-9' of tables/combat/cells in skirmish",
        id="override-unknown-row"),
    pytest.param(
        "override:\n"                    # 7
        "  tables:\n"                    # 8
        "    combat:\n"                  # 9
        "      cells:\n"                 # 10
        '        "1-2": {"+2": DE}\n',   # 11: 8 spaces, "1-2" 9-13, ':' 14, ' ' 15, '{' 16, "+2" at 17
        (11, 17), "override targets nothing: table combat has no column '+2' (columns: -1, 0, +1)",
        id="override-unknown-column"),
    pytest.param(
        "override:\n"                    # 7
        "  modifiers:\n"                 # 8
        "    drm:\n"                     # 9
        "      entries:\n"               # 10
        "        veteren: {value: -2}\n",  # 11: key at column 9
        (11, 9), "no modifier entry 'veteren' of modifiers/drm/entries in skirmish (did you mean 'veteran'?)",
        id="override-unknown-modifier-entry"),
    pytest.param(
        "override:\n"                    # 7
        "  constants:\n"                 # 8
        "    threshhold: {value: 8}\n",  # 9: key at column 5
        (9, 5), "no constant 'threshhold' in skirmish (did you mean 'threshold'?)",
        id="override-unknown-constant"),
    pytest.param(
        "override:\n"                    # 7
        "  procedures:\n"                # 8
        "    attack:\n"                  # 9
        "      inputs:\n"                # 10
        "        terain: {default: rough}\n",  # 11: key at column 9
        (11, 9), "no input 'terain' of procedures/attack/inputs in skirmish (did you mean 'terrain'?)",
        id="override-unknown-input"),
    pytest.param(
        "override:\n"                            # 7
        "  examples:\n"                          # 8
        '    - name: "Atack odds"\n'             # 9: "- " at 5-6, the item mapping at column 7
        "      odds:\n"                          # 10
        '        - {outcome: hit, probability: "1/2"}\n',  # 11
        (9, 7), "override targets nothing: no example 'Atack odds' in skirmish (did you mean 'Attack odds'?)",
        id="override-unknown-example"),
    pytest.param(
        "override:\n"                    # 7
        "  table:\n"                     # 8: key at column 3
        "    combat: {}\n",              # 9
        (8, 3), "override: has no section 'table'",
        id="override-unknown-section"),
    pytest.param(
        "add:\n"                                       # 7
        "  constants:\n"                               # 8
        '    threshold: {value: 8, rule: "x"}\n',      # 9: key at column 5
        (9, 5), "constant 'threshold' is already in skirmish; change it under override:",
        id="add-existing-constant"),
    pytest.param(
        "add:\n"                                       # 7
        "  procedures:\n"                              # 8
        "    melee:\n"                                 # 9: key at column 5
        '      title: "M"\n'                           # 10
        '      rule: "M"\n'                            # 11
        "      body: |\n"                              # 12
        "        outcome done\n",                      # 13
        (9, 5), "procedure 'melee' is already in skirmish; change it under override:",
        id="add-existing-procedure"),
    pytest.param(
        "examples:\n"                                  # 7
        '  - name: "Attack odds"\n'                    # 8: 2 spaces, "- " 3-4, "name:" 5-9, ' ' 10, value at 11
        "    procedure: attack\n",                     # 9
        (8, 11), "example 'Attack odds' is already in skirmish; change it under override: examples:",
        id="add-existing-example"),
    pytest.param(
        "remove:\n"                      # 7
        "  modifiers:\n"                 # 8
        "    drm:\n"                     # 9
        "      entries: [veteren]\n",    # 10: 6 spaces, "entries:" 7-14, ' ' 15, '[' 16, name at 17
        (10, 17), "remove targets nothing: no 'veteren' under modifiers/drm/entries in skirmish (did you mean 'veteran'?)",
        id="remove-unknown-modifier-entry"),
    pytest.param(
        "remove:\n"                      # 7
        "  tables: [combta]\n",          # 8: 2 spaces, "tables:" 3-9, ' ' 10, '[' 11, name at 12
        (8, 12), "remove targets nothing: no 'combta' under tables in skirmish (did you mean 'combat'?)",
        id="remove-unknown-table"),
    pytest.param(
        "remove:\n"                      # 7
        "  tables:\n"                    # 8
        "    reach:\n"                   # 9
        '      cells: ["6+"]\n',         # 10: 6 spaces, "cells:" 7-12, ' ' 13, '[' 14, '"6+"' at 15
        (10, 15), "remove targets nothing: no '6+' under tables/reach/cells in skirmish",
        id="remove-unknown-row"),
    pytest.param(
        "remove:\n"                      # 7
        '  examples: ["Nope"]\n',        # 8: 2 spaces, "examples:" 3-11, ' ' 12, '[' 13, '"Nope"' at 14
        (8, 14), "remove targets nothing: no example 'Nope' in skirmish",
        id="remove-unknown-example"),
    pytest.param(
        "constants:\n"                                 # 7: the section key at column 1
        '  threshold: {value: 8, rule: "x"}\n',        # 8
        (7, 1), "a variant changes its base under override:, add: or remove:; move 'constants' under one of them",
        id="top-level-section"),
    pytest.param(
        "override:\n"                    # 7
        "  tables:\n"                    # 8
        "    combat:\n"                  # 9
        "      edges: {rows: wrap}\n",   # 10: 6 spaces, "edges:" 7-12, ' ' 13, '{' 14, "rows:" 15-19, ' ' 20, "wrap" 21
        (10, 21), "tables.combat.edges.rows: 'wrap' is not one of [clamp, error]",
        id="override-schema-invalid-value"),
    pytest.param(
        "override:\n"                    # 7
        "  modifiers:\n"                 # 8
        "    drm:\n"                     # 9
        "      entries:\n"               # 10
        '        rough: {value: "two"}\n',  # 11: 8 spaces, "rough:" 9-14, ' ' 15, '{' 16, "value:" 17-22, ' ' 23, '"two"' 24
        (11, 24), "modifiers.drm.entries.rough.value: 'two' is not of type 'integer'",
        id="override-schema-invalid-modifier-value"),
    pytest.param(
        "override:\n"                    # 7
        "  procedures:\n"                # 8
        "    attack:\n"                  # 9
        "      inputs:\n"                # 10
        "        terrain: {default: mud}\n",  # 11: 8 spaces, "terrain:" 9-16, ' ' 17, '{' 18, "default:" 19-26, ' ' 27, "mud" 28
        (11, 28), "default of terrain must be one of clear, rough, not 'mud'",
        id="override-invalid-input-default"),
    pytest.param(
        "override:\n"                    # 7
        "  procedures:\n"                # 8
        "    attack:\n"                  # 9
        "      body: |\n"                # 10
        "        let roll = 2d6 +\n"     # 11
        "        outcome hit\n",         # 12: "outcome" at column 9 cannot follow '+'
        (12, 9), "syntax error: unexpected 'outcome'",
        id="override-body-dsl-syntax-error"),
]


@pytest.mark.parametrize("body, at, message", ERRORS)
def test_variant_error_is_positioned_in_the_variant(ws, body, at, message):
    path = ws("v.yaml", variant(body))
    error = only_error(path)
    assert (error.file, error.line, error.column) == ("v.yaml",) + at, error.format()
    assert message in error.message


def test_dsl_error_in_an_overridden_modifier_condition_points_into_the_variant(ws):
    path = ws("v.yaml", variant(
        "override:\n"                              # 7
        "  modifiers:\n"                           # 8
        "    drm:\n"                               # 9
        "      entries:\n"                         # 10
        '        rough: {when: "terrain =="}\n'    # 11: the quoted text runs from column 24 to 34
    ))
    error = only_error(path)
    assert (error.file, error.line) == ("v.yaml", 11)
    assert 24 <= error.column <= 34, error.format()


def test_every_variant_error_is_reported_at_once(ws):
    path = ws("v.yaml", variant(
        "override:\n"                      # 7
        "  tables:\n"                      # 8
        "    combta: {}\n"                 # 9
        "  constants:\n"                   # 10
        "    threshhold: {value: 8}\n"     # 11
        "remove:\n"                        # 12
        '  examples: ["Nope"]\n'           # 13
    ))
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    assert [(d.file, d.line, d.column) for d in info.value.diagnostics] == [
        ("v.yaml", 9, 5), ("v.yaml", 11, 5), ("v.yaml", 13, 14),
    ]


def test_extends_cycle(ws):
    ws("a.yaml", variant("", extends="b.yaml", name="a"))
    ws("b.yaml", variant("", extends="a.yaml", name="b"))
    error = only_error("a.yaml")
    # loading a -> b -> a: the cycle closes at b's extends (line 6, value at column 10)
    assert (error.file, error.line, error.column) == ("b.yaml", 6, 10)
    assert error.message == "extends forms a cycle: a.yaml -> b.yaml -> a.yaml"


def test_extends_itself(ws):
    ws("a.yaml", variant("", extends="a.yaml", name="a"))
    error = only_error("a.yaml")
    assert (error.file, error.line, error.column) == ("a.yaml", 6, 10)
    assert error.message == "extends forms a cycle: a.yaml -> a.yaml"


def test_extends_a_missing_file(ws):
    path = ws("v.yaml", variant("", extends="nowhere.yaml"))
    error = only_error(path)
    # line 6 "extends: nowhere.yaml": "extends:" 1-8, ' ' 9, value at 10
    assert (error.file, error.line, error.column) == ("v.yaml", 6, 10)
    assert error.message.startswith("extends 'nowhere.yaml': no such file next to this one, and no bundled ruleset of that name")


def test_check_command_prints_the_variant_position(ws):
    path = ws("v.yaml", variant(
        "override:\n"                     # 7
        "  tables:\n"                     # 8
        "    combta: {}\n"                # 9
    ))
    code, _out, err = run_cli("check", path)
    assert code == 1
    lines = err.splitlines()
    assert lines[0].startswith("v.yaml:9:5: override targets nothing: no table 'combta'")
    assert lines[1] == "        combta: {}"
    assert lines[2] == "        ^"  # 4 spaces of indent + caret at column 5
    assert lines[3] == "FAIL v.yaml: 1 error"


def test_top_level_partial_table_is_still_positioned_in_the_variant(ws):
    # the common mistake: "tables:" where "override: tables:" was meant
    path = ws("v.yaml", variant(
        "tables:\n"                          # 7
        "  combat:\n"                        # 8
        "    cells:\n"                       # 9
        '      "1-2": [AR, AR, DR]\n'        # 10
    ))
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    assert info.value.diagnostics
    assert all(d.file == "v.yaml" and 7 <= d.line <= 10 for d in info.value.diagnostics)


def test_top_level_partial_table_says_to_move_it_under_override(ws):
    path = ws("v.yaml", variant(
        "tables:\n"                          # 7
        "  combat:\n"                        # 8
        "    cells:\n"                       # 9
        '      "1-2": [AR, AR, DR]\n'        # 10
    ))
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    first = info.value.diagnostics[0]
    assert (first.file, first.line, first.column) == ("v.yaml", 7, 1)
    assert "move 'tables' under one of them" in first.message


def test_add_a_modifier_entry_to_an_existing_list_as_the_hint_says(ws):
    path = ws("v.yaml", variant(
        "add:\n"                                                                   # 7
        "  modifiers:\n"                                                           # 8
        "    drm:\n"                                                               # 9
        "      entries:\n"                                                         # 10
        '        night: {label: "Night", value: 1, when: "true", rule: "House"}\n' # 11
    ))
    ruleset = load_ruleset(path)
    assert [e.name for e in ruleset.modifiers["drm"].entries] == ["veteran", "rough", "night"]
    assert p_hit(ruleset) == Fraction(5, 12)  # +1 always: 2d6 <= 6


# ==== provenance ===========================================================================


def test_show_provenance_of_a_variant_2d_table(ws):
    path = ws("v.yaml", variant(
        "override:\n"                 # 7
        "  tables:\n"                 # 8
        "    combat:\n"               # 9
        "      cells:\n"              # 10
        '        "3-4": {"0": DR}\n'  # 11
    ))
    code, out, err = run_cli("show", path, "combat", "--provenance")
    assert (code, err) == (0, "")
    assert row_of(out, "Die") == ["Die", "roll", "-1", "0", "+1", "from"]
    assert row_of(out, "1-2") == ["1-2", "AR", "EX", "DR", "base.yaml:18"]
    assert row_of(out, "3-4") == ["3-4", "AE", "DR", "EX", "base.yaml:19,", "v.yaml:11"]
    assert row_of(out, "5-6") == ["5-6", "AE", "AE", "AR", "base.yaml:20"]
    code, plain, _ = run_cli("show", path, "combat")
    assert code == 0 and "from" not in plain and "base.yaml" not in plain


def eto_line(start: str) -> int:
    """The line of rulesdata/eto.yaml that starts (after its indent) with ``start``: found, not counted by hand,
    so that a note added above the table moves no expectation."""
    lines = (data_dir("rulesdata") / "eto.yaml").read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.strip().startswith(start))


ROW_1_2, ROW_3_4, ROW_5_6 = (f"rulesdata/eto.yaml:{eto_line(row)}" for row in ('"1-2": Automatic', '"3-4":', '"5-6":'))


@pytest.fixture
def in_bundled_parent(monkeypatch):
    """cwd = the folder holding rulesdata/, so bundled files show as rulesdata/NAME.yaml."""
    monkeypatch.chdir(data_dir("rulesdata").parent)


def test_show_provenance_of_the_bundled_variant(in_bundled_parent):
    code, out, err = run_cli("show", "eto_one_more_pip", "naval_interception", "--provenance")
    assert (code, err) == (0, "")
    # eto.yaml's cells hold rows 1-2 .. 11+; eto_one_more_pip.yaml lines 27-29 override 7-8, 9-10, 11+
    assert row_of(out, "1-2") == ["1-2", "Automatic", ROW_1_2]
    assert row_of(out, "5-6") == ["5-6", "3,4,5,6", ROW_5_6]
    assert row_of(out, "7-8") == ["7-8", "5,6", "rulesdata/eto_one_more_pip.yaml:27"]
    assert row_of(out, "9-10") == ["9-10", "6", "rulesdata/eto_one_more_pip.yaml:28"]
    assert row_of(out, "11+") == ["11+", "-", "rulesdata/eto_one_more_pip.yaml:29"]


def test_table_provenance_of_the_bundled_variant(in_bundled_parent):
    table = load_ruleset("eto_one_more_pip").tables["naval_interception"]
    assert [p[0] for p in table.provenance] == [
        ROW_1_2, ROW_3_4, ROW_5_6,
        "rulesdata/eto_one_more_pip.yaml:27", "rulesdata/eto_one_more_pip.yaml:28", "rulesdata/eto_one_more_pip.yaml:29",
    ]


@pytest.mark.parametrize("zones, die, expected", [
    ("7", "5", "value from rulesdata/eto_one_more_pip.yaml:27"),  # 7-8: overridden
    ("5", "3", f"value from {ROW_5_6}"),                          # 5-6: eto's
])
def test_run_provenance_of_the_bundled_variant(in_bundled_parent, zones, die, expected):
    code, out, err = run_cli("run", "eto_one_more_pip", "interception", "--set", f"zones={zones}", "--dice", die, "--provenance")
    assert (code, err) == (0, "")
    assert [line.strip() for line in out.splitlines() if "value from" in line] == [expected]
    assert out.splitlines()[-2] == "outcome: intercepted(automatic = no)"
    code, plain, _ = run_cli("run", "eto_one_more_pip", "interception", "--set", f"zones={zones}", "--dice", die)
    assert code == 0 and "value from" not in plain


def test_run_provenance_of_a_variant_2d_cell(ws):
    path = ws("v.yaml", variant(
        "override:\n"                 # 7
        "  tables:\n"                 # 8
        "    combat:\n"               # 9
        "      cells:\n"              # 10
        '        "3-4": {"0": DR}\n'  # 11
    ))
    code, out, _ = run_cli("run", path, "melee", "--set", "odds=0", "--dice", "3", "--provenance")
    assert code == 0
    assert "value from v.yaml:11" in out
    assert out.splitlines()[-2] == "outcome: result(code = DR)"
    code, out, _ = run_cli("run", path, "melee", "--set", "odds=0", "--dice", "5", "--provenance")
    assert code == 0
    assert "value from base.yaml:20" in out  # row 5-6 is the base's
    assert out.splitlines()[-2] == "outcome: result(code = AE)"


def test_run_provenance_of_an_overridden_drm_value(ws):
    path = ws("v.yaml", variant(
        "override:\n"                  # 7
        "  modifiers:\n"               # 8
        "    drm:\n"                   # 9
        "      entries:\n"             # 10
        "        rough: {value: 2}\n"  # 11
    ))
    code, out, _ = run_cli("run", path, "attack", "--set", "terrain=rough", "--dice", "2,3", "--provenance")
    assert code == 0
    assert "DRM +2: Rough terrain" in out
    assert "value from v.yaml:11" in out


# ==== two rulesets side by side ==============================================================


def test_base_and_variant_side_by_side():
    eto = load_ruleset("eto")
    before = eto.tables["naval_interception"].printed
    # row 7-8 of the seed lists 4,5,6: 3 faces of 6
    assert odds(eto, "interception", {"zones": 7}).probability("intercepted") == Fraction(1, 2)
    harder = load_ruleset("eto_one_more_pip")
    # the variant lists 5,6: 2 faces of 6
    assert odds(harder, "interception", {"zones": 7}).probability("intercepted") == Fraction(1, 3)
    # the base object is unchanged by loading the variant
    assert odds(eto, "interception", {"zones": 7}).probability("intercepted") == Fraction(1, 2)
    assert eto.tables["naval_interception"].printed == before
    assert eto.tables["naval_interception"].printed[3] == ("4,5,6",)
    assert eto.name == "eto" and len(eto.examples) == 7
    assert resolve(eto, "interception", {"zones": 7}, dice=[4]).outcome.name == "intercepted"
    assert resolve(harder, "interception", {"zones": 7}, dice=[4]).outcome.name == "not_intercepted"
    # and a fresh load of the base still agrees
    assert load_ruleset("eto").tables["naval_interception"].printed == before


# ==== wartable diff ==========================================================================

ETO_CHANGES = [
    "table naval_interception[7-8]: 4,5,6 -> 5,6",
    "table naval_interception[9-10]: 5,6 -> 6",
    "table naval_interception[11+]: 6 -> -",
    "example added: Seven zones now needs a 5",
    "example added: Odds at seven zones drop from 1/2 to 1/3",
    "example added: Eleven zones never intercept",
    "example added: Below seven zones nothing changes",
    "example removed: Seven zones, a 4 is listed",
    "example removed: Odds at seven zones",
]  # 3 cells + 4 examples added + 2 removed = 9


def test_diff_with_a_procedure_shows_odds_and_changed_cells():
    code, out, err = run_cli("diff", "eto", "eto_one_more_pip", "interception", "--set", "zones=7")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "eto -> eto_one_more_pip: 9 changes"
    assert [line.strip() for line in lines[1:10]] == ETO_CHANGES
    intercepted = next(line for line in lines if line.strip().startswith("intercepted("))
    assert re.search(r"1/2 \(50\.00%\)\s+1/3 \(33\.33%\)\s+-1/6 \(-16\.67 pts\)$", intercepted), intercepted
    missed = next(line for line in lines if line.strip().startswith("not_intercepted"))
    assert re.search(r"1/2 \(50\.00%\)\s+2/3 \(66\.67%\)\s+\+1/6 \(\+16\.67 pts\)$", missed), missed


def test_diff_json():
    code, out, err = run_cli("diff", "eto", "eto_one_more_pip", "interception", "--set", "zones=7", "--json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert (document["base"], document["variant"], document["procedure"]) == ("eto", "eto_one_more_pip", "interception")
    assert document["inputs"]["zones"] == 7
    outcomes = {o["name"]: o for o in document["outcomes"]}
    assert outcomes["intercepted"]["fields"] == {"automatic": False}
    assert (outcomes["intercepted"]["before"], outcomes["intercepted"]["after"], outcomes["intercepted"]["change"]) == ("1/2", "1/3", "-1/6")
    assert (outcomes["not_intercepted"]["before"], outcomes["not_intercepted"]["after"]) == ("1/2", "2/3")
    # diff --json lists structured changes (kind, path, old, new) with the printed line as text
    assert [change["text"] for change in document["changes"]] == ETO_CHANGES
    assert document["changes"][0] == {
        "kind": "changed", "path": ["tables", "naval_interception", "cells", "7-8"], "old": "4,5,6", "new": "5,6", "text": ETO_CHANGES[0],
    }


def test_diff_without_a_procedure_lists_data_changes_only():
    code, out, err = run_cli("diff", "eto", "eto_one_more_pip")
    assert (code, err) == (0, "")
    assert out.splitlines() == ["eto -> eto_one_more_pip: 9 changes"] + [f"  {line}" for line in ETO_CHANGES]
    code, out, _ = run_cli("diff", "eto", "eto_one_more_pip", "--json")
    assert code == 0
    document = json.loads(out)
    assert (document["base"], document["variant"]) == ("eto", "eto_one_more_pip")
    assert [change["text"] for change in document["changes"]] == ETO_CHANGES


def test_diff_of_a_ruleset_with_itself_has_no_changes():
    code, out, _ = run_cli("diff", "eto", "eto")
    assert (code, out) == (0, "eto -> eto: 0 changes\n")


def test_diff_of_tmp_variant(ws):
    path = ws("v.yaml", variant(
        "override:\n"                 # 7
        "  tables:\n"                 # 8
        "    combat:\n"               # 9
        "      cells:\n"              # 10
        '        "3-4": {"0": DR}\n'  # 11
    ))
    code, out, _ = run_cli("diff", "base.yaml", path, "melee", "--set", "odds=0", "--json")
    assert code == 0
    document = json.loads(out)
    assert document["changes"] == [
        {"kind": "changed", "path": ["tables", "combat", "cells", "3-4", "0"], "old": "AR", "new": "DR", "text": "table combat[3-4, 0]: AR -> DR"}
    ]
    rows = {o["fields"]["code"]: (o["before"], o["after"], o["change"]) for o in document["outcomes"]}
    # column 0 before: EX, AR, AE; after: EX, DR, AE (each row 2 faces of 6)
    assert rows == {"EX": ("1/3", "1/3", "0/1"), "AR": ("1/3", "0/1", "-1/3"), "AE": ("1/3", "1/3", "0/1"), "DR": ("0/1", "1/3", "+1/3")}


# ==== odds --what-if =========================================================================


def what_if_json(*changes: str) -> dict:
    argv = ["odds", "base.yaml", "attack"]
    for change in changes:
        argv += ["--what-if", change]
    code, out, err = run_cli(*argv, "--json")
    assert (code, err) == (0, ""), err
    document = json.loads(out)
    return {o["name"]: (o["before"], o["after"], o["change"]) for o in document["outcomes"]} | {"_variant": document["variant"]}


def test_what_if_drm_plus_one(ws):
    # +1: 2d6 <= 6 = 15/36 = 5/12; change 5/12 - 7/12 = -1/6
    assert what_if_json("drm+1") == {"hit": ("7/12", "5/12", "-1/6"), "miss": ("5/12", "7/12", "+1/6"), "_variant": "what-if drm+1"}


def test_what_if_drm_minus_one(ws):
    # -1: 2d6 <= 8 = 26/36 = 13/18; change 26/36 - 21/36 = 5/36
    assert what_if_json("drm-1")["hit"] == ("7/12", "13/18", "+5/36")


def test_what_if_constant(ws):
    # threshold 8: 2d6 <= 8 = 13/18
    assert what_if_json("threshold=8")["hit"] == ("7/12", "13/18", "+5/36")


def test_what_if_changes_combine(ws):
    # +1 and +1: 2d6 <= 5 = 10/36 = 5/18
    assert what_if_json("drm+1", "drm+1")["hit"] == ("7/12", "5/18", "-11/36")
    # +1 with threshold 8: 2d6 <= 7 again
    assert what_if_json("drm+1", "threshold=8")["hit"] == ("7/12", "7/12", "0/1")


def test_what_if_text_output(ws):
    code, out, err = run_cli("odds", "base.yaml", "attack", "--what-if", "drm+1")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "attack: exact odds, skirmish vs what-if drm+1"
    hit = next(line for line in lines if line.strip().startswith("hit"))
    assert hit.split() == ["hit", "7/12", "(58.33%)", "5/12", "(41.67%)", "-1/6", "(-16.67", "pts)"]


# "wartable odds base.yaml attack --what-if " is 41 characters: the change starts at column 42
WHAT_IF_ERRORS = [
    pytest.param("nope+1", 42, "--what-if: no modifier list 'nope' (modifier lists: drm)", id="unknown-list"),
    pytest.param("thresh=8", 42, "--what-if: no constant 'thresh' (constants: threshold)", id="unknown-constant"),
    pytest.param("threshold=abc", 42 + len("threshold="), "--what-if: threshold: ", id="bad-constant-value"),
    pytest.param("drm+x", 42 + len("drm+"), "--what-if: expected a whole number after +, not 'x'", id="bad-amount"),
]


@pytest.mark.parametrize("change, column, message", WHAT_IF_ERRORS)
def test_what_if_usage_errors_are_positioned(ws, change, column, message):
    code, out, err = run_cli("odds", "base.yaml", "attack", "--what-if", change)
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert lines[0].startswith(f"<command line>:1:{column}: {message}"), err
    assert lines[1] == f"    wartable odds base.yaml attack --what-if {change}"
    assert lines[2] == "    " + " " * (column - 1) + "^"


def test_what_if_usage_error_in_equals_form(ws):
    # "--what-if=nope+1" starts at column 32; the name is 10 characters in: column 42
    code, _, err = run_cli("odds", "base.yaml", "attack", "--what-if=nope+1")
    assert code == 2
    assert err.startswith("<command line>:1:42: --what-if: no modifier list 'nope'")


def test_what_if_python_api(ws):
    base = load_ruleset("base.yaml")
    harder = what_if(base, ["drm+1"])
    assert p_hit(harder) == Fraction(5, 12)
    assert [e.value for e in harder.modifiers["drm"].entries] == [-1, 1, 1]
    # the original is untouched
    assert p_hit(base) == Fraction(7, 12)
    assert [e.value for e in base.modifiers["drm"].entries] == [-1, 1]
    easier = what_if(base, ["threshold=8", "drm-1"])
    assert easier.constants["threshold"].value == 8
    assert base.constants["threshold"].value == 7
    assert p_hit(easier) == Fraction(5, 6)  # 2d6 - 1 <= 8: 2d6 <= 9 = 30/36
    with pytest.raises(WhatIfError) as info:
        what_if(base, ["drm+x"])
    assert (info.value.message, info.value.offset) == ("expected a whole number after +, not 'x'", 4)
    with pytest.raises(WhatIfError) as info:
        what_if(base, ["nope-1"])
    assert info.value.offset == 0 and "no modifier list 'nope'" in info.value.message


def test_what_if_on_a_variant(ws):
    path = ws("v.yaml", variant(
        "override:\n"                          # 7
        "  constants:\n"                       # 8
        "    threshold: {value: 8}\n"          # 9
    ))
    ruleset = load_ruleset(path)
    # variant threshold 8; +1 -> 2d6 <= 7 = 7/12
    assert p_hit(what_if(ruleset, ["drm+1"])) == Fraction(7, 12)
    assert p_hit(ruleset) == Fraction(13, 18)
