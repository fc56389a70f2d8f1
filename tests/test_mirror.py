"""``mirror a <-> b do ... end``: a block written for one side and run again with the sides' names exchanged.

The odds below are counted by hand; the syntax tests read the copy the parser makes.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import load_ruleset, odds, resolve, syntax
from interpreter.errors import RulesetError, RuleViolation, Source
from interpreter.parser import TextOrigin, parse_procedure

ENGINES = ("compiled", "reference")

SIDES = "{attacker_bonus: {type: int, default: 0}, defender_bonus: {type: int, default: 0}}"
HITS = """let attacker_hits = 0
let defender_hits = 0
mirror attacker <-> defender do
  if 1d6 + attacker_bonus >= 6 then
    set attacker_hits = attacker_hits + 1
  end
end
outcome done(attacker_hits = attacker_hits, defender_hits = defender_hits)"""


def parsed(text: str) -> syntax.Block:
    return parse_procedure(text, TextOrigin(Source("t", text)))


@pytest.mark.parametrize("engine", ENGINES)
def test_each_side_rolls_with_its_own_bonus(one_procedure, engine):
    # attacker +2: rolls 4-6 of 6 hit -> 1/2; defender +0: a 6 hits -> 1/6; the two dice are independent
    ruleset = one_procedure(HITS, inputs=SIDES)
    dist = odds(ruleset, "p", {"attacker_bonus": 2}, engine=engine)
    assert dist.probability("done", attacker_hits=1, defender_hits=0) == Fraction(1, 2) * Fraction(5, 6)
    assert dist.probability("done", attacker_hits=1, defender_hits=1) == Fraction(1, 2) * Fraction(1, 6)
    assert dist.probability("done", attacker_hits=0, defender_hits=1) == Fraction(1, 2) * Fraction(1, 6)
    assert dist.probability("done", attacker_hits=0, defender_hits=0) == Fraction(1, 2) * Fraction(5, 6)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_copy_runs_after_the_block_and_sees_its_changes(one_procedure, engine):
    # written, for the attacker: defender_left = 5 - min(3, 5) = 2; then the copy, for the defender:
    # attacker_left = 3 - min(2, 3) = 1 (a copy that ran on the old values would give 3 - min(5, 3) = 0)
    body = """let attacker_left = attacker_bonus
let defender_left = defender_bonus
mirror attacker <-> defender do
  set defender_left = defender_left - min(attacker_left, defender_left)
end
outcome done(attacker_left = attacker_left, defender_left = defender_left)"""
    ruleset = one_procedure(body, inputs=SIDES)
    result = resolve(ruleset, "p", {"attacker_bonus": 3, "defender_bonus": 5}, seed=1, trace=False, engine=engine)
    assert result.outcome.get("attacker_left") == 1 and result.outcome.get("defender_left") == 2


def test_names_fields_arguments_and_name_like_texts_are_exchanged_single_letters_in_prose_are_not():
    block = parsed("""mirror a <-> d do
  let {a_sunk as a_lost} = resolve q(a_ships = a.count, side = "a_wins")
  note "a wins {a_lost}"
  outcome a_won(a_left = a_lost) rule "a rule"
end""")
    written, copy = block.statements[:3], block.statements[3:]
    assert len(copy) == 3
    destructure, note, outcome = copy
    assert isinstance(destructure, syntax.Destructure)
    assert [(b.field, b.name) for b in destructure.bindings] == [("d_sunk", "d_lost")]
    call = destructure.value
    assert isinstance(call, syntax.Resolve) and call.procedure == "q"
    assert [a.name for a in call.args] == ["d_ships", "side"]
    subject = call.args[0].value
    assert isinstance(subject, syntax.Attribute) and subject.name == "count" and subject.subject == syntax.Name(subject.subject.pos, "d")
    assert call.args[1].value.value == "d_wins"  # a text that reads as a name is a name (an outcome, an enum value)
    # "a" in prose is the article as often as the side: a single letter is left to the code
    assert isinstance(note, syntax.Note) and note.text == "a wins {d_lost}" and note.parts[0] == "a wins "
    assert note.parts[1].name == "d_lost"  # the expression between the braces is code
    assert isinstance(outcome, syntax.Outcome) and outcome.name == "d_won" and outcome.rule == "a rule"
    assert [f.name for f in outcome.fields] == ["d_left"]
    assert written[2].name == "a_won"  # the written block is left as written


def test_prose_exchanges_whole_words_and_rules_are_never_changed():
    block = parsed("""mirror attacker <-> defender do
  require attacker_ok, "The attacker needs a ship (attackers: any)."
  note "The attacker's column acts: {attacker_total} against the defender's {defender_total}." rule "the attacker"
