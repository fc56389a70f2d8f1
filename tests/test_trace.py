"""Trace events are data; interpreter.trace_events words them (the evaluator assembles no English)."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset, resolve
from interpreter.results import resolution
from interpreter.trace_events import TraceEvent, describe, public_fields


def event(kind: str, **data) -> TraceEvent:
    return TraceEvent(kind, None, 0, "", tuple(data.items()))


@pytest.mark.parametrize("made, words", [
    (event("note", step="note", text="The fleet withdraws."), "The fleet withdraws."),
    (event("set", step="set", name="lost", value=2), "lost = 2"),
    (event("roll", step="roll", form="sum", count=2, sides=6, text="2d6", faces=[3, 4], total=7), "roll 2d6: 3 + 4 = 7"),
    (event("roll", step="roll", form="sum", count=1, sides=6, text="dice", faces=[5], total=5), "roll 1d6: 5"),
    (event("roll", step="roll", form="pool", count=3, sides=6, text="pool", faces=[2, 6, 4], value=(6, 4, 2)),
     "roll pool(3, 6): 2, 6, 4 -> [6, 4, 2]"),
    (event("roll", step="roll", form="successes", count=2, sides=6, text="s", counting=(5, 6), faces=[6, 1], value=1),
     "roll 2d6 counting 5, 6: 6, 1 -> 1 success"),
    (event("roll", step="roll", form="successes", count=1, sides=6, text="s", counting=(), faces=[3], value=0),
     "roll 1d6 counting no face: 3 -> 0 successes"),
    (event("call", step="call", procedure="shot", title="One ship fires"), "resolve shot: One ship fires"),
    (event("clamp", step="row_clamp", table_title="CRT", key=9, row="6"), "CRT: row key 9 is off the table; clamped to row 6"),
    (event("clamp", step="column_clamp", table_title="CRT", key=-4, column="-3"),
     "CRT: column key -4 is off the table; clamped to column -3"),
    (event("shift", step="column_shift", table_title="CRT", from_column="1:1", shift=-2, clamped=True, column="1:2"),
     "CRT: column 1:1 shifted 2 left (clamped at the edge) -> 1:2"),
    (event("lookup", step="lookup", table_title="Interception", row="7-8", column=None, value=(4, 5, 6)),
     "Interception: row 7-8 -> [4, 5, 6]"),
    (event("modifier", step="modifier_entry", label="Night", shifts=False, value=-1), "DRM -1: Night"),
    (event("shift", step="modifier_entry", label="Armor", shifts=True, value=-1), "column shift 1L: Armor"),
    (event("shift", step="modifier_total", list="Shifts", shifts=True, total=0), "Shifts: net column shift 0"),
    (event("modifier", step="modifier_total", list="DRMs", shifts=False, total=2), "DRMs: net DRM +2"),
])
def test_each_step_is_worded_from_its_data(made, words):
    assert describe(made) == made.message == words


def test_a_play_records_data_and_its_json_keeps_it(tmp_path):
    eto = load_ruleset("eto")
    play = resolve(eto, "interception", {"zones": 7}, dice=[4])
    steps = [e.get("step") for e in play.trace]
    assert "lookup" in steps and "roll" in steps and "outcome" in steps
    lookup = next(e for e in play.trace if e.get("step") == "lookup")
    # the seed's row 7-8 lists 4, 5, 6: the cell recorded whole, with what it means
    assert (lookup.get("row"), lookup.get("value").get("code"), lookup.get("value").get("succeeds_on")) == ("7-8", "4,5,6", (4, 5, 6))
    document = resolution(play)
    for entry, recorded in zip(document["trace"], play.trace):
        assert entry["message"] == describe(recorded)
        assert {key: value for key, value in entry.items() if key not in ("kind", "message", "rule", "depth", "where")} == public_fields(recorded)
    roll = next(entry for entry in document["trace"] if entry["kind"] == "roll")
    assert (roll["dice"], roll["faces"], roll["total"]) == ("1d6", [4], 4)
