"""Compile checked procedures (the IR) to Python functions, once per ruleset when it loads.

For every procedure three functions are generated:

- ``exact``: the distribution of outcomes over every die face.  It carries
  dictionaries of states (tuples of the variables live at that point: dead
  ones are never stored) with integer weights over a common denominator,
  like the evaluator, but runs straight-line statements, and one die roll
  with the statements after it, as one pass over the states; states merge
  where passes meet (before a second roll, around loops and branches that
  roll).
- ``play``: one play with a dice source (scripted or seeded dice), straight
  Python over local variables.
- ``sample``: Monte Carlo, many plays with one seeded stream: the statements
  before the first roll run once, values that cannot change between plays
  are computed once (on first use, so an error still appears where the
  evaluator would raise it), and the rest runs once per trial.

Every error keeps the evaluator's message and position: anything that can
fail goes through a helper in :mod:`runtime` or :mod:`functions`, which the
evaluator shares.  Budgets are charged per pass (exact) or per loop round
(plays), so a runaway procedure is still stopped quickly.

Safety.  The generated text is Python source that this module writes and
``compile()``s; no text from a ruleset is ever evaluated.  User text
(procedure, field, outcome and variable names, strings, notes, rule
citations) reaches the generated source only through ``repr()`` of an
``int``, a ``bool`` or a ``str``.  Every identifier in the generated source
is this module's own (``v3`` for slot 3, ``i0`` for the first input, ``k12``
for a constant, ``f7`` for a function), never a name from the ruleset.
Every other value (tables, records, lists, positions, types, built-in
implementations) is passed in by reference through the namespace the code
runs in, never written as text.  The namespace is the compiled ruleset's
own and offers the generated code only the few built-ins it uses.  Deep
nesting in a procedure becomes separate functions, so the generated code
stays well inside Python's own limits (indentation, nested blocks,
parentheses).

The tree-walking evaluator (:mod:`evaluator`) stays the reference: it
explains a play step by step (traces) and the differential tests hold the
two back ends to identical fractions and identical Monte Carlo counts.
"""

from __future__ import annotations

import builtins as _python_builtins
import math
import threading
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from . import ir
from .chains import Round, make_round
from .inputs import MAX_INT_BITS
from .limits import STATEMENT_WORK
from .runtime import (
    Acc,
    Run,
    coerced_input,
    counted,
    dice_distribution,
    divide,
    field,
    index,
    make_guard,
    make_range,
    negative_limit,
    not_a_list,
    overflow,
    past_limit,
    range_size,
    too_deep,
    violated,
)
from .tables import OffTable
from .tables import lookup as table_lookup
from .values import OutcomeValue, Record, canonical

# How deep generated code may nest before a part of it becomes a function of its own.
MAX_INLINE_IFS = 24  # nested `if`s written inline in one function
MAX_PLAY_LOOPS = 6  # nested loops written inline in one function (Python allows 20 blocks)
MAX_INDENT = 60  # indentation levels (Python allows 100)
MAX_EXPRESSION_DEPTH = 20  # procedure-language expression levels before a helper function

_UNSET = object()  # a value hoisted out of Monte Carlo trials, not computed yet
_new_object = object.__new__
_ORDER = __import__("operator").itemgetter(0, 1, 2)

# The only built-ins generated code may use.
_ALLOWED_BUILTINS = ("len", "int", "bool", "str", "dict", "min", "max", "abs", "all", "any", "tuple", "range", "type", "enumerate", "sum", "sorted")


# Outcome values kept per procedure so that equal outcomes are one object (see ProcedureCode.shared_outcome).
SHARED_OUTCOMES = 1 << 16


class ProcedureCode:
    """The generated functions of one procedure, and how to call them.

    - ``exact(rt, inputs tuple, depth)`` -> (weights by outcome key, denominator);
    - ``play(rt, inputs tuple, roll, depth)`` -> outcome key; roll(sides) gives one die;
    - ``sample(rt, inputs tuple, trials, random, counts, progress)`` adds each trial's outcome key to counts;
    - ``plain_inputs(given)`` -> (inputs dict, inputs tuple), or None when the general path must check
      them: the common API call checked in one pass, a dict whose every value is a plain int, bool or
      str that ``api.prepare_inputs`` would take as it is (defaults filled in).  Anything else (a
      misspelt name, a value to coerce, a refusal to report, a procedure with choices) gives None.

    Each function is written and compiled the first time it is asked for, and
    kept (an attribute of its own from then on: a call reads a slot): ``odds``
    compiles only the exact-odds code, a rule test only the play.
    """

    __slots__ = ("_compiler", "_lock", "_outcomes", "_values", "exact", "input_names", "plain_inputs", "play", "procedure", "sample", "sites")

    _MODES = {"exact": "exact", "play": "play", "sample": "sample", "plain_inputs": "inputs"}

    def __init__(self, procedure: ir.CheckedProcedure, input_names: tuple[str, ...], sites: tuple, compiler: _ProcedureCompiler):
        self.procedure = procedure
        self.input_names = input_names  # the order of the inputs tuple: inputs, then choices
        self.sites = sites  # per outcome name and field names: (name, field names)
        self._compiler = compiler
        self._lock = threading.Lock()
        self._outcomes: dict = {}
        self._values: dict = {}  # outcome key -> the one OutcomeValue made for it (bounded: SHARED_OUTCOMES)

    def __getattr__(self, name: str) -> Callable:
        """A generated function not written yet (its slot is empty): written, compiled and kept now."""
        mode = self._MODES.get(name)
        if mode is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        with self._lock:
            try:
                return object.__getattribute__(self, name)  # another thread was first
            except AttributeError:
                function = self._compiler.build(mode)
                object.__setattr__(self, name, function)
                return function

    @property
    def source(self) -> str:
        """The generated Python of all its functions (written now if not yet), for reading and for tests."""
        for name in self._MODES:
            getattr(self, name)
        return self._compiler.module.source()

    def inputs_tuple(self, inputs: Mapping[str, Any]) -> tuple:
        return tuple([inputs[name] for name in self.input_names])

    def outcome(self, key: Any) -> OutcomeValue:
        """The outcome an outcome key stands for: the number of its name and field names, then its field values."""
        found = self._outcomes.get(key)
        if found is not None:
            return found[0]
        # a resolved procedure's outcomes need no text to order them by: made without it
        if type(key) is int:
            return OutcomeValue.made(self.sites[key][0], ())
        name, names = self.sites[key[0]]
        return OutcomeValue.made(name, tuple(zip(names, key[1:])))

    def shared_outcome(self, key: Any) -> OutcomeValue:
        """:meth:`outcome`, the same object for equal keys (up to SHARED_OUTCOMES of them).

        For exact odds, whose callers keep the outcomes in their states: states
        that hold one object compare by identity, not field by field.  (A single
        play makes each outcome once, and gains nothing from it.)
        """
        values = self._values
        found = values.get(key)
        if found is None:
            found = self.outcome(key)
            if len(values) >= SHARED_OUTCOMES:
                values.clear()  # bounded memory; outcomes made afresh are only slower to compare
            values[key] = found
        return found

    def _entry(self, key: Any) -> tuple:
        """(outcome, name, its fields as text): what ordering needs, made once per key (up to a bound)."""
        if type(key) is int:
            name, _ = self.sites[key]
            value = OutcomeValue(name, ())
        else:
            name, names = self.sites[key[0]]
            value = OutcomeValue(name, tuple(zip(names, key[1:])))
        entry = (value, name, value.fields_text())
        if len(self._outcomes) < 4096:
            self._outcomes[key] = entry
        return entry

    def outcomes(self, weights: dict) -> dict:
        """Keys to outcomes (equal outcomes have equal keys: see the outcome numbers)."""
        convert = self.shared_outcome
        return {convert(key): weight for key, weight in weights.items()}

    def distribution(self, weights: dict, denom: int) -> tuple[tuple, int]:
        """((outcome, probability), ...), most likely first, then by name, then by fields as written; and the total weight."""
        cache = self._outcomes
        rows = []
        total = 0
        for key, weight in weights.items():
            if weight:
                entry = cache.get(key) or self._entry(key)
                # compared as tuples: the position (unique) keeps two outcomes from ever being compared
                rows.append((-weight, entry[1], entry[2], len(rows), entry[0]))
                total += weight
        rows.sort()
        gcd, new = math.gcd, _new_object
        outcomes = []
        for row in rows:
            weight = -row[0]
            divisor = gcd(weight, denom)
            probability = new(Fraction)
            probability._numerator = weight // divisor
            probability._denominator = denom // divisor
            outcomes.append((row[4], probability))
        return tuple(outcomes), total

    def ordered(self, weights: dict) -> tuple[list, int]:
        """[(outcome, weight)], most likely first, then by name, then by fields as written; and the total weight."""
        cache = self._outcomes
        rows = []
        total = 0
        for key, weight in weights.items():
            if weight:
                entry = cache.get(key) or self._entry(key)
                rows.append((-weight, entry[1], entry[2], entry[0]))
                total += weight
        if len(rows) > 1:
            rows.sort(key=_ORDER)
        return [(row[3], -row[0]) for row in rows], total

    def run_exact(self, rt: Run, inputs: Mapping[str, Any], depth: int = 0) -> tuple[dict, int]:
        weights, denom = self.exact(rt, self.inputs_tuple(inputs), depth)
        return self.outcomes(weights), denom

    def run_play(self, rt: Run, inputs: Mapping[str, Any], roll: Callable[[int], int], depth: int = 0) -> OutcomeValue:
        return self.outcome(self.play(rt, self.inputs_tuple(inputs), roll, depth))


def compile_procedure(procedure: ir.CheckedProcedure, callees: Mapping[str, ir.CheckedProcedure] | None = None) -> ProcedureCode:
    """Analyse one checked procedure; its functions are generated and compiled when first used.

    Procedures it resolves are reached at run time by name, through the
    running :class:`~runtime.Run`, so each procedure compiles on its own.
    ``callees`` (the ruleset's checked procedures) lets plays and exact odds
    build a resolved procedure's inputs where they call it (see
    _ProcedureCompiler.direct_inputs).
    """
    return _ProcedureCompiler(_Module(), procedure, 0, callees).code


# ---- the generated module ---------------------------------------------------------------


class _Module:
    """The source being written and the values it refers to by name."""

    def __init__(self) -> None:
        self.functions: list[list[str]] = []
        self.values: dict[str, Any] = {}
        self._by_id: dict[int, str] = {}
        self._keep: list = []  # keeps referenced objects alive while ids are used as keys
        self.counter = 0
        self.written: list[str] = []  # the source compiled so far
        self.space: dict | None = None  # the namespace the generated functions run in
        for name, value in (
            ("Acc", Acc), ("lcm", math.lcm), ("UNSET", _UNSET), ("OVF", overflow), ("DIV", divide), ("FLD", field),
            ("IDX", index), ("CNT", counted), ("RNG", make_range), ("RSIZE", range_size), ("VIOL", violated), ("NOTLIST", not_a_list),
            ("NEGLIM", negative_limit), ("PASTLIM", past_limit), ("TOODEEP", too_deep), ("tuple_", tuple), ("ONE", (1,)),
            ("REC", Record), ("OUT", OutcomeValue), ("MISS", Record.MISSING), ("COERCED", coerced_input), ("ROUND", make_round), ("STAYS_NOT", Round), ("CANON", canonical),
        ):
            self.values[name] = value

    def name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def ref(self, value: Any, prefix: str = "k") -> str:
        """A name in the namespace for ``value`` (by identity): how non-literal values reach the code."""
        key = id(value)
        found = self._by_id.get(key)
        if found is None:
            found = self.name(prefix)
            self._by_id[key] = found
            self._keep.append(value)
            self.values[found] = value
        return found

    def add(self, lines: list[str]) -> None:
        self.functions.append(lines)

    def source(self) -> str:
        return "".join(self.written)

    def load(self, label: str) -> dict:
        """Compile the functions written since the last load into the namespace (made on first use); the namespace."""
        text = "\n".join(line for function in self.functions for line in function) + "\n"
        self.functions = []
        self.written.append(text)
        if self.space is None:
            allowed = {name: getattr(_python_builtins, name) for name in _ALLOWED_BUILTINS}
            self.space = {"__builtins__": allowed}
        self.space.update(self.values)
        filename = f"{label[:-1]} #{id(self)}.{len(self.written)}>"
        _register_source(self, filename, text)
        exec(compile(text, filename, "exec"), self.space)  # our own generated source: see the module docstring
        return self.space


