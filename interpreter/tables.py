"""Printed tables: headings, cells, and the lookup rule.

A heading is numeric (``"3-4"``, ``"11+"``, ``"-2(-)"``, ``"less than -3"``,
``"-3 to +3"``), an odds ratio (``"1:2"``, ``"3:1"``, ``"6:1+"``, ``"1:3-"``) or
a category (``"Desert or Mountain"``, ``"no defenders"``).
A lookup finds the row and column whose heading holds the key, applies a
cumulative column shift, and clamps or fails at the edges as the table says.
Nothing here knows any game: every number comes from the YAML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from typing import Any

from .load_limits import LoadLimits, OverLimit

# Patterns are kept as text and compiled by `re` (which keeps them) when a ruleset is first read from
# its files: a ruleset from the cache has its headings parsed already, and a cold start skips them.
# Matched whole (re.fullmatch): a final $ alone also matches before a trailing newline.
_NUM = r"([+-]?[0-9]+)"
_PATTERNS: tuple[tuple[str, str], ...] = (
    (rf"^{_NUM}$", "exact"),
    (rf"^{_NUM}\s*(?:-|–|—|to)\s*{_NUM}$", "between"),
    (rf"^{_NUM}\s*(?:-|–|—|to)\s*{_NUM}\s*\+$", "at_least"),
    (rf"^{_NUM}\s*(?:\+|\(\+\)|or more|and more|or higher)$", "at_least"),
    (rf"^{_NUM}\s*(?:-|\(-\)|or less|and less|or fewer|or lower)$", "at_most"),
    (rf"^more than\s+{_NUM}$", "above"),
    (rf"^less than\s+{_NUM}$", "below"),
)


def parse_numeric_label(label: str, limits: LoadLimits) -> tuple[int | None, int | None] | None:
    """``"3-4"`` -> (3, 4); ``"11+"`` -> (11, None); a category -> None.

    Raises OverLimit for a number past ``limits.max_int_bits``.
    """
    text = label.strip()
    for pattern, kind in _PATTERNS:
        match = re.fullmatch(pattern, text, re.IGNORECASE)
        if not match:
            continue
        first = limits.integer(match.group(1))
        if kind == "exact":
            return first, first
        if kind == "between":
            return first, limits.integer(match.group(2))
        if kind == "at_least":
            return first, None
        if kind == "at_most":
            return None, first
        if kind == "above":
            return first + 1, None
        if kind == "below":
            return None, first - 1
    return None


_RATIO_END = r"\s*(\+|\(\+\)|or more|-|\(-\)|or less)?$"
_RATIO = r"^([0-9]+)\s*:\s*([0-9]+)" + _RATIO_END
# Odds as a printed Avalon Hill table writes them, "3-1", "1-2", "6-1+": read as odds only where the
# columns say they are odds (``odds: true``); elsewhere "2-1" is a range that runs backwards.
_PRINTED_RATIO = r"^([0-9]+)\s*(?::|-|–|—)\s*([0-9]+)" + _RATIO_END


def parse_ratio_label(label: str, limits: LoadLimits, *, printed_dash: bool = False) -> tuple[Fraction, str | None] | None:
    """``"3:1"`` -> (3, None); ``"6:1+"`` -> (6, "up"); ``"1:3-"`` -> (1/3, "down").

    With ``printed_dash`` (columns declared as odds) ``"3-1"`` reads as 3:1 too.
    Raises OverLimit for a number past ``limits.max_int_bits``.
    """
    match = re.fullmatch(_PRINTED_RATIO if printed_dash else _RATIO, label.strip(), re.IGNORECASE)
    if not match:
        return None
    attack, defense = limits.integer(match.group(1)), limits.integer(match.group(2))
    if defense == 0:
        return None
    suffix = (match.group(3) or "").lower()
    open_end = "up" if suffix in ("+", "(+)", "or more") else ("down" if suffix else None)
    return Fraction(attack, defense), open_end


def show_ratio(value: Fraction) -> str:
    """Odds as a wargamer writes them: 3:1, 1:2, 7:2."""
    return f"{value.numerator}:{value.denominator}"


_ROLLS = r"^[0-9]+(\s*(,|-|–|—)\s*[0-9]+)*$"


def parse_rolls(text: str, limits: LoadLimits) -> tuple[int, ...] | None:
    """``"2,3,4,5,6"`` -> (2, 3, 4, 5, 6); ``"1 – 3"`` -> (1, 2, 3); not die faces -> None.

    The faces are counted before any range is spelled out: more than
    ``limits.max_faces`` of them (``"1-999999999"``) raise OverLimit.
    """
    text = text.strip()
    if not re.fullmatch(_ROLLS, text):
        return None
    spans: list[tuple[int, int]] = []
    for part in text.split(","):
        bounds = re.split(r"\s*(?:-|–|—)\s*", part.strip())
        if len(bounds) > 2:
            return None
        low, high = limits.integer(bounds[0]), limits.integer(bounds[-1])
        if low > high:
            return None
        spans.append((low, high))
    if sum(high - low + 1 for low, high in spans) > limits.max_faces:
        raise OverLimit(f"die faces {text[:24]!r}{'...' if len(text) > 24 else ''} list more than {limits.max_faces} faces, the limit for one die")
    return tuple(sorted({face for low, high in spans for face in range(low, high + 1)}))


@dataclass(frozen=True)
class Heading:
    """One row or column heading."""

    label: str
    low: int | None = None
    high: int | None = None
    numeric: bool = False
    members: frozenset[str] = frozenset()
    otherwise: bool = False
    ratio: Fraction | None = None  # an odds column: attacker to defender
    ratio_open: str | None = None  # "up" (6:1+) or "down" (1:3-)
    # Where the heading is written (a Pos), for the lint pass's warnings; not part of what the heading means.
    pos: Any = field(default=None, compare=False, repr=False)

    def holds_number(self, key: int) -> bool:
        return self.numeric and (self.low is None or key >= self.low) and (self.high is None or key <= self.high)

    def holds_category(self, key: str) -> bool:
        return not self.numeric and self.ratio is None and key.casefold() in self.members


# What odds below an odds table's first column read (``below:`` on the columns).  Without it the
# edge decides, as it always has: clamp reads the first column, error is off the table.
BELOW_OFF_TABLE = "off_table"
BELOW_CLAMP = "clamp"
BELOW_RESULT = "result"  # a named result, such as AE: a column of its own left of the first
# The index of the ``below:`` result's column, left of the first: a shift of +1 from it reads the first column.
BELOW_INDEX = -1


@dataclass(frozen=True)
class Axis:
    """A table's rows or columns: the headings, the dice that roll them (if any) and what happens off the edge.

    ``below`` says what odds below the first odds column read (None: the edge decides); with
    ``BELOW_RESULT`` every such lookup reads ``below_value`` (``below_label`` as printed).
    """

    name: str
    headings: tuple[Heading, ...]
    edge: str  # "clamp" or "error"
    dice: str | None = None
    below: str | None = None
    below_value: Any = None
    below_label: str = ""

    def below_heading(self) -> Heading:
        """The column a ``below:`` result stands in, for the trace: "below 1:2"."""
        first = next((h.label for h in self.headings if h.ratio is not None), "")
        return Heading(f"below {first}")

    def labels(self) -> list[str]:
        return [h.label for h in self.headings]


class OffTable(Exception):
    """A key (or a shift) falls off an axis that does not clamp."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Placement:
    """Where a value falls on an axis: the heading's index, and what fell off the edge when it was clamped."""

    index: int
    clamped_from: str | None = None  # what fell off, for the trace


