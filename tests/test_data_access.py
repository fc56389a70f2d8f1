"""Results as data: ``Outcome.fields`` read by name, ``Distribution.to_records()``/``to_pandas()``.

``strike`` rolls one die: 1-4 miss (no fields), 5 hits for 2 damage (not critical), 6 hits for
3 damage (critical).  So by hand, most likely first:

    miss 4/6 = 2/3; hit(damage 2, critical false) 1/6; hit(damage 3, critical true) 1/6
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import odds, resolve
from interpreter.api import monte_carlo
from interpreter.cli import main
from interpreter.errors import UsageError

STRIKE_BODY = """
    let die = 1d6
    if die >= 5 then
      outcome hit(damage = die - 3, critical = die == 6)
    else
      outcome miss
    end
    """
STRIKE = procedure(STRIKE_BODY)


@pytest.fixture
def strike(make_ruleset):
    return make_ruleset({"strike": STRIKE})


def test_fields_read_by_name_and_still_iterate_as_pairs(strike):
    # scripted die 6: hit for 6 - 3 = 3 damage, critical
    outcome = resolve(strike, "strike", dice=[6], trace=False).outcome
    assert outcome.fields["damage"] == 3
    assert outcome.fields["critical"] is True
    assert "damage" in outcome.fields and "range" not in outcome.fields
    assert outcome.fields.get("range", "none") == "none"
    assert outcome.fields.keys() == ["damage", "critical"]
    assert outcome.fields.values() == [3, True]
    assert list(outcome.fields) == [("damage", 3), ("critical", True)]  # pairs, as before
    assert dict(outcome.fields) == {"damage": 3, "critical": True}
    assert outcome.fields[0] == ("damage", 3)  # an integer still indexes the pairs
    assert outcome.fields == (("damage", 3), ("critical", True))  # equal to the plain tuple, and hashed as it
    assert hash(outcome.fields) == hash((("damage", 3), ("critical", True)))
    assert repr(outcome.fields) == "(('damage', 3), ('critical', True))"  # repr orders ties: unchanged
    with pytest.raises(KeyError):
        outcome.fields["range"]


def test_fields_by_name_from_every_engine_and_result(strike):
    traced = resolve(strike, "strike", dice=[5], trace=True).outcome  # the evaluator: 5 - 3 = 2
    assert traced.fields["damage"] == 2 and traced.fields["critical"] is False
    for outcome, _ in odds(strike, "strike").outcomes:
        assert outcome.fields.get("damage") in (None, 2, 3)
    for outcome, _ in monte_carlo(strike, "strike", trials=20, seed=1).counts:
        assert outcome.name == "miss" or outcome.fields["damage"] in (2, 3)


# ---- sweep --format csv ------------------------------------------------------------------------


def _sweep_csv(extra: list[str]) -> list[list[str]]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["sweep", "eto", "interception", "--over", "zones=7", "--over", "from_us_box=false,true", "--format", "csv", *extra],
                stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    return list(csv.reader(io.StringIO(out.getvalue())))


# ETO Naval Interception Table: zones 7-8 intercept on 4,5,6 -> 3/6 = 1/2; from the U.S. box the row
# is always 11+: 6 only -> 1/6, so not intercepted 5/6.  As floats: 1/2 = 0.5 exactly; 1/6 is
# 0.1666...6 rounded, repr 0.16666666666666666 (17 significant digits); 5/6 repr 0.8333333333333334.
def test_sweep_csv_writes_decimals_and_true_false_by_default():
    assert _sweep_csv([]) == [
        ["zones", "from_us_box", "intercepted", "not_intercepted"],
        ["7", "false", "0.5", "0.5"],
        ["7", "true", "0.16666666666666666", "0.8333333333333334"],
    ]
    for row in _sweep_csv([])[1:]:  # each cell reads back as the float nearest the exact fraction
        assert [float(cell) for cell in row[2:]] in ([0.5, 0.5], [float(Fraction(1, 6)), float(Fraction(5, 6))])


def test_sweep_csv_exact_keeps_fractions():
    assert _sweep_csv(["--exact"]) == [
        ["zones", "from_us_box", "intercepted", "not_intercepted"],
        ["7", "false", "1/2", "1/2"],
        ["7", "true", "1/6", "5/6"],
    ]


def test_sweep_csv_means_as_decimals(tmp_path):
    # strike: damage 2 on a 5, 3 on a 6, over the hits only: (2 + 3) / 2 = 5/2 = 2.5; misses 4/6 = 2/3
    path = tmp_path / "r.yaml"
    path.write_text(ruleset_text({"strike": procedure(STRIKE_BODY, inputs="{bonus: {type: int, min: 0}}")}))
    out, err = io.StringIO(), io.StringIO()
    code = main(["sweep", str(path), "strike", "--over", "bonus=0", "--format", "csv"], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert rows[0][0] == "bonus" and "mean damage" in rows[0]
    assert rows[1][rows[0].index("mean damage")] == "2.5"
    assert rows[1][rows[0].index("miss")] == "0.6666666666666666"


def test_pandas_reads_numbers_and_booleans():
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_csv(io.StringIO("\n".join(",".join(row) for row in _sweep_csv([]))))
    assert frame["from_us_box"].dtype == bool and frame["intercepted"].dtype == float


def test_decimal_cell_by_hand():
    from interpreter.reporters import decimal_cell

    assert decimal_cell("0/1", 0.0) == "0.0"
    assert decimal_cell("1/1", 1.0) == "1.0"
    assert decimal_cell("1/3", float(Fraction(1, 3))) == "0.3333333333333333"  # 16 threes: the float's shortest repr
    # 2 / 3 * 10**-400 is below any float (0.0): 17 significant digits from the fraction, 6 rounded up to 7
    tiny = f"2/{3 * 10**400}"
    assert decimal_cell(tiny, 0.0) == "6.6666666666666667E-401"


# ---- Distribution.to_records() / to_pandas() -----------------------------------------------------


def test_to_records_counted_by_hand(strike):
    # miss: faces 1-4, 4/6 = 2/3; hit on 5: damage 5 - 3 = 2, not critical, 1/6; on 6: damage 3, critical, 1/6.
    # Most likely first; the two hits tie at 1/6 and keep the order of their fields' text, as odds prints them.
    records = odds(strike, "strike").to_records()
    assert records == [
        {"name": "miss", "fields": {}, "probability": Fraction(2, 3)},
        {"name": "hit", "fields": {"damage": 2, "critical": False}, "probability": Fraction(1, 6)},
        {"name": "hit", "fields": {"damage": 3, "critical": True}, "probability": Fraction(1, 6)},
    ]
    assert sum(r["probability"] for r in records) == 1
    records[1]["fields"]["damage"] = 99  # a copy: the distribution is untouched
    assert odds(strike, "strike").to_records()[1]["fields"]["damage"] == 2


def test_to_pandas_one_row_per_outcome(strike):
    pytest.importorskip("pandas")
    frame = odds(strike, "strike").to_pandas()
    assert list(frame.columns) == ["outcome", "damage", "critical", "probability"]
    assert list(frame["outcome"]) == ["miss", "hit", "hit"]
    assert list(frame["probability"]) == [float(Fraction(2, 3)), float(Fraction(1, 6)), float(Fraction(1, 6))]


def test_to_pandas_without_pandas_says_so(strike, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)  # a None entry makes the import fail
    with pytest.raises(ImportError, match="to_records"):
        odds(strike, "strike").to_pandas()


def test_to_pandas_refuses_a_field_called_probability(make_ruleset):
    ruleset = make_ruleset({"p": procedure("outcome done(probability = 3)")})
    assert odds(ruleset, "p").to_records() == [{"name": "done", "fields": {"probability": 3}, "probability": Fraction(1)}]
    pytest.importorskip("pandas")
    with pytest.raises(UsageError, match="use to_records"):
        odds(ruleset, "p").to_pandas()
