"""Runtime values and static types of the procedure language.

Values are immutable and hashable, because the exact-odds engine merges
equal states: ints, bools, strings, tuples (lists), :class:`Record` and
:class:`OutcomeValue`.
"""

from __future__ import annotations

import threading

# What weakref.WeakValueDictionary removes its dead entries with (private to CPython's weakref, which has
# no public form of it; typeshed does not list it).
from _weakref import _remove_dead_weakref  # type: ignore[attr-defined]
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from operator import attrgetter, itemgetter
from sys import intern
from typing import Any, ClassVar, SupportsIndex, final, overload
from weakref import ref


@final  # interned by exact class: a subclass would share (or be given) its parent's objects
class Record:
    """An immutable record (a unit, a table cell) with named fields, interned: equal records are one object.

    Why interned: the exact-odds engine keys every state by tuples of records,
    and a Python-level ``__hash__``/``__eq__`` took about 30% of exact EIA
    (issue 24).  With one object per content, hashing and equality are the
    built-in ones, by identity, in C; ``Record(...) == Record(...)`` stays
    true for equal contents because both calls give the same object.

    Every way of making a record goes through ``__new__`` (constructor,
    ``with_field``, inputs, table cells, ``copy``, ``pickle`` and the cache
    through ``__reduce__``), so no record escapes the table; see
    the intern table below the class.
    """

    __slots__ = ("__weakref__", "_fields", "_items", "_measure", "type_name")
    # set once in __new__ through object.__setattr__ (the record is immutable)
    type_name: str
    _items: tuple[tuple[str, Any], ...]
    _measure: tuple[int, int] | None  # (items, depth), measured on first use
    _fields: dict[str, Any]  # by name (the first of equal names), made with the record: compiled code reads it in place

    MISSING: Any = object()  # what lookup() gives for a field the record does not have

    def __new__(cls, type_name: str, items: dict[str, Any] | tuple[tuple[str, Any], ...]) -> Record:
        """The one record of ``type_name`` with ``items``: the live one when there is one (looked up here, in
        one frame: every record the engines make comes this way), else a new one (:func:`_added`)."""
        pairs = tuple(items.items()) if isinstance(items, dict) else tuple(items)
        key = (type_name, pairs, _shape(pairs))
        reference = _TABLE.get(key)
        if reference is not None:
            found = reference()
            if found is not None:
                return found
        return _added(key)

    def __reduce__(self) -> tuple[Any, tuple[str, tuple[tuple[str, Any], ...]]]:
        """Pickled (and copied) as its contents, so that a record read back is interned like any other."""
        return Record, (self.type_name, self._items)

    def lookup(self, name: str) -> Any:
        """The field's value, or Record.MISSING; by name through the record's dictionary."""
        return self._fields.get(name, Record.MISSING)

    def keep_size_of(self, other: Record) -> None:
        """Take ``other``'s measured size (when it has one): for a copy with one plain field changed for another."""
        if self._measure is None and other._measure is not None:
            object.__setattr__(self, "_measure", other._measure)

    def _measured(self) -> tuple[int, int]:
        """(items, depth), measured once: a record's fields were checked when they were made."""
        measured = self._measure
        if measured is None:
            items, depth = measure(tuple(value for _, value in self._items), 1 << 62, 1 << 62)
            measured = (items, max(depth - 1, 0))
            object.__setattr__(self, "_measure", measured)
        return measured

    @property
    def size(self) -> int:
        """Items in the record: its fields, and the items of lists inside them."""
        return self._measured()[0]

    @property
    def depth(self) -> int:
        """How deep lists nest inside the record (0 for a record of plain fields)."""
        return self._measured()[1]

    def __setattr__(self, name, value):  # pragma: no cover - immutability guard
        raise AttributeError("Record is immutable")

    def get(self, name: str, default: Any = None) -> Any:
        return self._fields.get(name, default)

    def has(self, name: str) -> bool:
        return name in self._fields

    def items(self) -> tuple[tuple[str, Any], ...]:
        return self._items

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._items)

    # No __eq__ nor __hash__: records are interned (equal contents, one object), so object's own
    # identity comparison and hash are content equality, at C speed.

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._items)
        return f"{self.type_name}({inner})"


