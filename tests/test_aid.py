"""``wartable aid``: the printable HTML player aid, checked as text and in a real browser.

Every bundled ruleset's aid is rendered by headless Chromium (Debian's ``chromium``) to a PNG and a
DOM dump: the tables and heat maps the ruleset declares must be in the DOM, and the page must not
be blank.  A ruleset written by a stranger, with ``<script>`` and quotes in its titles, notes,
labels and headings, must show them as text (checked in the browser's DOM, where a script element
or an attribute it smuggled in would be visible).  The page loads nothing from anywhere.

Without Chromium the browser tests skip, except in CI (``CI`` set), where ``.ci/run`` installs it.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import xml.etree.ElementTree as ET
import zlib
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest

from interpreter import load_ruleset
from interpreter.aid import aid_warnings, colour, player_aid
from interpreter.aid_html import source_text
from interpreter.cli import main
from interpreter.limits import LimitExceeded, Limits
from interpreter.resources import bundled_names

# ---- a ruleset from a stranger -------------------------------------------------------------------

EVIL = "<script>alert('pwned')</script>"
HOSTILE = f"""\
wartable: 1
name: hostile
title: "Title {EVIL} \\"double\\" & 'single'"
source: "<img src=x onerror=alert(1)>"
version: "1\\" onmouseover=\\"alert(2)"
description: "A </style><script>alert(3)</script> description"
notes:
  - topic: "<b>topic</b>"
    text: "Note text {EVIL}"
    seed: "\\"quoted\\" seed & <i>words</i>"
constants:
  need: {{value: 4, rule: "{EVIL}"}}
tables:
  odd:
    title: "Table <script>x()</script>"
    rule: "Rule \\" onclick=\\"alert(4)"
    rows: {{name: "Row <u>name</u>"}}
    edges: {{rows: error}}
    cells:
      "<script>": "</td></tr></table><script>alert(5)</script>"
      "plain": "ok"
modifiers:
  drm:
    kind: drm
    title: "DRMs <script>alert(6)</script>"
    rule: "drm rule"
    entries:
      bold: {{label: "Label {EVIL}", value: 1, when: "bold", rule: "<a href='http://example.com'>link</a>"}}
procedures:
  shoot:
    title: "Shoot <script>alert(7)</script>"
    rule: "Shoot rule"
    inputs:
      bold: {{type: bool, default: false, description: "Bold? {EVIL}"}}
      range: {{type: int, min: 1, max: 3, default: 1}}
    body: |
      note "a note {EVIL}"
      let roll = 1d6 + modifiers drm - range
      if roll >= need then
        outcome hit(damage = roll - need) rule "Hit rule {EVIL}"
      else
        outcome miss(damage = 0)
      end
aids:
  - title: "Heat map {EVIL}"
    procedure: shoot
    description: "Described \\"here\\" {EVIL}"
    rows: {{over: range, from: 1, to: 3, title: "Range <b>hexes</b>"}}
    columns: {{over: bold, values: [false, true], labels: ["plain {EVIL}", "bold"]}}
    show: {{probability: hit}}
  - title: "Bars {EVIL}"
    procedure: shoot
    inputs: {{range: 2}}
"""
HOSTILE_STRINGS = [
    f"Title {EVIL} \"double\" & 'single'", "<img src=x onerror=alert(1)>", "Note text " + EVIL, "Table <script>x()</script>",
    "</td></tr></table><script>alert(5)</script>", "Label " + EVIL, "Shoot <script>alert(7)</script>", "Heat map " + EVIL,
    "plain " + EVIL, "Range <b>hexes</b>", "<b>topic</b>", "Bars " + EVIL,
]


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("hostile.yaml").write_text(HOSTILE, encoding="utf-8")
    return load_ruleset("hostile.yaml")


def test_hostile_strings_are_escaped_in_the_page(hostile):
    page, summary = player_aid(hostile)
    assert summary["heat_maps"] == 1 and summary["bar_charts"] == 1
    assert "<script" not in page.lower()
    assert "<text" in page and "Bars &lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;</text>" in page  # the SVG's title
    assert "<img" not in page and "onmouseover=\"" not in page and "onclick=\"" not in page
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in page
    assert "&quot;double&quot;" in page


# ---- a bad aids: section is a ruleset error at its own line -------------------------------------

BAD_AIDS = """\
wartable: 1
name: bad_aids
title: "Bad aids"
source: "tests"
version: "1"
procedures:
  roll:
    title: "Roll"
    rule: "r"
    inputs:
      count: {type: int, min: 1, max: 3}
    body: |
      let d = 1d6 + count
      outcome rolled(total = d)
