"""Bad rulesets: every file in tests/bad_rulesets/ must be refused with
exactly the diagnostics its leading comment announces.

Each file starts with one or more lines

    # expect: LINE:COLUMN: FRAGMENT

A file whose every FRAGMENT starts ``warning:`` is a lint case instead: it
loads, the lint pass (interpreter/lint.py) gives exactly those warnings,
``check`` prints them and passes, and ``check --strict`` fails on them.

(1-based, counted by hand in the file itself; FRAGMENT is part of the
message).  Loading the file must raise RulesetError whose diagnostics hold
every expectation, and no others: ``check`` reports every error, not just the
first.  ``wartable check FILE`` must exit 1 and print the first diagnostic as
``FILE:LINE:COLUMN: message`` with the offending line and a caret, never a
traceback.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.errors import RulesetError
from interpreter.loader import load_ruleset

BAD = Path(__file__).resolve().parent / "bad_rulesets"
CASES = sorted(BAD.glob("*.yaml"))
EXPECT = re.compile(r"^#\s*expect:\s*(\d+):(\d+):\s?(.*\S)\s*$")

# Files whose diagnostics are wrong today: bugs in interpreter/, each named
# precisely.  strict=True: when the bug is fixed the test XPASSes and fails,
# so the mark is removed with the fix.
POSITION_BUGS: dict[str, str] = {}  # file name -> the bug (wrong position or message)
COUNT_BUGS: dict[str, str] = {}  # file name -> the bug (missing or extra diagnostics)


def expectations(path: Path) -> list[tuple[int, int, str]]:
    """The (line, column, fragment) triples of the file's leading comment."""
    found = []
    for line in path.read_bytes().decode("utf-8", errors="replace").splitlines():
        if not line.startswith("#"):
            break
        match = EXPECT.match(line)
        if match:
            found.append((int(match[1]), int(match[2]), match[3]))
    return found


def file_line(path: Path, line: int) -> str:
    return path.read_bytes().decode("utf-8", errors="replace").splitlines()[line - 1]


def is_lint_case(path: Path) -> bool:
    return all(fragment.startswith("warning:") for _, _, fragment in expectations(path))


def cases(bugs: dict[str, str]) -> list:
    return [
        pytest.param(path, id=path.stem, marks=[pytest.mark.xfail(strict=True, reason=bugs[path.name])] if path.name in bugs else [])
        for path in CASES if not is_lint_case(path)
    ]


LINT_CASES = [pytest.param(path, id=path.stem) for path in CASES if is_lint_case(path)]


def show(diagnostics) -> str:
    return "\n".join(f"  {d.file}:{d.line}:{d.column}: {d.message}" for d in diagnostics)


def test_the_collection_is_complete():
    assert len(CASES) >= 30
    for path in CASES:
        assert expectations(path), f"{path.name} has no `# expect: LINE:COLUMN: fragment` line"
    several = [path.name for path in CASES if len(expectations(path)) >= 2]
    assert len(several) >= 2, several
    for name in list(POSITION_BUGS) + list(COUNT_BUGS):
        assert (BAD / name).is_file(), name


def test_expect_comments_are_parsed(tmp_path: Path):
    """The harness itself: leading expectations are read, later comments are not."""
    path = tmp_path / "case.yaml"
    path.write_text("# expect: 3:4: unknown name 'x'\n# note\n# expect:  10:1:  two words \nwartable: 1\n# expect: 9:9: ignored\n", encoding="utf-8")
    assert expectations(path) == [(3, 4, "unknown name 'x'"), (10, 1, " two words")]


@pytest.mark.parametrize("path", cases({**POSITION_BUGS, **COUNT_BUGS}))
def test_load_reports_exactly_the_expected_diagnostics(path: Path):
    expected = expectations(path)
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    diagnostics = info.value.diagnostics
    for line, column, fragment in expected:
        assert any(d.line == line and d.column == column and fragment in d.message for d in diagnostics), (
            f"expected {line}:{column}: ...{fragment}... among\n{show(diagnostics)}"
        )
    assert len(diagnostics) == len(expected), f"expected {len(expected)} diagnostics, got\n{show(diagnostics)}"
    for d in diagnostics:
        assert Path(d.file).resolve() == path.resolve(), d.file
        assert d.line_text == file_line(path, d.line)


@pytest.mark.parametrize("path", cases(POSITION_BUGS))
def test_check_command_prints_position_line_and_caret(path: Path, monkeypatch):
    monkeypatch.chdir(BAD)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["check", path.name], stdout=stdout, stderr=stderr)
    err = stderr.getvalue()
    assert code == 1, err
    assert "Traceback" not in err
    assert stdout.getvalue() == ""
    line, column, fragment = min(expectations(path))
    head, shown, caret = err.splitlines()[:3]
    assert head.startswith(f"{path.name}:{line}:{column}: "), err
    assert fragment in head
    assert shown == "    " + file_line(path, line).replace("\t", " ")
    assert caret == " " * (4 + column - 1) + "^"
    for other_line, other_column, other_fragment in expectations(path):
        assert f"{path.name}:{other_line}:{other_column}: " in err
    assert re.search(rf"^FAIL {re.escape(path.name)}: \d+ errors?$", err, re.MULTILINE), err


@pytest.mark.parametrize("path", LINT_CASES)
def test_lint_reports_exactly_the_expected_warnings(path: Path):
    from interpreter.lint import lint

    expected = expectations(path)
    warnings = lint(load_ruleset(path))  # loads: a warning never refuses a ruleset
    for line, column, fragment in expected:
        assert any(d.line == line and d.column == column and fragment in d.message for d in warnings), (
            f"expected {line}:{column}: ...{fragment}... among\n{show(warnings)}"
        )
    assert len(warnings) == len(expected), f"expected {len(expected)} warnings, got\n{show(warnings)}"
    for d in warnings:
        assert d.line_text == file_line(path, d.line)


@pytest.mark.parametrize("path", LINT_CASES)
def test_check_prints_warnings_and_strict_fails_on_them(path: Path, monkeypatch):
    monkeypatch.chdir(BAD)
    line, column, fragment = min(expectations(path))
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(["check", path.name], stdout=stdout, stderr=stderr) == 0, stderr.getvalue()
    head, shown, caret = stderr.getvalue().splitlines()[:3]
    assert head.startswith(f"{path.name}:{line}:{column}: warning: ") and fragment in head
    assert shown == "    " + file_line(path, line).replace("\t", " ")
    assert caret == " " * (4 + column - 1) + "^"
    assert stdout.getvalue().startswith("ok ")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(["check", "--strict", path.name], stdout=stdout, stderr=stderr) == 1
    err = stderr.getvalue()
    assert "Traceback" not in err and stdout.getvalue() == ""
    assert err.splitlines()[0] == head.replace(": warning: ", ": ", 1)
    assert re.search(rf"^FAIL {re.escape(path.name)}: \d+ errors?$", err, re.MULTILINE), err
