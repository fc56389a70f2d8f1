"""Tests for rulesdata/naval_mines.yaml (seed 002, Naval Mines).

The ruleset's own examples run first; then the Python API checks exact odds
worked out by hand (the counting is next to each number), the legality rules
(each violation must quote the seed), who the mines ignore, and that a wrong
expectation in an example fails at its own file and line.
"""

from __future__ import annotations

import io
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from interpreter import RuleViolation, load_ruleset, odds, resolve
from interpreter.cli import main
from interpreter.examples import run_examples

RULESET_PATH = Path(__file__).resolve().parent.parent / "rulesdata" / "naval_mines.yaml"


@pytest.fixture(scope="module")
def mines():
    return load_ruleset(RULESET_PATH)


def units(*kinds: str) -> list[dict]:
    return [{"kind": kind} for kind in kinds]


def violation_message(ruleset, procedure: str, inputs: dict) -> str:
    with pytest.raises(RuleViolation) as caught:
        resolve(ruleset, procedure, inputs, dice=[])
    message = caught.value.diagnostics[0].message
    prefix = "rule violated: "
    assert message.startswith(prefix), message
    return message[len(prefix):]


# ---- the ruleset's examples ----------------------------------------------------


def test_every_example_passes(mines):
    results = run_examples(mines)
    failures = [(r.example.name, [p.format() for p in r.problems]) for r in results if not r.passed]
    assert failures == []
    assert len(results) >= 40


def test_the_seeds_worked_examples_are_encoded(mines):
    names = [example.name for example in mines.examples]
    for number in range(1, 7):
        assert any(name.startswith(f"Example {number}:") for name in names), f"Example {number} missing"
    assert any(name.startswith("Note 1:") for name in names)
    assert any(name.startswith("Note 3:") for name in names)


def test_every_element_cites_a_rule(mines):
    text = RULESET_PATH.read_text(encoding="utf-8")
    # Every constant, procedure and example has a rule: line (checked on the loaded model).
    for name, constant in mines.constants.items():
        assert constant.rule, name
    for example in mines.examples:
        assert example.data.get("rule"), example.name
    assert text.count("\n    - name: ") == len(mines.examples)  # grouped by procedure: each example one level in


# ---- crossing: exact odds by hand ------------------------------------------------


def test_example_2_both_destroyers_lost_odds(mines):
    # A mine detonates on 1-2: p = 2/6 = 1/3.  Both destroyers are lost unless
    # fewer than 2 of the 10 mines detonate (stopping early does not change that):
    # P = 1 - P(0) - P(1) = 1 - (2/3)^10 - 10*(1/3)*(2/3)^9
    #   = 1 - 1024/59049 - 5120/59049 = 52905/59049 = 17635/19683.
    dist = odds(mines, "cross_minefield", {"mines": 10, "units": units("destroyer", "destroyer")})
    expected = 1 - Fraction(2, 3) ** 10 - 10 * Fraction(1, 3) * Fraction(2, 3) ** 9
    assert expected == Fraction(17635, 19683)
    assert dist.probability("crossed", units_lost=2) == expected
    assert dist.probability("crossed", units_lost=2, mines_left=8) == expected
    assert dist.probability("crossed", units_lost=0, mines_left=10) == Fraction(1024, 59049)
    assert dist.truncated == 0


def test_example_4_information_detonates_on_1_only(mines):
    # With information a mine detonates on a 1 only: p = 1/6.  Five mines,
    # two French units (cruiser, destroyer):
    # P(none lost) = (5/6)^5 = 3125/7776
    # P(one lost)  = 5*(1/6)*(5/6)^4 = 3125/7776
    # P(both lost) = 1 - 6250/7776 = 1526/7776 = 763/3888.
    inputs = {"mines": 5, "units": units("cruiser", "destroyer"), "information_about_minefield": True}
    dist = odds(mines, "cross_minefield", inputs)
    assert dist.probability("crossed", units_lost=0) == Fraction(3125, 7776)
    assert dist.probability("crossed", units_lost=1) == Fraction(3125, 7776)
    assert dist.probability("crossed", units_lost=2) == Fraction(763, 3888)
    # Without information the same crossing is worse: P(none lost) = (2/3)^5 = 32/243.
    del inputs["information_about_minefield"]
    assert odds(mines, "cross_minefield", inputs).probability("crossed", units_lost=0) == Fraction(32, 243)


def test_example_4_a_2_does_not_detonate_with_information(mines):
    inputs = {"mines": 5, "units": units("cruiser", "destroyer")}
    with_info = resolve(mines, "cross_minefield", {**inputs, "information_about_minefield": True}, dice=[2, 2, 2, 2, 2])
    assert with_info.outcome.get("units_lost") == 0
    without = resolve(mines, "cross_minefield", inputs, dice=[2, 2])
    assert without.outcome.get("units_lost") == 2
    assert without.outcome.get("mines_left") == 3


