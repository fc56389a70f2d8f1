"""Issue 24, sampling round ten (part A): a play's aggregates without intermediate lists.

A statement's ``sum(...)`` is a loop (playwork.walk_assigned): an inner ``count`` is a loop of its own, nothing is
collected, the total is tested against the integer bounds once (only against HI when it adds counts, which are at
least 0) and refused through ``checked_sum`` with its words.  Aggregates a statement evaluates before anything that
may fail or charge are walked first, each by such a loop into a local (playwork.walk_pulled: ``sum(...) - sum(...)``,
eia's ``ships_with(a, "sunk") - ships_with(attacker, "sunk")``), and ``a - b`` of two sums of counts is not checked (each
is in 0 .. HI, the difference in -HI .. HI).  An aggregate after something that may fail keeps the expression's code.
Values counted by hand, or compared with the reference evaluator; exact odds keep their code.
"""

from __future__ import annotations

import re

import pytest

from interpreter import odds, resolve
from interpreter.api import monte_carlo
from interpreter.engine import playwork, procedure_source
from interpreter.errors import RulesetError, RuleViolation
from interpreter.limits import Budget, LimitExceeded, Limits

UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)
TYPES = "types:\n  ship:\n    fields:\n      kind: {type: str}\n      hits: {type: int, default: 0}\n"
INPUTS = "{columns: {type: list, of: {type: list, of: ship}}, others: {type: list, of: {type: list, of: ship}}}"
# eia's ships_with(columns, status) written out: nested counts whose filters read fields, a difference of two
NESTED = """\
let big = sum(count(s for s in c if s.kind == "big") for c in columns)
let lost = sum(count(s for s in c if s.hits >= 2) for c in columns) - sum(count(s for s in c if s.hits >= 2) for c in others)
let hits = sum(s.hits for s in columns[1])
outcome v(big = big, lost = lost, hits = hits)
"""
COLUMNS = [[{"kind": "big", "hits": 2}, {"kind": "small", "hits": 3}], [], [{"kind": "big"}, {"kind": "big", "hits": 1}]]
OTHERS = [[{"kind": "small", "hits": 2}], [{"kind": "small", "hits": 5}, {"kind": "big", "hits": 2}], [{"kind": "big"}]]


def statement(play: str, line: str) -> str:
    """The generated lines of the statement whose comment quotes ``line`` (up to the next statement's comment)."""
    start = play.index(line)
    end = play.find("# '", start + len(line))
    return play[start:end if end >= 0 else len(play)]


def outcome_of(ruleset, given, engine="compiled", **kwargs):
    outcome = resolve(ruleset, "p", given, seed=1, trace=False, engine=engine, **kwargs).outcome
    return outcome.get("big"), outcome.get("lost"), outcome.get("hits")


def test_nested_counts_are_loops_with_no_list_made(one_procedure):
    ruleset = one_procedure(NESTED, inputs=INPUTS, extra=TYPES)
    play = procedure_source(ruleset, "p", "play")
    big = statement(play, "let big = ")
    # the outer walk and the inner count both loops: no list comprehension, no finish called on a list
    assert not re.search(r"\[[^\]\n]* for v", big) and re.search(r"for v\d+ in i0:", big)
    # each counted ship added to the sum's total in the inner loop: no count of its own per column
    total = re.search(r"(wr\d+) = 0\n", big)
    assert total is not None and total[1] + " += 1" in big and "wi" not in big
    # the total of counts tested against HI alone (counts are at least 0), checked_sum only when it is above
    assert re.search(r"\((wr\d+) if \1 <= HI else ag\d+\(rt, p\d+, \(\1,\)\)\)", big) and "LO" not in big
    lost = statement(play, "let lost = ")
    pulled = re.findall(r"(pw\d+) = ", lost)
    assert len(pulled) == 2 and f"= ({pulled[0]} - {pulled[1]})" in lost and "OVF" not in lost
    hits = statement(play, "let hits = ")
    # a sum of fields may be below 0: both bounds tested
    assert re.search(r"\((wr\d+) if LO <= \1 <= HI else ag\d+", hits)
    # exact odds keep the expression (the list made and finished)
    exact = procedure_source(ruleset, "p", "exact")
    assert "pw" not in exact and re.search(r"ag\d+\(rt, p\d+, \[", exact)


