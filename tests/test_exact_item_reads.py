"""Exact odds: an item of a list that is not a variable (a field of an outcome) is read in place.

Issue 24: eia's column_exchange ends with ``defence_fire.targets[i]`` read three times an item, about
445,000 calls of runtime.index on exact 3 v 3.  Compiled exact code now holds the list in a local and
reads the item in place when the position is inside it, and calls IDX (the evaluator's words) otherwise.
The list is read before the position, as IDX reads them.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_in, procedure

from interpreter import odds
from interpreter.engine import procedure_source
from interpreter.errors import WartableError

ENGINES = ("compiled", "reference")

PROCEDURES = {
    "pair": procedure("""
        let a = 1d6
        outcome two(items = [a, 7])
    """),
    "q": procedure("""
        let a = 1d6
        outcome o(items = replace_at([a, 7], at, 0))
    """, inputs="{at: {type: int, default: 1}}"),
    "p": procedure("""
        let got = resolve pair()
        outcome o(v = got.items[at])
    """, inputs="{at: {type: int, default: 1}}"),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    return load_in(tmp_path_factory.mktemp("item_reads"), PROCEDURES)


def test_the_item_of_a_field_is_read_in_place(rules):
    source = procedure_source(rules, "p", "exact")
    line = next(text for text in source.splitlines() if "'items'" in text)
    assert " >= (ix" in line and ") > 0 else IDX(ls" in line


@pytest.mark.parametrize("engine", ENGINES)
def test_items_inside_the_list(rules, engine):
    # items = [die, 7]: item 1 is each face with 1/6, item 2 is 7 always
    first = odds(rules, "p", {"at": 1}, engine=engine)
    assert {outcome.fields["v"]: p for outcome, p in first.outcomes} == {face: Fraction(1, 6) for face in range(1, 7)}
    second = odds(rules, "p", {"at": 2}, engine=engine)
    assert {outcome.fields["v"]: p for outcome, p in second.outcomes} == {7: Fraction(1)}


@pytest.mark.parametrize("at", [0, 3, -1])
def test_a_position_outside_the_list_is_the_evaluators_error(rules, at):
    messages = []
    for engine in ENGINES:
        with pytest.raises(WartableError) as caught:
            odds(rules, "p", {"at": at}, engine=engine)
        messages.append(str(caught.value))
    assert f"index {at} is outside the list (1 to 2)" in messages[0]
    assert messages[0] == messages[1]


@pytest.mark.parametrize("engine", ENGINES)
def test_replace_at_inside_and_outside_the_list(rules, engine):
    # replace_at tests the position in place before building the list (runtime's _position words the error)
    second = odds(rules, "q", {"at": 2}, engine=engine)
    assert {outcome.fields["items"]: p for outcome, p in second.outcomes} == {(face, 0): Fraction(1, 6) for face in range(1, 7)}
    with pytest.raises(WartableError) as caught:
        odds(rules, "q", {"at": 3}, engine=engine)
    assert "position 3 is outside the list (1 to 2)" in str(caught.value)
