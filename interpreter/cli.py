"""The ``wartable`` command.

Exit codes: 0 ok; 1 invalid ruleset, failed check or rule violation; 2 usage
error (bad option, bad --set/--dice/--situation value).  User errors print
``file:line:column: message`` with the line and a caret; a bad command-line
value is positioned on the command line itself.  Internal bugs keep their
traceback.

Every command answers ``--json`` with one JSON document on stdout, errors
included (``{"ok": false, "exit_code", "error", "diagnostics": [...]}``).
``check`` and ``test`` also write GitHub workflow annotations
(``--format github``) and JUnit XML (``--format junit``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms at every start)
if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    from collections.abc import Callable, Sequence
    from typing import Any, TextIO

from .errors import RulesetError, Source, UsageError, WartableError

COMMAND_LINE = "<command line>"


class CommandLine:
    """The command as one line, to point a caret at a bad argument."""

    def __init__(self, argv: Sequence[str]):
        self.argv = list(argv)
        parts, self.starts = ["wartable"], []
        column = len("wartable") + 2
        for arg in self.argv:
            quoted = shlex.quote(arg)
            self.starts.append(column + (1 if quoted != arg else 0))
            parts.append(quoted)
            column += len(quoted) + 1
        self.source = Source(COMMAND_LINE, " ".join(parts))

    def error(self, index: int | None, message: str, offset: int = 0) -> UsageError:
        column = self.starts[index] + offset if index is not None and index < len(self.starts) else 1
        return UsageError(self.source.diagnostic(1, column, message))

    def find(self, value: str, after_flag: str | None = None) -> int | None:
        """Index of an argument (the last occurrence of ``value``, optionally right after a flag)."""
        for index in range(len(self.argv) - 1, -1, -1):
            arg = self.argv[index]
            if after_flag is not None:
                if arg == f"{after_flag}={value}":
                    return index
                if arg == value and index > 0 and self.argv[index - 1] == after_flag:
                    return index
            elif arg == value:
                return index
        return None

    def offset_in(self, index: int, value: str) -> int:
        """Offset of ``value`` inside argument ``index`` (for --flag=value forms)."""
        arg = self.argv[index]
        return arg.find(value) if value in arg else 0


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so errors get positions."""

    def __init__(self, *args, command_line: CommandLine | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.command_line = command_line

    def error(self, message: str):
        """Point at the argument argparse complains about (it names it in the message)."""
        command_line = self.command_line
        if command_line is None:
            raise UsageError(Source(COMMAND_LINE, "").diagnostic(1, 1, message))
        named = (
            index for index, arg in enumerate(command_line.argv)
            if arg and (f"'{arg}'" in message or f": {arg}" in message or message.endswith(arg))
        )
        command = self.prog.split()[-1] if " " in self.prog else ""
        hint = f"see wartable {command} --help" if command else "see wartable --help"
        raise command_line.error(next(named, None), f"{message} ({hint})")


def build_parser(command_line: CommandLine | None = None, command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``command``, the parser of that command alone (or, when it names
    no command, every command listed by name without its options).

    Making every command's parser and options costs more than the rest of
    ``--help``; a run of one command needs that one only.
    """
    parser = _Parser(
        prog="wartable",
        description="Wargame rules as data: check rulesets, show tables, resolve procedures, compute exact odds.",
        command_line=command_line,
    )
    parser.add_argument("--version", action=_LazyVersion, version="")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=lambda **kw: _Parser(command_line=command_line, **kw))
    sub.required = True
    # A run of a known command needs its own parser only; the others are made to be listed (--help) or
    # offered when a command is misspelt.
    names = (command,) if command in COMMANDS else tuple(COMMANDS)
    for name in names:
        help_text, add_options = COMMANDS[name]
        subcommand = sub.add_parser(name, help=help_text)
        if command is None or command == name:
            add_options(subcommand)
            subcommand.add_argument(
                "--base-path", action="append", default=[], metavar="DIR", dest="base_paths",
                help="allow a variant's extends: to name a base in DIR, outside the variant's folder (repeatable)",
            )
    return parser


def _check_options(check: argparse.ArgumentParser) -> None:
    check.add_argument("rulesets", nargs="*", metavar="RULESET", help="a path or a bundled name")
    _add_format_options(check, ("text", "json", "github", "junit"))


def _list_options(listing: argparse.ArgumentParser) -> None:
    listing.add_argument("ruleset", metavar="RULESET")
    _add_json_option(listing)


def _test_options(test: argparse.ArgumentParser) -> None:
    test.add_argument("rulesets", nargs="*", metavar="RULESET", help="a path or a bundled name (every bundled one when none is named)")
    _add_format_options(test, ("text", "json", "github", "junit"))
    _add_limit_options(test)


def _show_options(show: argparse.ArgumentParser) -> None:
    show.add_argument("ruleset", metavar="RULESET")
    show.add_argument("name", metavar="TABLE")
    show.add_argument("--provenance", action="store_true", help="the file and line each row's cells come from")
    show.add_argument("--code", nargs="?", const="all", metavar="MODE",
                      help="a procedure's generated Python, each statement under its ruleset line (MODE: exact, play, sample or plain_inputs; default all)")
    _add_json_option(show)


def _procedure_options(command: argparse.ArgumentParser) -> None:
    """What `run` and `odds` share."""
    command.add_argument("ruleset", metavar="RULESET")
    command.add_argument("procedure", metavar="PROCEDURE")
    _add_input_options(command)
    _add_json_option(command)
    _add_limit_options(command)


def _run_options(run: argparse.ArgumentParser) -> None:
    _procedure_options(run)
    dice = run.add_mutually_exclusive_group()
    dice.add_argument("--seed", metavar="N", help="seed for random dice (replays a resolution)")
    dice.add_argument("--dice", metavar="4,2,6", help="scripted die faces, in order")
    run.add_argument("--trace", action="store_true", help="every step with its rule and source line")
    run.add_argument("--provenance", action="store_true", help="the file and line of every table cell and modifier used")
    run.add_argument("--n", metavar="TRIALS", help="Monte Carlo: resolve TRIALS times (seeded) and print the empirical distribution")
    _add_summary_options(run, monte_carlo=True)


def _odds_options(odds: argparse.ArgumentParser) -> None:
    _procedure_options(odds)
    odds.add_argument(
        "--what-if", action="append", default=[], metavar="CHANGE", dest="what_if",
        help="compare with a change: LIST+N or LIST-N adds N to a modifier list (DRM, or column shift + right), CONSTANT=VALUE",
    )
    _add_summary_options(odds, monte_carlo=False)


def _sweep_options(sweep: argparse.ArgumentParser) -> None:
    sweep.add_argument("ruleset", metavar="RULESET")
    sweep.add_argument("procedure", metavar="PROCEDURE")
    sweep.add_argument(
        "--over", action="append", default=[], metavar="NAME=A..B|NAME=V1,V2", dest="over",
        help="what varies: an input (zones=1..12), a field inside one (attacker[1].contact=0..5) or a choice; give several for every combination",
    )
    _add_input_options(sweep)
    _add_summary_options(sweep, monte_carlo=False)
    _add_format_options(sweep, ("table", "csv", "json", "markdown"))
    _add_limit_options(sweep)


def _aid_options(aid: argparse.ArgumentParser) -> None:
    aid.add_argument("ruleset", metavar="RULESET")
    aid.add_argument("-o", "--output", metavar="FILE.html", help="where to write the page (default: standard output)")
    _add_json_option(aid)
    _add_limit_options(aid)


def _schema_options(schema: argparse.ArgumentParser) -> None:
    schema.add_argument("--include-fragment", action="store_true", dest="fragment", help="the schema of a file pulled in with include:")
    _add_json_option(schema)


def _diff_options(diff: argparse.ArgumentParser) -> None:
    diff.add_argument("base", metavar="BASE")
    diff.add_argument("variant", metavar="VARIANT")
    diff.add_argument("procedure", metavar="PROCEDURE", nargs="?")
    _add_input_options(diff)
    _add_json_option(diff)
    _add_limit_options(diff)


# Every command: its one-line help and what adds its options, in the order --help lists them.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "check": ("validate rulesets (every bundled one when none is named)", _check_options),
    "list": ("tables, modifier lists, constants and procedures with their inputs", _list_options),
    "test": ("run the rulesets' examples (rule tests)", _test_options),
    "show": ("a table as printed (or a modifier list, or a procedure's text)", _show_options),
    "run": ("resolve a procedure once, explaining every step", _run_options),
    "odds": ("exact probabilities of a procedure's outcomes", _odds_options),
    "sweep": ("exact odds for every combination of some inputs (a table, CSV, JSON or markdown)", _sweep_options),
    "aid": ("a printable HTML player aid: tables, modifiers, procedures and odds heat maps", _aid_options),
    "schema": ("the JSON Schema of a ruleset file (for editors and the YAML language server)", _schema_options),
    "diff": ("what a variant changes: its data, and with a procedure the exact odds under both", _diff_options),
}


class _LazyVersion(argparse._VersionAction):
    """argparse's --version, looking the version up only when it is asked for (importlib.metadata is slow to import)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from .resources import version

        self.version = f"wartable {version()}"
        super().__call__(parser, namespace, values, option_string)


def _add_json_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--json", action="store_true", help="print one JSON object (errors too)")


def _add_format_options(command: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    command.add_argument("--format", choices=formats, default=formats[0], help=f"output format (default {formats[0]})")
    command.add_argument("--json", action="store_true", help="the same as --format json")


def _add_input_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="assignments", help="an input value")
    command.add_argument("--situation", metavar="FILE.yaml", help="input values from a YAML file (--set wins)")
    command.add_argument("--choose", action="append", default=[], metavar="NAME=OPTION", dest="chosen", help="fix a player's choice")


def _add_summary_options(command: argparse.ArgumentParser, *, monte_carlo: bool) -> None:
    what = " (with --n)" if monte_carlo else ""
    command.add_argument(
        "--by", metavar="FIELD,...",
        help=f"the distribution over these outcome fields only, the rest summed out ('outcome' for the outcome's name){what}",
    )
    command.add_argument("--digits", metavar="N", help=f"decimals only, N places, instead of exact fractions{what}")


def _add_limit_options(command: argparse.ArgumentParser) -> None:
    """The budgets a user may raise (see limits.py); 0 lifts one."""
    from .limits import Limits

    defaults = Limits()
    command.add_argument("--max-work", metavar="N", help=f"units of work one computation may spend (default {defaults.max_work:,}; 0: no limit)")
    command.add_argument("--max-states", metavar="N", help=f"states exact odds may hold at once (default {defaults.max_states:,}; 0: no limit)")
    command.add_argument("--timeout", metavar="SECONDS", help=f"seconds one command may compute (default {defaults.timeout:g}; 0: no limit)")


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    stdout = _printable(stdout or sys.stdout)
    stderr = _printable(stderr or sys.stderr)
    command_line = CommandLine(argv)
    as_json = _wants_json(argv)
    if _wants_github(argv):
        stdout = _printable(stdout, commands_are_ours=True)
        stderr = _printable(stderr, commands_are_ours=True, kind=_GitHubErrors)
    try:
        parser = build_parser(command_line, _command_named(argv))
        if argv[:1] == ["--version"]:
            from .resources import version

            print(json.dumps({"version": version()}) if as_json else f"wartable {version()}", file=stdout)
            return 0
        if not argv or argv[0] in ("-h", "--help") or "--help" in argv or "-h" in argv:
            try:
                parser.parse_args(argv or ["--help"])
            except SystemExit as exit_:
                return int(exit_.code or 0)
        args = parser.parse_args(argv)
        handler = {
            "diff": _diff, "check": _check, "test": _test, "list": _list, "show": _show, "run": _run, "odds": _odds,
            "sweep": _sweep, "aid": _aid, "schema": _schema,
        }[args.command]
        return handler(args, command_line, stdout, stderr)
    except UsageError as error:
        return _fail(error, 2, as_json, stdout, stderr)
    except WartableError as error:
        return _fail(error, 1, as_json, stdout, stderr)
    except KeyboardInterrupt as interrupt:
        return _fail(interrupt, 130, as_json, stdout, stderr)


class _Printable:
    """A text stream that writes only what a terminal shows as text (``errors.printable``, newlines kept),
    where user text never starts a line with ``:``.

    The last guard at the output boundary: every reporter already escapes the
    ruleset strings it formats, and this catches whatever else a command
    prints (the HTML page, a CSV cell, a line cli.py words itself).  The
    progress lines' own carriage returns go to ``raw``.

    A CI runner reads each line of both streams, leading blanks trimmed, as a
    possible workflow command (``::add-mask::``, ``::stop-commands::``): an
    echoed source line or a CSV cell could be one.  So a ``:`` first on a line
    (after blanks) is written ``\\x3a``, except where the commands are
    wartable's own (``commands_are_ours``: the GitHub annotations, whose user
    text is escaped so that it cannot start a line).  ``_blank`` remembers,
    between writes to this one stream, whether the line so far is blank.
    """

    def __init__(self, stream: TextIO, *, commands_are_ours: bool = False):
        self.raw: TextIO = stream.raw if isinstance(stream, _Printable) else stream
        self.commands_are_ours = commands_are_ours
        self._blank = True

    def write(self, text: str) -> int:
        from .errors import printable

        text = printable(text, newlines=True)
        if not self.commands_are_ours:
            text = self._no_command_lines(text)
        return self.raw.write(text)

    def _no_command_lines(self, text: str) -> str:
        lines = text.split("\n")
        for index, line in enumerate(lines):
            if index == 0 and not self._blank:
                continue
            body = line.lstrip()
            if body.startswith(":"):
                lines[index] = line[: len(line) - len(body)] + "\\x3a" + body[1:]
        self._blank = (self._blank or len(lines) > 1) and not lines[-1].strip()
        return "\n".join(lines)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def _printable(stream: TextIO, *, commands_are_ours: bool = False, kind: type[_Printable] | None = None) -> TextIO:
    """``stream`` behind a :class:`_Printable` (or ``kind``), typed as the text stream it stands for."""
    return (kind or _Printable)(stream, commands_are_ours=commands_are_ours)  # type: ignore[return-value]  # a duck-typed TextIO


def _command_named(argv: list[str]) -> str:
    """The command the arguments name (the first one not an option: the top level takes no values), or ''
    when there is none or the top level's own --help comes first (it lists every command)."""
    for arg in argv:
        if arg in ("-h", "--help"):
            return ""
        if not arg.startswith("-"):
            return arg
    return ""


def _wants_github(argv: list[str]) -> bool:
    """Did the user ask for GitHub annotations (so that errors come as annotations too)?"""
    if "--format=github" in argv:
        return True
    return any(arg == "--format" and argv[index + 1] == "github" for index, arg in enumerate(argv[:-1]))


def _wants_json(argv: list[str]) -> bool:
    """Did the user ask for JSON (so that errors come as JSON too)?"""
    if "--json" in argv or "--format=json" in argv:
        return True
    return any(arg == "--format" and following == "json" for arg, following in zip(argv, argv[1:]))


def _fail(error: BaseException, code: int, as_json: bool, stdout: TextIO, stderr: TextIO) -> int:
    """Report a user error as text on stderr and, when JSON was asked for, as a JSON document on stdout."""
    from . import results

    if as_json:
        _print_json(results.error(error, code), stdout)
    if code == 130:
        print("wartable: interrupted", file=stderr)
    elif isinstance(stderr, _GitHubErrors):
        stderr.annotate(error)
    else:
        print(error.format(), file=stderr)  # type: ignore[attr-defined]
    return code


def _raw(stream: TextIO) -> TextIO:
    """The stream under a ``_Printable``: for the progress lines, whose carriage returns are ours."""
    return stream.raw if isinstance(stream, _Printable) else stream


class _GitHubErrors(_Printable):
    """stderr under ``--format github``: a user error comes as ``::error`` annotations.

    The Actions runner reads every line of stderr too as a possible workflow
    command (``::add-mask::``, ``::stop-commands::``); a ruleset that fails to
    load would have its lines echoed there.  Annotations escape line breaks,
    so no user text starts a line.
    """

    def annotate(self, error: BaseException) -> None:
        from . import results
        from .reporters import github_annotation

        for diagnostic in getattr(error, "diagnostics", ()):
            print(github_annotation(results.diagnostic(diagnostic), "wartable"), file=self)


def _output_format(args) -> str:
    return "json" if getattr(args, "json", False) else getattr(args, "format", "text")


def _print_json(document: Any, stdout: TextIO) -> None:
    from .reporters import to_json

    print(to_json(document), file=stdout)


# ---- commands -------------------------------------------------------------------------


def _base_paths(args, command_line: CommandLine) -> list[str]:
    """Folders (or files) the user allows a variant's extends: to reach outside its own folder."""
    return list(getattr(args, "base_paths", None) or [])


def _load(name: str, command_line: CommandLine, args):
    from .loader import load_ruleset

    try:
        return load_ruleset(name, base_paths=_base_paths(args, command_line))
    except UsageError as error:
        index = command_line.find(name)
        raise command_line.error(index, error.diagnostics[0].message) from None


def _check(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .aid import aid_problems
    from .loader import load_ruleset
    from .render import text_check_entry
    from .reporters import github_check, junit_check
    from .resources import bundled_names

    output = _output_format(args)
    names = args.rulesets or bundled_names()
    entries = []
    for name in names:
        try:
            ruleset = load_ruleset(name, base_paths=_base_paths(args, command_line))
            problems = aid_problems(ruleset)
            if problems:
                raise RulesetError(problems)
        except UsageError as error:
            raise command_line.error(command_line.find(name), error.diagnostics[0].message) from None
        except RulesetError as error:
            entry = results.check_failed(name, error.diagnostics)
            entries.append(entry)
            if output == "text":
                print(error.format(), file=stderr)
                print(text_check_entry(entry), file=stderr)
            continue
        entry = results.check_passed(ruleset, name)
        entries.append(entry)
        if output == "text":
            print(text_check_entry(entry), file=stdout)
    document = results.check_report(entries)
    if output == "json":
        _print_json(document, stdout)
    elif output == "github":
        print(github_check(document), file=stdout)
    elif output == "junit":
        print(junit_check(document), file=stdout)
    return 0 if document["ok"] else 1


def _test(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .examples import run_example
    from .limits import Budget
    from .render import text_diagnostic, text_example, text_test_summary
    from .reporters import github_test, junit_test
    from .resources import bundled_names

    output = _output_format(args)
    names = args.rulesets or bundled_names()
    limits = _limits(args, command_line)
    # every ruleset loaded first: the timeout, one for all the examples (see examples.py), is for
    # running them, not for reading files (loading has budgets of its own)
    rulesets = [_load(name, command_line, args) for name in names]
    budget = Budget(limits)
    examples = []
    for ruleset in rulesets:
        for example in ruleset.examples:  # one at a time: what ran is printed if the time runs out
            result = run_example(ruleset, example, budget=budget)
            entry = results.example_result(ruleset, result)
            examples.append(entry)
            if output == "text":
                print(text_example(entry), file=stdout)
                for problem in entry["problems"]:
                    print(text_diagnostic(problem), file=stderr)
    document = results.test_report(examples)
    if output == "text":
        print(text_test_summary(document), file=stdout)
    elif output == "json":
        _print_json(document, stdout)
    elif output == "github":
        print(github_test(document), file=stdout)
    else:
        print(junit_test(document), file=stdout)
    return 0 if document["ok"] else 1


def _list(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .render import text_listing

    document = results.listing(_load(args.ruleset, command_line, args))
    if args.json:
        _print_json(document, stdout)
    else:
        print(text_listing(document), file=stdout)
    return 0


def _show(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .render import text_modifiers, text_procedure, text_table

    ruleset = _load(args.ruleset, command_line, args)
    if args.code is not None:
        from .engine import show_code

        return show_code(ruleset, args.name, args.code, command_line, stdout)
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
        _print_json(document, stdout)
    else:
        print(text(document), file=stdout)
    return 0


def _run(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .api import resolve
    from .dice import DiceScriptError
    from .render import text_resolution

    ruleset = _load(args.ruleset, command_line, args)
    procedure = _procedure(ruleset, args.procedure, command_line)
    inputs = _gather_inputs(procedure, args, command_line, ruleset=ruleset, stderr=stderr)
    choices = _gather_choices(procedure, args, command_line, ruleset)
    seed = _parse_seed(args.seed, command_line) if args.seed is not None else None
    dice = _parse_dice(args.dice, command_line) if args.dice is not None else None
    limits = _limits(args, command_line)
    by = _parse_by(args.by, procedure, command_line)
    digits = _parse_digits(args.digits, command_line)
    if args.n is not None:
        trials = _parse_count(args.n, "--n", command_line)
        if trials > limits.max_trials:
            index = command_line.find(args.n, "--n")
            raise command_line.error(index, f"--n: at most {limits.max_trials:,} trials in one run", _offset(command_line, index, args.n))
        if dice is not None:
            raise command_line.error(command_line.find(args.dice, "--dice"), "--n draws its own dice: give --seed, not --dice")
        return _monte_carlo(ruleset, args, inputs, choices, seed, trials, stdout, stderr, limits, by, digits)
    for flag, value in (("--by", args.by), ("--digits", args.digits)):
        if value is not None:
            raise command_line.error(command_line.find(value, flag), f"{flag} summarises many plays: give --n TRIALS too")
    try:
        resolution = resolve(ruleset, args.procedure, inputs, seed=seed, dice=dice, choices=choices, limits=limits)
    except DiceScriptError as error:
        index = command_line.find(args.dice, "--dice")
        offset = _dice_offset(args.dice, error.index) if error.index is not None else 0
        if index is not None:
            offset += command_line.offset_in(index, args.dice)
        raise command_line.error(index, error.message, offset) from None
    document = results.resolution(resolution)
    if args.json:
        _print_json(document, stdout)
    else:
        print(text_resolution(document, full_trace=args.trace, provenance=args.provenance), file=stdout)
    if resolution.unused_dice and not args.json:
        print(f"note: {resolution.unused_dice} scripted dice were not used", file=stderr)
    return 0


def _work_progress(stderr: TextIO) -> Callable[[int], None]:
    """A progress line for exact odds (whose total work is unknown): time and work so far, twice a second."""
    import time

    start = time.monotonic()
    shown = [start]

    def progress(work: int) -> None:
        now = time.monotonic()
        if now - shown[0] >= 0.5:
            shown[0] = now
            print(f"\rexact odds: {now - start:5.1f} s, {work:,} units of work (Ctrl-C stops)", end="", file=_raw(stderr), flush=True)

    return progress


def _monte_carlo(ruleset, args, inputs, choices, seed, trials, stdout: TextIO, stderr: TextIO, limits, by, digits) -> int:
    from . import results
    from .api import monte_carlo
    from .render import text_sample

    show_progress = trials >= 10_000 and stderr.isatty()

    def progress(done: int, total: int) -> None:
        print(f"\r{done * 100 // total:3d}% of {total} trials", end="", file=_raw(stderr), flush=True)

    try:
        sample = monte_carlo(ruleset, args.procedure, inputs, trials=trials, seed=seed, choices=choices, progress=progress if show_progress else None, limits=limits)
    finally:  # a breach (the timeout) is printed on a clean line
        if show_progress:
            print("\r" + " " * 40 + "\r", end="", file=_raw(stderr))
    document = results.sample(sample, by=by, digits=digits)
    if args.json:
        _print_json(document, stdout)
    else:
        print(text_sample(document, digits=digits), file=stdout)
    return 0


def _odds(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from . import results
    from .api import odds_by_choice
    from .render import text_distribution

    ruleset = _load(args.ruleset, command_line, args)
    procedure = _procedure(ruleset, args.procedure, command_line)
    inputs = _gather_inputs(procedure, args, command_line, ruleset=ruleset, stderr=stderr)
    choices = _gather_choices(procedure, args, command_line, ruleset)
    by = _parse_by(args.by, procedure, command_line)
    digits = _parse_digits(args.digits, command_line)
    if args.what_if:
        return _what_if(ruleset, args, inputs, choices, command_line, stdout)
    found = odds_by_choice(ruleset, args.procedure, inputs, choices=choices, limits=_limits(args, command_line),
                           progress=_work_progress(stderr) if stderr.isatty() else None)
    if stderr.isatty():
        print("\r" + " " * 60 + "\r", end="", file=_raw(stderr), flush=True)
    open_names = [name for name in found[0][0] if name not in choices] if len(found) > 1 else []
    if args.json:
        # The top-level distribution follows the choices given (defaults for the rest);
        # with open choices, by_choice holds one distribution per combination.
        from .api import reachable_choices

        defaults = {c.name: c.default for c in reachable_choices(ruleset, args.procedure)}
        document = results.distribution(
            next(d for chosen, d in found if all(chosen[name] == defaults[name] for name in open_names)), by=by, digits=digits
        )
        if open_names:
            document["by_choice"] = [
                {"choices": chosen, **{k: v for k, v in results.distribution(d, by=by, digits=digits).items() if k in ("outcomes", "truncated", "means", "marginal")}}
                for chosen, d in found
            ]
        _print_json(document, stdout)
        return 0
    for index, (chosen, distribution) in enumerate(found):
        if index:
            print(file=stdout)
        if open_names:
            print("with " + ", ".join(f"{name} = {chosen[name]}" for name in open_names) + ":", file=stdout)
        print(text_distribution(results.distribution(distribution, by=by, digits=digits), digits=digits), file=stdout)
    return 0


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
            raise command_line.error(index, f"--what-if: {error.message}", _offset(command_line, index, text) + error.offset) from None
    budget = Budget(_limits(args, command_line))
    before = odds(ruleset, args.procedure, inputs, choices=choices, budget=budget)
    after = odds(changed, args.procedure, inputs, choices=choices, budget=budget)
    label = "what-if " + "; ".join(args.what_if)
    _print_odds_changes(before, after, ruleset.name, label, args.json, stdout)
    return 0


def _print_odds_changes(before, after, base_label: str, variant_label: str, as_json: bool, stdout: TextIO, data: list[dict] | None = None) -> None:
    from . import results
    from .diff import odds_changes
    from .render import text_odds_changes

    document = results.odds_changes(odds_changes(before, after), before, base_label, variant_label, data)
    if as_json:
        _print_json(document, stdout)
    else:
        print(text_odds_changes(document), file=stdout)


def _diff(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from .api import odds
    from .diff import changes
    from .limits import Budget
    from .render import text_changes

    base = _load(args.base, command_line, args)
    variant = _load(args.variant, command_line, args)
    found = [change.to_plain() for change in changes(base, variant)]
    listing = {"base": base.name, "variant": variant.name, "changes": found}
    if args.procedure is None:
        if args.json:
            _print_json(listing, stdout)
        else:
            print("\n".join(text_changes(listing)), file=stdout)
        return 0
    base_procedure = _procedure(base, args.procedure, command_line)
    variant_procedure = _procedure(variant, args.procedure, command_line)
    inputs = _gather_inputs(variant_procedure, args, command_line, ruleset=variant, stderr=stderr)
    choices = _gather_choices(variant_procedure, args, command_line, variant)
    base_inputs = {k: v for k, v in inputs.items() if base_procedure.input(k) is not None}
    base_choices = {k: v for k, v in choices.items() if base_procedure.choice(k) is not None}
    budget = Budget(_limits(args, command_line))
    before = odds(base, args.procedure, base_inputs, choices=base_choices, budget=budget)
    after = odds(variant, args.procedure, inputs, choices=choices, budget=budget)
    if not args.json:
        print("\n".join(text_changes(listing)), file=stdout)
        print(file=stdout)
    _print_odds_changes(before, after, base.name, variant.name, args.json, stdout, found)
    return 0


def _sweep(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from .reporters import SWEEP_FORMATS, sweep_doc
    from .sweep import SweepError, parse_dimension, run_sweep

    ruleset = _load(args.ruleset, command_line, args)
    procedure = _procedure(ruleset, args.procedure, command_line)
    if not args.over:
        raise command_line.error(command_line.find(args.procedure), "sweep needs at least one --over NAME=A..B (or NAME=V1,V2,...)")
    dimensions, where = [], []
    for text in args.over:
        index = command_line.find(text, "--over")
        try:
            dimensions.append(parse_dimension(ruleset, args.procedure, text))
        except SweepError as error:
            raise command_line.error(index, f"--over: {error.message}", _offset(command_line, index, text) + error.offset) from None
        where.append(index)
    seen: dict[str, int | None] = {}
    for dimension, index in zip(dimensions, where):
        if dimension.name in seen:
            raise command_line.error(index, f"--over: {dimension.name} is swept twice", _offset(command_line, index, dimension.name))
        seen[dimension.name] = index
    swept = {d.target for d in dimensions if not d.path}
    inputs = _gather_inputs(procedure, args, command_line, provided=swept, ruleset=ruleset, stderr=stderr)
    choices = _gather_choices(procedure, args, command_line, ruleset)
    for dimension, index in zip(dimensions, where):
        if dimension.is_choice and dimension.target in choices:
            raise command_line.error(index, f"--over: the choice {dimension.target} is fixed by --choose: sweep it or fix it, not both")
    by = _parse_by(args.by, procedure, command_line) or ("outcome",)
    digits = _parse_digits(args.digits, command_line)
    try:
        result = run_sweep(ruleset, args.procedure, dimensions, inputs, choices=choices, by=by, limits=_limits(args, command_line))
    except SweepError as error:
        index = next((i for d, i in zip(dimensions, where) if error.message.startswith(d.name)), where[0])
        raise command_line.error(index, f"--over: {error.message}") from None
    document = sweep_doc(result, digits)
    output = _output_format(args)
    if output == "json":
        _print_json(document, stdout)
    else:
        print(SWEEP_FORMATS[output](document, digits), file=stdout)
    return 0


def _aid(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from pathlib import Path

    from .aid import player_aid

    ruleset = _load(args.ruleset, command_line, args)
    if args.output:
        _refuse_to_overwrite_input(args, command_line)
    page, summary = player_aid(ruleset, limits=_limits(args, command_line))
    if args.output:
        path = Path(args.output)
        try:
            path.write_text(page, encoding="utf-8")
        except OSError as error:
            raise command_line.error(_output_index(args.output, command_line), f"cannot write {_shorten(args.output)}: {error.strerror or error}") from None
        summary = {"output": str(path), "bytes": len(page.encode("utf-8")), **summary}
        if args.json:
            _print_json(summary, stdout)
        else:
            print(f"wrote {path}: {_plural(summary['tables'], 'table')}, {_plural(summary['heat_maps'], 'heat map')}", file=stdout)
    elif args.json:
        _print_json({"output": None, "html": page, **summary}, stdout)
    else:
        stdout.write(page)
    return 0


def _output_index(output: str, command_line: CommandLine) -> int | None:
    return command_line.find(output, "-o") or command_line.find(output, "--output") or command_line.find(output)


def _refuse_to_overwrite_input(args, command_line: CommandLine) -> None:
    """``-o`` must not name a file the ruleset is read from (itself, an include, a base), by any
    name: a symbolic link or a hard link to it is the same file (os.path.samefile)."""
    import os

    from .files import display_name
    from .loader import files_read

    output = args.output
    try:
        if not os.path.exists(output):
            return  # a file not there yet is none of the ruleset's
        for read in files_read(args.ruleset, base_paths=_base_paths(args, command_line)):
            if os.path.samefile(output, read):
                index, shown = _output_index(output, command_line), display_name(read)
                raise command_line.error(
                    index, f"-o {_shorten(output)}: the ruleset is read from this file ({shown[:120]}): write the page elsewhere",
                    _offset(command_line, index, output),
                )
    except (OSError, ValueError):
        return  # an output path that cannot be looked at is reported when it is written


def _schema(args, command_line: CommandLine, stdout: TextIO, stderr: TextIO) -> int:
    from .resources import data_dir

    # The files themselves, byte for byte: what an editor would read from the package.
    name = "fragment.schema.json" if args.fragment else "ruleset.schema.json"
    text = (data_dir("schemas") / name).read_text(encoding="utf-8")
    stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _parse_by(text: str | None, procedure, command_line: CommandLine) -> tuple[str, ...] | None:
    """--by FIELD,…: the outcome's name (``outcome``) or fields its outcomes carry."""
    if text is None:
        return None
    index = command_line.find(text, "--by")
    base = _offset(command_line, index, text)
    outcome_type = getattr(procedure, "outcome_type", None)
    known = ["outcome"] + [name for name, _ in getattr(outcome_type, "fields", ())]
    names, position = [], 0
    for part in text.split(","):
        name = part.strip()
        if name not in known:
            raise command_line.error(
                index, f"--by: outcomes of '{procedure.name}' have no field {_shorten(name)!r} (fields: {', '.join(known)})",
                base + position + len(part) - len(part.lstrip()),
            )
        if name in names:
            raise command_line.error(index, f"--by: {name} is named twice", base + position)
        names.append(name)
        position += len(part) + 1
    return tuple(names)


MAX_DIGIT_PLACES = 15


def _parse_digits(text: str | None, command_line: CommandLine) -> int | None:
    if text is None:
        return None
    digits = _parse_count(text, "--digits", command_line, low=0)
    if digits > MAX_DIGIT_PLACES:
        index = command_line.find(text, "--digits")
        raise command_line.error(index, f"--digits: at most {MAX_DIGIT_PLACES} places (a float holds no more)", _offset(command_line, index, text))
    return digits


# Whole numbers on the command line: no more digits than a 64-bit number has.
MAX_DIGITS = 19


def _parse_count(text: str, flag: str, command_line: CommandLine, *, low: int = 1) -> int:
    index = command_line.find(text, flag)
    stripped = text.strip()
    if not stripped.isdigit() or not stripped.isascii() or len(stripped) > MAX_DIGITS or int(stripped) < low:
        raise command_line.error(
            index, f"{flag} takes a whole number, not {_shorten(text)!r} (at least {low}, at most {MAX_DIGITS} digits)", _offset(command_line, index, text)
        )
    return int(stripped)


def _shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "..."


def _limits(args, command_line: CommandLine):
    """The budgets for this command: defaults, with what --max-work, --max-states and --timeout change."""
    import dataclasses

    from .limits import Limits

    changes: dict[str, Any] = {}
    for flag, field in (("--max-work", "max_work"), ("--max-states", "max_states")):
        text = getattr(args, field, None)
        if text is not None:
            changes[field] = _parse_count(text, flag, command_line, low=0) or None
    text = getattr(args, "timeout", None)
    if text is not None:
        index = command_line.find(text, "--timeout")
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds < 10**9:  # NaN fails this too
            raise command_line.error(index, f"--timeout takes a number of seconds (0: no limit), not {_shorten(text)!r}", _offset(command_line, index, text))
        changes["timeout"] = seconds or None
    return dataclasses.replace(Limits(), **changes)


# ---- argument values -----------------------------------------------------------------------


def _procedure(ruleset, name: str, command_line: CommandLine):
    compiled = ruleset.compiled.get(name)
    if compiled is None:
        names = ", ".join(sorted(ruleset.compiled)) or "none"
        raise command_line.error(command_line.find(name), f"ruleset '{ruleset.name}' has no procedure '{name}' (procedures: {names})")
    return compiled


def _split_assignment(text: str, flag: str, command_line: CommandLine) -> tuple[str, str, int | None]:
    index = command_line.find(text, flag)
    if "=" not in text:
        raise command_line.error(index, f"{flag} takes NAME=VALUE, not {text!r}")
    name, value = text.split("=", 1)
    return name.strip(), value, index


def _gather_inputs(
    procedure, args, command_line: CommandLine, provided: set[str] | frozenset[str] = frozenset(), *, ruleset=None, stderr: TextIO | None = None
) -> dict[str, Any]:
    from .inputs import CoercionError, coerce, parse_command_line_value
    from .values import BoolType, IntType, StrType

    inputs: dict[str, Any] = {}
    if args.situation:
        situation, warnings = _situation(procedure, args.situation, command_line, ruleset)
        inputs.update(situation)
        for warning in warnings:
            if stderr is not None:
                print(warning.format(), file=stderr)
    for text in args.assignments:
        name, value, index = _split_assignment(text, "--set", command_line)
        spec = procedure.input(name)
        if spec is None:
            known = ", ".join(s.name for s in procedure.inputs) or "none"
            raise command_line.error(index, f"procedure '{procedure.name}' has no input '{name}' (inputs: {known})", _offset(command_line, index, name))
        value_offset = _offset(command_line, index, text) + len(name) + 1
        loaded = None
        try:
            if isinstance(spec.type, (BoolType, IntType, StrType)):
                parsed = parse_command_line_value(value, spec.type)
            else:
                loaded = _yaml_value(value, command_line, index, value_offset)
                parsed = loaded.data
            inputs[name] = coerce(parsed, spec.type, f"input '{name}'")
        except CoercionError as error:
            inner = loaded.mark(error.path).column - 1 if loaded is not None else 0
            raise command_line.error(index, f"--set {name}: {error.message}", value_offset + inner) from None
    missing = [spec for spec in procedure.inputs if spec.required and spec.name not in inputs and spec.name not in provided]
    if missing:
        index = command_line.find(args.procedure)
        raise UsageError([
            command_line.error(index, f"input '{spec.name}' is required ({spec.type.describe()}): give --set {spec.name}=... or --situation FILE.yaml").diagnostics[0]
            for spec in missing
        ])
    return inputs


def _unknown_input(procedure, name: str, elsewhere: set[str]) -> str:
    """The message for a situation key that no procedure of the ruleset uses, with the closest input."""
    import difflib

    names = [s.name for s in procedure.inputs]
    close = difflib.get_close_matches(name, names + sorted(elsewhere), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f" (inputs: {', '.join(names) or 'none'})"
    return f"procedure '{procedure.name}' has no input '{name}'{hint}"


def _offset(command_line: CommandLine, index: int | None, text: str) -> int:
    return command_line.offset_in(index, text) if index is not None else 0


def _yaml_value(text: str, command_line: CommandLine, index: int | None, offset: int) -> Any:
    from .yaml_loader import load_yaml

    try:
        return load_yaml(Source(COMMAND_LINE, text))
    except RulesetError as error:
        first = error.diagnostics[0]
        raise command_line.error(index, first.message, offset + first.column - 1) from None


def _gather_choices(procedure, args, command_line: CommandLine, ruleset) -> dict[str, str]:
    """--choose values, for the procedure's choices and those of the procedures it resolves."""
    from .api import choice_problems

    choices = {}
    for text in args.chosen:
        name, value, index = _split_assignment(text, "--choose", command_line)
        for _, at_name, message in choice_problems(ruleset, procedure.name, {name: value}):
            offset = _offset(command_line, index, name) if at_name else _offset(command_line, index, text) + len(name) + 1
            raise command_line.error(index, message, offset)
        choices[name] = value
    return choices


def _situation(procedure, path_text: str, command_line: CommandLine, ruleset=None) -> tuple[dict[str, Any], list]:
    """The inputs a situation file gives this procedure, and warnings for the keys it leaves to other steps.

    One situation file serves every step of a mission: a key that names an
    input of another procedure of the ruleset is left for that step (a
    warning); a key that names no input anywhere is a mistake (an error,
    with the closest input's name).
    """
    import functools
    from pathlib import Path

    from .inputs import CoercionError, coerce
    from .load_limits import DEFAULT_LOAD_LIMITS
    from .loader import read_source
    from .yaml_loader import load_yaml

    path = Path(path_text)
    index = command_line.find(path_text, "--situation")
    try:
        if not path.is_file():
            raise command_line.error(index, f"no such file: {_shorten(path_text)}")
        loaded = load_yaml(read_source(path))
    except OSError as error:
        raise command_line.error(index, f"cannot read {_shorten(path_text)}: {error.strerror or error}") from None
    except RulesetError as error:  # a bad situation file is a bad command-line value: exit 2
        raise UsageError(error.diagnostics) from None
    if not isinstance(loaded.data, dict):
        raise UsageError(loaded.diagnostic((), "a situation file is a mapping of input names to values"))
    inputs: dict[str, Any] = {}
    problems: list[tuple[tuple, str, bool]] = []  # (path, message, at the key?), made into diagnostics once capped
    warnings = []
    choice_names = {c.name for c in procedure.choices}
    elsewhere = {spec.name for other in (ruleset.compiled.values() if ruleset is not None else ()) for spec in other.inputs}
    # Capped as a ruleset's YAML and schema problems are (10,000 unknown keys printed 1.4 MB): past the
    # cap, problems are counted, not worded (wording an unknown key looks for the closest name).
    cap = DEFAULT_LOAD_LIMITS.max_diagnostics
    more, first_left_out = 0, None

    def problem(path: tuple, message: str | Callable[[], str], at_key: bool) -> None:
        nonlocal more, first_left_out
        if len(problems) < cap:
            problems.append((path, message if isinstance(message, str) else message(), at_key))
        else:
            more += 1
            first_left_out = first_left_out or path

    for name, value in loaded.data.items():
        spec = procedure.input(name)
        if spec is None:
            if name in choice_names:
                problem((name,), f"'{name}' is a choice: give it with --choose {name}=OPTION", True)
            elif name in elsewhere:
                warning = loaded.diagnostic((name,), f"warning: procedure '{procedure.name}' does not use '{name}' (another step does); ignored", at_key=True)
                warnings.append(warning)
            else:
                problem((name,), functools.partial(_unknown_input, procedure, name, elsewhere), True)
            continue
        try:
            inputs[name] = coerce(value, spec.type, f"input '{name}'")
        except CoercionError as error:
            problem((name,) + error.path, error.message, error.at_key)
    if more:
        problems.append((first_left_out, f"... and {more:,} more problems in this situation file (the first {cap} are shown)", True))
    if problems:
        raise UsageError([loaded.diagnostic(path, message, at_key=at_key) for path, message, at_key in problems])
    return inputs, warnings


def _parse_seed(text: str, command_line: CommandLine) -> int:
    return _parse_count(text, "--seed", command_line, low=0)


def _parse_dice(text: str, command_line: CommandLine) -> tuple[int, ...]:
    index = command_line.find(text, "--dice")
    base = _offset(command_line, index, text)
    faces = []
    position = 0
    for part in text.split(","):
        stripped = part.strip()
        if not stripped.isdigit() or not stripped.isascii() or len(stripped) > MAX_DIGITS:
            raise command_line.error(index, f"--dice takes die faces separated by commas, such as 4,2,6; {_shorten(part)!r} is not a face", base + position)
        faces.append(int(stripped))
        position += len(part) + 1
    return tuple(faces)


def _dice_offset(text: str, die_index: int) -> int:
    parts = text.split(",")
    return sum(len(p) + 1 for p in parts[:die_index])


def console_main() -> None:  # pragma: no cover - the console-script entry point
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``wartable list eto | head``): not an error of ours.
        # Point stdout at devnull so the interpreter's final flush stays quiet.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    sys.exit(code)
