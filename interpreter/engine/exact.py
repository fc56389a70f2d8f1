"""Exact odds: the distribution of outcomes over every die face, as generated Python.

The generated function carries dictionaries of states (tuples of the
variables live at that point: dead ones are never stored) with integer
weights over a common denominator, like the evaluator, but runs
straight-line statements, and one die roll with the statements after it, as
one *pass* over the states (:meth:`ExactWriter.segment`); states merge where
passes meet (before a second roll, around loops and branches that roll).
Statements that need passes of their own (an `if` that rolls, loops, rolls
of dice known only at run time, calls) are :mod:`.exact_compound`'s; rolls
whose faces only choose a branch or a table row are :mod:`.folding`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import ir
from ..limits import STATEMENT_WORK
from ..runtime import dice_distribution
from .exact_compound import ExactCompound
from .expressions import Expressions
from .facts import MAX_INLINE_IFS
from .folding import (
    chosen_branches,
    fold_lookup,
    fold_target,
    folded_branches_header,
    folded_lookup_header,
    roll_checks,
)
from .frame import (
    MEMO_TARGETS,
    Dice,
    Frame,
    Layout,
    LoopExit,
    LoopRound,
    PassMemo,
    Segment,
    Targets,
    layout_of,
    literal_dice,
    memo_reads,
    state_key,
    unpack,
)
from .visitor import NodeVisitor
from .writer import CodeWriter

if TYPE_CHECKING:  # pragma: no cover - types only
    from .program import ProcedureCompiler

NO_DICE = Dice(((), 1))


def _NOTHING_STABLE(slot: int) -> bool:
    """In a pass over states every variable may differ from one state to the next: none is stable."""
    return False


def write_exact(c: ProcedureCompiler) -> str:
    """The exact-odds entry function ``(rt, I, depth) -> (weights by outcome key, denominator)``; its name."""
    return ExactWriter(c).entry()


def small_literal_roll(statement: ir.Roll) -> bool:
    """A roll of literal dice small enough to count when the ruleset loads (its faces become a constant)."""
    if statement.kind != "sum" or type(statement.count) is not ir.Const or type(statement.sides) is not ir.Const:
        return False
    if statement.reroll is not None:  # weighted faces: counted at run time (ExactCompound.visit_Roll)
        return False
    count, sides = statement.count.value, statement.sides.value
    return type(count) is int and type(sides) is int and 0 <= count <= 100 and 1 <= sides <= 1000 and count * (sides - 1) + 1 <= 1000


class ExactWriter:
    """Writes the exact-odds functions of one procedure."""

    def __init__(self, c: ProcedureCompiler) -> None:
        self.c = c
        self.module = c.module
        self.facts = c.facts
        self.straight = ExactStraight(self)
        self.compound = ExactCompound(self)

    def entry(self) -> str:
        c, m = self.c, self.module
        name = f"e{c.number}_{m.name('')}"
        w = CodeWriter(m, name, "rt, I, depth")
        body = c.procedure.body
        w.line(f"if depth > rt.limits.max_call_depth: TOODEEP(rt, {m.ref(body.pos, 'p')})")
        steps = self.steps_of(body.statements)
        if len(steps) == 1 and steps[0][0] == "segment":
            # one pass from the single starting state to the outcomes: no distribution to carry
            self.segment(w, Segment(tuple(steps[0][1]), (), (), body.pos, entry=True))
            m.add(w.finish())
            return name
        w.line("FIN = Acc()")
        w.line("X = None")
        w.line("D = {(): 1}")
        w.line("d = 1")
        self.steps(w, body, (), None)
        w.line("return FIN.weights, FIN.denom")
        m.add(w.finish())
        return name

    def block_function(self, block: ir.Block, exit_layout: Layout, loop: LoopExit | None, round_: LoopRound | None = None) -> str:
        """A function (rt, I, depth, D, d, FIN, X) -> (D, d) running ``block`` on the states in D; its name.

        ``round_``: the block is a loop's round (its head check before the
        first statement, the state the last one hands to the next round).
        """
        name = self.module.name("b")
        w = CodeWriter(self.module, name, "rt, I, depth, D, d, FIN, X")
        self.steps(w, block, exit_layout, loop, round_)
        w.line("return D, d")
        self.module.add(w.finish())
        return name

    def steps(self, w: CodeWriter, block: ir.Block, exit_layout: Layout, loop: LoopExit | None, round_: LoopRound | None = None) -> None:
        """The passes that run ``block``, taking the states in D (over d) to the states after it."""
        steps = self.steps_of(block.statements)
        if round_ is not None and (not steps or steps[0][0] != "segment"):
            steps.insert(0, ("segment", []))
        if round_ is not None and (not steps or steps[-1][0] != "segment"):
            steps.append(("segment", []))
        layout = round_.prologue.layout if round_ is not None else layout_of(self.facts.block_in[id(block)])
        for number, (kind, items) in enumerate(steps):
            last = number == len(steps) - 1
            if kind == "segment":
                if last:
                    after = round_.epilogue.layout if round_ is not None else exit_layout
                elif items:
                    after = layout_of(self.facts.after[id(items[-1])])
                else:  # a loop's head check before a statement that needs a pass of its own
                    after = layout_of(self.facts.before[id(steps[number + 1][1])])
                self.segment(w, Segment(
                    tuple(items), layout, after, block.pos, loop,
                    prologue=round_.prologue if round_ is not None and number == 0 else None,
                    epilogue=round_.epilogue if round_ is not None and last else None,
                ))
            else:
                after = exit_layout if last else layout_of(self.facts.after[id(items)])
                w.comment(items.pos)
                self.compound.visit(items, w, layout, after, loop)
            layout = after

    def steps_of(self, statements: tuple[Any, ...]) -> list[tuple[str, Any]]:
        """Statements grouped: ("segment", [straight statements, at most one literal roll]) or ("compound", statement)."""
        steps: list[tuple[str, Any]] = []
        current: list[Any] | None = None
        has_roll = False
        facts = self.facts
        for statement in statements:
            static_roll = type(statement) is ir.Roll and small_literal_roll(statement)
            key = id(statement)
            straight = not facts.rolls[key] and not facts.loops[key] and facts.if_depth[key] <= MAX_INLINE_IFS
            if straight or static_roll:
                if current is None or (static_roll and has_roll):
                    current = []
                    steps.append(("segment", current))
                    has_roll = False
                current.append(statement)
                has_roll = has_roll or static_roll
            else:
                steps.append(("compound", statement))
                current = None
                has_roll = False
        return steps

    # ---- one pass

    def segment(self, w: CodeWriter, seg: Segment) -> None:
        """One pass over the states: the statements of ``seg`` for each state, at most one literal roll among them."""
        roll = next((s for s in seg.statements if type(s) is ir.Roll), None)
        dice = NO_DICE
        if roll is not None:
            count, sides = literal_dice(roll)
            dice = Dice((tuple(dice_distribution(count, sides).items()), sides**count))
        if seg.entry:
            self._entry_pass(w, seg, dice)
        elif seg.known_states:
            self._pass(w, seg, dice, roll is not None)
        else:
            with w.block("if D:"):
                self._pass(w, seg, dice, roll is not None)

    def _cost(self, seg: Segment) -> tuple[int, str]:
        """A statement's work per state, as the evaluator counts it (a loop round's bookkeeping is one more);
        and the position the budget reports."""
        cost = len(seg.statements) + (1 if seg.prologue is not None else 0)
        first_pos = seg.statements[0].pos if seg.statements else (seg.prologue.pos if seg.prologue is not None else seg.fallback_pos)
        return max(cost, 1), self.module.ref(first_pos, "p")

    def _pass(self, w: CodeWriter, seg: Segment, dice: Dice, rolls: bool) -> None:
        cost, pos = self._cost(seg)
        # the pass's statements for every state, and the faces each state spreads (at most)
        faces_work = f" + {len(dice.faces)}" if rolls else ""
        budget = self.c.budget(w)  # a state holding a big list is hashed item by item (Budget.big_state)
        w.line(f"{budget}.charge(len(D) * ({cost} * ({STATEMENT_WORK} + (d.bit_length() >> 10) + {budget}.big_state){faces_work}), {pos})")
        w.line("N = {}")
        memo = None
        read = None if rolls else _memo_inputs(seg)
        if read is not None:
            name = self.module.name("PM")
            site = self.module.ref(object(), "site")
            given = "".join(f", {self.c.input_local(w, input_name)}" for input_name in read)
            w.line(f"{name} = rt.pass_memo({site}, len(D){given})")
            memo = PassMemo(name)
        targets = self._each_state(w, seg, dice, "for st, w in D.items():", memo)
        out_denom = "d" if dice.total == 1 else f"d * {dice.total}"
        if targets.finished:
            w.line(f"if f: FIN.absorb(f, {out_denom})")
        if targets.exits:
            w.line(f"if x: {seg.exits}.absorb(x, {out_denom})")
        w.line(f"D, d = N, {out_denom}")

    def _entry_pass(self, w: CodeWriter, seg: Segment, dice: Dice) -> None:
        """The whole procedure in one pass from its single starting state (weight 1 of 1): a loop of
        one round, in which an outcome ends its path with `continue`."""
        targets = self._each_state(w, seg, dice, "for w in ONE:")
        cost, pos = self._cost(seg)
        budget = self.c.budget(w)
        charge = f"{cost} * ({STATEMENT_WORK} + {budget}.big_state)" + (" + n" if targets.counted else "")
        w.line(f"{budget}.charge({charge}, {pos})")
        w.line(f"return f, {dice.total}")

    def _each_state(self, w: CodeWriter, seg: Segment, dice: Dice, header: str, memo: PassMemo | None = None) -> Targets:
        """The loop over states (``header``) running the pass's statements; the accumulators it used, set up before it.
        With ``memo``, a state the run met in this pass before goes where it went then (see PassMemo)."""
        targets = Targets()
        accumulators = w.reserve()
        # values that read only inputs and constants are the same for every state: worked out once a pass, on
        # first use (so that an error is raised where the evaluator raises it); not in a procedure's single pass
        hoist: dict[Any, str] = {}
        expressions = Expressions(self.c, w) if seg.entry else Expressions(self.c, w, hoist, _NOTHING_STABLE, hoist_aggregates=True)
        with w.block(header):
            weight = "w" if dice.total == 1 else f"w * {dice.total}"
            if memo is not None:
                with w.block(f"if {memo.name} is not None and (r := {memo.name}.get(st)) is not None:"):
                    w.line("k = r[1]")
                    dispatch = w.reserve()
                    w.line("continue")
            unpacked = unpack(seg.layout, "st")
            if unpacked and not seg.entry:
                w.line(unpacked)
            frame = Frame(weight, seg.exit_layout, seg.loop, seg.epilogue, targets, memo)
            if seg.prologue is not None:
                seg.prologue.emit(w, frame)
            if not self.statements(w, seg.statements, expressions, frame, dice):
                self.fallthrough(w, frame)
        if memo is not None:
            _memo_dispatch(dispatch, memo, weight)
        for name in hoist.values():
            accumulators.fill(f"{name} = UNSET")
        if targets.counted:
            accumulators.fill("n = 0")
            w.need("MS", "rt.max_states")
        if targets.exits:
            accumulators.fill("x = {}")
        if targets.finished or seg.entry:
            accumulators.fill("f = {}")
        return targets

    def fallthrough(self, w: CodeWriter, frame: Frame) -> None:
        """A path that reached the end of the pass: its state goes on (to the next pass, or the next round)."""
        epilogue = frame.epilogue
        if epilogue is not None and epilogue.leaves_unless is not None:
            frame.targets.exits = True
            with w.block(f"if not {Expressions(self.c, w)(epilogue.leaves_unless)}:"):
                w.line(f"k = {state_key(epilogue.exit_layout)}")
                w.line(f"x[k] = x.get(k, 0) + {frame.weight}")
                w.line("continue")
        if epilogue is not None:
            key = state_key(epilogue.layout, epilogue.replace)
        else:
            key = state_key(frame.exit_layout)
        w.line(f"k = {key}")
        w.line(f"N[k] = N.get(k, 0) + {frame.weight}")
        if frame.memo is not None:
            w.line(frame.memo.keep("N"))

    def statements(self, w: CodeWriter, statements: tuple[Any, ...], expressions: Expressions, frame: Frame, dice: Dice) -> bool:
        """Write statements for one state; True when every path has ended (outcome or break)."""
        for position, statement in enumerate(statements):
            if type(statement) is ir.Roll:
                w.comment(statement.pos)
                self._roll_then(w, statement, statements[position + 1:], frame, dice)
                return True
            if self.straight.visit(w, statement, expressions, frame):
                return True
        return False

    def _roll_then(self, w: CodeWriter, roll: ir.Roll, rest: tuple[Any, ...], frame: Frame, dice: Dice) -> None:
        """A literal roll and the statements after it, once per face (or per branch, or per cell, when folded)."""
        facts = self.facts
        # each face starts from the state as it was before the roll
        changed: set[int] = set()
        for later in rest:
            changed |= facts.assigned[id(later)]
        restore = sorted(changed & facts.before[id(roll)])
        for slot in restore:
            w.line(f"sv{slot} = v{slot}")
        # what the statements after the roll compute from values fixed for this state: once per state
        hoist: dict[Any, str] = {}
        unstable = changed | {roll.slot}
        bound = facts.bound
        once = Expressions(self.c, w, hoist, lambda slot: slot not in unstable and slot not in bound)
        hoisted = w.reserve()
        folded = fold_target(facts, roll, rest)
        looked_up = fold_lookup(facts, roll, rest, dice.faces) if folded is None else None
        roll_checks(self.c, w, roll, frame.targets, dice.faces)
        if looked_up is not None:
            at, per_column = looked_up
            header = folded_lookup_header(self.c, w, rest[at], per_column, once)
            inner = frame.with_weight("w * c")
            after = rest[at + 1:]
        elif folded is not None:
            header = folded_branches_header(self.c, w, roll, folded, once, dice.faces)
            inner = frame.with_weight("w * c")
            after = rest[1:]
        else:
            header = self._faces_header(roll, dice)
            inner = frame.with_weight("w" if all(ways == 1 for _, ways in dice.faces) else "w * c")
            after = rest
        with w.block(header):
            for slot in restore:
                w.line(f"v{slot} = sv{slot}")
            if folded is not None:
                ended = chosen_branches(self, w, folded, f"v{roll.slot}", once, inner) or self.statements(w, after, once, inner, dice)
            else:
                ended = self.statements(w, after, once, inner, dice)
            if not ended:
                self.fallthrough(w, inner)
        for name in reversed(hoist.values()):
            hoisted.fill(f"{name} = UNSET")

    def _faces_header(self, roll: ir.Roll, dice: Dice) -> str:
        slot = f"v{roll.slot}"
        if all(ways == 1 for _, ways in dice.faces):
            return f"for {slot} in {self.module.ref(tuple(t for t, _ in dice.faces), 'faces')}:"
        return f"for {slot}, c in {self.module.ref(dice.faces, 'faces')}:"


class ExactStraight(NodeVisitor):
    """One straight statement for one state, inside a pass; each visit is True when the statement ends the path."""

    covers = (ir.Assign, ir.Require, ir.Note, ir.Outcome, ir.Break, ir.If)

    def __init__(self, exact: ExactWriter) -> None:
        self.exact = exact
        self.c = exact.c

    def visit(self, w: CodeWriter, statement: Any, expressions: Expressions, frame: Frame) -> bool:
        w.comment(statement.pos)
        ended: bool = self.visitors[type(statement)](self, w, statement, expressions, frame)
        return ended

    def branch(self, w: CodeWriter, block: ir.Block, expressions: Expressions, frame: Frame) -> bool:
        """A branch's statements, up to one that ends the path (what follows it is never reached); True then."""
        return any(self.visit(w, statement, expressions, frame) for statement in block.statements)

    def visit_Assign(self, w: CodeWriter, s: ir.Assign, expressions: Expressions, frame: Frame) -> bool:
        w.line(f"v{s.slot} = {expressions(s.value)}")
        return False

    def visit_Require(self, w: CodeWriter, s: ir.Require, expressions: Expressions, frame: Frame) -> bool:
        w.line(f"if not {expressions(s.condition)}: VIOL({self.c.pos(s)}, {s.message!r})")
        return False

    def visit_Note(self, w: CodeWriter, s: ir.Note, expressions: Expressions, frame: Frame) -> bool:
        return False

    def visit_Outcome(self, w: CodeWriter, s: ir.Outcome, expressions: Expressions, frame: Frame) -> bool:
        frame.targets.finished = True
        return _leave(w, "f", self.c.outcome_key(s, expressions), frame)

    def visit_Break(self, w: CodeWriter, s: ir.Break, expressions: Expressions, frame: Frame) -> bool:
        assert frame.loop is not None, "the checker allows `break` only inside a loop"
        frame.targets.exits = True
        return _leave(w, "x", state_key(frame.loop.layout), frame)

    def visit_If(self, w: CodeWriter, s: ir.If, expressions: Expressions, frame: Frame) -> bool:
        all_end = True
        for number, (condition, body) in enumerate(s.branches):
            with w.block(f"{'if' if number == 0 else 'elif'} {expressions(condition)}:"):
                all_end = self.branch(w, body, expressions, frame) and all_end
        if s.otherwise is None:
            return False
        with w.block("else:"):
            all_end = self.branch(w, s.otherwise, expressions, frame) and all_end
        return all_end


