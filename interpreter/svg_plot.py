"""Plots as SVG text: bar charts of a distribution, lines of a one-dimension sweep, heat maps of a two.

Written by hand rather than with a plotting library: wartable has no dependency for pictures and
should not gain one for a few rectangles and lines (matplotlib alone is tens of megabytes and seconds
of import); an SVG is text a test can parse with ``xml.etree``, and the player aid inlines the same
charts in its page.  Every chart is greyscale-safe: bars are dark grey on white, heat-map shades
darken steadily with the value, and lines differ by dash pattern and marker shape, not colour alone.

Every string comes from a ruleset or a command line, so it goes through :func:`svg_text`: control
characters and bidirectional overrides stripped, long strings cut, ``& < > " '`` escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from xml.sax.saxutils import escape

from .errors import CONTROL_CHARACTERS

# Characters per label before it is cut with an ellipsis: a label longer than that is a data dump.
MAX_LABEL = 60
FONT = 12  # px
CHAR = 0.6 * FONT  # the width of a character, near enough for a sans-serif face
SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" viewBox="0 0 {w:.0f} {h:.0f}" role="img" font-family="DejaVu Sans, Arial, sans-serif" font-size="{font}">'

# White to dark blue; lightness falls steadily so grey printing keeps the order.
SCALE = ((255, 255, 255), (198, 219, 239), (107, 174, 214), (33, 113, 181), (8, 48, 107))
BAR_FILL = "#4d4d4d"
# One line per series: dash patterns and marker shapes tell them apart in grey (colours help on screen).
LINE_STYLES = (("", "#08306b"), ("6 3", "#b2182b"), ("2 3", "#1b7837"), ("8 3 2 3", "#762a83"), ("12 4", "#e08214"), ("1 2", "#4d4d4d"))


def svg_text(value: object, limit: int = MAX_LABEL) -> str:
    """A string as SVG text: controls, separators and bidirectional overrides (and lone surrogates) become spaces,
    long text is cut, XML is escaped."""
    # CONTROL_CHARACTERS: what the output guard escapes (C0, DEL, C1, separators, the bidirectional embeddings,
    # overrides and isolates: a U+202E showed a label backwards, in the chart and in an aid's page), tab and newline too
    text = CONTROL_CHARACTERS.sub(" ", str(value))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return escape(text, {'"': "&quot;", "'": "&#x27;"})


def colour(t: float) -> tuple[str, str]:
    """Background and text colour for a value scaled to 0..1 (text white on the dark end)."""
    t = min(max(t, 0.0), 1.0)
    position = t * (len(SCALE) - 1)
    index = min(int(position), len(SCALE) - 2)
    local = position - index
    low, high = SCALE[index], SCALE[index + 1]
    r, g, b = (round(a + (c - a) * local) for a, c in zip(low, high))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return f"#{r:02x}{g:02x}{b:02x}", ("#fff" if luminance < 128 else "#000")


def percent(p: Fraction | float) -> str:
    """A probability as players read it: one decimal, and never 0.0% or 100.0% for what is merely near."""
    value = float(p) * 100
    shown = f"{value:.1f}%"
    if shown == "0.0%" and p > 0:
        return "<0.1%"
    if shown == "100.0%" and p < 1:
        return ">99.9%"
    return shown


def _width(text: str) -> float:
    return len(text) * CHAR


def _title_width(title: str) -> float:
    return 20 + len(svg_text(title, 120)) * CHAR * 1.2  # bold and two points larger


@dataclass(frozen=True)
class Bars:
    """One group of bars: a heading (may be empty) and (label, probability) pairs, in order."""

    heading: str
    bars: tuple[tuple[str, Fraction], ...]


def bar_chart(title: str, groups: Sequence[Bars]) -> str:
    """Horizontal bars, one a line, each labelled on the left and with its percentage on the right.

    Horizontal because outcome labels (``damage(hits = 1, damage = 2)``) are long; the bar's length is the
    probability on a fixed 0-100% axis, so two charts side by side compare."""
    labels = [svg_text(label) for group in groups for label, _ in group.bars]
    left = 10 + max((_width(label) for label in labels), default=0) + 8
    bar_span, row = 300.0, 20
    width = left + bar_span + 70
    parts, y = [], 28.0
    parts.append(f'<text x="10" y="18" font-weight="bold" font-size="{FONT + 2}">{svg_text(title, 120)}</text>')
    for group in groups:
        if group.heading:
            y += 6
            parts.append(f'<text x="10" y="{y + 12:.0f}" font-style="italic">{svg_text(group.heading, 120)}</text>')
            y += row
        for label, p in group.bars:
            length = float(p) * bar_span
            parts.append(f'<text x="{left - 8:.0f}" y="{y + 14:.0f}" text-anchor="end">{svg_text(label)}</text>')
            parts.append(f'<rect class="bar" x="{left:.0f}" y="{y + 3:.0f}" width="{length:.1f}" height="{row - 6}" fill="{BAR_FILL}"><title>{svg_text(label)}: {_exact(p)}</title></rect>')
            parts.append(f'<text class="pct" x="{left + length + 5:.1f}" y="{y + 14:.0f}">{svg_text(percent(p))}</text>')
            y += row
    axis_y = y + 4
    parts.append(f'<line x1="{left:.0f}" y1="{axis_y:.0f}" x2="{left + bar_span:.0f}" y2="{axis_y:.0f}" stroke="#000"/>')
    for tick in range(0, 101, 25):
        x = left + bar_span * tick / 100
        parts.append(f'<line x1="{x:.1f}" y1="{axis_y:.0f}" x2="{x:.1f}" y2="{axis_y + 4:.0f}" stroke="#000"/>')
        parts.append(f'<text x="{x:.1f}" y="{axis_y + 17:.0f}" text-anchor="middle" font-size="{FONT - 2}">{tick}%</text>')
    return _svg(max(width, _title_width(title)), axis_y + 26, parts)


def _exact(value: Fraction) -> str:
    from .results import shown_value

    return svg_text(shown_value(value), 40)


@dataclass(frozen=True)
class Series:
    """One line: its name and a probability (or None) at each x value."""

    name: str
    values: tuple[Fraction | None, ...]


def line_chart(title: str, x_title: str, x_labels: Sequence[str], series: Sequence[Series]) -> str:
    """Probability (0-100%, fixed axis) against one swept input: one line per outcome, a legend below."""
    left, top, plot_w, plot_h = 56.0, 34.0, max(240.0, 48.0 * len(x_labels)), 220.0
    step = plot_w / max(1, len(x_labels) - 1) if len(x_labels) > 1 else 0.0
    x_of = [left + (step * i if len(x_labels) > 1 else plot_w / 2) for i in range(len(x_labels))]
    parts = [f'<text x="10" y="18" font-weight="bold" font-size="{FONT + 2}">{svg_text(title, 120)}</text>']
    for tick in range(0, 101, 25):
        y = top + plot_h * (1 - tick / 100)
        parts.append(f'<line x1="{left:.0f}" y1="{y:.1f}" x2="{left + plot_w:.0f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6:.0f}" y="{y + 4:.1f}" text-anchor="end" font-size="{FONT - 2}">{tick}%</text>')
    parts.append(f'<rect x="{left:.0f}" y="{top:.0f}" width="{plot_w:.0f}" height="{plot_h:.0f}" fill="none" stroke="#000"/>')
    for x, label in zip(x_of, x_labels):
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 16:.0f}" text-anchor="middle" font-size="{FONT - 1}">{svg_text(label, 14)}</text>')
    parts.append(f'<text x="{left + plot_w / 2:.0f}" y="{top + plot_h + 34:.0f}" text-anchor="middle" font-style="italic">{svg_text(x_title)}</text>')
    legend_y = top + plot_h + 52
    for index, line in enumerate(series):
        dash, stroke = LINE_STYLES[index % len(LINE_STYLES)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        points = [(x, top + plot_h * (1 - float(v))) for x, v in zip(x_of, line.values) if v is not None]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(f'<polyline class="series" points="{path}" fill="none" stroke="{stroke}" stroke-width="2"{dashed}/>')
        for (x, y), value in zip(points, (v for v in line.values if v is not None)):
            parts.append(_marker(index, x, y, stroke, f"{svg_text(line.name)}: {svg_text(percent(value))} ({_exact(value)})"))
        y = legend_y + 18 * index
        parts.append(f'<line x1="{left:.0f}" y1="{y:.0f}" x2="{left + 30:.0f}" y2="{y:.0f}" stroke="{stroke}" stroke-width="2"{dashed}/>')
        parts.append(_marker(index, left + 15, y, stroke, svg_text(line.name)))
        parts.append(f'<text x="{left + 38:.0f}" y="{y + 4:.0f}">{svg_text(line.name)}</text>')
    width = max(left + plot_w + 20, left + 60 + max((_width(svg_text(s.name)) for s in series), default=0))
    return _svg(max(width, _title_width(title)), legend_y + 18 * len(series) + 4, parts)


def _marker(index: int, x: float, y: float, stroke: str, tooltip: str) -> str:
    """A point of series ``index``: circle, square, triangle, diamond, ... (told apart without colour)."""
    shape = index % 4
    title = f"<title>{tooltip}</title>"
    if shape == 0:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{stroke}">{title}</circle>'
    if shape == 1:
        return f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{stroke}">{title}</rect>'
    if shape == 2:
        return f'<polygon points="{x:.1f},{y - 4.5:.1f} {x + 4.5:.1f},{y + 3.5:.1f} {x - 4.5:.1f},{y + 3.5:.1f}" fill="{stroke}">{title}</polygon>'
    return f'<polygon points="{x:.1f},{y - 4.5:.1f} {x + 4.5:.1f},{y:.1f} {x:.1f},{y + 4.5:.1f} {x - 4.5:.1f},{y:.1f}" fill="#fff" stroke="{stroke}" stroke-width="1.5">{title}</polygon>'


@dataclass(frozen=True)
class Grid:
    """One heat map: a heading, the axes' titles and labels, and a probability (or None) per cell."""

    heading: str
    row_title: str
    row_labels: tuple[str, ...]
    column_title: str
    column_labels: tuple[str, ...]
    cells: tuple[tuple[Fraction | None, ...], ...]


