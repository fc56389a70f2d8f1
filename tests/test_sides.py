"""Per-side inputs and choices (``sides:``, ``per_side:``), ``inputs_like:`` and ``...`` in resolve (issue 23):
a two-sided procedure declares each decision once for both sides, takes another procedure's inputs
without naming each, and passes them on by name. All three are sugar for what was written out before."""

from __future__ import annotations

import textwrap
from fractions import Fraction

import pytest
from conftest import HEADER

from interpreter import RulesetError, ir, load_ruleset, odds
from interpreter.errors import DiagnosticList, Source
from interpreter.sides import expand_sides
from interpreter.yaml_loader import load_yaml

SIDED = """\
sides: [attacker, defender]
procedures:
  fire:
    title: "One shot a side"
    rule: "r"
    inputs:
      range: {type: int, min: 1, default: 1, description: "Range."}
      per_side:
        bonus: {type: int, default: 0, description: "Added to the {side}'s die, not the {other}'s."}
        target: {type: int, default: 6, description: "The {side} hits at or above it."}
    choices:
      per_side:
        stance: {options: [bold, wary], default: wary, description: "The {side}'s stance.", rule: "The {side} chooses."}
    body: |
      let a = 1d6 + attacker_bonus + (if attacker_stance == "bold" then 1 else 0)
      let d = 1d6 + defender_bonus + (if defender_stance == "bold" then 1 else 0)
      outcome shots(attacker_hit = a >= attacker_target + range - 1, defender_hit = d >= defender_target + range - 1)
  battle:
    title: "A battle that hands its inputs on"
    rule: "r"
    inputs_like: {procedure: fire, except: [range]}
    inputs:
      defender_target: {type: int, default: 5, description: "Overridden: the defender hits on 5."}
      rounds: {type: int, default: 1}
    body: |
      let shots = resolve fire(range = rounds, ...)
      outcome over(attacker_hit = shots.attacker_hit, defender_hit = shots.defender_hit)
  battle_written_out:
    title: "The same battle with every argument written"
    rule: "r"
    inputs_like: battle
    body: |
      let shots = resolve fire(range = rounds, attacker_bonus = attacker_bonus, defender_bonus = defender_bonus,
        attacker_target = attacker_target, defender_target = defender_target,
        attacker_stance = attacker_stance, defender_stance = defender_stance)
      outcome over(attacker_hit = shots.attacker_hit, defender_hit = shots.defender_hit)
"""


@pytest.fixture(scope="module")
def sided(tmp_path_factory):
    path = tmp_path_factory.mktemp("sides") / "ruleset.yaml"
    path.write_text(HEADER.format(name="sided") + SIDED, encoding="utf-8")
    return load_ruleset(path)


def test_per_side_makes_one_input_per_side_in_place(sided):
    fire = sided.model.procedures["fire"]
    # entry by entry, side by side, where the per_side block stands: the names written out before
    assert [spec.name for spec in fire.inputs] == ["range", "attacker_bonus", "defender_bonus", "attacker_target", "defender_target"]
    assert [choice.name for choice in fire.choices] == ["attacker_stance", "defender_stance"]
    assert fire.input("defender_bonus").description == "Added to the defender's die, not the attacker's."
    assert fire.choice("attacker_stance").rule == "The attacker chooses."
    # an expanded input points at the per_side entry it came from: `target:` is SIDED's 10th line, after the header
    assert fire.input("defender_target").pos.line == fire.input("attacker_target").pos.line == HEADER.count("\n") + 10


def test_inputs_like_takes_the_inputs_and_choices_except_those_left_out_own_entries_overriding(sided):
    battle = sided.model.procedures["battle"]
    assert [spec.name for spec in battle.inputs] == ["attacker_bonus", "defender_bonus", "attacker_target", "defender_target", "rounds"]
    assert battle.input("defender_target").default == 5  # its own entry, in the place of fire's
    assert battle.input("attacker_target").default == 6  # fire's
    assert [choice.name for choice in battle.choices] == ["attacker_stance", "defender_stance"]
    # inputs_like of a procedure that itself has inputs_like: battle's expanded inputs
    assert [spec.name for spec in sided.model.procedures["battle_written_out"].inputs] == [spec.name for spec in battle.inputs]


