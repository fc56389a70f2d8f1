"""The compiled engine against the tree-walking evaluator: identical answers, or identical errors.

``engine="compiled"`` (the default) runs Python generated from each
procedure; ``engine="reference"`` walks the checked IR.  For every example
of every bundled ruleset, and for random procedures, both give the same
exact fractions (truncated mass included), the same outcome of a scripted
or seeded play, and the same Monte Carlo counts for the same seed; where
one fails, the other fails the same way (see ``_same`` for the one
difference exact odds allow).

``WARTABLE_DIFF_EXAMPLES=2000`` runs that many random procedures, drawn
afresh each run, instead of the 150 fixed ones.
"""

from __future__ import annotations

import os
import textwrap
from fractions import Fraction

import pytest
from conftest import procedure
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import load_ruleset, odds, resolve
from interpreter.api import monte_carlo, prepare_inputs
from interpreter.errors import WartableError
from interpreter.inputs import CoercionError, coerce
from interpreter.limits import Limits
from interpreter.resources import bundled_names

MC_TRIALS = 40


def outcome_of(run):
    """('ok', value) or the error as (class, positions and messages): what two engines must agree on."""
    try:
        return ("ok", run())
    except WartableError as error:
        return (type(error).__name__, tuple((d.file, d.line, d.column, d.message) for d in error.diagnostics))


def exact(ruleset, name, inputs, choices=None, limits=None):
    def run(engine):
        def go():
            distribution = odds(ruleset, name, inputs, choices=choices, limits=limits, engine=engine)
            return dict(distribution.outcomes), distribution.truncated
        return outcome_of(go)
    return run("compiled"), run("reference")


def play(ruleset, name, inputs, choices=None, dice=None, seed=None, limits=None):
    def run(engine):
        def go():
            resolution = resolve(ruleset, name, inputs, choices=choices, dice=dice, seed=seed, trace=False, limits=limits, engine=engine)
            return resolution.outcome, resolution.dice, resolution.unused_dice
        return outcome_of(go)
    return run("compiled"), run("reference")


def sample(ruleset, name, inputs, choices=None, seed=1, trials=MC_TRIALS, limits=None):
    def run(engine):
        return outcome_of(lambda: monte_carlo(ruleset, name, inputs, trials=trials, seed=seed, choices=choices, limits=limits, engine=engine).counts)
    return run("compiled"), run("reference")


def _same(compiled, reference, exact_odds: bool = False) -> None:
    """Equal answers; errors of the same kind, with the same message and position where only one can happen.

    Exact odds run many states at once.  The evaluator runs each statement
    for every state before the next; the compiled engine runs a stretch of
    statements for one state before the next state.  When different states
    fail at different statements, each engine reports the first failure it
    meets, so the two may name different (real) failures.  A play, and a
    Monte Carlo run, follow one path: there the failure is the same.  How
    much work a budget counts also differs between the engines (the
    compiled one counts per pass and per loop round): the breach is the same
    kind, not always at the same statement.
    """
    if compiled[0] == "ok" or reference[0] == "ok":
        assert compiled == reference
        return
    assert compiled[0] == reference[0], (compiled, reference)
    if compiled[0] != "LimitExceeded" and not exact_odds:
        assert compiled == reference


# ---- every example of every bundled ruleset ------------------------------------------------------------------


def _examples():
    cases = []
    for name in bundled_names():
        ruleset = load_ruleset(name)
        for example in ruleset.examples:
            cases.append(pytest.param(ruleset, example, id=f"{name}: {example.name}"))
    return cases


EXAMPLES = _examples()
TALLY = {"examples": 0, "exact": 0, "scripted": 0, "seeded": 0, "sampled": 0}


def _example_inputs(ruleset, example):
    procedure_ = ruleset.compiled.get(example.procedure)
    if procedure_ is None:
        return None
    inputs = {}
    for input_name, value in (example.data.get("inputs") or {}).items():
        spec = procedure_.input(input_name)
        if spec is None:
            return None
        try:
            inputs[input_name] = coerce(value, spec.type, input_name)
        except CoercionError:
            return None
    return inputs


