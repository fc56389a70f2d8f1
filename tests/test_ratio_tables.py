"""Odds-ratio columns (1:2, 3:1, 6:1+), the classic combat results table.

The table here is illustrative (written for these tests, not from a seed);
every expected column is derived by hand from the rule "odds round down to
the table's columns, in the defender's favour".
"""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter import RulesetError, RuleViolation, load_ruleset, odds, resolve
from interpreter.cli import main

HEADER = 'wartable: 1\nname: crt\ntitle: "Odds CRT"\nsource: "tests"\nversion: "1"\n'

CRT = HEADER + """\
tables:
  crt:
    title: "Combat Results Table"
    rule: "illustrative odds CRT"
    example: true
    rows: {name: "Die roll", dice: 1d6}
    columns:
      name: "Odds"
      entries: ["1:3-", "1:2", "1:1", "2:1", "3:1", "4:1", "5:1", "6:1+"]
    edges: {rows: error, columns: clamp}
    cells:
      "1": [AE, AE, AR, AR, EX, EX, DR, DE]
      "2": [AE, AR, AR, EX, EX, DR, DE, DE]
      "3": [AE, AR, EX, EX, DR, DR, DE, DE]
      "4": [AR, AR, EX, DR, DR, DE, DE, DE]
      "5": [AR, EX, DR, DR, DE, DE, DE, DE]
      "6": [AR, EX, DR, DE, DE, DE, DE, DE]
procedures:
  attack:
    title: attack
    rule: "illustrative"
    inputs:
      attack: {type: int, min: 0}
      defense: {type: int, min: 1}
      shift: {type: int, default: 0}
    body: |
      let odds = ratio(attack, defense)
      let result = lookup crt(row = 1d6, column = odds, shift = shift)
      outcome done(result = result, good = odds >= 3)
"""


@pytest.fixture
def crt(tmp_path: Path):
    path = tmp_path / "crt.yaml"
    path.write_text(CRT, encoding="utf-8")
    return load_ruleset(path)


def column_of(ruleset, attack: int, defense: int, shift: int = 0) -> str:
    """The odds column the lookup used, as the trace names it."""
    play = resolve(ruleset, "attack", {"attack": attack, "defense": defense, "shift": shift}, dice=[1])
    lookup = next(e for e in play.trace if e.kind == "lookup")
    return dict(lookup.data)["column"]


@pytest.mark.parametrize(
    "attack, defense, column",
    [
        (10, 5, "2:1"),  # exactly 2:1
        (17, 5, "3:1"),  # 3.4 rounds down to 3:1
        (9, 5, "1:1"),  # 1.8 rounds down to 1:1
        (5, 9, "1:2"),  # 0.56 is at least 1:2 (0.5), below 1:1
        (5, 11, "1:3-"),  # 0.45 is below 1:2: the open first column
        (1, 10, "1:3-"),  # 0.1: still the open first column
        (6, 1, "6:1+"),  # 6:1 exactly
        (30, 1, "6:1+"),  # everything above rounds down to the last column
    ],
)
def test_odds_round_down_to_the_tables_columns(crt, attack, defense, column):
    assert column_of(crt, attack, defense) == column


def test_column_shift_moves_along_the_odds(crt):
    assert column_of(crt, 17, 5, shift=1) == "4:1"  # 3:1 one right
    assert column_of(crt, 17, 5, shift=-2) == "1:1"  # 3:1 two left
    assert column_of(crt, 5, 1, shift=3) == "6:1+"  # 5:1 three right runs off: the table clamps


def test_exact_odds_on_an_odds_column(crt):
    # 17:5 is the 3:1 column: rows 1-6 read EX, EX, DR, DR, DE, DE -> 2 of 6 each
    distribution = odds(crt, "attack", {"attack": 17, "defense": 5})
    # (plain cells are the printed strings)
    assert distribution.probability("done", result="EX") == Fraction(1, 3)
    assert distribution.probability("done", result="DR") == Fraction(1, 3)
    assert distribution.probability("done", result="DE") == Fraction(1, 3)


def test_odds_compare_with_numbers(crt):
    # 17:5 >= 3 (3.4); 14:5 is 2.8, below 3
    assert resolve(crt, "attack", {"attack": 17, "defense": 5}, dice=[1]).outcome.get("good") is True
    assert resolve(crt, "attack", {"attack": 14, "defense": 5}, dice=[1]).outcome.get("good") is False


def test_ratio_in_json_is_written_as_odds(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(
        HEADER + "procedures:\n  p:\n    title: t\n    rule: r\n    body: |\n      outcome done(odds = ratio(17, 5))\n", encoding="utf-8"
    )
    out, err = io.StringIO(), io.StringIO()
    assert main(["run", str(path), "p", "--json"], stdout=out, stderr=err) == 0
    assert json.loads(out.getvalue())["outcome"]["fields"]["odds"] == "17:5"


def test_odds_below_a_closed_first_column_are_off_the_table(tmp_path):
    # first column 1:2 without "-", and edges: error -> 1:3 odds stop with a positioned error
    text = HEADER + """\
tables:
  crt:
    title: "Combat Results Table"
    rule: "illustrative odds CRT"
    rows: {name: "Die roll", dice: 1d6}
    columns: {name: "Odds", entries: ["1:2", "1:1", "2:1"]}
    edges: {rows: error, columns: error}
    cells:
      "1-6": [AR, EX, DR]
procedures:
  attack:
    title: attack
    rule: "illustrative"
    inputs:
      attack: {type: int, min: 0}
      defense: {type: int, min: 1}
      shift: {type: int, default: 0}
    body: |
      let odds = ratio(attack, defense)
      let result = lookup crt(row = 1d6, column = odds, shift = shift)
      outcome done(result = result, good = odds >= 3)
"""
    path = tmp_path / "crt.yaml"
    path.write_text(text, encoding="utf-8")
    ruleset = load_ruleset(path)
    with pytest.raises(RuleViolation) as info:
        resolve(ruleset, "attack", {"attack": 1, "defense": 3}, dice=[1])
    (diagnostic,) = info.value.diagnostics
    assert "odds of 1:3 are off the table" in diagnostic.message
    # the lookup is on the body's second line; `      let result = ` is 19 characters: column 20
    assert diagnostic.line == text.splitlines().index("      let result = lookup crt(row = 1d6, column = odds, shift = shift)") + 1
    assert diagnostic.column == 20


@pytest.mark.parametrize(
    "entries, message",
    [
        ('["1:2", "1:1", "1:1", "3:1"]', "odds column '1:1' must be higher than '1:1' before it"),
        ('["1:1", "6:1+", "7:1", "8:1"]', "only the last odds column may be open upwards ('6:1+')"),
        ('["1:4", "1:3-", "1:2", "1:1"]', "only the first odds column may be open downwards ('1:3-')"),
    ],
)
def test_badly_ordered_odds_columns_are_rejected(tmp_path, entries, message):
    text = HEADER + (
        "tables:\n  t:\n    title: t\n    rule: r\n    rows: {name: roll, dice: 1d6}\n"
        f"    columns: {{name: odds, entries: {entries}}}\n    edges: {{rows: error, columns: clamp}}\n"
        '    cells:\n      "1-6": [A, B, C, D]\n'
    )
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    (diagnostic,) = info.value.diagnostics
    assert message in diagnostic.message
    assert diagnostic.line == 11  # the columns line: 5 header lines + tables/t/title/rule/rows
