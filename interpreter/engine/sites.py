"""Table lookups at one place in a procedure, made when the procedure compiles.

A lookup in generated code calls a *site*: a function made once per lookup
(per table and position) that finds plain row and column keys through
dictionaries worked out once per table (:func:`table_index`), and hands
anything else to ``tables.lookup``, which words the errors.  When a die
roll's every total lands on a row, the rows are a tuple indexed by the total
(:func:`rows_by_key`), and a column key and shift find their index through
:func:`column_site`.  Generated code reaches each site by reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tables import BELOW_RESULT, OffTable, Table
from ..tables import lookup as table_lookup


def lookup_site(table: Table, pos: Any) -> Callable[[Any, Any, Any], Any]:
    """A table lookup at one place in a procedure: precomputed rows and columns, the general rule otherwise."""
    from ..runtime import off_table

    index_ = table_index(table)
    rows_int, rows_str, rows_default, columns_int, columns_str, columns_default, width = index_
    cells = table.cells
    clamp = table.columns is not None and table.columns.edge == "clamp"

    def slow(row: Any, column: Any, shift: Any) -> Any:
        try:
            return table_lookup(table, row, column, shift).value
        except OffTable as error:
            off_table(table, pos, error.message)

    if table.columns is None:
        def row_site(row: Any, column: Any, shift: Any) -> Any:
            kind = type(row)  # a bool is neither: it takes the general rule
            r = rows_int.get(row) if kind is int else rows_str.get(row.casefold(), rows_default) if kind is str else None
            if r is None:
                return slow(row, column, shift)
            return cells[r][0]

        return row_site

    def site(row: Any, column: Any, shift: Any) -> Any:
        kind = type(row)  # a bool is neither: it takes the general rule
        r = rows_int.get(row) if kind is int else rows_str.get(row.casefold(), rows_default) if kind is str else None
        kind = type(column)  # a bool is neither: it takes the general rule
        c = columns_int.get(column) if kind is int else columns_str.get(column.casefold(), columns_default) if kind is str else None
        if r is None or c is None or type(shift) is not int:
            return slow(row, column, shift)
        c += shift
        if c < 0 or c >= width:
            if not clamp:
                return slow(row, column, shift)
            c = 0 if c < 0 else width - 1
        return cells[r][c]

    return site


def rows_by_key(table: Table, keys: tuple[int, int]) -> tuple[Any, ...] | None:
    """Each row's cells by key, for every integer key from 0 to the last of ``keys``; None unless each key in range lands on a row."""
    low, high = keys
    if high > 4096 or low < 0 or any(h.ratio is not None for h in table.rows.headings):
        return None
    if table.columns is not None and table.columns.below == BELOW_RESULT:
        return None  # odds below the first column read a result outside the cells: the general lookup finds it
    from ..tables import place

    by_key: list[Any] = [None] * (high + 1)
    for key in range(low, high + 1):
        try:
            by_key[key] = table.cells[place(table.rows, key, "row").index]
        except OffTable:
            return None
    return tuple(by_key)


def column_site(table: Table, pos: Any) -> Callable[[Any, Any], int]:
    """Where a column key and a shift land (a column index), as ``tables.lookup`` finds it; its errors too."""
    from ..runtime import off_table
    from ..tables import place
    from ..tables import shift as shift_column

    axis = table.columns
    assert axis is not None, "a column site is made only for a table with columns"
    _, _, _, columns_int, columns_str, columns_default, width = table_index(table)
    clamp = axis.edge == "clamp"

    def column_index(column: Any, shift: Any) -> int:
        kind = type(column)  # a bool is neither: it takes the general rule
        c = columns_int.get(column) if kind is int else columns_str.get(column.casefold(), columns_default) if kind is str else None
        if c is not None and type(shift) is int:
            c += shift
            if 0 <= c < width:
                return c
            if clamp:
                return 0 if c < 0 else width - 1
        try:
            index: int = shift_column(axis, place(axis, column, "column"), shift).index
        except OffTable as error:
            off_table(table, pos, error.message)  # raises
            raise  # pragma: no cover - off_table always raises
        return index

    return column_index


def table_index(table: Table) -> tuple[Any, ...]:
    """Where plain keys land, computed once per table: ints and categories to heading indexes."""
    from ..tables import place

    def axis_maps(axis: Any) -> tuple[dict[int, int], dict[str, int], int | None]:
        if axis is None:
            return {}, {}, None
        numbers: dict[int, int] = {}
        words: dict[str, int] = {}
        default = None
        if not any(h.ratio is not None for h in axis.headings):
            bounds = [b for h in axis.headings if h.numeric for b in (h.low, h.high) if b is not None]
            if bounds:
                low, high = min(bounds), max(bounds)
                if high - low <= 4096:
                    for key in range(low - 1, high + 2):
                        try:
                            numbers[key] = place(axis, key, "row").index
                        except OffTable:
                            pass
        for i, heading in enumerate(axis.headings):
            if not heading.numeric and heading.ratio is None:
                for member in heading.members:
                    words.setdefault(member, i)
            if heading.otherwise:
                default = i
        return numbers, words, default

    rows = axis_maps(table.rows)
    columns = axis_maps(table.columns)
    width = len(table.columns.headings) if table.columns is not None else 1
    return rows + columns + (width,)