def test_three_cruisers_against_five_mines(mines):
    # Detonations ~ Binomial(5, 1/3); counts of 2^(5-k)*C(5,k) over 3^5 = 243:
    # k = 0..5: 32, 80, 80, 40, 10, 1.  Three cruisers are all lost at k >= 3:
    # (40 + 10 + 1)/243 = 51/243 = 17/81.
    dist = odds(mines, "cross_minefield", {"mines": 5, "units": units("cruiser", "cruiser", "cruiser")})
    counts = [comb(5, k) * 2 ** (5 - k) for k in range(6)]
    assert counts == [32, 80, 80, 40, 10, 1]
    assert dist.probability("crossed", units_lost=0) == Fraction(32, 243)
    assert dist.probability("crossed", units_lost=1) == Fraction(80, 243)
    assert dist.probability("crossed", units_lost=2) == Fraction(80, 243)
    assert dist.probability("crossed", units_lost=3) == Fraction(17, 81)
    assert dist.probability("crossed", units_lost=4) == 0


def test_example_2_rolling_stops_after_the_second_detonation(mines):
    play = resolve(mines, "cross_minefield", {"mines": 10, "units": units("destroyer", "destroyer")}, dice=[4, 2, 6, 5, 1, 1, 1])
    assert play.dice == (4, 2, 6, 5, 1)
    assert play.unused_dice == 2
    assert (play.outcome.get("units_lost"), play.outcome.get("mines_detonated"), play.outcome.get("mines_left")) == (2, 2, 8)


def test_every_mine_rolls_when_units_survive(mines):
    play = resolve(mines, "cross_minefield", {"mines": 10, "units": units("destroyer", "destroyer")}, dice=[6] * 9 + [1])
    assert len(play.dice) == 10
    assert (play.outcome.get("units_lost"), play.outcome.get("mines_left")) == (1, 9)


# ---- who passes unharmed ------------------------------------------------------------


def test_submarines_and_landing_craft_are_unaffected(mines):
    inputs = {"mines": 8, "units": units("submarine", "landing_craft", "submarine")}
    play = resolve(mines, "cross_minefield", inputs, dice=[])
    assert play.outcome.name == "passed_freely"
    assert play.dice == ()
    assert (play.outcome.get("units_lost"), play.outcome.get("mines_left")) == (0, 8)
    assert odds(mines, "cross_minefield", inputs).probability("passed_freely", units_lost=0) == 1


def test_only_surface_units_count_in_a_mixed_group(mines):
    # One transport among submarines: the first detonation ends the crossing,
    # so a second scripted die stays unused.
    play = resolve(mines, "cross_minefield", {"mines": 3, "units": units("submarine", "transport", "landing_craft")}, dice=[1, 1])
    assert play.outcome.get("units_lost") == 1
    assert play.unused_dice == 1
    # P(transport lost) over 3 mines = 1 - (2/3)^3 = 19/27.
    dist = odds(mines, "cross_minefield", {"mines": 3, "units": units("submarine", "transport")})
    assert dist.probability("crossed", units_lost=1) == Fraction(19, 27)


def test_owner_passes_freely(mines):
    inputs = {"mines": 6, "units": units("battleship", "cruiser"), "crossing_side_owns_mines": True}
    play = resolve(mines, "cross_minefield", inputs, dice=[])
    assert play.outcome.name == "passed_freely"
    assert play.dice == ()
    assert play.outcome.get("mines_left") == 6
    assert odds(mines, "cross_minefield", inputs).probability("passed_freely") == 1


def test_no_defence_against_units_withdrawing_after_combat(mines):
    inputs = {"mines": 6, "units": units("cruiser"), "withdrawing_after_combat": True}
    play = resolve(mines, "cross_minefield", inputs, dice=[])
    assert play.outcome.name == "passed_freely"
    assert play.outcome.get("units_lost") == 0


def test_example_3_control_of_the_zone_changes_nothing(mines):
    base = {"mines": 4, "units": units("cruiser", "destroyer")}
    held = odds(mines, "cross_minefield", {**base, "crossing_side_controls_sea_zone": True})
    assert held.outcomes == odds(mines, "cross_minefield", base).outcomes


# ---- sweeping ------------------------------------------------------------------------


def test_one_escort_rolls_three_sweeping_dice(mines):
    # One escort against 10 mines rolls 3 dice; swept ~ Binomial(3, 1/6):
    # P(0) = 125/216, P(1) = 3*25/216 = 75/216, P(2) = 15/216, P(3) = 1/216.
    dist = odds(mines, "sweep_minefield", {"mines": 10, "escorts": units("escort")})
    assert [dist.probability("swept", mines_swept=k) for k in range(4)] == [Fraction(n, 216) for n in (125, 75, 15, 1)]
    play = resolve(mines, "sweep_minefield", {"mines": 10, "escorts": units("escort")}, dice=[1, 1, 1, 1])
    assert play.unused_dice == 1
    assert play.outcome.get("mines_left") == 7


