"""Sweeps: the exact odds of a procedure for every combination of some inputs.

A *dimension* names what varies and its values: an input (``zones``), a
field inside an input (``attacker[1].contact``: the first unit's contact
rating, 1-based as in the procedure language), or a player's choice
(``attacker_advantage``).  ``run_sweep`` computes one exact distribution per
combination, all under one budget.  Player aids (``aid``) draw their heat
maps from the same sweeps.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .api import Distribution, odds, procedure_of
from .arguments import check_names, check_type, misuse
from .binding import option_problem, reachable_choices
from .errors import Diagnostic
from .inputs import CoercionError, coerce, parse_command_line_value
from .limits import EXACT_CALL_WORK, Budget, LimitExceeded, Limits
from .ruleset import MISSING, Choice
from .summaries import OUTCOME, numeric
from .values import (
    BoolType,
    IntType,
    ListType,
    RecordType,
    StrType,
    Type,
    show,
    to_plain,
)

if TYPE_CHECKING:  # pragma: no cover
    from . import ir
    from .compiled_ruleset import CompiledRuleset

# Combinations in one sweep: a wide terminal table or a large heat map, never an accident.
MAX_CELLS = 10_000


class SweepError(Exception):
    """A bad dimension: ``offset`` is where in the text written on the command line (0 when unknown)."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True)
class Dimension:
    """One swept input and the values it takes."""

    name: str  # as written: zones, attacker[1].contact, a choice
    target: str  # the input or choice
    path: tuple[str | int, ...]  # inside the input: field names and 1-based indexes
    values: tuple[Any, ...]  # plain values (what --set would give)
    is_choice: bool = False

    def labels(self) -> list[str]:
        return [show(value) if not isinstance(value, (list, dict)) else _plain_label(value) for value in self.values]


def _plain_label(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_plain_label(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_plain_label(v)}" for k, v in value.items()) + "}"
    return show(value)


_TARGET = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_target(text: str) -> tuple[str, tuple[str | int, ...]]:
    """``attacker[1].contact`` -> ("attacker", (1, "contact"))."""
    name, path, _ = _parse_target(text)
    return name, path


def _parse_target(text: str) -> tuple[str, tuple[str | int, ...], tuple[int, ...]]:
    """The name, the path, and where in ``text`` each step of the path starts."""
    match = _TARGET.match(text)
    if not match:
        raise SweepError(f"expected an input name, not {text[:40]!r}")
    name, position = match.group(0), match.end()
    path: list[str | int] = []
    starts: list[int] = []
    while position < len(text):
        starts.append(position)
        if text[position] == ".":
            field = _TARGET.match(text, position + 1)
            if not field:
                raise SweepError("expected a field name after '.'", position + 1)
            path.append(field.group(0))
            position = field.end()
        elif text[position] == "[":
            step, position = _list_position(text, position)
            path.append(step)
        else:
            raise SweepError(f"unexpected {text[position]!r} in {text!r}: write NAME, NAME.field or NAME[1].field", position)
    return name, tuple(path), tuple(starts)


# A list position: 1 to 19 ASCII digits (below 2**64).  Not str.isdigit() and int(), which accept
# superscripts and other scripts' digits ("²" passes isdigit() and fails int()) and any number of digits.
_POSITION = re.compile(r"[0-9]{1,19}", re.ASCII)
MAX_POSITION_DIGITS = 19


def _list_position(text: str, opening: int) -> tuple[int, int]:
    """The position written in the brackets that open at ``text[opening]``, and the offset after the ``]``.

    A bad position is reported at its first offending character.
    """
    start = opening + 1
    digits = _POSITION.match(text, start)
    end = digits.end() if digits else start
    if digits and end - start == MAX_POSITION_DIGITS and end < len(text) and text[end] in "0123456789":
        raise SweepError(f"a list position has at most {MAX_POSITION_DIGITS} digits", end)
    if end >= len(text) or text[end] != "]" or digits is None:
        raise SweepError("expected a list position (1, 2, ...) inside [ ]", end)
    if int(digits.group(0)) < 1:
        raise SweepError("list positions count from 1", start)
    return int(digits.group(0)), end + 1


