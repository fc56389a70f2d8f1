"""What the commands print through: streams that write only printable text, GitHub annotations
for errors under ``--format github``, JSON documents, and the progress lines of long computations.
"""

from __future__ import annotations

import contextlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms at every start)
if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    import argparse
    from collections.abc import Callable, Iterator
    from typing import Any, TextIO


class Printable:
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

    def __init__(self, stream: TextIO, *, commands_are_ours: bool = False, colour: bool = False):
        self.raw: TextIO = stream.raw if isinstance(stream, Printable) else stream
        self.commands_are_ours = commands_are_ours
        self.colour = colour
        self._blank = True
        self._line_start = True

    def write(self, text: str) -> int:
        from .errors import printable

        text = printable(text, newlines=True)
        if not self.commands_are_ours:
            text = self._no_command_lines(text)
        if self.colour:
            text = self._painted(text)
        return self.raw.write(text)

    def _painted(self, text: str) -> str:
        """Colour (colour.py) added at the start of each line, once the text is printable."""
        from .colour import paint_line

        lines = text.split("\n")
        start = 0 if self._line_start else 1
        lines[start:] = [paint_line(line) for line in lines[start:]]
        self._line_start = text.endswith("\n") or (self._line_start and not text)
        return "\n".join(lines)

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


def printable_stream(stream: TextIO, *, commands_are_ours: bool = False, kind: type[Printable] | None = None,
                     colour: bool = False) -> TextIO:
    """``stream`` behind a :class:`Printable` (or ``kind``), typed as the text stream it stands for."""
    return (kind or Printable)(stream, commands_are_ours=commands_are_ours, colour=colour)  # type: ignore[return-value]  # a duck-typed TextIO


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under a ``Printable``: for the progress lines, whose carriage returns are ours."""
    return stream.raw if isinstance(stream, Printable) else stream


class GitHubErrors(Printable):
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


def output_format(args: argparse.Namespace) -> str:
    """The output format asked for: --json is --format json."""
    return "json" if getattr(args, "json", False) else str(getattr(args, "format", "text"))


def print_json(document: Any, stdout: TextIO) -> None:
    from .reporters import to_json

    print(to_json(document), file=stdout)


@contextlib.contextmanager
def progress_line(stderr: TextIO, wanted: bool = True) -> Iterator[Callable[[str], None] | None]:
    """A line of progress on a terminal, redrawn in place: ``show(text)`` inside the block (None elsewhere, or
    when not ``wanted``). The line is wiped when the block ends, however it ends, so a breach's message or
    "wartable: interrupted" starts on a clean line. The carriage returns go to the raw stream: they are ours."""
    if not wanted or not stderr.isatty():
        yield None
        return
    widest = [0]

    def show(text: str) -> None:
        widest[0] = max(widest[0], len(text))
        print(f"\r{text}", end="", file=raw_stream(stderr), flush=True)

    try:
        yield show
    finally:
        if widest[0]:
            print("\r" + " " * widest[0] + "\r", end="", file=raw_stream(stderr), flush=True)


@contextlib.contextmanager
def work_progress(stderr: TextIO) -> Iterator[Callable[[int], None] | None]:
    """A progress line for exact odds (whose total work is unknown): time and work so far, twice a second
    (see :func:`progress_line`)."""
    with progress_line(stderr) as show:
        if show is None:
            yield None
            return
        import time

        start = time.monotonic()
        shown = [start]

        def progress(work: int) -> None:
            now = time.monotonic()
            if now - shown[0] >= 0.5:
                shown[0] = now
                show(f"exact odds: {now - start:5.1f} s, {work:,} units of work (Ctrl-C stops)")

        yield progress


def share_progress(show: Callable[[str], None] | None, prefix: str, noun: str) -> Callable[[int, int], None] | None:
    """A ``progress(done, total)`` for a known number of plays (``{prefix} 42% of 10000 {noun}``), drawn
    through :func:`progress_line`'s ``show``; None where nothing is shown."""
    if show is None:
        return None
    return lambda done, total: show(f"{prefix}{done * 100 // total:3d}% of {total} {noun}")
