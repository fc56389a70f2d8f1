"""Single plays (and Monte Carlo trials): statements as straight Python over local variables.

:class:`PlayWriter` has one ``visit_<Kind>`` per statement.  Its ``mode``
says what an outcome does: "play" returns its key, "prefix" (Monte
Carlo's statements before the first roll) counts it for every trial,
"sample" (one trial written inline) counts it once, "outlined" (a statement
in a function of its own) returns a status.  ``roll``: "R" calls a dice
source per die; "r" draws uniform numbers.  Every function it writes into
has ``rt``, ``I``, ``r``, ``R``, ``depth`` and ``w`` (the work not yet
charged).  Loops charge the budget per round; statements nested too deeply
for one Python function become functions of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import ir
from ..limits import CALL_WORK, STATEMENT_WORK, Budget
from .calls import direct_call_values
from .expressions import Expressions
from .facts import MAX_INLINE_IFS
from .playwork import constant_lookup, pull_walks
from .visitor import NodeVisitor
from .writer import CodeWriter, Reserved

if TYPE_CHECKING:  # pragma: no cover - types only
    from .program import ProcedureCompiler

MAX_PLAY_LOOPS = 6  # nested loops written inline in one function (Python allows 20 blocks)
MAX_INDENT = 60  # indentation levels (Python allows 100)

# The local of a play function that counts the work of values made and walked, and of resolved calls, until it
# is charged to the budget (Expressions.local_work): after a statement or at a loop round's start once it passes
# the run's work chunk, and at every exit.  A play of fifteen_a_side charged about 600 values a method call each.
LOCAL_WORK = "u"

# Nodes that may add to LOCAL_WORK (a loop whose body holds none needs no check of it per round).
LOCALLY_CHARGED = (ir.CallProcedure, ir.ListOf, ir.Aggregate)

# Statements and expression nodes in a `for` round above which the round reports its work (and so
# reaches the clock) as it goes; a shorter round is cheap enough to be counted after the loop.
LONG_ROUND = 32


def larger_than(block: ir.Block, limit: int) -> bool:
    """Whether ``block`` holds more than ``limit`` statements and expression nodes (nested ones too)."""
    return any(seen > limit for seen, _ in enumerate(ir.walk(*block.statements), 1))


class PlayWriter(NodeVisitor):
    """Statements of one play, written into ``w``; each visit is True when every path through it ends."""

    covers = ir.STATEMENTS

    def __init__(self, c: ProcedureCompiler, w: CodeWriter, roll: str, mode: str,
                 hoist: dict[Any, str] | None = None, stable: set[int] | None = None) -> None:
        self.c = c
        self.w = w
        self.roll = roll
        self.mode = mode
        fixed, bound = stable or set(), c.facts.bound
        self.expressions = Expressions(c, w, hoist, lambda slot: slot in fixed and slot not in bound, keys=c.key_slots)
        if mode == "play":  # the function written into starts LOCAL_WORK at 0 (write_play, sample._trial_function)
            self.expressions.work_local = LOCAL_WORK
        # whether anything in the function may add to LOCAL_WORK (write_play: no exit then spends it)
        self.spends_local_work = True
        # writes a small callee in place of its call when it may (engine.inline.inline_call): set by write_play only
        self.inline_call: Callable[[PlayWriter, ir.CallProcedure, list[str], int], bool] | None = None

    def block(self, statements: tuple[Any, ...] | list[Any], loops: int) -> bool:
        """Write statements; True when every path ends (an outcome, or a break)."""
        for statement in statements:
            if self.statement(statement, loops):
                return True
        return False

    def statement(self, s: Any, loops: int) -> bool:
        self.w.comment(s.pos)
        e = self.expressions
        e.local_charges = 0
        ended: bool = self.visitors[type(s)](self, s, loops)
        if e.local_charges and not ended:
            self._local_work_checked(e.local_pos)
        return ended

    def _local_work_checked(self, pos: str) -> None:
        """LOCAL_WORK charged to the budget once it passes the run's work chunk (see Expressions.local_work); a
        breach reported at ``pos``, the statement's last value charged, or the loop whose round begins."""
        chunk = self.w.need("WL", "rt.work_chunk")
        self.w.line(f"if {LOCAL_WORK} > {chunk}: {self.c.budget(self.w)}.charge_items({LOCAL_WORK}, {pos}); {LOCAL_WORK} = 0")

    def _local_work_spent(self, node: Any, place: Reserved | None = None) -> None:
        """What LOCAL_WORK holds charged to the budget, before the play function returns (see Expressions.local_work);
        written at ``place`` if given, else here."""
        if not self.spends_local_work:
            return
        (place.fill if place is not None else self.w.line)(f"if {LOCAL_WORK}: {self.c.budget(self.w)}.charge_items({LOCAL_WORK}, {self.c.pos(node)})")

    def _round_checks_local_work(self, s: Any) -> bool:
        """Whether a loop's rounds check LOCAL_WORK: in a play function, when its body or condition may add to it."""
        return self.expressions.work_local is not None and any(type(node) in LOCALLY_CHARGED for node in ir.walk(s))

    # ---- straight statements

    def visit_Assign(self, s: ir.Assign, loops: int) -> bool:
        self.expressions.assign(f"v{s.slot}", s.value)
        return False

    def visit_Require(self, s: ir.Require, loops: int) -> bool:
        self.w.line(f"if not {self.condition(s.condition)}: VIOL({self.c.pos(s)}, {s.message!r})")
        return False

    def condition(self, condition: Any) -> str:
        """A condition's source: in a play whose condition reads record fields, a local assigned it in two forms
        first (Expressions.assign), so that the fast form's try holds no statement of the branch; in a play function,
        its aggregates evaluated before anything that may fail walked first (playwork.pull_walks: a require's, an
        if's first condition, a while's each round; an elif's is written in its header and keeps them)."""
        e = self.expressions
        pull_walks(e, [condition])  # written where the condition is evaluated: its aggregates walked first by loops
        try:
            slow, fast = e(condition), e.fast_form(condition)
            if fast is None:
                return slow
            held = self.w.temp("cf")
            e.write_forms(held, fast, slow)
            return held
        finally:
            e.pulled.clear()

    def visit_Note(self, s: ir.Note, loops: int) -> bool:
        return False

    def visit_CallProcedure(self, s: ir.CallProcedure, loops: int) -> bool:
        c, w, e = self.c, self.w, self.expressions
        values = direct_call_values(c, w, s, e, play_inputs_held=True)
        if values is not None and s.slot in c.key_slots:
            # a caller that only reads fields of the outcome gets its key (facts.outcome_key_slots): the callee's play
            # function called straight from the run's table (Run.plays_positional), its inputs one by one, charged as
            # Run.call_play charges a call; a small callee written in place (engine.inline) charged the same way
            if self.inline_call is not None and self.inline_call(self, s, values, loops):
                return False
            self._call_charged(c.pos(s))
            table = w.need("PLAYSP", "rt.plays_positional")
            w.line(f"v{s.slot} = {table}[{s.procedure!r}](rt, R, depth + 1{''.join(', ' + value for value in values)})")
            return False
        if values is not None:
            inputs = "(" + "".join(value + ", " for value in values) + ")"
            w.line(f"v{s.slot} = rt.call_play_direct({s.procedure!r}, {inputs}, depth + 1, R, {c.pos(s)})")
            return False
        given = "{" + ", ".join(f"{name!r}: {e(value)}" for name, value in s.args) + "}"
        trusted = c.module.ref(s.trusted, "t")
        w.line(f"v{s.slot} = rt.call_play({s.procedure!r}, {given}, {c.pos(s)}, depth + 1, R, {trusted})")
        return False

    def _call_charged(self, pos: str) -> None:
        """A resolved call's CALL_WORK charged as Budget.charge charges it, written in place (a play of fifteen_a_side
        makes about 160 calls): not to LOCAL_WORK, since a call counts towards reading the clock (Budget.CLOCK_CALLS).
        Its two work comparisons are one, with Budget.call_alarm (at most the lower of their thresholds); checkpoint
        decides exactly."""
        budget = self.c.budget(self.w)
        self.w.line(f"{budget}.work += {CALL_WORK}; {budget}.charges += 1")
        self.w.line(f"if {budget}.work >= {budget}.call_alarm or {budget}.charges >= {Budget.CLOCK_CALLS}: {budget}.checkpoint({pos})")

    def visit_Outcome(self, s: ir.Outcome, loops: int) -> bool:
        w = self.w
        before = w.reserve()
        # in a play function, the fields' aggregates evaluated before anything that may fail walked first by loops
        pulled = pull_walks(self.expressions, [value for _, value in s.fields])
        try:
            key = self.c.outcome_key(s, self.expressions)
        finally:
            self.expressions.pulled.clear()
        if self.mode == "play":
            if self.expressions.local_charges:  # the key's values charged before what is left is spent
                held = w.temp("ok")
                w.line(f"{held} = {key}")
                key = held
            # else what is left is spent before the key's values are made: before the walks pulled first too (a range's
            # walk charges the budget itself, CRNG), as the key written whole spends it before it charges anything
            self._local_work_spent(s, before if pulled and not self.expressions.local_charges else None)
            w.line(f"return {key}")
        elif self.mode == "outlined":
            w.line(f"return (2, {key})")
        elif self.mode == "prefix":
            w.line(f"k = {key}")
            w.line("C[k] = C.get(k, 0) + trials")
            w.line("return")
        elif len(s.fields) > 1:
            w.line(f"k = {key}")
            w.line("C[k] = C.get(k, 0) + 1")
            w.line("continue")
        else:
            self._count_outcome(s)
        return True

    def _count_outcome(self, s: ir.Outcome) -> None:
        """In an inline trial, an outcome of at most one field is counted per value of that field (or in
        a plain counter): no key tuple made and hashed every trial; the sample writer adds the counts to C
        after the trials."""
        w = self.w
        site = self.c.site_of[id(s)]
        if s.fields:
            counts = w.need(f"SC{site}", "{}")
            value = self.expressions(s.fields[0][1])
            if not value.isidentifier():
                temporary = w.temp("ov")
                w.line(f"{temporary} = {value}")
                value = temporary
            w.line(f"{counts}[{value}] = {counts}.get({value}, 0) + 1")
        else:
            w.line(f"{w.need(f'SC{site}', '0')} += 1")
        w.line("continue")

    def visit_Break(self, s: ir.Break, loops: int) -> bool:
        self.w.line("return (1,)" if self.mode == "outlined" and loops == 0 else "break")
        return True

    # ---- dice

    def visit_Roll(self, s: ir.Roll, loops: int) -> bool:
        if s.reroll is not None:
            self._rerolled(s)
        elif s.kind != "sum":
            self._pool_or_successes(s)
        elif type(count := self._known(s.count)) is int and type(sides := self._known(s.sides)) is int and 0 <= count <= 4 and sides >= 1:
            self._few_literal_dice(s, count, sides)
        else:
            self._dice(s)
        return False

    def _known(self, count_or_sides: Any) -> Any:
        """A roll's count or sides known when the play compiles: a constant, a lookup of constants
        (playwork.constant_lookup), or a variable set once, by a ``let`` of either (facts.assigned_once:
        ``let faces = lookup unspecified_rolls(...)`` then ``dice(count_of_dice, faces)``); None otherwise."""
        if type(count_or_sides) is ir.Local:
            let = self.c.play_lets.get(count_or_sides.slot)
            if let is None:
                return None
            count_or_sides = let.value
        if type(count_or_sides) is ir.Const:
            return count_or_sides.value
        return constant_lookup(self.expressions, count_or_sides)

    def _draw(self, sides: str) -> str:
        return f"int(r() * {sides}) + 1" if self.roll == "r" else f"R({sides})"

    def _pool_or_successes(self, s: ir.Roll) -> None:
        """A pool or successes: every die drawn in turn, as the evaluator draws them."""
        w, e, pos, target = self.w, self.expressions, self.c.pos(s), f"v{s.slot}"
        count, sides = self._checked_dice(s, pos)
        draw = self._draw(sides)
        if s.kind == "pool":
            w.line(f"{target} = tuple_(sorted([{draw} for _ in range({count})], reverse=True))")
            return
        counted = w.temp("c")
        w.line(f"{counted} = rt.counted_faces({e(s.faces)}, {sides}, {pos})")
        w.line(f"{target} = 0")
        with w.block(f"for _ in range({count}):"):
            w.line(f"if {draw} in {counted}: {target} += 1")

    def _rerolled(self, s: ir.Roll) -> None:
        """Dice re-rolled on some faces, drawn in turn as ``Run.rerolled_draw`` draws them for the evaluator (each
        die's re-roll right after it; until none is left, a unit of work a die for its draws past the second),
        and summed, kept as a pool or counted as they come."""
        w, e, pos, target = self.w, self.expressions, self.c.pos(s), f"v{s.slot}"
        if s.reroll is None:  # pragma: no cover - visit_Roll sends only re-rolled rolls here
            raise AssertionError(f"a roll without a re-roll at {s.pos}")
        count, sides = self._checked_dice(s, pos)
        counted = ""
        if s.kind == "successes":
            counted = w.temp("c")
            w.line(f"{counted} = rt.counted_faces({e(s.faces)}, {sides}, {pos})")
        face = w.temp("x")
        literal = ir.literal_ints(s.reroll) if type(s.sides) is ir.Const else None
        if literal is not None:  # faces and sides written out: checked at load (rerolls.py), one set for every play
            again = self.c.module.ref(frozenset(literal), "rr")
        else:
            again = w.temp("rr")
            w.line(f"{again} = rt.rerolled_faces({e(s.reroll)}, {sides}, {s.reroll_once!r}, {pos})")
        w.line(f"{target} = {'[]' if s.kind == 'pool' else '0'}")
        draw = self._draw(sides)
        with w.block(f"for _ in range({count}):"):
            w.line(f"{face} = {draw}")
            with w.block(f"if {face} in {again}:"):
                w.line(f"{face} = {draw}")
                if not s.reroll_once:
                    extra = w.temp("e")
                    w.line(f"{extra} = 0")
                    with w.block(f"while {face} in {again}:"):
                        w.line(f"{extra} += 1")
                        w.line(f"{face} = {draw}")
                    w.line(f"if {extra}: {self.c.budget(w)}.charge_items({extra}, {pos})")
            if s.kind == "pool":
                w.line(f"{target}.append({face})")
            elif s.kind == "successes":
                w.line(f"if {face} in {counted}: {target} += 1")
            else:
                w.line(f"{target} += {face}")
        if s.kind == "pool":
            w.line(f"{target} = tuple_(sorted({target}, reverse=True))")

    def _few_literal_dice(self, s: ir.Roll, count: int, sides: int) -> None:
        """Up to four literal dice: one expression, whether the limits allow them known once per call."""
        w, pos, target = self.w, self.c.pos(s), f"v{s.slot}"
        # a limit is at least 1 (Limits checks it): one die, or a die of one face, is always within it
        tests = [f"{count} <= rt.limits.max_dice_per_roll"] * (count > 1) + [f"{sides} <= rt.limits.max_faces"] * (sides > 1)
        if tests:
            fits = w.need(f"POK{count}_{sides}", " and ".join(tests))
            w.line(f"if not {fits}: rt.check_dice({count}, {sides}, {pos}, False)")
        if count == 0:
            w.line(f"{target} = 0")
        elif self.roll == "r":
            w.line(f"{target} = " + " + ".join([f"int(r() * {sides})"] * count) + f" + {count}")
        else:
            w.line(f"{target} = " + " + ".join([f"R({sides})"] * count))

    def _dice(self, s: ir.Roll) -> None:
        w, pos, target = self.w, self.c.pos(s), f"v{s.slot}"
        count, sides = self._checked_dice(s, pos)
        w.line(f"{target} = 0")
        if self.roll == "r":
            w.line(f"for _ in range({count}): {target} += int(r() * {sides}) + 1")
        else:
            w.line(f"for _ in range({count}): {target} += R({sides})")

    def _checked_dice(self, s: ir.Roll, pos: str) -> tuple[str, str]:
        """Locals holding a roll's count and sides, written and checked against the limits (and charged) before any
        die is drawn: the names of the two locals."""
        w, e = self.w, self.expressions
        count, sides = w.temp("n"), w.temp("s")
        w.line(f"{count} = {e(s.count)}")
        w.line(f"{sides} = {e(s.sides)}")
        w.line(f"rt.check_dice({count}, {sides}, {pos}, False)")
        self._dice_work(count, pos)
        return count, sides

    def _dice_work(self, count: str, pos: str) -> None:
        """A roll of more than STATEMENT_WORK dice costs a unit a die (as the evaluator charges a play), reported at once
        when large: a loop's rounds are reported after the loop, and 100,000 rounds of 1,000 dice take seconds.
        Not in a Monte Carlo trial written inline: it has no loop, so its dice are bounded by its text, and its
        local count is not started afresh each trial."""
        if self.mode == "sample":
            return
        chunk = self.w.need("WL", "rt.work_chunk")
        with self.w.block(f"if {count} > {STATEMENT_WORK}:"):
            self.w.line(f"w += {count}")
            self.w.line(f"if w > {chunk}: w = rt.spend(w, {pos})")

    # ---- branches and loops

    def _too_deep(self, s: Any, loops: int, loop: bool) -> bool:
        """Whether a compound statement must become a function of its own (Python limits nesting);
        never in a trial written inline, which holds no loop and no deep nesting."""
        if self.mode == "sample":
            return False
        if self.w.indent >= MAX_INDENT:
            return True
        if loop:
            return loops >= MAX_PLAY_LOOPS
        return self.c.facts.if_depth[id(s)] > MAX_INLINE_IFS and self.w.indent > 4

    def visit_If(self, s: ir.If, loops: int) -> bool:
        if self._too_deep(s, loops, loop=False):
            return self._outlined(s, loops)
        w, e = self.w, self.expressions
        all_end = True
        for number, (condition, body) in enumerate(s.branches):
            # the first condition is always evaluated: in two forms where it reads record fields (self.condition)
            with w.block(f"{'if ' + self.condition(condition) if number == 0 else 'elif ' + e(condition)}:"):
                all_end = self.block(body.statements, loops) and all_end
        if s.otherwise is None:
            return False
        with w.block("else:"):
            all_end = self.block(s.otherwise.statements, loops) and all_end
        return all_end

    def visit_ForLoop(self, s: ir.ForLoop, loops: int) -> bool:
        if self._too_deep(s, loops, loop=True):
            return self._outlined(s, loops)
        w, m, e = self.w, self.c.module, self.expressions
        pos = self.c.pos(s)
        cost = max(1, len(s.body.statements))
        var = f"v{s.var_slot}"
        # a long round reports its work as it goes: a loop may run 100,000 rounds, and its work and the
        # clock were otherwise seen only after the last (5 s past a 1 s timeout, 40 times the work budget)
        long_rounds = larger_than(s.body, LONG_ROUND)
        # over a range whose variable the body leaves alone, short rounds run are counted after the loop
        # from where the variable stopped (a range holds at most max_value_items numbers)
        over_range = type(s.iterable) is ir.Range
        counted_after = over_range and not long_rounds and not any(s.var_slot in self.c.facts.assigned[id(b)] for b in s.body.statements)
        low = ""
        if type(s.iterable) is ir.Range:
            low, high = w.temp("lo"), w.temp("hi")
            w.line(f"{low} = {e(s.iterable.low)}")
            w.line(f"{high} = {e(s.iterable.high)}")
            items = w.need("MAXI", "rt.limits.max_value_items")
            w.line(f"if {high} - {low} >= {items}: RSIZE(rt, {low}, {high}, {m.ref(s.iterable.pos, 'p')})")  # refused: too long
            w.line(f"if {high} >= {low}: w += {high} - {low} + 1")  # the range's items, as the evaluator counts them
            if counted_after:
                w.line(f"{var} = {low} - 1")
            header = f"for {var} in range({low}, {high} + 1):"
        else:
            sequence = w.temp("q")
            w.line(f"{sequence} = {e(s.iterable)}")
            w.line(f"if type({sequence}) is not tuple_: NOTLIST({m.ref(s.iterable.pos, 'p')}, {sequence})")
            header = f"for {var} in {sequence}:"
        chunk = w.need("WL", "rt.work_chunk")
        with w.block(header):
            if self._round_checks_local_work(s):
                self._local_work_checked(pos)
            if not counted_after:
                w.line(f"w += {cost * STATEMENT_WORK}")
                if long_rounds:
                    w.line(f"if w > {chunk}: w = rt.spend(w, {pos})")
            self.block(s.body.statements, loops + 1)
        if counted_after:
            w.line(f"w += ({var} - {low} + 1) * {cost * STATEMENT_WORK}")
        w.line(f"if w > {chunk}: w = rt.spend(w, {pos})")
        return False

    def visit_WhileLoop(self, s: ir.WhileLoop, loops: int) -> bool:
        if self._too_deep(s, loops, loop=True):
            return self._outlined(s, loops)
        w, m, e = self.w, self.c.module, self.expressions
        pos = self.c.pos(s)
        limit, count = f"v{s.limit_slot}", f"v{s.count_slot}"
        if s.limit is not None:
            w.line(f"{limit} = {e(s.limit)}")
            w.line(f"if {limit} < 0: NEGLIM({m.ref(s.limit.pos, 'p')}, {limit})")
            w.line(f"{count} = 0")
        with w.block("while True:"):
            w.line(f"if not {self.condition(s.condition)}: break")
            if s.limit is not None:  # without one, a play is bounded by the work budget
                w.line(f"if {count} >= {limit}: PASTLIM({pos}, {limit})")
            chunk = w.need("WL", "rt.work_chunk")
            w.line(f"w += {max(1, len(s.body.statements)) * STATEMENT_WORK}")
            w.line(f"if w > {chunk}: w = rt.spend(w, {pos})")
            if self._round_checks_local_work(s):
                self._local_work_checked(pos)
            self.block(s.body.statements, loops + 1)
            if s.limit is not None:
                w.line(f"{count} += 1")
        return False

    def _outlined(self, s: Any, loops: int) -> bool:
        """A statement nested too deeply for one Python function, written as a function of its own.

        It returns (0, the live variables it may change) when it falls through,
        (1,) for a `break` of a loop around it, and (2, key) for an outcome.
        """
        c, w = self.c, self.w
        hidden = c.facts.sequence_slots
        live_in = sorted(c.facts.before[id(s)] - hidden)
        changed = sorted((c.facts.after[id(s)] & c.facts.assigned[id(s)]) - hidden)
        name = c.module.name("o")
        g = CodeWriter(c.module, name, ", ".join(["rt", "I", "r", "R", "depth"] + [f"v{slot}" for slot in live_in]))
        g.line("w = 0")
        inner = PlayWriter(c, g, roll=self.roll, mode="outlined")
        if not inner.statement(s, 0):
            g.line("return (0" + "".join(f", v{slot}" for slot in changed) + ",)")
        c.module.add(g.finish())
        result = w.temp("o")
        w.line(f"{result} = {name}(rt, I, r, R, depth{''.join(', v' + str(slot) for slot in live_in)})")
        with w.block(f"if {result}[0]:"):
            if loops > 0:
                w.line(f"if {result}[0] == 1: break")
            elif self.mode == "outlined":
                w.line(f"if {result}[0] == 1: return {result}")
            self._outlined_ends(result)
        if changed:
            w.line(", ".join(["_"] + [f"v{slot}" for slot in changed]) + f" = {result}")
        return False

    def _outlined_ends(self, result: str) -> None:
        """An outlined statement's outcome, as this writer's mode ends a path."""
        w = self.w
        if self.mode == "play":
            self._local_work_spent(self.c.procedure.body)
            w.line(f"return {result}[1]")
        elif self.mode == "outlined":
            w.line(f"return {result}")
        elif self.mode == "prefix":
            w.line(f"C[{result}[1]] = C.get({result}[1], 0) + trials")
            w.line("return")
        else:  # pragma: no cover - trials written inline have no deep nesting
            raise AssertionError("outlined statement in an inline trial")
