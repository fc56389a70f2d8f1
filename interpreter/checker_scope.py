"""The checker's scopes, variables and expression contexts: shared by ``checker`` and ``checker_records``
(kept apart so that neither imports the other's module for them)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import syntax
from .values import Type


@dataclass
class Variable:
    """A variable in scope: its slot, type and where it was declared."""

    slot: int
    type: Type
    pos: syntax.Pos


@dataclass
class Scope:
    """The variables visible in one block."""

    parent: Scope | None
    names: dict[str, Variable] = field(default_factory=dict)
    slots: list[int] = field(default_factory=list)

    def find(self, name: str) -> Variable | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def visible(self) -> set[str]:
        names: set[str] = set()
        scope: Scope | None = self
        while scope is not None:
            names.update(scope.names)
            scope = scope.parent
        return names


@dataclass
class Context:
    """Per-expression state: where hoisted rolls go, or why rolls are not allowed."""

    hoist: list | None
    no_dice_reason: str = ""
    where: str = ""  # appended to messages, e.g. " (in modifier list drms)"

    def no_resolve_reason(self) -> str:
        """``no_dice_reason`` worded for a ``resolve``: "dice cannot be rolled inside an aggregate" reads
        "procedures cannot be resolved inside an aggregate", "roll into a `let` first" "resolve it into ..."."""
        return _ROLL_WORDS.sub(lambda match: _RESOLVE_WORDS[match.group()], self.no_dice_reason)


# the phrases of the no_dice_reason texts that speak of rolling, and the same said of resolving (one pass, longest first)
_RESOLVE_WORDS = {
    "roll dice or resolve a procedure": "roll dice or resolve a procedure",
    "dice cannot be rolled": "procedures cannot be resolved",
    "cannot themselves be rolled": "cannot come from resolving a procedure: resolve it into a `let` first",
    "cannot roll dice": "cannot resolve a procedure",
    "roll dice": "resolve it",
    "roll into": "resolve it into",
}
_ROLL_WORDS = re.compile("|".join(re.escape(phrase) for phrase in _RESOLVE_WORDS))
