"""The text reporter: results (see ``results``) formatted for people.

Every ``text_*`` function takes the plain-data document a command produced
(the same one ``--json`` prints): the command (or a caller of the API) makes
the document with ``results``, then formats it here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from . import results
from .errors import format_diagnostic, printable

BAR_WIDTH = 40
ABSENT = "-"


# Fields whose text is several lines on purpose (a procedure's body as written).
MULTILINE_FIELDS = frozenset({"body"})


def printable_doc(value: Any, multiline: bool = False) -> Any:
    """A results document with every string (keys too) through ``printable``.

    The text reporters format documents full of ruleset strings: escaping
    them here, before cells are measured and aligned, keeps the columns
    straight (``\\x1b`` is four characters wide, as printed).  Newlines are
    escaped too, but in :data:`MULTILINE_FIELDS`: a title with a newline
    could otherwise forge a line of its own (an ``ok`` under a ``FAIL``).
    """
    if isinstance(value, str):
        return printable(value, newlines=multiline)
    if isinstance(value, dict):
        return {
            (printable(key) if isinstance(key, str) else key): printable_doc(item, multiline or key in MULTILINE_FIELDS)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [printable_doc(item, multiline) for item in value]
    return value


Render = TypeVar("Render", bound=Callable[..., Any])


def for_terminal(render: Render) -> Render:
    """Decorate a ``text_*`` reporter: its document is made printable first (see :func:`printable_doc`)."""

    @functools.wraps(render)
    def escaped(doc: dict, *args: Any, **kwargs: Any) -> Any:
        return render(printable_doc(doc), *args, **kwargs)

    return escaped  # type: ignore[return-value]


def _align(rows: list[list[str]]) -> list[str]:
    """Rows as columns padded to their widest cell; a row may have fewer cells than another (a mean shown
    as its fraction and decimal beside one shown as a decimal only)."""
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(max(map(len, rows), default=0))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def show_plain(value: Any) -> str:
    """A JSON-ready value as a player would write it (as ``values.show`` does for live values)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return ABSENT
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(show_plain(item) for item in value) + "]"
    if isinstance(value, dict):
        if set(value) == {"name", "fields"} and isinstance(value["fields"], dict):
            return show_outcome(value)
        code = value.get("code")
        if isinstance(code, str) and code:
            return code
        return "{" + ", ".join(f"{k}: {show_plain(v)}" for k, v in value.items()) + "}"
    return str(value)


def show_outcome(outcome: dict) -> str:
    inner = ", ".join(f"{k} = {show_plain(v)}" for k, v in outcome["fields"].items())
    return f"{outcome['name']}({inner})" if inner else outcome["name"]


def describe_type(doc: dict) -> str:
    kind = doc["type"]
    if kind == "enum":
        return "enum(" + ", ".join(doc["values"]) + ")"
    if kind == "list":
        low, high = doc.get("min_items", 0), doc.get("max_items")
        size = (f", {low} to {high} items" if low and high is not None else f", at least {low} item{'s' if low != 1 else ''}" if low
                else f", at most {high} items" if high is not None else "")
        return f"list of {describe_type(doc['of'])}{size}"
    if kind == "record":
        return doc["record"]
    if kind == "ratio":
        return "odds ratio"
    return kind


def _inputs_line(inputs: dict) -> str:
    return "inputs: " + ", ".join(f"{k} = {_show_runs(v)}" for k, v in inputs.items())


def _show_runs(value: Any) -> str:
    """An input as :func:`show_plain` shows it, but a run of equal items in a list written once with its count:
    ``[3 × {kind: heavy, value: 3}, 9 × {kind: warship, value: 2}]``, not twelve ships one by one."""
    if not isinstance(value, list):
        return show_plain(value)
    shown: list[str] = []
    index = 0
    while index < len(value):
        end = index + 1
        while isinstance(value[index], (dict, list)) and end < len(value) and value[end] == value[index]:
            end += 1  # records and lists only: [2 × 2, 2 × 1] for [2, 2, 1, 1] would read as arithmetic
        item = _show_runs(value[index])
        shown.append(item if end - index == 1 else f"{end - index} × {item}")
        index = end
    return "[" + ", ".join(shown) + "]"


