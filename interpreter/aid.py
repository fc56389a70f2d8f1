"""The player aid: one self-contained, printable HTML page for a ruleset (or, with ``card``, a compact card).

Every table as printed, every modifier list with its rules, every procedure in rulebook form, the
ruleset's notes, and the odds charts its ``aids:`` section declares: a heat map (a procedure swept over
one or two inputs: every outcome's chance, one outcome's, or a field's mean), or without ``rows:`` a bar
chart of one distribution.  This module reads the ``aids:`` entries and computes them; :mod:`aid_html`
writes the page, :mod:`svg_plot` the bar charts.

Each cell of a heat map has a work budget of its own (today's default, or the entry's ``max_work:``),
the page one deadline, and all the entries together at most MAX_AID_CELLS cells: a cell is refused
for its own cost, not for its neighbours'.  ``check`` computes the charts too (:func:`aid_warnings`), to
warn of a map whose cells are all equal or of a cell that would not fit its budget.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from time import monotonic
from typing import TYPE_CHECKING, Any

from .aid_html import constant_value, shown_number
from .errors import Diagnostic, RulesetError, WartableError
from .limits import Budget, LimitExceeded, Limits
from .summaries import OUTCOME
from .svg_plot import Bars, colour
from .sweep import Cell, Dimension, Sweep, SweepError, dimension_from_values, run_sweep

if TYPE_CHECKING:  # pragma: no cover - types only
    from .compiled_ruleset import CompiledRuleset
    from .ir import CheckedProcedure

__all__ = ["HeatMap", "HeatMapSpec", "aid_problems", "aid_warnings", "colour", "player_aid"]

# Cells in one heat map: a page a player can read, not a data dump.
MAX_HEAT_MAP_CELLS = 600
# Cells in all of a page's maps together: each has a work budget of its own, so their number is bounded.
MAX_AID_CELLS = 5_000


# ---- the aids: section --------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """One axis of a heat map: the swept input (a sweep dimension), its labels and its title."""

    dimension: Dimension
    labels: tuple[str, ...]
    title: str


@dataclass(frozen=True)
class HeatMapSpec:
    """A chart declared under ``aids:``: its procedure, fixed inputs and choices, and axes.

    With ``rows`` it is a heat map (a sweep); without, a bar chart of the one distribution its fixed
    inputs give.  ``max_work`` is each cell's work budget when the entry raises it (``max_work:``)."""

    title: str
    procedure: str
    description: str
    rule: str
    inputs: dict
    choices: dict
    rows: Axis | None
    columns: Axis | None
    show: str  # outcomes, probability, mean
    outcome: str | None  # for probability
    fields: dict  # for probability: outcome fields that must match
    mean: str | None  # for mean
    by: tuple[str, ...]
    max_work: int | None = None
    entry: Any = None  # the aids: entry as written (ruleset.Aid): where its warnings point


def _aids(ruleset: CompiledRuleset) -> tuple:
    return tuple(getattr(ruleset, "aids", ()) or ())


def _axis(ruleset: CompiledRuleset, aid: Any, key: str, procedure: str) -> Axis:
    spec = aid.data[key]
    over = spec["over"]
    if "values" in spec:
        values = list(spec["values"])
    elif "from" in spec and "to" in spec:
        low, high = spec["from"], spec["to"]
        if high < low:
            raise _AidError(aid.where(f"{key}.to"), f"{key}: from {low} to {high} runs backwards")
        if high - low >= MAX_HEAT_MAP_CELLS:
            raise _AidError(aid.where(f"{key}.to"), f"{key}: more than {MAX_HEAT_MAP_CELLS} values")
        values = list(range(low, high + 1))
    else:
        raise _AidError(aid.where(key), f"{key}: give values: [...] or from: and to:")
    try:
        dimension = dimension_from_values(ruleset, procedure, over, values)
    except SweepError as error:
        raise _AidError(aid.where(f"{key}.over" if "values" not in spec else f"{key}.values"), f"{key}: {error.message}") from None
    labels = spec.get("labels")
    if labels is not None and len(labels) != len(values):
        raise _AidError(aid.where(f"{key}.labels"), f"{key}: {len(labels)} labels for {len(values)} values")
    return Axis(dimension, tuple(str(label) for label in labels) if labels is not None else tuple(dimension.labels()), spec.get("title", over))


