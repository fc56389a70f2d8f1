"""A procedure's play function: the prelude and the entry around what :class:`~.play.PlayWriter` writes.

``write_play`` writes two functions: the entry ``(rt, I, R, depth)``, which hands
the inputs tuple on, and the play itself ``(rt, R, depth, input...)``, its
``positional`` attribute, which generated plays call with the inputs written in the
call (``Run.plays_positional``).  The play starts only the counters it reads: a
resolved call's own cost is mostly its prelude (eia's ``shot``, called about 100
times a play, has no list, no aggregate and no outlined part).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .. import ir
from .inline import inline_call
from .play import LOCAL_WORK, LOCALLY_CHARGED, PlayWriter
from .writer import CodeWriter

if TYPE_CHECKING:  # pragma: no cover - types only
    from .program import ProcedureCompiler


def write_play(c: ProcedureCompiler) -> str:
    """The play entry function ``(rt, I, R, depth) -> outcome key``; its name.  It hands the inputs tuple on to the
    play itself, ``(rt, R, depth, input...) -> outcome key``, which is its ``positional`` attribute: generated plays
    call that one with the inputs written where they call it (Run.plays_positional)."""
    number = c.module.name("")
    name, inner = f"y{c.number}_{number}", f"yp{c.number}_{number}"
    inputs = [f"i{i}" for i in range(len(c.input_names))]
    w = CodeWriter(c.module, inner, ", ".join(["rt", "R", "depth", *inputs]))
    w.line(f"if depth > rt.limits.max_call_depth: TOODEEP(rt, {c.module.ref(c.procedure.body.pos, 'p')})")
    starts = w.reserve()
    writer = PlayWriter(c, w, roll="R", mode="play")
    writer.inline_call = inline_call  # small callees written in place of their calls
    writer.spends_local_work = any(type(node) in LOCALLY_CHARGED for node in ir.walk(*c.procedure.body.statements))
    writer.block(c.procedure.body.statements, loops=0)
    code = "\n".join(line for line in w.body() if not line.lstrip().startswith("#"))
    if not writer.spends_local_work and _ADDS_TO_LOCAL_WORK(code):  # pragma: no cover - an internal bug
        raise AssertionError(f"{c.procedure.name}: local work added by nodes not in LOCALLY_CHARGED")
    # only the counters the play reads start at 0 (shot, called about 100 times a play, reads w alone): r for an
    # outlined part, w for loops and big rolls, LOCAL_WORK for values made and walked
    for counter, value in (("r", "None"), ("w", "0"), (LOCAL_WORK, "0")):
        if re.search(rf"\b{counter}\b", code):
            starts.fill(f"{counter} = {value}")
    for local in inputs:  # parameters here (ProcedureCompiler.input_local asks for them out of the tuple)
        w.needs.pop(local, None)
    if _NAMES_THE_TUPLE(" ".join(w.body())):
        # an outlined statement or expression takes the inputs as a tuple (a procedure nested too deeply: rare)
        w.needs = {"I": "(" + "".join(local + ", " for local in inputs) + ")", **w.needs}
    entry = CodeWriter(c.module, name, "rt, I, R, depth")
    entry.line(f"return {inner}(rt, R, depth, *I)")
    c.module.add(entry.finish())  # first: `wartable show --code play` opens with the entry
    c.module.add(w.finish())
    c.module.add([f"{name}.positional = {inner}", ""])
    return name


# `I` as a name in a play function's source: an outlined part is called with the inputs tuple
_NAMES_THE_TUPLE = re.compile(r"\bI\b").search
# what adds to LOCAL_WORK in a play function's source
_ADDS_TO_LOCAL_WORK = re.compile(rf"\b{LOCAL_WORK} (:= {LOCAL_WORK} |\+=)").search
