"""The code writer: one generated Python function, its lines, its locals set up front.

Indentation is never changed by hand: a nested block is written inside
``with writer.block("for x in y:"):``, which indents what is written in it,
and writes ``pass`` when nothing but comments was (an ``if`` branch that
only notes something).  A line whose content is known only later (the
accumulators a pass turns out to need, the hoisted values a roll's faces
share) is a :meth:`CodeWriter.reserve`'d place, filled when known.

``comment(pos)`` writes where a statement came from: the ruleset file, the
line, and that line's text.  All of it is user text, so it is written
through ``repr()`` of one ``str`` (see :mod:`interpreter.engine.module`):
a comment cannot end early, whatever the line holds.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - types only
    from .module import GeneratedModule

INDENT = "    "
COMMENT_WIDTH = 100  # characters of a ruleset line shown in a comment


def source_comment(pos: Any) -> str:
    """``# 'eto.yaml:123  roll 2d6'``: where a generated statement comes from, as one repr()'d string.

    ``pos`` is an :class:`errors.Pos` (typed Any: Pos sets its fields through
    ``object.__setattr__``, so mypy does not see them)."""
    source = pos.source
    text = " ".join(source.line_text(pos.line).split())
    if len(text) > COMMENT_WIDTH:
        text = text[: COMMENT_WIDTH - 3] + "..."
    return "# " + repr(f"{os.path.basename(source.name)}:{pos.line}  {text}")


class Reserved:
    """Lines to be written at a place already passed, at that place's indentation."""

    __slots__ = ("indent", "lines")

    def __init__(self, indent: int) -> None:
        self.indent = indent
        self.lines: list[str] = []

    def fill(self, text: str) -> None:
        self.lines.append(INDENT * self.indent + text)


class CodeWriter:
    """The source of one generated function: ``def name(params):``, its locals (``need``), its body."""

    __slots__ = ("_code_lines", "indent", "lines", "module", "name", "needs", "params")

    def __init__(self, module: GeneratedModule, name: str, params: str) -> None:
        self.module = module
        self.name = name
        self.params = params
        self.lines: list[str | Reserved] = []
        self.needs: dict[str, str] = {}  # local name -> how the prelude sets it
        self.indent = 1
        self._code_lines = 0  # lines written that are not comments

    def line(self, text: str) -> None:
        self.lines.append(INDENT * self.indent + text)
        self._code_lines += 1

    def comment(self, pos: Any) -> None:
        """Where the statement written next comes from (nothing at run time: a comment)."""
        if pos is not None:
            self.lines.append(INDENT * self.indent + source_comment(pos))

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        """``header`` (ending in ``:``), then what the ``with`` body writes, one level deeper."""
        self.line(header)
        self.indent += 1
        start = self._code_lines
        yield
        if self._code_lines == start:
            self.line("pass")
        self.indent -= 1

    def reserve(self) -> Reserved:
        """A place here, at this indentation, for lines known later."""
        place = Reserved(self.indent)
        self.lines.append(place)
        return place

    def embed(self, other: CodeWriter) -> None:
        """The body of ``other`` written here (a function defined inside this one)."""
        prefix = INDENT * (self.indent - 1)
        for text in other.body():
            self.lines.append(prefix + text)
        self._code_lines += 1

    def need(self, name: str, source: str) -> str:
        """A local set once when the function starts (``name = source``); its name."""
        self.needs.setdefault(name, source)
        return name

    def temp(self, prefix: str = "t") -> str:
        return self.module.name(prefix)

    def body(self) -> list[str]:
        lines: list[str] = []
        for item in self.lines:
            if isinstance(item, Reserved):
                lines.extend(item.lines)
            else:
                lines.append(item)
        return lines

    def finish(self) -> list[str]:
        head = [f"def {self.name}({self.params}):"]
        for name, source in self.needs.items():
            head.append(f"{INDENT}{name} = {source}")
        body = self.body()
        if not self._code_lines:
            body.append(INDENT + "pass")
        return head + body + [""]
