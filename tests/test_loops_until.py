"""`while` without `limit`: loops solved exactly as Markov chains (chains.py), in both engines.

Every expected value is derived by hand in a comment.  Each case runs on the
compiled engine and on the reference evaluator, which must agree exactly.
"""

from __future__ import annotations

import subprocess
from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text
from test_cli import installed_wartable

from interpreter import chains, load_ruleset, odds, resolve
from interpreter.errors import RuleViolation
from interpreter.limits import (
    LimitExceeded,
    Limits,
)

ENGINES = ("compiled", "reference")

DUEL = procedure("""
    let a_afloat = true
    let b_afloat = true
    let a_to_fire = true
    while a_afloat and b_afloat do
      let shot = 1d6
      if shot == 6 then
        if a_to_fire then
          set b_afloat = false
        else
          set a_afloat = false
        end
      end
      set a_to_fire = not a_to_fire
    end
    if a_afloat then
      outcome a_wins
    end
    outcome b_wins
""")

WALK = procedure("""
    let at = start
    while at > 0 and at < 3 do
      let step = 1d2
      if step == 1 then
        set at = at - 1
      else
        set at = at + 1
      end
    end
    outcome ended(at = at)
""", inputs="{start: {type: int}}")

UNTIL_NOT_ONE = procedure("""
    let face = 1
    while face == 1 do
      set face = 1d6
    end
    outcome rolled(face = face)
""")

NEVER_ENDS = procedure("""
    let x = 1
    while x > 0 do
      let r = 1d6
      if r == 6 then
        set x = 2
      else
        set x = 1
      end
    end
    outcome never
""")

SOMETIMES_STUCK = procedure("""
    let x = 1d2
    while x > 0 do
      if x == 1 then
        set x = 0
      end
    end
    outcome ok
""")

BOUNDED = procedure("""
    let hit = false
    while not hit limit 2 do
      let r = 1d6
      if r == 6 then
        set hit = true
      end
    end
    outcome done(hit = hit)
""")

BREAK_OUT = procedure("""
    let hits = 0
    while hits < 2 do
      let r = 1d6
      if r == 1 then
        break
      end
      if r == 6 then
        set hits = hits + 1
      end
    end
    outcome stopped(hits = hits)
""")


@pytest.fixture
def rules(write_yaml):
    path = write_yaml(ruleset_text({
        "duel": DUEL, "walk": WALK, "until_not_one": UNTIL_NOT_ONE, "never_ends": NEVER_ENDS,
        "sometimes_stuck": SOMETIMES_STUCK, "bounded": BOUNDED, "break_out": BREAK_OUT,
    }))
    return path, load_ruleset(path)


def exact(ruleset, name, inputs=None, engine="compiled", limits=None):
    distribution = odds(ruleset, name, inputs or {}, engine=engine, limits=limits)
    return {(o.name, o.fields): p for o, p in distribution.outcomes}, distribution.truncated


@pytest.mark.parametrize("engine", ENGINES)
def test_duel_to_the_finish(rules, engine):
    # A fires first, then B, each sinking the other on a 6.  A wins in A's turn of round k with
    # (5/6)^(2(k-1)) * 1/6; summed: (1/6) / (1 - (5/6)^2) = (1/6) / (11/36) = 6/11.  B wins 5/11.
    outcomes, truncated = exact(rules[1], "duel", engine=engine)
    assert outcomes == {("a_wins", ()): Fraction(6, 11), ("b_wins", ()): Fraction(5, 11)}
    assert truncated == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_states_that_cycle_are_solved_exactly(rules, engine):
    # A fair walk on 0..3, absorbed at 0 and 3: states 1 and 2 reach each other (a cycle).
    # p1 = 1/2 p2, p2 = 1/2 + 1/2 p1 (p = chance of reaching 3)  ->  p1 = 1/4 + 1/4 p1  ->  p1 = 1/3, p2 = 2/3.
    outcomes, truncated = exact(rules[1], "walk", {"start": 1}, engine=engine)
    assert outcomes == {("ended", (("at", 0),)): Fraction(2, 3), ("ended", (("at", 3),)): Fraction(1, 3)}
    assert truncated == 0
    outcomes, _ = exact(rules[1], "walk", {"start": 2}, engine=engine)
    assert outcomes[("ended", (("at", 3),))] == Fraction(2, 3)
    # starting outside the walk, the loop never runs
    outcomes, _ = exact(rules[1], "walk", {"start": 3}, engine=engine)
    assert outcomes == {("ended", (("at", 3),)): 1}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_round_that_changes_nothing_is_a_geometric_series(rules, engine):
    # Reroll 1s: the state face=1 stays with 1/6 each round; the rest spreads over 2..6 scaled by
    # 1/(1 - 1/6): each face (1/6)/(5/6) = 1/5.
    outcomes, truncated = exact(rules[1], "until_not_one", engine=engine)
    assert outcomes == {("rolled", (("face", f),)): Fraction(1, 5) for f in range(2, 7)}
    assert truncated == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_break_leaves_a_loop_without_limit(rules, engine):
    # Each round: 1 -> break (1/6), 6 -> a hit (1/6), else nothing (4/6).  Per round that changes
    # something: break 1/2, hit 1/2.  hits 0: break first, 1/2; hits 1: hit then break, 1/4;
    # hits 2: two hits, 1/4.
    outcomes, truncated = exact(rules[1], "break_out", engine=engine)
    assert outcomes == {
        ("stopped", (("hits", 0),)): Fraction(1, 2),
        ("stopped", (("hits", 1),)): Fraction(1, 4),
        ("stopped", (("hits", 2),)): Fraction(1, 4),
    }
    assert truncated == 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, line", [("never_ends", 3), ("sometimes_stuck", 2)])
