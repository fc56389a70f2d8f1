"""Colour: when it is on (a terminal, NO_COLOR, TERM=dumb, --color), what it paints, and what it never touches."""

from __future__ import annotations

import io
import os
import pty
import subprocess

import pytest
from test_cli import installed_wartable

from interpreter.cli import main
from interpreter.colour import paint_line, wanted

ESC = "\x1b"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("choice", "terminal", "environ", "expected"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),  # a pipe or a file
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # no-color.org: set AND not empty
        ("auto", True, {"TERM": "dumb"}, False),
        ("always", False, {"NO_COLOR": "1"}, True),  # the user's explicit word
        ("never", True, {}, False),
    ],
)
def test_when_colour_is_on(choice, terminal, environ, expected):
    stream = Terminal() if terminal else io.StringIO()
    assert wanted(choice, stream, environ) is expected


def test_what_is_painted():
    assert paint_line("ok   eto: Seven zones (rulesdata/eto.yaml:174)") == f"{ESC}[32mok{ESC}[0m   eto: Seven zones (rulesdata/eto.yaml:174)"
    assert paint_line("FAIL r.yaml: 2 errors") == f"{ESC}[1;31mFAIL{ESC}[0m r.yaml: 2 errors"
    assert paint_line("12 passed, 0 failed") == f"{ESC}[32m12 passed, 0 failed{ESC}[0m"
    assert paint_line("11 passed, 1 failed") == f"{ESC}[1;31m11 passed, 1 failed{ESC}[0m"
    assert paint_line("r.yaml:3:7: unknown key") == f"{ESC}[1mr.yaml:3:7:{ESC}[0m unknown key"
    assert paint_line("r.yaml:3:7: warning: unused") == f"{ESC}[1mr.yaml:3:7:{ESC}[0m{ESC}[33m warning:{ESC}[0m unused"
    assert paint_line("      ^") == f"      {ESC}[1;31m^{ESC}[0m"
    for plain in ("", "  roll 1d6: 4", "okay then", "outcome: intercepted(automatic = no)", "means:"):
        assert paint_line(plain) == plain


def run(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_the_command_colours_text_only_when_asked(tmp_path):
    code, out, _ = run(["test", "eto", "--color", "always"])
    assert code == 0 and out.startswith(f"{ESC}[32mok{ESC}[0m   eto:")
    assert ESC not in run(["test", "eto"])[1]  # StringIO is no terminal
    assert ESC not in run(["test", "eto", "--color", "never"])[1]
    assert ESC not in run(["test", "eto", "--color=always", "--json"])[1]  # JSON stays JSON
    assert ESC not in run(["test", "eto", "--color", "always", "--format", "junit"])[1]  # XML stays XML
    bad = tmp_path / "bad.yaml"
    bad.write_text("wartable: 1\nname: x\n", encoding="utf-8")
    code, _, err = run(["check", str(bad), "--color", "always"])
    assert code == 1 and f"{ESC}[1m{bad}:1:1:{ESC}[0m" in err and f"    {ESC}[1;31m^{ESC}[0m" in err


def test_a_ruleset_cannot_send_its_own_escapes_through_the_colour(tmp_path):
    # the title carries ESC ] 0 ; … BEL (retitle the window): it is shown escaped, colour or not
    from conftest import procedure, ruleset_text

    path = tmp_path / "r.yaml"
    path.write_text(ruleset_text({"p": procedure("outcome o", title="\\e]0;owned\\a")}), encoding="utf-8")
    code, out, _ = run(["list", str(path), "--color", "always"])
    assert code == 0
    assert "\\x1b]0;owned\\x07" in out and f"{ESC}]" not in out


@pytest.mark.parametrize(("no_color", "coloured"), [("", True), ("1", False)])
def test_the_installed_command_on_a_terminal(tmp_path, no_color, coloured):
    master, slave = pty.openpty()
    environ = {**os.environ, "NO_COLOR": no_color, "TERM": "xterm"}
    process = subprocess.Popen([str(installed_wartable()), "test", "eto"], cwd=tmp_path, stdout=slave, stderr=slave, env=environ)
    os.close(slave)
    shown = b""
    try:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        assert process.wait(timeout=120) == 0  # a backstop for a hung child, not a measure of speed
    finally:
        process.kill()
        os.close(master)
    assert (b"\x1b[32mok\x1b[0m" in shown) is coloured, shown[:300]
