"""Typed constants, named scalar types and list bounds (issue 23, "Language").

A constant may declare ``type:`` (a type's name or a type spec): its value, and a variant's value, is checked
against it at load, at the value's own line. A constant without ``type:`` is read as before.  Named scalar types
(``types: {die_roll: {type: int, min: 1, max: 6}}``) serve inputs, record fields and typed constants alike.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import RulesetError, load_ruleset, odds
from interpreter.errors import UsageError
from interpreter.values import IntType, ListType, StrType

ROUNDS = procedure("outcome done(rounds = max_rounds)")


def only(error: RulesetError):
    (diagnostic,) = error.diagnostics
    return diagnostic


def load_text(tmp_path, text: str, name: str = "r.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_ruleset(path)


def refused(tmp_path, text: str, name: str = "r.yaml"):
    with pytest.raises(RulesetError) as info:
        load_text(tmp_path, text, name)
    return only(info.value)


CONSTANT = """\
constants:
  max_rounds: {{value: {value}, type: {type}, rule: "at most so many rounds"}}
"""
# ruleset_text: five header lines, then the extra sections: the constant is line 7; `  max_rounds: {value: ` is 22 characters, so its value is at column 23
CONSTANT_LINE, VALUE_COLUMN = 7, 23


def test_a_typed_constant_keeps_its_value_and_declared_type(tmp_path):
    model = load_text(tmp_path, ruleset_text({"p": ROUNDS}, CONSTANT.format(value=20, type="{type: int, min: 0}")))
    constant = model.constants["max_rounds"]
    assert constant.value == 20
    assert constant.declared == IntType(0, None)
    assert odds(model, "p").probability("done", rounds=20) == Fraction(1)


@pytest.mark.parametrize(("value", "fragment"), [
    ('"20"', "constant 'max_rounds' must be a whole number, not '20'"),
    ("-1", "constant 'max_rounds' must be at least 0, not -1"),
])
def test_a_typed_constant_refuses_a_value_of_another_type_at_its_line(tmp_path, value, fragment):
    diagnostic = refused(tmp_path, ruleset_text({"p": ROUNDS}, CONSTANT.format(value=value, type="{type: int, min: 0}")))
    assert fragment in diagnostic.message
    assert (diagnostic.line, diagnostic.column) == (CONSTANT_LINE, VALUE_COLUMN)


def test_a_plain_constant_is_read_from_its_value_as_before(tmp_path):
    text = ruleset_text({"p": ROUNDS}, 'constants:\n  max_rounds: {value: "20", rule: "r"}\n')
    assert odds(load_text(tmp_path, text), "p").probability("done", rounds="20") == Fraction(1)


def test_a_constant_typed_by_a_named_scalar_type(tmp_path):
    extra = """\
types:
  die_roll: {type: int, min: 1, max: 6}
constants:
  lucky: {value: 6, type: die_roll, rule: "r"}
"""
    model = load_text(tmp_path, ruleset_text({"p": procedure("outcome done(face = lucky)")}, extra))
    assert model.constants["lucky"].declared is model.types["die_roll"]
    # lucky: 7 is refused at the value: line 9 (five header lines, types, die_roll, constants, lucky),
    # `  lucky: {value: ` is 17 characters, so the 7 is at column 18
    diagnostic = refused(tmp_path, ruleset_text({"p": procedure("outcome done(face = lucky)")}, extra.replace("value: 6", "value: 7")), "s.yaml")
    assert "constant 'lucky' must be at most 6, not 7" in diagnostic.message
    assert (diagnostic.line, diagnostic.column) == (9, 18)


def test_an_enum_typed_constant_is_checked_where_compared(tmp_path):
    extra = """\
types:
  nation: {type: enum, values: [German, British]}
constants:
  home: {value: German, type: nation, rule: "r"}
