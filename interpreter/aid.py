"""The player aid: one self-contained, printable HTML page for a ruleset.

Every table as printed, every modifier list with its rules, every procedure
in rulebook form, the ruleset's notes, and the odds heat maps its ``aids:``
section declares (a procedure, the inputs to sweep, what to show).

The page loads nothing: no scripts, no fonts, no images, no links off the
page; its style sheet is inline.  Every string from the ruleset is escaped
(rulesets come from strangers).  Heat-map colours run from white to a dark
blue whose lightness falls with the value, so a black-and-white print keeps
the order; every cell also prints its value as a fraction and a percentage.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from . import results
from .errors import Diagnostic, RulesetError
from .limits import Budget, Limits
from .rulebook import Step, steps
from .summaries import OUTCOME
from .sweep import Cell, Dimension, SweepError, dimension_from_values, run_sweep
from .values import to_plain

if TYPE_CHECKING:  # pragma: no cover - types only
    from .compiled_ruleset import CompiledRuleset
    from .ir import CheckedProcedure

# Cells in one heat map: a page a player can read, not a data dump.
MAX_HEAT_MAP_CELLS = 600


def e(value: Any) -> str:
    """Every string from a ruleset goes through here (quotes too: it may sit in an attribute)."""
    return html.escape(str(value), quote=True)


# ---- the aids: section --------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """One axis of a heat map: the swept input (a sweep dimension), its labels and its title."""

    dimension: Dimension
    labels: tuple[str, ...]
    title: str


@dataclass(frozen=True)
class HeatMapSpec:
    """A heat map declared under ``aids:``: its procedure, fixed inputs and choices, and axes."""

    title: str
    procedure: str
    description: str
    rule: str
    inputs: dict
    choices: dict
    rows: Axis
    columns: Axis | None
    show: str  # outcomes, probability, mean
    outcome: str | None  # for probability
    fields: dict  # for probability: outcome fields that must match
    mean: str | None  # for mean
    by: tuple[str, ...]


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
    rows = _axis(ruleset, aid, "rows", procedure)
    columns = _axis(ruleset, aid, "columns", procedure) if "columns" in data else None
    cells = len(rows.dimension.values) * (len(columns.dimension.values) if columns else 1)
    if cells > MAX_HEAT_MAP_CELLS:
        raise _AidError(aid.where("rows"), f"{cells} cells is more than a heat map of {MAX_HEAT_MAP_CELLS}")
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
        data["title"], procedure, data.get("description", ""), data.get("rule", ""), inputs, choices, rows, columns, kind, outcome, fields, mean, by
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
    """What is wrong in the ruleset's ``aids:`` (nothing is computed: only names, inputs and values are checked)."""
    problems = []
    for aid in _aids(ruleset):
        try:
            heat_map_spec(ruleset, aid)
        except _AidError as error:
            problems.append(error.diagnostic)
    return problems


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
    """The aid's maps, from one sweep: one per outcome key (show: outcomes, with columns), else one."""
    dimensions = [spec.rows.dimension] + ([spec.columns.dimension] if spec.columns else [])
    try:
        sweep = run_sweep(ruleset, spec.procedure, dimensions, spec.inputs, choices=spec.choices, by=spec.by, budget=budget)
    except SweepError as error:
        raise RulesetError(ruleset.compiled[spec.procedure].body.pos.diagnostic(f"player aid '{spec.title}': {error.message}")) from None
    n_columns = len(spec.columns.dimension.values) if spec.columns else 1
    grid = [sweep.cells[i:i + n_columns] for i in range(0, len(sweep.cells), n_columns)]
    if spec.show == "outcomes":
        return _outcome_maps(spec, grid, sweep.keys())
    subtitle, cells, kind = _value_cells(spec, grid)
    column_title = spec.columns.title if spec.columns else ""
    column_labels = spec.columns.labels if spec.columns else (subtitle,)
    return [HeatMap(spec.title, subtitle, spec.rows.title, spec.rows.labels, column_title, column_labels, cells, kind)]


