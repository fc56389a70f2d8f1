"""Tests for rulesdata/surface_combat.yaml (seed 001, naval surface combat).

The ruleset's own examples run first; then every line of the seed (typed
again below) must be cited by a ruleset element and by a rule test; the
illustrative tables must be marked and every procedure whose odds depend on
them must say so; exact odds are checked against counts worked out by hand
(the counting is next to each number); the readings of ambiguous lines are
checked through their one-line variants; and the bundled situations run
through the installed `wartable` command.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from interpreter import RuleViolation, load_ruleset, odds, resolve
from interpreter.api import odds_by_choice
from interpreter.cli import main
from interpreter.examples import run_examples
from interpreter.resources import bundled_names

ROOT = Path(__file__).resolve().parent.parent
RULESET_PATH = ROOT / "rulesdata" / "surface_combat.yaml"
VARIANT_PATH = ROOT / "rulesdata" / "surface_combat_breakoff_strength.yaml"
SITUATIONS = ROOT / "rulesdata" / "surface_combat_situations"
SEED_PATH = ROOT.parent / "shared" / "seeds" / "001_117ea72d599b792b.txt"

# The seed, typed again line by line (the heading first).
SEED_HEADING = "Naval surface combat"
SEED_LINES = [
    "Engagement is allowed in 2nd Naval Phase only for 1/2 mp.",
    "Phasing and Reacting may Engage; Only Reacting may disengage.",
    "Engaging side chooses day or night action on engagement.",
    "Phasing TFs may spend extra mps to make disengagement harder.",
    "Each additional 5 mp spent gives -1 DRM to enemy disengagement roll.",
    "Higher speed always disengages successfully.  Lower speed always fails.",
    "Same speed needs 2D6 7+ to disengage, DRM for extra engagement mp.",
    "+1 Disengage at night; disengagement costs 1/2 mp if successful.",
    "Naval Bounce roll determines surprise and initiative.",
    "Round 1 range in night actions is always range 2 (medium).",
    "Round 1 range in day actions is 3 if either side has BB/BC present.",
    "If no BB/BC present, day action round 1 range is 2.",
    "Round 2 range is always 1 in night actions, 2 in day actions.",
    "Round 3 and later, range is 1-2 according to player choices.",
    "If players agree, the range becomes what they both chose.",
    "Faster side gets choice; +50% armed numbers wins speed ties.",
    "If speed and numbers both tied, range remains the same.",
    "Gun range is printed on counter; only BB/BC have range 3.",
    "Japanese CA/CL/DD, CW CL/DD, and US DD have torpedoes.",
    "Allied torpedo range is 1, Japanese torpedo range is 2.",
    "Torpedo attacks are 1 round except Japanese CL6-7 get 2.",
    "Torpedo attacks are extra and use torpedo AF in damage step.",
    "Non-init side puts up front ships at least matching init number.",
    "Init side and presented ships may engage each other at will.",
    "A surprised side may not fire at all Round 1.",
    "Ships may combine AF but use lowest for damage table odds.",
    "DD/DE/SC use 0.5xAF for damage table resolution.",
    "BB/BC use 1.5xAF for damage table resolution at range 1-2.",
    "Roll 2D6 for number of hits, each then uses AF/DF on damage table.",
    "Other non-init ships must roll D6 <= speed to engage.",
    "If surprised, non-init ships may only try from round 2 on.",
    "Each round after the 2nd, either side may disengage.",
    "Disengage is D6 <= speed, -1 DRM for night action.",
    "May attempt disengagement as a body for +1 DRM.",
    "Breakoff levels are 25% starting defense strength.",
    "A side above breakoff must attempt disengagement.",
    "If both sides are above breakoff, battle ends immediately.",
]

ILLUSTRATIVE_TABLES = {"naval_bounce_table", "hits_table", "damage_table"}


@pytest.fixture(scope="module")
def sc():
    return load_ruleset(RULESET_PATH)


def normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def total(dist) -> Fraction:
    return sum((p for _, p in dist.outcomes), Fraction(0)) + dist.truncated


def variant(tmp_path: Path, override: str, name: str = "sc_variant") -> object:
    """surface_combat with a one-line override (the notes' `variant:` readings)."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"wartable: 1\nname: {name}\ntitle: t\nsource: s\nversion: '1'\nextends: {RULESET_PATH.as_posix()}\n"
        "override:\n" + override,
        encoding="utf-8",
    )
    return load_ruleset(path)


def ship(name: str, kind: str, nation: str, speed: int, af: int, df: int, gun_range: int, torpedo_af: int = 0, **fields) -> dict:
    """A ship counter as printed; ``fields`` add state (engaged, damage, ...) or a class."""
    return {"name": name, "type": kind, "nation": nation, "speed": speed, "af": af, "df": df,
            "gun_range": gun_range, "torpedo_af": torpedo_af, **fields}


def us_dd(name: str = "Fletcher", **fields) -> dict:
    """A US destroyer: speed 5, AF 2, DF 2, gun range 1, torpedo AF 3 (fields override any of these)."""
    return {**ship(name, "DD", "US", 5, 2, 2, 1, torpedo_af=3), **fields}


def jintsu(**fields) -> dict:
    """A Japanese light cruiser: speed 5, AF 3, DF 4, gun range 2, torpedo AF 3."""
    return {**ship("Jintsu", "CL", "Japanese", 5, 3, 4, 2, torpedo_af=3), **fields}


def violation_message(ruleset, procedure: str, inputs: dict, dice=()) -> str:
    with pytest.raises(RuleViolation) as caught:
        resolve(ruleset, procedure, inputs, dice=list(dice))
    return caught.value.diagnostics[0].message


def trace_text(play) -> str:
    return "\n".join(event.message for event in play.trace)


# ---- the ruleset's examples, citations, and the seed ----------------------------------------


