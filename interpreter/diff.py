"""What differs between two rulesets, and what a change does to the odds.

``data_changes`` compares the data (constants, table cells, modifier
entries, procedures, examples); ``odds_changes`` puts each outcome's exact
probability under both side by side.  ``what_if`` makes a variant from a
command-line change (``interception_drms+1``, ``threshold=4``) to explore
how the odds move.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import syntax
from .api import Distribution
from .arguments import check_names, check_type
from .compiled_ruleset import CompiledRuleset, compile_model
from .inputs import CoercionError, coerce, parse_command_line_value
from .results import condition_text, input_doc
from .ruleset import (
    Constant,
    Example,
    ModifierEntry,
    ModifierList,
    Procedure,
    Ruleset,
    frozen_mapping,
)
from .tables import Table
from .values import ANY, IntType, OutcomeValue, show, to_plain, type_of_value


@dataclass(frozen=True)
class Change:
    """One difference: ``kind`` (added, removed, changed), where (``path``, as keys in the YAML), before and after.

    ``old`` and ``new`` are plain data (null where the element does not exist);
    ``text`` is the line ``wartable diff`` prints.
    """

    kind: str
    path: tuple[str, ...]
    old: Any
    new: Any
    text: str

    def to_plain(self) -> dict:
        return {"kind": self.kind, "path": list(self.path), "old": self.old, "new": self.new, "text": self.text}


def changes(base: Ruleset | CompiledRuleset, variant: Ruleset | CompiledRuleset) -> list[Change]:
    """Every difference in the data, in the order a modder reads a ruleset."""
    _check_rulesets(base, variant)
    found: list[Change] = []
    _compare_names(found, "constant", "constants", base.constants, variant.constants, lambda c: to_plain(c.value))
    found.extend(_constant_changes(base.constants, variant.constants))
    _compare_names(found, "table", "tables", base.tables, variant.tables, lambda t: t.title)
    for name in [n for n in base.tables if n in variant.tables]:
        found.extend(_table_changes(base.tables[name], variant.tables[name]))
    _compare_names(found, "modifier list", "modifiers", base.modifiers, variant.modifiers, lambda m: m.title)
    for name in [n for n in base.modifiers if n in variant.modifiers]:
        found.extend(_modifier_list_changes(name, base.modifiers[name], variant.modifiers[name]))
    _compare_names(found, "procedure", "procedures", base.procedures, variant.procedures, lambda p: p.title)
    for name in [n for n in base.procedures if n in variant.procedures]:
        found.extend(_procedure_changes(name, base.procedures[name], variant.procedures[name]))
    found.extend(_example_changes(base.examples, variant.examples))
    return found


def _constant_changes(before: Mapping[str, Constant], after: Mapping[str, Constant]) -> list[Change]:
    """The constants both rulesets hold whose value differs."""
    found = []
    for name in [n for n in before if n in after]:
        old, new = before[name].value, after[name].value
        if old != new:
            found.append(Change("changed", ("constants", name), to_plain(old), to_plain(new), f"constant {name}: {show(old)} -> {show(new)}"))
    return found


def _modifier_list_changes(name: str, old_list: ModifierList, new_list: ModifierList) -> list[Change]:
    """Entries removed, added (by name), then those whose value or condition changed."""
    before = {e.name: e for e in old_list.entries}
    after = {e.name: e for e in new_list.entries}
    path = ("modifiers", name, "entries")
    found = []
    for entry in [e for e in before if e not in after]:
        found.append(Change("removed", (*path, entry), _entry(before[entry]), None, f"modifier {name}.{entry}: removed ({before[entry].label})"))
    for entry in [e for e in after if e not in before]:
        new = after[entry]
        found.append(Change("added", (*path, entry), None, _entry(new), f"modifier {name}.{entry}: added {new.value:+d} ({new.label})"))
    for entry in [e for e in before if e in after]:
        found.extend(_modifier_entry_changes(f"{name}.{entry}", (*path, entry), before[entry], after[entry]))
    return found


def _modifier_entry_changes(shown: str, path: tuple[str, ...], old: ModifierEntry, new: ModifierEntry) -> list[Change]:
    found = []
    if old.value != new.value:
        found.append(Change("changed", (*path, "value"), old.value, new.value, f"modifier {shown}: {old.value:+d} -> {new.value:+d} ({new.label})"))
    if _expr_text(old) != _expr_text(new):
        found.append(Change("changed", (*path, "when"), condition_text(old), condition_text(new), f"modifier {shown}: condition changed"))
    return found


def _procedure_changes(name: str, old: Procedure, new: Procedure) -> list[Change]:
    """A changed body (white space at its ends aside), then each input added, removed or changed, by name."""
    found = []
    if old.text.strip() != new.text.strip():
        found.append(Change("changed", ("procedures", name, "body"), old.text, new.text, f"procedure {name}: body changed"))
    old_inputs = {s.name: s for s in old.inputs}
    new_inputs = {s.name: s for s in new.inputs}
    for input_name in sorted(old_inputs.keys() | new_inputs.keys()):
        a, b = old_inputs.get(input_name), new_inputs.get(input_name)
        if a is None or b is None or a.type != b.type or a.default != b.default:
            kind = "added" if a is None else ("removed" if b is None else "changed")
            old_doc, new_doc = (input_doc(a) if a else None), (input_doc(b) if b else None)
            found.append(Change(
                kind, ("procedures", name, "inputs", input_name), old_doc, new_doc,
                f"procedure {name}: input {input_name} {kind}{_input_change_text(old_doc, new_doc)}",
            ))
    return found


def _input_text(doc: dict) -> str:
    """An input as `list` shows it: its type, then its default (or "required")."""
    from .render import describe_input_type, show_plain

    return describe_input_type(doc) + (", required" if doc.get("required") else f", default {show_plain(doc.get('default'))}")


def _input_change_text(old: dict | None, new: dict | None) -> str:
    if old is None and new is not None:
        return f" ({_input_text(new)})"
    if new is None and old is not None:
        return f" (was {_input_text(old)})"
    if old is not None and new is not None:
        return f" ({_input_text(old)} -> {_input_text(new)})"
    return ""


def _example_changes(before: Sequence[Example], after: Sequence[Example]) -> list[Change]:
    """Examples added, removed, then changed (an override: its inputs, dice, choices, expected result or odds), by name."""
    old_examples = {e.name: e for e in before}  # in order, looked up in one step
    new_examples = {e.name: e for e in after}
    found = [Change("added", ("examples", example), None, example, f"example added: {example}")
             for example in new_examples if example not in old_examples]
    found += [Change("removed", ("examples", example), example, None, f"example removed: {example}")
              for example in old_examples if example not in new_examples]
    for name in [n for n in old_examples if n in new_examples]:
        old, new = _example_doc(old_examples[name]), _example_doc(new_examples[name])
        keys = [key for key in dict.fromkeys([*old, *new]) if old.get(key) != new.get(key)]
        if keys:
            found.append(Change("changed", ("examples", name), old, new, f"example changed: {name} ({', '.join(keys)})"))
    return found


def _example_doc(example: Example) -> dict:
    return {"procedure": example.procedure, "rule": example.rule, **to_plain(dict(example.data))}


def _check_rulesets(*rulesets: Any) -> None:
    for ruleset in rulesets:
        check_type(ruleset, (CompiledRuleset, Ruleset), "a ruleset", "a ruleset from load_ruleset(...)")


def data_changes(base: Ruleset | CompiledRuleset, variant: Ruleset | CompiledRuleset) -> list[str]:
    """One line per difference (the ``text`` of each :class:`Change`)."""
    return [change.text for change in changes(base, variant)]


def _entry(entry: ModifierEntry) -> dict:
    return {"label": entry.label, "value": entry.value, "when": condition_text(entry), "rule": entry.rule}


def _compare_names(found: list[Change], kind: str, section: str, before: Mapping, after: Mapping, summary) -> None:
    for name in before:
        if name not in after:
            found.append(Change("removed", (section, name), summary(before[name]), None, f"{kind} {name}: removed"))
    for name in after:
        if name not in before:
            found.append(Change("added", (section, name), None, summary(after[name]), f"{kind} {name}: added"))


def _table_changes(old: Table, new: Table) -> list[Change]:
    """Title and columns, rows removed and added, cells changed, then the edge behaviour."""
    old_columns = old.columns.labels() if old.columns else [""]
    new_columns = new.columns.labels() if new.columns else [""]
    found = _table_heading_changes(old, new, old_columns, new_columns)
    found.extend(_table_row_changes(old, new))
    found.extend(_table_cell_changes(old, new, old_columns, new_columns))
    if old.rows.edge != new.rows.edge or (old.columns and new.columns and old.columns.edge != new.columns.edge):
        found.append(Change("changed", ("tables", old.name, "edges"), _edges(old), _edges(new), f"table {old.name}: edge behaviour changed"))
    old_below, new_below = _below(old), _below(new)
    if old_below != new_below:
        found.append(Change("changed", ("tables", old.name, "columns", "below"), old_below, new_below,
                            f"table {old.name}: odds below the first column: {old_below or 'as the edge says'} -> {new_below or 'as the edge says'}"))
    return found


def _below(table: Table) -> str | None:
    """What odds below the first column read (``below:``), as written: off_table, clamp or the result's label."""
    columns = table.columns
    if columns is None or columns.below is None:
        return None
    return columns.below_label if columns.below == "result" else columns.below