aids:
  - title: "Unknown procedure"
    procedure: rol
    rows: {over: count, from: 1, to: 3}
  - title: "Unknown input"
    procedure: roll
    rows: {over: m, from: 1, to: 3}
  - title: "Out of range"
    procedure: roll
    rows: {over: count, values: [1, 5]}
  - title: "Not a number field"
    procedure: roll
    rows: {over: count, from: 1, to: 3}
    show: {mean: totl}
"""
BAD_AID_ERRORS = [
    (17, 16, "no procedure 'rol' (procedures: roll)"),  # "    procedure: " is 15 characters
    (21, 18, "rows: procedure 'roll' has no input or choice 'm' (inputs: count)"),  # "    rows: {over: " is 17
    (24, 33, "rows: input 'count' must be at most 3, not 5"),  # "    rows: {over: count, values: " is 32: the [ in 33
    (28, 18, "outcomes of 'roll' have no numeric field 'totl' (numeric fields: total)"),  # "    show: {mean: " is 17
]


def test_bad_aids_are_positioned_by_check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("bad.yaml").write_text(BAD_AIDS, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "bad.yaml"], stdout=out, stderr=err) == 1
    heads = [line for line in err.getvalue().splitlines() if line.startswith("bad.yaml:")]
    assert heads == [f"bad.yaml:{line}:{column}: {message}" for line, column, message in BAD_AID_ERRORS]
    assert err.getvalue().splitlines()[-1] == "FAIL bad.yaml: 4 errors"
    # the aid command refuses it the same way (an invalid ruleset: exit 1)
    out, err = io.StringIO(), io.StringIO()
    assert main(["aid", "bad.yaml"], stdout=out, stderr=err) == 1
    assert err.getvalue().startswith("bad.yaml:17:16: no procedure 'rol'")


AIDS_BOUND_AS_EVERY_CALL = """\
wartable: 1
name: bound
title: "Bound"
source: "test"
version: "1"
procedures:
  roll:
    title: "Roll"
    rule: "r"
    inputs:
      count: {type: int, min: 1, max: 3}
      bonus: {type: int, min: 0, max: 2, description: "the DRM"}
    choices:
      side: {options: [attacker, defender], default: attacker, description: "who rolls"}
    body: |
      let d = 1d6 + count + bonus
      outcome rolled(total = d)
aids:
  - title: "Bonus missing"
    procedure: roll
    rows: {over: count, from: 1, to: 3}
  - title: "Bonus too big"
    procedure: roll
    rows: {over: count, from: 1, to: 3}
    inputs: {bonus: 5}
  - title: "No such side"
    procedure: roll
    rows: {over: count, from: 1, to: 3}
    inputs: {bonus: 0}
    choices: {side: neutral}