"""
    model = load_text(tmp_path, ruleset_text({"p": procedure("outcome done(home = home)")}, extra))
    assert model.constants["home"].declared == StrType(("German", "British"))
    # the checker knows home is a nation: comparing it with a value no nation has is an error at the literal
    body = 'if home == "French" then\n  outcome a\nend\noutcome b'
    with pytest.raises(RulesetError) as info:
        load_text(tmp_path, ruleset_text({"p": procedure(body)}, extra), "e.yaml")
    assert "'French' is not one of German, British" in only(info.value).message


def test_a_list_constant_with_max_items(tmp_path):
    extra = 'constants:\n  costs: {value: [1, 2, 3], type: {type: list, of: int, max_items: 2}, rule: "r"}\n'
    diagnostic = refused(tmp_path, ruleset_text({"p": procedure("outcome done(n = count(costs))")}, extra))
    assert "may hold at most 2 items, not 3" in diagnostic.message
    # line 7; `  costs: {value: ` is 17 characters: the list starts at column 18
    assert (diagnostic.line, diagnostic.column) == (7, 18)
    model = load_text(tmp_path, ruleset_text({"p": procedure("outcome done(n = count(costs))")}, extra.replace("max_items: 2", "max_items: 3")), "ok.yaml")
    assert model.constants["costs"].declared == ListType(IntType(), 3)
    assert model.constants["costs"].value == (1, 2, 3)


def test_an_unknown_type_of_a_constant_is_named(tmp_path):
    diagnostic = refused(tmp_path, ruleset_text({"p": ROUNDS}, CONSTANT.format(value=20, type="count")))
    assert "unknown type 'count'" in diagnostic.message


# ---- variants: the typed constant's check holds where the variant sets it ------------------------------------------

VARIANT = """\
wartable: 1
name: v
title: "V"
source: "tests"
version: "1"
extends: base.yaml
override:
  constants:
    max_rounds: {{value: {value}}}
"""
# the override's value: line 9, `    max_rounds: {value: ` is 24 characters


@pytest.mark.parametrize(("value", "fragment"), [
    ('"20"', "must be a whole number, not '20'"),
    ("-1", "must be at least 0, not -1"),
])
def test_a_variant_that_sets_a_typed_constant_wrongly_is_refused_at_its_line(tmp_path, value, fragment):
    (tmp_path / "base.yaml").write_text(ruleset_text({"p": ROUNDS}, CONSTANT.format(value=20, type="{type: int, min: 0}")), encoding="utf-8")
    diagnostic = refused(tmp_path, VARIANT.format(value=value), "v.yaml")
    assert fragment in diagnostic.message
    assert diagnostic.file.endswith("v.yaml")
    assert (diagnostic.line, diagnostic.column) == (9, 25)


def test_a_variant_may_set_a_typed_constant_within_its_type(tmp_path):
    (tmp_path / "base.yaml").write_text(ruleset_text({"p": ROUNDS}, CONSTANT.format(value=20, type="{type: int, min: 0}")), encoding="utf-8")
    model = load_text(tmp_path, VARIANT.format(value=5), "v.yaml")
    assert odds(model, "p").probability("done", rounds=5) == Fraction(1)


# ---- named scalar types and list bounds on inputs -----------------------------------------------------------------

NAMED = """\
wartable: 1
name: t
title: "t"
source: "tests"
version: "1"
types:
  die_roll: {type: int, min: 1, max: 6}
  nation: {type: enum, values: [German, British]}
  ship: {fields: {flag: {type: nation}, gun: {type: die_roll}}}
procedures:
  p:
    title: "P"
    rule: "r"
    inputs:
      need: {type: die_roll}
      fleet: {type: list, of: ship, min_items: 1, max_items: 2}
    body: |
      let d = 1d6
      if d >= need then
        outcome hit(ships = count(fleet))
      end
      outcome miss
