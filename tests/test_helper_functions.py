"""Pure helper functions (``functions:``, issue 23): a name for an expression used again and again
(``afloat(s)`` for ``s.status == "fit" or s.status == "damaged"``), expanded where it is called."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from conftest import procedure, ruleset_text

from interpreter import RulesetError, load_ruleset, odds, resolve

TYPES_AND_FUNCTIONS = """\
types:
  ship:
    fields:
      status: {type: enum, values: [fit, damaged, sunk]}
      guns: {type: int, default: 1}
functions:
  afloat:
    params: [s]
    body: 's.status in ["fit", "damaged"]'
    description: "A ship still in the fight."
  firepower:
    params: [fleet]
    body: 'sum(s.guns for s in fleet if afloat(s))'
"""
FIGHT = procedure(
    "let d = 1d6\noutcome o(left = count(s for s in fleet if afloat(s)), power = firepower(fleet), hit = d <= firepower(fleet))",
    inputs="{fleet: {type: list, of: ship}}",
)
FLEET = [{"status": "fit", "guns": 2}, {"status": "sunk", "guns": 5}, {"status": "damaged"}]


@pytest.fixture
def ruleset(make_ruleset):
    return make_ruleset({"fight": FIGHT}, extra=TYPES_AND_FUNCTIONS)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_helper_stands_for_its_expression(ruleset, engine):
    # afloat: the fit and the damaged ship (2 of 3); firepower: their guns 2 + 1 = 3 (the sunk ship's 5 left out);
    # hit when 1d6 <= 3: faces 1-3 of 6 -> 1/2
    found = odds(ruleset, "fight", {"fleet": FLEET}, engine=engine)
    assert {(o.fields["left"], o.fields["power"], o.fields["hit"]): p for o, p in found.outcomes} == {
        (2, 3, True): Fraction(1, 2), (2, 3, False): Fraction(1, 2)}
    assert resolve(ruleset, "fight", {"fleet": FLEET}, dice=[4], engine=engine).outcome.fields["hit"] is False


def test_an_aggregate_variable_hides_a_parameter_of_the_same_name(make_ruleset):
    # body: count(s for s in fleet if s.guns > s0) with params [fleet, s0]; the s inside is the aggregate's own
    extra = TYPES_AND_FUNCTIONS + "  bigger:\n    params: [fleet, s]\n    body: 'count(s for s in fleet if s.guns > 1)'\n"
    ruleset = make_ruleset({"p": procedure("outcome o(n = bigger(fleet, 7))", inputs="{fleet: {type: list, of: ship}}")}, extra=extra)
    # guns 2, 5, 1: two ships have more than 1
    assert odds(ruleset, "p", {"fleet": FLEET}).probability("o", n=2) == 1


def mistakes(write_yaml, functions: str, body: str) -> list[tuple[int, int, str]]:
    path = write_yaml(ruleset_text({"p": procedure(body)}, "functions:\n" + functions))
    with pytest.raises(RulesetError) as error:
        load_ruleset(path)
    return [(d.line, d.column, d.message) for d in error.value.diagnostics]


def test_mistakes_are_reported_where_they_are_written(write_yaml):
    functions = (
        "  twice:\n    params: [x]\n    body: 'x + x'\n"       # lines 7-9
        "  loop:\n    params: [x]\n    body: 'loop(x) + 1'\n"  # lines 10-12
    )
    body = "outcome o(a = twice(1d6), b = twice(1, 2), c = loop(3))"
    found = mistakes(write_yaml, functions, body)
    # the body is line 18 (HEADER 5 lines, functions: 6, two helpers 7-12, procedures: 13, p: 14, title 15, rule 16,
    # body: | 17), indented 6: a column is its index in the body + 7
    messages = {message.split(":")[0]: (line, column) for line, column, message in found}
    assert messages["dice cannot be rolled here"] == (18, body.index("1d6") + 7)
    assert (18, body.index("twice(1, 2)") + 7) in [(line, column) for line, column, message in found if "twice(x) takes 1 argument" in message]
    assert any("helper function 'loop' calls itself (loop -> loop)" in message and line == 12 for line, _, message in found)


def test_a_helper_may_not_take_a_built_in_name(write_yaml):
    found = mistakes(write_yaml, "  count:\n    body: '1'\n", "outcome o")
    assert found == [(7, 3, "'count' is a built-in function; name the helper differently")]


def test_a_variant_overrides_a_helper(tmp_path, make_ruleset):
    base = make_ruleset({"fight": FIGHT}, extra=TYPES_AND_FUNCTIONS)
    variant = tmp_path / "v.yaml"
    variant.write_text(
        f'wartable: 1\nname: v\ntitle: "v"\nsource: "s"\nversion: "1"\nextends: {base.path}\n'
        "override:\n  functions:\n    afloat: {body: 's.status == \"fit\"'}\n", encoding="utf-8")
    changed = load_ruleset(variant, base_paths=[str(tmp_path)])
    # only the fit ship is afloat now: left 1, power 2; 1d6 <= 2 -> 1/3
    found = odds(changed, "fight", {"fleet": FLEET})
    assert {(o.fields["left"], o.fields["power"], o.fields["hit"]): p for o, p in found.outcomes} == {
        (1, 2, True): Fraction(1, 3), (1, 2, False): Fraction(2, 3)}


def test_eia_names_its_afloat_ship_once():
    # eia.yaml wrote `s.status == "fit" or s.status == "damaged"` 24 times; the helper stands for it, and the
    # generated code was the same (checked when it was introduced: the dump of every procedure's code differed
    # only in the numbering of positions).  Its body is now `s.status in ["fit", "damaged"]`: one field read, the
    # list a constant (checker: a list literal of plain values folds)
    eia = load_ruleset("eia")
    assert "afloat" in eia.model.functions
    text = Path(eia.path).read_text(encoding="utf-8")
    assert text.count('s.status in ["fit", "damaged"]') == 1 and text.count("afloat(s)") == 24
    assert 's.status == "fit" or s.status == "damaged"' not in text


def test_a_helper_nested_in_its_own_argument_is_no_cycle(make_ruleset):
    # twice(twice(3)) = (3 + 3) + (3 + 3) = 12: the inner call is an argument, not the helper calling itself
    ruleset = make_ruleset({"p": procedure("outcome o(v = twice(twice(3)))")}, extra="functions:\n  twice:\n    params: [x]\n    body: 'x + x'\n")
    assert odds(ruleset, "p").probability("o", v=12) == 1


def test_a_long_chain_of_helpers_stops_at_the_nesting_bound(write_yaml):
    # h40 calls h39 ... calls h0: 41 levels, past the bound of 32 (a stranger's chain of thousands would
    # otherwise exhaust Python's stack); refused once, at the call that goes past it
    functions = "  h0:\n    params: [x]\n    body: 'x + 1'\n" + "".join(
        f"  h{i}:\n    params: [x]\n    body: 'h{i - 1}(x)'\n" for i in range(1, 41))
    found = mistakes(write_yaml, functions, "outcome o(v = h40(1))")
    assert len(found) == 1 and found[0][2].startswith("helper functions expand too far here: at most 32 nested")
