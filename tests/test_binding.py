"""The one input binder (interpreter/binding.py): every entry point words a problem the same way.

Inputs reach a procedure through the API (resolve, odds, monte_carlo, odds_by_choice), the command
line (--set, --situation, --choose), a ruleset's examples and a sweep's cells; each used to check
them with code of its own, and the same mistake read differently depending on where it was
written.  Now the binder says what is wrong and each entry point only says where.
"""

from __future__ import annotations

import pytest
from conftest import procedure, ruleset_text
from test_cli import assert_positioned, run

from interpreter.api import monte_carlo, odds, resolve
from interpreter.binding import (
    BAD_OPTION,
    BAD_VALUE,
    MISSING_INPUT,
    UNKNOWN_CHOICE,
    UNKNOWN_INPUT,
    bind,
    check_choices,
)
from interpreter.errors import UsageError

# p: two inputs, n (required, 1..6, described) and side (enum with a default); one choice of its own
# (stance); it resolves q, whose choice c is the player's too.
CALLEE = procedure('if c == "x" then\n  outcome a\nend\noutcome b', choices='{c: {options: [x, z], default: x, rule: "r"}}')
CALLER = procedure(
    'let s = resolve q()\noutcome v(n = n, side = side, stance = stance, from_q = s.outcome)',
    inputs='{n: {type: int, min: 1, max: 6, description: "dice thrown"}, side: {type: enum, values: [red, blue], default: red}}',
    choices='{stance: {options: [bold, careful], default: bold, rule: "r"}}',
)
# One wording for an unknown input: the closest name, then every input in declared order.
UNKNOWN_NN = "procedure 'p' has no input 'nn' (did you mean 'n'? inputs: n, side)"


@pytest.fixture
def ruleset(make_ruleset):
    return make_ruleset({"q": CALLEE, "p": CALLER})


def test_bind_collects_every_problem_with_its_kind_and_place(ruleset):
    bound = bind(ruleset.compiled["p"], {"nn": 1, "side": "green"}, {"stance": "rash"})
    # nn is unknown (at its key); side has no 'green'; n is required and missing; stance has no 'rash'
    assert [(p.kind, p.name, p.at_key) for p in bound.problems] == [
        (UNKNOWN_INPUT, "nn", True), (MISSING_INPUT, "n", False), (BAD_VALUE, "side", False), (BAD_OPTION, "stance", False),
    ]
    assert [p.message for p in bound.problems] == [
        UNKNOWN_NN,
        "input 'n' is required (int: dice thrown)",
        "input 'side' must be one of red, blue, not 'green'",
        "choice 'stance' must be one of bold, careful, not 'rash'",
    ]


def test_bind_fills_defaults_and_choices_only_when_complete(ruleset):
    compiled = ruleset.compiled["p"]
    assert bind(compiled, {"n": 3}).values == {"n": 3, "side": "red", "stance": "bold"}
    # a situation file or one --set: only what is given, nothing missing
    partial = bind(compiled, {"side": "blue"}, complete=False)
    assert (partial.values, partial.problems) == ({"side": "blue"}, ())
    # a sweep gives n cell by cell: not missing when provided
    assert bind(compiled, {}, provided={"n"}).problems == ()


def test_a_choice_of_a_resolved_procedure_is_checked_against_it(ruleset):
    # c belongs to q, which p resolves: given to p, it is checked against q's options
    assert check_choices(ruleset, "p", {"c": "z"}) == []
    (wrong,) = check_choices(ruleset, "p", {"c": "w"})
    assert (wrong.kind, wrong.message) == (BAD_OPTION, "choice 'c' must be one of x, z, not 'w'")
    (unknown,) = check_choices(ruleset, "p", {"stanse": "bold"})
    # p's own stance comes first, then q's c, as reachable_choices meets them
    assert (unknown.kind, unknown.message) == (UNKNOWN_CHOICE, "procedure 'p' has no choice 'stanse' (did you mean 'stance'? choices: stance, c)")


