"""Turning outside values (YAML data, command-line text) into typed values.

Used for procedure inputs, record fields, defaults and constants.  A bad
value raises :class:`CoercionError` with a message; callers add the position
(the YAML mark, or the column on the command line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .limits import Limits
from .values import (
    AnyType,
    BoolType,
    IntType,
    ListType,
    Record,
    RecordType,
    StrType,
    Type,
    canonical,
)

# Inputs are held to the same integer size as the numbers a procedure makes.
MAX_INT_BITS = Limits().max_int_bits
MAX_INT_DIGITS = len(str(1 << MAX_INT_BITS))


class CoercionError(Exception):
    """A value that is not of the type wanted: ``message`` says why, ``path`` where inside it."""

    def __init__(self, message: str, path: tuple[str | int, ...] = (), *, at_key: bool = False):
        super().__init__(message)
        self.message = message
        self.path = path  # where inside the value the problem is (list index, field)
        self.at_key = at_key  # the problem is the key at ``path`` (an unknown field), not its value


def coerce(value: Any, expected: Type, what: str) -> Any:
    """``value`` as a value of type ``expected`` or CoercionError (``what`` names it in the message)."""
    coercer = _COERCERS.get(type(expected))
    if coercer is None:
        raise AssertionError(f"unknown type {expected!r}")  # pragma: no cover
    return coercer(value, expected, what)


def _any(value: Any, expected: AnyType, what: str) -> Any:
    return freeze(value)


def _bool(value: Any, expected: BoolType, what: str) -> bool:
    if isinstance(value, bool):
        return value
    raise CoercionError(f"{what} must be true or false, not {_show(value)}")


def _int(value: Any, expected: IntType, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CoercionError(f"{what} must be a whole number, not {_show(value)}")
    if value.bit_length() > MAX_INT_BITS:
        raise CoercionError(f"{what} must be a whole number of at most {MAX_INT_BITS} bits (max_int_bits)")
    if expected.low is not None and value < expected.low:
        raise CoercionError(f"{what} must be at least {expected.low}, not {value}")
    if expected.high is not None and value > expected.high:
        raise CoercionError(f"{what} must be at most {expected.high}, not {value}")
    return value


def _str(value: Any, expected: StrType, what: str) -> str:
    if not isinstance(value, str):
        raise CoercionError(f"{what} must be text, not {_show(value)}")
    if expected.values is not None and value not in expected.values:
        raise CoercionError(f"{what} must be one of {', '.join(expected.values)}, not {value!r}")
    return value


def _list(value: Any, expected: ListType, what: str) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise CoercionError(f"{what} must be a list, not {_show(value)}")
    if expected.max_items is not None and len(value) > expected.max_items:
        raise CoercionError(f"{what} may hold at most {expected.max_items} items, not {len(value)}")
    if len(value) < expected.min_items:
        raise CoercionError(f"{what} must hold at least {expected.min_items} item{'s' if expected.min_items != 1 else ''}, not {len(value)}")
    items = tuple([_inside(item, expected.element, f"{what}[{index + 1}]", index) for index, item in enumerate(value)])
    return items if expected.ordered else canonical(items)


def _record(value: Any, expected: RecordType, what: str) -> Record:
    if isinstance(value, Record) and value.type_name == expected.name:
        return value
    field_names = ", ".join(n for n, _ in expected.fields)
    if not isinstance(value, dict):
        raise CoercionError(f"{what} must be a {expected.name} (a mapping of {field_names}), not {_show(value)}")
    unknown = [key for key in value if expected.field(key) is None]
    if unknown:
        raise CoercionError(f"{what}: {expected.name} has no field '{unknown[0]}' (fields: {field_names})", (unknown[0],), at_key=True)
    defaults = dict(expected.defaults)
    items = []
    for name, field_type in expected.fields:
        if name in value:
            items.append((name, _inside(value[name], field_type, f"{what}.{name}", name)))
        elif name in defaults:
            items.append((name, defaults[name]))
        else:
            raise CoercionError(f"{what}: missing field '{name}' of {expected.name}")
    return Record(expected.name, tuple(items))


def _inside(value: Any, expected: Type, what: str, step: str | int) -> Any:
    """A part of a list or record coerced; a problem's path starts with the part's index or field name."""
    try:
        return coerce(value, expected, what)
    except CoercionError as error:
        raise CoercionError(error.message, (step, *error.path), at_key=error.at_key) from None


# One coercer a type (the types are final: exact classes, looked up directly).
_COERCERS: dict[type, Callable[[Any, Any, str], Any]] = {
    AnyType: _any, BoolType: _bool, IntType: _int, StrType: _str, ListType: _list, RecordType: _record,
}


def coercion_keeps(expected: Type, actual: Type) -> bool:
    """Does ``coerce(v, expected)`` return ``v`` unchanged for every value ``v`` the checker types as ``actual``?

    True only where nothing is left to check: the same kind with no range,
    enumeration or size to hold it to, a record of the same type (``coerce``
    passes those through), an order-free list of order-free values (kept in
    canonical order already).  A ``resolve`` passes such arguments as they are
    instead of coercing them again on every call.
    """
    if isinstance(expected, IntType):
        return type(actual) is IntType and expected.low is None and expected.high is None
    if isinstance(expected, BoolType):
        return type(actual) is BoolType
    if isinstance(expected, StrType):
        return type(actual) is StrType and expected.values is None
    if isinstance(expected, RecordType):
        return isinstance(actual, RecordType) and actual.name == expected.name
    if isinstance(expected, ListType):
        return (
            isinstance(actual, ListType)
            and expected.max_items is None
            and expected.min_items == 0
            and (expected.ordered or not actual.ordered)
            and coercion_keeps(expected.element, actual.element)
        )
    return False


def freeze(value: Any) -> Any:
    """Lists become tuples, so values are hashable."""
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return Record("record", tuple((k, freeze(v)) for k, v in value.items()))
    return value


def parse_command_line_value(text: str, expected: Type) -> Any:
    """A ``--set NAME=VALUE`` value: the obvious spelling for simple types."""
    if isinstance(expected, BoolType):
        lowered = text.strip().lower()
        if lowered in ("true", "yes"):
            return True
        if lowered in ("false", "no"):
            return False
        raise CoercionError(f"expected true or false, not {text!r}")
    if isinstance(expected, IntType):
        stripped = text.strip()
        body = stripped[1:] if stripped[:1] in "+-" else stripped
        if not body.isdigit() or not body.isascii():
            raise CoercionError(f"expected a whole number, not {_shorten(text)!r}")
        if len(body) > MAX_INT_DIGITS:
            raise CoercionError(f"expected a whole number of at most {MAX_INT_DIGITS} digits, not {_shorten(text)!r}")
        return int(stripped)
    if isinstance(expected, StrType):
        return text
    raise CoercionError("lists and records are given in YAML: --situation FILE.yaml, or --set NAME='[...]'")


def _shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "..."


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        return f"a number of {value.bit_length()} bits"
    if isinstance(value, str):
        return repr(_shorten(value))
    return repr(value)