# ---- tables, modifier lists, listings ----------------------------------------------------------


@for_terminal
def text_table(doc: dict) -> str:
    lines = [doc["title"]]
    if doc["example"]:
        lines.append("(ILLUSTRATIVE EXAMPLE: the source does not give this table)")
    lines.append(f"rule: {doc['rule']}")
    columns = doc["columns"]
    if columns is not None:
        header = [doc["rows"]["name"]] + columns["headings"]
        lines.append(f"columns: {columns['name']}")
    else:
        header = [doc["rows"]["name"], "Result"]
    body = [[heading] + list(printed) for heading, printed in zip(doc["rows"]["headings"], doc["cells"])]
    if "provenance" in doc:
        header = header + ["from"]
        for row, origins in zip(body, doc["provenance"]):
            row.append(", ".join(dict.fromkeys(origins)))
    lines.append("")
    aligned = _align([header] + body)
    lines.append(aligned[0])
    lines.append("-" * len(aligned[0]))
    lines.extend(aligned[1:])
    edges = f"rows {doc['rows']['edge']}" + (f", columns {columns['edge']}" if columns else "")
    lines.append("")
    lines.append(f"off the edge: {edges}")
    below = (columns or {}).get("below")
    if below is not None:
        first = columns["headings"][0] if columns["headings"] else ""
        shown = {"off_table": "off the table", "clamp": f"the {first} column"}.get(below, below)
        lines.append(f"odds below {first}: {shown}")
    if doc["fields"]:
        lines.append("cells are records: code, " + ", ".join(doc["fields"]))
    return "\n".join(lines)


@for_terminal
def text_modifiers(doc: dict) -> str:
    kind = "column shifts, cumulative" if doc["modifier_kind"] == "column_shift" else "die-roll modifiers"
    title = doc["title"]
    heading = title if kind.split(",")[0].lower() in title.lower() else f"{title}  ({kind})"
    lines = [heading, f"rule: {doc['rule']}", ""]
    lines.extend(_align([[e["shown"], e["label"], f"[{e['name']}]"] for e in doc["entries"]]))
    return "\n".join(lines)


@for_terminal
def text_procedure(doc: dict) -> str:
    return f"{doc['title']}\nrule: {doc['rule']}\n\n{doc['body']}"


@for_terminal
def text_listing(doc: dict) -> str:
    lines = [f"{doc['title']} ({doc['ruleset']} {doc['version']})", f"source: {doc['source']}", ""]
    lines += _listed("tables", [_table_line(t) for t in doc["tables"]])
    lines += _listed("modifier lists", [f"  {m['name']:<28} {m['kind']}, {m['entries']} entries: {m['title']}" for m in doc["modifiers"]])
    lines += _listed("types", [_type_line(declared) for declared in doc["types"]])
    lines += _listed("constants", [f"  {c['name']:<28} {show_plain(c['value'])}" for c in doc["constants"]])
    lines.append("procedures:")
    for procedure in doc["procedures"]:
        lines += _procedure_lines(procedure)
    return "\n".join(lines)


def _listed(title: str, rows: list[str]) -> list[str]:
    """A section of the listing: its title, its rows and a blank line; nothing when it has no rows."""
    return [f"{title}:", *rows, ""] if rows else []


def _table_line(t: dict) -> str:
    size = f"{t['rows']} rows" + (f" x {t['columns']} columns" if t["columns"] is not None else "")
    mark = "  [example]" if t["example"] else ""
    return f"  {t['name']:<28} {t['title']} ({size}){mark}"


def _type_line(declared: dict) -> str:
    if declared["kind"] != "record":
        return f"  {declared['name']:<28} {describe_type(declared)}"
    parts = [f"{f['name']}: {describe_type(f)}" + (f" = {show_plain(f['default'])}" if "default" in f else "") for f in declared["fields"]]
    return f"  {declared['name']:<28} {{{', '.join(parts)}}}"


