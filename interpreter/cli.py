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
import itertools
import json
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms at every start)
if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import TextIO

from .cli_output import GitHubErrors, print_json, printable_stream
from .command_line import COMMAND_LINE, CommandLine
from .errors import Source, UsageError, WartableError


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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    # A run of a known command needs its own parser only; the others are made to be listed (--help) or
    # offered when a command is misspelt.
    names = (command,) if command in COMMANDS else tuple(COMMANDS)
    for name in names:
        help_text, add_options = COMMANDS[name]
        subcommand = sub.add_parser(name, help=help_text, command_line=command_line)
        if command is None or command == name:
            add_options(subcommand)
            subcommand.add_argument(
                "--base-path", action="append", default=[], metavar="DIR", dest="base_paths",
                help="allow a variant's extends: to name a base in DIR, outside the variant's folder (repeatable)",
            )
            subcommand.add_argument(
                "--color", choices=("auto", "always", "never"), default="auto",
                help="colour on a terminal (auto: when the stream is one and NO_COLOR is unset or empty)",
            )
    return parser


def _check_options(check: argparse.ArgumentParser) -> None:
    check.add_argument("rulesets", nargs="*", metavar="RULESET", help="a path or a bundled name")
    check.add_argument("--strict", action="store_true", help="treat the lint warnings (file:line:column: warning: ...) as errors")
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


def _procedure_options(command: argparse.ArgumentParser, *, compared: bool = False, formats: tuple[str, ...] = ()) -> None:
    """What `run`, `odds` and `diff` share: the ruleset and the procedure (``compared``: a base, a variant
    and, optionally, a procedure run under both), its inputs, JSON (or ``formats``, JSON among them), the budgets."""
    if compared:
        command.add_argument("base", metavar="BASE")
        command.add_argument("variant", metavar="VARIANT")
        command.add_argument("procedure", metavar="PROCEDURE", nargs="?")
    else:
        command.add_argument("ruleset", metavar="RULESET")
        command.add_argument("procedure", metavar="PROCEDURE")
    _add_input_options(command)
    if formats:
        _add_format_options(command, formats)
    else:
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
    _add_jobs_option(run, "with --n: worker processes playing the seeded chunks (the same counts for any number)")
    _add_summary_options(run, monte_carlo=True, full=True)


def _odds_options(odds: argparse.ArgumentParser) -> None:
    _procedure_options(odds, formats=("table", "csv", "json", "markdown"))
    odds.add_argument(
        "--what-if", action="append", default=[], metavar="CHANGE", dest="what_if",
        help="compare with a change: LIST+N or LIST-N adds N to a modifier list (DRM, or column shift + right), CONSTANT=VALUE",
    )
    _add_summary_options(odds, monte_carlo=False, full=True)
    odds.add_argument("--auto", action="store_true",
                      help="exact when the estimated state space fits the budget, else Monte Carlo to the standard error --se")
    odds.add_argument("--se", metavar="SE", help="with --auto: sample until every outcome's share has at most this standard error (default 0.005)")
    odds.add_argument("--seed", metavar="N", help="with --auto: the seed it samples with (replays a sampled answer)")
    _add_jobs_option(odds, "with --auto: worker processes playing the seeded chunks when it samples")
    _add_plot_option(odds, "a bar chart of the outcome distribution (or of the --by fields)")


