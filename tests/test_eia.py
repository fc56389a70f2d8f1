"""Tests for rulesdata/eia.yaml (seed 003, Empires in Arms new naval rules).

The ruleset's own examples run first; then the Python API checks exact odds
worked out by hand (the counting is next to each number), the `while` bounds
(truncated mass, outcomes + truncated = 1), the readings of ambiguous text
through one-line variants, player choices that change the result, and rule
violations that quote the seed.
"""

from __future__ import annotations

import io
import re
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from interpreter import RuleViolation, load_ruleset, odds, resolve
from interpreter.api import odds_by_choice
from interpreter.cli import main
from interpreter.examples import run_examples

ROOT = Path(__file__).resolve().parent.parent
RULESET_PATH = ROOT / "rulesdata" / "eia.yaml"
SEED_PATH = ROOT.parent / "shared" / "seeds" / "003_a80b138c53982d4a.txt"

NEVER = {"attacker_retreats": "never", "defender_retreats": "never"}  # neither player retreats


@pytest.fixture(scope="module")
def eia():
    return load_ruleset(RULESET_PATH)


def ships(*kinds: str, **fields) -> list[dict]:
    return [{"kind": kind, **fields} for kind in kinds]


def variant(tmp_path: Path, constants: dict) -> object:
    """eia with some constants replaced (the one-line variants the notes name)."""
    lines = "".join(f"    {name}: {{value: {str(value).lower() if isinstance(value, bool) else value}}}\n" for name, value in constants.items())
    path = tmp_path / "eia_variant.yaml"
    path.write_text(
        "wartable: 1\nname: eia_variant\ntitle: t\nsource: s\nversion: '1'\n"
        f"extends: {RULESET_PATH.as_posix()}\n"
        "override:\n  constants:\n" + lines,
        encoding="utf-8",
    )
    return load_ruleset(path)


def violation_message(ruleset, procedure: str, inputs: dict) -> str:
    with pytest.raises(RuleViolation) as caught:
        resolve(ruleset, procedure, inputs, dice=[])
    message = caught.value.diagnostics[0].message
    prefix = "rule violated: "
    assert message.startswith(prefix), message
    return message[len(prefix):]


def normalized(text: str) -> str:
    """Seed text with list dashes and line breaks folded into single spaces."""
    return re.sub(r"\s+", " ", text.replace("\n- ", " ").replace("- ", " ")).strip()


def total(dist) -> Fraction:
    return sum((p for _, p in dist.outcomes), Fraction(0)) + dist.truncated


# ---- the ruleset's examples and citations ------------------------------------------


def test_every_example_passes(eia):
    results = run_examples(eia)
    failures = [(r.example.name, [p.format() for p in r.problems]) for r in results if not r.passed]
    assert failures == []
    assert len(results) >= 100


def test_every_element_cites_a_rule(eia):
    for name, constant in eia.constants.items():
        assert constant.rule, name
    for name, table in eia.tables.items():
        assert table.rule, name
    for name, modifier_list in eia.modifiers.items():
        assert modifier_list.rule, name
        for entry in modifier_list.entries:
            assert entry.rule, (name, entry.name)
    for name, procedure in eia.procedures.items():
        assert procedure.rule, name
    for example in eia.examples:
        assert example.data.get("rule"), example.name


def test_notes_quote_the_seed(eia):
    # Every note's seed words (pieces joined by "..." or " / ") are in the seed.
    if not SEED_PATH.is_file():
        pytest.skip("the seed texts are not next to this checkout")
    seed = normalized(SEED_PATH.read_text(encoding="utf-8"))
    for note in eia.notes:
        assert note.seed, note.topic
        for piece in re.split(r"\.\.\.| / ", note.seed):
            piece = normalized(piece).strip(" -")
            if piece:
                assert piece in seed, (note.topic, piece)


def test_the_missing_operation_name_is_noted(eia):
    [note] = [n for n in eia.notes if "name is missing" in n.topic]
    assert "Naval Superiority" in note.text
    assert "Use your whole fleet to control major operations in the sea area." in note.seed
    # and the nameless block is encoded as Naval Superiority: 1d6 range, 1$ cost.
    assert resolve(eia, "declare_operation", {"operation": "naval_superiority"}, dice=[]).outcome.get("cost") == 1
    assert odds(eia, "operation_range", {"operation": "naval_superiority"}).probability("range", steps=6) == Fraction(1, 6)


def test_the_illustrative_table_is_marked(eia):
    table = eia.tables["unspecified_rolls"]
    assert table.example is True
    assert "ILLUSTRATIVE" in table.title
    assert any("not in the seed" in n.topic for n in eia.notes)


# ---- one shot: exact odds by hand --------------------------------------------------


@pytest.mark.parametrize(
    "shooter, carrying, target, sunk, damaged",
    [
        # DRM 0: a 6 sinks, a 5 damages.
        ("warship", False, "warship", Fraction(1, 6), Fraction(1, 6)),
        # Heavy +1, at Heavy -1: DRM 0.
        ("heavy", False, "heavy", Fraction(1, 6), Fraction(1, 6)),
        # Heavy +1, at Frigate +1: d6 + 2 sinks on 4, 5, 6 (3/6), damages on 3 (1/6).
        ("heavy", False, "frigate", Fraction(1, 2), Fraction(1, 6)),
        # Heavy +1 at a warship: sinks on 5, 6; damages on 4.
        ("heavy", False, "warship", Fraction(1, 3), Fraction(1, 6)),
        # Frigate -1: natural 6 -> 5, then the roll-on: 1-3 stay 5 (damage),
        # 4-6 reach 6+ (sink): 1/6 * 3/6 each.
        ("frigate", False, "warship", Fraction(1, 12), Fraction(1, 12)),
        # Frigate -1 at Heavy -1: natural 6 -> 4; roll-on 4 -> 5 (damage, 1/36),
        # 5 -> 6 or 6 -> 7 (sink, 2/36).
        ("frigate", False, "heavy", Fraction(1, 18), Fraction(1, 36)),
        # Transport -2 (empty): as the frigate at a heavy ship.
        ("transport", False, "warship", Fraction(1, 18), Fraction(1, 36)),
        # Trade (carrying -1) at Heavy -1: DRM -2, the same.
        ("trade", False, "heavy", Fraction(1, 18), Fraction(1, 36)),
        # Transport -2, Carrying -1, at Heavy -1: DRM -4. Natural 6 -> 2; only a
        # roll-on 6 (+3 = 5, roll again) helps; then 1-3 stay 5 (damage), 4-6
        # sink: 1/6 * 1/6 * 3/6 = 1/72 each.
        ("transport", True, "heavy", Fraction(1, 72), Fraction(1, 72)),
        # Transport -2, Carrying -1, at Frigate +1: DRM -2 as above.
        ("transport", True, "frigate", Fraction(1, 18), Fraction(1, 36)),
    ],
)
def test_one_shot_by_hand(eia, shooter, carrying, target, sunk, damaged):
    dist = odds(eia, "shot", {"shooter": shooter, "shooter_carrying": carrying, "target": target})
    assert dist.probability("sunk") == sunk
    assert dist.probability("damaged") == damaged
    assert dist.probability("no_effect") == 1 - sunk - damaged
    # The roll-on chain stops by itself (each continuing roll adds 3), so the
    # bound roll_on_limit drops nothing.
    assert dist.truncated == 0
    assert total(dist) == 1