def place(axis: Axis, key: Any, what: str) -> Placement:
    """Index of the heading that holds ``key`` (clamping where allowed)."""
    if isinstance(key, bool) or not isinstance(key, (int, str, Fraction)):
        raise OffTable(f"{what} key must be a number, an odds ratio or a category, not {key!r}")
    ratios = [(i, h) for i, h in enumerate(axis.headings) if h.ratio is not None]
    if isinstance(key, Fraction) or (ratios and isinstance(key, int)):
        return _place_ratio(axis, ratios, Fraction(key), what)
    if isinstance(key, str):
        return _place_category(axis, key, what)
    return _place_number(axis, key, what)


def _place_category(axis: Axis, key: str, what: str) -> Placement:
    """The heading naming ``key``, else the one that says otherwise."""
    fallback = None
    for index, heading in enumerate(axis.headings):
        if heading.holds_category(key):
            return Placement(index)
        if heading.otherwise:
            fallback = index
    if fallback is not None:
        return Placement(fallback)
    raise OffTable(f"no {what} heading '{key}' in {axis.name!r} (headings: {', '.join(axis.labels())})")


def _place_number(axis: Axis, key: int, what: str) -> Placement:
    """The numeric heading holding ``key``; off the ends, the first or last when the axis clamps."""
    numeric = [(i, h) for i, h in enumerate(axis.headings) if h.numeric]
    for index, heading in numeric:
        if heading.holds_number(key):
            return Placement(index)
    if not numeric:
        raise OffTable(f"{what} {axis.name!r} is keyed by category, not by a number ({key})")
    if axis.edge != "clamp":
        raise OffTable(
            f"{key} is off the table: {what} {axis.name!r} runs from {numeric[0][1].label} to {numeric[-1][1].label} and does not clamp"
        )
    first, last = numeric[0], numeric[-1]
    if first[1].low is not None and key < first[1].low:
        return Placement(first[0], clamped_from=str(key))
    return Placement(last[0], clamped_from=str(key))