class _AidError(Exception):
    def __init__(self, pos: Any, message: str):
        super().__init__(message)
        self.diagnostic = pos.diagnostic(message)


def heat_map_spec(ruleset: CompiledRuleset, aid: Any) -> HeatMapSpec:
    """An ``aids:`` entry checked against the ruleset (raises _AidError at its position)."""
    data = aid.data
    procedure = data["procedure"]
    compiled = ruleset.compiled.get(procedure)
    if compiled is None:
        raise _AidError(aid.where("procedure"), f"no procedure '{procedure}' (procedures: {', '.join(sorted(ruleset.compiled))})")
    if "columns" in data and "rows" not in data:
        raise _AidError(aid.where("columns"), "columns: without rows: give rows: first (or neither, for a bar chart)")
    rows = _axis(ruleset, aid, "rows", procedure) if "rows" in data else None
    columns = _axis(ruleset, aid, "columns", procedure) if "columns" in data else None
    cells = (len(rows.dimension.values) if rows else 1) * (len(columns.dimension.values) if columns else 1)
    if cells > MAX_HEAT_MAP_CELLS:
        raise _AidError(aid.where("rows"), f"{cells} cells is more than a heat map of {MAX_HEAT_MAP_CELLS}")
    if rows is None and data.get("show", "outcomes") != "outcomes":
        raise _AidError(aid.where("show"), "a bar chart (no rows:) shows outcomes: sweep rows: to show one probability or a mean")
    inputs = dict(data.get("inputs") or {})
    choices = dict(data.get("choices") or {})
    _bind_fixed_values(ruleset, compiled, aid, inputs, choices, (rows, columns))
    kind, outcome, fields, mean = _shown(compiled, aid, data.get("show", "outcomes"))
    by = tuple(data.get("by") or (OUTCOME,))
    known_fields = [OUTCOME] + [name for name, _ in getattr(compiled.outcome_type, "fields", ())]
    for index, name in enumerate(by):
        if name not in known_fields:
            raise _AidError(aid.where(f"by.{index}"), f"outcomes of '{procedure}' have no field '{name}' (fields: {', '.join(known_fields)})")
    return HeatMapSpec(
        data["title"], procedure, data.get("description", ""), data.get("rule", ""), inputs, choices, rows, columns, kind, outcome, fields, mean, by,
        data.get("max_work"), aid,
    )


def _bind_fixed_values(
    ruleset: CompiledRuleset, compiled: CheckedProcedure, aid: Any, inputs: dict, choices: dict, axes: tuple[Axis | None, ...]
) -> None:
    """The entry's fixed inputs and choices, with the first value of each swept dimension, bound as every call's
    values are (:func:`binding.bind`, the one binder): the first problem is raised at its place in the entry."""
    from .binding import MISSING_INPUT, bind, reachable_choices

    given, chosen, swept = dict(inputs), dict(choices), {}
    for key, axis in zip(("rows", "columns"), axes):
        if axis is None:
            continue
        dimension = axis.dimension
        swept[dimension.target] = key
        if dimension.is_choice:
            chosen[dimension.target] = dimension.values[0]
        elif not dimension.path:
            given[dimension.target] = dimension.values[0]
    bound = bind(compiled, given, chosen, offered=reachable_choices(ruleset, compiled.name), provided=set(swept))
    for problem in bound.problems:
        if problem.kind == MISSING_INPUT:
            raise _AidError(aid.where("inputs"), f"{problem.message}: give it under inputs: or sweep it")
        section = "inputs" if problem.name in inputs else "choices" if problem.name in choices else None
        place = aid.where(f"{section}.{problem.name}") if section else aid.where(swept.get(problem.name, "inputs"))
        raise _AidError(place, problem.message)


def _shown(compiled: CheckedProcedure, aid: Any, show: Any) -> tuple[str, str | None, dict, str | None]:
    """What the maps show, checked: (outcomes, probability or mean; the outcome and its fields; the mean's field)."""
    procedure = compiled.name
    if isinstance(show, dict) and "probability" in show:
        outcome = show["probability"]
        if outcome not in compiled.outcome_names:
            raise _AidError(aid.where("show.probability"), f"'{procedure}' has no outcome '{outcome}' (outcomes: {', '.join(compiled.outcome_names)})")
        return "probability", outcome, dict(show.get("fields") or {}), None
    if isinstance(show, dict) and "mean" in show:
        mean = show["mean"]
        numeric = [name for name, field_type in getattr(compiled.outcome_type, "fields", ()) if field_type.describe() == "int"]
        if mean not in numeric:
            raise _AidError(aid.where("show.mean"), f"outcomes of '{procedure}' have no numeric field '{mean}' (numeric fields: {', '.join(numeric) or 'none'})")
        return "mean", None, {}, mean
    return "outcomes", None, {}, None


