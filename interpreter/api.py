"""The Python API: resolve a procedure once, or compute its exact odds.

    from interpreter import load_ruleset, resolve, odds
    eto = load_ruleset("eto")
    play = resolve(eto, "interception", {"zones": 7}, dice=[4])
    play.outcome.name          # 'intercepted'
    odds(eto, "interception", {"zones": 7}).probability("intercepted")   # Fraction(1, 2)

Two engines run a procedure and give the same answers: the code compiled
from it (:mod:`compiler`, the default, and much faster), and the
tree-walking evaluator (:mod:`evaluator`), which explains a play step by
step: ``resolve(..., trace=True)`` (the default) uses it, and
``engine="reference"`` asks for it anywhere (differential tests).

Inputs and choices are bound by :mod:`binding`, as for the command line,
examples and sweeps: a mistake reads the same wherever it was written, and
here it is placed at ``<inputs>:1:1``.
"""

from __future__ import annotations

import gc
import importlib
import itertools
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from . import ir
from .arguments import (
    API_INPUT,
    check_callable,
    check_known,
    check_names,
    check_type,
    misuse,
    whole_number,
)
from .binding import BoundInputs, bind, reachable_choices
from .compiled_ruleset import CompiledRuleset
from .dice import ScriptedDice, SeededDice, fresh_seed
from .errors import Pos, Source, UsageError
from .limits import Budget, Limits, breach, keep_newest, too_many_outcomes
from .runtime import Run, fraction
from .values import OutcomeValue, measure

if TYPE_CHECKING:  # pragma: no cover
    from .summaries import Estimate, Marginal, Mean
    from .trace_events import TraceEvent

Ruleset = CompiledRuleset  # what load_ruleset gives and every call takes
ENGINES = ("compiled", "reference")
DEFAULT_LIMITS = Limits()
ZERO = Fraction(0)

SEED_BITS = 32
# Plays thrown away to compile a procedure's code before Monte Carlo workers are forked (_Chunks.warm).
WARM_PLAYS = 8
_misuse = misuse  # the shared checks of every public function: interpreter/arguments.py


def _checked_call(
    ruleset: Any,
    procedure: Any,
    inputs: Any,
    choices: Any,
    limits: Any,
) -> tuple[ir.CompiledProcedure, dict[str, Any], Limits]:
    """The arguments every API call shares, checked: the project's own errors, never a TypeError;
    the inputs and choices bound (:mod:`binding`)."""
    _check_call_types(ruleset, procedure, inputs, choices)
    limits = _checked_limits(limits)
    compiled = procedure_of(ruleset, procedure)
    offered = reachable_choices(ruleset, procedure) if choices else None
    bound = bind(compiled, inputs or {}, choices, plan=ruleset.input_plan(procedure), offered=offered)
    values = _values_or_raise(bound)
    _within_value_limits(values, limits)
    return compiled, values, limits


def _within_value_limits(values: Mapping[str, Any], limits: Limits) -> None:
    """An input larger than the run's value limits is refused here, by name: otherwise each engine refused the
    first value it made from it, in its own words and at its own place (a play's list, the evaluator's range)."""
    for name, value in values.items():
        if type(value) is not tuple:
            continue
        items, depth = measure(value, limits.max_value_items, limits.max_value_depth)
        where = Pos(Source(API_INPUT, ""), 1, 1)
        if items > limits.max_value_items:
            raise breach(where, "max_value_items", f"input '{name}' holds more than {limits.max_value_items:,} items")
        if depth > limits.max_value_depth:
            raise breach(where, "max_value_depth", f"input '{name}' nests lists more than {limits.max_value_depth} deep")


def _check_call_types(ruleset: Any, procedure: Any, inputs: Any, choices: Any) -> None:
    """The ruleset, the procedure's name, the inputs and the choices are of the kinds a call takes."""
    if type(ruleset) is not CompiledRuleset and not isinstance(ruleset, CompiledRuleset):
        raise _misuse(f"expected a ruleset from load_ruleset(...), not {type(ruleset).__name__}")
    if type(procedure) is not str and not isinstance(procedure, str):
        raise _misuse(f"the procedure is named by a string, not {type(procedure).__name__}")
    if inputs is not None:
        if type(inputs) is not dict and not isinstance(inputs, Mapping):
            raise _misuse(f"inputs are a mapping of input names to values, not {type(inputs).__name__}")
        if not all(isinstance(name, str) for name in inputs):
            raise _misuse("input names are strings")
    if choices is not None and (not isinstance(choices, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in choices.items())):
        raise _misuse("choices are a mapping of choice names to option names (strings)")


