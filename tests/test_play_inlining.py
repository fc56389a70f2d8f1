"""Tenth round (issue 24): a small resolved procedure written into its caller's play function (engine/inline.py).

The inlined form must play exactly as the called form and as the reference evaluator: the same counts for a seed,
the same work and clock charges, and every error (a work breach, an overflow, a die past ``max_faces``, a call
too deep) at the same ruleset position with the same message.  The called form is the same
ruleset compiled with inlining off (``MAX_INLINE_NODES = 0``).
"""

from __future__ import annotations

import re

import pytest
from conftest import procedure

from interpreter import resolve
from interpreter.api import monte_carlo
from interpreter.engine import inline, procedure_source
from interpreter.limits import CALL_WORK, Budget, LimitExceeded, Limits

CALLER = """
let hits = 0
let by = 0
for k in 1 .. n do
  let s = resolve shoot(kind = kinds[k], bonus = k - 2)
  if s.outcome == "hit" then
    set hits = hits + 1
    set by = by + s.by
  end
end
outcome done(hits = hits, by = by)
"""
CALLER_INPUTS = '{n: {type: int, default: 6}, kinds: {type: list, of: str, default: [a, b, a, b, a, b]}}'

# a while loop with its own limit, a require, arithmetic, an enumeration input, outcomes only at the end
SHOOT = """
let total = 1d6 + bonus
let again = total >= 6
while again limit 10 do
  let extra = 1d6
  set total = total * scale + extra
  set again = extra == 6
end
require total < 60, "no shot scores 60"
if total >= 8 then
  outcome hit(by = total - 7)
elif kind == "a" and total >= 6 then
  outcome hit(by = 0)
else
  outcome miss
end
"""
SHOOT_INPUTS = '{kind: {type: enum, values: [a, b]}, bonus: {type: int, default: 0}, scale: {type: int, default: 1}}'


def written(ruleset, name: str = "p") -> str:
    """Procedure ``name``'s play code, with the ruleset's own code of every procedure written now, as it is.
    ``procedure_source`` writes a copy into a module of its own: a ruleset whose code is first written when it runs
    would be written with whatever MAX_INLINE_NODES a later fixture or line sets (the inlined form run as the called
    form, and compared with itself)."""
    for each in ruleset.compiled:
        ruleset.program(each).source  # noqa: B018 - written now, and kept by the ruleset
    return procedure_source(ruleset, name, "play")  # a copy written now: the same as the ruleset's own


def ruleset_of(make_ruleset, shoot: str = SHOOT, caller: str = CALLER, title: str = "test procedure"):
    return make_ruleset({"p": procedure(caller, inputs=CALLER_INPUTS, title=title),
                         "shoot": procedure(shoot, inputs=SHOOT_INPUTS)})


def plays(ruleset, engine: str = "compiled", seeds: range = range(60)) -> list:
    """The outcome of one play for each seed.  Monte Carlo does not reach the code written in place: a sampled
    procedure's trials call what it resolves (engine.sample); a single play runs its play function, which does."""
    return [resolve(ruleset, "p", seed=seed, trace=False, engine=engine).outcome for seed in seeds]


def agreeing_counts(inlined, called, *, trials: int, seed: int) -> tuple:
    """The counts of ``trials`` plays of p, asserted equal for the inlined form, the called form and the evaluator
    (and so the single plays of 60 seeds: Monte Carlo's trials call what they resolve, so only those run code written in
    place)."""
    counts = [monte_carlo(ruleset, "p", trials=trials, seed=seed, engine=engine).counts
              for ruleset, engine in ((inlined, "compiled"), (called, "compiled"), (inlined, "reference"))]
    assert counts[0] == counts[1] == counts[2]
    assert plays(inlined) == plays(called) == plays(inlined, "reference")
    return counts[0]


@pytest.fixture
def inlined(make_ruleset):
    ruleset = ruleset_of(make_ruleset)
    assert "written in place" in written(ruleset)  # written now, before `called` turns inlining off
    return ruleset


