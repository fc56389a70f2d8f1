"""Plays: a small resolved procedure written into its caller's play function instead of called (issue 24).

A call whose caller reads only the outcome's fields (``facts.outcome_key_slots``:
eia's ``volley`` reads ``shot_at.outcome``, about 58 calls a play) costs, besides
the call's charge, a dictionary lookup, a Python call and the callee's prelude.
An *eligible* callee (:func:`inlinable`) is written where it is called, through
its own :class:`~.program.ProcedureCompiler` (its slots, outcome numbers, facts,
positions) but into the caller's module, so that what it passes by reference gets
fresh names there; its locals are renamed into the caller's function afterwards
(:func:`renamed`: strings, attributes and comments are left alone).

Eligible (:func:`inlinable`): no choices, at most MAX_INLINE_NODES statements and
expressions, and every outcome the last thing its path runs (:func:`ends_in_tail`):
the last statement, the end of every branch of a final ``if`` with an ``else``, or
of every branch of a guard ``if`` without one, whose following statements are then
written as its ``else``; an outcome becomes an assignment to the caller's slot and
control falls out of the callee's code.  Not eligible, so called as before: an
outcome inside a loop, statements after an ``if`` with an ``else`` holding one, a
statement the callee's writer would outline where it lands.  One level only: the
calls an inlined callee makes stay calls.

What is kept, in order, as the call did it: the call's charge (``Budget.work``,
``charges`` and the checkpoint, written by the caller as for a call: the clock's
reads by calls are unchanged), the arguments' coercions, the callee's depth test
(``depth + 1 > max_call_depth``, at the callee's body), the callee's own counters
(``w`` for its statements, never spent at the end, as a play function's is not;
LOCAL_WORK for the values it makes, spent where its outcome is set, as its play
spends it before it returns) and the callee's statements with their positions: a
breach, an overflow or a die past ``max_faces`` is reported where the call reported
it.  A call the callee makes is one level deeper (``depth`` is ``(depth + 1)``).
"""

from __future__ import annotations

import re
from typing import Any

from .. import ir
from .play import LOCAL_WORK, LOCALLY_CHARGED, PlayWriter
from .writer import INDENT, CodeWriter

MAX_INLINE_NODES = 160  # statements and expression nodes of a callee written into its caller (eia's shot: about 90)

# what the inlined outcome assigns, renamed to the caller's slot (an identifier no writer makes)
RESULT = "RESULT_"

# locals of a play function that an inlined callee must not read: the caller's counters and entry parameters
_FOREIGN = frozenset({"r", "I", "return", "yield", "C", "k", "trials"})
# the callee's own counters: the statements' work (``w``) and the values' (LOCAL_WORK)
_COUNTERS = ("w", LOCAL_WORK)
_SLOT_OR_INPUT = re.compile(r"[vi]\d").match


class NotInlined(Exception):
    """The callee's code cannot be written into the caller (the call is kept)."""


def inlinable(callee: ir.CheckedProcedure) -> bool:
    """Whether ``callee`` may be written into a play that calls it (see the module docstring)."""
    if callee.choices:
        return False
    for nodes, _ in enumerate(ir.walk(*callee.body.statements), 1):
        if nodes > MAX_INLINE_NODES:
            return False
    return ends_in_tail(callee.body.statements)


def holds_outcome(statement: Any) -> bool:
    return any(type(node) is ir.Outcome for node in ir.walk(statement))


def ends_in_tail(statements: tuple[Any, ...] | list[Any]) -> bool:
    """Whether every path through ``statements`` ends in an outcome that is the last thing it runs: the first
    statement holding an outcome is the last statement and an outcome, or an ``if`` whose every branch ends so,
    with an ``else`` that ends so (the last statement), or without one (a guard: the statements after it, then,
    end so, and are written as its ``else``)."""
    for index, statement in enumerate(statements):
        if not holds_outcome(statement):
            continue
        rest = statements[index + 1:]
        if type(statement) is ir.Outcome:
            return not rest
        if type(statement) is not ir.If or not all(ends_in_tail(body.statements) for _, body in statement.branches):
            return False
        if statement.otherwise is None:
            return ends_in_tail(rest)
        return not rest and ends_in_tail(statement.otherwise.statements)
    return False


