"""A loaded ruleset: the model, its checked procedures, and the Python code compiled from them.

:func:`compile_model` pairs an immutable :class:`~ruleset.Ruleset` (tables,
modifiers, constants, procedures as written) with what the checker made of
its procedures (:mod:`ir`) and the functions the compiler generated from
those (:mod:`compiler`).  Nothing is patched in afterwards: the object is
made once, whole, and two of them share nothing mutable.

The model's parts are readable straight from the compiled ruleset
(``ruleset.tables``, ``ruleset.examples``...), so code that only reads a
ruleset does not care which of the two it holds.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import FrozenInstanceError
from types import MappingProxyType
from typing import Any

from . import ir
from .errors import DiagnosticList
from .ruleset import Ruleset


class CompiledRuleset:
    """A ruleset ready to run: ``model``, ``compiled`` (checked procedures) and their generated code."""

    __slots__ = ("_code", "_illustrative", "_lock", "_plans", "compiled", "exact_results", "model", "name")

    def __init__(self, model: Ruleset, compiled: Mapping[str, ir.CheckedProcedure], illustrative: Mapping[str, tuple[str, ...]] | None = None):
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "name", model.name)
        object.__setattr__(self, "compiled", MappingProxyType(dict(compiled)))
        object.__setattr__(self, "_code", {})
        object.__setattr__(self, "_illustrative", dict(illustrative or {}))  # worked out when first asked (or given)
        object.__setattr__(self, "_plans", {})
        object.__setattr__(self, "_lock", threading.Lock())
        # The exact outcomes of procedures resolved inside others, kept from one call to the next
        # (runtime.Run.call_exact): a battle's round is the same in every battle.  Keyed by the
        # procedure, its inputs, the choices and the limits; bounded by max_memo_entries.
        object.__setattr__(self, "exact_results", {})

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: a compiled ruleset is immutable")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: a compiled ruleset is immutable")

    def program(self, name: str):
        """The generated code of procedure ``name`` (:class:`engine.ProcedureCode`).

        Each procedure is compiled once, the first time it is run, and kept:
        a ruleset with many procedures loads without compiling those a
        command never runs (about a millisecond each).
        """
        code = self._code.get(name)
        if code is None:
            with self._lock:
                code = self._code.get(name)
                if code is None:
                    from .engine import compile_procedure

                    code = compile_procedure(self.compiled[name], self.compiled)
                    self._code[name] = code
        return code

    def illustrative_tables(self, name: str) -> tuple[str, ...]:
        """The tables marked ``example: true`` that procedure ``name`` may read (worked out once)."""
        found = self._illustrative.get(name)
        if found is None:
            from .callgraph import illustrative_tables

            found = self._illustrative[name] = illustrative_tables(self, name)
        return found

    def input_plan(self, name: str) -> tuple:
        """How procedure ``name``'s inputs are checked, worked out once: (declared names, one row per input).

        Each row is (name, kind, low, high, values, default, type): kind is 1 for
        an int, 2 for a bool, 3 for a str, 0 for anything coerce() must look at.
        """
        plan = self._plans.get(name)
        if plan is None:
            plan = self._plans[name] = input_plan(self.compiled[name])
        return plan

    # ---- the model, read through ---------------------------------------------------

    title = property(lambda self: self.model.title)
    source = property(lambda self: self.model.source)
    version = property(lambda self: self.model.version)
    description = property(lambda self: self.model.description)
    path = property(lambda self: self.model.path)
    constants = property(lambda self: self.model.constants)
    types = property(lambda self: self.model.types)
    tables = property(lambda self: self.model.tables)
    modifiers = property(lambda self: self.model.modifiers)
    procedures = property(lambda self: self.model.procedures)
    notes = property(lambda self: self.model.notes)
    examples = property(lambda self: self.model.examples)
    aids = property(lambda self: self.model.aids)

    def __repr__(self) -> str:
        return f"CompiledRuleset({self.model.name!r}, {len(self.compiled)} procedures)"


def input_plan(procedure: ir.CheckedProcedure) -> tuple:
    """(declared input names, one row per input): see CompiledRuleset.input_plan."""
    from .values import BoolType, IntType, StrType

    rows = []
    for spec in procedure.inputs:
        kind = {IntType: 1, BoolType: 2, StrType: 3}.get(type(spec.type), 0)
        rows.append((spec.name, kind, getattr(spec.type, "low", None), getattr(spec.type, "high", None), getattr(spec.type, "values", None), spec.default, spec.type))
    return frozenset(row[0] for row in rows), tuple(rows)


def compile_model(model: Ruleset, diagnostics: DiagnosticList | None = None) -> CompiledRuleset:
    """Check ``model``'s procedures and pair them with it.  Problems go to ``diagnostics`` (raised when None)."""
    from .checker import compile_ruleset

    own = diagnostics is None
    diagnostics = diagnostics if diagnostics is not None else DiagnosticList()
    compiled = compile_ruleset(model, diagnostics)
    if own:
        diagnostics.raise_if_any()
    return CompiledRuleset(model, compiled)
