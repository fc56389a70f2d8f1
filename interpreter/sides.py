"""Inputs declared once for every side, and inputs taken like another procedure's: sugar on the document.

A two-sided battle repeats each decision for both players (``attacker_orders``, ``defender_orders`` …),
and a procedure that hands a battle on to another repeats every input of it. Two YAML forms say it once:

- ``sides: [attacker, defender]`` at the top of the ruleset, and ``per_side:`` inside a procedure's
  ``inputs:`` or ``choices:``: each entry stands for one input (choice) per side, named ``SIDE_ENTRY``,
  with ``{side}`` (and, for two sides, ``{other}``) in its description and rule replaced by the side;
- ``inputs_like: PROCEDURE`` (or ``{procedure: P, except: [...]}``) on a procedure: it takes P's
  inputs and choices (after P's own expansion), its own entries overriding those of the same name.

Both expand here, on the merged document before the builder reads it, into the flat inputs written out
by hand before: the model, the checker, the engine, situations, ``--set`` and examples see the same
names as before, and each expanded input keeps the position of the entry it came from. Expanding on the
document (not in the builder) lets a variant override a ``per_side`` entry like any other mapping.
"""

from __future__ import annotations

import difflib
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


def one_side_named(doc: Document, path: tuple, names: Any, diagnostics: DiagnosticList) -> dict | None:
    """For a variant that names one side's input (``attacker_orders``) where the base declares it under
    ``per_side``: the base's block at ``path`` (procedures/P/inputs or choices) expanded in place first,
    and the new mapping; None, changing nothing, when no name needs it. A change to ``per_side`` itself
    changes both sides."""
    if len(path) != 3 or path[0] != "procedures" or path[2] not in SECTIONS:
        return None
    entries = _get_mapping(doc.data, path)
    if entries is None or PER_SIDE not in entries or all(not isinstance(n, str) or n in entries for n in names):
        return None
    expansion = _Expansion(doc, diagnostics, DEFAULT_LOAD_LIMITS.max_nodes)
    expansion.per_side(path[1], path[2])
    return _get_mapping(doc.data, path)


def _get_mapping(data: Any, path: tuple) -> dict | None:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else None


def _uses_sugar(procedure: Any) -> bool:
    if not isinstance(procedure, dict):
        return False
    return "inputs_like" in procedure or any(PER_SIDE in (procedure.get(s) or {}) for s in SECTIONS)


def _like_target(procedure: dict) -> tuple[str, list]:
    """The procedure named by ``inputs_like`` and the names it leaves out."""
    like = procedure["inputs_like"]
    if isinstance(like, str):
        return like, []
    return like["procedure"], list(like.get("except") or [])


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
        """The procedures with ``inputs_like``, each after the one it takes from; a cycle or an unknown name is reported."""
        order: list[str] = []
        done: set[str] = set()
        for start in self.procedures:
            chain: list[str] = []
            name = start
            while name not in done and isinstance(self.procedures.get(name), dict) and "inputs_like" in self.procedures[name]:
                if name in chain:
                    cycle = " -> ".join(chain[chain.index(name):] + [name])
                    self.error(("procedures", name, "inputs_like"), f"inputs_like forms a cycle: {cycle}")
                    done.update(chain)
                    chain = []
                    break
                chain.append(name)
                target, _ = _like_target(self.procedures[name])
                if target not in self.procedures:
                    close = difflib.get_close_matches(target, list(self.procedures), n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    self.error(("procedures", name, "inputs_like"), f"inputs_like names procedure '{target}', which this ruleset does not have{hint}")
                    done.update(chain)
                    chain = []
                    break
                name = target
            for item in reversed(chain):
                done.add(item)
                order.append(item)
        return order

    def inputs_like(self, name: str) -> None:
        procedure = self.procedures[name]
        target, left_out = _like_target(procedure)
        like_path = ("procedures", name, "inputs_like")
        known = {n for s in SECTIONS for n in (self.procedures[target].get(s) or {})}
        for index, excluded in enumerate(left_out):
            if excluded not in known:
                close = difflib.get_close_matches(excluded, sorted(known), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self.error(like_path + ("except", index), f"except: procedure '{target}' has no input or choice '{excluded}'{hint}")
        for section in SECTIONS:
            own = procedure.get(section) or {}
            taken: dict = {}
            for key, value in (self.procedures[target].get(section) or {}).items():
                if key in left_out:
                    continue
                if key in own:
                    taken[key] = own[key]
                    continue
                taken[key] = copy_tree(value)
                self.copy_marks(("procedures", target, section, key), ("procedures", name, section, key))
            taken.update((key, value) for key, value in own.items() if key not in taken)
            if taken:
                procedure[section] = taken
