"""User-facing errors: every one carries a file, a line and a column.

Two kinds of failure exist in wartable, and they are kept apart on purpose
(as Hy does): a *user error* is something wrong in a ruleset, a situation
file or a command-line value, and is reported as ``file:line:column: message``
with the offending line and a caret, never a traceback.  Anything else is an
internal bug and keeps its traceback.

Positions are 1-based, as editors show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, eq=False)
class Source:
    """A named text (a ruleset file, a situation file, the command line).

    Compared and hashed by identity: two files with the same text are still
    two sources.
    """

    name: str
    text: str = field(repr=False)

    def line_text(self, line: int) -> str:
        lines = self.text.splitlines()
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return ""

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
        shown = self.line_text.replace("\t", " ")
        caret = " " * max(self.column - 1, 0) + "^"
        return f"{head}\n    {shown}\n    {caret}"


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