@pytest.fixture
def called(make_ruleset, monkeypatch):
    """The same procedures (another title: another file and ruleset) with no callee small enough to inline."""
    monkeypatch.setattr(inline, "MAX_INLINE_NODES", 0)
    ruleset = ruleset_of(make_ruleset, title="the called form")
    assert "written in place" not in written(ruleset)  # written now, while inlining is off
    return ruleset


def test_the_callee_is_written_in_place_with_the_calls_charge_and_depth_test(make_ruleset, monkeypatch):
    play = procedure_source(ruleset_of(make_ruleset), "p", "play")
    assert "# resolve 'shoot' written in place" in play and "PLAYSP" not in play
    # the call's charge as a call makes it, then the callee's depth test (depth + 1 > max_call_depth) at its body
    assert "BUD.work += 16; BUD.charges += 1" in play
    assert "DEEPOK = depth < rt.limits.max_call_depth" in play and "if not DEEPOK: TOODEEP(rt, p" in play
    # the callee's slots, inputs and work counter renamed into the caller's function; the outcome is assigned
    assert re.search(r"\bil\d+w = 0\n", play) and re.search(r"\bil\d+v0 = ", play) and "return 0" not in play
    # shoot's outcomes as its own play numbers them: hit(by) 0, miss 1; the caller reads s.by from the key
    assert re.search(r"\bv5 = \(0, \(t\d+ if LO <= ", play) and "v5 = (0, 0)\n" in play and "v5 = 1\n" in play
    assert "if not (il" in play and "< 60): VIOL(p" in play  # the require, at its own position
    # exact odds are written as before (calls, not code in place)
    assert "written in place" not in procedure_source(ruleset_of(make_ruleset), "p", "exact")
    monkeypatch.setattr(inline, "MAX_INLINE_NODES", 0)
    called = procedure_source(ruleset_of(make_ruleset, title="the called form"), "p", "play")
    assert "v5 = PLAYSP['shoot'](rt, R, depth + 1, " in called and "written in place" not in called


@pytest.mark.parametrize("seed", [1, 7])
def test_the_inlined_and_called_forms_count_alike_and_as_the_evaluator(inlined, called, seed):
    counts = agreeing_counts(inlined, called, trials=400, seed=seed)
    # six shots a play: hits at most 6; a hit by more than 0 needs a total of 8 or more
    assert all(0 <= outcome.get("hits") <= 6 for outcome, _ in counts)
    assert sum(n for _, n in counts) == 400


def test_the_inlined_form_charges_the_work_and_the_clocks_calls_alike(inlined, called):
    def spent(ruleset):
        budget = Budget(Limits(max_work=None, timeout=None))
        resolve(ruleset, "p", seed=5, trace=False, budget=budget)
        return budget.work, budget.charges

    # the same dice, the same statements and six calls charged CALL_WORK (16) and one charge each, in both forms
    assert spent(inlined) == spent(called)
    assert spent(inlined)[0] >= 6 * CALL_WORK


def refusal(ruleset, engine, error=LimitExceeded, **kwargs):
    with pytest.raises(error) as caught:
        resolve(ruleset, "p", seed=3, engine=engine, trace=False, **kwargs)
    return str(caught.value)


def forms(make_ruleset, monkeypatch, shoot: str):
    """The inlined and the called form of CALLER with ``shoot`` as the callee."""
    inlined = ruleset_of(make_ruleset, shoot=shoot)
    assert "written in place" in written(inlined)
    monkeypatch.setattr(inline, "MAX_INLINE_NODES", 0)
    called = ruleset_of(make_ruleset, shoot=shoot, title="the called form")
    assert "written in place" not in written(called)
    return inlined, called


