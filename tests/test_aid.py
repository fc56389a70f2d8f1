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
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest

from interpreter import load_ruleset
from interpreter.aid import colour, player_aid
from interpreter.cli import main
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
"""
HOSTILE_STRINGS = [
    f"Title {EVIL} \"double\" & 'single'", "<img src=x onerror=alert(1)>", "Note text " + EVIL, "Table <script>x()</script>",
    "</td></tr></table><script>alert(5)</script>", "Label " + EVIL, "Shoot <script>alert(7)</script>", "Heat map " + EVIL,
    "plain " + EVIL, "Range <b>hexes</b>", "<b>topic</b>",
]


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("hostile.yaml").write_text(HOSTILE, encoding="utf-8")
    return load_ruleset("hostile.yaml")


def test_hostile_strings_are_escaped_in_the_page(hostile):
    page, summary = player_aid(hostile)
    assert summary["heat_maps"] == 1
    assert "<script" not in page.lower()
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
    # eto, great_war, naval_mines and eia carry aids: sections (a modder chooses what a player sees)
    for name in ("eto", "great_war", "naval_mines", "eia"):
        assert rendered[name][0]["heat_maps"] >= 1, name


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
