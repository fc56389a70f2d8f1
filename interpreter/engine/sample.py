"""Monte Carlo: many plays with one seeded stream, as one generated function.

The statements before the first roll run once (an outcome there counts for
every trial); values that cannot change between plays are computed once (on
first use, so an error still appears where the evaluator would raise it);
the rest runs once per trial, inline when it holds no loop and no deep
nesting, else as a trial function defined once a run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import ir
from ..limits import STATEMENT_WORK
from .facts import MAX_INLINE_IFS
from .play import LOCAL_WORK, PlayWriter
from .writer import CodeWriter

if TYPE_CHECKING:  # pragma: no cover - types only
    from .program import ProcedureCompiler

# Nodes whose run may charge the budget (loops, calls, values built at run time).
CHARGING = (ir.CallProcedure, ir.ForLoop, ir.WhileLoop, ir.ListOf, ir.Range, ir.CallFunction, ir.Aggregate)


def write_sample(c: ProcedureCompiler) -> str:
    """The Monte Carlo entry function ``(rt, I, trials, r, C, progress)``, adding each trial's outcome key to C; its name."""
    m, facts = c.module, c.facts
    name = f"m{c.number}_{m.name('')}"
    statements = list(c.procedure.body.statements)
    split = next((i for i, s in enumerate(statements) if facts.rolls[id(s)]), len(statements))
    prefix, rest = statements[:split], statements[split:]
    w = CodeWriter(m, name, "rt, I, trials, r, C, progress")
    w.line("depth = 0")
    w.line("w = 0")
    w.line("R = lambda sides: int(r() * sides) + 1")
    ended = PlayWriter(c, w, roll="R", mode="prefix").block(prefix, loops=0)
    if not ended and rest:
        _trials(c, w, rest)
    m.add(w.finish())
    return name


def _trials(c: ProcedureCompiler, w: CodeWriter, rest: list[Any]) -> None:
    """The loop over trials, running ``rest`` (from the first roll on) once a trial."""
    m, facts = c.module, c.facts
    # variables of the prefix that a trial changes start each trial from their prefix value
    changed: set[int] = set()
    for s in rest:
        changed |= facts.assigned[id(s)]
    carried = sorted(facts.before[id(rest[0])] - facts.sequence_slots)
    restore = [slot for slot in carried if slot in changed]
    for slot in restore:
        w.line(f"sv{slot} = v{slot}")
    inline = not any(facts.loops[id(s)] for s in rest) and all(facts.if_depth[id(s)] <= MAX_INLINE_IFS for s in rest)
    body_pos = m.ref(c.procedure.body.pos, "p")
    w.line("B = rt.budget")
    w.line("STEP = max(trials // 100, 1) if progress is not None else trials")
    w.line("done = 0")
    # a trial written as a function charges the dice of its big rolls (PlayWriter._dice_work); one inline does not
    trial_charges = any(charges(s, dice=not inline) for s in rest)
    trial = None if inline else _trial_function(c, w, rest, carried)
    w.line("n = 0")
    hoist: dict[Any, str] = {}
    with w.block("while done < trials:"):
        w.line("if progress is not None and done % STEP == 0: progress(done, trials)")
        # the clock between batches lasting about Budget.BATCH_SECONDS, however long a play takes
        w.line(f"n = min(STEP - done % STEP, trials - done, B.next_batch(n, {body_pos}))")
        w.line("done += n")
        with w.block("for _ in range(n):"):
            if trial_charges:
                w.line("B.play_start = B.work")  # each play has the whole work budget (Budget.start_play)
            if trial is None:
                for slot in restore:
                    w.line(f"v{slot} = sv{slot}")
                PlayWriter(c, w, roll="r", mode="sample", hoist=hoist, stable=set(carried) - changed).block(rest, loops=0)
            else:
                arguments = ", ".join(f"sv{s}" if s in changed else f"v{s}" for s in carried)
                w.line(f"k = {trial}({arguments})")
                w.line("C[k] = C.get(k, 0) + 1")
    if trial is None:
        for hoisted in hoist.values():
            w.needs[hoisted] = "UNSET"
        _add_counts(w)


def _trial_function(c: ProcedureCompiler, w: CodeWriter, rest: list[Any], carried: list[int]) -> str:
    """One trial as a function (its outcome returns from any loop), defined once a run, so that what it
    reads from the run (limits, inputs) is worked out once, not once a trial; its name."""
    trial = c.module.name("z")
    g = CodeWriter(c.module, trial, ", ".join(f"v{s}" for s in carried))
    g.line("w = 0")
    g.line(f"{LOCAL_WORK} = 0")
    PlayWriter(c, g, roll="r", mode="play").block(rest, loops=0)
    for need, source in g.needs.items():
        w.need(need, source)
    with w.block(f"def {trial}({g.params}):"):
        w.embed(g)
    return trial


def _add_counts(w: CodeWriter) -> None:
    """The outcomes an inline trial counted per outcome (see PlayWriter._count_outcome), into C by their keys."""
    for counts in [name for name in w.needs if name.startswith("SC") and name[2:].isdigit()]:
        site = int(counts[2:])
        if w.needs[counts] == "0":
            w.line(f"if {counts}: C[{site}] = C.get({site}, 0) + {counts}")
        else:
            with w.block(f"for ov, n in {counts}.items():"):
                w.line(f"k = ({site}, ov)")
                w.line("C[k] = C.get(k, 0) + n")


def charges(statement: Any, dice: bool = False) -> bool:
    """Whether running the statement may charge the budget (loops, calls, values built at run time;
    with ``dice``, rolls of more than STATEMENT_WORK dice, or of a count known only at run time)."""
    for node in ir.walk(statement):
        kind = type(node)
        if kind in CHARGING:
            return True
        if dice and kind is ir.Roll and not (type(node.count) is ir.Const and node.count.value <= STATEMENT_WORK):
            return True
    return False
