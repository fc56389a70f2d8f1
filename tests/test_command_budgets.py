"""Time budgets for whole commands: where the clock is read, and what one budget covers.

- Monte Carlo reads the clock inside a play (resolved calls and dice drawn count
  steps toward a read, Budget.step) and between batches of plays sized by how
  long a play takes (Budget.next_batch), so a timeout holds however a play
  spends its time.

The clock is a fake here (``interpreter.limits.monotonic`` replaced): reads are
counted and time passes only when a test says so, so nothing depends on how
loaded the machine is.  tests/hostile/ holds the same cases through the
command line, timed for real.
"""

from __future__ import annotations

import io
from xml.etree import ElementTree

import pytest
from conftest import procedure, ruleset_text

from interpreter import limits as limits_module
from interpreter import resolve
from interpreter.api import monte_carlo, odds
from interpreter.cli import main
from interpreter.errors import UsageError
from interpreter.examples import run_examples
from interpreter.limits import CALL_WORK, Budget, LimitExceeded, Limits, TimeoutExceeded
from interpreter.results import resolution
from interpreter.trace_events import BoundedTrace, TraceEvent, describe


class FakeClock:
    """``monotonic`` for interpreter.limits: counts its reads; ``now`` moves only when a test moves it,
    or by ``tick`` seconds at every read."""

    def __init__(self, tick: float = 0.0):
        self.now = 1000.0
        self.reads = 0
        self.tick = tick

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.tick
        return self.now


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(limits_module, "monotonic", fake)
    return fake


def resolve_tree(levels: int, fan: int, *, choice: bool = False) -> dict[str, str]:
    """Procedures p0 .. p{levels-1}: each resolves the next ``fan`` times; the last rolls a die.

    With ``choice``, every procedure but p0 has a choice, so calls take the general path
    (Run.call_play) instead of the direct one (Run.call_play_direct).
    """
    choices = '{side: {options: [a, b], default: a, rule: "r"}}' if choice else ""
    procedures = {}
    for level in range(levels - 1):
        procedures[f"p{level}"] = procedure(
            f"let t = 0\nfor k in 1 .. {fan} do\n  let r = resolve p{level + 1}()\n  set t = t + r.t\nend\noutcome v(t = t)",
            choices=choices if level else "",
        )
    procedures[f"p{levels - 1}"] = procedure("let d = 1d6\noutcome v(t = d)", choices=choices)
    return procedures


# ---- Monte Carlo: the clock inside plays ------------------------------------------------------------------------


@pytest.mark.parametrize("choice", [False, True], ids=["direct calls", "general calls"])
def test_a_play_of_resolved_calls_reads_the_clock(make_ruleset, clock, choice):
    ruleset = make_ruleset(resolve_tree(4, 10, choice=choice))
    # one play: p0 resolves p1 10 times, each p1 resolves p2 10 times, each p2 resolves p3 10 times:
    # 10 + 100 + 1,000 = 1,110 resolved calls, each charged CALL_WORK (16 units): 17,760 units, under
    # CLOCK_EVERY (20,000), so the clock is read by the count of charges, every CLOCK_CALLS (64):
    # 1,110 // 64 = 17 reads inside the play.  Before, the calls cost nothing and the clock was read
    # only before the batch of plays (and once for the deadline): 2 reads in all.
    sample = monte_carlo(ruleset, "p0", trials=1, seed=3)
    assert sample.counts[0][1] == 1
    assert 1_110 * CALL_WORK < Budget.CLOCK_EVERY and 1_110 // Budget.CLOCK_CALLS == 17
    assert clock.reads == 2 + 17


def test_a_timeout_inside_a_play_stops_at_a_resolve(make_ruleset, clock):
    ruleset = make_ruleset(resolve_tree(4, 10))
    clock.tick = 0.6  # every read is 0.6 s later: the deadline (1 s) passes at the third read
    with pytest.raises(TimeoutExceeded) as info:
        monte_carlo(ruleset, "p0", trials=1_000, seed=3, limits=Limits(timeout=1))
    (diagnostic,) = info.value.diagnostics
    assert "stopped after 1 seconds (timeout;" in diagnostic.message
    # reads: the deadline set, the first batch's read, then the first read inside the play: at a resolve
    assert clock.reads == 3
    assert "resolve p" in diagnostic.line_text and diagnostic.line_text[diagnostic.column - 1:].startswith("resolve p")


