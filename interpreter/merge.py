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

Nothing here recurses on the depth of a ruleset (copies, mark moves and the
merges themselves use explicit stacks), and each change costs the size of
the part it changes, never the size of the whole document.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from .errors import DiagnosticList, Source
from .yaml_loader import LoadedYaml, Mark

SECTIONS = ("constants", "types", "tables", "modifiers", "functions", "procedures")


def _with_source(marks, source: Source) -> dict:
    return {path: Mark(m.line, m.column, m.source or source) for path, m in marks.items()}


def copy_tree(data: Any) -> Any:
    """A deep copy of plain YAML data (dicts, lists, scalars), without recursion."""
    if not isinstance(data, (dict, list)):
        return data
    root: dict | list = {} if isinstance(data, dict) else []
    stack: list[tuple[Any, dict | list]] = [(data, root)]
    while stack:
        original, copied = stack.pop()
        items = original.items() if isinstance(original, dict) else enumerate(original)
        for key, value in items:
            if isinstance(value, (dict, list)):
                child: dict | list = {} if isinstance(value, dict) else []
                stack.append((value, child))
                value = child
            if isinstance(copied, dict):
                copied[key] = value
            else:
                copied.append(value)
    return root


def subtree_paths(data: Any, prefix: tuple) -> Iterator[tuple]:
    """``prefix`` and the path of every value under it in ``data``, without recursion (nothing if ``data`` lacks it)."""
    try:
        stack = [(_get(data, prefix), prefix)]
    except (KeyError, IndexError, TypeError):
        return
    while stack:
        node, path = stack.pop()
        yield path
        if isinstance(node, dict):
            stack.extend((value, path + (key,)) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, path + (index,)) for index, value in enumerate(node))


class Document:
    """A mutable document under assembly: data plus marks with sources.

    Every mark's path is a path of ``data``: a subtree's marks are found by
    walking the subtree, so replacing a cell costs a cell, not the document.
    """

    def __init__(self, loaded: LoadedYaml):
        self.source = loaded.source
        self.data = copy_tree(loaded.data)
        self.value_marks = _with_source(loaded.value_marks, loaded.source)
        self.key_marks = _with_source(loaded.key_marks, loaded.source)
        self.styles = dict(loaded.styles)

    def freeze(self) -> LoadedYaml:
        return LoadedYaml(self.source, self.data, self.value_marks, self.key_marks, self.styles)

    def drop(self, prefix: tuple) -> None:
        """Forget the marks of the subtree at ``prefix``; call it while the subtree is still in ``data``."""
        for path in subtree_paths(self.data, prefix):
            self.value_marks.pop(path, None)
            self.key_marks.pop(path, None)
            self.styles.pop(path, None)

    def move(self, old_prefix: tuple, new_prefix: tuple) -> None:
        """Move the marks of the subtree at ``old_prefix`` (still in ``data``) to ``new_prefix``."""
        n = len(old_prefix)
        for path in list(subtree_paths(self.data, old_prefix)):
            for marks in (self.value_marks, self.key_marks, self.styles):
                if path in marks:
                    marks[new_prefix + path[n:]] = marks.pop(path)

    def graft(self, other: LoadedYaml, source_prefix: tuple, target_prefix: tuple, *, with_key: bool = True) -> None:
        """Copy the marks of ``other``'s subtree at ``source_prefix`` to ``target_prefix``."""
        n = len(source_prefix)
        for path in subtree_paths(other.data, source_prefix):
            target = target_prefix + path[n:]
            for own, theirs in ((self.value_marks, other.value_marks), (self.key_marks, other.key_marks), (self.styles, other.styles)):
                value = theirs.get(path)
                if value is None or not (with_key or path != source_prefix or own is self.value_marks):
                    continue
                if isinstance(value, Mark) and value.source is None:
                    value = Mark(value.line, value.column, other.source)
                own[target] = value


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
                base.extend(copy_tree(entries))
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
                target[name] = copy_tree(value)
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


# "did you mean" compares a mistaken name with at most this many names, for
# at most this many mistakes of one variant: a hint must not cost seconds.
MAX_HINT_CANDIDATES = 1_000
MAX_HINTS = 100


