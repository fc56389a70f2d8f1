"""A procedure's generated code: :func:`compile_procedure` analyses it, :class:`ProcedureCode` holds its functions.

The pipeline, for one checked procedure (:mod:`interpreter.ir`):

1. :class:`ProcedureCompiler` runs the analysis passes (:mod:`.facts`,
   :mod:`.liveness`), numbers the outcome statements (equal outcomes get
   equal keys) and orders the inputs tuple;
2. each mode is written the first time it is asked for, into the
   procedure's :class:`~.module.GeneratedModule`: ``exact`` (:mod:`.exact`,
   :mod:`.folding`, :mod:`.exact_compound`), ``play`` (:mod:`.play`),
   ``sample`` (:mod:`.sample`), ``plain_inputs`` (:mod:`.calls`); every
   expression through :mod:`.expressions`;
3. the module compiles the new functions (registered with ``linecache``) and
   the function is kept in a slot of :class:`ProcedureCode`.

Every error keeps the evaluator's message and position: anything that can
fail goes through a helper in :mod:`interpreter.runtime` or
:mod:`interpreter.functions`, which the evaluator shares.  Budgets are
charged per pass (exact) or per loop round (plays), so a runaway procedure
is still stopped quickly.  The tree-walking evaluator stays the reference:
the differential tests hold the two back ends to identical fractions and
identical Monte Carlo counts.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from fractions import Fraction
from operator import itemgetter
from typing import Any, ClassVar

from .. import ir
from ..runtime import Run
from ..values import OutcomeValue
from .bounds import Positions
from .calls import direct_inputs, write_inputs_check
from .exact import write_exact
from .facts import Facts, assigned_once, outcome_key_slots
from .module import GeneratedModule
from .playfunction import write_play
from .sample import write_sample
from .writer import CodeWriter

_new_object = object.__new__
_ORDER = itemgetter(0, 1, 2)

# Outcome values kept per procedure by key (see ProcedureCode.shared_outcome): found without making the intern key.
SHARED_OUTCOMES = 1 << 16

# Each mode, and what writes it (given the procedure's compiler; it returns the entry function's name).
WRITERS: dict[str, Callable[[ProcedureCompiler], str]] = {
    "exact": write_exact, "play": write_play, "sample": write_sample, "inputs": write_inputs_check,
}


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

    _MODES: ClassVar[dict[str, str]] = {"exact": "exact", "play": "play", "sample": "sample", "plain_inputs": "inputs"}

    def __init__(self, procedure: ir.CheckedProcedure, input_names: tuple[str, ...], sites: tuple, compiler: ProcedureCompiler):
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
        return self._made(key)

    def _made(self, key: Any) -> OutcomeValue:
        """The outcome for ``key`` made from it (interned: the live one if there is one)."""
        # a resolved procedure's outcomes need no text to order them by: made without it
        if type(key) is int:
            return OutcomeValue(self.sites[key][0], ())
        name, names = self.sites[key[0]]
        return OutcomeValue(name, tuple(zip(names, key[1:])))

    def shared_outcome(self, key: Any) -> OutcomeValue:
        """:meth:`outcome`, remembered by key (up to SHARED_OUTCOMES of them).

        For exact odds, which turn the same keys into outcomes again and again:
        outcomes are interned (values.OutcomeValue), so :meth:`outcome` gives the
        same object too, but by building the intern table's key (fields and their
        types) every time; this finds it by the outcome key alone.  (A single play
        makes each outcome once, and gains nothing from it.)
        """
        values = self._values
        found = values.get(key)
        if found is None:
            found = self._made(key)  # (not among the ordering entries: those are the final outcomes of an API call)
            if len(values) >= SHARED_OUTCOMES:
                values.clear()  # bounded memory; outcomes made afresh are only slower to compare
            values[key] = found
        return found

    def _entry(self, key: Any) -> tuple:
        """(outcome, name, its fields as text): what ordering needs, made once per key (up to a bound)."""
        value = self.outcome(key)  # not among the entries yet: made from the key
        entry = (value, value.name, value.fields_text())
        if len(self._outcomes) < 4096:
            self._outcomes[key] = entry
        return entry

    def outcomes(self, weights: dict) -> dict:
        """Keys to outcomes (equal outcomes have equal keys: see the outcome numbers).  Each key is looked up in
        place and only a key not met before goes through :meth:`shared_outcome` (a resolved call's results go
        through here: 165,000 keys on exact eia 3 v 3, most of them met before)."""
        found_for = self._values.get
        outcomes = {}
        for key, weight in weights.items():
            found = found_for(key)
            outcomes[found if found is not None else self.shared_outcome(key)] = weight
        return outcomes

    def distribution(self, weights: dict, denom: int) -> tuple[tuple, int]:
        """((outcome, probability), ...), most likely first, then by name, then by fields as written; and the total weight."""
        cache = self._outcomes
        rows: list[tuple[Any, ...]] = []
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
            # made without Fraction.__new__ (its gcd again, its checks): the fields it would set, already reduced
            probability._numerator = weight // divisor  # type: ignore[attr-defined]  # Fraction's own private field
            probability._denominator = denom // divisor  # type: ignore[attr-defined]
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
    :func:`.calls.direct_inputs`).
    """
    return ProcedureCompiler(GeneratedModule(), procedure, 0, callees).code