def test_every_example_passes(sc):
    results = run_examples(sc)
    failures = [(r.example.name, [p.format() for p in r.problems]) for r in results if not r.passed]
    assert failures == []
    assert len(results) >= 10


def test_the_variant_examples_pass():
    results = run_examples(load_ruleset(VARIANT_PATH))
    assert [r.example.name for r in results if not r.passed] == []
    # the base's examples run against the variant too, less the three it removes, plus its own four
    assert len(results) == len(load_ruleset(RULESET_PATH).examples) - 3 + 4


def test_a_wrong_example_fails(tmp_path):
    # The examples really check: change one hand-counted probability and the test fails.
    text = RULESET_PATH.read_text(encoding="utf-8")
    target = '      - {outcome: disengaged, probability: "5/12"}'
    assert text.count(target) == 1
    copy = tmp_path / "surface_combat.yaml"
    copy.write_text(text.replace(target, target.replace("5/12", "1/2")), encoding="utf-8")
    results = run_examples(load_ruleset(copy))
    assert [r.example.name for r in results if not r.passed] == ["Odds by day after 5 extra mp: 5/12"]


def test_the_seed_lines_are_typed_faithfully():
    if not SEED_PATH.is_file():
        pytest.skip("the seed texts are not next to this checkout")
    lines = [line.rstrip("\n") for line in SEED_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines == [SEED_HEADING] + SEED_LINES


def element_rules(ruleset) -> list[str]:
    rules = [c.rule for c in ruleset.constants.values()]
    rules += [t.rule for t in ruleset.tables.values()]
    for modifier_list in ruleset.modifiers.values():
        rules.append(modifier_list.rule)
        rules += [entry.rule for entry in modifier_list.entries]
    for procedure in ruleset.procedures.values():
        rules.append(procedure.rule)
        rules += [choice.rule for choice in procedure.choices]
    return [normalized(rule) for rule in rules]


@pytest.mark.parametrize("line", SEED_LINES)
def test_every_seed_line_is_cited_by_an_element_or_named_out_of_scope(sc, line):
    cited = any(normalized(line) in rule for rule in element_rules(sc))
    out_of_scope = any("out of scope" in note.topic.lower() and normalized(line) in normalized(note.seed) for note in sc.notes)
    assert cited or out_of_scope, line


@pytest.mark.parametrize("line", SEED_LINES)
def test_every_seed_line_has_a_rule_test(sc, line):
    assert any(normalized(line) in normalized(example.rule) for example in sc.examples), line


def test_the_heading_is_the_title(sc):
    assert sc.title == SEED_HEADING


def test_every_element_cites_a_rule(sc):
    for name, constant in sc.constants.items():
        assert constant.rule, name
    for name, table in sc.tables.items():
        assert table.rule, name
    for name, modifier_list in sc.modifiers.items():
        assert modifier_list.rule and all(entry.rule for entry in modifier_list.entries), name
    for name, procedure in sc.procedures.items():
        assert procedure.rule, name
        assert all(choice.rule for choice in procedure.choices), name
    for example in sc.examples:
        assert example.rule, example.name


def test_notes_quote_the_seed(sc):
    seed = normalized(" ".join([SEED_HEADING] + SEED_LINES))
    for note in sc.notes:
        assert note.seed, note.topic
        for piece in note.seed.split("..."):
            piece = normalized(piece)
            if piece:
                assert piece in seed, (note.topic, piece)


def test_every_ambiguity_names_its_variant(sc):
    # the readings the issue names: breakoff, the hits roll, torpedo AF, the body DRM
    variants = {note.topic: note.variant for note in sc.notes if note.variant}
    assert any("breakoff" in topic.lower() and "surface_combat_breakoff_strength" in text for topic, text in variants.items())
    assert any("hits_from_table" in text for text in variants.values())
    assert any("torpedo_af_uses_type_multiplier" in text for text in variants.values())
    assert any("as_body" in text for text in variants.values())


# ---- illustrative tables ----------------------------------------------------------------------


def test_the_illustrative_tables_are_marked(sc):
    marked = {name for name, table in sc.tables.items() if table.example}
    assert marked == ILLUSTRATIVE_TABLES
    for name in ILLUSTRATIVE_TABLES:
        assert "ILLUSTRATIVE" in sc.tables[name].title
        assert any(name in note.text and "ILLUSTRATIVE" in note.topic for note in sc.notes), name


def depends_on_illustrative(sc) -> set[str]:
    """Procedures that look up an illustrative table, directly or through the procedures they resolve."""
    looks_up = {name: set(re.findall(r"lookup (\w+)", p.text)) for name, p in sc.procedures.items()}
    calls = {name: set(re.findall(r"resolve (\w+)", p.text)) for name, p in sc.procedures.items()}
    dependent = {name for name, tables in looks_up.items() if tables & ILLUSTRATIVE_TABLES}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            if name not in dependent and callees & dependent:
                dependent.add(name)
                changed = True
    return dependent


def test_every_dependent_procedure_says_so(sc):
    dependent = depends_on_illustrative(sc)
    # the bounce, the hits and damage rolls, every attack, a round and a battle
    assert {"naval_bounce", "damage_roll", "gunnery_attack", "torpedo_attack", "side_fire", "battle_round", "battle"} <= dependent
    for name in dependent:
        procedure = sc.procedures[name]
        assert "ILLUSTRATIVE" in procedure.title, name
        assert "ILLUSTRATIVE" in procedure.rule, name
    # and those that do not depend on them do not claim to
    for name in set(sc.procedures) - dependent:
        assert "ILLUSTRATIVE" not in sc.procedures[name].title, name


def test_list_marks_the_illustrative_tables():
    out, err = io.StringIO(), io.StringIO()
    assert main(["list", str(RULESET_PATH)], stdout=out, stderr=err) == 0, err.getvalue()
    marked = [line.split()[0] for line in out.getvalue().splitlines() if line.endswith("[example]")]
    assert set(marked) == ILLUSTRATIVE_TABLES


# ---- engagement: exact odds by hand --------------------------------------------------------


@pytest.mark.parametrize(
    "action, extra_mp, probability",
    [
        # 2D6 >= 7: 6+5+4+3+2+1 = 21 of 36
        ("day", 0, Fraction(21, 36)),
        # 4 extra mp are no full 5: no DRM, still 21 of 36
        ("day", 4, Fraction(21, 36)),
        # 2D6 - 1 >= 7: 2D6 >= 8, 5+4+3+2+1 = 15 of 36 -> 5/12
        ("day", 5, Fraction(5, 12)),
        # 2D6 - 2 >= 7: 2D6 >= 9, 4+3+2+1 = 10 of 36
        ("day", 10, Fraction(10, 36)),
        # 2D6 + 1 >= 7: 2D6 >= 6, 5+6+5+4+3+2+1 = 26 of 36
        ("night", 0, Fraction(26, 36)),
        # +1 and -1 cancel: 21 of 36 -> 7/12
        ("night", 5, Fraction(7, 12)),
        # 2D6 + 1 - 3 >= 7: 2D6 >= 9, 10 of 36
        ("night", 15, Fraction(10, 36)),
        # 2D6 - 6 >= 7: 2D6 >= 13, never
        ("day", 30, Fraction(0)),
    ],
)
def test_disengagement_at_engagement_by_hand(sc, action, extra_mp, probability):
    dist = odds(sc, "engagement_disengagement",
                {"disengaging_speed": 5, "engaging_speed": 5, "action": action, "extra_mp": extra_mp})
    assert dist.probability("disengaged") == probability
    assert dist.probability("disengaged", mp_cost_half_mps=1) == probability  # 1/2 mp if successful
    assert total(dist) == 1


def test_speed_decides_without_a_roll(sc):
    faster = resolve(sc, "engagement_disengagement", {"disengaging_speed": 6, "engaging_speed": 2}, dice=[])
    slower = resolve(sc, "engagement_disengagement", {"disengaging_speed": 2, "engaging_speed": 6, "action": "night"}, dice=[])
    assert (faster.outcome.name, faster.dice) == ("disengaged", ())
    assert (slower.outcome.name, slower.dice) == ("not_disengaged", ())


def test_engagement_choices(sc):
    # equal speeds, 5 extra mp: the reacting TF disengages 5/12 by day, 7/12 at night
    # (above), never if it stays; the phasing TF pays 1/2 + 5 mp = 11 half mps.
    inputs = {"phasing_speed": 5, "reacting_speed": 5, "extra_mp": 5}
    results = {(c["action"], c["reacting_disengages"]): d for c, d in odds_by_choice(sc, "engagement", inputs)}
    assert set(results) == {("day", "attempt"), ("day", "stay"), ("night", "attempt"), ("night", "stay")}
    assert results[("day", "attempt")].probability("disengaged", phasing_mp_half_mps=11, reacting_mp_half_mps=1) == Fraction(5, 12)
    assert results[("night", "attempt")].probability("disengaged", action="night") == Fraction(7, 12)
    assert results[("day", "stay")].probability("engaged", phasing_mp_half_mps=11, reacting_mp_half_mps=0) == 1
    assert results[("night", "stay")].probability("disengaged") == 0


def test_engagement_violations_quote_the_seed(sc):
    assert "Engagement is allowed in 2nd Naval Phase only for 1/2 mp." in violation_message(
        sc, "engagement", {"naval_phase": 1, "phasing_speed": 5, "reacting_speed": 5})
    assert "Phasing TFs may spend extra mps to make disengagement harder." in violation_message(
        sc, "battle", {"engaging": "reacting", "extra_mp": 5, "phasing": [us_dd()], "reacting": [jintsu()]})


# ---- the Naval Bounce (ILLUSTRATIVE table) ----------------------------------------------------


def test_naval_bounce_by_hand(sc):
    # phasing die minus reacting die over 36 pairs: +3..+5: 3+2+1 = 6 (PS); 0..+2: 6+5+4 = 15 (P);
    # -1..-2: 5+4 = 9 (R); -3..-5: 6 (RS).
    dist = odds(sc, "naval_bounce")
    assert dist.probability("bounce", initiative="phasing", surprised="reacting") == Fraction(6, 36)
    assert dist.probability("bounce", initiative="phasing", surprised="none") == Fraction(15, 36)
    assert dist.probability("bounce", initiative="reacting", surprised="none") == Fraction(9, 36)
    assert dist.probability("bounce", initiative="reacting", surprised="phasing") == Fraction(6, 36)
    # only the side without the initiative can be surprised
    assert dist.probability("bounce", initiative="phasing", surprised="phasing") == 0
    assert total(dist) == 1


# ---- range ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "round_number, action, bb_bc, expected",
    [
        (1, "night", False, 2), (1, "night", True, 2),  # always range 2 (medium)
        (1, "day", True, 3), (1, "day", False, 2),  # 3 with a BB/BC present, else 2
        (2, "night", True, 1), (2, "day", True, 2), (2, "day", False, 2),  # round 2: 1 at night, 2 by day
    ],
)
def test_range_of_rounds_one_and_two(sc, round_number, action, bb_bc, expected):
    play = resolve(sc, "round_range", {"round": round_number, "action": action, "bb_bc_present": bb_bc}, dice=[])
    assert (play.outcome.get("range"), play.outcome.get("decided_by")) == (expected, "round")


