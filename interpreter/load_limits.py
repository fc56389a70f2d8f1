"""Loading limits: every cap on what a ruleset may make wartable read, parse or build.

Rulesets come from strangers.  Each limit below bounds the time or memory
that reading one ruleset can take, and sits far above anything a real game
needs (the bundled rulesets use a few percent of each).  They live here, in
one frozen dataclass passed down from :func:`interpreter.loader.load_ruleset`,
and README.md's "Safety" section lists them with their defaults.  A breach is
a positioned user error (:class:`~interpreter.errors.RulesetError`) whose
message says which limit was passed and its value.

The budgets for *running* procedures are in :mod:`interpreter.limits`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import Source, UsageError
from .limits import check_positive_fields

# jsonschema validates recursively, a few frames a level: max_depth stays well below Python's recursion limit.
MAX_DEPTH_CEILING = 100


class OverLimit(ValueError):
    """A value is past a loading limit; raised where no position is known, the caller positions it."""


@dataclass(frozen=True)
class LoadLimits:
    """Caps for loading one ruleset, with their defaults."""

    # Bytes of one YAML text (a ruleset file, a situation file), and of all
    # the files of one ruleset together.
    max_bytes: int = 5_000_000
    # Files read for one ruleset: the file, its includes, its bases and theirs.
    max_files: int = 64
    # YAML nesting (mappings and sequences inside one another).
    max_depth: int = 64
    # YAML values (keys, scalars, mappings, sequences) in one YAML text, and
    # in all the files of one ruleset together.
    max_nodes: int = 50_000
    # Characters of one YAML scalar or key.
    max_scalar_chars: int = 1_000_000
    # Problems reported for one file by the YAML reader, and by the schema check.
    max_diagnostics: int = 100
    # Size of an integer written in a ruleset (YAML value, heading, cell, die, procedure literal), in bits, sign not counted.
    max_int_bits: int = 64
    # Dice in one die spec (rows: {dice: 2d6}) or procedure literal (2d6).
    max_dice: int = 1_000
    # Faces of one die, and faces a die-faces cell ("1-3,5") may list.
    max_faces: int = 1_000
    # Characters of one procedure body or modifier condition.
    max_procedure_chars: int = 200_000
    # Tokens (names, numbers, operators, brackets) of all the procedure bodies
    # and modifier conditions of one ruleset: parsing costs ~25 us a token.
    max_procedure_tokens: int = 40_000
    # Nesting of one procedure: brackets open at once, blocks, operators.
    max_procedure_depth: int = 200

    def __post_init__(self) -> None:
        check_positive_fields(self, "a positive whole number")
        if self.max_depth > MAX_DEPTH_CEILING:
            raise _misuse(f"LoadLimits.max_depth may be at most {MAX_DEPTH_CEILING}, not {self.max_depth}")

    @property
    def max_int_digits(self) -> int:
        """Decimal digits of the largest integer allowed (20 for 64 bits)."""
        return len(str(1 << self.max_int_bits))

    def integer(self, text: str) -> int:
        """The integer ``text`` spells (ASCII digits, optional sign), within :attr:`max_int_bits`.

        The digits are counted before converting, so a 100,000-digit literal
        costs nothing and never reaches Python's int-to-text limit.
        """
        digits = text[1:] if text.startswith(("+", "-")) else text
        if not _DIGITS.fullmatch(digits):
            raise OverLimit(f"{_shorten(text)} is not a whole number")
        significant = digits.lstrip("0") or "0"
        value = int(significant) * (-1 if text.startswith("-") else 1) if len(significant) <= self.max_int_digits else None
        if value is None or value.bit_length() > self.max_int_bits:
            raise OverLimit(
                f"integer {_shorten(text)} is out of range: the limit is {self.max_int_bits} bits (at most {(1 << self.max_int_bits) - 1} either side of 0)"
            )
        return value

    def dice(self, spec: str) -> tuple[int, int]:
        """(count, faces) of a die spec such as ``2d6`` or ``d3``, within :attr:`max_dice` and :attr:`max_faces`."""
        count_text, _, faces_text = spec.partition("d")
        count = self.integer(count_text) if count_text else 1
        faces = self.integer(faces_text)
        if count > self.max_dice:
            raise OverLimit(f"{_shorten(spec)} rolls {count} dice: the limit is {self.max_dice} dice")
        if faces > self.max_faces:
            raise OverLimit(f"{_shorten(spec)} has {faces} faces: the limit is {self.max_faces} faces a die")
        return count, faces


def _misuse(message: str) -> UsageError:
    return UsageError(Source("<limits>", "").diagnostic(1, 1, message))


DEFAULT_LOAD_LIMITS = LoadLimits()
_DIGITS = re.compile(r"[0-9]+")


def _shorten(text: str, width: int = 24) -> str:
    """Long user text shown by its start and its length, never whole."""
    return text if len(text) <= width else f"{text[:width]}... ({len(text)} characters)"
