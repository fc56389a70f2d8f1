"""wartable: board-wargame rules as data.

Tables, modifiers and constants live in YAML validated by JSON Schema;
procedures are written in a small language parsed with Lark; this package
loads, checks, resolves and computes exact odds.

    from interpreter import load_ruleset, resolve, odds

Names are imported on first use (PEP 562), so ``wartable --help`` and other
commands load only the modules they need.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms at every start)
if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    from .api import Distribution, Resolution, odds, resolve
    from .errors import (
        Diagnostic,
        RulesetError,
        RuleViolation,
        UsageError,
        WartableError,
    )
    from .loader import load_ruleset

_HOME = {
    "Diagnostic": "errors",
    "Distribution": "api",
    "Resolution": "api",
    "RuleViolation": "errors",
    "RulesetError": "errors",
    "UsageError": "errors",
    "WartableError": "errors",
    "load_ruleset": "loader",
    "odds": "api",
    "resolve": "api",
}

__all__ = [
    "Diagnostic",
    "Distribution",
    "Resolution",
    "RuleViolation",
    "RulesetError",
    "UsageError",
    "WartableError",
    "load_ruleset",
    "odds",
    "resolve",
]


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # found once; later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
