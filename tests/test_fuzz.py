"""Fuzzing: whatever a stranger writes, wartable answers with its own errors, never a crash.

Three generators, each asserting only that every failure is one of the
project's own (a positioned message and exit code 1 or 2) and never a
Python exception escaping ``main``:

- mutated bundled rulesets (lines deleted, doubled, re-indented; values
  swapped for hostile ones: huge numbers, tags, aliases, odd characters);
- generated procedure bodies (random statements and expressions over a
  small set of names, literals and built-ins), checked, then resolved and
  counted exactly under small budgets;
- random command lines over the real commands and flags.

Bounded to about a minute in all; ``WARTABLE_FUZZ_SCALE=20`` runs twenty
times as many cases (the figures in the README's Safety section come from
such a run).
"""

from __future__ import annotations

import io
import json
import os
import textwrap
import traceback

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from interpreter.cli import main
from interpreter.resources import bundled_ruleset

SCALE = int(os.environ.get("WARTABLE_FUZZ_SCALE", "1"))
FUZZ = settings(
    max_examples=60 * SCALE,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
# Small budgets keep every case quick; breaching them is a correct answer too.
BUDGET = ["--max-work", "20000", "--timeout", "2"]


def run_cli(argv: list[str]) -> tuple[int, str]:
    """Exit code and stderr; an exception escaping main is a bug and fails the test with its traceback."""
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        code = main(argv, stdout=stdout, stderr=stderr)
    except Exception:  # noqa: BLE001 - the point of the test
        pytest.fail(f"wartable {argv!r} raised:\n{traceback.format_exc()}")
    err = stderr.getvalue()
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err
    if code:
        # `check --json` reports a ruleset's problems in its JSON document on stdout (its result, not an error)
        said = err.strip() or ("--json" in argv and json.loads(stdout.getvalue())["ok"] is False)
        assert said, f"exit {code} with no message: {argv!r}"
    return code, err


# ---- mutated bundled rulesets ---------------------------------------------------------------------------------

HOSTILE_VALUES = [
    "9" * 30, "9" * 5000, "-99999999999999999999", "0", "-1", "1d100000000", "100000d6", "1-999999999", '"1/0"',
    "[]", "{}", "~", '""', "&a x", "*a", "!!python/object:os.system x", "!!binary aGk=", "<<", "NO", "on", "010",
    "0x1F", "1:30", "2001-12-14", ".nan", '"\\u2028"', '"\\x00"', "'", '"', "|", ">-", "- -", "? x", "%YAML 1.1",
    '"../../etc/passwd"', '"/proc/self/environ"', '"' + "x" * 3000 + '"', "é", "🂡", "\t", "[[[[[[[[[[", "}}}",
]
RULESET_FILES = ["eto", "naval_mines", "great_war"]
SOURCES = {name: bundled_ruleset(name).read_text(encoding="utf-8").splitlines() for name in RULESET_FILES}


@st.composite
def mutated_ruleset(draw) -> str:
    lines = list(SOURCES[draw(st.sampled_from(RULESET_FILES))])
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["value", "value", "delete", "double", "indent", "insert", "token"]))
        line = lines[index]
        if kind == "value" and ":" in line:
            key = line.split(":", 1)[0]
            lines[index] = f"{key}: {draw(st.sampled_from(HOSTILE_VALUES))}"
        elif kind == "delete":
            del lines[index]
        elif kind == "double":
            lines.insert(index, line)
        elif kind == "indent":
            lines[index] = " " * draw(st.integers(0, 12)) + line.lstrip()
        elif kind == "insert":
            lines.insert(index, " " * draw(st.integers(0, 8)) + draw(st.sampled_from(HOSTILE_VALUES)))
        else:  # a word of the line (often a DSL token inside a body) swapped for another
            words = line.split(" ")
            position = draw(st.integers(0, len(words) - 1))
            words[position] = draw(st.sampled_from(HOSTILE_VALUES + ["end", "then", "do", "(", ")", "1d6", "resolve", "lookup", "set", "x"]))
            lines[index] = " ".join(words)
        if not lines:
            lines = ["x"]
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=mutated_ruleset())
def test_mutated_rulesets_fail_only_with_positioned_errors(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "ruleset.yaml"
    path.write_text(text, encoding="utf-8")
    code, err = run_cli(["check", str(path)])
    if code == 0:
        run_cli(["test", str(path)] + BUDGET)
    elif code == 1:
        assert f"{path.name}:" in err or "ruleset.yaml" in err or "<" in err, err


# ---- generated procedure bodies ---------------------------------------------------------------------------------

NAMES = ["x", "xs", "n", "flag", "things", "unit", "r"]
INT_LITERALS = st.sampled_from(["0", "1", "6", "-3", "4611686018427387904", "9" * 25])
LEAVES = st.one_of(
    INT_LITERALS, st.sampled_from(NAMES), st.sampled_from(['"a"', '""', '"\\"__import__(\'os\')"', "true", "false", "[]", "[1, 2]", '["a"]']),
    st.sampled_from(["1d6", "2d6", "d3", "1d1000", "dice(2, 6)", "1 .. 3", "1 .. 100000"]),
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "//", "%", "==", "!=", "<", ">=", "and", "or", "in", "not in", ".."]), children)
    return st.one_of(
        binary.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        children.map(lambda c: f"not {c}"),
        children.map(lambda c: f"-{c}"),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(children, st.sampled_from(["kind", "strength", "outcome", "x", "code"])).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(st.sampled_from(["min", "max", "sum", "count", "abs", "any", "all", "append", "repeat", "remove_at", "ceil_div", "ratio", "with_field"]),
                  st.lists(children, min_size=0, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(st.sampled_from(["sum", "count", "list", "sort", "max", "any"]), children, children).map(lambda t: f"{t[0]}({t[1]} for y in {t[2]})"),
        st.tuples(children, children, children).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        children.map(lambda c: f"lookup hits(row = {c})"),
        st.just("modifiers drms"),
        children.map(lambda c: f"resolve q(n = {c})"),
    )


EXPRESSIONS = st.recursive(LEAVES, _combine, max_leaves=8)


def _statements(depth: int) -> st.SearchStrategy[list[str]]:
    simple = st.one_of(
        st.tuples(st.sampled_from(NAMES), EXPRESSIONS).map(lambda t: [f"let {t[0]} = {t[1]}"]),
        st.tuples(st.sampled_from(NAMES), EXPRESSIONS).map(lambda t: [f"set {t[0]} = {t[1]}"]),
        EXPRESSIONS.map(lambda e: [f'require {e}, "a rule"']),
        st.just(['note "hi"']), st.just(["break"]),
        EXPRESSIONS.map(lambda e: [f"outcome done(x = {e})"]),
    )
    if depth == 0:
        return simple
    inner = st.lists(_statements(depth - 1), min_size=1, max_size=3).map(lambda blocks: [line for block in blocks for line in block])
    indented = inner.map(lambda lines: ["  " + line for line in lines])
    return st.one_of(
        simple,
        st.tuples(EXPRESSIONS, indented).map(lambda t: [f"if {t[0]} then", *t[1], "end"]),
        st.tuples(EXPRESSIONS, indented).map(lambda t: [f"for i in {t[0]} do", *t[1], "end"]),
        st.tuples(EXPRESSIONS, indented).map(lambda t: [f"while {t[0]} limit 5 do", *t[1], "end"]),
    )


BODIES = st.lists(_statements(2), min_size=1, max_size=5).map(lambda blocks: [line for block in blocks for line in block] + ["outcome last"])

GENERATED_RULESET = """\
wartable: 1
name: fuzzed
title: "fuzzed"
source: "tests"
version: "1"
types:
  unit:
    fields:
      kind: {{type: enum, values: [ship, sub]}}
      strength: {{type: int}}
constants:
  things: {{value: [1, 2, 3], rule: "r"}}
tables:
  hits:
    title: "Hits"
    rule: "r"
    rows: {{name: "Die", dice: 1d6}}
    edges: {{rows: clamp}}
    cells: {{"1-2": 0, "3-5": 1, "6": 2}}
modifiers:
  drms:
    kind: drm
    rule: "r"
    entries:
      big: {{label: "big", value: 1, when: "n > 2", rule: "r"}}
procedures:
  q:
    title: "q"
    rule: "r"
    inputs: {{n: {{type: int}}}}
    body: |
      let d = 1d6
      outcome r(x = d + n)
  p:
    title: "p"
    rule: "r"
    inputs:
      n: {{type: int, default: 2}}
      flag: {{type: bool, default: true}}
      unit: {{type: unit, default: {{kind: ship, strength: 3}}}}
    body: |
{body}
"""


@FUZZ
@given(body=BODIES)
def test_generated_procedures_fail_only_with_positioned_errors(tmp_path_factory, body):
    path = tmp_path_factory.mktemp("fuzz") / "ruleset.yaml"
    path.write_text(GENERATED_RULESET.format(body=textwrap.indent("\n".join(body), "      ")), encoding="utf-8")
    code, _ = run_cli(["check", str(path)])
    if code == 0:
        run_cli(["odds", str(path), "p"] + BUDGET)
        run_cli(["run", str(path), "p", "--seed", "1"] + BUDGET)
        run_cli(["run", str(path), "p", "--n", "20", "--seed", "2"] + BUDGET)


# ---- command lines ----------------------------------------------------------------------------------------------

ARGUMENTS = [
    "check", "test", "list", "show", "run", "odds", "diff", "eto", "eto_one_more_pip", "naval_mines", "interception",
    "naval_interception", "--set", "zones=7", "zones=0", "zones=" + "9" * 5000, "zones=[1", "from_us_box=maybe", "--seed", "--dice",
    "4,2,6", "4,,6", "99", "-1", "--n", "10", "0", "--json", "--trace", "--provenance", "--choose", "x=y", "--situation",
    "/etc/passwd", "/proc/self/environ", "../x.yaml", "--what-if", "interception_drms+1", "us_box_zones=" + "9" * 50,
    "--max-work", "--max-states", "--timeout", "nan", "1e400", "", "\x00", "=", "--", "-h",
]


@FUZZ
@given(argv=st.lists(st.sampled_from(ARGUMENTS), min_size=0, max_size=8))
@example(argv=["check", "--json", "/etc/passwd"])  # found at WARTABLE_FUZZ_SCALE=60: the problems are in the JSON
def test_random_command_lines_fail_only_with_positioned_errors(argv):
    if "-h" in argv or "--help" in argv:
        argv = [a for a in argv if a not in ("-h", "--help")]  # help prints and exits 0; nothing to fuzz
    if "--max-work" not in argv:
        argv = argv + ["--max-work", "20000"] if argv[:1] in (["run"], ["odds"], ["diff"], ["test"]) else argv
    run_cli(argv)