"""
# The aid's fixed values go through the one binder (binding.bind): the same words as --set or the API, at the
# entry's own line.  Lines counted by hand: aids: is line 18, so the entries' titles are lines 19, 22 and 26, with
# inputs: on line 25 and choices: on line 30.  Columns: a missing input has no key of its own, so it points at
# the entry (its title's value: "  - title: " is 11 characters, column 12); "    inputs: {bonus: " is 20, so
# the 5 is in column 21; "    choices: {side: " is 20 too, "neutral" in 21.  No type bounds in the wording of a
# missing input (the --set and API wording): "int".
AIDS_BOUND_ERRORS = [
    (19, 12, "input 'bonus' is required (int: the DRM): give it under inputs: or sweep it"),
    (25, 21, "input 'bonus' must be at most 2, not 5"),
    (30, 21, "choice 'side' must be one of attacker, defender, not 'neutral'"),
]


def test_an_aids_fixed_values_are_bound_as_every_calls_are(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("bound.yaml").write_text(AIDS_BOUND_AS_EVERY_CALL, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "bound.yaml"], stdout=out, stderr=err) == 1
    heads = [line for line in err.getvalue().splitlines() if line.startswith("bound.yaml:")]
    assert heads == [f"bound.yaml:{line}:{column}: {message}" for line, column, message in AIDS_BOUND_ERRORS]


# ---- the page itself ----------------------------------------------------------------------------


class Elements(HTMLParser):
    """Tags, attributes and text of a page (stdlib only)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def count(self, tag: str, cls: str | None = None) -> int:
        return sum(1 for t, a in self.tags if t == tag and (cls is None or cls in (a.get("class") or "").split()))

    def all_text(self) -> str:
        return "".join(self.text)


def parse(html_text: str) -> Elements:
    elements = Elements()
    elements.feed(html_text)
    return elements


def assert_self_contained(elements: Elements, page: str) -> None:
    """No scripts, no external resources, no links off the page."""
    for tag, attributes in elements.tags:
        assert tag not in ("script", "link", "img", "iframe", "object", "embed", "base"), tag
        for name, value in attributes.items():
            assert not name.startswith("on"), (tag, name)
            if name in ("href", "src", "action", "srcset"):
                assert value.startswith("#"), (tag, name, value)
    style = "".join(re.findall(r"<style>(.*?)</style>", page, re.DOTALL))
    assert "url(" not in style and "@import" not in style and "@font-face" not in style


AIDS = sorted(bundled_names())


@pytest.mark.parametrize("name", AIDS)
def test_bundled_aid_is_self_contained(name):
    ruleset = load_ruleset(name)
    page, summary = player_aid(ruleset)
    elements = parse(page)
    assert_self_contained(elements, page)
    assert elements.count("table", "crt") == len(ruleset.tables) == summary["tables"]
    assert elements.count("table", "heat") == summary["heat_maps"]
    assert summary["procedures"] == len(ruleset.procedures)
    for table in ruleset.tables.values():
        assert f'id="table-{table.name}"' in page


def test_colours_get_darker_as_the_value_grows():
    # luminance (Rec. 709 weights) falls steadily, so a grey print keeps the order
    def luminance(hex_colour: str) -> float:
        r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    shades = [luminance(colour(t / 20)[0]) for t in range(21)]
    assert all(a > b for a, b in itertools.pairwise(shades))
    assert colour(0)[0] == "#ffffff" and colour(1)[1] == "#fff"  # white on the darkest


