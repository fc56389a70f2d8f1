"""Probabilities longer than Python writes: every printer still prints (issue 21, item 4b).

Python refuses ``str(int)`` past 4,300 digits (``sys.set_int_max_str_digits``),
so a fraction that long used to crash ``odds``, ``--json``, ``--digits``,
``--by``, ``test``, ``aid``, ``--what-if`` (and ``sweep``, ``diff``) with a
ValueError.  The procedure below reaches such a fraction within the default
budgets: it rolls a d1000 up to 1,450 times and stops at the first face that
is not a 1 (the states are only the loop counter and the count of ones).

Worked by hand:

* P(all) = (1/1000)**1450 = 10**-4350: the denominator is a 1 and 4,350 zeros
  (4,351 digits), past the limit.  Shown as ``≈1.0e-4350``.
* P(some) = 1 - 10**-4350 = (10**4350 - 1) / 10**4350: 4,350 nines over the
  same denominator (nines end in 9, so nothing cancels).  Shown ``≈1.0e+0``.
* ``all`` carries n = 1, ``some`` n = 0, so mean n = P(all) = 10**-4350.
* With the constant ``target`` at 2 (``--what-if target=2``) a roll succeeds on
  1 or 2: P(all) = (2/1000)**1450 = 1/500**1450; 500**1450 = 5**4350 * 10**1450
  has 1450 + 4350*log10(5) = 1450 + 3040.5 -> 4,491 digits.  The change is
  1/500**1450 - 1/1000**1450 = (2**1450 - 1)/10**4350 (2**1450 - 1 is odd and
  not a multiple of 5, since 2**1450 ends in 4: 1450 = 4*362 + 2): 437 digits
  over 4,351; its leading digits are those of 2**1450 = 10**436.49... =
  3.09e436, so the change is ≈3.1e-3914.
* With 1,449 rolls (the sweep, the heat map): P(all) = 10**-4347.
"""

from __future__ import annotations

import io
import json
import sys
from fractions import Fraction
from pathlib import Path
from xml.etree import ElementTree

import pytest

from interpreter.cli import main
from interpreter.results import (
    MAX_SHOWN_DIGITS,
    approximate,
    fraction,
    int_from_text,
    int_text,
    parse_fraction,
    shown_fraction,
)

RULESET = """\
wartable: 1
name: long
title: "Long fractions"
source: "tests"
version: "1"
constants:
  target:
    value: 1
    rule: "a roll succeeds at or under the target"
procedures:
  p:
    title: "up to ROLLS d1000, stopping at the first failure"
    rule: "r"
    inputs:
      rolls: {type: int, default: 1450, min: 1, max: 1450}
    body: |
      let ones = 0
      for i in 1..rolls do
        if 1d1000 <= target then
          set ones = ones + 1
        else
          break
        end
      end
      if ones == rolls then
        outcome all(n = 1)
      else
        outcome some(n = 0)
      end
examples:
  - name: "a wrong expectation"
    rule: "r"
    procedure: p
    odds:
      - {outcome: all, probability: "1/2"}
aids:
  - title: "All ones"
    procedure: p
    rows: {over: rolls, values: [1449, 1450], title: "Rolls"}
    show: {probability: all}
"""

ALL = "1/1" + "0" * 4350
SOME = "9" * 4350 + "/1" + "0" * 4350


@pytest.fixture(scope="module")
def ruleset_path(tmp_path_factory) -> str:
    path = Path(tmp_path_factory.mktemp("long")) / "long.yaml"
    path.write_text(RULESET, encoding="utf-8")
    return str(path)