def test_nested_counts_are_the_hand_counted_values_in_both_engines(one_procedure):
    ruleset = one_procedure(NESTED, inputs=INPUTS, extra=TYPES)
    # big: column 1 has one big ship, column 2 none, column 3 two: 3.  lost: ships of 2 hits or more, columns 1
    # (hits 2 and 3) = 2, others 3 (hits 2, 5 and 2) = 3: 2 - 3 = -1.  hits: column 1's 2 + 3 = 5.
    for engine in ("compiled", "reference"):
        assert outcome_of(ruleset, {"columns": COLUMNS, "others": OTHERS}, engine) == (3, -1, 5)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_empty_lists_count_nothing(one_procedure, engine):
    ruleset = one_procedure(NESTED, inputs=INPUTS, extra=TYPES)
    # no columns at all but the first, empty: every count 0, the sum of an empty column 0
    assert outcome_of(ruleset, {"columns": [[]], "others": []}, engine) == (0, 0, 0)
    # empty columns among others: 2 big, none of 2 hits; others' one ship of 2 hits: -1; the first column empty: 0
    given = {"columns": [[], [{"kind": "big"}, {"kind": "big", "hits": 1}], []], "others": [[], [{"kind": "x", "hits": 2}]]}
    assert outcome_of(ruleset, given, engine) == (2, -1, 0)


def test_the_loops_charge_what_the_walks_cost(one_procedure):
    ruleset = one_procedure(NESTED, inputs=INPUTS, extra=TYPES)
    budget = Budget(UNLIMITED)
    resolve(ruleset, "p", {"columns": COLUMNS, "others": OTHERS}, seed=1, budget=budget, trace=False)
    # each walk charged by its list's length, as CNT charges it: big walks 3 columns and their 2 + 0 + 2 ships (7);
    # lost the same 7 and others' 3 columns of 1 + 2 + 1 ships (7); hits columns[1]'s 2 ships: 23 (a play's
    # statements are counted in a local that reaches the budget only past the work chunk: see test_play_walks)
    assert budget.work == 23


def expression_forms(monkeypatch) -> None:
    """Plays written as before this round: no sum walked by a loop, nothing walked before its statement."""
    monkeypatch.setattr(playwork, "WALK_FINISH", {k: v for k, v in playwork.WALK_FINISH.items() if k != "sum"})
    monkeypatch.setattr(playwork, "walk_pulled", lambda x, target, value: False)


def breaches(ruleset, engine="compiled") -> list[tuple[int, int, str]]:
    """Where each work budget from 2 to 24 units stops the play (line, column, words); None past the play's 23."""
    found = []
    for max_work in range(2, 25):
        try:
            resolve(ruleset, "p", {"columns": COLUMNS, "others": OTHERS}, seed=1, trace=False, engine=engine,
                    limits=Limits(max_work=max_work, timeout=None))
            found.append(None)
        except LimitExceeded as stopped:
            (diagnostic,) = stopped.diagnostics
            found.append((diagnostic.line, diagnostic.column, diagnostic.message))
    return found


def test_a_work_breach_inside_the_loops_is_reported_where_the_expressions_reported_it(one_procedure, monkeypatch):
    loops = breaches(one_procedure(NESTED, inputs=INPUTS, extra=TYPES))
    assert "pw" in procedure_source(one_procedure(NESTED, inputs=INPUTS, extra=TYPES), "p", "play")
    expression_forms(monkeypatch)
    ruleset = one_procedure(NESTED, inputs=INPUTS, extra=TYPES)  # a fresh ruleset: its code is written anew
    play = procedure_source(ruleset, "p", "play")
    assert "pw" not in play and re.search(r"ag\d+\(rt, p\d+, \[", play)
    # every budget stops the play at the same statement, position and words as the expressions did: the same units
    # charged in the same order (the outer walk before the inner ones, each inner one checked in place)
    assert breaches(ruleset) == loops
    assert loops[-2] is None and loops[-3] is not None  # 23 units: a budget of 23 is enough, 22 is not


