"""The unreachable-cells lint (interpreter/lint_cells.py): a row or column no lookup can reach warns,
and only then.  The warning's own bad ruleset is tests/bad_rulesets/lint_unreachable_row.yaml; here,
what must stay silent (every row reachable, or a key the pass cannot bound) and a few hand counts."""

from __future__ import annotations

from pathlib import Path

from interpreter import load_ruleset
from interpreter.lint import lint

HEADER = 'wartable: 1\nname: l\ntitle: "lint"\nsource: "tests"\nversion: "1"\n'


def ruleset(rows: str, body: str, *, inputs: str = "", columns: str = "", edge: str = "clamp") -> str:
    """One table `t` (rows as given, cells from ``rows``) and one procedure `p` with ``body``."""
    column_line = f"    columns: {columns}\n" if columns else ""
    edges = f"{{rows: {edge}, columns: {edge}}}" if columns else f"{{rows: {edge}}}"
    text = HEADER + f"""\
tables:
  t:
    title: "T"
    rule: "r"
    rows: {{name: "Die roll"}}
{column_line}    edges: {edges}
    cells:
{rows}
procedures:
  p:
    title: p
    rule: r
{inputs}    body: |
"""
    return text + "".join(f"      {line}\n" for line in body.splitlines())


def warnings(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "l.yaml"
    path.write_text(text, encoding="utf-8")
    return [d.message for d in lint(load_ruleset(path)) if "never reached" in d.message]


ONE_TO_EIGHT = '      "1-2": 0\n      "3-6": 1\n      "7": 2\n      "8": 3'


def test_a_table_every_row_of_which_is_reached_gives_nothing(tmp_path):
    # 2d6 rolls 2..12: rows 2-6, 7, 8-12 are each reached.
    rows = '      "2-6": 0\n      "7": 1\n      "8-12": 2'
    assert warnings(tmp_path, ruleset(rows, "outcome done(h = lookup t(row = 2d6))")) == []


def test_a_bounded_input_that_reaches_the_last_rows_gives_nothing(tmp_path):
    # 1d6 + bonus with bonus in 0..2 runs 1..8: every row of 1-2, 3-6, 7, 8.
    inputs = "    inputs:\n      bonus: {type: int, min: 0, max: 2}\n"
    assert warnings(tmp_path, ruleset(ONE_TO_EIGHT, "outcome done(h = lookup t(row = 1d6 + bonus))", inputs=inputs)) == []


def test_the_same_table_read_by_the_die_alone_warns_at_rows_7_and_8(tmp_path):
    # 1d6 runs 1..6: rows 7 and 8 are never read.
    found = warnings(tmp_path, ruleset(ONE_TO_EIGHT, "outcome done(h = lookup t(row = 1d6))"))
    assert [message.split(":")[1].strip() for message in found] == ["row '7' of table 't' is never reached", "row '8' of table 't' is never reached"]
    assert "row keys run 1 to 6, which reach only '1-2', '3-6'" in found[0]


def test_a_key_from_another_procedure_says_nothing(tmp_path):
    # The row key is a field of an outcome: not bounded at load, so nothing is said though rows 7-8 may be unreachable.
    text = ruleset(ONE_TO_EIGHT, "let r = resolve q()\noutcome done(h = lookup t(row = r.roll))") + """\
  q:
    title: q
    rule: r
    body: |
      outcome rolled(roll = 1d6)
"""
    assert warnings(tmp_path, text) == []


def test_a_number_that_grows_in_a_loop_says_nothing(tmp_path):
    # n starts at 1d6 and grows by one per pass: it depends on itself, so its range is not known.
    body = "let n = 1d6\nlet go = 1d6\nwhile go < 4 limit 5 do\n  set n = n + 1\n  set go = 1d6\nend\noutcome done(h = lookup t(row = n))"
    assert warnings(tmp_path, ruleset(ONE_TO_EIGHT, body)) == []


def test_a_row_a_table_that_does_not_clamp_cannot_reach(tmp_path):
    # 1d6 - 1 runs 0..5 on rows 1..6 that do not clamp: 0 is off the table (a play stops), row 6 is never read.
    rows = "".join(f'      "{n}": {n}\n' for n in range(1, 7)).rstrip("\n")
    found = warnings(tmp_path, ruleset(rows, "outcome done(h = lookup t(row = 1d6 - 1))", edge="error"))
    assert len(found) == 1 and found[0].startswith("warning: row '6' of table 't' is never reached: its lookups' row keys run 0 to 5")


def test_a_column_no_enum_value_names_warns(tmp_path):
    # The column key is an enum of day and night: the column 'dusk' is never named; the rows 1d6 reaches all.
    inputs = "    inputs:\n      light: {type: enum, values: [day, night]}\n"
    rows = '      "1-6": [0, 1, 2]'
    found = warnings(tmp_path, ruleset(rows, "outcome done(h = lookup t(row = 1d6, column = light))", inputs=inputs,
                                       columns='{name: "Light", entries: [day, night, dusk]}'))
    assert len(found) == 1 and found[0].startswith("warning: column 'dusk' of table 't' is never reached: its lookups' column keys name only 'day', 'night'")


def test_min_and_max_clamp_a_key_into_the_rows(tmp_path):
    # min(max(2d6 - 4, 1), 8) runs 1..8: every row reached; without the clamp 2d6 - 4 runs -2..8, still all (rows clamp).
    assert warnings(tmp_path, ruleset(ONE_TO_EIGHT, "outcome done(h = lookup t(row = min(max(2d6 - 4, 1), 8)))")) == []
    # min(1d6, 2) runs 1..2: only row '1-2'; rows '3-6', 7 and 8 warn.
    assert len(warnings(tmp_path, ruleset(ONE_TO_EIGHT, "outcome done(h = lookup t(row = min(1d6, 2)))"))) == 3


def test_keys_far_beyond_the_last_row_clamp_to_it(tmp_path):
    # 1d6 * 1000 runs 1000..6000, all above row 8: the rows clamp, so every key reads row '8' and the other three warn.
    found = warnings(tmp_path, ruleset(ONE_TO_EIGHT, "outcome done(h = lookup t(row = 1d6 * 1000))"))
    assert [message.split("'")[1] for message in found] == ["1-2", "3-6", "7"]
    assert "row keys run 1000 to 6000, which reach only '8'" in found[0]