class VariantMerger:
    def __init__(self, base: LoadedYaml, variant: LoadedYaml, base_name: str, diagnostics: DiagnosticList):
        self.document = Document(base)
        self.document.source = variant.source
        self.variant = variant
        self.base_name = base_name
        self.diagnostics = diagnostics
        self.hints_left = MAX_HINTS

    def error(self, path: tuple, message: str, *, at_key: bool = True) -> None:
        self.diagnostics.add(self.variant.diagnostic(path, message, at_key=at_key))

    def did_you_mean(self, name: Any, candidates) -> str:
        candidates = [str(c) for c in candidates] if len(candidates) <= MAX_HINT_CANDIDATES else []
        if not candidates or self.hints_left <= 0:
            return ""
        self.hints_left -= 1
        close = difflib.get_close_matches(str(name), candidates, n=1)
        return f" (did you mean '{close[0]}'?)" if close else ""

    def merge(self) -> LoadedYaml:
        data = self.variant.data
        document = self.document
        for key in ("name", "title", "source", "version", "description"):
            if key in data:
                if key in document.data:
                    document.drop((key,))
                document.data[key] = data[key]
                document.graft(self.variant, (key,), (key,))
        for section in SECTIONS:
            if section in data:
                self.error((section,), f"a variant changes its base under override:, add: or remove:; move '{section}' under one of them")
        if "include" in data:
            self.error(("include",), "a variant cannot include files; put its changes under override:, add: or remove:")
        for key in ("notes", "examples", "aids"):
            if key in data:  # a variant's own notes, examples and player-aid heat maps come after the base's
                self._append(key, (key,))
        if "override" in data:
            self._override(data["override"], ("override",))
        if "add" in data:
            self._add(data["add"], ("add",))
        if "remove" in data:
            self._remove(data["remove"], ("remove",))
        for key in ("extends", "override", "add", "remove"):
            if key in document.data:
                document.drop((key,))
                del document.data[key]
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
        base.extend(copy_tree(items))
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
        """Apply ``changes`` to ``base`` (at ``path``) key by key, nested mappings included; an explicit stack, no recursion."""
        work = [(base, changes, path, variant_path)]
        while work:
            base, changes, path, variant_path = work.pop()
            if not isinstance(changes, dict) or not isinstance(base, dict):
                self._replace(path, variant_path)
                continue
            named = _named_level(path)
            base = self._one_side(path, changes, base)
            for key, value in changes.items():
                target, source = path + (key,), variant_path + (key,)
                if key not in base:
                    if named is not None:
                        hint = self.did_you_mean(key, base)
                        where = f" of {'/'.join(map(str, path))}" if len(path) > 1 else ""
                        self.error(source, f"override targets nothing: no {named} '{key}'{where} in {self.base_name}{hint}; new elements go under add:")
                        continue
                    base[key] = copy_tree(value)
                    self.document.graft(self.variant, source, target)
                elif isinstance(base[key], dict) and isinstance(value, dict):
                    work.append((base[key], value, target, source))
                elif named == "row" and isinstance(base[key], list) and isinstance(value, dict):
                    self._override_cells(base[key], value, target, source)
                else:
                    self._replace(target, source)

    def _override_cells(self, row: list, cells: dict, path: tuple, variant_path: tuple) -> None:
        """A row given as {column heading: cell} changes just those cells."""
        table = self.document.data["tables"][path[1]]
        entries = [str(e["label"]) if isinstance(e, dict) else str(e) for e in (table.get("columns") or {}).get("entries", [])]
        column_of: dict[str, int] = {}
        for position, label in enumerate(entries):
            column_of.setdefault(label, position)
        for label, value in cells.items():
            index = column_of.get(str(label))
            if index is None:
                self.error(variant_path + (label,), f"override targets nothing: table {path[1]} has no column '{label}' (columns: {_listing(entries)})")
                continue
            if index >= len(row):
                continue
            self.document.drop(path + (index,))
            row[index] = copy_tree(value)
            self.document.graft(self.variant, variant_path + (label,), path + (index,), with_key=False)

    def _replace(self, path: tuple, variant_path: tuple) -> None:
        parent = _get(self.document.data, path[:-1])
        self.document.drop(path)
        parent[path[-1]] = copy_tree(_get(self.variant.data, variant_path))
        self.document.graft(self.variant, variant_path, path)

    def _override_examples(self, items: Any, variant_path: tuple) -> None:
        """Examples changed by name: keyed by it like every other section, or (the older form) a list naming each."""
        base = self.document.data.get("examples") or []
        if isinstance(items, dict):
            named = [(name, change, variant_path + (name,), True) for name, change in items.items()]
        elif isinstance(items, list):
            named = [(item.get("name") if isinstance(item, dict) else None, item, variant_path + (index,), False)
                     for index, item in enumerate(items)]
        else:
            self.error(variant_path, "override: examples: maps each example's name to its changes", at_key=False)
            return
        position_of = _example_positions(base)
        for name, change, path, keyed in named:
            position = position_of.get(name)
            if position is None:
                hint = self.did_you_mean(name, list(position_of))
                self.error(path, f"override targets nothing: no example '{name}' in {self.base_name}{hint}", at_key=keyed)
                continue
            self._merge_mapping(base[position], change, ("examples", position), path)

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
        An explicit stack, no recursion.
        """
        work = [(target, additions, path, variant_path)]
        while work:
            target, additions, path, variant_path = work.pop()
            kind = _named_level(path) or "element"
            for name, value in additions.items():
                here, source = path + (name,), variant_path + (name,)
                if name not in target:
                    target[name] = copy_tree(value)
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
                    work.append((target[name].setdefault(key, {}), value[key], here + (key,), source + (key,)))

    # -- remove
    def _remove(self, removals: Any, variant_path: tuple) -> None:
        """Delete what ``remove:`` names: nested mappings lead to lists of names.  An explicit stack, no recursion."""
        work: list[tuple[Any, tuple, Any, tuple]] = [(removals, variant_path, self.document.data, ())]
        while work:
            removals, variant_path, base, path = work.pop()
            if isinstance(removals, list):
                if path == ("examples",):
                    self._remove_examples(removals, variant_path, base)
                else:
                    self._remove_names(removals, variant_path, base, path)
                continue
            if not isinstance(removals, dict):
                self.error(variant_path, "remove: lists names to remove, nested like the ruleset (e.g. modifiers: {drms: {entries: [air_level]}})", at_key=False)
                continue
            for key, value in removals.items():
                if path == () and key not in SECTIONS + ("examples",):
                    self.error(variant_path + (key,), f"remove: has no section '{key}'")
                    continue
                child = base.get(key) if isinstance(base, dict) else None
                if child is None:
                    self.error(variant_path + (key,), f"remove targets nothing: no '{key}' under {'/'.join(map(str, path)) or 'the ruleset'} in {self.base_name}")
                    continue
                work.append((value, variant_path + (key,), child, path + (key,)))

    def _one_side(self, path: tuple, names: Any, base: Any) -> Any:
        """``base``, or the base's per_side block expanded first when a name is one side's input of it (sides.py)."""
        from .sides import one_side_named

        expanded = one_side_named(self.document, path, names, self.diagnostics)
        return base if expanded is None else expanded

    def _remove_names(self, names: list, variant_path: tuple, base: Any, path: tuple) -> None:
        base = self._one_side(path, names, base)
        for index, name in enumerate(names):
            if not isinstance(base, dict) or name not in base:
                hint = self.did_you_mean(name, list(base) if isinstance(base, dict) else [])
                self.error(variant_path + (index,), f"remove targets nothing: no '{name}' under {'/'.join(map(str, path)) or 'the ruleset'} in {self.base_name}{hint}", at_key=False)
                continue
            self.document.drop(path + (name,))
            del base[name]

    def _remove_examples(self, names: list, variant_path: tuple, examples: list) -> None:
        """Remove examples by name, all at once: their marks dropped, the later ones' marks moved down once."""
        position_of = _example_positions(examples)
        removed: set[int] = set()
        for index, name in enumerate(names):
            position = position_of.get(name) if isinstance(name, str) else None
            if position is None or position in removed:
                self.error(variant_path + (index,), f"remove targets nothing: no example '{name}' in {self.base_name}", at_key=False)
                continue
            removed.add(position)
        if not removed:
            return
        for position in removed:
            self.document.drop(("examples", position))
        kept: list[Any] = []
        for position, example in enumerate(examples):  # in order: each moves down into a place already emptied
            if position in removed:
                continue
            if len(kept) != position:
                self.document.move(("examples", position), ("examples", len(kept)))
            kept.append(example)
        examples[:] = kept


def _example_positions(examples: list) -> dict:
    """Each example name's first position in the list."""
    positions: dict = {}
    for position, example in enumerate(examples):
        if isinstance(example, dict):
            positions.setdefault(example.get("name"), position)
    return positions


def _listing(names: list, shown: int = 12) -> str:
    """Names for a message: the first few, and how many in all."""
    listed = ", ".join(map(str, names[:shown]))
    return listed if len(names) <= shown else f"{listed}, ... ({len(names)} in all)"


def apply_variant(base: LoadedYaml, variant: LoadedYaml, base_name: str, diagnostics: DiagnosticList) -> LoadedYaml:
    return VariantMerger(base, variant, base_name, diagnostics).merge()


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data
