"""Issue 24, seventh round: a list made by ``replace_at`` or ``append`` is measured from the list it changes.

``Budget.check_changed`` works a new list's (items, depth) out from the changed list's remembered measure and the
two items' (a record knows its own, a list is looked up), where ``check_value`` would walk the new list.  Each test
compares the two on the same values: the same charge, the same remembered measure, the same breach.
"""

from __future__ import annotations

import pytest

from interpreter.errors import Pos, Source
from interpreter.limits import Budget, LimitExceeded, Limits
from interpreter.values import Record

POS = Pos(Source("t.yaml", "replace_at(xs, 1, x)\n"), 1, 1)


def ship(status: str, cargo: tuple = ()) -> Record:
    return Record("ship", (("status", status), ("cargo", cargo)))


def both(before: tuple, made: tuple, removed, added, limits: Limits | None = None) -> tuple[int, int]:
    """The work each way, after ``before`` was checked (and so remembered) by each budget."""
    spent = []
    for changed in (True, False):
        budget = Budget(limits or Limits(max_work=None, timeout=None))
        budget.check_value(before, POS)
        start = budget.work
        if changed:
            assert budget.check_changed(made, before, removed, added, POS) is made
        else:
            budget.check_value(made, POS)
        spent.append(budget.work - start)
        fresh = Budget(budget.limits)
        fresh.check_value(made, POS)  # measured item by item
        assert budget.sizes_known[made] == fresh.sizes_known[made]
    return spent[0], spent[1]


def test_a_record_replaced_in_a_list_of_records():
    # 3 records of 2 fields each: 3 + 6 = 9 items, and a record carrying a list of 2 numbers for a plain one:
    # 3 + 2 + 2 + (2 + 2) = 11 items, depth 2 -> 3 (the list inside the record)
    fleet = (ship("fit"), ship("fit"), ship("fit"))
    assert both(fleet, (ship("sunk"),) + fleet[1:], fleet[0], ship("sunk")) == (9, 9)
    loaded = (ship("fit", (1, 2)),) + fleet[1:]
    assert both(fleet, loaded, fleet[0], loaded[0]) == (11, 11)


def test_a_column_replaced_in_a_list_of_columns_and_a_number_appended():
    # columns of 2 and 1 records (2 + 4 and 1 + 2 items): 2 + 6 + 3 = 11; the second replaced by one of 3 records
    # (3 + 6 = 9): 2 + 6 + 9 = 17.  Appending 4 to [1, 2, 3]: 4 items, depth 1.
    columns = ((ship("fit"), ship("fit")), (ship("fit"),))
    wider = (ship("fit"), ship("damaged"), ship("sunk"))
    budget = Budget(Limits(max_work=None, timeout=None))
    budget.check_value(wider, POS)  # the new column was checked when it was made, as a play's lists are
    made = (columns[0], wider)
    assert budget.check_value(columns, POS) is columns and budget.sizes_known[columns] == (11, 3)
    start = budget.work
    budget.check_changed(made, columns, columns[1], wider, POS)
    assert budget.work - start == 17 and budget.sizes_known[made] == (17, 3)
    assert both((1, 2, 3), (1, 2, 3, 4), None, 4) == (4, 4)


def test_a_list_past_the_limits_is_refused_with_check_values_words():
    # max_value_items 10: the fleet of 9 items is within it, the loaded one of 11 is not
    fleet = (ship("fit"), ship("fit"), ship("fit"))
    loaded = (ship("fit", (1, 2)),) + fleet[1:]
    messages = []
    for changed in (True, False):
        budget = Budget(Limits(max_work=None, timeout=None, max_value_items=10))
        budget.check_value(fleet, POS)
        with pytest.raises(LimitExceeded) as refused:
            if changed:
                budget.check_changed(loaded, fleet, fleet[0], loaded[0], POS)
            else:
                budget.check_value(loaded, POS)
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "more than 10 items" in messages[0]
