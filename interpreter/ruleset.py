"""The ruleset model: what a validated ruleset holds, as immutable objects.

Built by ``builder`` from YAML.  The checker and the compiler make a
:class:`~compiled_ruleset.CompiledRuleset` of it, which is what
``load_ruleset`` returns.  Two rulesets loaded side by side share nothing
mutable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .tables import Table
from .values import Type

if TYPE_CHECKING:  # pragma: no cover
    from . import syntax


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
    """A named constant of the ruleset (``constants:``), typed at load."""

    name: str
    value: Any
    rule: str
    description: str
    pos: syntax.Pos
    # The type declared under ``type:``, which the value was checked against at load (a variant's value too);
    # None: the type is read from the value, as before typed constants.
    declared: Type | None = None


@dataclass(frozen=True)
class InputSpec:
    """One declared input of a procedure: its name, type, default and description."""

    name: str
    type: Type
    default: Any
    description: str
    pos: syntax.Pos

    @property
    def required(self) -> bool:
        return self.default is MISSING


@dataclass(frozen=True)
class Choice:
    """A decision a player makes during a procedure (``choices:``): its options and default."""

    name: str
    options: tuple[str, ...]
    default: str
    description: str
    rule: str
    pos: syntax.Pos


class Deferred:
    """A syntax tree not read yet: ``load()`` gives it.

    A ruleset from the cache keeps its procedure bodies and modifier
    conditions pickled until something reads them (the checker, a player
    aid, a diff), so a command that only runs checked code never builds
    them, nor imports the syntax tree's classes (see cache.py).
    """

    __slots__ = ("load",)

    def __init__(self, load: Callable[[], Any]):
        self.load = load

    def __reduce__(self):
        return Deferred, (self.load,)


class _SyntaxTree:
    """A dataclass field whose value may arrive as a :class:`Deferred`: loaded on first read, then kept."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            raise AttributeError(self.name)  # no default: dataclasses makes the field required
        value = instance.__dict__[self.name]
        if type(value) is Deferred:
            value = instance.__dict__[self.name] = value.load()
        return value

    def __set__(self, instance: Any, value: Any) -> None:
        instance.__dict__[self.name] = value  # only __init__ sets it: the dataclass is frozen

    @classmethod
    def install(cls, owner: type, name: str) -> None:
        """Make field ``name`` of dataclass ``owner`` one.

        Installed after the dataclass is made, not written as the field's default: a type
        checker would read a default there (dataclasses does not, as ``__get__`` on the class
        raises) and refuse the required fields after it.  The generated ``__init__`` sets the
        field through ``__set__`` all the same.
        """
        descriptor = cls()
        descriptor.__set_name__(owner, name)
        setattr(owner, name, descriptor)


@dataclass(frozen=True)
class ModifierEntry:
    """One die-roll modifier or column shift of a list, and when it applies."""

    name: str
    label: str
    value: int
    condition: syntax.Expr  # a _SyntaxTree (installed below the class)
    rule: str
    pos: syntax.Pos
    value_from: str = ""  # "file:line" where the value was written (a variant's line when it overrides)


_SyntaxTree.install(ModifierEntry, "condition")


@dataclass(frozen=True)
class ModifierList:
    """A named list of DRMs or column shifts (``modifiers:``)."""

    name: str
    kind: str  # "drm" or "column_shift"
    title: str
    rule: str
    entries: tuple[ModifierEntry, ...]
    pos: syntax.Pos


@dataclass(frozen=True)
class Procedure:
    """A procedure as written: its inputs, choices and parsed body."""

    name: str
    title: str
    rule: str
    description: str
    inputs: tuple[InputSpec, ...]
    choices: tuple[Choice, ...]
    body: syntax.Block  # a _SyntaxTree (installed below the class)
    pos: syntax.Pos
    text: str = ""  # the body as written

    def input(self, name: str) -> InputSpec | None:
        return next((spec for spec in self.inputs if spec.name == name), None)

    def choice(self, name: str) -> Choice | None:
        return next((choice for choice in self.choices if choice.name == name), None)


_SyntaxTree.install(Procedure, "body")


@dataclass(frozen=True)
class HelperFunction:
    """A pure helper function (``functions:``): parameters and one expression, expanded where it is called.

    A call ``afloat(ship)`` is checked as the body with each parameter standing for its argument, so
    both back ends run ordinary expressions: a helper adds no construct to the engine or the evaluator.
    """

    name: str
    params: tuple[str, ...]
    body: syntax.Expr  # a _SyntaxTree (installed below the class): kept pickled in the cache until read
    description: str
    rule: str
    pos: syntax.Pos


_SyntaxTree.install(HelperFunction, "body")


@dataclass(frozen=True)
class Note:
    """A ``notes:`` entry: its topic and text, the seed's words it reads, and the variant with the other reading."""

    topic: str
    text: str
    seed: str = ""
    variant: str = ""
    # the procedures whose results rest on this reading: odds and run name the note for them and their callers
    procedures: tuple[str, ...] = ()
    # the constants that select the reading: odds and run name the note for every procedure that reads one
    constants: tuple[str, ...] = ()


class _Parts:
    """Something written in YAML whose parts have positions: ``where(key)`` is a part's, else the whole's.

    A plain base (no dataclass), so it adds no fields: each subclass declares ``pos`` and ``marks``.
    """

    pos: syntax.Pos
    marks: Mapping[str, syntax.Pos]

    def where(self, key: str) -> syntax.Pos:
        return self.marks.get(key, self.pos)


@dataclass(frozen=True)
class Example(_Parts):
    """A rule test: inputs, scripted dice or exact odds, and what must come out."""

    name: str
    procedure: str
    rule: str
    data: Mapping[str, Any]  # the example as written (inputs, choices, dice, expect, odds, violation)
    pos: syntax.Pos
    # Positions of parts of the example, keyed like "inputs.zones", "expect", "odds.0".
    marks: Mapping[str, syntax.Pos] = field(default_factory=frozen_mapping)


@dataclass(frozen=True)
class Aid(_Parts):
    """A heat map of the player aid (``aids:``), as written; ``aid`` checks and draws it."""

    title: str
    data: Mapping[str, Any]
    pos: syntax.Pos
    # Positions of its parts, keyed like "rows.over", "inputs.attacker", "show.mean".
    marks: Mapping[str, syntax.Pos] = field(default_factory=frozen_mapping)


@dataclass(frozen=True)
class Ruleset:
    """Everything one ruleset file (with its includes and bases) declares."""

    name: str
    title: str
    source: str
    version: str
    description: str
    path: str
    constants: Mapping[str, Constant] = field(default_factory=frozen_mapping)
    types: Mapping[str, Type] = field(default_factory=frozen_mapping)  # records and named types (a shared enum)
    tables: Mapping[str, Table] = field(default_factory=frozen_mapping)
    modifiers: Mapping[str, ModifierList] = field(default_factory=frozen_mapping)
    procedures: Mapping[str, Procedure] = field(default_factory=frozen_mapping)
    notes: tuple[Note, ...] = ()
    functions: Mapping[str, HelperFunction] = field(default_factory=frozen_mapping)
    examples: tuple[Example, ...] = ()
    aids: tuple[Aid, ...] = ()
    # Where each named type is declared (types hold no position of their own), for the lint pass's warnings.
    type_positions: Mapping[str, syntax.Pos] = field(default_factory=frozen_mapping)
    # Procedures declared but whose body did not parse (the syntax error is reported once, at the body;
    # a call to one is not "unknown" besides).  Only a ruleset that fails to load has any.
    unparsed: frozenset[str] = frozenset()