def _procedure_lines(procedure: dict) -> list[str]:
    """A procedure's name and title, how to give each input and choice, and its outcomes."""
    lines = [f"  {procedure['name']}: {procedure['title']}"]
    for spec in procedure["inputs"]:
        default = "required" if spec["required"] else f"default {show_plain(spec['default'])}"
        lines.append(f"    --set {spec['name']}=...  {describe_input_type(spec)}, {default}")
    for choice in procedure["choices"]:
        lines.append(f"    --choose {choice['name']}={'|'.join(choice['options'])}  (default {choice['default']})")
    lines.append(f"    outcomes: {', '.join(procedure['outcomes'])}")
    return lines


def describe_input_type(spec: dict) -> str:
    """An input document's type in words, a number's bounds after it: ``int 1..6``."""
    text = describe_type(spec)
    if spec["type"] == "int" and ("min" in spec or "max" in spec):
        text += f" {spec.get('min', '')}..{spec.get('max', '')}"
    return text


# ---- check and test ----------------------------------------------------------------------------


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@for_terminal
def text_check_entry(entry: dict) -> str:
    """``ok   NAME: counts (path)`` for a ruleset that passed; the FAIL line for one that did not."""
    if entry["ok"]:
        c = entry["counts"]
        words = (("tables", "table"), ("modifier_lists", "modifier list"), ("procedures", "procedure"), ("examples", "example"), ("inputs", "input"))
        counts = ", ".join(_plural(c[key], word) for key, word in words if key in c)
        kind = entry.get("kind")
        if kind:  # a fragment or a situation file, checked against its own schema
            return f"ok   {entry['given']}: a {kind} file, {counts} (schema checked)"
        return f"ok   {entry['ruleset']}: {counts} ({entry['path']})"
    checked_as = f" (checked as a {entry['kind']} file)" if entry.get("kind") else ""
    return f"FAIL {entry['given']}: {_plural(len(entry['diagnostics']), 'error')}{checked_as}"


def text_diagnostic(d: dict) -> str:
    """A diagnostic document as ``Diagnostic.format`` prints it (escaped, the caret under the escaped line)."""
    return format_diagnostic(d["file"], d["line"], d["column"], d["message"], d.get("line_text") or "")


@for_terminal
def text_example(entry: dict) -> str:
    status = "ok  " if entry["passed"] else "FAIL"
    return f"{status} {entry['ruleset']}: {entry['name']} ({entry['file']}:{entry['line']})"


def text_test_summary(doc: dict) -> str:
    return f"{doc['passed']} passed, {doc['failed']} failed"


# ---- resolutions, distributions, samples ---------------------------------------------------------


TRACE_KINDS_SHORT = {"roll", "lookup", "modifier", "shift", "clamp", "note", "call", "outcome"}


def _illustrative_line(doc: dict) -> list[str]:
    """Say so when a result rests on tables the source did not give (marked example: true)."""
    tables = doc.get("illustrative_tables") or []
    lines = [f"note: depends on ILLUSTRATIVE tables, not the game's own (example: true): {', '.join(tables)}"] if tables else []
    readings = doc.get("readings") or []
    if readings:  # the notes whose reading (the ruleset's, not the seed's words) the result may rest on
        import textwrap

        text = f"note: rests on the ruleset's readings, not the seed's words (see its notes:): {'; '.join(readings)}"
        lines.extend(textwrap.wrap(text, width=120, subsequent_indent="  ", break_on_hyphens=False))
    return lines


