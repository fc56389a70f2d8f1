"""Inputs declared once for every side, and inputs taken like another procedure's: sugar on the document.

A two-sided battle repeats each decision for both players (``attacker_orders``, ``defender_orders`` …),
and a procedure that hands a battle on to another repeats every input of it. Two YAML forms say it once:

- ``sides: [attacker, defender]`` at the top of the ruleset, and ``per_side:`` inside a procedure's
  ``inputs:`` or ``choices:``: each entry stands for one input (choice) per side, named ``SIDE_ENTRY``,
  with ``{side}`` (and, for two sides, ``{other}``) in its description and rule replaced by the side;
- ``inputs_like: PROCEDURE`` (or ``{procedure: P, except: [...]}``, or a list of these) on a procedure: it
  takes P's inputs and choices (after P's own expansion), its own entries overriding those of the same
  name; of a list, each procedure's in turn, an input two of them have coming from the first.

Both expand here, on the merged document before the builder reads it, into the flat inputs written out
by hand before: the model, the checker, the engine, situations, ``--set`` and examples see the same
names as before, and each expanded input keeps the position of the entry it came from. Expanding on the
document (not in the builder) lets a variant override a ``per_side`` entry like any other mapping.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from .errors import DiagnosticList
from .load_limits import DEFAULT_LOAD_LIMITS, LoadLimits
from .merge import Document, copy_tree, subtree_paths
from .yaml_loader import LoadedYaml

SECTIONS = ("inputs", "choices")  # where per_side may stand, and what inputs_like takes
PER_SIDE = "per_side"
_TEXT_KEYS = ("description", "rule")  # where {side} and {other} are replaced


def expand_sides(loaded: LoadedYaml, diagnostics: DiagnosticList, limits: LoadLimits = DEFAULT_LOAD_LIMITS) -> LoadedYaml:
    """``loaded`` with every ``per_side`` block and ``inputs_like`` expanded (itself when it uses neither).

    The values an expansion makes count with the file's own against ``limits.max_nodes``: sides times
    entries, or a chain of procedures each taking the last one's inputs and adding one, would otherwise
    grow a small file into millions of inputs."""
    procedures = loaded.data.get("procedures") if isinstance(loaded.data, dict) else None
    if not isinstance(procedures, dict) or not any(_uses_sugar(p) for p in procedures.values()):
        return loaded
    expansion = _Expansion(Document(loaded), diagnostics, limits.max_nodes - loaded.nodes)
    for name in procedures:
        for section in SECTIONS:
            expansion.per_side(name, section)
    for name in expansion.like_order():
        expansion.inputs_like(name)
    return expansion.doc.freeze()


def for_variant(base: LoadedYaml, variant: LoadedYaml, diagnostics: DiagnosticList) -> LoadedYaml:
    """``base`` ready for ``variant``: where the variant's ``override:`` or ``remove:`` names one side's input or
    choice (``attacker_target``) that the base declares under ``per_side``, that block of the base is expanded
    first, so the change reaches one side and the other keeps the base's value. A change to ``per_side``
    itself changes both sides; the rest is expanded after the merge (:func:`expand_sides`)."""
    procedures = base.data.get("procedures") if isinstance(base.data, dict) else None
    needed = [(name, section) for name, section, names in _variant_names(variant)
              if isinstance(procedures, dict) and _needs_one_side(procedures.get(name), section, names)]
    if not needed:
        return base
    expansion = _Expansion(Document(base), diagnostics, DEFAULT_LOAD_LIMITS.max_nodes - base.nodes)
    for name, section in dict.fromkeys(needed):
        expansion.per_side(name, section)
    return expansion.doc.freeze()


def _variant_names(variant: LoadedYaml) -> Iterator[tuple[str, str, list]]:
    """(procedure, inputs or choices, the names changed) for each procedure a variant overrides or removes parts of."""
    data = variant.data if isinstance(variant.data, dict) else {}
    for action in ("override", "remove"):
        changes = data.get(action)
        procedures = changes.get("procedures") if isinstance(changes, dict) else None
        for name, change in (procedures or {}).items() if isinstance(procedures, dict) else ():
            for section in SECTIONS:
                names = change.get(section) if isinstance(change, dict) else None
                if isinstance(names, (dict, list)):
                    yield name, section, list(names)


def _needs_one_side(procedure: Any, section: str, names: list) -> bool:
    entries = procedure.get(section) if isinstance(procedure, dict) else None
    return isinstance(entries, dict) and PER_SIDE in entries and any(isinstance(n, str) and n not in entries for n in names)


def _uses_sugar(procedure: Any) -> bool:
    if not isinstance(procedure, dict):
        return False
    return "inputs_like" in procedure or any(PER_SIDE in (procedure.get(s) or {}) for s in SECTIONS)


def _like_targets(procedure: dict) -> list[tuple[str, list]]:
    """The procedures named by ``inputs_like``, in order, each with the names it leaves out: one procedure (a name,
    or ``{procedure: P, except: [...]}``) or a list of them."""
    like = procedure["inputs_like"]
    return [(item, []) if isinstance(item, str) else (item["procedure"], list(item.get("except") or []))
            for item in (like if isinstance(like, list) else [like])]


class _Expansion:
    """One document's expansion: the document under change and where its errors go."""

    def __init__(self, doc: Document, diagnostics: DiagnosticList, room: int):
        self.doc = doc
        self.diagnostics = diagnostics
        self.room = room  # values the expansion may still make (see expand_sides)
        self.procedures: dict = doc.data["procedures"]
        self.sides: list[str] = list(doc.data.get("sides") or [])

    def error(self, path: tuple, message: str, *, at_key: bool = False) -> None:
        self.diagnostics.add(self.doc.freeze().diagnostic(path, message, at_key=at_key))

    def copy_marks(self, source: tuple, target: tuple) -> None:
        """The positions of the subtree at ``source`` given to ``target`` too (an expanded entry points at its origin)."""
        n = len(source)
        paths = list(subtree_paths(self.doc.data, source))
        self.room -= len(paths)
        if self.room < 0:
            self.diagnostics.add(self.doc.freeze().diagnostic(source, "too many values once per_side and inputs_like are "
                                                              "expanded: the limit is the file's (max_nodes)", at_key=True))
            self.diagnostics.raise_if_any()
        for path in paths:
            for marks in (self.doc.value_marks, self.doc.key_marks, self.doc.styles):
                if path in marks:
                    marks[target + path[n:]] = marks[path]

    # ---- per_side --------------------------------------------------------------------

    def per_side(self, name: str, section: str) -> None:
        base = ("procedures", name, section)
        entries = self.procedures[name].get(section)
        if not isinstance(entries, dict) or PER_SIDE not in entries:
            return
        if not self.sides:
            self.error(base + (PER_SIDE,), f"{section}: per_side needs the sides the ruleset has: add `sides: [attacker, defender]` "
                                           f"(your sides' names) at the top of the ruleset", at_key=True)
        expanded: dict = {}
        for key, value in entries.items():
            if key != PER_SIDE:
                expanded[key] = value
                continue
            for entry, spec in value.items():
                for side in self.sides:
                    flat = f"{side}_{entry}"
                    if flat in entries:
                        line = self.doc.freeze().key_mark(base + (PER_SIDE, entry)).line
                        self.error(base + (flat,), f"{section[:-1]} '{flat}' is also made by per_side entry '{entry}' (line {line}): "
                                                   f"keep one of them", at_key=True)
                        continue
                    expanded[flat] = self._for_side(spec, side)
                    self.copy_marks(base + (PER_SIDE, entry), base + (flat,))
        self.doc.drop(base + (PER_SIDE,))
        self.procedures[name][section] = expanded

    def _for_side(self, spec: Any, side: str) -> Any:
        copied = copy_tree(spec)
        if not isinstance(copied, dict):
            return copied
        others = [s for s in self.sides if s != side]
        for key in _TEXT_KEYS:
            text = copied.get(key)
            if isinstance(text, str):
                text = text.replace("{side}", side)
                copied[key] = text.replace("{other}", others[0]) if len(others) == 1 else text
        return copied

    # ---- inputs_like -----------------------------------------------------------------

    def like_order(self) -> list[str]:
        """The procedures with ``inputs_like``, each after every one it takes from; a cycle or an unknown name is reported.

        Depth first with a stack of its own (a chain of a thousand procedures each taking the last one's inputs must not
        exhaust Python's recursion); a procedure whose targets could not all be ordered is left out, as is every one
        taking from it."""
        order: list[str] = []
        done: set[str] = set()
        failed: set[str] = set()  # a cycle or an unknown name at or below it: left out
        for start in self.procedures:
            if start in done or start in failed or not self._has_like(start):
                continue
            stack = [(start, iter(self._targets(start)))]
            on_stack, spoilt = {start}, set()  # spoilt: on the stack, with a target that could not be ordered
            while stack:
                name, pending = stack[-1]
                target = next(pending, None)
                if target is None:
                    stack.pop()
                    on_stack.discard(name)
                    if name in spoilt:
                        failed.add(name)
                        if stack:
                            spoilt.add(stack[-1][0])
                    else:
                        done.add(name)
                        order.append(name)
                elif target not in self.procedures:
                    close = difflib.get_close_matches(target, list(self.procedures), n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    self.error(("procedures", name, "inputs_like"),
                               f"inputs_like names procedure '{target}', which this ruleset does not have{hint}")
                    spoilt.add(name)
                elif target in on_stack:
                    names = [n for n, _ in stack]
                    cycle = " -> ".join(names[names.index(target):] + [target])
                    self.error(("procedures", target, "inputs_like"), f"inputs_like forms a cycle: {cycle}")
                    spoilt.add(name)
                elif target in failed:
                    spoilt.add(name)
                elif target not in done and self._has_like(target):
                    stack.append((target, iter(self._targets(target))))
                    on_stack.add(target)
        return order

    def _targets(self, name: str) -> list[str]:
        return [target for target, _ in _like_targets(self.procedures[name])]

    def _has_like(self, name: str) -> bool:
        procedure = self.procedures.get(name)
        return isinstance(procedure, dict) and "inputs_like" in procedure

    def inputs_like(self, name: str) -> None:
        """Every procedure's inputs and choices ``name`` takes, in the order listed (an input two of them have comes from
        the first), its own entries replacing those of the same name in place and the rest after them."""
        procedure = self.procedures[name]
        like_path = ("procedures", name, "inputs_like")
        targets = _like_targets(procedure)
        for position, (target, left_out) in enumerate(targets):
            known = {n for s in SECTIONS for n in (self.procedures[target].get(s) or {})}
            item_path = like_path + ((position,) if isinstance(procedure["inputs_like"], list) else ())
            for index, excluded in enumerate(left_out):
                if excluded not in known:
                    close = difflib.get_close_matches(excluded, sorted(known), n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    self.error(item_path + ("except", index), f"except: procedure '{target}' has no input or choice '{excluded}'{hint}")
        for section in SECTIONS:
            own = procedure.get(section) or {}
            taken: dict = {}
            for target, left_out in targets:
                for key, value in (self.procedures[target].get(section) or {}).items():
                    if key in left_out or key in taken:
                        continue
                    if key in own:
                        taken[key] = own[key]
                        continue
                    taken[key] = copy_tree(value)
                    self.copy_marks(("procedures", target, section, key), ("procedures", name, section, key))
            taken.update((key, value) for key, value in own.items() if key not in taken)
            if taken:
                procedure[section] = taken
