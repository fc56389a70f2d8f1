"""The bundled `eto` ruleset against its source, NEPPAGames' ETO Optional Naval
Interception Rule v1.1 (shared/seeds/000_0d3ae3f65f8af0f1.txt).

The Naval Interception Table is typed again below from the seed text, not
copied from rulesdata/eto.yaml, so a typo in either one fails a test.  Every
probability is counted by hand in a comment next to it.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from interpreter import RuleViolation, UsageError, load_ruleset, odds, resolve
from interpreter.tables import OffTable, lookup

# ---- the seed, typed again ----------------------------------------------------------

# "Naval Interception Table / Zones  Roll", as printed in seed 000.
SEED_TABLE = [
    ("1-2", "Automatic"),
    ("3-4", "2,3,4,5,6"),
    ("5-6", "3,4,5,6"),
    ("7-8", "4,5,6"),
    ("9-10", "5,6"),
    ("11+", "6"),
]

SEED_NOT_INTERCEPTABLE = (
    "Fleets that change base because of an overrun naval base (6.0), move during the Strategic Warfare "
    "Phase (9.6), perform shipping (6.7), or strategically redeploy (11.0) cannot be intercepted."
)
# The seed writes *after* with asterisks (emphasis); the rule quotes the words without them.
SEED_EMBARKATION = (
    "Naval Interception of sea transport or amphibious invasion missions can only occur after all of the "
    "ground units involved in that mission have embarked."
)
SEED_LISTED = "Interception occurs if the number rolled is listed next to the appropriate number of zones."

SEED_FILE = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "000_0d3ae3f65f8af0f1.txt"

# Which seed row a zone count falls in ("11+" holds every count from 11 up).
ROW_OF_ZONES = {1: "1-2", 2: "1-2", 3: "3-4", 4: "3-4", 5: "5-6", 6: "5-6", 7: "7-8", 8: "7-8", 9: "9-10", 10: "9-10"}


def row_for(zones: int) -> str:
    return ROW_OF_ZONES.get(zones, "11+")


def faces_in_seed(row: str) -> tuple[int, ...]:
    """The die faces the seed lists for a row; () for Automatic."""
    text = dict(SEED_TABLE)[row]
    return () if text == "Automatic" else tuple(int(face) for face in text.split(","))


@pytest.fixture(scope="module")
def eto():
    return load_ruleset("eto")


@pytest.fixture(scope="module")
def table(eto):
    return eto.tables["naval_interception"]


# ---- the table, value by value ---------------------------------------------------------


@pytest.mark.skipif(not SEED_FILE.is_file(), reason="the seed texts are not next to this checkout")
def test_typed_table_matches_the_seed_file():
    lines = SEED_FILE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "Naval Interception Table")
    assert lines[start + 1].split() == ["Zones", "Roll"]
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append(tuple(line.split()))
    assert rows == SEED_TABLE


def test_row_headings_are_the_seed_rows_in_order(table):
    assert [h.label for h in table.rows.headings] == [label for label, _ in SEED_TABLE]
    assert table.columns is None
    # "1-2" holds 1 and 2; "11+" is open upwards
    bounds = [(h.low, h.high) for h in table.rows.headings]
    assert bounds == [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, None)]


@pytest.mark.parametrize("label, printed", SEED_TABLE)
def test_every_cell_matches_the_seed(table, label, printed):
    index = [h.label for h in table.rows.headings].index(label)
    (cell,) = table.cells[index]
    assert table.printed[index] == (printed,)
    assert cell.get("code") == printed
    if printed == "Automatic":
        assert cell.get("automatic") is True
        assert cell.get("succeeds_on") == ()
    else:
        assert cell.get("automatic") is False
        assert cell.get("succeeds_on") == faces_in_seed(label)


@pytest.mark.parametrize("zones", range(1, 41))
def test_lookup_by_zone_count_finds_the_seed_row(table, zones):
    found = lookup(table, zones)
    assert found.row.label == row_for(zones)
    assert found.row_clamped_from is None  # 11+ holds 40: no clamping needed


@pytest.mark.parametrize("zones", [0, -1])
def test_the_table_has_no_row_below_one_zone(table, zones):
    # edges: rows: error -- 0 zones is not on the printed table
    with pytest.raises(OffTable):
        lookup(table, zones)


# ---- exact odds of one port's roll, zones 1..12 -------------------------------------------

# probability of interception, counted from the seed's table
HAND_ODDS = {
    1: Fraction(1),  # 1-2 Automatic: no die
    2: Fraction(1),
    3: Fraction(5, 6),  # 3-4 lists 2,3,4,5,6: 5 of 6 faces
    4: Fraction(5, 6),
    5: Fraction(4, 6),  # 5-6 lists 3,4,5,6: 4 of 6 -> 2/3
    6: Fraction(2, 3),
    7: Fraction(3, 6),  # 7-8 lists 4,5,6: 3 of 6 -> 1/2
    8: Fraction(1, 2),
    9: Fraction(2, 6),  # 9-10 lists 5,6: 2 of 6 -> 1/3
    10: Fraction(1, 3),
    11: Fraction(1, 6),  # 11+ lists 6: 1 of 6
    12: Fraction(1, 6),
}


@pytest.mark.parametrize("zones", sorted(HAND_ODDS))
def test_interception_odds_by_zones(eto, zones):
    distribution = odds(eto, "interception", {"zones": zones})
    p = HAND_ODDS[zones]
    automatic = zones <= 2
    assert distribution.probability("intercepted") == p
    assert distribution.probability("intercepted", automatic=automatic) == p
    assert distribution.probability("not_intercepted") == 1 - p
    assert sum(q for _, q in distribution.outcomes) == 1
    assert distribution.truncated == 0


@pytest.mark.parametrize("zones", range(3, 13))
@pytest.mark.parametrize("face", range(1, 7))
def test_each_face_intercepts_exactly_when_the_seed_lists_it(eto, zones, face):
    play = resolve(eto, "interception", {"zones": zones}, dice=[face])
    listed = face in faces_in_seed(row_for(zones))
    assert play.outcome.name == ("intercepted" if listed else "not_intercepted")
    assert play.dice == (face,)
    assert play.unused_dice == 0


# ---- the U.S. box ----------------------------------------------------------------------------


@pytest.mark.parametrize("zones", range(1, 13))
def test_us_box_uses_the_last_row_whatever_zones_says(eto, zones):
    # "must use the maximum number of zones": row 11+ lists 6 only -> 1/6, even at 1-2 zones
    distribution = odds(eto, "interception", {"zones": zones, "from_us_box": True})
    assert distribution.probability("intercepted") == Fraction(1, 6)
    assert distribution.probability("intercepted", automatic=True) == 0
    six = resolve(eto, "interception", {"zones": zones, "from_us_box": True}, dice=[6])
    five = resolve(eto, "interception", {"zones": zones, "from_us_box": True}, dice=[5])
    assert six.outcome.name == "intercepted"
    assert five.outcome.name == "not_intercepted"
    (found,) = [e for e in six.trace if e.kind == "lookup"]
    assert dict(found.data)["row"] == "11+"


# ---- automatic interception ------------------------------------------------------------------


@pytest.mark.parametrize("zones", [1, 2])
def test_automatic_at_one_or_two_zones_rolls_no_die(eto, zones):
    play = resolve(eto, "interception", {"zones": zones}, dice=[4])
    assert play.outcome.name == "intercepted"
    assert play.outcome.get("automatic") is True
    assert play.unused_dice == 1  # the scripted 4 was never rolled
    assert play.dice == ()
    assert not [e for e in play.trace if e.kind == "roll"]
    # and exact odds have a single certain outcome
    distribution = odds(eto, "interception", {"zones": zones})
    assert [(o.name, o.get("automatic"), p) for o, p in distribution.outcomes] == [("intercepted", True, Fraction(1))]


def test_a_rolled_zone_uses_its_one_die(eto):
    play = resolve(eto, "interception", {"zones": 3}, dice=[1])
    # 3-4 lists 2..6: a 1 fails; the die is used
    assert play.outcome.name == "not_intercepted"
    assert play.unused_dice == 0


# ---- missions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mission", ["overrun_base_change", "strategic_warfare_move", "shipping", "strategic_redeployment"])
def test_non_interceptable_missions_break_the_rule(eto, mission):
    with pytest.raises(RuleViolation) as info:
        resolve(eto, "interception", {"zones": 5, "mission": mission}, dice=[6])
    assert SEED_NOT_INTERCEPTABLE in str(info.value)
    with pytest.raises(RuleViolation) as info:
        odds(eto, "interception", {"zones": 5, "mission": mission})
    assert SEED_NOT_INTERCEPTABLE in str(info.value)


@pytest.mark.parametrize("mission", ["change_base", "sea_transport", "amphibious_invasion"])
def test_interceptable_missions_roll_normally(eto, mission):
    # "Fleets that change base, perform sea transport, or perform amphibious invasion may be intercepted"
    # 5-6 lists 3,4,5,6: 4 of 6 -> 2/3 for every one of them
    assert odds(eto, "interception", {"zones": 5, "mission": mission}).probability("intercepted") == Fraction(2, 3)


@pytest.mark.parametrize("mission", ["sea_transport", "amphibious_invasion"])
def test_transport_and_invasion_need_every_ground_unit_embarked(eto, mission):
    with pytest.raises(RuleViolation) as info:
        resolve(eto, "interception", {"zones": 7, "mission": mission, "ground_units_embarked": False}, dice=[6])
    assert SEED_EMBARKATION in str(info.value)
    embarked = resolve(eto, "interception", {"zones": 7, "mission": mission, "ground_units_embarked": True}, dice=[6])
    assert embarked.outcome.name == "intercepted"  # 7-8 lists 6


def test_a_base_change_carries_no_ground_units_to_embark(eto):
    play = resolve(eto, "interception", {"zones": 7, "mission": "change_base", "ground_units_embarked": False}, dice=[4])
    assert play.outcome.name == "intercepted"  # 7-8 lists 4


# ---- the trace of one play ------------------------------------------------------------------------


def test_trace_of_seven_zones_and_a_four(eto):
    play = resolve(eto, "interception", {"zones": 7}, dice=[4])
    assert play.outcome.name == "intercepted"
    assert play.outcome.get("automatic") is False
    kinds = [e.kind for e in play.trace]
    lookups = [e for e in play.trace if e.kind == "lookup"]
    rolls = [e for e in play.trace if e.kind == "roll"]
    outcomes = [e for e in play.trace if e.kind == "outcome"]
    assert len(lookups) == len(rolls) == len(outcomes) == 1
    # the table first, then the die, then the result
    assert kinds.index("lookup") < kinds.index("roll") < kinds.index("outcome") == len(kinds) - 1
    lookup_data = dict(lookups[0].data)
    assert lookup_data["table"] == "naval_interception"
    assert lookup_data["row"] == "7-8"
    assert "7-8" in lookups[0].message and "4,5,6" in lookups[0].message
    roll_data = dict(rolls[0].data)
    assert roll_data["faces"] == [4]
    assert roll_data["total"] == 4
    assert "intercepted" in outcomes[0].message and "not_intercepted" not in outcomes[0].message
    assert SEED_LISTED in outcomes[0].rule
    assert play.dice == (4,) and play.unused_dice == 0


# ---- bad zone counts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("zones", [0, -3])
def test_zones_below_one_are_rejected(eto, zones):
    # "counted as 1" from the zone adjacent to the port: there is no zone 0
    with pytest.raises(UsageError) as info:
        resolve(eto, "interception", {"zones": zones}, dice=[4])
    assert "at least 1" in str(info.value)
    with pytest.raises(UsageError):
        odds(eto, "interception", {"zones": zones})


# ---- withdrawal before combat -------------------------------------------------------------------------


def withdraw(eto, **inputs):
    play = resolve(eto, "withdrawal", inputs, dice=[])
    assert play.outcome.name == "withdrawn"
    return play.outcome.get("loss"), play.outcome.get("opponent_loss")


@pytest.mark.parametrize(
    "normal_loss, strength, mine, theirs, expected_loss",
    [
        (8, 20, 2, 5, 4),  # half of 8 = 4; cap 20 // 2 = 10 -> 4
        (5, 20, 2, 5, 2),  # half of 5 = 2.5, rounded down -> 2; cap 10
        (1, 20, 2, 5, 0),  # half of 1 = 0.5, rounded down -> 0
        (9, 6, 2, 4, 3),  # half of 9 = 4 (down); cap 6 // 2 = 3 -> 3 (the cap binds)
        (12, 7, 1, 6, 3),  # half of 12 = 6; cap 7 // 2 = 3 -> 3
        (4, 1, 1, 6, 0),  # half of 4 = 2; a 1-factor fleet may lose at most 1 // 2 = 0
        (0, 10, 1, 6, 0),  # nothing to halve
        (7, 10, 3, 3, 3),  # equal rolls: not higher, so the halved loss applies: 7 // 2 = 3
    ],
)
def test_withdrawing_fleet_loses_half_at_most_half_its_strength(eto, normal_loss, strength, mine, theirs, expected_loss):
    loss, opponent_loss = withdraw(
        eto, normal_loss=normal_loss, fleet_strength=strength, withdrawing_roll=mine, opponent_roll=theirs
    )
    assert loss == expected_loss
    assert opponent_loss == 0  # the other fleet's normal loss defaults to 0


def test_other_fleet_takes_its_normal_losses(eto):
    # "Naval combat still occurs": the other fleet loses what the combat gave it (here 3)
    loss, opponent_loss = withdraw(
        eto, normal_loss=6, fleet_strength=10, withdrawing_roll=2, opponent_roll=5, opponent_normal_loss=3
    )
    assert (loss, opponent_loss) == (3, 3)  # 6 // 2 = 3, cap 5


@pytest.mark.parametrize("mine, theirs", [(5, 4), (6, 1), (0, -2)])
def test_higher_roll_of_the_withdrawing_fleet_cancels_all_losses(eto, mine, theirs):
    # "If the withdrawing fleet has the higher modified die roll then neither side loses any fleet factors."
    loss, opponent_loss = withdraw(
        eto, normal_loss=10, fleet_strength=10, withdrawing_roll=mine, opponent_roll=theirs, opponent_normal_loss=4
    )
    assert (loss, opponent_loss) == (0, 0)


def test_equal_rolls_still_lose(eto):
    # 5 vs 5 is not "the higher": half of 10 = 5, cap 10 // 2 = 5; the opponent's 4 stands
    loss, opponent_loss = withdraw(
        eto, normal_loss=10, fleet_strength=10, withdrawing_roll=5, opponent_roll=5, opponent_normal_loss=4
    )
    assert (loss, opponent_loss) == (5, 4)


def test_withdrawal_rolls_no_dice_and_says_the_battle_is_lost(eto):
    inputs = {"normal_loss": 9, "fleet_strength": 6, "withdrawing_roll": 2, "opponent_roll": 4}
    distribution = odds(eto, "withdrawal", inputs)
    # no die: one certain outcome, loss 3 as above
    assert [(o.get("loss"), p) for o, p in distribution.outcomes] == [(3, Fraction(1))]
    play = resolve(eto, "withdrawal", inputs, dice=[])
    notes = [e.message for e in play.trace if e.kind == "note"]
    assert any("automatically loses the battle" in n for n in notes)
