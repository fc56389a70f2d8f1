"""Shell completion: ``wartable completion bash|zsh|fish`` prints a script; the script asks
``wartable completion --complete SHELL LINE`` for the words that may come next.

One implementation for the three shells: the scripts only hand over the line up
to the cursor and add what comes back.  The candidates come from the same
parser the command runs with (commands, options, their fixed choices), from the
bundled rulesets and the files on disk (RULESET, --situation, -o), and from
the ruleset named on the line (its procedures; its tables for ``show``; the
procedure's inputs after ``--set``, its choices and their options after
``--choose``; its outcome fields after ``--by``).

Completion never prints an error: a line it cannot read, a ruleset that does
not load, completes to nothing (a shell prints whatever the program writes).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - for type checkers
    from .compiled_ruleset import CompiledRuleset
    from .ir import CompiledProcedure

SHELLS = ("bash", "zsh", "fish")

# bash splits COMP_WORDS at these (COMP_WORDBREAKS): a candidate for "--set zones=1" must be
# written from just after the last one, or bash doubles the text before it.
_BASH_BREAKS = "=:"

_SCRIPTS = {
    "bash": """\
# wartable completion for bash: eval "$(wartable completion bash)" (e.g. in ~/.bashrc)
_wartable_complete() {
    local IFS=$'\\n'
    local line="${COMP_LINE:0:COMP_POINT}"
    COMPREPLY=($(command wartable completion --complete bash "$line" 2>/dev/null))
    local candidate
    for candidate in "${COMPREPLY[@]}"; do
        case "$candidate" in
            */|*=) compopt -o nospace 2>/dev/null; break ;;
        esac
    done
}
complete -F _wartable_complete wartable
""",
    "zsh": """\
