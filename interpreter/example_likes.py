"""``like:`` in an example: start from an earlier example's inputs and choices.

Worked examples of one rule often share a setup and differ in one input: the
same two ships disengaging ship by ship and as a body, the same factory
producing mines in Berlin and elsewhere.  Rulesets come from strangers, so
YAML anchors and merge keys are refused (yaml_loader); without them every such
example wrote its whole setup again (issue 23, "the language makes modders
repeat themselves").  ``like: "<name>"`` names an earlier example of the same
procedure; this example's inputs and choices are that one's with its own
written over them, key by key.  Its dice and expectations are its own.

Earlier, not anywhere: an example reads like a test file, top to bottom, and a
chain of likes can never loop.  The same procedure: another procedure's inputs
would not fit, and a grouped example's procedure is its group's.  A variant's
``override:`` of the earlier example reaches the examples like it, since likes
are resolved on the merged ruleset.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from .errors import Pos
from .ruleset import Example


def liked(data: Mapping[str, Any], earlier: Mapping[str, Example]) -> tuple[dict[str, Any], Example | None, str | None]:
    """``data`` with the inputs and choices of the example its ``like:`` names filled in, that example, and
    the problem with ``like:`` if there is one (then ``data`` comes back as written)."""
    name = data["like"]
    base = earlier.get(name)
    if base is None:
        close = difflib.get_close_matches(str(name), list(earlier), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return dict(data), None, f"like: no example '{name}' above this one{hint}"
    if base.procedure != data["procedure"]:
        return dict(data), None, f"like: example '{name}' runs procedure '{base.procedure}', not '{data['procedure']}'; like names an example of the same procedure"
    filled = dict(data)
    for part in ("inputs", "choices"):
        inherited = base.data.get(part) or {}
        if inherited:
            filled[part] = {**inherited, **(data.get(part) or {})}
    return filled, base, None


def inherited_marks(data: Mapping[str, Any], written: Mapping[str, Any], base: Example) -> dict[str, Pos]:
    """The positions of the inputs and choices an example took from ``base``: where ``base`` wrote them, so an
    inherited value that is wrong is reported at its own text."""
    marks = {}
    for part in ("inputs", "choices"):
        own = written.get(part) or {}
        for key in data.get(part) or {}:
            if key not in own:
                for suffix in ("", ".key"):
                    mark = base.marks.get(f"{part}.{key}{suffix}")
                    if mark is not None:
                        marks[f"{part}.{key}{suffix}"] = mark
    return marks
