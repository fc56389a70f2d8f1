"""``outcome from VALUE(fields)`` (issue 23): the outcome named by a text, such as a CRT's cell, instead of a
five-branch ``if`` for AE/AR/EX/DR/DE.  The checker knows every text the value can hold (a table's cells, an
enum, the texts of an ``if``), and each is an outcome of the procedure, listed in the order the texts come."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import RulesetError, load_ruleset, odds, resolve
from interpreter.errors import RuleViolation

ENGINES = ["compiled", "reference"]

# A small CRT: 1d6 down, three odds columns across (clamped past 3:1), cells as printed.
CRT = """\
tables:
  crt:
    title: "Combat Results Table"
    rule: "illustrative"
    rows: {name: "Die roll", dice: 1d6}
    columns: {name: "Odds", entries: ["1:1", "2:1", "3:1"]}
    edges: {rows: error, columns: clamp}
    cells:
      "1": [AE, AR, EX]
      "2": [AR, AR, EX]
      "3": [AR, EX, DR]
      "4": [EX, DR, DR]
      "5": [DR, DR, DE]
      "6": [DR, DE, DE]
types:
  unit:
    fields:
      state: {type: enum, values: [fresh, shaken]}
"""

PROCEDURES = {
    "attack": procedure(
        """
        let odds = ratio(attack, defense)
        outcome from lookup crt(row = 1d6, column = odds) (good_odds = odds >= 2)
          rule "The CRT's result is the attack's outcome."
        """,
        inputs="{attack: {type: int, min: 1}, defense: {type: int, min: 1}}",
    ),
    # the five-branch `if` it replaces, for the same odds
    "attack_by_hand": procedure(
        """
        let odds = ratio(attack, defense)
        let r = lookup crt(row = 1d6, column = odds)
        if r == "AE" then
          outcome AE(good_odds = odds >= 2)
        elif r == "AR" then
          outcome AR(good_odds = odds >= 2)
        elif r == "EX" then
          outcome EX(good_odds = odds >= 2)
        elif r == "DR" then
          outcome DR(good_odds = odds >= 2)
        end
        outcome DE(good_odds = odds >= 2)
        """,
        inputs="{attack: {type: int, min: 1}, defense: {type: int, min: 1}}",
    ),
    # the cell kept in a variable first (shown in a note), then named
    "attack_kept": procedure(
        """
        let result = lookup crt(row = 1d6, column = ratio(attack, defense))
        note "The CRT gives {result}."
        outcome from result(good_odds = ratio(attack, defense) >= 2)
        """,
        inputs="{attack: {type: int, min: 1}, defense: {type: int, min: 1}}",
    ),
    "posture": procedure("outcome from stance(extra = 1d6 >= 4)", choices="{stance: {options: [hold, retreat], default: hold}}"),
    "pick": procedure('let d = 1d6\noutcome from if d >= 5 then "high" else "low"'),
    # an enum field changed with a plain text: the one way a value outside the known texts reaches it
    "state_of": procedure(
        'let u = unit(state = "fresh")\nset u = with_field(u, "state", word)\noutcome from u.state',
        inputs="{word: {type: str}}",
    ),
}


@pytest.fixture(scope="module")
def crt(tmp_path_factory):
    path = tmp_path_factory.mktemp("outcome_from") / "ruleset.yaml"
    path.write_text(ruleset_text(PROCEDURES, CRT), encoding="utf-8")
    return load_ruleset(path)


def names(distribution) -> dict[str, Fraction]:
    found: dict[str, Fraction] = {}
    for outcome, p in distribution.outcomes:
        found[outcome.name] = found.get(outcome.name, Fraction(0)) + p
    return found


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("attack", "defense", "expected"), [
    # 1:1 column, faces 1..6: AE AR AR EX DR DR -> AE 1/6, AR 2/6, EX 1/6, DR 2/6
    (3, 3, {"AE": Fraction(1, 6), "AR": Fraction(2, 6), "EX": Fraction(1, 6), "DR": Fraction(2, 6)}),
    # 2:1 column: AR AR EX DR DR DE -> AR 2/6, EX 1/6, DR 2/6, DE 1/6
    (4, 2, {"AR": Fraction(2, 6), "EX": Fraction(1, 6), "DR": Fraction(2, 6), "DE": Fraction(1, 6)}),
    # 5:1 clamps to 3:1: EX EX DR DR DE DE -> 2/6 each
    (5, 1, {"EX": Fraction(2, 6), "DR": Fraction(2, 6), "DE": Fraction(2, 6)}),
])
def test_the_crt_cell_names_the_outcome(crt, engine, attack, defense, expected):
    inputs = {"attack": attack, "defense": defense}
    found = odds(crt, "attack", inputs, engine=engine)
    assert names(found) == expected
    # the fields are the statement's, the same for every name: 2:1 or better
    assert {o.fields["good_odds"] for o, _ in found.outcomes} == {attack >= 2 * defense}
    assert dict(found.outcomes) == dict(odds(crt, "attack_by_hand", inputs, engine=engine).outcomes)
    assert dict(found.outcomes) == dict(odds(crt, "attack_kept", inputs, engine=engine).outcomes)


def test_the_outcome_names_are_the_cells_in_table_order(crt):
    # read row by row: AE AR EX, AR AR EX, AR EX DR, ... -> AE, AR, EX, DR, DE
    assert crt.compiled["attack"].outcome_names == ("AE", "AR", "EX", "DR", "DE")
    assert crt.compiled["posture"].outcome_names == ("hold", "retreat")
    assert crt.compiled["pick"].outcome_names == ("high", "low")


@pytest.mark.parametrize("engine", ENGINES)
def test_an_enum_and_an_if_name_outcomes(crt, engine):
    # the choice names the outcome; 1d6 >= 4 on faces 4-6: 1/2
    found = odds(crt, "posture", {}, choices={"stance": "retreat"}, engine=engine)
    assert {(o.name, o.fields["extra"]): p for o, p in found.outcomes} == {("retreat", True): Fraction(1, 2), ("retreat", False): Fraction(1, 2)}
    # faces 5, 6 high (1/3), 1-4 low (2/3)
    assert names(odds(crt, "pick", {}, engine=engine)) == {"high": Fraction(1, 3), "low": Fraction(2, 3)}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_text_outside_the_known_ones_fails_at_the_statement(crt, engine):
    assert resolve(crt, "state_of", {"word": "shaken"}, engine=engine).outcome.name == "shaken"
    with pytest.raises(RuleViolation) as error:
        resolve(crt, "state_of", {"word": "routed"}, engine=engine)
    diagnostic = error.value.diagnostics[0]
    assert diagnostic.message == "rule violated: `outcome from` gave a text that names no outcome: it must be one of fresh, shaken"
    text = ruleset_text(PROCEDURES, CRT).splitlines()
    assert (diagnostic.line, diagnostic.column) == (text.index("      outcome from u.state") + 1, 7)


def mistakes(write_yaml, body: str, inputs: str = "") -> tuple[int, list[tuple[int, int, str]]]:
    """The file line of the body's first line, and each diagnostic as (line in the body from 0, column, message)."""
    tables = CRT.replace("types:", (
        '  odd:\n    title: "odd"\n    rule: "r"\n    rows: {name: "Die roll", dice: 1d6}\n    edges: {rows: error}\n'
        '    cells:\n      "1-3": "A/2"\n      "4-6": AR\n'
        '  numbers:\n    title: "numbers"\n    rule: "r"\n    rows: {name: "Die roll", dice: 1d6}\n    edges: {rows: error}\n'
        '    cells:\n      "1-6": 1\ntypes:'))
    path = write_yaml(ruleset_text({"p": procedure(body, inputs=inputs)}, tables))
    with pytest.raises(RulesetError) as error:
        load_ruleset(path)
    first = path.read_text(encoding="utf-8").splitlines().index("    body: |") + 2
    return first, [(d.line - first, d.column, d.message) for d in error.value.diagnostics]