def _table_heading_changes(old: Table, new: Table, old_columns: list[str], new_columns: list[str]) -> list[Change]:
    found = []
    path = ("tables", old.name)
    if old.title != new.title:
        found.append(Change("changed", (*path, "title"), old.title, new.title, f"table {old.name}: title {old.title!r} -> {new.title!r}"))
    if old_columns != new_columns:
        found.append(Change(
            "changed", (*path, "columns"), old_columns if old.columns else None, new_columns if new.columns else None,
            f"table {old.name}: columns {', '.join(old_columns)} -> {', '.join(new_columns)}",
        ))
    return found


def _table_row_changes(old: Table, new: Table) -> list[Change]:
    """Rows removed, then added, matched by label."""
    # Rows are matched by label through dicts, once: a list looked up for every row made 12,000 rows cost 10 s.
    old_rows = dict(zip(old.rows.labels(), old.printed))
    new_rows = dict(zip(new.rows.labels(), new.printed))
    path = ("tables", old.name, "cells")
    found = [Change("removed", (*path, row), list(old_rows[row]), None, f"table {old.name}: row {row} removed")
             for row in old_rows if row not in new_rows]
    found += [Change("added", (*path, row), None, list(new_rows[row]), f"table {old.name}: row {row} added")
              for row in new_rows if row not in old_rows]
    return found


