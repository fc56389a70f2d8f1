"""Rule tests kept in the ruleset (``examples:``), run by ``wartable test``.

An example resolves a procedure with given inputs and scripted dice and
checks the outcome, or checks exact odds, or expects a rule violation.  A
failure is reported at the line of the expectation that failed, so a modder
testing a variant sees where.

All the examples of a command share one :class:`~limits.Budget`: one timeout
for the whole command (each example had 20 s of its own, so a ruleset of
1,000 slow examples ran for hours), while each play and each exact odds keeps
the whole work budget, as before.  Another breach fails its example and the
others still run; the timeout ends the command, naming the example it
stopped (the examples after it would all fail the same way).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .api import odds, resolve
from .binding import (
    BAD_OPTION,
    MISSING_INPUT,
    UNKNOWN_CHOICE,
    UNKNOWN_INPUT,
    BindingProblem,
    bind,
    reachable_choices,
)
from .brief_values import without_defaults
from .dice import DiceScriptError
from .errors import Diagnostic, RulesetError, RuleViolation
from .expectations import agrees, shown
from .limits import Budget, LimitExceeded, Limits, TimeoutExceeded, breach
from .results import shown_value
from .ruleset import Example
from .values import OutcomeValue, Type, show

if TYPE_CHECKING:  # pragma: no cover
    from .compiled_ruleset import CompiledRuleset


@dataclass(frozen=True)
class ExampleResult:
    """One rule test (``examples:`` entry): passed or not, and why."""

    example: Example
    problems: tuple[Diagnostic, ...]
    # What passed but may not mean what it seems: odds that leave truncated mass ("warning: ...", at the example's odds).
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.problems


def run_examples(ruleset: CompiledRuleset, limits: Limits | None = None, budget: Budget | None = None) -> list[ExampleResult]:
    """Every example of ``ruleset``, under ``budget`` (a command's, shared with other rulesets' examples)
    or else one budget of ``limits`` for them all."""
    budget = budget if budget is not None else Budget(limits or Limits())
    return [run_example(ruleset, example, budget=budget) for example in ruleset.examples]


def run_example(ruleset: CompiledRuleset, example: Example, limits: Limits | None = None, budget: Budget | None = None) -> ExampleResult:
    """One example's result; raises TimeoutExceeded, at the example, when ``budget``'s time runs out."""
    if budget is None:
        budget = Budget(limits or Limits())
    procedure = ruleset.compiled.get(example.procedure)
    if procedure is None:
        names = ", ".join(sorted(ruleset.compiled))
        return ExampleResult(example, (example.where("procedure").diagnostic(f"no procedure '{example.procedure}' (procedures: {names})"),))
    inputs = dict(example.data.get("inputs") or {})
    choices = dict(example.data.get("choices") or {})
    offered = reachable_choices(ruleset, procedure.name) if choices else None
    bound = bind(procedure, inputs, choices, plan=ruleset.input_plan(procedure.name), offered=offered)
    if bound.problems:
        return ExampleResult(example, tuple(example.where(_written_at(problem)).diagnostic(problem.message) for problem in bound.problems))
    try:
        budget.check_clock(example.pos)  # time shared: an example starting after the deadline stops here
    except TimeoutExceeded:
        raise _ran_out(example, budget, ()) from None
    warnings: list[Diagnostic] = []
    return ExampleResult(example, tuple(_checked(ruleset, example, inputs, choices, budget, warnings)), tuple(warnings))


def _written_at(problem: BindingProblem) -> str:
    """Where in the example (a key of ``Example.marks``) a problem with its inputs or choices was written."""
    if problem.kind == MISSING_INPUT:
        return "inputs"
    part = "choices" if problem.kind in (UNKNOWN_CHOICE, BAD_OPTION) else "inputs"
    return f"{part}.{problem.name}.key" if problem.kind in (UNKNOWN_INPUT, UNKNOWN_CHOICE) else f"{part}.{problem.name}"


def _checked(ruleset: CompiledRuleset, example: Example, inputs: dict, choices: dict, budget: Budget,
             warnings: list[Diagnostic]) -> list[Diagnostic]:
    """What the example expects (a play, a violation, odds) against what the procedure does; warnings go to ``warnings``."""
    data = example.data
    problems: list[Diagnostic] = []
    try:
        if "expect" in data or "violation" in data:
            budget.start_play()  # each computation has the whole work budget; the clock runs on
            problems.extend(_check_play(ruleset, example, inputs, choices, budget))
        if "odds" in data:
            budget.start_play()
            problems.extend(_check_odds(ruleset, example, inputs, choices, budget, warnings))
    except TimeoutExceeded as error:  # the command's time is up: it stops here, saying where
        raise _ran_out(example, budget, error.diagnostics) from None
    except (LimitExceeded, RulesetError) as error:  # the procedure failed: this example fails, the others still run
        problems.extend(error.diagnostics)
    if not any(key in data for key in ("expect", "violation", "odds")):
        problems.append(example.pos.diagnostic("example checks nothing: give expect, violation or odds"))
    return problems


def _ran_out(example: Example, budget: Budget, inside: tuple[Diagnostic, ...]) -> TimeoutExceeded:
    """The command's timeout, at the example it stopped, then where its procedure was (``inside``)."""
    stopped = breach(example.pos, "timeout", f"example '{example.name}' ran out of time: stopped after {budget.limits.timeout:g} seconds")
    return TimeoutExceeded((*stopped.diagnostics, *inside))