@pytest.mark.parametrize("max_work", [4, 5, 6])
def test_a_work_breach_inside_a_nested_count_is_reported_alike_by_both_engines(one_procedure, max_work):
    ruleset = one_procedure(NESTED, inputs=INPUTS, extra=TYPES)
    shown = []
    for engine in ("compiled", "reference"):
        with pytest.raises(LimitExceeded, match=f"more than {max_work} units of work") as stopped:
            resolve(ruleset, "p", {"columns": COLUMNS, "others": OTHERS}, seed=1, trace=False, engine=engine,
                    limits=Limits(max_work=max_work, timeout=None))
        (diagnostic,) = stopped.value.diagnostics
        shown.append((diagnostic.line_text.strip(), diagnostic.message, diagnostic.column))
    # both stop in big's statement with the same words: the compiled play at its inner count (the outer walk's 3
    # units, then the first column's 2: column 21, `count(` 14 after the statement's start in column 7), the
    # evaluator, which also charges each statement's own work as it starts, at the sum (column 17)
    assert shown[0][:2] == shown[1][:2] and shown[0][0].startswith("let big = ")
    assert (shown[0][2], shown[1][2]) == (21, 17)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_sum_of_counts_past_the_integer_bounds_is_refused_alike(one_procedure, engine):
    ruleset = one_procedure(NESTED, inputs=INPUTS, extra=TYPES)
    # max_int_bits 2: ints in -3 .. 3.  Four big ships in two columns: big = 4, refused by sum's own words
    many = [[{"kind": "big"}] * 2, [{"kind": "big"}] * 2]
    with pytest.raises(LimitExceeded, match="a sum grows past 2 bits") as refused:
        resolve(ruleset, "p", {"columns": many, "others": []}, seed=1, trace=False, engine=engine,
                limits=Limits(max_int_bits=2, max_work=None, timeout=None))
    assert refused.value.diagnostics[0].line_text.strip().startswith("let big = ")  # at big's statement
    # three are within the bounds: big 3, lost 0, hits 0
    three = [[{"kind": "big"}] * 2, [{"kind": "big"}]]
    assert outcome_of(ruleset, {"columns": three, "others": []}, engine,
                      limits=Limits(max_int_bits=2, max_work=None, timeout=None)) == (3, 0, 0)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_sum_below_the_bounds_is_refused_alike(one_procedure, engine):
    body = "let total = sum(s.hits for s in ships)\noutcome v(total = total)"
    ruleset = one_procedure(body, inputs="{ships: {type: list, of: ship}}", extra=TYPES)
    # -3 + -2 = -5 is below -3 (max_int_bits 2); -1 + -2 = -3 is not
    limits = Limits(max_int_bits=2, max_work=None, timeout=None)
    with pytest.raises(LimitExceeded, match="a sum grows past 2 bits"):
        resolve(ruleset, "p", {"ships": [{"kind": "a", "hits": -3}, {"kind": "b", "hits": -2}]}, seed=1, trace=False,
                engine=engine, limits=limits)
    given = {"ships": [{"kind": "a", "hits": -1}, {"kind": "b", "hits": -2}]}
    assert resolve(ruleset, "p", given, seed=1, trace=False, engine=engine, limits=limits).outcome.get("total") == -3


def test_a_sum_of_fields_minus_another_is_still_checked(one_procedure):
    body = "let d = sum(s.hits for s in ships) - sum(s.hits for s in ships if s.kind == \"big\")\noutcome v(d = d)"
    ruleset = one_procedure(body, inputs="{ships: {type: list, of: ship}}", extra=TYPES)
    line = statement(procedure_source(ruleset, "p", "play"), "let d = ")
    # both walked first, but fields may be below 0: the difference is checked as before
    assert len(re.findall(r"pw\d+ = ", line)) == 2 and "OVF(" in line
    limits = Limits(max_int_bits=2, max_work=None, timeout=None)
    # 3 - (-1) = 4 > 3: refused at the subtraction by both engines with the same words
    ships = [{"kind": "small", "hits": 2}, {"kind": "big", "hits": -1}, {"kind": "x", "hits": 2}]
    shown = []
    for engine in ("compiled", "reference"):
        with pytest.raises(LimitExceeded) as refused:
            resolve(ruleset, "p", {"ships": ships}, seed=1, trace=False, engine=engine, limits=limits)
        shown.append(str(refused.value))
    assert shown[0] == shown[1] and "max_int_bits" in shown[0]


# ---- where the proof says no: the expression's code, and its errors in its order ---------------------------------------

AFTER_AN_INDEX = """\
let n = ys[2] + sum(count(s for s in c if s.kind == "big") for c in columns)
outcome v(n = n)
"""