@for_terminal
def text_resolution(doc: dict, *, full_trace: bool, provenance: bool = False) -> str:
    source = f"seed {doc['seed']}" if doc["seed"] is not None else "scripted dice"
    lines = [f"{doc['ruleset']} {doc['procedure']} ({source})"]
    lines += _wrapped_inputs(doc["inputs"])
    lines.extend(_illustrative_line(doc))
    for event in doc["trace"]:
        if not full_trace and (event["kind"] == "outcome" or event["kind"] not in TRACE_KINDS_SHORT):
            continue
        indent = "  " * (event["depth"] + 1)
        lines.append(f"{indent}{event['message']}")  # worded by trace.describe
        if provenance and event.get("value_from"):
            lines.append(f"{indent}    value from {event['value_from']}")
        if full_trace and (event["rule"] or event["where"]):
            cite = f"rule: {event['rule']}" if event["rule"] else ""
            where = f"[{event['where']}]" if event["where"] else ""
            lines.append(f"{indent}    {cite} {where}".rstrip())
    lines.append(f"outcome: {show_plain(doc['outcome'])}")
    if doc["dice"]:
        lines.append("dice: " + ",".join(map(str, doc["dice"])) + (f"  (replay: --seed {doc['seed']})" if doc["seed"] is not None else ""))
    return "\n".join(lines)


# The decimal rule: an exact fraction is printed beside its percentage only while it is short
# enough to read at a glance, at most this many characters ("1595/7776", "10324823/60466176").
# A longer one (a battle's odds run to 150 digits) is put away: the percentage says what a
# player can use, and --json (or --format csv) keeps every fraction exact.  Only where the
# decimal printed beside it would read 0 does a long fraction stay, approximated
# (``≈1.0e-4350``): it is then the one thing saying how small the chance is.
MAX_FRACTION_CHARS = 20


def readable_fraction(exact: str, shown_as_zero: bool = False) -> str:
    """``exact`` as a player reads it beside its decimal (see :data:`MAX_FRACTION_CHARS`): whole when
    short; approximated when long but the decimal beside it reads 0 (``shown_as_zero``); else ''."""
    numerator, _, denominator = exact.partition("/")
    if len(numerator) + len(denominator) + 1 <= MAX_FRACTION_CHARS:
        return results.shown_fraction(exact)
    return results.approximate(results.parse_fraction(exact)) if shown_as_zero and numerator.strip("+-0") else ""


def _probability_cells(exact: str, p: float, digits: int | None) -> list[str]:
    """The fraction (when short: see :data:`MAX_FRACTION_CHARS`), the percentage and a bar; with
    ``digits``, the decimal alone."""
    if digits is not None:
        return [f"{p:.{digits}f}", "#" * round(p * BAR_WIDTH)]
    percentage = f"{p * 100:8.4f}%"
    return [readable_fraction(exact, shown_as_zero=not percentage.strip("0.% ")), percentage, "#" * round(p * BAR_WIDTH)]


def _key_text(values: dict) -> str:
    return ", ".join(f"{k} = {show_plain(v)}" if k != "outcome" else show_plain(v) for k, v in values.items())


def _mean_cells(mean: dict, digits: int | None) -> list[str]:
    """An exact mean as its fraction (when short, the decimal rule) and decimal; else the decimal, with
    its standard error when sampled."""
    places = digits if digits is not None else 4
    value = f"{mean['value']:.{places}f}"
    fraction = readable_fraction(mean["mean"], shown_as_zero=not value.strip("-0.")) if digits is None and "mean" in mean else ""
    if fraction:
        return [fraction, f"({value})"]
    if "standard_error" not in mean:
        return [value]
    error = mean["standard_error"]
    return [value, "± " + ("n/a" if error is None else f"{error:.{places}f}")]


def text_means(means: dict, digits: int | None, indent: str = "  ") -> list[str]:
    if not means:
        return []
    rows = []
    for name, mean in means.items():
        shown = _mean_cells(mean, digits)
        probability = mean["probability"]
        exact = isinstance(probability, str)
        if (exact and probability != "1/1") or (not exact and probability < 1):
            if exact and digits is None and len(probability) <= 24:
                present = results.shown_fraction(probability)
            else:  # a decimal when asked for, or when the exact fraction is too long to read
                present = f"{float(results.parse_fraction(probability)) * 100 if exact else probability * 100:.{max(digits - 2, 2) if digits is not None else 2}f}%"
            shown.append(f"(when present: {present})")
        rows.append([f"mean {name}"] + shown)
    return ["means:"] + [indent + line for line in _align(rows)]


