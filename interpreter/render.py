"""Text output for people: tables as printed, traces, distributions, listings."""

from __future__ import annotations

from fractions import Fraction

from .api import Distribution, Resolution, Sample
from .ruleset import MISSING, ModifierList, Ruleset
from .tables import Table
from .values import IntType, RecordType, show

BAR_WIDTH = 40


def _align(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def render_table(table: Table, *, provenance: bool = False) -> str:
    lines = [table.title]
    if table.example:
        lines.append("(ILLUSTRATIVE EXAMPLE: the source does not give this table)")
    lines.append(f"rule: {table.rule}")
    if table.columns is not None:
        header = [table.rows.name] + table.columns.labels()
        lines.append(f"columns: {table.columns.name}")
    else:
        header = [table.rows.name, "Result"]
    body = [[heading.label] + list(printed) for heading, printed in zip(table.rows.headings, table.printed)]
    if provenance:
        header = header + ["from"]
        for row, origins in zip(body, table.provenance):
            row.append(", ".join(dict.fromkeys(origins)))
    lines.append("")
    aligned = _align([header] + body)
    lines.append(aligned[0])
    lines.append("-" * len(aligned[0]))
    lines.extend(aligned[1:])
    edges = f"rows {table.rows.edge}" + (f", columns {table.columns.edge}" if table.columns else "")
    lines.append("")
    lines.append(f"off the edge: {edges}")
    if table.result_fields:
        lines.append("cells are records: code, " + ", ".join(name for name, _ in table.result_fields))
    return "\n".join(lines)


def render_modifiers(modifiers: ModifierList) -> str:
    kind = "column shifts, cumulative" if modifiers.kind == "column_shift" else "die-roll modifiers"
    heading = modifiers.title if kind.split(",")[0].lower() in modifiers.title.lower() else f"{modifiers.title}  ({kind})"
    lines = [heading, f"rule: {modifiers.rule}", ""]
    rows = []
    for entry in modifiers.entries:
        if modifiers.kind == "column_shift":
            amount = f"{abs(entry.value)}{'R' if entry.value > 0 else 'L'}"
        else:
            amount = f"{entry.value:+d}"
        rows.append([amount, entry.label, f"[{entry.name}]"])
    lines.extend(_align(rows))
    return "\n".join(lines)


def render_listing(ruleset: Ruleset) -> str:
    lines = [f"{ruleset.title} ({ruleset.name} {ruleset.version})", f"source: {ruleset.source}", ""]
    if ruleset.tables:
        lines.append("tables:")
        for name, table in ruleset.tables.items():
            size = f"{len(table.rows.headings)} rows" + (f" x {len(table.columns.headings)} columns" if table.columns else "")
            mark = "  [example]" if table.example else ""
            lines.append(f"  {name:<28} {table.title} ({size}){mark}")
        lines.append("")
    if ruleset.modifiers:
        lines.append("modifier lists:")
        for name, modifiers in ruleset.modifiers.items():
            lines.append(f"  {name:<28} {modifiers.kind}, {len(modifiers.entries)} entries: {modifiers.title}")
        lines.append("")
    if ruleset.types:
        lines.append("types:")
        for name, declared in ruleset.types.items():
            if isinstance(declared, RecordType):
                defaults = dict(declared.defaults)
                parts = [
                    f"{field}: {field_type.describe()}" + (f" = {show(defaults[field])}" if field in defaults else "")
                    for field, field_type in declared.fields
                ]
                lines.append(f"  {name:<28} {{{', '.join(parts)}}}")
            else:
                lines.append(f"  {name:<28} {declared.describe()}")
        lines.append("")
    if ruleset.constants:
        lines.append("constants:")
        for name, constant in ruleset.constants.items():
            lines.append(f"  {name:<28} {show(constant.value)}")
        lines.append("")
    lines.append("procedures:")
    for name, procedure in ruleset.compiled.items():
        lines.append(f"  {name}: {procedure.title}")
        for spec in procedure.inputs:
            type_text = spec.type.describe()
            if isinstance(spec.type, IntType) and (spec.type.low is not None or spec.type.high is not None):
                low = "" if spec.type.low is None else str(spec.type.low)
                high = "" if spec.type.high is None else str(spec.type.high)
                type_text += f" {low}..{high}"
            default = "required" if spec.default is MISSING else f"default {show(spec.default)}"
            lines.append(f"    --set {spec.name}=...  {type_text}, {default}")
        for choice in procedure.choices:
            lines.append(f"    --choose {choice.name}={'|'.join(choice.options)}  (default {choice.default})")
        lines.append(f"    outcomes: {', '.join(procedure.outcome_names)}")
    return "\n".join(lines)


TRACE_KINDS_SHORT = {"roll", "lookup", "modifier", "shift", "clamp", "note", "call", "outcome"}


def render_resolution(resolution: Resolution, *, full_trace: bool, provenance: bool = False) -> str:
    source = f"seed {resolution.seed}" if resolution.seed is not None else "scripted dice"
    lines = [f"{resolution.ruleset} {resolution.procedure} ({source})"]
    if resolution.inputs:
        lines.append("inputs: " + ", ".join(f"{k} = {show(v)}" for k, v in resolution.inputs.items()))
    for event in resolution.trace:
        if event.kind == "outcome" and not full_trace:
            continue
        if not full_trace and event.kind not in TRACE_KINDS_SHORT:
            continue
        indent = "  " * (event.depth + 1)
        lines.append(f"{indent}{event.message}")
        value_from = dict(event.data).get("value_from")
        if provenance and value_from:
            lines.append(f"{indent}    value from {value_from}")
        if full_trace and (event.rule or event.where):
            cite = f"rule: {event.rule}" if event.rule else ""
            where = f"[{event.where}]" if event.where else ""
            lines.append(f"{indent}    {cite} {where}".rstrip())
    lines.append(f"outcome: {show(resolution.outcome)}")
    if resolution.dice:
        lines.append("dice: " + ",".join(map(str, resolution.dice)) + (f"  (replay: --seed {resolution.seed})" if resolution.seed is not None else ""))
    return "\n".join(lines)


def render_distribution(distribution: Distribution) -> str:
    lines = [f"{distribution.ruleset} {distribution.procedure}: exact odds"]
    if distribution.inputs:
        lines.append("inputs: " + ", ".join(f"{k} = {show(v)}" for k, v in distribution.inputs.items()))
    rows = []
    for outcome, p in distribution.outcomes:
        bar = "#" * round(float(p) * BAR_WIDTH)
        rows.append([show(outcome), _fraction(p), f"{float(p) * 100:8.4f}%", bar])
    if rows:
        lines.extend("  " + line for line in _align(rows))
    if distribution.truncated:
        lines.append(f"  truncated (not explored): {_fraction(distribution.truncated)} = {float(distribution.truncated):.3g}")
    return "\n".join(lines)


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)