# ---- the intern table ----------------------------------------------------------------------
#
# One table for the process, and why that is not the shared mutable state the
# house rules forbid: it holds records by weak reference only (a record no
# value refers to any more leaves it, so memory stays bounded by the records
# alive), and what it maps is content to the one object with that content,
# which no caller can change or observe apart from identity.  Two rulesets in
# one process therefore cannot interfere: the key holds the exact type of
# every value inside (see _shape), so a record of ``True`` is never given for
# a record of ``1`` (equal to Python) nor ``Fraction(2)`` for ``2``.
#
# Threads: a lookup that finds a live record needs no lock (a dict read is
# atomic); making a new record takes the lock, looks again and only then adds
# it, so two threads making the same record get one object.  A dead entry is
# removed by its weak reference's callback through _remove_dead_weakref (what
# weakref.WeakValueDictionary uses), which deletes the key only while it still
# maps to that dead reference, so it never removes a record made since.

_TABLE: dict[tuple, ref] = {}
_TABLE_LOCK = threading.Lock()
_second = itemgetter(1)


def _forget(table: dict, key: tuple, reference: ref) -> None:
    """A dead value's entry out of its table: the callback of its weak reference, ``partial(_forget, table, key)``
    (made in C, where weakref.KeyedRef's __new__ and __init__ are Python: exact eia 3 v 3 makes 30,000 outcomes)."""
    _remove_dead_weakref(table, key)


def _shape(pairs: tuple[tuple[str, Any], ...]) -> tuple:
    """The exact types of the values in ``pairs``, into lists (records and outcomes inside are interned already,
    and told apart by identity): what makes the key tell ``1`` from ``True`` and ``2`` from ``Fraction(2)``."""
    kinds = tuple(map(type, map(_second, pairs)))  # no Python-level loop: made for every record
    if tuple not in kinds:
        return kinds
    # (_deep_shape of a value that is not a list is its type: called for the lists only)
    return tuple([_deep_shape(pair[1]) if kind is tuple else kind for pair, kind in zip(pairs, kinds)])


def _deep_shape(value: Any) -> Any:
    """The exact types inside a value, in one flat tuple: each list marked by its length before its items
    (which fixes its shape), walked with a stack of its own (lists may nest deeply).  Records and outcomes
    inside are leaves: interned, they are told apart by identity."""
    kind = type(value)
    if kind is not tuple:
        return kind
    kinds = tuple(map(type, value))
    if _IDENTICAL_WHEN_EQUAL.issuperset(kinds):
        # a list of records, outcomes or text (a fleet): a list equal to it holds the same objects, so its
        # items need no shape (tuple, the class, is no value's exact type: it marks such a list)
        return tuple
    if tuple not in kinds:
        # a list of plain values: what the walk below gives, without it (its length, then each item's type)
        return ((tuple, len(value)), *kinds)
    identical = _IDENTICAL_WHEN_EQUAL.issuperset
    for item, kind in zip(value, kinds):
        if not (identical(map(type, item)) if kind is tuple else kind in _IDENTICAL_WHEN_EQUAL):
            break
    else:
        # lists of records, outcomes or text, or such items, in a list (a side's columns of ships): a list
        # equal to it holds the same objects in lists of the same lengths, so it needs no shape either (a
        # marker no walk below makes: a walk's shape starts with a (tuple, length) pair)
        return _NESTED_IDENTICAL
    shape: list[Any] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is tuple:
            shape.append((tuple, len(item)))
            stack.extend(reversed(item))
        else:
            shape.append(kind)
    return tuple(shape)