# No line of odds or a sample is wider than this, the inputs line (870 characters for the smallest
# EIA battle, 3,500 for eight ships a side) wrapped to fit: a wide terminal shows it whole.
SCREEN_WIDTH = 200


def _wrapped_inputs(inputs: dict) -> list[str]:
    """The inputs line, wrapped (between values where it can) to lines of at most :data:`SCREEN_WIDTH`."""
    import textwrap

    if not inputs:
        return []
    return textwrap.wrap(_inputs_line(inputs), SCREEN_WIDTH, subsequent_indent="  ", break_on_hyphens=False)


def _odds_heading(doc: dict, what: str) -> list[str]:
    """The lines above exact odds or a sample: what was run, its inputs, the illustrative tables, the ``by`` fields."""
    lines = [f"{doc['ruleset']} {doc['procedure']}: {what}"]
    lines += _wrapped_inputs(doc["inputs"])
    lines.extend(_illustrative_line(doc))
    if "marginal" in doc:
        lines.append("by " + ", ".join(doc["by"]) + ":")
    return lines


@for_terminal
def text_distribution(doc: dict, *, digits: int | None = None) -> str:
    lines = _odds_heading(doc, "exact odds")
    if "marginal" in doc:
        rows = [[_key_text(m["values"])] + _probability_cells(m["probability"], m["p"], digits) for m in doc["marginal"]]
    else:
        rows = [
            [show_outcome(o)] + _probability_cells(o["probability"], o["p"], digits)
            for o in doc["outcomes"]
        ]
    if rows:
        lines.extend("  " + line for line in _align(rows))
    truncated = results.parse_fraction(doc["truncated"])
    if truncated:
        lines.append(f"  truncated (not explored): {results.shown_fraction(doc['truncated'])} = {float(truncated):.3g}")
    lines.extend(text_means(doc.get("means", {}), digits))
    return "\n".join(lines)


@for_terminal
def text_sample(doc: dict, *, digits: int | None = None) -> str:
    lines = _odds_heading(doc, f"sampled: {doc['trials']} plays (seed {doc['seed']}), ± one standard error (in points)")
    places = digits if digits is not None else 4
    entries = doc["marginal"] if "marginal" in doc else doc["outcomes"]
    rows = []
    for entry in entries:
        label = _key_text(entry["values"]) if "values" in entry else show_outcome(entry)
        share = entry["p"]
        if digits is not None:
            cells = [f"{share:.{places}f}", f"± {entry['standard_error']:.{places}f}"]
        else:
            cells = [f"{share * 100:8.4f}%", f"± {entry['standard_error'] * 100:.4f}"]
        rows.append([label, str(entry["count"])] + cells + ["#" * round(share * BAR_WIDTH)])
    if rows:
        lines.extend("  " + line for line in _align(rows))
    lines.extend(text_means(doc.get("means", {}), digits))
    return "\n".join(lines)


# ---- summaries of many outcomes ------------------------------------------------------------------
# A listing of every outcome is the answer while it fits on a screen; past that (more outcomes than
# a player compares at a glance, or lines wider than a wide terminal) `odds` and `run --n` print the
# battle summary instead (see battle_summary), and `--full` the listing.

MAX_LISTED_OUTCOMES = 12


def listing_too_big(doc: dict) -> bool:
    """Would the listing of every outcome (``doc`` from ``results.distribution``/``results.sample``,
    without ``--by``) run past :data:`MAX_LISTED_OUTCOMES` lines or :data:`SCREEN_WIDTH` characters?"""
    outcomes = doc["outcomes"]
    if len(outcomes) > MAX_LISTED_OUTCOMES:
        return True
    # an outcome's line: its text, then about 60 characters of fraction, percentage and bar
    return any(len(show_outcome(printable_doc(o))) + 2 + BAR_WIDTH + 20 > SCREEN_WIDTH for o in outcomes)


