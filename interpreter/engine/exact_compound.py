"""Exact odds for statements that need passes of their own: one ``visit_<Kind>`` each.

- an `if` whose branches roll or loop: the states partitioned by branch, each
  branch a function of its own, the results merged;
- a `for` loop: the states at its head, then rounds until every state has
  left (the whole loop in this function when its body is one pass);
- a `while` loop: one round per state at its head, handed to the chain
  solver (:mod:`interpreter.chains`);
- a roll of dice known only at run time, and a resolved procedure: every
  state times every value (a *spread*).

Each visit takes the states in ``D`` (over ``d``) of layout ``entry`` to
states of layout ``exit_layout``; ``loop`` is the loop a `break` leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import ir
from ..chains import Totals, accumulated
from ..limits import STATEMENT_WORK
from .calls import direct_call_inputs
from .expressions import Expressions
from .facts import locals_in, read_input_places
from .frame import (
    Epilogue,
    Frame,
    Layout,
    LoopExit,
    LoopRound,
    Prologue,
    Segment,
    layout_of,
    memo_reads,
    state_key,
    unpack,
)
from .visitor import NodeVisitor
from .writer import CodeWriter

if TYPE_CHECKING:  # pragma: no cover - types only
    from .exact import ExactWriter


class ExactCompound(NodeVisitor):
    """A statement that rolls, calls or loops, as passes over the states in D."""

    covers = (ir.If, ir.ForLoop, ir.WhileLoop, ir.Roll, ir.CallProcedure)

    def __init__(self, exact: ExactWriter) -> None:
        self.exact = exact
        self.c = exact.c
        self.module = exact.module
        self.facts = exact.facts

    def visit(self, statement: Any, w: CodeWriter, entry: Layout, exit_layout: Layout, loop: LoopExit | None) -> None:
        self.visitors[type(statement)](self, statement, w, entry, exit_layout, loop)

    def _charge(self, w: CodeWriter, pos: str) -> None:
        """A statement's work for every state (and for their weights' size, and big states' hashing)."""
        budget = self.c.budget(w)
        w.line(f"{budget}.charge(len(D) * ({STATEMENT_WORK} + (d.bit_length() >> 10) + {budget}.big_state), {pos})")

    def _unpack(self, w: CodeWriter, entry: Layout) -> None:
        unpacked = unpack(entry, "st")
        if unpacked:
            w.line(unpacked)

    def visit_If(self, s: ir.If, w: CodeWriter, entry: Layout, exit_layout: Layout, loop: LoopExit | None) -> None:
        """The states partitioned by the branch they take; each branch a function; the results merged."""
        with w.block("if D:"):
            self._charge(w, self.c.pos(s))
            parts = [(f"A{number}", condition, body) for number, (condition, body) in enumerate(s.branches)]
            for name, _, _ in parts:
                w.line(f"{name} = {{}}")
            w.line("AR = {}")
            with w.block("for st, w in D.items():"):
                self._unpack(w, entry)
                expressions = Expressions(self.c, w)
                for number, (name, condition, body) in enumerate(parts):
                    with w.block(f"{'if' if number == 0 else 'elif'} {expressions(condition)}:"):
                        w.line(f"k = {state_key(layout_of(self.facts.block_in[id(body)]))}")
                        w.line(f"{name}[k] = {name}.get(k, 0) + w")
                rest_layout = layout_of(self.facts.block_in[id(s.otherwise)]) if s.otherwise is not None else exit_layout
                with w.block("else:"):
                    w.line(f"k = {state_key(rest_layout)}")
                    w.line("AR[k] = AR.get(k, 0) + w")
            w.line("M = Acc()")
            for name, _, body in parts:
                function = self.exact.block_function(body, exit_layout, loop)
                w.line(f"if {name}: M.absorb(*{function}(rt, I, depth, {name}, d, FIN, X))")
            if s.otherwise is not None:
                function = self.exact.block_function(s.otherwise, exit_layout, loop)
                w.line(f"if AR: M.absorb(*{function}(rt, I, depth, AR, d, FIN, X))")
            else:
                w.line("if AR: M.absorb(AR, d)")
            w.line("D, d = M.weights, M.denom")

    def visit_ForLoop(self, s: ir.ForLoop, w: CodeWriter, entry: Layout, exit_layout: Layout, loop: LoopExit | None) -> None:
        """The states at the loop's head (with the list and the position when they differ), then rounds."""
        ForWriter(self, s, w).write(entry, exit_layout)

    def visit_WhileLoop(self, s: ir.WhileLoop, w: CodeWriter, entry: Layout, exit_layout: Layout, loop: LoopExit | None) -> None:
        """The states at the loop's head, then the chain solver (chains.py) over one round per state."""
        m = self.module
        head = layout_of(self.facts.head[id(s)])
        limit = s.limit_slot
        pos = self.c.pos(s)
        with w.block("if D:"):
            self._charge(w, pos)
            w.line("H = {}")
            with w.block("for st, w in D.items():"):
                self._unpack(w, entry)
                expressions = Expressions(self.c, w)
                if s.limit is not None:
                    w.line(f"v{limit} = {expressions(s.limit)}")
                    w.line(f"if v{limit} < 0: NEGLIM({m.ref(s.limit.pos, 'p')}, v{limit})")
                w.line(f"k = {state_key(head, self._projections(s, head))}")
                w.line("H[k] = H.get(k, 0) + w")
            round_of = self._round(s, head, exit_layout)
            names = tuple((name, head.index(slot)) for name, slot in s.variables if slot in head)
            totals = self._totals(s, head, exit_layout)
            passed = f", {m.ref(totals, 'totals')}" if totals is not None else ""
            w.line(f"D, d = rt.solve_while(H, d, FIN, {round_of}, I, depth, {s.limit is not None}, {pos}, {m.ref(names, 'names')}, {len(head)}{passed})")

    def _projections(self, s: ir.WhileLoop, head: Layout) -> dict[int, str]:
        """Source keeping, of a variable at the loop's head read later only by some fields, those fields
        alone when it holds an outcome (runtime.Run.projected): states that differ only in fields never
        read again are one state (eia's battle: a round's losses, added up as they come)."""
        reads = self.facts.head_fields.get(id(s), {})
        replace = {}
        for slot in head:
            fields = reads.get(slot)
            if fields is not None:
                keep = frozenset(fields - {"outcome"})  # an outcome's name is always kept
                replace[slot] = f"rt.projected(v{slot}, {self.module.ref(keep, 'keep')})"
        return replace

    def _totals(self, s: ir.WhileLoop, head: Layout, exit_layout: Layout) -> Totals | None:
        """Where the loop's running totals (chains.accumulated) sit in its states, or None when it has none."""
        slots = sorted(accumulated(s) & set(head))
        if not slots:
            return None
        return Totals(
            tuple(head.index(slot) for slot in slots),
            tuple(exit_layout.index(slot) if slot in exit_layout else None for slot in slots),
            1 if len(head) == 1 else 0,
            1 if len(exit_layout) == 1 else 0,
        )

    def _round(self, s: ir.WhileLoop, head: Layout, exit_layout: Layout) -> str:
        """A function (rt, I, depth, st) -> chains.Round: one round of the loop from one state at its head."""
        m = self.module
        # a state failing the condition at the end of a round leaves the loop there (Epilogue.leaves_unless)
        round_ = LoopRound(Prologue(head, _no_head_check, s.pos), Epilogue(head, self._projections(s, head), s.condition, exit_layout))
        body = self.exact.block_function(s.body, head, LoopExit(exit_layout), round_)
        name = m.name("w")
        g = CodeWriter(m, name, "rt, I, depth, st")
        self._unpack(g, head)
        expressions = Expressions(self.c, g)
        g.comment(s.pos)
        with g.block(f"if not {expressions(s.condition)}:"):
            g.line(f"return STAYS_NOT(False, None, {{}}, {{}}, {{{state_key(exit_layout)}: 1}}, 1)")
        g.line(f"{self.c.budget(g)}.charge({STATEMENT_WORK}, {m.ref(s.body.pos, 'p')})")  # a round's own bookkeeping
        g.line("F = Acc()")
        g.line("X = Acc()")
        g.line(f"N, n = {body}(rt, I, depth, {{st: 1}}, 1, F, X)")
        bound = f"v{s.limit_slot}" if s.limit is not None else "None"
        g.line(f"return ROUND(True, {bound}, N, n, F.weights, F.denom, X.weights, X.denom)")
        m.add(g.finish())
        return name

    def visit_Roll(self, s: ir.Roll, w: CodeWriter, entry: Layout, exit_layout: Layout, loop: LoopExit | None) -> None:
        """A roll whose dice are known only at run time: every state times every total."""
        how = {"pool": "rt.pool", "successes": "rt.successes"}.get(s.kind, "rt.dice")

        def values(w: CodeWriter, expressions: Expressions) -> None:
            count, sides = expressions(s.count), expressions(s.sides)
            if s.reroll is not None:  # each face weighted by its chance on a re-rolled die (rt.rerolled)
                counted = expressions(s.faces) if s.kind == "successes" else "None"
                w.line(f"vals, T = rt.rerolled({s.kind!r}, {count}, {sides}, {counted}, {expressions(s.reroll)}, {s.reroll_once!r}, {self.c.pos(s)})")
                return
            faces = f", {expressions(s.faces)}" if s.kind == "successes" else ""
            w.line(f"vals, T = {how}({count}, {sides}{faces}, {self.c.pos(s)})")

        self._spread(s, w, entry, exit_layout, values)

    def visit_CallProcedure(self, s: ir.CallProcedure, w: CodeWriter, entry: Layout, exit_layout: Layout, loop: LoopExit | None) -> None:
        """A resolved procedure: every state times every outcome of the call (memoised by the run)."""
        def values(w: CodeWriter, expressions: Expressions) -> None:
            direct = direct_call_inputs(self.c, w, s, expressions)
            if direct is not None:
                self._direct_call(w, s, direct)
                return
            given = "{" + ", ".join(f"{name!r}: {expressions(value)}" for name, value in s.args) + "}"
            trusted = self.module.ref(s.trusted, "t")
            w.line(f"vals, T = rt.call_exact({s.procedure!r}, {given}, {self.c.pos(s)}, depth + 1, {trusted})")

        # arguments worked out from the state (eia battle_round counts each side's fit ships in columns_act's
        # outcome for end_of_round): the call's result for a state is remembered by the run (Run.pass_memo)
        self._spread(s, w, entry, exit_layout, values, memo_reads([value for _, value in s.args]))

    def _direct_call(self, w: CodeWriter, s: ir.CallProcedure, direct: str) -> None:
        """``vals, T`` of a call whose inputs tuple ``direct`` is built at the call.

        The run's memo (Run._remembered) keys a result by the callee, its inputs, the choices and
        the limits; within one run of this function only the inputs change, so the results met
        here are also kept in a dictionary of this call site keyed by the inputs alone (a local,
        gone when the function returns): a state after the first that brings the same inputs
        (surface_combat's breakoff_check: 1.5 million calls, 206 distinct, in day_battleships)
        takes its result from there, without the method calls and the longer key.  A callee that
        reads only some inputs is remembered by those (engine.facts.read_input_places).
        """
        callee = self.c.callees.get(s.procedure)
        read = read_input_places(callee) if callee is not None else None
        given = w.temp("ci")
        site = w.need(w.temp("CS"), "{}")
        w.line(f"{given} = {direct}")
        if read is None:
            key, call = given, f"rt.call_exact_direct({s.procedure!r}, {given}, depth + 1)"
        else:  # remembered by the inputs the callee reads (the others cannot change its result)
            key = w.temp("ck")
            w.line(f"{key} = (" + "".join(f"{given}[{place}], " for place in read) + ")")
            call = f"rt.call_exact_read({s.procedure!r}, {given}, {key}, depth + 1)"
        w.line(f"found = {site}.get({key})")
        with w.block("if found is None:"):
            w.line(f"found = {site}[{key}] = {call}")
        w.line("vals, T = found")

    def _spread(self, s: Any, w: CodeWriter, entry: Layout, exit_layout: Layout, values: Any, memo: tuple[str, ...] | None = None) -> None:
        """States times values: ``values(w, expressions)`` writes ``vals, T`` (value and ways, out of T) for one state.
        ``memo``: the inputs ``values`` reads, when its ``vals, T`` for a state are worth remembering by the run
        per value of them (Run.pass_memo: a state met again takes them from there); None when not."""
        pos = self.c.pos(s)
        slot = s.slot
        others = tuple(slot_ for slot_ in exit_layout if slot_ != slot)
        carried = "".join(", v" + str(slot_) for slot_ in others)
        with w.block("if D:"):
            self._charge(w, pos)
            w.line("E = []")
            w.line("common = 1")
            name = None
            if memo is not None and entry:
                name = self.module.name("PM")
                site = self.module.ref(object(), "site")
                given = "".join(f", {self.c.input_local(w, input_name)}" for input_name in memo)
                w.line(f"{name} = rt.pass_memo({site}, len(D){given})")
            with w.block("for st, w in D.items():"):
                self._unpack(w, entry)
                if name is None:
                    values(w, Expressions(self.c, w))
                else:
                    with w.block(f"if {name} is None or (found := {name}.get(st)) is None:"):
                        values(w, Expressions(self.c, w))
                        w.line(f"if {name} is not None: {name}[st] = (vals, T)")
                    with w.block("else:"):
                        w.line("vals, T = found")
                w.line("if T != common: common = lcm(common, T)")
                w.line(f"E.append((w, vals, T{carried}))")
            w.line("N = {}")
            w.line("n = 0")
            w.need("MS", "rt.max_states")
            w.line("lw = 1 + (d.bit_length() >> 10)")  # a value spread costs a unit, and one a 1,024 bits of weight
            with w.block(f"for w, vals, T{carried} in E:"):
                w.line("sc = w * (common // T)")
                w.line("n += len(vals)")
                w.line(f"{self.c.budget(w)}.charge(len(vals) * lw, {pos})")
                with w.block(f"for v{slot}, c in vals:"):
                    w.line(f"k = {state_key(exit_layout)}")
                    if slot in exit_layout and set(others) == set(entry):
                        # Every state keeps all it had and adds a value it had not: each (state, value) is a state
                        # met once, so it is stored without looking it up (a state holding columns of records costs
                        # about half a microsecond to hash, and a tuple does not keep its hash).
                        w.line("N[k] = c * sc")
                    else:
                        w.line("N[k] = N.get(k, 0) + c * sc")
                w.line(f"if n > MS: rt.too_many_states({pos})")
            w.line("D, d = N, d * common")