def test_a_compiled_single_play_reads_the_clock_at_its_calls(make_ruleset, clock):
    ruleset = make_ruleset(resolve_tree(4, 10))
    clock.tick = 0.6
    # resolve(trace=False) runs the compiled play (as `wartable test` does): its calls read the clock too
    with pytest.raises(TimeoutExceeded):
        resolve(ruleset, "p0", seed=1, trace=False, limits=Limits(timeout=1))
    assert resolve(ruleset, "p0", seed=1, trace=False, limits=Limits(timeout=None)).outcome.name == "v"


def test_dice_drawn_in_a_play_read_the_clock(one_procedure, clock):
    # a roll of `n` dice (not a constant count up to 4) draws its dice one by one: each die is a step.
    # One play: 5 rolls of 1,000 dice; a read when 1,024 steps are spent, and the count starts again:
    # at the 2nd roll (2,000 steps) and the 4th (2,000 more): 2 reads inside the play, 4 in all with
    # the deadline's and the batch's.  Before, none inside (the dice cost no work, there is no loop).
    ruleset = one_procedure("let a = dice(n, 6)\nlet b = dice(n, 6)\nlet c = dice(n, 6)\nlet d = dice(n, 6)\nlet e = dice(n, 6)\n"
                            "outcome v(t = a + b + c + d + e)", inputs="{n: {type: int, default: 1000}}")
    monte_carlo(ruleset, "p", trials=1, seed=1)
    assert clock.reads == 2 + 2


LONG_ROUNDS = "let t = 0\nfor i in 1 .. 100000 do\n  set t = (t + " + " + ".join(f"i * {k}" for k in range(3, 23)) + ") % 1000\nend\noutcome v(t = t)"


def test_a_loop_of_long_rounds_reports_its_work_as_it_goes(one_procedure, clock):
    # one statement of 20 products, 60-odd nodes a round (more than LONG_ROUND): the round reports its
    # work when it passes the chunk (4,096 units), so the budget and the clock see the loop as it runs.
    # Work: 100,000 range items at once, then 4 a round: 500,000 units, a read every 20,000 or so:
    # about 20 reads inside the loop (21 in all with the deadline's: the play rolls no die, so Monte
    # Carlo runs it once, before any batch).  Before, the rounds were counted after the last one:
    # 2 reads in all, the deadline's and one after the loop.
    ruleset = one_procedure(LONG_ROUNDS)
    monte_carlo(ruleset, "p", trials=1, seed=1)
    assert clock.reads >= 1 + 15, clock.reads


def test_monte_carlo_batches_last_about_batch_seconds(clock):
    budget = Budget(Limits(timeout=100))
    assert budget.next_batch(0, None) == 1  # the first batch: one play, to measure it
    clock.now += 0.5  # that play took 0.5 s, more than a batch should: one play at a time
    assert budget.next_batch(1, None) == 1
    clock.now += 0.001  # a play of 1 ms: 0.02 s / 0.001 s = 20 plays, but at most double the last batch
    assert budget.next_batch(1, None) == 2
    clock.now += 0.002
    assert budget.next_batch(2, None) == 4
    clock.now += 0.004
    assert budget.next_batch(4, None) == 8
    clock.now += 0.008
    assert budget.next_batch(8, None) == 16
    clock.now += 0.016
    assert budget.next_batch(16, None) == 20  # 16 plays in 16 ms: 20 plays make 20 ms
    clock.now += 1e-7
    assert budget.next_batch(2048, None) == Budget.MAX_BATCH  # fast plays: 4,096 at most
    clock.now += 200  # past the deadline: the next read stops the run
    with pytest.raises(TimeoutExceeded):
        budget.next_batch(4096, None)


