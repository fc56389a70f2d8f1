"""Inputs: the check behind ``ProcedureCode.plain_inputs``, and a resolved procedure's inputs built where it is called.

A call to another procedure normally goes through ``runtime.callee_inputs``
on every call.  When the callee has no choices, the engine writes the
binding in place instead (:func:`direct_call_inputs`): an argument whose
checked type needs no coercion is passed as it is, one that does is tested
in place for the common case and otherwise coerced by the runtime helper
with the same message, and a default is coerced once, when the procedure
compiles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import ir
from .module import literal, plain_check
from .writer import CodeWriter

if TYPE_CHECKING:  # pragma: no cover - types only
    from .expressions import Expressions
    from .program import ProcedureCompiler


def write_inputs_check(c: ProcedureCompiler) -> str:
    """The function behind ProcedureCode.plain_inputs; its name."""
    from ..ruleset import MISSING

    m = c.module
    name = f"a{c.number}_{m.name('')}"
    f = CodeWriter(m, name, "given")
    specs = c.procedure.inputs
    if c.procedure.choices or any(plain_check(m, spec.type, "x") is None for spec in specs):
        f.line("return None")
        m.add(f.finish())
        return name
    declared = m.ref(frozenset(spec.name for spec in specs), "names")
    f.line(f"if given is None: given = {m.ref({}, 'empty')}")
    f.line(f"elif type(given) is not dict or not {declared}.issuperset(given): return None")
    values = []
    for number, spec in enumerate(specs):
        value = f"x{number}"
        values.append(value)
        default = spec.default
        written = m.ref(MISSING, "required") if default is MISSING else (literal(default) or m.ref(default, "d"))
        f.comment(spec.pos)
        f.line(f"{value} = given.get({spec.name!r}, {written})")
        f.line(f"if not ({plain_check(m, spec.type, value)}): return None")
    pairs = ", ".join(f"{spec.name!r}: {value}" for spec, value in zip(specs, values))
    f.line(f"return {{{pairs}}}, ({''.join(value + ', ' for value in values)})")
    m.add(f.finish())
    return name


def direct_inputs(c: ProcedureCompiler, call: ir.CallProcedure) -> list[tuple[str, Any]] | None:
    """How the inputs tuple of a resolved procedure is built where it is called, one entry per callee
    input: ("arg", name) for an argument passed as it is (``call.trusted``), ("check", (name, spec))
    for one coerced as runtime.callee_inputs would (same message, same order), ("value", source)
    for a default (coerced now: callee_inputs would coerce it the same way on every call).  None when
    the callee has choices (read from the run): then callee_inputs does it all on every call."""
    from ..inputs import CoercionError, coerce
    from ..ruleset import MISSING

    callee = c.callees.get(call.procedure)
    if callee is None or callee.choices:
        return None
    given = {name for name, _ in call.args}
    parts: list[tuple[str, Any]] = []
    for spec in callee.inputs:
        if spec.name in given:
            parts.append(("arg", spec.name) if spec.name in call.trusted else ("check", (spec.name, spec)))
            continue
        if spec.default is MISSING:
            return None  # the checker requires it at the call: not reached
        try:
            value = coerce(spec.default, spec.type, f"input '{spec.name}' of {callee.name}")
        except CoercionError:
            return None  # refused on every call, by the general path, with its message
        parts.append(("value", literal(value) or c.module.ref(value, "d")))
    return parts


def direct_call_inputs(c: ProcedureCompiler, w: CodeWriter, call: ir.CallProcedure, expressions: Expressions) -> str | None:
    """The source of the callee's inputs tuple, its items written by :func:`direct_call_values`; None, writing
    nothing, when the call takes the general path."""
    values = direct_call_values(c, w, call, expressions)
    return None if values is None else "(" + "".join(value + ", " for value in values) + ")"


def direct_call_values(c: ProcedureCompiler, w: CodeWriter, call: ir.CallProcedure, expressions: Expressions,
                       play_inputs_held: bool = False) -> list[str] | None:
    """Write the arguments of ``call`` into locals, in the order written (an error is the first the
    evaluator meets), and give the source of the callee's inputs built from them, one by one (see
    direct_inputs); None, writing nothing, when the call takes the general path.  ``play_inputs_held``
    (plays): an argument that is an input of the caller whose coercion implies the callee's is passed as it
    is (:func:`coerced_already`)."""
    direct = direct_inputs(c, call)
    if direct is None:
        return None
    argument = {}
    for name, value in call.args:
        argument[name] = w.temp("a")
        expressions.assign(argument[name], value)
    argument_ir = dict(call.args)
    values = []
    for how, part in direct:
        if how == "arg":
            values.append(argument[part])
        elif how == "check" and play_inputs_held and coerced_already(c, argument_ir[part[0]], part[1].type):
            values.append(argument[part[0]])
        elif how == "check":
            input_name, spec = part
            what, given = f"input '{input_name}' of {call.procedure}", argument[input_name]
            slow = f"COERCED({given}, {c.module.ref(spec.type, 'type')}, {what!r}, {c.pos(call)})"
            fast = plain_check(c.module, spec.type, given)  # the common case tested in place
            values.append(slow if fast is None else f"({given} if {fast} else {slow})")
        else:
            values.append(part)
    return values


def coerced_already(c: ProcedureCompiler, value: Any, expected: Any) -> bool:
    """Whether ``value`` (an argument's IR) is an input of the calling procedure whose declared type makes coercing it
    to ``expected`` return it unchanged, without an error: an enumeration within the callee's (or plain text), a whole
    number within the callee's bounds.  The caller's inputs were coerced to their declared types when it was called
    (an enumeration or a bounded number is never passed as it is: inputs.coercion_keeps), and nothing sets an input;
    the callee's test would only find that again (fifteen_a_side: nine enumerations on each of 21 calls of
    column_action a play)."""
    from ..values import IntType, StrType

    if type(value) is not ir.InputRef:
        return False
    spec = c.procedure.input(value.name)
    if spec is None:  # a choice: read from the run
        return False
    held = spec.type
    if type(held) is StrType and type(expected) is StrType:
        return expected.values is None or (held.values is not None and set(held.values) <= set(expected.values))
    if type(held) is IntType and type(expected) is IntType:
        low_ok = expected.low is None or (held.low is not None and held.low >= expected.low)
        high_ok = expected.high is None or (held.high is not None and held.high <= expected.high)
        return low_ok and high_ok
    return False


def outcome_name_test(e: Expressions, comparison: ir.Comparison) -> str | None:
    """``r.outcome == "sunk"`` (or ``!=``, either way round) where a play holds ``r`` as the callee's outcome key
    (facts.outcome_key_slots), written as a test of the key itself when every outcome of the callee so named has
    no fields: its key is then its number (an int; an outcome with fields has a tuple, never equal to one), so
    ``v == 0`` instead of ``names[v[0] if type(v) is tuple else v] == 'sunk'``.  None for anything else."""
    if e.keys is None or comparison.op not in ("==", "!="):
        return None
    for read, other in ((comparison.left, comparison.right), (comparison.right, comparison.left)):
        if not (type(read) is ir.Field and read.name == "outcome" and type(read.subject) is ir.Local and read.subject.slot in e.keys):
            continue
        if type(other) is not ir.Const or type(other.value) is not str:
            return None
        sites = e.c.callee_sites(e.keys[read.subject.slot])
        numbers = [number for number, (name, fields) in enumerate(sites) if name == other.value]
        if any(sites[number][1] for number in numbers):
            return None
        key, equal = f"v{read.subject.slot}", comparison.op == "=="
        if not numbers:  # no outcome so named: reading a local cannot fail
            return repr(not equal)
        tests = [f"{key} {comparison.op} {number}" for number in numbers]
        return "(" + (" or " if equal else " and ").join(tests) + ")"
    return None
