"""A loaded ruleset: the model, its checked procedures, and the Python code compiled from them.

:func:`compile_model` pairs an immutable :class:`~ruleset.Ruleset` (tables,
modifiers, constants, procedures as written) with what the checker made of
its procedures (:mod:`ir`) and the functions the compiler generated from
those (:mod:`engine`).  Nothing is patched in afterwards: the object is
made once, whole, and two of them share nothing mutable.

The model's parts are readable straight from the compiled ruleset
(``ruleset.tables``, ``ruleset.examples``...), so code that only reads a
ruleset does not care which of the two it holds.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Mapping
from dataclasses import FrozenInstanceError
from types import MappingProxyType
from typing import Any

from . import ir
from .binding import InputPlan, input_plan
from .errors import DiagnosticList
from .ruleset import Ruleset


def _model_parts(*names: str) -> tuple[Any, ...]:
    """Read-only properties that read the model's attribute of the same name, one per name.

    Typed Any: each is whatever the model holds (``Ruleset`` declares it).
    """
    return tuple(property(operator.attrgetter(f"model.{name}"), doc=f"The model's ``{name}``.") for name in names)


class CompiledRuleset:
    """A ruleset ready to run: ``model``, ``compiled`` (checked procedures) and their generated code."""

    __slots__ = ("_code", "_illustrative", "_lock", "_plans", "_read_inputs", "_readings", "compiled", "exact_results", "model", "name")
    model: Ruleset
    name: str
    compiled: Mapping[str, ir.CheckedProcedure]
    exact_results: dict[Any, Any]
    _code: dict[str, Any]  # procedure name -> engine.ProcedureCode
    _illustrative: dict[str, tuple[str, ...]]
    _readings: dict[str, tuple[str, ...]]
    _plans: dict[str, InputPlan]
    _read_inputs: dict[str, tuple[int, ...] | None]
    _lock: threading.Lock

    def __init__(self, model: Ruleset, compiled: Mapping[str, ir.CheckedProcedure], illustrative: Mapping[str, tuple[str, ...]] | None = None,
                 readings: Mapping[str, tuple[str, ...]] | None = None):
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "name", model.name)
        object.__setattr__(self, "compiled", MappingProxyType(dict(compiled)))
        object.__setattr__(self, "_code", {})
        object.__setattr__(self, "_illustrative", dict(illustrative or {}))  # worked out when first asked (or given)
        object.__setattr__(self, "_readings", dict(readings or {}))  # the same
        object.__setattr__(self, "_plans", {})
        object.__setattr__(self, "_read_inputs", {})
        object.__setattr__(self, "_lock", threading.Lock())
        # The exact outcomes of procedures resolved inside others, kept from one call to the next
        # (runtime.Run.call_exact): a battle's round is the same in every battle.  Keyed by the
        # procedure, its inputs, the choices and the limits; bounded by max_memo_entries.
        object.__setattr__(self, "exact_results", {})

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: a compiled ruleset is immutable")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: a compiled ruleset is immutable")

    def program(self, name: str) -> Any:
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

            found = self._illustrative[name] = illustrative_tables(self.model, name)
        return found

    def readings(self, name: str) -> tuple[str, ...]:
        """The topics of the notes (the ruleset's own readings) procedure ``name``'s result may rest on (worked out once)."""
        found = self._readings.get(name)
        if found is None:
            from .callgraph import readings

            found = self._readings[name] = readings(self.model, name)
        return found

    def input_plan(self, name: str) -> InputPlan:
        """How procedure ``name``'s inputs are checked (:class:`binding.InputPlan`), worked out once."""
        plan = self._plans.get(name)
        if plan is None:
            plan = self._plans[name] = input_plan(self.compiled[name])
        return plan

    def read_inputs(self, name: str) -> tuple[int, ...] | None:
        """The places in procedure ``name``'s inputs tuple that its body reads, None when all
        (engine.facts.read_input_places), worked out once: the keys of its exact results in the memo."""
        try:
            return self._read_inputs[name]
        except KeyError:
            from .engine.facts import read_input_places

            found = self._read_inputs[name] = read_input_places(self.compiled[name])
            return found

    # ---- the model, read through: ruleset.tables is ruleset.model.tables ----------------

    title, source, version, description, path = _model_parts("title", "source", "version", "description", "path")
    constants, types, tables, modifiers, procedures = _model_parts("constants", "types", "tables", "modifiers", "procedures")
    notes, examples, aids = _model_parts("notes", "examples", "aids")

    def __repr__(self) -> str:
        return f"CompiledRuleset({self.model.name!r}, {len(self.compiled)} procedures)"


def compile_model(model: Ruleset, diagnostics: DiagnosticList | None = None) -> CompiledRuleset:
    """Check ``model``'s procedures and pair them with it.  Problems go to ``diagnostics`` (raised when None)."""
    from .checker import compile_ruleset

    own = diagnostics is None
    diagnostics = diagnostics if diagnostics is not None else DiagnosticList()
    compiled = compile_ruleset(model, diagnostics)
    if own:
        diagnostics.raise_if_any()
    return CompiledRuleset(model, compiled)
