"""Results as plain data: what every command found, before anyone formats it.

Each function here turns the model or an API result into JSON-ready data
(dicts, lists, strings, numbers, true/false, null).  The reporters format
these documents: ``render`` as text for people, ``reporters`` as JSON, GitHub
annotations, JUnit XML, CSV and markdown, ``aid`` as HTML.  ``--json`` prints
the document itself, so what a script reads is what a person sees.

Probabilities are exact fractions written ``"p/q"`` beside a float ``p``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .errors import Diagnostic
from .ruleset import MISSING, ModifierList, Ruleset
from .tables import Table
from .trace_events import public_fields
from .values import (
    BoolType,
    IntType,
    ListType,
    RatioType,
    RecordType,
    StrType,
    Type,
    to_plain,
)

if TYPE_CHECKING:  # pragma: no cover - types only
    from .compiled_ruleset import CompiledRuleset


def fraction(p: Fraction, signed: bool = False) -> str:
    """``"p/q"`` (``"1/1"``, ``"0/1"`` too: always a fraction); ``signed`` adds a ``+`` to gains.

    Exact at any length: 1,450 rolls of a d1000 give a denominator of 4,351
    digits, past what ``str(int)`` writes (see :func:`int_text`).
    """
    p = Fraction(p)
    sign = "-" if p < 0 else ("+" if signed and p > 0 else "")
    return f"{sign}{int_text(abs(p.numerator))}/{int_text(p.denominator)}"


# ---- numbers of any length ------------------------------------------------------------
# Python refuses to turn an int of more than 4,300 digits into text, or text
# into such an int (sys.set_int_max_str_digits, a guard against slow quadratic
# conversions).  The limit is process-wide: raising it would change it for
# every other library in the process, so the exact text is made here in
# parts, divide and conquer, each part short enough for any limit Python
# allows (the lowest non-zero one is 640 digits).  Splitting at a power of ten
# near the middle keeps the cost near that of one big division.

_PART_DIGITS = 600
_PART_BITS = 1_990  # 2**1990 has 600 digits: a number of no more bits has at most 600


def int_text(n: int) -> str:
    """``str(n)`` for an int of any length."""
    if n < 0:
        return "-" + int_text(-n)
    if n.bit_length() <= _PART_BITS:
        return str(n)
    low_digits = n.bit_length() * 3 // 20  # about half the digits (log10(2) = 0.301)
    high, low = divmod(n, 10**low_digits)
    return int_text(high) + int_text(low).rjust(low_digits, "0")


def int_from_text(text: str) -> int:
    """``int(text)`` for decimal digits (an optional ``-`` or ``+`` first) of any length."""
    if len(text) <= _PART_DIGITS:
        return int(text)
    if text[0] in "+-":
        value = int_from_text(text[1:])
        return -value if text[0] == "-" else value
    low_digits = len(text) // 2
    return int_from_text(text[:-low_digits]) * 10**low_digits + int_from_text(text[-low_digits:])


def parse_fraction(text: str) -> Fraction:
    """A ``"p/q"`` written by :func:`fraction` (of any length) as a Fraction."""
    numerator, _, denominator = text.partition("/")
    return Fraction(int_from_text(numerator), int_from_text(denominator or "1"))


def approximate(p: Fraction, significant: int = 2) -> str:
    """``p`` rounded to ``significant`` digits in scientific form: ``"≈1.2e-4351"``.

    Worked out in integers, so it is right at any size: a float would turn
    1/1000**1450 into 0.0.  The exponent is estimated from the bit lengths
    and then corrected; the last digit is rounded half up.
    """
    if p == 0:
        return "0"
    sign = "-" if p < 0 else ""
    numerator, denominator = abs(p.numerator), p.denominator
    exponent = int((numerator.bit_length() - denominator.bit_length()) * 0.30103)  # log10(2), within one of the truth
    while True:
        shift = significant - 1 - exponent  # scale numerator/denominator to `significant` digits before the point
        top, bottom = (numerator * 10**shift, denominator) if shift >= 0 else (numerator, denominator * 10**-shift)
        digits, remainder = divmod(top, bottom)
        if digits >= 10**significant:
            exponent += 1
        elif digits < 10 ** (significant - 1):
            exponent -= 1
        else:
            break
    if 2 * remainder >= bottom:
        digits += 1
        if digits == 10**significant:  # 9.96 rounds up to 10: one more place
            digits //= 10
            exponent += 1
    text = str(digits)
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"≈{sign}{mantissa}e{exponent:+d}"


# A fraction is printed for people whole when both its numerator and its
# denominator have at most this many digits: the odds of a real procedure fit
# (a few dice give a few digits; even 20d6 has a 16-digit denominator), and the
# fraction and its percentage still fit on one 80-column line.  Longer, a
# fraction is unreadable and breaks every column after it; two significant
# digits and an exponent say what a reader can use.  --json keeps it exact.
MAX_SHOWN_DIGITS = 60


def shown_fraction(text: str) -> str:
    """A ``"p/q"`` from :func:`fraction` as a person reads it: ``"3"`` for ``"3/1"``; a
    short fraction whole; a longer one (see :data:`MAX_SHOWN_DIGITS`) approximated."""
    numerator, _, denominator = text.partition("/")
    if len(numerator.lstrip("+-")) > MAX_SHOWN_DIGITS or len(denominator) > MAX_SHOWN_DIGITS:
        shown = approximate(parse_fraction(text))
        return shown.replace("≈", "≈+", 1) if numerator.startswith("+") else shown
    return numerator if denominator == "1" else text


def shown_value(p: Fraction) -> str:
    """A Fraction as :func:`shown_fraction` shows it (for messages)."""
    return shown_fraction(fraction(p))


def decimal(p: Fraction | float, digits: int | None) -> float:
    return round(float(p), digits) if digits is not None else float(p)


# ---- diagnostics ----------------------------------------------------------------------


def diagnostic(d: Diagnostic, severity: str = "error") -> dict:
    return {"file": d.file, "line": d.line, "column": d.column, "message": d.message, "line_text": d.line_text, "severity": severity}


ERROR_KINDS = {
    "UsageError": "usage",
    "DiceScriptError": "usage",
    "RulesetError": "ruleset",
    "RuleViolation": "rule_violation",
    "LimitExceeded": "limit",
}


def error(exc: BaseException, exit_code: int) -> dict:
    """A user error as data: ``{"ok": false, "exit_code", "error", "diagnostics"}``."""
    kind = next((ERROR_KINDS[cls.__name__] for cls in type(exc).__mro__ if cls.__name__ in ERROR_KINDS), "error")
    if kind == "error" and exit_code == 130:
        kind = "interrupted"
    diagnostics = getattr(exc, "diagnostics", ())
    return {"ok": False, "exit_code": exit_code, "error": kind, "diagnostics": [diagnostic(d) for d in diagnostics]}


# ---- check and test ---------------------------------------------------------------------


def check_passed(ruleset: Ruleset, given: str) -> dict:
    return {
        "ruleset": ruleset.name,
        "given": given,
        "ok": True,
        "path": ruleset.path,
        "counts": {
            "tables": len(ruleset.tables),
            "modifier_lists": len(ruleset.modifiers),
            "procedures": len(ruleset.procedures),
            "examples": len(ruleset.examples),
        },
        "diagnostics": [],
    }


def file_checked(given: str, kind: str, counts: dict[str, int]) -> dict:
    """A fragment or situation file that passed its schema (``checked_file``): its ``kind`` says which."""
    return {"ruleset": given, "given": given, "ok": True, "path": given, "kind": kind, "counts": counts, "diagnostics": []}


def check_failed(given: str, diagnostics: Iterable[Diagnostic], kind: str | None = None) -> dict:
    """A file that failed ``check``; ``kind`` (``fragment``, ``situation``) when it was not checked as a ruleset."""
    entry = {"ruleset": given, "given": given, "ok": False, "path": None, "counts": None, "diagnostics": [diagnostic(d) for d in diagnostics]}
    if kind is not None:
        entry["kind"] = kind
    return entry


def check_report(entries: list[dict]) -> dict:
    return {"ok": all(e["ok"] for e in entries), "rulesets": entries}


def example_result(ruleset: Ruleset, result: Any) -> dict:
    example = result.example
    return {
        "ruleset": ruleset.name,
        "name": example.name,
        "procedure": example.procedure,
        "rule": example.rule,
        "file": example.pos.source.name,
        "line": example.pos.line,
        "passed": result.passed,
        "problems": [diagnostic(d) for d in result.problems],
    }


def load_failure(given: str, diagnostics: Iterable[Diagnostic]) -> dict:
    """A ruleset ``wartable test`` could not load (under ``--format junit|github``): reported as a failure
    rather than nothing, so that CI does not read an empty report as a pass."""
    return {"ruleset": given, "diagnostics": [diagnostic(d) for d in diagnostics]}


def test_report(examples: list[dict], load_failures: Sequence[dict] = ()) -> dict:
    """The examples' results; ``load_failures`` (only under ``--format junit|github``; text and JSON stop
    at the first ruleset that fails to load) appear under their own key, and only when there are some."""
    passed = sum(1 for e in examples if e["passed"])
    report = {"ok": passed == len(examples) and not load_failures, "passed": passed, "failed": len(examples) - passed, "examples": examples}
    if load_failures:
        report["load_failures"] = list(load_failures)
    return report


# ---- types, listings, tables, modifier lists, procedures ----------------------------------


def type_doc(t: Type) -> dict:
    if isinstance(t, IntType):
        doc: dict = {"type": "int"}
        if t.low is not None:
            doc["min"] = t.low
        if t.high is not None:
            doc["max"] = t.high
        return doc
    if isinstance(t, BoolType):
        return {"type": "bool"}
    if isinstance(t, StrType):
        return {"type": "enum", "values": list(t.values)} if t.values else {"type": "str"}
    if isinstance(t, ListType):
        doc = {"type": "list", "of": type_doc(t.element)}
        if t.max_items is not None:
            doc["max_items"] = t.max_items
        if t.min_items:
            doc["min_items"] = t.min_items
        return doc
    if isinstance(t, RecordType):
        # "record", not "name": an input's, a field's and an alias's documents spread this one beside
        # their own "name" (fire_at's shooter and target were both listed as "ship")
        return {"type": "record", "record": t.name}
    if isinstance(t, RatioType):
        return {"type": "ratio"}
    return {"type": t.describe()}


def record_type_doc(name: str, declared: Any) -> dict:
    if isinstance(declared, RecordType):
        defaults = dict(declared.defaults)
        descriptions = dict(declared.descriptions)
        fields = []
        for field, field_type in declared.fields:
            entry = {"name": field, **type_doc(field_type)}
            if field in defaults:
                entry["default"] = to_plain(defaults[field])
            if descriptions.get(field):
                entry["description"] = descriptions[field]
            fields.append(entry)
        return {"name": name, "kind": "record", "fields": fields}
    return {"name": name, "kind": "alias", **type_doc(declared)}


def input_doc(spec: Any) -> dict:
    doc = {"name": spec.name, **type_doc(spec.type), "required": spec.default is MISSING}
    if spec.default is not MISSING:
        doc["default"] = to_plain(spec.default)
    if getattr(spec, "description", ""):
        doc["description"] = spec.description
    return doc


def choice_doc(choice: Any) -> dict:
    return {"name": choice.name, "options": list(choice.options), "default": choice.default, "description": choice.description, "rule": choice.rule}


def listing(ruleset: CompiledRuleset) -> dict:
    return {
        "ruleset": ruleset.name,
        "title": ruleset.title,
        "version": ruleset.version,
        "source": ruleset.source,
        "path": ruleset.path,
        "tables": [
            {
                "name": name, "title": t.title, "rows": len(t.rows.headings),
                "columns": len(t.columns.headings) if t.columns else None, "example": t.example,
            }
            for name, t in ruleset.tables.items()
        ],
        "modifiers": [
            {"name": name, "kind": m.kind, "title": m.title, "entries": len(m.entries)} for name, m in ruleset.modifiers.items()
        ],
        "types": [record_type_doc(name, declared) for name, declared in ruleset.types.items()],
        "constants": [
            {"name": name, "value": to_plain(c.value), "rule": c.rule, "description": c.description} for name, c in ruleset.constants.items()
        ],
        "procedures": [
            {
                "name": name,
                "title": p.title,
                "rule": p.rule,
                "inputs": [input_doc(spec) for spec in p.inputs],
                "choices": [choice_doc(c) for c in p.choices],
                "outcomes": list(p.outcome_names),
            }
            for name, p in ruleset.compiled.items()
        ],
    }


def axis_doc(axis: Any) -> dict:
    doc = {"name": axis.name, "headings": axis.labels(), "edge": axis.edge, "dice": axis.dice}
    below = getattr(axis, "below", None)
    if below is not None:  # what odds below the first column read: off_table, clamp, or a named result
        doc["below"] = axis.below_label if below == "result" else below
    return doc


def table_doc(table: Table, *, provenance: bool = False) -> dict:
    doc = {
        "kind": "table",
        "name": table.name,
        "title": table.title,
        "rule": table.rule,
        "description": table.description,
        "example": table.example,
        "rows": axis_doc(table.rows),
        "columns": axis_doc(table.columns) if table.columns is not None else None,
        "cells": [list(row) for row in table.printed],
        "values": [[to_plain(v) for v in row] for row in table.cells],
        "fields": [name for name, _ in table.result_fields] if table.result_fields else None,
        "codes": [{"code": code, "meaning": meaning} for code, meaning in getattr(table, "codes", ())],
    }
    if provenance:
        doc["provenance"] = [list(row) for row in table.provenance]
    return doc


def shift_text(value: int) -> str:
    """A column shift as printed: 1R, 2L."""
    return f"{abs(value)}{'R' if value > 0 else 'L'}"


def modifiers_doc(modifiers: ModifierList) -> dict:
    return {
        "kind": "modifiers",
        "name": modifiers.name,
        "modifier_kind": modifiers.kind,
        "title": modifiers.title,
        "rule": modifiers.rule,
        "entries": [
            {
                "name": e.name,
                "label": e.label,
                "value": e.value,
                "shown": shift_text(e.value) if modifiers.kind == "column_shift" else f"{e.value:+d}",
                "rule": e.rule,
                "when": condition_text(e),
            }
            for e in modifiers.entries
        ],
    }


def condition_text(entry: Any) -> str | None:
    """The ``when:`` of a modifier entry in the procedure language (None when it always applies)."""
    from .rulebook import expr_text
    from .syntax import BoolLit

    if isinstance(entry.condition, BoolLit) and entry.condition.value is True:
        return None
    return expr_text(entry.condition)


def procedure_doc(ruleset: CompiledRuleset, name: str) -> dict:
    procedure = ruleset.procedures[name]
    compiled = ruleset.compiled.get(name)
    return {
        "kind": "procedure",
        "name": name,
        "title": procedure.title,
        "rule": procedure.rule,
        "description": procedure.description,
        "inputs": [input_doc(spec) for spec in (compiled.inputs if compiled is not None else procedure.inputs)],
        "choices": [choice_doc(c) for c in procedure.choices],
        "outcomes": list(compiled.outcome_names) if compiled is not None else [],
        "body": procedure_text(procedure),
        "file": procedure.pos.source.name,
        "line": procedure.body.pos.line,
    }


def procedure_text(procedure: Any) -> str:
    """The body as written (from the source file, so comments stay)."""
    lines = procedure.body.pos.source.lines  # numbered as YAML numbers them (also at U+2028)
    first = procedure.body.pos.line
    last = max((s.pos.line for s in procedure.body.statements), default=first)
    end = last
    while end < len(lines) and lines[end].strip() and _indent(lines[end]) >= _indent(lines[first - 1]):
        end += 1
    return "\n".join(lines[first - 1:end])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


# ---- distributions, samples, resolutions ---------------------------------------------------


def outcome_doc(outcome: Any) -> dict:
    return {"name": outcome.name, "fields": {k: to_plain(v) for k, v in outcome.fields}}


def means_doc(means: dict, digits: int | None = None) -> dict:
    doc = {}
    for name, mean in means.items():
        if isinstance(mean.value, Fraction):
            entry = {"mean": fraction(mean.value), "value": decimal(mean.value, digits), "probability": fraction(mean.probability)}
        else:
            entry = {"value": decimal(mean.value, digits), "probability": decimal(mean.probability, digits)}
        if mean.standard_error is not None:
            entry["standard_error"] = None if mean.standard_error != mean.standard_error else decimal(mean.standard_error, digits)
        doc[name] = entry
    return doc


def marginal_doc(marginal: Any, digits: int | None = None) -> list[dict]:
    return [
        {"values": {f: to_plain(v) for f, v in zip(marginal.fields, key)}, "probability": fraction(p), "p": decimal(p, digits)}
        for key, p in marginal.rows
    ]


def distribution(dist: Any, *, by: Sequence[str] | None = None, digits: int | None = None) -> dict:
    doc = {
        "ruleset": dist.ruleset,
        "procedure": dist.procedure,
        "inputs": {k: to_plain(v) for k, v in dist.inputs.items()},
        "outcomes": [{**outcome_doc(o), "probability": fraction(p), "p": decimal(p, digits)} for o, p in dist.outcomes],
        "truncated": fraction(dist.truncated),
        "means": means_doc(dist.means(), digits),
        "illustrative_tables": list(dist.illustrative_tables),
        "readings": list(dist.readings),
    }
    if by:
        doc["by"] = list(by)
        doc["marginal"] = marginal_doc(dist.marginal(by), digits)
    return doc


def sample(s: Any, *, by: Sequence[str] | None = None, digits: int | None = None) -> dict:
    from .summaries import proportion

    doc = {
        "ruleset": s.ruleset,
        "procedure": s.procedure,
        "inputs": {k: to_plain(v) for k, v in s.inputs.items()},
        "seed": s.seed,
        "trials": s.trials,
        "outcomes": [
            {**outcome_doc(o), "count": c, "p": decimal(c / s.trials, digits),
             "standard_error": decimal(proportion(c, s.trials).standard_error, digits)}
            for o, c in s.counts
        ],
        "means": means_doc(s.means(), digits),
        "illustrative_tables": list(s.illustrative_tables),
        "readings": list(s.readings),
    }
    if by:
        doc["by"] = list(by)
        doc["marginal"] = [
            {"values": {f: to_plain(v) for f, v in zip(by, e.key)}, "count": e.count, "p": decimal(e.share, digits),
             "standard_error": decimal(e.standard_error, digits)}
            for e in s.marginal(by)
        ]
    return doc


# What every trace event has, in the order a document lists it.
_TRACE_EVENT_FIELDS = ("kind", "message", "rule", "depth", "where")


def trace_event(event: Any) -> dict:
    """A trace step: its kind, its words, where it comes from, and its fields (``trace.public_fields``)."""
    return {
        **{name: getattr(event, name) for name in _TRACE_EVENT_FIELDS},
        **public_fields(event),
    }


def resolution(r: Any) -> dict:
    return {
        "ruleset": r.ruleset,
        "procedure": r.procedure,
        "inputs": {k: to_plain(v) for k, v in r.inputs.items()},
        "seed": r.seed,
        "dice": list(r.dice),
        "outcome": to_plain(r.outcome),
        "trace": [trace_event(e) for e in r.trace],
        "unused_dice": r.unused_dice,
        "illustrative_tables": list(r.illustrative_tables),
        "readings": list(r.readings),
    }


def odds_changes(rows: Sequence[Any], before: Any, base_label: str, variant_label: str, changes: list[dict] | None = None,
                 after: Any = None) -> dict:
    doc = {
        "base": base_label,
        "variant": variant_label,
        "procedure": before.procedure,
        "inputs": {k: to_plain(v) for k, v in before.inputs.items()},
        # inputs only one side has (an input a variant added or removed): each side ran with its own
        "inputs_only_in": {
            label: {k: to_plain(v) for k, v in own.inputs.items() if k not in other.inputs}
            for label, own, other in ((base_label, before, after), (variant_label, after, before))
        } if after is not None else {},
        "outcomes": [
            {**outcome_doc(r.outcome), "before": fraction(r.before), "after": fraction(r.after), "change": fraction(r.change, signed=True)}
            for r in rows
        ],
    }
    if changes is not None:
        doc["changes"] = changes
    return doc