end""")
    require, note = block.statements[2:]
    assert require.message == "The defender needs a ship (attackers: any)."
    assert note.text == "The defender's column acts: {defender_total} against the attacker's {attacker_total}."
    assert note.parts[0] == "The defender's column acts: " and note.parts[1].name == "defender_total"
    assert note.parts[2] == " against the attacker's " and note.parts[3].name == "attacker_total"
    assert note.rule == "the attacker"  # a rule quotes the seed


def test_only_whole_words_and_word_underscore_prefixes_are_exchanged():
    block = parsed("""mirror attacker <-> defender do
  let attackers = attacker_x + attacker + defender_y + x_attacker
end""")
    copy = block.statements[1]
    assert isinstance(copy, syntax.Let) and copy.name == "attackers"
    names = []
    expr = copy.value
    while isinstance(expr, syntax.Binary):
        names.append(expr.right.name)
        expr = expr.left
    names.append(expr.name)
    assert names[::-1] == ["defender_x", "defender", "attacker_y", "x_attacker"]


def test_a_mirror_inside_a_mirror_is_exchanged_by_the_outer_one():
    # the inner mirror gives a_x, then b_x; the outer one copies both with a <-> d: d_x, and b_x as it was
    block = parsed("""mirror a <-> d do
  mirror a <-> b do
    note "{a_x}"
  end
end""")
    assert [[p.name for p in s.parts if isinstance(p, syntax.Name)] for s in block.statements] == [["a_x"], ["b_x"], ["d_x"], ["b_x"]]


@pytest.mark.parametrize("text", [
    "let mirror = 1\noutcome done(mirror = mirror)",
    "let r = resolve q(mirror = 1)\noutcome done(v = r.mirror)",
])
def test_mirror_is_still_a_name_where_a_name_was(text):
    assert parsed(text).statements  # a ruleset written before `mirror` keeps loading


@pytest.mark.parametrize(("text", "where", "message"), [
    ("mirror a <-> a do\n  note \"{a_x}\"\nend", (1, 14), "`mirror` pairs 'a' with itself"),
    ("mirror a <-> d do\n  note \"a none\"\nend", (1, 1), "`mirror a <-> d` exchanges nothing"),
])
def test_a_mirror_that_cannot_be_meant_is_refused_at_its_line(text, where, message):
    with pytest.raises(RulesetError) as error:
        parsed(text)
    diagnostic = error.value.diagnostics[0]
    assert (diagnostic.line, diagnostic.column) == where and diagnostic.message.startswith(message)


def test_an_error_in_the_copy_is_reported_at_the_written_line_and_says_so(one_procedure):
    # the block names attacker_bonus, declared; its copy names defender_bonus, which is not: reported at line 2 of
    # the body, where the written attacker_bonus stands, saying it is about the copy
    with pytest.raises(RulesetError) as error:
        one_procedure("mirror attacker <-> defender do\n  let attacker_roll = 1d6 + attacker_bonus\nend\noutcome done",
                      inputs="{attacker_bonus: {type: int, default: 0}}")
    text = str(error.value)
    assert "defender_bonus" in text and "(in the copy made by `mirror attacker <-> defender`)" in text
    assert "let attacker_roll = 1d6 + attacker_bonus" in text  # the line shown is the written one


@pytest.mark.parametrize("engine", ENGINES)
def test_a_rule_broken_in_the_copy_says_so_also_from_the_cache(tmp_path, monkeypatch, engine):
    # the defender is not ready: the copy's requirement fails, worded for the defender, at the written line
    monkeypatch.setenv("WARTABLE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("WARTABLE_CACHE", raising=False)
    path = tmp_path / "ruleset.yaml"
    body = 'mirror attacker <-> defender do\n  require attacker_ready, "The attacker must be ready."\nend\noutcome done'
    path.write_text(ruleset_text({"p": procedure(body, inputs="{attacker_ready: {type: bool}, defender_ready: {type: bool}}")}),
                    encoding="utf-8")
    for _ in ("first load", "from the cache"):
        ruleset = load_ruleset(path)
        with pytest.raises(RuleViolation) as error:
            resolve(ruleset, "p", {"attacker_ready": True, "defender_ready": False}, seed=1, trace=False, engine=engine)
        assert "The defender must be ready." in str(error.value)
        assert "(in the copy made by `mirror attacker <-> defender`)" in str(error.value)