@pytest.mark.parametrize("call", [
    lambda r: odds(r, "p", {"n": 2, "nn": 1}),
    lambda r: resolve(r, "p", {"n": 2, "nn": 1}, dice=[]),
    lambda r: monte_carlo(r, "p", {"n": 2, "nn": 1}, trials=1, seed=1),
    lambda r: odds(r, "p", {"n": 2, "nn": 1}, choices={"c": "z"}),  # the general path, choices given
], ids=["odds", "resolve", "monte_carlo", "odds-with-choices"])
def test_every_api_call_words_an_unknown_input_alike(ruleset, call):
    with pytest.raises(UsageError) as raised:
        call(ruleset)
    assert [(d.file, d.line, d.column, d.message) for d in raised.value.diagnostics] == [("<inputs>", 1, 1, UNKNOWN_NN)]


def test_an_api_call_reports_a_bad_input_and_a_bad_choice_together(ruleset):
    # both problems at once (the choice used to be raised alone, before the inputs were looked at)
    with pytest.raises(UsageError) as raised:
        odds(ruleset, "p", {"n": 9}, choices={"c": "w"})
    assert [d.message for d in raised.value.diagnostics] == [
        "input 'n' must be at most 6, not 9", "choice 'c' must be one of x, z, not 'w'",
    ]


def test_the_command_line_words_an_unknown_input_as_the_api_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.yaml").write_text(ruleset_text({"q": CALLEE, "p": CALLER}), encoding="utf-8")
    code, _, err = run(["odds", "r.yaml", "p", "--set", "nn=1"])
    assert code == 2
    # "wartable odds r.yaml p --set " is 29 characters: nn starts at column 30
    assert_positioned(err, "<command line>", 1, 30, "wartable odds r.yaml p --set nn=1", UNKNOWN_NN)
    (tmp_path / "situation.yaml").write_text("n: 2\nnn: 1\n", encoding="utf-8")
    code, _, err = run(["odds", "r.yaml", "p", "--situation", "situation.yaml"])
    assert code == 2
    assert_positioned(err, "situation.yaml", 2, 1, "nn: 1", UNKNOWN_NN)


def test_a_missing_input_on_the_command_line_says_what_it_is(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.yaml").write_text(ruleset_text({"q": CALLEE, "p": CALLER}), encoding="utf-8")
    code, _, err = run(["odds", "r.yaml", "p"])
    assert code == 2
    # the binder's wording (type and description, as the API says it), then how to give it;
    # "wartable odds r.yaml " is 21 characters: p starts at column 22
    assert_positioned(err, "<command line>", 1, 22, "wartable odds r.yaml p",
                      "input 'n' is required (int: dice thrown): give --set n=... or --situation FILE.yaml")


def test_an_examples_inputs_report_every_problem_where_written(tmp_path):
    # An unknown input and a missing one in one example: both reported, each at its place
    # (the missing one used to wait until the unknown one was fixed).
    examples = """
examples:
  - name: "two mistakes"
    procedure: p
    inputs: {nn: 1}
    expect: {outcome: v}
"""
    (tmp_path / "r.yaml").write_text(ruleset_text({"q": CALLEE, "p": CALLER}) + examples, encoding="utf-8")
    code, _, err = run(["test", str(tmp_path / "r.yaml")])
    assert code == 1
    text = (tmp_path / "r.yaml").read_text(encoding="utf-8").splitlines()
    line = next(i for i, written in enumerate(text, 1) if "{nn: 1}" in written)
    messages = [written for written in err.splitlines() if "r.yaml:" in written]
    # "    inputs: {" is 13 characters: the key nn at column 14, the inputs mapping at column 13
    assert messages[0].endswith(f"r.yaml:{line}:14: {UNKNOWN_NN}")
    assert messages[1].endswith(f"r.yaml:{line}:13: input 'n' is required (int: dice thrown)")