def _register_source(owner: object, filename: str, text: str) -> None:
    """Let tracebacks and debuggers show the generated lines of ``filename`` (``linecache``), while ``owner`` lives.

    An internal error inside generated code (a bug of the compiler, never a
    user error: those carry positions) then prints its line, not a blank.
    The name is unique to ``owner`` and to the chunk, so two rulesets in one
    process never share an entry, and the entry goes with ``owner``.  An
    entry whose modification time is None is one that ``linecache.checkcache``
    leaves alone.
    """
    import linecache
    import weakref

    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    weakref.finalize(owner, linecache.cache.pop, filename, None)


def literal(value: Any) -> str | None:
    """Python source for an int, a bool or a str (through repr); None for anything else."""
    kind = type(value)
    if kind is bool or kind is str:
        return repr(value)
    if kind is int:
        return repr(value) if value >= 0 else f"({value!r})"
    return None


def plain_check(module: _Module, expected: Any, value: str) -> str | None:
    """Python source of a test that ``value`` (source) is an int, bool or str that ``inputs.coerce`` would
    return as it is for type ``expected``; None for types coerce must look at.  The test is exact: what
    it refuses, coerce refuses or changes, or the caller hands to coerce (subclasses of int or str)."""
    from .values import BoolType, IntType, StrType

    kind = type(expected)
    if kind is IntType:
        bound = (1 << MAX_INT_BITS) - 1  # at most MAX_INT_BITS bits, sign apart
        low = -bound if expected.low is None else max(-bound, expected.low)
        high = bound if expected.high is None else min(bound, expected.high)
        return f"type({value}) is int and {literal(low)} <= {value} <= {literal(high)}"
    if kind is BoolType:
        return f"type({value}) is bool"
    if kind is StrType:
        if expected.values is None:
            return f"type({value}) is str"
        return f"type({value}) is str and {value} in {module.ref(frozenset(expected.values), 'allowed')}"
    return None


# ---- analysis ---------------------------------------------------------------------------


class _Facts:
    """What the compiler needs to know about a procedure's IR: liveness, dice, loops."""

    def __init__(self, procedure: ir.CheckedProcedure):
        self.before: dict[int, frozenset] = {}  # live slots before each statement
        self.after: dict[int, frozenset] = {}  # live slots after each statement
        self.head: dict[int, frozenset] = {}  # live slots at a loop's head
        self.block_in: dict[int, frozenset] = {}  # live slots at a block's start
        self.rolls: dict[int, bool] = {}  # statement contains a roll or a call
        self.loops: dict[int, bool] = {}  # statement contains a loop
        self.if_depth: dict[int, int] = {}  # nested `if`s inside a statement (itself included)
        self.bound: set[int] = set()  # aggregate variables: never part of a state
        self.sequence_slots: set[int] = set()  # a `for` loop's list and position: states carry them, plays do not
        self.assigned: dict[int, frozenset] = {}  # slots a statement may assign
        self.ranges: dict[int, tuple[int, int]] = {}  # slots known to hold an int in [low, high]
        self._uses: dict[int, frozenset] = {}
        self._collect(procedure.body)
        self._ranges(procedure.body)
        self._block(procedure.body, frozenset(), frozenset())

    # -- structure

    def _collect(self, block: ir.Block) -> None:
        """Bound slots, rolls, loops and if-depth for every statement (children before parents)."""
        order: list = []
        stack: list = [block]
        while stack:
            node = stack.pop()
            if type(node) is ir.Block:
                stack.extend(node.statements)
                continue
            order.append(node)
            stack.extend(ir.statement_blocks(node))
            for expr in ir.statement_expressions(node):
                self._scan_expression(expr)
        for statement in reversed(order):
            kind = type(statement)
            inner = [s for b in ir.statement_blocks(statement) for s in b.statements]
            self.rolls[id(statement)] = kind in (ir.Roll, ir.CallProcedure) or any(self.rolls[id(s)] for s in inner)
            self.loops[id(statement)] = kind in (ir.ForLoop, ir.WhileLoop) or any(self.loops[id(s)] for s in inner)
            self.if_depth[id(statement)] = (1 if kind is ir.If else 0) + max((self.if_depth[id(s)] for s in inner), default=0)
            assigned = set()
            if kind in (ir.Assign, ir.Roll, ir.CallProcedure):
                assigned.add(statement.slot)
            elif kind is ir.ForLoop:
                assigned.update((statement.var_slot, statement.sequence_slot, statement.index_slot))
                self.sequence_slots.update((statement.sequence_slot, statement.index_slot))
            elif kind is ir.WhileLoop:
                assigned.update((statement.count_slot, statement.limit_slot))
            for s in inner:
                assigned |= self.assigned[id(s)]
            self.assigned[id(statement)] = frozenset(assigned)

    def _scan_expression(self, expr) -> None:
        stack = [expr]
        while stack:
            node = stack.pop()
            if type(node) is ir.Aggregate:
                self.bound.add(node.slot)
            stack.extend(ir.sub_expressions(node))

    def _ranges(self, block: ir.Block) -> None:
        """Slots that hold the total of a roll of literal dice, and `let` copies of them never `set` again."""
        statements: list = []
        stack: list = [block]
        while stack:
            node = stack.pop()
            if type(node) is ir.Block:
                stack.extend(node.statements)
            else:
                statements.append(node)
                stack.extend(ir.statement_blocks(node))
        writes: dict[int, int] = {}
        for s in statements:
            for slot in _direct_writes(s):
                writes[slot] = writes.get(slot, 0) + 1
        for s in statements:
            if type(s) is ir.Roll and s.kind == "sum" and type(s.count) is ir.Const and type(s.sides) is ir.Const and writes.get(s.slot) == 1:
                count, sides = s.count.value, s.sides.value
                if type(count) is int and type(sides) is int and count >= 0 and sides >= 1:
                    self.ranges[s.slot] = (count, count * sides)
        for s in statements:
            if type(s) is ir.Assign and type(s.value) is ir.Local and s.value.slot in self.ranges and writes.get(s.slot) == 1:
                self.ranges[s.slot] = self.ranges[s.value.slot]

    # -- liveness

    def uses(self, expr) -> frozenset:
        if expr is None:
            return frozenset()
        key = id(expr)
        found = self._uses.get(key)
        if found is None:
            slots = set()
            stack = [expr]
            while stack:
                node = stack.pop()
                if type(node) is ir.Local:
                    slots.add(node.slot)
                stack.extend(ir.sub_expressions(node))
            found = self._uses[key] = frozenset(slots - self.bound)
        return found

    def _block(self, block: ir.Block, out: frozenset, brk: frozenset) -> frozenset:
        live = out
        for statement in reversed(block.statements):
            self.after[id(statement)] = live
            live = self._statement(statement, live, brk)
            self.before[id(statement)] = live
        self.block_in[id(block)] = live
        return live

    def _statement(self, s, out: frozenset, brk: frozenset) -> frozenset:
        kind = type(s)
        if kind is ir.Assign:
            return (out - {s.slot}) | self.uses(s.value)
        if kind is ir.Roll:
            return (out - {s.slot}) | self.uses(s.count) | self.uses(s.sides) | self.uses(s.faces)
        if kind is ir.CallProcedure:
            used = frozenset().union(*(self.uses(value) for _, value in s.args)) if s.args else frozenset()
            return (out - {s.slot}) | used
        if kind is ir.Require:
            return out | self.uses(s.condition)
        if kind is ir.Note:
            return out
        if kind is ir.Outcome:
            return frozenset().union(*(self.uses(value) for _, value in s.fields)) if s.fields else frozenset()
        if kind is ir.Break:
            return brk
        if kind is ir.If:
            live = frozenset()
            for condition, body in s.branches:
                live |= self.uses(condition) | self._block(body, out, brk)
            live |= self._block(s.otherwise, out, brk) if s.otherwise is not None else out
            return live
        if kind is ir.ForLoop:
            carried = frozenset((s.sequence_slot, s.index_slot))
            head = carried | out
            while True:
                body_in = self._block(s.body, head, out)
                new = carried | out | (body_in - {s.var_slot})
                if new == head:
                    break
                head = new
            self.head[id(s)] = head
            return (head - carried) | self.uses(s.iterable)
        if kind is ir.WhileLoop:
            # the round count is the solver's, not the states' (chains.py); a bound travels with its state
            carried = frozenset((s.limit_slot,)) if s.limit is not None else frozenset()
            head = carried | self.uses(s.condition) | out
            while True:
                body_in = self._block(s.body, head, out)
                new = carried | self.uses(s.condition) | out | body_in
                if new == head:
                    break
                head = new
            self.head[id(s)] = head
            return (head - carried) | self.uses(s.limit)
        raise AssertionError(f"unknown statement {s!r}")  # pragma: no cover


def _direct_writes(statement) -> tuple[int, ...]:
    kind = type(statement)
    if kind in (ir.Assign, ir.Roll, ir.CallProcedure):
        return (statement.slot,)
    if kind is ir.ForLoop:
        return (statement.var_slot, statement.sequence_slot, statement.index_slot)
    if kind is ir.WhileLoop:
        return (statement.count_slot, statement.limit_slot)
    return ()


def _small_literal_roll(statement) -> bool:
    """A roll of literal dice small enough to count when the ruleset loads (its faces become a constant)."""
    if statement.kind != "sum" or type(statement.count) is not ir.Const or type(statement.sides) is not ir.Const:
        return False
    count, sides = statement.count.value, statement.sides.value
    return type(count) is int and type(sides) is int and 0 <= count <= 100 and 1 <= sides <= 1000 and count * (sides - 1) + 1 <= 1000


def _layout(slots) -> tuple[int, ...]:
    return tuple(sorted(slots))


def _key(layout: tuple[int, ...], replace: Mapping[int, str] | None = None) -> str:
    """Source for a state of ``layout`` (a slot may be replaced by an expression).

    A state is the tuple of its variables; a state of one variable is the
    variable's value itself (one tuple fewer to make and to hash); no variable is ().
    """
    parts = [(replace or {}).get(slot, f"v{slot}") for slot in layout]
    if not parts:
        return "()"
    if len(parts) == 1:
        return parts[0]
    return "(" + ", ".join(parts) + ")"


def _unpack(layout: tuple[int, ...], source: str) -> str | None:
    if not layout:
        return None
    if len(layout) == 1:
        return f"v{layout[0]} = {source}"
    return ", ".join(f"v{slot}" for slot in layout) + f" = {source}"


# ---- a function being written ------------------------------------------------------------


class _Function:
    def __init__(self, module: _Module, name: str, params: str):
        self.module = module
        self.name = name
        self.params = params
        self.lines: list[str] = []
        self.needs: dict[str, str] = {}  # local name -> how the prelude sets it
        self.indent = 1

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def need(self, name: str, source: str) -> str:
        self.needs.setdefault(name, source)
        return name

    def temp(self, prefix: str = "t") -> str:
        return self.module.name(prefix)

    def finish(self) -> list[str]:
        head = [f"def {self.name}({self.params}):"]
        for name, source in self.needs.items():
            head.append(f"    {name} = {source}")
        body = self.lines or ["    pass"]
        return head + body + [""]