def run(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_the_fraction_is_past_what_python_writes():
    """The premise: str() of the denominator fails (else these tests would prove nothing)."""
    with pytest.raises(ValueError):
        str(10**4350)


# ---- every printer ---------------------------------------------------------------------------


def test_odds_text_shows_long_fractions_approximated(ruleset_path):
    code, out, err = run(["odds", ruleset_path, "p"])
    assert (code, err) == (0, "")
    assert "  all(n = 1)   ≈1.0e-4350    0.0000%" in out
    # the decimal rule (render.MAX_FRACTION_CHARS): a fraction past 20 characters is put away beside a
    # percentage that says enough; approximated only where the percentage reads 0 (the line above)
    assert "  some(n = 0)              100.0000%" in out
    assert "mean n  ≈1.0e-4350  (0.0000)" in out
    assert max(len(line) for line in out.splitlines()) < 100


def test_odds_json_keeps_the_exact_fractions(ruleset_path):
    code, out, _ = run(["odds", ruleset_path, "p", "--json"])
    assert code == 0
    document = json.loads(out)
    probabilities = {o["name"]: o["probability"] for o in document["outcomes"]}
    assert probabilities == {"all": ALL, "some": SOME}
    assert document["means"]["n"]["mean"] == ALL
    assert {o["name"]: o["p"] for o in document["outcomes"]} == {"all": 0.0, "some": 1.0}


def test_odds_digits(ruleset_path):
    code, out, _ = run(["odds", ruleset_path, "p", "--digits", "3"])
    assert code == 0
    assert "  all(n = 1)   0.000" in out and "  some(n = 0)  1.000" in out


def test_odds_by(ruleset_path):
    code, out, _ = run(["odds", ruleset_path, "p", "--by", "n"])
    assert code == 0
    assert "  n = 1  ≈1.0e-4350    0.0000%" in out
    code, out, _ = run(["odds", ruleset_path, "p", "--by", "n", "--json"])
    assert {m["values"]["n"]: m["probability"] for m in json.loads(out)["marginal"]} == {1: ALL, 0: SOME}


def test_odds_what_if(ruleset_path):
    # One budget serves both computations: each spends about 1,450 x 1,000 units (a d1000 a roll).
    more = ["--max-work", "4000000"]
    code, out, err = run(["odds", ruleset_path, "p", "--what-if", "target=2", *more])
    assert (code, err) == (0, ""), err
    line = next(line for line in out.splitlines() if line.startswith("  all"))
    assert "≈1.0e-4350 (0.00%)" in line and "≈2.6e-3914 (0.00%)" not in line
    assert "+≈3.1e-3914 (+0.00 pts)" in line
    code, out, _ = run(["odds", ruleset_path, "p", "--what-if", "target=2", "--json", *more])
    row = next(r for r in json.loads(out)["outcomes"] if r["name"] == "all")
    assert row["before"] == ALL
    # 1/500**1450 exactly, and the change (2**1450 - 1)/10**4350 (see the module's docstring)
    assert parse_fraction(row["after"]) == Fraction(1, 500**1450)
    assert parse_fraction(row["change"]) == Fraction(2**1450 - 1, 10**4350)
    assert row["change"].startswith("+")


def test_test_command_message(ruleset_path):
    code, out, err = run(["test", ruleset_path])
    assert code == 1
    assert "FAIL long: a wrong expectation" in out
    assert "expected P(all) = 1/2, got ≈1.0e-4350 (0)" in err
    code, out, _ = run(["test", ruleset_path, "--format", "junit"])
    ElementTree.fromstring(out)
    code, out, _ = run(["test", ruleset_path, "--format", "github"])
    assert "got ≈1.0e-4350" in out


def test_aid_heat_map(ruleset_path):
    code, out, err = run(["aid", ruleset_path, "--max-work", "4000000"])  # two computations, one budget
    assert (code, err) == (0, "")
    # the tooltips: 10**-4347 (1,449 rolls) and 10**-4350 (1,450)
    assert 'title="≈1.0e-4347"' in out and 'title="≈1.0e-4350"' in out


def test_sweep_every_format(ruleset_path):
    argv = ["sweep", ruleset_path, "p", "--over", "rolls=1449..1450", "--max-work", "4000000"]  # two computations, one budget
    code, out, _ = run(argv)
    assert code == 0
    rows = [line.split() for line in out.splitlines()[-2:]]
    # rolls, all, some, mean n
    assert rows == [["1449", "≈1.0e-4347", "≈1.0e+0", "≈1.0e-4347"], ["1450", "≈1.0e-4350", "≈1.0e+0", "≈1.0e-4350"]]
    code, out, _ = run(argv + ["--format", "markdown"])
    assert "| 1450 | ≈1.0e-4350 | ≈1.0e+0 | ≈1.0e-4350 |" in out
    code, out, _ = run(argv + ["--format", "csv", "--exact"])
    last = out.splitlines()[-1].split(",")
    assert last == ["1450", ALL, SOME, ALL]  # --exact: the whole fractions, however long
    code, out, _ = run(argv + ["--format", "csv"])
    last = out.splitlines()[-1].split(",")
    # decimals by default: 10**-4350 is below any float, so it is written from the fraction (not 0.0);
    # 1 - 10**-4350 is the float 1.0
    assert last == ["1450", "1E-4350", "1.0", "1E-4350"]
    code, out, _ = run(argv + ["--json"])
    assert [o["probability"] for o in json.loads(out)["rows"][1]["outcomes"]] == [ALL, SOME]


def test_diff_with_a_procedure(ruleset_path):
    code, out, _ = run(["diff", ruleset_path, ruleset_path, "p", "--max-work", "4000000"])  # two computations, one budget
    assert code == 0
    assert "≈1.0e-4350 (0.00%)" in out


def test_the_int_digit_limit_is_left_as_it_was(ruleset_path):
    before = sys.get_int_max_str_digits()
    run(["odds", ruleset_path, "p", "--json"])
    assert sys.get_int_max_str_digits() == before


# ---- the helpers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n",
    [0, 7, 10**599, 10**600 - 1, 2**1990, 2**1991, 10**4350, 3**20000, 10**9000 + 12345],
    ids=["0", "7", "10**599", "10**600-1", "2**1990", "2**1991", "10**4350", "3**20000", "10**9000+12345"],
)
def test_int_text_and_back(n):
    text = int_text(n)
    assert text.isdigit() and (text == "0" or not text.startswith("0"))
    assert int_from_text(text) == n
    assert int_text(-n) == ("-" + text if n else "0")


