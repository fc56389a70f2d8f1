"""wartable: board-wargame rules as data.

Tables, modifiers and constants live in YAML validated by JSON Schema;
procedures are written in a small language parsed with Lark; this package
loads, checks, resolves and computes exact odds.

    from interpreter import load_ruleset, resolve, odds
"""

from .api import Distribution, Resolution, odds, resolve
from .errors import Diagnostic, RuleViolation, RulesetError, UsageError, WartableError
from .loader import load_ruleset

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