# ---- expressions --------------------------------------------------------------------------


class _Expressions:
    """Python expression source for IR expressions, in one function being written."""

    def __init__(self, compiler: _ProcedureCompiler, function: _Function, hoist: dict | None = None, stable: Callable[[int], bool] | None = None):
        self.c = compiler
        self.f = function
        # Inside a loop (Monte Carlo trials, a roll's faces): costly values that read only inputs,
        # constants and variables the loop does not change (``stable``) are computed once, on first
        # use (so that an error is still raised where the evaluator raises it), into a local named
        # in ``hoist`` (node id -> name); the loop's writer sets those locals to UNSET before it.
        self.hoist = hoist
        self.stable = stable

    def __call__(self, expr, walrus: bool = True, depth: int = 0) -> str:
        return self.expr(expr, walrus, depth)

    def expr(self, e, walrus: bool, depth: int) -> str:
        if depth >= MAX_EXPRESSION_DEPTH and type(e) not in (ir.Const, ir.Local, ir.InputRef):
            return self._outlined(e)
        if self.hoist is not None and walrus and _invariant(e, self.stable):
            return self._hoisted(id(e), self._expr(e, walrus, depth + 1))
        return self._expr(e, walrus, depth)

    def _hoisted(self, key, inner: str) -> str:
        name = self.hoist.get(key)
        if name is None:
            name = self.hoist[key] = self.f.temp("h")
        return f"({name} if {name} is not UNSET else ({name} := {inner}))"

    def _reads_stable(self, *exprs) -> bool:
        """Whether expressions read only inputs, constants and variables the hoisting loop does not change."""
        return self.hoist is not None and all(not (_locals_in(e) - {s for s in _locals_in(e) if self.stable(s)}) for e in exprs if e is not None)

    def _expr(self, e, walrus: bool, depth: int) -> str:
        kind = type(e)
        m = self.c.module
        sub = lambda x, w=walrus: self.expr(x, w, depth + 1)
        if kind is ir.Const:
            text = literal(e.value)
            return text if text is not None else m.ref(e.value)
        if kind is ir.Local:
            return f"v{e.slot}"
        if kind is ir.InputRef:
            return self.c.input_local(self.f, e.name)
        if kind is ir.ListOf:
            items = [sub(item) for item in e.items]
            inner = f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
            return f"{self.budget()}.check_value({inner}, {m.ref(e.pos, 'p')})"
        if kind is ir.Guard:
            guard = m.ref(make_guard(e.pos, e.expected, e.what), "g")
            return f"{guard}({sub(e.value)})"
        if kind is ir.Canonical:
            return f"CANON({sub(e.value)})"
        if kind is ir.Field:
            subject, pos = sub(e.subject), m.ref(e.pos, "p")
            if not walrus:
                return f"FLD({subject}, {e.name!r}, {pos})"
            # a record's field straight from its dictionary (made by FLD on first use); anything else through FLD
            s_, f_, v_ = self.f.temp("fs"), self.f.temp("fd"), self.f.temp("fv")
            # and a resolved outcome's from its own (OutcomeValue._by_name, made by FLD on first use)
            return (f"({v_} if type({s_} := {subject}) is REC and ({f_} := {s_}._fields) is not None "
                    f"and ({v_} := {f_}.get({e.name!r}, MISS)) is not MISS "
                    f"else {v_} if type({s_}) is OUT and ({f_} := {s_}._by_name) is not None "
                    f"and ({v_} := {f_}.get({e.name!r}, MISS)) is not MISS "
                    f"else FLD({s_}, {e.name!r}, {pos}))")
        if kind is ir.Index:
            subject, position, pos = sub(e.subject), sub(e.index), m.ref(e.pos, "p")
            if walrus and subject.isidentifier():
                # a variable's item read in place when the position is inside the list (subject first, as in
                # IDX: reading a variable cannot fail); anything else through IDX, which words the error
                at = self.f.temp("ix")
                return f"({subject}[{at} - 1] if 0 < ({at} := {position}) <= len({subject}) else IDX({subject}, {at}, {pos}))"
            return f"IDX({subject}, {position}, {pos})"
        if kind is ir.Negate:
            return f"(-{sub(e.operand)})"
        if kind is ir.Not:
            return f"(not {sub(e.operand)})"
        if kind is ir.Arithmetic:
            return self._arithmetic(e, walrus, depth)
        if kind is ir.Comparison:
            op = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "in": "in", "notin": "not in"}[e.op]
            return f"({sub(e.left)} {op} {sub(e.right)})"
        if kind is ir.Logical:
            return f"({sub(e.left)} {e.op} {sub(e.right)})"
        if kind is ir.Conditional:
            return f"({sub(e.then)} if {sub(e.condition)} else {sub(e.otherwise)})"
        if kind is ir.Range:
            return f"RNG(rt, {sub(e.low)}, {sub(e.high)}, {m.ref(e.pos, 'p')})"
        if kind is ir.CallFunction:
            args = [sub(a) for a in e.args]
            template = e.function.inline(len(args))
            if template is not None:
                return "(" + template.format(*args) + ")"
            run = m.ref(e.function.run, "fn")
            return f"{run}(rt, {m.ref(e.pos, 'p')}{''.join(', ' + a for a in args)})"
        if kind is ir.Aggregate:
            return self._aggregate(e, walrus, depth)
        if kind is ir.Lookup:
            return self._lookup(e, walrus, depth)
        if kind is ir.ModifierSum:
            if not e.entries:
                return "0"
            parts = [f"({literal(entry.value) or m.ref(entry.value)} if {sub(condition)} else 0)" for entry, condition in e.entries]
            return "(" + " + ".join(parts) + ")"
        raise AssertionError(f"unknown expression {e!r}")  # pragma: no cover

    def _lookup(self, e, walrus: bool, depth: int) -> str:
        m = self.c.module
        sub = lambda x: self.expr(x, walrus, depth + 1)
        row = sub(e.row)
        keys = self.c.facts.ranges.get(e.row.slot) if type(e.row) is ir.Local else None
        by_key = _rows_by_key(e.table, keys) if keys is not None else None
        simple = (ir.Const, ir.Local, ir.InputRef)
        if by_key is not None and e.table.columns is None:
            # a die roll's every total lands on a row: the cells, by total
            return f"{m.ref(tuple(row_cells[0] if row_cells is not None else None for row_cells in by_key), 'cells')}[{row}]"
        if by_key is not None and type(e.column) in simple and (e.shift is None or type(e.shift) in simple):
            column = sub(e.column)
            shift = sub(e.shift) if e.shift is not None else "0"
            index_ = f"{m.ref(_column_site(e.table, e.pos), 'lkc')}({column}, {shift})"
            if walrus and self._reads_stable(e.column, e.shift):
                index_ = self._hoisted((id(e), "column"), index_)
            return f"{m.ref(by_key, 'rows')}[{row}][{index_}]"
        site = m.ref(_lookup_site(e.table, e.pos), "lk")
        column = sub(e.column) if e.column is not None else "None"
        shift = sub(e.shift) if e.shift is not None else "0"
        return f"{site}({row}, {column}, {shift})"

    def budget(self) -> str:
        return self.f.need("BUD", "rt.budget")

    def _arithmetic(self, e, walrus: bool, depth: int) -> str:
        m = self.c.module
        pos = m.ref(e.pos, "p")
        left = self.expr(e.left, walrus, depth + 1)
        right = self.expr(e.right, walrus, depth + 1)
        if e.op in ("//", "%"):
            if type(e.right) is ir.Const and type(e.right.value) is int and e.right.value != 0:
                return f"({left} {e.op} {right})"
            return f"DIV({pos}, {left}, {e.op!r}, {right})"
        low, high = self.f.need("LO", "rt.int_low"), self.f.need("HI", "rt.int_high")
        simple = (ir.Const, ir.Local, ir.InputRef)
        if not walrus:
            return f"{m.ref(_checked_arithmetic(e.op), 'ar')}(rt, {pos}, {left}, {right})"
        t = self.f.temp()
        if type(e.left) in simple and type(e.right) in simple:
            return f"({t} if {low} <= ({t} := {left} {e.op} {right}) <= {high} else OVF(rt, {pos}, {left}, {e.op!r}, {right}))"
        a, b = self.f.temp("a"), self.f.temp("b")
        return f"({t} if {low} <= ({t} := ({a} := {left}) {e.op} ({b} := {right})) <= {high} else OVF(rt, {pos}, {a}, {e.op!r}, {b}))"

    def _aggregate(self, e, walrus: bool, depth: int) -> str:
        m = self.c.module
        var = f"v{e.slot}"
        collection = f"CNT(rt, {self.expr(e.collection, False, depth + 1)}, {m.ref(e.pos, 'p')})"  # no := in a comprehension's iterable
        function = e.function
        condition = f" if {self.expr(e.condition, walrus, depth + 1)}" if e.condition is not None else ""
        if function.keyed:
            element = self.expr(e.element, walrus, depth + 1)
            items = f"[({element}, {var}_n, {var}) for {var}_n, {var} in enumerate({collection}){condition}]"
        elif function.evaluates_element:
            element = self.expr(e.element, walrus, depth + 1)
            items = f"[{element} for {var} in {collection}{condition}]"
        else:
            items = f"[{var} for {var} in {collection}{condition}]"
        finish = m.ref(function.finish, "ag")
        return f"{finish}(rt, {m.ref(e.pos, 'p')}, {items})"

    def _outlined(self, e) -> str:
        """A deep expression as a function of its own (Python limits how deeply an expression nests)."""
        slots = sorted(_locals_in(e))
        name = self.f.temp("x")
        inner = _Function(self.c.module, name, ", ".join(["rt", "I"] + [f"v{s}" for s in slots]))
        text = _Expressions(self.c, inner).expr(e, True, 0)
        inner.line(f"return {text}")
        self.c.module.add(inner.finish())
        return f"{name}(rt, I{''.join(', v' + str(s) for s in slots)})"


def _locals_in(expr) -> set[int]:
    slots = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is ir.Local:
            slots.add(node.slot)
        stack.extend(ir.sub_expressions(node))
    return slots


def _checked_arithmetic(op: str) -> Callable:
    return _ARITHMETIC[op]


def _make_arithmetic(op: str) -> Callable:
    import operator

    apply = {"+": operator.add, "-": operator.sub, "*": operator.mul}[op]

    def run(rt, pos, left, right):
        result = apply(left, right)
        if result > rt.int_high or result < rt.int_low:
            overflow(rt, pos, left, op, right)
        return result

    return run


_ARITHMETIC = {op: _make_arithmetic(op) for op in ("+", "-", "*")}


def _lookup_site(table, pos) -> Callable:
    """A table lookup at one place in a procedure: precomputed rows and columns, the general rule otherwise."""
    from .runtime import off_table

    index_ = _table_index(table)
    rows_int, rows_str, rows_default, columns_int, columns_str, columns_default, width = index_
    cells = table.cells
    clamp = table.columns is not None and table.columns.edge == "clamp"

    def slow(row, column, shift):
        try:
            return table_lookup(table, row, column, shift).value
        except OffTable as error:
            off_table(table, pos, error.message)

    if table.columns is None:
        def site(row, column, shift):
            kind = type(row)
            if kind is int:
                r = rows_int.get(row)
            elif kind is str:
                r = rows_str.get(row.casefold(), rows_default)
            else:
                r = None
            if r is None:
                return slow(row, column, shift)
            return cells[r][0]

        return site

    def site(row, column, shift):
        kind = type(row)
        if kind is int:
            r = rows_int.get(row)
        elif kind is str:
            r = rows_str.get(row.casefold(), rows_default)
        else:
            r = None
        kind = type(column)
        if kind is int:
            c = columns_int.get(column)
        elif kind is str:
            c = columns_str.get(column.casefold(), columns_default)
        else:
            c = None
        if r is None or c is None or type(shift) is not int:
            return slow(row, column, shift)
        c += shift
        if c < 0 or c >= width:
            if not clamp:
                return slow(row, column, shift)
            c = 0 if c < 0 else width - 1
        return cells[r][c]

    return site


