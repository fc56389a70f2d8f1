"""Dice sources for ``run``: random (with a seed to replay), or scripted.

The exact-odds engine needs no source: it takes every face.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .errors import Source, UsageError


class DiceScriptError(UsageError):
    """Scripted dice ran out, or a scripted face does not fit the die.

    Positioned in the list of scripted faces (``<dice>``); the command line
    re-positions it on its ``--dice`` argument.
    """

    def __init__(self, message: str, index: int | None, faces: tuple[int, ...] = ()):
        text = ",".join(map(str, faces))
        column = len(",".join(map(str, faces[:index]))) + (1 if index else 0) + 1 if index is not None else len(text) + 1
        super().__init__(Source("<dice>", text).diagnostic(1, column, message))
        self.message = message
        self.index = index  # which scripted die (0-based), None when they ran out


@dataclass
class SeededDice:
    """Pseudo-random dice from a seed; the same seed replays the same rolls."""

    seed: int
    rolled: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed).random

    def roll(self, sides: int) -> int:
        face = int(self._random() * sides) + 1
        self.rolled.append(face)
        return face


def fresh_seed(bits: int) -> int:
    """A seed drawn from the system's randomness, reported so a run can be replayed."""
    import secrets  # here, not at the top: it costs a few milliseconds at every start

    return secrets.randbits(bits)


@dataclass
class ScriptedDice:
    """Dice given in advance (tests, replaying a face-to-face game)."""

    faces: tuple[int, ...]
    used: int = 0
    rolled: list[int] = field(default_factory=list)

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            raise DiceScriptError(f"the procedure rolled more dice than the {len(self.faces)} given", None, self.faces)
        face = self.faces[self.used]
        if not 1 <= face <= sides:
            raise DiceScriptError(f"scripted die {self.used + 1} is {face}, but this roll is a d{sides} (1-{sides})", self.used, self.faces)
        self.used += 1
        self.rolled.append(face)
        return face

    @property
    def unused(self) -> int:
        return len(self.faces) - self.used
