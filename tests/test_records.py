"""Record literals, record updates and destructuring (issue 23): ``ship(kind = "heavy")``,
``s with {status = "sunk"}``, ``let {sunk, damaged as d} = resolve casualties(...)``.

All three are sugar the checker expands into nodes that already exist (checker_records.py), so
both engines run them; each odds test runs on both.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import RulesetError, load_ruleset, odds, resolve
from interpreter.values import Record

ENGINES = ["compiled", "reference"]

TYPES = """\
types:
  ship:
    fields:
      kind: {type: enum, values: [heavy, light]}
      status: {type: enum, values: [fit, damaged, sunk], default: fit}
      hits: {type: int, min: 0, default: 0}
"""

# casualties: 1d6, 1-2 nothing, 3-4 one damaged, 5 one sunk, 6 one sunk and one damaged.
CASUALTIES = procedure(
    """
    let r = 1d6
    if r <= 2 then
      outcome none(sunk = 0, damaged = 0)
    elif r <= 4 then
      outcome hurt(sunk = 0, damaged = 1)
    end
    outcome struck(sunk = 1, damaged = r - 5)
    """
)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    procedures = {
        "casualties": CASUALTIES,
        # two calls, their fields renamed apart: the five `set` lines the issue counted, in two lines
        "two_rounds": procedure(
            """
            let {sunk, damaged as first_damaged} = resolve casualties()
            let {sunk as sunk_again, damaged} = resolve casualties()
            outcome done(sunk = sunk + sunk_again, damaged = first_damaged + damaged)
            """
        ),
        "same_by_hand": procedure(
            """
            let a = resolve casualties()
            let b = resolve casualties()
            outcome done(sunk = a.sunk + b.sunk, damaged = a.damaged + b.damaged)
            """
        ),
        "reset": procedure(
            """
            let sunk = 9
            let damaged = 9
            set {sunk, damaged} = resolve casualties()
            outcome done(sunk = sunk, damaged = damaged)
            """
        ),
        "build": procedure(
            """
            let hits = 1d6
            let s = ship(kind = "heavy", hits = hits)
            let {kind, status, hits as h} = s
            outcome built(ship = s, kind = kind, status = status, h = h)
            """
        ),
        "constant_ship": procedure('outcome o(ship = ship(kind = "light", status = "damaged"))'),
        "update": procedure(
            """
            let hit = 1d6 >= 5
            let after = if hit then s with {status = "damaged", hits = s.hits + 1} else s
            outcome o(ship = after, same = after == with_field(with_field(s, "status", "damaged"), "hits", s.hits + 1))
            """,
            inputs="{s: {type: ship}}",
        ),
        "new_words": procedure(
            """
            let {from, as as a, with} = resolve words(from = 1)
            outcome o(from = from, as = a, with = with)
            """
        ),
        "words": procedure("outcome w(from = from, as = from + 1, with = from + 2)", inputs="{from: {type: int}}"),
        # the outcome's name destructured beside a field: `outcome` is a keyword, so it is bound with `as`
        "named": procedure(
            """
            let {outcome as result, sunk} = resolve casualties()
            outcome o(struck = result == "struck", hurt = result == "hurt", sunk = sunk)
            """
        ),
    }
    path = tmp_path_factory.mktemp("records") / "ruleset.yaml"
    path.write_text(ruleset_text(procedures, TYPES), encoding="utf-8")
    return load_ruleset(path)


def table(distribution) -> dict:
    return {(o.name, tuple(sorted(o.fields.items()))): p for o, p in distribution.outcomes}


@pytest.mark.parametrize("engine", ENGINES)
def test_destructured_fields_sum_like_the_long_form(fleet, engine):
    # one call: sunk 0 w.p. 4/6, 1 w.p. 2/6; damaged 0 w.p. 3/6 (faces 1, 2, 5), 1 w.p. 3/6 (faces 3, 4, 6)
    # two independent calls, sunk total: 0 (4/6)^2 = 16/36, 1 2*(4/6)(2/6) = 16/36, 2 (2/6)^2 = 4/36
    found = odds(fleet, "two_rounds", {}, engine=engine)
    sunk = {}
    for outcome, p in found.outcomes:
        sunk[outcome.fields["sunk"]] = sunk.get(outcome.fields["sunk"], 0) + p
    assert sunk == {0: Fraction(16, 36), 1: Fraction(16, 36), 2: Fraction(4, 36)}
    # damaged total 0, 1, 2 w.p. 1/4, 1/2, 1/4 (two fair coins); the joint law is the long form's
    assert table(found) == table(odds(fleet, "same_by_hand", {}, engine=engine))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_outcome_name_destructured_with_as(fleet, engine):
    # casualties' faces: 1-2 none (sunk 0), 3-4 hurt (sunk 0), 5-6 struck (sunk 1): 2/6 each
    assert table(odds(fleet, "named", {}, engine=engine)) == {
        ("o", (("hurt", False), ("struck", False), ("sunk", 0))): Fraction(2, 6),
        ("o", (("hurt", True), ("struck", False), ("sunk", 0))): Fraction(2, 6),
        ("o", (("hurt", False), ("struck", True), ("sunk", 1))): Fraction(2, 6)}


@pytest.mark.parametrize("engine", ENGINES)
def test_set_destructuring_changes_existing_variables(fleet, engine):
    found = odds(fleet, "reset", {}, engine=engine)
    # faces 1-2 (0, 0), 3-4 (0, 1), 5 (1, 0), 6 (1, 1): the 9s are gone
    assert table(found) == {
        ("done", (("damaged", 0), ("sunk", 0))): Fraction(2, 6), ("done", (("damaged", 1), ("sunk", 0))): Fraction(2, 6),
        ("done", (("damaged", 0), ("sunk", 1))): Fraction(1, 6), ("done", (("damaged", 1), ("sunk", 1))): Fraction(1, 6)}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_record_literal_is_the_record_an_input_makes(fleet, engine):
    # kind given, status from its default (fit), hits the die: six records, 1/6 each
    found = odds(fleet, "build", {}, engine=engine)
    assert len(found.outcomes) == 6
    for outcome, p in found.outcomes:
        assert p == Fraction(1, 6)
        assert outcome.fields["ship"] is Record("ship", (("kind", "heavy"), ("status", "fit"), ("hits", outcome.fields["h"])))
        assert (outcome.fields["kind"], outcome.fields["status"]) == ("heavy", "fit")
    assert resolve(fleet, "constant_ship", {}, engine=engine).outcome.fields["ship"] is Record(
        "ship", (("kind", "light"), ("status", "damaged"), ("hits", 0)))


@pytest.mark.parametrize("engine", ENGINES)
def test_with_changes_the_named_fields(fleet, engine):
    # 1d6 >= 5: faces 5, 6 of 6 -> damaged with one more hit w.p. 1/3, else the ship unchanged
    ship = {"kind": "light", "status": "fit", "hits": 2}
    found = odds(fleet, "update", {"s": ship}, engine=engine)
    damaged = Record("ship", (("kind", "light"), ("status", "damaged"), ("hits", 3)))
    fit = Record("ship", (("kind", "light"), ("status", "fit"), ("hits", 2)))
    assert {(o.fields["ship"], o.fields["same"]): p for o, p in found.outcomes} == {
        (damaged, True): Fraction(1, 3), (fit, False): Fraction(2, 3)}


def test_from_as_and_with_stay_names_for_fields_and_arguments(fleet):
    assert dict(resolve(fleet, "new_words", {}).outcome.fields) == {"from": 1, "as": 2, "with": 3}


def mistakes(write_yaml, body: str, extra: str = TYPES) -> list[tuple[int, int, str]]:
    path = write_yaml(ruleset_text({"casualties": CASUALTIES, "p": procedure(body, inputs="{s: {type: ship}}")}, extra))
    with pytest.raises(RulesetError) as error:
        load_ruleset(path)
    return [(d.line, d.column, d.message) for d in error.value.diagnostics]


def body_line() -> int:
    """The file line of p's body (after the header, the types and casualties): found, not counted by hand."""
    text = ruleset_text({"casualties": CASUALTIES, "p": procedure("outcome o()", inputs="{s: {type: ship}}")}, TYPES)
    return text.splitlines().index("      outcome o()") + 1