def test_escorts_outnumbering_mines_each_sweep(mines):
    # Two escorts, one mine: each rolls one die for the mine still there.
    # P(not swept) = (5/6)^2 = 25/36.
    dist = odds(mines, "sweep_minefield", {"mines": 1, "escorts": units("escort", "escort")})
    assert dist.probability("swept", mines_left=1) == Fraction(25, 36)
    assert dist.probability("swept", mines_swept=1) == Fraction(11, 36)


def test_sweep_then_remaining_mines_defend(mines):
    # Escort + cruiser against one mine.  Sweeping die: 1/6 swept.  Otherwise
    # the mine rolls: 1/3 detonates.  P(a unit lost) = 5/6 * 1/3 = 5/18;
    # without sweeping it is 1/3.
    inputs = {"mines": 1, "units": units("escort", "cruiser")}
    swept = odds(mines, "attack_through_minefield", inputs)
    assert swept.probability("attacked", units_lost=1) == Fraction(5, 18)
    assert swept.probability("attacked", mines_swept=1) == Fraction(1, 6)
    unswept = odds(mines, "attack_through_minefield", inputs, choices={"sweepers": "no_escort"})
    assert unswept.probability("attacked", units_lost=1) == Fraction(1, 3)


def test_escort_in_naval_battle_does_not_sweep_in_an_attack(mines):
    inputs = {"mines": 1, "units": [{"kind": "escort", "in_naval_battle": True}, {"kind": "cruiser"}]}
    dist = odds(mines, "attack_through_minefield", inputs)
    assert dist.probability("attacked", mines_swept=0) == 1
    assert dist.probability("attacked", units_lost=1) == Fraction(1, 3)


@pytest.mark.parametrize(
    "escort, phase, quote",
    [
        ({"kind": "escort", "in_naval_battle": True}, "combat_movement",
         "if an attacking Escort unit takes part in a Naval Battle it cannot sweep any enemy Naval Mines in the same turn"),
        ({"kind": "escort", "mission_done_this_turn": True}, "combat_movement", "An Escort unit can only perform 1 mission in each turn."),
        ({"kind": "escort"}, "non_combat_movement", "During Combat Movement an attacking Escort unit can sweep up to 3 enemy Naval Mines."),
        ({"kind": "destroyer"}, "combat_movement", "During Combat Movement an attacking Escort unit can sweep up to 3 enemy Naval Mines."),
    ],
)
def test_illegal_sweeping(mines, escort, phase, quote):
    assert violation_message(mines, "sweep_minefield", {"mines": 3, "escorts": [escort], "phase": phase}) == quote


# ---- laying ---------------------------------------------------------------------------


def test_example_1_laying_is_legal(mines):
    play = resolve(mines, "lay_mines", {"mine_lines": ["112/110"] * 3}, dice=[])
    assert play.outcome.name == "laid"
    assert (play.outcome.get("line"), play.outcome.get("mines"), play.outcome.get("escort_ends_move_here")) == ("112/110", 3, True)


@pytest.mark.parametrize(
    "change, quote",
    [
        ({"mine_lines": ["91/92"] * 4}, "A maximum of 3 Naval Mines can be loaded onto an Escort unit."),
        ({"mine_lines": ["112/110", "112/110", "112/111"]},
         "It is not possible to split up the Naval Mines from the same Escort unit between multiple naval lines"),
        ({"carrier": "destroyer"}, "Only Escort units can transport – and lay – Naval Mines."),
        ({"carrier": "strategic_rail_movement"}, "Naval Mines cannot move on land – not even by Strategic Rail Movement."),
        ({"carrier": "land_movement"}, "Naval Mines cannot move on land"),
        ({"phase": "combat_movement"}, "This manoeuvre can only occur during the Non-Combat Movement phase."),
        ({"escort_moved_this_turn": True}, "an Escort unit that has not moved or attacked in this turn"),
        ({"escort_attacked_this_turn": True}, "if an Escort unit attacks it cannot transport any Naval Mines in the same turn"),
        ({"zone_controlled_since_start_of_non_combat_movement": False},
         "Naval Mines can only be laid by the owner in a sea zone that the owner controls since the start of the Non-Combat Movement phase."),
        ({"moves_on_after_laying": True}, "Once the Escort unit has laid the Naval Mines it must end its movement in that sea zone."),
        ({"mines_from": "a_naval_line"}, "Once a Naval Mine is laid on a line, it cannot be moved again – it must remain there until it detonates."),
        ({"layer_purchased_the_mines": False}, "The Nation that purchases the Naval Mines also moves and lays these mines"),
    ],
)
def test_illegal_laying_quotes_the_rule(mines, change, quote):
    inputs = {"mine_lines": ["112/110"] * 3, **change}
    assert quote in violation_message(mines, "lay_mines", inputs)