examples:
  - name: too many ships
    procedure: p
    inputs: {need: 3, fleet: [{flag: German, gun: 2}, {flag: German, gun: 2}, {flag: German, gun: 2}]}
    expect: {outcome: hit}
  - name: no ship
    procedure: p
    inputs: {need: 3, fleet: []}
    expect: {outcome: hit}
  - name: a gun off the die
    procedure: p
    inputs: {need: 3, fleet: [{flag: British, gun: 7}]}
    expect: {outcome: hit}
"""
# lines of NAMED: the three examples' inputs are lines 26, 30 and 34; `    inputs: {need: 3, fleet: ` is 29 characters


def test_named_scalar_types_type_inputs_and_record_fields(tmp_path):
    model = load_text(tmp_path, NAMED.split("examples:")[0])
    procedure_p = model.procedures["p"]
    assert procedure_p.input("need").type is model.types["die_roll"]
    assert dict(model.types["ship"].fields)["gun"] is model.types["die_roll"]
    # need 3 on 1d6: faces 3-6 hit, 4/6 = 2/3
    distribution = odds(model, "p", {"need": 3, "fleet": [{"flag": "German", "gun": 2}]})
    assert distribution.probability("hit", ships=1) == Fraction(2, 3)


@pytest.mark.parametrize(("inputs", "fragment"), [
    ({"need": 7, "fleet": [{"flag": "German", "gun": 2}]}, "input 'need' must be at most 6, not 7"),
    ({"need": 3, "fleet": [{"flag": "French", "gun": 2}]}, "'French'"),
    ({"need": 3, "fleet": []}, "input 'fleet' must hold at least 1 item, not 0"),
    ({"need": 3, "fleet": [{"flag": "German", "gun": 2}] * 3}, "input 'fleet' may hold at most 2 items, not 3"),
])
def test_inputs_outside_their_named_type_or_list_bounds_are_refused(tmp_path, inputs, fragment):
    model = load_text(tmp_path, NAMED.split("examples:")[0])
    with pytest.raises(UsageError) as info:
        odds(model, "p", inputs)
    assert fragment in str(info.value)
    assert "Traceback" not in str(info.value)


def test_examples_outside_the_bounds_fail_at_their_yaml_lines(tmp_path, capsys):
    from interpreter.cli import main

    path = tmp_path / "t.yaml"
    path.write_text(NAMED, encoding="utf-8")
    assert main(["test", str(path)]) == 1
    err = capsys.readouterr().err
    assert "t.yaml:26:30: input 'fleet' may hold at most 2 items, not 3" in err
    assert "t.yaml:30:30: input 'fleet' must hold at least 1 item, not 0" in err
    assert "t.yaml:34:30: input 'fleet'[1].gun must be at most 6, not 7" in err


def test_a_type_only_a_constant_uses_is_used(tmp_path):
    from interpreter.lint import lint

    extra = """\
types:
  die_roll: {type: int, min: 1, max: 6}
  spare: {type: int, min: 1, max: 6}
constants:
  lucky: {value: 6, type: die_roll, rule: "r"}
"""
    model = load_text(tmp_path, ruleset_text({"p": procedure("outcome done(face = lucky)")}, extra))
    unused = [d.message for d in lint(model) if "never used" in d.message]
    # die_roll types the constant; spare types nothing
    assert unused == ["warning: type 'spare' is never used"]


def test_what_if_holds_a_typed_constant_to_its_type(tmp_path, capsys):
    from interpreter.cli import main

    path = tmp_path / "r.yaml"
    path.write_text(ruleset_text({"p": ROUNDS}, CONSTANT.format(value=20, type="{type: int, min: 0}")), encoding="utf-8")
    assert main(["odds", str(path), "p", "--what-if", "max_rounds=-1"]) == 2
    assert "max_rounds: the value must be at least 0, not -1" in capsys.readouterr().err
    # within the type: rounds 20 -> 5, certainly
    assert main(["odds", str(path), "p", "--what-if", "max_rounds=5"]) == 0
    assert "rounds = 5" in capsys.readouterr().out
