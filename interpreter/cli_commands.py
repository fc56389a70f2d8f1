"""The commands of ``wartable``: one function a command, each taking the parsed arguments, the
command line (to point at a bad argument) and the output streams, and returning the exit code.

``cli.COMMANDS`` lists them with their options; :func:`cli.main` dispatches.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from . import ir
from .limits import Limits

if TYPE_CHECKING:  # pragma: no cover - the commands import these when they run
    from .api import Distribution, Sample
    from .compiled_ruleset import CompiledRuleset

from .cli_inputs import gather_choices, gather_inputs
from .cli_output import (
    output_format,
    print_json,
    progress_line,
    share_progress,
    work_progress,
)
from .command_line import (
    CommandLine,
    base_paths,
    dice_offset,
    limits_of,
    load,
    offset_of,
    parse_by,
    parse_count,
    parse_dice,
    parse_digits,
    parse_jobs,
    parse_se,
    parse_seed,
    plural,
    procedure_named,
    shorten,
)
from .errors import RulesetError, UsageError


def check_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .render import text_check_entry, text_diagnostic
    from .reporters import Timings, github_check, junit_check
    from .resources import bundled_names

    output = output_format(args)
    names = args.rulesets or bundled_names()
    entries, seconds = [], []
    for name in names:
        started = time.perf_counter()
        entry, error = _check_one(name, command_line, args)
        seconds.append(time.perf_counter() - started)
        entries.append(entry)
        if output == "text":
            if error is not None:
                print(error.format(), file=stderr)
            for warning in entry.get("warnings", ()):  # the lint's and the player aid's: the check still passes
                print(text_diagnostic(warning), file=stderr)
            print(text_check_entry(entry), file=stderr if error is not None else stdout)
    document = results.check_report(entries)
    if output == "json":
        print_json(document, stdout)
    elif output == "github":
        print(github_check(document), file=stdout)
    elif output == "junit":
        print(junit_check(document, Timings(tuple(seconds))), file=stdout)
    return 0 if document["ok"] else 1


def _check_one(name: str, command_line: CommandLine, args: argparse.Namespace) -> tuple[dict, RulesetError | None]:
    """The check entry of one argument, and the error to print when it fails.  A YAML file that is a
    fragment or a situation (``checked_file.file_kind``) is checked against its own schema; anything
    else is loaded as a ruleset (every check a ruleset gets, the player aids' included)."""
    from . import results
    from .aid import aid_problems, aid_warnings
    from .checked_file import RULESET, check_file, file_kind
    from .lint import as_errors, lint
    from .loader import load_ruleset

    kind = RULESET
    try:
        kind, loaded = file_kind(name)
        if kind != RULESET:
            return results.file_checked(name, kind, check_file(name, kind, loaded)), None
        ruleset = load_ruleset(name, base_paths=base_paths(args, command_line))
        problems = aid_problems(ruleset)
        if problems:
            raise RulesetError(problems)
        # the lint's warnings, then the player aid's (its charts computed: all-equal heat maps, cells over budget)
        warnings = [*lint(ruleset), *aid_warnings(ruleset)]
        if warnings and getattr(args, "strict", False):
            raise RulesetError(as_errors(warnings))
    except UsageError as error:
        raise command_line.error(command_line.find(name), error.diagnostics[0].message) from None
    except RulesetError as error:
        return results.check_failed(name, error.diagnostics, None if kind == RULESET else kind), error
    entry = results.check_passed(ruleset.model, name)
    if warnings:  # the ruleset passes, and each is printed as file:line:column: warning: ...
        entry["warnings"] = [results.diagnostic(d, "warning") for d in warnings]
    return entry, None


def test_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .limits import Budget
    from .render import text_test_summary
    from .reporters import Timings, github_test, junit_test
    from .resources import bundled_names

    output = output_format(args)
    names = args.rulesets or bundled_names()
    limits = limits_of(args, command_line)
    # every ruleset loaded first: the timeout, one for all the examples (see examples.py), is for
    # running them, not for reading files (loading has budgets of its own)
    rulesets, load_failures, loading, failure_seconds = _load_for_test(names, command_line, args, reported=output in ("junit", "github"))
    examples, example_seconds = _run_test_examples(rulesets, Budget(limits), output, stdout, stderr)
    document = results.test_report(examples, load_failures)
    if output == "text":
        print(text_test_summary(document), file=stdout)
    elif output == "json":
        print_json(document, stdout)
    elif output == "github":
        print(github_test(document), file=stdout)
    else:
        print(junit_test(document, Timings(tuple(failure_seconds + example_seconds), loading)), file=stdout)
    return 0 if document["ok"] else 1


def _run_test_examples(rulesets: list[CompiledRuleset], budget: Any, output: str, stdout: TextIO, stderr: TextIO) -> tuple[list[dict], list[float]]:
    """Every example's result entry and seconds, one at a time (what ran is printed if the time runs out).  The
    command's timeout stops them at the example it reached: an error after the results before it, except under
    ``--format junit|github``, whose report for CI then ends with that example failing with it (an error there
    left CI an empty report)."""
    from . import results
    from .examples import ExampleResult, run_example
    from .limits import TimeoutExceeded
    from .render import text_diagnostic, text_example

    examples, example_seconds = [], []
    for ruleset in rulesets:
        for example in ruleset.examples:
            started, stopped = time.perf_counter(), False
            try:
                result = run_example(ruleset, example, budget=budget)
            except TimeoutExceeded as error:
                if output not in ("junit", "github"):
                    raise
                result, stopped = ExampleResult(example, tuple(error.diagnostics)), True
            example_seconds.append(time.perf_counter() - started)
            entry = results.example_result(ruleset.model, result)
            if result.warnings:  # odds that leave truncated mass: the example passes, and says so
                entry["warnings"] = [results.diagnostic(d, "warning") for d in result.warnings]
            examples.append(entry)
            if output == "text":
                print(text_example(entry), file=stdout)
                for problem in entry["problems"] + entry.get("warnings", []):
                    print(text_diagnostic(problem), file=stderr)
            if stopped:
                return examples, example_seconds
    return examples, example_seconds


def _load_for_test(
    names: Sequence[str], command_line: CommandLine, args: argparse.Namespace, *, reported: bool
) -> tuple[list[CompiledRuleset], list[dict], dict[str, float], list[float]]:
    """The rulesets loaded, the ones that failed to load (as ``results.load_failure`` entries), the seconds
    each loaded one took (by its name) and the seconds each failure took.  A ruleset that fails to load
    stops the command (exit 1, the diagnostics on stderr) unless the report is ``reported`` (JUnit,
    GitHub): CI then gets a failing case or an annotation, and the other rulesets are still tested."""
    from . import results

    rulesets, load_failures, loading, failure_seconds = [], [], {}, []
    for name in names:
        started = time.perf_counter()
        try:
            ruleset = load(name, command_line, args)
        except RulesetError as error:
            if not reported:
                raise
            load_failures.append(results.load_failure(name, error.diagnostics))
            failure_seconds.append(time.perf_counter() - started)
            continue
        rulesets.append(ruleset)
        loading[ruleset.model.name] = time.perf_counter() - started
    return rulesets, load_failures, loading, failure_seconds


def list_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .render import text_listing

    document = results.listing(load(args.ruleset, command_line, args))
    if args.json:
        print_json(document, stdout)
    else:
        print(text_listing(document), file=stdout)
    return 0


def show_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .render import text_modifiers, text_procedure, text_table

    ruleset = load(args.ruleset, command_line, args)
    if args.code is not None:
        from .engine import show_code

        for flag, given in (("--json", args.json), ("--provenance", args.provenance)):
            if given:  # refused, not ignored
                raise command_line.error(command_line.find_option(flag), f"{flag}: --code prints the generated Python as it is; give one or the other")
        return show_code(ruleset, args.name, args.code, command_line, stdout)
    if args.provenance and args.name not in ruleset.tables and (args.name in ruleset.modifiers or args.name in ruleset.procedures):
        what = "a modifier list" if args.name in ruleset.modifiers else "a procedure"
        raise command_line.error(command_line.find_option("--provenance"), f"--provenance shows where a table's cells come from; '{args.name}' is {what}")
    if args.name in ruleset.tables:
        document, text = results.table_doc(ruleset.tables[args.name], provenance=args.provenance), text_table
    elif args.name in ruleset.modifiers:
        document, text = results.modifiers_doc(ruleset.modifiers[args.name]), text_modifiers
    elif args.name in ruleset.procedures:
        document, text = results.procedure_doc(ruleset, args.name), text_procedure
    else:
        names = sorted(ruleset.tables) + sorted(ruleset.modifiers) + sorted(ruleset.procedures)
        raise command_line.error(command_line.find(args.name), f"ruleset '{ruleset.name}' has no table, modifier list or procedure '{args.name}' (it has: {', '.join(names)})")
    if args.json:
        print_json(document, stdout)
    else:
        print(text(document), file=stdout)
    return 0


@dataclass(frozen=True)
class _Call:
    """What ``run`` and ``odds`` are asked to compute, read from the command line and checked."""

    ruleset: CompiledRuleset
    procedure: ir.CheckedProcedure
    inputs: dict[str, Any]
    choices: dict[str, str]
    by: tuple[str, ...] | None  # --by
    digits: int | None  # --digits


def _call(args: argparse.Namespace, command_line: CommandLine, stderr: TextIO) -> _Call:
    ruleset = load(args.ruleset, command_line, args)
    procedure = procedure_named(ruleset, args.procedure, command_line)
    inputs = gather_inputs(procedure, args, command_line, ruleset=ruleset, stderr=stderr)
    choices = gather_choices(procedure, args, command_line, ruleset)
    return _Call(ruleset, procedure, inputs, choices, parse_by(args.by, procedure, command_line), parse_digits(args.digits, command_line))


def run_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .api import resolve
    from .dice import DiceScriptError
    from .render import text_resolution

    call = _call(args, command_line, stderr)
    seed = parse_seed(args.seed, command_line) if args.seed is not None else None
    dice = parse_dice(args.dice, command_line) if args.dice is not None else None
    limits = limits_of(args, command_line)
    if args.n is not None:
        return _monte_carlo(call, args, command_line, seed, dice, stdout, stderr, limits)
    if args.full:  # a switch: pointed at where it is written
        raise command_line.error(command_line.find("--full"), "--full lists many plays: give --n TRIALS too")
    for flag, value, what in (("--by", args.by, "summarises"), ("--digits", args.digits, "summarises"), ("--jobs", args.jobs, "shares out")):
        if value is not None:
            raise command_line.error(command_line.find(value, flag), f"{flag} {what} many plays: give --n TRIALS too")
    try:
        resolution = resolve(call.ruleset, args.procedure, call.inputs, seed=seed, dice=dice, choices=call.choices, limits=limits)
    except DiceScriptError as error:
        index = command_line.find(args.dice, "--dice")
        offset = dice_offset(args.dice, error.index) if error.index is not None else 0
        if index is not None:
            offset += command_line.offset_in(index, args.dice)
        raise command_line.error(index, error.message, offset) from None
    document = results.resolution(resolution)
    if args.json:
        print_json(document, stdout)
    else:
        print(text_resolution(_for_people(document, call, resolution), full_trace=args.trace, provenance=args.provenance), file=stdout)
    if resolution.unused_dice and not args.json:
        print(f"note: {resolution.unused_dice} scripted dice were not used", file=stderr)
    return 0


def _monte_carlo(
    call: _Call, args: argparse.Namespace, command_line: CommandLine, seed: int | None, dice: tuple[int, ...] | None,
    stdout: TextIO, stderr: TextIO, limits: Limits,
) -> int:
    """``run --n TRIALS``: the outcomes of many seeded plays."""
    from .api import monte_carlo

    trials = parse_count(args.n, "--n", command_line)
    if trials > limits.max_trials:
        index = command_line.find(args.n, "--n")
        raise command_line.error(index, f"--n: at most {limits.max_trials:,} trials in one run", offset_of(command_line, index, args.n))
    if dice is not None:
        raise command_line.error(command_line.find(args.dice, "--dice"), "--n draws its own dice: give --seed, not --dice")
    jobs = parse_jobs(args.jobs, command_line)
    with progress_line(stderr, wanted=trials >= 10_000) as show:
        sample = monte_carlo(call.ruleset, args.procedure, call.inputs, trials=trials, seed=seed, choices=call.choices,
                             progress=share_progress(show, "", "trials"), limits=limits, jobs=jobs)
    _print_sample(call, sample, stdout, as_json=args.json, full=args.full)
    return 0


def _for_people(document: dict[str, Any], call: _Call, result: Any) -> dict[str, Any]:
    """``document`` (made from ``result``, a Resolution, Sample or Distribution) for people: its inputs and
    outcomes with each record's fields at their declared defaults left out (``brief_values``); ``--json``
    prints every field."""
    from .brief_values import inputs_without_defaults, outcome_without_defaults

    types = call.ruleset.types
    shown = {**document, "inputs": inputs_without_defaults(result.inputs, types)}
    if "outcome" in document:
        shown["outcome"] = outcome_without_defaults(result.outcome, types)
    if "outcomes" in document:  # in the order the result holds them (most likely first)
        held = result.counts if hasattr(result, "counts") else result.outcomes
        shown["outcomes"] = [{**entry, **outcome_without_defaults(outcome, types)} for entry, (outcome, _) in zip(document["outcomes"], held)]
    return shown


def _defaults(call: _Call) -> dict[str, Any]:
    """The default of every input that has one and of every choice the procedure may meet: a summary
    prints the inputs that differ from them (``battle_summary``)."""
    from .binding import reachable_choices
    from .ruleset import MISSING

    defaults: dict[str, Any] = {spec.name: spec.default for spec in call.procedure.inputs if spec.default is not MISSING}
    defaults.update((choice.name, choice.default) for choice in reachable_choices(call.ruleset, call.procedure.name))
    return defaults


def _print_sample(call: _Call, sample: Sample, stdout: TextIO, *, as_json: bool, full: bool) -> None:
    """A sample as ``run --n`` prints it: JSON; the summary when the listing would not fit a screen
    (``render.listing_too_big``) and neither ``--by`` nor ``full`` asks for more; else the listing."""
    from . import results
    from .battle_summary import sample_summary
    from .render import listing_too_big, text_sample, text_summary

    document = results.sample(sample, by=call.by, digits=call.digits)
    if as_json:
        print_json(document, stdout)
        return
    listing = _for_people(document, call, sample)  # too big or not as it would be printed
    if call.by is None and not full and listing_too_big(listing):
        print(text_summary(_for_people(sample_summary(sample, call.digits, _defaults(call)), call, sample), digits=call.digits), file=stdout)
    else:
        print(text_sample(listing, digits=call.digits), file=stdout)


def odds_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .api import odds_by_choice
    from .limits import LimitExceeded

    call = _call(args, command_line, stderr)
    _check_auto_options(args, command_line)
    if args.what_if and output_format(args) in ("csv", "markdown"):
        index = command_line.find(args.what_if[0], "--what-if")
        raise command_line.error(index, f"--what-if compares two sets of odds: --format {output_format(args)} lists one (use table or json)")
    if args.plot is not None:  # --plot: refused before anything is computed
        from .cli_plot import check_plot_target

        check_plot_target(args.plot, command_line, what_if=bool(args.what_if))
    if args.auto:
        return _auto_odds(call, args, command_line, stdout, stderr)
    if args.what_if:
        return _what_if(call.ruleset, args, call.inputs, call.choices, command_line, stdout)
    try:
        with work_progress(stderr) as progress:
            found = odds_by_choice(call.ruleset, args.procedure, call.inputs, choices=call.choices, limits=limits_of(args, command_line),
                                   progress=progress)
    except LimitExceeded as error:
        raise _with_sampling_hint(error) from None
    open_names = [name for name in found[0][0] if name not in call.choices] if len(found) > 1 else []
    output = output_format(args)
    if output == "json":
        print_json(_odds_document(call, found, open_names), stdout)
    elif output in ("csv", "markdown"):
        from .odds_formats import odds_csv, odds_markdown

        documents = [(chosen, results.distribution(d, by=call.by, digits=call.digits)) for chosen, d in found]
        print((odds_csv if output == "csv" else odds_markdown)(documents, open_names, call.digits), file=stdout)
    else:
        _print_odds(call, found, open_names, stdout, full=args.full)
    if args.plot is not None:  # --plot FILE.svg: the same distributions as a bar chart
        from .cli_plot import write_odds_plot

        write_odds_plot(args.plot, call, found, open_names, command_line, stderr)
    return 0


def _check_auto_options(args: argparse.Namespace, command_line: CommandLine) -> None:
    """``--se`` and ``--jobs`` only say how ``--auto`` samples: refused without it; ``--auto`` answers one question (no --what-if)."""
    if not args.auto:
        for flag, value in (("--se", args.se), ("--jobs", args.jobs), ("--seed", args.seed)):
            if value is not None:
                raise command_line.error(command_line.find(value, flag), f"{flag} says how --auto samples: give --auto too")
    elif args.what_if:
        raise command_line.error(command_line.find("--auto"), "--auto and --what-if: give one (a what-if compares exact odds)")


def _with_sampling_hint(error: Any) -> Any:
    """A budget breach of exact odds, with what to do instead: sample (``--auto``, ``run --n``).

    The breach's own hint names the command-line flag and the API's ``Limits(...)``; here it is
    said to a command-line user, so the API half gives way to the sampling advice and the whole
    first line stays within a screen's 200 columns (it was 275 for eia's three_a_side)."""
    from .errors import Diagnostic
    from .limits import RAISE_HINTS

    if error.limit not in ("max_work", "max_states", "timeout"):
        return error
    raise_hint = RAISE_HINTS[error.limit]
    flag_only = raise_hint.partition(" or Limits(")[0].replace(" (0 for no limit)", ", 0: no limit")
    advice = "; or sample instead: `odds --auto` (±0.005) or `run --n 10000`"
    diagnostics = [Diagnostic(d.file, d.line, d.column, d.message.replace(raise_hint, flag_only) + advice, d.line_text)
                   for d in error.diagnostics]
    renamed = type(error)(diagnostics)
    renamed.limit = error.limit
    return renamed


def _auto_odds(call: _Call, args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    """``odds --auto``: exact when it fits a share of the budget (estimate.PROBE_SHARE), else sampled to ``--se``."""
    from . import results
    from .estimate import auto_odds

    se = parse_se(args.se, command_line)
    jobs = parse_jobs(args.jobs, command_line)
    seed = parse_seed(args.seed, command_line) if args.seed is not None else None
    with progress_line(stderr) as show:
        found = auto_odds(call.ruleset, args.procedure, call.inputs, se=se, seed=seed, choices=call.choices, limits=limits_of(args, command_line),
                          jobs=jobs, progress=share_progress(show, "sampling: ", "plays"))
    if args.json:
        if found.sample is None:
            assert found.distribution is not None  # an exact result holds its distribution
            document = {**results.distribution(found.distribution, by=call.by, digits=call.digits), "mode": "exact"}
        else:
            document = {**results.sample(found.sample, by=call.by, digits=call.digits), **found.labels()}
        print_json(document, stdout)
        return 0
    print(found.label(), file=stdout)
    if found.sample is None:  # printed as odds and run --n print theirs: the summary when the listing would not fit
        assert found.distribution is not None
        _print_odds(call, [({}, found.distribution)], [], stdout, full=args.full)
    else:
        _print_sample(call, found.sample, stdout, as_json=False, full=args.full)
    return 0


def _odds_document(call: _Call, found: list[tuple[dict[str, str], Distribution]], open_names: list[str]) -> dict[str, Any]:
    """``odds --json``: the distribution under the choices given (defaults for the rest); with open
    choices, ``by_choice`` holds one distribution per combination."""
    from . import results
    from .binding import reachable_choices

    defaults = {c.name: c.default for c in reachable_choices(call.ruleset, call.procedure.name)}
    chosen_by_default = next(d for chosen, d in found if all(chosen[name] == defaults[name] for name in open_names))
    document = results.distribution(chosen_by_default, by=call.by, digits=call.digits)
    if open_names:
        kept = ("outcomes", "truncated", "means", "marginal")
        document["by_choice"] = [
            {"choices": chosen, **{k: v for k, v in results.distribution(d, by=call.by, digits=call.digits).items() if k in kept}}
            for chosen, d in found
        ]
    return document


def _print_odds(call: _Call, found: list[tuple[dict[str, str], Distribution]], open_names: list[str], stdout: TextIO, *, full: bool) -> None:
    """``odds`` as text: one distribution per combination of the open choices, each headed by them;
    each summarised when its listing would not fit a screen (``render.listing_too_big``), unless ``full``.
    The inputs are printed with the first only: under the others only the open choices differ, and
    their "with" line says so (a battle's inputs run to several lines, repeated 35 times under 36
    combinations)."""
    from . import results
    from .battle_summary import distribution_summary
    from .render import listing_too_big, text_distribution, text_summary

    for index, (chosen, distribution) in enumerate(found):
        if index:
            print(file=stdout)
        if open_names:
            print("with " + ", ".join(f"{name} = {chosen[name]}" for name in open_names) + ":", file=stdout)
        listing = _for_people(results.distribution(distribution, by=call.by, digits=call.digits), call, distribution)
        summarised = call.by is None and not full and listing_too_big(listing)
        shown = _for_people(distribution_summary(distribution, call.digits, _defaults(call)), call, distribution) if summarised else listing
        if index:
            shown = {**shown, "inputs": {}}
        print((text_summary if summarised else text_distribution)(shown, digits=call.digits), file=stdout)


def _what_if(ruleset, args, inputs, choices, command_line: CommandLine, stdout: TextIO) -> int:
    from .api import odds
    from .diff import WhatIfError, what_if
    from .limits import Budget

    changed = ruleset
    for text in args.what_if:
        try:
            changed = what_if(changed, [text])
        except WhatIfError as error:
            index = command_line.find(text, "--what-if")
            raise command_line.error(index, f"--what-if: {error.message}", offset_of(command_line, index, text) + error.offset) from None
    budget = Budget(limits_of(args, command_line))
    before = odds(ruleset, args.procedure, inputs, choices=choices, budget=budget)
    after = odds(changed, args.procedure, inputs, choices=choices, budget=budget)
    label = "what-if " + "; ".join(args.what_if)
    _print_odds_changes(before, after, ruleset.name, label, output_format(args) == "json", stdout)
    return 0


def _print_odds_changes(before, after, base_label: str, variant_label: str, as_json: bool, stdout: TextIO, data: list[dict] | None = None) -> None:
    from . import results
    from .diff import odds_changes
    from .render import text_odds_changes

    document = results.odds_changes(odds_changes(before, after), before, base_label, variant_label, data, after=after)
    if as_json:
        print_json(document, stdout)
    else:
        print(text_odds_changes(document), file=stdout)


def diff_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from .api import odds
    from .diff import changes
    from .limits import Budget
    from .render import text_changes

    base = load(args.base, command_line, args)
    variant = load(args.variant, command_line, args)
    found = [change.to_plain() for change in changes(base, variant)]
    listing = {"base": base.name, "variant": variant.name, "changes": found}
    if args.procedure is None:
        if args.json:
            print_json(listing, stdout)
        else:
            print("\n".join(text_changes(listing)), file=stdout)
        return 0
    base_procedure = procedure_named(base, args.procedure, command_line)
    variant_procedure = procedure_named(variant, args.procedure, command_line)
    inputs = gather_inputs(variant_procedure, args, command_line, ruleset=variant, stderr=stderr)
    choices = gather_choices(variant_procedure, args, command_line, variant)
    base_inputs = {k: v for k, v in inputs.items() if base_procedure.input(k) is not None}
    base_choices = {k: v for k, v in choices.items() if base_procedure.choice(k) is not None}
    budget = Budget(limits_of(args, command_line))
    before = odds(base, args.procedure, base_inputs, choices=base_choices, budget=budget)
    after = odds(variant, args.procedure, inputs, choices=choices, budget=budget)
    if not args.json:
        print("\n".join(text_changes(listing)), file=stdout)
        print(file=stdout)
    _print_odds_changes(before, after, base.name, variant.name, args.json, stdout, found)
    return 0


def sweep_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from .reporters import SWEEP_FORMATS, sweep_csv, sweep_doc
    from .sweep import SweepError, parse_dimension, run_sweep

    ruleset = load(args.ruleset, command_line, args)
    procedure = procedure_named(ruleset, args.procedure, command_line)
    if not args.over:
        raise command_line.error(command_line.find(args.procedure), "sweep needs at least one --over NAME=A..B (or NAME=V1,V2,...)")
    dimensions, where = [], []
    for text in args.over:
        index = command_line.find(text, "--over")
        try:
            dimensions.append(parse_dimension(ruleset, args.procedure, text))
        except SweepError as error:
            raise command_line.error(index, f"--over: {error.message}", offset_of(command_line, index, text) + error.offset) from None
        where.append(index)
    seen: dict[str, int | None] = {}
    for dimension, index in zip(dimensions, where):
        if dimension.name in seen:
            raise command_line.error(index, f"--over: {dimension.name} is swept twice", offset_of(command_line, index, dimension.name))
        seen[dimension.name] = index
    swept = {d.target for d in dimensions if not d.path}
    inputs = gather_inputs(procedure, args, command_line, provided=swept, ruleset=ruleset, stderr=stderr)
    choices = gather_choices(procedure, args, command_line, ruleset)
    for dimension, index in zip(dimensions, where):
        if dimension.is_choice and dimension.target in choices:
            raise command_line.error(index, f"--over: the choice {dimension.target} is fixed by --choose: sweep it or fix it, not both")
    by = parse_by(args.by, procedure, command_line) or ("outcome",)
    digits = parse_digits(args.digits, command_line)
    output = output_format(args)
    _check_exact(args.exact, output, digits, command_line)
    if args.plot is not None:  # --plot: refused before anything is computed
        from .cli_plot import check_plot_target

        check_plot_target(args.plot, command_line, dimensions=len(dimensions))
    try:
        result = run_sweep(ruleset, args.procedure, dimensions, inputs, choices=choices, by=by, limits=limits_of(args, command_line),
                           jobs=parse_jobs(args.jobs, command_line))
    except SweepError as error:
        index = next((i for d, i in zip(dimensions, where) if error.message.startswith(d.name)), where[0])
        raise command_line.error(index, f"--over: {error.message}") from None
    document = sweep_doc(result, digits)
    if output == "json":
        print_json(document, stdout)
    elif output == "csv":
        print(sweep_csv(document, digits, exact=args.exact), file=stdout)
    else:
        print(SWEEP_FORMATS[output](document, digits), file=stdout)
    if args.plot is not None:  # --plot FILE.svg: lines or heat maps of the same odds
        from .cli_plot import write_sweep_plot

        write_sweep_plot(args.plot, result, command_line, stderr)
    return 0


def _check_exact(exact: bool, output: str, digits: int | None, command_line: CommandLine) -> None:
    """``--exact`` only chooses how CSV writes numbers: refused, not ignored, anywhere else."""
    if not exact:
        return
    index = command_line.find("--exact")
    if output != "csv":
        raise command_line.error(index, f"--exact chooses fractions for --format csv; {output} shows fractions already (JSON has both)")
    if digits is not None:
        raise command_line.error(index, "--exact and --digits: give one (exact fractions, or decimals to N places)")


def aid_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from pathlib import Path

    from .aid import player_aid

    ruleset = load(args.ruleset, command_line, args)
    if args.output:
        if "\0" in args.output:  # refused before the page is computed (open() would raise ValueError after it)
            raise command_line.error(_output_index(args.output, command_line), f"cannot write {shorten(args.output)}: the name contains a NUL byte")
        _refuse_to_overwrite_input(args, command_line)
    page, summary = player_aid(ruleset, limits=limits_of(args, command_line), card=args.card)
    if args.output:
        path = Path(args.output)
        try:
            path.write_text(page, encoding="utf-8")
        except OSError as error:
            raise command_line.error(_output_index(args.output, command_line), f"cannot write {shorten(args.output)}: {error.strerror or error}") from None
        summary = {"output": str(path), "bytes": len(page.encode("utf-8")), **summary}
        if args.json:
            print_json(summary, stdout)
        else:
            print(f"wrote {path}: {plural(summary['tables'], 'table')}, {plural(summary['heat_maps'], 'heat map')}", file=stdout)
    elif args.json:
        print_json({"output": None, "html": page, **summary}, stdout)
    else:
        stdout.write(page)
    return 0


def _output_index(output: str, command_line: CommandLine) -> int | None:
    return command_line.find(output, "-o") or command_line.find(output, "--output") or command_line.find(output)


def _refuse_to_overwrite_input(args: argparse.Namespace, command_line: CommandLine) -> None:
    """``-o`` must not name a file the ruleset is read from (itself, an include, a base), by any
    name: a symbolic link or a hard link to it is the same file (os.path.samefile)."""
    import os

    from .files import display_name
    from .loader import files_read

    output = args.output
    try:
        if not os.path.exists(output):
            return  # a file not there yet is none of the ruleset's
        for read in files_read(args.ruleset, base_paths=base_paths(args, command_line)):
            if os.path.samefile(output, read):
                index, shown = _output_index(output, command_line), display_name(read)
                raise command_line.error(
                    index, f"-o {shorten(output)}: the ruleset is read from this file ({shown[:120]}): write the page elsewhere",
                    offset_of(command_line, index, output),
                )
    except (OSError, ValueError):
        return  # an output path that cannot be looked at is reported when it is written


def schema_command(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from .resources import data_dir

    # The files themselves, byte for byte: what an editor would read from the package.
    name = "fragment.schema.json" if args.fragment else "situation.schema.json" if args.situation else "ruleset.schema.json"
    text = (data_dir("schemas") / name).read_text(encoding="utf-8")
    stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