def heat_maps(title: str, grids: Sequence[Grid]) -> str:
    """Probability grids stacked one under another (one per outcome), each cell shaded and printed in %."""
    cell_w, cell_h = 64.0, 26.0
    parts = [f'<text x="10" y="18" font-weight="bold" font-size="{FONT + 2}">{svg_text(title, 120)}</text>']
    y, width = 30.0, 200.0
    for grid in grids:
        left = 10 + max([_width(svg_text(label, 20)) for label in grid.row_labels] + [_width(svg_text(grid.row_title, 20))]) + 10
        parts.append(f'<text x="10" y="{y + 14:.0f}" font-weight="bold">{svg_text(grid.heading, 120)}</text>')
        y += 22
        parts.append(f'<text x="{left:.0f}" y="{y + 12:.0f}" font-style="italic">{svg_text(grid.column_title)}</text>')
        parts.append(f'<text x="10" y="{y + 30:.0f}" font-style="italic">{svg_text(grid.row_title, 20)}</text>')
        y += 18
        for j, label in enumerate(grid.column_labels):
            parts.append(f'<text x="{left + cell_w * (j + 0.5):.1f}" y="{y + 12:.0f}" text-anchor="middle">{svg_text(label, 10)}</text>')
        y += 18
        for i, (label, row) in enumerate(zip(grid.row_labels, grid.cells)):
            top = y + cell_h * i
            parts.append(f'<text x="{left - 8:.0f}" y="{top + 17:.0f}" text-anchor="end">{svg_text(label, 20)}</text>')
            for j, value in enumerate(row):
                parts.append(_heat_cell(left + cell_w * j, top, cell_w, cell_h, value))
        y += cell_h * len(grid.cells) + 16
        width = max(width, left + cell_w * len(grid.column_labels) + 10, 20 + _width(svg_text(grid.heading, 120)))
    return _svg(max(width, _title_width(title)), y, parts)


def _heat_cell(x: float, y: float, w: float, h: float, value: Fraction | None) -> str:
    if value is None:
        return f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.0f}" height="{h:.0f}" fill="#fff" stroke="#555"/>'
    background, foreground = colour(float(value))
    return (
        f'<rect class="cell" x="{x:.1f}" y="{y:.1f}" width="{w:.0f}" height="{h:.0f}" fill="{background}" stroke="#555"><title>{_exact(value)}</title></rect>'
        f'<text x="{x + w / 2:.1f}" y="{y + h / 2 + 4:.1f}" text-anchor="middle" fill="{foreground}">{svg_text(percent(value))}</text>'
    )


def _svg(width: float, height: float, parts: list[str]) -> str:
    head = SVG_HEAD.format(w=width, h=height, font=FONT)
    return head + f'<rect width="{width:.0f}" height="{height:.0f}" fill="#fff"/>' + "".join(parts) + "</svg>\n"
