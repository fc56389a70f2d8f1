"""The player aid's HTML: tables as printed, modifier lists, procedures in rulebook form, notes, and the
odds charts :mod:`aid` computed; in full (a reference, printed on as many pages as it needs, with no page
left half empty) or as a card (``aid --card``: odds, tables and modifiers in small print on a page or two).

Odds are shown as players read them: the percentage first, the exact fraction in small print and in the
tooltip.  Every string from the ruleset goes through :func:`e` (rulesets come from strangers); the charts
are inline SVG from :mod:`svg_plot`, which escapes its own text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from . import results
from .errors import printable
from .rulebook import Step, steps
from .svg_plot import bar_chart, colour, percent
from .values import to_plain

if TYPE_CHECKING:  # pragma: no cover - types only
    from .aid import Chart, HeatMap, HeatMapSpec
    from .compiled_ruleset import CompiledRuleset

# Lines (steps and input rows) of a procedure above which it may break across pages (a shorter one moves whole).
LONG_LISTING_STEPS = 12
# Rows of a table above which it may break across pages (a shorter one moves whole).
LONG_TABLE_ROWS = 30
# Characters of a procedure's rule on the card: its first sentence, cut there.
CARD_RULE_CHARACTERS = 80


def e(value: Any) -> str:
    """Every string from a ruleset goes through here (quotes too: it may sit in an attribute), its control
    characters, separators and bidirectional overrides shown escaped (``errors.printable``): the page is the same
    written to a file with ``-o`` as printed, and a browser shows no text reordered by a U+202E."""
    return html.escape(printable(str(value), newlines=True), quote=True)


def constant_value(heat: HeatMap) -> Fraction | None:
    """The one value of a map whose cells (two or more) are all equal: the swept inputs change nothing."""
    values = {v for row in heat.cells for v in row if v is not None}
    count = sum(1 for row in heat.cells for v in row if v is not None)
    return next(iter(values)) if count > 1 and len(values) == 1 else None


def shown_number(value: Fraction, kind: str) -> str:
    """A map's value as a player reads it: a percentage, or a mean to two places."""
    return percent(value) if kind == "probability" else f"{float(value):.2f}"


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
table.heat td { min-width: 4.2rem; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .85rem; line-height: 1.15; }
table.heat td .frac { display: block; font-size: .66rem; opacity: .85; }
p.constant { font-size: .82rem; font-style: italic; margin: .1rem 0 .6rem; max-width: 30rem; }
figure.bars { margin: .3rem 0 .8rem; }
table.heat td.empty { background: #fff; color: #777; }
div.multiples { display: flex; flex-wrap: wrap; gap: .4rem 1.6rem; align-items: flex-start; }
figure.heat { margin: 0; }
figure.heat figcaption { font-weight: bold; font-size: .92rem; margin: .5rem 0 .1rem; }
.scale { display: flex; align-items: center; gap: .3rem; font-size: .75rem; font-family: sans-serif; margin-bottom: .8rem; }
.scale span.swatch { display: inline-block; width: 1.6rem; height: .9rem; border: 1px solid #555; }
blockquote { margin: .2rem 0 .4rem 1rem; padding-left: .6rem; border-left: 3px solid #999; font-size: .88rem; color: #333; }
footer { margin-top: 2.5rem; font-size: .75rem; color: #444; border-top: 1px solid #999; padding-top: .3rem; }
body.card { max-width: none; margin: .5rem; font-size: .8rem; line-height: 1.2; }
body.card h1 { font-size: 1.3rem; }
body.card h2 { font-size: 1rem; margin: .6rem 0 .3rem; border-bottom-width: 1px; }
body.card h3 { font-size: .88rem; margin: .35rem 0 .1rem; }
body.card p.meta, body.card p.rule, body.card p.small { font-size: .72rem; }
body.card table { font-size: .72rem; margin: .15rem 0 .3rem; }
body.card th, body.card td { padding: .05rem .25rem; }
body.card table.heat td { min-width: 2.8rem; font-size: .72rem; }
body.card table.heat td .frac { display: none; }
body.card div.flow { display: flex; flex-wrap: wrap; gap: 0 1.2rem; align-items: flex-start; }
body.card dl.legend { font-size: .68rem; }
body.card .scale { margin-bottom: .2rem; }
body.card ul.oneline { columns: 3; font-size: .68rem; padding-left: 1rem; margin: .2rem 0; }
body.card p.small:not(.inputs), body.card nav, body.card td code, body.card td br, body.card .rulecol { display: none; }
body.card div.flow > section.block { flex: 0 1 auto; width: min-content; min-width: 16rem; max-width: 100%; }
body.card div.flow > section.heat-map { width: max-content; min-width: 0; }
body.card section.heat-map p, body.card section.heat-map h3 { max-width: 21rem; }
body.card header > p:not(.meta) { display: none; }
body.card div.multiples { gap: .2rem .8rem; }
body.card table.heat td { min-width: 2.4rem; }
body.card p.rule { max-width: 40rem; }
body.card ul.oneline li { break-inside: avoid; }
/* Printing: short blocks (a table, a modifier list, a heat map) stay whole; a long procedure listing may
   break between its steps, so no page is left half empty in front of it; a heading stays with what follows. */
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  body.card { font-size: 7.5pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  nav { display: none; }
  section.block, table, figure, div.head { break-inside: avoid; page-break-inside: avoid; }
  section.block.long, table.long { break-inside: auto; page-break-inside: auto; }
  tr { break-inside: avoid; }
  ol.steps li:not(:has(ol)) { break-inside: avoid; }
  h2, h3, div.head { break-after: avoid; page-break-after: avoid; }
  footer { break-inside: avoid; }
}
"""

def _fraction_text(p: Fraction) -> str:
    return results.shown_value(p)  # approximated when too long to read (str() fails past 4,300 digits)


def _heat_cell(value: Fraction | None, kind: str, low: Fraction, high: Fraction) -> str:
    """A cell: the percentage (or the mean) first, as players read it; the exact fraction in small print
    and in the tooltip (a fraction too long to read at a glance is in the tooltip only)."""
    if value is None:
        return '<td class="empty">–</td>'
    if kind == "probability":
        t = float(value)
        first = percent(value)
    else:
        t = float((value - low) / (high - low)) if high > low else 0.5
        first = f"{float(value):.2f}"
    background, foreground = colour(t)
    exact = _fraction_text(value)
    small = f'<span class="frac">{e(exact)}</span>' if len(exact) <= 11 and exact != first.rstrip("%") else ""
    return f'<td style="background:{background};color:{foreground}" title="{e(exact)}">{e(first)}{small}</td>'


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
    constant = constant_value(heat)
    if constant is not None:  # said under the map, as check warns of it
        parts.append(f'<p class="constant">Every cell is {e(shown_number(constant, heat.kind))}: the swept inputs do not change these odds.</p>')
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
    long = " long" if len(doc["rows"]["headings"]) > LONG_TABLE_ROWS else ""  # may break between rows, its heading repeated
    parts.append(f'<table class="crt{long}"><thead>')
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
    parts.append('<table><thead><tr><th></th><th class="text">When</th><th class="text rulecol">Rule</th></tr></thead><tbody>')
    for entry in doc["entries"]:
        when = f'<br><code>{e(entry["when"])}</code>' if entry["when"] else ""
        parts.append(f'<tr><th>{e(entry["shown"])}</th><td class="text">{e(entry["label"])}{when}</td><td class="text cite rulecol">{e(entry["rule"])}</td></tr>')
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
    listing = steps(procedure.body)
    # a procedure of more than a few lines (steps and inputs) may break across pages between its steps or
    # input rows (see STYLE): moved whole, it would leave the page before it half empty
    lines = _count_steps(listing) + len(doc["inputs"]) + len(doc["choices"])
    long = " long" if lines > LONG_LISTING_STEPS else ""
    parts = [f'<section class="block{long}" id="proc-{e(name)}"><div class="head"><h3>{e(doc["title"])}</h3><p class="rule">{e(doc["rule"])}</p>']
    if doc["description"]:
        parts.append(f'<p class="small">{e(doc["description"])}</p>')
    parts.append("</div>")
    if doc["inputs"] or doc["choices"]:
        parts.append(f'<table class="inputs{long}"><thead><tr><th class="text">Input</th><th class="text">Kind</th><th class="text">Default</th><th class="text">Meaning</th></tr></thead><tbody>')
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
    parts.append('<ol class="steps">' + "".join(_step_html(s, ruleset) for s in listing) + "</ol></section>")
    return "".join(parts)


def first_sentence(text: str, limit: int = CARD_RULE_CHARACTERS) -> str:
    """The rule's first sentence (cut at ``limit`` characters): the card's one line of rulebook words."""
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def _count_steps(listing: Sequence[Step]) -> int:
    count, pending = 0, list(listing)
    while pending:  # no recursion on the listing's depth
        step = pending.pop()
        count += 1
        pending.extend(step.steps)
    return count


def _procedure_line(ruleset: CompiledRuleset, name: str) -> str:
    """A procedure in one line, for the card: its title and the rule it follows, in the rulebook's words."""
    procedure = ruleset.procedures[name]
    return f'<li id="proc-{e(name)}"><b>{e(procedure.title)}</b>: <span class="cite">{e(first_sentence(procedure.rule))}</span></li>'


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


def source_text(source: str) -> str:
    """The ruleset's ``source:`` as the page cites it: the words, without file paths (``shared/seeds/...``
    is where a file sat in someone's repository, not a source a player can look up)."""
    text = re.sub(r"[^\s,;()]+", lambda word: "" if _PATH.match(word.group()) else word.group(), source)
    text = re.sub(r"\s*[,;]\s*\)", ")", text)  # "(seed 004, )" -> "(seed 004)"
    text = re.sub(r"\(\s*\)", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


# A word that is a file path: two parts or more joined by "/", the last with an extension, or three parts
# or more; a web address (with "://") is a citation and stays.
_PATH = re.compile(r"^(?!\w+://)(?:\.{0,2}/)?(?:[\w.-]+/)+[\w-]+\.\w+$|^(?!\w+://)(?:\.{0,2}/)?(?:[\w.-]+/){2,}[\w.-]*$")


def page(ruleset: CompiledRuleset, found: Sequence[Chart], codes: dict[str, dict[str, str]], *, card: bool = False) -> str:
    """The whole page (or card) as HTML text."""
    body = _card_body(ruleset, found, codes) if card else _body(ruleset, found, codes)
    return _page(ruleset, body, card)


def _header(ruleset: CompiledRuleset) -> list[str]:
    parts = [f"<header><h1>{e(ruleset.title)}</h1>"]
    parts.append(f'<p class="meta">{e(source_text(ruleset.source))} · version {e(ruleset.version)} · ruleset <code>{e(ruleset.name)}</code></p>')
    if ruleset.description:
        parts.append(f"<p>{e(ruleset.description)}</p>")
    parts.append("</header>")
    return parts


def _footer(ruleset: CompiledRuleset) -> str:
    from .resources import version

    return f"<footer>Made by wartable {e(version())} from <code>{e(ruleset.name)}</code>. Every number on this page comes from the ruleset; odds are exact.</footer>"


def _body(ruleset: CompiledRuleset, found: Sequence[Chart], codes: dict[str, dict[str, str]]) -> list[str]:
    """The page's body, part by part: header, contents, odds, tables, modifiers, procedures, notes, footer."""
    body = _header(ruleset)
    sections = [
        ("odds", "Odds", bool(found)),
        ("tables", "Tables", bool(ruleset.tables)),
        ("modifiers", "Modifiers and column shifts", bool(ruleset.modifiers)),
        ("procedures", "Procedures", bool(ruleset.procedures)),
        ("notes", "Readings of the rules", bool(ruleset.notes)),
    ]
    body.append("<nav><ol>" + "".join(f'<li><a href="#{key}">{title}</a></li>' for key, title, present in sections if present) + "</ol></nav>")
    if found:
        body.append('<section id="odds"><h2>Odds</h2>')
        for chart in found:
            body.extend(_odds_parts(ruleset, chart))
        body.append("</section>")
    if ruleset.tables:
        body.append('<section id="tables"><h2>Tables</h2>' + "".join(_table_html(ruleset, name, codes.get(name)) for name in ruleset.tables) + "</section>")
    if ruleset.modifiers:
        body.append('<section id="modifiers"><h2>Modifiers and column shifts</h2>' + "".join(_modifiers_html(ruleset, name) for name in ruleset.modifiers) + "</section>")
    if ruleset.procedures:
        body.append('<section id="procedures"><h2>Procedures</h2>' + "".join(_procedure_html(ruleset, name) for name in ruleset.procedures) + "</section>")
    if ruleset.notes:
        body.append('<section id="notes"><h2>Readings of the rules</h2>' + _notes_html(ruleset) + "</section>")
    body.append(_footer(ruleset))
    return body


def _card_body(ruleset: CompiledRuleset, found: Sequence[Chart], codes: dict[str, dict[str, str]]) -> list[str]:
    """The card: odds, tables and modifier lists flowed side by side in small print; each procedure one line
    (its title and its rule's words); no contents, no listings, no notes."""
    body = _header(ruleset)
    if found:
        body.append('<section id="odds"><h2>Odds</h2><div class="flow">')
        for chart in found:
            body.extend(_odds_parts(ruleset, chart))
        body.append("</div></section>")
    if ruleset.tables:
        body.append('<section id="tables"><h2>Tables</h2><div class="flow">'
                    + "".join(_table_html(ruleset, name, codes.get(name)) for name in ruleset.tables) + "</div></section>")
    if ruleset.modifiers:
        body.append('<section id="modifiers"><h2>Modifiers and column shifts</h2><div class="flow">'
                    + "".join(_modifiers_html(ruleset, name) for name in ruleset.modifiers) + "</div></section>")
    if ruleset.procedures:
        body.append('<section id="procedures"><h2>Procedures</h2><ul class="oneline">'
                    + "".join(_procedure_line(ruleset, name) for name in ruleset.procedures) + "</ul></section>")
    body.append(_footer(ruleset))
    return body


def _odds_parts(ruleset: CompiledRuleset, chart: Chart) -> list[str]:
    """One aid's block, line by line: what it shows, its rule and description, and its maps side by side
    (or its bar chart)."""
    spec = chart.spec
    parts = [f'<section class="block heat-map"><h3>{e(spec.title)}</h3>']
    parts.append(f'<p class="small inputs">Exact odds of <a href="#proc-{e(spec.procedure)}">{e(ruleset.procedures[spec.procedure].title)}</a>'
                 + (f"; {e(_inputs_text(spec))}" if spec.inputs or spec.choices else "") + ".</p>")
    if spec.rule:
        parts.append(f'<p class="rule">{e(spec.rule)}</p>')
    if spec.description:
        parts.append(f'<p class="small">{e(spec.description)}</p>')
    if chart.bars is not None:
        parts.append(f'<figure class="bars">{bar_chart(spec.title, [chart.bars])}</figure>')
    else:
        parts.append('<div class="multiples">' + "".join(render_heat_map(heat) for heat in chart.maps) + "</div>")
    parts.append("</section>")
    return parts


def _page(ruleset: CompiledRuleset, body: list[str], card: bool) -> str:
    kind = "player aid card" if card else "player aid"
    body_tag = '<body class="card">' if card else "<body>"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        # No request leaves the page: nothing but inline styles, and charts drawn inline (SVG elements, no files).
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        f"<title>{e(ruleset.title)}: {kind}</title>\n<style>{STYLE}</style>\n</head>\n{body_tag}\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )
