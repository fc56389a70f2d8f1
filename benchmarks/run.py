#!/usr/bin/env python3
"""wartable speed benchmark: exact odds and Monte Carlo against hand-written Python.

Run on demand from the repository root (never part of the test suite):

    python benchmarks/run.py                  # full run, about 40 s on 2 cores
    python benchmarks/run.py --quick          # smoke run, about 5 s
    python benchmarks/run.py --case minefield # only the cases whose name contains the text

For every case (shared/notes/performance.md) it times, on the same inputs:

* exact odds: wartable ``odds`` / a hand-written integer-weight DP for that one
  case / icepool / dyce (the last two optional: ``pip install -r
  benchmarks/requirements.txt``; a library that does not import is skipped
  with a note);
* Monte Carlo: wartable ``monte_carlo`` / a hand-written ``rng.random`` loop,
  compared per trial.

See benchmarks/README.md for what is measured and how. Every method's numbers are checked against the hand DP (exact equality of
fractions where both are exact, float tolerance otherwise; Monte Carlo
frequencies within 5 standard errors). A mismatch is printed loudly and the
run exits with status 1. Missed speed targets are reported, not failed.
"""

from __future__ import annotations

import argparse
import gc
import math
import platform
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # benchmark the working tree, installed or not

from interpreter import load_ruleset, odds
from interpreter.api import monte_carlo

try:
    import icepool
except ImportError as error:  # optional
    icepool = None
    ICEPOOL_NOTE = f"icepool skipped: {error} (pip install -r benchmarks/requirements.txt)"
else:
    ICEPOOL_NOTE = f"icepool {getattr(icepool, '__version__', '?')}"

try:
    import dyce
    from dyce import H
    from dyce.evaluation import expand as dyce_expand
except ImportError as error:  # optional (needs Python 3.11+)
    dyce = None
    DYCE_NOTE = f"dyce skipped: {error} (pip install -r benchmarks/requirements.txt; dyce needs Python 3.11+)"
else:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _dist_version

    try:
        DYCE_NOTE = f"dyce {_dist_version('dyce')}"
    except PackageNotFoundError:  # pragma: no cover - imported from a checkout, no metadata
        DYCE_NOTE = "dyce ?"

# dyce.expand is marked experimental and warns on every call.
warnings.filterwarnings("ignore", message=".*experimental.*")

SEED = 20240601


# --------------------------------------------------------------------------
# The cases: what each method computes, per input.
# --------------------------------------------------------------------------

# ETO Naval Interception Table (rulesdata/eto.yaml), hard-coded for the hand versions:
# (lowest zones, highest zones or None for "11+", faces that intercept or None for automatic)
ETO_ROWS = ((1, 2, None), (3, 4, (2, 3, 4, 5, 6)), (5, 6, (3, 4, 5, 6)), (7, 8, (4, 5, 6)), (9, 10, (5, 6)), (11, None, (6,)))


def eto_faces(zones: int):
    for low, high, faces in ETO_ROWS:
        if zones >= low and (high is None or zones <= high):
            return faces
    raise ValueError(zones)


# Naval contact table (benchmarks/bench.yaml): one string per die roll, one letter per column
# "-2(-)", "-1", "0", "+1", "+2", "+3(+)"; columns clamp after shifting.
CONTACT = {1: "NNNNNN", 2: "NDDDDC", 3: "DDCCCA", 4: "DCCCAA", 5: "DCCAAA", 6: "CAAAAA"}


def contact_column(difference: int, shift: int) -> int:
    located = min(max(difference + 2, 0), 5)  # "-2(-)" and "+3(+)" are open-ended
    return min(max(located + shift, 0), 5)  # edges: columns clamp


# --- hand-written exact DPs: integer weights over a common denominator ------


def hand_interception(zones):
    faces = eto_faces(zones)
    if faces is None:
        return {"intercepted:auto": 1}, 1
    weights = {}
    for face in range(1, 7):
        key = "intercepted" if face in faces else "not_intercepted"
        weights[key] = weights.get(key, 0) + 1
    return weights, 6


def hand_drm(drm):
    weights = {}
    for a in range(1, 7):
        for b in range(1, 7):
            key = "success" if a + b + drm <= 3 else "failure"
            weights[key] = weights.get(key, 0) + 1
    return weights, 36


def hand_contact(difference, shift):
    column = contact_column(difference, shift)
    weights = {}
    for face in range(1, 7):
        key = CONTACT[face][column]
        weights[key] = weights.get(key, 0) + 1
    return weights, 6


def hand_minefield(mines, ships):
    # Markov chain over ships lost; each mine rolls 1d6 (faces 1-2 detonate),
    # a crossing that has lost every ship stops (its weight carries on x6).
    states = {0: 1}
    for _ in range(mines):
        following = {}
        for lost, weight in states.items():
            if lost == ships:
                following[lost] = following.get(lost, 0) + 6 * weight
                continue
            for face in range(1, 7):
                after = lost + 1 if face <= 2 else lost
                following[after] = following.get(after, 0) + weight
        states = following
    return states, 6**mines


def hand_sum(count):
    ways = {0: 1}
    for _ in range(count):
        following = {}
        for total, weight in ways.items():
            for face in range(1, 7):
                following[total + face] = following.get(total + face, 0) + weight
        ways = following
    return ways, 6**count


# --- hand-written Monte Carlo loops: r = rng.random; int(r()*6)+1 ----------


def mc_interception(zones, trials, rng):
    r = rng.random
    faces = eto_faces(zones)
    counts = {}
    for _ in range(trials):
        if faces is None:
            key = "intercepted:auto"
        elif int(r() * 6) + 1 in faces:
            key = "intercepted"
        else:
            key = "not_intercepted"
        counts[key] = counts.get(key, 0) + 1
    return counts


def mc_drm(drm, trials, rng):
    r = rng.random
    counts = {}
    for _ in range(trials):
        key = "success" if int(r() * 6) + 1 + int(r() * 6) + 1 + drm <= 3 else "failure"
        counts[key] = counts.get(key, 0) + 1
    return counts


def mc_contact(difference, shift, trials, rng):
    r = rng.random
    column = contact_column(difference, shift)
    counts = {}
    for _ in range(trials):
        key = CONTACT[int(r() * 6) + 1][column]
        counts[key] = counts.get(key, 0) + 1
    return counts


def mc_minefield(mines, ships, trials, rng):
    r = rng.random
    counts = {}
    for _ in range(trials):
        lost = 0
        for _mine in range(mines):
            if lost == ships:
                break
            if int(r() * 6) + 1 <= 2:
                lost += 1
        counts[lost] = counts.get(lost, 0) + 1
    return counts


def mc_sum(count, trials, rng):
    r = rng.random
    counts = {}
    for _ in range(trials):
        total = 0
        for _die in range(count):
            total += int(r() * 6) + 1
        counts[total] = counts.get(total, 0) + 1
    return counts


# --- icepool: a fresh d6 per computation ------------------------------------
# icepool.d6 is a cached global whose sums (`n @ d6`) are memoised on the die:
# timing `30 @ icepool.d6` repeatedly would time a dict lookup. A fresh
# Die(range(1, 7)) per input makes icepool compute, like every other method.


def ice_d6():
    return icepool.Die(range(1, 7))


def ice_interception(zones):
    faces = eto_faces(zones)
    if faces is None:
        return icepool.Die(["intercepted:auto"])
    return ice_d6().map(lambda face: "intercepted" if face in faces else "not_intercepted")


def ice_drm(drm):
    return (2 @ ice_d6()) + drm <= 3


def ice_contact(difference, shift):
    column = contact_column(difference, shift)
    return ice_d6().map(lambda face: CONTACT[face][column])


def ice_minefield(mines, ships):
    # icepool's Markov-chain idiom: map the state die `repeat` times (states merge each step).
    return icepool.map(lambda lost, face: lost if lost == ships else lost + (face <= 2), icepool.Die([0]), ice_d6(), repeat=mines)


def ice_sum(count):
    return count @ ice_d6()


# --- dyce -------------------------------------------------------------------


def dyce_interception(zones):
    faces = eto_faces(zones)
    if faces is None:
        return H({"intercepted:auto": 1})
    return H(6).apply(lambda face: "intercepted" if face in faces else "not_intercepted")


def dyce_drm(drm):
    return (2 @ H(6) + drm).le(3)


def dyce_contact(difference, shift):
    column = contact_column(difference, shift)
    return H(6).apply(lambda face: CONTACT[face][column])


def dyce_minefield(mines, ships):
    # One expand per mine over (state, d6): states merge each step. (dyce's
    # recursive "one branch per die path" pattern is exponential in mines.)
    # min_path_probability=0: the default would silently drop rare states.
    state, d6 = H({0: 1}), H(6)

    def step(lost, face):
        return lost.outcome if lost.outcome == ships else lost.outcome + (face.outcome <= 2)

    for _ in range(mines):
        state = dyce_expand(step, state, d6, min_path_probability=Fraction(0))
    return state


def dyce_sum(count):
    return count @ H(6)


# --- normalising every method's result to {key: probability} -----------------


def from_weights(result) -> dict:
    weights, denominator = result
    return {key: Fraction(w, denominator) for key, w in weights.items() if w}


def from_icepool(die) -> dict:
    denominator = die.denominator()
    return {key: Fraction(q, denominator) for key, q in die.items() if q}


def from_dyce(h) -> dict:
    total = h.total
    return {key: Fraction(c, total) for key, c in h.items() if c}


@dataclass
class Case:
    name: str
    ruleset: str  # "eto" or "bench"
    procedure: str
    inputs: list  # list of dicts (wartable inputs); also the positional args of the hand/library functions
    key: Callable[[Any], Any]  # wartable OutcomeValue -> comparison key
    hand: Callable
    hand_mc: Callable
    ice: Callable | None
    dyce: Callable | None
    ice_key: Callable[[Any], Any] = lambda k: k
    dyce_key: Callable[[Any], Any] = lambda k: k
    heavy: bool = False  # the "100 mines x 10 ships under 1 s" case
    one_lookup: bool = False  # a procedure of one table lookup: its target is time a call, not a ratio
    exact_results: list = field(default_factory=list)  # hand DP's {key: Fraction} per input, set by exact_case


def interception_key(outcome):
    if outcome.name == "intercepted":
        return "intercepted:auto" if outcome.get("automatic") else "intercepted"
    return outcome.name


def success_key(flag):
    return "success" if flag else "failure"


def build_cases() -> list[Case]:
    minefield = {"ruleset": "bench", "procedure": "minefield", "key": lambda o: o.get("lost"), "hand": hand_minefield, "hand_mc": mc_minefield, "ice": ice_minefield, "dyce": dyce_minefield}
    return [
        Case("ETO interception, zones 1-12", "eto", "interception", [{"zones": z} for z in range(1, 13)], interception_key, hand_interception, mc_interception, ice_interception, dyce_interception, one_lookup=True),
        Case("2d6 + DRM <= 3, DRM -2..+3", "bench", "drm_roll", [{"drm": d} for d in range(-2, 4)], lambda o: o.name, hand_drm, mc_drm, ice_drm, dyce_drm, ice_key=success_key, dyce_key=success_key),
        Case(
            "contact table, diff -3..+4 x shift -1,0,+2",
            "bench",
            "contact_roll",
            [{"difference": d, "shift": s} for d in range(-3, 5) for s in (-1, 0, 2)],
            lambda o: o.get("code"),
            hand_contact,
            mc_contact,
            ice_contact,
            dyce_contact,
            # One table lookup a call (with a column shift), like ETO: the issue's "one-lookup
            # procedure" whose target is the time of a call.  Its ratio is shown beside it.
            one_lookup=True,
        ),
        Case("minefield 10 mines / 2 ships", inputs=[{"mines": 10, "ships": 2}], **minefield),
        Case("minefield 30 mines / 5 ships", inputs=[{"mines": 30, "ships": 5}], **minefield),
        Case("minefield 100 mines / 10 ships", inputs=[{"mines": 100, "ships": 10}], heavy=True, **minefield),
        Case("30d6 sum", "bench", "sum_of_dice", [{"count": 30}], lambda o: o.get("value"), hand_sum, mc_sum, ice_sum, dyce_sum),
    ]


# --------------------------------------------------------------------------
# Timing and checking
# --------------------------------------------------------------------------

MISMATCHES: list[str] = []


def mismatch(message: str) -> None:
    MISMATCHES.append(message)
    bar = "!" * 78
    print(f"\n{bar}\n!!! MISMATCH: {message}\n{bar}\n", flush=True)


NOISY: list[str] = []


def time_methods(label: str, methods: dict, samples: int, min_sample_s: float) -> tuple[dict, dict, dict]:
    """Median seconds per call of each method, and each method's per-round times.

    Each method first runs once (warm-up; its result is the one checked), then
    once more, timed, to set how many calls make one sample (at least
    ``min_sample_s``). The first call cannot set it: it pays one-time costs
    (wartable imports its compiler and compiles the procedure on the first
    call: tens of ms), so a sample would be one cold call right after
    another library has filled the caches, a time that a user calling in a
    loop never sees. The
    samples then go in rounds, every method once per round back to back, so
    that the ratio of two methods can be taken within a round: this machine
    (a VM) has spells of running about 2x slower, which a ratio of medians
    picks up and a median of per-round ratios mostly does not.
    """
    results, loops, times = {}, {}, {}
    for name, run in methods.items():
        gc.collect()
        results[name] = run()
        start = time.perf_counter()
        run()
        once = time.perf_counter() - start
        loops[name] = max(1, math.ceil(min_sample_s / max(once, 1e-7)))
        times[name] = []
    for _ in range(samples):
        for name, run in methods.items():
            count = loops[name]
            start = time.perf_counter()
            for _ in range(count):
                run()
            times[name].append((time.perf_counter() - start) / count)
    medians = {name: statistics.median(values) for name, values in times.items()}
    # A median well above the fastest sample means the machine was slow for much of the run.
    slow = [f"{name} {medians[name] / min(values):.1f}×" for name, values in times.items() if medians[name] > 1.25 * min(values)]
    if slow:
        NOISY.append(f"{label}: median over fastest sample: {', '.join(slow)}")
    return medians, results, times


def paired_ratio(times: dict, a: str, b: str) -> float | None:
    """Median over rounds of time(a) / time(b)."""
    if a not in times or b not in times:
        return None
    return statistics.median(x / y for x, y in zip(times[a], times[b]))


def compare(case: Case, method: str, index: int, got: dict, want: dict) -> None:
    label = f"{case.name} {case.inputs[index]}: {method} vs hand DP"
    exact = all(isinstance(v, (Fraction, int)) for v in [*got.values(), *want.values()])
    if exact:
        if got != want:
            keys = sorted(set(got) | set(want), key=repr)
            diff = "; ".join(f"{k!r}: {got.get(k, 0)} != {want.get(k, 0)}" for k in keys if got.get(k, 0) != want.get(k, 0))
            mismatch(f"{label}: {diff[:600]}")
        return
    bad = [k for k in set(got) | set(want) if abs(float(got.get(k, 0)) - float(want.get(k, 0))) > 1e-9]
    if bad:
        mismatch(f"{label}: keys {sorted(bad, key=repr)[:10]} differ beyond 1e-9")


