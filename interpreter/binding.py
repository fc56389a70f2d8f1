"""The one input binder: how given values become a procedure's inputs and choices.

Every way values reach a procedure comes through here: the Python API
(``resolve``, ``odds``, ``monte_carlo``, ``odds_by_choice``), the command
line's ``--set``, ``--situation`` and ``--choose``, a ruleset's examples
(``wartable test``), a sweep's dimensions and cells, and a player aid's
inputs.  So a name is unknown, a value refused, an input missing or an
option not offered in the same words wherever it was written; each entry
point only says *where* (``<inputs>:1:1``, the YAML line of an example or a
situation file, the column on the command line).

- :func:`bind` checks given inputs (and choices) against one procedure,
  fills in defaults and collects every problem instead of stopping at the first.
- :func:`check_choices` checks choices against every procedure a call may
  resolve (a choice may belong to a procedure resolved inside another).
- :func:`input_plan` is how a procedure's inputs are checked, worked out once
  per procedure (``CompiledRuleset.input_plan`` keeps it).

Problems are :class:`BindingProblem` values: ``name`` (the input or choice),
``path`` (where inside the given value), ``at_key`` (the key is wrong, not
its value), ``kind`` and ``message``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .inputs import MAX_INT_BITS, CoercionError, coerce
from .ruleset import MISSING
from .values import BoolType, IntType, StrType, Type

if TYPE_CHECKING:  # pragma: no cover
    from . import ir
    from .compiled_ruleset import CompiledRuleset
    from .ruleset import Choice

# What a problem is about (BindingProblem.kind).
UNKNOWN_INPUT = "unknown input"
UNKNOWN_CHOICE = "unknown choice"
BAD_VALUE = "bad value"
MISSING_INPUT = "missing input"
BAD_OPTION = "bad option"

# The plain kinds of input an int, bool or str is taken for as it is (InputPlan rows).
_PLAIN_KINDS = {IntType: 1, BoolType: 2, StrType: 3}


@dataclass(frozen=True)
class InputPlan:
    """How one procedure's inputs are checked, worked out once.

    ``rows`` hold one tuple per declared input, in order: (name, kind, low,
    high, values, default, type), where kind is 1 for an int, 2 for a bool,
    3 for a str and 0 for a type :func:`inputs.coerce` must look at.  Tuples,
    not objects: a call's inputs are checked by unpacking them, the cheapest
    way Python has.
    """

    procedure: str
    declared: frozenset[str]
    rows: tuple[tuple[Any, ...], ...]
    descriptions: Mapping[str, str]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(row[0] for row in self.rows)


def input_plan(procedure: ir.CheckedProcedure) -> InputPlan:
    """The :class:`InputPlan` of ``procedure``."""
    rows = tuple(
        (spec.name, _PLAIN_KINDS.get(type(spec.type), 0), getattr(spec.type, "low", None), getattr(spec.type, "high", None),
         getattr(spec.type, "values", None), spec.default, spec.type)
        for spec in procedure.inputs
    )
    descriptions = {spec.name: spec.description for spec in procedure.inputs}
    return InputPlan(procedure.name, frozenset(row[0] for row in rows), rows, descriptions)


@dataclass(frozen=True)
class BindingProblem:
    """One thing wrong with given inputs or choices.

    An unknown name is worded when the message is read (``message``): the
    closest name is looked for then, so a file of 10,000 unknown keys costs
    only the messages shown.
    """

    kind: str  # UNKNOWN_INPUT, UNKNOWN_CHOICE, BAD_VALUE, MISSING_INPUT or BAD_OPTION
    name: str  # the input or choice
    text: str = ""  # the message itself; for an unknown name, the procedure's name
    path: tuple[str | int, ...] = ()  # inside the given value, after the name
    at_key: bool = False  # the problem is the key at ``path`` (an unknown name or field), not its value
    known: tuple[str, ...] = ()  # for an unknown name: the names the procedure has
    nearby: tuple[str, ...] = ()  # for an unknown name: other names worth suggesting (other steps' inputs)

    @property
    def message(self) -> str:
        if self.kind == UNKNOWN_INPUT:
            return unknown_name_message(self.text, "input", self.name, self.known, self.nearby)
        if self.kind == UNKNOWN_CHOICE:
            return unknown_name_message(self.text, "choice", self.name, self.known, self.nearby)
        return self.text

    @property
    def where(self) -> tuple[str | int, ...]:
        """The path from the top of the given mapping: the name, then inside its value."""
        return (self.name, *self.path)


def unknown_name_message(procedure: str, kind: str, name: str, known: Iterable[str], nearby: Iterable[str] = ()) -> str:
    """``procedure 'p' has no input 'zonez' (did you mean 'zones'? inputs: zones)``: one wording for every unknown name."""
    import difflib  # only for a mistake: not on every call's path

    known = list(known)
    # a name that is no string (a key of a hand-made mapping) has no closest name
    close = difflib.get_close_matches(name, known + [n for n in nearby if n not in known], n=1) if isinstance(name, str) else []
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"procedure '{procedure}' has no {kind} '{name}' ({hint}{kind}s: {', '.join(known) or 'none'})"


def option_problem(choice: Choice, option: Any) -> str | None:
    """The message when ``option`` is not one ``choice`` offers, else None (the one wording of a bad option)."""
    if option in choice.options:
        return None
    return f"choice '{choice.name}' must be one of {', '.join(choice.options)}, not {option!r}"


@dataclass(frozen=True)
class BoundInputs:
    """Given values bound to a procedure: the values it runs with, or the problems that stop it."""

    values: dict[str, Any]  # inputs (and, when complete, choices) by name
    problems: tuple[BindingProblem, ...]


def bind(
    procedure: ir.CheckedProcedure,
    given: Mapping[str, Any],
    choices: Mapping[str, str] | None = None,
    *,
    plan: InputPlan | None = None,
    offered: Iterable[Choice] | None = None,
    complete: bool = True,
    provided: Collection[str] = (),
) -> BoundInputs:
    """``given`` checked against ``procedure``'s declared inputs, every problem collected.

    ``complete``: the values are the whole call: defaults are filled in, a
    required input not given (and not in ``provided``, values another step
    supplies, such as a sweep's) is missing, and the procedure's choices are
    bound (given or default).  Not complete: only what is given is checked
    (a situation file, one ``--set``), for values merged later.

    ``offered``: the choices the call may meet (:func:`reachable_choices`);
    a given choice none of them has is then a problem.  Without it, only the
    procedure's own choices are checked, and other names are left to the
    procedures they belong to.
    """
    if plan is None:
        plan = input_plan(procedure)
    problems: list[BindingProblem] = [
        BindingProblem(UNKNOWN_INPUT, name, procedure.name, at_key=True, known=plan.names) for name in given if name not in plan.declared
    ]
    values = _bind_inputs(plan, given, complete, provided, problems)
    if choices:
        strict = offered is not None
        problems.extend(choice_problems(procedure.name, procedure.choices if offered is None else offered, choices or {}, strict=strict))
    if complete:
        for choice in procedure.choices:
            values[choice.name] = (choices or {}).get(choice.name, choice.default)
    return BoundInputs(values, tuple(problems))


def _bind_inputs(plan: InputPlan, given: Mapping[str, Any], complete: bool, provided: Collection[str], problems: list[BindingProblem]) -> dict[str, Any]:
    """The declared inputs' values (see :func:`bind`), problems appended to ``problems``."""
    values: dict[str, Any] = {}
    for name, kind, low, high, allowed, default, expected in plan.rows:
        if name in given:
            value = given[name]
        elif complete and name not in provided:
            value = default
        else:
            continue
        if _taken_as_it_is(value, kind, low, high, allowed):
            values[name] = value
        elif value is MISSING:
            problems.append(BindingProblem(MISSING_INPUT, name, required_message(name, expected, plan.descriptions.get(name, ""))))
        else:
            try:
                values[name] = coerce(value, expected, f"input '{name}'")
            except CoercionError as error:
                problems.append(BindingProblem(BAD_VALUE, name, error.message, tuple(error.path), at_key=error.at_key))
    return values


def _taken_as_it_is(value: Any, kind: int, low: int | None, high: int | None, allowed: Collection[str] | None) -> bool:
    """Is ``value`` a plain int, bool or str that coerce() would return unchanged?  (Checked here without
    the call: most inputs are such values.)  Anything else, every refusal included, goes to coerce()."""
    if kind == 1:
        return type(value) is int and value.bit_length() <= MAX_INT_BITS and (low is None or value >= low) and (high is None or value <= high)
    if kind == 2:
        return type(value) is bool
    if kind == 3:
        return type(value) is str and (allowed is None or value in allowed)
    return False


def required_message(name: str, expected: Type, description: str = "") -> str:
    """``input 'zones' is required (TYPE: description)``: one wording for a missing input."""
    return f"input '{name}' is required ({expected.describe()}{': ' + description if description else ''})"


def choice_problems(procedure: str, offered: Iterable[Choice], choices: Mapping[str, str], *, strict: bool = True) -> list[BindingProblem]:
    """Each given choice that none of ``offered`` has (when ``strict``), or whose option its choice does not offer."""
    by_name = {choice.name: choice for choice in offered}
    problems = []
    for name, option in choices.items():
        choice = by_name.get(name)
        if choice is None:
            if strict:
                problems.append(BindingProblem(UNKNOWN_CHOICE, name, procedure, at_key=True, known=tuple(by_name)))
            continue
        message = option_problem(choice, option)
        if message is not None:
            problems.append(BindingProblem(BAD_OPTION, name, message))
    return problems


def check_choices(ruleset: CompiledRuleset, procedure: str, choices: Mapping[str, str]) -> list[BindingProblem]:
    """Each given choice that no procedure on ``procedure``'s paths has, or whose option that choice does not offer."""
    return choice_problems(procedure, reachable_choices(ruleset, procedure), choices)


def reachable_choices(ruleset: CompiledRuleset, procedure: str) -> list[Choice]:
    """Choices of ``procedure`` and of every procedure it may resolve, by name, in order.

    A choice that a `resolve` fixes with an argument is not open on that path;
    it is open when some path reaches its procedure without fixing it.
    """
    seen: set[tuple[str, frozenset[str]]] = set()
    found: dict[str, Choice] = {}
    pending: list[tuple[str, frozenset[str]]] = [(procedure, frozenset())]
    while pending:
        name, fixed = pending.pop()
        if (name, fixed) in seen:
            continue
        seen.add((name, fixed))
        compiled = ruleset.compiled[name]
        for choice in compiled.choices:
            if choice.name not in fixed:
                found.setdefault(choice.name, choice)
        pending.extend((call.procedure, frozenset(arg for arg, _ in call.args)) for call in _calls(compiled.body))
    return list(found.values())


def _calls(block: ir.Block) -> Iterator[ir.CallProcedure]:
    """The procedure calls in ``block`` and the blocks inside it.  Statements only: a call is a
    statement, so the expressions ``ir.walk`` would visit too (most of the nodes) cannot hold one."""
    from . import ir

    stack = list(block.statements)
    while stack:
        statement = stack.pop()
        if type(statement) is ir.CallProcedure:
            yield statement
        for inner in ir.statement_blocks(statement):
            stack.extend(inner.statements)
