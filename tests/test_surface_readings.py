"""surface_combat's readings a player would dispute, made explicit: the firer's choice of target
("engage each other at will"), the stalemate no seed sentence ends, and the simultaneous fire cited as
the ruleset's own reading."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from interpreter import load_ruleset, odds, resolve


@pytest.fixture(scope="module")
def surface():
    return load_ruleset("surface_combat")


def ship(name: str, kind: str, af: int, df: int, gun_range: int, damage: int = 0) -> dict:
    return {"name": name, "type": kind, "nation": "US", "speed": 5, "af": af, "df": df, "gun_range": gun_range,
            "engaged": True, "damage": damage}


CRUISER = ship("Astoria", "CA", af=5, df=5, gun_range=2)  # DF left 5, AF 5
DESTROYER = ship("Jarvis", "DD", af=2, df=2, gun_range=1)  # DF left 2, AF 2
FIRING = [{**ship("Chokai", "CA", af=5, df=5, gun_range=2), "nation": "Japanese"}]


def aimed_at(played) -> str:
    (note,) = [e.get("text") for e in played.trace if e.kind == "note" and e.get("text", "").startswith("Gunnery")]
    return note


@pytest.mark.parametrize(("targeting", "expected"), [
    ("weakest", "enemy ship 2 (Jarvis, DD, DF left 2; targeting weakest)"),  # DF left 2 < 5
    ("strongest", "enemy ship 1 (Astoria, CA, DF left 5; targeting strongest)"),  # AF 5 > 2
    ("first_listed", "enemy ship 1 (Astoria, CA, DF left 5; targeting first_listed)"),
])
def test_the_firer_chooses_its_target(surface, targeting, expected):
    played = resolve(surface, "side_fire", {"shooters": FIRING, "targets": [CRUISER, DESTROYER], "range": 2, "targeting": targeting}, seed=1)
    assert expected in aimed_at(played)


def test_by_default_the_victims_list_order_does_not_decide(surface):
    # weakest (the default) picks the destroyer in either order: the distribution of damage by ship name is the same
    def damage_by_name(targets):
        found = odds(surface, "side_fire", {"shooters": FIRING, "targets": targets, "range": 2})
        by_name: dict[tuple, Fraction] = {}
        for outcome, p in found.outcomes:
            key = tuple(sorted((t.lookup("name"), t.lookup("damage")) for t in outcome.fields["targets"]))
            by_name[key] = by_name.get(key, Fraction(0)) + p
        return by_name

    in_order, reversed_order = damage_by_name([CRUISER, DESTROYER]), damage_by_name([DESTROYER, CRUISER])
    assert in_order == reversed_order
    assert all(dict(key)["Astoria"] == 0 for key in in_order)  # only the destroyer is fired at


def test_two_destroyers_by_day_end_in_a_stalemate(surface):
    # Day, no BB/BC: range 2 in rounds 1 and 2; from round 3 each side's best range is a tie (guns of range 1 only:
    # near 2 - 2 = 0, far 0 - 0 = 0), so the range stays 2; equal strength, so nobody disengages (if_weaker);
    # every ship is engaged (all presented).  Round 3 changes nothing and can change nothing: a stalemate, always.
    destroyers = {"phasing": [ship("A", "DD", af=2, df=2, gun_range=1)], "reacting": [{**ship("B", "DD", af=2, df=2, gun_range=1), "nation": "Japanese"}]}
    found = odds(surface, "battle", {**destroyers, "action": "day", "report": "summary"})
    assert [(o.fields["reason"], p) for o, p in found.outcomes] == [("stalemate", Fraction(1))]
    played = resolve(surface, "battle", {**destroyers, "action": "day", "report": "summary"}, seed=3)
    last_note = [e for e in played.trace if e.kind == "note"][-1]
    assert last_note.get("text") == "The battle ends in a stalemate: nobody can fire and nobody leaves."
    assert last_note.rule.startswith("The ruleset's reading, not the seed's words")


def test_simultaneous_fire_is_cited_as_the_rulesets_reading(surface):
    text = Path(surface.path).read_text(encoding="utf-8")
    assert "rule \"Both sides fire" not in text  # never cited as the seed's rule
    assert text.count("The ruleset's reading, not the seed's words: both sides fire") == 2