def test_roll_on_chain_scripted(eia):
    inputs = {"shooter": "transport", "shooter_carrying": True, "target": "heavy"}
    # 6 - 4 = 2; roll-on 6: +3 = 5, roll again; 4: +1 = 6 sinks.
    play = resolve(eia, "shot", inputs, dice=[6, 6, 4])
    assert (play.outcome.name, play.dice) == ("sunk", (6, 6, 4))
    # 6, 6, 6: 2 + 3 + 3 = 8 sinks and rolling stops: a fourth die stays unused.
    play = resolve(eia, "shot", inputs, dice=[6, 6, 6, 1])
    assert (play.outcome.name, play.unused_dice) == ("sunk", 1)
    # 6, 6, 3: 2 + 3 + 0 = 5 damages; 6, 4: 2 + 1 = 3, no result, no further roll.
    assert resolve(eia, "shot", inputs, dice=[6, 6, 3]).outcome.name == "damaged"
    play = resolve(eia, "shot", inputs, dice=[6, 4, 6])
    assert (play.outcome.name, play.unused_dice) == ("no_effect", 1)
    # A 5 is no roll of 6: no roll-on at all.
    play = resolve(eia, "shot", inputs, dice=[5, 6])
    assert (play.outcome.name, play.unused_dice) == ("no_effect", 1)


def test_roll_on_bound_reports_truncated_mass(tmp_path):
    # With roll_on_limit = 1 the chain 6 (-> 2), 6 (+3 = 5, roll again) is still
    # looping at the bound: dropped, P = 1/6 * 1/6 = 1/36; no other path reaches
    # 5 or 6, so nothing is sunk or damaged and 35/36 is no result.
    short = variant(tmp_path, {"roll_on_limit": 1})
    dist = odds(short, "shot", {"shooter": "transport", "shooter_carrying": True, "target": "heavy"})
    assert dist.truncated == Fraction(1, 36)
    assert dist.probability("sunk") == 0 and dist.probability("damaged") == 0
    assert dist.probability("no_effect") == Fraction(35, 36)
    assert total(dist) == 1
    # One roll-on more and the chain always ends: back to 1/72 and 1/72.
    longer = variant(tmp_path, {"roll_on_limit": 2})
    dist = odds(longer, "shot", {"shooter": "transport", "shooter_carrying": True, "target": "heavy"})
    assert (dist.truncated, dist.probability("sunk")) == (0, Fraction(1, 72))


def test_reading_roll_on_uses_the_modified_result(tmp_path):
    # The other reading: roll on only when the modified result is 6 - which
    # already sinks, so no roll-on ever happens.  A frigate at a warship then
    # damages on a natural 6 (6 - 1 = 5) and never sinks; the carrying
    # transport at a heavy ship (max 6 - 4 = 2) never hits.
    other = variant(tmp_path, {"roll_on_uses_natural_six": False})
    dist = odds(other, "shot", {"shooter": "frigate", "target": "warship"})
    assert (dist.probability("sunk"), dist.probability("damaged")) == (0, Fraction(1, 6))
    dist = odds(other, "shot", {"shooter": "transport", "shooter_carrying": True, "target": "heavy"})
    assert dist.probability("no_effect") == 1


def test_reading_only_an_exact_six_sinks(tmp_path, eia):
    # Literal reading: 7+ is one of the "Other results".  A heavy ship at a
    # frigate (d6 + 2) then sinks only on a natural 4 (1/6) instead of 4-6 (1/2).
    literal = variant(tmp_path, {"higher_results_sink": False})
    dist = odds(literal, "shot", {"shooter": "heavy", "target": "frigate"})
    assert (dist.probability("sunk"), dist.probability("damaged")) == (Fraction(1, 6), Fraction(1, 6))
    assert odds(eia, "shot", {"shooter": "heavy", "target": "frigate"}).probability("sunk") == Fraction(1, 2)


# ---- damage, capture, volleys ----------------------------------------------------------


def test_second_damage_captures(eia):
    # A damaged warship hit by a 5 (DRM 0) is captured, by a 6 sunk.
    play = resolve(eia, "fire_at", {"shooter": {"kind": "warship"}, "target": {"kind": "warship", "status": "damaged"}}, dice=[5])
    assert play.outcome.get("target").get("status") == "captured"
    play = resolve(eia, "fire_at", {"shooter": {"kind": "warship"}, "target": {"kind": "warship", "status": "damaged"}}, dice=[6])
    assert play.outcome.get("target").get("status") == "sunk"
    # Two warships firing at one damaged warship (the second as an extra ship):
    # captured unless both shots miss or one sinks it... counting by hand:
    # first shot sinks 1/6, captures 1/6, misses 2/3; after a miss the second
    # shot sinks 1/6, captures 1/6.  P(captured) = 1/6 + 2/3 * 1/6 = 5/18,
    # P(sunk) = 5/18, P(still damaged) = (2/3)^2 = 4/9.
    dist = odds(eia, "volley", {"shooters": ships("warship", "warship"), "targets": [{"kind": "warship", "status": "damaged"}]})
    statuses = {}
    for outcome, p in dist.outcomes:
        status = outcome.get("targets")[0].get("status")
        statuses[status] = statuses.get(status, 0) + p
    assert statuses == {"captured": Fraction(5, 18), "sunk": Fraction(5, 18), "damaged": Fraction(4, 9)}


def test_two_damage_results_in_one_volley_capture(eia):
    # Position 1 damages (5), the extra warship damages again (5): captured.
    play = resolve(eia, "volley", {"shooters": ships("warship", "warship"), "targets": ships("warship")}, dice=[5, 5])
    assert play.outcome.get("targets")[0].get("status") == "captured"


def test_damaged_ships_do_not_fire(eia):
    # A damaged shooter at position 1 rolls nothing.
    play = resolve(eia, "volley", {"shooters": [{"kind": "heavy", "status": "damaged"}], "targets": ships("warship")}, dice=[])
    assert play.dice == ()
    with pytest.raises(RuleViolation):
        resolve(eia, "fire_at", {"shooter": {"kind": "heavy", "status": "damaged"}, "target": {"kind": "warship"}}, dice=[6])


