"""The ruleset model: what a validated ruleset holds, as immutable objects.

Built by ``builder`` from YAML.  The checker and the compiler make a
:class:`~compiled_ruleset.CompiledRuleset` of it, which is what
``load_ruleset`` returns.  Two rulesets loaded side by side share nothing
mutable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from . import ast
from .tables import Table
from .values import RecordType, Type


class _Missing:
    """No default: the input must be given."""

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"  # the one instance, also after a copy or a trip through the ruleset cache


MISSING: Any = _Missing()


def frozen_mapping(items: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    return MappingProxyType(dict(items or {}))


@dataclass(frozen=True)
class Constant:
    name: str
    value: Any
    rule: str
    description: str
    pos: ast.Pos


@dataclass(frozen=True)
class InputSpec:
    name: str
    type: Type
    default: Any
    description: str
    pos: ast.Pos

    @property
    def required(self) -> bool:
        return self.default is MISSING


@dataclass(frozen=True)
class Choice:
    name: str
    options: tuple[str, ...]
    default: str
    description: str
    rule: str
    pos: ast.Pos


@dataclass(frozen=True)
class ModifierEntry:
    name: str
    label: str
    value: int
    condition: ast.Expr
    rule: str
    pos: ast.Pos
    value_from: str = ""  # "file:line" where the value was written (a variant's line when it overrides)


@dataclass(frozen=True)
class ModifierList:
    name: str
    kind: str  # "drm" or "column_shift"
    title: str
    rule: str
    entries: tuple[ModifierEntry, ...]
    pos: ast.Pos


@dataclass(frozen=True)
class Procedure:
    name: str
    title: str
    rule: str
    description: str
    inputs: tuple[InputSpec, ...]
    choices: tuple[Choice, ...]
    body: ast.Block
    pos: ast.Pos
    text: str = ""  # the body as written

    def input(self, name: str) -> InputSpec | None:
        return next((spec for spec in self.inputs if spec.name == name), None)

    def choice(self, name: str) -> Choice | None:
        return next((choice for choice in self.choices if choice.name == name), None)


@dataclass(frozen=True)
class Note:
    topic: str
    text: str
    seed: str = ""
    variant: str = ""


@dataclass(frozen=True)
class Example:
    """A rule test: inputs, scripted dice or exact odds, and what must come out."""

    name: str
    procedure: str
    rule: str
    data: Mapping[str, Any]  # the example as written (inputs, choices, dice, expect, odds, violation)
    pos: ast.Pos
    # Positions of parts of the example, keyed like "inputs.zones", "expect", "odds.0".
    marks: Mapping[str, ast.Pos] = field(default_factory=frozen_mapping)

    def where(self, key: str) -> ast.Pos:
        return self.marks.get(key, self.pos)


@dataclass(frozen=True)
class Aid:
    """A heat map of the player aid (``aids:``), as written; ``aid`` checks and draws it."""

    title: str
    data: Mapping[str, Any]
    pos: ast.Pos
    # Positions of its parts, keyed like "rows.over", "inputs.attacker", "show.mean".
    marks: Mapping[str, ast.Pos] = field(default_factory=frozen_mapping)

    def where(self, key: str) -> ast.Pos:
        return self.marks.get(key, self.pos)


@dataclass(frozen=True)
class Ruleset:
    name: str
    title: str
    source: str
    version: str
    description: str
    path: str
    constants: Mapping[str, Constant] = field(default_factory=frozen_mapping)
    types: Mapping[str, RecordType] = field(default_factory=frozen_mapping)
    tables: Mapping[str, Table] = field(default_factory=frozen_mapping)
    modifiers: Mapping[str, ModifierList] = field(default_factory=frozen_mapping)
    procedures: Mapping[str, Procedure] = field(default_factory=frozen_mapping)
    notes: tuple[Note, ...] = ()
    examples: tuple[Example, ...] = ()
    aids: tuple[Aid, ...] = ()