def _call(ruleset, name: str) -> ir.CallProcedure:
    found = [node for node in ruleset.compiled[name].body.statements if isinstance(node, ir.CallProcedure)]
    assert len(found) == 1
    return found[0]


def test_pass_rest_is_the_call_written_out(sided):
    # `...` passes what fire takes and battle has, by name, in fire's order after the written argument
    passed, written = _call(sided, "battle"), _call(sided, "battle_written_out")
    assert [name for name, _ in passed.args] == ["range", "attacker_bonus", "defender_bonus", "attacker_target", "defender_target",
                                                 "attacker_stance", "defender_stance"]
    assert dict(passed.args).keys() == dict(written.args).keys()
    assert passed.trusted == written.trusted
    for name, value in passed.args:
        other = dict(written.args)[name]
        assert type(value) is type(other) and getattr(value, "name", None) == getattr(other, "name", None)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_pass_rest_odds_by_hand(sided, engine):
    # battle, defaults: attacker hits on 1d6 >= 6 (1/6); defender's target is battle's own 5: 1d6 >= 5 (2/6).
    # With attacker_bonus 2 and the defender bold: attacker 1d6 + 2 >= 6 on 4-6 (1/2); defender 1d6 + 1 >= 5 on 4-6 (1/2).
    plain = odds(sided, "battle", {}, engine=engine)
    assert plain.probability("over", attacker_hit=True, defender_hit=True) == Fraction(1, 6) * Fraction(2, 6)
    given = odds(sided, "battle", {"attacker_bonus": 2}, choices={"defender_stance": "bold"}, engine=engine)
    assert given.probability("over", attacker_hit=True, defender_hit=False) == Fraction(1, 4)
    assert given.outcomes == odds(sided, "battle_written_out", {"attacker_bonus": 2}, choices={"defender_stance": "bold"},
                                  engine=engine).outcomes


def test_a_ruleset_without_the_sugar_is_left_as_it_was(tmp_path):
    path = tmp_path / "plain.yaml"
    path.write_text(HEADER.format(name="plain") + "procedures:\n  p:\n    title: t\n    rule: r\n    body: |\n      outcome o\n", encoding="utf-8")
    loaded = load_yaml(Source(path.name, path.read_text(encoding="utf-8")))
    assert expand_sides(loaded, DiagnosticList()) is loaded


def load_variant_of_sided(tmp_path, fire_inputs: str):
    """A variant of SIDED whose override changes procedure fire's inputs (``fire_inputs``, YAML at that level)."""
    (tmp_path / "base.yaml").write_text(HEADER.format(name="base") + SIDED, encoding="utf-8")
    override = "extends: base.yaml\noverride:\n  procedures:\n    fire:\n      inputs:\n" + textwrap.indent(fire_inputs, "        ")
    (tmp_path / "variant.yaml").write_text(HEADER.format(name="variant") + override, encoding="utf-8")
    return load_ruleset(tmp_path / "variant.yaml")


def test_a_variant_overrides_a_per_side_entry(tmp_path):
    variant = load_variant_of_sided(tmp_path, "per_side:\n  target: {default: 5}\n")
    fire = variant.model.procedures["fire"]
    # both sides' target changes with the one entry; the battle, taking fire's inputs, keeps its own defender_target
    assert (fire.input("attacker_target").default, fire.input("defender_target").default) == (5, 5)
    assert variant.model.procedures["battle"].input("attacker_target").default == 5