def _summary_share(entry: dict, digits: int | None, sampled: bool) -> list[str]:
    """A share's cells: exact, the fraction (when short) and the percentage; sampled, the count,
    the percentage and its standard error (in points); with ``digits``, decimals, not percentages."""
    p = entry["p"]
    shown = f"{p:.{digits}f}" if digits is not None else f"{p * 100:.2f}%"
    if not sampled:
        fraction = readable_fraction(entry["probability"], shown_as_zero=not shown.strip("0.%")) if digits is None else ""
        return ["" if fraction in ("0", "1") else fraction, shown]  # no "1" beside 100.00%
    error = entry["standard_error"]
    return [str(entry["count"]), shown, "± " + (f"{error:.{digits}f}" if digits is not None else f"{error * 100:.2f}")]


def _align_filled(rows: list[list[str]]) -> list[str]:
    """:func:`_align`, leaving out a column empty in every row (no fraction is short enough to show)."""
    kept = [i for i in range(len(rows[0])) if any(row[i] for row in rows)]
    return _align([[row[i] for i in kept] for row in rows])


# A text field's value in the summary is cut to this many characters (an ellipsis last), so that its
# line stays within SCREEN_WIDTH whatever the ruleset's strings; --full shows every value whole.
MAX_VALUE_CHARS = 80


