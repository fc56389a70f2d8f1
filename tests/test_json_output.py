"""Every command answers ``--json``: parsed here and compared with expectations written by hand.

Also: errors as JSON (exit codes unchanged, the text still on stderr), GitHub workflow annotations
and JUnit XML for ``check`` and ``test``, checked against their documented shapes.

The fixture ``skirmish.yaml`` (below, with its line numbers) is small enough to count:

    attack: die = 1d6; roll = die + DRMs (+1 for veterans); loss = LOSSES[die][odds column]
            roll >= 4 hits with that loss, else miss.
    LOSSES: rows 1-3 -> [0, 1], rows 4-6 -> [1, 2]; columns "1" and "2+".

At odds 2 without veterans: faces 4, 5, 6 hit, each with loss 2 (row 4-6, column 2+) -> hit(loss = 2) 1/2,
miss 1/2.  With veterans: faces 3-6 hit (3 + 1 = 4); face 3 reads row 1-3 -> loss 1 (1/6), faces
4-6 loss 2 (1/2), faces 1-2 miss (1/3); the mean loss over the hits is (1/6 * 1 + 1/2 * 2) / (2/3) = 7/4.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from interpreter.cli import main

SKIRMISH = """\
wartable: 1
name: skirmish
title: "Skirmish"
source: "wartable test fixture"
version: "2"
constants:
  threshold: {value: 4, rule: "Hit on 4 or more"}
tables:
  losses:
    title: "LOSS TABLE"
    rule: "Loss table"
    rows: {name: "Die", dice: 1d6}
    columns: {name: "Odds", entries: ["1", "2+"]}
    edges: {rows: error, columns: clamp}
    cells:
      "1-3": [0, 1]
      "4-6": [1, 2]
modifiers:
  drm:
    kind: drm
    title: "Skirmish DRMs"
    rule: "DRMs"
    entries:
      veteran: {label: "Veterans", value: 1, when: "veteran", rule: "DRM a"}
procedures:
  attack:
    title: "Attack"
    rule: "Attack rule"
    inputs:
      odds: {type: int, min: 1, description: "Attacker to defender"}
      veteran: {type: bool, default: false}
    body: |
      require odds <= 9, "Odds above 9 to 1 are not allowed"
      let die = 1d6
      let roll = die + modifiers drm
      let loss = lookup losses(row = die, column = odds)
      if roll >= threshold then
        outcome hit(loss = loss)
      else
        outcome miss
      end
examples:
  - name: "A six hits"
    procedure: attack
    inputs: {odds: 1}
    dice: [6]
    expect: {outcome: hit, fields: {loss: 1}}
  - name: "Wrong, on purpose: a one"
    procedure: attack
    inputs: {odds: 1}
    dice: [1]
    expect: {outcome: hit}
"""
# line 33: `      require odds <= 9, ...` (the body starts on line 33, its text in column 7)
# line 48: `  - name: "Wrong, on purpose: a one"`; line 52: `    expect: {outcome: hit}`,
#   the outcome value `hit` in column 23 (4 spaces + "expect: {outcome: " is 22 characters)
REQUIRE_LINE, WRONG_NAME_LINE, WRONG_EXPECT_LINE, WRONG_EXPECT_COLUMN = 33, 48, 52, 23

VARIANT = """\
wartable: 1
name: skirmish_bloody
title: "Skirmish, bloodier"
source: "wartable test fixture"
version: "1"
extends: skirmish.yaml
override:
  constants:
    threshold: {value: 3}
  tables:
    losses:
      cells:
        "4-6": {"2+": 3}