def test_aid_command_writes_the_file(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "eto.html"
    assert main(["aid", "eto", "-o", str(target)], stdout=out, stderr=err) == 0, err.getvalue()
    assert out.getvalue().startswith(f"wrote {target}: 1 table, ")
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_aid_to_an_unwritable_place_is_a_usage_error(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    assert main(["aid", "eto", "-o", str(tmp_path / "no" / "such" / "dir.html")], stdout=out, stderr=err) == 2
    assert "cannot write" in err.getvalue()


AID_BASE = """\
wartable: 1
name: base
title: "base"
source: "tests"
version: "1"
include: [more.yaml]
procedures:
  p:
    title: "p"
    rule: "r"
    inputs:
      count: {type: int}
    body: |
      let die = 1d6
      if die <= count then
        outcome hit
      end
      outcome miss
aids:
  - title: "t"
    procedure: p
    rows: {over: count, from: 1, to: 3}
"""
AID_VARIANT = 'wartable: 1\nname: v\ntitle: "v"\nsource: "tests"\nversion: "1"\nextends: base.yaml\n'


@pytest.fixture
def aid_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.yaml").write_text(AID_BASE, encoding="utf-8")
    (tmp_path / "more.yaml").write_text('constants:\n  c: {value: 1, rule: r}\n', encoding="utf-8")
    (tmp_path / "variant.yaml").write_text(AID_VARIANT, encoding="utf-8")
    (tmp_path / "link.yaml").symlink_to("base.yaml")
    os.link(tmp_path / "more.yaml", tmp_path / "hard.yaml")
    return tmp_path


# "wartable aid variant.yaml -o " is 29 characters: the output path starts in column 30
@pytest.mark.parametrize("argv, column, read", [
    pytest.param(["aid", "variant.yaml", "-o", "variant.yaml"], 30, "variant.yaml", id="the-ruleset-itself"),
    pytest.param(["aid", "variant.yaml", "-o", "base.yaml"], 30, "base.yaml", id="its-base"),
    pytest.param(["aid", "variant.yaml", "-o", "more.yaml"], 30, "more.yaml", id="an-include-of-its-base"),
    pytest.param(["aid", "variant.yaml", "-o", "link.yaml"], 30, "base.yaml", id="a-symbolic-link-to-its-base"),
    pytest.param(["aid", "variant.yaml", "-o", "hard.yaml"], 30, "more.yaml", id="a-hard-link-to-an-include"),
    # "wartable aid variant.yaml --output=" is 35 characters
    pytest.param(["aid", "variant.yaml", "--output=base.yaml"], 36, "base.yaml", id="output-equals"),
])
def test_aid_never_overwrites_a_file_the_ruleset_reads(aid_files, argv, column, read):
    before = {path.name: path.read_bytes() for path in aid_files.iterdir()}
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, stdout=out, stderr=err) == 2
    first = err.getvalue().splitlines()[0]
    assert first.startswith(f"<command line>:1:{column}: -o "), first
    assert f"the ruleset is read from this file ({read}" in first or f"/{read})" in first, first
    assert {path.name: path.read_bytes() for path in aid_files.iterdir()} == before


def test_aid_writes_beside_the_ruleset(aid_files):
    out, err = io.StringIO(), io.StringIO()
    assert main(["aid", "variant.yaml", "-o", "variant.html"], stdout=out, stderr=err) == 0, err.getvalue()
    assert (aid_files / "variant.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# ---- in the browser ----------------------------------------------------------------------------


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (CI is set: .ci/run installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


BROWSER_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
]


def browse(browser: str, page: Path, mode: list[str]) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [browser, *BROWSER_FLAGS, f"--user-data-dir={profile}", *mode, page.as_uri()],
            check=False, capture_output=True, text=True, timeout=120,  # callers read the exit code and stderr
        )


def render(browser: str, page: Path) -> tuple[bytes, str]:
    """(PNG bytes of the top of the page, the DOM after loading)."""
    png = page.with_suffix(".png")
    shot = browse(browser, page, [f"--screenshot={png}", "--window-size=1200,2000"])
    assert png.is_file(), shot.stderr[-2000:]
    dom = browse(browser, page, ["--dump-dom"])
    assert dom.returncode == 0, dom.stderr[-2000:]
    return png.read_bytes(), dom.stdout


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB(A) pixels of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat, header = 8, b"", None
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        chunk = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        position += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    assert depth == 8 and colour_type in (2, 6) and interlace == 0, header
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, [_rgb(r, channels) for r in rows]


def _rgb(row: bytes, channels: int) -> bytes:
    if channels == 3:
        return row
    return b"".join(row[i:i + 3] for i in range(0, len(row), 4))


def ink(png: bytes) -> tuple[float, int]:
    """Share of pixels that are not white, and how many distinct colours (sampled every 4th pixel)."""
    width, height, rows = png_pixels(png)
    inked, colours, seen = 0, set(), 0
    for y in range(0, height, 4):
        row = rows[y]
        for x in range(0, width, 4):
            pixel = row[x * 3:x * 3 + 3]
            seen += 1
            colours.add(pixel)
            if pixel != b"\xff\xff\xff":
                inked += 1
    return inked / seen, len(colours)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Every bundled ruleset's aid, rendered in Chromium (in parallel): name -> (summary, png, dom)."""
    browser = chromium()
    folder = tmp_path_factory.mktemp("aids")

    def one(name: str):
        page, summary = player_aid(load_ruleset(name))
        path = folder / f"{name}.html"
        path.write_text(page, encoding="utf-8")
        png, dom = render(browser, path)
        return name, (summary, png, dom)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(one, AIDS))


