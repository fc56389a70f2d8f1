"""The lint pass (interpreter/lint.py): warnings on rulesets that load, and `check --strict`.

One bad ruleset per warning lives in tests/bad_rulesets/ (``# expect: L:C: warning: ...``,
run by tests/test_bad_rulesets.py); here: what must *not* warn, the bundled rulesets
lint clean, and how `check` reports warnings.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from interpreter import load_ruleset
from interpreter.cli import main
from interpreter.lint import as_errors, lint
from interpreter.resources import bundled_names

HEADER = 'wartable: 1\nname: l\ntitle: "lint"\nsource: "tests"\nversion: "1"\n'

CRT = HEADER + """\
tables:
  crt:
    title: "CRT"
    rule: "r"
    rows: {name: "Die roll", dice: 1d6}
    columns: {name: "Odds", entries: ["1:2", "1:1", "2:1"]}
    edges: {rows: error, columns: clamp}
    cells:
      "1-6": [AE, EX, DE]
procedures:
  attack:
    title: attack
    rule: r
    inputs:
      attack: {type: int, min: 1}
      defense: {type: int, min: 1}
      strong: {type: bool, default: false}
    body: |
BODY
"""


def warnings_of(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "l.yaml"
    path.write_text(CRT.replace("BODY", "\n".join("      " + line for line in body.splitlines())), encoding="utf-8")
    return [d.message for d in lint(load_ruleset(path))]


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_rulesets_lint_clean(name):
    assert lint(load_ruleset(name)) == ()


@pytest.mark.parametrize(
    "body",
    [
        "outcome done(r = lookup crt(row = 1d6, column = ratio(attack, defense)))",
        # a local bound to odds, in a branch or not: the idtracking follows it
        "let odds = ratio(attack, defense)\noutcome done(r = lookup crt(row = 1d6, column = odds))",
        ("let odds = if strong then ratio(attack * 2, defense) else ratio(attack, defense)\n"
         "outcome done(r = lookup crt(row = 1d6, column = odds))"),
        # odds worked out with a number: still odds
        "outcome done(r = lookup crt(row = 1d6, column = ratio(attack + 1, defense)))",
    ],
)
def test_odds_keys_that_do_not_warn(tmp_path, body):
    assert warnings_of(tmp_path, body) == []


@pytest.mark.parametrize(
    "body",
    [
        "outcome done(r = lookup crt(row = 1d6, column = attack // defense))",
        "outcome done(r = lookup crt(row = 1d6, column = attack))",  # an int input
        "let odds = attack // defense\nset odds = odds + 1\noutcome done(r = lookup crt(row = 1d6, column = odds))",
    ],
)
def test_whole_number_odds_keys_warn(tmp_path, body):
    (message,) = warnings_of(tmp_path, body)
    assert "the odds columns of table 'crt' are looked up with a whole number, not ratio(...)" in message


def test_a_field_every_outcome_carries_is_the_procedures_own(tmp_path):
    # damage in both outcomes (all of them): one meaning, no warning
    body = "let die = 1d6\nif die == 6 then\n  outcome hit(damage = 2)\nend\noutcome miss(damage = 0)\n"
    # (the crt is looked up nowhere here: that is the only warning)
    assert warnings_of(tmp_path, body) == ["warning: table 'crt' is never looked up"]


def test_a_true_false_field_is_not_averaged_so_does_not_warn(tmp_path):
    body = ("let die = 1d6\nif die == 6 then\n  outcome hit(intercepted = true)\nend\nif die == 5 then\n"
            "  outcome near(intercepted = false)\nend\noutcome miss()\n")
    assert warnings_of(tmp_path, body) == ["warning: table 'crt' is never looked up"]


def test_warnings_never_stop_a_ruleset_loading_and_strict_drops_the_mark(tmp_path):
    path = tmp_path / "l.yaml"
    path.write_text(HEADER + "constants:\n  spare: {value: 1, rule: r}\n", encoding="utf-8")
    (warning,) = lint(load_ruleset(path))
    assert (warning.line, warning.column, warning.message) == (7, 3, "warning: constant 'spare' is never used")
    (error,) = as_errors([warning])
    assert (error.line, error.column, error.message, error.line_text) == (7, 3, "constant 'spare' is never used", "  spare: {value: 1, rule: r}")


def test_check_json_lists_warnings_with_their_severity(tmp_path):
    path = tmp_path / "l.yaml"
    path.write_text(HEADER + "constants:\n  spare: {value: 1, rule: r}\n", encoding="utf-8")
    out = io.StringIO()
    assert main(["check", str(path), "--json"], stdout=out, stderr=io.StringIO()) == 0
    (entry,) = json.loads(out.getvalue())["rulesets"]
    assert entry["ok"] is True and entry["diagnostics"] == []
    (warning,) = entry["warnings"]
    assert (warning["line"], warning["column"], warning["severity"]) == (7, 3, "warning")
    out = io.StringIO()
    assert main(["check", str(path), "--json", "--strict"], stdout=out, stderr=io.StringIO()) == 1
    (entry,) = json.loads(out.getvalue())["rulesets"]
    assert entry["ok"] is False and entry["diagnostics"][0]["message"] == "constant 'spare' is never used"


def test_a_text_key_that_names_no_column_warns(tmp_path):
    # "1:1" as text is a category key: no category heading holds it (the columns are odds)
    (message,) = warnings_of(tmp_path, 'outcome done(r = lookup crt(row = 1d6, column = "1:1"))')
    assert message.startswith("warning: the column key '1:1' matches no column of table 'crt'")


def test_the_bundled_rulesets_pass_check_strict():
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "--strict", "eto", "naval_mines", "great_war"], stdout=out, stderr=err) == 0, err.getvalue()
    assert "warning" not in err.getvalue()


TRUNCATED = HEADER + """\
procedures:
  p:
    title: p
    rule: r
    body: |
      let hits = 0
      while hits < 1 limit 2 do
        let die = 1d6
        if die == 6 then
          set hits = 1
        end
      end
      outcome done(hits = hits)
