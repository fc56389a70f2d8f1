"""``odds --plot`` and ``sweep --plot``: SVG written by hand, parsed back with xml.etree.

The numbers are counted by hand from a one-die ruleset: a d6 hits on 5 or 6 (2 faces of 6: 1/3, 33.3%),
misses otherwise (4 of 6: 2/3, 66.7%).  Bars run on a fixed 300-pixel axis for 0-100%, so their widths
are 100.0 and 200.0.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.svg_plot import percent, svg_text

NS = {"svg": "http://www.w3.org/2000/svg"}

RULESET = """\
wartable: 1
name: plot
title: "Plot"
source: "tests"
version: "1"
procedures:
  shoot:
    title: "Shoot"
    rule: "r"
    inputs:
      need: {type: int, min: 1, max: 7, default: 5}
      bonus: {type: int, min: 0, max: 1, default: 0}
      extra: {type: int, min: 0, max: 1, default: 0}
    body: |
      let die = 1d6 + bonus + extra
      if die >= need then
        outcome hit(name = "<script>alert('x')</script> & \\"q\\"")
      else
        outcome miss
      end
"""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("plot.yaml").write_text(RULESET, encoding="utf-8")
    return tmp_path


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def svg(path: Path) -> ET.Element:
    root = ET.fromstring(path.read_text(encoding="utf-8"))  # well-formed, or this raises
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_odds_plot_is_a_bar_chart_of_the_distribution(folder):
    code, out, err = run(["odds", "plot.yaml", "shoot", "--plot", "odds.svg"])
    assert code == 0, err
    assert "hit" in out  # the text output is still printed
    assert err.strip() == "wrote odds.svg: 2 bars"
    root = svg(folder / "odds.svg")
    bars = [rect for rect in root.iter("{http://www.w3.org/2000/svg}rect") if rect.get("class") == "bar"]
    assert [float(bar.get("width")) for bar in bars] == [200.0, 100.0]  # miss 2/3 first (the larger), hit 1/3
    shown = texts(root)
    assert "66.7%" in shown and "33.3%" in shown
    assert [bar.find("svg:title", NS).text for bar in bars][1].endswith(": 1/3")  # the exact fraction on hover


def test_hostile_strings_are_escaped_in_the_svg(folder):
    assert run(["odds", "plot.yaml", "shoot", "--plot", "odds.svg"])[0] == 0
    raw = (folder / "odds.svg").read_text(encoding="utf-8")
    assert "<script" not in raw
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;q&quot;" in raw
    assert any("<script>alert('x')</script>" in text for text in texts(svg(folder / "odds.svg")))


def test_svg_text_strips_controls_and_cuts_long_text():
    assert svg_text("a\x00b\x1bc\nd") == "a b c d"
    # the bidirectional override, embedding and isolate, and the line and paragraph separators, go too (an RLO
    # once turned the rest of a label, in the chart and in an aid, backwards)
    assert svg_text("a\u202eb\u202ac\u2066d\u2069e\u2028f\u2029g") == "a b c d e f g"
    assert svg_text("x" * 100) == "x" * 59 + "…"
    assert svg_text("<&>\"'") == "&lt;&amp;&gt;&quot;&#x27;"


def test_percentages_never_round_to_certainty():
    assert percent(0) == "0.0%" and percent(1) == "100.0%"
    assert percent(1 / 3) == "33.3%"
    from fractions import Fraction

    assert percent(Fraction(1, 10_000)) == "<0.1%" and percent(1 - Fraction(1, 10_000)) == ">99.9%"


def test_sweep_over_one_input_draws_a_line_per_outcome(folder):
    code, _, err = run(["sweep", "plot.yaml", "shoot", "--over", "need=1..7", "--plot", "lines.svg"])
    assert code == 0, err
    root = svg(folder / "lines.svg")
    lines = [p for p in root.iter("{http://www.w3.org/2000/svg}polyline") if p.get("class") == "series"]
    assert len(lines) == 2  # hit and miss
    # hit: need 1..7 on a d6 -> 6/6, 6/6, 5/6, 4/6, 3/6, 2/6, 1/6; 0/6 never (7 points, 7 x labels)
    assert len(lines[0].get("points").split()) == 7
    shown = texts(root)
    assert [label for label in shown if label in {"1", "2", "3", "4", "5", "6", "7"}] == ["1", "2", "3", "4", "5", "6", "7"]
    tooltips = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert any(t.endswith(": 50.0% (1/2)") for t in tooltips)  # need 4: 3 faces of 6


def test_sweep_over_two_inputs_draws_a_heat_map_per_outcome(folder):
    code, _, err = run(["sweep", "plot.yaml", "shoot", "--over", "need=5..6", "--over", "bonus=0..1", "--plot", "grid.svg"])
    assert code == 0, err
    assert err.strip() == "wrote grid.svg: 2 heat maps"
    root = svg(folder / "grid.svg")
    cells = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "cell"]
    assert len(cells) == 8  # 2 x 2 cells, 2 outcomes
    # hit: need 5 bonus 0 -> 2/6; need 5 bonus 1 -> 3/6; need 6 bonus 0 -> 1/6; need 6 bonus 1 -> 2/6
    assert [c.find("svg:title", NS).text for c in cells[:4]] == ["1/3", "1/2", "1/6", "1/3"]
    assert "16.7%" in texts(root)


@pytest.mark.parametrize("argv, column, message", [
    # "wartable odds plot.yaml shoot --plot " is 37 characters: the file name is in column 38
    (["odds", "plot.yaml", "shoot", "--plot", "odds.png"], 38, "--plot writes an SVG picture: give a file name ending in .svg, not odds.png"),
    (["odds", "plot.yaml", "shoot", "--what-if", "need=4", "--plot", "o.svg"], 55,
     "--plot draws one distribution: give --plot or --what-if, not both"),  # "... --what-if need=4 --plot " is 54
])
def test_plot_refusals_point_at_the_file_name(folder, argv, column, message):
    code, out, err = run(argv)
    assert out == ""
    assert code == 2
    assert err.splitlines()[0] == f"<command line>:1:{column}: {message}"
    assert not list(folder.glob("*.svg")) and not list(folder.glob("*.png"))


def test_sweep_plot_of_three_dimensions_is_refused_before_computing(folder):
    argv = ["sweep", "plot.yaml", "shoot", "--over", "need=5..6", "--over", "bonus=0..1", "--over", "extra=0..1", "--plot", "p.svg"]
    code, out, err = run(argv)
    assert code == 2 and out == ""  # nothing computed, nothing printed
    # "wartable sweep plot.yaml shoot --over need=5..6 --over bonus=0..1 --over extra=0..1 --plot " is 91 characters
    assert err.splitlines()[0] == "<command line>:1:92: --plot draws one --over (lines) or two (heat maps), not 3"