def _table_cell_changes(old: Table, new: Table, old_columns: list[str], new_columns: list[str]) -> list[Change]:
    """Cells at the same row and column labels in both tables whose printed text differs."""
    old_cells = {(h.label, c): text for h, row in zip(old.rows.headings, old.printed) for c, text in zip(old_columns, row)}
    new_cells = {(h.label, c): text for h, row in zip(new.rows.headings, new.printed) for c, text in zip(new_columns, row)}
    found = []
    for key, text in new_cells.items():
        if key in old_cells and old_cells[key] != text:
            where = f"[{key[0]}, {key[1]}]" if new.columns else f"[{key[0]}]"
            cell_path = ("tables", old.name, "cells", key[0]) + ((key[1],) if new.columns else ())
            found.append(Change("changed", cell_path, old_cells[key], text, f"table {old.name}{where}: {old_cells[key]} -> {text}"))
    return found


def _edges(table) -> dict:
    return {"rows": table.rows.edge, "columns": table.columns.edge if table.columns else None}


def _expr_text(entry: ModifierEntry) -> str:
    return repr(_strip_positions(entry.condition))


def _strip_positions(node: Any) -> Any:
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return tuple((f.name, _strip_positions(getattr(node, f.name))) for f in dataclasses.fields(node) if f.name != "pos")
    if isinstance(node, tuple):
        return tuple(_strip_positions(n) for n in node)
    return node


@dataclass(frozen=True)
class OddsChange:
    """One outcome's probability under the base and under the variant."""

    outcome: OutcomeValue
    before: Fraction
    after: Fraction

    @property
    def change(self) -> Fraction:
        return self.after - self.before


def odds_changes(before: Distribution, after: Distribution) -> list[OddsChange]:
    """Every outcome of either distribution with its probability under both."""
    check_type(before, Distribution, "before", "a Distribution (from odds)")
    check_type(after, Distribution, "after", "a Distribution (from odds)")
    old = dict(before.outcomes)
    new = dict(after.outcomes)
    outcomes = list(old) + [o for o in new if o not in old]
    rows = [OddsChange(o, old.get(o, Fraction(0)), new.get(o, Fraction(0))) for o in outcomes]
    rows.sort(key=lambda r: (-max(r.before, r.after), r.outcome.name, repr(r.outcome.fields)))
    return rows


class WhatIfError(Exception):
    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message = message
        self.offset = offset


_WHAT_IF = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\s*(\+|-|=)\s*(.+?)\s*", re.ASCII | re.DOTALL)


def _amount(text: str, op: str, offset: int) -> int:
    """A --what-if amount after + or -: ASCII digits, within the 64 bits (max_int_bits) --set holds an input to.

    Not str.isdigit() and int(): they take a superscript "²" (which int() then refuses) and
    5,000 digits (past Python's int-to-text limit).
    """
    if not text.isascii() or not text.isdigit():
        raise WhatIfError(f"expected a whole number after {op}, not {_shorten(text)!r}", offset)
    try:
        return coerce(parse_command_line_value(text, IntType()), IntType(), f"the amount after {op}")
    except CoercionError as error:
        raise WhatIfError(error.message, offset) from None


