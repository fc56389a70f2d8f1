"""A result that rests on the ruleset's own reading of its seed says so: a note names the procedures
(``procedures:``) or the constants that select the reading (``constants:``), and odds, run and Monte
Carlo name the note for every procedure that reaches one of them."""

from __future__ import annotations

import io
import json
import os

import pytest
from conftest import procedure, ruleset_text

from interpreter import RulesetError, load_ruleset, odds, resolve
from interpreter.api import monte_carlo
from interpreter.cli import main

NOTES = """\
constants:
  sink_on: {value: 5, rule: "r"}
  unused: {value: 1, rule: "r"}
notes:
  - topic: "Sinking: the modified result"
    constants: [sink_on]
    text: "t"
  - topic: "Ties go to the defender"
    procedures: [tie]
    text: "t"
  - topic: "A plain note"
    text: "t"
"""
PROCEDURES = {
    # shot reads sink_on; battle resolves shot and tie; tie reads nothing named; alone reads nothing
    "shot": procedure("let d = 1d6\nif d >= sink_on then\n  outcome sunk\nend\noutcome missed"),
    "tie": procedure("outcome defender_holds"),
    "battle": procedure("let s = resolve shot()\nlet t = resolve tie()\noutcome over(result = s.outcome)"),
    "alone": procedure("outcome quiet"),
}


@pytest.fixture
def ruleset(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(ruleset_text(PROCEDURES, NOTES), encoding="utf-8")
    return path


def test_every_result_names_the_readings_it_rests_on(ruleset):
    loaded = load_ruleset(ruleset)
    assert odds(loaded, "shot").readings == ("Sinking: the modified result",)
    assert odds(loaded, "tie").readings == ("Ties go to the defender",)
    # battle reaches both, through the procedures it resolves; the plain note is never named
    assert odds(loaded, "battle").readings == ("Sinking: the modified result", "Ties go to the defender")
    assert odds(loaded, "alone").readings == ()
    assert resolve(loaded, "battle", seed=1).readings == odds(loaded, "battle").readings
    assert monte_carlo(loaded, "shot", trials=10, seed=1).readings == ("Sinking: the modified result",)


def test_the_command_says_so(ruleset):
    stdout = io.StringIO()
    assert main(["odds", str(ruleset), "battle"], stdout=stdout, stderr=io.StringIO()) == 0
    assert ("note: rests on the ruleset's readings, not the seed's words (see its notes:): "
            "Sinking: the modified result; Ties go to the defender") in stdout.getvalue().replace("\n  ", " ")  # wrapped at 120
    stdout = io.StringIO()
    assert main(["odds", str(ruleset), "alone"], stdout=stdout, stderr=io.StringIO()) == 0
    assert "readings" not in stdout.getvalue()
    stdout = io.StringIO()
    assert main(["run", str(ruleset), "shot", "--dice", "6", "--json"], stdout=stdout, stderr=io.StringIO()) == 0
    assert json.loads(stdout.getvalue())["readings"] == ["Sinking: the modified result"]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="the cache is off where files have no owner")
def test_readings_survive_the_cache(ruleset, tmp_path, monkeypatch):
    monkeypatch.setenv("WARTABLE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("WARTABLE_CACHE", raising=False)
    first = odds(load_ruleset(ruleset), "battle").readings
    assert odds(load_ruleset(ruleset), "battle").readings == first == ("Sinking: the modified result", "Ties go to the defender")


def test_a_note_naming_what_the_ruleset_lacks_is_an_error(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(ruleset_text(PROCEDURES, NOTES.replace("[sink_on]", "[sink_onn]").replace("[tie]", "[tei]")), encoding="utf-8")
    with pytest.raises(RulesetError) as error:
        load_ruleset(path)
    found = sorted((d.line, d.column, d.message) for d in error.value.diagnostics)
    # HEADER is 5 lines: constants: is line 6; `    constants: [sink_onn]` is line 11, the name in column 17;
    # `    procedures: [tei]` is line 14, the name in column 18
    assert found == [
        (11, 17, "the note names constant 'sink_onn', which this ruleset does not have (did you mean 'sink_on'?)"),
        (14, 18, "the note names procedure 'tei', which this ruleset does not have (did you mean 'tie'?)"),
    ]


def test_the_bundled_rulesets_name_their_readings():
    eia, surface = load_ruleset("eia"), load_ruleset("surface_combat")
    # eia shot reads higher_results_sink (the modified result sinks on 6 or more: the ruleset's reading)
    assert "A result of 6 sinks: the modified result" in odds(eia, "shot", {"shooter": "heavy", "target": "warship"}).readings
    # the surface battle's own endings, and the round's simultaneous fire and targets
    readings = surface.readings("battle")
    assert "How a battle ends besides breakoff and disengagement" in readings and "Order of a round and targets" in readings
    assert load_ruleset("eto").readings("interception") == ()  # withdrawal's rounding is not interception's