def test_without_a_timeout_batches_are_as_large_as_before(clock):
    budget = Budget(Limits(timeout=None))
    assert budget.next_batch(0, None) == Budget.MAX_BATCH == 4096
    assert clock.reads == 0  # no deadline: the clock is never read


def test_monte_carlo_of_slow_plays_reads_the_clock_every_few_plays(one_procedure, clock):
    # each play: a loop of 800 rounds, 4,000 units of work, under the chunk (4,096) in which a loop
    # reports its work: nothing reaches the budget.  The clock moves 0.1 s at each read, as if a
    # play took that long: the batches stay one play long, so 20 plays read the clock 20 times
    # (plus once for the deadline).  Before, one read for the whole batch of 20.
    ruleset = one_procedure("let t = 1d6\nfor i in 1 .. 800 do\n  set t = (t + i * 7) % 1000\nend\noutcome v(t = t)")
    clock.tick = 0.1
    monte_carlo(ruleset, "p", trials=20, seed=1, limits=Limits(timeout=100))
    assert clock.reads == 1 + 20


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_timeout_on_a_terminal_is_printed_on_a_clean_line(tmp_path, monkeypatch, clock):
    (tmp_path / "ruleset.yaml").write_text(ruleset_text(resolve_tree(4, 10)), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    clock.tick = 0.3
    stdout, stderr = io.StringIO(), Terminal()
    code = main(["run", "ruleset.yaml", "p0", "--n", "10000", "--seed", "1", "--timeout", "1"], stdout=stdout, stderr=stderr)
    shown = stderr.getvalue()
    assert code == 1 and "% of 10000 trials" in shown  # the progress line was there
    # the progress line is rubbed out (spaces, then a carriage return) before the message
    assert shown.split("\r")[-1].startswith("ruleset.yaml:") and "stopped after 1 seconds (timeout" in shown


def test_the_timeout_is_a_limit_exceeded():
    # callers that catch LimitExceeded still catch a timeout; `test` tells the two apart
    assert issubclass(TimeoutExceeded, LimitExceeded)


# ---- `wartable test`: one budget for the command ----------------------------------------------------------------

SLOW = procedure("let t = 0\nfor i in 1 .. 6 do\n  set t = t + 1d6\nend\noutcome v(t = t % 3)", inputs="{k: {type: int}}")


def examples_text(count: int) -> str:
    """``count`` examples of SLOW, one a line: example i is on line EXAMPLES_LINE + i, its name at column 12."""
    return "examples:\n" + "".join(
        f'  - {{name: "e {i}", procedure: p, inputs: {{k: {i}}}, odds: [{{outcome: v, probability: 1}}]}}\n' for i in range(count)
    )


def test_the_examples_of_a_command_share_its_timeout(tmp_path, monkeypatch, clock):
    path = tmp_path / "ruleset.yaml"
    path.write_text(ruleset_text({"p": SLOW}, extra=examples_text(50)), encoding="utf-8")
    first_example_line = path.read_text(encoding="utf-8").splitlines().index('examples:') + 2
    monkeypatch.chdir(tmp_path)
    clock.tick = 0.2  # every read of the clock 0.2 s later: 1 s is 5 reads (one as each example starts)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["test", "ruleset.yaml", "--timeout", "1"], stdout=stdout, stderr=stderr)
    assert code == 1 and "Traceback" not in stderr.getvalue()
    first = stderr.getvalue().splitlines()[0]
    passed = stdout.getvalue().splitlines()
    # the examples that ran are printed, then the one that ran out is named at its line, name and all;
    # before, each example had 1 s of its own and all 50 passed
    stopped = len(passed)
    assert 1 <= stopped < 50
    assert all(line.startswith(f"ok   t: e {i} ") for i, line in enumerate(passed))
    assert first == (f"ruleset.yaml:{first_example_line + stopped}:12: example 'e {stopped}' ran out of time: "
                     "stopped after 1 seconds (timeout; raise it with --timeout SECONDS (0 for no limit) or Limits(timeout=...))")


@pytest.mark.parametrize("report", ["junit", "github"])
def test_a_timeout_under_a_ci_report_ends_the_report_not_replaces_it(tmp_path, monkeypatch, clock, report):
    # under --format junit|github the examples that ran and the one that ran out (failing, with the timeout's
    # message at its line) make the report; before, the error alone went to stderr and CI got an empty report
    path = tmp_path / "ruleset.yaml"
    path.write_text(ruleset_text({"p": SLOW}, extra=examples_text(50)), encoding="utf-8")
    first_example_line = path.read_text(encoding="utf-8").splitlines().index('examples:') + 2
    monkeypatch.chdir(tmp_path)
    clock.tick = 0.2  # as above: the time runs out a few examples in
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["test", "ruleset.yaml", "--timeout", "1", "--format", report], stdout=stdout, stderr=stderr)
    assert code == 1 and "Traceback" not in stderr.getvalue()
    out = stdout.getvalue()
    if report == "junit":
        cases = ElementTree.fromstring(out).findall(".//testcase")
        stopped = len(cases) - 1
        assert 1 <= stopped < 50 and [case.get("name") for case in cases] == [f"e {i}" for i in range(stopped + 1)]
        assert [case.find("failure") is not None for case in cases] == [False] * stopped + [True]
        assert cases[-1].get("line") == str(first_example_line + stopped)
        assert "ran out of time: stopped after 1 seconds" in cases[-1].find("failure").get("message")
    else:
        errors = [line for line in out.splitlines() if line.startswith("::error ")]
        assert len(errors) == 1 and "ran out of time: stopped after 1 seconds" in errors[0]
        stopped = int(errors[0].split("line=")[1].split(",")[0]) - first_example_line
        assert 1 <= stopped < 50 and out.splitlines()[-1] == f"wartable test: {stopped} passed, 1 failed"


