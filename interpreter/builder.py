"""Schema-valid YAML -> the ruleset model, with semantic checks on the data.

Runs after JSON Schema validation, so shapes are known to be right; what it
checks is meaning: table headings that leave gaps or overlap, rows that do
not cover the die, rows of the wrong length, unknown result codes, bad type
specs, defaults that do not fit their type, DSL syntax.  Every problem is
collected with the position of the YAML that caused it.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from . import syntax
from .errors import DiagnosticList, RulesetError
from .example_groups import unknown_group_keys
from .example_likes import inherited_marks, liked
from .inputs import CoercionError, coerce
from .load_limits import DEFAULT_LOAD_LIMITS, LoadLimits, OverLimit
from .parser import TokenBudget, parse_expression, parse_procedure
from .ruleset import (
    MISSING,
    Aid,
    Choice,
    Constant,
    Example,
    HelperFunction,
    InputSpec,
    ModifierEntry,
    ModifierList,
    Note,
    Procedure,
    Ruleset,
    frozen_mapping,
)
from .tables import (
    BELOW_CLAMP,
    BELOW_OFF_TABLE,
    BELOW_RESULT,
    Axis,
    Heading,
    Table,
    coverage_problems,
    dice_range,
    parse_numeric_label,
    parse_ratio_label,
    parse_rolls,
    uncovered_totals,
)
from .text_origins import origin_for, value_at
from .values import (
    ANY,
    BOOL,
    INT,
    STR,
    IntType,
    ListType,
    Record,
    RecordType,
    StrType,
    Type,
)
from .yaml_loader import LoadedYaml

MERGED_SECTIONS = ("constants", "types", "tables", "modifiers", "functions", "procedures")
_CELL_SEPARATOR = re.compile(r"\s*[+/]\s*")
# A printed Avalon Hill odds heading ("2-1", "1-2"): read as a range unless the columns say odds: true.
_PRINTED_ODDS = re.compile(r"([0-9]+)\s*(?:-|–|—)\s*([0-9]+)\s*([+-]?)")
# A heading that names odds without being one ("less than 1:1", "below 1-2").
_NAMES_ODDS = re.compile(r"[0-9]+\s*(?::|-|–|—)\s*[0-9]+")


# The keys of a type spec that narrow its kind (besides type, default and description), by the kinds that read them, and
# what to write instead where a kind would ignore one (Builder._refuse_ignored_keys).
_SPEC_KEYS: dict[str, tuple[str, ...]] = {
    "int": ("min", "max"), "bool": (), "str": (), "enum": ("values",), "list": ("of", "max_items", "min_items", "order"),
}
_BOUNDS_HINT = "min and max bound an int ({type: int, min: 1, max: 6})"
_LIST_HINT = "of, max_items, min_items and order describe a list ({type: list, of: ship, max_items: 5})"
_NARROWING_KEYS = {
    "min": _BOUNDS_HINT, "max": _BOUNDS_HINT, "values": "an enumeration lists its values ({type: enum, values: [fit, damaged]})",
    "of": _LIST_HINT, "max_items": _LIST_HINT, "min_items": _LIST_HINT, "order": _LIST_HINT,
}


@dataclass(frozen=True)
class Located:
    """A section entry and the file it came from."""

    doc: LoadedYaml
    path: tuple
    data: Any


def _note(doc: LoadedYaml, index: int, note: dict, note_names: list[tuple[LoadedYaml, tuple, str]]) -> Note:
    """A ``notes:`` entry; the procedures and constants it names are added to ``note_names``, to be checked."""
    named = tuple(note.get("procedures") or ())
    selecting = tuple(note.get("constants") or ())
    for key, names in (("procedures", named), ("constants", selecting)):
        note_names.extend((doc, ("notes", index, key, position), name) for position, name in enumerate(names))
    return Note(note["topic"], note["text"], note.get("seed", ""), note.get("variant", ""), named, selecting)


def pos_of(doc: LoadedYaml, path: tuple, *, at_key: bool = False) -> syntax.Pos:
    mark = doc.key_mark(path) if at_key else doc.mark(path)
    return syntax.Pos(doc.source_of(mark), mark.line, mark.column)


def _aid(doc: LoadedYaml, path: tuple, data: dict) -> Aid:
    """An aids: entry as written, with the position of each of its parts (checked by ``aid``)."""
    marks: dict[str, syntax.Pos] = {}
    stack: list[tuple[Any, tuple]] = [(data, ())]
    while stack:  # no recursion on the data's depth
        node, inner = stack.pop()
        if inner:
            marks[".".join(map(str, inner))] = pos_of(doc, path + inner)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((value, inner + (key,)) for key, value in items)
    return Aid(data["title"], frozen_mapping(data), pos_of(doc, path + ("title",)), frozen_mapping(marks))


class Builder:
    def __init__(self, documents: list[LoadedYaml], diagnostics: DiagnosticList, limits: LoadLimits = DEFAULT_LOAD_LIMITS):
        from .sides import expand_sides

        # per_side and inputs_like are sugar: expanded on the document before anything reads it.
        documents = [expand_sides(document, diagnostics, limits) for document in documents]
        self.main = documents[0]
        self.documents = documents
        self.diagnostics = diagnostics
        self.limits = limits
        self.records: dict[str, Type] = {}  # records, and named types such as a shared enum
        self.unparsed: set[str] = set()  # procedures whose body failed to parse: one message each, no "unknown" at calls

    def error(self, doc: LoadedYaml, path: tuple, message: str, *, at_key: bool = False) -> None:
        self.diagnostics.add(doc.diagnostic(path, message, at_key=at_key))

    # ---- whole ruleset -----------------------------------------------------------

    def build(self) -> Ruleset:
        sections: dict[str, dict[str, Located]] = {name: {} for name in MERGED_SECTIONS}
        notes: list[Note] = []
        note_names: list[tuple[LoadedYaml, tuple, str]] = []  # the procedures and constants notes name
        examples: list[Example] = []
        example_names: dict[str, Example] = {}  # the examples so far, for like: and for names used twice
        aids: list[Aid] = []
        for doc in self.documents:
            data = doc.data if isinstance(doc.data, dict) else {}
            self._collect_sections(doc, data, sections)
            for index, note in enumerate(data.get("notes") or ()):
                notes.append(_note(doc, index, note, note_names))
            for index, example in enumerate(data.get("examples") or ()):
                examples.append(self._example(doc, ("examples", index), example, example_names))
            aids.extend(_aid(doc, ("aids", index), aid) for index, aid in enumerate(data.get("aids") or ()))
        self._check_section_names(sections)
        self._check_note_names(note_names, sections)
        self.diagnostics.extend(unknown_group_keys(self.documents, sections["procedures"], self.limits.max_diagnostics))
        self._spend_procedure_tokens(sections)
        self._build_records(sections["types"])  # first: a typed constant may name a type
        constants = {name: self._constant(name, item) for name, item in sections["constants"].items()}
        tables = {}
        for name, item in sections["tables"].items():
            table = self._table(name, item)
            if table is not None:
                tables[name] = table
        modifiers = {name: self._modifier_list(name, item) for name, item in sections["modifiers"].items()}
        functions = {name: self._function(name, item) for name, item in sections["functions"].items()}
        procedures = {}
        for name, item in sections["procedures"].items():
            procedure = self._procedure(name, item)
            if procedure is not None:
                procedures[name] = procedure
        main = self.main.data
        return Ruleset(
            name=main["name"],
            title=main["title"],
            source=main["source"],
            version=main["version"],
            description=main.get("description", ""),
            path=self.main.source.name,
            constants=frozen_mapping(constants),
            types=frozen_mapping(self.records),
            type_positions=_positions(sections["types"]),
            tables=frozen_mapping(tables),
            modifiers=frozen_mapping(modifiers),
            procedures=frozen_mapping(procedures),
            functions=frozen_mapping(functions),
            notes=tuple(notes),
            examples=tuple(examples),
            aids=tuple(aids),
            unparsed=frozenset(self.unparsed),
        )

    def _collect_sections(self, doc: LoadedYaml, data: dict, sections: dict[str, dict[str, Located]]) -> None:
        """The named elements of one file added to ``sections``; a name defined twice is an error at the second."""
        for section in MERGED_SECTIONS:
            for name, value in (data.get(section) or {}).items():
                if name in sections[section]:
                    first = sections[section][name]
                    self.error(
                        doc, (section, name),
                        f"{section[:-1]} '{name}' is defined twice (first at {pos_of(first.doc, first.path, at_key=True)})",
                        at_key=True,
                    )
                    continue
                sections[section][name] = Located(doc, (section, name), value)

    def _check_note_names(self, named: list[tuple[LoadedYaml, tuple, str]], sections: dict[str, dict[str, Located]]) -> None:
        """A note's ``procedures:`` and ``constants:`` name what the ruleset has (a misspelt one would silently flag nothing)."""
        import difflib

        for doc, path, name in named:
            section = path[2]
            if name not in sections[section]:
                close = difflib.get_close_matches(name, list(sections[section]), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self.error(doc, path, f"the note names {section[:-1]} '{name}', which this ruleset does not have{hint}")

    def _spend_procedure_tokens(self, sections: dict[str, dict[str, Located]]) -> None:
        """Count every modifier condition and procedure body against the token budget before parsing any.

        Parsing costs ~25 us a token; a ruleset over the budget stops here, at once.
        """
        budget = TokenBudget(self.limits)
        texts = [
            (item.doc, item.path + ("entries", entry_name, "when"))
            for item in sections["modifiers"].values() for entry_name in item.data["entries"]
        ] + [(item.doc, item.path + ("body",)) for section in ("functions", "procedures") for item in sections[section].values()]
        try:
            for doc, path in texts:
                text = value_at(doc.data, path)
                if isinstance(text, str):
                    budget.spend(text, partial(origin_for, doc, path))
        except RulesetError as error:
            self.diagnostics.extend(error.diagnostics)
            self.diagnostics.raise_if_any()

    def _check_section_names(self, sections: dict[str, dict[str, Located]]) -> None:
        """One name, one meaning: a constant may not share a name with a table, say."""
        seen: dict[str, str] = {}
        for section in ("constants", "tables", "modifiers", "functions", "procedures"):
            for name, item in sections[section].items():
                if name in seen:
                    self.error(item.doc, item.path, f"'{name}' names both a {seen[name]} and a {section[:-1]}; use distinct names", at_key=True)
                else:
                    seen[name] = section[:-1]

    def _example(self, doc: LoadedYaml, path: tuple, data: dict, earlier: dict[str, Example]) -> Example:
        if data["name"] in earlier:
            self.error(doc, path + ("name",), f"example '{data['name']}' is defined twice; names must be unique")
        written, base = data, None
        if "like" in data:
            data, base, problem = liked(written, earlier)
            if problem is not None:
                self.error(doc, path + ("like",), problem)
        marks = inherited_marks(data, written, base) if base is not None else {}
        for key in ("procedure", "inputs", "choices", "dice", "expect", "violation", "odds"):
            if key in written:
                marks[key] = pos_of(doc, path + (key,))
            elif key in data:  # inputs or choices all taken from the example it is like
                marks[key] = pos_of(doc, path + ("like",))
        for part in ("inputs", "choices"):
            for name in written.get(part) or {}:
                marks[f"{part}.{name}"] = pos_of(doc, path + (part, name))
                marks[f"{part}.{name}.key"] = pos_of(doc, path + (part, name), at_key=True)
        for field_name in (data.get("expect") or {}).get("fields") or {}:
            marks[f"expect.fields.{field_name}"] = pos_of(doc, path + ("expect", "fields", field_name))
        if "expect" in data:
            marks["expect.outcome"] = pos_of(doc, path + ("expect", "outcome"))
        for index, _ in enumerate(data.get("odds") or ()):
            marks[f"odds.{index}"] = pos_of(doc, path + ("odds", index, "probability"))
        example = Example(data["name"], data["procedure"], data.get("rule", ""), frozen_mapping(data), pos_of(doc, path + ("name",)), frozen_mapping(marks))
        earlier.setdefault(example.name, example)
        return example

    # ---- constants and types ------------------------------------------------------

    def _constant(self, name: str, item: Located) -> Constant:
        """A constant; one that declares ``type:`` has its value checked against it here, at the value's line.

        The check is what makes a constant safe to change in a variant: ``max_rounds: {value: "20"}`` or -1
        under ``override:`` is refused where it is written, not read as text or as a negative count later.
        """
        value = item.data["value"]
        if isinstance(value, list):
            value = tuple(value)
        declared = None
        if "type" in item.data:
            declared = self.type_from_spec(item.data["type"], item.doc, item.path + ("type",))
            if declared is not ANY:
                value = self._coerce_at(item.data["value"], declared, item.doc, item.path + ("value",), f"constant '{name}'")
        pos = pos_of(item.doc, item.path, at_key=True)
        return Constant(name, value, item.data["rule"], item.data.get("description", ""), pos, declared)

    def _build_records(self, types: dict[str, Located]) -> None:
        pending = dict(types)
        for builtin in ("int", "bool", "str", "enum", "list", "rolls", "any"):
            if builtin in pending:
                item = pending.pop(builtin)
                self.error(item.doc, item.path, f"'{builtin}' is a built-in type; name the record differently", at_key=True)
        # Records may use records declared anywhere in the file: build each
        # after the types it names (Kahn's algorithm, in declaration order).
        waiting_on: dict[str, set[str]] = {}
        needed_by: dict[str, list[str]] = {name: [] for name in pending}
        for name, item in pending.items():
            fields = item.data.get("fields", {"": item.data})
            referenced = {self._referenced_record(spec) for spec in fields.values()}
            needed = {other for other in referenced if other is not None} & pending.keys()
            waiting_on[name] = needed
            for other in needed:
                needed_by[other].append(name)
        ready = deque(name for name in pending if not waiting_on[name])
        while ready:
            name = ready.popleft()
            item = pending.pop(name)
            if "fields" in item.data:
                self.records[name] = self._record(name, item)
            else:  # a named type such as an enum shared by several inputs
                self.records[name] = self.type_from_spec(item.data, item.doc, item.path)
            for other in needed_by[name]:
                waiting_on[other].discard(name)
                if not waiting_on[other] and other in pending:
                    ready.append(other)
        for name, item in pending.items():  # left waiting: a cycle, or a type that needs one
            self.error(item.doc, item.path, f"type '{name}' contains itself (directly or through another type)", at_key=True)

    @staticmethod
    def _referenced_record(spec: Any) -> str | None:
        """The record or named type a type spec uses (through any lists of lists), if any."""
        while isinstance(spec, dict) and spec.get("type") == "list":
            spec = spec.get("of")
        if isinstance(spec, str):
            return spec if spec not in ("int", "bool", "str") else None
        if not isinstance(spec, dict) or spec.get("type") in ("int", "bool", "str", "enum"):
            return None
        return spec.get("type")

    def _record(self, name: str, item: Located) -> RecordType:
        fields, defaults, descriptions = [], [], []
        for field_name, spec in item.data["fields"].items():
            path = item.path + ("fields", field_name)
            field_type = self.type_from_spec(spec, item.doc, path)
            fields.append((field_name, field_type))
            if "default" in spec:
                default = self._coerce_at(spec["default"], field_type, item.doc, path + ("default",), f"default of {field_name}")
                defaults.append((field_name, default))
            descriptions.append((field_name, spec.get("description", "")))
        return RecordType(name, tuple(fields), tuple(defaults), tuple(descriptions))

    def type_from_spec(self, spec: Any, doc: LoadedYaml, path: tuple) -> Type:
        """The type a spec declares; a list of lists is unwrapped in a loop, not by recursion."""
        list_specs = []
        while isinstance(spec, dict) and spec.get("type") == "list":
            self._refuse_ignored_keys(spec, "list", doc, path)
            list_specs.append(spec)
            spec, path = spec["of"], path + ("of",)
        element = self._element_type(spec, doc, path)
        for outer in reversed(list_specs):
            element = ListType(element, outer.get("max_items"), outer.get("order", "ordered") == "ordered", outer.get("min_items", 0))
        return element

    def _element_type(self, spec: Any, doc: LoadedYaml, path: tuple) -> Type:
        if isinstance(spec, str):
            spec = {"type": spec}
        kind = spec["type"]
        self._refuse_ignored_keys(spec, kind, doc, path)
        if kind == "int":
            low, high = spec.get("min"), spec.get("max")
            if low is not None and high is not None and low > high:
                self.error(doc, path + ("max",), f"max {high} is below min {low}")
            return IntType(low, high)
        if kind == "bool":
            return BOOL
        if kind == "str":
            return STR
        if kind == "enum":
            values = spec["values"]
            duplicates = sorted(value for value, times in Counter(values).items() if times > 1)
            if duplicates:
                self.error(doc, path + ("values",), f"enum value '{duplicates[0]}' is listed twice")
            return StrType(tuple(values))
        if kind in self.records:
            return self.records[kind]
        known = _listing(["int", "bool", "str", "enum", "list"] + sorted(self.records))
        self.error(doc, path + ("type",) if isinstance(doc.data, dict) else path, f"unknown type '{kind}' (types: {known})")
        return ANY

    def _refuse_ignored_keys(self, spec: dict, kind: str, doc: LoadedYaml, path: tuple) -> None:
        """An error at the first key of ``spec`` that its kind of type would ignore (``values`` on a str, ``min`` on a
        list, any bound beside a named type): before, such a key passed ``check`` and narrowed nothing."""
        if kind not in _SPEC_KEYS and kind not in self.records:
            return  # an unknown type: that is the error (_element_type), not its keys
        allowed = _SPEC_KEYS.get(kind, ())
        ignored = [key for key in _NARROWING_KEYS if key in spec and key not in allowed]
        if not ignored:
            return
        key = ignored[0]
        if kind not in _SPEC_KEYS:  # a named type is used as declared
            self.error(doc, path + (key,), f"'{key}' beside the named type '{kind}' would be ignored: "
                                           f"declare a type of its own under types: (or write the {kind} spec out here)")
        elif kind == "list" and key in ("min", "max"):
            self.error(doc, path + (key,), f"'{key}' on a list would be ignored: its {'fewest' if key == 'min' else 'most'} "
                                           f"items are {key}_items ({{type: list, of: ship, {key}_items: 1}})")
        else:
            self.error(doc, path + (key,), f"'{key}' on a {kind} would be ignored: {_NARROWING_KEYS[key]}")

    def _coerce_at(self, value: Any, expected: Type, doc: LoadedYaml, path: tuple, what: str) -> Any:
        try:
            return coerce(value, expected, what)
        except CoercionError as error:
            self.error(doc, path + error.path, error.message)
            return MISSING

    # ---- tables -----------------------------------------------------------------------

    def _heading(self, entry: Any, doc: LoadedYaml, path: tuple, described_at: tuple, odds: bool = False) -> Heading:
        """The heading ``entry`` (at ``path``); a mapping entry is written at ``described_at``.

        ``odds``: the axis is declared as odds columns, so a printed "3-1" reads as 3:1.
        """
        try:
            return self._parse_heading(entry, doc, described_at, odds)
        except OverLimit as error:
            label = str(entry["label"]) if isinstance(entry, dict) else str(entry)
            at = described_at + ("range",) if isinstance(entry, dict) and "range" in entry else path
            self.error(doc, at, f"heading {_show(label)}: {error}")
            return Heading(label, members=frozenset({label.casefold()}))

    def _parse_heading(self, entry: Any, doc: LoadedYaml, described_at: tuple, odds: bool) -> Heading:
        if isinstance(entry, dict):
            label = str(entry["label"])
            if "range" in entry:
                return self._ranged_heading(label, str(entry["range"]), doc, described_at + ("range",), odds)
            members = frozenset({label.casefold()} | {m.casefold() for m in entry.get("match", ())})
            if "match" in entry or entry.get("otherwise"):
                return Heading(label, members=members, otherwise=bool(entry.get("otherwise")))
            entry = label
        label = str(entry)
        return self._ordered_heading(label, label, odds) or Heading(label, members=frozenset({label.casefold()}))

    def _ranged_heading(self, label: str, range_text: str, doc: LoadedYaml, range_path: tuple, odds: bool) -> Heading:
        """A printed label over a range: numbers (``{label: "81-100+", range: "81+"}``) or odds (``{label: "1-1", range: "1:1"}``)."""
        found = self._ordered_heading(label, range_text, odds)
        if found is None:
            self.error(doc, range_path, f"range {range_text!r} is not a number, a range or odds such as \"81+\", \"3-4\" or \"3:1\"")
            return Heading(label, members=frozenset({label.casefold()}))
        return found

    def _ordered_heading(self, label: str, text: str, odds: bool) -> Heading | None:
        """The heading ``label`` for ``text`` read as odds ("3-1" too where the columns are odds), a number or a
        range; None when it is none of them (a category)."""
        printed_odds = parse_ratio_label(text, self.limits, printed_dash=True) if odds else None
        if printed_odds is not None:
            return Heading(label, ratio=printed_odds[0], ratio_open=printed_odds[1])
        bounds = parse_numeric_label(text, self.limits)
        if bounds is not None:
            return Heading(label, bounds[0], bounds[1], numeric=True)
        found = parse_ratio_label(text, self.limits)
        if found is not None:
            return Heading(label, ratio=found[0], ratio_open=found[1])
        return None

    def _axis(self, spec: dict, labels: list[tuple[Any, tuple, tuple]], edge: str, doc: LoadedYaml) -> Axis:
        """An axis from (heading, its path, where a mapping heading is written) triples."""
        odds = bool(spec.get("odds", False))
        at_key = "entries" not in spec  # row headings are the keys of cells
        headings = tuple(
            replace(self._heading(label, doc, path, described_at, odds), pos=pos_of(doc, path, at_key=at_key)) for label, path, described_at in labels
        )
        below = spec.get("below")
        kind = None if below is None else below if below in (BELOW_OFF_TABLE, BELOW_CLAMP) else BELOW_RESULT
        return Axis(spec["name"], headings, edge, spec.get("dice"), kind, None, "" if below is None else str(below))

    def _check_axis(self, axis: Axis, label_paths: list[tuple], doc: LoadedYaml, axis_path: tuple, what: str, at_key: bool,
                    declared_odds: bool = False) -> None:
        """Every heading problem of one axis: numeric spans, odds columns, categories, otherwise, the die."""
        site = _AxisSite(self, doc, what, at_key, declared_odds)
        site.check_numeric(axis, label_paths)
        site.check_odds(axis, label_paths)
        site.check_below(axis, axis_path)
        site.check_categories(axis, label_paths)
        if sum(1 for h in axis.headings if h.otherwise) > 1:
            self.error(doc, axis_path, f"{what}: only one heading may say otherwise: true")
        if axis.dice is not None:
            self._check_dice_cover(axis, axis.dice, doc, axis_path + ("dice",), what)

    def _check_dice_cover(self, axis: Axis, dice: str, doc: LoadedYaml, dice_path: tuple, what: str) -> None:
        """The axis's numeric headings hold every total its die can roll."""
        try:
            low, high = dice_range(dice, self.limits)
        except OverLimit as error:
            self.error(doc, dice_path, f"{what}: {error}")
            return
        if low < 1:
            self.error(doc, dice_path, f"{what}: {dice} rolls no dice")
            return
        missing = uncovered_totals(axis, low, high, at_most=9)
        if missing:
            shown = ", ".join(map(str, missing[:8])) + (" ..." if len(missing) > 8 else "")
            self.error(doc, dice_path, f"{what} do not cover the die: {dice} rolls {low}-{high}, but no row holds {shown}")

    def _table(self, name: str, item: Located) -> Table | None:
        doc, path, data = item.doc, item.path, item.data
        cells: dict = data["cells"]
        row_labels = self._row_labels(data, doc, path)
        edges = data["edges"]
        rows = self._axis(data["rows"], row_labels, edges["rows"], doc)
        for key in ("odds", "below"):
            if key in data["rows"]:
                self.error(doc, path + ("rows", key), f"rows: {key}: is for odds columns; rows are never odds")
        self._check_axis(rows, [p for _, p, _ in row_labels], doc, path + ("rows",), "rows", at_key=True)
        if "columns" in data and "entries" not in data["columns"]:
            self.error(doc, path + ("columns",), "columns need entries: the column headings in order")
            return None
        columns = self._columns(data, doc, path)
        results = data.get("results")
        result_fields = self._result_fields(results, doc, path + ("results",)) if results else None
        width = len(columns.headings) if columns else 1
        if not self._table_fits(name, len(cells) * width, result_fields, doc, path):
            return None
        cell_reader = _CellReader(self, name, doc, results, result_fields)
        if columns is not None and columns.below == BELOW_RESULT:
            below_path = path + ("columns", "below")
            columns = replace(columns, below_value=cell_reader.read(value_at(doc.data, below_path), below_path))
        rows_read = [self._table_row(label, row, cell_reader, columns, width, path + ("cells", label)) for label, row in cells.items()]
        return Table(
            name=name,
            title=data["title"],
            rule=data["rule"],
            rows=rows,
            columns=columns,
            cells=tuple(values for values, _, _ in rows_read),
            printed=tuple(texts for _, texts, _ in rows_read),
            example=bool(data.get("example", False)),
            description=data.get("description", ""),
            result_fields=tuple(result_fields.items()) if result_fields is not None else None,
            provenance=tuple(origins for _, _, origins in rows_read),
            codes=tuple((str(code), spec.get("meaning", "")) for code, spec in ((results or {}).get("codes") or {}).items()),
            pos=pos_of(doc, path, at_key=True),
        )

    def _row_labels(self, data: dict, doc: LoadedYaml, path: tuple) -> list[tuple[Any, tuple, tuple]]:
        """(heading, its path, where a mapping heading is written) per row; rows.headings checked against the rows."""
        cells = data["cells"]
        row_extras = data["rows"].get("headings", {})
        for extra in row_extras:
            if extra not in cells:
                self.error(doc, path + ("rows", "headings", extra), f"heading '{extra}' is not a row of the table (rows: {_listing(cells)})", at_key=True)
        row_labels: list[tuple[Any, tuple, tuple]] = []
        for label in cells:
            extra = row_extras.get(label)
            if isinstance(extra, dict):
                if "label" in extra and str(extra["label"]) != str(label):
                    self.error(doc, path + ("rows", "headings", label, "label"), f"label '{extra['label']}' differs from the row it describes ('{label}'); leave label out")
                row_labels.append(({**extra, "label": label}, path + ("cells", label), path + ("rows", "headings", label)))
            else:
                row_labels.append((label, path + ("cells", label), path + ("cells", label)))
        return row_labels

    def _columns(self, data: dict, doc: LoadedYaml, path: tuple) -> Axis | None:
        """The column axis (its entries present), or None for a table without columns."""
        edges = data["edges"]
        if "columns" not in data:
            if "columns" in edges:
                self.error(doc, path + ("edges", "columns"), "the table has no columns")
            return None
        spec = data["columns"]
        if "columns" not in edges:
            self.error(doc, path + ("edges",), "edges.columns is required: say what a lookup does past the last column (clamp or error)")
        column_labels = [(entry, path + ("columns", "entries", i), path + ("columns", "entries", i)) for i, entry in enumerate(spec["entries"])]
        columns = self._axis(spec, column_labels, edges.get("columns", "error"), doc)
        self._check_axis(columns, [p for _, p, _ in column_labels], doc, path + ("columns",), "columns", at_key=False,
                         declared_odds=bool(spec.get("odds")))
        if "dice" in spec:
            self.error(doc, path + ("columns", "dice"), "only rows may be keyed by a die roll")
        return columns

    def _table_fits(self, name: str, cell_count: int, result_fields: dict[str, Type] | None, doc: LoadedYaml, path: tuple) -> bool:
        """Whether the cell records stay within max_nodes values (every cell record holds every field)."""
        record_values = cell_count * (len(result_fields) + 1 if result_fields is not None else 1)
        if record_values > self.limits.max_nodes:
            self.error(doc, path + ("cells",), f"table '{name}' would hold {record_values} values (cells times result fields): "
                       f"too many values: the limit is {self.limits.max_nodes}")
            return False
        return True

    def _table_row(self, label: Any, row: Any, cell_reader: _CellReader, columns: Axis | None, width: int,
                   row_path: tuple) -> tuple[tuple, tuple[str, ...], tuple[str, ...]]:
        """One row's (cell values, cells as printed, file:line of each cell), padded or cut to ``width``."""
        doc = cell_reader.doc
        if columns is None:
            if isinstance(row, list):
                self.error(doc, row_path, f"table '{cell_reader.table}' has no columns, so each row holds one cell, not a list")
                row = row[:1]
            else:
                row = [row]
        elif not isinstance(row, list):
            row = [row]
        if len(row) != width:
            self.error(doc, row_path, f"row '{label}' has {len(row)} cell{'s' if len(row) != 1 else ''}, but the table has {width} column{'s' if width != 1 else ''}")
        row = (list(row) + [None] * width)[:width]
        values, texts, origins = [], [], []
        for index, raw in enumerate(row):
            cell_path = row_path + ((index,) if columns is not None else ())
            values.append(cell_reader.read(raw, cell_path) if raw is not None else None)
            texts.append("" if raw is None else str(raw))
            origin = pos_of(doc, cell_path)
            origins.append(f"{origin.source.name}:{origin.line}")
        return tuple(values), tuple(texts), tuple(origins)

    def _result_fields(self, results: dict, doc: LoadedYaml, path: tuple) -> dict[str, Type]:
        types: dict[str, Type] = {}
        for field_name, spec in results["fields"].items():
            kind = spec["type"]
            if field_name == "code":
                self.error(doc, path + ("fields", "code"), "'code' is reserved: every cell record has it, holding the cell as printed", at_key=True)
            if kind == "enum":
                if "values" not in spec:
                    self.error(doc, path + ("fields", field_name), "an enum field needs values")
                types[field_name] = StrType(tuple(spec.get("values", ())))
            else:
                types[field_name] = {"int": INT, "bool": BOOL, "str": STR, "rolls": ListType(INT)}[kind]
            if "default" in spec:
                self._coerce_at(spec["default"], types[field_name], doc, path + ("fields", field_name, "default"), f"default of {field_name}")
        for key, wanted in (("number", INT), ("rolls", ListType(INT))):
            if key in results:
                target = results[key]
                if target not in types:
                    self.error(doc, path + (key,), f"'{target}' is not one of the result fields ({_listing(types)})")
                elif types[target] != wanted:
                    self.error(doc, path + (key,), f"field '{target}' must be of type {'int' if key == 'number' else 'rolls'}")
        for code, spec in (results.get("codes") or {}).items():
            for field_name, value in (spec.get("set") or {}).items():
                if field_name not in types:
                    self.error(doc, path + ("codes", code, "set", field_name), f"code '{code}' sets unknown field '{field_name}' (fields: {_listing(types)})", at_key=True)
                else:
                    self._coerce_at(value, types[field_name], doc, path + ("codes", code, "set", field_name), f"{code}.{field_name}")
        return types

    # ---- modifiers ------------------------------------------------------------------

    def _modifier_list(self, name: str, item: Located) -> ModifierList:
        entries = []
        for entry_name, entry in item.data["entries"].items():
            path = item.path + ("entries", entry_name)
            condition = self._expression(item.doc, path + ("when",))
            value_pos = pos_of(item.doc, path + ("value",))
            entries.append(
                ModifierEntry(
                    entry_name, entry["label"], entry["value"], condition, entry.get("rule", entry["label"]), pos_of(item.doc, path, at_key=True),
                    f"{value_pos.source.name}:{value_pos.line}",
                )
            )
        return ModifierList(
            name, item.data["kind"], item.data.get("title", name), item.data["rule"], tuple(entries), pos_of(item.doc, item.path, at_key=True)
        )

    def _function(self, name: str, item: Located) -> HelperFunction:
        """A ``functions:`` entry: its parameters and its body, parsed as one expression (checked where it is called)."""
        from .functions import AGGREGATES, FUNCTIONS

        if name in FUNCTIONS or name in AGGREGATES:
            self.error(item.doc, item.path, f"'{name}' is a built-in function; name the helper differently", at_key=True)
        return HelperFunction(
            name, tuple(item.data.get("params") or ()), self._expression(item.doc, item.path + ("body",)),
            item.data.get("description", ""), item.data.get("rule", ""), pos_of(item.doc, item.path, at_key=True),
        )

    def _expression(self, doc: LoadedYaml, path: tuple) -> syntax.Expr:
        text = value_at(doc.data, path)
        origin = origin_for(doc, path)
        try:
            return parse_expression(text, origin, self.limits)
        except RulesetError as error:
            self.diagnostics.extend(error.diagnostics)
            return syntax.BoolLit(origin.pos(1, 1), False)

    # ---- procedures -----------------------------------------------------------------

    def _procedure(self, name: str, item: Located) -> Procedure | None:
        doc, path, data = item.doc, item.path, item.data
        inputs = []
        for input_name, spec in (data.get("inputs") or {}).items():
            input_path = path + ("inputs", input_name)
            input_type = self.type_from_spec(spec, doc, input_path)
            default = MISSING
            if "default" in spec:
                default = self._coerce_at(spec["default"], input_type, doc, input_path + ("default",), f"default of {input_name}")
            inputs.append(InputSpec(input_name, input_type, default, spec.get("description", ""), pos_of(doc, input_path, at_key=True)))
        choices = []
        for choice_name, spec in (data.get("choices") or {}).items():
            choice_path = path + ("choices", choice_name)
            if spec["default"] not in spec["options"]:
                self.error(doc, choice_path + ("default",), f"default '{spec['default']}' is not one of the options ({_listing(spec['options'])})")
            choices.append(
                Choice(choice_name, tuple(spec["options"]), spec["default"], spec.get("description", ""), spec.get("rule", ""), pos_of(doc, choice_path, at_key=True))
            )
        body_path = path + ("body",)
        if doc.styles.get(body_path) == ">":
            self.error(doc, body_path, "write the body as a literal block (body: |), not a folded one (>): line breaks matter for positions")
            self.unparsed.add(name)
            return None
        try:
            body = parse_procedure(data["body"], origin_for(doc, body_path), self.limits)
        except RulesetError as error:
            self.diagnostics.extend(error.diagnostics)
            self.unparsed.add(name)
            return None
        return Procedure(
            name, data["title"], data["rule"], data.get("description", ""), tuple(inputs), tuple(choices), body, pos_of(doc, path, at_key=True),
            data["body"],
        )


@dataclass(frozen=True)
class _AxisSite:
    """Where one axis's heading problems are reported: the builder, the file, the axis's name, key or value."""

    builder: Builder
    doc: LoadedYaml
    what: str  # "rows" or "columns", the start of each message
    at_key: bool
    declared_odds: bool = False  # the columns say `odds: true`: every heading must be odds

    def error(self, path: tuple, message: str) -> None:
        self.builder.error(self.doc, path, f"{self.what}: {message}", at_key=self.at_key)

    def check_numeric(self, axis: Axis, label_paths: list[tuple]) -> None:
        """Numeric headings: no gap, overlap or misplaced open end between neighbours; none runs backwards."""
        numeric_paths = [p for h, p in zip(axis.headings, label_paths) if h.numeric]
        numeric = [h for h in axis.headings if h.numeric]
        backwards = [h.low is not None and h.high is not None and h.low > h.high for h in numeric]
        odds_like = self.what == "columns" and (any(h.ratio is not None for h in axis.headings) or any(backwards))
        # Printed odds read as ranges ("2-1", "3-1"): each gets its "did you mean 2:1?", not a gap or overlap besides.
        spans = [(h, p) for h, p, b in zip(numeric, numeric_paths, backwards) if not (odds_like and b)]
        for index, problem in coverage_problems([h for h, _ in spans]):
            self.error(spans[index][1], problem)
        for heading, path, backward in zip(numeric, numeric_paths, backwards):
            if backward:
                hint = f" ({_odds_hint(heading.label)})" if odds_like and _PRINTED_ODDS.fullmatch(heading.label.strip()) else ""
                self.error(path, f"heading {heading.label!r} runs backwards{hint}")

    def check_odds(self, axis: Axis, label_paths: list[tuple]) -> None:
        """Odds columns: rising, open upwards only at the end and downwards only at the start; among them no
        heading that a ratio lookup can never read (a number, or a category that names odds, "less than 1:1")."""
        odds = [(h.ratio, h, p) for h, p in zip(axis.headings, label_paths) if h.ratio is not None]
        if self.declared_odds and not odds:
            self.error(label_paths[0], f"odds: true, but no heading is odds such as \"3:1\" or \"3-1\" (the first is {axis.headings[0].label!r})")
        if odds:
            self._check_only_odds(axis, label_paths)
        for index, (ratio, heading, path) in enumerate(odds):
            if index and ratio <= odds[index - 1][0]:
                self.error(path, f"odds column {heading.label!r} must be higher than {odds[index - 1][1].label!r} before it")
            if heading.ratio_open == "up" and index != len(odds) - 1:
                self.error(path, f"only the last odds column may be open upwards ({heading.label!r})")
            if heading.ratio_open == "down" and index != 0:
                self.error(path, f"only the first odds column may be open downwards ({heading.label!r})")

    def _check_only_odds(self, axis: Axis, label_paths: list[tuple]) -> None:
        """Among odds columns, a number, a heading that names odds ("less than 1:1") or any heading where the columns
        say odds: true is certainly a mistake: a ratio lookup never reads it.  (Another category may be read by a
        category key: the lint pass warns.)"""
        for heading, path in zip(axis.headings, label_paths):
            backwards = heading.low is not None and heading.high is not None and heading.low > heading.high
            if heading.ratio is None and not backwards and (heading.numeric or _NAMES_ODDS.search(heading.label) or self.declared_odds):
                self.error(path, f"heading {heading.label!r} is not odds, among odds columns: a ratio(...) lookup never reads it; "
                                 + _odds_hint(heading.label))

    def check_below(self, axis: Axis, axis_path: tuple) -> None:
        """``below:`` only on odds columns whose first column is not open downwards (it would never apply)."""
        if axis.below is None:
            return
        odds = [h for h in axis.headings if h.ratio is not None]
        if not odds:
            self.error(axis_path + ("below",), "below: says what odds below the first column read, but these columns are not odds")
        elif odds[0].ratio_open == "down":
            self.error(axis_path + ("below",), f"below: never applies: the first column {odds[0].label!r} is open downwards and holds every lower odds")

    def check_categories(self, axis: Axis, label_paths: list[tuple]) -> None:
        """No category under two headings."""
        seen: dict[str, str] = {}
        for heading, path in zip(axis.headings, label_paths):
            if heading.numeric or heading.ratio is not None:
                continue
            for member in heading.members:
                if member in seen:
                    self.error(path, f"category '{member}' is under both {seen[member]!r} and {heading.label!r}")
                seen[member] = heading.label


@dataclass(frozen=True)
class _CellReader:
    """Reads one table's cells into records: the declared result codes, numbers and die faces."""

    builder: Builder
    table: str
    doc: LoadedYaml
    results: dict | None
    fields: dict[str, Type] | None

    def read(self, raw: Any, path: tuple) -> Any:
        """The cell as its value: itself without results:, else a record of every field."""
        if self.results is None or self.fields is None:
            return raw
        values = self._defaults(self.results, self.fields)
        codes = self.results.get("codes") or {}
        text = str(raw).strip()
        tokens = [text] if text in codes else _CELL_SEPARATOR.split(text)
        for token in tokens:
            if not self._read_token(token, text, self.results, codes, values, path):
                break
        return _record_for_cell(self.table, text, values)

    @staticmethod
    def _defaults(results: dict, fields: dict[str, Type]) -> dict[str, Any]:
        """Each field's value in a cell that does not set it: its default, an enum's first value, or the type's zero."""
        values: dict[str, Any] = {}
        for field_name, field_type in fields.items():
            spec = results["fields"][field_name]
            if "default" in spec:
                values[field_name] = tuple(spec["default"]) if isinstance(spec["default"], list) else spec["default"]
            elif isinstance(field_type, StrType) and field_type.values:
                values[field_name] = field_type.values[0]
            else:
                values[field_name] = {"int": 0, "bool": False, "str": "", "list": ()}.get(_kind_name(field_type))
        return values

    def _read_token(self, token: str, text: str, results: dict, codes: dict, values: dict[str, Any], path: tuple) -> bool:
        """Sets what one token of the cell says (a code, a number, die faces); False (reported) when it says nothing."""
        code = next((c for c in (token, "+" + token, "/" + token) if c in codes), None)
        if code is not None:
            for field_name, value in (codes[code].get("set") or {}).items():
                values[field_name] = tuple(value) if isinstance(value, list) else value
            return True
        limits = self.builder.limits
        try:
            if "number" in results and re.fullmatch(r"-?[0-9]+", token):
                values[results["number"]] = limits.integer(token)
                return True
            rolls = parse_rolls(token, limits) if "rolls" in results else None
        except OverLimit as error:
            self.builder.error(self.doc, path, f"cell {_show(text)} of table '{self.table}': {error}")
            return False
        if rolls is not None:
            values[results["rolls"]] = rolls
            return True
        declared = _listing(codes) or "none"
        self.builder.error(
            self.doc, path, f"cell {_show(text)} of table '{self.table}': '{token[:40]}' is not a declared result code (codes: {declared})"
            + (", a number" if "number" in results else "") + (", or die faces such as 2,3,4" if "rolls" in results else ""))
        return False


def _positions(section: dict[str, Located]) -> Any:
    """Where each entry of a section is declared (its key), by name."""
    return frozen_mapping({name: pos_of(item.doc, item.path, at_key=True) for name, item in section.items()})


def _odds_hint(label: str) -> str:
    """What to write instead of a heading that is not odds among odds columns."""
    printed = _PRINTED_ODDS.fullmatch(label.strip())
    if printed:
        odds = f"{printed[1]}:{printed[2]}{printed[3]}"
        return f"did you mean {odds}? odds are written {odds}, or say `odds: true` on the columns to read printed {label.strip()!r} as odds"
    return "for odds below the first column say `below: RESULT` (or clamp, off_table) on the columns, or open the first column (\"1:2-\")"


def _listing(names, shown: int = 12) -> str:
    """Names for a message: the first few, and how many in all (a message never grows with the ruleset)."""
    names = list(names)
    listed = ", ".join(map(str, names[:shown]))
    return listed if len(names) <= shown else f"{listed}, ... ({len(names)} in all)"


def _show(text: str, width: int = 40) -> str:
    return repr(text if len(text) <= width else text[:width] + "...")


def _kind_name(t: Type) -> str:
    if isinstance(t, ListType):
        return "list"
    if isinstance(t, IntType):
        return "int"
    if t == BOOL:
        return "bool"
    return "str"


def _record_for_cell(table: str, text: str, values: dict[str, Any]) -> Record:
    return Record(f"cell of {table}", (("code", text),) + tuple(values.items()))