@pytest.mark.parametrize("ruleset, example", EXAMPLES)
def test_every_bundled_example_agrees(ruleset, example):
    inputs = _example_inputs(ruleset, example)
    if inputs is None:
        pytest.skip("the example's inputs do not fit its procedure (its own failure, tested elsewhere)")
    choices = dict(example.data.get("choices") or {})
    name = example.procedure
    TALLY["examples"] += 1
    if "odds" in example.data:
        compiled, reference = exact(ruleset, name, inputs, choices)
        assert compiled == reference
        TALLY["exact"] += 1
    if "expect" in example.data or "violation" in example.data:
        compiled, reference = play(ruleset, name, inputs, choices, dice=example.data.get("dice") or ())
        assert compiled == reference
        TALLY["scripted"] += 1
    for seed in (1, 2):
        compiled, reference = play(ruleset, name, inputs, choices, seed=seed)
        assert compiled == reference
        TALLY["seeded"] += 1
    compiled, reference = sample(ruleset, name, inputs, choices, seed=7)
    assert compiled == reference
    TALLY["sampled"] += 1


# ---- random procedures ---------------------------------------------------------------------------------------


def _typed(draw, kind: str, depth: int, ints: list[str]) -> str:
    """A random expression of one type (int, bool or list of int) over the names in scope."""
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        if kind == "int":
            return draw(st.sampled_from(ints + ["0", "1", "2", "6", "-3", "9223372036854775807", "unit.strength", "count(xs)", "modifiers drms"]))
        if kind == "bool":
            return draw(st.sampled_from(["flag", "b", "true", "false"]))
        return draw(st.sampled_from(["xs", "things", "[]", "[1, 2]", "[3, 1, 2]"]))
    i = lambda: _typed(draw, "int", depth - 1, ints)
    b = lambda: _typed(draw, "bool", depth - 1, ints)
    xs = lambda: _typed(draw, "list", depth - 1, ints)
    if kind == "int":
        form = draw(st.integers(0, 13))
        return [
            lambda: f"({i()} {draw(st.sampled_from(['+', '-', '*', '//', '%']))} {i()})",
            lambda: f"(-{i()})",
            lambda: f"{xs()}[{i()}]",
            lambda: f"{draw(st.sampled_from(['min', 'max']))}({i()}, {i()})",
            lambda: f"{draw(st.sampled_from(['min', 'max', 'sum', 'count']))}({xs()})",
            lambda: f"abs({i()})",
            lambda: f"ceil_div({i()}, {i()})",
            lambda: f"(if {b()} then {i()} else {i()})",
            lambda: f"{draw(st.sampled_from(['sum', 'max', 'min']))}(y * {i()} for y in {xs()})",
            lambda: f"count(y for y in {xs()} if y > {i()})",
            lambda: f"lookup hits(row = {i()})",
            lambda: f"lookup contact(row = {i()}, column = {i()}, shift = {i()})",
            lambda: f"resolve q(n = {i()}).x",
            lambda: "modifiers drms",
        ][form]()
    if kind == "bool":
        form = draw(st.integers(0, 5))
        return [
            lambda: f"({i()} {draw(st.sampled_from(['==', '!=', '<', '<=', '>', '>=']))} {i()})",
            lambda: f"({b()} {draw(st.sampled_from(['and', 'or']))} {b()})",
            lambda: f"(not {b()})",
            lambda: f"({i()} {draw(st.sampled_from(['in', 'not in']))} {xs()})",
            lambda: f"{draw(st.sampled_from(['any', 'all']))}(y > {i()} for y in {xs()})",
            lambda: f"(resolve q(n = {i()}).outcome == \"r\")",
        ][form]()
    form = draw(st.integers(0, 5))
    return [
        lambda: f"[{i()}, {i()}]",
        lambda: f"(1 .. {i()})",
        lambda: f"append({xs()}, {i()})",
        lambda: f"remove_at({xs()}, {i()})",
        lambda: f"list(y + {i()} for y in {xs()})",
        lambda: f"{draw(st.sampled_from(['sort', 'sort_desc']))}(y for y in {xs()})",
    ][form]()