def test_position_matched_fire(eia):
    # Ship i fires at enemy ship i: the heavy ship at position 2 fires at the
    # frigate at position 2 (4 + 2 = 6 sinks it), the warship at position 1 at
    # the transport (4 + 0: no result).
    play = resolve(eia, "volley", {"shooters": ships("warship", "heavy"), "targets": ships("transport", "frigate")}, dice=[4, 4])
    targets = play.outcome.get("targets")
    assert [t.get("status") for t in targets] == ["fit", "sunk"]


def test_carrying_extra_ship_fires_only_at_an_untouched_ship(eia):
    # The warship at position 1 is damaged, so the enemy ship at position 1
    # is not fired upon by it; the carrying transport (an extra ship) may fire
    # at it: 6 - 3 = 3, no result, and no roll-on from a 3.
    inputs = {"shooters": [{"kind": "warship", "status": "damaged"}, {"kind": "transport", "carrying": True}], "targets": ships("warship")}
    play = resolve(eia, "volley", inputs, dice=[3])
    assert play.dice == (3,)
    assert [s.get("fired") for s in play.outcome.get("shooters")] == [False, True]


def test_extra_ships_choice_changes_the_odds(eia):
    # One warship against two warships: with `fire` the extra ship also shoots
    # at the same target: P(target still fit) = (2/3)^2 = 4/9; with hold_fire
    # only the matched ship fires: 2/3.
    inputs = {"shooters": ships("warship", "warship"), "targets": ships("warship")}

    def fit(choice):
        dist = odds(eia, "volley", {**inputs, "extra_ships": choice})
        return sum((p for o, p in dist.outcomes if o.get("targets")[0].get("status") == "fit"), Fraction(0))

    assert fit("fire") == Fraction(4, 9)
    assert fit("hold_fire") == Fraction(2, 3)


def test_ships_that_fired_are_barred_unless_reloaded(eia):
    column = [{"kind": "warship", "fired": True}]
    # Barred: the defender's ship cannot fire.
    play = resolve(eia, "volley", {"shooters": column, "targets": ships("warship"), "barred": True}, dice=[])
    assert play.dice == ()
    # Attacked again, rating 0: the reload roll (1d6 <= 0) always fails; the
    # defender wins the contest (1 v 6) but cannot fire, the attacker's 6 sinks.
    play = resolve(eia, "column_attack", {"attacker": ships("warship"), "defender": column, "defender_attacked_before": True}, dice=[3, 1, 6, 6])
    assert play.outcome.get("defender_sunk") == 1 and play.outcome.get("attacker_sunk") == 0
    # Rating 6: the reload always succeeds; the defender's first strike 6 sinks the attacker.
    play = resolve(
        eia, "column_attack",
        {"attacker": ships("warship"), "defender": column, "defender_attacked_before": True, "defender_rating": 6},
        dice=[3, 1, 6, 6],
    )
    assert play.outcome.get("attacker_sunk") == 1


def test_reload_at_most_five(eia):
    column = ships(*["warship"] * 7, fired=True)
    play = resolve(eia, "reload_roll", {"column": column, "rating": 4}, dice=[4])
    assert play.outcome.name == "reloaded"
    assert [s.get("fired") for s in play.outcome.get("column")] == [False] * 5 + [True] * 2
    assert resolve(eia, "reload_roll", {"column": column, "rating": 4}, dice=[5]).outcome.name == "not_reloaded"


# ---- column attacks: exact odds by hand -------------------------------------------------


def test_one_warship_against_one(eia):
    # Tactical contest 1d6 v 1d6: attacker first 15/36, defender first 15/36,
    # simultaneous 6/36.  Shot: sinks 1/6, damages 1/6, misses 2/3.
    # Defender sunk: attacker first 1/6; defender first: the attacker fires
    # back only after a miss (2/3), 1/9; simultaneous 1/6:
    # 15/36*1/6 + 15/36*1/9 + 6/36*1/6 = 63/648 + 30/648 = 93/648 = 31/216.
    # By symmetry the attacker is sunk with the same probability.
    dist = odds(eia, "column_attack", {"attacker": ships("warship"), "defender": ships("warship")})
    assert dist.probability("fought", defender_sunk=1) == Fraction(31, 216)
    assert dist.probability("fought", attacker_sunk=1) == Fraction(31, 216)
    # Both sunk: only in simultaneous fire, 6/36 * 1/36 = 1/216.
    assert dist.probability("fought", attacker_sunk=1, defender_sunk=1) == Fraction(1, 216)
    assert dist.truncated == 0 and total(dist) == 1


def test_defender_intent_changes_the_result(eia):
    # Evading single warships: each column adds +2 (fewer than 5, single
    # ship), so the defender evades when its die is higher: 15/36 = 5/12.
    inputs = {"attacker": ships("warship"), "defender": ships("warship")}
    by_choice = {
        (chosen["defender_intent"], chosen["extra_ships"]): dist
        for chosen, dist in odds_by_choice(eia, "column_attack", inputs)
    }
    assert by_choice[("evade", "fire")].probability("evaded") == Fraction(5, 12)
    assert by_choice[("first_strike", "fire")].probability("evaded") == 0
    # Evade only when outnumbered: one against one is not outnumbered.
    assert by_choice[("evade_if_outnumbered", "fire")].probability("evaded") == 0
    two = {"attacker": ships("warship", "warship"), "defender": ships("warship")}
    # Defender 1 ship (+2) v attacker 2 ships (+1): evades when d + 1 > a, 21/36.
    assert odds(eia, "column_attack", two, choices={"defender_intent": "evade_if_outnumbered"}).probability("evaded") == Fraction(7, 12)


def test_protect_own_column_bonus(eia):
    # +1 to the defender: the attacker wins the contest when a - d >= 2
    # (4 + 3 + 2 + 1 = 10 of 36), ties when a = d + 1 (5 of 36).
    dist = odds(eia, "tactical_contest", {"defender_protects_own": True})
    assert dist.probability("attacker_first_strike") == Fraction(10, 36)
    assert dist.probability("simultaneous") == Fraction(5, 36)
    assert dist.probability("defender_first_strike") == Fraction(21, 36)