def _rows_by_key(table, keys: tuple[int, int]) -> tuple | None:
    """Each row's cells by key, for every integer key from 0 to the last of ``keys``; None unless each key in range lands on a row."""
    low, high = keys
    if high > 4096 or low < 0 or any(h.ratio is not None for h in table.rows.headings):
        return None
    from .tables import place

    by_key: list = [None] * (high + 1)
    for key in range(low, high + 1):
        try:
            by_key[key] = table.cells[place(table.rows, key, "row").index]
        except OffTable:
            return None
    return tuple(by_key)


def _column_site(table, pos) -> Callable:
    """Where a column key and a shift land (a column index), as ``tables.lookup`` finds it; its errors too."""
    from .runtime import off_table
    from .tables import place
    from .tables import shift as shift_column

    _, _, _, columns_int, columns_str, columns_default, width = _table_index(table)
    clamp = table.columns.edge == "clamp"
    axis = table.columns

    def column_index(column, shift):
        kind = type(column)
        if kind is int:
            c = columns_int.get(column)
        elif kind is str:
            c = columns_str.get(column.casefold(), columns_default)
        else:
            c = None
        if c is not None and type(shift) is int:
            c += shift
            if 0 <= c < width:
                return c
            if clamp:
                return 0 if c < 0 else width - 1
        try:
            return shift_column(axis, place(axis, column, "column"), shift).index
        except OffTable as error:
            off_table(table, pos, error.message)

    return column_index


def _table_index(table) -> tuple:
    """Where plain keys land, computed once per table: ints and categories to heading indexes."""
    from .tables import place

    def axis_maps(axis):
        if axis is None:
            return {}, {}, None
        numbers: dict = {}
        words: dict = {}
        default = None
        if not any(h.ratio is not None for h in axis.headings):
            bounds = [b for h in axis.headings if h.numeric for b in (h.low, h.high) if b is not None]
            if bounds:
                low, high = min(bounds), max(bounds)
                if high - low <= 4096:
                    for key in range(low - 1, high + 2):
                        try:
                            numbers[key] = place(axis, key, "row").index
                        except OffTable:
                            pass
        for i, heading in enumerate(axis.headings):
            if not heading.numeric and heading.ratio is None:
                for member in heading.members:
                    words.setdefault(member, i)
            if heading.otherwise:
                default = i
        return numbers, words, default

    rows = axis_maps(table.rows)
    columns = axis_maps(table.columns)
    width = len(table.columns.headings) if table.columns is not None else 1
    return rows + columns + (width,)


# ---- one procedure ----------------------------------------------------------------------


