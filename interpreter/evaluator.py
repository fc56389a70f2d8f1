"""Evaluation of compiled procedures: one play, or every die face at once.

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

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import chains, ir, pools
from .errors import RulesetError, RuleViolation
from .inputs import CoercionError, coerce
from .limits import (
    CALL_WORK,
    STATEMENT_WORK,
    TRACE_EVENT_WORK,
    Budget,
    LimitExceeded,
    Limits,
    breach,
    remember,
)
from .ruleset import Ruleset
from .tables import OffTable, lookup
from .trace_events import BoundedTrace, TraceEvent
from .values import (
    OutcomeValue,
    Record,
    brief,
    canonical,
    conforms,
    kind_of_value,
    show,
)

if TYPE_CHECKING:  # pragma: no cover
    from . import syntax

__all__ = ["Dist", "Executor", "LimitExceeded", "Limits", "TraceEvent"]


class Dist:
    """States (or outcomes) with integer weights over a common denominator."""

    __slots__ = ("denom", "weights")

    def __init__(self, weights: dict | None = None, denom: int = 1):
        self.weights: dict = weights if weights is not None else {}
        self.denom = denom

    def absorb(self, other: Dist) -> None:
        """Add ``other``'s mass to this one (rescaling to a common denominator)."""
        if not other.weights:
            return
        if not self.weights:
            self.weights, self.denom = dict(other.weights), other.denom
            return
        if other.denom != self.denom:
            common = math.lcm(self.denom, other.denom)
            if common != self.denom:
                scale = common // self.denom
                self.weights = {k: w * scale for k, w in self.weights.items()}
            scale = common // other.denom
            weights = self.weights
            for key, w in other.weights.items():
                weights[key] = weights.get(key, 0) + w * scale
            self.denom = common
            return
        weights = self.weights
        for key, w in other.weights.items():
            weights[key] = weights.get(key, 0) + w


@dataclass
class _Flow:
    """The states leaving a block: those that ran on, broke out of a loop, or finished with an outcome."""

    normal: Dist
    broken: Dist = field(default_factory=Dist)
    finished: Dist = field(default_factory=Dist)


@dataclass
class _Frame:
    """What a procedure body sees besides its variables."""

    procedure: ir.CheckedProcedure
    inputs: dict[str, Any]
    depth: int