def _place_ratio(axis: Axis, ratios: list[tuple[int, Heading]], key: Fraction, what: str) -> Placement:
    """Odds round down to the table's own columns, in the defender's favour.

    The column is the highest ratio not above the odds; every odds ratio at
    or above the last column rounds down to it.  Odds below the first column
    fall off the table unless it is open (1:3-), or the table clamps.
    """
    if not ratios:
        raise OffTable(f"{what} {axis.name!r} has no odds columns for the ratio {show_ratio(key)}")
    below = [(i, h) for i, h in ratios if h.ratio is not None and h.ratio <= key]  # every one has a ratio
    if below:
        return Placement(below[-1][0])
    first_index, first = ratios[0]
    if first.ratio_open == "down":
        return Placement(first_index)
    if axis.below == BELOW_RESULT:
        return Placement(BELOW_INDEX, clamped_from=show_ratio(key))
    if axis.below == BELOW_OFF_TABLE or (axis.below is None and axis.edge != "clamp"):
        raise OffTable(f"odds of {show_ratio(key)} are off the table: {what} {axis.name!r} starts at {first.label} and does not clamp")
    return Placement(first_index, clamped_from=show_ratio(key))


def shift(axis: Axis, placement: Placement, columns: int) -> Placement:
    """Move ``columns`` headings right (positive) or left, at the edge clamping or failing.

    Where odds below the first column read a named result (``below:``), that result is a column
    of its own left of the first: a shift left from the first column reaches it, and nothing
    lies beyond it (a shift further left stays there).
    """
    if columns == 0:
        return placement
    target = placement.index + columns
    if axis.below == BELOW_RESULT and target < 0:
        return Placement(BELOW_INDEX, placement.clamped_from or f"shift {columns:+d}")
    last = len(axis.headings) - 1
    if 0 <= target <= last:
        return Placement(target, placement.clamped_from)
    if axis.edge != "clamp":
        raise OffTable(
            f"a shift of {columns:+d} from column {axis.headings[placement.index].label} runs off the table, which does not clamp"
        )
    clamped = min(max(target, 0), last)
    return Placement(clamped, clamped_from=f"shift {columns:+d}")