@pytest.mark.parametrize("name", AIDS)
def test_bundled_aid_in_the_browser(rendered, name):
    summary, png, dom = rendered[name]
    elements = parse(dom)
    ruleset = load_ruleset(name)
    assert elements.count("table", "crt") == len(ruleset.tables)
    assert elements.count("table", "heat") == summary["heat_maps"]
    assert elements.count("script") == 0
    text = elements.all_text()
    assert ruleset.title in text
    for table in ruleset.tables.values():
        assert table.title in text
    for aid in summary["aids"]:
        assert aid["title"] in text
    share, colours = ink(png)
    assert share > 0.02, f"the page looks blank ({share:.1%} of pixels inked)"
    assert colours > 8


def test_the_bundled_rulesets_declare_heat_maps(rendered):
    # every base ruleset carries an aids: section (a modder chooses what a player sees); surface_combat's
    # and eia's include combat: gunnery by AF x DF and by range, and a shot by shooter x target kind
    for name in ("eto", "great_war", "naval_mines", "eia", "surface_combat"):
        assert rendered[name][0]["heat_maps"] >= 1, name
    combat = {name: [aid["procedure"] for aid in rendered[name][0]["aids"]] for name in ("eia", "surface_combat")}
    assert "shot" in combat["eia"] and "battle" in combat["eia"]
    assert combat["surface_combat"].count("gunnery_attack") == 3 and "disengagement_roll" in combat["surface_combat"]
    assert all(not any(aid["constant"]) for name in AIDS for aid in rendered[name][0]["aids"])  # check warns of none


def test_hostile_ruleset_in_the_browser(hostile, tmp_path):
    browser = chromium()
    page, _ = player_aid(hostile)
    path = tmp_path / "hostile.html"
    path.write_text(page, encoding="utf-8")
    png, dom = render(browser, path)
    elements = parse(dom)
    # the browser made no script, image or link element out of the ruleset's strings ...
    assert elements.count("script") == 0
    assert elements.count("img") == 0
    assert all(tag != "a" or attributes.get("href", "").startswith("#") for tag, attributes in elements.tags)
    assert not any(name.startswith("on") for _, attributes in elements.tags for name in attributes)
    # ... and shows every one of them as text
    text = elements.all_text()
    for written in HOSTILE_STRINGS:
        assert written in text, written
    assert elements.count("table", "heat") == 1
    assert ink(png)[0] > 0.02


# ---- percentages, constant maps, budgets per cell, bar charts, the card, sources (issue 25) -------

CHARTS = """\
wartable: 1
name: charts
title: "Charts"
source: "Rules of play, 2nd edition (seed 009, shared/seeds/009_abcdef.txt)"
version: "1"
procedures:
  shoot:
    title: "Shoot"
    rule: "Roll a die: a hit on the number needed or more. Bonus never matters here."
    inputs:
      need: {type: int, min: 1, max: 7, default: 4}
      bonus: {type: int, min: 0, max: 3, default: 0}
    body: |
      let die = 1d6
      if die >= need or bonus > 10 then
        outcome hit
      end
      outcome miss
aids:
  - title: "By need"
    procedure: shoot
    rows: {over: need, from: 5, to: 6}
    show: {probability: hit}
  - title: "By bonus"
    procedure: shoot
    rows: {over: bonus, from: 0, to: 3}
    show: {probability: hit}
  - title: "One shot"
    procedure: shoot
    inputs: {need: 5}
"""
# Counted by hand: a d6 hits on 5 or 6 with need 5 (2 of 6: 1/3, 33.3%), on 6 with need 6 (1/6, 16.7%).
# "By bonus" sweeps an input that never matters: every cell is P(d6 >= 4) = 3/6 = 50.0%.  "One shot" has
# no rows: a bar chart of need 5, hit 1/3 and miss 2/3.  aids: is line 19; the titles are on lines 20, 24
# and 28, their values in column 12 ("  - title: " is 11 characters).