@pytest.mark.parametrize(
    "wishes, speeds, armed, expected",
    [
        ((1, 1), (4, 6), (1, 9), (1, "agreement")),  # agreement beats speed and numbers
        ((2, 1), (6, 4), (1, 9), (2, "phasing faster")),  # the faster side chooses
        ((2, 1), (4, 6), (9, 1), (1, "reacting faster")),
        ((2, 1), (5, 5), (6, 4), (2, "phasing armed numbers")),  # 6 is 150% of 4
        ((2, 1), (5, 5), (4, 6), (1, "reacting armed numbers")),
        ((2, 1), (5, 5), (5, 4), (1, "unchanged")),  # 5 is 125% of 4: the range of round 2 stays
        ((2, 1), (5, 5), (0, 0), (1, "unchanged")),
    ],
)
def test_range_from_round_three(sc, wishes, speeds, armed, expected):
    inputs = {"round": 3, "action": "night", "current_range": 1,
              "phasing_wish": wishes[0], "reacting_wish": wishes[1],
              "phasing_speed": speeds[0], "reacting_speed": speeds[1],
              "phasing_armed": armed[0], "reacting_armed": armed[1]}
    outcome = resolve(sc, "round_range", inputs, dice=[]).outcome
    assert (outcome.get("range"), outcome.get("decided_by")) == expected


