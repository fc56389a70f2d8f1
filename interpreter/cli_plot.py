"""``odds ... --plot FILE.svg`` and ``sweep ... --plot FILE.svg``: the numbers the command printed, drawn.

``odds`` draws a bar chart of the outcome distribution (or of the ``--by`` fields), one group of bars per
combination of open choices; ``sweep`` draws one line per outcome over one ``--over`` dimension, or one
heat map per outcome over two.  The SVG is made by :mod:`svg_plot` (no plotting dependency).  The file
must end in ``.svg``: a slip of the keyboard cannot overwrite a ruleset.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # pragma: no cover - types only
    from .command_line import CommandLine
    from .sweep import Sweep

MAX_PLOTTED_DIMENSIONS = 2


def check_plot_target(path: str, command_line: CommandLine, *, dimensions: int | None = None, what_if: bool = False) -> None:
    """Refuse, before anything is computed, a ``--plot`` that cannot be drawn or is not an ``.svg`` file."""
    index = command_line.find(path, "--plot")
    if not path.lower().endswith(".svg"):
        raise command_line.error(index, f"--plot writes an SVG picture: give a file name ending in .svg, not {_shown(path)}")
    if "\0" in path:  # open() would raise ValueError, after the odds were computed
        raise command_line.error(index, f"--plot: cannot write {_shown(path)}: the name contains a NUL byte")
    if what_if:
        raise command_line.error(index, "--plot draws one distribution: give --plot or --what-if, not both")
    if dimensions is not None and dimensions > MAX_PLOTTED_DIMENSIONS:
        raise command_line.error(index, f"--plot draws one --over (lines) or two (heat maps), not {dimensions}")


def write_odds_plot(path: str, call: Any, found: list[tuple[dict[str, str], Any]], open_names: list[str],
                    command_line: CommandLine, stderr: TextIO) -> None:
    """The bar chart of ``odds``: each combination of open choices is a group headed by it."""
    from . import results
    from .render import _key_text, show_outcome
    from .svg_plot import Bars, bar_chart

    groups = []
    for chosen, distribution in found:
        doc = results.distribution(distribution, by=call.by)
        if "marginal" in doc:
            bars = [(_key_text(m["values"]), results.parse_fraction(m["probability"])) for m in doc["marginal"]]
        else:
            bars = [(show_outcome(o), results.parse_fraction(o["probability"])) for o in doc["outcomes"]]
        heading = ", ".join(f"{name} = {chosen[name]}" for name in open_names)
        groups.append(Bars(f"with {heading}" if heading else "", tuple(bars)))
    title = f"{call.ruleset.name} {call.procedure.name}: exact odds"
    _write(path, bar_chart(title, groups), command_line, stderr, f"{sum(len(g.bars) for g in groups)} bars")


def write_sweep_plot(path: str, sweep: Sweep, command_line: CommandLine, stderr: TextIO) -> None:
    """Lines over one dimension, or heat maps (one per outcome column) over two."""
    from .render import _key_text
    from .svg_plot import Grid, Series, heat_maps, line_chart

    def named(key: tuple[Any, ...]) -> str:
        return _key_text(dict(zip(sweep.by, key)))

    keys = sweep.keys()
    marginals = [cell.distribution.marginal(sweep.by).as_dict() for cell in sweep.cells]
    title = f"{sweep.ruleset} {sweep.procedure}: exact odds"
    first = sweep.dimensions[0]
    if len(sweep.dimensions) == 1:
        series = [Series(named(key), tuple(m.get(key, Fraction(0)) for m in marginals)) for key in keys]
        _write(path, line_chart(title, first.name, tuple(first.labels()), series), command_line, stderr, f"{len(series)} lines")
        return
    second = sweep.dimensions[1]
    width = len(second.values)
    grids = [
        Grid(
            named(key), first.name, tuple(first.labels()), second.name, tuple(second.labels()),
            tuple(tuple(m.get(key, Fraction(0)) for m in marginals[i:i + width]) for i in range(0, len(marginals), width)),
        )
        for key in keys
    ]
    _write(path, heat_maps(title, grids), command_line, stderr, f"{len(grids)} heat maps")


def _write(path: str, svg: str, command_line: CommandLine, stderr: TextIO, what: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(svg)
    except OSError as error:
        raise command_line.error(command_line.find(path, "--plot"), f"--plot: cannot write {_shown(path)}: {error.strerror or error}") from None
    print(f"wrote {_shown(path)}: {what}", file=stderr)


def _shown(path: str) -> str:
    from .command_line import shorten

    return shorten(path)