def test_evade_modifiers_for_the_attacker_variant(tmp_path, eia):
    # A single frigate (+1 only frigates, +1 fewer than 5, +1 single: +3)
    # evades a single warship (+2).  Both modifiers (default): evades when
    # d + 3 > a + 2, i.e. d >= a: 21 of 36.  Only the defender's (variant):
    # evades unless a >= d + 3 (d=1: 3 faces, d=2: 2, d=3: 1 -> 6 of 36): 30/36.
    inputs = {"attacker_ships": 1, "defender_ships": 1, "defender_all_frigates": True}
    inputs["defender_intent"] = "evade"
    base = odds(eia, "tactical_contest", inputs)
    assert base.probability("evaded") == Fraction(21, 36)
    only_defender = variant(tmp_path, {"evade_modifiers_for_attacker": False})
    assert odds(only_defender, "tactical_contest", inputs).probability("evaded") == Fraction(30, 36)


# ---- protecting the fleet ------------------------------------------------------------------


def test_protector_must_be_attacked_unless_out_maneuvered(eia):
    # Attacker: one warship (+2); protector: one frigate (+3). The attacker
    # wins the column maneuver roll when a + 2 > p + 3, i.e. a - p >= 2:
    # 4 + 3 + 2 + 1 = 10 of 36.
    inputs = {"attacker": ships("warship"), "target": ships("transport", carrying=True), "protector": ships("frigate")}
    dist = odds(eia, "attack_with_protector", inputs, choices={"continue_after_protector": "stop"})
    assert dist.probability("attacked", column="target") == Fraction(10, 36)
    assert dist.probability("attacked", column="protector") == Fraction(26, 36)
    # With `continue`, the attacker goes on to the target whenever the
    # protecting frigate is lost and the attacker can still fire; the attacker
    # still gets through to the target directly in 10 of 36.
    going_on = odds(eia, "attack_with_protector", inputs)
    assert going_on.probability("attacked", column="protector_then_target") > 0
    assert going_on.probability("attacked", column="target") == Fraction(10, 36)


# ---- initiative and the end of a round -------------------------------------------------------


def test_initiative_reroll_until_untied(eia):
    # Equal ratings: each contest is won by a with 15/36, tied with 6/36; a tie
    # is rolled again until it is not: P(a) = (15/36) / (1 - 6/36) = 1/2, exactly.
    dist = odds(eia, "initiative", {"attacker_columns": 2, "defender_columns": 2})
    assert dist.probability("initiative", side="attacker") == Fraction(1, 2)
    assert dist.probability("initiative", side="defender") == Fraction(1, 2)
    assert dist.truncated == 0
    assert total(dist) == 1
    # a rated 1 higher: per contest a 21/36, b 10/36, tie 5/36.
    # P(a) = (21/36) / (1 - 5/36) = 21/31.
    dist = odds(eia, "initiative", {"attacker_columns": 1, "defender_columns": 1, "attacker_maneuver": 1})
    assert dist.probability("initiative", side="attacker") == Fraction(21, 31)
    assert dist.truncated == 0
    assert total(dist) == 1
    # More columns: no roll, nothing truncated.
    dist = odds(eia, "initiative", {"attacker_columns": 3, "defender_columns": 2})
    assert (dist.probability("initiative", side="attacker", by="columns"), dist.truncated) == (1, 0)


@pytest.mark.parametrize("round_number", range(1, 10))
def test_end_of_round_on_a_tie(eia, round_number):
    # Nobody retreats: the combat ends only on a tie (6/36) and d6 +
    # (round - 1) >= 7, i.e. a die of 8 - round or more: max(0, min(6, round - 1))
    # faces.  Round 1: 0 (never); round 3: 2 faces (5, 6) -> 1/6 * 1/3 = 1/18;
    # round 7 and later: every tie ends it, 1/6.
    faces = max(0, min(6, round_number - 1))
    dist = odds(eia, "end_of_round", {"round": round_number, **NEVER})
    assert dist.probability("combat_ends", reason="tie_roll") == Fraction(1, 6) * Fraction(faces, 6)
    assert total(dist) == 1


def test_end_of_round_three_is_one_in_eighteen(eia):
    dist = odds(eia, "end_of_round", {"round": 3, **NEVER})
    assert dist.probability("combat_ends") == Fraction(1, 18)


def test_end_on_exactly_seven_variant(tmp_path):
    # Exact reading: round 3 ends only on a die of 5 (5 + 2 = 7): 1/6 * 1/6;
    # round 9 (d6 + 8 >= 9) never.
    exact = variant(tmp_path, {"end_on_exact_result": True})
    assert odds(exact, "end_of_round", {"round": 3, **NEVER}).probability("combat_ends") == Fraction(1, 36)
    assert odds(exact, "end_of_round", {"round": 9, **NEVER}).probability("combat_ends") == 0


def test_retreat_choice_changes_the_result(eia):
    # Round 1, a weaker (1 ship v 3): a wins the contest 15/36.
    inputs = {"round": 1, "attacker_ships": 1, "defender_ships": 3}
    ends = {
        choice: odds(eia, "end_of_round", {**inputs, "attacker_retreats": choice, "defender_retreats": choice}).probability("combat_ends")
        for choice in ("if_weaker", "always", "never")
    }
    # if_weaker: only a retreats, 15/36; always: either winner, 30/36; never: 0.
    assert ends == {"if_weaker": Fraction(5, 12), "always": Fraction(5, 6), "never": 0}


# ---- interception and superiority ------------------------------------------------------------


def test_interception_odds_by_hand(eia):
    # Patrol at 7 steps: won contest (15/36) -> 2d6 >= 7 (21/36); tie -> 1d6
    # never 7; lost -> no dice.  15/36 * 21/36 = 35/144.
    assert odds(eia, "interception", {"operation": "patrol", "distance": 7}).probability("battle_joined") == Fraction(35, 144)
    # Raid at 10 steps: won -> 3d6 >= 10 (135/216 = 5/8); tie -> 2d6 >= 10
    # (6/36); lost -> 1d6, never.  15/36 * 5/8 + 6/36 * 1/6 = 75/288 + 8/288 = 83/288.
    assert odds(eia, "interception", {"operation": "raid", "distance": 10}).probability("battle_joined") == Fraction(83, 288)
    # Frigate-only target against a Patrol at 1 step: dice = 1 +/- 1 - 1; only
    # a won contest leaves one die (always >= 1): 15/36.
    dist = odds(eia, "interception", {"operation": "patrol", "distance": 1, "defender": ships("frigate")})
    assert dist.probability("battle_joined") == Fraction(5, 12)


def test_superiority_contest_by_hand(eia):
    # 2d6 >= 7: 21/36. Fleets of 12: both bring 2d6 ships, 7 ships with 1/6 each.
    fleet = ships(*["warship"] * 12)
    dist = odds(eia, "superiority_contest", {"distance": 7, "attacker": fleet, "defender": fleet})
    assert dist.probability("combat_joined") == Fraction(7, 12)
    assert dist.probability("combat_joined", attacker_ships=7, defender_ships=7) == Fraction(7, 12) / 36


