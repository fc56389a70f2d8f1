"""Plays: a small resolved procedure written into its caller's play function instead of called (issue 24).

A call whose caller reads only the outcome's fields (``facts.outcome_key_slots``:
eia's ``volley`` reads ``shot_at.outcome``, about 58 calls a play) costs, besides
the call's charge, a dictionary lookup, a Python call and the callee's prelude.
An *eligible* callee (:func:`inlinable`) is written where it is called, through
its own :class:`~.program.ProcedureCompiler` (its slots, outcome numbers, facts,
positions) but into the caller's module, so that what it passes by reference gets
fresh names there; its locals are renamed into the caller's function afterwards
(:func:`renamed`, over Python's tokens: strings and comments are left alone).

Eligible: no choices, at most MAX_INLINE_NODES statements and expressions, no
``resolve``, list or aggregate (so nothing adds to the local work counter ``u``:
what it charges goes to the budget at the same places with the same positions),
and every outcome in tail position (the last statement, or the last of every
branch of a final ``if`` with an ``else``), so that an outcome becomes an
assignment and control falls out of the callee's code.  What is kept, in order,
as the call did it: the call's charge (``Budget.work``, ``charges`` and the
checkpoint, written by the caller as for a call), the arguments' coercions, the
callee's depth test (``depth + 1 > max_call_depth``, at the callee's body), a work
counter of the callee's own (``w``, started at 0 and never spent at the end, as a
play function's is not), and the callee's statements with their positions.  A
statement the callee's writer would outline (nested too deeply where it lands),
or a name the inlined code should not hold, keeps the call.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Any

from .. import ir
from .play import LOCALLY_CHARGED, PlayWriter
from .writer import INDENT, CodeWriter

MAX_INLINE_NODES = 160  # statements and expression nodes of a callee written into its caller (eia's shot: about 90)

# what the inlined outcome assigns, renamed to the caller's slot (an identifier no writer makes)
RESULT = "RESULT_"

# locals of a play function that an inlined callee must not read: the caller's counters and entry parameters
_FOREIGN = frozenset({"u", "r", "I", "depth", "PLAYSP", "return", "yield", "C", "k", "trials"})
_SLOT_OR_INPUT = re.compile(r"[vi]\d").match


class NotInlined(Exception):
    """The callee's code cannot be written into the caller (the call is kept)."""


def inlinable(callee: ir.CheckedProcedure) -> bool:
    """Whether ``callee`` may be written into a play that calls it (see the module docstring)."""
    if callee.choices:
        return False
    for nodes, node in enumerate(ir.walk(*callee.body.statements), 1):
        if nodes > MAX_INLINE_NODES or type(node) in LOCALLY_CHARGED:
            return False
    return ends_in_tail(callee.body.statements)


def ends_in_tail(statements: tuple[Any, ...]) -> bool:
    """Whether every path through ``statements`` ends in an outcome that is the last thing it runs."""
    if not statements:
        return False
    *before, last = statements
    if any(type(node) is ir.Outcome for node in ir.walk(*before)):
        return False
    if type(last) is ir.Outcome:
        return True
    if type(last) is not ir.If or last.otherwise is None:
        return False
    return all(ends_in_tail(body.statements) for _, body in last.branches) and ends_in_tail(last.otherwise.statements)


class InlinedWriter(PlayWriter):
    """The callee's statements as its play writes them, with an outcome assigned to RESULT, nothing outlined."""

    def visit_Outcome(self, s: ir.Outcome, loops: int) -> bool:
        self.w.line(f"{RESULT} = {self.c.outcome_key(s, self.expressions)}")
        return True

    def _outlined(self, s: Any, loops: int) -> bool:
        raise NotInlined(f"{self.c.procedure.name}: a statement nested too deeply at the call")


def renamed(line: str, rename: dict[str, str], tag: str) -> str:
    """``line`` with its slot and input locals (``v3``, ``i0``) and work counter (``w``) renamed by ``rename``
    or prefixed by ``tag``; NotInlined when it reads a local of the caller's (see _FOREIGN)."""
    text = line.lstrip(" ")
    if text.startswith("#"):
        return line
    parts, at = [line[: len(line) - len(text)]], 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type != tokenize.NAME:
            continue
        name = token.string
        if name in _FOREIGN:
            raise NotInlined(f"the inlined code reads {name}")
        new = rename.get(name) or (tag + name if name == "w" or _SLOT_OR_INPUT(name) else None)
        if new is not None:
            start, end = token.start[1], token.end[1]
            parts += [text[at:start], new]
            at = end
    parts.append(text[at:])
    return "".join(parts)


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
    g.spends_local_work = False
    tag = c.module.name("il")
    rename = {RESULT: f"v{s.slot}"}
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
    if any(re.search(rf"\b{tag}w\b", line) for line in lines):
        w.line(f"{tag}w = 0")
    w.lines.append(INDENT * w.indent + f"# resolve {s.procedure!r} written in place")
    w.lines.extend(lines)
    return True