def test_best_range_wish(sc):
    # A US destroyer (guns 2 and torpedoes 3, both range 1) against a Japanese light
    # cruiser (guns 3 range 2, torpedoes 3 range 2): at range 1 the edge is 5 - 6 = -1,
    # at range 2 it is 0 - 6 = -6, so the destroyer wishes 1 and the cruiser 2.
    dd = us_dd(engaged=True, torpedo_range=1, torpedo_rounds=1)
    cl = jintsu(engaged=True, torpedo_range=2, torpedo_rounds=1)
    assert resolve(sc, "range_wish", {"own": [dd], "enemy": [cl], "current_range": 2}, dice=[]).outcome.get("range") == 1
    assert resolve(sc, "range_wish", {"own": [cl], "enemy": [dd], "current_range": 1}, dice=[]).outcome.get("range") == 2
    # Equal forces: no difference, the range of the round before stays.
    assert resolve(sc, "range_wish", {"own": [dd], "enemy": [dd], "current_range": 2}, dice=[]).outcome.get("range") == 2


# ---- counters ------------------------------------------------------------------------------------


def test_torpedo_carriers(sc):
    # Japanese CA/CL/DD, CW CL/DD and US DD may carry torpedoes; nobody else.
    carriers = {("Japanese", "CA"), ("Japanese", "CL"), ("Japanese", "DD"), ("CW", "CL"), ("CW", "DD"), ("US", "DD")}
    for nation in ("Japanese", "US", "CW", "Dutch"):
        for kind in ("BB", "BC", "CA", "CL", "DD", "DE", "SC"):
            inputs = {"ships": [ship("x", kind, nation, 5, 2, 2, 1, torpedo_af=2)]}
            if (nation, kind) in carriers:
                assert resolve(sc, "prepare_task_force", inputs, dice=[]).outcome.name == "ready"
            else:
                assert "Japanese CA/CL/DD, CW CL/DD, and US DD have torpedoes." in violation_message(sc, "prepare_task_force", inputs)


def test_only_bb_and_bc_reach_range_three(sc):
    for kind in ("BB", "BC"):
        resolve(sc, "prepare_task_force", {"ships": [ship("x", kind, "US", 4, 8, 9, 3)]}, dice=[])
    for kind in ("CA", "CL", "DD"):
        message = violation_message(sc, "prepare_task_force", {"ships": [ship("x", kind, "US", 4, 3, 3, 3)]})
        assert "Gun range is printed on counter; only BB/BC have range 3." in message


def test_cl6_and_cl7_get_two_torpedo_rounds(sc):
    ships = [ship("Oi", "CL", "Japanese", 5, 2, 4, 2, torpedo_af=6, **{"class": "CL6"}),
             ship("Kitakami", "CL", "Japanese", 5, 2, 4, 2, torpedo_af=6, **{"class": "CL7"}),
             ship("Naka", "CL", "Japanese", 5, 3, 4, 2, torpedo_af=3, **{"class": "CL5"}),
             ship("Perth", "CL", "CW", 6, 3, 4, 2, torpedo_af=2, **{"class": "CL6"})]
    outcome = resolve(sc, "prepare_task_force", {"ships": ships}, dice=[]).outcome
    # only Japanese light cruisers of class CL6 or CL7; a CW CL6 is no Japanese CL6-7
    assert outcome.get("torpedo_rounds") == (2, 2, 1, 1)
    assert outcome.get("torpedo_ranges") == (2, 2, 2, 1)


# ---- gunnery and torpedoes (ILLUSTRATIVE hits and damage tables) ----------------------------------
# hits_table, column by combined AF, 2D6 rows: 2-4 (6 of 36), 5-6 (9), 7-8 (11), 9-10 (7), 11-12 (3).
# damage_table per hit, 1d6: 1:3- 0,0,0,0,1,1; 1:2 0,0,0,1,1,2; 1:1 0,0,1,1,2,2; 2:1 0,1,1,2,2,3.


def no_damage(sc, procedure: str, inputs: dict) -> Fraction:
    return odds(sc, procedure, inputs).probability("attack", damage=0)


def test_damage_roll_by_hand(sc):
    # combined AF 1 (column 1-2): one hit on 9-12, 10 of 36; 1:1 (2 halves against 2).
    dist = odds(sc, "damage_roll", {"combined_af": 1, "attack": 2, "defense": 2})
    # no damage: 26/36 + 10/36 x 2/6 = 78/108 + 10/108 = 88/108 = 22/27
    assert dist.probability("damage", damage=0) == Fraction(22, 27)
    assert dist.probability("damage", damage=1) == Fraction(10, 36) * Fraction(2, 6)  # 5/54
    assert dist.probability("damage", damage=2) == Fraction(10, 36) * Fraction(2, 6)