def check_sample(case: Case, method: str, index: int, counts: dict, trials: int, want: dict) -> None:
    """Monte Carlo frequencies against the exact odds: within 5 standard errors (+1 count)."""
    label = f"{case.name} {case.inputs[index]}: {method} Monte Carlo ({trials} trials)"
    if sum(counts.values()) != trials:
        mismatch(f"{label}: counted {sum(counts.values())} plays")
    for key in set(counts) | set(want):
        p = float(want.get(key, 0))
        n = counts.get(key, 0)
        if p == 0 and n:
            mismatch(f"{label}: outcome {key!r} has probability 0 but occurred {n} times")
            continue
        tolerance = 5 * math.sqrt(p * (1 - p) * trials) + 1
        if abs(n - p * trials) > tolerance:
            mismatch(f"{label}: outcome {key!r} occurred {n} times, expected {p * trials:.1f} +- {tolerance:.1f}")


def exact_case(case: Case, rulesets: dict, samples: int, min_sample_s: float) -> dict:
    ruleset = rulesets[case.ruleset]
    args = [tuple(i.values()) for i in case.inputs]
    methods = {
        # each call computed afresh: the ruleset's memo of resolved procedures (kept across calls) emptied first
        "wartable": lambda: [(ruleset.exact_results.clear(), odds(ruleset, case.procedure, i))[1] for i in case.inputs],
        "hand": lambda: [case.hand(*a) for a in args],
        # The same DP turning its weights into reduced Fractions at the end, as
        # wartable's Distribution does: shows what the output format costs.
        "hand_fraction": lambda: [from_weights(case.hand(*a)) for a in args],
    }
    if icepool is not None and case.ice is not None:
        methods["icepool"] = lambda: [case.ice(*a) for a in args]
    if dyce is not None and case.dyce is not None:
        methods["dyce"] = lambda: [case.dyce(*a) for a in args]
    timings, results, rounds = time_methods(case.name, methods, samples, min_sample_s)
    timings["ratio"] = {other: paired_ratio(rounds, "wartable", other) for other in ("hand", "hand_fraction", "icepool", "dyce")}
    # Check every method against the hand DP.
    want = [from_weights(r) for r in results["hand"]]
    case.exact_results = want
    for index, dist in enumerate(results["wartable"]):
        if dist.truncated:
            mismatch(f"{case.name} {case.inputs[index]}: wartable truncated {dist.truncated}")
        got = {}
        for outcome, p in dist.outcomes:
            got[case.key(outcome)] = got.get(case.key(outcome), 0) + p
        compare(case, "wartable", index, got, want[index])
    for method, convert, rekey in (("icepool", from_icepool, case.ice_key), ("dyce", from_dyce, case.dyce_key)):
        for index, result in enumerate(results.get(method, ())):
            got = {}
            for key, p in convert(result).items():
                got[rekey(key)] = got.get(rekey(key), 0) + p
            compare(case, method, index, got, want[index])
    return timings