def _check_play(ruleset: CompiledRuleset, example: Example, inputs: dict, choices: dict, budget: Budget) -> list[Diagnostic]:
    data = example.data
    dice = data.get("dice")
    try:
        play = resolve(ruleset, example.procedure, inputs, dice=dice if dice is not None else (), choices=choices, budget=budget, trace=False)
    except RuleViolation as violation:
        message = violation.diagnostics[0].message
        if "violation" in data:
            if data["violation"] in message:
                return []
            return [example.where("violation").diagnostic(f"expected a violation containing {data['violation']!r}, got: {message}")]
        return [example.where("expect").diagnostic(f"expected outcome {data['expect']['outcome']}, but a rule was violated: {message}")]
    except DiceScriptError as error:
        return [example.where("dice").diagnostic(error.message)]
    if "violation" in data:
        return [example.where("violation").diagnostic(f"expected a rule violation, got outcome {show(play.outcome)}")]
    problems = []
    expect = data["expect"]
    if play.outcome.name != expect["outcome"]:
        problems.append(example.where("expect.outcome").diagnostic(f"expected outcome {expect['outcome']}, got {show(play.outcome)}"))
    else:
        for field, wanted in (expect.get("fields") or {}).items():
            missing = object()
            actual = play.outcome.get(field, missing)
            if actual is missing:
                problems.append(example.where(f"expect.fields.{field}").diagnostic(f"outcome {play.outcome.name} has no field '{field}'"))
            elif not agrees(actual, wanted, ruleset.types):
                problems.append(example.where(f"expect.fields.{field}").diagnostic(f"expected {field} = {shown(wanted)}, got {shown(without_defaults(actual, ruleset.types))}"))
    if dice is not None and play.unused_dice:
        problems.append(example.where("dice").diagnostic(f"{play.unused_dice} of the scripted dice were not used"))
    return problems


def _check_odds(ruleset: CompiledRuleset, example: Example, inputs: dict, choices: dict, budget: Budget,
                warnings: list[Diagnostic]) -> list[Diagnostic]:
    distribution = odds(ruleset, example.procedure, inputs, choices=choices, budget=budget)
    if distribution.truncated:
        # the probabilities checked are of what was computed: a truncated remainder could hold any outcome
        warnings.append(example.where("odds").diagnostic(
            f"warning: these odds leave {shown_value(distribution.truncated)} ({float(distribution.truncated):.3g}) of the probability "
            "truncated (a loop's limit): the probabilities checked are of what was computed, not of every play"
        ))
    problems = []
    for index, item in enumerate(example.data["odds"]):
        wanted = probability(item["probability"])
        if wanted is None:
            problems.append(example.where(f"odds.{index}.probability").diagnostic(
                f"probability {str(item['probability'])[:40]!r} is not a fraction from 0 to 1 such as 5/12 (at most {MAX_PROBABILITY_DIGITS} digits a side)"
            ))
            continue
        fields = item.get("fields") or {}
        actual = sum(
            (p for outcome, p in distribution.outcomes if outcome.name == item["outcome"] and _fields_match(outcome, fields, ruleset.types)),
            Fraction(0),
        )
        if actual != wanted:
            problems.append(
                example.where(f"odds.{index}").diagnostic(f"expected P({item['outcome']}) = {wanted}, got {shown_value(actual)} ({float(actual):.6g})")
            )
    return problems


# Digits on either side of an example's fraction: exact odds of real procedures fit easily.
MAX_PROBABILITY_DIGITS = 1_000


_PROBABILITY = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(?:/\s*([0-9]+)\s*)?", re.ASCII)  # ASCII digits: int() reads "٣" too


def probability(written: Any) -> Fraction | None:
    """An example's probability ("5/12", "0.25", 1) as a fraction from 0 to 1, or None."""
    if isinstance(written, bool):
        return None
    match = _PROBABILITY.fullmatch(str(written))
    if match is None or any(part is not None and len(part) > MAX_PROBABILITY_DIGITS for part in match.groups()):
        return None
    numerator, denominator = match.groups()
    if denominator is not None and int(denominator) == 0:
        return None
    value = Fraction(numerator) / (int(denominator) if denominator is not None else 1)
    return value if 0 <= value <= 1 else None


def _fields_match(outcome: OutcomeValue, fields: dict[str, Any], types: Mapping[str, Type]) -> bool:
    missing = object()
    return all((actual := outcome.get(k, missing)) is not missing and agrees(actual, v, types) for k, v in fields.items())