def test_the_timeout_counts_from_the_first_example_not_from_loading(tmp_path, monkeypatch, clock):
    # loading reads no clock of the budget's; the budget is made once every ruleset is loaded
    path = tmp_path / "ruleset.yaml"
    path.write_text(ruleset_text({"p": SLOW}, extra=examples_text(3)), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(["test", "ruleset.yaml", "--timeout", "1"], stdout=stdout, stderr=stderr) == 0
    assert stdout.getvalue().splitlines()[-1] == "3 passed, 0 failed"


def test_each_computation_of_the_examples_keeps_the_whole_work_budget(make_ruleset):
    ruleset = make_ruleset({"p": SLOW}, extra=examples_text(3))
    budget = Budget(Limits())
    odds(ruleset, "p", {"k": 0}, budget=budget)
    one = budget.work  # the work of one example's odds
    # three examples under a work budget of 1.5 examples: each passes (the budget is shared for time only)
    results = run_examples(ruleset, limits=Limits(max_work=one * 3 // 2))
    assert [r.passed for r in results] == [True, True, True]
    # and an example needing more than the budget still fails on its own, the others running on
    failing = run_examples(ruleset, limits=Limits(max_work=one // 2))
    assert [r.passed for r in failing] == [False, False, False]
    assert all("units of work (max_work" in r.problems[0].message for r in failing)


def test_resolve_takes_a_shared_budget(make_ruleset, clock):
    ruleset = make_ruleset(resolve_tree(3, 10))
    budget = Budget(Limits(timeout=1))
    assert resolve(ruleset, "p0", seed=1, trace=False, budget=budget).outcome.name == "v"
    clock.now += 2  # the budget's time is spent: the next call sharing it stops at its first read
    with pytest.raises(TimeoutExceeded):
        resolve(ruleset, "p0", seed=1, trace=False, budget=budget)
    with pytest.raises(TimeoutExceeded):
        resolve(ruleset, "p0", seed=1, trace=True, budget=budget)  # the evaluator shares it too
    with pytest.raises(UsageError, match="budget must be a Budget"):
        resolve(ruleset, "p0", seed=1, budget=Limits())


def test_a_timeout_inside_an_example_says_where_the_procedure_was(make_ruleset, clock):
    tree = resolve_tree(4, 10)
    dice = ", ".join(["3"] * 1_000)  # one die for each of the 1,000 leaves
    ruleset = make_ruleset(tree, extra=f'examples:\n  - {{name: "deep", procedure: p0, dice: [{dice}], expect: {{outcome: v}}}}')
    clock.tick = 0.6  # reads: the deadline's, the example's start (0.6 s), then the first inside the play (1.2 s)
    with pytest.raises(TimeoutExceeded) as info:
        run_examples(ruleset, limits=Limits(timeout=1))
    at_example, inside = info.value.diagnostics
    assert at_example.message.startswith("example 'deep' ran out of time: stopped after 1 seconds (timeout;")
    assert at_example.line_text.strip().startswith('- {name: "deep"')
    assert inside.message.startswith("stopped after 1 seconds") and "resolve p" in inside.line_text
    assert clock.reads == 3


# ---- `run`: a bounded trace -------------------------------------------------------------------------------------


def step(number: int) -> TraceEvent:
    return TraceEvent("set", None, 0, "", (("step", "set"), ("name", "t"), ("value", number)))


def test_a_bounded_trace_keeps_its_head_and_tail_and_counts_the_rest():
    trace = BoundedTrace(4)
    for number in range(10):
        trace.append(step(number))
    # 10 steps, 4 kept: steps 0 and 1 (the head), 8 and 9 (the tail); 2 .. 7 left out, 6 of them
    *head, gap, last_two, last = trace.events()
    assert [e.get("value") for e in (*head, last_two, last)] == [0, 1, 8, 9]
    assert (gap.kind, gap.get("step"), gap.get("count")) == ("note", "omitted", 6)
    assert describe(gap) == "... 6 steps left out (max_trace_steps: the first 2 and the last 2 are kept) ..."


def test_a_trace_within_the_bound_is_whole():
    trace = BoundedTrace(4)
    for number in range(4):
        trace.append(step(number))
    assert [e.get("value") for e in trace.events()] == [0, 1, 2, 3]
    odd = BoundedTrace(3)  # an odd bound: the head has the extra step
    for number in range(5):
        odd.append(step(number))
    assert [e.get("value") for e in odd.events()] == [0, 1, None, 4]


LOOP = "let t = 0\nfor i in 1 .. 300 do\n  set t = t + 1\nend\noutcome v(t = t)"


def test_a_long_play_keeps_max_trace_steps(one_procedure):
    ruleset = one_procedure(LOOP)
    whole = resolve(ruleset, "p", seed=1, limits=Limits(max_trace_steps=1_000)).trace
    # `let t = 0`, 300 rounds of `set`, the outcome: 302 steps, all kept under a bound of 1,000
    assert len(whole) == 302 and whole[-1].kind == "outcome"
    kept = resolve(ruleset, "p", seed=1, limits=Limits(max_trace_steps=100)).trace
    # 50 first, one step for the 202 left out, 50 last
    assert len(kept) == 101
    assert kept[:50] == whole[:50] and kept[51:] == whole[-50:]
    assert kept[50].get("step") == "omitted" and kept[50].get("count") == 202
    # JSON keeps the step too, with its words and its count
    gap = resolution(resolve(ruleset, "p", seed=1, limits=Limits(max_trace_steps=100)))["trace"][50]
    assert (gap["kind"], gap["step"], gap["count"], gap["message"]) == (
        "note", "omitted", 202, "... 202 steps left out (max_trace_steps: the first 50 and the last 50 are kept) ...")


def test_the_default_bound_keeps_ten_thousand_steps(one_procedure):
    ruleset = one_procedure("let t = 0\nfor i in 1 .. 100 do\n  for j in 1 .. 150 do\n    set t = t + 1\n  end\nend\noutcome v(t = t)")
    trace = resolve(ruleset, "p", seed=1).trace
    # 1 + 15,000 + 1 = 15,002 steps: 5,000 + 5,000 kept, 5,002 left out, one step saying so
    assert Limits().max_trace_steps == 10_000
    assert len(trace) == 10_001 and trace[5_000].get("count") == 5_002