def _type_at(type_: Type, path: tuple[str | int, ...], written: str, starts: tuple[int, ...] = ()) -> Type:
    for index, step in enumerate(path):
        offset = starts[index] if index < len(starts) else 0
        if isinstance(step, int):
            if not isinstance(type_, ListType):
                raise SweepError(f"{written}: [{step}] needs a list, and this is {type_.describe()}", offset)
            type_ = type_.element
        else:
            field = type_.field(step) if isinstance(type_, RecordType) else None
            if field is None:
                known = ", ".join(n for n, _ in type_.fields) if isinstance(type_, RecordType) else ""
                raise SweepError(f"{written}: {type_.describe()} has no field '{step}'" + (f" (fields: {known})" if known else ""), offset + 1)
            type_ = field
    return type_


def _split_values(text: str) -> list[tuple[str, int]]:
    """Values separated by commas outside brackets, braces and quotes, each with its offset."""
    parts, depth, quote, start = [], 0, "", 0
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append((text[start:index], start))
            start = index + 1
    parts.append((text[start:], start))
    return parts


_RANGE = re.compile(r"\s*(-?[0-9]{1,19})\s*\.\.\s*(-?[0-9]{1,19})\s*", re.ASCII)


def parse_dimension(ruleset: CompiledRuleset, procedure: str, text: str) -> Dimension:
    """``NAME=A..B`` or ``NAME=V1,V2,…`` as written after ``--over``."""
    _check_call(ruleset, procedure)
    check_type(text, str, "a dimension", "text such as 'zones=1..3'")
    if "=" not in text:
        raise SweepError("give NAME=A..B or NAME=V1,V2,...")
    written, values_text = text.split("=", 1)
    offset = len(written) + 1
    lead = len(written) - len(written.lstrip())
    try:
        name, path, starts = _parse_target(written.strip())
        target_type = _target_type(ruleset, procedure, name, path, written.strip(), starts)
    except SweepError as error:
        raise SweepError(error.message, lead + error.offset) from None
    what = f"input '{written.strip()}'"
    if isinstance(target_type, Choice):
        raw: list[Any] = []
        for part, start in _split_values(values_text):
            option = part.strip()
            message = option_problem(target_type, option)
            if message is not None:
                raise SweepError(message, offset + start)
            if option in raw:  # a row twice over: refused, as --by refuses a field named twice
                raise SweepError(f"{option} is listed twice", offset + start + (len(part) - len(part.lstrip())))
            raw.append(option)
        return _dimension(written.strip(), name, path, raw, is_choice=True)
    match = _RANGE.fullmatch(values_text)
    if match and isinstance(target_type, IntType):
        low, high = int(match[1]), int(match[2])
        if high < low:
            raise SweepError(f"the range {low}..{high} runs backwards", offset)
        if high - low + 1 > MAX_CELLS:
            raise SweepError(f"the range {low}..{high} has more than {MAX_CELLS:,} values", offset)
        values = list(range(low, high + 1))
        for value in values:
            try:
                coerce(value, target_type, what)
            except CoercionError as error:
                raise SweepError(error.message, offset) from None
        return _dimension(written.strip(), name, path, values)
    values, seen = [], set()
    for part, start in _split_values(values_text):
        try:
            if isinstance(target_type, (BoolType, IntType, StrType)):
                value = parse_command_line_value(part.strip(), target_type)
            else:
                value = _flow_value(part)
            coerce(value, target_type, what)
        except CoercionError as error:
            raise SweepError(error.message, offset + start + (len(part) - len(part.lstrip()))) from None
        plain = to_plain(value)
        if repr(plain) in seen:  # the same row twice (as --by refuses a field named twice)
            raise SweepError(f"{part.strip()} is listed twice", offset + start + (len(part) - len(part.lstrip())))
        seen.add(repr(plain))
        values.append(plain)
    return _dimension(written.strip(), name, path, values)


def _flow_value(text: str) -> Any:
    from .errors import RulesetError, Source
    from .yaml_loader import load_yaml

    try:
        return load_yaml(Source("<--over>", text)).data
    except RulesetError as error:
        raise CoercionError(error.diagnostics[0].message) from None