def aid_problems(ruleset: CompiledRuleset) -> list[Diagnostic]:
    """What is wrong in the ruleset's ``aids:`` (nothing is computed: only names, inputs and values are checked).

    Each cell has a work budget of its own, so the cells of all the entries together are bounded too
    (MAX_AID_CELLS): the entry that goes past it is the error."""
    problems, total = [], 0
    for aid in _aids(ruleset):
        try:
            spec = heat_map_spec(ruleset, aid)
        except _AidError as error:
            problems.append(error.diagnostic)
            continue
        total += cell_count(spec)
        if total > MAX_AID_CELLS:
            problems.append(aid.pos.diagnostic(f"the aids: come to {total:,} cells here, more than {MAX_AID_CELLS:,} in one player aid"))
            break
    return problems


def cell_count(spec: HeatMapSpec) -> int:
    """The odds computed for an entry: one per cell (a bar chart is one)."""
    return (len(spec.rows.dimension.values) if spec.rows else 1) * (len(spec.columns.dimension.values) if spec.columns else 1)


# ---- computing the heat maps ------------------------------------------------------------------


@dataclass(frozen=True)
class HeatMap:
    """One grid of numbers: rows x columns, each cell an exact value (or None)."""

    title: str
    subtitle: str
    row_title: str
    row_labels: tuple[str, ...]
    column_title: str
    column_labels: tuple[str, ...]
    cells: tuple[tuple[Fraction | None, ...], ...]
    kind: str  # probability or mean


def heat_maps(ruleset: CompiledRuleset, spec: HeatMapSpec, budget: Budget) -> list[HeatMap]:
    """The aid's maps: one per outcome key (show: outcomes, with columns), else one.

    ``budget`` is the entry's (see :func:`entry_budget`): every cell starts its work budget afresh
    (``start_play``) while the clock runs on, so a cell is refused for its own cost, never for its
    neighbours'."""
    sweep = _sweep_by_cell(ruleset, spec, budget)
    if spec.rows is None:
        raise AssertionError("a bar chart has no heat maps")  # pragma: no cover - callers ask bar_chart_of
    n_columns = len(spec.columns.dimension.values) if spec.columns else 1
    grid = [sweep.cells[i:i + n_columns] for i in range(0, len(sweep.cells), n_columns)]
    if spec.show == "outcomes":
        return _outcome_maps(spec, spec.rows, grid, sweep.keys())
    subtitle, cells, kind = _value_cells(spec, grid)
    column_title = spec.columns.title if spec.columns else ""
    column_labels = spec.columns.labels if spec.columns else (subtitle,)
    return [HeatMap(spec.title, subtitle, spec.rows.title, spec.rows.labels, column_title, column_labels, cells, kind)]


def bar_chart_of(ruleset: CompiledRuleset, spec: HeatMapSpec, budget: Budget) -> Bars:
    """An entry without rows: the probability of each outcome (or ``by:`` value) under its fixed inputs."""
    sweep = _sweep_by_cell(ruleset, spec, budget)
    marginal = sweep.cells[0].distribution.marginal(spec.by).as_dict()
    keys = sweep.keys()  # in the procedure's order of outcomes, numbers ascending
    return Bars("", tuple((results_label(dict(zip(spec.by, key))), marginal.get(key, Fraction(0))) for key in keys))


def entry_budget(limits: Limits, spec: HeatMapSpec, deadline: float | None) -> Budget:
    """An entry's budget: its ``max_work:`` when it raises one (unless the limits lift the work budget),
    the page's one deadline (the timeout is for the whole command)."""
    if spec.max_work is not None and limits.max_work is not None:
        limits = replace(limits, max_work=max(limits.max_work, spec.max_work))
    budget = Budget(limits)
    budget.deadline = deadline
    return budget