# ---- trivial combat -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attacker, defender, reason",
    [
        (ships("warship", "warship"), ships("warship", "warship"), "fewer_than_5_ships"),
        (ships("warship", "warship", "warship"), ships("trade", "trade", "trade"), "only_trade_ships"),
        (ships(*["warship"] * 5), ships("warship", "trade", "trade", "trade"), "superiority"),
        (ships(*["warship"] * 10), ships("warship", "warship"), "superiority"),
        (ships(*["warship"] * 4), ships("warship", "trade", "trade", "trade"), None),
        (ships(*["warship"] * 3), ships(*["warship"] * 3), None),
    ],
)
def test_trivial_conditions(eia, attacker, defender, reason):
    outcome = resolve(eia, "trivial_check", {"attacker": attacker, "defender": defender}, dice=[]).outcome
    if reason is None:
        assert outcome.name == "not_trivial"
    else:
        assert (outcome.name, outcome.get("reason")) == ("trivial", reason)


def test_trivial_combat_by_hand(eia):
    # Warship (W) v trade ship (T).  W's shot: sinks 1/6, damages 1/6.  T's
    # shot (Carrying -1): sinks 1/12, damages 1/12, misses 5/6.  Each
    # exchange: first strike to the attacker 5/12, to the defender 5/12,
    # simultaneous 1/6.  Let q = P(W's shot sinks T in one fresh exchange)
    # = 5/12*1/6 + 5/12*5/6*1/6 + 1/6*1/6 = 67/432 (W fires first; fires after
    # T missed; simultaneous) - the same whichever side attacks.
    # a (W) attacks first: T is sunk in the first exchange (q), or both stay
    # fit (5/9 in every mode) and T attacks back (q again):
    #   q + 5/9 q = 14/9 * 67/432 = 469/1944.
    # b (T) attacks first: q, or both fit (5/9) and W attacks back (q), or W fit
    # and T damaged (5/12*5/36 + 5/12*1/6 + 1/6*5/36 = 65/432) and W attacks
    # the helpless T: sunk 1/6.  469/1944 + 65/2592 = 2071/7776.
    # Initiative: 1/2 each, so P(T sunk) = (469/1944 + 2071/7776) / 2 = 3947/15552.
    dist = odds(eia, "trivial_combat", {"attacker": ships("warship"), "defender": ships("trade")})
    assert dist.probability("trivial_combat_over", defender_sunk=1) == Fraction(3947, 15552)
    assert dist.truncated == 0
    assert total(dist) == 1


def test_trivial_combat_second_column_choice(eia):
    # If the second column holds, T is sunk only in the first exchange (q =
    # 67/432 either way).
    dist = odds(eia, "trivial_combat", {"attacker": ships("warship"), "defender": ships("trade")}, choices={"second_column_action": "hold"})
    assert dist.probability("trivial_combat_over", defender_sunk=1) == Fraction(67, 432)


def test_trivial_combat_ignores_leader_values_and_orders_by_value(eia):
    # Columns by value, carrying ships last; the combat needs no ratings.
    play = resolve(
        eia, "value_order",
        {"ships": [{"kind": "frigate", "value": 2}, {"kind": "trade", "value": 9}, {"kind": "heavy", "value": 5}]},
        dice=[],
    )
    assert [s.get("kind") for s in play.outcome.get("ships")] == ["heavy", "frigate", "trade"]
    assert not {"attacker_maneuver", "attacker_admirals"} & {spec.name for spec in eia.compiled["trivial_combat"].inputs}


def test_trivial_order_variant(tmp_path):
    pure = variant(tmp_path, {"trivial_order_keeps_carrying_last": False})
    play = resolve(
        pure, "value_order",
        {"ships": [{"kind": "frigate", "value": 2}, {"kind": "trade", "value": 9}, {"kind": "heavy", "value": 5}]},
        dice=[],
    )
    assert [s.get("kind") for s in play.outcome.get("ships")] == ["trade", "heavy", "frigate"]


# ---- a round of two single columns ------------------------------------------------------------


def test_battle_round_sums_to_one(eia):
    # Two 2-ship columns, round 2; the initiative is an input, so nothing is truncated.
    inputs = {"attacker": [ships("heavy", "frigate")], "defender": [ships("warship", "warship")], "round": 2}
    dist = odds(eia, "battle_round", inputs)
    assert dist.truncated == 0 and total(dist) == 1
    assert dist.probability("round_over", over=True) > 0 and dist.probability("round_over", over=False) > 0


def test_battle_round_protect_own_orders(eia):
    # If both columns protect themselves nobody fires: the round ends with the
    # end-of-round contest only.  Round 1, neither side weaker (one ship able
    # to fire each): nobody retreats, and a tie cannot end round 1: always a
    # next round.
    inputs = {"attacker": [ships("warship")], "defender": [ships("warship")]}
    dist = odds(eia, "battle_round", {**inputs, "attacker_orders": "hold", "defender_orders": "hold"})
    assert dist.probability("round_over", over=False, attacker_attacked=(False,), defender_attacked=(False,)) == 1
    attacking = odds(eia, "battle_round", inputs)
    assert attacking.probability("round_over", attacker_attacked=(False,), defender_attacked=(False,)) == 0


# ---- violations quote the seed -------------------------------------------------------------------


@pytest.mark.parametrize(
    "procedure, inputs, quote",
    [
        ("declare_operation", {"operation": "patrol", "based_in": "sea_zone"},
         "if a fleet is based in a sea zone or an enemy blockade box, it may only choose Naval Superiority or Rebase as Naval Operation."),
        ("declare_operation", {"operation": "idle", "based_in": "sea_zone"}, "Can only be used by a fleet in a harbor"),
        ("declare_operation", {"operation": "supply"}, "Can only be used by a fleet containing at least one transport."),
        ("operation", {"operation": "raid", "phase": 1, "fleet_ships": 3, "based_in": "enemy_blockade_box"},
         "it may only choose Naval Superiority or Rebase as Naval Operation."),
        ("interception", {"operation": "patrol", "distance": 3, "defender_operation": "idle"}, "Have a fleet remain still, evading interception"),
        ("interception", {"operation": "patrol", "distance": 3, "interceptions_done": 1},
         "Interception can only be successfully done once. Once an Interception is done, the fleet is spent."),
        ("superiority_contest", {"distance": 3, "attacker": ships("warship"), "defender": ships("warship"), "defender_lost_superiority_combat": True},
         "If a fleet loses in a Naval Superiority combat, it may no longer intercept or take part in Naval Superiority contests."),
        ("form_columns", {"columns": [ships("warship", "trade"), ships("trade")]},
         "All trade ships and troop carrying ships present must be in the same column."),
        ("form_columns", {"columns": [[{"kind": "transport", "carrying": True}, {"kind": "heavy"}]]},
         "Ships are placed in columns according to the players wishes, except for carrying ships which must be placed last."),
        ("gold_convoy", {"month": "August", "money": 3}, "The Spanish Gold Convoy arrives as a normal trade route every September."),
        ("protected_route", {"operation": "protect_trade", "legs": [7, 8]},
         "Select at most 7 sea zones extending from the starting port; if a friendly port is reached, then 7 others may be chosen again, repeating."),
    ],
)
def test_violations_quote_the_seed(eia, procedure, inputs, quote):
    if SEED_PATH.is_file():  # the seed texts sit beside the checkout in CI and on developer machines
        assert quote in normalized(SEED_PATH.read_text(encoding="utf-8"))
    assert quote in violation_message(eia, procedure, inputs)