def test_a_work_breach_at_a_big_roll_inside_an_inlined_callee_is_reported_alike(make_ruleset, monkeypatch):
    # compiled: each call charges CALL_WORK (16), then 300 dice at a unit each, past the work chunk (1,000 // 4) and
    # reported at once: 316 a call (the caller's loop is charged after it), past 1,000 in the fourth call (4 x 316),
    # at the roll.  The evaluator charges each statement too (372 a call): past 1,000 in the third, at the same roll
    inlined, called = forms(make_ruleset, monkeypatch, "let total = 300d6 + bonus\noutcome hit(by = total)\n")
    refused = [refusal(inlined, "compiled", limits=Limits(max_work=1000)), refusal(called, "compiled", limits=Limits(max_work=1000)),
               refusal(inlined, "reference", limits=Limits(max_work=1000))]
    assert refused[0] == refused[2] and "more than 1,000 units of work" in refused[0]
    assert refused[1] == refused[0].replace("ruleset_1.yaml", "ruleset_2.yaml")  # the called form's file
    assert "let total = 300d6 + bonus" in refused[0]  # shoot's roll, line 1 of its body


def test_a_work_breach_in_an_inlined_callees_loop_is_reported_as_the_call_reported_it(make_ruleset, monkeypatch):
    # shoot's loop of 500 rounds charges its own counter, reported past the work chunk (250) at the loop, and passes
    # max_work in the first call: at shoot's `while` in both compiled forms.  The evaluator charges each statement
    # and reports the same breach at the statement inside the loop (plays did so before this round too)
    looping = "let total = bonus\nwhile total < 1000 do\n  set total = total + 2\nend\noutcome hit(by = total)\n"
    inlined, called = forms(make_ruleset, monkeypatch, looping)
    compiled = refusal(inlined, "compiled", limits=Limits(max_work=1000))
    assert compiled.replace("ruleset_1.yaml", "ruleset_2.yaml") == refusal(called, "compiled", limits=Limits(max_work=1000))
    assert "while total < 1000 do" in compiled and "more than 1,000 units of work" in compiled
    reference = refusal(inlined, "reference", limits=Limits(max_work=1000))
    assert reference.split(": ", 1)[1].splitlines()[0] == compiled.split(": ", 1)[1].splitlines()[0]


def test_an_overflow_inside_an_inlined_callee_is_reported_alike(make_ruleset):
    # scale 2^20 on a roll-on: 6 * 2^20 + a die passes 2^22 - 1 (max_int_bits = 22) at shoot's `set total`
    ruleset = ruleset_of(make_ruleset, caller=CALLER.replace("bonus = k - 2", "bonus = 6, scale = 1048576"))
    assert "written in place" in procedure_source(ruleset, "p", "play")
    compiled, reference = (refusal(ruleset, engine, limits=Limits(max_int_bits=22)) for engine in ("compiled", "reference"))
    assert compiled == reference and "set total = total * scale + extra" in compiled


def test_a_die_past_max_faces_inside_an_inlined_callee_is_refused_alike(inlined):
    compiled, reference = (refusal(inlined, engine, limits=Limits(max_faces=4)) for engine in ("compiled", "reference"))
    # shoot's first roll (its body's line 1), refused in the first call
    assert compiled == reference and "max_faces" in compiled and "let total = 1d6 + bonus" in compiled


def test_a_call_too_deep_into_an_inlined_callee_is_refused_alike(make_ruleset):
    # p (depth 0) calls middle (depth 1, not inlined: an outcome inside its loop), which calls shoot inline (depth 2 > 1)
    middle = ('let made = list(k for k in 1 .. 2)\nfor j in made do\n  let s = resolve shoot(kind = kind, bonus = j)\n'
              '  outcome seen(out = s.outcome)\nend\noutcome seen(out = "none")\n')
    top = 'let m = resolve middle(kind = which)\noutcome done(out = m.out)\n'
    ruleset = make_ruleset({"p": procedure(top, inputs='{which: {type: str, default: "a"}}'),
                            "middle": procedure(middle, inputs='{kind: {type: str}}'),
                            "shoot": procedure(SHOOT, inputs=SHOOT_INPUTS)})
    play = procedure_source(ruleset, "middle", "play")
    assert "written in place" in play and "written in place" not in procedure_source(ruleset, "p", "play")
    deep = [refusal(ruleset, engine, limits=Limits(max_call_depth=1)) for engine in ("compiled", "reference")]
    # the callee's depth test, at shoot's body (its first line), as its play function's prelude tested it
    assert deep[0] == deep[1] and "max_call_depth" in deep[0] and "let total = 1d6 + bonus" in deep[0]


