"""Record types the checker can vouch for: what makes "the checker says this is a ``ship``" true at run time.

The checker's ``compatible`` asks only whether two types are of one kind, so on its own it let a ``crew`` flow
into a variable typed ``ship`` (``set``), and a value typed ``any`` flow into a record-typed place with no check.
The checker now closes both holes where a record type (or a list of them, at any depth) is wanted:

- a record of another type where one is wanted (``set``, a record's field, ``with_field``, ``append``,
  ``replace_at``) is a checker error (:func:`records_differ`): the mismatch is certain;
- a value typed ``any`` there gets a run-time guard (``ir.Guard``, :func:`guard_needed`), which :func:`conforms`
  checks down to each record's type name and fields;
- the two branches of ``if c then a else b`` and the items of a list literal are joined (:func:`join_proven`):
  an unknown branch makes the result unknown; two record types with the same fields under different names (the
  cells of two tables, great_war's attrition tables) make a union type, :func:`record_union`.  A cell remembers
  its table (``inputs.coerce`` refuses a cell of one table where another's is wanted), so the two are not one
  type; but both have every field, and a field read of either is sound.

So a value the checker types as a ``RecordType`` (or a list of them) is, at run time, a ``values.Record`` whose
type name is the type's (or one of a union's) with every field the type names; a field that is itself typed as a
record holds such a record.  The engine relies on it (``ir.Field.proven_field_type``): a read of such a field cannot
fail.  What a field of a number, text or yes/no holds is not vouched for (a variable of text may be ``set`` to a
value typed ``any`` without a guard, and an enumerated field may hold text outside its values: ``outcome from``
checks that at run time, tests/test_outcome_from.py); a guard still checks a record's fields' kinds.  Outcomes are
not covered either (an outcome may lack a field that another outcome of the same procedure gives).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .values import (
    AnyType,
    ListType,
    OutcomeType,
    OutcomeValue,
    Record,
    RecordType,
    Type,
    base_kind,
    join,
    joined_fields,
)


def holds_records(t: Type) -> bool:
    """Is ``t`` a record type (not an outcome), or a list of them at any depth?"""
    while isinstance(t, ListType):
        t = t.element
    return isinstance(t, RecordType)


def records_differ(expected: Type, actual: Type) -> bool:
    """Is ``actual`` a record type (or a list of them) that can never be ``expected``'s record type?  Where
    ``expected`` is a union (record_union), a type of one of its names fits."""
    while isinstance(expected, ListType) and isinstance(actual, ListType):
        expected, actual = expected.element, actual.element
    if not (isinstance(expected, RecordType) and isinstance(actual, RecordType)):
        return False
    return not set(names_of(actual)) <= set(names_of(expected))


def names_of(t: RecordType) -> tuple[str, ...]:
    """The type names a record of type ``t`` may carry at run time: a union's, or the type's own."""
    return t.union_of or (t.name,)


def guard_needed(expected: Type, actual: Type) -> bool:
    """Does a value typed ``actual`` need a run-time guard to be put where ``expected`` (which holds records) is
    wanted?  Only where the checker does not know it (``any`` at the place of the record or of a list)."""
    while True:
        if isinstance(expected, AnyType):
            return False
        if isinstance(actual, AnyType):
            return holds_records(expected)
        if isinstance(expected, ListType) and isinstance(actual, ListType):
            expected, actual = expected.element, actual.element
            continue
        return False


def join_proven(a: Type, b: Type) -> Type | None:
    """The type of a value that is either ``a`` or ``b`` when one of them holds records: unknown when either is,
    a union of two record types with the same fields (record_union); None when no type holds both."""
    if isinstance(a, AnyType) or isinstance(b, AnyType):
        return a if isinstance(a, AnyType) else b
    if isinstance(a, ListType) and isinstance(b, ListType):
        element = join_proven(a.element, b.element)
        return None if element is None else (a if element == a.element else ListType(element))
    if isinstance(a, RecordType) and isinstance(b, RecordType):
        return join(a, b) if a.name == b.name else record_union(a, b)
    return join(a, b)


def record_union(a: RecordType, b: RecordType) -> RecordType | None:
    """One type for records of either of two record types with the same fields in the same order (each field
    joined): its name says both, ``union_of`` lists every name a value may carry.  None when the fields differ."""
    fields = joined_fields(a, b, join_proven)
    if fields is None:
        return None
    names = tuple(dict.fromkeys(names_of(a) + names_of(b)))
    return RecordType(" or ".join(names), fields, union_of=names)


def conforms(value: Any, expected: Type) -> bool:
    """Does a value have the shape ``expected`` names?  (Checks what the checker could not know.)  A record is
    checked down to its type name and its fields (see the module's docstring)."""
    pending = [(value, expected)]
    while pending:
        value, expected = pending.pop()
        if not _conforms_here(value, expected, pending):
            return False
    return True


_SCALARS: dict[str, type] = {"int": int, "bool": bool, "str": str}


def _conforms_here(value: Any, expected: Type, pending: list[tuple[Any, Type]]) -> bool:
    """One value against one type; the parts still to check (a list's items, a record's fields) added to ``pending``."""
    kind = base_kind(expected)
    if kind == "any":
        return True
    if kind in _SCALARS:
        return type(value) is _SCALARS[kind]
    if kind == "ratio":
        return isinstance(value, Fraction)
    if kind == "list":
        if type(value) is not tuple or not isinstance(expected, ListType):
            return False
        if base_kind(expected.element) != "any":
            pending.extend((item, expected.element) for item in value)
        return True
    if isinstance(expected, OutcomeType):
        return isinstance(value, OutcomeValue)
    if not isinstance(value, Record):
        return False
    if isinstance(expected, RecordType):
        if value.type_name not in names_of(expected) or not all(name in value._fields for name, _ in expected.fields):
            return False
        pending.extend((value._fields[name], field_type) for name, field_type in expected.fields)
    return True