def test_three_mines_on_one_line_is_the_most_an_escort_lays(mines):
    assert resolve(mines, "lay_mines", {"mine_lines": ["91/92"] * 3}, dice=[]).outcome.get("mines") == 3
    with pytest.raises(RuleViolation):
        resolve(mines, "lay_mines", {"mine_lines": ["91/92"] * 4}, dice=[])


# ---- storage and production -----------------------------------------------------------


def test_stored_mines_are_lost_with_the_capital(mines):
    lost = resolve(mines, "capital_attacked", {"mines_stored": 7, "capital_lost": True}, dice=[]).outcome
    assert (lost.get("mines_lost"), lost.get("mines_left"), lost.get("mines_defending")) == (7, 0, 0)
    held = resolve(mines, "capital_attacked", {"mines_stored": 7, "capital_lost": False}, dice=[]).outcome
    assert (held.get("mines_lost"), held.get("mines_left"), held.get("mines_taken_as_casualties")) == (0, 7, 0)


def production(**change) -> dict:
    return {"nation": "Germany", "capital": "Berlin", "territory": "Berlin", "mines": 10, "industrial_complex_max_capacity": 10, **change}


def test_example_6_mines_do_not_count_against_capacity(mines):
    play = resolve(mines, "produce_mines", production(other_units=10), dice=[])
    assert play.outcome.name == "produced"
    assert (play.outcome.get("mines"), play.outcome.get("cost"), play.outcome.get("stored_in")) == (10, 10, "Berlin")


def test_india_produces_china_does_not(mines):
    india = resolve(mines, "produce_mines", production(nation="India", capital="Calcutta", territory="Calcutta", mines=2), dice=[])
    assert india.outcome.name == "produced"
    message = violation_message(mines, "produce_mines", production(nation="China", capital="Chungking", territory="Chungking", mines=1))
    assert message == "All Nations including India, but except China, can produce Naval Mines."


@pytest.mark.parametrize(
    "change, quote",
    [
        ({"territory": "Hamburg"}, "Naval Mines must be produced in the Capital belonging to the Nation that produces the Naval Mines."),
        ({"mines": 11}, "a maximum number of Naval Mines in each turn equal to the maximum capacity of that industrial complex"),
        ({"other_units": 11}, "the Industrial Complex can produce other units in accordance with its capacity"),
        ({"phase": "combat_movement"}, "Naval Mines are purchased in the Purchase & Repair Units phase."),
    ],
)
def test_illegal_production_quotes_the_rule(mines, change, quote):
    assert quote in violation_message(mines, "produce_mines", production(**change))


# ---- the numbers live in the YAML ------------------------------------------------------


def test_constants_drive_the_rolls(tmp_path):
    # A variant where information does not help: P(no loss) at 5 mines is
    # (2/3)^5 with or without information.
    variant = tmp_path / "no_information.yaml"
    variant.write_text(
        "wartable: 1\nname: no_information\ntitle: t\nsource: s\nversion: '1'\n"
        f"extends: {RULESET_PATH.as_posix()}\n"
        "override:\n  constants:\n    mine_defense_with_information: {value: 2}\n",
        encoding="utf-8",
    )
    ruleset = load_ruleset(variant)
    inputs = {"mines": 5, "units": units("cruiser", "destroyer"), "information_about_minefield": True}
    assert odds(ruleset, "cross_minefield", inputs).probability("crossed", units_lost=0) == Fraction(32, 243)


# ---- a wrong expectation fails at its own line ------------------------------------------


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_a_wrong_expected_value_fails_at_its_line(tmp_path):
    text = RULESET_PATH.read_text(encoding="utf-8")
    target = "      expect: {outcome: crossed, fields: {units_lost: 2, mines_detonated: 2, mines_left: 8}}"
    assert text.count(target) == 1
    copy = tmp_path / "naval_mines.yaml"
    copy.write_text(text, encoding="utf-8")
    code, out, err = run_cli(["test", str(copy)])
    assert (code, err) == (0, ""), err
    assert "0 failed" in out

    copy.write_text(text.replace(target, target.replace("mines_left: 8", "mines_left: 7")), encoding="utf-8")
    line = text[: text.index(target)].count("\n") + 1
    column = target.index("mines_left: 8") + len("mines_left: ") + 1
    code, out, err = run_cli(["test", str(copy)])
    assert code == 1
    assert "1 failed" in out
    assert "FAIL naval_mines: Example 2: rolling stops after the second detonation" in out
    assert f"naval_mines.yaml:{line}:{column}: expected mines_left = 7, got 8" in err