class _ProcedureCompiler:
    def __init__(self, module: _Module, procedure: ir.CheckedProcedure, number: int, callees: Mapping[str, ir.CheckedProcedure] | None = None):
        self.module = module
        self.procedure = procedure
        self.callees = callees or {}
        self.number = number
        self.facts = _Facts(procedure)
        self.input_names = tuple(spec.name for spec in procedure.inputs) + tuple(choice.name for choice in procedure.choices)
        self.input_index = {name: i for i, name in enumerate(self.input_names)}
        self.sites: list[tuple[str, tuple[str, ...]]] = []
        self.site_of: dict[int, int] = {}
        self._number_sites(procedure.body)
        self.code = ProcedureCode(procedure, self.input_names, tuple(self.sites), self)

    def build(self, mode: str) -> Callable:
        """Write one of the procedure's functions ("exact", "play", "sample", "inputs"), compile it, give it."""
        entry = {"exact": self._exact_entry, "play": self._play_entry, "sample": self._sample_entry, "inputs": self._inputs_entry}[mode]()
        return self.module.load(f"<wartable: procedure {self.procedure.name}, {mode}>")[entry]

    def _inputs_entry(self) -> str:
        """The function behind ProcedureCode.plain_inputs."""
        from .ruleset import MISSING

        m = self.module
        name = f"a{self.number}_{m.name('')}"
        f = _Function(m, name, "given")
        specs = self.procedure.inputs
        if self.procedure.choices or any(plain_check(m, spec.type, "x") is None for spec in specs):
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
            f.line(f"{value} = given.get({spec.name!r}, {written})")
            f.line(f"if not ({plain_check(m, spec.type, value)}): return None")
        pairs = ", ".join(f"{spec.name!r}: {value}" for spec, value in zip(specs, values))
        f.line(f"return {{{pairs}}}, ({''.join(value + ', ' for value in values)})")
        m.add(f.finish())
        return name

    def _number_sites(self, block: ir.Block) -> None:
        stack: list = [block]
        found = []
        while stack:
            node = stack.pop()
            if type(node) is ir.Block:
                stack.extend(reversed(node.statements))
                continue
            if type(node) is ir.Outcome:
                found.append(node)
            stack.extend(reversed(ir.statement_blocks(node)))
        canonical: dict = {}
        for outcome in found:
            signature = (outcome.name, tuple(name for name, _ in outcome.fields))
            # outcome statements with the same name and field names share a number, so that
            # equal outcomes have equal keys wherever they were written
            if signature not in canonical:
                canonical[signature] = len(self.sites)
                self.sites.append(signature)
            self.site_of[id(outcome)] = canonical[signature]

    def direct_inputs(self, call: ir.CallProcedure) -> list[tuple[str, Any]] | None:
        """How the inputs tuple of a resolved procedure is built where it is called, one entry per callee
        input: ("arg", name) for an argument passed as it is (``call.trusted``), ("check", (name, spec))
        for one coerced as runtime.callee_inputs would (same message, same order), ("value", source)
        for a default (coerced now: callee_inputs would coerce it the same way on every call).  None when
        the callee has choices (read from the run): then callee_inputs does it all on every call."""
        from .inputs import CoercionError, coerce
        from .ruleset import MISSING

        callee = self.callees.get(call.procedure)
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
            parts.append(("value", literal(value) or self.module.ref(value, "d")))
        return parts

    def direct_call_inputs(self, f: _Function, call: ir.CallProcedure, expressions: Callable) -> str | None:
        """Write the arguments of ``call`` into locals, in the order written (an error is the first the
        evaluator meets), and give the source of the callee's inputs tuple built from them (see
        direct_inputs); None, writing nothing, when the call takes the general path."""
        direct = self.direct_inputs(call)
        if direct is None:
            return None
        argument = {}
        for name, value in call.args:
            argument[name] = f.temp("a")
            f.line(f"{argument[name]} = {expressions(value)}")
        values = []
        for how, part in direct:
            if how == "arg":
                values.append(argument[part])
            elif how == "check":
                name, spec = part
                what, value = f"input '{name}' of {call.procedure}", argument[name]
                slow = f"COERCED({value}, {self.module.ref(spec.type, 'type')}, {what!r}, {self.pos(call)})"
                fast = plain_check(self.module, spec.type, value)  # the common case tested in place
                values.append(slow if fast is None else f"({value} if {fast} else {slow})")
            else:
                values.append(part)
        return "(" + "".join(value + ", " for value in values) + ")"

    def input_local(self, function: _Function, name: str) -> str:
        i = self.input_index[name]
        return function.need(f"i{i}", f"I[{i}]")

    def outcome_key(self, statement, expressions: _Expressions) -> str:
        site = self.site_of[id(statement)]
        if not statement.fields:
            return repr(site)
        values = [expressions(value) for _, value in statement.fields]
        return "(" + ", ".join([repr(site)] + values) + ")"

    def pos(self, node) -> str:
        return self.module.ref(node.pos, "p")

    # ==== exact odds =========================================================================

    def _exact_entry(self) -> str:
        name = f"e{self.number}_{self.module.name('')}"
        f = _Function(self.module, name, "rt, I, depth")
        f.line(f"if depth > rt.limits.max_call_depth: TOODEEP(rt, {self.module.ref(self.procedure.body.pos, 'p')})")
        steps = self._steps(self.procedure.body.statements)
        if len(steps) == 1 and steps[0][0] == "segment":
            # one pass from the single starting state to the outcomes: no distribution to carry
            self._exact_segment(f, steps[0][1], (), (), None, None, None, self.procedure.body.pos, entry=True)
            self.module.add(f.finish())
            return name
        f.line("FIN = Acc()")
        f.line("X = None")
        f.line("D = {(): 1}")
        f.line("d = 1")
        self._exact_steps(f, self.procedure.body, exit_layout=(), loop=None)
        f.line("return FIN.weights, FIN.denom")
        self.module.add(f.finish())
        return name

    def _exact_block(self, block: ir.Block, exit_layout: tuple, loop=None, prologue=None, epilogue=None) -> str:
        """A function (rt, I, depth, D, d, FIN, X) -> (D, d) running ``block`` on the states in D.

        ``prologue``/``epilogue``: a loop's head check before the first statement,
        and the state the last statement hands to the next round.
        """
        name = self.module.name("b")
        f = _Function(self.module, name, "rt, I, depth, D, d, FIN, X")
        self._exact_steps(f, block, exit_layout, loop, prologue, epilogue)
        f.line("return D, d")
        self.module.add(f.finish())
        return name

    def _exact_steps(self, f: _Function, block: ir.Block, exit_layout: tuple, loop=None, prologue=None, epilogue=None) -> None:
        """The passes that run ``block``, taking the states in D (over d) to the states after it."""
        steps = self._steps(block.statements)
        if prologue is not None and (not steps or steps[0][0] != "segment"):
            steps.insert(0, ("segment", []))
        if epilogue is not None and (not steps or steps[-1][0] != "segment"):
            steps.append(("segment", []))
        layout = prologue["layout"] if prologue is not None else _layout(self.facts.block_in[id(block)])
        for number, (kind, items) in enumerate(steps):
            last = number == len(steps) - 1
            if kind == "segment":
                if last:
                    after = epilogue["layout"] if epilogue is not None else exit_layout
                elif items:
                    after = _layout(self.facts.after[id(items[-1])])
                else:  # a loop's head check before a statement that needs a pass of its own
                    after = _layout(self.facts.before[id(steps[number + 1][1])])
                self._exact_segment(
                    f, items, layout, after, loop,
                    prologue if number == 0 else None,
                    epilogue if last else None,
                    block.pos,
                )
            else:
                after = exit_layout if last else _layout(self.facts.after[id(items)])
                self._exact_compound(f, items, layout, after, loop)
            layout = after

    def _steps(self, statements) -> list:
        """Statements grouped: ("segment", [straight statements, at most one literal roll]) or ("compound", statement)."""
        steps: list = []
        current: list | None = None
        has_roll = False
        for statement in statements:
            kind = type(statement)
            static_roll = kind is ir.Roll and _small_literal_roll(statement)
            straight = not self.facts.rolls[id(statement)] and not self.facts.loops[id(statement)] and self.facts.if_depth[id(statement)] <= MAX_INLINE_IFS
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

    def _exact_segment(self, f: _Function, statements: list, layout: tuple, exit_layout: tuple, loop, prologue, epilogue, fallback_pos, exits: str = "X", known_states: bool = False, entry: bool = False) -> None:
        m = self.module
        roll = next((s for s in statements if type(s) is ir.Roll), None)
        total = 1
        faces: tuple = ()
        if roll is not None:
            count, sides = roll.count.value, roll.sides.value
            faces = tuple(dice_distribution(count, sides).items())
            total = sides**count
        # a statement's work per state, as the evaluator counts it (a loop round's bookkeeping is one more)
        cost = len(statements) + (1 if prologue is not None else 0)
        first_pos = statements[0].pos if statements else (prologue["pos"] if prologue is not None else fallback_pos)
        if entry:
            # the whole procedure in one pass from its single starting state (weight 1 of 1)
            f.line("for w in ONE:")  # a loop of one round: an outcome ends its path with `continue`
        else:
            if not known_states:
                f.line("if D:")
                f.indent += 1
            # the pass's statements for every state, and the faces each state spreads (at most)
            faces_work = f" + {len(faces)}" if roll is not None else ""
            budget = self.budget(f)  # a state holding a big list is hashed item by item (Budget.big_state)
            f.line(f"{budget}.charge(len(D) * ({max(cost, 1)} * ({STATEMENT_WORK} + (d.bit_length() >> 10) + {budget}.big_state){faces_work}), {m.ref(first_pos, 'p')})")
            f.line("N = {}")
            f.line("for st, w in D.items():")
        uses = _SegmentTargets()
        body_start = len(f.lines) - 1
        f.indent += 1
        unpack = _unpack(layout, "st")
        if unpack and not entry:
            f.line(unpack)
        weight = "w" if total == 1 else f"w * {total}"
        expressions = _Expressions(self, f)
        state = _SegmentState(weight=weight, exit_layout=exit_layout, loop=loop, epilogue=epilogue, targets=uses)
        if prologue is not None:
            prologue["emit"](self, f, expressions, state)
        ended = self._exact_statements(f, statements, expressions, state, roll, faces, total)
        if not ended:
            self._exact_fallthrough(f, state)
        f.indent -= 1
        if uses.finished or entry:
            f.lines.insert(body_start, "    " * f.indent + "f = {}")
        if uses.exits:
            f.lines.insert(body_start, "    " * f.indent + "x = {}")
        if uses.counted:
            f.lines.insert(body_start, "    " * f.indent + "n = 0")
            f.need("MS", "rt.max_states")
        out_denom = "d" if total == 1 else f"d * {total}"
        if entry:
            budget = self.budget(f)
            charge = f"{max(cost, 1)} * ({STATEMENT_WORK} + {budget}.big_state)" + (" + n" if uses.counted else "")
            f.line(f"{budget}.charge({charge}, {m.ref(first_pos, 'p')})")
            f.line(f"return f, {total}")
            return
        if uses.finished:
            f.line(f"if f: FIN.absorb(f, {out_denom})")
        if uses.exits:
            f.line(f"if x: {exits}.absorb(x, {out_denom})")
        f.line(f"D, d = N, {out_denom}")
        if not known_states:
            f.indent -= 1

    def _exact_fallthrough(self, f: _Function, state: _SegmentState) -> None:
        if state.epilogue is not None:
            key = _key(state.epilogue["layout"], state.epilogue["replace"])
        else:
            key = _key(state.exit_layout)
        f.line(f"k = {key}")
        f.line(f"N[k] = N.get(k, 0) + {state.weight}")

    def _exact_statements(self, f: _Function, statements: list, expressions: _Expressions, state: _SegmentState, roll, faces, total) -> bool:
        """Write statements for one state; True when every path has ended (outcome or break)."""
        for position, statement in enumerate(statements):
            kind = type(statement)
            if kind is ir.Roll:
                rest = statements[position + 1:]
                # each face starts from the state as it was before the roll
                changed: set = set()
                for later in rest:
                    changed |= self.facts.assigned[id(later)]
                restore = sorted(changed & self.facts.before[id(statement)])
                for slot in restore:
                    f.line(f"sv{slot} = v{slot}")
                # what the statements after the roll compute from values fixed for this state: once per state
                hoist: dict = {}
                unstable = changed | {statement.slot}
                bound = self.facts.bound
                once = _Expressions(self, f, hoist, lambda slot: slot not in unstable and slot not in bound)
                hoist_at = len(f.lines)
                folded = self._fold_target(statement, rest)
                looked_up = self._fold_lookup(statement, rest, faces) if folded is None else None
                if looked_up is not None:
                    inner_state = state.with_weight("w * c")
                    ended = self._exact_folded_lookup(f, statement, rest, looked_up, once, state, inner_state, faces, total, restore)
                elif folded is not None:
                    inner_state = state.with_weight("w * c")
                    ended = self._exact_folded(f, statement, folded, rest[1:], once, state, inner_state, faces, total, restore)
                else:
                    self._exact_roll(f, statement, expressions, state, faces, total)
                    for slot in restore:
                        f.line(f"v{slot} = sv{slot}")
                    inner_state = state.with_weight("w" if all(ways == 1 for _, ways in faces) else "w * c")
                    ended = self._exact_statements(f, rest, once, inner_state, None, faces, total)
                for name in hoist.values():
                    f.lines.insert(hoist_at, "    " * (f.indent - 1) + f"{name} = UNSET")
                if not ended:
                    self._exact_fallthrough(f, inner_state)
                f.indent -= 1
                return True
            if self._exact_simple(f, statement, expressions, state):
                return True
        return False

    def _exact_folded(self, f: _Function, roll: ir.Roll, target: ir.If, after: list, once: _Expressions, state, inner_state,
                      faces, total, restore: list) -> bool:
        """A roll that only chooses a branch of ``target``: its faces counted per branch (the conditions read
        for each face, in order, as written), then the branch and what follows once a branch.  Leaves the
        writer inside the loop over branches; True when every path has ended."""
        self._exact_roll_checks(f, roll, state, faces)
        slot = f"v{roll.slot}"
        groups = f.temp("G")
        # conditions that read nothing of the state but the die (inputs, constants): counted once a call
        per_call = all(self.facts.uses(condition) <= {roll.slot} for condition, _ in target.branches)
        if per_call:
            f.need(groups, "UNSET")
            f.line(f"if {groups} is UNSET:")
            f.indent += 1
        f.line(f"{groups} = {{}}")
        f.line(f"for {slot}, c in {self.module.ref(faces, 'faces')}:")
        for number, (condition, _) in enumerate(target.branches):
            f.line(f"    {'if' if number == 0 else 'elif'} {once(condition)}: {groups}[{number}] = {groups}.get({number}, 0) + c")
        f.line(f"    else: {groups}[{len(target.branches)}] = {groups}.get({len(target.branches)}, 0) + c")
        if per_call:
            f.indent -= 1
        f.line(f"for {slot}, c in {groups}.items():")
        f.indent += 1
        for slot_number in restore:
            f.line(f"v{slot_number} = sv{slot_number}")
        return self._exact_chosen_branch(f, target, slot, once, inner_state) or self._exact_statements(
            f, after, once, inner_state, None, faces, total)

    def _fold_lookup(self, roll: ir.Roll, rest: list, faces) -> tuple | None:
        """When the die is read only as the row of a table lookup right after it (a combat results table
        keyed by a die roll), (position of that statement in ``rest``, the cells per column index, each a
        tuple of (cell, ways)): the faces are then counted per cell, and the rest runs once a cell.

        The die may first be copied into a variable (``let die = 1d6``); neither may be read afterwards.
        Every total must land on a row and the column be a plain value, so the lookup's only possible
        error is its column's, which the first face would meet before any other work."""
        slots = {roll.slot}
        at = 0
        if rest and type(rest[0]) is ir.Assign and type(rest[0].value) is ir.Local and rest[0].value.slot == roll.slot:
            slots.add(rest[0].slot)
            at = 1
        if len(rest) <= at or type(rest[at]) is not ir.Assign or type(rest[at].value) is not ir.Lookup:
            return None
        target, lookup = rest[at], rest[at].value
        simple = (ir.Const, ir.Local, ir.InputRef)
        if type(lookup.row) is not ir.Local or lookup.row.slot not in slots:
            return None
        if lookup.table.columns is not None and (type(lookup.column) not in simple or (lookup.shift is not None and type(lookup.shift) not in simple)):
            return None
        if any(type(e) is ir.Local and e.slot in slots for e in (lookup.column, lookup.shift)):
            return None
        if (slots - {target.slot}) & self.facts.after[id(target)]:
            return None  # the die is read again later
        keys = self.facts.ranges.get(lookup.row.slot)
        by_key = _rows_by_key(lookup.table, keys) if keys is not None else None
        if by_key is None or any(total >= len(by_key) or by_key[total] is None for total, _ in faces):
            return None
        width = len(by_key[faces[0][0]])
        per_column = []
        for column in range(width):
            ways: dict = {}
            for total, count in faces:
                cell = by_key[total][column]
                ways[cell] = ways.get(cell, 0) + count
            per_column.append(tuple(ways.items()))
        return at, tuple(per_column)

    def _exact_folded_lookup(self, f: _Function, roll: ir.Roll, rest: list, looked_up: tuple, once: _Expressions, state, inner_state,
                             faces, total, restore: list) -> bool:
        """A roll read only as a lookup's row (see _fold_lookup): the cells of the lookup's column, each with
        the faces that reach it, then the statements after the lookup once a cell.  Leaves the writer inside
        the loop over cells; True when every path has ended."""
        at, per_column = looked_up
        target, lookup = rest[at], rest[at].value
        self._exact_roll_checks(f, roll, state, faces)
        if lookup.table.columns is None:
            column = "0"
        else:
            column = f"{self.module.ref(_column_site(lookup.table, lookup.pos), 'lkc')}({once(lookup.column)}, {once(lookup.shift) if lookup.shift is not None else '0'})"
        f.line(f"for v{target.slot}, c in {self.module.ref(per_column, 'cells')}[{column}]:")
        f.indent += 1
        for slot_number in restore:
            f.line(f"v{slot_number} = sv{slot_number}")
        return self._exact_statements(f, rest[at + 1:], once, inner_state, None, faces, total)

    def _fold_target(self, roll: ir.Roll, rest: list) -> ir.If | None:
        """The `if` right after a roll when the die is read by its conditions only (not by its branches, nor
        after it): then the faces need only be counted per branch."""
        if not rest or type(rest[0]) is not ir.If:
            return None
        target, slot, facts = rest[0], roll.slot, self.facts
        if slot in facts.after[id(target)]:
            return None
        blocks = [body for _, body in target.branches] + ([target.otherwise] if target.otherwise is not None else [])
        if any(slot in facts.block_in[id(block)] for block in blocks):
            return None
        return target

    def _exact_chosen_branch(self, f: _Function, statement: ir.If, chosen: str, expressions: _Expressions, state) -> bool:
        """An `if` whose branch is already chosen (its number in ``chosen``); True when every branch ends."""
        all_end = True
        for number, (_, body) in enumerate(statement.branches):
            f.line(f"{'if' if number == 0 else 'elif'} {chosen} == {number}:")
            f.indent += 1
            all_end = self._exact_branch(f, body, expressions, state) and all_end
            f.indent -= 1
        if statement.otherwise is None:
            return False
        f.line("else:")
        f.indent += 1
        all_end = self._exact_branch(f, statement.otherwise, expressions, state) and all_end
        f.indent -= 1
        return all_end

    def _exact_roll_checks(self, f: _Function, statement: ir.Roll, state: _SegmentState, faces) -> None:
        """Whether the limits allow the roll, and its faces counted as states (each face is one, folded or not)."""
        pos = self.module.ref(statement.pos, "p")
        count, sides = statement.count.value, statement.sides.value
        # the dice are literal: whether the limits allow them is known once per call
        fits = f.need(f"DOK{count}_{sides}", f"{count} <= rt.limits.max_dice_per_roll and {sides} <= rt.limits.max_faces and {len(faces)} <= rt.limits.max_roll_totals")
        f.line(f"if not {fits}: rt.check_dice({count}, {sides}, {pos}, True)")
        state.targets.counted = True
        f.line(f"n += {len(faces)}")
        f.line(f"if n > MS: rt.too_many_states({pos})")

    def _exact_roll(self, f: _Function, statement: ir.Roll, expressions: _Expressions, state: _SegmentState, faces, total) -> None:
        m = self.module
        self._exact_roll_checks(f, statement, state, faces)
        slot = f"v{statement.slot}"
        if all(ways == 1 for _, ways in faces):
            f.line(f"for {slot} in {m.ref(tuple(t for t, _ in faces), 'faces')}:")
        else:
            f.line(f"for {slot}, c in {m.ref(faces, 'faces')}:")
        f.indent += 1

    def _exact_simple(self, f: _Function, statement, expressions: _Expressions, state: _SegmentState) -> bool:
        """One straight statement for one state; True when it ends the path."""
        kind = type(statement)
        if kind is ir.Assign:
            f.line(f"v{statement.slot} = {expressions(statement.value)}")
            return False
        if kind is ir.Require:
            f.line(f"if not {expressions(statement.condition)}: VIOL({self.pos(statement)}, {statement.message!r})")
            return False
        if kind is ir.Note:
            return False
        if kind is ir.Outcome:
            state.targets.finished = True
            f.line(f"k = {self.outcome_key(statement, expressions)}")
            f.line(f"f[k] = f.get(k, 0) + {state.weight}")
            f.line("continue")
            return True
        if kind is ir.Break:
            state.targets.exits = True
            f.line(f"k = {_key(state.loop['exit'])}")
            f.line(f"x[k] = x.get(k, 0) + {state.weight}")
            f.line("continue")
            return True
        if kind is ir.If:
            all_end = True
            for number, (condition, body) in enumerate(statement.branches):
                f.line(f"{'if' if number == 0 else 'elif'} {expressions(condition)}:")
                f.indent += 1
                ended = self._exact_branch(f, body, expressions, state)
                f.indent -= 1
                all_end = all_end and ended
            if statement.otherwise is not None:
                f.line("else:")
                f.indent += 1
                ended = self._exact_branch(f, statement.otherwise, expressions, state)
                f.indent -= 1
                all_end = all_end and ended
            else:
                all_end = False
            return all_end
        raise AssertionError(f"not a straight statement: {statement!r}")  # pragma: no cover

    def _exact_branch(self, f: _Function, block: ir.Block, expressions: _Expressions, state) -> bool:
        start = len(f.lines)
        ended = False
        for statement in block.statements:
            if self._exact_simple(f, statement, expressions, state):
                ended = True
                break
        if len(f.lines) == start:
            f.line("pass")
        return ended

    def _exact_compound(self, f: _Function, statement, entry: tuple, exit_layout: tuple, loop) -> None:
        kind = type(statement)
        if kind is ir.If:
            self._exact_partition(f, statement, entry, exit_layout, loop)
        elif kind is ir.ForLoop:
            self._exact_for(f, statement, entry, exit_layout, loop)
        elif kind is ir.WhileLoop:
            self._exact_while(f, statement, entry, exit_layout, loop)
        elif kind in (ir.Roll, ir.CallProcedure):
            self._exact_spread(f, statement, entry, exit_layout)
        else:  # pragma: no cover
            raise AssertionError(f"not a compound statement: {statement!r}")

    def _exact_partition(self, f: _Function, statement: ir.If, entry: tuple, exit_layout: tuple, loop) -> None:
        f.line("if D:")
        f.indent += 1
        f.line(f"{self.budget(f)}.charge(len(D) * ({STATEMENT_WORK} + (d.bit_length() >> 10) + {self.budget(f)}.big_state), {self.pos(statement)})")
        parts = []
        for number, (condition, body) in enumerate(statement.branches):
            parts.append((f"A{number}", condition, body))
        rest = "AR"
        for name, _, _ in parts:
            f.line(f"{name} = {{}}")
        f.line(f"{rest} = {{}}")
        f.line("for st, w in D.items():")
        f.indent += 1
        unpack = _unpack(entry, "st")
        if unpack:
            f.line(unpack)
        expressions = _Expressions(self, f)
        for number, (name, condition, body) in enumerate(parts):
            f.line(f"{'if' if number == 0 else 'elif'} {expressions(condition)}:")
            f.line(f"    k = {_key(_layout(self.facts.block_in[id(body)]))}")
            f.line(f"    {name}[k] = {name}.get(k, 0) + w")
        rest_layout = _layout(self.facts.block_in[id(statement.otherwise)]) if statement.otherwise is not None else exit_layout
        f.line("else:")
        f.line(f"    k = {_key(rest_layout)}")
        f.line(f"    {rest}[k] = {rest}.get(k, 0) + w")
        f.indent -= 1
        f.line("M = Acc()")
        for name, _, body in parts:
            function = self._exact_block(body, exit_layout, loop)
            f.line(f"if {name}: M.absorb(*{function}(rt, I, depth, {name}, d, FIN, X))")
        if statement.otherwise is not None:
            function = self._exact_block(statement.otherwise, exit_layout, loop)
            f.line(f"if {rest}: M.absorb(*{function}(rt, I, depth, {rest}, d, FIN, X))")
        else:
            f.line(f"if {rest}: M.absorb({rest}, d)")
        f.line("D, d = M.weights, M.denom")
        f.indent -= 1

    def _exact_for(self, f: _Function, statement: ir.ForLoop, entry: tuple, exit_layout: tuple, loop) -> None:
        m = self.module
        seq, idx, var = statement.sequence_slot, statement.index_slot, statement.var_slot
        body_steps = self._steps(statement.body.statements)
        fused = len(body_steps) == 1 and body_steps[0][0] == "segment"
        # A list that reads no variable is the same for every state: made once, kept out of the states.
        static = fused and not _locals_in(statement.iterable)
        # When the loop runs in this function, every state still looping has run the same number of
        # rounds: the position is the round, a local, not part of the states.
        hidden = ({seq} if static else set()) | ({idx} if fused else set())
        head = _layout(self.facts.head[id(statement)] - hidden)
        pos = self.pos(statement)
        iterable_pos = m.ref(statement.iterable.pos, "p")
        var_live = var in self.facts.block_in[id(statement.body)]
        position = "i" if fused else f"v{idx}"
        f.line("if D:")
        f.indent += 1
        f.line(f"{self.budget(f)}.charge(len(D) * ({STATEMENT_WORK} + (d.bit_length() >> 10) + {self.budget(f)}.big_state), {pos})")
        expressions = _Expressions(self, f)
        if static:
            f.line(f"q = {expressions(statement.iterable)}")
            f.line(f"if type(q) is not tuple_: NOTLIST({iterable_pos}, q)")
            f.line(f"{self.budget(f)}.charge(len(q), {pos})")
            f.line("nq = len(q)")
        f.line("H = {}")
        f.line("for st, w in D.items():")
        f.indent += 1
        unpack = _unpack(entry, "st")
        if unpack:
            f.line(unpack)
        if static:
            f.line(f"k = {_key(head, {idx: '0'})}")
        else:
            f.line(f"s = {expressions(statement.iterable)}")
            f.line(f"if type(s) is not tuple_: NOTLIST({iterable_pos}, s)")
            f.line(f"k = {_key(head, {seq: f'rt.intern(s, {pos})', idx: '0'})}")
        f.line("H[k] = H.get(k, 0) + w")
        f.indent -= 1
        loop_info = {"exit": exit_layout}
        exits = "EX"

        def head_check(compiler, g: _Function, exprs: _Expressions, state) -> None:
            if static:
                if var_live:
                    g.line(f"v{var} = qv")
                return
            state.targets.exits = True
            seqs = g.need("SEQS", "rt.sequences")
            g.line(f"q = {seqs}[v{seq}]")
            g.line(f"if {position} >= len(q):")
            g.line(f"    k = {_key(exit_layout)}")
            g.line(f"    x[k] = x.get(k, 0) + {state.weight}")
            g.line("    continue")
            if var_live:
                g.line(f"v{var} = q[{position}]")

        prologue = {"layout": head, "emit": head_check, "pos": statement.pos}
        epilogue = {"layout": head, "replace": {} if fused else {idx: f"v{idx} + 1"}}
        f.line(f"{exits} = Acc()")
        if fused:
            # the whole loop in this function: each round one pass from the loop's head back to it
            f.line("D = H")
            f.line("i = 0")
            f.line("while D:")
            f.indent += 1
            if static:
                f.line("if i >= nq:")  # the list is done: every state leaves the loop
                f.indent += 1
                if head == exit_layout:
                    f.line(f"{exits}.absorb(D, d)")
                else:
                    f.line("L = {}")
                    f.line("for st, w in D.items():")
                    unpack = _unpack(head, "st")
                    if unpack:
                        f.line(f"    {unpack}")
                    f.line(f"    k = {_key(exit_layout)}")
                    f.line("    L[k] = L.get(k, 0) + w")
                    f.line(f"{exits}.absorb(L, d)")
                f.line("break")
                f.indent -= 1
                if var_live:
                    f.line("qv = q[i]")
            self._exact_segment(f, body_steps[0][1], head, head, loop_info, prologue, epilogue, statement.body.pos, exits=exits, known_states=True)
            f.line("i += 1")
            f.indent -= 1
        else:
            body = self._exact_block(statement.body, head, loop_info, prologue, epilogue)
            f.line("while H:")
            f.line(f"    H, d = {body}(rt, I, depth, H, d, FIN, {exits})")
        f.line(f"D, d = {exits}.weights, {exits}.denom")
        f.indent -= 1

    def budget(self, f: _Function) -> str:
        return f.need("BUD", "rt.budget")

    def _exact_while(self, f: _Function, statement: ir.WhileLoop, entry: tuple, exit_layout: tuple, loop) -> None:
        """The states at the loop's head, then the chain solver (chains.py) over one round per state."""
        m = self.module
        head = _layout(self.facts.head[id(statement)])
        limit = statement.limit_slot
        pos = self.pos(statement)
        f.line("if D:")
        f.indent += 1
        f.line(f"{self.budget(f)}.charge(len(D) * ({STATEMENT_WORK} + (d.bit_length() >> 10) + {self.budget(f)}.big_state), {pos})")
        f.line("H = {}")
        f.line("for st, w in D.items():")
        f.indent += 1
        unpack = _unpack(entry, "st")
        if unpack:
            f.line(unpack)
        expressions = _Expressions(self, f)
        if statement.limit is not None:
            f.line(f"v{limit} = {expressions(statement.limit)}")
            f.line(f"if v{limit} < 0: NEGLIM({m.ref(statement.limit.pos, 'p')}, v{limit})")
        f.line(f"k = {_key(head)}")
        f.line("H[k] = H.get(k, 0) + w")
        f.indent -= 1
        round_of = self._exact_round(statement, head, exit_layout)
        names = tuple((name, head.index(slot)) for name, slot in statement.variables if slot in head)
        f.line(f"D, d = rt.solve_while(H, d, FIN, {round_of}, I, depth, {statement.limit is not None}, {pos}, {m.ref(names, 'names')}, {len(head)})")
        f.indent -= 1

    def _exact_round(self, statement: ir.WhileLoop, head: tuple, exit_layout: tuple) -> str:
        """A function (rt, I, depth, st) -> chains.Round: one round of the loop from one state at its head."""
        m = self.module
        loop_info = {"exit": exit_layout}
        prologue = {"layout": head, "emit": lambda compiler, g, exprs, state: None, "pos": statement.pos}
        epilogue = {"layout": head, "replace": {}}
        body = self._exact_block(statement.body, head, loop_info, prologue, epilogue)
        name = m.name("w")
        g = _Function(m, name, "rt, I, depth, st")
        unpack = _unpack(head, "st")
        if unpack:
            g.line(unpack)
        expressions = _Expressions(self, g)
        g.line(f"if not {expressions(statement.condition)}:")
        g.line(f"    return STAYS_NOT(False, None, {{}}, {{}}, {{{_key(exit_layout)}: 1}}, 1)")
        g.line(f"{self.budget(g)}.charge({STATEMENT_WORK}, {m.ref(statement.body.pos, 'p')})")  # a round's own bookkeeping
        g.line("F = Acc()")
        g.line("X = Acc()")
        g.line(f"N, n = {body}(rt, I, depth, {{st: 1}}, 1, F, X)")
        bound = f"v{statement.limit_slot}" if statement.limit is not None else "None"
        g.line(f"return ROUND(True, {bound}, N, n, F.weights, F.denom, X.weights, X.denom)")
        m.add(g.finish())
        return name

    def _exact_spread(self, f: _Function, statement, entry: tuple, exit_layout: tuple) -> None:
        """A roll whose dice are known only at run time, or a resolved procedure: states x values."""
        pos = self.pos(statement)
        slot = statement.slot
        others = tuple(s for s in exit_layout if s != slot)
        f.line("if D:")
        f.indent += 1
        f.line(f"{self.budget(f)}.charge(len(D) * ({STATEMENT_WORK} + (d.bit_length() >> 10) + {self.budget(f)}.big_state), {pos})")
        f.line("E = []")
        f.line("common = 1")
        f.line("for st, w in D.items():")
        f.indent += 1
        unpack = _unpack(entry, "st")
        if unpack:
            f.line(unpack)
        expressions = _Expressions(self, f)
        if type(statement) is ir.Roll and statement.kind == "pool":
            f.line(f"vals, T = rt.pool({expressions(statement.count)}, {expressions(statement.sides)}, {pos})")
        elif type(statement) is ir.Roll and statement.kind == "successes":
            f.line(f"vals, T = rt.successes({expressions(statement.count)}, {expressions(statement.sides)}, {expressions(statement.faces)}, {pos})")
        elif type(statement) is ir.Roll:
            f.line(f"vals, T = rt.dice({expressions(statement.count)}, {expressions(statement.sides)}, {pos})")
        else:
            values = self.direct_call_inputs(f, statement, expressions)
            if values is not None:
                f.line(f"vals, T = rt.call_exact_direct({statement.procedure!r}, {values}, depth + 1)")
            else:
                given = "{" + ", ".join(f"{name!r}: {expressions(value)}" for name, value in statement.args) + "}"
                trusted = self.module.ref(statement.trusted, "t")
                f.line(f"vals, T = rt.call_exact({statement.procedure!r}, {given}, {pos}, depth + 1, {trusted})")
        f.line("if T != common: common = lcm(common, T)")
        f.line(f"E.append((w, vals, T{''.join(', v' + str(s) for s in others)}))")
        f.indent -= 1
        f.line("N = {}")
        f.line("n = 0")
        f.need("MS", "rt.max_states")
        f.line("lw = 1 + (d.bit_length() >> 10)")  # a value spread costs a unit, and one a 1,024 bits of weight
        f.line(f"for w, vals, T{''.join(', v' + str(s) for s in others)} in E:")
        f.indent += 1
        f.line("sc = w * (common // T)")
        f.line("n += len(vals)")
        f.line(f"{self.budget(f)}.charge(len(vals) * lw, {pos})")
        f.line(f"for v{slot}, c in vals:")
        f.line(f"    k = {_key(exit_layout)}")
        if slot in exit_layout and set(others) == set(entry):
            # Every state keeps all it had and adds a value it had not: each (state, value) is a state
            # met once, so it is stored without looking it up (a state holding columns of records costs
            # about half a microsecond to hash, and a tuple does not keep its hash).
            f.line("    N[k] = c * sc")
        else:
            f.line("    N[k] = N.get(k, 0) + c * sc")
        f.line(f"if n > MS: rt.too_many_states({pos})")
        f.indent -= 1
        f.line("D, d = N, d * common")
        f.indent -= 1

    # ==== single plays and Monte Carlo ========================================================

    def _play_entry(self) -> str:
        name = f"y{self.number}_{self.module.name('')}"
        f = _Function(self.module, name, "rt, I, R, depth")
        f.line(f"if depth > rt.limits.max_call_depth: TOODEEP(rt, {self.module.ref(self.procedure.body.pos, 'p')})")
        f.line("r = None")
        f.line("w = 0")
        _PlayWriter(self, f, roll="R", mode="play").block(self.procedure.body.statements, loops=0)
        self.module.add(f.finish())
        return name

    def _sample_entry(self) -> str:
        """Monte Carlo: the statements before the first roll once, then the rest once per trial."""
        m = self.module
        name = f"m{self.number}_{m.name('')}"
        statements = list(self.procedure.body.statements)
        split = next((i for i, s in enumerate(statements) if self.facts.rolls[id(s)]), len(statements))
        prefix, rest = statements[:split], statements[split:]
        f = _Function(m, name, "rt, I, trials, r, C, progress")
        f.line("depth = 0")
        f.line("w = 0")
        f.line("R = lambda sides: int(r() * sides) + 1")
        ended = _PlayWriter(self, f, roll="R", mode="prefix").block(prefix, loops=0)
        if ended or not rest:
            self.module.add(f.finish())
            return name
        # variables of the prefix that a trial changes start each trial from their prefix value
        changed: set = set()
        for s in rest:
            changed |= self.facts.assigned[id(s)]
        carried = sorted(self.facts.before[id(rest[0])] - self.facts.sequence_slots)
        restore = [slot for slot in carried if slot in changed]
        for slot in restore:
            f.line(f"sv{slot} = v{slot}")
        inline = not any(self.facts.loops[id(s)] for s in rest) and all(self.facts.if_depth[id(s)] <= MAX_INLINE_IFS for s in rest)
        stable = set(carried) - changed
        body_pos = m.ref(self.procedure.body.pos, "p")
        f.line("B = rt.budget")
        f.line("STEP = max(trials // 100, 1) if progress is not None else trials")
        f.line("done = 0")
        # a trial written as a function charges the dice of its big rolls (_PlayWriter._dice_work); one inline does not
        trial_charges = any(self._charges(s, dice=not inline) for s in rest)
        if not inline:
            # one trial is a function (its outcome returns from any loop), defined here once a run, so that
            # what it reads from the run (limits, inputs) is worked out once, not once a trial
            trial = m.name("z")
            g = _Function(m, trial, ", ".join(f"v{s}" for s in carried))
            g.line("w = 0")
            _PlayWriter(self, g, roll="r", mode="play").block(rest, loops=0)
            for need, source in g.needs.items():
                f.need(need, source)
            f.line(f"def {trial}({g.params}):")
            f.lines.extend("    " + line for line in g.lines)
        f.line("n = 0")
        f.line("while done < trials:")
        f.line("    if progress is not None and done % STEP == 0: progress(done, trials)")
        # the clock between batches lasting about Budget.BATCH_SECONDS, however long a play takes
        f.line(f"    n = min(STEP - done % STEP, trials - done, B.next_batch(n, {body_pos}))")
        f.line("    done += n")
        f.line("    for _ in range(n):")
        f.indent += 2
        if trial_charges:
            f.line("B.play_start = B.work")  # each play has the whole work budget (Budget.start_play)
        if inline:
            hoist: dict = {}
            for slot in restore:
                f.line(f"v{slot} = sv{slot}")
            _PlayWriter(self, f, roll="r", mode="sample", hoist=hoist, stable=stable).block(rest, loops=0)
            for hoisted in hoist.values():
                f.needs[hoisted] = "UNSET"
            f.indent -= 2
            # the outcomes counted per outcome (see _PlayWriter.statement), into C by their keys
            for counts in [name for name in f.needs if name.startswith("SC") and name[2:].isdigit()]:
                site = int(counts[2:])
                if f.needs[counts] == "0":
                    f.line(f"if {counts}: C[{site}] = C.get({site}, 0) + {counts}")
                else:
                    f.line(f"for ov, n in {counts}.items():")
                    f.line(f"    k = ({site}, ov)")
                    f.line("    C[k] = C.get(k, 0) + n")
            f.indent += 2
        else:
            arguments = ", ".join(f"sv{s}" if s in changed else f"v{s}" for s in carried)
            f.line(f"k = {trial}({arguments})")
            f.line("C[k] = C.get(k, 0) + 1")
        f.indent -= 2
        m.add(f.finish())
        return name

    def _charges(self, statement, dice: bool = False) -> bool:
        """Whether running the statement may charge the budget (loops, calls, values built at run time;
        with ``dice``, rolls of more than STATEMENT_WORK dice, or of a count known only at run time)."""
        for node in ir.walk(statement):
            kind = type(node)
            if kind in (ir.CallProcedure, ir.ForLoop, ir.WhileLoop, ir.ListOf, ir.Range, ir.CallFunction, ir.Aggregate):
                return True
            if dice and kind is ir.Roll and not (type(node.count) is ir.Const and node.count.value <= STATEMENT_WORK):
                return True
        return False