def _interned(table: dict[tuple, ref], key: tuple, make: Callable[[tuple], Any]) -> Any:
    """The value for ``key`` not found alive in ``table``: made by ``make(key)`` and added under the lock,
    unless another thread added it since (then that one).  Its entry leaves the table when it dies (_forget)."""
    with _TABLE_LOCK:
        reference = table.get(key)
        if reference is not None:
            found = reference()
            if found is not None:
                return found
        made = make(key)
        table[key] = ref(made, partial(_forget, table, key))
        return made


def _added(key: tuple[str, tuple[tuple[str, Any], ...], tuple]) -> Record:
    """A record for ``key`` (type name, pairs, shape) not found alive (see _interned)."""
    made: Record = _interned(_TABLE, key, _new_record)
    return made


def _new_record(key: tuple[str, tuple[tuple[str, Any], ...], tuple]) -> Record:
    type_name, pairs, shape = key
    # names and text interned: compiled code reads a field by a constant name and compares it with a constant
    # (``s._fields['status'] == 'fit'``), both matched by identity then, without comparing characters
    pairs = tuple([(intern(name), intern(value) if type(value) is str else value) for name, value in pairs])
    made = object.__new__(Record)
    object.__setattr__(made, "type_name", type_name)
    object.__setattr__(made, "_items", pairs)
    # a record of plain fields (no list, outcome or record inside) is as big as its fields, known now: a
    # list of such records is then measured without a Python loop (see measure)
    plain = Record not in shape and OutcomeValue not in shape and tuple not in shape and all(type(kind) is type for kind in shape)
    object.__setattr__(made, "_measure", (len(pairs), 0) if plain else None)
    # reversed: the first of equal names wins, as a scan of the pairs finds it
    object.__setattr__(made, "_fields", dict(reversed(pairs)))
    return made


def interned_count() -> int:
    """How many records the intern table holds now (dead ones not yet removed included): for tests."""
    return len(_TABLE)


_NO_FIELD = object()  # what Fields.get gives for a name the outcome does not carry, inside __getitem__


class Fields(tuple):
    """An outcome's fields: the ``(name, value)`` pairs they always were, also read by name.

    ``fields["hits"]``, ``"hits" in fields``, ``fields.get("hits")``, ``keys()``, ``values()`` and
    ``items()`` read it like a read-only mapping; iterating still gives the pairs, and equality, hashing
    and ``repr`` are a tuple's.  Why not a real Mapping: callers in and out of the package iterate the
    pairs, and ``repr`` of the pairs orders outcomes of equal probability (bundled odds must not move).
    An integer or a slice indexes the pairs, as before.
    """

    __slots__ = ()

    @overload
    def __getitem__(self, key: SupportsIndex) -> tuple[str, Any]: ...
    @overload
    def __getitem__(self, key: slice) -> tuple[tuple[str, Any], ...]: ...
    @overload
    def __getitem__(self, key: str) -> Any: ...

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            value = self.get(key, _NO_FIELD)
            if value is _NO_FIELD:
                raise KeyError(key)
            return value
        return tuple.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        """A field name is in it if the outcome carries that field (a pair is in it as in a tuple)."""
        if isinstance(key, str):
            return any(name == key for name, _ in self)
        return tuple.__contains__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key``'s value, or ``default`` if the outcome carries no such field."""
        for name, value in self:
            if name == key:
                return value
        return default

    def keys(self) -> list[str]:
        """The field names, in the order the outcome lists them."""
        return [name for name, _ in self]

    def values(self) -> list[Any]:
        """The field values, in the order the outcome lists them."""
        return [value for _, value in self]

    def items(self) -> list[tuple[str, Any]]:
        """The ``(name, value)`` pairs, as a list (as iterating gives them)."""
        return list(self)