def test_half_af_for_destroyers(sc):
    target = ship("Asagumo", "DD", "Japanese", 6, 2, 2, 1)
    # a DD of AF 4 (x0.5 = 2 against DF 2: 1:1) against a CL of AF 4 (x1 = 4 against 2: 2:1).
    # Column 3-4: no hit on 2-6 (15 of 36), 1 hit on 7-10 (18), 2 hits on 11-12 (3).
    dd = ship("Fletcher", "DD", "US", 5, 4, 2, 1)
    cl = ship("Helena", "CL", "US", 5, 4, 4, 2)
    # 1:1, P(no damage per hit) = 2/6: 15/36 + 18/36 x 1/3 + 3/36 x 1/9 = 45/108 + 18/108 + 1/108 = 64/108
    assert no_damage(sc, "gunnery_attack", {"firing": [dd], "target": target, "range": 1}) == Fraction(64, 108)
    # 2:1, 1/6 per hit: 15/36 + 18/36 x 1/6 + 3/36 x 1/36 = 180/432 + 36/432 + 1/432 = 217/432
    assert no_damage(sc, "gunnery_attack", {"firing": [cl], "target": target, "range": 1}) == Fraction(217, 432)


def test_combined_fire_uses_the_lowest_af(sc):
    target = ship("San Francisco", "CA", "US", 5, 5, 5, 2)
    bb = ship("Kirishima", "BB", "Japanese", 5, 8, 9, 3)
    dd = ship("Asagumo", "DD", "Japanese", 6, 2, 2, 1)
    # Column 8-11 either way (8, or 8 + 2 = 10): 1 hit on 2-6 (15 of 36), 2 on 7-10 (18), 3 on 11-12 (3).
    # The BB alone: 8 x 1.5 = 12 against DF 5: 12:5 reads 2:1, no damage 1/6 per hit:
    # 15/36 x 1/6 + 18/36 x 1/36 + 3/36 x 1/216 = 540/7776 + 108/7776 + 3/7776 = 651/7776 = 217/2592.
    alone = no_damage(sc, "gunnery_attack", {"firing": [bb], "target": target, "range": 1})
    assert alone == Fraction(217, 2592)
    # With the DD: lowest is the DD's 2 x 0.5 = 1 against 5: 1:3-, no damage 4/6 per hit:
    # 15/36 x 2/3 + 18/36 x 4/9 + 3/36 x 8/27 = 270/972 + 216/972 + 24/972 = 510/972 = 85/162.
    together = no_damage(sc, "gunnery_attack", {"firing": [bb, dd], "target": target, "range": 1})
    assert together == Fraction(85, 162)


def test_battleships_use_one_and_a_half_af_at_range_one_and_two(sc):
    kongo = ship("Kongo", "BB", "Japanese", 5, 4, 6, 3)
    renown = ship("Renown", "BC", "CW", 5, 6, 6, 3)
    # Column 3-4 (see above).  Range 1 or 2: 4 x 1.5 = 6 against 6, 1:1: 64/108 (as the DD above).
    # Range 3: 4 against 6, 1:2, no damage 3/6 per hit: 15/36 + 18/36 x 1/2 + 3/36 x 1/4 = 60/144 + 36/144 + 3/144 = 99/144.
    for range_ in (1, 2):
        assert no_damage(sc, "gunnery_attack", {"firing": [kongo], "target": renown, "range": range_}) == Fraction(64, 108)
    assert no_damage(sc, "gunnery_attack", {"firing": [kongo], "target": renown, "range": 3}) == Fraction(99, 144)


def test_torpedoes_use_torpedo_af_as_printed(sc, tmp_path):
    target = ship("Asagumo", "DD", "Japanese", 6, 2, 2, 1)
    dd = ship("Fletcher", "DD", "US", 5, 2, 2, 1, torpedo_af=4)
    # torpedo AF 4 (column 3-4) against DF 2: 2:1 -> 217/432 (as the CL above), not the 1:1 of 0.5xAF
    assert no_damage(sc, "torpedo_attack", {"firing": [dd], "target": target, "range": 1}) == Fraction(217, 432)
    # the other reading: x0.5 for a DD's torpedoes too -> 1:1, 64/108
    other = variant(tmp_path, "  constants:\n    torpedo_af_uses_type_multiplier: {value: true}\n")
    assert no_damage(other, "torpedo_attack", {"firing": [dd], "target": target, "range": 1}) == Fraction(64, 108)


def test_torpedo_range_by_nation(sc):
    target = ship("Helena", "CL", "US", 5, 4, 4, 2)
    japanese = ship("Asagumo", "DD", "Japanese", 6, 2, 2, 1, torpedo_af=4)
    us = ship("Fletcher", "DD", "US", 5, 2, 2, 1, torpedo_af=3)
    resolve(sc, "torpedo_attack", {"firing": [japanese], "target": target, "range": 2}, dice=[1, 1])  # 2D6 2: no hit
    assert "Allied torpedo range is 1, Japanese torpedo range is 2." in violation_message(
        sc, "torpedo_attack", {"firing": [us], "target": target, "range": 2})
    assert "Allied torpedo range is 1, Japanese torpedo range is 2." in violation_message(
        sc, "torpedo_attack", {"firing": [japanese], "target": target, "range": 3})


def test_literal_hits_reading(tmp_path):
    # hits_from_table false: the 2D6 total is the number of hits; 12 hits on 6+6 only, 1 of 36.
    literal = variant(tmp_path, "  constants:\n    hits_from_table: {value: false}\n")
    dist = odds(literal, "damage_roll", {"combined_af": 1, "attack": 2, "defense": 2})
    assert sum((p for o, p in dist.outcomes if o.get("hits") == 12), Fraction(0)) == Fraction(1, 36)
    assert sum((p for o, p in dist.outcomes if o.get("hits") == 7), Fraction(0)) == Fraction(6, 36)