class _SegmentTargets:
    __slots__ = ("counted", "exits", "finished")

    def __init__(self) -> None:
        self.finished = False
        self.exits = False
        self.counted = False


class _SegmentState:
    __slots__ = ("epilogue", "exit_layout", "loop", "targets", "weight")

    def __init__(self, weight: str, exit_layout: tuple, loop, epilogue, targets: _SegmentTargets):
        self.weight = weight
        self.exit_layout = exit_layout
        self.loop = loop
        self.epilogue = epilogue
        self.targets = targets

    def with_weight(self, weight: str) -> _SegmentState:
        return _SegmentState(weight, self.exit_layout, self.loop, self.epilogue, self.targets)


class _PlayWriter:
    """Statements of one play as straight Python over local variables.

    ``mode``: "play" (an outcome returns its key), "prefix" (Monte Carlo's
    statements before the first roll: an outcome counts every trial),
    "sample" (one Monte Carlo trial written inline: an outcome counts one),
    "outlined" (a statement in a function of its own: it returns a status).
    ``roll``: "R" calls a dice source per die; "r" draws uniform numbers.
    Every function it writes into has ``rt``, ``I``, ``r``, ``R``, ``depth`` and ``w``.
    """

    def __init__(self, compiler: _ProcedureCompiler, f: _Function, roll: str, mode: str, hoist: dict | None = None, stable: set | None = None):
        self.c = compiler
        self.f = f
        self.roll = roll
        self.mode = mode
        fixed, bound = stable or set(), compiler.facts.bound
        self.expressions = _Expressions(compiler, f, hoist, lambda slot: slot in fixed and slot not in bound)

    def block(self, statements, loops: int) -> bool:
        """Write statements; True when every path ends (an outcome, or a break)."""
        for statement in statements:
            if self.statement(statement, loops):
                return True
        return False

    def statement(self, s, loops: int) -> bool:
        f, c, e = self.f, self.c, self.expressions
        kind = type(s)
        if kind in (ir.If, ir.ForLoop, ir.WhileLoop):
            too_deep = (
                f.indent >= MAX_INDENT
                or (kind is not ir.If and loops >= MAX_PLAY_LOOPS)
                or (kind is ir.If and c.facts.if_depth[id(s)] > MAX_INLINE_IFS and f.indent > 4)
            )
            if too_deep and self.mode != "sample":
                return self._outlined(s, loops)
        if kind is ir.Assign:
            f.line(f"v{s.slot} = {e(s.value)}")
            return False
        if kind is ir.Roll:
            self._roll(s)
            return False
        if kind is ir.CallProcedure:
            values = c.direct_call_inputs(f, s, e)
            if values is not None:
                f.line(f"v{s.slot} = rt.call_play_direct({s.procedure!r}, {values}, depth + 1, R, {c.pos(s)})")
                return False
            given = "{" + ", ".join(f"{name!r}: {e(value)}" for name, value in s.args) + "}"
            trusted = c.module.ref(s.trusted, "t")
            f.line(f"v{s.slot} = rt.call_play({s.procedure!r}, {given}, {c.pos(s)}, depth + 1, R, {trusted})")
            return False
        if kind is ir.Require:
            f.line(f"if not {e(s.condition)}: VIOL({c.pos(s)}, {s.message!r})")
            return False
        if kind is ir.Note:
            return False
        if kind is ir.Outcome:
            key = c.outcome_key(s, e)
            if self.mode == "play":
                f.line(f"return {key}")
            elif self.mode == "outlined":
                f.line(f"return (2, {key})")
            elif self.mode == "prefix":
                f.line(f"k = {key}")
                f.line("C[k] = C.get(k, 0) + trials")
                f.line("return")
            elif len(s.fields) > 1:
                f.line(f"k = {key}")
                f.line("C[k] = C.get(k, 0) + 1")
                f.line("continue")
            else:
                # counted per outcome, by its one field's value (or in a plain counter): no key tuple
                # made and hashed every trial; _sample_entry adds them to C after the trials
                site = c.site_of[id(s)]
                if s.fields:
                    counts = f.need(f"SC{site}", "{}")
                    value = e(s.fields[0][1])
                    if not value.isidentifier():
                        temporary = f.temp("ov")
                        f.line(f"{temporary} = {value}")
                        value = temporary
                    f.line(f"{counts}[{value}] = {counts}.get({value}, 0) + 1")
                else:
                    f.line(f"{f.need(f'SC{site}', '0')} += 1")
                f.line("continue")
            return True
        if kind is ir.Break:
            f.line("return (1,)" if self.mode == "outlined" and loops == 0 else "break")
            return True
        if kind is ir.If:
            all_end = True
            for number, (condition, body) in enumerate(s.branches):
                f.line(f"{'if' if number == 0 else 'elif'} {e(condition)}:")
                all_end = self._branch(body.statements, loops) and all_end
            if s.otherwise is not None:
                f.line("else:")
                all_end = self._branch(s.otherwise.statements, loops) and all_end
            else:
                all_end = False
            return all_end
        if kind is ir.ForLoop:
            self._for(s, loops)
            return False
        if kind is ir.WhileLoop:
            self._while(s, loops)
            return False
        raise AssertionError(f"unknown statement {s!r}")  # pragma: no cover

    def _branch(self, statements, loops: int) -> bool:
        f = self.f
        f.indent += 1
        start = len(f.lines)
        ended = self.block(statements, loops)
        if len(f.lines) == start:
            f.line("pass")
        f.indent -= 1
        return ended

    def _roll(self, s: ir.Roll) -> None:
        f, e = self.f, self.expressions
        pos = self.c.pos(s)
        target = f"v{s.slot}"
        if s.kind != "sum":  # a pool or successes: every die drawn in turn, as the evaluator draws them
            count, sides = f.temp("n"), f.temp("s")
            f.line(f"{count} = {e(s.count)}")
            f.line(f"{sides} = {e(s.sides)}")
            f.line(f"rt.check_dice({count}, {sides}, {pos}, False)")
            self._dice_work(count, pos)
            draw = f"int(r() * {sides}) + 1" if self.roll == "r" else f"R({sides})"
            if s.kind == "pool":
                f.line(f"{target} = tuple_(sorted([{draw} for _ in range({count})], reverse=True))")
            else:
                counted = f.temp("c")
                f.line(f"{counted} = rt.counted_faces({e(s.faces)}, {sides}, {pos})")
                f.line(f"{target} = 0")
                f.line(f"for _ in range({count}):")
                f.line(f"    if {draw} in {counted}: {target} += 1")
            return
        static = type(s.count) is ir.Const and type(s.sides) is ir.Const and type(s.count.value) is int and type(s.sides.value) is int
        if static and 0 <= s.count.value <= 4 and s.sides.value >= 1:
            count, sides = s.count.value, s.sides.value
            fits = f.need(f"POK{count}_{sides}", f"{count} <= rt.limits.max_dice_per_roll and {sides} <= rt.limits.max_faces")
            f.line(f"if not {fits}: rt.check_dice({count}, {sides}, {pos}, False)")
            if count == 0:
                f.line(f"{target} = 0")
            elif self.roll == "r":
                f.line(f"{target} = " + " + ".join([f"int(r() * {sides})"] * count) + f" + {count}")
            else:
                f.line(f"{target} = " + " + ".join([f"R({sides})"] * count))
            return
        count, sides = f.temp("n"), f.temp("s")
        f.line(f"{count} = {e(s.count)}")
        f.line(f"{sides} = {e(s.sides)}")
        f.line(f"rt.check_dice({count}, {sides}, {pos}, False)")
        self._dice_work(count, pos)
        f.line(f"{target} = 0")
        if self.roll == "r":
            f.line(f"for _ in range({count}): {target} += int(r() * {sides}) + 1")
        else:
            f.line(f"for _ in range({count}): {target} += R({sides})")

    def _dice_work(self, count: str, pos: str) -> None:
        """A roll of more than STATEMENT_WORK dice costs a unit a die (as the evaluator charges a play), reported at once
        when large: a loop's rounds are reported after the loop, and 100,000 rounds of 1,000 dice take seconds.
        Not in a Monte Carlo trial written inline: it has no loop, so its dice are bounded by its text, and its
        local count is not started afresh each trial."""
        if self.mode == "sample":
            return
        chunk = self.f.need("WL", "rt.work_chunk")
        self.f.line(f"if {count} > {STATEMENT_WORK}:")
        self.f.line(f"    w += {count}")
        self.f.line(f"    if w > {chunk}: w = rt.spend(w, {pos})")

    def _for(self, s: ir.ForLoop, loops: int) -> None:
        f, m, e = self.f, self.c.module, self.expressions
        pos = self.c.pos(s)
        cost = max(1, len(s.body.statements))
        var = f"v{s.var_slot}"
        # a long round reports its work as it goes: a loop may run 100,000 rounds, and its work and the
        # clock were otherwise seen only after the last (5 s past a 1 s timeout, 40 times the work budget)
        long_rounds = _larger_than(s.body, LONG_ROUND)
        # over a range whose variable the body leaves alone, short rounds run are counted after the loop
        # from where the variable stopped (a range holds at most max_value_items numbers)
        counted_after = type(s.iterable) is ir.Range and not long_rounds and not any(s.var_slot in self.c.facts.assigned[id(b)] for b in s.body.statements)
        if type(s.iterable) is ir.Range:
            low, high = f.temp("lo"), f.temp("hi")
            f.line(f"{low} = {e(s.iterable.low)}")
            f.line(f"{high} = {e(s.iterable.high)}")
            items = f.need("MAXI", "rt.limits.max_value_items")
            f.line(f"if {high} - {low} >= {items}: RSIZE(rt, {low}, {high}, {m.ref(s.iterable.pos, 'p')})")  # refused: too long
            f.line(f"if {high} >= {low}: w += {high} - {low} + 1")  # the range's items, as the evaluator counts them
            if counted_after:
                f.line(f"{var} = {low} - 1")
            f.line(f"for {var} in range({low}, {high} + 1):")
        else:
            sequence = f.temp("q")
            f.line(f"{sequence} = {e(s.iterable)}")
            f.line(f"if type({sequence}) is not tuple_: NOTLIST({m.ref(s.iterable.pos, 'p')}, {sequence})")
            f.line(f"for {var} in {sequence}:")
        chunk = f.need("WL", "rt.work_chunk")
        f.indent += 1
        if not counted_after:
            f.line(f"w += {cost * STATEMENT_WORK}")
            if long_rounds:
                f.line(f"if w > {chunk}: w = rt.spend(w, {pos})")
        start = len(f.lines)
        self.block(s.body.statements, loops + 1)
        if len(f.lines) == start:
            f.line("pass")
        f.indent -= 1
        if counted_after:
            f.line(f"w += ({var} - {low} + 1) * {cost * STATEMENT_WORK}")
        f.line(f"if w > {chunk}: w = rt.spend(w, {pos})")

    def _while(self, s: ir.WhileLoop, loops: int) -> None:
        f, m, e = self.f, self.c.module, self.expressions
        pos = self.c.pos(s)
        limit, count = f"v{s.limit_slot}", f"v{s.count_slot}"
        if s.limit is not None:
            f.line(f"{limit} = {e(s.limit)}")
            f.line(f"if {limit} < 0: NEGLIM({m.ref(s.limit.pos, 'p')}, {limit})")
            f.line(f"{count} = 0")
        f.line("while True:")
        f.indent += 1
        f.line(f"if not {e(s.condition)}: break")
        if s.limit is not None:  # without one, a play is bounded by the work budget
            f.line(f"if {count} >= {limit}: PASTLIM({pos}, {limit})")
        chunk = f.need("WL", "rt.work_chunk")
        f.line(f"w += {max(1, len(s.body.statements)) * STATEMENT_WORK}")
        f.line(f"if w > {chunk}: w = rt.spend(w, {pos})")
        self.block(s.body.statements, loops + 1)
        if s.limit is not None:
            f.line(f"{count} += 1")
        f.indent -= 1

    def _outlined(self, s, loops: int) -> bool:
        """A statement nested too deeply for one Python function, written as a function of its own.

        It returns (0, the live variables it may change) when it falls through,
        (1,) for a `break` of a loop around it, and (2, key) for an outcome.
        """
        c, f = self.c, self.f
        hidden = c.facts.sequence_slots
        live_in = sorted(c.facts.before[id(s)] - hidden)
        changed = sorted((c.facts.after[id(s)] & c.facts.assigned[id(s)]) - hidden)
        name = c.module.name("o")
        g = _Function(c.module, name, ", ".join(["rt", "I", "r", "R", "depth"] + [f"v{slot}" for slot in live_in]))
        g.line("w = 0")
        inner = _PlayWriter(c, g, roll=self.roll, mode="outlined")
        if not inner.statement(s, 0):
            g.line("return (0" + "".join(f", v{slot}" for slot in changed) + ",)")
        c.module.add(g.finish())
        result = f.temp("o")
        f.line(f"{result} = {name}(rt, I, r, R, depth{''.join(', v' + str(slot) for slot in live_in)})")
        f.line(f"if {result}[0]:")
        f.indent += 1
        if loops > 0:
            f.line(f"if {result}[0] == 1: break")
        elif self.mode == "outlined":
            f.line(f"if {result}[0] == 1: return {result}")
        if self.mode == "play":
            f.line(f"return {result}[1]")
        elif self.mode == "outlined":
            f.line(f"return {result}")
        elif self.mode == "prefix":
            f.line(f"C[{result}[1]] = C.get({result}[1], 0) + trials")
            f.line("return")
        else:  # pragma: no cover - trials written inline have no deep nesting
            raise AssertionError("outlined statement in an inline trial")
        f.indent -= 1
        if changed:
            f.line(", ".join(["_"] + [f"v{slot}" for slot in changed]) + f" = {result}")
        return False


# Statements and expression nodes in a `for` round above which the round reports its work (and so
# reaches the clock) as it goes; a shorter round is cheap enough to be counted after the loop.
LONG_ROUND = 32


def _larger_than(block: ir.Block, limit: int) -> bool:
    """Whether ``block`` holds more than ``limit`` statements and expression nodes (nested ones too)."""
    return any(seen > limit for seen, _ in enumerate(ir.walk(*block.statements), 1))


def _invariant(expr, stable: Callable[[int], bool]) -> bool:
    """Worth computing once for a loop (trials, faces): costly, and reads only inputs, constants and stable variables."""
    if type(expr) not in (ir.Field, ir.Index, ir.CallFunction, ir.Aggregate, ir.Lookup, ir.ModifierSum, ir.Range, ir.ListOf, ir.Guard):
        return False
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is ir.Local and not stable(node.slot):
            return False
        if type(node) is ir.Aggregate:
            return False  # its variable changes inside it
        stack.extend(ir.sub_expressions(node))
    return True