@final  # interned by exact class, as Record is
class OutcomeValue:
    """What a procedure ends with: a name and fields (a :class:`Fields`, a tuple of pairs read by name too);
    interned like :class:`Record`: equal outcomes are one object.

    Why interned: exact odds keep resolved outcomes in their states, and every
    state is a dictionary key.  A Python-level ``__hash__`` (even one returning a
    kept hash) was called 3.7 million times on exact ``eia battle`` 3 v 3, and a
    dataclass ``__eq__`` 165,000 times, for 29,000 outcomes made (issue 24).  One
    object per content makes hashing and equality the built-in ones, by identity,
    in C.  Every way of making an outcome goes through ``__new__`` (constructor,
    :meth:`made`, pickle and copy through ``__reduce__``).

    Equality is by content *and exact type* of the values inside, as for records:
    an outcome carrying ``1`` is not the one carrying ``True``.
    """

    __slots__ = ("__weakref__", "_by_name", "_fields_text", "fields", "name")
    # set once in __new__ through object.__setattr__ (the outcome is immutable)
    name: str
    fields: Fields
    # Its fields by name, and ``outcome``, its name (what ``x.outcome`` reads): made with the outcome, as a
    # record's fields by name are (exact odds read fields of nearly every outcome they make: 30,000 on eia
    # 3 v 3); compiled code reads a field from it in one step.
    _by_name: dict[str, Any]
    _fields_text: str | None  # repr(fields), made once (see fields_text)

    def __new__(cls, name: str, fields: tuple[tuple[str, Any], ...] = ()) -> OutcomeValue:
        """The one outcome ``name`` with ``fields``: the live one when there is one, else a new one (looked up
        in this frame, as Record.__new__ does: every outcome exact odds keep comes this way)."""
        pairs = fields if type(fields) is Fields else Fields(fields)
        key = (name, pairs, _shape(pairs))
        reference = _OUTCOMES.get(key)
        if reference is not None:
            found = reference()
            if found is not None:
                return found
        return _added_outcome(key)

    @classmethod
    def made(cls, name: str, fields: tuple[tuple[str, Any], ...]) -> OutcomeValue:
        """``OutcomeValue(name, fields)`` (compiled code makes one per resolved call it keeps)."""
        return cls(name, fields)

    def __reduce__(self) -> tuple[Any, tuple[str, tuple[tuple[str, Any], ...]]]:
        """Pickled (and copied) as its contents, so that an outcome read back (a worker's result) is interned."""
        return OutcomeValue, (self.name, tuple(self.fields))

    def __setattr__(self, name, value):  # pragma: no cover - immutability guard
        raise AttributeError("OutcomeValue is immutable")

    # No __eq__ nor __hash__: interned, so object's identity comparison and hash are content equality.

    def __repr__(self) -> str:
        return f"OutcomeValue(name={self.name!r}, fields={self.fields!r})"

    def fields_by_name(self) -> dict[str, Any]:
        """Its fields by name, with ``outcome`` for its name (made with the outcome, see _new_outcome)."""
        return self._by_name

    def get(self, name: str, default: Any = None) -> Any:
        for key, value in self.fields:
            if key == name:
                return value
        return default

    def fields_dict(self) -> dict[str, Any]:
        return dict(self.fields)

    def fields_text(self) -> str:
        """``repr(self.fields)``, made once: it orders outcomes of equal probability and name."""
        text = self._fields_text
        if text is None:
            text = repr(self.fields)
            object.__setattr__(self, "_fields_text", text)
        return text


# Kinds of values equal only to a value of the same kind with the same meaning (_deep_shape): records and
# outcomes are interned (equal is identical), and text equals only text.  Numbers are not: 1 == True == Fraction(1).
_IDENTICAL_WHEN_EQUAL = frozenset((str, Record, OutcomeValue))
_NESTED_IDENTICAL = (tuple, tuple)  # _deep_shape's shape of a list of such values and lists of them

# Outcomes' intern table: as Record's (_TABLE, above), a table of its own (an outcome and a record of one
# name and fields are different values).
_OUTCOMES: dict[tuple, ref] = {}