def _add_plot_option(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("--plot", metavar="FILE.svg", help=f"also write {what} to FILE.svg (a self-contained SVG picture)")


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
    sweep.add_argument("--exact", action="store_true",
                       help="with --format csv: probabilities and means as exact fractions (1/6), not decimals (0.16666666666666666)")
    _add_jobs_option(sweep, "worker processes computing the rows (the same results for any number)")
    _add_limit_options(sweep)
    _add_plot_option(sweep, "lines (one --over) or heat maps (two --over) of the outcomes' probabilities")


def _aid_options(aid: argparse.ArgumentParser) -> None:
    aid.add_argument("ruleset", metavar="RULESET")
    aid.add_argument("-o", "--output", metavar="FILE.html", help="where to write the page (default: standard output)")
    aid.add_argument("--card", action="store_true",
                     help="a compact card: odds, tables and modifiers in small print on a page or two; each procedure in one line")
    _add_json_option(aid)
    _add_limit_options(aid)


def _schema_options(schema: argparse.ArgumentParser) -> None:
    which = schema.add_mutually_exclusive_group()
    which.add_argument("--include-fragment", action="store_true", dest="fragment", help="the schema of a file pulled in with include:")
    which.add_argument("--situation", action="store_true", help="the schema of a file given to --situation")
    _add_json_option(schema)


def _diff_options(diff: argparse.ArgumentParser) -> None:
    _procedure_options(diff, compared=True)


def _completion_options(completion: argparse.ArgumentParser) -> None:
    from .completion import SHELLS

    completion.add_argument("shell", nargs="?", choices=SHELLS, help="the shell whose completion script to print")
    # what the printed scripts call at every Tab: the line up to the cursor, after --
    completion.add_argument("--complete", nargs=2, metavar=("SHELL", "LINE"), help=argparse.SUPPRESS)


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
    "completion": ("a Tab-completion script for bash, zsh or fish", _completion_options),
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


def _add_summary_options(command: argparse.ArgumentParser, *, monte_carlo: bool, full: bool = False) -> None:
    """--by and --digits; with ``full``, --full too (``odds`` and ``run --n`` summarise many outcomes)."""
    what = " (with --n)" if monte_carlo else ""
    if full:
        command.add_argument(
            "--full", action="store_true",
            help=f"list every outcome with its fields, however many (by default more than 12 outcomes, or lines wider than 200 characters, are summarised){what}",
        )
    command.add_argument(
        "--by", metavar="FIELD,...",
        help=f"the distribution over these outcome fields only, the rest summed out ('outcome' for the outcome's name){what}",
    )
    command.add_argument("--digits", metavar="N", help=f"decimals only, N places, instead of exact fractions{what}")


def _add_jobs_option(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("--jobs", metavar="J", help=f"{what}; default: this machine's cores")


def _add_limit_options(command: argparse.ArgumentParser) -> None:
    """The budgets a user may raise (see limits.py); 0 lifts one."""
    from .limits import Limits

    defaults = Limits()
    command.add_argument("--max-work", metavar="N", help=f"units of work one computation may spend (default {defaults.max_work:,}; 0: no limit)")
    command.add_argument("--max-states", metavar="N", help=f"states exact odds may hold at once, and distinct outcomes a sample may count (default {defaults.max_states:,}; 0: no limit)")
    command.add_argument("--timeout", metavar="SECONDS", help=f"seconds one command may compute (default {defaults.timeout:g}; 0: no limit)")


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``wartable`` with ``argv`` (the process's arguments when None); the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command_line = CommandLine(argv)
    as_json = _wants_json(argv)
    stdout = _output_stream(stdout or sys.stdout, argv, plain=as_json or _format_named(argv) in ("github", "junit"))
    stderr = _output_stream(stderr or sys.stderr, argv, plain=as_json)
    if _wants_github(argv):
        stdout = printable_stream(stdout, commands_are_ours=True)
        stderr = printable_stream(stderr, commands_are_ours=True, kind=GitHubErrors)
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
        if args.command == "completion":  # at every Tab: no more than it needs
            return _completion(args, command_line, stdout)
        # the commands (and what they import) are loaded once one runs, not for --help
        from . import cli_commands as commands

        handler = {
            "diff": commands.diff_command, "check": commands.check_command, "test": commands.test_command,
            "list": commands.list_command, "show": commands.show_command, "run": commands.run_command,
            "odds": commands.odds_command, "sweep": commands.sweep_command, "aid": commands.aid_command,
            "schema": commands.schema_command,
        }[args.command]
        return handler(args, command_line, stdout, stderr)
    except UsageError as error:
        return _fail(error, 2, as_json, stdout, stderr)
    except WartableError as error:
        return _fail(error, 1, as_json, stdout, stderr)
    except KeyboardInterrupt as interrupt:
        return _fail(interrupt, 130, as_json, stdout, stderr)


def complete_line(shell: str, line: str, cwd: Path | None = None) -> list[str]:
    """What Tab offers at the end of ``line`` in ``shell`` (see completion.py)."""
    from .completion import CommandLineShape, complete

    return complete(shell, line, CommandLineShape(tuple(COMMANDS), lambda command: build_parser(None, command)), cwd)


def _completion(args: argparse.Namespace, command_line: CommandLine, stdout: TextIO) -> int:
    from .completion import script

    if args.complete:
        shell, line = args.complete
        for word in complete_line(shell, line):
            print(word, file=stdout)
        return 0
    if args.shell is None:
        raise command_line.error(None, "completion: name the shell (bash, zsh or fish), e.g. eval \"$(wartable completion bash)\"")
    print(script(args.shell), end="", file=stdout)
    return 0


def _command_named(argv: list[str]) -> str:
    """The command the arguments name (the first one not an option: the top level takes no values), or ''
    when there is none or the top level's own --help comes first (it lists every command)."""
    for arg in argv:
        if arg in ("-h", "--help"):
            return ""
        if not arg.startswith("-"):
            return arg
    return ""


def _output_stream(stream: TextIO, argv: list[str], *, plain: bool) -> TextIO:
    """``stream`` made safe for a terminal, with colour when ``--color`` and the terminal say so (see colour.py)."""
    import os

    from .colour import wanted

    colours = _option_values(argv, "--color")
    choice = colours[-1] if colours else "auto"
    return printable_stream(stream, colour=not plain and wanted(choice, stream, os.environ))


def _option_values(argv: list[str], option: str) -> list[str]:
    """Every value given to ``option`` (``--option VALUE`` or ``--option=VALUE``), in order, read before parsing."""
    found = []
    for arg, following in itertools.pairwise([*argv, ""]):
        if arg == option:
            found.append(following)
        elif arg.startswith(option + "="):
            found.append(arg[len(option) + 1:])
    return found


def _format_named(argv: list[str]) -> str | None:
    """The output format the command will run with (argparse keeps the last ``--format``)."""
    formats = _option_values(argv, "--format")
    return formats[-1] if formats else None


def _wants_github(argv: list[str]) -> bool:
    """Did the user ask for GitHub annotations (so that errors come as annotations too)?"""
    return "github" in _option_values(argv, "--format")


def _wants_json(argv: list[str]) -> bool:
    """Did the user ask for JSON (so that errors come as JSON too)?"""
    return "--json" in argv or "json" in _option_values(argv, "--format")


def _fail(error: BaseException, code: int, as_json: bool, stdout: TextIO, stderr: TextIO) -> int:
    """Report a user error as text on stderr and, when JSON was asked for, as a JSON document on stdout."""
    from . import results

    if as_json:
        print_json(results.error(error, code), stdout)
    if code == 130:
        print("wartable: interrupted", file=stderr)
    elif isinstance(stderr, GitHubErrors):
        stderr.annotate(error)
    else:
        print(error.format(), file=stderr)  # type: ignore[attr-defined]
    return code


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
