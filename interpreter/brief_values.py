"""Inputs and outcomes as a player reads them: a record's fields at their declared defaults left out.

``odds`` and ``run`` print the inputs they ran with first.  For a battle those are fleets, and
every ship was printed whole: ``{kind: warship, carrying: no, value: 2, status: fit, fired:
no}`` fifteen times a side, twelve lines of 200 characters before the answer (issue 24, "an
answer a player reads at a glance").  A ship is written in a situation file or on the command
line as ``{kind: warship, value: 2}``, the rest taking the type's defaults, and an example
expects it back the same way (``expectations``); the heading now shows it that way too, and
``render`` writes a run of equal items once, with its count.  The outcomes listed below it
read the same way (``volley(targets = [{kind: frigate, status: sunk}], …)``), so a listing that
was summarised only because whole records made its lines too wide now fits a screen.

Only the text shown to people changes: ``--json`` keeps every field of every record, since a
program reading it should not need the ruleset's types to know a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .values import Record, RecordType, Type, to_plain


def declared_defaults(record: Record, types: Mapping[str, Type]) -> dict[str, Any]:
    """The field defaults ``record``'s type declares in ``types`` (the ruleset's named types); none for a
    record of no declared type (a table's cell)."""
    declared = types.get(record.type_name)
    return dict(declared.defaults) if isinstance(declared, RecordType) else {}


def inputs_without_defaults(inputs: Mapping[str, Any], types: Mapping[str, Type]) -> dict[str, Any]:
    """``inputs`` as plain data (as ``values.to_plain`` makes it) with every record's fields that hold
    their declared default (from ``types``, the ruleset's named types) left out."""
    return {name: without_defaults(value, types) for name, value in inputs.items()}


def without_defaults(value: Any, types: Mapping[str, Type]) -> Any:
    """One value as plain data, its records without the fields at their declared defaults."""
    if type(value) is Record:
        defaults = declared_defaults(value, types)
        return {
            name: without_defaults(item, types)
            for name, item in value.items()
            if not (name in defaults and to_plain(item) == to_plain(defaults[name]))
        }
    if type(value) is tuple:
        return [without_defaults(item, types) for item in value]
    return to_plain(value)


def outcome_without_defaults(outcome: Any, types: Mapping[str, Type]) -> dict[str, Any]:
    """An outcome as ``results.outcome_doc`` makes it, its records without the fields at their defaults."""
    return {"name": outcome.name, "fields": {name: without_defaults(value, types) for name, value in outcome.fields}}