def _shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "..."


def _entry_what_if(modifiers: Mapping[str, ModifierList], name: str, entry_name: str, op: str, value_text: str, match: re.Match) -> ModifierList:
    """``LIST.ENTRY=N`` gives one entry the value N; ``LIST.ENTRY+N`` / ``-N`` adds to it (its condition unchanged)."""
    if name not in modifiers:
        known = ", ".join(sorted(modifiers)) or "none"
        raise WhatIfError(f"no modifier list '{name}' (modifier lists: {known})", match.start(1))
    modifier_list = modifiers[name]
    entries = {entry.name: entry for entry in modifier_list.entries}
    if entry_name not in entries:
        known = ", ".join(entries) or "none"
        raise WhatIfError(f"modifier list '{name}' has no entry '{entry_name}' (entries: {known})", match.start(2))
    entry = entries[entry_name]
    if op == "=":
        sign = -1 if value_text.startswith("-") else 1
        digits = value_text[1:] if value_text[:1] in "+-" else value_text
        value = sign * _amount(digits, "=", match.start(4) + (len(value_text) - len(digits)))
    else:
        value = entry.value + _amount(value_text, op, match.start(4)) * (1 if op == "+" else -1)
    changed = dataclasses.replace(entry, value=value, rule=f"{entry.rule} (--what-if {match.group(0).strip()})")
    return dataclasses.replace(modifier_list, entries=tuple(changed if e is entry else e for e in modifier_list.entries))


def what_if(ruleset: CompiledRuleset, changes: list[str]) -> CompiledRuleset:
    """A variant of ``ruleset`` with command-line changes applied, checked and compiled anew.

    ``LIST+N`` / ``LIST-N`` adds an always-applying entry of N to a modifier
    list (a DRM, or a column shift: + is right); ``LIST.ENTRY=N`` gives one
    entry of a list the value N (``LIST.ENTRY+N`` adds to it: a "+1 Heavy
    Ship" becoming +2, its condition unchanged); ``CONSTANT=VALUE`` replaces a
    constant's value.
    """
    check_type(ruleset, CompiledRuleset, "the ruleset", "a ruleset from load_ruleset(...)")
    changes = list(check_names(changes, "changes"))
    constants = dict(ruleset.constants)
    modifiers = dict(ruleset.modifiers)
    for text in changes:
        match = _WHAT_IF.fullmatch(text)
        if not match:
            raise WhatIfError("--what-if takes LIST+N, LIST-N (a modifier list), LIST.ENTRY=N, LIST.ENTRY+N (one entry) or CONSTANT=VALUE")
        name, entry_name, op, value_text = match.groups()
        value_offset = match.start(4)
        if entry_name is not None:
            modifiers[name] = _entry_what_if(modifiers, name, entry_name, op, value_text, match)
        elif op in "+-":
            if name not in modifiers:
                known = ", ".join(sorted(modifiers)) or "none"
                raise WhatIfError(f"no modifier list '{name}' (modifier lists: {known})", match.start(1))
            amount = _amount(value_text, op, value_offset) * (1 if op == "+" else -1)
            modifier_list = modifiers[name]
            pos = modifier_list.pos
            entry = ModifierEntry("what_if", f"what-if {text.strip()}", amount, syntax.BoolLit(pos, True), "--what-if (command line)", pos)
            modifiers[name] = dataclasses.replace(modifier_list, entries=modifier_list.entries + (entry,))
        else:
            if name not in constants:
                known = ", ".join(sorted(constants)) or "none"
                raise WhatIfError(f"no constant '{name}' (constants: {known})", match.start(1))
            constant = constants[name]
            # a typed constant holds a what-if to its declared type (a count at least 0), as it holds a variant
            kind = constant.declared if constant.declared is not None else type_of_value(constant.value)
            if kind is None:  # a list mixing types: ANY, which (like every list) has no command-line spelling
                kind = ANY
            try:
                value = parse_command_line_value(value_text, kind)  # refuses a kind it cannot spell (a list)
                # held to the sizes --set holds an input to (64 bits), as the ruleset's own numbers are
                value = coerce(value, kind, "the value")
            except CoercionError as error:
                raise WhatIfError(f"{name}: {error.message}", value_offset) from None
            constants[name] = Constant(name, value, "--what-if (command line)", constant.description, constant.pos, constant.declared)
    changed = dataclasses.replace(ruleset.model, constants=frozen_mapping(constants), modifiers=frozen_mapping(modifiers))
    return compile_model(changed)
