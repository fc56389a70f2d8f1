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
from typing import Any

from .errors import Diagnostic
from .merge import Document
from .yaml_loader import LoadedYaml

# The style recorded for a ``procedure:`` value that was a group key: it travels with the
# example's marks through include, extends and remove (they move styles with marks).
GROUP_KEY_STYLE = "group key"

# Where a file may hold examples: a ruleset's or fragment's own, and a variant's add:.
EXAMPLE_SECTIONS = (("examples",), ("add", "examples"))


def ungroup_examples(loaded: LoadedYaml) -> tuple[LoadedYaml, list[Diagnostic]]:
    """``loaded`` with every grouped ``examples:`` mapping turned into the list form, and the
    problems found (an example whose own ``procedure:`` names another procedure than its group).

    Call it on a file the schema has accepted: a group is a mapping of lists of mappings.
    A file without grouped examples is returned as it is.
    """
    grouped = [path for path in EXAMPLE_SECTIONS if isinstance(_at(loaded.data, path), dict)]
    if not grouped:
        return loaded, []
    document = Document(loaded)
    problems: list[Diagnostic] = []
    for path in grouped:
        problems.extend(_ungroup(document, loaded, path))
    return document.freeze(), problems


def _ungroup(document: Document, loaded: LoadedYaml, path: tuple) -> list[Diagnostic]:
    """The mapping at ``path`` of ``document`` replaced by the list of its examples, in order, marks moved."""
    groups: dict[str, list] = _at(document.data, path)
    problems = []
    examples: list[dict] = []
    moves: list[tuple[tuple, tuple, str]] = []  # (old path, new path, procedure)
    for procedure, items in groups.items():
        for index, example in enumerate(items):
            written = example.get("procedure")
            if written is not None and written != procedure:
                problems.append(loaded.diagnostic(
                    path + (procedure, index, "procedure"),
                    f"example '{example.get('name')}' is listed under procedure '{procedure}' but says procedure: {written}; "
                    f"move it under {written}: or drop its procedure: line",
                    at_key=True,
                ))
            moves.append((path + (procedure, index), path + (len(examples),), procedure))
            examples.append(example)
    group_marks = {procedure: document.key_marks.get(path + (procedure,)) or loaded.key_mark(path + (procedure,)) for procedure in groups}
    for old, new, _ in moves:  # the new paths are integers, the old ones start with a name: no path is both
        document.move(old, new)
    for procedure in groups:
        for marks in (document.value_marks, document.key_marks, document.styles):
            marks.pop(path + (procedure,), None)
    parent = _at(document.data, path[:-1])
    parent[path[-1]] = examples
    for (_, new, procedure), example in zip(moves, examples):
        if "procedure" in example:
            continue  # written out (the same name): its own marks stay
        # the group key's name first: the example reads as its list form would
        example_with_procedure = {"name": example["name"], "procedure": procedure}
        example_with_procedure.update((key, value) for key, value in example.items() if key != "name")
        example.clear()
        example.update(example_with_procedure)
        document.value_marks[new + ("procedure",)] = group_marks[procedure]
        document.key_marks[new + ("procedure",)] = group_marks[procedure]
        document.styles[new + ("procedure",)] = GROUP_KEY_STYLE
    return problems


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
