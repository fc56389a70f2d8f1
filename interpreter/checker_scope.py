"""The checker's scopes, variables and expression contexts: shared by ``checker`` and ``checker_records``
(kept apart so that neither imports the other's module for them)."""

from __future__ import annotations

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