def _checked_limits(limits: Any) -> Limits:
    """The call's limits: the defaults for None."""
    if limits is None:
        return DEFAULT_LIMITS
    if not isinstance(limits, Limits):
        raise _misuse(f"limits are a Limits(...), not {type(limits).__name__}")
    return limits


def _plain_call(ruleset: CompiledRuleset, procedure: Any, given: Any) -> tuple[dict[str, Any], tuple[Any, ...], Any] | None:
    """(inputs, their values in order, program) when every input is a plain int, bool or str that
    prepare_inputs would accept as it is, and the procedure has no choices; None otherwise."""
    program = ruleset._code.get(procedure) if type(procedure) is str else None  # ruleset.program's cache, read in place
    if program is None:
        if type(procedure) is not str or procedure not in ruleset.compiled:
            return None
        program = ruleset.program(procedure)
    checked = program.plain_inputs(given)  # generated: see ProcedureCode.plain_inputs
    if checked is None:
        return None
    return checked[0], checked[1], program


def _choices_dict(choices: Mapping[str, str] | None) -> dict[str, str] | None:
    """The choices as the engines take them: a dict (a caller may give any mapping), or None for none given."""
    return choices if choices is None or type(choices) is dict else dict(choices)


def _engine(engine: Any) -> str:
    if engine not in ENGINES:
        raise _misuse(f"engine is one of {', '.join(ENGINES)}, not {engine!r}")
    return engine


_whole_number = whole_number


def procedure_of(ruleset: Ruleset, name: str) -> ir.CompiledProcedure:
    compiled = ruleset.compiled.get(name)
    if compiled is None:
        names = ", ".join(sorted(ruleset.compiled)) or "none"
        raise UsageError(Source(API_INPUT, name).diagnostic(1, 1, f"ruleset '{ruleset.name}' has no procedure '{name}' (procedures: {names})"))
    return compiled


