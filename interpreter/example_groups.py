"""Examples grouped by procedure, turned into today's list as each file is read.

``examples:`` is either a list whose every entry names its ``procedure:``, or
a mapping from a procedure's name to the list of its examples (each without
``procedure:``; one that still says it must name its group's procedure).  The
grouped form saves a line an example; everything after reading a file (include,
variants and their ``override``/``remove`` by example name, the model,
``test``, ``diff``, the reporters) sees one list, so it is turned into that list
here, once, with every mark moved along: a failing example is still reported
at its own line.

Each example of a group gets ``procedure:`` with the group key's position and
the scalar style :data:`GROUP_KEY_STYLE`, so that the builder can refuse a key
naming no procedure at the key itself (an example written in the list form
keeps failing at ``test`` time, as before).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from .errors import Diagnostic
from .merge import subtree_paths
from .yaml_loader import LoadedYaml, Mark

# The style recorded for a ``procedure:`` value that was a group key: it travels with the
# example's marks through include, extends and remove (they move styles with marks).
GROUP_KEY_STYLE = "group key"

# Where a file may hold examples: a ruleset's or fragment's own, and a variant's add:.
EXAMPLE_SECTIONS = (("examples",), ("add", "examples"))

_Value = TypeVar("_Value")


def ungroup_examples(loaded: LoadedYaml) -> tuple[LoadedYaml, list[Diagnostic]]:
    """``loaded`` with every grouped ``examples:`` mapping turned into the list form, and the
    problems found (an example whose own ``procedure:`` names another procedure than its group).

    Call it on a file the schema has accepted: a group is a mapping of lists of mappings.
    A file without grouped examples is returned as it is.  Only what changes is copied (the
    sections holding examples, each example's top level, the marks): the rest of the data is
    shared with ``loaded``, which the caller drops.
    """
    grouped = [path for path in EXAMPLE_SECTIONS if isinstance(_at(loaded.data, path), dict)]
    if not grouped:
        return loaded, []
    data = dict(loaded.data)
    if ("add", "examples") in grouped:
        data["add"] = dict(data["add"])
    marks = _Marks(dict(loaded.value_marks), dict(loaded.key_marks), dict(loaded.styles))
    problems: list[Diagnostic] = []
    for path in grouped:
        parent = data if len(path) == 1 else data["add"]
        parent[path[-1]] = _ungroup(loaded, path, marks, problems)
    frozen = LoadedYaml(loaded.source, data, MappingProxyType(marks.value), MappingProxyType(marks.key),
                        MappingProxyType(marks.style), loaded.nodes)
    return frozen, problems


@dataclass(frozen=True)
class _Marks:
    """The marks of a file under change (value, key, scalar style), by path."""

    value: dict[tuple, Mark]
    key: dict[tuple, Mark]
    style: dict[tuple, str]

    def move(self, data: Any, old: tuple, new: tuple) -> None:
        """The marks of the subtree of ``data`` at ``old`` moved to ``new``."""
        for path in subtree_paths(data, old):
            moved = new + path[len(old):]
            _rename(self.value, path, moved)
            _rename(self.key, path, moved)
            _rename(self.style, path, moved)


def _rename(marks: dict[tuple, _Value], path: tuple, moved: tuple) -> None:
    if path in marks:
        marks[moved] = marks.pop(path)


def _ungroup(loaded: LoadedYaml, path: tuple, marks: _Marks, problems: list[Diagnostic]) -> list[dict]:
    """The examples of the mapping at ``path`` of ``loaded``, as one list in order, their marks moved in ``marks``."""
    examples: list[dict] = []
    for procedure, items in _at(loaded.data, path).items():
        group = path + (procedure,)
        group_mark = loaded.key_mark(group)
        for index, example in enumerate(items):
            written = example.get("procedure")
            if written is not None and written != procedure:
                problems.append(loaded.diagnostic(
                    group + (index, "procedure"),
                    f"example '{example.get('name')}' is listed under procedure '{procedure}' but says procedure: {written}; "
                    f"move it under {written}: or drop its procedure: line",
                    at_key=True,
                ))
            new = path + (len(examples),)  # an integer where the old path has a name: no path is both
            marks.move(loaded.data, group + (index,), new)
            if "procedure" not in example:
                # the group key's name, at the key's position: the example reads as its list form would
                example = {"name": example["name"], "procedure": procedure, **example}
                marks.value[new + ("procedure",)] = marks.key[new + ("procedure",)] = group_mark
                marks.style[new + ("procedure",)] = GROUP_KEY_STYLE
            examples.append(example)
        for kind in (marks.value, marks.key, marks.style):
            kind.pop(group, None)
    return examples


def unknown_group_keys(documents: Iterable[LoadedYaml], procedures: Collection[str], at_most: int) -> list[Diagnostic]:
    """A group key of ``examples:`` names a procedure of the ruleset: each that does not, at the key, once.

    Checked by the builder on the assembled ruleset (the procedure may come from an include or the
    base).  An example written in the list form keeps failing at ``test`` time, as it always did.
    At most ``at_most`` problems (the load limits' ``max_diagnostics``): a file of 3,000 such keys
    is told its first ones, not 400 KB of messages.
    """
    problems: list[Diagnostic] = []
    reported: set[tuple[str, int, int]] = set()
    for doc in documents:
        examples = doc.data.get("examples") if isinstance(doc.data, dict) else None
        for index, example in enumerate(examples if isinstance(examples, list) else ()):
            path = ("examples", index, "procedure")
            if doc.styles.get(path) != GROUP_KEY_STYLE or example["procedure"] in procedures:
                continue
            mark = doc.mark(path)
            where = (doc.source_of(mark).name, mark.line, mark.column)
            if where in reported:
                continue
            if len(problems) >= at_most:
                return problems  # one message a group key, not one an example under it
            reported.add(where)
            close = difflib.get_close_matches(example["procedure"], list(procedures), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            problems.append(doc.diagnostic(path, f"examples: no procedure '{example['procedure']}' in this ruleset{hint}; "
                                                 "a key of examples: names the procedure its examples run"))
    return problems


def example_count(section: Any) -> int:
    """How many examples an ``examples:`` section holds, in either form."""
    if isinstance(section, dict):
        return sum(len(items) for items in section.values() if isinstance(items, list))
    return len(section or ())


def _at(data: Any, path: tuple) -> Any:
    """The value at ``path`` of ``data``, or None."""
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data