def test_int_text_digits_by_hand():
    assert int_text(10**4350) == "1" + "0" * 4350
    assert int_text(10**4350 - 1) == "9" * 4350
    assert int_text(10**5000 + 10**2000) == "1" + "0" * 2999 + "1" + "0" * 2000


@pytest.mark.parametrize(
    "p, shown",
    [
        (Fraction(1, 1000**1450), "≈1.0e-4350"),
        (Fraction(12, 1000), "≈1.2e-2"),        # 0.012
        (Fraction(996, 1000), "≈1.0e+0"),       # 0.996 rounds up to 1.0, one place more
        (Fraction(-5, 3), "≈-1.7e+0"),          # 1.666... rounds half up to 1.7
        (Fraction(1, 8), "≈1.3e-1"),            # 0.125: half up
        (Fraction(10**70 + 1, 7), "≈1.4e+69"),  # 1.428...e69
        (Fraction(0), "0"),
    ],
    ids=["10**-4350", "0.012", "0.996", "-5/3", "1/8", "(10**70+1)/7", "0"],
)
def test_approximate(p, shown):
    assert approximate(p) == shown


def test_shown_fraction_threshold():
    short = "1/" + "9" * MAX_SHOWN_DIGITS
    assert shown_fraction(short) == short
    assert shown_fraction("1/1" + "0" * MAX_SHOWN_DIGITS) == f"≈1.0e-{MAX_SHOWN_DIGITS}"
    assert shown_fraction("3/1") == "3"
    assert shown_fraction("+" + "2" * 70 + "/1") == "≈+2.2e+69"
    assert fraction(Fraction(-1, 10**5000)) == "-1/1" + "0" * 5000