def test_an_expansion_past_the_value_limit_is_refused_at_its_entry(tmp_path):
    # 300 sides times 200 entries would be 60,000 inputs of 3 values each, past max_nodes (50,000) of the file
    sides = ", ".join(f"s{i}" for i in range(300))
    entries = "".join(f"        e{i}: {{type: int}}\n" for i in range(200))
    path = tmp_path / "big.yaml"
    path.write_text(HEADER.format(name="big") + f"sides: [{sides}]\nprocedures:\n  p:\n    title: t\n    rule: r\n"
                    f"    inputs:\n      per_side:\n{entries}    body: |\n      outcome o\n", encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    assert "too many values once per_side and inputs_like are expanded" in str(info.value)


def test_eia_keeps_the_names_of_its_inputs_and_choices():
    # Situations, --set and --choose name these: the per_side rewrite must make exactly the names written before.
    eia = load_ruleset("eia")
    battle = eia.model.procedures["battle"]
    pairs = ["admirals", "maneuver", "column_sizes"]
    assert [s.name for s in battle.inputs] == ["attacker", "defender"] + [f"{side}_{e}" for e in pairs for side in ("attacker", "defender")] + ["report"]
    policies = ["formation", "orders", "targets", "intent", "extra_ships", "free_target", "reload", "continues", "retreats"]
    assert [c.name for c in battle.choices] == [f"{side}_{p}" for p in policies for side in ("attacker", "defender")]
    columns_act = {s.name for s in eia.model.procedures["columns_act"].inputs}
    battle_round = {s.name for s in eia.model.procedures["battle_round"].inputs}
    own = {"round", "end_contest"} | {f"{side}_{e}" for e in ("sunk", "captured", "retreats") for side in ("attacker", "defender")}
    assert battle_round == columns_act | own


def test_a_variant_changes_one_side_of_a_per_side_entry(tmp_path):
    fire = load_variant_of_sided(tmp_path, "attacker_target: {default: 4}\n").model.procedures["fire"]
    # the base's per_side block is expanded before the one side is changed: the other side keeps the base's value
    assert (fire.input("attacker_target").default, fire.input("defender_target").default) == (4, 6)


def test_the_rulebook_reads_the_call_back_with_its_dots(sided):
    # the player aid's steps show the call as written, `...` included
    from interpreter.rulebook import expr_text

    call = sided.model.procedures["battle"].body.statements[0].value
    assert expr_text(call) == "resolve fire(range = rounds, ...)"


LIKE_SEVERAL = """\
procedures:
  raid:
    title: "Raid"
    rule: "r"
    inputs:
      attacker: {type: int, min: 0, description: "Raid's attacker."}
      convoys: {type: int, default: 0}
    body: |
      outcome done(n = attacker - convoys)
  shell:
    title: "Shell"
    rule: "r"
    inputs:
      attacker: {type: int, min: 1, description: "Shell's attacker."}
      fortress: {type: bool, default: false}
      range: {type: int, default: 1}
    body: |
      outcome done(n = if fortress then attacker - range else attacker)
  mission:
    title: "Mission"
    rule: "r"
    inputs_like: [raid, {procedure: shell, except: [range]}]
    inputs:
      convoys: {type: int, default: 2, description: "Mission's own."}
      raiding: {type: bool, default: true}
    body: |
      if raiding then
        let r = resolve raid(...)
        outcome done(n = r.n)
      end
      let s = resolve shell(...)
      outcome done(n = s.n)
"""


def test_inputs_like_of_several_procedures_takes_each_in_turn_the_first_having_a_name(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(HEADER.format(name="several") + LIKE_SEVERAL, encoding="utf-8")
    ruleset = load_ruleset(path)
    mission = ruleset.model.procedures["mission"]
    # raid's two, then shell's that raid lacks (range left out), then the mission's own new one
    assert [spec.name for spec in mission.inputs] == ["attacker", "convoys", "fortress", "raiding"]
    assert mission.input("attacker").description == "Raid's attacker."  # the first listed has it
    # raid's attacker takes 0 (shell's is at least 1): 0 ships raid 2 convoys -> 0 - 2 = -2
    assert odds(ruleset, "mission", {"attacker": 0}).probability("done", n=-2) == 1
    assert mission.input("convoys").default == 2  # its own entry, in the place of raid's
    # a raid of 5 against the mission's default 2 convoys: 5 - 2 = 3; a shelling of a fortress: shell's own range 1
    assert odds(ruleset, "mission", {"attacker": 5}).probability("done", n=3) == 1
    assert odds(ruleset, "mission", {"attacker": 5, "raiding": False, "fortress": True}).probability("done", n=4) == 1
