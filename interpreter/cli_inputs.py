"""A procedure's inputs and choices from the command line: ``--set``, ``--situation`` and ``--choose``.

Every value goes through the one binder (:mod:`binding`), which says what is
wrong; this module says where: the column of the argument on the command
line, or the line of the situation file.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, TextIO

from . import ir
from .binding import (
    MISSING_INPUT,
    UNKNOWN_CHOICE,
    UNKNOWN_INPUT,
    BindingProblem,
    bind,
    check_choices,
)
from .errors import Diagnostic
from .inputs import CoercionError, parse_command_line_value
from .ruleset import InputSpec
from .values import BoolType, IntType, StrType

if TYPE_CHECKING:  # pragma: no cover - YAML is read when a value needs it
    from .compiled_ruleset import CompiledRuleset
    from .yaml_loader import LoadedYaml

from .command_line import (
    COMMAND_LINE,
    CommandLine,
    offset_of,
    shorten,
    split_assignment,
)
from .errors import RulesetError, Source, UsageError


def gather_inputs(
    procedure: ir.CheckedProcedure,
    args: argparse.Namespace,
    command_line: CommandLine,
    provided: Collection[str] = frozenset(),
    *,
    ruleset: CompiledRuleset | None = None,
    stderr: TextIO | None = None,
) -> dict[str, Any]:
    """The inputs given by ``--situation`` and ``--set`` (``--set`` wins), checked; every required input not
    given (nor ``provided``, such as a swept one) is an error at the procedure's name."""
    inputs: dict[str, Any] = {}
    if args.situation:
        situation, warnings = _situation(procedure, args.situation, command_line, ruleset)
        inputs.update(situation)
        for warning in warnings:
            if stderr is not None:
                print(warning.format(), file=stderr)
    for text in args.assignments:
        name, value = _assigned(procedure, text, command_line)
        inputs[name] = value
    missing = [problem for problem in bind(procedure, inputs, provided=provided).problems if problem.kind == MISSING_INPUT]
    if missing:
        index = command_line.find(args.procedure)
        raise UsageError([
            command_line.error(index, f"{problem.message}: give --set {problem.name}=... or --situation FILE.yaml").diagnostics[0] for problem in missing
        ])
    return inputs


def _assigned(procedure: ir.CheckedProcedure, text: str, command_line: CommandLine) -> tuple[str, Any]:
    """One ``--set NAME=VALUE``: the input's name and its checked value."""
    name, value, index = split_assignment(text, "--set", command_line)
    value_offset = offset_of(command_line, index, text) + len(name) + 1
    spec = procedure.input(name)
    loaded = None
    try:
        parsed: Any = value
        if spec is not None:
            parsed, loaded = _parsed_value(spec, value, command_line, index, value_offset)
    except CoercionError as error:
        raise command_line.error(index, f"--set {name}: {error.message}", value_offset) from None
    bound = bind(procedure, {name: parsed}, complete=False)
    for problem in bound.problems:
        if problem.at_key and not problem.path:  # the name itself
            raise command_line.error(index, problem.message, offset_of(command_line, index, name))
        inner = loaded.mark(problem.path).column - 1 if loaded is not None else 0
        raise command_line.error(index, f"--set {name}: {problem.message}", value_offset + inner)
    return name, bound.values[name]


def _parsed_value(spec: InputSpec, text: str, command_line: CommandLine, index: int | None, offset: int) -> tuple[Any, LoadedYaml | None]:
    """The value ``text`` spells for ``spec``: the obvious spelling of an int, bool or str, YAML for the rest
    (with where each part of it was written)."""
    if isinstance(spec.type, (BoolType, IntType, StrType)):
        return parse_command_line_value(text, spec.type), None
    loaded = _yaml_value(text, command_line, index, offset)
    return loaded.data, loaded


def _yaml_value(text: str, command_line: CommandLine, index: int | None, offset: int) -> LoadedYaml:
    from .yaml_loader import load_yaml

    try:
        return load_yaml(Source(COMMAND_LINE, text))
    except RulesetError as error:
        first = error.diagnostics[0]
        raise command_line.error(index, first.message, offset + first.column - 1) from None


