"""An example's expected records are read like its input records: fields left out take their defaults.

interpreter/expectations.py.  The ruleset below fires one ship at another: the shooter is marked
``fired``, and a die of 4 or more sinks the target (faces 4, 5, 6 of 6: 1/2).  Every expectation is
worked out by hand from that rule and the ship type's defaults (``status: afloat``, ``fired: false``;
``name`` has no default).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from interpreter import load_ruleset
from interpreter.cli import main
from interpreter.examples import run_examples
from interpreter.expectations import agrees
from interpreter.values import Record

RULESET = textwrap.dedent(
    """\
    wartable: 1
    name: expected_records
    title: "Expected records"
    source: "tests"
    version: "1"
    types:
      ship:
        description: "A ship."
        fields:
          name: {type: str, description: "Its name (no default)."}
          status: {type: enum, values: [afloat, sunk], default: afloat, description: "Afloat or sunk."}
          fired: {type: bool, default: false, description: "It has fired."}
    procedures:
      fire:
        title: "One ship fires at another"
        rule: "A die: 4 or more sinks the target."
        inputs:
          shooter: {type: ship, description: "The firing ship."}
          target: {type: ship, description: "The ship fired at."}
        body: |
          let fired_ships = [shooter with {fired = true}]
          if 1d6 >= 4 then
            outcome fired(ships = fired_ships, target = target with {status = "sunk"})
          end
          outcome fired(ships = fired_ships, target = target)
    examples:
    """
)

# The shooter fires; a 5 sinks the target (5 >= 4).
SUNK_BY_A_FIVE = (
    '  - name: "{name}"\n'
    "    procedure: fire\n"
    "    inputs: {{shooter: {{name: A}}, target: {{name: B}}}}\n"
    "    dice: [5]\n"
    "    expect: {{outcome: fired, fields: {fields}}}\n"
)


def _results(tmp_path: Path, *examples: tuple[str, str]) -> dict[str, bool]:
    path = tmp_path / "expected_records.yaml"
    path.write_text(RULESET + "".join(SUNK_BY_A_FIVE.format(name=name, fields=fields) for name, fields in examples))
    return {result.example.name: result.passed for result in run_examples(load_ruleset(path))}


def test_fields_left_out_of_an_expected_record_take_their_defaults(tmp_path: Path) -> None:
    results = _results(
        tmp_path,
        # the shooter: fired true (set), status afloat (default): both short and full forms hold
        ("short shooter", "{ships: [{name: A, fired: true}]}"),
        ("full shooter", "{ships: [{name: A, status: afloat, fired: true}]}"),
        # the target: sunk (a 5), fired false (default)
        ("short target", "{target: {name: B, status: sunk}}"),
    )
    assert results == {"short shooter": True, "full shooter": True, "short target": True}


def test_a_default_is_a_claim_not_a_wildcard(tmp_path: Path) -> None:
    results = _results(
        tmp_path,
        # fired is true: leaving it out claims the default, false, so this fails
        ("fired left out", "{ships: [{name: A}]}"),
        # the target is sunk by the 5: leaving status out claims afloat
        ("status left out", "{target: {name: B}}"),
        # name has no default: a record without it never agrees
        ("name left out", "{target: {status: sunk}}"),
        # a field the ship type does not have
        ("unknown field", "{target: {name: B, status: sunk, speed: 3}}"),
        # one ship expected where the list holds one: two never agree
        ("list too long", "{ships: [{name: A, fired: true}, {name: A, fired: true}]}"),
    )
    assert results == dict.fromkeys(results, False) and len(results) == 5


def test_odds_fields_complete_records_the_same_way(tmp_path: Path) -> None:
    path = tmp_path / "expected_records.yaml"
    path.write_text(RULESET + (
        '  - name: "Odds"\n'
        "    procedure: fire\n"
        "    inputs: {shooter: {name: A}, target: {name: B}}\n"
        "    odds:\n"
        # faces 4-6 of 6 sink: 1/2; faces 1-3 leave the target afloat (its default): 1/2
        '      - {outcome: fired, fields: {target: {name: B, status: sunk}}, probability: "1/2"}\n'
        '      - {outcome: fired, fields: {target: {name: B}}, probability: "1/2"}\n'
    ))
    [result] = run_examples(load_ruleset(path))
    assert result.passed, result.problems


def test_a_failing_short_record_is_reported_at_its_line_by_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "expected_records.yaml"
    path.write_text(RULESET + SUNK_BY_A_FIVE.format(name="fired left out", fields="{ships: [{name: A}]}"))
    assert main(["test", str(path)]) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    # RULESET is 26 lines; the example's expect is its 5th line: line 31; the list after "ships: " starts at column 46
    assert "expected_records.yaml:31:46: " in out and "expected ships = [{name: A}], got [{name: A, fired: yes}]" in out


def test_records_of_types_without_defaults_need_every_field() -> None:
    cell = Record("cell", {"hits": 1, "damage": 2})
    assert agrees(cell, {"hits": 1, "damage": 2}, {})
    assert not agrees(cell, {"hits": 1}, {})  # no declared type: nothing to complete it with
    assert not agrees((cell,), [{"hits": 1, "damage": 2}, {"hits": 1, "damage": 2}], {})
