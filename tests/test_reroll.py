"""reroll(roll, faces[, once | until_none]): each die of a roll rolled again on some faces (issue 23, "Language").

Exact odds weight each face by its chance on one re-rolled die (interpreter/pools.py), never as nested rolls;
plays draw the re-roll right after its die.  Every expected value is counted by hand in the comments, and each
case runs on both back ends (engine="compiled" and engine="reference"), which must agree fraction for fraction.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from conftest import procedure

from interpreter import RulesetError, odds, resolve
from interpreter.api import monte_carlo
from interpreter.errors import RuleViolation
from interpreter.pools import (
    reroll_face_weights,
    weighted_pool_distribution,
    weighted_sum_distribution,
)

ENGINES = ("compiled", "reference")

PROCEDURES = {
    "ones_once": procedure("let d = reroll(1d6, [1])\noutcome rolled(face = d)"),
    "ones_explicit_once": procedure("let d = reroll(1d6, [1], once)\noutcome rolled(face = d)"),
    "low_until": procedure("let d = reroll(2d6, [1, 2], until_none)\noutcome rolled(total = d)"),
    "pool_once": procedure("let p = reroll(pool(2, 3), [1], once)\noutcome rolled(high = p[1], low = p[2])"),
    "misses_once": procedure("let h = reroll(successes(n, 6, 5 .. 6), 1 .. 4)\noutcome rolled(hits = h)",
                             inputs="{n: {type: int, min: 0, default: 3}}"),
    "faces_at_run_time": procedure("let d = reroll(dice(1, sides), below, until_none)\noutcome rolled(face = d)",
                                   inputs="{sides: {type: int, default: 4}, below: {type: list, of: int, default: [1, 2, 3]}}"),
    "every_face_once": procedure("let d = reroll(1d4, 1 .. 4)\noutcome rolled(face = d)"),
    "bad_face": procedure("let d = reroll(dice(1, 6), faces)\noutcome rolled(face = d)",
                          inputs="{faces: {type: list, of: int, default: [7]}}"),
    "every_face_until": procedure("let d = reroll(dice(1, 6), faces, until_none)\noutcome rolled(face = d)",
                                  inputs="{faces: {type: list, of: int, default: [1, 2, 3, 4, 5, 6]}}"),
    "in_a_loop": procedure("let hits = 0\nfor i in 1 .. 2 do\n  let d = reroll(1d6, [1])\n  if d >= 5 then\n    set hits = hits + 1\n  end\nend\n"
                           "outcome rolled(hits = hits)"),
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    from conftest import load_in

    return load_in(tmp_path_factory.mktemp("reroll"), PROCEDURES)


def both(rules, name, inputs=None):
    """The exact distribution on both back ends, which must be equal: outcome -> probability, truncated mass."""
    found = []
    for engine in ENGINES:
        distribution = odds(rules, name, inputs, engine=engine)
        found.append((dict(distribution.outcomes), distribution.truncated))
    assert found[0] == found[1]
    return {key: value for key, value in found[0][0].items()}, found[0][1]


def by_field(outcomes: dict, field: str) -> dict:
    return {dict(outcome.fields)[field]: probability for outcome, probability in outcomes.items()}


# ---- exact odds, counted by hand -----------------------------------------------------------------------------------

def test_reroll_ones_once_on_a_d6(rules):
    # a 6 first (1/6), or a 1 first then a 6 (1/6 * 1/6): 1/6 + 1/36 = 7/36; a 1 only twice running: 1/36
    for name in ("ones_once", "ones_explicit_once"):
        faces, truncated = both(rules, name)
        assert by_field(faces, "face") == {1: F(1, 36), 2: F(7, 36), 3: F(7, 36), 4: F(7, 36), 5: F(7, 36), 6: F(7, 36)}
        assert truncated == 0


def test_reroll_until_none_is_uniform_on_the_other_faces_exactly(rules):
    # each die: 1 and 2 rolled again until another face shows: 1/6 (1 + 1/3 + 1/9 + ...) = 1/6 * 3/2 = 1/4 for 3..6.
    # Two such dice: totals 6..12 with 1, 2, 3, 4, 3, 2, 1 ways of 16 (3+3, 3+4 4+3, ...); nothing truncated
    totals, truncated = both(rules, "low_until")
    assert by_field(totals, "total") == {6: F(1, 16), 7: F(2, 16), 8: F(3, 16), 9: F(4, 16), 10: F(3, 16), 11: F(2, 16), 12: F(1, 16)}
    assert truncated == 0


def test_reroll_a_pool(rules):
    # one d3 re-rolled once on 1: a 1 is 1/3 * 1/3 = 1/9, a 2 or a 3 is 1/3 + 1/9 = 4/9.  Two dice, kept highest first:
    # (3, 2): two orders, 2 * 4/9 * 4/9 = 32/81; (3, 3) and (2, 2): 16/81; (3, 1) and (2, 1): 2 * 4/9 * 1/9 = 8/81;
    # (1, 1): 1/81.  Total 32 + 16 + 16 + 8 + 8 + 1 = 81
    pools, _ = both(rules, "pool_once")
    found = {(dict(o.fields)["high"], dict(o.fields)["low"]): p for o, p in pools.items()}
    assert found == {(3, 2): F(32, 81), (3, 3): F(16, 81), (2, 2): F(16, 81), (3, 1): F(8, 81), (2, 1): F(8, 81), (1, 1): F(1, 81)}


def test_successes_with_misses_rerolled_once(rules):
    # a hit is 5 or 6: 2/6 at once, or a miss (4/6) then a hit (2/6): 1/3 + 2/9 = 5/9; a miss 4/9.
    # Three dice: 0 hits (4/9)^3 = 64/729, 1 hit 3 * 5 * 16 / 729 = 240/729, 2 hits 3 * 25 * 4 / 729 = 300/729, 3 hits 125/729
    hits, _ = both(rules, "misses_once")
    assert by_field(hits, "hits") == {0: F(64, 729), 1: F(240, 729), 2: F(300, 729), 3: F(125, 729)}
    # no dice: no hits, certainly
    assert by_field(both(rules, "misses_once", {"n": 0})[0], "hits") == {0: F(1)}


def test_dice_and_faces_known_only_at_run_time(rules):
    # a d4 rolled until it shows neither 1, 2 nor 3: always 4
    assert by_field(both(rules, "faces_at_run_time")[0], "face") == {4: F(1)}
    # a d5 re-rolled on 1: 2..5 each 1/4
    faces = by_field(both(rules, "faces_at_run_time", {"sides": 5, "below": [1]})[0], "face")
    assert faces == {2: F(1, 4), 3: F(1, 4), 4: F(1, 4), 5: F(1, 4)}


def test_every_face_rerolled_once_is_a_fresh_roll(rules):
    # every face rolled again, once: the second roll stands, uniform: 1/4 each
    assert by_field(both(rules, "every_face_once")[0], "face") == {1: F(1, 4), 2: F(1, 4), 3: F(1, 4), 4: F(1, 4)}


def test_a_reroll_in_a_loop(rules):
    # each round: a 5 or 6 is 2/6 + 1/6 * 2/6 = 14/36 = 7/18 (the re-rolled 1 may come up 5 or 6); two rounds:
    # 0 hits (11/18)^2 = 121/324, 1 hit 2 * 7 * 11 / 324 = 154/324, 2 hits 49/324
    assert by_field(both(rules, "in_a_loop")[0], "hits") == {0: F(121, 324), 1: F(154, 324), 2: F(49, 324)}


# ---- errors -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "fragment"), [
    ("bad_face", "reroll() re-rolls face 7, but the dice have faces 1 to 6"),
    ("every_face_until", "reroll() re-rolls every face of a d6: no roll would ever stand"),
])
def test_faces_known_at_run_time_are_checked_at_the_call(rules, name, fragment):
    for engine in ENGINES:
        with pytest.raises(RuleViolation) as info:
            odds(rules, name, engine=engine)
        (diagnostic,) = info.value.diagnostics
        assert fragment in diagnostic.message
        # conftest: the first body line is line 11, its text from column 7; `let d = ` is 8 characters
        assert (diagnostic.line, diagnostic.column) == (PROCEDURE_LINE[name], 15)
        with pytest.raises(RuleViolation):
            resolve(rules, name, seed=3, engine=engine)


# each procedure of PROCEDURES takes its own lines: the file's line of the body's first line, for the errors above
PROCEDURE_LINE: dict[str, int] = {}


def _body_lines() -> None:
    line = 7  # conftest.ruleset_text: five header lines, then "procedures:" on line 6
    for name, spec in PROCEDURES.items():
        line += 1  # the procedure's name
        for number, text in enumerate(spec.splitlines(), 1):
            if text == "body: |":
                PROCEDURE_LINE[name] = line + number
        line += len(spec.splitlines())


_body_lines()


@pytest.mark.parametrize(("body", "fragment", "column"), [
    # columns: the body's text starts at column 7; `let d = reroll(` is 15 characters
    ("let d = reroll(3, [1])", "its first argument is a roll", 22),
    ("let d = reroll(1d6, [1], twice)", "`once` (the default) or `until_none`", 32),
    ("let d = reroll(1d6, [7])", "reroll() re-rolls face 7, but the dice have faces 1 to 6", 27),
    ("let d = reroll(1d6, 1 .. 6, until_none)", "re-rolls every face of a d6", 27),
    ("let d = reroll(1d6)", "takes two or three arguments", 15),
    ('let d = reroll(1d6, ["1"])', "reroll", 27),
    ("let d = reroll(1d6, [1d6])", "the faces to roll again cannot themselves be rolled", 28),
    # `let d = if true then ` is 21 characters
    ("let d = if true then reroll(1d6, [1]) else 0", "dice cannot be rolled here", 28),
])
def test_a_misused_reroll_is_refused_at_load(make_ruleset, body, fragment, column):
    with pytest.raises(RulesetError) as info:
        make_ruleset({"p": procedure(body + "\noutcome done")})
    diagnostics = info.value.diagnostics
    assert any(fragment in d.message and d.column == column for d in diagnostics), [(d.column, d.message) for d in diagnostics]


# ---- plays and sampling ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_a_scripted_play_reads_a_die_and_then_its_reroll(rules, engine):
    # 2d6 re-rolled on 1 and 2 until neither shows: 1 (again), 2 (again), 5 | 6: total 11, five dice read
    play = resolve(rules, "low_until", dice=[1, 2, 5, 6], engine=engine)
    assert dict(play.outcome.fields)["total"] == 11
    # once: a 1 is rolled again and the second die stands, even a 1: 1 then 1 is a 1
    assert dict(resolve(rules, "ones_once", dice=[1, 1], engine=engine).outcome.fields)["face"] == 1
    assert dict(resolve(rules, "ones_once", dice=[1, 4], engine=engine).outcome.fields)["face"] == 4
    assert dict(resolve(rules, "ones_once", dice=[3], engine=engine).outcome.fields)["face"] == 3
    # a pool of successes: dice 6 | 2 -> 5 | 1 -> 1 (misses rolled again once): hits 6 and 5, 2
    assert dict(resolve(rules, "misses_once", dice=[6, 2, 5, 1, 1], engine=engine).outcome.fields)["hits"] == 2


def test_both_back_ends_sample_the_same_counts_from_one_seed(rules):
    for name in ("ones_once", "low_until", "pool_once", "misses_once"):
        counts = [monte_carlo(rules, name, None, trials=300, seed=7, engine=engine).counts for engine in ENGINES]
        assert counts[0] == counts[1]


def test_sampling_agrees_with_the_exact_odds(rules):
    # 20,000 plays of a d6 re-rolling 1s once: P(1) = 1/36, about 556 plays with a standard error of about 23;
    # a seeded run is fixed, so this cannot flake: the bound is 5 standard errors
    counts = monte_carlo(rules, "ones_once", None, trials=20_000, seed=11).counts
    ones = sum(n for outcome, n in dict(counts).items() if dict(outcome.fields)["face"] == 1)
    assert abs(ones - 20_000 / 36) < 5 * 23


def test_until_none_in_a_play_draws_until_another_face_shows(make_ruleset):
    # a d1000 rolled again on 999 faces: about 1,000 draws a die (each draw a step toward a look at the clock, so the
    # timeout bounds a play), and every die ends on 1000: 50 dice total 50,000, in a play as in exact odds
    rules = make_ruleset({"p": procedure("let d = reroll(50d1000, 1 .. 999, until_none)\noutcome done(d = d)")})
    for engine in ENGINES:
        assert dict(resolve(rules, "p", seed=1, engine=engine).outcome.fields)["d"] == 50_000
        assert odds(rules, "p", engine=engine).probability("done", d=50_000) == F(1)


# ---- the weights themselves -----------------------------------------------------------------------------------------

def test_face_weights():
    # once, a d6 re-rolled on 1: kept faces 6 + 1 = 7, the 1 itself 1, out of 36 (5 * 7 + 1 = 36)
    assert reroll_face_weights(6, frozenset({1}), True) == ((1, 7, 7, 7, 7, 7), 36)
    # until none: 1 a kept face, out of the 4 kept faces
    assert reroll_face_weights(6, frozenset({1, 2}), False) == ((0, 0, 1, 1, 1, 1), 4)


def test_weighted_distributions_against_enumeration():
    import itertools

    weights = (1, 7, 7, 7, 7, 7)
    for count in range(4):
        expected_sum: dict[int, int] = {}
        expected_pool: dict[tuple, int] = {}
        for faces in itertools.product(range(1, 7), repeat=count):
            ways = 1
            for face in faces:
                ways *= weights[face - 1]
            expected_sum[sum(faces)] = expected_sum.get(sum(faces), 0) + ways
            key = tuple(sorted(faces, reverse=True))
            expected_pool[key] = expected_pool.get(key, 0) + ways
        assert weighted_sum_distribution(count, weights) == expected_sum
        assert weighted_pool_distribution(count, weights) == expected_pool


def test_a_player_aid_reads_a_reroll_as_a_roll(rules):
    from interpreter.rulebook import steps

    (first, _) = steps(rules.procedures["ones_once"].body)
    assert (first.kind, first.parts["name"], first.parts["expr"]) == ("roll", "d", "reroll(1d6, [1])")


def test_the_die_by_die_sum_agrees_with_the_packed_power_and_costs_a_unit_a_face(monkeypatch):
    from interpreter import pools

    weights = (1, 7, 7, 7, 7, 7)  # a d6 re-rolling 1s once
    packed = weighted_sum_distribution(5, weights)
    assert pools.weighted_sum_work(5, weights, 100) == 100  # fits one integer power: the plain roll's work
    monkeypatch.setattr(pools, "PACKED_BITS", 0)  # no polynomial fits: die by die
    ticks = []
    assert weighted_sum_distribution(5, weights, lambda: ticks.append(1)) == packed
    assert len(ticks) == 5  # the clock looked at after each die
    assert pools.weighted_sum_work(5, weights, 100) == 600  # six faces can show: six units for each of the plain roll's
    assert pools.weighted_sum_work(5, reroll_face_weights(6, frozenset({1, 2}), False)[0], 100) == 400  # four can