def test_side_fire_uses_torpedo_rounds(sc):
    # Oi (CL6, 2 torpedo rounds) and a Japanese DD (1) fire at range 2 with 2D6 of 2 (no hits) each time:
    # guns CL (AF 2), torpedoes CL (6) then DD (4); afterwards Oi has 1 round left, the DD none.
    oi = ship("Oi", "CL", "Japanese", 5, 2, 4, 2, torpedo_af=6, engaged=True, torpedo_range=2, torpedo_rounds=2)
    dd = ship("Asagumo", "DD", "Japanese", 6, 2, 2, 1, torpedo_af=4, engaged=True, torpedo_range=2, torpedo_rounds=1)
    target = ship("Astoria", "CA", "US", 5, 5, 5, 2, engaged=True)
    play = resolve(sc, "side_fire", {"shooters": [oi, dd], "targets": [target], "range": 2}, dice=[1, 1, 1, 1, 1, 1])
    assert [s.get("torpedo_rounds") for s in play.outcome.get("shooters")] == [1, 0]
    # at range 1 the DD's guns join the CL's (each type fires as its own group: 2 gunnery rolls)
    play = resolve(sc, "side_fire", {"shooters": [oi, dd], "targets": [target], "range": 1}, dice=[1, 1] * 4)
    assert play.dice == (1,) * 8


# ---- presentation and engaging --------------------------------------------------------------------


def test_presentation_policies(sc):
    ships = [us_dd("A"), us_dd("B", up_front=True), us_dd("C", up_front=True)]
    engaged = lambda policy, n: [s.get("engaged") for s in resolve(
        sc, "presentation", {"ships": ships, "initiative_ships": n, "policy": policy}, dice=[]).outcome.get("ships")]
    assert engaged("all", 1) == [True, True, True]
    assert engaged("minimum", 2) == [True, True, False]
    assert engaged("marked", 2) == [False, True, True]
    # a side with fewer ships than the initiative side puts them all up front
    assert engaged("minimum", 5) == [True, True, True]
    assert "at least matching init number" in violation_message(
        sc, "presentation", {"ships": ships, "initiative_ships": 3, "policy": "marked"})


def test_engage_roll_by_hand(sc):
    # D6 <= speed: speed 3 engages on 1-3, 3 of 6
    assert odds(sc, "engage_roll", {"speed": 3, "round": 1}).probability("engages") == Fraction(1, 2)
    assert odds(sc, "engage_roll", {"speed": 3, "round": 2, "surprised": True}).probability("engages") == Fraction(1, 2)


def test_held_back_ships_engage_from_round_two_when_surprised(sc):
    # Reacting surprised, its second ship held back.  Round 1: no engagement roll (and the reacting side
    # does not fire); the phasing DDs cannot reach range 2.  No die is rolled at all.
    inputs = {"phasing": [us_dd(engaged=True, torpedo_range=1, torpedo_rounds=1)],
              "reacting": [us_dd("Sims", engaged=True), us_dd("Hughes", speed=4)],
              "round": 1, "action": "night", "initiative": "phasing", "surprised": "reacting"}
    play = resolve(sc, "battle_round", inputs, dice=[], trace=True)
    assert play.dice == ()
    assert "If surprised, non-init ships may only try from round 2 on." in trace_text(play)
    assert [s.get("engaged") for s in play.outcome.get("reacting")] == [True, False]
    # Round 2 (range 1): Hughes rolls first, a 4 <= speed 4 engages; then the phasing DD's guns
    # (2D6 2: no hit) and torpedoes (2D6 2: no hit), and the reacting DDs' guns (AF 2 + 2 = 4, 2D6 2).
    play = resolve(sc, "battle_round", {**inputs, "round": 2, "range": 2}, dice=[4, 1, 1, 1, 1, 1, 1])
    assert [s.get("engaged") for s in play.outcome.get("reacting")] == [True, True]


def test_a_surprised_side_holds_its_fire_in_round_one_only(sc):
    chokai = ship("Chokai", "CA", "Japanese", 6, 5, 5, 2, torpedo_af=4, engaged=True, torpedo_range=2, torpedo_rounds=1)
    astoria = ship("Astoria", "CA", "US", 5, 5, 5, 2, engaged=True)
    inputs = {"phasing": [chokai], "reacting": [astoria], "round": 1, "action": "day",
              "initiative": "reacting", "surprised": "phasing"}
    # round 1: only Astoria's guns roll (2D6); round 2: Chokai's guns and torpedoes, then Astoria's guns.
    assert resolve(sc, "battle_round", inputs, dice=[1, 1]).dice == (1, 1)
    assert resolve(sc, "battle_round", {**inputs, "round": 2, "range": 2}, dice=[1] * 6).dice == (1,) * 6


# ---- a whole round by hand -------------------------------------------------------------------------