def test_a_loop_that_can_never_end_is_an_error_at_its_line(rules, engine, name, line):
    # never_ends: x is 1 or 2 forever (x > 0 always).  sometimes_stuck: with x = 2 nothing changes.
    path, ruleset = rules
    with pytest.raises(RuleViolation) as caught:
        odds(ruleset, name, {}, engine=engine)
    diagnostic = caught.value.diagnostics[0]
    assert "can never end" in diagnostic.message
    assert "x = 2" in diagnostic.message  # the state it is stuck in
    text = path.read_text().splitlines()
    assert text[diagnostic.line - 1].strip().startswith("while x > 0")
    assert text.index(next(t for t in text if t.strip() == f"{name}:")) < diagnostic.line - 1


@pytest.mark.parametrize("engine", ENGINES)
def test_limit_keeps_its_meaning(rules, engine):
    # At most 2 rounds: a hit in round 1 (1/6) or round 2 (5/6 * 1/6 = 5/36): 11/36;
    # still looping after 2 rounds: (5/6)^2 = 25/36, reported as truncated.
    outcomes, truncated = exact(rules[1], "bounded", engine=engine)
    assert outcomes == {("done", (("hit", True),)): Fraction(11, 36)}
    assert truncated == Fraction(25, 36)


def test_large_cycles_are_iterated_and_the_remainder_truncated(rules, monkeypatch):
    # With exact solving capped below the walk's 2 cycling states, the mass goes round the cycle
    # until at most 2**-64 of it is left.  Each sweep keeps half the cycling mass (1 -> 2 and 2 -> 1
    # each with 1/2), so after 64 sweeps exactly 2**-64 is left: truncated, and the answer is 1/3
    # to within it.
    monkeypatch.setattr(chains, "MAX_EXACT_CYCLE", 1)
    for engine in ENGINES:
        outcomes, truncated = exact(rules[1], "walk", {"start": 1}, engine=engine)
        reached = outcomes[("ended", (("at", 3),))]
        assert truncated == Fraction(1, 2**64)
        assert abs(reached - Fraction(1, 3)) < Fraction(1, 2**64)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_state_budget_bounds_the_states_a_loop_reaches(write_yaml, engine):
    # A walk that only climbs reaches a new state every round: more states than allowed is a limit error.
    path = write_yaml(ruleset_text({"climb": procedure("""
        let x = 0
        while x < 1000 do
          set x = x + 1d2
        end
        outcome top
    """)}))
    with pytest.raises(LimitExceeded) as caught:
        odds(load_ruleset(path), "climb", {}, engine=engine, limits=Limits(max_states=50))
    assert "states" in caught.value.diagnostics[0].message


@pytest.mark.parametrize("engine", ENGINES)
def test_a_single_play_runs_until_the_condition_fails(rules, engine):
    # Scripted shots: A rolls 1 (miss), B rolls 6 (A sinks): B wins.
    resolution = resolve(rules[1], "duel", {}, dice=[1, 6], engine=engine)
    assert resolution.outcome.name == "b_wins"
    # A play of a loop that never ends is stopped by the work budget.
    with pytest.raises(LimitExceeded):
        resolve(rules[1], "never_ends", {}, seed=1, engine=engine, limits=Limits(max_work=20_000))


def test_the_command_line_gives_the_fight_to_the_finish(rules, tmp_path):
    path, _ = rules
    script = installed_wartable()

    def wartable(*argv):
        return subprocess.run([str(script), *argv], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=60)

    result = wartable("odds", str(path), "duel", "--json")
    assert result.returncode == 0, result.stderr
    assert '"6/11"' in result.stdout and '"5/11"' in result.stdout
    stuck = wartable("odds", str(path), "never_ends")
    assert stuck.returncode == 1
    assert "can never end" in stuck.stderr and "Traceback" not in stuck.stderr
    assert stuck.stderr.splitlines()[-1].strip() == "^"
