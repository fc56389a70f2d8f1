"""The generated module: its source, the values it refers to by name, and how it is loaded.

Safety.  The generated text is Python source that the engine writes and
``compile()``s; no text from a ruleset is ever evaluated.  User text
(procedure, field, outcome and variable names, strings, notes, rule
citations, the ruleset lines quoted in comments) reaches the generated
source only through ``repr()`` of an ``int``, a ``bool`` or a ``str``
(:func:`literal`, ``!r`` in the writers, :func:`writer.source_comment`).
Every identifier in the generated source is the engine's own (``v3`` for
slot 3, ``i0`` for the first input, ``k12`` for a constant, ``f7`` for a
function), never a name from the ruleset.  Every other value (tables,
records, lists, positions, types, built-in implementations) is passed in
by reference (:meth:`GeneratedModule.ref`) through the namespace the code
runs in, never written as text.  The namespace offers the generated code
only the few built-ins it uses (:data:`ALLOWED_BUILTINS`).
"""

from __future__ import annotations

import builtins as _python_builtins
import math
from typing import Any

from ..chains import Round, make_round
from ..inputs import MAX_INT_BITS
from ..runtime import (
    Acc,
    changed_record,
    coerced_input,
    counted,
    counted_range,
    divide,
    field,
    index,
    key_field,
    make_range,
    negative_limit,
    no_key_field,
    not_a_list,
    overflow,
    past_limit,
    range_size,
    too_deep,
    violated,
)
from ..values import OutcomeValue, Record, canonical

UNSET = object()  # a value hoisted out of a loop (Monte Carlo trials, a roll's faces), not computed yet

# The only built-ins generated code may use.
ALLOWED_BUILTINS = ("len", "int", "bool", "str", "dict", "min", "max", "abs", "all", "any", "tuple", "range", "type", "enumerate", "sum", "sorted")

# The names every generated module starts with: runtime helpers (shared with the evaluator) and a few types.
_PRELUDE: tuple[tuple[str, Any], ...] = (
    ("Acc", Acc), ("lcm", math.lcm), ("UNSET", UNSET), ("OVF", overflow), ("DIV", divide), ("FLD", field),
    ("IDX", index), ("CNT", counted), ("RNG", make_range), ("CRNG", counted_range), ("CHREC", changed_record), ("RSIZE", range_size), ("VIOL", violated), ("NOTLIST", not_a_list),
    ("NEGLIM", negative_limit), ("PASTLIM", past_limit), ("TOODEEP", too_deep), ("tuple_", tuple), ("ONE", (1,)),
    ("KFLD", key_field), ("NOKFLD", no_key_field), ("FMISS", (AttributeError, KeyError, IndexError)),
    ("REC", Record), ("OUT", OutcomeValue), ("MISS", Record.MISSING), ("COERCED", coerced_input), ("ROUND", make_round), ("STAYS_NOT", Round), ("CANON", canonical),
)


class GeneratedModule:
    """The source being written for one procedure, and the values it refers to by name."""

    def __init__(self) -> None:
        self.functions: list[list[str]] = []
        self.values: dict[str, Any] = dict(_PRELUDE)
        self._by_id: dict[int, str] = {}
        self._keep: list[Any] = []  # keeps referenced objects alive while ids are used as keys
        self.counter = 0
        self.written: list[str] = []  # the source compiled so far
        self.space: dict[str, Any] | None = None  # the namespace the generated functions run in

    def name(self, prefix: str) -> str:
        """A fresh identifier of the generated code (the prefix says what it names)."""
        self.counter += 1
        return f"{prefix}{self.counter}"

    def ref(self, value: Any, prefix: str = "k") -> str:
        """A name in the namespace for ``value`` (by identity): how non-literal values reach the code."""
        key = id(value)
        found = self._by_id.get(key)
        if found is None:
            found = self.name(prefix)
            self._by_id[key] = found
            self._keep.append(value)
            self.values[found] = value
        return found

    def add(self, lines: list[str]) -> None:
        self.functions.append(lines)

    def source(self) -> str:
        return "".join(self.written)

    def load(self, label: str) -> dict[str, Any]:
        """Compile the functions written since the last load into the namespace (made on first use); the namespace."""
        text = "\n".join(line for function in self.functions for line in function) + "\n"
        self.functions = []
        self.written.append(text)
        if self.space is None:
            allowed = {name: getattr(_python_builtins, name) for name in ALLOWED_BUILTINS}
            self.space = {"__builtins__": allowed}
        self.space.update(self.values)
        filename = f"{label[:-1]} #{id(self)}.{len(self.written)}>"
        register_source(self, filename, text)
        exec(compile(text, filename, "exec"), self.space)  # noqa: S102 - our own generated source: see the module docstring
        return self.space


def register_source(owner: object, filename: str, text: str) -> None:
    """Let tracebacks and debuggers show the generated lines of ``filename`` (``linecache``), while ``owner`` lives.

    An internal error inside generated code (a bug of the engine, never a
    user error: those carry positions) then prints its line, not a blank.
    The name is unique to ``owner`` and to the chunk, so two rulesets in one
    process never share an entry, and the entry goes with ``owner``.  An
    entry whose modification time is None is one that ``linecache.checkcache``
    leaves alone.
    """
    import linecache
    import weakref

    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    weakref.finalize(owner, linecache.cache.pop, filename, None)


def literal(value: Any) -> str | None:
    """Python source for an int, a bool or a str (through repr); None for anything else."""
    kind = type(value)
    if kind is bool or kind is str:
        return repr(value)
    if kind is int:
        return repr(value) if value >= 0 else f"({value!r})"
    return None


def plain_check(module: GeneratedModule, expected: Any, value: str) -> str | None:
    """Python source of a test that ``value`` (source) is an int, bool or str that ``inputs.coerce`` would
    return as it is for type ``expected``; None for types coerce must look at.  The test is exact: what
    it refuses, coerce refuses or changes, or the caller hands to coerce (subclasses of int or str)."""
    from ..values import BoolType, IntType, StrType

    kind = type(expected)
    if kind is IntType:
        bound = (1 << MAX_INT_BITS) - 1  # at most MAX_INT_BITS bits, sign apart
        low = -bound if expected.low is None else max(-bound, expected.low)
        high = bound if expected.high is None else min(bound, expected.high)
        return f"type({value}) is int and {literal(low)} <= {value} <= {literal(high)}"
    if kind is BoolType:
        return f"type({value}) is bool"
    if kind is StrType:
        if expected.values is None:
            return f"type({value}) is str"
        return f"type({value}) is str and {value} in {module.ref(frozenset(expected.values), 'allowed')}"
    return None