class ProcedureCompiler:
    """What every writer of one procedure shares: its module, its facts, its inputs and its outcome numbers."""

    def __init__(self, module: GeneratedModule, procedure: ir.CheckedProcedure, number: int,
                 callees: Mapping[str, ir.CheckedProcedure] | None = None) -> None:
        self.module = module
        self.procedure = procedure
        self.callees = callees or {}
        self.number = number
        self.facts = Facts(procedure)
        self.input_names = tuple(spec.name for spec in procedure.inputs) + tuple(choice.name for choice in procedure.choices)
        self.input_index = {name: i for i, name in enumerate(self.input_names)}
        self.sites, self.site_of = number_sites(procedure.body)
        self.code = ProcedureCode(procedure, self.input_names, tuple(self.sites), self)
        self._key_slots: dict[int, str] | None = None
        self._play_lets: dict[int, ir.Assign] | None = None
        self._positions: Positions | None = None
        self._callee_sites: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {}
        self._inlined: dict[str, ProcedureCompiler] = {}

    def build(self, mode: str) -> Callable[..., Any]:
        """Write one of the procedure's functions ("exact", "play", "sample", "inputs"), compile it, give it."""
        entry = WRITERS[mode](self)
        function: Callable[..., Any] = self.module.load(f"<wartable: procedure {self.procedure.name}, {mode}>")[entry]
        return function

    @property
    def play_lets(self) -> dict[int, ir.Assign]:
        """Plays: the variables set once, by their ``let`` (facts.assigned_once), by slot; worked out on first use."""
        if self._play_lets is None:
            self._play_lets = assigned_once(self.procedure.body)
        return self._play_lets

    @property
    def positions(self) -> Positions:
        """Plays: which ints are at least 1 (bounds.Positions: a list's position read without testing it is above 0)."""
        if self._positions is None:
            self._positions = Positions(self.procedure.body, self.play_lets)
        return self._positions

    @property
    def key_slots(self) -> dict[int, str]:
        """Slots of plays that hold a resolved procedure's outcome key, read by field only (facts.outcome_key_slots)."""
        if self._key_slots is None:
            self._key_slots = outcome_key_slots(self.procedure.body, lambda call: direct_inputs(self, call) is not None)
        return self._key_slots

    def callee_sites(self, name: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The outcome sites of resolved procedure ``name``, numbered as its own code numbers them."""
        found = self._callee_sites.get(name)
        if found is None:
            found = self._callee_sites[name] = tuple(number_sites(self.callees[name].body)[0])
        return found

    def inlined_compiler(self, name: str) -> ProcedureCompiler:
        """The compiler of resolved procedure ``name`` writing into this procedure's module (engine.inline: a callee's
        code written where a play calls it, its references named in this module)."""
        found = self._inlined.get(name)
        if found is None:
            found = self._inlined[name] = ProcedureCompiler(self.module, self.callees[name], self.number, self.callees)
        return found

    def input_local(self, writer: CodeWriter, name: str) -> str:
        """The local holding input ``name`` (read from the inputs tuple once, when the function starts)."""
        i = self.input_index[name]
        return writer.need(f"i{i}", f"I[{i}]")

    def outcome_key(self, statement: ir.Outcome, expressions: Callable[[Any], str]) -> str:
        """Source of an outcome's key: its number, or (its number, its field values...)."""
        site = self.site_of[id(statement)]
        if not statement.fields:
            return repr(site)
        values = [expressions(value) for _, value in statement.fields]
        return "(" + ", ".join([repr(site)] + values) + ")"

    def pos(self, node: Any) -> str:
        return self.module.ref(node.pos, "p")

    def budget(self, writer: CodeWriter) -> str:
        return writer.need("BUD", "rt.budget")


def number_sites(block: ir.Block) -> tuple[list[tuple[str, tuple[str, ...]]], dict[int, int]]:
    """Outcome statements with the same name and field names share a number, so that equal outcomes
    have equal keys wherever they were written (numbered in the order written): the (name, field names)
    of each number, and each outcome statement's number by its identity."""
    sites: list[tuple[str, tuple[str, ...]]] = []
    site_of: dict[int, int] = {}
    canonical: dict[tuple[str, tuple[str, ...]], int] = {}
    for outcome in [node for node in _in_written_order(block) if type(node) is ir.Outcome]:
        signature = (outcome.name, tuple(name for name, _ in outcome.fields))
        if signature not in canonical:
            canonical[signature] = len(sites)
            sites.append(signature)
        site_of[id(outcome)] = canonical[signature]
    return sites, site_of


def _in_written_order(block: ir.Block) -> list[Any]:
    """Every statement inside ``block`` in the order written (a statement before the statements inside it)."""
    stack: list[Any] = [block]
    found = []
    while stack:
        node = stack.pop()
        if type(node) is ir.Block:
            stack.extend(reversed(node.statements))
            continue
        found.append(node)
        stack.extend(reversed(ir.statement_blocks(node)))
    return found