def test_an_aggregate_after_a_read_that_may_fail_keeps_the_expression(one_procedure):
    ruleset = one_procedure(AFTER_AN_INDEX, inputs="{ys: {type: list, of: int}, columns: {type: list, of: {type: list, of: ship}}}",
                            extra=TYPES)
    line = statement(procedure_source(ruleset, "p", "play"), "let n = ")
    # ys[2] is read first and may fail: the sum is not walked before the statement (its list made and finished)
    assert "pw" not in line and re.search(r"ag\d+\(rt, p\d+, \[", line)
    columns = [[{"kind": "big"}, {"kind": "big"}], [{"kind": "small"}]]
    for engine in ("compiled", "reference"):
        # 5 + 2 big ships = 7
        assert resolve(ruleset, "p", {"ys": [1, 5], "columns": columns}, seed=1, trace=False, engine=engine).outcome.get("n") == 7
        # ys of one item: the index fails first, in both engines
        with pytest.raises((RuleViolation, RulesetError), match="index|position"):
            resolve(ruleset, "p", {"ys": [1], "columns": columns}, seed=1, trace=False, engine=engine)


def test_an_aggregate_in_a_branch_is_not_walked_first(one_procedure):
    body = "let n = if flag then sum(count(s for s in c) for c in columns) else 0\noutcome v(n = n)"
    ruleset = one_procedure(body, inputs="{flag: {type: bool}, columns: {type: list, of: {type: list, of: ship}}}", extra=TYPES)
    line = statement(procedure_source(ruleset, "p", "play"), "let n = ")
    assert "pw" not in line  # evaluated only when flag holds: left where it is
    for engine in ("compiled", "reference"):
        for flag, n in ((True, 3), (False, 0)):
            given = {"flag": flag, "columns": [[{"kind": "a"}], [{"kind": "b"}, {"kind": "c"}]]}
            assert resolve(ruleset, "p", given, seed=1, trace=False, engine=engine).outcome.get("n") == n


def test_sampled_counts_equal_the_evaluators(one_procedure):
    body = """\
let d = 1d6
let columns = [[ship(kind = "big", hits = d), ship(kind = "small", hits = 6 - d)], [ship(kind = "big", hits = d % 3)]]
let others = [[ship(kind = "small", hits = d // 2)]]
""" + NESTED
    ruleset = one_procedure(body, extra=TYPES)
    assert "pw" in procedure_source(ruleset, "p", "play")
    counts = [monte_carlo(ruleset, "p", trials=300, seed=3, engine=engine).counts for engine in ("compiled", "reference")]
    assert counts[0] == counts[1]
    # big = 2 and hits = d + 6 - d = 6 always; lost = ships of 2 hits or more in columns (d, 6 - d, d % 3) minus in
    # others (d // 2): d = 1: 1 - 0; d = 2: 3 - 0; d = 3: 2 - 0; d = 4: 2 - 1; d = 5: 2 - 1; d = 6: 1 - 1
    assert all(outcome.get("big") == 2 and outcome.get("hits") == 6 for outcome, _ in counts[0])
    assert sorted(outcome.get("lost") for outcome, _ in counts[0]) == [0, 1, 2, 3]


# ---- a list of lists: the inner lists made by loops too ------------------------------------------------------------

LISTS = """\
let kept = list(list(if s.hits >= 2 then s with {hits = 0} else s for s in c if s.kind != "small") for c in columns)
outcome v(n = count(kept), first = count(kept[1]), hits = sum(s.hits for s in kept[1]))
"""


def kept_of(ruleset, given, engine="compiled", **kwargs):
    outcome = resolve(ruleset, "p", given, seed=1, trace=False, engine=engine, **kwargs).outcome
    return outcome.get("n"), outcome.get("first"), outcome.get("hits")


def test_an_inner_list_is_a_loop_checked_as_the_comprehension_was(one_procedure, monkeypatch):
    ruleset = one_procedure(LISTS, inputs=INPUTS, extra=TYPES)
    kept = statement(procedure_source(ruleset, "p", "play"), "let kept = ")
    # the inner list appended to in a loop, then made a tuple and checked (its walk charged with it, in place)
    assert re.search(r"(wi\d+) = \[\]\n", kept) and not re.search(r"\[[^\]\n]* for v", kept) and "tuple_(wi" in kept
    # columns: [big 2 hits, small 3 hits], [], [big, big 1 hit]: the small ship left out, the big one's hits set to 0
    for engine in ("compiled", "reference"):
        assert kept_of(ruleset, {"columns": COLUMNS, "others": []}, engine) == (3, 1, 0)
        assert kept_of(ruleset, {"columns": [[{"kind": "big", "hits": 1}, {"kind": "x", "hits": 1}]], "others": []}, engine) == (1, 2, 2)
    loops = Budget(UNLIMITED)
    resolve(ruleset, "p", {"columns": COLUMNS, "others": []}, seed=1, budget=loops, trace=False)
    limits = [Limits(max_work=n, timeout=None) for n in range(2, loops.work + 2)]  # up to one that lets it end
    stops = [_stop(ruleset, limit) for limit in limits]
    monkeypatch.setattr(playwork, "INNER_FINISH", {k: v for k, v in playwork.INNER_FINISH.items() if k != "list"})
    before = one_procedure(LISTS, inputs=INPUTS, extra=TYPES)  # a fresh ruleset: its code is written anew
    assert "tuple_(wi" not in procedure_source(before, "p", "play")
    expressions = Budget(UNLIMITED)
    resolve(before, "p", {"columns": COLUMNS, "others": []}, seed=1, budget=expressions, trace=False)
    # the same work, and every budget stopped at the same place with the same words as by the comprehension
    assert loops.work == expressions.work > 0
    assert [_stop(before, limit) for limit in limits] == stops and stops[0] is not None and stops[-1] is None