ROLLS = ["1d6", "2d6", "d3", "1d2", "dice(2, 3)", "0d6", "dice(min(max(n, 0), 3), 2)",
         "successes(3, 4, [1, 4])", "sum(highest(pool(3, 3), 2))", "count(pool(min(max(n, 0), 2), 3))", "successes(2, 2, xs)",
         # re-rolls: faces from xs may be off the die, or every face until none: both back ends must refuse alike
         "reroll(1d6, [1])", "reroll(2d3, [1, 2], until_none)", "reroll(successes(2, 4, [4]), xs)",
         "sum(reroll(pool(min(max(n, 0), 2), 3), [3], once))", "reroll(dice(min(max(n, 0), 2), 2), xs, until_none)"]


@st.composite
def bodies(draw) -> list[str]:
    counter = [0]

    def block(depth: int, ints: list[str], in_loop: bool) -> list[str]:
        lines: list[str] = []
        for _ in range(draw(st.integers(1, 3))):
            lines.extend(statement(depth, ints, in_loop))
        return lines

    def statement(depth: int, ints: list[str], in_loop: bool) -> list[str]:
        e = lambda kind: _typed(draw, kind, 2, ints)
        forms = ["set", "set", "roll", "list", "bool", "let", "require", "note", "outcome"]
        if in_loop:
            forms.append("break")
        if depth > 0:
            forms += ["if", "if", "ifelse", "for", "for", "while"]
        form = draw(st.sampled_from(forms))
        if form == "set":
            return [f"set {draw(st.sampled_from(['x', 'n2']))} = {e('int')}"]
        if form == "roll":
            return [f"set {draw(st.sampled_from(['x', 'n2']))} = {draw(st.sampled_from(ROLLS))}{draw(st.sampled_from(['', ' + ' + e('int')]))}"]
        if form == "list":
            return [f"set xs = {e('list')}"]
        if form == "bool":
            return [f"set b = {e('bool')}"]
        if form == "let":
            counter[0] += 1
            name = f"z{counter[0]}"
            ints.append(name)
            return [f"let {name} = {e('int')}"]
        if form == "require":
            return [f'require {e("bool")}, "a rule"']
        if form == "note":
            return ['note "hi"']
        if form == "outcome":
            return [f"outcome done(x = {e('int')})"]
        if form == "break":
            return ["break"]
        indent = lambda lines: ["  " + line for line in lines]
        if form == "if":
            return [f"if {e('bool')} then", *indent(block(depth - 1, list(ints), in_loop)), "end"]
        if form == "ifelse":
            return [f"if {e('bool')} then", *indent(block(depth - 1, list(ints), in_loop)),
                    f"elif {e('bool')} then", *indent(block(depth - 1, list(ints), in_loop)),
                    "else", *indent(block(depth - 1, list(ints), in_loop)), "end"]
        counter[0] += 1
        if form == "for":
            var = f"i{counter[0]}"
            return [f"for {var} in {draw(st.sampled_from(['1 .. 3', 'xs', 'things', '1 .. n']))} do",
                    *indent(block(depth - 1, list(ints) + [var], True)), "end"]
        bound = draw(st.sampled_from([" limit 3", " limit 0", " limit n", ""]))  # "": until the condition fails
        return [f"while {e('bool')}{bound} do", *indent(block(depth - 1, list(ints), True)), "end"]

    lines = ["let x = 1", "let n2 = n", "let xs = [1]", "let b = false", *block(3, ["x", "n", "n2"], False)]
    return lines + ["outcome last(x = x, n = n2, xs = xs, b = b)"]