def _added_outcome(key: tuple[str, Fields, tuple]) -> OutcomeValue:
    """An outcome for ``key`` (name, fields, shape) not found alive (see _interned)."""
    made: OutcomeValue = _interned(_OUTCOMES, key, _new_outcome)
    return made


def _new_outcome(key: tuple[str, Fields, tuple]) -> OutcomeValue:
    name, pairs, _ = key
    made = object.__new__(OutcomeValue)
    object.__setattr__(made, "name", name)
    object.__setattr__(made, "fields", pairs)
    object.__setattr__(made, "_by_name", _fields_by_name(name, pairs))
    object.__setattr__(made, "_fields_text", None)
    return made


def _fields_by_name(name: str, pairs: Fields) -> dict[str, Any]:
    """An outcome's fields by name and ``outcome``, its name.  Made from the pairs as a plain tuple, reversed so
    that the first of equal names wins, as Fields.get finds it: dict() of the Fields itself takes it for a
    mapping (it has keys()) and reads each name back through Fields.get, a scan of the pairs."""
    by_name = dict(reversed(tuple(pairs)))
    by_name["outcome"] = name
    return by_name


def to_plain(value: Any) -> Any:
    """A value as JSON-ready Python data."""
    if isinstance(value, Record):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, OutcomeValue):
        return {"name": value.name, "fields": {k: to_plain(v) for k, v in value.fields}}
    if isinstance(value, (tuple, list, frozenset)):
        return [to_plain(item) for item in value]
    if isinstance(value, Fraction):
        return f"{value.numerator}:{value.denominator}"
    return value