def _stop(ruleset, limits):
    try:
        resolve(ruleset, "p", {"columns": COLUMNS, "others": []}, seed=1, trace=False, limits=limits)
    except LimitExceeded as stopped:
        (diagnostic,) = stopped.diagnostics
        return diagnostic.line, diagnostic.column, diagnostic.message
    return None


# ---- an outcome's fields ---------------------------------------------------------------------------------------------

FIELDS = """\
outcome v(big = sum(count(s for s in c if s.kind == "big") for c in columns), first = list(s.hits for s in columns[1]), n = count(others))
"""


def test_an_outcomes_aggregates_are_walked_before_it_in_the_order_written(one_procedure, monkeypatch):
    ruleset = one_procedure(FIELDS, inputs=INPUTS, extra=TYPES)
    play = procedure_source(ruleset, "p", "play")
    # the sum walked first; the list's columns[1] may fail (an empty columns): it and what follows stay in the key
    assert len(re.findall(r"pw\d+ = ", play)) == 1 and re.search(r"ok\d+ = \(0, pw\d+, ", play)
    for engine in ("compiled", "reference"):
        outcome = resolve(ruleset, "p", {"columns": COLUMNS, "others": OTHERS}, seed=1, trace=False, engine=engine).outcome
        # big: 1 + 0 + 2 = 3; column 1's hits 2, 3; others: 3 columns
        assert (outcome.get("big"), outcome.get("first"), outcome.get("n")) == (3, (2, 3), 3)
        with pytest.raises((RuleViolation, RulesetError), match="index|position|empty"):
            resolve(ruleset, "p", {"columns": [], "others": []}, seed=1, trace=False, engine=engine)
    budgets = [Limits(max_work=n, timeout=None) for n in range(2, 16)]
    loops = [_stop_fields(ruleset, limit) for limit in budgets]
    monkeypatch.setattr(playwork, "pull_walks", lambda x, values: False)
    monkeypatch.setattr("interpreter.engine.play.pull_walks", lambda x, values: False)
    before = one_procedure(FIELDS, inputs=INPUTS, extra=TYPES)  # a fresh ruleset: its code is written anew
    assert "pw" not in procedure_source(before, "p", "play")
    # every budget stops the play where the key's expressions stopped it, with the same words
    assert [_stop_fields(before, limit) for limit in budgets] == loops and loops[0] is not None and loops[-1] is None


# A range's walk charges the budget itself (CRNG), not the local counter: the key written whole spends what the
# counter holds before it charges anything, so the walk pulled before the key must come after that spend too (s11:
# budgets of 16 to 25 units stopped the walked form at the range, or at the product, where the key's
# expression stopped at the spend, or at the range).
RANGE_AFTER_CALL = """\
let r = resolve q(a = 2)
let k = count(s for s in ships if s.alive)
outcome done(t = sum(y * r.v for y in 1 .. min(k, 4)))
"""