@pytest.fixture
def charts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("charts.yaml").write_text(CHARTS, encoding="utf-8")
    return load_ruleset("charts.yaml")


def test_heat_map_cells_lead_with_the_percentage(charts):
    page, _ = player_aid(charts)
    cells = re.findall(r'<td style="[^"]*" title="([^"]*)">([^<]*)<span class="frac">([^<]*)</span></td>', page)
    assert ("1/3", "33.3%", "1/3") in cells and ("1/6", "16.7%", "1/6") in cells


def test_a_constant_heat_map_is_said_under_it_and_warned_of_by_check(charts):
    page, summary = player_aid(charts)
    assert [aid["constant"] for aid in summary["aids"]] == [[False], [True], []]
    assert page.count('<p class="constant">') == 1
    assert "Every cell is 50.0%: the swept inputs do not change these odds." in page
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "charts.yaml"], stdout=out, stderr=err) == 0  # a warning: the check passes
    assert err.getvalue().splitlines()[0] == (
        "charts.yaml:24:12: warning: heat map 'By bonus' (probability of hit): every cell is 50.0%: the swept inputs change nothing here"
    )
    out = io.StringIO()
    assert main(["check", "charts.yaml", "--format", "json"], stdout=out, stderr=io.StringIO()) == 0
    (entry,) = json.loads(out.getvalue())["rulesets"]
    assert [(w["line"], w["column"], w["severity"]) for w in entry["warnings"]] == [(24, 12, "warning")]


def test_an_entry_without_rows_is_a_bar_chart(charts):
    page, summary = player_aid(charts)
    assert summary["bar_charts"] == 1 and summary["heat_maps"] == 2
    svg = re.search(r'<figure class="bars">(<svg.*?</svg>)', page, re.DOTALL).group(1)
    root = ET.fromstring(svg)  # well-formed XML inside the page
    bars = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "bar"]
    assert [float(b.get("width")) for b in bars] == [100.0, 200.0]  # hit 1/3, miss 2/3 of a 300-pixel axis
    assert [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "pct"] == ["33.3%", "66.7%"]


def test_sources_are_cited_without_repository_paths(charts):
    page, _ = player_aid(charts)
    assert "shared/seeds" not in page
    assert "Rules of play, 2nd edition (seed 009) · version 1" in page
    assert source_text("A WWI naval table set (seed 004, shared/seeds/004_cc367cdc161e1231.txt)") == "A WWI naval table set (seed 004)"
    assert source_text("see https://example.com/rules/v2.pdf, p. 3") == "see https://example.com/rules/v2.pdf, p. 3"
    assert source_text("rules 1/2 and ./notes/x.md") == "rules 1/2 and"
    for name in AIDS:
        assert "shared/" not in player_aid(load_ruleset(name))[0], name


def test_the_card_leaves_procedure_listings_out(charts):
    page, summary = player_aid(charts, card=True)
    elements = parse(page)
    assert elements.count("body", "card") == 1
    assert elements.count("ol", "steps") == 0  # no listings ...
    # ... one line per procedure: its title and its rule's first sentence
    assert '<li id="proc-shoot"><b>Shoot</b>: <span class="cite">Roll a die: a hit on the number needed or more.</span></li>' in page
    assert elements.count("table", "heat") == summary["heat_maps"] == 2