GENERATED = """\
wartable: 1
name: generated
title: "generated"
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
  contact:
    title: "Contact"
    rule: "r"
    rows: {{name: "Die", dice: 1d6}}
    columns: {{name: "Difference", entries: ["-1(-)", "0", "+1(+)"]}}
    edges: {{rows: error, columns: clamp}}
    cells: {{"1": [0, 0, 1], "2": [0, 1, 1], "3": [1, 1, 2], "4": [1, 2, 2], "5": [2, 2, 3], "6": [2, 3, 3]}}
modifiers:
  drms:
    kind: drm
    rule: "r"
    entries:
      big: {{label: "big", value: 1, when: "n > 2", rule: "r"}}
      flagged: {{label: "flag", value: -2, when: "flag", rule: "r"}}
procedures:
  q:
    title: "q"
    rule: "r"
    inputs: {{n: {{type: int}}}}
    body: |
      let d = 1d3
      if d == 3 then
        outcome s(x = n)
      end
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

SMALL = Limits(max_work=50_000, max_states=20_000, timeout=5)
RANDOM = settings(
    max_examples=int(os.environ.get("WARTABLE_DIFF_EXAMPLES", "150")),
    deadline=None,
    database=None,
    derandomize="WARTABLE_DIFF_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
COUNTS = {"loaded": 0, "exact": 0, "play": 0, "sample": 0}


@RANDOM
@given(body=bodies(), n=st.sampled_from([0, 1, 2, 3]))
def test_random_procedures_agree(tmp_path_factory, body, n):
    path = tmp_path_factory.mktemp("diff") / "ruleset.yaml"
    path.write_text(GENERATED.format(body=textwrap.indent("\n".join(body), "      ")), encoding="utf-8")
    try:
        ruleset = load_ruleset(path)
    except WartableError:
        return  # the checker refused it: nothing to run
    COUNTS["loaded"] += 1
    inputs = {"n": n}
    compiled, reference = exact(ruleset, "p", inputs, limits=SMALL)
    _same(compiled, reference, exact_odds=True)
    COUNTS["exact"] += 1
    for seed in (3, 4):
        compiled, reference = play(ruleset, "p", inputs, seed=seed, limits=SMALL)
        _same(compiled, reference)
        COUNTS["play"] += 1
    compiled, reference = sample(ruleset, "p", inputs, seed=5, trials=30, limits=SMALL)
    _same(compiled, reference)
    COUNTS["sample"] += 1


def test_random_procedures_mostly_run():
    """The generator makes procedures the checker accepts (otherwise the test above compares nothing)."""
    if COUNTS["loaded"] == 0:
        pytest.skip("runs after the random test above")
    assert COUNTS["exact"] >= 50, COUNTS


# ---- strings, names and notes that look like Python ----------------------------------------------------------

HOSTILE_STRINGS = [
    "'); __import__('os').system('echo pwned') #",
    '"""; raise SystemExit; """',
    "line one\nline two",
    "back\\slash \\n \\x41 \\' \\\"",
    "{braces} %s %(x)s",
    "é 🂡 \t end",
]


def _dsl_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def _identifiers(source: str) -> set[str]:
    import io
    import tokenize

    return {token.string for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type == tokenize.NAME}


def test_python_in_strings_names_and_notes_is_only_data(make_ruleset):
    strings = ", ".join(_dsl_string(s) for s in HOSTILE_STRINGS)
    body = f"""
        let rt = [{strings}]
        let D = 1d6
        let __import__ = count(rt)
        let v0 = D + __import__
        note {_dsl_string(HOSTILE_STRINGS[0])}
        require v0 > 0, {_dsl_string(HOSTILE_STRINGS[1])}
        if D == 6 then
          outcome exec(text = rt[1], n = v0) rule {_dsl_string(HOSTILE_STRINGS[2])}
        end
        outcome eval(text = rt[3], all = rt, n = v0)
    """
    ruleset = make_ruleset({"p": procedure(body, title=HOSTILE_STRINGS[0].replace('"', "'"))})
    distribution = odds(ruleset, "p")
    assert distribution.probability("exec", text=HOSTILE_STRINGS[0], n=12) == Fraction(1, 6)
    assert distribution.probability("eval", text=HOSTILE_STRINGS[2]) == Fraction(5, 6)
    (eval_outcome, _), *_ = [(o, p) for o, p in distribution.outcomes if o.name == "eval" and o.get("n") == 7]
    assert eval_outcome.get("all") == tuple(HOSTILE_STRINGS)
    assert resolve(ruleset, "p", dice=[6], trace=False).outcome.get("text") == HOSTILE_STRINGS[0]
    assert monte_carlo(ruleset, "p", trials=60, seed=3).counts == monte_carlo(ruleset, "p", trials=60, seed=3, engine="reference").counts
    code = ruleset.program("p")
    for text in HOSTILE_STRINGS:
        assert text not in code.source or repr(text) in code.source  # user text appears only as a repr()'d literal
    names = _identifiers(code.source)
    assert "__import__" not in names and "exec" not in names and "eval" not in names
    assert not {"__import__", "open", "eval", "exec", "compile", "getattr", "globals"} & set(code.play.__globals__["__builtins__"])


# ---- deep nesting becomes functions of their own ---------------------------------------------------------------


def _nested_ifs(depth: int) -> str:
    lines = ["let x = 1d6", "let t = 0"]
    for level in range(depth):
        lines.append("  " * level + f"if x + {level} > {level % 5} then")
    lines.append("  " * depth + "set t = t + 1")
    for level in reversed(range(depth)):
        lines.append("  " * level + "end")
    lines.append("outcome v(t = t, x = x)")
    return "\n".join(lines)


def _agree_everywhere(ruleset, seeds=range(3)) -> None:
    compiled, reference = exact(ruleset, "p", {})
    assert compiled == reference and compiled[0] == "ok"
    for seed in seeds:
        compiled, reference = play(ruleset, "p", {}, seed=seed)
        assert compiled == reference and compiled[0] == "ok"
    compiled, reference = sample(ruleset, "p", {}, seed=9)
    assert compiled == reference and compiled[0] == "ok"


def _deepest_indentation(source: str) -> int:
    return max((len(line) - len(line.lstrip(" "))) // 4 for line in source.splitlines())


def test_ninety_nested_ifs_compile_and_agree(make_ruleset):
    # the parser refuses procedures nested past 200 parse levels (97 nested ifs); 90 is well inside
    ruleset = make_ruleset({"p": procedure(_nested_ifs(90))})
    _agree_everywhere(ruleset, seeds=range(5))
    assert _deepest_indentation(ruleset.program("p").source) < 70  # Python stops at 100


def test_a_hundred_and_fifty_nested_ifs_in_the_ir_compile_and_agree(make_ruleset):
    """Deeper than any procedure the parser accepts: the IR of 90 nested ifs wrapped in 60 more."""
    from interpreter import ir
    from interpreter.compiled_ruleset import CompiledRuleset

    base = make_ruleset({"p": procedure(_nested_ifs(90))})
    checked = base.compiled["p"]
    statements = checked.body.statements
    deep_if = next(s for s in statements if type(s) is ir.If)
    condition = deep_if.branches[0][0]
    body = deep_if
    for _ in range(60):
        body = ir.If(deep_if.pos, ((condition, ir.Block(deep_if.pos, (body,), ())),), None)
    deeper = checked._replace(body=checked.body._replace(statements=tuple(body if s is deep_if else s for s in statements)))
    ruleset = CompiledRuleset(base.model, {"p": deeper})
    _agree_everywhere(ruleset)
    assert _deepest_indentation(ruleset.program("p").source) < 70


def test_nested_loops_deeper_than_python_allows_in_one_function(make_ruleset):
    depth = 25  # Python allows 20 nested loops in one function
    lines = ["let t = 0"]
    for level in range(depth):
        lines.append("  " * level + f"for i{level} in 1 .. 1 do")
    lines.append("  " * depth + "let r = 1d2")
    lines.append("  " * depth + "set t = t + r")
    for level in reversed(range(depth)):
        lines.append("  " * level + "end")
    lines.append("outcome v(t = t)")
    _agree_everywhere(make_ruleset({"p": procedure("\n".join(lines))}))


def test_deep_expressions_compile_and_agree(make_ruleset):
    expression = "x"
    for level in range(48):  # about 140 expression levels (the limit is 150): past Python's 200 parentheses once compiled
        expression = f"(if ({expression} + {level % 3}) > 100 then 1 else 2)" if level % 2 else f"({expression} * 1 + {level})"
    _agree_everywhere(make_ruleset({"p": procedure(f"let x = 1d6\noutcome v(y = {expression})")}))


# ---- run-time errors: same message, same place -----------------------------------------------------------------

ERRORS = [
    ("let d = 1d6\noutcome v(x = 6 // (d - d))", "division by zero"),
    ("let d = 1d6\nlet xs = [1, 2]\noutcome v(x = xs[d])", "outside the list"),
    ("let d = 1d6\nrequire d < 6, \"no sixes\"\noutcome v", "rule violated: no sixes"),
    ("let d = 1d6\nlet x = 4611686018427387904\noutcome v(x = x * x * d)", "grows past 64 bits"),
    ("let d = 1d6\noutcome v(x = min(y for y in [d] if y > 6))", "over an empty list"),
    ("let d = 1d6\noutcome v(x = remove_at([d], 2))", "position 2 is outside the list"),
    ("let d = 1d6\nwhile d > 0 limit 3 do\n  set d = d + 1\nend\noutcome v(d = d)", None),
    ("let xs = []\nlet d = 1d6\noutcome v(x = sum(y + d for y in xs) + xs[1])", "outside the list"),
    ("let d = 1d6\noutcome v(x = lookup hits(row = d + 10))", "is off the table"),
    ("let d = 1d6\noutcome v(x = ratio(d, 0) > 1)", "odds need a defense above 0"),
    ("let d = 1d6\nlet e = dice(1000 + d, 2)\noutcome v(x = e)", "cannot roll"),
    # an item read in place: the position's own error comes first (face 1: 12 // 0), not the index's
    ("let d = 1d6\nlet xs = [1, 2]\noutcome v(x = xs[12 // (d - 1)])", "division by zero"),
    ("let d = 1d6\nlet xs = [[1], [2, 3]]\noutcome v(x = xs[2][d])", "index 3 is outside the list (1 to 2)"),
]


@pytest.mark.parametrize("body, message", ERRORS)
def test_run_time_errors_agree(make_ruleset, body, message):
    ruleset = make_ruleset({"p": procedure(body)}, extra='''
        tables:
          hits:
            title: "Hits"
            rule: "r"
            rows: {name: "Die", dice: 1d6}
            edges: {rows: error}
            cells: {"1-2": 0, "3-5": 1, "6": 2}
    ''')
    compiled, reference = exact(ruleset, "p", {})
    assert compiled == reference
    if message:
        assert message in str(compiled)
    for seed in range(3):
        assert play(ruleset, "p", {}, seed=seed)[0] == play(ruleset, "p", {}, seed=seed)[1]
    assert sample(ruleset, "p", {}, seed=2)[0] == sample(ruleset, "p", {}, seed=2)[1]


def test_prepared_inputs_are_shared(make_ruleset):
    # both engines see the same checked inputs: a bad one is the same usage error before either runs
    ruleset = make_ruleset({"p": procedure("outcome v(n = n)", inputs="{n: {type: int, min: 1}}")})
    assert exact(ruleset, "p", {"n": 0})[0] == exact(ruleset, "p", {"n": 0})[1]
    assert prepare_inputs(ruleset.compiled["p"], {"n": 3}) == {"n": 3}


def test_monte_carlo_counts_each_kind_of_outcome_alike(make_ruleset):
    # Monte Carlo counts an outcome with one field by that field's value, one with no field in a
    # plain counter, and one with more fields by its whole key: every kind must come out as the
    # reference evaluator counts it, and the counts must add up to the trials.
    ruleset = make_ruleset({"p": procedure("""
        let face = 1d6
        if face == 1 then
          outcome plain
        elif face == 2 then
          outcome literal(x = 3)
        elif face <= 4 then
          outcome named(x = face)
        elif face == 5 then
          outcome text(word = "five")
        end
        outcome pair(x = face, y = face * 2)
    """)})
    compiled, reference = sample(ruleset, "p", {}, seed=5, trials=600)
    assert compiled == reference and compiled[0] == "ok"
    counts = dict(compiled[1])
    assert sum(counts.values()) == 600
    assert {outcome.name for outcome in counts} == {"plain", "literal", "named", "text", "pair"}