def gather_choices(procedure: ir.CheckedProcedure, args: argparse.Namespace, command_line: CommandLine, ruleset: CompiledRuleset) -> dict[str, str]:
    """--choose values, for the procedure's choices and those of the procedures it resolves."""
    choices = {}
    for text in args.chosen:
        name, value, index = split_assignment(text, "--choose", command_line)
        for problem in check_choices(ruleset, procedure.name, {name: value}):
            at_name = problem.kind == UNKNOWN_CHOICE
            offset = offset_of(command_line, index, name) if at_name else offset_of(command_line, index, text) + len(name) + 1
            raise command_line.error(index, problem.message, offset)
        choices[name] = value
    return choices


def _situation(
    procedure: ir.CheckedProcedure, path_text: str, command_line: CommandLine, ruleset: CompiledRuleset | None = None
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The inputs a situation file gives this procedure, and warnings for the keys it leaves to other steps.

    One situation file serves every step of a mission: a key that names an
    input of another procedure of the ruleset is left for that step (a
    warning); a key that names no input anywhere is a mistake (an error,
    with the closest input's name).
    """
    loaded, data = _situation_file(path_text, command_line)
    bound = bind(procedure, data, complete=False)
    elsewhere = {spec.name for other in (ruleset.compiled.values() if ruleset is not None else ()) for spec in other.inputs}
    choice_names = {choice.name for choice in procedure.choices}
    problems, warnings = [], []
    for problem in bound.problems:
        if problem.kind != UNKNOWN_INPUT or problem.name in choice_names or problem.name not in elsewhere:
            problems.append(problem)
        else:  # another step's input
            message = f"warning: procedure '{procedure.name}' does not use '{problem.name}' (another step does); ignored"
            warnings.append(loaded.diagnostic((problem.name,), message, at_key=True))
    if problems:
        raise UsageError(_situation_problems(loaded, data, procedure, problems, elsewhere))
    return bound.values, warnings


def _situation_file(path_text: str, command_line: CommandLine) -> tuple[LoadedYaml, dict[str, Any]]:
    """The situation file read, and the mapping it holds; or a usage error (exit 2) where it goes wrong."""
    from pathlib import Path

    from .loader import read_source
    from .yaml_loader import load_yaml

    path = Path(path_text)
    index = command_line.find(path_text, "--situation")
    try:
        if not path.is_file():
            raise command_line.error(index, f"no such file: {shorten(path_text)}")
        loaded = load_yaml(read_source(path))
    except OSError as error:
        raise command_line.error(index, f"cannot read {shorten(path_text)}: {error.strerror or error}") from None
    except RulesetError as error:  # a bad situation file is a bad command-line value: exit 2
        raise UsageError(error.diagnostics) from None
    if not isinstance(loaded.data, dict):
        raise UsageError(loaded.diagnostic((), "a situation file is a mapping of input names to values"))
    return loaded, loaded.data


def _situation_problems(loaded: LoadedYaml, data: dict[str, Any], procedure: ir.CheckedProcedure, problems: list[BindingProblem], elsewhere: set[str]) -> list[Diagnostic]:
    """The problems at their lines, in the file's order, capped as a ruleset's YAML and schema problems are
    (10,000 unknown keys printed 1.4 MB): past the cap, problems are counted, not worded (wording an
    unknown key looks for the closest name)."""
    from dataclasses import replace

    from .load_limits import DEFAULT_LOAD_LIMITS

    order = {name: place for place, name in enumerate(data)}
    problems = sorted(problems, key=lambda problem: order.get(problem.name, len(order)))
    cap = DEFAULT_LOAD_LIMITS.max_diagnostics
    choice_names = {choice.name for choice in procedure.choices}
    diagnostics = []
    for problem in problems[:cap]:
        if problem.kind == UNKNOWN_INPUT and problem.name in choice_names:
            message = f"'{problem.name}' is a choice: give it with --choose {problem.name}=OPTION"
        else:
            message = replace(problem, nearby=tuple(sorted(elsewhere))).message
        diagnostics.append(loaded.diagnostic(problem.where, message, at_key=problem.at_key))
    if len(problems) > cap:
        message = f"... and {len(problems) - cap:,} more problems in this situation file (the first {cap} are shown)"
        diagnostics.append(loaded.diagnostic(problems[cap].where, message, at_key=True))
    return diagnostics