def test_aid_card_on_the_command_line(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "eia-card.html"
    assert main(["aid", "eia", "--card", "-o", str(target)], stdout=out, stderr=err) == 0, err.getvalue()
    page = target.read_text(encoding="utf-8")
    assert '<body class="card">' in page and 'class="steps"' not in page


BUDGETED = """\
wartable: 1
name: budgeted
title: "Budgeted"
source: "tests"
version: "1"
procedures:
  roll:
    title: "Roll"
    rule: "r"
    inputs:
      count: {type: int, min: 1, max: 8}
    body: |
      let total = dice(count, 6)
      if total >= 4 * count then
        outcome high
      end
      outcome low
aids:
  - title: "High rolls"
    procedure: roll
    rows: {over: count, from: 1, to: 8}
    show: {probability: high}
"""
# Work measured with the API (odds under a fresh Budget): about 90 units for one die, 730 for eight, plus a
# cell's own charge (EXACT_CALL_WORK, 64): the dearest cell near 800, the eight together near 3,700.
# A budget of 1,500 holds any one cell (almost twice over) and not all eight (less than half).


def test_each_heat_map_cell_has_a_work_budget_of_its_own(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("budgeted.yaml").write_text(BUDGETED, encoding="utf-8")
    ruleset = load_ruleset("budgeted.yaml")
    page, summary = player_aid(ruleset, limits=Limits(max_work=1_500))
    assert summary["heat_maps"] == 1 and "50.0%" in page  # one die: 4, 5 or 6 of 6
    with pytest.raises(LimitExceeded, match="more than 50 units of work"):
        player_aid(ruleset, limits=Limits(max_work=50))  # a cell's own budget still holds
    warnings = aid_warnings(ruleset, Limits(max_work=50))
    assert [w.message.split(" units")[0] for w in warnings] == [
        "warning: this chart would not be drawn: player aid 'High rolls' at count = 1: this procedure needs more than 50"
    ]
    assert (warnings[0].line, warnings[0].column) == (19, 12)


def test_an_entry_may_raise_its_cells_budget(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("budgeted.yaml").write_text(BUDGETED + "    max_work: 1500\n", encoding="utf-8")
    page, _ = player_aid(load_ruleset("budgeted.yaml"), limits=Limits(max_work=50))
    assert "50.0%" in page


@pytest.mark.parametrize("entry, line, column, message", [
    # aids: is line 18, the entry's title line 19; "    columns: " is 13 characters, "    show: " 10
    ('  - title: "c"\n    procedure: roll\n    columns: {over: count, from: 1, to: 2}\n', 21, 14,
     "columns: without rows: give rows: first (or neither, for a bar chart)"),
    ('  - title: "p"\n    procedure: roll\n    inputs: {count: 1}\n    show: {probability: high}\n', 22, 11,
     "a bar chart (no rows:) shows outcomes: sweep rows: to show one probability or a mean"),
])
def test_a_bar_chart_entry_is_checked(tmp_path, monkeypatch, entry, line, column, message):
    monkeypatch.chdir(tmp_path)
    text = BUDGETED.split("  - title:")[0] + entry
    Path("bars.yaml").write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "bars.yaml"], stdout=out, stderr=err) == 1
    assert err.getvalue().splitlines()[0] == f"bars.yaml:{line}:{column}: {message}"


# ---- printed: page counts on A4 and Letter ------------------------------------------------------

# Pages printed by Chromium (default margins, no header or footer), measured when this was written and
# stated here with a page or a tenth of room for fonts: the full aid (before issue 25: eia 60 A4 and 60
# Letter pages, great_war 29/30, surface_combat 25/29 with no odds) and the card (aid --card).
FULL_PAGES = {
    "eia": (55, 57), "eia_modified_six": (56, 58), "eto": (5, 6), "eto_one_more_pip": (6, 6), "great_war": (28, 30),
    "naval_mines": (8, 9), "surface_combat": (29, 31), "surface_combat_breakoff_strength": (30, 31),
}
CARD_PAGES = {"eia": (4, 5), "eto": (1, 1), "great_war": (5, 6), "naval_mines": (2, 2), "surface_combat": (4, 4)}
PAPER = ("A4", "letter")
# Each Chromium print costs a second or two of CPU: every aid on Letter (the measure), the base
# rulesets on A4 too (a variant's page differs from its base's by a line or two), the longest cards on both.
BASES = ("eia", "eto", "great_war", "naval_mines", "surface_combat")
LONGEST = ("eia", "great_war", "surface_combat")


def pdf_pages(data: bytes) -> list[bytes]:
    """Each page's content stream, decompressed (Chromium's PDF: one FlateDecode stream per page)."""
    objects = {int(m.group(1)): m.group(2) for m in re.finditer(rb"(\d+) 0 obj(.*?)endobj", data, re.DOTALL)}
    contents = []
    for body in objects.values():
        if not re.search(rb"/Type\s*/Page(?![s\w])", body):
            continue
        reference = re.search(rb"/Contents\s+(\d+)\s+0\s+R", body)
        assert reference is not None, body[:200]
        stream = objects[int(reference.group(1))]
        raw = stream[stream.index(b"stream") + len(b"stream"):].lstrip(b"\r\n")
        raw = raw[:raw.rindex(b"endstream")]
        contents.append(zlib.decompress(raw) if b"/FlateDecode" in stream[:200] else raw)
    return contents


def print_pdf(browser: str, page: str, folder: Path, name: str, paper: str) -> list[bytes]:
    path = folder / f"{name}-{paper}.html"
    path.write_text(page.replace("<style>", f"<style>@page {{ size: {paper}; }}", 1), encoding="utf-8")
    pdf = path.with_suffix(".pdf")
    done = browse(browser, path, [f"--print-to-pdf={pdf}", "--no-pdf-header-footer"])
    assert pdf.is_file(), done.stderr[-2000:]
    return pdf_pages(pdf.read_bytes())


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """(name, card?, paper) -> each page's content stream, for every bundled aid and the cards above."""
    browser = chromium()
    folder = tmp_path_factory.mktemp("printed")
    jobs = [(name, False, paper) for name in AIDS for paper in PAPER if paper == "letter" or name in BASES]
    jobs += [(name, True, paper) for name in CARD_PAGES for paper in PAPER if paper == "letter" or name in LONGEST]
    pages = {(name, card): player_aid(load_ruleset(name), card=card)[0] for name, card, _ in jobs}

    def one(job):
        name, card, paper = job
        return job, print_pdf(browser, pages[(name, card)], folder, f"{name}{'-card' if card else ''}", paper)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, jobs))


