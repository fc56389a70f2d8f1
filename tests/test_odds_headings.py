"""Odds tables as printed: "1-1"/"3-1" headings, a printed label over odds, and ``below:``.

The table is a small Avalon-Hill-style CRT written for these tests (not from
a seed).  Every expected probability is counted by hand from its cells: a
column holds six cells, one per face of 1d6, so a result's chance is the
number of its cells in the column read, over 6.

    odds  column   faces 1..6
    1-2   "1-2"    AR AE AE AE AE AE
    1-1   "1-1"    AR AR AE AE AE AE     (printed label over the odds 1:1)
    2-1   "2-1"    EX AR AR AE AE AE
    3-1   "3-1"    DR EX AR AR AE AE
    4-1   "4-1"    DE DR EX AR AR AE
    5-1   "5-1"    DE DE DR EX AR AR
    6-1+  "6-1+"   DE DE DE DR EX AR
"""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter import RulesetError, RuleViolation, load_ruleset, odds, resolve
from interpreter.cli import main

HEADER = 'wartable: 1\nname: ah\ntitle: "AH CRT"\nsource: "tests"\nversion: "1"\n'


def crt(below: str | None = None, edge: str = "clamp", first: str = '"1-2"') -> str:
    below_line = f"      below: {below}\n" if below is not None else ""
    return HEADER + f"""\
tables:
  crt:
    title: "Combat Results Table"
    rule: "illustrative"
    example: true
    rows: {{name: "Die roll", dice: 1d6}}
    columns:
      name: "Odds"
      odds: true
{below_line}      entries: [{first}, {{label: "1-1", range: "1:1"}}, "2-1", "3-1", "4-1", "5-1", "6-1+"]
    edges: {{rows: error, columns: {edge}}}
    cells:
      "1": [AR, AR, EX, DR, DE, DE, DE]
      "2": [AE, AR, AR, EX, DR, DE, DE]
      "3": [AE, AE, AR, AR, EX, DR, DE]
      "4": [AE, AE, AE, AR, AR, EX, DR]
      "5": [AE, AE, AE, AE, AR, AR, EX]
      "6": [AE, AE, AE, AE, AE, AR, AR]
procedures:
  attack:
    title: attack
    rule: "illustrative"
    inputs:
      attack: {{type: int, min: 0}}
      defense: {{type: int, min: 1}}
      shift: {{type: int, default: 0}}
    body: |
      let result = lookup crt(row = 1d6, column = ratio(attack, defense), shift = shift)
      outcome done(result = result)
"""


def load(tmp_path: Path, text: str):
    path = tmp_path / "ah.yaml"
    path.write_text(text, encoding="utf-8")
    return load_ruleset(path)


def chances(ruleset, attack: int, defense: int, shift: int = 0) -> dict[str, Fraction]:
    distribution = odds(ruleset, "attack", {"attack": attack, "defense": defense, "shift": shift})
    return {str(outcome.get("result")): p for outcome, p in distribution.outcomes}


def column_of(ruleset, attack: int, defense: int, shift: int = 0) -> str:
    play = resolve(ruleset, "attack", {"attack": attack, "defense": defense, "shift": shift}, dice=[1])
    return dict(next(e for e in play.trace if e.kind == "lookup").data)["column"]


@pytest.mark.parametrize(
    "attack, defense, column",
    [
        (3, 1, "3-1"),  # 3 against 1 reads the printed 3-1 column (3:1)
        (7, 2, "3-1"),  # 3.5 rounds down to 3:1
        (1, 1, "1-1"),  # the printed label over the odds 1:1
        (5, 9, "1-2"),  # 0.56: at least 1:2, below 1:1
        (12, 2, "6-1+"),  # 6:1 exactly
        (40, 1, "6-1+"),  # above the last column: the last
    ],
)
def test_printed_headings_read_as_odds(tmp_path, attack, defense, column):
    assert column_of(load(tmp_path, crt()), attack, defense) == column


def test_exact_odds_on_printed_columns(tmp_path):
    ruleset = load(tmp_path, crt())
    # 3-1 column: DR EX AR AR AE AE -> AE 2/6, AR 2/6, EX 1/6, DR 1/6
    assert chances(ruleset, 3, 1) == {"AE": Fraction(1, 3), "AR": Fraction(1, 3), "EX": Fraction(1, 6), "DR": Fraction(1, 6)}
    # 1-1 column: AR AR AE AE AE AE -> AE 4/6, AR 2/6
    assert chances(ruleset, 1, 1) == {"AE": Fraction(2, 3), "AR": Fraction(1, 3)}


def test_below_a_named_result(tmp_path):
    ruleset = load(tmp_path, crt(below="AE"))
    # 1 against 9 is below 1-2: AE with probability 1 (not the 1-2 column's 5/6)
    assert chances(ruleset, 1, 9) == {"AE": 1}
    assert column_of(ruleset, 1, 9) == "below 1-2"
    # a shift of +1 from below reaches the first column: 1-2 reads AR AE AE AE AE AE -> AE 5/6, AR 1/6
    assert chances(ruleset, 1, 9, shift=1) == {"AE": Fraction(5, 6), "AR": Fraction(1, 6)}
    # a shift of -1 from 1-2 reaches the below result; -3 stays there
    assert chances(ruleset, 1, 2, shift=-1) == {"AE": 1}
    assert chances(ruleset, 1, 2, shift=-3) == {"AE": 1}
    # odds on the table are untouched: 1-2 itself
    assert chances(ruleset, 1, 2) == {"AE": Fraction(5, 6), "AR": Fraction(1, 6)}


