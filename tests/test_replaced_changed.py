"""Issue 24, ninth round: ``replace_at(xs, j, r with {f = v})`` in a play is one call (runtime.replaced_changed).

Each test runs the fused call on one Run and the two calls it replaces (with_field, then replace_at) on another,
on the same values: the same list, the same work charged, the same remembered measure, the same error.
"""

from __future__ import annotations

import re

import pytest

from interpreter.errors import Pos, RuleViolation, Source
from interpreter.functions import FUNCTIONS
from interpreter.limits import LimitExceeded, Limits
from interpreter.runtime import Run, replaced_changed
from interpreter.values import Record

UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)
POS = Pos(Source("t.yaml", 'set hit = replace_at(hit, j, targets[j] with {status = "sunk"})\n'), 1, 11)
RECORD_POS = Pos(Source("t.yaml", 'set hit = replace_at(hit, j, targets[j] with {status = "sunk"})\n'), 1, 30)


class FakeRuleset:
    """What a Run reads of a ruleset when nothing is called."""

    def program(self, name: str):  # pragma: no cover - not reached
        raise AssertionError(name)


def ship(status: str, cargo: tuple | None = None) -> Record:
    return Record("ship", (("status", status), ("cargo", cargo if cargo is not None else 0)))


def fused_and_separate(items: tuple, position: int, record: Record, name: str, value, limits: Limits = UNLIMITED):
    """(list, work charged, remembered measure) each way, after ``items`` was checked (so remembered) by each."""
    results = []
    for fused in (True, False):
        rt = Run(FakeRuleset(), limits)
        rt.budget.check_value(items, POS)
        start = rt.budget.work
        if fused:
            made = replaced_changed(rt, POS, items, position, RECORD_POS, record, name, value)
        else:
            changed = FUNCTIONS["with_field"].run(rt, RECORD_POS, record, name, value)
            made = FUNCTIONS["replace_at"].run(rt, POS, items, position, changed)
        results.append((made, rt.budget.work - start, rt.budget.sizes_known.get(made)))
    return results


def test_a_plain_field_changed_is_charged_as_the_two_calls_charge():
    # 3 ships of 2 fields: 3 + 6 = 9 items, depth 1 (one list; a record is no list).  with_field charges the new record's 2 items, replace_at the new
    # list's 9: 11 units; the new list is remembered as (9, 1)
    fleet = (ship("fit"), ship("fit"), ship("damaged"))
    fused, separate = fused_and_separate(fleet, 3, fleet[2], "status", "sunk")
    assert fused == separate
    made, work, measure = fused
    assert made == (ship("fit"), ship("fit"), ship("sunk")) and work == 11 and measure == (9, 1)


def test_another_record_than_the_one_replaced_and_a_second_time_remembered():
    # hit[2] is already damaged, targets[2] fit: the fit one changed replaces the damaged one (both 2 items)
    hit = (ship("fit"), ship("damaged"))
    targets = (ship("fit"), ship("fit"))
    for _ in range(2):  # the second time, the changed record comes from the run's memo
        fused, separate = fused_and_separate(hit, 2, targets[1], "status", "sunk")
        assert fused == separate and fused[0][1] == ship("sunk") and fused[1] == 2 + 6


def test_a_field_holding_a_list_changes_the_measure_and_is_charged_alike():
    # cargo 0 -> (1, 2): the record grows from 2 to 4 items, depth 0 -> 1; the list of 2 ships from 2 + 4 = 6 to
    # 2 + 2 + 4 = 8 items, depth 1 -> 2.  with_field charges 4, replace_at 8: 12 units
    fleet = (ship("fit"), ship("fit"))
    fused, separate = fused_and_separate(fleet, 1, fleet[0], "cargo", (1, 2))
    assert fused == separate and fused[1] == 12 and fused[2] == (8, 2)


def test_a_list_not_remembered_is_measured_item_by_item():
    fleet = (ship("fit"), ship("fit"))
    rt, plain = Run(FakeRuleset(), UNLIMITED), Run(FakeRuleset(), UNLIMITED)
    made = replaced_changed(rt, POS, fleet, 1, RECORD_POS, fleet[0], "status", "sunk")
    changed = FUNCTIONS["with_field"].run(plain, RECORD_POS, fleet[0], "status", "sunk")
    assert made == FUNCTIONS["replace_at"].run(plain, POS, fleet, 1, changed)
    assert rt.budget.work == plain.budget.work == 2 + 6


@pytest.mark.parametrize(("position", "name", "message", "column"), [
    (3, "status", "position 3 is outside the list (1 to 2)", 11),
    (0, "status", "position 0 is outside the list (1 to 2)", 11),
    (3, "speed", "has no field 'speed'", 30),  # with_field's error first, as its argument is evaluated first
])
def test_errors_are_the_two_calls_errors(position, name, message, column):
    fleet = (ship("fit"), ship("fit"))
    rt = Run(FakeRuleset(), UNLIMITED)
    rt.budget.check_value(fleet, POS)
    with pytest.raises(RuleViolation, match=re.escape(message)) as refused:
        replaced_changed(rt, POS, fleet, position, RECORD_POS, fleet[0], name, "sunk")
    assert refused.value.diagnostics[0].column == column


def test_a_list_past_max_value_items_is_refused_with_the_same_words():
    # 2 ships (6 items) within 7; a cargo of 2 makes 8 items: refused by replace_at's check
    fleet = (ship("fit"), ship("fit"))
    limits = Limits(max_work=None, max_states=None, timeout=None, max_value_items=7)
    messages = []
    for fused in (True, False):
        rt = Run(FakeRuleset(), limits)
        rt.budget.check_value(fleet, POS)
        with pytest.raises(LimitExceeded) as refused:
            if fused:
                replaced_changed(rt, POS, fleet, 1, RECORD_POS, fleet[0], "cargo", (1, 2))
            else:
                changed = FUNCTIONS["with_field"].run(rt, RECORD_POS, fleet[0], "cargo", (1, 2))
                FUNCTIONS["replace_at"].run(rt, POS, fleet, 1, changed)
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "more than 7 items" in messages[0]