def show(value: Any) -> str:
    """A value as a player would write it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        return "[" + ", ".join(show(item) for item in value) + "]"
    if isinstance(value, Record):
        code = value.get("code")
        if isinstance(code, str) and code:
            return code
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, OutcomeValue):
        inner = ", ".join(f"{k} = {show(v)}" for k, v in value.fields)
        return f"{value.name}({inner})" if inner else value.name
    if isinstance(value, Fraction):
        return f"{value.numerator}:{value.denominator}"
    return str(value)


def brief(value: Any, width: int = 80) -> str:
    """``show(value)`` cut to about ``width`` characters, without building the whole text of a long list."""
    budget = [width]

    def text(item: Any) -> str:
        if budget[0] <= 0:
            return "..."
        if type(item) is tuple:
            parts = []
            for element in item:
                if budget[0] <= 0:
                    parts.append(f"... ({len(item)} items)")
                    break
                parts.append(text(element))
            shown = "[" + ", ".join(parts) + "]"
        else:
            shown = show(item) if not isinstance(item, (Record, OutcomeValue)) or _small(item) else type(item).__name__.lower()
        budget[0] -= len(shown) + 2
        return shown

    shown = text(value)
    return shown if len(shown) <= width else shown[: width - 3] + "..."


def _small(value: Record | OutcomeValue) -> bool:
    items = value.items() if isinstance(value, Record) else value.fields
    return all(type(item) is not tuple or len(item) <= 8 for _, item in items)


# ---- static types -----------------------------------------------------------


@dataclass(frozen=True)
class Type:
    """The type of a value, as the checker knows it."""

    # How a message names the type, when one word does; its kind of value (base_kind).  Class variables, not fields.
    WORD: ClassVar[str] = ""
    KIND: ClassVar[str] = "any"

    def describe(self) -> str:
        if not self.WORD:
            raise NotImplementedError(f"{type(self).__name__} says neither its WORD nor how to describe itself")
        return self.WORD


@dataclass(frozen=True)
class AnyType(Type):
    """A type not known before run time (checked where it is used)."""

    KIND, WORD = "any", "any"


@dataclass(frozen=True)
class IntType(Type):
    """An integer, with optional bounds."""

    KIND, WORD = "int", "int"
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class BoolType(Type):
    """A boolean."""

    KIND, WORD = "bool", "bool"


@dataclass(frozen=True)
class StrType(Type):
    """A string; ``values`` set for an enum."""

    values: tuple[str, ...] | None = None  # the enum's values, or None for any text
    KIND = "str"

    def describe(self) -> str:
        return "enum(" + ", ".join(self.values) + ")" if self.values else "str"


@dataclass(frozen=True)
class RatioType(Type):
    """Odds, attacker to defender, as made by ratio(attack, defense): exact, never rounded."""

    KIND, WORD = "ratio", "odds ratio"


@dataclass(frozen=True)
class ListType(Type):
    """A list of one element type (ordered, or order-free)."""

    KIND = "list"
    element: Type
    max_items: int | None = None
    # False: an order-free list (a fleet, a pool of dice), its values kept in canonical order
    # (see canonical) so that lists differing only in order are one value and merge
    ordered: bool = True
    min_items: int = 0  # fewest elements (a fleet of at least one ship); checked where inputs are coerced

    def describe(self) -> str:
        return f"list of {self.element.describe()}" if self.ordered else f"order-free list of {self.element.describe()}"


@dataclass(frozen=True)
class RecordType(Type):
    """A record type: named, typed fields."""

    KIND = "record"
    name: str
    fields: tuple[tuple[str, Type], ...]
    # Field defaults for values built from input (name -> value); not part of the type's identity.
    defaults: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    descriptions: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    # A union (proven_types.record_union): every type name its records may carry; () for one declared type.
    union_of: tuple[str, ...] = ()

    def field(self, name: str) -> Type | None:
        for key, value in self.fields:
            if key == name:
                return value
        return None

    def describe(self) -> str:
        return self.name


@dataclass(frozen=True)
class OutcomeType(Type):
    """The outcome of a procedure: ``.outcome`` is its name, other fields by name."""

    KIND = "record"
    procedure: str
    fields: tuple[tuple[str, Type], ...]

    def field(self, name: str) -> Type | None:
        if name == "outcome":
            return StrType()
        for key, value in self.fields:
            if key == name:
                return value
        return None

    def describe(self) -> str:
        return f"outcome of {self.procedure}"


ANY = AnyType()
RATIO = RatioType()
INT = IntType()
BOOL = BoolType()
STR = StrType()


def base_kind(t: Type) -> str:
    """'int', 'bool', 'str', 'ratio', 'list', 'record' (records and outcomes) or 'any': the type's KIND."""
    return t.KIND


def canonical_key(value: Any) -> tuple:
    """A total order over every kind of value: kinds apart, then by value (records field by field)."""
    kind = type(value)
    if kind is bool:
        return (0, value)
    if kind is int or kind is Fraction:
        return (1, value)
    if kind is str:
        return (2, value)
    if kind is tuple:
        return (3, tuple([canonical_key(item) for item in value]))
    if kind is Record:
        return (4, value.type_name, tuple([(name, canonical_key(item)) for name, item in value.items()]))
    if kind is OutcomeValue:
        return (5, value.name, tuple([(name, canonical_key(item)) for name, item in value.fields]))
    if value is None:
        return (-1,)
    return (6, repr(value))


def canonical(items: tuple) -> tuple:
    """An order-free list's items in the one order its values are kept in."""
    if len(items) < 2:
        return items
    return tuple(sorted(items, key=canonical_key))


def is_order_free(t: Type) -> bool:
    return isinstance(t, ListType) and not t.ordered


def compatible(expected: Type, actual: Type) -> bool:
    """Could a value of type ``actual`` be used where ``expected`` is wanted?"""
    a, b = base_kind(expected), base_kind(actual)
    if "any" in (a, b):
        return True
    if a != b:
        return False
    if isinstance(expected, ListType) and isinstance(actual, ListType):  # both lists, or neither (base kinds agree)
        return compatible(expected.element, actual.element)
    return True