@pytest.mark.parametrize(("name", "body"), [
    ("an outcome inside a loop", "for j in 1 .. 2 do\n  if kind == \"a\" then\n    outcome miss\n  end\nend\noutcome hit(by = 1)\n"),
    ("statements after an if whose every path ends", ("if kind == \"a\" then\n  outcome miss\nelse\n  outcome hit(by = 2)\nend\n"
                                                      "outcome hit(by = 1)\n")),
    ("an outcome before a branch that goes on", "if kind == \"a\" then\n  outcome miss\nelse\n  let x = 1\nend\noutcome hit(by = 1)\n"),
    ("too many nodes", "let x = " + " + ".join(["bonus"] * 100) + "\noutcome hit(by = x)\n"),
])
def test_a_callee_not_eligible_keeps_the_call(make_ruleset, name, body):
    ruleset = make_ruleset({"p": procedure(CALLER, inputs=CALLER_INPUTS), "shoot": procedure(body, inputs=SHOOT_INPUTS)})
    play = procedure_source(ruleset, "p", "play")
    assert "PLAYSP['shoot'](rt, R, depth + 1, " in play and "written in place" not in play, name
    counts = [monte_carlo(ruleset, "p", trials=60, seed=2, engine=engine).counts for engine in ("compiled", "reference")]
    assert counts[0] == counts[1]


@pytest.mark.parametrize(("name", "body"), [
    ("a list and an aggregate", "let xs = list(k for k in 1 .. 3 if k != bonus)\noutcome hit(by = count(xs) + sum(x for x in xs))\n"),
    ("an outcome in a guard", ("let d = 1d6\nif kind == \"a\" and d > 4 then\n  outcome miss\nelif d == 1 then\n  outcome hit(by = 9)\nend\n"
                              "outcome hit(by = d + bonus)\n")),
    ("a call of its own", "let s = resolve other(x = bonus)\nif s.x > 3 then\n  outcome hit(by = s.x)\nend\noutcome miss\n"),
])
def test_a_callee_with_lists_guards_or_calls_is_written_in_place_and_plays_alike(make_ruleset, monkeypatch, name, body):
    procedures = {"shoot": procedure(body, inputs=SHOOT_INPUTS), "other": procedure("outcome v(x = 1d6 + x)", inputs="{x: {type: int}}")}
    inlined = make_ruleset({"p": procedure(CALLER, inputs=CALLER_INPUTS), **procedures})
    play = written(inlined)
    assert "written in place" in play and "PLAYSP['shoot']" not in play, name
    if name == "a call of its own":  # called one level below shoot: (depth + 1) + 1
        assert "PLAYSP['other'](rt, R, (depth + 1) + 1, " in play
    if name == "a list and an aggregate":  # shoot's own count of the values it makes, spent where its outcome is set
        assert re.search(r"\bil\d+u = 0\n", play) and re.search(r"if il\d+u: BUD.charge_items\(il\d+u, p\d+\)", play)
    monkeypatch.setattr(inline, "MAX_INLINE_NODES", 0)
    called = make_ruleset({"p": procedure(CALLER, inputs=CALLER_INPUTS, title="the called form"), **procedures})
    assert "written in place" not in written(called)
    agreeing_counts(inlined, called, trials=200, seed=4)

    def spent(ruleset):
        budget = Budget(Limits(max_work=None, timeout=None))
        resolve(ruleset, "p", seed=5, trace=False, budget=budget)
        return budget.work, budget.charges

    assert spent(inlined) == spent(called)


