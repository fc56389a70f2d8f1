"""What reaches terminals, CI logs and XML readers (issue 21, items 5, 6 and 9).

A ruleset comes from a stranger.  Its strings may hold ESC[2J (clear the
screen), BEL, OSC 52 (``ESC ] 52 ; c ; BASE64 BEL``: write the clipboard), the
one-byte C1 CSI 0x9b, bidirectional overrides, and lines a CI runner reads as
workflow commands (``::add-mask::``).  Every command prints them escaped
(``\\x1b``, ``\\u202e``): its output holds no control character but the tab
and the newline.  JUnit XML stays well-formed for every control character;
GitHub annotations carry user text only escaped; markdown cells stay cells.

The forbidden characters are written out here independently of
``errors.printable`` (a test that used the code under test to check itself
could not fail).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from interpreter.cli import main
from interpreter.errors import Diagnostic, printable

# YAML double-quoted escapes: \e is ESC, \x07 BEL, \x9b the C1 CSI.  The body
# holds a raw U+202E (RIGHT-TO-LEFT OVERRIDE, put in for RLO) in a comment: YAML allows it raw.
HOSTILE = r'''wartable: 1
name: h
title: "hostile \e[2J title \x07 bell \e]52;c;aGk=\x07 osc \x9b c1"
source: "src \e[31m red"
version: "1 \e[2J"
notes:
  - topic: "topic \e[2J"
    text: "text \e]52;c;aGk=\x07"
    seed: "seed \x9b"
constants:
  k:
    value: "const \e[2J"
    rule: "cite \e[2J"
modifiers:
  drm:
    title: "DRM \e[2J"
    rule: "rule \x9b"
    kind: drm
    entries:
      e1: {label: "label \e[2J\x07", value: 1, when: 'side == "a"', rule: "r \e]52;c;aGk=\x07"}
tables:
  crt:
    title: "CRT \e[2J"
    rule: "rule \e]0;pwned\x07"
    rows: {name: "die \x9b"}
    columns:
      name: "side \e[2J"
      entries:
        - {label: "A \e[2J", match: [a]}
        - {label: "B \x9b", match: [b]}
    edges: {rows: error, columns: error}
    cells:
      "1-3": ["hit \e[2K", "x\x07"]
      "4-7": ["miss \x9b", "y"]
  named:
    title: "Named \x9b"
    rule: "r \e[2J"
    rows:
      name: "Side \e]52;c;aGk=\x07"
      headings:
        "A \e[2J": {match: ["a"]}
        "B \x9b": {otherwise: true}
    edges: {rows: error}
    cells:
      "A \e[2J": "row a \e[2J"
      "B \x9b": "row b \x07"
procedures:
  p:
    title: "proc \e[2J"
    rule: "rule \x9b"
    inputs:
      side: {type: enum, values: [a, b, "c \e[2J"], default: a, description: "d \e[2J"}
      count: {type: int, default: 1, min: 0, max: 3}
    body: |
      let x = 1d6 + modifiers drm  # RLO reads backwards
      note "note"
      let r = lookup crt(row = x, column = if side == "b" then "b" else "a")
      let s = lookup named(row = side)
      if x > 3 then
        outcome hit(how = "kill", count = count, where = s)
          rule "cite"
      else
        outcome miss(how = r, count = count, where = s)
      end
examples:
  - name: "ex \e[2J\x07 \x9b"
    rule: "r \e"
    procedure: p
    dice: [4]
    expect: {outcome: miss}
  - name: "odds \e]52;c;aGk=\x07"
    rule: "r"
    procedure: p
    odds:
      - {outcome: hit, probability: "1/3"}
aids:
  - title: "Aid \e[2J"
    procedure: p
    description: "desc \e]52;c;aGk=\x07"
    rows: {over: count, values: [0, 1], title: "N \x9b", labels: ["zero \e[2J", "one \x07"]}
    show: outcomes
'''.replace("RLO", "\u202e")

# Characters no output may hold: C0 but tab and newline, DEL, C1, the line and
# paragraph separators, the bidirectional embeddings, overrides and isolates.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]")


def assert_terminal_safe(text: str) -> None:
    found = FORBIDDEN.search(text)
    assert found is None, f"{found.group()!r} at {found.start()}: {text[max(found.start() - 60, 0):found.start() + 20]!r}"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    where = Path(tmp_path_factory.mktemp("hostile"))
    (where / "h.yaml").write_text(HOSTILE, encoding="utf-8")
    variant = HOSTILE.replace('value: "const \\e[2J"', 'value: "changed \\e]52;c;aGk=\\x07"').replace("name: h\n", "name: v\n", 1)
    (where / "v.yaml").write_text(variant, encoding="utf-8")
    (where / "unknown_key.yaml").write_text(HOSTILE + '"bad \\e[2J\\x07 key": 1\n', encoding="utf-8")
    (where / "raw_esc.yaml").write_text('wartable: 1\nname: h\ntitle: "a \x1b[2J b"\n', encoding="utf-8")
    (where / "raw_c1.yaml").write_text('wartable: 1\nname: h\ntitle: "a \x9b b"\n', encoding="utf-8")
    return where


def run(argv: list[str], folder: Path) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main([str(folder / a) if a.endswith(".yaml") else a for a in argv], stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


ESC_SHOWN = "\\x1b[2J"  # how ESC [ 2 J is printed
OSC_SHOWN = "\\x1b]52;c;aGk=\\x07"
C1_SHOWN = "\\x9b"

# Each command, its exit code and what of the hostile text it must print (escaped): the output
# is checked for what is there, not only for what is not.
COMMANDS = [
    (["check", "h.yaml"], 0, []),
    (["list", "h.yaml"], 0, [ESC_SHOWN, OSC_SHOWN, C1_SHOWN, "src \\x1b[31m red"]),
    (["show", "h.yaml", "crt"], 0, ["CRT " + ESC_SHOWN, "rule \\x1b]0;pwned\\x07", "die " + C1_SHOWN, "A " + ESC_SHOWN, "hit \\x1b[2K"]),
    (["show", "h.yaml", "crt", "--provenance"], 0, ["CRT " + ESC_SHOWN]),
    (["show", "h.yaml", "named"], 0, ["Side " + OSC_SHOWN, "A " + ESC_SHOWN, "row b \\x07"]),
    (["show", "h.yaml", "drm"], 0, ["DRM " + ESC_SHOWN, "label " + ESC_SHOWN + "\\x07"]),
    (["show", "h.yaml", "p"], 0, ["proc " + ESC_SHOWN, "# \\u202e reads backwards"]),
    (["run", "h.yaml", "p", "--seed", "1", "--trace", "--provenance"], 0, ["label " + ESC_SHOWN, "r " + OSC_SHOWN]),
    (["run", "h.yaml", "p", "--set", "side=c \x1b[2J", "--dice", "1"], 0, ["side = c " + ESC_SHOWN]),
    (["run", "h.yaml", "p", "--n", "60", "--seed", "1", "--by", "how,where"], 0, ["where = row a " + ESC_SHOWN]),
    (["odds", "h.yaml", "p"], 0, ["where = row a " + ESC_SHOWN, "hit \\x1b[2K"]),
    (["odds", "h.yaml", "p", "--by", "where"], 0, ["where = row a " + ESC_SHOWN]),
    (["odds", "h.yaml", "p", "--what-if", "drm-1"], 0, ["where = row a " + ESC_SHOWN]),
    (["sweep", "h.yaml", "p", "--over", "side=a,b", "--by", "how"], 0, ["hit \\x1b[2K", "x\\x07"]),
    (["sweep", "h.yaml", "p", "--over", "side=a,b", "--by", "how", "--format", "markdown"], 0, ["hit \\\\x1b[2K"]),
    (["sweep", "h.yaml", "p", "--over", "side=a,b", "--by", "how", "--format", "csv"], 0, ["hit \\x1b[2K"]),
    (["diff", "h.yaml", "v.yaml"], 0, ["changed " + OSC_SHOWN]),
    (["diff", "h.yaml", "v.yaml", "p"], 0, ["changed " + OSC_SHOWN, "where = row a " + ESC_SHOWN]),
    (["test", "h.yaml"], 1, ["FAIL h: ex " + ESC_SHOWN + "\\x07 " + C1_SHOWN, "FAIL h: odds " + OSC_SHOWN]),
    (["aid", "h.yaml"], 0, ["Aid " + ESC_SHOWN, "zero " + ESC_SHOWN]),
    # user errors: the message and the echoed line
    (["check", "unknown_key.yaml"], 1, ["unknown key 'bad \\x1b[2J\\x07 key'", '"bad \\e[2J\\x07 key": 1']),
    (["list", "raw_esc.yaml"], 1, ['title: "a \\x1b[2J b"']),
    (["list", "raw_c1.yaml"], 1, ['title: "a \\x9b b"']),
    (["show", "h.yaml", "\x1b]52;c;aGk=\x07"], 2, [OSC_SHOWN]),
    (["odds", "h.yaml", "p", "--set", "side=\x1b[2J\x9b"], 2, ["not '" + ESC_SHOWN + C1_SHOWN + "'"]),
]


@pytest.mark.parametrize("argv, exit_code, shown", COMMANDS, ids=[" ".join(c[0][:3]) + f" #{i}" for i, c in enumerate(COMMANDS)])
def test_every_command_prints_only_printable_text(argv, exit_code, shown, folder):
    code, out, err = run(argv, folder)
    assert code == exit_code, err
    assert_terminal_safe(out)
    assert_terminal_safe(err)
    for text in shown:
        assert text in out + err


@pytest.mark.parametrize(
    "argv",
    [["list", "h.yaml", "--json"], ["odds", "h.yaml", "p", "--json"], ["test", "h.yaml", "--json"], ["test", "h.yaml", "--format=json"],
     ["show", "h.yaml", "crt", "--json"]],
)
def test_json_is_the_same_data_and_printable(argv, folder):
    _, out, err = run(argv, folder)
    assert_terminal_safe(out)
    assert_terminal_safe(err)
    document = json.loads(out)
    # the data itself is untouched: the raw characters come back from the JSON
    assert any("\x1b[2J" in text for text in _strings(document))
    if argv[0] == "list":
        assert document["title"] == "hostile \x1b[2J title \x07 bell \x1b]52;c;aGk=\x07 osc \x9b c1"


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_the_aid_written_to_a_file_is_printable_too(folder, tmp_path):
    """`aid -o FILE` writes its ruleset strings escaped as the printed page shows them, not raw (a `cat` of the
    file, or a CI step showing it, meets no control sequence; a browser no text reordered by U+202E).  Before, only
    the copy printed to stdout went through the output guard and the file held the raw ESC, BEL and C1 CSI."""
    target = tmp_path / "aid.html"
    code, _, err = run(["aid", "h.yaml", "-o", str(target)], folder)
    assert code == 0, err
    page = target.read_text(encoding="utf-8")
    assert_terminal_safe(page)
    # the aid's title "Aid \e[2J" and its row label "zero \e[2J" (HOSTILE's aids:), shown escaped as on stdout
    assert "Aid " + ESC_SHOWN in page and "zero " + ESC_SHOWN in page


def test_the_aid_charts_drop_bidirectional_overrides(folder, tmp_path):
    # an aid entry without rows is a bar chart drawn by svg_plot, its title and bar labels (an outcome's text field)
    # inline in the page: svg_plot dropped C0 and C1 but let U+202E and U+2066 through
    (tmp_path / "rlo.yaml").write_text(
        'wartable: 1\nname: r\ntitle: "t"\nsource: "s"\nversion: "1"\n'
        'procedures:\n  p:\n    title: "p"\n    rule: "r"\n    body: |\n'
        '      let d = 1d6\n      if d > 3 then\n        outcome hit(how = "high \\u202e hgih")\n      end\n'
        '      outcome miss(how = "low \\u2066 isolate")\n'
        'aids:\n  - title: "Aid \\u202e diA"\n    procedure: p\n    by: [how]\n', encoding="utf-8")
    target = tmp_path / "aid.html"
    code, _, err = run(["aid", str(tmp_path / "rlo.yaml"), "-o", str(target)], folder)
    assert code == 0, err
    page = target.read_text(encoding="utf-8")
    assert "<svg" in page and "Aid" in page
    assert_terminal_safe(page)


def test_the_caret_echo_of_a_raw_escape_lines_up(folder):
    code, _, err = run(["list", "raw_esc.yaml"], folder)
    # YAML refuses the raw ESC at line 3, column 11 (`title: "a ` is 10 characters)
    assert code == 1
    head, line, caret = err.splitlines()[:3]
    assert head.endswith("raw_esc.yaml:3:11: unacceptable character #x001b: control characters are not allowed")
    assert line == '    title: "a \\x1b[2J b"'
    assert caret.index("^") == line.index("\\x1b")


def test_the_default_streams(folder, capsys):
    """main(argv) without streams writes to sys.stdout and sys.stderr, through the same guard."""
    assert main(["list", str(folder / "h.yaml")]) == 0
    assert main(["check", str(folder / "unknown_key.yaml")]) == 1
    captured = capsys.readouterr()
    assert_terminal_safe(captured.out)
    assert_terminal_safe(captured.err)
    assert "hostile " + ESC_SHOWN in captured.out
    assert "unknown key 'bad \\x1b[2J\\x07 key'" in captured.err


def test_the_installed_command(folder):
    """Once through the console script, reading the bytes the terminal would get."""
    script = Path(sys.executable).parent / "wartable"
    if not script.exists():
        pytest.skip("no wartable script beside this Python")
    for argv in (["list", "h.yaml"], ["odds", "h.yaml", "p"], ["test", "h.yaml"], ["list", "raw_esc.yaml"]):
        result = subprocess.run([str(script), *argv], cwd=folder, capture_output=True, timeout=120, check=False)
        for stream in (result.stdout, result.stderr):
            assert not set(stream) & (set(range(0x20)) - {0x09, 0x0A}), stream
            assert_terminal_safe(stream.decode("utf-8"))
        assert b"\\x1b" in result.stdout + result.stderr


# ---- printable and Diagnostic.format ----------------------------------------------------------


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("plain é ü 漢字 \t tab", "plain é ü 漢字 \t tab"),
        ("\x1b[2J", "\\x1b[2J"),
        ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07"),
        ("a\x9bb\x7f\x00", "a\\x9bb\\x7f\\x00"),
        ("one\ntwo\rthree", "one\\x0atwo\\x0dthree"),
        ("\u202eevil\u2066\u2028", "\\u202eevil\\u2066\\u2028"),
        ("\ufffe\uffff\udcff", "\\ufffe\\uffff\\udcff"),
    ],
)
def test_printable(raw, shown):
    assert printable(raw) == shown
    assert printable(shown) == shown  # plain ASCII escapes: twice is once


def test_printable_keeps_newlines_when_asked():
    assert printable("a\nb\r\n", newlines=True) == "a\nb\\x0d\n"


def test_diagnostic_caret_under_the_escaped_line():
    # "ab<ESC>cd", column 5 is "d"; shown "ab\x1bcd": a b \ x 1 b c d, so "d" is the 8th character
    text = Diagnostic("f\x1b.yaml", 1, 5, "bad \x07 thing", "ab\x1bcd").format()
    assert text == "f\\x1b.yaml:1:5: bad \\x07 thing\n    ab\\x1bcd\n           ^"
    # a column past the end of the line keeps its distance from the end
    assert Diagnostic("f", 1, 8, "m", "\x1b").format().splitlines()[2] == "    " + " " * (4 + 6) + "^"


# ---- JUnit: well-formed XML whatever the names hold -------------------------------------------

JUNIT_CHARACTERS = [chr(code) for code in range(0x20)] + ["\ufffe", "\uffff", "\x9b"]


def _expected_in_xml(char: str) -> str:
    """What a character of a name reads as once the XML is parsed: tab and newline as they are,
    the rest as printable escapes (XML 1.0 allows no other C0 control; U+FFFE, U+FFFF are not characters)."""
    if char in "\t\n":
        return char
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def test_junit_is_well_formed_for_every_control_character(tmp_path):
    examples = "".join(
        f'  - name: "ex {i} \\u{ord(char):04x} end"\n    rule: "r \\u{ord(char):04x}"\n    procedure: p\n    dice: [6]\n'
        f'    expect: {{outcome: big, fields: {{v: "v {i} \\u{ord(char):04x}"}}}}\n'
        for i, char in enumerate(JUNIT_CHARACTERS)
    )
    ruleset = (
        'wartable: 1\nname: j\ntitle: "t"\nsource: "s"\nversion: "1"\n'
        "procedures:\n  p:\n    title: \"p\"\n    rule: \"r\"\n    body: |\n"
        "      let x = 1d6\n      if x > 3 then\n        outcome big(v = \"a\")\n      else\n        outcome small\n      end\n"
        "examples:\n" + examples
    )
    name = "rule\x01\x1b\u2028s.yaml"  # the file name is in the XML too
    (tmp_path / name).write_text(ruleset, encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["test", str(tmp_path / name), "--format", "junit"], stdout=stdout, stderr=stderr)
    assert code == 1, stderr.getvalue()
    out = stdout.getvalue()
    assert_terminal_safe(out)
    root = ElementTree.fromstring(out)
    cases = root.findall(".//testcase")
    assert [case.get("name") for case in cases] == [f"ex {i} {_expected_in_xml(c)} end" for i, c in enumerate(JUNIT_CHARACTERS)]
    assert {case.get("file") for case in cases} == {str(tmp_path / "rule\\x01\\x1b\\u2028s.yaml")}
    # each expects a field v the outcome (big, from a 6) does not have: the message names the value
    failures = [case.find("failure") for case in cases]
    assert [f.get("message") for f in failures] == [f"expected v = v {i} {_expected_in_xml(c)}, got a" for i, c in enumerate(JUNIT_CHARACTERS)]
    # check --format junit on a ruleset that fails to load: well-formed too
    (tmp_path / "bad\x1b.yaml").write_text('wartable: 1\nname: "\\e[2J"\n::add-mask::x: 1\n', encoding="utf-8")
    stdout = io.StringIO()
    main(["check", str(tmp_path / "bad\x1b.yaml"), "--format", "junit"], stdout=stdout, stderr=io.StringIO())
    assert_terminal_safe(stdout.getvalue())
    ElementTree.fromstring(stdout.getvalue())
    assert not any(line.lstrip().startswith("::") for line in stdout.getvalue().splitlines())


# ---- GitHub annotations -----------------------------------------------------------------------

WORKFLOW = r'''wartable: 1
name: g
title: "t"
source: "s"
version: "1"
procedures:
  p:
    title: "p"
    rule: "r"
    body: |
      let x = 1d6
      if x > 3 then
        outcome big
      else
        outcome small
      end
examples:
  - name: "::add-mask::secret"
    rule: "r"
    procedure: p
    dice: [1]
    expect: {outcome: big}
  - name: "a\n::stop-commands::token\r\n::error::forged, 100% : \e[2J"
    rule: "r"
    procedure: p
    dice: [1]
    expect: {outcome: big}
'''

GITHUB_LINE = re.compile(r"::error (?P<properties>[^:]*)::(?P<message>.*)")


def _unescape_property(text: str) -> str:
    return text.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def test_github_annotations_escape_user_text(tmp_path):
    (tmp_path / "g.yaml").write_text(WORKFLOW, encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["test", str(tmp_path / "g.yaml"), "--format", "github"], stdout=stdout, stderr=stderr)
    assert code == 1
    assert stderr.getvalue() == ""
    lines = stdout.getvalue().splitlines()
    assert lines[-1] == "wartable test: 0 passed, 2 failed"
    annotations = [GITHUB_LINE.fullmatch(line) for line in lines[:-1]]
    assert len(annotations) == 2 and all(annotations)  # every other line is one of ours, whole
    titles = []
    for match in annotations:
        properties = dict(item.split("=", 1) for item in match["properties"].split(","))
        assert set(properties) == {"file", "line", "col", "title"}
        titles.append(_unescape_property(properties["title"]))
        assert_terminal_safe(match.group())
    assert titles == [
        "wartable test g: ::add-mask::secret",
        "wartable test g: a\n::stop-commands::token\\x0d\n::error::forged, 100% : \\x1b[2J",
    ]


def test_github_format_reports_a_failed_load_as_annotations(tmp_path):
    # the body's second line, echoed raw, would be a workflow command (the runner trims leading blanks)
    (tmp_path / "bad.yaml").write_text(
        'wartable: 1\nname: b\ntitle: "t"\nsource: "s"\nversion: "1"\nprocedures:\n  p:\n    title: "p"\n'
        '    rule: "r"\n    body: |\n      let x = 1d6\n      ::add-mask::secret\n', encoding="utf-8"
    )
    for command in ("test", "check"):
        stdout, stderr = io.StringIO(), io.StringIO()
        code = main([command, str(tmp_path / "bad.yaml"), "--format", "github"], stdout=stdout, stderr=stderr)
        assert code == 1
        for line in (stdout.getvalue() + stderr.getvalue()).splitlines():
            assert GITHUB_LINE.fullmatch(line) or line.startswith(f"wartable {command}:"), line
        assert "line=12,col=7" in stdout.getvalue() + stderr.getvalue()
    # in text form, the echoed line cannot start with a colon either
    stderr = io.StringIO()
    main(["check", str(tmp_path / "bad.yaml")], stdout=io.StringIO(), stderr=stderr)
    assert "      \\x3a:add-mask::secret" in stderr.getvalue()
    assert not any(line.lstrip().startswith(":") for line in stderr.getvalue().splitlines())


# ---- markdown ---------------------------------------------------------------------------------


def test_markdown_cells_stay_in_their_cells(tmp_path):
    table = (
        'wartable: 1\nname: m\ntitle: "t"\nsource: "s"\nversion: "1"\n'
        "tables:\n  t:\n    title: \"t\"\n    rule: \"r\"\n    rows: {name: \"die\"}\n    edges: {rows: error}\n"
        '    cells:\n      "1-2": "a|b"\n      "3-4": "c\\rd"\n      "5-6": "e\\nf\\r\\ng\\\\"\n'
        "procedures:\n  p:\n    title: \"p\"\n    rule: \"r\"\n    inputs: {n: {type: int, default: 0}}\n"
        "    body: |\n      outcome o(v = lookup t(row = 1d6), n = n)\n"
    )
    (tmp_path / "m.yaml").write_text(table, encoding="utf-8")
    stdout = io.StringIO()
    code = main(["sweep", str(tmp_path / "m.yaml"), "p", "--over", "n=0..1", "--by", "v", "--format", "markdown"], stdout=stdout, stderr=io.StringIO())
    assert code == 0
    lines = stdout.getvalue().splitlines()
    assert len(lines) == 4  # header, rule, two rows: no value broke a row
    # unescaped bars only: 5 columns (n, three values, mean n) make 6 bars a line
    assert all(len(re.findall(r"(?<!\\)\|", line)) == 6 for line in lines)
    assert lines[0] == "| n | v = a\\|b | v = c d | v = e f g\\\\ | mean n |"
    assert_terminal_safe(stdout.getvalue())