def at(body: str, text: str, offset: int = 0) -> int:
    """The file column of ``text`` in a one-line body (indented 6 in the file: index + 7)."""
    return body.index(text) + offset + 7


def test_record_literal_mistakes_are_reported_where_written(write_yaml):
    line = body_line()
    body = ('outcome o(a = ship(status = "fit"), b = ship(kind = "big"), c = ship(kind = "light", hit = 1), d = ship(kind = 1), e = ship(1), '
            'f = ship(kind = "light", hits = -1))')
    assert mistakes(write_yaml, body) == [
        (line, at(body, "ship(status"), "ship(...) is missing field 'kind' (no default in types: ship)"),
        (line, at(body, '"big"'), "'big' is not one of heavy, light"),
        (line, at(body, "hit ="), "record type ship has no field 'hit' (did you mean 'hits'?)"),
        (line, at(body, "kind = 1", 7), "field 'kind' of ship holds enum(heavy, light), not int"),
        (line, at(body, "ship(1)"), "ship(...) is missing field 'kind' (no default in types: ship)"),  # ship(1) names no kind
        (line, at(body, "1), f"), "a record literal names each field: ship(FIELD = value, ...)"),
        (line, at(body, "-1"), "field 'hits' of ship holds a number of at least 0, not -1"),
    ]