class Executor:
    def __init__(
        self,
        ruleset: Ruleset,
        *,
        dice=None,
        choices: dict[str, str] | None = None,
        trace: bool = False,
        limits: Limits = Limits(),
        budget: Budget | None = None,
    ):
        self.ruleset = ruleset
        self.dice = dice  # None: exact, every face
        self.exact = dice is None
        self.choices = dict(choices or {})
        self.trace: BoundedTrace | None = BoundedTrace(limits.max_trace_steps) if trace else None
        self.limits = limits
        self.budget = budget or Budget(limits)
        bound = 1 << limits.max_int_bits
        self.int_low, self.int_high = -bound + 1, bound - 1
        self._dice_memo: dict[tuple, dict] = {}  # sums by (count, sides); pools and successes by keys of their own
        self._call_memo: dict[tuple, Dist] = {}
        self._sequences: list[tuple] = []  # loop sequences, by the number a state holds
        self._sequence_numbers: dict[tuple, int] = {}
        self._eval: dict[type, Callable] = {
            ir.Const: lambda e, env, f: e.value,
            ir.Local: lambda e, env, f: env[e.slot],
            ir.InputRef: lambda e, env, f: f.inputs[e.name],
            ir.ListOf: lambda e, env, f: self.budget.check_value(tuple(self.eval(i, env, f) for i in e.items), e.pos),
            ir.Guard: self._guard,
            ir.Canonical: lambda e, env, f: canonical(self.eval(e.value, env, f)),
            ir.Field: self._attribute,
            ir.Index: self._index,
            ir.Negate: lambda e, env, f: -self.eval(e.operand, env, f),
            ir.Not: lambda e, env, f: not self.eval(e.operand, env, f),
            ir.Arithmetic: self._binary,
            ir.Comparison: self._compare,
            ir.Logical: self._logical,
            ir.Conditional: lambda e, env, f: self.eval(e.then if self.eval(e.condition, env, f) else e.otherwise, env, f),
            ir.Range: self._range,
            ir.CallFunction: lambda e, env, f: e.function.run(self, e.pos, *[self.eval(a, env, f) for a in e.args]),
            ir.Aggregate: self._aggregate,
            ir.Lookup: self._lookup,
            ir.ModifierSum: self._modifier_sum,
        }

    # ---- tracing -------------------------------------------------------------------

    def note(self, frame: _Frame, kind: str, step: str, pos: syntax.Pos | None = None, rule: str | None = None, **data) -> None:
        """Record a step of the trace: its data only (trace.describe words it)."""
        if self.trace is not None:
            self.budget.charge(TRACE_EVENT_WORK, pos)  # kept to the end of the play: a call tree's trace grew to 100 MB
            where = f"{pos.source.name}:{pos.line}" if pos is not None else ""
            self.trace.append(TraceEvent(kind, rule, frame.depth, where, (("step", step),) + tuple(data.items())))

    # ---- procedures ----------------------------------------------------------------

    def run_procedure(self, procedure: ir.CheckedProcedure, inputs: dict[str, Any], depth: int = 0) -> Dist:
        """The distribution of outcomes (one outcome of full weight when dice are sampled)."""
        if depth > self.limits.max_call_depth:
            raise breach(procedure.body.pos, "max_call_depth", f"procedures nest deeper than {self.limits.max_call_depth} calls")
        frame = _Frame(procedure, inputs, depth)
        start = Dist({(None,) * procedure.slot_count: 1}, 1)
        flow = self.exec_block(procedure.body, start, frame)
        if flow.normal.weights:  # the checker makes every path end in an outcome
            raise AssertionError(f"procedure {procedure.name} fell off its end")
        return flow.finished

    def exec_block(self, block: ir.Block, dist: Dist, frame: _Frame) -> _Flow:
        flow = _Flow(Dist())
        current = dist
        budget = self.budget
        for statement in block.statements:
            if not current.weights:
                break
            # a state's weight is an integer as long as its denominator: long ones cost more; a state holding
            # a big list is hashed item by item (Budget.big_state)
            budget.charge(len(current.weights) * (STATEMENT_WORK + (current.denom.bit_length() >> 10) + budget.big_state), statement.pos)
            result = self.exec_statement(statement, current, frame)
            if isinstance(result, _Flow):
                flow.finished.absorb(result.finished)
                flow.broken.absorb(result.broken)
                current = result.normal
            else:
                current = result
        if block.local_slots:
            current = _clear(current, block.local_slots)
            flow.broken = _clear(flow.broken, block.local_slots)
        flow.normal = current
        return flow

    def exec_statement(self, statement: ir.Stmt, dist: Dist, frame: _Frame) -> Dist | _Flow:
        kind = type(statement)
        if kind is ir.Assign:
            return self._assign(statement, dist, frame)
        if kind is ir.Roll:
            return self._roll(statement, dist, frame)
        if kind is ir.CallProcedure:
            return self._call_procedure(statement, dist, frame)
        if kind is ir.If:
            return self._if(statement, dist, frame)
        if kind is ir.ForLoop:
            return self._loop(statement, dist, frame)
        if kind is ir.WhileLoop:
            return self._while(statement, dist, frame)
        if kind is ir.Outcome:
            return self._outcome(statement, dist, frame)
        if kind is ir.Break:
            return _Flow(Dist(), broken=dist)
        if kind is ir.Require:
            for env in dist.weights:
                if not self.eval(statement.condition, env, frame):
                    raise RuleViolation(statement.pos.diagnostic(f"rule violated: {statement.message}"))
            return dist
        if kind is ir.Note:
            self.note(frame, "note", "note", statement.pos, text=statement.text)
            return dist
        raise AssertionError(f"unknown statement {statement!r}")  # pragma: no cover

    def _assign(self, statement: ir.Assign, dist: Dist, frame: _Frame) -> Dist:
        slot, value_expr, evaluate = statement.slot, statement.value, self.eval
        out: dict = {}
        for env, weight in dist.weights.items():
            value = evaluate(value_expr, env, frame)
            new = env[:slot] + (value,) + env[slot + 1:]
            out[new] = out.get(new, 0) + weight
        if self.trace is not None and not isinstance(value_expr, (ir.Local, ir.Lookup, ir.ModifierSum)):
            self.note(frame, "set", "set", statement.pos, name=statement.name, value=value)
        return Dist(out, dist.denom)

    def _spread(self, dist: Dist, slot: int, per_state: list[tuple[tuple, int, dict, int]], pos) -> Dist:
        """States x values: each state's value distribution written into ``slot``."""
        common = 1
        for _, _, _, total in per_state:
            common = math.lcm(common, total)
        out: dict = {}
        budget = self.budget
        # a value spread costs a unit, and one more for each 1,024 bits of the weights it multiplies
        each = 1 + (dist.denom.bit_length() >> 10)
        for env, weight, values, total in per_state:
            budget.charge(len(values) * each, pos)
            scale = weight * (common // total)
            head, tail = env[:slot], env[slot + 1:]
            for value, count in values.items():
                new = head + (value,) + tail
                out[new] = out.get(new, 0) + count * scale
            budget.check_states(len(out), pos)
        return Dist(out, dist.denom * common)

    def _roll(self, statement: ir.Roll, dist: Dist, frame: _Frame) -> Dist:
        per_state = []
        kind = statement.kind
        for env, weight in dist.weights.items():
            count = self.eval(statement.count, env, frame)
            sides = self.eval(statement.sides, env, frame)
            self._check_dice(statement, count, sides)
            counted = pools.counted_faces(self.eval(statement.faces, env, frame), sides, statement.pos) if kind == "successes" else None
            if self.exact:
                per_state.append((env, weight, self._roll_distribution(kind, count, sides, counted, statement.pos), sides**count))
                continue
            if count > STATEMENT_WORK:  # a unit a die drawn, past the few a statement's work covers
                self.budget.charge(count, statement.pos)
            faces = [self.dice.roll(sides) for _ in range(count)]
            rolled = {"form": kind, "count": count, "sides": sides, "text": statement.text, "faces": faces}
            if kind == "pool":
                value = tuple(sorted(faces, reverse=True))
                self.note(frame, "roll", "roll", statement.pos, **rolled, value=value)
            elif kind == "successes":
                value = sum(1 for face in faces if face in counted)
                self.note(frame, "roll", "roll", statement.pos, **rolled, counting=tuple(sorted(counted)), value=value)
            else:
                value = sum(faces)
                self.note(frame, "roll", "roll", statement.pos, **rolled, total=value)
            per_state.append((env, weight, {value: 1}, 1))
        return self._spread(dist, statement.slot, per_state, statement.pos)

    def _roll_distribution(self, kind: str, count: int, sides: int, counted, pos) -> dict:
        if kind == "sum":
            return self._dice_distribution(count, sides, pos)
        if kind == "pool":
            key = ("pool", count, sides)
            found = self._dice_memo.get(key)
            if found is None:
                pools.check_pool(count, sides, pos, self.limits)
                self.budget.charge(pools.pool_work(count, sides), pos)
                found = self._dice_memo[key] = pools.pool_distribution(count, sides)
            return found
        key = ("successes", count, sides, len(counted))
        found = self._dice_memo.get(key)
        if found is None:  # worked out once a run (as the compiled engine does): 1,000 dice take a millisecond
            self.budget.charge(pools.successes_work(count, sides), pos)
            found = self._dice_memo[key] = pools.successes_distribution(count, sides, len(counted))
        return found

    def _check_dice(self, statement: ir.Roll, count: Any, sides: Any) -> None:
        if not isinstance(count, int) or count < 0 or count > self.limits.max_dice_per_roll:
            raise breach(statement.pos, "max_dice_per_roll", f"cannot roll {count} dice (0 to {self.limits.max_dice_per_roll})")
        if not isinstance(sides, int) or sides < 1 or sides > self.limits.max_faces:
            raise breach(statement.pos, "max_faces", f"a die must have 1 to {self.limits.max_faces} faces, not {sides}")
        if self.exact and statement.kind == "sum" and count * (sides - 1) + 1 > self.limits.max_roll_totals:
            raise breach(statement.pos, "max_roll_totals", f"{count}d{sides} has {count * (sides - 1) + 1:,} totals, more than exact odds follow")

    def _dice_distribution(self, count: int, sides: int, pos) -> dict[int, int]:
        """Ways to roll each total with ``count`` dice of ``sides`` faces.

        One die at a time, each total of the next die a sliding window over
        the last one's: count x totals steps, whatever the number of faces.
        """
        key = (count, sides)
        memo = self._dice_memo.get(key)
        if memo is not None:
            return memo
        ways = [1]  # ways[t]: ways to make t above the minimum
        for _ in range(count):
            self.budget.charge(len(ways) + sides, pos)
            step, window = [], 0
            for total in range(len(ways) + sides - 1):
                if total < len(ways):
                    window += ways[total]
                if total >= sides:
                    window -= ways[total - sides]
                step.append(window)
            ways = step
        distribution = {count + offset: n for offset, n in enumerate(ways)}
        self._dice_memo[key] = distribution
        return distribution

    def _call_procedure(self, statement: ir.CallProcedure, dist: Dist, frame: _Frame) -> Dist:
        callee = self.ruleset.compiled[statement.procedure]
        per_state = []
        for env, weight in dist.weights.items():
            given = {name: self.eval(value, env, frame) for name, value in statement.args}
            inputs = self.callee_inputs(callee, given, statement.pos)
            self.note(frame, "call", "call", statement.pos, callee.rule, procedure=callee.name, title=callee.title)
            key = (callee.name, tuple(sorted(inputs.items())))
            outcomes = self._call_memo.get(key) if self.exact else None
            if outcomes is None:
                # a call worked out costs more than its statements (inputs checked, memo key hashed, outcomes gathered)
                self.budget.charge(CALL_WORK, callee.body.pos)
                outcomes = self.run_procedure(callee, inputs, frame.depth + 1)
                if self.exact:
                    remember(self._call_memo, key, outcomes, self.limits.max_memo_entries)
            per_state.append((env, weight, outcomes.weights, outcomes.denom))
        return self._spread(dist, statement.slot, per_state, statement.pos)

    def callee_inputs(self, callee: ir.CheckedProcedure, given: dict[str, Any], pos: syntax.Pos) -> dict[str, Any]:
        inputs = {}
        for spec in callee.inputs:
            value = given.get(spec.name, spec.default)
            try:
                inputs[spec.name] = coerce(value, spec.type, f"input '{spec.name}' of {callee.name}")
            except CoercionError as error:
                raise RuleViolation(pos.diagnostic(error.message)) from None
        for choice in callee.choices:
            option = given.get(choice.name, self.choices.get(choice.name, choice.default))
            if option not in choice.options:
                raise RuleViolation(pos.diagnostic(f"choice '{choice.name}' of {callee.name} must be one of {', '.join(choice.options)}, not {option!r}"))
            inputs[choice.name] = option
        return inputs

    def _if(self, statement: ir.If, dist: Dist, frame: _Frame) -> Dist | _Flow:
        parts: list[dict] = [{} for _ in statement.branches]
        rest: dict = {}
        for env, weight in dist.weights.items():
            for index, (condition, _) in enumerate(statement.branches):
                if self.eval(condition, env, frame):
                    parts[index][env] = weight
                    break
            else:
                rest[env] = weight
        taken = [(part, body) for part, (_, body) in zip(parts, statement.branches) if part]
        if rest and statement.otherwise is not None:
            taken.append((rest, statement.otherwise))
            rest = {}
        if not taken:  # no branch ran (a single play takes this path often)
            return Dist(rest, dist.denom)
        if len(taken) == 1 and not rest:
            return self.exec_block(taken[0][1], Dist(taken[0][0], dist.denom), frame)
        flow = _Flow(Dist())
        for part, body in taken:
            self._merge(flow, self.exec_block(body, Dist(part, dist.denom), frame))
        if rest:
            flow.normal.absorb(Dist(rest, dist.denom))
        return flow

    @staticmethod
    def _merge(into: _Flow, flow: _Flow) -> None:
        into.normal.absorb(flow.normal)
        into.broken.absorb(flow.broken)
        into.finished.absorb(flow.finished)

    def _loop(self, statement: ir.ForLoop, dist: Dist, frame: _Frame) -> _Flow:
        var, seq, idx = statement.var_slot, statement.sequence_slot, statement.index_slot
        start: dict = {}
        for env, weight in dist.weights.items():
            sequence = self.eval(statement.iterable, env, frame)
            if not isinstance(sequence, tuple):
                raise RuleViolation(statement.iterable.pos.diagnostic(f"`for` needs a list, not {brief(sequence)}"))
            new = _put(_put(env, seq, self._intern(sequence, statement.pos)), idx, 0)
            start[new] = start.get(new, 0) + weight
        sequences = self._sequences

        def next_round(env: tuple) -> tuple | None:
            index, sequence = env[idx], sequences[env[seq]]
            return _put(env, var, sequence[index]) if index < len(sequence) else None

        return self._iterate(statement.body, Dist(start, dist.denom), frame, next_round, idx, (var, seq, idx))

    def _intern(self, sequence: tuple, pos) -> int:
        """A loop's sequence as a small number, so states hash a number, not a long list, at every step."""
        number = self._sequence_numbers.get(sequence)
        if number is None:
            self.budget.charge(len(sequence), pos)
            number = self._sequence_numbers[sequence] = len(self._sequences)
            self._sequences.append(sequence)
        return number

    def _while(self, statement: ir.WhileLoop, dist: Dist, frame: _Frame) -> _Flow:
        count_slot, limit_slot = statement.count_slot, statement.limit_slot
        limited = statement.limit is not None
        start: dict = {}
        for env, weight in dist.weights.items():
            if limited:
                limit = self.eval(statement.limit, env, frame)
                if limit < 0:
                    raise RuleViolation(statement.limit.pos.diagnostic(f"a `while` limit must be 0 or more, not {limit}"))
                env = _put(env, limit_slot, limit)
            start[env] = start.get(env, 0) + weight
        if self.exact:
            return self._while_exact(statement, Dist(start, dist.denom), frame)
        start = {_put(env, count_slot, 0): weight for env, weight in start.items()}

        def next_round(env: tuple) -> tuple | None:
            if not self.eval(statement.condition, env, frame):
                return None
            if limited and env[count_slot] >= env[limit_slot]:
                raise LimitExceeded(statement.pos.diagnostic(f"`while` loop ran past its limit of {env[limit_slot]} rounds"))
            return env  # without a limit a play is bounded by the work budget

        return self._iterate(statement.body, Dist(start, dist.denom), frame, next_round, count_slot, (count_slot, limit_slot))

    def _while_exact(self, statement: ir.WhileLoop, start: Dist, frame: _Frame) -> _Flow:
        """Every state's round computed once (chains.py), the loop solved from them."""
        loop_slots = (statement.count_slot, statement.limit_slot)
        limited = statement.limit is not None

        def round_of(env: tuple) -> chains.Round:
            if not self.eval(statement.condition, env, frame):
                return chains.Round(False, None, {}, {}, {_clear_env(env, loop_slots): 1}, 1)
            self.budget.charge(STATEMENT_WORK, statement.body.pos)  # a round's own bookkeeping
            result = self.exec_block(statement.body, Dist({env: 1}, 1), frame)
            broken = _clear(result.broken, loop_slots)
            return chains.make_round(
                True, env[statement.limit_slot] if limited else None,
                result.normal.weights, result.normal.denom,
                result.finished.weights, result.finished.denom,
                broken.weights, broken.denom,
            )

        def describe(env: tuple) -> str:
            return ", ".join(f"{name} = {brief(env[slot], 60)}" for name, slot in statement.variables) or "its first state"

        chain = chains.Chain(round_of, self.budget, statement.pos)
        if limited:
            finished, exits, denom = chains.solve_limited(chain, start.weights, start.denom)
        else:
            finished, exits, denom = chains.solve_until(chain, start.weights, start.denom, describe)
        return _Flow(Dist(exits, denom), finished=Dist(finished, denom))

    def _iterate(self, body: ir.Block, current: Dist, frame: _Frame, next_round, counter: int, loop_slots: tuple[int, ...]) -> _Flow:
        """Run ``body`` round after round on the states ``next_round`` keeps looping.

        ``next_round(env)`` gives the state that enters the next round, or None
        for a state that leaves the loop.
        """
        flow = _Flow(Dist())
        exits = Dist()
        while current.weights:
            running: dict = {}
            done: dict = {}
            for env, weight in current.weights.items():
                entering = next_round(env)
                if entering is None:
                    done[env] = weight
                else:
                    running[entering] = running.get(entering, 0) + weight
            exits.absorb(_clear(Dist(done, current.denom), loop_slots))  # exits merge as they leave
            if not running:
                break
            self.budget.charge(len(running) * STATEMENT_WORK, body.pos)  # a round's own bookkeeping
            result = self.exec_block(body, Dist(running, current.denom), frame)
            flow.finished.absorb(result.finished)
            exits.absorb(_clear(result.broken, loop_slots))
            advanced: dict = {}
            for env, weight in result.normal.weights.items():
                new = _put(env, counter, env[counter] + 1)
                advanced[new] = advanced.get(new, 0) + weight
            current = Dist(advanced, result.normal.denom)
        flow.normal = exits
        return flow

    def _outcome(self, statement: ir.Outcome, dist: Dist, frame: _Frame) -> _Flow:
        finished: dict = {}
        for env, weight in dist.weights.items():
            fields = tuple((name, self.eval(value, env, frame)) for name, value in statement.fields)
            outcome = OutcomeValue(statement.name, fields)
            finished[outcome] = finished.get(outcome, 0) + weight
        if self.trace is not None:
            self.note(frame, "outcome", "outcome", statement.pos, statement.rule or frame.procedure.rule, outcome=outcome)
        return _Flow(Dist(), finished=Dist(finished, dist.denom))

    # ---- expressions -----------------------------------------------------------------

    def eval(self, expr: ir.Expr, env: tuple, frame: _Frame) -> Any:
        return self._eval[type(expr)](expr, env, frame)

    def _guard(self, expr: ir.Guard, env: tuple, frame: _Frame) -> Any:
        value = self.eval(expr.value, env, frame)
        if not any(conforms(value, expected) for expected in expr.expected):
            wanted = " or ".join(expected.describe() for expected in expr.expected)
            raise RulesetError(expr.pos.diagnostic(
                f"{expr.what} must be {wanted}, but here it is {kind_of_value(value)} ({brief(value)}); "
                "the checker could not know this value's type"
            ))
        return value

    def _attribute(self, expr: ir.Field, env: tuple, frame: _Frame) -> Any:
        subject = self.eval(expr.subject, env, frame)
        if isinstance(subject, OutcomeValue):
            if expr.name == "outcome":
                return subject.name
            missing = object()
            value = subject.get(expr.name, missing)
            if value is missing:
                raise RuleViolation(expr.pos.diagnostic(f"outcome {subject.name} has no field '{expr.name}'"))
            return value
        if isinstance(subject, Record) and subject.has(expr.name):
            return subject.get(expr.name)
        raise RuleViolation(expr.pos.diagnostic(f"{brief(subject)} has no field '{expr.name}'"))

    def _index(self, expr: ir.Index, env: tuple, frame: _Frame) -> Any:
        subject = self.eval(expr.subject, env, frame)
        index = self.eval(expr.index, env, frame)
        if not 1 <= index <= len(subject):
            raise RuleViolation(expr.pos.diagnostic(f"index {index} is outside the list (1 to {len(subject)})"))
        return subject[index - 1]

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
            result = None
        if result is not None:
            if result > self.int_high or result < self.int_low:
                raise breach(expr.pos, "max_int_bits", f"{show(left)[:30]} {op} {show(right)[:30]} grows past {self.limits.max_int_bits} bits")
            return result
        if right == 0:
            raise RuleViolation(expr.pos.diagnostic("division by zero"))
        return left // right if op == "//" else left % right

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
        if op == "<":
            return left < right
        if op == "<=":
            return left <= right
        if op == ">":
            return left > right
        return left >= right

    def _logical(self, expr: ir.Logical, env: tuple, frame: _Frame) -> bool:
        left = self.eval(expr.left, env, frame)
        if expr.op == "and":
            return bool(left) and bool(self.eval(expr.right, env, frame))
        return bool(left) or bool(self.eval(expr.right, env, frame))

    def _range(self, expr: ir.Range, env: tuple, frame: _Frame) -> tuple:
        low = self.eval(expr.low, env, frame)
        high = self.eval(expr.high, env, frame)
        if high - low + 1 > self.limits.max_value_items:
            raise breach(expr.pos, "max_value_items", f"range {low} .. {high} would hold more than {self.limits.max_value_items:,} items")
        self.budget.charge(max(high - low + 1, 0), expr.pos)
        return tuple(range(low, high + 1))

    def _aggregate(self, expr: ir.Aggregate, env: tuple, frame: _Frame) -> Any:
        collection = self.eval(expr.collection, env, frame)
        self.budget.charge(len(collection), expr.pos)
        slot, values = expr.slot, []
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
        return function.finish(self, expr.pos, values)

    def _lookup(self, expr: ir.Lookup, env: tuple, frame: _Frame) -> Any:
        table = expr.table
        row = self.eval(expr.row, env, frame)
        column = self.eval(expr.column, env, frame) if expr.column is not None else None
        shift = self.eval(expr.shift, env, frame) if expr.shift is not None else 0
        try:
            result = lookup(table, row, column, shift)
        except OffTable as error:
            raise RuleViolation(expr.pos.diagnostic(f"{table.title}: {error.message}")) from None
        if self.trace is not None:
            if result.row_clamped_from is not None:
                self.note(frame, "clamp", "row_clamp", expr.pos, table.rule, table=table.name, table_title=table.title,
                          key=result.row_clamped_from, row=result.row.label)
            if result.column_before_shift is not None:
                self.note(frame, "shift", "column_shift", expr.pos, table.rule, table=table.name, table_title=table.title,
                          from_column=result.column_before_shift.label, shift=shift, clamped=bool(result.column_clamped_from),
                          column=result.column.label)
            elif result.column_clamped_from is not None:
                self.note(frame, "clamp", "column_clamp", expr.pos, table.rule, table=table.name, table_title=table.title,
                          key=result.column_clamped_from, column=result.column.label)
            self.note(
                frame, "lookup", "lookup", expr.pos, table.rule, table=table.name, table_title=table.title,
                row=result.row.label, column=result.column.label if result.column else None, value=result.value,
                value_from=result.provenance,
            )
        return result.value

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
                        value_from=entry.value_from or f"{entry.pos.source.name}:{entry.pos.line}",
                    )
        if self.trace is not None:
            self.note(frame, "shift" if shifts else "modifier", "modifier_total", expr.pos, modifier_list.rule,
                      modifier_list=modifier_list.name, list=modifier_list.title, shifts=shifts, total=total)
        return total


def _put(env: tuple, slot: int, value: Any) -> tuple:
    return env[:slot] + (value,) + env[slot + 1:]


def _clear_env(env: tuple, slots: tuple[int, ...]) -> tuple:
    new = list(env)
    for slot in slots:
        new[slot] = None
    return tuple(new)


def _clear(dist: Dist, slots: tuple[int, ...]) -> Dist:
    """Forget dead variables so that states differing only in them merge."""
    if not dist.weights:
        return dist
    out: dict = {}
    for env, weight in dist.weights.items():
        new = list(env)
        for slot in slots:
            new[slot] = None
        key = tuple(new)
        out[key] = out.get(key, 0) + weight
    return Dist(out, dist.denom)