def _in_cell(error: LimitExceeded, spec: HeatMapSpec, cell: list[Dimension]) -> LimitExceeded:
    """A cell's breach, its message headed by the aid and the cell (the position stays in the procedure)."""
    at = ", ".join(f"{dimension.name} = {label}" for dimension in cell for label in dimension.labels())
    where = f"player aid '{spec.title}'" + (f" at {at}" if at else "")
    hint = "" if error.diagnostics[0].message.find("max_work") < 0 else " (or give the aids: entry max_work:)"
    first, *rest = error.diagnostics
    first = Diagnostic(first.file, first.line, first.column, f"{where}: {first.message}{hint}", first.line_text)
    return type(error)([first, *rest])


def _sweep_by_cell(ruleset: CompiledRuleset, spec: HeatMapSpec, budget: Budget) -> Sweep:
    """The entry's sweep, one cell at a time, each with the whole work budget."""
    dimensions = [axis.dimension for axis in (spec.rows, spec.columns) if axis is not None]
    cells: list[Cell] = []
    one: Sweep | None = None
    for combination in itertools.product(*(d.values for d in dimensions)):
        budget.start_play()
        alone = [replace(dimension, values=(value,)) for dimension, value in zip(dimensions, combination)]
        try:
            one = run_sweep(ruleset, spec.procedure, alone, spec.inputs, choices=spec.choices, by=spec.by, budget=budget)
        except SweepError as error:
            raise RulesetError(ruleset.compiled[spec.procedure].body.pos.diagnostic(f"player aid '{spec.title}': {error.message}")) from None
        except LimitExceeded as error:  # which map and cell, and how to give its cells more
            raise _in_cell(error, spec, alone) from None
        cells.extend(one.cells)
    assert one is not None  # product() of any dimensions yields at least one combination (none: one, empty)
    return replace(one, dimensions=tuple(dimensions), cells=tuple(cells))


def _outcome_maps(spec: HeatMapSpec, rows: Axis, grid: list[tuple[Cell, ...]], keys: list[tuple]) -> list[HeatMap]:
    """Each outcome key's probability: as columns of one map (no columns swept), else one map per key."""
    from .reporters import column_label

    by_title = ", ".join(spec.by)
    marginals = [[cell.distribution.marginal(spec.by).as_dict() for cell in row] for row in grid]
    if spec.columns is None:
        cells = tuple(tuple(m[0].get(key, Fraction(0)) for key in keys) for m in marginals)
        labels = tuple(column_label(spec.by, key) for key in keys)
        return [HeatMap(spec.title, "", rows.title, rows.labels, by_title, labels, cells, "probability")]
    columns = spec.columns
    return [
        HeatMap(
            spec.title, results_label(dict(zip(spec.by, key))), rows.title, rows.labels, columns.title, columns.labels,
            tuple(tuple(m.get(key, Fraction(0)) for m in row) for row in marginals), "probability",
        )
        for key in keys
    ]


def _value_cells(spec: HeatMapSpec, grid: list[tuple[Cell, ...]]) -> tuple[str, tuple[tuple[Fraction | None, ...], ...], str]:
    """(subtitle, cells, kind) of a map of one outcome's probability or one field's mean."""
    if spec.outcome is not None:  # show: {probability: OUTCOME}
        wanted = spec.fields
        subtitle = "probability of " + results_label({"outcome": spec.outcome, **wanted})
        outcome = spec.outcome
        return subtitle, tuple(tuple(cell.distribution.probability(outcome, **wanted) for cell in row) for row in grid), "probability"
    if spec.mean is not None:  # show: {mean: FIELD}
        mean = spec.mean
        return f"mean {mean}", tuple(tuple(_mean(cell.distribution, mean) for cell in row) for row in grid), "mean"
    raise AssertionError(f"heat map {spec.title!r} shows {spec.show!r}")  # pragma: no cover - _shown sets one of them


def _mean(distribution: Any, field: str) -> Fraction | None:
    mean = distribution.means().get(field)
    return mean.value if mean is not None else None


def results_label(values: dict) -> str:
    from .render import _key_text

    return _key_text(values)



# ---- the page and check ------------------------------------------------------------------------


@dataclass(frozen=True)
class Chart:
    """One ``aids:`` entry computed: its heat maps, or its bar chart."""

    spec: HeatMapSpec
    maps: tuple[HeatMap, ...]
    bars: Bars | None = None


