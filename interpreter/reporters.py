"""Reporters for machines: JSON, GitHub workflow annotations, JUnit XML, and sweep tables (text, CSV, markdown).

They format the plain-data documents of ``results`` (and ``sweep_doc``
below); the text reporter for people is ``render``, the HTML one ``aid``.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from typing import Any
from xml.etree import ElementTree

from . import results
from .errors import LINE_BREAK, printable, printable_json
from .render import _align, _key_text, for_terminal, show_plain, text_diagnostic


def to_json(document: Any) -> str:
    """The document as JSON: UTF-8 kept, the characters a terminal acts on written ``\\uNNNN``."""
    return printable_json(json.dumps(document, indent=2, ensure_ascii=False))


# ---- GitHub workflow commands ----------------------------------------------------------------
# https://docs.github.com/actions/reference/workflow-commands-for-github-actions#setting-an-error-message
# ::error file={name},line={line},col={col},title={title}::{message}
# Data escapes % CR LF; property values also : and , (as @actions/core does).
# The runner reads every line of both streams, leading blanks trimmed, as a
# possible command (::add-mask::, ::stop-commands::): user text must never
# start a line.  With CR and LF escaped it cannot, and printable() first
# takes out the other controls (an ESC in a log is still an ESC on a screen).


def _escape_data(text: str) -> str:
    return printable(text, newlines=True).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(d: dict, title: str, level: str = "error") -> str:
    properties = ",".join(
        f"{key}={_escape_property(str(value))}"
        for key, value in (("file", d["file"]), ("line", d["line"]), ("col", d["column"]), ("title", title))
    )
    message = d["message"]
    if level == "warning" and message.startswith("warning: "):  # the annotation's level says it already
        message = message[len("warning: "):]
    return f"::{level} {properties}::{_escape_data(message)}"


def github_check(doc: dict) -> str:
    lines = []
    for entry in doc["rulesets"]:
        for d in entry["diagnostics"]:
            lines.append(github_annotation(d, f"wartable check {entry['given']}"))
        for d in entry.get("warnings", ()):  # the lint's warnings: shown in the pull request, not failing it
            lines.append(github_annotation(d, f"wartable check {entry['given']}", level="warning"))
    failed = sum(1 for e in doc["rulesets"] if not e["ok"])
    lines.append(f"wartable check: {len(doc['rulesets'])} rulesets, {failed} failed")
    return "\n".join(lines)


def github_test(doc: dict) -> str:
    lines = []
    for failure in doc.get("load_failures", ()):
        for d in failure["diagnostics"]:
            lines.append(github_annotation(d, f"wartable test {failure['ruleset']}: does not load"))
    for example in doc["examples"]:
        for d in example["problems"]:
            lines.append(github_annotation(d, f"wartable test {example['ruleset']}: {example['name']}"))
        for d in example.get("warnings", ()):
            lines.append(github_annotation(d, f"wartable test {example['ruleset']}: {example['name']}", level="warning"))
    summary = f"wartable test: {doc['passed']} passed, {doc['failed']} failed"
    if doc.get("load_failures"):
        summary += f", {_count(len(doc['load_failures']), 'ruleset')} not loaded"
    lines.append(summary)
    return "\n".join(lines)


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# ---- JUnit XML -------------------------------------------------------------------------------
# The Ant/Jenkins shape CI services read:
# <testsuites name tests failures errors><testsuite name tests failures errors skipped>
#   <testcase classname name file line><failure message type>text</failure></testcase>


# XML 1.0 allows only #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]:
# one NUL, ESC or U+FFFE in a name and CI reads nothing of the file.  printable()
# shows every other C0 control, the surrogates, U+FFFE and U+FFFF as \xNN or
# \uNNNN (and the C1 controls too: the file is often printed to a log).


def _xml_safe(attributes: dict) -> dict[str, str]:
    return {printable(str(key)): printable(str(value), newlines=True) for key, value in attributes.items()}


def _xml(root: ElementTree.Element) -> str:
    """The document, where no line starts with ``:`` (written ``&#58;``, the same to an XML
    reader): an echoed source line inside a failure could otherwise be a CI workflow command."""
    ElementTree.indent(root)
    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode")
    return "\n".join(_COMMAND_LIKE.sub(r"\1&#58;", line) for line in text.split("\n"))


_COMMAND_LIKE = re.compile(r"^(\s*):")


@dataclass(frozen=True)
class Timings:
    """Seconds measured (wall clock, ``time.perf_counter``) for JUnit's ``time`` attributes, kept out of the
    JSON documents (a document of the same run is the same whatever the machine's load).

    ``cases`` holds one number per test case in the document's order (``check``: its rulesets;
    ``test``: its load failures, then its examples); ``loading`` the seconds each ruleset took to
    load, by the name its suite carries (a suite's time is its loading plus its cases).
    """

    cases: tuple[float, ...] = ()
    loading: Mapping[str, float] = field(default_factory=dict)

    def case(self, index: int) -> float:
        return self.cases[index] if index < len(self.cases) else 0.0


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.6f}"


def _suite(parent: ElementTree.Element, name: str, cases: list[tuple[dict, list[dict], float]], loading: float = 0.0) -> None:
    failures = sum(1 for _, problems, _ in cases if problems)
    total = loading + sum(seconds for _, _, seconds in cases)
    suite = ElementTree.SubElement(
        parent, "testsuite", _xml_safe({"name": name, "tests": len(cases), "failures": failures, "errors": 0, "skipped": 0, "time": _seconds(total)})
    )
    for attributes, problems, seconds in cases:
        case = ElementTree.SubElement(suite, "testcase", _xml_safe({**attributes, "time": _seconds(seconds)}))
        if problems:
            failure = ElementTree.SubElement(case, "failure", _xml_safe({"message": problems[0]["message"], "type": "wartable"}))
            failure.text = "\n".join(text_diagnostic(d) for d in problems)  # escaped by format_diagnostic


def _root(name: str, tests: int, failures: int, seconds: float) -> ElementTree.Element:
    return ElementTree.Element("testsuites", name=name, tests=str(tests), failures=str(failures), errors="0", time=_seconds(seconds))


def junit_check(doc: dict, timings: Timings = Timings()) -> str:
    """``check`` as JUnit XML (every string escaped to XML 1.0 characters: see :func:`_xml_safe`)."""
    cases = [
        ({"classname": "wartable.check", "name": e["given"], **({"file": e["path"]} if e["path"] else {})}, e["diagnostics"], timings.case(index))
        for index, e in enumerate(doc["rulesets"])
    ]
    root = _root("wartable check", len(cases), sum(1 for _, p, _ in cases if p), sum(seconds for _, _, seconds in cases))
    _suite(root, "wartable check", cases)
    return _xml(root)


def junit_test(doc: dict, timings: Timings = Timings()) -> str:
    """``test`` as JUnit XML: a suite per ruleset, a case per example; a ruleset that does not load is a
    suite holding one failing case (``loads``) with its diagnostics, so CI sees the failure."""
    load_failures = doc.get("load_failures", [])
    by_ruleset: dict[str, list[tuple[dict, list[dict], float]]] = {}
    for index, failure in enumerate(load_failures):
        attributes = {"classname": f"wartable.{failure['ruleset']}", "name": "loads"}
        by_ruleset.setdefault(failure["ruleset"], []).append((attributes, failure["diagnostics"], timings.case(index)))
    for index, e in enumerate(doc["examples"], start=len(load_failures)):
        attributes = {"classname": f"wartable.{e['ruleset']}", "name": e["name"], "file": e["file"], "line": e["line"]}
        by_ruleset.setdefault(e["ruleset"], []).append((attributes, e["problems"], timings.case(index)))
    tests = len(doc["examples"]) + len(load_failures)
    loading = {name: timings.loading.get(name, 0.0) for name in by_ruleset if name not in {f["ruleset"] for f in load_failures}}
    total = sum(loading.values()) + sum(seconds for cases in by_ruleset.values() for _, _, seconds in cases)
    root = _root("wartable test", tests, doc["failed"] + len(load_failures), total)
    for ruleset, cases in by_ruleset.items():
        _suite(root, ruleset, cases, loading.get(ruleset, 0.0))
    return _xml(root)


# ---- sweeps --------------------------------------------------------------------------------


def sweep_doc(sweep: Any, digits: int | None = None) -> dict:
    """A sweep as data: the dimensions, the outcome columns, one row per combination."""
    keys = sweep.keys()
    rows = []
    for cell in sweep.cells:
        probabilities = cell.distribution.marginal(sweep.by).as_dict()
        rows.append({
            "at": {d.name: value for d, value in zip(sweep.dimensions, cell.at)},
            "outcomes": [
                {"values": dict(zip(sweep.by, key)), "probability": results.fraction(probabilities.get(key, 0)),
                 "p": results.decimal(probabilities.get(key, 0), digits)}
                for key in keys
            ],
            "means": results.means_doc(cell.distribution.means(), digits),
            "truncated": results.fraction(cell.distribution.truncated),
        })
    return {
        "ruleset": sweep.ruleset,
        "procedure": sweep.procedure,
        "inputs": sweep.inputs,
        "choices": dict(sweep.choices),
        "over": [{"name": d.name, "values": list(d.values)} for d in sweep.dimensions],
        "by": list(sweep.by),
        "columns": [{"values": dict(zip(sweep.by, key)), "label": column_label(sweep.by, key)} for key in keys],
        "means": sweep.mean_fields(),
        "rows": rows,
    }


def column_label(by: Sequence[str], key: Sequence[Any]) -> str:
    """An outcome column's heading: the value alone when one field is shown (the heading line names it)."""
    if len(by) == 1:
        return show_plain(key[0])
    return _key_text(dict(zip(by, key)))


def _whole_fraction(text: str) -> str:
    """``"3/1"`` -> ``"3"``, any other fraction as it is."""
    return text.removesuffix("/1")


def decimal_cell(text: str, value: float) -> str:
    """A probability or mean (``text`` its exact ``"p/q"``, ``value`` its float) as CSV writes it by default.

    ``repr`` of the float: the shortest decimal that reads back as the same float (at most 17
    significant digits: ``1/6`` -> ``0.16666666666666666``, ``1`` -> ``1.0``), and ``float(Fraction)``
    is correctly rounded, so a program reading the column gets the float nearest the exact fraction:
    fewer digits would lose some of it, more would add only noise.  A value too small for a normal
    float (below about 2.2e-308, say 10**-4350) is written from the fraction itself, 17 significant
    digits in E notation, not as a silent ``0.0``.  ``--exact`` writes the fraction itself.
    """
    if value == 0.0 and text.startswith("0/") or abs(value) >= sys.float_info.min:
        return repr(value)
    exact = results.parse_fraction(text)
    with localcontext() as context:
        context.prec = 17
        return str(Decimal(exact.numerator) / Decimal(exact.denominator))


def csv_plain(value: Any) -> str:
    """A swept value as CSV writes it: a boolean as ``true``/``false`` (what pandas' ``read_csv`` reads as
    bool; it reads ``1``/``0`` as integers and ``yes``/``no`` as text), anything else as a player writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return show_plain(value)


def _sweep_grid(doc: dict, digits: int | None, *, short: bool = False, exact: bool = False, for_programs: bool = False) -> list[list[str]]:
    """Header and rows; ``short`` headings name the value alone (the terminal table says which field above).

    ``for_programs`` (CSV) writes booleans as true/false and every probability, mean and truncated mass
    as a decimal (:func:`decimal_cell`), unless ``exact`` keeps every fraction whole, however long.
    """
    shown = _whole_fraction if exact else results.shown_fraction
    decimals = for_programs and not exact

    def number(text: str, value: float) -> str:
        if digits is not None:
            return f"{value:.{digits}f}"
        return decimal_cell(text, value) if decimals else shown(text)

    def mass(text: str) -> str:  # the truncated mass: a fraction on screen, even with --digits
        return number(text, float(results.parse_fraction(text))) if decimals else shown(text)

    plain = csv_plain if for_programs else show_plain
    labels = [c["label"] if short else _key_text(c["values"]) for c in doc["columns"]]
    header = [o["name"] for o in doc["over"]] + labels + [f"mean {name}" for name in doc["means"]]
    any_truncated = any(row["truncated"] != "0/1" for row in doc["rows"])
    if any_truncated:
        header.append("truncated")
    grid = [header]
    for row in doc["rows"]:
        cells = [plain(value) for value in row["at"].values()]
        cells.extend(number(outcome["probability"], outcome["p"]) for outcome in row["outcomes"])
        for name in doc["means"]:
            mean = row["means"].get(name)
            cells.append("" if mean is None else number(mean["mean"], mean["value"]))
        if any_truncated:
            cells.append(mass(row["truncated"]))
        grid.append(cells)
    return grid


@for_terminal
def sweep_text(doc: dict, digits: int | None = None) -> str:
    fixed = ", ".join(f"{k} = {show_plain(v)}" for k, v in doc["inputs"].items() if k not in {o["name"] for o in doc["over"]})
    lines = [f"{doc['ruleset']} {doc['procedure']}: exact odds by " + ", ".join(o["name"] for o in doc["over"])]
    if fixed:
        lines.append("inputs: " + fixed)
    if doc["by"] != ["outcome"]:
        lines.append("columns: " + ", ".join(doc["by"]))
    grid = _sweep_grid(doc, digits, short=True)
    aligned = _align(grid)
    lines.append("  " + aligned[0])
    lines.append("  " + "-" * len(aligned[0]))
    lines.extend("  " + line for line in aligned[1:])
    return "\n".join(lines)


def sweep_csv(doc: dict, digits: int | None = None, *, exact: bool = False) -> str:
    """A sweep as CSV, for programs: numbers as decimals and booleans as true/false (pandas reads both as
    such); ``exact`` writes probabilities and means as whole fractions (``1/6``), as CSV did before."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows(_sweep_grid(doc, digits, exact=exact, for_programs=True))
    return buffer.getvalue().rstrip("\n")


def _markdown_cell(text: str) -> str:
    """A cell's text that stays in its cell: ``|`` and ``\\`` escaped, line breaks (CR too:
    a renderer ends the row there) as spaces, other controls as ``printable`` shows them."""
    one_line = " ".join(LINE_BREAK.split(text))
    return printable(one_line).replace("\\", "\\\\").replace("|", "\\|")


def sweep_markdown(doc: dict, digits: int | None = None) -> str:
    grid = _sweep_grid(doc, digits)
    dims = len(doc["over"])
    lines = ["| " + " | ".join(_markdown_cell(c) for c in grid[0]) + " |"]
    lines.append("|" + "|".join("---" if i < dims else "---:" for i in range(len(grid[0]))) + "|")
    lines.extend("| " + " | ".join(_markdown_cell(c) for c in row) + " |" for row in grid[1:])
    return "\n".join(lines)


SWEEP_FORMATS = {"table": sweep_text, "csv": sweep_csv, "markdown": sweep_markdown}


