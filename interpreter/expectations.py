"""Does a value an example expects (plain YAML) agree with the value a procedure gave?

An expected record is read the way an input record is: a field it leaves out
takes its declared default.  So an example writes the ships it expects back the
way it wrote the ships it gave, ``{kind: warship, fired: true}``, rather than
``{kind: warship, carrying: false, value: 0, status: fit, fired: true}``: the
full form was four fields of noise a ship (issue 23, "the language makes
modders repeat themselves"), and it is still accepted.  Defaults, not "fields
left out are not checked": ``{kind: warship}`` still says the ship is fit and
has not fired, so an example cannot pass on a ship the procedure damaged by
mistake.  A field with no default must be written; a field the record does not
have never agrees.

Outcome fields an example leaves out are still not checked (``expect.fields``
names the ones it checks): an outcome is a result with many parts, a record is
a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .brief_values import declared_defaults
from .values import Record, Type, show, to_plain


def agrees(actual: Any, wanted: Any, types: Mapping[str, Type]) -> bool:
    """Whether ``actual`` (a procedure's value) is what ``wanted`` (an example's YAML) says, with the
    records of ``wanted`` completed by their declared defaults from ``types`` (the ruleset's named types)."""
    if type(actual) is Record and isinstance(wanted, dict):
        return _record_agrees(actual, wanted, types)
    if type(actual) is tuple and isinstance(wanted, list):
        return len(actual) == len(wanted) and all(agrees(a, w, types) for a, w in zip(actual, wanted))
    return to_plain(actual) == wanted


def _record_agrees(actual: Record, wanted: dict, types: Mapping[str, Type]) -> bool:
    defaults = declared_defaults(actual, types)
    names = {name for name, _ in actual.items()}
    if not names.issuperset(wanted):
        return False
    for name, value in actual.items():
        if name in wanted:
            if not agrees(value, wanted[name], types):
                return False
        elif name not in defaults or to_plain(value) != to_plain(defaults[name]):
            return False
    return True


def shown(wanted: Any) -> str:
    """An expected value (plain YAML data) as :func:`values.show` shows the value it is compared with,
    so "expected [{name: A}], got [{name: A, fired: yes}]" reads alike on both sides (not a Python repr).
    Not ``render.show_plain``: it shows a record with a ``code`` as its code alone, and a table cell
    expected with the wrong hits would read "expected A, got A"."""
    if isinstance(wanted, dict):
        return "{" + ", ".join(f"{key}: {shown(value)}" for key, value in wanted.items()) + "}"
    if isinstance(wanted, list):
        return "[" + ", ".join(shown(item) for item in wanted) + "]"
    return show(wanted)
