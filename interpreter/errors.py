"""User-facing errors: every one carries a file, a line and a column.

Two kinds of failure exist in wartable, and they are kept apart on purpose
(as Hy does): a *user error* is something wrong in a ruleset, a situation
file or a command-line value, and is reported as ``file:line:column: message``
with the offending line and a caret, never a traceback.  Anything else is an
internal bug and keeps its traceback.

Positions are 1-based, as editors show them.

The classes here are written out rather than made with ``dataclasses``:
every command imports this module, and ``dataclasses`` (through ``inspect``)
would double what ``wartable --help`` costs to start.
"""

from __future__ import annotations

import bisect
import re
from functools import cached_property

# Line breaks as YAML 1.1 counts them, in PyYAML and libyaml alike: CR LF, CR,
# LF, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR.  Not str.splitlines(), which
# also breaks at \v, \f and \x1c-\x1e: lines must be numbered exactly as the
# YAML parser's marks number them, or every caret after such a character
# points at the wrong line.
LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


class Source:
    """A named text (a ruleset file, a situation file, the command line).

    Compared and hashed by identity: two files with the same text are still
    two sources.  Its lines are split once, on first use, at the line breaks
    YAML counts (:data:`LINE_BREAK`).  Immutable.
    """

    name: str
    text: str

    def __init__(self, name: str, text: str):
        self.__dict__.update(name=name, text=text)

    def __setattr__(self, name, value):
        raise AttributeError(f"Source is immutable: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"Source is immutable: cannot delete {name!r}")

    def __reduce__(self):
        return Source, (self.name, self.text)

    def __repr__(self) -> str:
        return f"Source(name={self.name!r})"

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

    def diagnostic(self, line: int, column: int, message: str) -> Diagnostic:
        return Diagnostic(self.name, line, column, message, self.line_text(line))


class _Value:
    """The hand-written value classes here: immutable, equal and hashed by ``_key()``."""

    __slots__ = ()

    def _key(self) -> tuple:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


class Pos(_Value):
    """Where a piece of text starts: a line and a column (both from 1) of a :class:`Source`.

    Every syntax-tree node, checked statement and error carries one.  Immutable,
    equal and hashed by value (the source by identity, as :class:`Source` is).
    """

    __slots__ = ("column", "line", "source")
    source: Source
    line: int
    column: int

    def __init__(self, source: Source, line: int, column: int):
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "column", column)

    def _key(self) -> tuple:
        return (id(self.source), self.line, self.column)  # the source by identity

    def __reduce__(self):
        return Pos, (self.source, self.line, self.column)

    def __repr__(self) -> str:
        return f"Pos(source={self.source!r}, line={self.line!r}, column={self.column!r})"

    def __str__(self) -> str:
        return f"{self.source.name}:{self.line}:{self.column}"

    def diagnostic(self, message: str) -> Diagnostic:
        return self.source.diagnostic(self.line, self.column, message)


class CopiedPos(Pos):
    """A position in the copy a ``mirror`` makes (mirror.py): the written line's, and a message there says it is
    about the copy (the copy's names are not the ones on that line). Here, beside Pos, so that a checked ruleset
    read from the cache needs neither the parser nor the syntax tree to rebuild it."""

    __slots__ = ("mirror",)
    mirror: str

    def __init__(self, pos: Pos, mirror: str):
        super().__init__(pos.source, pos.line, pos.column)
        object.__setattr__(self, "mirror", mirror)

    def diagnostic(self, message: str) -> Diagnostic:
        return super().diagnostic(f"{message} (in the copy made by `{self.mirror}`)")

    def __reduce__(self):  # the cache keeps a checked ruleset: a run-time error from a cached copy says so too
        return CopiedPos, (Pos(self.source, self.line, self.column), self.mirror)