examples:
  - name: "two tries at a 6"
    procedure: p
    odds: [{outcome: done, fields: {hits: 1}, probability: "11/36"}]
"""


def test_an_example_whose_odds_leave_truncated_mass_warns_at_the_example(tmp_path):
    # two tries at a 6 within `limit 2`: a 6 in two rolls is 1 - (5/6)^2 = 11/36; the rest,
    # (5/6)^2 = 25/36, is still looping at the limit: truncated.  The example passes, and says so.
    path = tmp_path / "t.yaml"
    path.write_text(TRUNCATED, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["test", str(path)], stdout=out, stderr=err) == 0
    head = err.getvalue().splitlines()[0]
    line = TRUNCATED.splitlines().index('    odds: [{outcome: done, fields: {hits: 1}, probability: "11/36"}]') + 1
    assert head.startswith(f"{path}:{line}:11: warning: these odds leave 25/36 (0.694) of the probability truncated")
    out = io.StringIO()
    assert main(["test", str(path), "--json"], stdout=out, stderr=io.StringIO()) == 0
    (example,) = json.loads(out.getvalue())["examples"]
    assert example["passed"] is True and example["warnings"][0]["severity"] == "warning"


def test_a_constant_read_only_by_a_helper_function_is_used(tmp_path):
    # `reach` reads the constant `gun_range`; the procedure calls `reach` and never names `gun_range`
    # itself: the constant is used (it was once reported as never used), and so is the helper.
    path = tmp_path / "h.yaml"
    path.write_text(HEADER + """\
constants:
  gun_range: {value: 3, rule: "Guns reach 3 hexes"}
functions:
  reach:
    params: [d]
    body: "d <= gun_range"
procedures:
  fire:
    title: fire
    rule: r
    inputs:
      distance: {type: int, min: 0}
    body: |
      outcome done(in_range = reach(distance))
""", encoding="utf-8")
    assert lint(load_ruleset(path)) == ()


def test_a_number_field_of_one_outcome_from_means_one_thing(tmp_path):
    """`outcome from` gives AE, EX and DE one field `losses` from one expression: one meaning, though a written
    `outcome miss()` lacks it; the lint sees the three names (it did not see them at all) and says nothing."""
    found = warnings_of(tmp_path, "let die = 1d6\nif die <= 5 then\n"
                                  "  outcome from lookup crt(row = die, column = ratio(attack, defense))(losses = die)\nend\noutcome miss()")
    assert found == []


def test_a_written_outcome_beside_outcome_from_with_the_same_number_field_warns(tmp_path):
    """The same field `losses` given by `outcome from` (AE, EX, DE) and by a written `outcome DE(...)`: two origins,
    carried by four names but not by miss; and DE carries it from two places (the same set of fields: no warning there)."""
    found = warnings_of(tmp_path, "let die = 1d6\nif die <= 3 then\n"
                                  "  outcome from lookup crt(row = die, column = ratio(attack, defense))(losses = die)\n"
                                  "elif die == 4 then\n  outcome DE(losses = 2)\nend\noutcome miss()")
    assert len(found) == 1 and found[0].startswith("warning: field 'losses' is carried by outcomes AE, EX, DE (not by miss)")