def charts(ruleset: CompiledRuleset, limits: Limits) -> list[Chart]:
    """Every ``aids:`` entry computed, each cell under its own work budget, all before one deadline."""
    deadline = None if limits.timeout is None else monotonic() + limits.timeout
    found = []
    for aid in _aids(ruleset):
        spec = heat_map_spec(ruleset, aid)
        budget = entry_budget(limits, spec, deadline)
        if spec.rows is None:
            found.append(Chart(spec, (), bar_chart_of(ruleset, spec, budget)))
        else:
            found.append(Chart(spec, tuple(heat_maps(ruleset, spec, budget))))
    return found


def player_aid(
    ruleset: CompiledRuleset, *, limits: Limits | None = None, codes: dict[str, dict[str, str]] | None = None, card: bool = False
) -> tuple[str, dict]:
    """The page (with ``card``, the compact card), and a summary of what is in it (for ``aid --json``)."""
    from .aid_html import page
    from .arguments import check_type
    from .compiled_ruleset import CompiledRuleset

    check_type(ruleset, CompiledRuleset, "the ruleset", "a ruleset from load_ruleset(...)")
    check_type(limits, Limits, "limits", "a Limits(...)", optional=True)
    check_type(codes, dict, "codes", "a mapping of table names to {code: meaning}", optional=True)
    check_type(card, bool, "card", "True or False")
    problems = aid_problems(ruleset)
    if problems:
        raise RulesetError(problems)
    codes = codes if codes is not None else table_codes(ruleset)
    found = charts(ruleset, limits or Limits())
    return page(ruleset, found, codes, card=card), _summary(ruleset, found)


def aid_warnings(ruleset: CompiledRuleset, limits: Limits | None = None) -> list[Diagnostic]:
    """What ``check`` warns of in a valid ``aids:`` section, each at its entry: a heat map whose cells are
    all equal (the swept inputs change nothing there), or an entry whose cells would not fit their budget.
    The charts are computed to know (a bundled ruleset's take well under a second)."""
    warnings = []
    limits = limits or Limits()
    deadline = None if limits.timeout is None else monotonic() + limits.timeout
    for aid in _aids(ruleset):
        spec = heat_map_spec(ruleset, aid)
        if spec.rows is None:
            continue
        try:
            maps = heat_maps(ruleset, spec, entry_budget(limits, spec, deadline))
        except LimitExceeded as error:  # its message names the aid and the cell
            warnings.append(aid.pos.diagnostic(f"warning: this chart would not be drawn: {error.diagnostics[0].message}"))
            continue
        except WartableError as error:  # a rule violated in a cell, say
            warnings.append(aid.pos.diagnostic(f"warning: player aid '{spec.title}' would not be drawn: {error.diagnostics[0].message}"))
            continue
        for heat in maps:
            value = constant_value(heat)
            if value is not None:
                what = f" ({heat.subtitle})" if heat.subtitle else ""
                warnings.append(aid.pos.diagnostic(
                    f"warning: heat map '{spec.title}'{what}: every cell is {shown_number(value, heat.kind)}: the swept inputs change nothing here"
                ))
    return warnings


def _summary(ruleset: CompiledRuleset, found: list[Chart]) -> dict:
    """What ``aid --json`` reports: counts, and each aid's procedure, axes and maps."""
    return {
        "ruleset": ruleset.name,
        "tables": len(ruleset.tables),
        "modifier_lists": len(ruleset.modifiers),
        "procedures": len(ruleset.procedures),
        "heat_maps": sum(len(chart.maps) for chart in found),
        "bar_charts": sum(1 for chart in found if chart.bars is not None),
        "aids": [
            {
                "title": chart.spec.title,
                "procedure": chart.spec.procedure,
                "rows": chart.spec.rows.dimension.name if chart.spec.rows else None,
                "columns": chart.spec.columns.dimension.name if chart.spec.columns else None,
                "show": chart.spec.show,
                "heat_maps": len(chart.maps),
                "constant": [constant_value(heat) is not None for heat in chart.maps],
            }
            for chart in found
        ],
    }


def table_codes(ruleset: CompiledRuleset) -> dict[str, dict[str, str]]:
    """Each structured table's result codes and their meanings, where the model keeps them."""
    found = {}
    for name, table in ruleset.tables.items():
        codes = getattr(table, "codes", None)
        if codes:
            found[name] = {code: meaning for code, meaning in codes}
    return found


def specs(ruleset: CompiledRuleset) -> Sequence[HeatMapSpec]:
    return [heat_map_spec(ruleset, aid) for aid in _aids(ruleset)]