def _value_label(value: Any) -> str:
    text = show_plain(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _category_lines(category: dict, digits: int | None, sampled: bool) -> list[str]:
    rows = [[_value_label(v["value"])] + _summary_share(v, digits, sampled) + ["#" * round(v["p"] * BAR_WIDTH)] for v in category["values"]]
    if "others" in category:
        others = category["others"]
        rows.append([f"({others['values']} other values)"] + _summary_share(others, digits, sampled) + ["#" * round(others["p"] * BAR_WIDTH)])
    if "absent" in category:
        rows.append(["(no such field)"] + _summary_share(category["absent"], digits, sampled) + ["#" * round(category["absent"]["p"] * BAR_WIDTH)])
    title = "outcome:" if category["field"] == "outcome" else f"{_value_label(category['field'])}:"
    return [title] + ["  " + line for line in _align_filled(rows)]


def _number_lines(numbers: list[dict], digits: int | None, sampled: bool) -> list[str]:
    """One line a numeric field: mean (± its standard error when sampled), sd, least and greatest, at least k."""
    if not numbers:
        return []
    places = digits if digits is not None else 4
    columns = max((len(n.get("at_least", [])) for n in numbers), default=0)
    header = ["field", "mean"] + (["± error"] if sampled else []) + ["sd", "min", "max"] + [f"at least {k}" for k in range(1, columns + 1)]
    rows = [header]
    for number in numbers:
        mean = f"{number['value']:.{places}f}"
        fraction = readable_fraction(number["mean"]) if not sampled and digits is None else ""
        if "/" in fraction:  # "7/2 = 3.5000"; a whole mean needs no fraction
            mean = f"{fraction} = {mean}"
        row = [_value_label(number["field"]), mean]
        if sampled:
            error = number["standard_error"]
            row.append("n/a" if error is None else f"± {error:.{places}f}")
        row += [f"{number['sd']:.{places}f}", str(number["min"]), str(number["max"])]
        at_least = number.get("at_least", [])
        row += [" ".join(_summary_share(a, digits, sampled)[1:]).strip() for a in at_least]  # "21.85%", "34.25% ± 1.06"
        row += [""] * (columns - len(at_least))
        rows.append(row)
    where = [f"{n['field']} {_presence(n['probability'], digits)}" for n in numbers if n["probability"] not in ("1/1", 1, 1.0)]
    lines = ["numbers (mean and sd where the field is present; at least k over every outcome):"]
    lines += ["  " + line for line in _align(rows)]
    if where:
        lines.append("  present in only some outcomes: " + ", ".join(where))
    return lines


def _presence(probability: str | float, digits: int | None) -> str:
    """The chance that an outcome carries a field (exact ``"p/q"`` or a sampled share), as a percentage."""
    p = float(results.parse_fraction(probability)) if isinstance(probability, str) else probability
    return f"{p:.{digits}f}" if digits is not None else f"{p * 100:.2f}%"


def _summary_inputs(inputs: dict, at_defaults: list[str]) -> list[str]:
    """The inputs a summary shows: those not at their defaults, then how many are (the listing shows all)."""
    shown = _wrapped_inputs({name: value for name, value in inputs.items() if name not in at_defaults})
    if not at_defaults:
        return shown
    count = f"{_plural(len(at_defaults), 'input' if not shown else 'other input')} at {'its default' if len(at_defaults) == 1 else 'their defaults'}"
    return shown + [f"  ({count}; --full lists every input)" if shown else f"inputs: {count} (--full lists every input)"]


@for_terminal
def text_summary(doc: dict, *, digits: int | None = None) -> str:
    """The battle summary (``battle_summary``) of exact odds or of a sample, within one screen."""
    sampled = doc["kind"] == "sampled"
    what = (f"sampled: {doc['trials']} plays (seed {doc['seed']}), ± one standard error" if sampled else "exact odds")
    lines = [f"{doc['ruleset']} {doc['procedure']}: {what}; a summary of {doc['distinct_outcomes']} distinct outcomes (--full lists each)"]
    lines += _summary_inputs(doc["inputs"], doc.get("at_defaults", []))
    lines.extend(_illustrative_line(doc))
    for category in doc["categories"]:
        lines += _category_lines(category, digits, sampled)
    lines += _number_lines(doc["numbers"], digits, sampled)
    if doc["other_fields"]:
        import textwrap

        other = "not summarised (lists and records; --full shows them): " + ", ".join(doc["other_fields"])
        lines += textwrap.wrap(other, SCREEN_WIDTH, subsequent_indent="  ")
    if not sampled and results.parse_fraction(doc["truncated"]):
        truncated = doc["truncated"]
        lines.append(f"truncated (not explored): {readable_fraction(truncated, shown_as_zero=True)}"
                     f" = {float(results.parse_fraction(truncated)):.3g}")
    return "\n".join(lines)


# ---- differences ------------------------------------------------------------------------------


@for_terminal
def text_odds_changes(doc: dict) -> str:
    base_label, variant_label = doc["base"], doc["variant"]
    lines = [f"{doc['procedure']}: exact odds, {base_label} vs {variant_label}"]
    if doc["inputs"]:
        lines.append(_inputs_line(doc["inputs"]))
    for label, only in (doc.get("inputs_only_in") or {}).items():
        if only:
            lines.append(f"only {label} has: " + ", ".join(f"{k} = {show_plain(v)}" for k, v in only.items()))
    table = [["outcome", base_label, variant_label, "change"]]
    for row in doc["outcomes"]:
        before, after, change = (results.parse_fraction(row[key]) for key in ("before", "after", "change"))
        sign = "+" if change > 0 else ("-" if change < 0 else " ")
        table.append([
            show_outcome(row),
            f"{results.shown_fraction(row['before'])} ({float(before) * 100:.2f}%)",
            f"{results.shown_fraction(row['after'])} ({float(after) * 100:.2f}%)",
            f"{sign}{results.shown_fraction(results.fraction(abs(change)))} ({float(change) * 100:+.2f} pts)",
        ])
    lines.extend("  " + line for line in _align(table))
    return "\n".join(lines)


@for_terminal
def text_changes(doc: dict) -> list[str]:
    """``BASE -> VARIANT: N changes`` and one line per change."""
    changes = doc["changes"]
    return [f"{doc['base']} -> {doc['variant']}: {_plural(len(changes), 'change')}"] + [f"  {c['text']}" for c in changes]
