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

So a value the checker types as a ``RecordType`` is, at run time, a ``values.Record`` whose type name is the
type's (or one of a union's) with every field the type names, each field holding a value of the field's kind.
The engine relies on it (``ir.Field.proven_field_type``): a read of such a field cannot fail.  Outcomes are not
covered (an outcome may lack a field that another outcome of the same procedure gives).
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
    StrType,
    Type,
    base_kind,
    join,
)


def holds_records(t: Type) -> bool:
    """Is ``t`` a record type (not an outcome), or a list of them at any depth?"""
    while isinstance(t, ListType):
        t = t.element
    return isinstance(t, RecordType)


def vouched(t: Type) -> bool:
    """Does the checker vouch for more than the kind of a value of type ``t``: a record type, an enumeration, or a
    list of them?  Where two such types meet (an ``if``'s branches, a list's items) the result is their join."""
    while isinstance(t, ListType):
        t = t.element
    return isinstance(t, RecordType) or (isinstance(t, StrType) and t.values is not None)


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
    if [n for n, _ in a.fields] != [n for n, _ in b.fields]:
        return None
    fields = []
    for (name, x), (_, y) in zip(a.fields, b.fields):
        joined = join_proven(x, y)
        if joined is None:
            return None
        fields.append((name, joined))
    names = tuple(dict.fromkeys(names_of(a) + names_of(b)))
    return RecordType(" or ".join(names), tuple(fields), union_of=names)


def conforms(value: Any, expected: Type) -> bool:
    """Does a value have the shape ``expected`` names?  (Checks what the checker could not know.)  A record is
    checked down to its type name and its fields (see the module's docstring)."""
    pending = [(value, expected)]
    while pending:
        value, expected = pending.pop()
        kind = base_kind(expected)
        if kind == "any":
            continue
        if kind in ("int", "bool", "str"):
            if type(value) is not {"int": int, "bool": bool, "str": str}[kind]:
                return False
            if isinstance(expected, StrType) and expected.values is not None and value not in expected.values:
                return False  # an enumeration's text
        elif kind == "ratio":
            if not isinstance(value, Fraction):
                return False
        elif kind == "list":
            if type(value) is not tuple or not isinstance(expected, ListType):
                return False
            element = expected.element
            if base_kind(element) != "any":
                pending.extend((item, element) for item in value)
        elif isinstance(expected, OutcomeType):
            if not isinstance(value, OutcomeValue):
                return False
        elif not isinstance(value, Record):
            return False
        elif isinstance(expected, RecordType):
            if value.type_name not in names_of(expected) or not all(name in value._fields for name, _ in expected.fields):
                return False
            pending.extend((value._fields[name], field_type) for name, field_type in expected.fields)
    return True


def enum_unproven(expected: Type, actual: Type) -> bool:
    """Where ``expected`` is an enumeration (or a list of them), may a value the checker types ``actual`` be text
    outside it?  ``compatible`` lets plain text into an enumeration; a guard there makes a record's enumerated field a
    proof (a value typed ``any`` is guard_needed's).  Bounded numbers are not covered: nothing relies on them."""
    while isinstance(expected, ListType) and isinstance(actual, ListType):
        expected, actual = expected.element, actual.element
    if not (isinstance(expected, StrType) and expected.values is not None) or isinstance(actual, AnyType):
        return False
    return not (isinstance(actual, StrType) and actual.values is not None and set(actual.values) <= set(expected.values))