def test_a_night_destroyer_duel_round_two_by_hand(sc):
    # One US DD a side, engaged, round 2 at night: range 1, both fire guns then torpedoes.
    # Guns: AF 2, column 1-2: a hit on 9-12 (10 of 36); 2 halves against 4: 1:2, per hit 0 (1/2), 1 (1/3), 2 (1/6).
    #   P(gun 0) = 26/36 + 10/36 x 1/2 = 31/36; P(gun 1) = 10/36 x 1/3 = 5/54; P(gun 2) = 10/36 x 1/6 = 5/108.
    # Torpedoes (only if the target is still afloat): AF 3, column 3-4: 0 hits 15/36, 1 hit 18/36, 2 hits 3/36;
    #   6 halves against 4: 3:2 reads 1:1, per hit 0, 1, 2 each 1/3.
    #   P(T 0) = 15/36 + 18/36 x 1/3 + 3/36 x 1/9 = 16/27; P(T 1) = 18/36 x 1/3 + 3/36 x 2/9 = 5/27; P(T >= 2) = 6/27.
    # Sunk (DF 2): gun 2, or gun 1 and T >= 1, or gun 0 and T >= 2:
    #   5/108 + 5/54 x 11/27 + 31/36 x 6/27 = 135/2916 + 110/2916 + 558/2916 = 803/2916.
    # Exactly 1 DF lost: 5/54 x 16/27 + 31/36 x 5/27 = 160/2916 + 465/2916 = 625/2916; none: 1488/2916.
    # Fire is simultaneous, so the two sides' results are independent.
    dd = us_dd(engaged=True, torpedo_range=1, torpedo_rounds=1)
    dist = odds(sc, "battle_round", {"phasing": [dd], "reacting": [dd], "round": 2, "action": "night",
                                     "range": 2, "initiative": "phasing"})
    sunk, hurt, whole = Fraction(803, 2916), Fraction(625, 2916), Fraction(1488, 2916)
    assert sunk + hurt + whole == 1
    assert dist.probability("round_over", reason="no ship left on either side") == sunk * sunk
    assert dist.probability("round_over", reason="no reacting ship left") == sunk * (1 - sunk)
    assert dist.probability("round_over", reason="no phasing ship left") == (1 - sunk) * sunk
    # one DF lost of 2 is above 25%: both above breakoff ends the battle
    assert dist.probability("round_over", reason="both sides above breakoff") == hurt * hurt
    assert dist.probability("round_over", over=False) == 1 - (1 - (1 - sunk) ** 2) - hurt * hurt
    assert total(dist) == 1


# ---- disengagement and breakoff ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "speed, action, as_body, faces",
    [
        (4, "day", False, 4),  # D6 <= 4
        (4, "night", False, 5),  # D6 - 1 <= 4
        (4, "day", True, 3),  # D6 + 1 <= 4
        (4, "night", True, 4),  # -1 and +1 cancel
        (6, "day", True, 5),
        (1, "day", True, 0),
        (0, "night", False, 1),  # D6 - 1 <= 0: a 1
        (6, "night", False, 6),
    ],
)
def test_disengagement_roll_by_hand(sc, speed, action, as_body, faces):
    dist = odds(sc, "disengagement_roll", {"speed": speed, "action": action, "as_body": as_body})
    assert dist.probability("disengaged") == Fraction(faces, 6)


def test_disengaging_ship_by_ship_or_as_a_body(sc):
    # speeds 6 and 3, by day.  Ship by ship: each rolls D6 <= its speed: both 1 x 3/6, only the fast one
    # 1 x 3/6.  As a body: one roll against the slowest, D6 + 1 <= 3: 2 of 6, all or nothing.
    ships = [us_dd("Fast", speed=6), us_dd("Slow", speed=3)]
    single = odds(sc, "side_disengagement", {"ships": ships, "as_body": False})
    assert single.probability("attempted", remaining=0) == Fraction(1, 2)
    assert single.probability("attempted", remaining=1) == Fraction(1, 2)
    body = odds(sc, "side_disengagement", {"ships": ships, "as_body": True})
    assert body.probability("attempted", remaining=0) == Fraction(1, 3)
    assert body.probability("attempted", remaining=2) == Fraction(2, 3)


@pytest.mark.parametrize(
    "dfs, damages, above",
    [
        ((2, 2), (0, 1), False),  # 1 of 4 is 25%, not above
        ((2, 2), (1, 1), True),  # 2 of 4
        ((5, 5), (2, 0), False),  # 2 of 10 is below 2.5
        ((5, 5), (2, 1), True),  # 3 of 10
        ((4,), (1,), False),
        ((4,), (2,), True),
    ],
)
def test_breakoff_by_losses(sc, dfs, damages, above):
    ships = [us_dd(str(i), df=df, damage=damage) for i, (df, damage) in enumerate(zip(dfs, damages))]
    outcome = resolve(sc, "breakoff_check", {"ships": ships}, dice=[]).outcome
    assert outcome.name == ("above_breakoff" if above else "within_breakoff")
    assert (outcome.get("losses"), outcome.get("starting_strength")) == (sum(damages), sum(dfs))


@pytest.mark.parametrize("damages, above", [((2, 1), False), ((5, 2), False), ((5, 3), True), ((5, 5), True)])
def test_breakoff_by_remaining_strength_variant(damages, above):
    # the other reading: past breakoff when the remaining strength is below 25% of 10 = 2.5
    other = load_ruleset(VARIANT_PATH)
    ships = [us_dd(str(i), df=5, damage=damage) for i, damage in enumerate(damages)]
    outcome = resolve(other, "breakoff_check", {"ships": ships}, dice=[]).outcome
    assert outcome.name == ("above_breakoff" if above else "within_breakoff")


def test_body_drm_variant(tmp_path):
    # read "+1 DRM" for a body as a bonus: D6 - 1 <= 4 disengages on 1-5
    other = variant(tmp_path, "  modifiers:\n    disengagement_drms:\n      entries:\n        as_body: {value: -1}\n")
    assert odds(other, "disengagement_roll", {"speed": 4, "as_body": True}).probability("disengaged") == Fraction(5, 6)


# ---- battles -------------------------------------------------------------------------------------------


