"""The reference back end: the checked IR walked node by node, one play or every die face at once.

Compiled code (compiler.py) is the fast back end; this one is the yardstick
the differential tests hold it to, and the one that traces a play.  Only the
walking is here: the state algebra, dice counting, limits and charges, callee
binding and every error text are :mod:`runtime`'s, the same functions the
generated code calls, so a fix is made once.

One executor serves both ``run`` and ``odds``.  It carries a *distribution*
of states through each statement: a state is the tuple of variable slots, a
weight is an integer over a common denominator.  A die roll splits every
state into one per face; ``if`` partitions states; states that become equal
merge, so the cost grows with the number of distinct states, not with the
number of dice paths (see shared/notes/performance.md).

In ``run`` mode a dice source picks a single face, so the distribution holds
one state of weight 1 and the same code resolves one play, recording a trace
of every roll, table cell, modifier, shift, clamp and outcome.

Termination and size: loops run over finite lists, calls form no cycle and
nest boundedly (checked at load), and a :class:`~limits.Budget` bounds the
work, the states, the time, integer sizes and value sizes (see limits.py).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from . import chains, ir, runtime
from .limits import (
    CALL_WORK,
    STATEMENT_WORK,
    TRACE_EVENT_WORK,
    Budget,
    LimitExceeded,
    Limits,
    remember,
)
from .proven_types import conforms
from .runtime import Acc, Run, forget, forget_all, put, spread
from .tables import OffTable, lookup
from .trace_events import BoundedTrace, TraceEvent
from .values import OutcomeValue, brief, canonical

if TYPE_CHECKING:  # pragma: no cover
    from .compiled_ruleset import CompiledRuleset
    from .errors import Pos

__all__ = ["Dist", "Executor", "LimitExceeded", "Limits", "TraceEvent"]

_DEFAULT_LIMITS = Limits()

# States (or outcomes) with integer weights over a common denominator: the accumulator compiled code uses.
Dist = Acc


class DiceSource(Protocol):
    """Where a play's dice come from (dice.SeededDice, dice.ScriptedDice)."""

    def roll(self, sides: int) -> int: ...


@dataclass
class _Flow:
    """The states leaving a block: those that ran on, broke out of a loop, or finished with an outcome."""

    normal: Acc
    broken: Acc = field(default_factory=Acc)
    finished: Acc = field(default_factory=Acc)

    def merge(self, other: _Flow) -> None:
        """Take ``other``'s states (its accumulators are handed over, not copied)."""
        self.normal.absorb(other.normal.weights, other.normal.denom)
        self.broken.absorb(other.broken.weights, other.broken.denom)
        self.finished.absorb(other.finished.weights, other.finished.denom)


@dataclass
class _Frame:
    """What a procedure body sees besides its variables."""

    procedure: ir.CheckedProcedure
    inputs: dict[str, Any]
    depth: int


# A handler of one kind of node: (node, state, frame) -> value, or (statement, states, frame) -> states or flow.
_ExprHandler = Callable[[Any, tuple, _Frame], Any]
_StmtHandler = Callable[[Any, Acc, _Frame], "Acc | _Flow"]