#compdef wartable
# wartable completion for zsh: eval "$(wartable completion zsh)" (e.g. in ~/.zshrc, after compinit)
_wartable_complete() {
    local -a words_done words_open
    local candidate
    for candidate in "${(@f)$(command wartable completion --complete zsh "$LBUFFER" 2>/dev/null)}"; do
        [[ -z "$candidate" ]] && continue
        if [[ "$candidate" == */ || "$candidate" == *= ]]; then
            words_open+=("$candidate")
        else
            words_done+=("$candidate")
        fi
    done
    (( ${#words_done} )) && compadd -Q -- "${words_done[@]}"
    (( ${#words_open} )) && compadd -Q -S '' -- "${words_open[@]}"
    return 0
}
compdef _wartable_complete wartable
""",
    "fish": """\
# wartable completion for fish: wartable completion fish | source (e.g. in ~/.config/fish/config.fish)
complete -c wartable -f -a '(command wartable completion --complete fish (commandline -cp))'
""",
}


def script(shell: str) -> str:
    """The completion script for ``shell`` (one of :data:`SHELLS`)."""
    return _SCRIPTS[shell]


@dataclass(frozen=True)
class _Line:
    """The words before the cursor and the one being typed (empty after a space)."""

    done: tuple[str, ...]
    current: str


def _split(line: str) -> _Line | None:
    """The line as the shell will pass it: quotes removed; None when it cannot be read."""
    try:
        words = shlex.split(line)
    except ValueError:  # an open quote: complete the word without its quote
        try:
            words = shlex.split(line + '"')
        except ValueError:
            try:
                words = shlex.split(line + "'")
            except ValueError:
                return None
    if not words:
        return None
    if line and not line[-1].isspace():
        return _Line(tuple(words[:-1]), words[-1])
    return _Line(tuple(words), "")


@dataclass(frozen=True)
class CommandLineShape:
    """What the command line is made of: the commands, and each one's parser (from ``cli``, which imports this module)."""

    commands: tuple[str, ...]
    parser_of: Callable[[str], argparse.ArgumentParser]  # the whole parser, with only that command's options made


def complete(shell: str, line: str, shape: CommandLineShape, cwd: Path | None = None) -> list[str]:
    """The words that may replace the one being typed at the end of ``line`` (the line up to the cursor)."""
    read = _split(line)
    if read is None:
        return []
    found = sorted(set(_candidates(read, shape, cwd or Path.cwd())))
    found = [word for word in found if word.startswith(read.current)]
    if shell == "bash":
        cut = max(read.current.rfind(ch) for ch in _BASH_BREAKS) + 1
        found = [word[cut:] for word in found]
    return [_as_typed(word, shell) for word in found if _can_be_typed(word)]


def _can_be_typed(word: str) -> bool:
    """Whether the shell can be handed ``word`` as it is: not a name holding a newline (the candidates are one a line)
    or a character the output guard escapes (its ``\\x1b`` would name another file)."""
    from .errors import printable

    return "\n" not in word and printable(word) == word


# What bash and zsh insert as they are: anything else in a candidate (a file name such as "$(touch x).yaml" or
# "my game.yaml") is escaped with a backslash, as their own file completion does, so that Enter runs no command
# substitution and passes one argument. fish escapes what it inserts itself.
_UNQUOTED = re.compile(r"[^\w@%+=:,./~-]")


def _as_typed(word: str, shell: str) -> str:
    return word if shell == "fish" else _UNQUOTED.sub(lambda match: "\\" + match.group(), word)


def _candidates(read: _Line, shape: CommandLineShape, cwd: Path) -> Iterable[str]:
    args = read.done[1:]  # without the program's name
    command = next((word for word in args if not word.startswith("-")), None)
    if command is None:
        return ["--help", "--version"] if read.current.startswith("-") else list(shape.commands)
    if command not in shape.commands:
        return []
    parser = _subparser(shape.parser_of(command), command)
    after = args[args.index(command) + 1:]
    options = {name: action for action in parser._actions for name in action.option_strings}
    if after and after[-1] in options and _takes_value(options[after[-1]]):
        given = _positionals(after[:-1], options)
        return _option_values(after[-1], options[after[-1]], _Named(command, tuple(given), cwd), read.current, cwd)
    if read.current.startswith("-"):
        return list(options)
    return _positional_values(command, _positionals(after, options), read.current, cwd)


@dataclass(frozen=True)
class _Named:
    """The command on the line and the positional words given to it so far."""

    command: str
    given: tuple[str, ...]
    cwd: Path

    def procedure(self) -> CompiledProcedure | None:
        """The compiled procedure the line names (RULESET PROCEDURE; diff: BASE VARIANT PROCEDURE, the variant's)."""
        words = self.given[1:] if self.command == "diff" else self.given
        if len(words) < 2:
            return None
        ruleset = _load(words[0], self.cwd)
        return None if ruleset is None else ruleset.compiled.get(words[1])


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    raise LookupError(command)  # pragma: no cover - every command has a parser


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0 and not isinstance(action, (argparse._StoreTrueAction, argparse._HelpAction))


def _positionals(after: tuple[str, ...], options: dict[str, argparse.Action]) -> list[str]:
    """The positional words already given after the command (option values skipped)."""
    found: list[str] = []
    skip = False
    for word in after:
        if skip:
            skip = False
        elif word.startswith("-"):
            action = options.get(word.split("=", 1)[0])
            skip = action is not None and _takes_value(action) and "=" not in word and action.nargs != "?"
        else:
            found.append(word)
    return found


def _positional_values(command: str, given: list[str], current: str, cwd: Path) -> list[str]:
    if command in ("check", "test"):
        return _rulesets(current, cwd)
    if command == "schema":
        return []
    first_ruleset_slots = 2 if command == "diff" else 1
    if len(given) < first_ruleset_slots:
        return _rulesets(current, cwd)
    if len(given) == first_ruleset_slots:
        ruleset = _load(given[first_ruleset_slots - 1], cwd)
        if ruleset is None:
            return []
        if command == "show":
            return [*ruleset.tables, *ruleset.modifiers, *ruleset.procedures]
        if command in ("run", "odds", "sweep", "diff"):
            return list(ruleset.compiled)
    return []


def _option_values(option: str, action: argparse.Action, named: _Named, current: str, cwd: Path) -> list[str]:
    if action.choices:
        return [str(choice) for choice in action.choices]
    if option == "--situation":
        return _paths(current, cwd, (".yaml", ".yml"))
    if option in ("-o", "--output", "--base-path"):
        return _paths(current, cwd, None)
    if option in ("--set", "--choose", "--by", "--over"):
        procedure = named.procedure()
        return [] if procedure is None else _procedure_words(option, procedure, current)
    return []


def _procedure_words(option: str, procedure: CompiledProcedure, current: str) -> list[str]:
    if option == "--choose":
        name, equals, _ = current.partition("=")
        choices = {choice.name: choice for choice in procedure.choices}
        if equals and name in choices:
            return [f"{name}={option_}" for option_ in choices[name].options]
        return [f"{name_}=" for name_ in choices]
    if option == "--by":
        outcome_type = getattr(procedure, "outcome_type", None)  # absent when the outcomes carry different fields
        return ["outcome", *(name for name, _ in getattr(outcome_type, "fields", ()))]
    return [f"{spec.name}=" for spec in procedure.inputs]


def _rulesets(current: str, cwd: Path) -> list[str]:
    from .resources import bundled_names

    names = [] if "/" in current else bundled_names()
    return names + _paths(current, cwd, (".yaml", ".yml"))


def _paths(current: str, cwd: Path, suffixes: tuple[str, ...] | None) -> list[str]:
    """Folders (with a trailing /) and files under the typed prefix; only ``suffixes`` when given."""
    folder_text, _, _ = current.rpartition("/")
    folder = cwd / os.path.expanduser(folder_text) if folder_text else cwd
    prefix = f"{folder_text}/" if folder_text or current.startswith("/") else ""
    try:
        entries = sorted(folder.iterdir())[:1000]
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.name.startswith(".") and not current.rpartition("/")[2].startswith("."):
            continue
        if entry.is_dir():
            found.append(f"{prefix}{entry.name}/")
        elif suffixes is None or entry.suffix in suffixes:
            found.append(f"{prefix}{entry.name}")
    return found


def _load(name: str, cwd: Path) -> CompiledRuleset | None:
    """The ruleset (a path from ``cwd``, or a bundled name), or None when it does not load (completion stays silent)."""
    from .errors import WartableError
    from .loader import load_ruleset

    path = cwd / os.path.expanduser(name)
    try:
        return load_ruleset(str(path) if path.is_file() else name)
    except (WartableError, OSError, ValueError):
        return None
