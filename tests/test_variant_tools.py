"""Variants as a modder uses them: override.examples keyed by name (the list form kept), `diff` wording
added inputs and changed examples and showing the inputs only one side has, `--what-if` on one modifier
entry, and schema errors that quote YAML rather than Python."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter import load_ruleset, odds
from interpreter.cli import main
from interpreter.errors import RulesetError

VARIANT = """\
wartable: 1
name: v
title: "variant"
source: "tests"
version: "1"
extends: eto
override:
  examples:
{examples}
  procedures:
    interception:
      inputs:
        zones: {{type: int, min: 1, default: 3}}
add:
  procedures:
    interception:
      inputs:
        weather: {{type: enum, values: [calm, storm], default: calm}}
"""
KEYED = '''    "Seven zones, a 4 is listed":
      dice: [5]'''
LISTED = '''    - name: "Seven zones, a 4 is listed"
      dice: [5]'''


def run(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def write(folder: Path, examples: str) -> Path:
    path = folder / "v.yaml"
    path.write_text(VARIANT.format(examples=examples), encoding="utf-8")
    return path


@pytest.mark.parametrize("examples", [KEYED, LISTED], ids=["keyed by name", "a list naming each"])
def test_override_examples_keyed_by_name_or_listed(tmp_path, examples):
    ruleset = load_ruleset(write(tmp_path, examples))
    changed = next(e for e in ruleset.examples if e.name == "Seven zones, a 4 is listed")
    assert changed.data["dice"] == [5] and changed.data["inputs"] == {"zones": 7}  # only dice overridden


def test_an_override_of_a_misspelt_example_is_pointed_at(tmp_path):
    path = write(tmp_path, '''    "Seven zones, a 4 is lsted":
      dice: [5]''')
    with pytest.raises(RulesetError) as error:
        load_ruleset(path)
    (found,) = error.value.diagnostics
    # line 9 is the key: `    "Seven zones, a 4 is lsted":`, its first character (the quote) in column 5
    assert (found.line, found.column) == (9, 5)
    assert "no example 'Seven zones, a 4 is lsted' in eto" in found.message and "did you mean 'Seven zones, a 4 is listed'" in found.message


def test_diff_words_added_inputs_changed_examples_and_inputs_only_one_side_has(tmp_path):
    path = write(tmp_path, KEYED)
    code, out, _ = run(["diff", "eto", str(path)])
    assert code == 0
    assert out.splitlines() == [
        "eto -> v: 3 changes",
        "  procedure interception: input weather added (enum(calm, storm), default calm)",
        "  procedure interception: input zones changed (int 1.., required -> int 1.., default 3)",
        "  example changed: Seven zones, a 4 is listed (dice)",
    ]
    code, out, _ = run(["diff", "eto", str(path), "interception", "--set", "zones=7", "--set", "weather=storm"])
    assert code == 0 and "only v has: weather = storm" in out.splitlines()
    code, out, _ = run(["diff", "eto", str(path), "interception", "--set", "zones=7", "--json"])
    document = json.loads(out)
    assert document["inputs_only_in"] == {"eto": {}, "v": {"weather": "calm"}}
    assert [c["kind"] for c in document["changes"]] == ["added", "changed", "changed"]


def test_what_if_changes_one_modifier_entry():
    # eia shot_drms: heavy shooter +1. A heavy ship at a warship with +1 sinks on 5-6 (6 or more), damages on 4 (a 5):
    # 1/3, 1/6. The entry at +2 instead: sinks on 4-6 -> 1/2, damages on 3 -> 1/6, no effect 1-2 -> 1/3.
    code, out, err = run(["odds", "eia", "shot", "--set", "shooter=heavy", "--set", "target=warship",
                          "--what-if", "shot_drms.heavy=+2", "--json"])
    assert code == 0, err
    rows = {row["name"]: (Fraction(row["before"]), Fraction(row["after"])) for row in json.loads(out)["outcomes"]}
    assert rows == {"sunk": (Fraction(1, 3), Fraction(1, 2)), "damaged": (Fraction(1, 6), Fraction(1, 6)),
                    "no_effect": (Fraction(1, 2), Fraction(1, 3))}
    # +1 on top of the entry's +1 is the same +2
    code, out, _ = run(["odds", "eia", "shot", "--set", "shooter=heavy", "--set", "target=warship", "--what-if", "shot_drms.heavy+1", "--json"])
    assert {row["name"]: Fraction(row["after"]) for row in json.loads(out)["outcomes"]}["sunk"] == Fraction(1, 2)
    # the ruleset itself is not changed
    eia = load_ruleset("eia")
    assert odds(eia, "shot", {"shooter": "heavy", "target": "warship"}).probability("sunk") == Fraction(1, 3)


def test_what_if_on_a_missing_entry_names_the_entries():
    code, _, err = run(["odds", "eia", "shot", "--set", "shooter=heavy", "--set", "target=warship", "--what-if", "shot_drms.hevy=2"])
    assert code == 2
    first = err.splitlines()[0]
    # `wartable odds eia shot --set shooter=heavy --set target=warship --what-if shot_drms.` is 84 characters
    assert first.startswith("<command line>:1:85: --what-if: modifier list 'shot_drms' has no entry 'hevy' (entries: heavy,")


def test_schema_errors_quote_yaml_not_python(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(
        'wartable: 1\nname: r\ntitle: "t"\nsource: "s"\nversion: "1"\n'
        "tables:\n  t:\n    title: \"T\"\n    rule: \"r\"\n    rows: {name: roll}\n    edges: {rows: true}\n    cells: [miss, hit]\n",
        encoding="utf-8",
    )
    code, _, err = run(["check", str(path)])
    assert code == 1
    assert "tables.t.cells: [miss, hit] is not of type 'object'" in err
    assert "['miss', 'hit']" not in err and "True" not in err
    assert "tables.t.edges.rows: true is not one of [clamp, error]" in err