def test_strings_that_look_like_the_renamed_locals_are_left_alone(make_ruleset, monkeypatch):
    # the callee's texts (an enumeration's values, a require's message with both quotes and a backslash) name the
    # locals renamed in place (v1, i0, w, u, depth): only code is renamed, so both forms and the evaluator agree
    body = ('let d = 1d6\nrequire d < 7 or kind == "w", "v1 \'i0\' \\"w\\" u \\\\ depth"\n'
            'if kind == "v1" and d > 3 then\n  outcome hit(by = d)\nend\noutcome miss\n')
    inputs = '{kind: {type: enum, values: [v1, w, depth]}, bonus: {type: int, default: 0}}'
    kinds = '{n: {type: int, default: 3}, kinds: {type: list, of: str, default: [v1, w, depth]}}'
    procedures = {"shoot": procedure(body, inputs=inputs)}
    inlined = make_ruleset({"p": procedure(CALLER, inputs=kinds), **procedures})
    play = written(inlined)
    assert "written in place" in play and "'v1 \\'i0\\' \"w\" u \\\\ depth'" in play and "il" not in play.split("VIOL(")[1].split(")")[0]
    monkeypatch.setattr(inline, "MAX_INLINE_NODES", 0)
    called = make_ruleset({"p": procedure(CALLER, inputs=kinds, title="the called form"), **procedures})
    assert "written in place" not in written(called)
    counts = agreeing_counts(inlined, called, trials=200, seed=6)
    # a hit only for "v1" (one of three shots) on 4, 5 or 6: some plays hit, none more than once
    assert all(outcome.get("hits") <= 1 for outcome, _ in counts) and any(outcome.get("hits") for outcome, _ in counts)



# A guard whose condition walks a list (LOCAL_WORK) and a path that goes on past it: the callee's play function checks
# the local counter after the `if` (PlayWriter.statement), on the path past it only; written in place, the statements
# after the guard are its `else`, which must check it there too (s11: the inlined form reported such a breach at the
# outcome after the guard, the called form at the check after the `if`, for some budgets here).
GUARDED = """
if all(s.str > 0 for s in ships) then
  outcome hit(by = sum(count(s for s in c) for c in columns))
end
outcome miss(by = count(ships))
"""
GUARDED_CALLER = """
let first = resolve guarded(ships = ships, columns = columns)
let second = resolve guarded(ships = [], columns = columns)
outcome done(by = first.by + second.by)
"""
GUARDED_TYPES = "types:\n  ship:\n    fields:\n      str: {type: int, default: 1}\n"
GUARDED_INPUTS = "{ships: {type: list, of: ship}, columns: {type: list, of: {type: list, of: ship}}}"


def test_a_breach_past_an_inlined_guard_is_reported_where_the_called_form_reports_it(make_ruleset, monkeypatch):
    def ruleset(title):
        return make_ruleset({"p": procedure(GUARDED_CALLER, inputs=GUARDED_INPUTS, title=title),
                             "guarded": procedure(GUARDED, inputs=GUARDED_INPUTS)}, extra=GUARDED_TYPES)

    # six ships, the first of strength 0: the first call goes past the guard (miss, by 6), the second (no ships) hits
    # and counts the two columns' ships (2): by 8
    given = {"ships": [{"str": 0}] + [{}] * 5, "columns": [[{}], [{}]]}
    inlined = ruleset("test procedure")
    assert "written in place" in written(inlined)
    monkeypatch.setattr(inline, "MAX_INLINE_NODES", 0)
    called = ruleset("the called form")
    assert "written in place" not in written(called)

    def stops(ruleset):
        found = []
        for max_work in range(1, 61):
            try:
                found.append(resolve(ruleset, "p", given, seed=1, trace=False, limits=Limits(max_work=max_work)).outcome.get("by"))
            except LimitExceeded as stopped:
                (diagnostic,) = stopped.diagnostics
                found.append((diagnostic.line, diagnostic.column, diagnostic.message))
        return found

    assert stops(inlined) == stops(called)
    assert stops(inlined)[-1] == 8 and any(type(stop) is tuple for stop in stops(inlined))