UNKNOWN_TEXTS = ("`outcome from` needs a value whose texts are known when the ruleset loads: a table of text cells "
                 "(`outcome from lookup crt(...)`), an enum (a choice, an enum input or field) or texts in an `if ... then ... else`")


def test_outcome_from_mistakes_are_reported_where_written(write_yaml):
    body = ("outcome from lookup odd(row = 1d6)\n"
            "outcome from lookup numbers(row = 1d6)\n"
            "outcome from word\n"
            "outcome from 3\n"
            "let again = lookup crt(row = 1, column = ratio(1, 1))\n"
            "set again = word\n"
            "outcome from again\n")
    first, found = mistakes(write_yaml, body, inputs="{word: {type: str}}")
    # the value starts at index 13 of each line, indented 6 in the file: column 20; each statement follows an
    # outcome (the one above), said at its column 7
    assert found == [
        (0, 20, ("table 'odd' has the cell 'A/2', which cannot name an outcome: an outcome's name is a word "
                 "(letters, digits and _, not first a digit)")),
        (1, 7, f"unreachable: this statement follows the outcome at line {first}"),
        (1, 20, "`outcome from` names the outcome from a text, not from int"),
        (2, 7, f"unreachable: this statement follows the outcome at line {first + 1}"),
        (2, 20, UNKNOWN_TEXTS),  # a plain str input: any text
        (3, 7, f"unreachable: this statement follows the outcome at line {first + 2}"),
        (3, 20, "`outcome from` names the outcome from a text, not from int"),
        (4, 7, f"unreachable: this statement follows the outcome at line {first + 3}"),
        (6, 20, UNKNOWN_TEXTS),  # `again` is set to any text after its `let`
    ]


def test_an_outcome_from_ends_a_procedure(make_ruleset):
    # nothing after it is needed: the procedure always ends with an outcome
    ruleset = make_ruleset({"p": procedure('outcome from if true then "a" else "b"')})
    assert names(odds(ruleset, "p", {})) == {"a": Fraction(1)}