def test_an_outcomes_range_walked_first_comes_after_the_counters_spend(make_ruleset, monkeypatch):
    from conftest import procedure

    types = "types:\n  ship:\n    fields:\n      alive: {type: bool, default: true}\n"
    procedures = {"p": procedure(RANGE_AFTER_CALL, inputs="{ships: {type: list, of: ship}}"),
                  "q": procedure("outcome v(v = a)", inputs="{a: {type: int}}")}
    ruleset = make_ruleset(procedures, extra=types)
    play = procedure_source(ruleset, "p", "play")
    # the counter's spend first, then the range walked into a local, then the key made of it
    assert re.search(r"if u: BUD\.charge_items\(u, p\d+\)\n\s+wr\d+ = 0\n\s+for v\d+ in CRNG\(", play)
    given = {"ships": [{}, {}, {"alive": False}, {}]}
    for engine in ("compiled", "reference"):
        # k = 3 ships alive, r.v = 2: t = 2 * (1 + 2 + 3) = 12
        assert resolve(ruleset, "p", given, seed=1, trace=False, engine=engine).outcome.get("t") == 12
    budgets = [Limits(max_work=n, timeout=None) for n in range(1, 30)]
    walked = [_stopped(ruleset, given, limit) for limit in budgets]
    monkeypatch.setattr(playwork, "pull_walks", lambda x, values: False)
    monkeypatch.setattr("interpreter.engine.play.pull_walks", lambda x, values: False)
    before = make_ruleset(procedures, extra=types)  # a fresh ruleset: its code is written anew
    assert "pw" not in procedure_source(before, "p", "play")
    # every budget stops the play where the key's expression stopped it, with the same words
    assert [_stopped(before, given, limit) for limit in budgets] == walked and walked[0] is not None and walked[-1] is None


# A condition walked first, then a branch that charges: the statement's check names the last charge written, and the
# expression writes an `if`'s value before its condition (Expressions.visit_Conditional), so it named the condition's
# walk where the walked form named the branch's count (s11: budgets 10 to 13 units here stopped at other columns).
CONDITION_THEN_BRANCH = """\
let x = 1
for i in ships do
  set x = if any(ships[j].hits > 0 for j in 1 .. count(ships)) then count(s for s in [ship(kind = "a"), ship(kind = "b")] if s.hits == 0) else 0
end
outcome v(x = x)
"""


def test_a_condition_walked_first_names_a_breach_where_the_expression_named_it(one_procedure, monkeypatch):
    ruleset = one_procedure(CONDITION_THEN_BRANCH, inputs="{ships: {type: list, of: ship}}", extra=TYPES)
    assert len(re.findall(r"pw\d+ = ", procedure_source(ruleset, "p", "play"))) == 1  # the any walked first
    given = {"ships": [{"kind": "a"}, {"kind": "b", "hits": 1}, {"kind": "c", "hits": 2}, {"kind": "d"}]}
    for engine in ("compiled", "reference"):
        # a ship with hits: the two new ships, of no hits, counted: 2
        assert resolve(ruleset, "p", given, seed=1, trace=False, engine=engine).outcome.get("x") == 2
    need = Budget(UNLIMITED)
    resolve(ruleset, "p", given, seed=1, budget=need, trace=False)
    # up to one that lets it end: the statements' own work (w) reaches the budget in chunks, past what it counts
    budgets = [Limits(max_work=n, timeout=None) for n in range(1, 3 * need.work)]
    walked = [_stopped(ruleset, given, limit) for limit in budgets]
    expression_forms(monkeypatch)
    monkeypatch.setattr("interpreter.engine.play.pull_walks", lambda x, values: False)
    before = one_procedure(CONDITION_THEN_BRANCH, inputs="{ships: {type: list, of: ship}}", extra=TYPES)  # written anew
    assert "pw" not in procedure_source(before, "p", "play")
    assert [_stopped(before, given, limit) for limit in budgets] == walked and walked[0] is not None and walked[-1] is None


def _stop_fields(ruleset, limits):
    try:
        resolve(ruleset, "p", {"columns": COLUMNS, "others": OTHERS}, seed=1, trace=False, limits=limits)
    except LimitExceeded as stopped:
        (diagnostic,) = stopped.diagnostics
        return diagnostic.line, diagnostic.column, diagnostic.message
    return None


def chain_work(ruleset, body_engine="compiled") -> tuple[int, int]:
    budget = Budget(UNLIMITED)
    n = resolve(ruleset, "p", {"columns": COLUMNS, "others": []}, seed=1, budget=budget, trace=False, engine=body_engine).outcome.get("n")
    return n, budget.work