class Diagnostic(_Value):
    """One positioned message about user input.  Immutable, equal and hashed by value."""

    __slots__ = ("column", "file", "line", "line_text", "message")
    file: str
    line: int
    column: int
    message: str
    line_text: str
    # The constructor's order, which _key, __reduce__ and __repr__ follow (__slots__ is sorted).
    _FIELDS = ("file", "line", "column", "message", "line_text")

    def __init__(self, file: str, line: int, column: int, message: str, line_text: str = ""):
        for name, value in zip(self._FIELDS, (file, line, column, message, line_text)):
            object.__setattr__(self, name, value)

    def _key(self) -> tuple:
        return (self.file, self.line, self.column, self.message, self.line_text)

    def __reduce__(self):
        return Diagnostic, self._key()

    def __repr__(self) -> str:
        return "Diagnostic(" + ", ".join(f"{name}={value!r}" for name, value in zip(self._FIELDS, self._key())) + ")"

    def format(self) -> str:
        return format_diagnostic(self.file, self.line, self.column, self.message, self.line_text)


def format_diagnostic(file: str, line: int, column: int, message: str, line_text: str = "") -> str:
    """``file:line:column: message``, the line and a caret under the column, safe for a terminal.

    The file name, the message and the echoed line come from strangers: they
    go through :func:`printable`, and the caret is placed under the escaped
    line (an ESC shown as ``\\x1b`` is four columns wide, so the caret moves
    with it).
    """
    head = f"{printable(file)}:{line}:{column}: {printable(message)}"
    if not line_text:
        return head
    # Tabs would misplace the caret: show them as single spaces.
    text = line_text.replace("\t", " ")
    index = max(column - 1, 0)
    before = printable(text[:index])
    escaped = before + printable(text[index:])
    shown, caret_at = _window(escaped, len(before) + max(index - len(text), 0))
    return f"{head}\n    {shown}\n    {' ' * caret_at}^"


# What must not reach a terminal raw (see printable): C0 controls but the tab,
# DEL, the C1 controls (0x9b is a one-byte CSI to some terminals), the line and
# paragraph separators, the bidirectional embeddings, overrides and isolates
# (text shown in another order than it reads: "Trojan Source"), lone
# surrogates (a UTF-8 stream refuses them) and the noncharacters U+FFFE and
# U+FFFF (not XML characters).  The newline is a separate choice.
_UNSAFE_PAST_NEWLINE = "\x0b-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff"
_UNSAFE = re.compile(f"[\x00-\x08\x0a{_UNSAFE_PAST_NEWLINE}]")
_UNSAFE_BUT_NEWLINE = re.compile(f"[\x00-\x08{_UNSAFE_PAST_NEWLINE}]")
# The same characters with the tab and the newline: for text that must stay on one line as it is (a chart's label).
CONTROL_CHARACTERS = re.compile(f"[\x00-\x0a{_UNSAFE_PAST_NEWLINE}]")


def _escape_char(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable_json(text: str) -> str:
    """JSON text with every character :func:`printable` would escape written ``\\uNNNN``.

    ``json.dumps(..., ensure_ascii=False)`` escapes the C0 controls only: DEL,
    the C1 controls, U+2028 and the bidirectional overrides stay raw (and a
    lone surrogate cannot be written as UTF-8).  Outside its strings JSON
    holds none of them but the newlines of its indentation, which stay: the
    result is the same JSON document, safe on a terminal.
    """
    if _UNSAFE_BUT_NEWLINE.search(text) is None:
        return text
    return _UNSAFE_BUT_NEWLINE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def printable(text: str, *, newlines: bool = False) -> str:
    """``text`` safe to write to a terminal, a CI log or an XML file: every character of
    :data:`_UNSAFE` shown as ``\\xNN`` or ``\\uNNNN``; tabs kept, newlines kept only when asked.

    Ruleset strings come from strangers: raw, an ESC or an OSC 52 in a table
    title could clear the screen, rewrite a FAIL line or set the clipboard.
    Applied where text leaves the program, never to the data itself.  The
    escapes are plain ASCII, so applying it twice changes nothing.
    """
    pattern = _UNSAFE_BUT_NEWLINE if newlines else _UNSAFE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape_char, text)


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

    def __init__(self, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...] | Diagnostic):
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


class DiagnosticList:
    """Collects diagnostics so a check reports every error, not just the first."""

    def __init__(self, items: list[Diagnostic] | None = None):
        self.items: list[Diagnostic] = [] if items is None else items

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