def dimension_from_values(ruleset: CompiledRuleset, procedure: str, written: str, values: Sequence[Any]) -> Dimension:
    """A dimension from values already parsed (a player aid's YAML)."""
    _check_call(ruleset, procedure)
    check_type(written, str, "what varies", "text such as 'zones' or 'attacker[1].contact'")
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise misuse(f"the values are a list, not {type(values).__name__}")
    name, path = parse_target(written)
    target_type = _target_type(ruleset, procedure, name, path, written)
    if isinstance(target_type, Choice):
        for value in values:
            message = option_problem(target_type, value)
            if message is not None:
                raise SweepError(message)
        return _dimension(written, name, path, list(values), is_choice=True)
    for value in values:
        try:
            coerce(value, target_type, f"input '{written}'")
        except CoercionError as error:
            raise SweepError(error.message) from None
    return _dimension(written, name, path, [to_plain(v) for v in values])


def _dimension(written: str, name: str, path: tuple, values: list, is_choice: bool = False) -> Dimension:
    if not values:
        raise SweepError(f"{written}: no values to sweep")
    return Dimension(written, name, path, tuple(values), is_choice)


def _target_type(ruleset: CompiledRuleset, procedure: str, name: str, path: tuple, written: str, starts: tuple[int, ...] = ()) -> Type | Choice:
    """The type of what ``name`` and ``path`` reach inside an input, or the choice ``name`` names."""
    compiled = procedure_of(ruleset, procedure)
    spec = compiled.input(name)
    if spec is not None:
        return _type_at(spec.type, path, written, starts)
    choice = next((c for c in reachable_choices(ruleset, procedure) if c.name == name), None)
    if choice is not None:
        if path:
            raise SweepError(f"'{name}' is a choice: it has no fields")
        return choice
    inputs = ", ".join(s.name for s in compiled.inputs) or "none"
    raise SweepError(f"procedure '{procedure}' has no input or choice '{name}' (inputs: {inputs})")


def _set_at(value: Any, path: tuple[str | int, ...], new: Any, written: str) -> Any:
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(step, int):
        if not isinstance(value, list) or not 1 <= step <= len(value):
            size = len(value) if isinstance(value, list) else 0
            raise SweepError(f"{written}: the list has {size} item{'' if size == 1 else 's'}, so there is no item {step}")
        return value[:step - 1] + [_set_at(value[step - 1], rest, new, written)] + value[step:]
    if not isinstance(value, dict):
        raise SweepError(f"{written}: not a record")
    return {**value, step: _set_at(value.get(step), rest, new, written)}


# ---- running -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """The odds of one combination of the swept inputs."""

    at: tuple[Any, ...]  # one value per dimension
    distribution: Distribution


@dataclass(frozen=True)
class Sweep:
    """The odds of every combination of the swept inputs."""

    ruleset: str
    procedure: str
    inputs: Mapping[str, Any]  # the fixed inputs (plain)
    choices: Mapping[str, str]
    dimensions: tuple[Dimension, ...]
    by: tuple[str, ...]
    cells: tuple[Cell, ...]
    outcome_order: tuple[str, ...] = ()

    def keys(self) -> list[tuple[Any, ...]]:
        """Every value of the ``by`` fields met in any cell: numbers ascending, outcomes in the procedure's order."""
        seen: dict[tuple[Any, ...], None] = {}
        for cell in self.cells:
            for key, _ in cell.distribution.marginal(self.by).rows:
                seen.setdefault(key, None)
        keys = list(seen)
        if keys and all(all(numeric(v) for v in key) for key in keys):
            return sorted(keys)
        if self.by and self.by[0] == OUTCOME and self.outcome_order:
            order = {name: index for index, name in enumerate(self.outcome_order)}
            return sorted(keys, key=lambda key: order.get(key[0], len(order)))
        return keys

    def mean_fields(self) -> list[str]:
        seen: dict[str, None] = {}
        for cell in self.cells:
            for name in cell.distribution.means():
                seen.setdefault(name, None)
        return list(seen)