class Executor:
    """The reference back end: walks the checked IR, one node at a time.

    What it shares with compiled code is all of :mod:`runtime`: a
    :class:`~runtime.Run` holds its budget, dice memo and interned loop
    sequences; :class:`~runtime.Acc` carries its distributions; every check,
    charge, count, binding and message is a runtime function.  What it keeps
    is its own memo of resolved calls (the compiled engine keeps one on the
    ruleset): the reference back end works every call out itself, so that the
    differential tests compare two computations, not one remembered twice.
    """

    def __init__(
        self,
        ruleset: CompiledRuleset,
        *,
        dice: DiceSource | None = None,
        choices: dict[str, str] | None = None,
        trace: bool = False,
        limits: Limits = _DEFAULT_LIMITS,
        budget: Budget | None = None,
    ):
        self.ruleset = ruleset
        self.dice = dice  # None: exact, every face
        self.exact = dice is None
        self.choices = dict(choices or {})
        self.trace: BoundedTrace | None = BoundedTrace(limits.max_trace_steps) if trace else None
        self.limits = limits
        self.rt = Run(ruleset, limits, budget, self.choices)
        self.budget = self.rt.budget
        self._call_memo: dict[tuple, Acc] = {}
        self._eval: dict[type, _ExprHandler] = {
            ir.Const: lambda e, env, f: e.value,
            ir.Local: lambda e, env, f: env[e.slot],
            ir.InputRef: lambda e, env, f: f.inputs[e.name],
            ir.ListOf: lambda e, env, f: self.budget.check_value(tuple(self.eval(i, env, f) for i in e.items), e.pos),
            ir.Guard: self._guard,
            ir.Canonical: lambda e, env, f: canonical(self.eval(e.value, env, f)),
            ir.Field: lambda e, env, f: runtime.field(self.eval(e.subject, env, f), e.name, e.pos),
            ir.Index: self._index,
            ir.Negate: lambda e, env, f: -self.eval(e.operand, env, f),
            ir.Not: lambda e, env, f: not self.eval(e.operand, env, f),
            ir.Arithmetic: self._binary,
            ir.Comparison: self._compare,
            ir.Logical: self._logical,
            ir.Conditional: lambda e, env, f: self.eval(e.then if self.eval(e.condition, env, f) else e.otherwise, env, f),
            ir.Range: lambda e, env, f: runtime.make_range(self.rt, self.eval(e.low, env, f), self.eval(e.high, env, f), e.pos),
            ir.CallFunction: lambda e, env, f: e.function.run(self.rt, e.pos, *[self.eval(a, env, f) for a in e.args]),
            ir.Aggregate: self._aggregate,
            ir.Lookup: self._lookup,
            ir.ModifierSum: self._modifier_sum,
        }
        self._exec: dict[type, _StmtHandler] = {
            ir.Assign: self._assign,
            ir.Roll: self._roll,
            ir.CallProcedure: self._call_procedure,
            ir.If: self._if,
            ir.ForLoop: self._loop,
            ir.WhileLoop: self._while,
            ir.Outcome: self._outcome,
            ir.Break: lambda statement, dist, frame: _Flow(Acc(), broken=dist),
            ir.Require: self._require,
            ir.Note: self._note,
        }

    # ---- tracing -------------------------------------------------------------------

    def note(self, frame: _Frame, kind: str, step: str, pos: Pos | None = None, rule: str | None = None, **data: Any) -> None:
        """Record a step of the trace: its data only (trace.describe words it)."""
        if self.trace is not None:
            self.budget.charge(TRACE_EVENT_WORK, pos)  # kept to the end of the play: a call tree's trace grew to 100 MB
            self.trace.append(TraceEvent(kind, rule, frame.depth, _where(pos), (("step", step),) + tuple(data.items())))

    # ---- procedures ----------------------------------------------------------------

    def run_procedure(self, procedure: ir.CheckedProcedure, inputs: dict[str, Any], depth: int = 0) -> Acc:
        """The distribution of outcomes (one outcome of full weight when dice are sampled)."""
        if depth > self.limits.max_call_depth:
            runtime.too_deep(self.rt, procedure.body.pos)
        frame = _Frame(procedure, inputs, depth)
        start = Acc({(None,) * procedure.slot_count: 1}, 1)
        flow = self.exec_block(procedure.body, start, frame)
        if flow.normal.weights:  # the checker makes every path end in an outcome
            raise AssertionError(f"procedure {procedure.name} fell off its end")
        return flow.finished

    def exec_block(self, block: ir.Block, dist: Acc, frame: _Frame) -> _Flow:
        flow = _Flow(Acc())
        current = dist
        charge_pass, handlers = self.rt.charge_pass, self._exec
        for statement in block.statements:
            if not current.weights:
                break
            # a state's weight is an integer as long as its denominator: long ones cost more; a state holding
            # a big list is hashed item by item (Budget.big_state)
            charge_pass(len(current.weights), 1, current.denom, statement.pos)
            result = handlers[type(statement)](statement, current, frame)
            if isinstance(result, _Flow):
                flow.finished.absorb(result.finished.weights, result.finished.denom)
                flow.broken.absorb(result.broken.weights, result.broken.denom)
                current = result.normal
            else:
                current = result
        if block.local_slots:
            current = _forget(current, block.local_slots)
            flow.broken = _forget(flow.broken, block.local_slots)
        flow.normal = current
        return flow

    def _assign(self, statement: ir.Assign, dist: Acc, frame: _Frame) -> Acc:
        slot, value_expr, evaluate = statement.slot, statement.value, self.eval
        out: dict = {}
        value = None
        for env, weight in dist.weights.items():
            value = evaluate(value_expr, env, frame)
            new = env[:slot] + (value,) + env[slot + 1:]
            out[new] = out.get(new, 0) + weight
        if self.trace is not None and not isinstance(value_expr, (ir.Local, ir.Lookup, ir.ModifierSum)):
            self.note(frame, "set", "set", statement.pos, name=statement.name, value=value)
        return Acc(out, dist.denom)

    def _require(self, statement: ir.Require, dist: Acc, frame: _Frame) -> Acc:
        for env in dist.weights:
            if not self.eval(statement.condition, env, frame):
                runtime.violated(statement.pos, statement.message)
        return dist

    def _note(self, statement: ir.Note, dist: Acc, frame: _Frame) -> Acc:
        if self.trace is None:  # a note changes nothing: its values are worked out for a trace only
            return dist
        if not statement.parts:
            self.note(frame, "note", "note", statement.pos, statement.rule, text=statement.text)
            return dist
        for env in dist.weights:  # one state in a traced play
            text = "".join(part if isinstance(part, str) else brief(self.eval(part, env, frame)) for part in statement.parts)
            self.note(frame, "note", "note", statement.pos, statement.rule, text=text)
        return dist

    def _roll(self, statement: ir.Roll, dist: Acc, frame: _Frame) -> Acc:
        """Every state's roll: all its totals (or pools, or counts of successes) with their ways, or one drawn."""
        per_state: list[runtime.Spread] = []
        rt, evaluate, kind, pos = self.rt, self.eval, statement.kind, statement.pos
        for env, weight in dist.weights.items():
            count = evaluate(statement.count, env, frame)
            sides = evaluate(statement.sides, env, frame)
            if not self.exact:
                per_state.append((env, weight, ((self._draw(statement, count, sides, env, frame), 1),), 1))
            elif statement.reroll is not None:
                counted = evaluate(_faces(statement), env, frame) if kind == "successes" else None
                rerolled = evaluate(statement.reroll, env, frame)
                per_state.append((env, weight, *rt.rerolled(kind, count, sides, counted, rerolled, statement.reroll_once, pos)))
            elif kind == "sum":
                per_state.append((env, weight, *rt.dice(count, sides, pos)))
            elif kind == "pool":
                per_state.append((env, weight, *rt.pool(count, sides, pos)))
            else:  # successes: its faces evaluated before the dice are checked, as compiled code does
                per_state.append((env, weight, *rt.successes(count, sides, evaluate(_faces(statement), env, frame), pos)))
        return spread(self.budget, dist.denom, statement.slot, per_state, pos)

    def _draw(self, statement: ir.Roll, count: Any, sides: Any, env: tuple, frame: _Frame) -> Any:
        """One play's roll: the dice checked and charged as compiled code checks them, drawn, traced."""
        rt, pos, kind = self.rt, statement.pos, statement.kind
        rt.check_dice(count, sides, pos, False)
        if count > STATEMENT_WORK:  # a unit a die drawn, past the few a statement's work covers
            self.budget.charge(count, pos)
        counted = rt.counted_faces(self.eval(_faces(statement), env, frame), sides, pos) if kind == "successes" else frozenset()
        dice = self.dice
        if dice is None:  # pragma: no cover - exact odds take every face (_roll)
            raise AssertionError("a play without dice")
        rerolling = None if statement.reroll is None else self.eval(statement.reroll, env, frame)
        if rerolling is None:
            faces = [dice.roll(sides) for _ in range(count)]
        else:
            faces = rt.rerolled_draw(dice.roll, count, sides, rerolling, statement.reroll_once, pos)
        rolled = {"form": kind, "count": count, "sides": sides, "text": statement.text, "faces": faces}
        if rerolling is not None:  # the trace says which faces were rolled again, and how often (trace_events._dice_label)
            rolled.update(rerolling=tuple(sorted(set(rerolling))), once=statement.reroll_once)
        value: Any
        if kind == "pool":
            value = tuple(sorted(faces, reverse=True))
            self.note(frame, "roll", "roll", pos, **rolled, value=value)
        elif kind == "successes":
            value = sum(1 for face in faces if face in counted)
            self.note(frame, "roll", "roll", pos, **rolled, counting=tuple(sorted(counted)), value=value)
        else:
            value = sum(faces)
            self.note(frame, "roll", "roll", pos, **rolled, total=value)
        return value

    def _call_procedure(self, statement: ir.CallProcedure, dist: Acc, frame: _Frame) -> Acc:
        callee = self.ruleset.compiled[statement.procedure]
        per_state: list[runtime.Spread] = []
        for env, weight in dist.weights.items():
            given = {name: self.eval(value, env, frame) for name, value in statement.args}
            # every input coerced (no `trusted` shortcut): the reference back end checks what compiled code may skip
            inputs = runtime.callee_inputs(callee, given, self.choices, statement.pos)
            self.note(frame, "call", "call", statement.pos, callee.rule, procedure=callee.name, title=callee.title)
            key = (callee.name, tuple(sorted(inputs.items())))
            outcomes = self._call_memo.get(key) if self.exact else None
            if outcomes is None:
                # a call worked out costs more than its statements (inputs checked, memo key hashed, outcomes gathered);
                # charged where compiled code charges it: at the callee in exact odds (Run._remembered), at the
                # call in a play (Run.call_play)
                self.budget.charge(CALL_WORK, callee.body.pos if self.exact else statement.pos)
                outcomes = self.run_procedure(callee, inputs, frame.depth + 1)
                if self.exact:
                    remember(self._call_memo, key, outcomes, self.limits.memo_entries)
            per_state.append((env, weight, outcomes.weights.items(), outcomes.denom))
        return spread(self.budget, dist.denom, statement.slot, per_state, statement.pos)

    def _if(self, statement: ir.If, dist: Acc, frame: _Frame) -> Acc | _Flow:
        parts: list[dict] = [{} for _ in statement.branches]
        rest: dict = {}
        for env, weight in dist.weights.items():
            for number, (condition, _) in enumerate(statement.branches):
                if self.eval(condition, env, frame):
                    parts[number][env] = weight
                    break
            else:
                rest[env] = weight
        taken = [(part, body) for part, (_, body) in zip(parts, statement.branches) if part]
        if rest and statement.otherwise is not None:
            taken.append((rest, statement.otherwise))
            rest = {}
        if not taken:  # no branch ran (a single play takes this path often)
            return Acc(rest, dist.denom)
        if len(taken) == 1 and not rest:
            return self.exec_block(taken[0][1], Acc(taken[0][0], dist.denom), frame)
        flow = _Flow(Acc())
        for part, body in taken:
            flow.merge(self.exec_block(body, Acc(part, dist.denom), frame))
        if rest:
            flow.normal.absorb(rest, dist.denom)
        return flow

    def _loop(self, statement: ir.ForLoop, dist: Acc, frame: _Frame) -> _Flow:
        var, seq, idx = statement.var_slot, statement.sequence_slot, statement.index_slot
        start: dict = {}
        for env, weight in dist.weights.items():
            sequence = self.eval(statement.iterable, env, frame)
            if not isinstance(sequence, tuple):
                runtime.not_a_list(statement.iterable.pos, sequence)
            new = put(put(env, seq, self.rt.intern(sequence, statement.pos)), idx, 0)
            start[new] = start.get(new, 0) + weight
        sequences = self.rt.sequences

        def next_round(env: tuple) -> tuple | None:
            index, sequence = env[idx], sequences[env[seq]]
            return put(env, var, sequence[index]) if index < len(sequence) else None

        return self._iterate(statement.body, Acc(start, dist.denom), frame, next_round, idx, (var, seq, idx))

    def _while(self, statement: ir.WhileLoop, dist: Acc, frame: _Frame) -> _Flow:
        count_slot, limit_slot, limit_expr = statement.count_slot, statement.limit_slot, statement.limit
        start: dict = {}
        for env, weight in dist.weights.items():
            if limit_expr is not None:
                limit = self.eval(limit_expr, env, frame)
                if limit < 0:
                    runtime.negative_limit(limit_expr.pos, limit)
                env = put(env, limit_slot, limit)
            start[env] = start.get(env, 0) + weight
        if self.exact:
            return self._while_exact(statement, Acc(start, dist.denom), frame)
        start = {put(env, count_slot, 0): weight for env, weight in start.items()}
        limited = limit_expr is not None

        def next_round(env: tuple) -> tuple | None:
            if not self.eval(statement.condition, env, frame):
                return None
            if limited and env[count_slot] >= env[limit_slot]:
                runtime.past_limit(statement.pos, env[limit_slot])
            return env  # without a limit a play is bounded by the work budget

        return self._iterate(statement.body, Acc(start, dist.denom), frame, next_round, count_slot, (count_slot, limit_slot))

    def _while_exact(self, statement: ir.WhileLoop, start: Acc, frame: _Frame) -> _Flow:
        """Every state's round computed once (chains.py), the loop solved from them (runtime.Run.solve_while)."""
        loop_slots = (statement.count_slot, statement.limit_slot)
        limited = statement.limit is not None

        def round_of(rt: Run, inputs: Any, depth: int, env: tuple) -> chains.Round:
            if not self.eval(statement.condition, env, frame):
                return chains.Round(False, None, {}, {}, {forget(env, loop_slots): 1}, 1)
            self.budget.charge(STATEMENT_WORK, statement.body.pos)  # a round's own bookkeeping
            result = self.exec_block(statement.body, Acc({env: 1}, 1), frame)
            broken = _forget(result.broken, loop_slots)
            return chains.make_round(
                True, env[statement.limit_slot] if limited else None,
                result.normal.weights, result.normal.denom,
                result.finished.weights, result.finished.denom,
                broken.weights, broken.denom,
            )

        finished = Acc()
        # the running totals sit at their slots, before the loop and after it alike (an env keeps every slot)
        slots = tuple(sorted(chains.accumulated(statement)))
        totals = chains.Totals(slots, slots, 0, 0) if slots else None
        # the states are whole tuples here (width 0: never a lone value), described by the variables in scope
        exits, denom = self.rt.solve_while(start.weights, start.denom, finished, round_of, None, frame.depth, limited,
                                           statement.pos, statement.variables, 0, totals)
        return _Flow(Acc(exits, denom), finished=finished)

    def _iterate(self, body: ir.Block, current: Acc, frame: _Frame, next_round: Callable[[tuple], tuple | None],
                 counter: int, loop_slots: tuple[int, ...]) -> _Flow:
        """Run ``body`` round after round on the states ``next_round`` keeps looping.

        ``next_round(env)`` gives the state that enters the next round, or None
        for a state that leaves the loop.
        """
        flow = _Flow(Acc())
        exits = Acc()
        while current.weights:
            running: dict = {}
            done: dict = {}
            for env, weight in current.weights.items():
                entering = next_round(env)
                if entering is None:
                    done[env] = weight
                else:
                    running[entering] = running.get(entering, 0) + weight
            if done:  # exits merge as they leave
                exits.absorb(forget_all(done, loop_slots), current.denom)
            if not running:
                break
            self.budget.charge(len(running) * STATEMENT_WORK, body.pos)  # a round's own bookkeeping
            result = self.exec_block(body, Acc(running, current.denom), frame)
            flow.finished.absorb(result.finished.weights, result.finished.denom)
            if result.broken.weights:
                exits.absorb(forget_all(result.broken.weights, loop_slots), result.broken.denom)
            advanced: dict = {}
            for env, weight in result.normal.weights.items():
                new = put(env, counter, env[counter] + 1)
                advanced[new] = advanced.get(new, 0) + weight
            current = Acc(advanced, result.normal.denom)
        flow.normal = exits
        return flow

    def _outcome(self, statement: ir.Outcome, dist: Acc, frame: _Frame) -> _Flow:
        finished: dict = {}
        outcome = None
        for env, weight in dist.weights.items():
            fields = tuple((name, self.eval(value, env, frame)) for name, value in statement.fields)
            outcome = OutcomeValue(statement.name, fields)
            finished[outcome] = finished.get(outcome, 0) + weight
        if self.trace is not None:
            self.note(frame, "outcome", "outcome", statement.pos, statement.rule or frame.procedure.rule, outcome=outcome)
        return _Flow(Acc(), finished=Acc(finished, dist.denom))

    # ---- expressions -----------------------------------------------------------------

    def eval(self, expr: ir.Expr, env: tuple, frame: _Frame) -> Any:
        return self._eval[type(expr)](expr, env, frame)

    def _guard(self, expr: ir.Guard, env: tuple, frame: _Frame) -> Any:
        value = self.eval(expr.value, env, frame)
        if not any(conforms(value, expected) for expected in expr.expected):
            runtime.wrong_type(expr.pos, value, expr.expected, expr.what)
        return value

    def _binary(self, expr: ir.Arithmetic, env: tuple, frame: _Frame) -> int:
        left = self.eval(expr.left, env, frame)
        right = self.eval(expr.right, env, frame)
        op = expr.op
        if op == "+":
            result = left + right
        elif op == "-":
            result = left - right
        elif op == "*":
            result = left * right
        else:
            return runtime.divide(expr.pos, left, op, right)
        if result > self.rt.int_high or result < self.rt.int_low:
            runtime.overflow(self.rt, expr.pos, left, op, right)
        return result

    def _index(self, expr: ir.Index, env: tuple, frame: _Frame) -> Any:
        subject = self.eval(expr.subject, env, frame)
        position = self.eval(expr.index, env, frame)
        if 1 <= position <= len(subject):  # the common case without a call; runtime.index words the error
            return subject[position - 1]
        return runtime.index(subject, position, expr.pos)

    def _compare(self, expr: ir.Comparison, env: tuple, frame: _Frame) -> bool:
        left = self.eval(expr.left, env, frame)
        right = self.eval(expr.right, env, frame)
        op = expr.op
        if op == "==":
            return left == right
        if op == "!=":
            return left != right
        if op == "in":
            return left in right
        if op == "notin":
            return left not in right
        return _ORDERINGS[op](left, right)

    def _logical(self, expr: ir.Logical, env: tuple, frame: _Frame) -> bool:
        left = self.eval(expr.left, env, frame)
        if expr.op == "and":
            return bool(left) and bool(self.eval(expr.right, env, frame))
        return bool(left) or bool(self.eval(expr.right, env, frame))

    def _aggregate(self, expr: ir.Aggregate, env: tuple, frame: _Frame) -> Any:
        collection = runtime.counted(self.rt, self.eval(expr.collection, env, frame), expr.pos)
        slot = expr.slot
        values: list[Any] = []
        head, tail = env[:slot], env[slot + 1:]
        function = expr.function
        condition, element = expr.condition, expr.element
        for item in collection:
            inner = head + (item,) + tail
            if condition is not None and not self.eval(condition, inner, frame):
                continue
            if function.keyed:
                values.append((self.eval(element, inner, frame), len(values), item))
            else:
                values.append(self.eval(element, inner, frame) if function.evaluates_element else item)
        return function.finish(self.rt, expr.pos, values)

    def _lookup(self, expr: ir.Lookup, env: tuple, frame: _Frame) -> Any:
        table = expr.table
        row = self.eval(expr.row, env, frame)
        column = self.eval(expr.column, env, frame) if expr.column is not None else None
        shift = self.eval(expr.shift, env, frame) if expr.shift is not None else 0
        try:
            result = lookup(table, row, column, shift)
        except OffTable as error:
            runtime.off_table(table, expr.pos, error.message)
        if self.trace is not None:
            self._trace_lookup(frame, expr, result, shift)
        return result.value

    def _trace_lookup(self, frame: _Frame, expr: ir.Lookup, result: Any, shift: int) -> None:
        """A table lookup's steps in the trace: the row clamped, the column shifted or clamped, the cell."""
        table, pos = expr.table, expr.pos
        named = {"table": table.name, "table_title": table.title}
        if result.row_clamped_from is not None:
            self.note(frame, "clamp", "row_clamp", pos, table.rule, **named, key=result.row_clamped_from, row=result.row.label)
        if result.column_before_shift is not None:
            self.note(frame, "shift", "column_shift", pos, table.rule, **named, from_column=result.column_before_shift.label,
                      shift=shift, clamped=bool(result.column_clamped_from), column=result.column.label)
        elif result.column_clamped_from is not None:
            self.note(frame, "clamp", "column_clamp", pos, table.rule, **named, key=result.column_clamped_from, column=result.column.label)
        self.note(frame, "lookup", "lookup", pos, table.rule, **named, row=result.row.label,
                  column=result.column.label if result.column else None, value=result.value, value_from=result.provenance)

    def _modifier_sum(self, expr: ir.ModifierSum, env: tuple, frame: _Frame) -> int:
        total = 0
        modifier_list = expr.modifier_list
        shifts = modifier_list.kind == "column_shift"
        for entry, condition in expr.entries:
            if self.eval(condition, env, frame):
                total += entry.value
                if self.trace is not None:
                    self.note(
                        frame, "shift" if shifts else "modifier", "modifier_entry", entry.pos, entry.rule,
                        entry=entry.name, label=entry.label, shifts=shifts, value=entry.value,
                        value_from=entry.value_from or _where(entry.pos),
                    )
        if self.trace is not None:
            self.note(frame, "shift" if shifts else "modifier", "modifier_total", expr.pos, modifier_list.rule,
                      modifier_list=modifier_list.name, list=modifier_list.title, shifts=shifts, total=total)
        return total


_ORDERINGS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _forget(dist: Acc, slots: tuple[int, ...]) -> Acc:
    """Forget dead variables so that states differing only in them merge."""
    return Acc(forget_all(dist.weights, slots), dist.denom) if dist.weights else dist


def _faces(statement: ir.Roll) -> ir.Expr:
    """The faces a `successes` roll counts (the checker gives every such roll its faces)."""
    if statement.faces is None:  # pragma: no cover - an internal bug
        raise AssertionError(f"a successes roll without faces at {statement.pos}")
    return statement.faces


def _where(pos: Pos | None) -> str:
    """``file:line`` of a position, for the trace (str(pos) is ``file:line:column``)."""
    return str(pos).rsplit(":", 1)[0] if pos is not None else ""