def _outcome_maps(spec: HeatMapSpec, grid: list[tuple[Cell, ...]], keys: list[tuple]) -> list[HeatMap]:
    """Each outcome key's probability: as columns of one map (no columns swept), else one map per key."""
    from .reporters import column_label

    by_title = ", ".join(spec.by)
    marginals = [[cell.distribution.marginal(spec.by).as_dict() for cell in row] for row in grid]
    if spec.columns is None:
        cells = tuple(tuple(m[0].get(key, Fraction(0)) for key in keys) for m in marginals)
        labels = tuple(column_label(spec.by, key) for key in keys)
        return [HeatMap(spec.title, "", spec.rows.title, spec.rows.labels, by_title, labels, cells, "probability")]
    return [
        HeatMap(
            spec.title, results_label(dict(zip(spec.by, key))), spec.rows.title, spec.rows.labels, spec.columns.title, spec.columns.labels,
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


# ---- HTML ------------------------------------------------------------------------------------


STYLE = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font-family: Georgia, "Times New Roman", serif; color: #111; background: #fff; margin: 2rem auto; max-width: 62rem; padding: 0 1rem; line-height: 1.35; }
h1 { font-size: 1.9rem; margin: 0 0 .3rem; }
h2 { font-size: 1.35rem; border-bottom: 2px solid #111; margin: 2rem 0 .8rem; padding-bottom: .15rem; }
h3 { font-size: 1.08rem; margin: 1.4rem 0 .3rem; }
p.meta, p.rule, p.small { color: #333; font-size: .9rem; margin: .15rem 0; }
p.rule::before { content: "Rule: "; font-weight: bold; }
.example { border: 1px dashed #111; padding: 0 .3rem; font-size: .8rem; font-family: sans-serif; }
nav ol { columns: 2; font-size: .92rem; }
table { border-collapse: collapse; margin: .4rem 0 .6rem; font-size: .9rem; }
th, td { border: 1px solid #555; padding: .18rem .45rem; text-align: center; vertical-align: middle; }
thead th { background: #e6e6e6; }
th.axis { background: #f3f3f3; font-weight: normal; font-style: italic; }
tbody th { background: #f3f3f3; }
td.text, th.text { text-align: left; }
code, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .85em; }
dl.legend { display: grid; grid-template-columns: max-content auto; gap: .1rem .7rem; font-size: .85rem; margin: .3rem 0; }
dl.legend dt { font-weight: bold; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
dl.legend dd { margin: 0; }
ol.steps, ol.steps ol { padding-left: 1.6rem; margin: .2rem 0; }
ol.steps li { margin: .12rem 0; }
.outcome { font-weight: bold; }
.cite { color: #444; font-size: .8rem; font-style: italic; }
table.heat td { min-width: 4.2rem; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .78rem; line-height: 1.15; }
table.heat td .pct { display: block; font-size: .72rem; }
table.heat td.empty { background: #fff; color: #777; }
div.multiples { display: flex; flex-wrap: wrap; gap: .4rem 1.6rem; align-items: flex-start; }
figure.heat { margin: 0; }
figure.heat figcaption { font-weight: bold; font-size: .92rem; margin: .5rem 0 .1rem; }
.scale { display: flex; align-items: center; gap: .3rem; font-size: .75rem; font-family: sans-serif; margin-bottom: .8rem; }
.scale span.swatch { display: inline-block; width: 1.6rem; height: .9rem; border: 1px solid #555; }
blockquote { margin: .2rem 0 .4rem 1rem; padding-left: .6rem; border-left: 3px solid #999; font-size: .88rem; color: #333; }
footer { margin-top: 2.5rem; font-size: .75rem; color: #444; border-top: 1px solid #999; padding-top: .3rem; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  nav { display: none; }
  section.block, table, figure { break-inside: avoid; page-break-inside: avoid; }
  h2 { break-after: avoid; page-break-after: avoid; }
}
"""

# White to dark blue; lightness falls steadily so grey printing keeps the order.
SCALE = ((255, 255, 255), (198, 219, 239), (107, 174, 214), (33, 113, 181), (8, 48, 107))


def colour(t: float) -> tuple[str, str]:
    """Background and text colour for a value scaled to 0..1."""
    t = min(max(t, 0.0), 1.0)
    position = t * (len(SCALE) - 1)
    index = min(int(position), len(SCALE) - 2)
    local = position - index
    low, high = SCALE[index], SCALE[index + 1]
    r, g, b = (round(a + (c - a) * local) for a, c in zip(low, high))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return f"#{r:02x}{g:02x}{b:02x}", ("#fff" if luminance < 128 else "#000")


def _fraction_text(p: Fraction) -> str:
    return results.shown_value(p)  # approximated when too long to read (str() fails past 4,300 digits)


def _heat_cell(value: Fraction | None, kind: str, low: Fraction, high: Fraction) -> str:
    if value is None:
        return '<td class="empty">–</td>'
    if kind == "probability":
        t = float(value)
        second = f"{float(value) * 100:.1f}%"
    else:
        t = float((value - low) / (high - low)) if high > low else 0.5
        second = f"{float(value):.2f}"
    background, foreground = colour(t)
    exact = _fraction_text(value)
    if kind == "probability" and value == 0:
        second = ""
    shown = exact if len(exact) <= 11 else "≈"  # a fraction too long to read at a glance (the tooltip has it)
    return f'<td style="background:{background};color:{foreground}" title="{e(exact)}">{e(shown)}<span class="pct">{e(second)}</span></td>'


def _scale_legend(kind: str, low: Fraction, high: Fraction) -> str:
    stops = [0, 0.25, 0.5, 0.75, 1]
    swatches = "".join(f'<span class="swatch" style="background:{colour(t)[0]}"></span>' for t in stops)
    if kind == "probability":
        left, right = "0%", "100%"
    else:
        left, right = f"{float(low):.2f}", f"{float(high):.2f}"
    return f'<div class="scale">{e(left)} {swatches} {e(right)}</div>'


def render_heat_map(heat: HeatMap) -> str:
    values = [v for row in heat.cells for v in row if v is not None]
    low = min(values) if values else Fraction(0)
    high = max(values) if values else Fraction(1)
    parts = ['<figure class="heat">']
    if heat.subtitle:
        parts.append(f"<figcaption>{e(heat.subtitle)}</figcaption>")
    parts.append('<table class="heat">')
    span = len(heat.column_labels)
    parts.append(f'<thead><tr><th class="axis" rowspan="2">{e(heat.row_title)}</th><th class="axis" colspan="{span}">{e(heat.column_title)}</th></tr>')
    parts.append("<tr>" + "".join(f"<th>{e(label)}</th>" for label in heat.column_labels) + "</tr></thead><tbody>")
    for label, row in zip(heat.row_labels, heat.cells):
        parts.append(f"<tr><th>{e(label)}</th>" + "".join(_heat_cell(v, heat.kind, low, high) for v in row) + "</tr>")
    parts.append("</tbody></table>")
    parts.append(_scale_legend(heat.kind, low, high))
    parts.append("</figure>")
    return "\n".join(parts)


def _table_html(ruleset: CompiledRuleset, name: str, codes: dict | None) -> str:
    doc = results.table_doc(ruleset.tables[name])
    parts = [f'<section class="block" id="table-{e(name)}"><h3>{e(doc["title"])}']
    if doc["example"]:
        parts.append(' <span class="example">illustrative example: not in the source</span>')
    parts.append("</h3>")
    parts.append(f'<p class="rule">{e(doc["rule"])}</p>')
    if doc["description"]:
        parts.append(f'<p class="small">{e(doc["description"])}</p>')
    parts.append('<table class="crt"><thead>')
    columns = doc["columns"]
    if columns is not None:
        parts.append(f'<tr><th class="axis" rowspan="2">{e(doc["rows"]["name"])}</th><th class="axis" colspan="{len(columns["headings"])}">{e(columns["name"])}</th></tr>')
        parts.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in columns["headings"]) + "</tr>")
    else:
        parts.append(f'<tr><th class="axis">{e(doc["rows"]["name"])}</th><th>Result</th></tr>')
    parts.append("</thead><tbody>")
    for heading, cells in zip(doc["rows"]["headings"], doc["cells"]):
        parts.append(f"<tr><th>{e(heading)}</th>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
    parts.append("</tbody></table>")
    if codes:
        parts.append('<dl class="legend">' + "".join(f"<dt>{e(code)}</dt><dd>{e(meaning)}</dd>" for code, meaning in codes.items()) + "</dl>")
    edges = f"rows {doc['rows']['edge']}" + (f", columns {columns['edge']}" if columns else "")
    parts.append(f'<p class="small">Off the edge of the table: {e(edges)}.</p></section>')
    return "".join(parts)


def _modifiers_html(ruleset: CompiledRuleset, name: str) -> str:
    doc = results.modifiers_doc(ruleset.modifiers[name])
    kind = "column shifts (cumulative; R is right)" if doc["modifier_kind"] == "column_shift" else "die-roll modifiers"
    parts = [f'<section class="block" id="mod-{e(name)}"><h3>{e(doc["title"])}</h3><p class="small">{e(kind)}</p>']
    parts.append(f'<p class="rule">{e(doc["rule"])}</p>')
    parts.append('<table><thead><tr><th></th><th class="text">When</th><th class="text">Rule</th></tr></thead><tbody>')
    for entry in doc["entries"]:
        when = f'<br><code>{e(entry["when"])}</code>' if entry["when"] else ""
        parts.append(f'<tr><th>{e(entry["shown"])}</th><td class="text">{e(entry["label"])}{when}</td><td class="text cite">{e(entry["rule"])}</td></tr>')
    parts.append("</tbody></table></section>")
    return "".join(parts)


def _step_html(step: Step, ruleset: CompiledRuleset) -> str:
    """One step as a list item, its sub-steps nested."""
    write = _STEP_WRITERS.get(step.kind)
    text = write(step.parts, ruleset) if write is not None else "(a step this page cannot show)"
    if step.steps:
        text += '<ol>' + "".join(_step_html(s, ruleset) for s in step.steps) + "</ol>"
    return f"<li>{text}</li>"


def _link(anchor: str, name: str, found: Any) -> str:
    """A link to the section of a table, modifier list or procedure, named by its title (its name if missing)."""
    title = found.title if found is not None else name
    return f'<a href="#{anchor}-{e(name)}">{e(title)}</a>'


def _lookup_html(p: dict, ruleset: CompiledRuleset) -> str:
    table = _link("table", p["table"], ruleset.tables.get(p["table"]))
    return f'Look up the {table} (<code>{e(p["expr"])}</code>): call it <var>{e(p["name"])}</var>.'


def _modifiers_step_html(p: dict, ruleset: CompiledRuleset) -> str:
    what = "column shifts" if p["modifier_kind"] == "column_shift" else "modifiers"
    return f'Add up the {what} that apply from {_link("mod", p["list"], ruleset.modifiers.get(p["list"]))}: call it <var>{e(p["name"])}</var>.'


def _resolve_html(p: dict, ruleset: CompiledRuleset) -> str:
    procedure = _link("proc", p["procedure"], ruleset.procedures.get(p["procedure"]))
    return f'Resolve {procedure} (<code>{e(p["expr"])}</code>): call its result <var>{e(p["name"])}</var>.'


def _while_html(p: dict, ruleset: CompiledRuleset) -> str:
    if p["limit"] is None:
        return f'While <code>{e(p["condition"])}</code>, round after round:'
    return f'While <code>{e(p["condition"])}</code> (at most <code>{e(p["limit"])}</code> rounds):'


def _outcome_html(p: dict, ruleset: CompiledRuleset) -> str:
    fields = ", ".join(f'{e(f["name"])} = <code>{e(f["expr"])}</code>' for f in p["fields"])
    text = f'Result: <span class="outcome">{e(p["name"])}</span>' + (f" ({fields})" if fields else "") + "."
    if p["rule"]:
        text += f' <span class="cite">{e(p["rule"])}</span>'
    return text


# One writer per step kind (rulebook.Step.kind): the step's parts and the ruleset -> the item's HTML.
_STEP_WRITERS: dict[str, Callable[[dict, CompiledRuleset], str]] = {
    "roll": lambda p, _: f'Roll <code>{e(p["expr"])}</code>: call it <var>{e(p["name"])}</var>.',
    "lookup": _lookup_html,
    "modifiers": _modifiers_step_html,
    "resolve": _resolve_html,
    "let": lambda p, _: f'Let <var>{e(p["name"])}</var> be <code>{e(p["expr"])}</code>.',
    "set": lambda p, _: f'Set <var>{e(p["name"])}</var> to <code>{e(p["expr"])}</code>.',
    "if": lambda p, _: f'If <code>{e(p["condition"])}</code>:',
    "elif": lambda p, _: f'Otherwise, if <code>{e(p["condition"])}</code>:',
    "else": lambda p, _: "Otherwise:",
    "for": lambda p, _: f'For each <var>{e(p["var"])}</var> in <code>{e(p["expr"])}</code>:',
    "while": _while_html,
    "break": lambda p, _: "Stop repeating.",
    "outcome": _outcome_html,
    "require": lambda p, _: f'The situation must satisfy <code>{e(p["condition"])}</code>: <span class="cite">{e(p["message"])}</span>',
    "note": lambda p, _: f'<em>{e(p["text"])}</em>',
}


def _procedure_html(ruleset: CompiledRuleset, name: str) -> str:
    doc = results.procedure_doc(ruleset, name)
    procedure = ruleset.procedures[name]
    parts = [f'<section class="block" id="proc-{e(name)}"><h3>{e(doc["title"])}</h3><p class="rule">{e(doc["rule"])}</p>']
    if doc["description"]:
        parts.append(f'<p class="small">{e(doc["description"])}</p>')
    if doc["inputs"] or doc["choices"]:
        parts.append('<table><thead><tr><th class="text">Input</th><th class="text">Kind</th><th class="text">Default</th><th class="text">Meaning</th></tr></thead><tbody>')
        from .render import describe_input_type, show_plain

        for spec in doc["inputs"]:
            kind = describe_input_type(spec)
            default = "required" if spec["required"] else show_plain(spec["default"])
            parts.append(f'<tr><td class="text"><code>{e(spec["name"])}</code></td><td class="text">{e(kind)}</td><td class="text">{e(default)}</td><td class="text">{e(spec.get("description", ""))}</td></tr>')
        for choice in doc["choices"]:
            parts.append(
                f'<tr><td class="text"><code>{e(choice["name"])}</code></td><td class="text">player choice: {e(" or ".join(choice["options"]))}</td>'
                f'<td class="text">{e(choice["default"])}</td><td class="text">{e(choice["description"])}</td></tr>'
            )
        parts.append("</tbody></table>")
    parts.append('<ol class="steps">' + "".join(_step_html(s, ruleset) for s in steps(procedure.body)) + "</ol></section>")
    return "".join(parts)


def _notes_html(ruleset: CompiledRuleset) -> str:
    parts = []
    for note in ruleset.notes:
        parts.append(f'<section class="block"><h3>{e(note.topic)}</h3><p>{e(note.text)}</p>')
        if note.seed:
            parts.append(f"<blockquote>{e(note.seed)}</blockquote>")
        if note.variant:
            parts.append(f'<p class="small">The other reading: {e(note.variant)}</p>')
        parts.append("</section>")
    return "".join(parts)


def _inputs_text(spec: HeatMapSpec) -> str:
    from .render import show_plain

    parts = [f"{name} = {show_plain(to_plain(value))}" for name, value in spec.inputs.items()]
    parts += [f"{name}: {option}" for name, option in spec.choices.items()]
    return "; ".join(parts)


def player_aid(ruleset: CompiledRuleset, *, limits: Limits | None = None, codes: dict[str, dict[str, str]] | None = None) -> tuple[str, dict]:
    """The page, and a summary of what is in it (for ``aid --json``)."""
    from .arguments import check_type
    from .compiled_ruleset import CompiledRuleset

    check_type(ruleset, CompiledRuleset, "the ruleset", "a ruleset from load_ruleset(...)")
    check_type(limits, Limits, "limits", "a Limits(...)", optional=True)
    check_type(codes, dict, "codes", "a mapping of table names to {code: meaning}", optional=True)
    problems = aid_problems(ruleset)
    if problems:
        raise RulesetError(problems)
    budget = Budget(limits or Limits())
    codes = codes if codes is not None else table_codes(ruleset)
    specs = [heat_map_spec(ruleset, aid) for aid in _aids(ruleset)]
    maps = [(spec, heat_maps(ruleset, spec, budget)) for spec in specs]
    return _page(ruleset, _body(ruleset, maps, codes)), _summary(ruleset, maps)


def _body(ruleset: CompiledRuleset, maps: list[tuple[HeatMapSpec, list[HeatMap]]], codes: dict[str, dict[str, str]]) -> list[str]:
    """The page's body, part by part: header, contents, odds, tables, modifiers, procedures, notes, footer."""
    from .resources import version

    body = [f"<header><h1>{e(ruleset.title)}</h1>"]
    body.append(f'<p class="meta">{e(ruleset.source)} · version {e(ruleset.version)} · ruleset <code>{e(ruleset.name)}</code></p>')
    if ruleset.description:
        body.append(f"<p>{e(ruleset.description)}</p>")
    body.append("</header>")
    sections = [
        ("odds", "Odds", bool(maps)),
        ("tables", "Tables", bool(ruleset.tables)),
        ("modifiers", "Modifiers and column shifts", bool(ruleset.modifiers)),
        ("procedures", "Procedures", bool(ruleset.procedures)),
        ("notes", "Readings of the rules", bool(ruleset.notes)),
    ]
    body.append("<nav><ol>" + "".join(f'<li><a href="#{key}">{title}</a></li>' for key, title, present in sections if present) + "</ol></nav>")
    if maps:
        body.append('<section id="odds"><h2>Odds</h2>')
        for spec, found in maps:
            body.extend(_odds_parts(ruleset, spec, found))
        body.append("</section>")
    if ruleset.tables:
        body.append('<section id="tables"><h2>Tables</h2>' + "".join(_table_html(ruleset, name, codes.get(name)) for name in ruleset.tables) + "</section>")
    if ruleset.modifiers:
        body.append('<section id="modifiers"><h2>Modifiers and column shifts</h2>' + "".join(_modifiers_html(ruleset, name) for name in ruleset.modifiers) + "</section>")
    if ruleset.procedures:
        body.append('<section id="procedures"><h2>Procedures</h2>' + "".join(_procedure_html(ruleset, name) for name in ruleset.procedures) + "</section>")
    if ruleset.notes:
        body.append('<section id="notes"><h2>Readings of the rules</h2>' + _notes_html(ruleset) + "</section>")
    body.append(f"<footer>Made by wartable {e(version())} from <code>{e(ruleset.name)}</code>. Every number on this page comes from the ruleset; odds are exact.</footer>")
    return body


def _odds_parts(ruleset: CompiledRuleset, spec: HeatMapSpec, found: list[HeatMap]) -> list[str]:
    """One aid's block, line by line: what it shows, its rule and description, and its maps side by side."""
    parts = [f'<section class="block heat-map"><h3>{e(spec.title)}</h3>']
    parts.append(f'<p class="small">Exact odds of <a href="#proc-{e(spec.procedure)}">{e(ruleset.procedures[spec.procedure].title)}</a>'
                 + (f"; {e(_inputs_text(spec))}" if spec.inputs or spec.choices else "") + ".</p>")
    if spec.rule:
        parts.append(f'<p class="rule">{e(spec.rule)}</p>')
    if spec.description:
        parts.append(f'<p class="small">{e(spec.description)}</p>')
    parts.append('<div class="multiples">' + "".join(render_heat_map(heat) for heat in found) + "</div>")
    parts.append("</section>")
    return parts


def _page(ruleset: CompiledRuleset, body: list[str]) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        # No request leaves the page: nothing but inline styles and images from nowhere.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        f"<title>{e(ruleset.title)}: player aid</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _summary(ruleset: CompiledRuleset, maps: list[tuple[HeatMapSpec, list[HeatMap]]]) -> dict:
    """What ``aid --json`` reports: counts, and each aid's procedure, axes and maps."""
    return {
        "ruleset": ruleset.name,
        "tables": len(ruleset.tables),
        "modifier_lists": len(ruleset.modifiers),
        "procedures": len(ruleset.procedures),
        "heat_maps": sum(len(found) for _, found in maps),
        "aids": [
            {
                "title": spec.title,
                "procedure": spec.procedure,
                "rows": spec.rows.dimension.name,
                "columns": spec.columns.dimension.name if spec.columns else None,
                "show": spec.show,
                "heat_maps": len(found),
            }
            for spec, found in maps
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
