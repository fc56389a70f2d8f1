"""Results as data: ``Outcome.fields`` read by name, ``Distribution.to_records()``/``to_pandas()``.

``strike`` rolls one die: 1-4 miss (no fields), 5 hits for 2 damage (not critical), 6 hits for
3 damage (critical).  So by hand, most likely first:

    miss 4/6 = 2/3; hit(damage 2, critical false) 1/6; hit(damage 3, critical true) 1/6
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure

from interpreter import odds, resolve
from interpreter.api import monte_carlo

STRIKE = procedure(
    """
    let die = 1d6
    if die >= 5 then
      outcome hit(damage = die - 3, critical = die == 6)
    else
      outcome miss
    end
    """
)


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