def _no_head_check(w: CodeWriter, frame: Frame) -> None:
    """A `while` round's head needs no check in the pass: the round function tested the condition."""


class ForWriter:
    """One `for` loop in exact odds (see ExactCompound.visit_ForLoop)."""

    def __init__(self, compound: ExactCompound, s: ir.ForLoop, w: CodeWriter) -> None:
        self.compound = compound
        self.c = compound.c
        self.s = s
        self.w = w
        facts = compound.facts
        self.body_steps = compound.exact.steps_of(s.body.statements)
        # the whole loop in this function when its body is one pass: each round one pass from the head back to it
        self.fused = len(self.body_steps) == 1 and self.body_steps[0][0] == "segment"
        # A list that reads no variable is the same for every state: made once, kept out of the states.
        self.static = self.fused and not locals_in(s.iterable)
        # When the loop runs in this function, every state still looping has run the same number of
        # rounds: the position is the round, a local, not part of the states.
        hidden = ({s.sequence_slot} if self.static else set()) | ({s.index_slot} if self.fused else set())
        self.head = layout_of(facts.head[id(s)] - hidden)
        self.var_live = s.var_slot in facts.block_in[id(s.body)]
        self.position = "i" if self.fused else f"v{s.index_slot}"

    def write(self, entry: Layout, exit_layout: Layout) -> None:
        s, w, c = self.s, self.w, self.c
        pos = c.pos(s)
        iterable_pos = c.module.ref(s.iterable.pos, "p")
        with w.block("if D:"):
            self.compound._charge(w, pos)
            expressions = Expressions(c, w)
            if self.static:
                w.line(f"q = {expressions(s.iterable)}")
                w.line(f"if type(q) is not tuple_: NOTLIST({iterable_pos}, q)")
                w.line(f"{c.budget(w)}.charge(len(q), {pos})")
                w.line("nq = len(q)")
            w.line("H = {}")
            with w.block("for st, w in D.items():"):
                self.compound._unpack(w, entry)
                if self.static:
                    w.line(f"k = {state_key(self.head, {s.index_slot: '0'})}")
                else:
                    w.line(f"s = {expressions(s.iterable)}")
                    w.line(f"if type(s) is not tuple_: NOTLIST({iterable_pos}, s)")
                    w.line(f"k = {state_key(self.head, {s.sequence_slot: f'rt.intern(s, {pos})', s.index_slot: '0'})}")
                w.line("H[k] = H.get(k, 0) + w")
            round_ = LoopRound(
                Prologue(self.head, self._head_check(exit_layout), s.pos),
                Epilogue(self.head, {} if self.fused else {s.index_slot: f"v{s.index_slot} + 1"}),
            )
            w.line("EX = Acc()")
            if self.fused:
                self._fused_rounds(exit_layout, round_)
            else:
                body = self.compound.exact.block_function(s.body, self.head, LoopExit(exit_layout), round_)
                with w.block("while H:"):
                    w.line(f"H, d = {body}(rt, I, depth, H, d, FIN, EX)")
            w.line("D, d = EX.weights, EX.denom")

    def _head_check(self, exit_layout: Layout) -> Any:
        """What a round does first for each state: take the next item, or leave the loop when the list is done."""
        s, static, var_live, position = self.s, self.static, self.var_live, self.position

        def head_check(g: CodeWriter, frame: Frame) -> None:
            if static:
                if var_live:
                    g.line(f"v{s.var_slot} = qv")
                return
            frame.targets.exits = True
            seqs = g.need("SEQS", "rt.sequences")
            g.line(f"q = {seqs}[v{s.sequence_slot}]")
            with g.block(f"if {position} >= len(q):"):
                g.line(f"k = {state_key(exit_layout)}")
                g.line(f"x[k] = x.get(k, 0) + {frame.weight}")
                g.line("continue")
            if var_live:
                g.line(f"v{s.var_slot} = q[{position}]")

        return head_check

    def _fused_rounds(self, exit_layout: Layout, round_: LoopRound) -> None:
        """The whole loop in this function: each round one pass from the loop's head back to it."""
        s, w = self.s, self.w
        w.line("D = H")
        w.line("i = 0")
        with w.block("while D:"):
            if self.static:
                with w.block("if i >= nq:"):  # the list is done: every state leaves the loop
                    self._leave(exit_layout)
                    w.line("break")
                if self.var_live:
                    w.line("qv = q[i]")
            self.compound.exact.segment(w, Segment(
                tuple(self.body_steps[0][1]), self.head, self.head, s.body.pos, LoopExit(exit_layout),
                prologue=round_.prologue, epilogue=round_.epilogue, exits="EX", known_states=True,
            ))
            w.line("i += 1")

    def _leave(self, exit_layout: Layout) -> None:
        w = self.w
        if self.head == exit_layout:
            w.line("EX.absorb(D, d)")
            return
        w.line("L = {}")
        with w.block("for st, w in D.items():"):
            self.compound._unpack(w, self.head)
            w.line(f"k = {state_key(exit_layout)}")
            w.line("L[k] = L.get(k, 0) + w")
        w.line("EX.absorb(L, d)")