def test_with_mistakes_are_reported_where_written(write_yaml):
    line = body_line()
    body = 'outcome o(a = s with {hit = 1}, b = s with {hits = "x"}, c = 3 with {hits = 1}, d = s with {hits = 1, hits = 2})'
    assert mistakes(write_yaml, body) == [
        (line, at(body, "hit ="), "record type ship has no field 'hit' (did you mean 'hits'?)"),
        (line, at(body, '"x"'), "field 'hits' of ship holds int, not str"),
        (line, at(body, "3 with"), "`with {...}` changes the fields of a record, not of int"),
        (line, at(body, "hits = 2"), "field 'hits' given twice in `with {...}`"),
    ]


def test_destructuring_mistakes_are_reported_where_written(write_yaml):
    line = body_line()
    body = ("let {sunk, lost} = resolve casualties()\n"  # lost: outcome none (nor the others) gives it
            "let {kind, hit, kind as k2} = s\n"  # hit: no such field
            "let {sunk as s2, damaged as s2} = resolve casualties()\n"  # s2 twice
            "let {damaged as sunk} = resolve casualties()\n"  # sunk declared on the first line
            "set {nothing} = s\n"  # neither a field of ship nor a variable
            "let {x} = 3\n"
            "outcome o()")
    # casualties' `outcome none` is the 3rd line of its body, which ends 11 lines above p's body
    none_line = line - 10
    assert mistakes(write_yaml, body) == [
        (line, 18, f"outcome none of casualties (line {none_line}) gives no field 'lost': a destructured field must be given by every outcome"),
        (line + 1, 18, "record type ship has no field 'hit' (did you mean 'hits'?)"),
        (line + 2, 24, "'s2' is bound twice in one `{...}`"),  # at the second binding's field (damaged)
        (line + 3, 12, (f"'sunk' is already a variable (declared at line {line}); use `set {{...}} = ...` to change variables, "
                        "or `damaged as NEW_NAME`")),
        (line + 4, 12, "record type ship has no field 'nothing' (fields: kind, status, hits)"),
        (line + 4, 12, "cannot set 'nothing': no variable of that name; declare it with `let {...} = ...`"),
        (line + 5, 12, "`{...} =` takes the fields of a record or an outcome, not of int"),
    ]


def test_the_rulebook_reads_the_new_statements_back():
    from interpreter.errors import Source
    from interpreter.parser import TextOrigin, parse_procedure
    from interpreter.rulebook import steps

    text = ('let {sunk, damaged as d} = resolve casualties()\n'
            'set {sunk} = s with {status = "sunk", hits = 2}\n'
            'outcome from lookup crt(row = 1d6) (lost = sunk) rule "the CRT"\n')
    read = [step.to_plain() for step in steps(parse_procedure(text, TextOrigin(Source("t", text))))]
    assert read == [
        {"kind": "resolve", "name": "{sunk, damaged as d}", "expr": "resolve casualties()", "procedure": "casualties", "line": 1},
        {"kind": "set", "name": "{sunk}", "expr": 's with {status = "sunk", hits = 2}', "line": 2},
        {"kind": "outcome", "name": "from lookup crt(row = 1d6)", "fields": [{"name": "lost", "expr": "sunk"}], "rule": "the CRT", "line": 3},
    ]