def test_every_bundled_ruleset_has_a_stated_page_count():
    assert sorted(FULL_PAGES) == AIDS


PRINTED_AIDS = [(name, paper) for name in AIDS for paper in PAPER if paper == "letter" or name in BASES]
PRINTED_CARDS = [(name, paper) for name in sorted(CARD_PAGES) for paper in PAPER if paper == "letter" or name in LONGEST]


@pytest.mark.parametrize("name, paper", PRINTED_AIDS)
def test_the_printed_aid_fits_its_pages_and_none_is_empty(printed, name, paper):
    pages = printed[(name, False, paper)]
    assert 1 <= len(pages) <= FULL_PAGES[name][PAPER.index(paper)], len(pages)
    for number, content in enumerate(pages, 1):
        assert b"Tj" in content or b"TJ" in content, f"page {number} of {len(pages)} has no text"


@pytest.mark.parametrize("name, paper", PRINTED_CARDS)
def test_the_printed_card_is_short(printed, name, paper):
    pages = printed[(name, True, paper)]
    assert 1 <= len(pages) <= CARD_PAGES[name][PAPER.index(paper)], len(pages)
    assert all(b"Tj" in content or b"TJ" in content for content in pages)
    assert len(pages) < len(printed[(name, False, paper)]) or len(pages) == 1


@pytest.mark.parametrize("name", ["eia", "surface_combat"])
def test_the_card_in_the_browser_shows_its_heat_maps(name, tmp_path):
    browser = chromium()
    page, summary = player_aid(load_ruleset(name), card=True)
    path = tmp_path / f"{name}-card.html"
    path.write_text(page, encoding="utf-8")
    dom = browse(browser, path, ["--dump-dom"])
    assert dom.returncode == 0, dom.stderr[-2000:]
    elements = parse(dom.stdout)
    assert summary["heat_maps"] >= 3
    assert elements.count("table", "heat") == summary["heat_maps"]
    assert elements.count("figure", "bars") == summary["bar_charts"] == 1
    assert elements.count("rect", "bar") >= 3  # the bar chart's SVG made it into the DOM
    assert elements.count("ol", "steps") == 0