def test_below_clamp_reads_the_first_column(tmp_path):
    # clamp even where edges.columns says error: below: speaks for odds under the first column
    ruleset = load(tmp_path, crt(below="clamp", edge="error"))
    assert chances(ruleset, 1, 9) == {"AE": Fraction(5, 6), "AR": Fraction(1, 6)}


def test_below_off_table_is_an_error_even_when_the_edges_clamp(tmp_path):
    ruleset = load(tmp_path, crt(below="off_table", edge="clamp"))
    with pytest.raises(RuleViolation) as info:
        resolve(ruleset, "attack", {"attack": 1, "defense": 9}, dice=[1])
    assert "odds of 1:9 are off the table" in info.value.diagnostics[0].message
    # a shift past the last column still clamps
    assert column_of(ruleset, 6, 1, shift=2) == "6-1+"


def test_default_without_below_is_unchanged(tmp_path):
    # no below: clamp edges read the first column for odds under it, as before
    ruleset = load(tmp_path, crt())
    assert chances(ruleset, 1, 9) == {"AE": Fraction(5, 6), "AR": Fraction(1, 6)}


def test_show_prints_the_printed_labels(tmp_path):
    path = tmp_path / "ah.yaml"
    path.write_text(crt(below="AE"), encoding="utf-8")
    out = io.StringIO()
    assert main(["show", str(path), "crt"], stdout=out, stderr=io.StringIO()) == 0
    assert "1-2  1-1  2-1  3-1  4-1  5-1  6-1+" in out.getvalue()


def test_below_result_is_read_as_a_cell(tmp_path):
    # with results: the below value is a declared code; an undeclared one is refused at its line
    text = crt(below="XX").replace(
        '    cells:\n', '    results:\n      fields: {attacker_eliminated: {type: bool}}\n'
        '      codes: {AE: {meaning: a, set: {attacker_eliminated: true}}, AR: {meaning: b}, EX: {meaning: c}, DR: {meaning: d}, DE: {meaning: e}}\n    cells:\n', 1)
    with pytest.raises(RulesetError) as info:
        load(tmp_path, text)
    (diagnostic,) = info.value.diagnostics
    assert "'XX' is not a declared result code" in diagnostic.message
    assert diagnostic.line == text.splitlines().index("      below: XX") + 1
    ruleset = load(tmp_path, text.replace("below: XX", "below: AE"))
    distribution = odds(ruleset, "attack", {"attack": 1, "defense": 9})
    ((outcome, p),) = distribution.outcomes
    assert p == 1 and outcome.get("result").get("attacker_eliminated") is True


@pytest.mark.parametrize(
    "text, fragment",
    [
        (crt(first='"1-3-"', below="AE"), "below: never applies: the first column '1-3-' is open downwards"),
        (crt().replace("      odds: true\n", ""), "heading '2-1' runs backwards (did you mean 2:1?"),
        (crt().replace('      odds: true\n', '').replace('"Die roll", dice: 1d6}', '"Die roll", dice: 1d6, odds: true}'), "rows: odds: is for odds columns"),
    ],
    ids=["below-open-first", "dashed-without-odds", "odds-on-rows"],
)
def test_heading_mistakes_are_refused(tmp_path, text, fragment):
    with pytest.raises(RulesetError) as info:
        load(tmp_path, text)
    assert any(fragment in d.message for d in info.value.diagnostics), [d.message for d in info.value.diagnostics]


def test_show_and_diff_say_what_odds_below_the_first_column_read(tmp_path):
    base, variant = tmp_path / "base.yaml", tmp_path / "variant.yaml"
    base.write_text(crt(below="AE"), encoding="utf-8")
    variant.write_text(crt(below="off_table"), encoding="utf-8")
    stdout = io.StringIO()
    assert main(["show", str(base), "crt"], stdout=stdout, stderr=io.StringIO()) == 0
    assert "odds below 1-2: AE" in stdout.getvalue().splitlines()
    stdout = io.StringIO()
    assert main(["diff", str(base), str(variant)], stdout=stdout, stderr=io.StringIO()) == 0
    assert "  table crt: odds below the first column: AE -> off_table" in stdout.getvalue().splitlines()
    stdout = io.StringIO()
    assert main(["show", str(variant), "crt", "--json"], stdout=stdout, stderr=io.StringIO()) == 0
    import json

    assert json.loads(stdout.getvalue())["columns"]["below"] == "off_table"


def test_lint_warnings_are_github_warning_annotations():
    # tests/bad_rulesets/lint_unused_constant.yaml: constant mine_cost (line 8, column 3) is never used
    stdout = io.StringIO()
    path = Path(__file__).parent / "bad_rulesets" / "lint_unused_constant.yaml"
    assert main(["check", str(path), "--format", "github"], stdout=stdout, stderr=io.StringIO()) == 0
    (annotation, summary) = stdout.getvalue().splitlines()
    assert annotation.startswith("::warning file=") and ",line=8,col=3," in annotation
    assert annotation.endswith("::constant 'mine_cost' is never used")
    assert summary == "wartable check: 1 rulesets, 0 failed"