def test_an_aggregate_deeper_than_first_walks_looks_is_not_walked_first(one_procedure):
    # 12 sums in one left-nested chain: the first evaluated sits deeper than first_walks looks (FIRST_WALKS_DEPTH,
    # which keeps every walked aggregate above the depth where Expressions outlines code into a function of its own,
    # where its local would not be seen): nothing is walked first
    body = "let n = " + " + ".join(["sum(count(s for s in c if s.kind == \"big\") for c in columns)"] * 12) + "\noutcome v(n = n)"
    ruleset = one_procedure(body, inputs=INPUTS, extra=TYPES)
    assert "pw" not in procedure_source(ruleset, "p", "play")
    # 3 big ships in the columns, 12 times; each sum walked once: 3 columns and their 4 ships, 7 units each
    assert chain_work(ruleset) == (36, 84)
    assert chain_work(ruleset, "reference")[0] == 36
    # two sums: both walked first (the addition after them may fail), the same value and work
    two = one_procedure(body.replace(" + ".join(["sum(count(s for s in c if s.kind == \"big\") for c in columns)"] * 10) + " + ", ""),
                        inputs=INPUTS, extra=TYPES)
    assert len(re.findall(r"pw\d+ = ", procedure_source(two, "p", "play"))) == 2 and chain_work(two) == (6, 14)


# ---- found and fixed: an aggregate inside code outlined for depth --------------------------------------------------------


@pytest.mark.parametrize("sums", [20, 24])
def test_an_aggregate_in_an_outlined_expression_binds_its_own_variable(one_procedure, sums):
    # deeper than Expressions' MAX_EXPRESSION_DEPTH, the first sums are written as a function of their own; it was
    # called with each aggregate's own variable as an argument, unbound where it was called (NameError, main too)
    body = "let d = 1d2\nlet n = " + " + ".join(["sum(count(s for s in c if s.hits >= d) for c in columns)"] * sums) + \
        "\noutcome v(n = n)"
    ruleset = one_procedure(body, inputs=INPUTS, extra=TYPES)
    given = {"columns": COLUMNS, "others": []}
    # hits 2, 3 / - / 0, 1: 3 ships of at least 1 hit (d = 1), 2 of at least 2 (d = 2), each sum counted `sums` times
    for engine in ("compiled", "reference"):
        assert resolve(ruleset, "p", given, dice=[1], trace=False, engine=engine).outcome.get("n") == 3 * sums
        assert resolve(ruleset, "p", given, dice=[2], trace=False, engine=engine).outcome.get("n") == 2 * sums
    exact = [dict(odds(ruleset, "p", given, engine=engine).outcomes) for engine in ("compiled", "reference")]
    assert exact[0] == exact[1] and sorted(outcome.get("n") for outcome in exact[0]) == [2 * sums, 3 * sums]


COUNTED = """\
let n = count(c for c in columns if any(s.hits >= 2 for s in c)) - count(c for c in others if count(c) > 1)
outcome v(n = n)
"""


def test_a_count_walked_before_its_statement_is_charged_where_its_expression_was(one_procedure, monkeypatch):
    # the counts are walked first (the subtraction after them may fail), each charged before its loop as the
    # expression charges it: the inner any's in-place checks see the same counter
    ruleset = one_procedure(COUNTED, inputs=INPUTS, extra=TYPES)
    line = statement(procedure_source(ruleset, "p", "play"), "let n = ")
    assert len(re.findall(r"pw\d+ = ", line)) == 2 and line.index("u += len(i0)") < line.index("for v")
    given = {"columns": COLUMNS, "others": OTHERS}
    # columns with a ship of 2 hits or more: the first (2, 3); others with more than one ship: the second: 1 - 1
    for engine in ("compiled", "reference"):
        assert resolve(ruleset, "p", given, seed=1, trace=False, engine=engine).outcome.get("n") == 0
    budgets = [Limits(max_work=n, timeout=None) for n in range(2, 16)]
    loops = [_stopped(ruleset, given, limit) for limit in budgets]
    expression_forms(monkeypatch)
    before = one_procedure(COUNTED, inputs=INPUTS, extra=TYPES)  # a fresh ruleset: its code is written anew
    assert "pw" not in procedure_source(before, "p", "play")
    assert [_stopped(before, given, limit) for limit in budgets] == loops and loops[0] is not None and loops[-1] is None


def _stopped(ruleset, given, limits):
    try:
        resolve(ruleset, "p", given, seed=1, trace=False, limits=limits)
    except LimitExceeded as stopped:
        (diagnostic,) = stopped.diagnostics
        return diagnostic.line, diagnostic.column, diagnostic.message
    return None


# ---- conditions: a require's, an if's first, a while's each round ----------------------------------------------------

CONDITIONS = """\
let lost = 0
require all(count(s for s in c) <= 3 for c in columns), "a column of more than 3 ships"
if any(any(s.hits >= 2 for s in c) for c in columns) then
  set lost = 1
elif any(count(c) == 0 for c in columns) then
  set lost = 2
end
let k = 0
while count(c for c in columns if count(c) > k) > 0 limit 5 do
  set k = k + 1
end
outcome v(lost = lost, k = k)
"""


