"""``odds --format csv`` and ``--format markdown``: the outcomes of exact odds as rows.

The rows are those of ``odds --json`` (``results.distribution`` documents, one per combination
of the open choices); the cells are written as sweep's are (``reporters``): CSV for programs
(booleans true/false, floats as ``reporters.decimal_cell`` writes them), markdown for people
(cells escaped as ``reporters`` escapes them).
"""

from __future__ import annotations

import csv
import io

from . import results
from .render import readable_fraction, show_plain
from .reporters import _markdown_cell, csv_plain, decimal_cell


def _odds_grid(documents: list[tuple[dict, dict]], open_names: list[str], *, for_programs: bool, digits: int | None) -> list[list[str]]:
    """Header and rows of ``odds --format csv|markdown``: the open choices, the outcome (or the ``--by``
    fields) and its fields, one column each, then the probability.

    CSV (``for_programs``) writes the exact fraction whole (``1595/7776``, however long) and the float
    beside it as sweep's CSV does (``reporters.decimal_cell``), true/false for booleans; markdown, for
    people, the fraction when short (the decimal rule, :data:`render.MAX_FRACTION_CHARS`) and a percentage.
    Mass a bounded loop did not explore is a last row whose outcome is ``(truncated)``.
    """
    plain = csv_plain if for_programs else show_plain
    entries_of = [(chosen, doc["marginal"] if "marginal" in doc else doc["outcomes"]) for chosen, doc in documents]
    if "marginal" in documents[0][1]:
        columns = list(documents[0][1]["by"])
    else:
        fields: dict[str, None] = {}
        for _, entries in entries_of:
            for entry in entries:
                fields.update(dict.fromkeys(entry["fields"]))
        columns = ["outcome", *fields]

    def cells(entry: dict) -> list[str]:
        if "values" in entry:
            return [plain(entry["values"][name]) for name in columns]
        return [entry["name"]] + [plain(entry["fields"][name]) if name in entry["fields"] else "" for name in columns[1:]]

    def numbers(exact: str, p: float) -> list[str]:
        if for_programs:
            return [exact.removesuffix("/1"), f"{p:.{digits}f}" if digits is not None else decimal_cell(exact, p)]  # "1", as sweep --exact
        shown = f"{p:.{digits}f}" if digits is not None else f"{p * 100:.4f}%"
        return [readable_fraction(exact, shown_as_zero=not shown.strip("0.%")), shown]

    grid = [open_names + columns + (["probability", "p"] if for_programs else ["probability", "%" if digits is None else "p"])]
    for (chosen, entries), (_, doc) in zip(entries_of, documents):
        choice_cells = [chosen[name] for name in open_names]
        grid.extend(choice_cells + cells(entry) + numbers(entry["probability"], entry["p"]) for entry in entries)
        truncated = results.parse_fraction(doc["truncated"])
        if truncated:
            grid.append(choice_cells + ["(truncated)"] + [""] * (len(columns) - 1) + numbers(doc["truncated"], float(truncated)))
    return grid


def odds_csv(documents: list[tuple[dict, dict]], open_names: list[str], digits: int | None = None) -> str:
    """``odds --format csv``: one row an outcome (per combination of the open choices), for programs."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(_odds_grid(documents, open_names, for_programs=True, digits=digits))
    return buffer.getvalue().rstrip("\n")


def odds_markdown(documents: list[tuple[dict, dict]], open_names: list[str], digits: int | None = None) -> str:
    """``odds --format markdown``: the same rows as a markdown table, cells escaped as sweep's are."""
    grid = _odds_grid(documents, open_names, for_programs=False, digits=digits)
    numbers = 2
    lines = ["| " + " | ".join(_markdown_cell(c) for c in grid[0]) + " |"]
    lines.append("|" + "|".join("---:" if i >= len(grid[0]) - numbers else "---" for i in range(len(grid[0]))) + "|")
    lines.extend("| " + " | ".join(_markdown_cell(c) for c in row) + " |" for row in grid[1:])
    return "\n".join(lines)