def run_sweep(
    ruleset: CompiledRuleset,
    procedure: str,
    dimensions: Sequence[Dimension],
    inputs: Mapping[str, Any] | None = None,
    *,
    choices: Mapping[str, str] | None = None,
    by: Sequence[str] = (OUTCOME,),
    limits: Limits | None = None,
    budget: Budget | None = None,
    jobs: int = 1,
) -> Sweep:
    """The exact odds at every combination of the dimensions' values (a row each).

    Without ``budget``, each row has a work budget of its own (``limits.max_work``: six rows that
    each fit as one ``odds`` fit as one sweep), a breach names its row, and the timeout holds for
    the whole sweep.  ``budget`` puts every row under that one budget instead (a player aid's heat
    maps share one).  ``jobs`` worker processes compute the rows (:mod:`parallel`): the same
    results, in the same order, for any number.
    """
    from .api import check_jobs

    _check_sweep(ruleset, procedure, dimensions, inputs, choices, limits, budget)
    by = check_names(by, "by")
    jobs = check_jobs(jobs)
    compiled = procedure_of(ruleset, procedure)
    cells_wanted = 1
    for dimension in dimensions:
        cells_wanted *= len(dimension.values)
    if cells_wanted > MAX_CELLS:
        raise SweepError(f"{cells_wanted:,} combinations is more than {MAX_CELLS:,}: sweep fewer values")
    fixed = _fixed_inputs(compiled, dimensions, inputs or {})
    combinations = list(itertools.product(*(d.values for d in dimensions)))
    calls = tuple(_cell_call(fixed, choices or {}, dimensions, combination) for combination in combinations)
    rows = _Rows(ruleset, procedure, calls, tuple(dimensions), limits or Limits(), budget)
    found = _computed(rows, compiled.body.pos, jobs) if budget is None else [rows.chunk(None, i, 1, None) for i in range(len(calls))]
    cells = [Cell(tuple(combination), distribution) for combination, distribution in zip(combinations, found)]
    return Sweep(ruleset.name, procedure, fixed, dict(choices or {}), tuple(dimensions), tuple(by), tuple(cells), outcome_order(ruleset, procedure))


def _computed(rows: _Rows, pos: Any, jobs: int) -> list[Distribution]:
    """Every row's distribution, each under a budget of its own, all under one deadline."""
    from .parallel import run_tasks

    clock = Budget(rows.limits)  # the command's deadline, from now
    return run_tasks(rows, [(index, 1) for index in range(len(rows.calls))], jobs, deadline=clock.deadline,
                     timed_out=lambda: clock.timed_out(pos), state=clock.deadline)


@dataclass(frozen=True)
class _Rows:
    """A sweep's rows as tasks for :func:`parallel.run_tasks`: row ``index`` is one exact ``odds`` call."""

    ruleset: CompiledRuleset
    procedure: str
    calls: tuple[tuple[dict[str, Any], dict[str, str]], ...]
    dimensions: tuple[Dimension, ...]
    limits: Limits
    shared: Budget | None  # every row under this one budget; None: a budget per row

    def start(self, deadline: float | None) -> float | None:
        return deadline

    def warm(self, deadline: float | None) -> None:
        """Nothing to compile ahead: a row's exact code is compiled by the worker that first needs it."""

    def chunk(self, deadline: float | None, index: int, _size: int, _progress: Any) -> Distribution:
        cell_inputs, cell_choices = self.calls[index]
        budget = self.shared
        if budget is None:
            budget = Budget(self.limits)
            budget.deadline = deadline
        # a cell's call has a cost of its own, whatever the procedure does (inputs prepared, fractions reduced):
        # thousands of cells whose odds come from the memo would otherwise cost nothing
        try:
            budget.charge(EXACT_CALL_WORK, procedure_of(self.ruleset, self.procedure).body.pos)
            return odds(self.ruleset, self.procedure, cell_inputs, choices=cell_choices, budget=budget)
        except LimitExceeded as error:
            if self.shared is not None:
                raise
            raise _in_row(error, self.row_name(index)) from None

    def row_name(self, index: int) -> str:
        """The row as ``--over`` values: ``zones=3, from_us_box=true``."""
        cell_inputs, cell_choices = self.calls[index]
        shown = []
        for dimension in self.dimensions:
            value = cell_choices[dimension.target] if dimension.is_choice else _get_at(cell_inputs.get(dimension.target), dimension.path)
            shown.append(f"{dimension.name}={dimension.labels()[dimension.values.index(value)] if value in dimension.values else value}")
        return ", ".join(shown)


def _get_at(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step - 1] if isinstance(step, int) else value[step]
    return value


