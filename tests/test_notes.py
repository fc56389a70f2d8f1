"""Notes that show values (``{expression}``) and cite rules (``note "…" rule "…"``), and the bundled
traces that use them: the EIA tactical contest's totals, a silent surface round's reason, and the rule
that ended a battle.  Notes change nothing: the odds are the same with them and without them."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure

from interpreter import load_ruleset, odds, resolve


def notes(resolution) -> list[tuple[str, str | None]]:
    return [(event.get("text"), event.rule) for event in resolution.trace if event.kind == "note"]


SHOWN = procedure(
    """
    let die = dice(1, 6)
    let total = rating + die
    note "Rating {rating} + die {die} = {total}, over 4: {total > 4}; {{braces}} and {kinds}"
    note "No values here." rule "Rule 7.2"
    outcome o(total = total)
    """,
    inputs='{rating: {type: int, default: 2}, kinds: {type: list, of: str, default: ["BB", "CA"]}}',
)


def test_a_note_shows_the_values_of_its_expressions(make_ruleset):
    ruleset = make_ruleset({"p": SHOWN})
    played = resolve(ruleset, "p", dice=[3])
    # rating 2 + die 3 = 5; 5 > 4 is shown as a player reads a bool ("yes"); {{ }} are braces
    assert notes(played) == [
        ("Rating 2 + die 3 = 5, over 4: yes; {braces} and [BB, CA]", None),
        ("No values here.", "Rule 7.2"),
    ]


def test_notes_change_no_odds(make_ruleset):
    ruleset = make_ruleset({"p": SHOWN})
    for engine in ("compiled", "reference"):
        found = odds(ruleset, "p", engine=engine)
        # total = 2 + a d6: each of 3..8 with 1/6
        assert {o.fields["total"]: p for o, p in found.outcomes} == {t: Fraction(1, 6) for t in range(3, 9)}


@pytest.fixture(scope="module")
def eia():
    return load_ruleset("eia")


@pytest.fixture(scope="module")
def surface():
    return load_ruleset("surface_combat")


def test_the_tactical_contest_shows_totals_ratings_and_dice(eia):
    # unspecified_rolls (illustrative): the tactical contest rolls 1d6 a side; attacker 1 + 3 = 4,
    # defender 2 + 4 = 6: the defender wins and, not evading, takes first strike
    played = resolve(eia, "tactical_contest", {"attacker_rating": 1, "defender_rating": 2}, dice=[3, 4])
    assert played.outcome.name == "defender_first_strike"
    assert notes(played)[0] == (
        "Tactical contest: attacking column 4 (admiral's rating 1, die 3), defending column 6 (rating 2, die 4).", None)


def ship(name: str, kind: str, *, gun_range: int, torpedo_range: int) -> dict:
    return {"name": name, "type": kind, "nation": "US", "speed": 5, "af": 2, "df": 2, "torpedo_af": 3,
            "gun_range": gun_range, "engaged": True, "torpedo_range": torpedo_range, "torpedo_rounds": 1}


def test_a_silent_round_says_why(surface):
    # two destroyers whose guns and torpedoes reach 1, at range 2: nothing fires, and the trace says so
    shooters = [ship("Fletcher", "DD", gun_range=1, torpedo_range=1), ship("Nicholas", "DD", gun_range=1, torpedo_range=1)]
    target = {**ship("Jintsu", "CL", gun_range=2, torpedo_range=2), "nation": "Japanese"}
    played = resolve(surface, "side_fire", {"shooters": shooters, "targets": [target], "range": 2}, dice=[])
    assert notes(played) == [
        ("Out of range: no gun or torpedo of this side reaches range 2 (gun ranges [1, 1], torpedo ranges [1, 1]).", None)]
    # at range 1 they fire: no such note
    in_range = resolve(surface, "side_fire", {"shooters": shooters, "targets": [target], "range": 1}, seed=1)
    assert not any(text.startswith("Out of range") for text, _ in notes(in_range))


# What ended an EIA battle, and the rule the trace must cite for it (rulesdata/eia.yaml, `battle`;
# the seed's sentences, or the ruleset's own reading where the seed says nothing).
EIA_ENDINGS = {
    "attacker_retreats": "The winner can decide to retreat from the combat.",
    "defender_retreats": "The winner can decide to retreat from the combat.",
    "tie_roll": "On a result of 7 the combat ends.",
    "trivial_one_round": "Lasts one and only one combat round",
    "attacker_destroyed": "The ruleset's reading, not the seed's words",
    "defender_destroyed": "The ruleset's reading, not the seed's words",
    "both_destroyed": "The ruleset's reading, not the seed's words",
}


def test_the_last_step_of_a_battle_cites_what_ended_it(eia):
    warship = {"kind": "warship"}
    seen = set()
    for seed in range(40):
        played = resolve(eia, "battle", {"attacker": [warship] * 3, "defender": [warship] * 3}, seed=seed)
        reason = played.outcome.fields["reason"]
        text, rule = notes(played)[-1]
        assert text.startswith("The combat ends"), (seed, text)
        assert rule is not None and EIA_ENDINGS[reason] in rule, (seed, reason, rule)
        seen.add(reason)
    assert len(seen) >= 3  # retreats, a destroyed side and more: not one reading checked forty times