@dataclass(frozen=True)
class Table:
    """A printed table: its axes and cells."""

    name: str
    title: str
    rule: str
    rows: Axis
    columns: Axis | None
    cells: tuple[tuple[Any, ...], ...]  # [row][column]; one column when the table has none
    printed: tuple[tuple[str, ...], ...]  # cells as printed, for `show`
    example: bool = False
    description: str = ""
    # Structured cells: the record's fields and their types (None for plain cells).
    result_fields: tuple[tuple[str, Any], ...] | None = None
    # Where each cell was written ("file:line"), [row][column]: a variant's cells name the variant.
    provenance: tuple[tuple[str, ...], ...] = ()
    # Result codes as printed and what they mean (for a player aid's legend).
    codes: tuple[tuple[str, str], ...] = ()
    # Where the table is declared (a Pos of its name), for the lint pass's warnings.
    pos: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class LookupResult:
    """One lookup: the row, the column and the cell found."""

    value: Any
    row: Heading
    column: Heading | None
    row_clamped_from: str | None
    column_before_shift: Heading | None
    column_clamped_from: str | None
    provenance: str = ""


def lookup(table: Table, row_key: Any, column_key: Any = None, column_shift: int = 0) -> LookupResult:
    row = place(table.rows, row_key, "row")
    if table.columns is None:
        return LookupResult(
            table.cells[row.index][0], table.rows.headings[row.index], None, row.clamped_from, None, None, _provenance(table, row.index, 0)
        )
    columns = table.columns
    column = place(columns, column_key, "column")
    before = _column_heading(columns, column.index)
    shifted = shift(columns, column, column_shift)
    below = shifted.index == BELOW_INDEX
    return LookupResult(
        columns.below_value if below else table.cells[row.index][shifted.index],
        table.rows.headings[row.index],
        _column_heading(columns, shifted.index),
        row.clamped_from,
        before if shifted.index != column.index else None,
        shifted.clamped_from,
        "" if below else _provenance(table, row.index, shifted.index),
    )


def _column_heading(columns: Axis, index: int) -> Heading:
    return columns.below_heading() if index == BELOW_INDEX else columns.headings[index]


def _provenance(table: Table, row: int, column: int) -> str:
    try:
        return table.provenance[row][column]
    except IndexError:
        return ""


def coverage_problems(headings: tuple[Heading, ...] | list[Heading]) -> list[tuple[int, str]]:
    """Gaps, overlaps and misplaced open ends between neighbouring numeric headings.

    Each problem comes with the index (among the numeric headings) of the later
    heading of the pair, where it is reported.
    """
    problems: list[tuple[int, str]] = []
    numeric = [h for h in headings if h.numeric]
    for index, (before, after) in enumerate(pairwise(numeric), start=1):
        if before.high is None or after.low is None:
            problems.append((index, f"headings {before.label!r} and {after.label!r} overlap (an open end may only stand at the edge)"))
        elif after.low <= before.high:
            problems.append((index, f"headings {before.label!r} and {after.label!r} overlap"))
        elif after.low > before.high + 1:
            problems.append((index, f"gap between headings {before.label!r} and {after.label!r}: {before.high + 1} is not covered"))
    return problems


def dice_range(dice: str, limits: LoadLimits) -> tuple[int, int]:
    """The lowest and highest total of a die spec (``2d6`` -> (2, 12)); OverLimit past the dice limits."""
    count, faces = limits.dice(dice)
    return count, count * faces


def uncovered_totals(axis: Axis, low: int, high: int, at_most: int) -> list[int]:
    """The first ``at_most`` totals from ``low`` to ``high`` that no numeric heading holds.

    Worked out from the headings' bounds, never by listing every total, so a
    huge die costs no more than a small one.
    """
    spans = sorted(
        (h.low if h.low is not None else low, h.high if h.high is not None else high)
        for h in axis.headings if h.numeric
    )
    missing: list[int] = []
    next_uncovered = low
    for start, end in spans + [(high + 1, high + 1)]:
        while next_uncovered < min(start, high + 1) and len(missing) < at_most:
            missing.append(next_uncovered)
            next_uncovered += 1
        if len(missing) >= at_most:
            break
        next_uncovered = max(next_uncovered, end + 1)
    return missing