def test_conditions_walk_their_aggregates_first_where_they_are_evaluated(one_procedure, monkeypatch):
    ruleset = one_procedure(CONDITIONS, inputs=INPUTS, extra=TYPES)
    play = procedure_source(ruleset, "p", "play")
    # the require's all, the if's any and the while's count walked first; the elif's any stays in its header
    assert len(re.findall(r"pw\d+ = ", play)) == 3 and re.search(r"elif \(?any\(\[", play)
    # inside the while's round, before its test
    assert re.search(r"while True:\n(\s+).*\n(?:\1.*\n)*?\1if not \(pw\d+ > 0\): break", play)
    cases = [
        # columns (2, 3 hits) / () / (0, 1): a ship of 2 hits: lost 1; the longest column has 2 ships: k = 2
        ({"columns": COLUMNS, "others": []}, (1, 2)),
        # no ship of 2 hits, an empty column: lost 2; one ship: k = 1
        ({"columns": [[{"kind": "a"}], []], "others": []}, (2, 1)),
        # neither: lost 0; no column: k = 0
        ({"columns": [], "others": []}, (0, 0)),
    ]
    for engine in ("compiled", "reference"):
        for given, expected in cases:
            outcome = resolve(ruleset, "p", given, seed=1, trace=False, engine=engine).outcome
            assert (outcome.get("lost"), outcome.get("k")) == expected
        with pytest.raises(RuleViolation, match="a column of more than 3 ships"):
            resolve(ruleset, "p", {"columns": [[{"kind": "a"}] * 4], "others": []}, seed=1, trace=False, engine=engine)
    given = {"columns": COLUMNS, "others": []}
    budgets = [Limits(max_work=n, timeout=None) for n in range(2, 40)]
    loops = [_stopped(ruleset, given, limit) for limit in budgets]
    expression_forms(monkeypatch)
    monkeypatch.setattr("interpreter.engine.play.pull_walks", lambda x, values: False)
    before = one_procedure(CONDITIONS, inputs=INPUTS, extra=TYPES)  # a fresh ruleset: its code is written anew
    assert "pw" not in procedure_source(before, "p", "play")
    # every budget stops the play where the conditions' expressions stopped it, with the same words
    assert [_stopped(before, given, limit) for limit in budgets] == loops and loops[0] is not None and loops[-1] is None


# Open (s11 differential hunt, not fixed): a sum walked first is charged to the play's local counter and checked
# after its statement, where the expression checks it in place; when a later part of the same statement fails, a
# small budget names that failure in the walked form and the work breach in the expression form. Here `us` is
# empty, so `us[count(xs)]` (position 1) fails after the first sum has walked 3 columns of 3 + 4 + 5 ships.
# strict: this test fails once the two forms agree, so that the fix removes the mark.
SUM_BEFORE_A_FAILURE = """
let z = sum(count(s for s in c if s.hits >= 1) for c in columns) - sum(count(s for s in c if s.hits == 0) for c in [[others[count(columns)]]])
outcome o(z = z)
"""


@pytest.mark.xfail(strict=True, reason="a sum walked first is checked after its statement (s11, open)")
def test_a_sum_walked_first_meets_its_budget_before_a_later_failure_in_the_statement(one_procedure, monkeypatch):
    given = {"columns": [[{"kind": "a", "hits": 1}] * 3, [{"kind": "a", "hits": 2}] * 4, [{"kind": "a"}] * 5], "others": []}
    inputs = "{columns: {type: list, of: {type: list, of: ship}}, others: {type: list, of: ship}}"

    def stops(ruleset) -> list:
        found = []
        for max_work in range(1, 36, 2):
            try:
                resolve(ruleset, "p", given, seed=1, trace=False, limits=Limits(max_work=max_work, timeout=None))
                found.append(None)
            except (LimitExceeded, RuleViolation) as stopped:
                (diagnostic,) = stopped.diagnostics
                found.append((type(stopped).__name__, diagnostic.line, diagnostic.column))
        return found

    walked = stops(one_procedure(SUM_BEFORE_A_FAILURE, inputs=inputs, extra=TYPES))
    expression_forms(monkeypatch)
    assert stops(one_procedure(SUM_BEFORE_A_FAILURE, inputs=inputs, extra=TYPES)) == walked
