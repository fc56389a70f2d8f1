"""``diff`` at scale: a table of 12,000 rows against a variant that drops a row, adds one and
changes every third cell.  Rows used to be looked up in a list of the other table's labels, once
per row (12,000 x 12,000 comparisons: 9.6 s); they are matched through dicts now.  No timing is
asserted here: the test checks every change is still found, in order, on a table that size.
"""

from __future__ import annotations

from interpreter.diff import changes
from interpreter.ruleset import Ruleset, frozen_mapping
from interpreter.tables import Axis, Heading, Table

ROWS = 12_000


def table(labels: range, value) -> Table:
    printed = tuple((str(value(row)),) for row in labels)
    headings = tuple(Heading(str(row), row, row, numeric=True) for row in labels)
    return Table("t", "t", "r", Axis("r", headings, "error"), None, tuple((int(p[0]),) for p in printed), printed)


def ruleset(name: str, t: Table) -> Ruleset:
    return Ruleset(name, name, "tests", "1", "", f"{name}.yaml", tables=frozen_mapping({"t": t}))


def test_a_12000_row_table_against_its_variant():
    base = ruleset("base", table(range(ROWS), lambda row: row % 7))
    # rows 1..12000; the cells of rows 3, 6, ..., 11997 (multiples of 3 up to 11999) one higher
    variant = ruleset("variant", table(range(1, ROWS + 1), lambda row: row % 7 + (1 if row % 3 == 0 and row < ROWS else 0)))
    found = changes(base, variant)
    # row 0 only in the base, row 12000 only in the variant: 1 + 1; then 11997 / 3 = 3999 changed cells
    assert len(found) == 1 + 1 + 3999
    assert (found[0].kind, found[0].path, found[0].old) == ("removed", ("tables", "t", "cells", "0"), ["0"])
    assert (found[1].kind, found[1].path, found[1].new) == ("added", ("tables", "t", "cells", "12000"), [str(12000 % 7)])
    changed = found[2:]
    assert [c.path[-1] for c in changed] == [str(row) for row in range(3, ROWS, 3)]
    # row 3: 3 % 7 = 3 -> 4; row 11997: 11997 % 7 = 6 (7 x 1713 = 11991) -> 7
    assert (changed[0].old, changed[0].new, changed[0].text) == ("3", "4", "table t[3]: 3 -> 4")
    assert (changed[-1].old, changed[-1].new) == ("6", "7")
