"""Colour on a terminal: green ``ok``, red ``FAIL`` and error positions, yellow warnings, the caret.

Off unless the stream is a terminal, ``NO_COLOR`` is unset or empty
(https://no-color.org), and ``TERM`` is not ``dumb``; ``--color always|never``
overrides the guess (``always`` still yields to nothing: it is the user's
explicit word, for a pager such as ``less -R``).  JSON, GitHub annotations and
JUnit never get colour: the command chooses plain streams for them.

Colour is added to text that has already been made printable (every control
character of a ruleset string shown escaped), by recognising the lines
wartable itself words: a ruleset cannot smuggle an escape sequence through it,
at worst it makes a line of its own look like a FAIL line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

CHOICES = ("auto", "always", "never")

_RESET = "\x1b[0m"
_GREEN = "\x1b[32m"
_RED = "\x1b[1;31m"
_YELLOW = "\x1b[33m"
_BOLD = "\x1b[1m"

# file:line:column: at the start of a diagnostic (the file may hold colons: the last two numbers decide)
_POSITION = re.compile(r"^(\S.*?:\d+:\d+:)( warning:)?")
_CARET = re.compile(r"^( +)\^$")
_STATUS = re.compile(r"^(ok|FAIL|PASS)(?= )")
_TOTALS = re.compile(r"^(\d+) passed, (\d+) failed")


def wanted(choice: str, stream: object, environ: Mapping[str, str]) -> bool:
    """Whether to colour ``stream``: ``choice`` from ``--color``, else the terminal and the environment decide."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if environ.get("NO_COLOR", ""):
        return False
    if environ.get("TERM", "") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint_line(line: str) -> str:
    """One line of wartable's text output with colour added where it recognises its own wording."""
    if not line:
        return line
    status = _STATUS.match(line)
    if status:
        colour = _GREEN if status.group(1) in ("ok", "PASS") else _RED
        return f"{colour}{status.group(1)}{_RESET}{line[status.end():]}"
    totals = _TOTALS.match(line)
    if totals:
        colour = _GREEN if totals.group(2) == "0" else _RED
        return f"{colour}{line[:totals.end()]}{_RESET}{line[totals.end():]}"
    caret = _CARET.match(line)
    if caret:
        return f"{caret.group(1)}{_RED}^{_RESET}"
    position = _POSITION.match(line)
    if position:
        if position.group(2):
            return f"{_BOLD}{position.group(1)}{_RESET}{_YELLOW}{position.group(2)}{_RESET}{line[position.end():]}"
        return f"{_BOLD}{position.group(1)}{_RESET}{line[position.end():]}"
    return line