def test_an_illegal_operation_rolls_nothing(eia):
    # The restriction is checked before the range and ship dice.
    with pytest.raises(RuleViolation):
        resolve(eia, "operation", {"operation": "patrol", "phase": 2, "fleet_ships": 4, "based_in": "sea_zone"}, dice=[6, 6, 6])
    play = resolve(eia, "operation", {"operation": "rebase", "phase": 2, "fleet_ships": 4, "based_in": "sea_zone"}, dice=[])
    assert (play.outcome.get("range"), play.outcome.get("ships"), play.outcome.get("cost")) == (7, 4, 0)


# ---- the command line --------------------------------------------------------------------------------


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_cli_test_and_odds():
    code, out, err = run_cli(["test", str(RULESET_PATH)])
    assert (code, err) == (0, ""), err
    assert " 0 failed" in out
    code, out, err = run_cli(["odds", "eia", "shot", "--set", "shooter=heavy", "--set", "target=frigate"])
    assert code == 0, err
    assert re.search(r"sunk\s+1/2\b", out) and re.search(r"damaged\s+1/6\b", out)


def test_a_wrong_odds_example_fails(tmp_path):
    text = RULESET_PATH.read_text(encoding="utf-8")
    target = '      - {outcome: battle_joined, probability: "35/144"}'
    assert text.count(target) == 1
    copy = tmp_path / "eia.yaml"
    copy.write_text(text.replace(target, target.replace("35/144", "1/4")), encoding="utf-8")
    code, out, err = run_cli(["test", str(copy)])
    assert code == 1
    assert "1 failed" in out
    assert "expected P(battle_joined) = 1/4, got 35/144" in err


# ---- a whole battle (procedure battle and its steps) ----------------------------------------------------------

SITUATIONS = ROOT / "rulesdata" / "eia_situations"


def notes_of(play) -> list[str]:
    return [event.message for event in play.trace if event.kind == "note"]


def column(*kinds: str, **fields) -> list[dict]:
    return ships(*kinds, **fields)


def test_columns_carrying_ships_together_and_last(eia):
    # Nine fighting ships: ceil(9 / 4) = 3 columns, (i - 1) * 3 // 9 puts ships 1-3, 4-6, 7-9
    # together; the two carrying ships go last in the last column.
    fleet = ships(*["warship"] * 4) + [{"kind": "trade"}] + ships(*["frigate"] * 5) + [{"kind": "transport", "carrying": True}]
    columns = resolve(eia, "divide_into_columns", {"ships": fleet}, dice=[]).outcome.get("columns")
    assert [len(c) for c in columns] == [3, 3, 5]
    assert [s.get("kind") for s in columns[2]] == ["frigate", "frigate", "frigate", "trade", "transport"]
    # single: one column, carrying ships last; sizes: as the player cuts it
    single = resolve(eia, "divide_into_columns", {"ships": fleet, "formation": "single"}, dice=[]).outcome.get("columns")
    assert len(single) == 1 and [s.get("kind") for s in single[0][-2:]] == ["trade", "transport"]
    cut = resolve(eia, "divide_into_columns", {"ships": ships("warship", "warship", "frigate"), "formation": "sizes", "sizes": [1, 2]}, dice=[])
    assert [len(c) for c in cut.outcome.get("columns")] == [1, 2]
    assert "must be in the same column" in violation_message(
        eia, "divide_into_columns", {"ships": ships("warship", "trade", "warship", "trade"), "formation": "sizes", "sizes": [2, 2]})


def test_battle_initiative_to_the_side_with_more_columns(eia):
    # Five warships split into columns of 3 and 2; three warships are one column: the attacker
    # has the initiative without a roll.  Its first column attacks: contest 6 v 1 (first
    # strike), three shots of 6 sink the defender's three ships before they fire.
    inputs = {"attacker": ships(*["warship"] * 5), "defender": ships(*["warship"] * 3)}
    play = resolve(eia, "battle", inputs, dice=[6, 1, 6, 6, 6], trace=True)
    assert play.outcome.get("reason") == "defender_destroyed" and play.outcome.get("defender_sunk") == 3
    assert "The initiative goes to the side with more columns: the attacker." in notes_of(play)
    assert not any("maneuver roll" in n for n in notes_of(play))
    assert play.unused_dice == 0


def test_battle_initiative_on_a_tie_of_columns_and_the_order_of_turns(eia):
    # One column each: a maneuver roll, 2 v 5, gives the defender the initiative; its column
    # acts first (contest 6 v 1, shots 6, 6, 6): the attacker's column has nothing left to act with.
    inputs = {"attacker": ships(*["warship"] * 3), "defender": ships(*["warship"] * 3)}
    play = resolve(eia, "battle", inputs, dice=[2, 5, 6, 1, 6, 6, 6], trace=True)
    notes = notes_of(play)
    assert "The defender wins the maneuver roll and has the initiative." in notes
    assert notes.index("The defender's column acts.") < notes.index("The attacker's column acts.")
    assert (play.outcome.get("reason"), play.outcome.get("attacker_sunk")) == ("attacker_destroyed", 3)