"""


@pytest.fixture
def skirmish(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("skirmish.yaml").write_text(SKIRMISH, encoding="utf-8")
    Path("bloody.yaml").write_text(VARIANT, encoding="utf-8")
    # a duplicate key on line 3, column 1
    Path("broken.yaml").write_text('wartable: 1\nname: broken\nname: again\n', encoding="utf-8")
    return "skirmish.yaml"


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def json_of(argv: list[str], code: int = 0) -> dict:
    found, out, err = run(argv)
    assert found == code, (out, err)
    assert "Traceback" not in err
    return json.loads(out)


# ---- check, test --------------------------------------------------------------------------


def test_check_json(skirmish):
    document = json_of(["check", skirmish, "--json"])
    assert document == {
        "ok": True,
        "rulesets": [{
            "ruleset": "skirmish", "given": "skirmish.yaml", "ok": True, "path": "skirmish.yaml",
            "counts": {"tables": 1, "modifier_lists": 1, "procedures": 1, "examples": 2},
            "diagnostics": [],
        }],
    }


def test_check_json_with_a_broken_ruleset(skirmish):
    document = json_of(["check", skirmish, "broken.yaml", "--format", "json"], code=1)
    assert document["ok"] is False
    good, bad = document["rulesets"]
    assert good["ok"] is True
    assert (bad["ruleset"], bad["ok"], bad["path"], bad["counts"]) == ("broken.yaml", False, None, None)
    duplicate = next(d for d in bad["diagnostics"] if "duplicate key" in d["message"])
    assert (duplicate["file"], duplicate["line"], duplicate["column"], duplicate["line_text"]) == ("broken.yaml", 3, 1, "name: again")
    assert duplicate["severity"] == "error"


def test_test_json(skirmish):
    document = json_of(["test", skirmish, "--json"], code=1)
    assert (document["ok"], document["passed"], document["failed"]) == (False, 1, 1)
    first, second = document["examples"]
    assert first == {
        "ruleset": "skirmish", "name": "A six hits", "procedure": "attack", "rule": "", "file": "skirmish.yaml",
        "line": WRONG_NAME_LINE - 5, "passed": True, "problems": [],
    }
    assert (second["name"], second["line"], second["passed"]) == ("Wrong, on purpose: a one", WRONG_NAME_LINE, False)
    (problem,) = second["problems"]
    assert (problem["line"], problem["column"]) == (WRONG_EXPECT_LINE, WRONG_EXPECT_COLUMN)
    assert problem["message"] == "expected outcome hit, got miss"


# ---- GitHub annotations and JUnit XML ------------------------------------------------------------------
# GitHub: "::error file={name},line={line},col={col},title={title}::{message}", one per line; in
# property values % : , CR LF are written %25 %3A %2C %0D %0A, in the message % CR LF.
ANNOTATION = re.compile(r"^::error file=([^,:]+),line=(\d+),col=(\d+),title=([^,:]*)::(.*)$")


def test_check_github_annotations(skirmish):
    code, out, _err = run(["check", skirmish, "broken.yaml", "--format", "github"])
    assert code == 1
    annotations = [ANNOTATION.match(line) for line in out.splitlines() if line.startswith("::")]
    assert annotations and all(annotations), out
    duplicate = next(a for a in annotations if "duplicate key" in a[5])
    assert duplicate.groups()[:4] == ("broken.yaml", "3", "1", "wartable check broken.yaml")
    assert out.splitlines()[-1] == "wartable check: 2 rulesets, 1 failed"


def test_test_github_annotations_escape_commas_and_colons(skirmish):
    code, out, _ = run(["test", skirmish, "--format", "github"])
    assert code == 1
    (line,) = [line for line in out.splitlines() if line.startswith("::")]
    match = ANNOTATION.match(line)
    assert match, line
    # the example's name "Wrong, on purpose: a one" sits in the title: its comma and colon escaped
    assert match.groups() == (
        "skirmish.yaml", str(WRONG_EXPECT_LINE), str(WRONG_EXPECT_COLUMN),
        "wartable test skirmish%3A Wrong%2C on purpose%3A a one", "expected outcome hit, got miss",
    )
    assert out.splitlines()[-1] == "wartable test: 1 passed, 1 failed"


def test_check_junit(skirmish):
    code, out, _ = run(["check", skirmish, "broken.yaml", "--format", "junit"])
    assert code == 1
    root = ElementTree.fromstring(out)
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("2", "1", "0")
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["skirmish.yaml", "broken.yaml"]
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert failure is not None and "duplicate key" in failure.get("message")
    assert "broken.yaml:3:1:" in failure.text


def test_test_junit(skirmish):
    code, out, _ = run(["test", skirmish, "--format", "junit"])
    assert code == 1
    root = ElementTree.fromstring(out)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "2", "1")
    (suite,) = root.findall("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == ("skirmish", "2", "1")
    passed, failed = suite.findall("testcase")
    assert (passed.get("classname"), passed.get("name"), passed.find("failure")) == ("wartable.skirmish", "A six hits", None)
    assert (failed.get("file"), failed.get("line")) == ("skirmish.yaml", str(WRONG_NAME_LINE))
    assert failed.find("failure").get("message") == "expected outcome hit, got miss"


# ---- list, show ------------------------------------------------------------------------------------


def test_list_json(skirmish):
    document = json_of(["list", skirmish, "--json"])
    assert (document["ruleset"], document["title"], document["version"], document["source"]) == ("skirmish", "Skirmish", "2", "wartable test fixture")
    assert document["tables"] == [{"name": "losses", "title": "LOSS TABLE", "rows": 2, "columns": 2, "example": False}]
    assert document["modifiers"] == [{"name": "drm", "kind": "drm", "title": "Skirmish DRMs", "entries": 1}]
    assert document["constants"] == [{"name": "threshold", "value": 4, "rule": "Hit on 4 or more", "description": ""}]
    assert document["types"] == []
    (attack,) = document["procedures"]
    assert (attack["name"], attack["title"], attack["rule"], attack["choices"]) == ("attack", "Attack", "Attack rule", [])
    assert attack["inputs"] == [
        {"name": "odds", "type": "int", "min": 1, "required": True, "description": "Attacker to defender"},
        {"name": "veteran", "type": "bool", "required": False, "default": False},
    ]
    assert sorted(attack["outcomes"]) == ["hit", "miss"]


def test_show_table_json(skirmish):
    document = json_of(["show", skirmish, "losses", "--json"])
    assert document["kind"] == "table"
    assert (document["name"], document["title"], document["rule"], document["example"]) == ("losses", "LOSS TABLE", "Loss table", False)
    assert document["rows"] == {"name": "Die", "headings": ["1-3", "4-6"], "edge": "error", "dice": "1d6"}
    assert document["columns"] == {"name": "Odds", "headings": ["1", "2+"], "edge": "clamp", "dice": None}
    assert document["cells"] == [["0", "1"], ["1", "2"]]
    assert document["values"] == [[0, 1], [1, 2]]
    assert "provenance" not in document
    with_provenance = json_of(["show", skirmish, "losses", "--json", "--provenance"])
    # cells written on lines 16 and 17
    assert with_provenance["provenance"] == [["skirmish.yaml:16"] * 2, ["skirmish.yaml:17"] * 2]


def test_show_modifiers_json(skirmish):
    document = json_of(["show", skirmish, "drm", "--json"])
    assert document == {
        "kind": "modifiers", "name": "drm", "modifier_kind": "drm", "title": "Skirmish DRMs", "rule": "DRMs",
        "entries": [{"name": "veteran", "label": "Veterans", "value": 1, "shown": "+1", "rule": "DRM a", "when": "veteran"}],
    }


def test_show_procedure_json(skirmish):
    document = json_of(["show", skirmish, "attack", "--json"])
    assert (document["kind"], document["name"], document["title"], document["rule"]) == ("procedure", "attack", "Attack", "Attack rule")
    assert document["body"].splitlines()[0].strip() == 'require odds <= 9, "Odds above 9 to 1 are not allowed"'
    assert document["body"].splitlines()[-1].strip() == "end"
    assert (document["file"], document["line"]) == ("skirmish.yaml", REQUIRE_LINE)


# ---- run, odds ----------------------------------------------------------------------------------


def test_run_json_keeps_the_structured_trace(skirmish):
    document = json_of(["run", skirmish, "attack", "--set", "odds=2", "--dice", "4", "--json"])
    assert document["outcome"] == {"name": "hit", "fields": {"loss": 2}}  # face 4: row 4-6, column 2+
    assert (document["dice"], document["seed"], document["unused_dice"]) == ([4], None, 0)
    roll = next(e for e in document["trace"] if e["kind"] == "roll")
    assert (roll["dice"], roll["faces"], roll["total"]) == ("1d6", [4], 4)
    lookup = next(e for e in document["trace"] if e["kind"] == "lookup")
    assert (lookup["table"], lookup["row"], lookup["column"]) == ("losses", "4-6", "2+")
    assert all({"kind", "message", "rule", "depth", "where"} <= set(e) for e in document["trace"])


def test_odds_json(skirmish):
    document = json_of(["odds", skirmish, "attack", "--set", "odds=2", "--set", "veteran=true", "--json"])
    assert document["inputs"] == {"odds": 2, "veteran": True}
    assert {(o["name"], json.dumps(o["fields"]), o["probability"]) for o in document["outcomes"]} == {
        ("hit", '{"loss": 2}', "1/2"), ("hit", '{"loss": 1}', "1/6"), ("miss", "{}", "1/3"),
    }
    assert document["truncated"] == "0/1"
    assert document["means"] == {"loss": {"mean": "7/4", "value": 1.75, "probability": "2/3"}}


# ---- diff, sweep, aid, schema, --version ---------------------------------------------------------------


def test_diff_json_lists_structured_changes(skirmish):
    document = json_of(["diff", skirmish, "bloody.yaml", "--json"])
    assert (document["base"], document["variant"]) == ("skirmish", "skirmish_bloody")
    assert document["changes"] == [
        {"kind": "changed", "path": ["constants", "threshold"], "old": 4, "new": 3, "text": "constant threshold: 4 -> 3"},
        {"kind": "changed", "path": ["tables", "losses", "cells", "4-6", "2+"], "old": "2", "new": "3", "text": "table losses[4-6, 2+]: 2 -> 3"},
    ]
    with_odds = json_of(["diff", skirmish, "bloody.yaml", "attack", "--set", "odds=2", "--json"])
    # base: faces 4-6 hit for 2 (1/2); variant: threshold 3, face 3 hits for 1 (row 1-3), faces 4-6 for 3
    rows = {(o["name"], o["fields"].get("loss")): (o["before"], o["after"], o["change"]) for o in with_odds["outcomes"]}
    assert rows == {
        ("hit", 2): ("1/2", "0/1", "-1/2"), ("hit", 3): ("0/1", "1/2", "+1/2"),
        ("hit", 1): ("0/1", "1/6", "+1/6"), ("miss", None): ("1/2", "1/3", "-1/6"),
    }
    assert with_odds["changes"] == document["changes"]


def test_sweep_json(skirmish):
    document = json_of(["sweep", skirmish, "attack", "--over", "odds=1..2", "--json"])
    assert document["over"] == [{"name": "odds", "values": [1, 2]}]
    assert document["by"] == ["outcome"]
    assert [c["label"] for c in document["columns"]] == ["hit", "miss"]
    # odds 1 and 2 alike: faces 4-6 hit (1/2), faces 1-3 miss; loss 1 at odds 1, 2 at odds 2
    assert [row["at"] for row in document["rows"]] == [{"odds": 1}, {"odds": 2}]
    for row, loss in zip(document["rows"], ("1/1", "2/1")):
        assert [o["probability"] for o in row["outcomes"]] == ["1/2", "1/2"]
        assert row["means"]["loss"]["mean"] == loss
        assert row["truncated"] == "0/1"


def test_aid_json(skirmish, tmp_path):
    document = json_of(["aid", skirmish, "-o", "aid.html", "--json"])
    assert document["output"] == "aid.html"
    assert (document["ruleset"], document["tables"], document["modifier_lists"], document["procedures"]) == ("skirmish", 1, 1, 1)
    assert (document["heat_maps"], document["aids"]) == (0, [])
    assert document["bytes"] == len((tmp_path / "aid.html").read_bytes())
    inline = json_of(["aid", skirmish, "--json"])
    assert inline["output"] is None and inline["html"].startswith("<!DOCTYPE html>")


def test_schema_json():
    document = json_of(["schema", "--json"])
    assert document["$id"] == "https://wartable.dev/schemas/ruleset.schema.json"
    assert "override" in document["properties"]
    fragment = json_of(["schema", "--include-fragment", "--json"])
    assert "name" not in fragment.get("required", [])
    assert "tables" in fragment["properties"]


def test_version_json():
    from importlib import metadata

    assert json_of(["--version", "--json"]) == {"version": metadata.version("wartable")}


# ---- errors as JSON ---------------------------------------------------------------------------------


def test_usage_error_as_json(skirmish):
    argv = ["odds", skirmish, "attack", "--set", "odds=0", "--json"]
    code, out, err = run(argv)
    assert code == 2
    document = json.loads(out)
    # "wartable odds skirmish.yaml attack --set " is 41 characters; odds= 5 more: the 0 in column 47
    assert document == {
        "ok": False, "exit_code": 2, "error": "usage",
        "diagnostics": [{
            "file": "<command line>", "line": 1, "column": 47,
            "message": "--set odds: input 'odds' must be at least 1, not 0",
            "line_text": "wartable odds skirmish.yaml attack --set odds=0 --json", "severity": "error",
        }],
    }
    assert err.startswith("<command line>:1:47: ")  # people still read it on stderr


def test_rule_violation_as_json(skirmish):
    document = json_of(["run", skirmish, "attack", "--set", "odds=12", "--dice", "4", "--json"], code=1)
    assert (document["error"], document["exit_code"]) == ("rule_violation", 1)
    (d,) = document["diagnostics"]
    assert (d["file"], d["line"], d["column"]) == ("skirmish.yaml", REQUIRE_LINE, 7)
    assert "Odds above 9 to 1 are not allowed" in d["message"]


def test_ruleset_error_as_json(skirmish):
    document = json_of(["odds", "broken.yaml", "attack", "--json"], code=1)
    assert document["error"] == "ruleset"
    assert any((d["line"], d["column"]) == (3, 1) for d in document["diagnostics"])


def test_argparse_error_as_json(skirmish):
    code, out, _ = run(["list", skirmish, "--bogus", "--json"])
    assert code == 2
    document = json.loads(out)
    # "wartable list skirmish.yaml " is 28 characters: --bogus starts in column 29
    assert (document["error"], document["diagnostics"][0]["column"]) == ("usage", 29)
    assert "unrecognized arguments: --bogus" in document["diagnostics"][0]["message"]


EVERY_COMMAND = [
    ["check", "skirmish.yaml"], ["test", "skirmish.yaml"], ["list", "skirmish.yaml"], ["show", "skirmish.yaml", "losses"],
    ["run", "skirmish.yaml", "attack", "--set", "odds=1", "--seed", "1"], ["run", "skirmish.yaml", "attack", "--set", "odds=1", "--n", "50"],
    ["odds", "skirmish.yaml", "attack", "--set", "odds=1"], ["odds", "skirmish.yaml", "attack", "--set", "odds=1", "--what-if", "drm+1"],
    ["diff", "skirmish.yaml", "bloody.yaml"], ["sweep", "skirmish.yaml", "attack", "--over", "odds=1,2"],
    ["aid", "skirmish.yaml"], ["schema"],
]


@pytest.mark.parametrize("argv", EVERY_COMMAND, ids=lambda argv: argv[0])
def test_every_command_answers_json(skirmish, argv):
    code, out, err = run(argv + ["--json"])
    assert code in (0, 1), err  # test exits 1: one example fails on purpose
    assert isinstance(json.loads(out), dict)