class InlinedWriter(PlayWriter):
    """The callee's statements as its play writes them, with an outcome assigned to RESULT, nothing outlined."""

    def block(self, statements: tuple[Any, ...] | list[Any], loops: int) -> bool:
        for index, statement in enumerate(statements):
            if type(statement) is ir.If and statement.otherwise is None and holds_outcome(statement):
                return self._guard(statement, statements[index + 1:], loops)  # (ends_in_tail: the rest ends)
            if self.statement(statement, loops):
                return True
        return False

    def _guard(self, s: ir.If, rest: tuple[Any, ...] | list[Any], loops: int) -> bool:
        """``if c then ... outcome ... end`` followed by ``rest``: ``rest`` written as the ``if``'s ``else``."""
        if self._too_deep(s, loops, loop=False):
            raise NotInlined(f"{self.c.procedure.name}: a statement nested too deeply at the call")
        w, e = self.w, self.expressions
        w.comment(s.pos)
        e.local_charges = 0
        for number, (condition, body) in enumerate(s.branches):
            with w.block(f"{'if ' + self.condition(condition) if number == 0 else 'elif ' + e(condition)}:"):
                self.block(body.statements, loops)
        with w.block("else:"):
            # the callee's play function checks LOCAL_WORK after the `if` (PlayWriter.statement), which only the path
            # past it reaches: here, so that a breach there is reported where the called form reports it
            if e.local_charges:
                self._local_work_checked(e.local_pos)
            return self.block(rest, loops)

    def visit_Outcome(self, s: ir.Outcome, loops: int) -> bool:
        key = self.c.outcome_key(s, self.expressions)
        if self.expressions.local_charges:  # the key's values charged before what is left is spent (as PlayWriter)
            held = self.w.temp("ok")
            self.w.line(f"{held} = {key}")
            key = held
        self._local_work_spent(s)
        self.w.line(f"{RESULT} = {key}")
        return True

    def _outlined(self, s: Any, loops: int) -> bool:
        raise NotInlined(f"{self.c.procedure.name}: a statement nested too deeply at the call")


def renamed(line: str, rename: dict[str, str], tag: str) -> str:
    """``line`` with its slot and input locals (``v3``, ``i0``) and its counters (``w``, LOCAL_WORK) renamed by
    ``rename`` or prefixed by ``tag``; NotInlined when it reads a local of the caller's (see _FOREIGN).  A comment
    line is left as it is; in code, a string (the engine's own ``repr()``, quoted either way) is skipped whole, and
    so is an attribute's name (after a dot)."""
    if line.lstrip(" ").startswith("#"):
        return line

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:  # a string
            return match.group(0)
        if name in _FOREIGN:
            raise NotInlined(f"the inlined code reads {name}")
        return rename.get(name) or (tag + name if name in _COUNTERS or _SLOT_OR_INPUT(name) else name)

    return _STRING_OR_NAME(one, line)


# a string written by repr() (either quote, backslash escapes), or a name that is not an attribute's
_STRING_OR_NAME = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|(?<![.\w])([A-Za-z_]\w*)""").sub


def inline_call(writer: PlayWriter, s: ir.CallProcedure, values: list[str], loops: int) -> bool:
    """Write resolved call ``s`` (its arguments' sources ``values``, one per callee input) with the callee's code
    in place of the call, if it is eligible; whether it was (nothing is written when it was not)."""
    c, w = writer.c, writer.w
    callee = c.callees.get(s.procedure)
    if callee is None or not inlinable(callee):
        return False
    inner = c.inlined_compiler(s.procedure)
    body = CodeWriter(c.module, "_", "")
    body.indent = w.indent
    g = InlinedWriter(inner, body, roll=writer.roll, mode="play")
    g.spends_local_work = any(type(node) in LOCALLY_CHARGED for node in ir.walk(*callee.body.statements))
    tag = c.module.name("il")
    # a call the callee makes is one level deeper than the callee (its play function's depth + 1)
    rename = {RESULT: f"v{s.slot}", "depth": "(depth + 1)"}
    inputs = []
    for number, value in enumerate(values):
        if value.isidentifier():
            rename[f"i{number}"] = value
        else:
            inputs.append(f"{tag}i{number} = {value}")
    try:
        g.block(callee.body.statements, loops)
        lines = [renamed(line, rename, tag) for line in body.body()]
        needs = {name: source for name, source in body.needs.items() if not _SLOT_OR_INPUT(name)}
        if any(w.needs.get(name, source) != source for name, source in needs.items()):
            raise NotInlined("a local of the caller's prelude set otherwise")  # pragma: no cover - names are the runtime's
    except NotInlined:
        return False
    w.needs.update(needs)
    writer._call_charged(c.pos(s))
    for line in inputs:
        w.line(line)
    w.line(f"if not {w.need('DEEPOK', 'depth < rt.limits.max_call_depth')}: TOODEEP(rt, {inner.pos(callee.body)})")
    for counter in _COUNTERS:  # the callee's own, started where its play function started them
        if any(re.search(rf"\b{tag}{counter}\b", line) for line in lines):
            w.line(f"{tag}{counter} = 0")
    w.lines.append(INDENT * w.indent + f"# resolve {s.procedure!r} written in place")
    w.lines.extend(lines)
    return True
