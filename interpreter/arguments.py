"""Checks of the Python API's arguments, shared by every public function.

A wrong argument is the caller's mistake, not an internal bug: it raises the project's own
:class:`~interpreter.errors.UsageError`, positioned at ``<inputs>:1:1`` like every other API
misuse, never a raw ``TypeError`` or ``AttributeError`` from deep inside, and never a silent
answer (``probability("hit", misspelt=1)`` is not 0, it is a mistake).  A misspelt name gets the
closest valid one.  Kept in one place so that every function words the same mistake the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .errors import Source, UsageError

API_INPUT = "<inputs>"


def misuse(message: str) -> UsageError:
    """A UsageError about an argument of an API call (positioned at ``<inputs>:1:1``)."""
    return UsageError(Source(API_INPUT, "").diagnostic(1, 1, message))


def check_type(value: Any, kinds: type | tuple[type, ...], what: str, expected: str, *, optional: bool = False) -> Any:
    """``value`` when it is one of ``kinds`` (or None, when ``optional``); else a UsageError naming ``expected``."""
    if (optional and value is None) or (isinstance(value, kinds) and not (isinstance(value, bool) and bool not in _as_tuple(kinds))):
        return value
    raise misuse(f"{what} must be {expected}, not {type(value).__name__}")


def _as_tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def check_callable(value: Any, what: str) -> Any:
    """None or something to call (a progress callback)."""
    if value is None or callable(value):
        return value
    raise misuse(f"{what} must be a function (or None), not {type(value).__name__}")


def check_names(value: Any, what: str) -> tuple[str, ...]:
    """A list of names: one string alone is taken as a list of one; anything else must hold strings only."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Iterable):
        raise misuse(f"{what} must be a list of names (strings), not {type(value).__name__}")
    names = tuple(value)
    for name in names:
        if not isinstance(name, str):
            raise misuse(f"{what} must be a list of names (strings), not a list holding {type(name).__name__}")
    return names


def check_known(names: Iterable[str], known: Iterable[str], what: str, kind: str) -> None:
    """Every name is one of ``known``; the first that is not raises, with the closest known name."""
    valid = list(dict.fromkeys(known))
    for name in names:
        if name not in valid:
            import difflib  # only for a mistake: not on every call's path

            close = difflib.get_close_matches(name, valid, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise misuse(f"{what} has no {kind} '{name}' ({hint}{kind}s: {', '.join(valid) or 'none'})")


def whole_number(value: Any, what: str, *, low: int, bits: int = 64) -> int:
    """A whole number (not a bool) from ``low`` to 2**bits - 1."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise misuse(f"{what} must be a whole number, not {type(value).__name__}")
    if value < low or value.bit_length() > bits:
        raise misuse(f"{what} must be a whole number from {low} to 2**{bits} - 1")
    return value