def mc_case(case: Case, rulesets: dict, wartable_trials: int, hand_trials: int, reps: int) -> dict:
    """Median seconds per trial over ``reps`` repetitions; every input gets an equal share of the trials."""
    ruleset = rulesets[case.ruleset]
    n_inputs = len(case.inputs)
    args = [tuple(i.values()) for i in case.inputs]
    w_each = max(1, wartable_trials // (reps * n_inputs))
    h_each = max(1, hand_trials // (reps * n_inputs))
    w_counts = [{} for _ in case.inputs]
    h_counts = [{} for _ in case.inputs]
    w_times, h_times = [], []
    for rep in range(reps):
        gc.collect()
        start = time.perf_counter()
        samples = [monte_carlo(ruleset, case.procedure, i, trials=w_each, seed=SEED + rep) for i in case.inputs]
        w_times.append((time.perf_counter() - start) / (w_each * n_inputs))
        for index, sample in enumerate(samples):
            for outcome, n in sample.counts:
                k = case.key(outcome)
                w_counts[index][k] = w_counts[index].get(k, 0) + n
        gc.collect()
        rng = random.Random(SEED + rep)
        start = time.perf_counter()
        counted = [case.hand_mc(*a, h_each, rng) for a in args]
        h_times.append((time.perf_counter() - start) / (h_each * n_inputs))
        for index, counts in enumerate(counted):
            for k, n in counts.items():
                h_counts[index][k] = h_counts[index].get(k, 0) + n
    for index in range(n_inputs):
        check_sample(case, "wartable", index, w_counts[index], w_each * reps, case.exact_results[index])
        check_sample(case, "hand", index, h_counts[index], h_each * reps, case.exact_results[index])
    return {
        "wartable": statistics.median(w_times),
        "hand": statistics.median(h_times),
        "ratio": statistics.median(w / h for w, h in zip(w_times, h_times)),
        "wartable_trials": w_each * reps * n_inputs,
        "hand_trials": h_each * reps * n_inputs,
    }


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def ms(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    value = seconds * 1e3
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.0f}"


def ratio(r: float | None) -> str:
    if r is None:
        return "–"
    return f"{r:.2f}×" if r < 10 else f"{r:.1f}×" if r < 100 else f"{r:.0f}×"


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("yes" if ok else "NO")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smoke run: fewer samples and trials (numbers are rough)")
    parser.add_argument("--case", metavar="TEXT", help="only the cases whose name contains TEXT")
    options = parser.parse_args(argv)

    cases = [c for c in build_cases() if not options.case or options.case.lower() in c.name.lower()]
    if not cases:
        parser.error(f"no case name contains {options.case!r} (cases: {'; '.join(c.name for c in build_cases())})")
    if options.quick:
        samples, min_sample_s, reps, w_trials, h_trials = 5, 0.005, 5, 100_000, 100_000
    else:
        # As many wartable trials as hand ones: with fewer, each monte_carlo call (one per input and
        # repetition, about 10 µs of input checks and seeding its generator) was spread over only
        # 166 trials of the contact table, and that, not the trials, decided its verdict.
        samples, min_sample_s, reps, w_trials, h_trials = 21, 0.01, 5, 1_000_000, 1_000_000

    print(f"wartable benchmark{' (--quick: rough numbers)' if options.quick else ''}")
    print(f"Python {platform.python_version()} on {platform.machine()}, {platform.system()}; {ICEPOOL_NOTE}; {DYCE_NOTE}")
    start = time.perf_counter()
    rulesets = {"eto": load_ruleset("eto")}
    rulesets["bench"] = load_ruleset(str(HERE / "bench.yaml"))
    print(f"load_ruleset for eto and bench.yaml (parse, check, compile; not timed below): {(time.perf_counter() - start) * 1e3:.0f} ms")
    print(f"exact: {samples} rounds, each timing every method back to back (>= {min_sample_s * 1e3:g} ms a sample)")
    print(f"Monte Carlo: {w_trials:,} wartable trials and {h_trials:,} hand trials per case, in {reps} repetitions; median per trial\n", flush=True)

    exact_rows, mc_rows = [], []
    for case in cases:
        print(f"  {case.name}: exact …", end="", flush=True)
        t = exact_case(case, rulesets, samples, min_sample_s)
        print(" Monte Carlo …", end="", flush=True)
        m = mc_case(case, rulesets, w_trials, h_trials, reps)
        print(" done", flush=True)
        exact_rows.append((case, t))
        mc_rows.append((case, m))

    width = max(len(c.name) for c in cases)
    print("\n## Exact odds (ms for all the inputs of a case, median; ratios: median of per-round ratios)\n")
    print(f"| {'case':<{width}} | wartable | hand DP | icepool | dyce | wartable/hand | wartable/icepool | wartable/dyce | hand DP→Fraction | wartable/(hand→Fraction) |")
    print(f"|{'-' * (width + 2)}|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case, t in exact_rows:
        r = t["ratio"]
        print(f"| {case.name:<{width}} | {ms(t['wartable'])} | {ms(t['hand'])} | {ms(t.get('icepool'))} | {ms(t.get('dyce'))} | {ratio(r['hand'])} | {ratio(r['icepool'])} | {ratio(r['dyce'])} | {ms(t['hand_fraction'])} | {ratio(r['hand_fraction'])} |")

    print("\n## Monte Carlo (µs per trial, median; ratio: median of per-repetition ratios)\n")
    print(f"| {'case':<{width}} | wartable | hand loop | wartable/hand | trials (wartable / hand) |")
    print(f"|{'-' * (width + 2)}|---:|---:|---:|---:|")
    for case, m in mc_rows:
        print(f"| {case.name:<{width}} | {m['wartable'] * 1e6:.2f} | {m['hand'] * 1e6:.3f} | {ratio(m['ratio'])} | {m['wartable_trials']:,} / {m['hand_trials']:,} |")

    print("\n## Targets (issue: engine speed)\n")
    print("Exact odds within 3× of the hand DP on every case that does more than one table lookup, and at most")
    print("10 µs a call for a procedure of one lookup (ETO interception, the contact table; their ratio is shown too);")
    print("faster than icepool and dyce on every case; Monte Carlo within 1.5× of the hand loop.\n")
    print(f"| {'case':<{width}} | exact within 3× of hand (or ≤ 10 µs a call) | faster than icepool | faster than dyce | Monte Carlo within 1.5× of hand |")
    print(f"|{'-' * (width + 2)}|:---:|:---:|:---:|:---:|")
    met = {"3x": [], "ice": [], "dyce": [], "mc": []}
    for (case, t), (_, m) in zip(exact_rows, mc_rows):
        r = t["ratio"]
        if case.one_lookup:
            per_call = t["wartable"] / len(case.inputs)
            within = per_call <= 10e-6
            shown = f"{verdict(within)} ({per_call * 1e6:.1f} µs a call; {ratio(r['hand'])} the hand DP)"
        else:
            within = r["hand"] <= 3
            shown = f"{verdict(within)} ({ratio(r['hand'])})"
        ice = r["icepool"] < 1 if r["icepool"] is not None else None
        dy = r["dyce"] < 1 if r["dyce"] is not None else None
        mc = m["ratio"] <= 1.5
        for k, v in (("3x", within), ("ice", ice), ("dyce", dy), ("mc", mc)):
            if v is not None:
                met[k].append(v)
        print(f"| {case.name:<{width}} | {shown} | {verdict(ice)} | {verdict(dy)} | {verdict(mc)} ({ratio(m['ratio'])}) |")
    print()
    for label, key in (("exact odds within 3× of hand DP (≤ 10 µs a call for one lookup)", "3x"), ("exact odds faster than icepool", "ice"),
                       ("exact odds faster than dyce", "dyce"), ("Monte Carlo within 1.5× of hand loop", "mc")):
        values = met[key]
        print(f"- {label}: {sum(values)}/{len(values)} cases" if values else f"- {label}: not measured")
    heavy = [t["wartable"] for case, t in exact_rows if case.heavy]
    if heavy:
        print(f"- minefield 100 mines × 10 ships under 1 s: {verdict(heavy[0] < 1.0)} ({heavy[0] * 1e3:.1f} ms)")
    if NOISY:
        print("\nNoisy exact timings (median over 1.25× the fastest sample: the machine had a slow spell; rerun if a verdict hangs on it):")
        for note in NOISY:
            print(f"  {note}")
    print(f"\ntotal {time.perf_counter() - start:.0f} s")

    if MISMATCHES:
        print(f"\n!!! {len(MISMATCHES)} MISMATCH(ES): the methods disagree; the timings above compare different answers.")
        for message in MISMATCHES:
            print(f"!!!   {message}")
        return 1
    print("all methods agree on every number they computed (exact: equal fractions; Monte Carlo: within 5 standard errors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
