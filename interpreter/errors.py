"""User-facing errors: every one carries a file, a line and a column.

Two kinds of failure exist in wartable, and they are kept apart on purpose
(as Hy does): a *user error* is something wrong in a ruleset, a situation
file or a command-line value, and is reported as ``file:line:column: message``
with the offending line and a caret, never a traceback.  Anything else is an
internal bug and keeps its traceback.

Positions are 1-based, as editors show them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cached_property

# Line breaks as YAML 1.1 counts them, in PyYAML and libyaml alike: CR LF, CR,
# LF, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR.  Not str.splitlines(), which
# also breaks at \v, \f and \x1c-\x1e: lines must be numbered exactly as the
# YAML parser's marks number them, or every caret after such a character
# points at the wrong line.
LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


@dataclass(frozen=True, eq=False)
class Source:
    """A named text (a ruleset file, a situation file, the command line).

    Compared and hashed by identity: two files with the same text are still
    two sources.  Its lines are split once, on first use, at the line breaks
    YAML counts (:data:`LINE_BREAK`).
    """

    name: str
    text: str = field(repr=False)

    @cached_property
    def lines(self) -> tuple[str, ...]:
        """The text's lines, without their line breaks; ``lines[0]`` is line 1."""
        return tuple(LINE_BREAK.split(self.text))

    @cached_property
    def _line_starts(self) -> tuple[int, ...]:
        return (0,) + tuple(match.end() for match in LINE_BREAK.finditer(self.text))

    def line_text(self, line: int) -> str:
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1]
        return ""

    def position(self, index: int) -> tuple[int, int]:
        """The 1-based (line, column) of character ``index`` of the text."""
        starts = self._line_starts
        line = bisect.bisect_right(starts, max(index, 0))
        return line, index - starts[line - 1] + 1

    def diagnostic(self, line: int, column: int, message: str) -> "Diagnostic":
        return Diagnostic(self.name, line, column, message, self.line_text(line))


@dataclass(frozen=True)
class Diagnostic:
    """One positioned message about user input."""

    file: str
    line: int
    column: int
    message: str
    line_text: str = ""

    def format(self) -> str:
        head = f"{self.file}:{self.line}:{self.column}: {self.message}"
        if not self.line_text:
            return head
        # Tabs would misplace the caret: show them as single spaces.
        shown, caret_at = _window(self.line_text.replace("\t", " "), max(self.column - 1, 0))
        return f"{head}\n    {shown}\n    {' ' * caret_at}^"


# A long line (a minified file, 100,000 nested brackets) is shown as the part
# around the caret, never whole.
SHOWN_LINE_CHARS = 160


def _window(line: str, index: int) -> tuple[str, int]:
    """The part of ``line`` to show around character ``index``, and where the caret goes in it."""
    if len(line) <= SHOWN_LINE_CHARS:
        return line, index
    start = min(max(index - SHOWN_LINE_CHARS // 2, 0), len(line) - SHOWN_LINE_CHARS)
    end = start + SHOWN_LINE_CHARS
    before, after = ("..." if start > 0 else ""), ("..." if end < len(line) else "")
    return before + line[start:end] + after, index - start + len(before)


class WartableError(Exception):
    """A user error: one or more diagnostics.  Never an internal bug."""

    def __init__(self, diagnostics: "list[Diagnostic] | tuple[Diagnostic, ...] | Diagnostic"):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = (diagnostics,)
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))

    def format(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)


class RulesetError(WartableError):
    """The ruleset (YAML, schema, DSL or semantics) is invalid."""


class RuleViolation(WartableError):
    """A procedure's ``require`` failed: the situation breaks a rule."""


class UsageError(WartableError):
    """A bad command-line value, situation file or procedure input."""


@dataclass
class DiagnosticList:
    """Collects diagnostics so a check reports every error, not just the first."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, diagnostic: Diagnostic) -> None:
        self.items.append(diagnostic)

    def extend(self, diagnostics) -> None:
        self.items.extend(diagnostics)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, kind: type[WartableError] = RulesetError) -> None:
        if self.items:
            ordered = sorted(dict.fromkeys(self.items), key=lambda d: (d.file, d.line, d.column))
            raise kind(ordered)