def _in_row(error: LimitExceeded, row: str) -> LimitExceeded:
    """The breach, its message prefixed with the row it happened in (the same kind of error)."""
    named = [Diagnostic(d.file, d.line, d.column, f"in the row {row}: {d.message}", d.line_text) for d in error.diagnostics]
    return type(error)(named)


def _check_sweep(ruleset: Any, procedure: Any, dimensions: Any, inputs: Any, choices: Any, limits: Any, budget: Any) -> None:
    """``run_sweep``'s arguments are of the kinds it takes (the project's own errors, never a TypeError)."""
    _check_call(ruleset, procedure)
    if isinstance(dimensions, (str, bytes)) or not isinstance(dimensions, Sequence):
        raise misuse(f"dimensions are a list of Dimension (parse_dimension(ruleset, procedure, 'zones=1..3')), not {type(dimensions).__name__}")
    for dimension in dimensions:
        check_type(dimension, Dimension, "each dimension", "a Dimension (from parse_dimension)")
    check_type(inputs, Mapping, "inputs", "a mapping of input names to values", optional=True)
    check_type(choices, Mapping, "choices", "a mapping of choice names to options", optional=True)
    check_type(limits, Limits, "limits", "a Limits(...)", optional=True)
    check_type(budget, Budget, "budget", "a Budget (or None)", optional=True)


def _fixed_inputs(compiled: ir.CheckedProcedure, dimensions: Sequence[Dimension], inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The inputs every cell shares (plain values): those given, and the defaults of inputs part of which
    varies (a field of the first unit varies inside the default list of units)."""
    fixed = {k: to_plain(v) for k, v in inputs.items()}
    for dimension in dimensions:
        if dimension.path and not dimension.is_choice and dimension.target not in fixed:
            spec = compiled.input(dimension.target)
            if spec is None or spec.default is MISSING:
                raise SweepError(f"{dimension.name}: give the input '{dimension.target}' (--set {dimension.target}=...) so that part of it can vary")
            fixed[dimension.target] = to_plain(spec.default)
    return fixed


def _cell_call(
    fixed: dict[str, Any], choices: Mapping[str, str], dimensions: Sequence[Dimension], combination: tuple[Any, ...]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The inputs and choices of one cell: the fixed ones, with each dimension's value set where it goes."""
    cell_inputs = dict(fixed)
    cell_choices = dict(choices)
    for dimension, value in zip(dimensions, combination):
        if dimension.is_choice:
            cell_choices[dimension.target] = value
        else:
            cell_inputs[dimension.target] = _set_at(cell_inputs.get(dimension.target), dimension.path, value, dimension.name)
    return cell_inputs, cell_choices


def _check_call(ruleset: Any, procedure: Any) -> None:
    from .compiled_ruleset import CompiledRuleset

    check_type(ruleset, CompiledRuleset, "the ruleset", "a ruleset from load_ruleset(...)")
    check_type(procedure, str, "the procedure", "a procedure's name (a string)")


def outcome_order(ruleset: CompiledRuleset, procedure: str) -> tuple[str, ...]:
    """The procedure's outcome names in the order its text first names them.

    An ``outcome from VALUE`` names the texts its value can hold (a table's cells, an enum's values): the checker
    lists them in the order the table or enum declares them (``CheckedProcedure.outcome_names``), and they take the
    place of the statement, as a written ``outcome`` does; without this they sorted after every other name.  The
    names of every ``outcome from`` of a procedure stand at the first one (the checked procedure does not say which
    statement made which name).
    """
    from . import syntax

    source = ruleset.procedures.get(procedure)
    if source is None:
        return ()
    in_order = list(syntax.statements_in_order(source.body))
    written = {statement.name for statement in in_order if isinstance(statement, syntax.Outcome)}
    checked = ruleset.compiled.get(procedure)
    from_values = [name for name in (checked.outcome_names if checked is not None else ()) if name not in written]
    names: dict[str, None] = {}
    for statement in in_order:
        if isinstance(statement, syntax.Outcome):
            names.setdefault(statement.name, None)
        elif isinstance(statement, syntax.OutcomeFrom):
            names.update(dict.fromkeys(name for name in from_values if name not in names))
    return tuple(names)
