"""Values written on the command line: the command as one line (to point a caret at a bad
argument), and the parsing of every option's value (counts, --digits, --by, --dice, budgets).

A bad value is a :class:`~errors.UsageError` positioned on the command line itself:
``<command line>:1:COLUMN``, the column of the offending character.
"""

from __future__ import annotations

import shlex

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms at every start)
if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from . import ir
    from .compiled_ruleset import CompiledRuleset
    from .limits import Limits

from .errors import Source, UsageError

COMMAND_LINE = "<command line>"


class CommandLine:
    """The command as one line, to point a caret at a bad argument."""

    argv: list[str]
    starts: list[int]  # the column where each argument starts on the line
    source: Source

    def __init__(self, argv: Sequence[str]):
        self.argv = list(argv)
        parts = ["wartable"]
        self.starts = []
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

    def find_option(self, flag: str) -> int | None:
        """Index of the last argument naming option ``flag``, whole or abbreviated as argparse takes it (``--prov``)."""
        for index in range(len(self.argv) - 1, -1, -1):
            arg = self.argv[index]
            if arg.startswith("--") and len(arg) > 2 and flag.startswith(arg):
                return index
        return None

    def offset_in(self, index: int, value: str) -> int:
        """Offset of ``value`` inside argument ``index`` (for --flag=value forms)."""
        arg = self.argv[index]
        return arg.find(value) if value in arg else 0


def base_paths(args: argparse.Namespace, command_line: CommandLine) -> list[str]:
    """Folders (or files) the user allows a variant's extends: to reach outside its own folder."""
    return list(getattr(args, "base_paths", None) or [])


def load(name: str, command_line: CommandLine, args: argparse.Namespace) -> CompiledRuleset:
    """The ruleset ``name`` names; a name that names none is an error at that argument."""
    from .loader import load_ruleset

    try:
        return load_ruleset(name, base_paths=base_paths(args, command_line))
    except UsageError as error:
        index = command_line.find(name)
        raise command_line.error(index, error.diagnostics[0].message) from None


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def parse_by(text: str | None, procedure: ir.CheckedProcedure, command_line: CommandLine) -> tuple[str, ...] | None:
    """--by FIELD,…: the outcome's name (``outcome``) or fields its outcomes carry."""
    if text is None:
        return None
    index = command_line.find(text, "--by")
    base = offset_of(command_line, index, text)
    outcome_type = getattr(procedure, "outcome_type", None)
    known = ["outcome"] + [name for name, _ in getattr(outcome_type, "fields", ())]
    names, position = [], 0
    for part in text.split(","):
        name = part.strip()
        if name not in known:
            raise command_line.error(
                index, f"--by: outcomes of '{procedure.name}' have no field {shorten(name)!r} (fields: {', '.join(known)})",
                base + position + len(part) - len(part.lstrip()),
            )
        if name in names:
            raise command_line.error(index, f"--by: {name} is named twice", base + position)
        names.append(name)
        position += len(part) + 1
    return tuple(names)


MAX_DIGIT_PLACES = 15


def parse_digits(text: str | None, command_line: CommandLine) -> int | None:
    if text is None:
        return None
    digits = parse_count(text, "--digits", command_line, low=0)
    if digits > MAX_DIGIT_PLACES:
        index = command_line.find(text, "--digits")
        raise command_line.error(index, f"--digits: at most {MAX_DIGIT_PLACES} places (a float holds no more)", offset_of(command_line, index, text))
    return digits


# Whole numbers on the command line: no more digits than a 64-bit number has.
MAX_DIGITS = 19


def parse_count(text: str, flag: str, command_line: CommandLine, *, low: int = 1) -> int:
    index = command_line.find(text, flag)
    stripped = text.strip()
    if not stripped.isdigit() or not stripped.isascii() or len(stripped) > MAX_DIGITS or int(stripped) < low:
        raise command_line.error(
            index, f"{flag} takes a whole number, not {shorten(text)!r} (at least {low}, at most {MAX_DIGITS} digits)", offset_of(command_line, index, text)
        )
    return int(stripped)


def shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "..."


def limits_of(args: argparse.Namespace, command_line: CommandLine) -> Limits:
    """The budgets for this command: defaults, with what --max-work, --max-states and --timeout change."""
    import dataclasses

    from .limits import Limits

    changes: dict[str, Any] = {}
    for flag, field in (("--max-work", "max_work"), ("--max-states", "max_states")):
        text = getattr(args, field, None)
        if text is not None:
            changes[field] = parse_count(text, flag, command_line, low=0) or None
    text = getattr(args, "timeout", None)
    if text is not None:
        index = command_line.find(text, "--timeout")
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds < 10**9:  # NaN fails this too
            raise command_line.error(index, f"--timeout takes a number of seconds (0: no limit), not {shorten(text)!r}", offset_of(command_line, index, text))
        changes["timeout"] = seconds or None
    return dataclasses.replace(Limits(), **changes)


def procedure_named(ruleset: CompiledRuleset, name: str, command_line: CommandLine) -> ir.CheckedProcedure:
    """The procedure ``name``; a ruleset without it is an error at that argument."""
    compiled = ruleset.compiled.get(name)
    if compiled is None:
        names = ", ".join(sorted(ruleset.compiled)) or "none"
        raise command_line.error(command_line.find(name), f"ruleset '{ruleset.name}' has no procedure '{name}' (procedures: {names})")
    return compiled


def split_assignment(text: str, flag: str, command_line: CommandLine) -> tuple[str, str, int | None]:
    index = command_line.find(text, flag)
    if "=" not in text:
        raise command_line.error(index, f"{flag} takes NAME=VALUE, not {text!r}")
    name, value = text.split("=", 1)
    return name.strip(), value, index


def offset_of(command_line: CommandLine, index: int | None, text: str) -> int:
    return command_line.offset_in(index, text) if index is not None else 0


def parse_jobs(text: str | None, command_line: CommandLine) -> int:
    """``--jobs J``: worker processes, 1 to parallel.MAX_JOBS; the machine's cores when not given."""
    from .parallel import MAX_JOBS, default_jobs

    if text is None:
        return min(default_jobs(), MAX_JOBS)
    jobs = parse_count(text, "--jobs", command_line, low=1)
    if jobs > MAX_JOBS:
        index = command_line.find(text, "--jobs")
        raise command_line.error(index, f"--jobs: at most {MAX_JOBS} worker processes, not {jobs:,}", offset_of(command_line, index, text))
    return jobs


def parse_se(text: str | None, command_line: CommandLine) -> float:
    """``--se SE``: the standard error ``odds --auto`` samples to (estimate.MIN_SE to below 0.5)."""
    from .estimate import DEFAULT_SE, MIN_SE

    if text is None:
        return DEFAULT_SE
    try:
        se = float(text)
    except ValueError:
        se = -1.0
    if not MIN_SE <= se < 0.5:  # NaN fails this too
        index = command_line.find(text, "--se")
        raise command_line.error(index, f"--se takes a standard error from {MIN_SE} to below 0.5 (0.005: ±0.5 points), not {shorten(text)!r}",
                                 offset_of(command_line, index, text))
    return se


def parse_seed(text: str, command_line: CommandLine) -> int:
    return parse_count(text, "--seed", command_line, low=0)


def parse_dice(text: str, command_line: CommandLine) -> tuple[int, ...]:
    index = command_line.find(text, "--dice")
    base = offset_of(command_line, index, text)
    faces = []
    position = 0
    for part in text.split(","):
        stripped = part.strip()
        if not stripped.isdigit() or not stripped.isascii() or len(stripped) > MAX_DIGITS:
            raise command_line.error(index, f"--dice takes die faces separated by commas, such as 4,2,6; {shorten(part)!r} is not a face", base + position)
        faces.append(int(stripped))
        position += len(part) + 1
    return tuple(faces)


def dice_offset(text: str, die_index: int) -> int:
    parts = text.split(",")
    return sum(len(p) + 1 for p in parts[:die_index])