def prepare_inputs(procedure: ir.CompiledProcedure, given: Mapping[str, Any], choices: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Given values bound to the declared inputs, defaults filled in (:func:`binding.bind`); every
    problem raised at once, as a UsageError at ``<inputs>:1:1``."""
    return _values_or_raise(bind(procedure, given, choices))


def _values_or_raise(bound: BoundInputs) -> dict[str, Any]:
    """The bound values; or every problem, each at ``<inputs>:1:1`` (an API call has no line to point at)."""
    if bound.problems:
        source = Source(API_INPUT, "")
        raise UsageError([source.diagnostic(1, 1, problem.message) for problem in bound.problems])
    return bound.values


@dataclass(frozen=True)
class _Result:
    """What every result names: the ruleset, the procedure and the inputs it ran with (defaults filled in).

    ``to_json()`` gives the document ``--json`` prints, made by the :mod:`results` function that
    ``_document`` names.
    """

    _document: ClassVar[str]

    ruleset: str
    procedure: str
    inputs: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """As ``--json`` prints it."""
        from . import results

        return getattr(results, self._document)(self)


@dataclass(frozen=True)
class Resolution(_Result):
    """One play of a procedure (``to_json``: ``results.resolution``)."""

    _document: ClassVar[str] = "resolution"

    seed: int | None
    dice: tuple[int, ...]
    outcome: OutcomeValue
    trace: tuple[TraceEvent, ...]
    unused_dice: int = 0
    # Tables marked example: true that the procedure may read: the result rests on them, not the game's own.
    illustrative_tables: tuple[str, ...] = ()
    # Topics of the ruleset's notes whose reading (not the seed's words) the result may rest on.
    readings: tuple[str, ...] = ()



def resolve(
    ruleset: Ruleset,
    procedure: str,
    inputs: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    dice: Iterable[int] | None = None,
    choices: Mapping[str, str] | None = None,
    trace: bool = True,
    limits: Limits | None = None,
    budget: Budget | None = None,
    engine: str = "compiled",
) -> Resolution:
    """Resolve ``procedure`` once: scripted ``dice``, a ``seed``, or a fresh seed (reported).

    ``trace=True`` records every step (the evaluator runs the play);
    ``trace=False`` runs the compiled code, unless ``engine="reference"``.
    ``budget`` lets several calls share one budget (one command's timeout), as in ``odds``.
    """
    check_type(budget, Budget, "budget", "a Budget (or None)", optional=True)
    compiled, prepared, limits = _checked_call(ruleset, procedure, inputs, choices, budget.limits if budget is not None else limits)
    engine = _engine(engine)
    check_type(trace, bool, "trace", "True or False")
    if dice is not None and seed is not None:
        raise _misuse("give scripted dice or a seed, not both")
    if dice is not None:
        if isinstance(dice, (str, bytes)) or not isinstance(dice, Iterable):
            raise _misuse(f"dice are a list of die faces, not {type(dice).__name__}")
        faces = tuple(dice)
        for face in faces:
            _whole_number(face, "a scripted die face", low=1)
        source: ScriptedDice | SeededDice = ScriptedDice(faces)
    else:
        seed = fresh_seed(SEED_BITS) if seed is None else _whole_number(seed, "the seed", low=0)
        source = SeededDice(seed)
    if trace or engine == "reference":
        from .evaluator import Executor

        executor = Executor(ruleset, dice=source, choices=_choices_dict(choices), trace=bool(trace), limits=limits, budget=budget)
        (outcome,) = executor.run_procedure(compiled, prepared).weights
        events = executor.trace.events() if executor.trace is not None else ()
    else:
        outcome = ruleset.program(procedure).run_play(Run(ruleset, limits, budget, choices=dict(choices or {})), prepared, source.roll)
        events = ()
    return Resolution(
        ruleset.name,
        procedure,
        prepared,
        seed,
        tuple(source.rolled),
        outcome,
        events,
        source.unused if isinstance(source, ScriptedDice) else 0,
        ruleset.illustrative_tables(procedure),
        ruleset.readings(procedure),
    )


@dataclass(frozen=True)
class Distribution(_Result):
    """Exact probabilities of a procedure's outcomes (``to_json``: ``results.distribution``)."""

    _document: ClassVar[str] = "distribution"

    outcomes: tuple[tuple[OutcomeValue, Fraction], ...]  # most likely first
    truncated: Fraction = Fraction(0)
    illustrative_tables: tuple[str, ...] = ()  # see Resolution
    # The procedure's outcome type, to tell a misspelt field from one no outcome here carries.
    outcome_type: Any = field(default=None, compare=False, repr=False)
    readings: tuple[str, ...] = ()  # see Resolution

    def probability(self, name: str, **fields: Any) -> Fraction:
        """Total probability of outcomes called ``name`` whose fields match ``fields``.

        A field no outcome called ``name`` can carry is a mistake (UsageError naming the closest),
        not a probability of 0.
        """
        if type(name) is not str:
            raise misuse(f"an outcome is named by a string, not {type(name).__name__}")
        if fields:
            carried = [k for outcome, _ in self.outcomes if outcome.name == name for k, _ in outcome.fields]
            if carried or self.outcome_type is not None:
                check_known(fields, carried + self._declared_fields(), f"outcome '{name}'", "field")
        return sum(
            (p for outcome, p in self.outcomes if outcome.name == name and all(outcome.get(k) == v for k, v in fields.items())),
            Fraction(0),
        )

    def by_name(self) -> dict[str, Fraction]:
        totals: dict[str, Fraction] = {}
        for outcome, p in self.outcomes:
            totals[outcome.name] = totals.get(outcome.name, Fraction(0)) + p
        return totals

    def marginal(self, fields: Iterable[str]) -> Marginal:
        """The distribution over chosen fields (``"outcome"`` for the name), the rest summed out.

        ``odds(...).marginal(["hits"]).probability(2)`` is the chance of exactly 2 hits.
        """
        from .summaries import OUTCOME, fields_of, marginal

        names = _field_names(fields)
        check_known(names, [OUTCOME, *self._declared_fields(), *fields_of(o for o, _ in self.outcomes)], f"procedure '{self.procedure}'", "field")
        return marginal(self, names)

    def _declared_fields(self) -> list[str]:
        return [name for name, _ in getattr(self.outcome_type, "fields", ())]

    def to_records(self) -> list[dict[str, Any]]:
        """One plain dict per outcome, most likely first: ``{"name", "fields", "probability"}``.

        ``fields`` is a new dict of the outcome's fields (the values ``outcome.fields[...]`` reads),
        ``probability`` the exact Fraction: data for any program, no wartable type to learn.  The mass a
        bounded loop dropped is not an outcome: it is ``self.truncated`` (records plus it sum to 1).
        """
        return [{"name": outcome.name, "fields": dict(outcome.fields), "probability": p} for outcome, p in self.outcomes]

    def to_pandas(self) -> Any:
        """A pandas DataFrame, one row per outcome (most likely first): column ``outcome`` (its name),
        one column per field (in the order first met; empty where an outcome lacks it) and
        ``probability`` as a float (``to_records()`` keeps the exact Fraction).

        pandas is optional: without it, ImportError says so.  A field called ``probability`` would
        clash with the probability column: refused (UsageError), use ``to_records()``.
        """
        try:
            pandas = importlib.import_module("pandas")  # optional, not a dependency: typed Any wherever it is installed
        except ImportError:
            raise ImportError("Distribution.to_pandas() needs pandas (pip install pandas); to_records() needs nothing") from None
        columns: dict[str, None] = {}
        for outcome, _ in self.outcomes:
            columns.update(dict.fromkeys(name for name, _ in outcome.fields))
        if "probability" in columns:
            raise _misuse("a field is called 'probability', the name of the probability column: use to_records()")
        rows = [{"outcome": outcome.name, **dict(outcome.fields), "probability": float(p)} for outcome, p in self.outcomes]
        return pandas.DataFrame(rows, columns=["outcome", *columns, "probability"])

    def means(self) -> dict[str, Mean]:
        """The exact mean of every numeric outcome field: {field: Mean(field, value, probability)}."""
        from .summaries import means

        return means(self)

    def variance(self, field: str) -> Fraction:
        """The exact variance of a numeric outcome field, over the outcomes that carry it (as ``means``).

        ``odds(...).variance("hits")``: a d6 gives 35/12.  The mass a bounded loop dropped
        (``truncated``) is not counted, as in ``means``.
        """
        from .summaries import variance

        return variance(self, _numeric_field(field, self.outcomes, f"procedure '{self.procedure}'"))

    def std(self, field: str) -> float:
        """The standard deviation of a numeric outcome field: the square root of :meth:`variance` (a float)."""
        import math

        return math.sqrt(self.variance(field))

    def quantile(self, field: str, q: Any) -> int:
        """The lower ``q``-quantile of a numeric field: the least value v with P(field <= v) >= q.

        ``q`` from 0 to 1 (an int, float or Fraction; a float is read exactly); the answer is a value
        the field takes (the median of a d6 is 3).  Over the outcomes that carry the field.
        """
        from .summaries import numeric_weights, weighted_quantile

        name = _numeric_field(field, self.outcomes, f"procedure '{self.procedure}'")
        found = weighted_quantile(numeric_weights(self.outcomes, name), _share(q))
        assert found is not None  # _numeric_field: some outcome carries it
        return found



def odds(
    ruleset: Ruleset,
    procedure: str,
    inputs: Mapping[str, Any] | None = None,
    *,
    choices: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    budget: Budget | None = None,
    engine: str = "compiled",
) -> Distribution:
    """The exact distribution of ``procedure``'s outcomes over every die face.

    ``budget`` lets several calls share one budget (one command's timeout).  Python's cyclic
    garbage collector is paused while the call runs (see ``_pause_collector``).
    """
    paused = _pause_collector()
    try:
        return _odds(ruleset, procedure, inputs, choices, limits, budget, engine)
    finally:
        if paused:
            gc.enable()


def _pause_collector() -> bool:
    """Pause Python's cyclic garbage collector; True if this call paused it (the caller resumes it).

    Exact odds build millions of tuples, dictionaries and records that stay alive until the call
    ends and hold no reference cycles, so every full collection walks all of them and frees
    nothing: about 12% of an exact 3 v 3 eia battle.  Reference counting still frees memory as
    usual meanwhile; only the search for cycles waits (Mercurial's ``util.nogc`` does the same
    when it builds large data).  The collector is process-wide: a thread running alongside goes
    without cycle collection until the call ends, and a collector someone else turned off stays
    off.
    """
    if gc.isenabled():
        gc.disable()
        return True
    return False


def _odds(
    ruleset: Ruleset, procedure: str, inputs: Mapping[str, Any] | None, choices: Mapping[str, str] | None,
    limits: Limits | None, budget: Budget | None, engine: str,
) -> Distribution:
    """``odds`` with the collector paused."""
    if engine == "compiled" and choices is None and limits is None and budget is None and type(ruleset) is CompiledRuleset:
        fast = _plain_call(ruleset, procedure, inputs)
        if fast is not None:  # the common call, checked in one pass; anything else takes the general path
            prepared, values, program = fast
            weights, denom = program.exact(Run(ruleset, DEFAULT_LIMITS, None, None), values, 0)
            _keep_memo(ruleset, DEFAULT_LIMITS)
            outcomes, total = program.distribution(weights, denom)
            truncated = ZERO if total == denom else (1 - Fraction(total, denom) if weights else Fraction(1))
            return _distribution(ruleset, procedure, prepared, outcomes, truncated)
    check_type(budget, Budget, "budget", "a Budget (or None)", optional=True)
    compiled, prepared, limits = _checked_call(ruleset, procedure, inputs, choices, budget.limits if budget is not None else limits)
    if engine == "compiled":
        program = ruleset.program(procedure)
        try:
            weights, denom = program.exact(Run(ruleset, limits, budget, _choices_dict(choices)), program.inputs_tuple(prepared), 0)
        finally:
            _keep_memo(ruleset, limits)
        if fraction is not Fraction:
            outcomes, total = program.distribution(weights, denom)
        else:  # pragma: no cover - a Python whose Fraction cannot be made field by field
            ordered, total = program.ordered(weights)
            outcomes = tuple([(outcome, fraction(weight, denom)) for outcome, weight in ordered])
    else:
        from .evaluator import Executor

        _engine(engine)
        executor = Executor(ruleset, dice=None, choices=_choices_dict(choices), trace=False, limits=limits, budget=budget)
        result = executor.run_procedure(compiled, prepared)
        weights, denom = result.weights, result.denom
        ordered, total = most_likely_first(weights), sum(weights.values())
        outcomes = tuple([(outcome, fraction(weight, denom)) for outcome, weight in ordered])
    # Every path ends in an outcome (checked at load), so the mass missing from
    # the outcomes is exactly what `while` bounds dropped.
    truncated = ZERO if total == denom else (1 - Fraction(total, denom) if weights else Fraction(1))
    return _distribution(ruleset, procedure, prepared, outcomes, truncated)


def _keep_memo(ruleset: Ruleset, limits: Limits) -> None:
    """After an exact call: the ruleset's memo of resolved procedures back to ``limits.max_memo_entries``
    entries (during the call it may hold ``limits.memo_entries``, as many as the state budget)."""
    memo = getattr(ruleset, "exact_results", None)
    if memo is not None and len(memo) > limits.max_memo_entries:
        keep_newest(memo, limits.max_memo_entries)


def _made(cls: type[_Made], **fields: Any) -> _Made:
    """An instance of a frozen dataclass from all its fields, without __init__'s field-by-field setattr (a
    good part of a small call's cost); the same object __init__ would make."""
    made = _new(cls)
    _set(made, "__dict__", fields)
    return made


def _distribution(ruleset: CompiledRuleset, procedure: str, inputs: dict, outcomes: tuple, truncated: Fraction) -> Distribution:
    """``_made(Distribution, ...)`` without the keyword arguments (the commonest result, made most often)."""
    made = _new(Distribution)
    _set(made, "__dict__", {
        "ruleset": ruleset.name, "procedure": procedure, "inputs": inputs, "outcomes": outcomes, "truncated": truncated,
        "illustrative_tables": ruleset.illustrative_tables(procedure), "outcome_type": ruleset.compiled[procedure].outcome_type,
        "readings": ruleset.readings(procedure),
    })
    return made


_Made = TypeVar("_Made")
_new = object.__new__
_set = object.__setattr__


def most_likely_first(counts: Mapping[OutcomeValue, int]) -> list[tuple[OutcomeValue, int]]:
    """Outcomes with a non-zero weight (or count), the largest first, then by name, then by fields as written."""
    items = [(outcome, weight) for outcome, weight in counts.items() if weight]
    items.sort(key=_weight_and_name)
    for (a, x), (b, y) in itertools.pairwise(items):
        if x == y and a.name == b.name:  # a tie: the fields' text decides, as it always has
            items.sort(key=_weight_name_and_fields)
            break
    return items


def _weight_and_name(item: tuple[OutcomeValue, int]) -> tuple:
    return -item[1], item[0].name


def _weight_name_and_fields(item: tuple[OutcomeValue, int]) -> tuple:
    return -item[1], item[0].name, item[0].fields_text()


def odds_by_choice(
    ruleset: Ruleset,
    procedure: str,
    inputs: Mapping[str, Any] | None = None,
    *,
    choices: Mapping[str, str] | None = None,
    max_combinations: int = 64,
    limits: Limits | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[tuple[dict[str, str], Distribution]]:
    """One distribution per combination of the choices left open (fixed ones stay fixed).

    All combinations share one budget: the work and time limits hold for the whole call.
    ``progress(work)`` is called now and then with the units of work spent so far.
    """
    _, _, limits = _checked_call(ruleset, procedure, inputs, choices, limits)
    _whole_number(max_combinations, "max_combinations", low=1)
    check_callable(progress, "progress")
    budget = Budget(limits, on_clock=progress)
    fixed = dict(choices or {})
    open_choices = [c for c in reachable_choices(ruleset, procedure) if c.name not in fixed]
    combinations = 1
    for choice in open_choices:
        combinations *= len(choice.options)
    if not open_choices or combinations > max_combinations:
        return [(fixed, odds(ruleset, procedure, inputs, choices=fixed, limits=limits, budget=budget))]
    results = []
    for options in itertools.product(*(c.options for c in open_choices)):
        chosen = {**fixed, **{c.name: o for c, o in zip(open_choices, options)}}
        results.append((chosen, odds(ruleset, procedure, inputs, choices=chosen, limits=limits, budget=budget)))
    return results


@dataclass(frozen=True)
class Sample(_Result):
    """Outcome counts from repeated seeded plays (Monte Carlo; ``to_json``: ``results.sample``)."""

    _document: ClassVar[str] = "sample"

    seed: int
    trials: int
    counts: tuple[tuple[OutcomeValue, int], ...]  # most frequent first
    illustrative_tables: tuple[str, ...] = ()  # see Resolution
    readings: tuple[str, ...] = ()  # see Resolution


    def marginal(self, fields: Iterable[str]) -> list[Estimate]:
        """Shares of the values of chosen fields, each with its standard error (a list of Estimate)."""
        from .summaries import sample_marginal

        return sample_marginal(self, _field_names(fields))

    def means(self) -> dict[str, Mean]:
        """The sample mean of every numeric outcome field, with its standard error."""
        from .summaries import sample_means

        return sample_means(self)

    def variance(self, field: str) -> float:
        """An estimate of a numeric field's variance: the unbiased sample variance (divided by k - 1,
        k the plays whose outcome carries the field); NaN with fewer than 2 such plays."""
        from .summaries import sample_variance

        return sample_variance(self, _numeric_field(field, self.counts, "the sample"))

    def std(self, field: str) -> float:
        """An estimate of a numeric field's standard deviation: the square root of :meth:`variance`."""
        import math

        return math.sqrt(self.variance(field))

    def quantile(self, field: str, q: Any) -> int:
        """The sample's lower ``q``-quantile of a numeric field (see :meth:`Distribution.quantile`)."""
        from .summaries import numeric_weights, weighted_quantile

        name = _numeric_field(field, self.counts, "the sample")
        found = weighted_quantile(numeric_weights(self.counts, name), _share(q))
        assert found is not None  # _numeric_field: some play's outcome carries it
        return found

    def standard_error(self, name: str, **fields: Any) -> float:
        """The standard error of the share of outcomes called ``name`` (with ``fields``)."""
        import math

        if type(name) is not str:
            raise misuse(f"an outcome is named by a string, not {type(name).__name__}")
        if fields:  # fields the sampled outcomes called ``name`` carry (a sample holds no outcome type)
            carried = [k for outcome, _ in self.counts if outcome.name == name for k, _ in outcome.fields]
            if carried:
                check_known(fields, carried, f"outcome '{name}'", "field")
        count = sum(c for o, c in self.counts if o.name == name and all(o.get(k) == v for k, v in fields.items()))
        share = count / self.trials
        return math.sqrt(share * (1 - share) / self.trials)


def _numeric_field(field: Any, weighted: Iterable[tuple[OutcomeValue, Any]], what: str) -> str:
    """``field`` when some outcome carries it as a whole number; a UsageError otherwise (the closest
    numeric field named when it is misspelt, said so when it is not a number)."""
    from .summaries import numeric

    check_type(field, str, "a field", "a field name (a string)")
    carried: dict[str, bool] = {}
    for outcome, _ in weighted:
        for name, value in outcome.fields:
            carried[name] = carried.get(name, False) or numeric(value)
    if field in carried and not carried[field]:
        raise _misuse(f"field '{field}' is not a number: its spread and quantiles mean nothing (marginal() gives its shares)")
    check_known((field,), [name for name, is_number in carried.items() if is_number], what, "numeric field")
    return field


def _share(q: Any) -> Fraction:
    """A quantile's ``q``: a number from 0 to 1 (a float is read exactly: 0.5 is 1/2)."""
    check_type(q, (int, float, Fraction), "q", "a number from 0 to 1")
    if not 0 <= q <= 1:  # NaN too: every comparison with it is false
        raise _misuse(f"q must be a number from 0 to 1, not {q}")
    return Fraction(q)


def _field_names(fields: Any) -> tuple[str, ...]:
    names = check_names(fields, "fields (\"outcome\" for the outcome's name)")
    if not names:
        raise _misuse("fields are named by strings (\"outcome\" for the outcome's name): name at least one")
    return names


def monte_carlo(
    ruleset: Ruleset,
    procedure: str,
    inputs: Mapping[str, Any] | None = None,
    *,
    trials: int,
    seed: int | None = None,
    choices: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    limits: Limits | None = None,
    engine: str = "compiled",
    jobs: int = 1,
) -> Sample:
    """Resolve ``procedure`` ``trials`` times, in seeded chunks of :data:`parallel.CHUNK_PLAYS` plays.

    Chunk k draws from its own stream (:func:`parallel.chunk_seed`), so the counts are the
    same whatever ``jobs`` is: ``jobs`` worker processes (forked; 1, the default, plays every
    chunk in this process; ``parallel.default_jobs()`` is the machine's cores).
    Each play has the whole work budget to itself; the timeout holds for the whole run.
    Both engines draw the same dice from the same seed, so they count the same outcomes.
    """
    from . import parallel

    check_callable(progress, "progress")
    if type(trials) is not int or trials < 1 or trials.bit_length() > 64:
        _check_call_types(ruleset, procedure, inputs, choices)  # a wrong ruleset is named before the trials
        _whole_number(trials, "trials", low=1)
    jobs = check_jobs(jobs)
    job, limits, compiled = sampling_job(ruleset, procedure, inputs, seed=seed, choices=choices, limits=limits, engine=engine)
    if trials > limits.max_trials:
        raise breach(None, "max_trials", f"{trials:,} trials is more than {limits.max_trials:,}")
    here = job.start(None)
    tally = outcome_tally(limits, compiled)
    parallel.run_chunks(job, trials, jobs, deadline=here.budget.deadline, timed_out=lambda: here.budget.timed_out(compiled.body.pos),
                        progress=progress, state=here, fold=tally.add)
    return job.sample(tally.total, trials)


def outcome_tally(limits: Limits, compiled: ir.CompiledProcedure) -> Any:
    """A ``parallel.Tally`` for a sample of ``compiled``: at most ``max_states`` distinct outcomes, a breach at the
    procedure past them (``run --n`` and ``odds --auto`` alike)."""
    from . import parallel

    return parallel.Tally(limits.max_states, lambda limit: too_many_outcomes(compiled.body.pos, limit))


def sampling_job(
    ruleset: Any, procedure: Any, inputs: Any, *, seed: Any, choices: Any, limits: Any, engine: Any,
) -> tuple[_CompiledChunks | _ReferenceChunks, Limits, ir.CompiledProcedure]:
    """The arguments of a Monte Carlo run, checked, as a ``parallel.ChunkJob`` (its limits, the procedure)."""
    fast = None
    if engine == "compiled" and choices is None and limits is None and type(ruleset) is CompiledRuleset:
        fast = _plain_call(ruleset, procedure, inputs)  # the common call, checked in one pass
    if fast is not None:
        prepared, values, program = fast
        limits = DEFAULT_LIMITS
        compiled = ruleset.compiled[procedure]
    else:
        compiled, prepared, limits = _checked_call(ruleset, procedure, inputs, choices, limits)
    seed = fresh_seed(SEED_BITS) if seed is None else _whole_number(seed, "the seed", low=0)
    if _engine(engine) == "reference":
        return _ReferenceChunks(ruleset, procedure, prepared, limits, _choices_dict(choices), seed, compiled), limits, compiled
    if fast is None:
        program = ruleset.program(procedure)
        values = program.inputs_tuple(prepared)
    return _CompiledChunks(ruleset, procedure, prepared, limits, _choices_dict(choices), seed, program, values), limits, compiled


def check_jobs(jobs: Any) -> int:
    """``jobs``, checked: a whole number of worker processes from 1 to parallel.MAX_JOBS."""
    from .parallel import MAX_JOBS

    _whole_number(jobs, "jobs", low=1)
    if jobs > MAX_JOBS:
        raise _misuse(f"jobs is at most {MAX_JOBS} worker processes, not {jobs:,}")
    return int(jobs)


@dataclass(frozen=True)
class _Chunks:
    """What both engines' chunks of plays share (``parallel.ChunkJob``): one Run per process (its budget, and
    its memos kept across chunks), whose deadline is the caller's: one timeout for the whole command."""

    ruleset: CompiledRuleset
    procedure: str
    prepared: dict[str, Any]
    limits: Limits
    choices: dict[str, str] | None
    seed: int

    def start(self, deadline: float | None) -> Run:
        run = Run(self.ruleset, self.limits, None, self.choices)
        if deadline is not None:
            run.budget.deadline = deadline
        return run

    def ordered(self, counts: dict) -> tuple:  # pragma: no cover - each engine orders its own counts
        raise NotImplementedError

    def chunk(self, state: Run, index: int, plays: int, progress: Callable[[int, int], None] | None) -> dict:  # pragma: no cover
        raise NotImplementedError

    def warm(self, state: Run) -> None:
        """A few plays thrown away before workers are forked: the generated code of the procedure and of the
        procedures it resolves is compiled here, once, and inherited (each worker compiling it again cost
        more than their plays on a fifteen-a-side battle, and its memory churn tripled their system time)."""
        try:
            self.chunk(self.start(state.budget.deadline), 0, WARM_PLAYS, None)
        except Exception:  # noqa: BLE001, S110 - a failing play is reported by the chunk that plays it, with its seed
            pass

    def sample(self, counts: dict, trials: int) -> Sample:
        """The Sample of ``trials`` plays that counted ``counts`` (chunks merged)."""
        return _made(Sample, ruleset=self.ruleset.name, procedure=self.procedure, inputs=self.prepared, seed=self.seed, trials=trials,
                     counts=self.ordered(counts), illustrative_tables=self.ruleset.illustrative_tables(self.procedure),
                     readings=self.ruleset.readings(self.procedure))


@dataclass(frozen=True)
class _CompiledChunks(_Chunks):
    """Chunks of plays of the compiled code, counted by outcome key."""

    program: Any
    values: tuple

    def chunk(self, state: Run, index: int, plays: int, progress: Callable[[int, int], None] | None) -> dict:
        from .parallel import chunk_seed

        keyed: dict = {}
        self.program.sample(state, self.values, plays, random.Random(chunk_seed(self.seed, index)).random, keyed, progress)
        return keyed

    def ordered(self, counts: dict) -> tuple:
        return tuple(self.program.ordered(counts)[0])


@dataclass(frozen=True)
class _ReferenceChunks(_Chunks):
    """Chunks of plays of the tree-walking evaluator, drawing the dice the compiled code draws."""

    compiled: ir.CompiledProcedure

    def chunk(self, state: Run, index: int, plays: int, progress: Callable[[int, int], None] | None) -> dict:
        from .evaluator import Executor
        from .parallel import chunk_seed

        source = SeededDice(chunk_seed(self.seed, index))
        source.rolled = _Discard()
        budget = state.budget
        executor = Executor(self.ruleset, dice=source, choices=self.choices, trace=False, limits=self.limits, budget=budget)
        counts: dict[OutcomeValue, int] = {}
        step = max(plays // 100, 1)
        run = executor.run_procedure
        for trial in range(plays):
            budget.start_play()
            (outcome,) = run(self.compiled, self.prepared).weights
            counts[outcome] = counts.get(outcome, 0) + 1
            if progress is not None and trial % step == 0:
                progress(trial, plays)
        return counts

    def ordered(self, counts: dict) -> tuple:
        return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0].name, repr(item[0].fields))))


class _Discard(list):
    """A list that keeps nothing: Monte Carlo does not record every die."""

    def append(self, item: int) -> None:
        pass
