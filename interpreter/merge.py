"""Assembling one ruleset document from several files, keeping every position.

Two ways a ruleset spans files:

- ``include:`` adds the sections of fragment files (no name may repeat);
- ``extends:`` makes a *variant*: it starts from a base ruleset (chains
  allowed, cycles rejected) and changes it by name, never by list position:

      override:   change existing elements (every named key must exist)
      add:        new elements (no named key may exist yet)
      remove:     delete elements by name

Every mark of the result remembers the file it came from, so errors and
provenance (``--provenance``) point at the line that set a value.
"""

from __future__ import annotations

import copy
import difflib
from typing import Any

from .errors import DiagnosticList, Source
from .yaml_loader import LoadedYaml, Mark

SECTIONS = ("constants", "types", "tables", "modifiers", "procedures")
VARIANT_KEYS = ("override", "add", "remove")


def _with_source(marks, source: Source) -> dict:
    return {path: Mark(m.line, m.column, m.source or source) for path, m in marks.items()}


class Document:
    """A mutable document under assembly: data plus marks with sources."""

    def __init__(self, loaded: LoadedYaml):
        self.source = loaded.source
        self.data = copy.deepcopy(loaded.data)
        self.value_marks = _with_source(loaded.value_marks, loaded.source)
        self.key_marks = _with_source(loaded.key_marks, loaded.source)
        self.styles = dict(loaded.styles)

    def freeze(self) -> LoadedYaml:
        return LoadedYaml(self.source, self.data, self.value_marks, self.key_marks, self.styles)

    def drop(self, prefix: tuple) -> None:
        """Forget the marks of a subtree about to be replaced or removed."""
        n = len(prefix)
        for marks in (self.value_marks, self.key_marks, self.styles):
            for path in [p for p in marks if p[:n] == prefix]:
                del marks[path]

    def graft(self, other: LoadedYaml, source_prefix: tuple, target_prefix: tuple, *, with_key: bool = True) -> None:
        """Copy the marks of ``other``'s subtree at ``source_prefix`` to ``target_prefix``."""
        n = len(source_prefix)
        for own, theirs in ((self.value_marks, other.value_marks), (self.key_marks, other.key_marks), (self.styles, other.styles)):
            for path, value in theirs.items():
                if path[:n] == source_prefix and (with_key or path != source_prefix or own is self.value_marks):
                    if isinstance(value, Mark) and value.source is None:
                        value = Mark(value.line, value.column, other.source)
                    own[target_prefix + path[n:]] = value


def include_fragments(main: LoadedYaml, fragments: list[LoadedYaml], diagnostics: DiagnosticList) -> LoadedYaml:
    """Sections of included files merged into the main file (no repeated names)."""
    if not fragments:
        return main
    document = Document(main)
    for fragment in fragments:
        for section, entries in fragment.data.items():
            if section == "notes" or section == "examples":
                base = document.data.setdefault(section, [])
                offset = len(base)
                base.extend(copy.deepcopy(entries))
                for index in range(len(entries)):
                    document.graft(fragment, (section, index), (section, offset + index))
                continue
            if section not in SECTIONS:
                continue
            target = document.data.setdefault(section, {})
            for name, value in entries.items():
                if name in target:
                    first = document.key_marks.get((section, name))
                    where = f" (first at {first.source.name}:{first.line})" if first is not None and first.source is not None else ""
                    diagnostics.add(fragment.diagnostic((section, name), f"{section[:-1]} '{name}' is defined twice{where}", at_key=True))
                    continue
                target[name] = copy.deepcopy(value)
                document.graft(fragment, (section, name), (section, name))
    return document.freeze()


# ---- variants ------------------------------------------------------------------


def _named_level(path: tuple) -> str | None:
    """What the keys of the mapping at ``path`` name, where they must exist to be overridden."""
    if len(path) == 1 and path[0] in SECTIONS:
        return path[0][:-1]
    if len(path) == 3 and path[0] == "tables" and path[2] == "cells":
        return "row"
    if len(path) == 3 and path[0] == "modifiers" and path[2] == "entries":
        return "modifier entry"
    if len(path) == 3 and path[0] == "procedures" and path[2] in ("inputs", "choices"):
        return path[2][:-1]
    if len(path) == 3 and path[0] == "types" and path[2] == "fields":
        return "field"
    return None