def render_sample(sample: Sample) -> str:
    lines = [f"{sample.ruleset} {sample.procedure}: {sample.trials} trials (seed {sample.seed})"]
    if sample.inputs:
        lines.append("inputs: " + ", ".join(f"{k} = {show(v)}" for k, v in sample.inputs.items()))
    rows = []
    for outcome, count in sample.counts:
        share = count / sample.trials
        rows.append([show(outcome), str(count), f"{share * 100:8.4f}%", "#" * round(share * BAR_WIDTH)])
    if rows:
        lines.extend("  " + line for line in _align(rows))
    return "\n".join(lines)


def render_odds_changes(rows, base_label: str, variant_label: str, before: Distribution) -> str:
    lines = [f"{before.procedure}: exact odds, {base_label} vs {variant_label}"]
    if before.inputs:
        lines.append("inputs: " + ", ".join(f"{k} = {show(v)}" for k, v in before.inputs.items()))
    table = [["outcome", base_label, variant_label, "change"]]
    for row in rows:
        change = row.change
        sign = "+" if change > 0 else ("-" if change < 0 else " ")
        table.append([
            show(row.outcome),
            f"{_fraction(row.before)} ({float(row.before) * 100:.2f}%)",
            f"{_fraction(row.after)} ({float(row.after) * 100:.2f}%)",
            f"{sign}{_fraction(abs(change))} ({float(change) * 100:+.2f} pts)",
        ])
    lines.extend("  " + line for line in _align(table))
    return "\n".join(lines)