def test_a_battle_decided_by_disengagement_by_hand(sc):
    # Destroyers with guns of range 1 and no torpedoes, by day: the range is 2 in rounds 1 and 2
    # (no BB/BC) and stays 2 (both wish to keep it), so nobody ever fires.  With 5 extra mp the
    # reacting TF disengages at engagement on 2D6 - 1 >= 7 (15 of 36 = 5/12); from round 3 it
    # tries as a body every round, D6 + 1 <= 4: 1/2 a round.  Rounds 3 to 20 give 18 tries.
    inputs = {"action": "day", "extra_mp": 5, "report": "summary",
              "phasing": [ship("Fletcher", "DD", "US", 4, 2, 2, 1)],
              "reacting": [ship("Nicholas", "DD", "US", 4, 2, 2, 1)]}
    choices = {"reacting_disengages_at_engagement": "always", "reacting_disengages": "always"}
    dist = odds(sc, "battle", inputs, choices=choices)
    at_engagement = Fraction(5, 12)
    later = (1 - at_engagement) * (1 - Fraction(1, 2) ** 18)
    limit = (1 - at_engagement) * Fraction(1, 2) ** 18
    assert dist.probability("battle_result", reason="reacting side disengaged at engagement") == at_engagement
    assert dist.probability("battle_result", reason="reacting side disengaged") == later
    assert dist.probability("battle_result", reason="round limit") == limit
    assert dist.truncated == 0 and total(dist) == 1
    # The reacting TF that never tries at engagement: it disengages in round 3 or later.
    never = odds(sc, "battle", inputs, choices={**choices, "reacting_disengages_at_engagement": "never"})
    assert never.probability("battle_result", reason="reacting side disengaged at engagement") == 0
    assert never.probability("battle_result", reason="reacting side disengaged") == 1 - Fraction(1, 2) ** 18


def test_small_battle_exact_odds():
    # Two destroyers against a light cruiser: the whole battle, every die face, in a second or two
    # (a state explosion would trip the default budgets of work, states and time).
    situation = yaml.safe_load((SITUATIONS / "night_destroyers.yaml").read_text(encoding="utf-8"))
    sc = load_ruleset(RULESET_PATH)
    dist = odds(sc, "battle", {**situation, "report": "summary"})
    assert dist.truncated == 0 and total(dist) == 1
    for outcome, _ in dist.outcomes:
        assert 0 <= outcome.get("phasing_sunk") <= 2 and 0 <= outcome.get("reacting_sunk") <= 1
    # Equal defense strength (4 and 4): the reacting TF is not weaker and stays at engagement.
    assert dist.probability("battle_result", reason="reacting side disengaged at engagement") == 0
    # A single cruiser that disengages leaves afloat; one that is sunk does not disengage.
    assert dist.probability("battle_result", reason="reacting side disengaged", reacting_sunk=1) == 0
    assert dist.probability("battle_result", reason="no reacting ship left", reacting_sunk=0) == 0
    # The safety net catches almost nothing.
    assert dist.probability("battle_result", reason="round limit") < Fraction(1, 10**5)


def test_scripted_battle_trace(sc):
    # The bundled night destroyer action, scripted as in the example "A night destroyer action, scripted".
    situation = yaml.safe_load((SITUATIONS / "night_destroyers.yaml").read_text(encoding="utf-8"))
    play = resolve(sc, "battle", situation, dice=[5, 2, 6, 6, 6, 6, 5, 5, 6, 1, 1, 1, 1, 2], trace=True)
    text = trace_text(play)
    for line in ("Naval Bounce: the phasing side has the initiative.",
                 "Naval Bounce: the reacting side is surprised.",
                 "Range by round: row 1, column Night -> 2",
                 "A surprised side may not fire at all Round 1: the reacting side holds its fire.",
                 "Range by round: row 2, column Night -> 1",
                 "The target's losses reach its DF: it is sunk."):
        assert line in text, line
    assert play.outcome.get("reason") == "no reacting ship left"
    assert play.outcome.get("reacting_damage") == (4,)


# ---- bundled situations and the command line -------------------------------------------------------------


def test_situations_are_not_rulesets():
    names = bundled_names()
    assert {"surface_combat", "surface_combat_breakoff_strength"} <= set(names)
    assert not any("situations" in name for name in names)


@pytest.mark.parametrize("situation", sorted(p.name for p in SITUATIONS.glob("*.yaml")))
def test_every_situation_plays(sc, situation):
    inputs = yaml.safe_load((SITUATIONS / situation).read_text(encoding="utf-8"))
    play = resolve(sc, "battle", inputs, seed=1)
    assert play.outcome.name == "battle_over"
    assert play.outcome.get("reason")


def test_at_least_three_situations():
    sizes = {}
    for path in SITUATIONS.glob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        sizes[path.stem] = (data["action"], len(data["phasing"]), len(data["reacting"]))
    assert sizes["night_destroyers"] == ("night", 2, 1)
    assert sizes["day_battleships"] == ("day", 8, 8)
    assert sizes["japanese_cruisers"][0] == "night"


def installed_wartable() -> Path:
    script = Path(sys.executable).parent / "wartable"
    if not script.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the console script {script} is not installed (CI is set)")
        pytest.skip(f"the console script {script} is not installed (pip install . to test it)")
    return script


def run_script(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(installed_wartable()), *argv], check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_console_script_runs_a_bundled_situation():
    result = run_script("run", "surface_combat", "battle", "--situation", "rulesdata/surface_combat_situations/japanese_cruisers.yaml", "--seed", "7")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "resolve battle_round: One round of surface combat" in out
    assert "Range by round: row 1, column Night -> 2" in out
    assert "Range by round: row 2, column Night -> 1" in out
    assert re.search(r"^outcome: battle_over\(reason = ", out, re.MULTILINE)


def test_console_script_check_test_and_odds():
    result = run_script("check", "surface_combat", "surface_combat_breakoff_strength")
    assert result.returncode == 0, result.stdout + result.stderr
    result = run_script("test", "surface_combat")
    assert result.returncode == 0, result.stderr
    assert " 0 failed" in result.stdout
    result = run_script("odds", "surface_combat", "engagement_disengagement", "--set", "disengaging_speed=5",
                        "--set", "engaging_speed=5", "--set", "extra_mp=5", "--set", "action=night", "--json")
    assert result.returncode == 0, result.stderr
    # 2D6 + 1 - 1 >= 7: 21 of 36
    assert {o["name"]: o["probability"] for o in json.loads(result.stdout)["outcomes"]} == {
        "disengaged": "7/12", "not_disengaged": "5/12"}