class VariantMerger:
    def __init__(self, base: LoadedYaml, variant: LoadedYaml, base_name: str, diagnostics: DiagnosticList):
        self.document = Document(base)
        self.document.source = variant.source
        self.variant = variant
        self.base_name = base_name
        self.diagnostics = diagnostics

    def error(self, path: tuple, message: str, *, at_key: bool = True) -> None:
        self.diagnostics.add(self.variant.diagnostic(path, message, at_key=at_key))

    def merge(self) -> LoadedYaml:
        data = self.variant.data
        document = self.document
        for key in ("name", "title", "source", "version", "description"):
            if key in data:
                document.drop((key,))
                document.data[key] = data[key]
                document.graft(self.variant, (key,), (key,))
        for section in SECTIONS:
            if section in data:
                self.error((section,), f"a variant changes its base under override:, add: or remove:; move '{section}' under one of them")
        if "include" in data:
            self.error(("include",), "a variant cannot include files; put its changes under override:, add: or remove:")
        for key in ("notes", "examples"):
            if key in data:  # a variant's own notes and examples come after the base's
                self._append(key, (key,))
        if "override" in data:
            self._override(data["override"], ("override",))
        if "add" in data:
            self._add(data["add"], ("add",))
        if "remove" in data:
            self._remove(data["remove"], ("remove",), document.data, ())
        for key in ("extends", "override", "add", "remove"):
            document.data.pop(key, None)
            document.drop((key,))
        return document.freeze()

    def _append(self, key: str, variant_path: tuple) -> None:
        items = _get(self.variant.data, variant_path)
        base = self.document.data.setdefault(key, [])
        if key == "examples":
            taken = {e.get("name") for e in base if isinstance(e, dict)}
            for index, item in enumerate(items):
                if isinstance(item, dict) and item.get("name") in taken:
                    self.error(variant_path + (index, "name"), f"example '{item['name']}' is already in {self.base_name}; change it under override: examples:", at_key=False)
        offset = len(base)
        base.extend(copy.deepcopy(items))
        for index in range(len(items)):
            self.document.graft(self.variant, variant_path + (index,), (key, offset + index))

    # -- override
    def _override(self, changes: Any, variant_path: tuple) -> None:
        if not isinstance(changes, dict):
            self.error(variant_path, "override: is a mapping of sections (constants, tables, modifiers, procedures, types, examples)", at_key=False)
            return
        for section, entries in changes.items():
            if section == "examples":
                self._override_examples(entries, variant_path + (section,))
            elif section not in SECTIONS:
                self.error(variant_path + (section,), f"override: has no section '{section}' (sections: {', '.join(SECTIONS + ('examples',))})")
            else:
                self._merge_mapping(self.document.data.setdefault(section, {}), entries, (section,), variant_path + (section,))

    def _merge_mapping(self, base: Any, changes: Any, path: tuple, variant_path: tuple) -> None:
        if not isinstance(changes, dict) or not isinstance(base, dict):
            self._replace(path, variant_path)
            return
        named = _named_level(path)
        for key, value in changes.items():
            target, source = path + (key,), variant_path + (key,)
            if key not in base:
                if named is not None:
                    close = difflib.get_close_matches(str(key), [str(k) for k in base], n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    where = f" of {'/'.join(map(str, path))}" if len(path) > 1 else ""
                    self.error(source, f"override targets nothing: no {named} '{key}'{where} in {self.base_name}{hint}; new elements go under add:")
                    continue
                base[key] = copy.deepcopy(value)
                self.document.graft(self.variant, source, target)
            elif isinstance(base[key], dict) and isinstance(value, dict):
                self._merge_mapping(base[key], value, target, source)
            elif named == "row" and isinstance(base[key], list) and isinstance(value, dict):
                self._override_cells(base[key], value, target, source)
            else:
                self._replace(target, source)

    def _override_cells(self, row: list, cells: dict, path: tuple, variant_path: tuple) -> None:
        """A row given as {column heading: cell} changes just those cells."""
        table = self.document.data["tables"][path[1]]
        entries = [str(e["label"]) if isinstance(e, dict) else str(e) for e in (table.get("columns") or {}).get("entries", [])]
        for label, value in cells.items():
            if str(label) not in entries:
                self.error(variant_path + (label,), f"override targets nothing: table {path[1]} has no column '{label}' (columns: {', '.join(entries)})")
                continue
            index = entries.index(str(label))
            if index >= len(row):
                continue
            row[index] = copy.deepcopy(value)
            self.document.drop(path + (index,))
            self.document.graft(self.variant, variant_path + (label,), path + (index,), with_key=False)

    def _replace(self, path: tuple, variant_path: tuple) -> None:
        parent = _get(self.document.data, path[:-1])
        parent[path[-1]] = copy.deepcopy(_get(self.variant.data, variant_path))
        self.document.drop(path)
        self.document.graft(self.variant, variant_path, path)

    def _override_examples(self, items: Any, variant_path: tuple) -> None:
        base = self.document.data.get("examples") or []
        if not isinstance(items, list):
            self.error(variant_path, "override: examples: is a list of examples, each with the name it changes", at_key=False)
            return
        for index, item in enumerate(items):
            name = item.get("name") if isinstance(item, dict) else None
            position = next((i for i, e in enumerate(base) if isinstance(e, dict) and e.get("name") == name), None)
            if position is None:
                names = [e.get("name") for e in base if isinstance(e, dict)]
                close = difflib.get_close_matches(str(name), [str(n) for n in names], n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self.error(variant_path + (index,), f"override targets nothing: no example '{name}' in {self.base_name}{hint}", at_key=False)
                continue
            self._merge_mapping(base[position], item, ("examples", position), variant_path + (index,))

    # -- add
    def _add(self, additions: Any, variant_path: tuple) -> None:
        if not isinstance(additions, dict):
            self.error(variant_path, "add: is a mapping of sections (constants, tables, modifiers, procedures, types, notes, examples)", at_key=False)
            return
        for section, entries in additions.items():
            if section in ("examples", "notes"):
                self._append(section, variant_path + (section,))
                continue
            if section not in SECTIONS:
                self.error(variant_path + (section,), f"add: has no section '{section}'")
                continue
            if not isinstance(entries, dict):
                continue  # the schema reports the shape
            self._add_into(self.document.data.setdefault(section, {}), entries, (section,), variant_path + (section,))

    def _add_into(self, target: dict, additions: dict, path: tuple, variant_path: tuple) -> None:
        """New named elements at ``path``; inside an existing element, only into its named parts.

        ``add: {modifiers: {drms: {entries: {night: ...}}}}`` adds an entry to
        an existing list; ``add: {tables: {t: {cells: {"7": ...}}}}`` a row.
        """
        kind = _named_level(path) or "element"
        for name, value in additions.items():
            here, source = path + (name,), variant_path + (name,)
            if name not in target:
                target[name] = copy.deepcopy(value)
                self.document.graft(self.variant, source, here)
                continue
            parts = [key for key in value] if isinstance(value, dict) else []
            inner = [key for key in parts if _named_level(here + (key,)) is not None]
            if not parts or len(inner) != len(parts) or not isinstance(target[name], dict):
                self.error(source, f"{kind} '{name}' is already in {self.base_name}; change it under override:")
                continue
            for key in inner:
                if not isinstance(value[key], dict):
                    self.error(source + (key,), f"add: {key} of '{name}' is a mapping of new {_named_level(here + (key,))}s")
                    continue
                self._add_into(target[name].setdefault(key, {}), value[key], here + (key,), source + (key,))

    # -- remove
    def _remove(self, removals: Any, variant_path: tuple, base: Any, path: tuple) -> None:
        if isinstance(removals, list):
            for index, name in enumerate(removals):
                source = variant_path + (index,)
                if path == ("examples",):
                    position = next((i for i, e in enumerate(base) if isinstance(e, dict) and e.get("name") == name), None)
                    if position is None:
                        self.error(source, f"remove targets nothing: no example '{name}' in {self.base_name}", at_key=False)
                        continue
                    del base[position]
                    self._renumber_examples(position)
                    continue
                if not isinstance(base, dict) or name not in base:
                    candidates = [str(k) for k in base] if isinstance(base, dict) else []
                    close = difflib.get_close_matches(str(name), candidates, n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    self.error(source, f"remove targets nothing: no '{name}' under {'/'.join(map(str, path)) or 'the ruleset'} in {self.base_name}{hint}", at_key=False)
                    continue
                del base[name]
                self.document.drop(path + (name,))
            return
        if not isinstance(removals, dict):
            self.error(variant_path, "remove: lists names to remove, nested like the ruleset (e.g. modifiers: {drms: {entries: [air_level]}})", at_key=False)
            return
        for key, value in removals.items():
            if path == () and key not in SECTIONS + ("examples",):
                self.error(variant_path + (key,), f"remove: has no section '{key}'")
                continue
            child = base.get(key) if isinstance(base, dict) else None
            if child is None:
                self.error(variant_path + (key,), f"remove targets nothing: no '{key}' under {'/'.join(map(str, path)) or 'the ruleset'} in {self.base_name}")
                continue
            self._remove(value, variant_path + (key,), child, path + (key,))

    def _renumber_examples(self, removed: int) -> None:
        document = self.document
        document.drop(("examples", removed))
        for marks in (document.value_marks, document.key_marks, document.styles):
            moved = {}
            for p in [p for p in marks if len(p) >= 2 and p[0] == "examples" and isinstance(p[1], int) and p[1] > removed]:
                moved[("examples", p[1] - 1) + p[2:]] = marks.pop(p)
            marks.update(moved)


def apply_variant(base: LoadedYaml, variant: LoadedYaml, base_name: str, diagnostics: DiagnosticList) -> LoadedYaml:
    return VariantMerger(base, variant, base_name, diagnostics).merge()


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data