def _leave(w: CodeWriter, into: str, key: str, frame: Frame) -> bool:
    """The state leaves the pass: its weight added under ``key`` to ``into`` (``f``, the finished outcomes, or ``x``,
    the states leaving the loop), and on to the next state. True: nothing after it runs."""
    w.line(f"k = {key}")
    w.line(f"{into}[k] = {into}.get(k, 0) + {frame.weight}")
    if frame.memo is not None:
        w.line(frame.memo.keep(into))
    w.line("continue")
    return True


def _memo_inputs(seg: Segment) -> tuple[str, ...] | None:
    """The inputs (and choices) a pass reads, by name, when it is worth a memo of where each state goes
    (PassMemo, memo_reads), else None: eia's battle_round counts the ships afloat in each outcome of
    columns_act, and the same outcomes come back in every round number.  Not a loop round's first or last
    pass (its head check and the next round's state), nor the procedure's single pass (one state, run
    once)."""
    if seg.entry or seg.prologue is not None or seg.epilogue is not None or not seg.layout or not seg.statements:
        return None
    return memo_reads(seg.statements)


def _memo_dispatch(place: Any, memo: PassMemo, weight: str) -> None:
    """A state found in the pass's memo: its weight added where the state went before (``r``: the kept
    accumulator's number, the key)."""
    targets = [into for into in MEMO_TARGETS if into in memo.targets]
    if len(targets) == 1:
        place.fill(f"{targets[0]}[k] = {targets[0]}.get(k, 0) + {weight}")
        return
    for number, into in enumerate(targets):
        test = "if" if number == 0 else "elif" if number < len(targets) - 1 else "else"
        condition = f" r[0] == {MEMO_TARGETS.index(into)}" if test != "else" else ""
        place.fill(f"{test}{condition}: {into}[k] = {into}.get(k, 0) + {weight}")