def type_of_value(value: Any) -> Type | None:
    """The exact type of a value from the ruleset (a constant, a cell); None if a list mixes types."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, str):
        return STR
    if isinstance(value, Fraction):
        return RATIO
    if isinstance(value, tuple):
        element: Type = ANY
        for index, item in enumerate(value):
            item_type = type_of_value(item)
            joined = item_type if index == 0 or item_type is None else join(element, item_type)
            if joined is None:
                return None
            element = joined
        return ListType(element)
    if isinstance(value, Record):
        fields = []
        for name, item in value.items():
            field_type = type_of_value(item)
            if field_type is None:
                return None
            fields.append((name, field_type))
        return RecordType(value.type_name, tuple(fields))
    return ANY


def join(a: Type, b: Type) -> Type | None:
    """The one type that holds values of both ``a`` and ``b``, or None when there is none.

    Unknown (``any``) absorbs: what joins an unknown stays unknown and is
    checked where it is used.
    """
    if isinstance(a, AnyType) or isinstance(b, AnyType):
        return ANY
    kind = base_kind(a)
    if kind != base_kind(b) or type(a) is not type(b):
        return None
    # a and b are of one class from here on (tested on each, for the type checker)
    if isinstance(a, IntType):
        return a if a == b else INT
    if isinstance(a, StrType) and isinstance(b, StrType):
        if a.values is None or b.values is None:
            return STR
        return a if a == b else StrType(tuple(dict.fromkeys(a.values + b.values)))
    if isinstance(a, ListType) and isinstance(b, ListType):
        element = join(a.element, b.element)
        return ListType(element) if element is not None else None
    if isinstance(a, RecordType) and isinstance(b, RecordType):
        return _join_records(a, b)
    if isinstance(a, OutcomeType) and isinstance(b, OutcomeType):
        return a if a.procedure == b.procedure else None
    return a


def _join_records(a: RecordType, b: RecordType) -> RecordType | None:
    """Two record types joined field by field: same name, same fields in the same order, each field joined."""
    made = joined_fields(a, b, join) if a.name == b.name else None
    if made is None:
        return None
    return a if made == a.fields else RecordType(a.name, made, a.defaults, a.descriptions, a.union_of)


def joined_fields(
    a: RecordType, b: RecordType, joiner: Callable[[Type, Type], Type | None]
) -> tuple[tuple[str, Type], ...] | None:
    """The fields of two record types with the same field names in the same order, each pair joined by ``joiner``;
    None when the names differ or a pair does not join (join here; proven_types.record_union's own join)."""
    if [n for n, _ in a.fields] != [n for n, _ in b.fields]:
        return None
    fields = []
    for (name, x), (_, y) in zip(a.fields, b.fields):
        joined = joiner(x, y)
        if joined is None:
            return None
        fields.append((name, joined))
    return tuple(fields)


def unknown_within(expected: Type, actual: Type) -> bool:
    """Where ``expected`` is precise, is ``actual`` unknown (``any``), so that only a run-time check can tell?"""
    while True:
        if isinstance(expected, AnyType):
            return False
        if isinstance(actual, AnyType):
            return True
        if isinstance(expected, ListType) and isinstance(actual, ListType):
            expected, actual = expected.element, actual.element
            continue
        return False


# What each kind of value is called in a run-time type error, bool before int (a bool is an int to Python).
_VALUE_KINDS: tuple[tuple[type, str], ...] = (
    (bool, "true/false"),
    (int, "a number"),
    (str, "text"),
    (tuple, "a list"),
    (Fraction, "an odds ratio"),
    (OutcomeValue, "an outcome"),
    (Record, "a record"),
)


def kind_of_value(value: Any) -> str:
    """What a value is, in a player's words, for a run-time type error."""
    for kind, words in _VALUE_KINDS:
        if isinstance(value, kind):
            return words
    return type(value).__name__


def measure(value: Any, max_items: int, max_depth: int) -> tuple[int, int]:
    """(items, depth) of a value, counting shared parts each time they appear.

    Iterative, and it stops as soon as either count passes its limit, so a
    value built by repeating a repeated list costs no more than the limit to
    measure.  Records know their own size (see values.Record), so a list of
    records costs one step a record.  The values a play makes hundreds of
    times (a record, a list of records or numbers, a list of such lists: the
    columns of a fleet) are measured without the general walk.
    """
    kind = type(value)
    if kind is Record:  # a record knows its size (with_field makes one a play)
        return value._measure or value._measured()
    if kind is tuple:
        if len(value) > _LONG_LIST:
            # measured by loops in C: a long list of plain values, or of records whose size is known
            kinds = set(map(type, value))
            if kinds.isdisjoint(_INNER_KINDS):
                return len(value), 1
            if kinds == _ONLY_RECORDS:
                sizes = list(map(_RECORD_SIZE, value))
                if None not in sizes:
                    return len(value) + sum(map(_first, sizes)), 1 + max(map(_second, sizes))
        found = _flat_measure(value)
        if found is not None:
            return found
        # a list of flat lists (and records, plain values)
        items, depth = len(value), 1
        for item in value:
            kind = type(item)
            if kind is tuple:
                inner = _flat_measure(item)
                if inner is None:
                    break  # lists deeper still: the general walk below
                items += inner[0]
                if inner[1] >= depth:
                    depth = inner[1] + 1
                if items > max_items:
                    return items, depth
            elif kind is Record:
                size, inner_depth = item._measure or item._measured()
                items += size
                if inner_depth >= depth:
                    depth = inner_depth + 1
            elif kind is OutcomeValue:
                break
        else:
            return items, depth
    return _measure_nested(value, max_items, max_depth)


def _flat_measure(value: tuple) -> tuple[int, int] | None:
    """(items, depth) of a list of plain values and records; None when a list or an outcome is inside."""
    items, depth = len(value), 1
    for item in value:
        kind = type(item)
        if kind is Record:
            size, inner = item._measure or item._measured()
            items += size
            if inner >= depth:
                depth = inner + 1
        elif kind is tuple or kind is OutcomeValue:
            return None
    return items, depth


_LONG_LIST = 16  # items in a list above which measure's loops in C pay for the sets and lists they make
_INNER_KINDS = frozenset((tuple, Record, OutcomeValue))  # kinds of item that make a list bigger than its length
_ONLY_RECORDS = {Record}
_RECORD_SIZE = attrgetter("_measure")
_first = itemgetter(0)


def _measure_nested(value: Any, max_items: int, max_depth: int) -> tuple[int, int]:
    """:func:`measure` of a value with lists (or outcomes) inside lists: a walk with a stack of its own."""
    items = 0
    depth = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        current, level = stack.pop()
        kind = type(current)
        if kind is tuple:
            items += len(current)
            level += 1
            depth = max(depth, level)
            if items > max_items or depth > max_depth:
                return items, depth
            in_records, record_depth = _measure_items(current, level, stack)
            items += in_records
            depth = max(depth, record_depth)
            if items > max_items or depth > max_depth:
                return items, depth
        elif kind is Record:
            size, inner = current._measured()
            items += size
            depth = max(depth, level + inner)
            if items > max_items or depth > max_depth:
                return items, depth
        elif kind is OutcomeValue:
            items += len(current.fields)
            for _, item in current.fields:
                if type(item) in (tuple, Record, OutcomeValue):
                    stack.append((item, level))
    return items, depth


def _measure_items(items: tuple, level: int, stack: list[tuple[Any, int]]) -> tuple[int, int]:
    """The items inside a list's records, and the depth they reach at ``level``; the list's lists and
    outcomes pushed on ``stack`` to be measured in turn."""
    count, depth = 0, 0
    for item in items:
        kind = type(item)
        if kind is tuple or kind is OutcomeValue:
            stack.append((item, level))
        elif kind is Record:
            size, inner = item._measured()
            count += size
            depth = max(depth, level + inner)
    return count, depth