def test_battle_turns_reload_rolls_and_retreat(eia):
    # Attacker: two single-ship columns (sizes [1, 1]); defender: columns of 2 and 1.  Every
    # shot is a 1 (no result).  Initiative 5 v 1: the attacker.  Turns: A1, D1, A2, D2.
    # A1 attacks the weakest column, D2 (1 ship able to fire back, against D1's 2): contest 3 v 3,
    #   simultaneous: A1 and D2 fire (1, 1).  D2 has now been attacked; A1 has not (it attacked).
    # D1 attacks the weakest: A1 and A2 both have 1 ship able to fire: the first, A1.  Not
    #   attacked before: no reload roll; contest 3 v 3; D1's two ships fire (the second as an
    #   extra ship) and A1 fires back (1, 1, 1).
    # A2 attacks D2 (attacked, its ship fired: 0 able, against D1's 2): a reload roll, 4 > rating
    #   0, fails; contest 3 v 3; A2 fires (1), D2's ship is barred.
    # D2 attacks A1 (now attacked, its ship fired: 0 able) before A2 (1): reload 4 fails,
    #   contest 3 v 3, D2 fires (1), A1's ship is barred.
    # End of round: 6 v 1, the attacker wins and (policy always) retreats with both ships.
    inputs = {"attacker": ships("warship", "warship"), "defender": ships("warship", "warship", "warship"),
              "attacker_column_sizes": [1, 1], "defender_column_sizes": [2, 1], "report": "ships"}
    choices = {"attacker_formation": "sizes", "defender_formation": "sizes", "attacker_retreats": "always"}
    dice = [5, 1, 3, 3, 1, 1, 3, 3, 1, 1, 1, 4, 3, 3, 1, 4, 3, 3, 1, 6, 1]
    play = resolve(eia, "battle", inputs, dice=dice, choices=choices, trace=True)
    assert play.unused_dice == 0
    notes = notes_of(play)
    turns = [n for n in notes if n in ("The attacker's column acts.", "The defender's column acts.")]
    assert turns == ["The attacker's column acts.", "The defender's column acts."] * 2
    assert notes.count("The tactical rating roll fails: no ship reloads.") == 2
    outcome = play.outcome
    assert (outcome.name, outcome.get("reason"), outcome.get("rounds")) == ("battle_report", "attacker_retreats", 1)
    assert outcome.get("attacker_retreated") == 2 and outcome.get("defender_retreated") == 0
    assert outcome.get("attacker_columns") == (("retreated",), ("retreated",))


def test_evading_column_is_not_attacked(eia):
    # The defender's column evades: each single column of 3 adds +1 (fewer than 5 ships);
    # 2 + 1 v 5 + 1: evaded, nothing fires.  The defender's column then attacks (6 v 1, shots
    # 6, 6, 6) and the attacker's column was never attacked before: no reload roll.
    inputs = {"attacker": ships(*["warship"] * 3), "defender": ships(*["warship"] * 3)}
    play = resolve(eia, "battle", inputs, dice=[6, 1, 2, 5, 6, 1, 6, 6, 6], choices={"defender_intent": "evade"}, trace=True)
    assert "The defending column wins the tactical contest and evades combat." in notes_of(play)
    assert not any("reload" in n for n in notes_of(play))
    assert play.outcome.get("reason") == "attacker_destroyed" and play.unused_dice == 0


def test_positions_close_up_after_a_first_strike(eia, tmp_path):
    # First strike (6 v 1): the attacker's shots 6, 1, 1 sink the defender's first ship.  The
    # defender's two survivors close up to positions 1 and 2 and sink the attacker's ships 1
    # and 2 (6, 6).  Read the other way (a lost ship keeps its place), they face positions 2
    # and 3.
    inputs = {"attacker": ships(*["warship"] * 3), "defender": ships(*["warship"] * 3)}
    dice = [6, 1, 6, 1, 1, 6, 6]
    closed = resolve(eia, "column_exchange", inputs, dice=dice).outcome
    assert [s.get("status") for s in closed.get("attacker")] == ["sunk", "sunk", "fit"]
    in_place = variant(tmp_path, {"positions_close_up": False})
    kept = resolve(in_place, "column_exchange", inputs, dice=dice).outcome
    assert [s.get("status") for s in kept.get("attacker")] == ["fit", "sunk", "sunk"]


def test_extra_ships_save_ammo_and_carrying_ships(eia):
    # Contest 6 v 1: first strike.  The first warship misses (1); the second has no ship
    # opposite: with hold_fire it saves its ammo (fired stays false), then the defender's 1.
    inputs = {"attacker": ships("warship", "warship"), "defender": ships("warship")}
    held = resolve(eia, "column_exchange", {**inputs, "attacker_extra_ships": "hold_fire"}, dice=[6, 1, 1, 1])
    assert [s.get("fired") for s in held.outcome.get("attacker")] == [True, False] and held.unused_dice == 0
    fired = resolve(eia, "column_exchange", inputs, dice=[6, 1, 1, 1, 1])
    assert [s.get("fired") for s in fired.outcome.get("attacker")] == [True, True] and fired.unused_dice == 0
    # A trade ship as the extra ship: the only enemy ship was fired upon, so it does not fire.
    convoy = resolve(eia, "column_exchange", {"attacker": ships("warship", "trade"), "defender": ships("warship")}, dice=[6, 1, 1, 1])
    assert [s.get("fired") for s in convoy.outcome.get("attacker")] == [True, False] and convoy.unused_dice == 0


def test_damage_then_capture_and_damaged_ships_do_not_fire(eia):
    # First strike; 5 damages the defender's ship, the extra warship's 5 damages it again:
    # captured, and it never fires back (no die left for it).
    play = resolve(eia, "column_exchange", {"attacker": ships("warship", "warship"), "defender": ships("warship")}, dice=[6, 1, 5, 5])
    assert play.outcome.get("defender")[0].get("status") == "captured" and play.unused_dice == 0
    # A damaged defender wins the contest (1 v 6) but cannot fire; the attacker's 6 sinks it.
    play = resolve(eia, "column_exchange", {"attacker": ships("warship"), "defender": [{"kind": "warship", "status": "damaged"}]}, dice=[1, 6, 6])
    assert play.outcome.get("defender")[0].get("status") == "sunk" and play.dice == (1, 6, 6)


def test_reload_success_lets_a_barred_ship_fire(eia):
    # Attacked again: the reload roll 2 <= rating 3 succeeds; the defender wins the contest
    # (1 v 6) and its reloaded ship's 6 sinks the attacker before it fires.
    inputs = {"attacker": ships("warship"), "defender": [{"kind": "warship", "fired": True}],
              "defender_attacked_before": True, "defender_rating": 3}
    play = resolve(eia, "column_exchange", inputs, dice=[2, 1, 6, 6])
    assert play.outcome.get("attacker")[0].get("status") == "sunk" and play.unused_dice == 0


def test_protect_own_column_in_a_round(eia):
    # The defender has the initiative and holds (Protect own column); the attacker's contest
    # 4 v 3 + 1 ties: simultaneous fire (1, 1).  End of round: 2 v 2 tie, d6 1 + 0 < 7.
    inputs = {"attacker": [ships("warship")], "defender": [ships("warship")], "initiative": "defender", "defender_orders": "hold"}
    play = resolve(eia, "battle_round", inputs, dice=[4, 3, 1, 1, 2, 2, 1], trace=True)
    notes = notes_of(play)
    assert "Protect own column: +1 bonus to tactical rating against attackers." in notes
    assert "The tactical contest is tied: firing is done simultaneously." in notes
    assert play.outcome.get("over") is False and play.unused_dice == 0


def test_protect_fleet_and_continue_against_the_target(eia):
    # The defender screens: its first column protects the fleet.  The attacker goes for the
    # column holding the carrying ship: maneuver 3 + 2 v 5 + 2, he does not win and must
    # attack the protector (6 v 1, 6 sinks it); the protector destroyed, he continues
    # against the transport (6 v 1, 6 sinks it).
    inputs = {"attacker": [ships("warship")], "defender": [ships("warship"), [{"kind": "transport", "carrying": True}]],
              "initiative": "defender", "defender_orders": "screen", "attacker_targets": "carrying"}
    play = resolve(eia, "battle_round", inputs, dice=[3, 5, 6, 1, 6, 6, 1, 6], trace=True)
    notes = notes_of(play)
    assert "Protect fleet: the column sets to protect the rest of the fleet." in notes
    assert "The attacker does not win: he must attack the protecting fleet." in notes
    assert "The protecting column is destroyed: the attacking column continues to attack the original target." in notes
    assert (play.outcome.get("reason"), play.outcome.get("defender_sunk")) == ("defender_destroyed", 2)


@pytest.mark.parametrize("round_number, over", [(1, False), (3, True)])
def test_a_tied_end_of_round_and_completed_rounds(eia, round_number, over):
    # Both columns attack and miss (contests 3 v 3, shots 1); end of round 2 v 2 tied; d6 5 +
    # (round - 1): round 1 gives 5 (goes on), round 3 gives 7 (the combat ends).
    inputs = {"attacker": [ships("warship")], "defender": [ships("warship")], "round": round_number}
    play = resolve(eia, "battle_round", inputs, dice=[3, 3, 1, 1, 3, 3, 1, 1, 2, 2, 5])
    assert play.outcome.get("over") is over and play.unused_dice == 0
    assert play.outcome.get("reason") == ("tie_roll" if over else "")


def test_a_trivial_battle_lasts_one_round_by_value(eia):
    # Four ships: trivial.  One column each, most valuable first (the heavy ship leads);
    # initiative 5 v 2; every shot misses (heavy +1: 1 + 1 = 2); no end-of-round contest.
    inputs = {"attacker": [{"kind": "warship", "value": 1}, {"kind": "heavy", "value": 3}], "defender": ships("warship", "warship")}
    play = resolve(eia, "battle", inputs, dice=[5, 2, 3, 3, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1], trace=True)
    assert play.outcome.get("reason") == "trivial_one_round" and play.unused_dice == 0
    assert "DRM +1: Heavy Ship" in [e.message for e in play.trace if e.kind == "modifier"]
    assert "A naval trivial combat: one round, a single column each ordered by value; leader values have no effect." in notes_of(play)


def test_round_limit_is_an_outcome(tmp_path):
    # max_rounds = 1: round 1 (every shot 1, the tie's d6 1 cannot end it) is the last.
    short = variant(tmp_path, {"max_rounds": 1})
    inputs = {"attacker": ships(*["warship"] * 3), "defender": ships(*["warship"] * 3)}
    dice = [5, 2, 3, 3, 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 2, 2, 1]
    play = resolve(short, "battle", inputs, dice=dice)
    assert play.outcome.get("reason") == "round_limit" and play.unused_dice == 0


def test_one_ship_a_side_battle_by_hand(eia):
    # Two warships: a trivial combat.  s = d = 1/6 (sink, damage), a contest gives first strike
    # to the attacker 5/12, to the defender 5/12, simultaneous 1/6.
    # One exchange between fresh ships sinks a given ship with 31/216 (5/12*1/6 + 5/12*2/3*1/6
    # + 1/6*1/6) and leaves both fit with 4/9.
    # Attacker's column first: the defender is sunk in the exchange (31/216) or both stay fit
    # (4/9) and the defender attacks back (31/216 again): 31/216 * 13/9 = 403/1944.
    # Defender's column first: 403/1944 likewise, plus the defender damaged but the attacker
    # fit (5/12*1/9 + 5/12*1/6 + 1/6*1/9 = 29/216), attacked again by the attacker: 1/6 sinks it.
    # 403/1944 + 29/1296 = 893/3888.  Each column first with 1/2 (the initiative's tie rolled
    # again until it is not): P(defender sunk) = (806 + 893)/7776 = 1699/7776.
    # Captured: only a damaged ship attacked by a fit one, damaged again (1/6): 29/1296 when the
    # defender is first, so 29/2592; the attacker likewise by symmetry.
    inputs = yaml.safe_load((SITUATIONS / "one_a_side.yaml").read_text(encoding="utf-8"))
    inputs = {name: inputs[name] for name in ("attacker", "defender")}
    dist = odds(eia, "battle", inputs)
    assert dist.truncated == 0
    assert dist.probability("battle_over", defender_sunk=1) == Fraction(1699, 7776)
    assert dist.probability("battle_over", attacker_sunk=1) == Fraction(1699, 7776)
    assert dist.probability("battle_over", defender_captured=1) == Fraction(29, 2592)
    # Both sunk: only in simultaneous fire (1/6 * 1/36), in the first exchange or, both fit
    # (4/9), in the second: (1/216) * 13/9 = 13/1944, whichever column is first.
    assert dist.probability("battle_over", reason="both_destroyed") == Fraction(13, 1944)


# ---- situations that carry from step to step -----------------------------------------------------------------


@pytest.mark.parametrize("situation", sorted(p.name for p in SITUATIONS.glob("*.yaml")))
def test_one_situation_runs_through_every_step(eia, situation):
    # Every key names an input of some step, under the same name in every step that takes it.
    data = yaml.safe_load((SITUATIONS / situation).read_text(encoding="utf-8"))
    steps = ["interception", "trivial_check", "battle"]
    used = set()
    for step in steps:
        names = {spec.name for spec in eia.compiled[step].inputs}
        given = {k: v for k, v in data.items() if k in names}
        used |= set(given)
        resolve(eia, step, given, seed=1)
    assert used == set(data)
    code, out, err = run_cli(["run", "eia", "battle", "--situation", str(SITUATIONS / situation), "--seed", "1"])
    assert code == 0, err
    assert "warning: procedure 'battle' does not use 'operation' (another step does); ignored" in err
    assert "resolve battle_round" in out or "trivial" in out


def test_a_misspelt_situation_key_is_an_error(tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text("attacker: [{kind: warship}]\ndefender: [{kind: warship}]\ndefender_admiral: [2]\n", encoding="utf-8")
    code, _, err = run_cli(["run", "eia", "battle", "--situation", str(path), "--seed", "1"])
    assert code == 2 and "defender_admirals" in err
