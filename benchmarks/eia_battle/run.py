"""Issue 24's targets for the whole EIA battle, side by side with hand-written code (and issue 13's).

    python benchmarks/eia_battle/run.py                   # exact 3 v 3 and 10,000 plays of fifteen_a_side
    python benchmarks/eia_battle/run.py --trials 3000     # a shorter sampling run
    python benchmarks/eia_battle/run.py --rounds 10       # sampling in 10 alternating rounds (default 5)
    python benchmarks/eia_battle/run.py --slow            # also day_battleships 8 v 8 and eia 4 v 4, exact (minutes)
    python benchmarks/eia_battle/run.py --with-situation  # also three_a_side.yaml, exact (many minutes)

Each row runs wartable (the default engine, every budget lifted) and, where the issue
names one, the hand-written reference in the same process, one after the other:

- eia battle, exact odds, three ships of the line a side (the README's command):
  wartable against hand_exact.py, an exact hand Fraction solver; target ratio <= 1.0,
  and the two distributions must be equal fraction for fraction;
- eia battle, Monte Carlo plays of fifteen_a_side.yaml: wartable's ms per play against
  hand_battle.py's; target ratio <= 3, and 10,000 plays <= 10 s.  The two alternate in
  --rounds rounds (default 5) of trials / rounds plays, round r seeded r, and the ratio is the
  median of the rounds' ratios (a slow spell of this shared machine falls on both).  The two
  samples must agree within 4 standard errors (hand_battle.largest_deviation); since the hand
  loop draws the ruleset's dice in the ruleset's order, a round of up to 1,000 plays gives both
  the same counts (past that, wartable plays fixed-seed chunks of 1,000, each seeded from
  (seed, chunk), and the hand loop one stream: the counts then differ within the error bars);
- great_war engagement, exact, four_a_side.yaml: target under 1 s (issue 13);
- with --slow: surface_combat battle day_battleships.yaml 8 v 8 exact (<= 12 s) and
  eia battle 4 v 4 ships of the line exact (<= 60 s), wartable alone.

Times are CPU seconds of this process (time.process_time), which a busy shared machine
disturbs less than wall time; wall time is printed beside, and the process's peak memory
(ru_maxrss) after each row.  wartable's odds pause Python's cyclic garbage collector;
the hand solver runs paused too, so both count the same work.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import hand_battle
import hand_exact

from interpreter import load_ruleset, odds
from interpreter.api import monte_carlo
from interpreter.limits import Limits

UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)
WARSHIP = {"kind": "warship"}


def situation(ruleset: Any, procedure: str, path: str) -> dict:
    """A bundled situation's inputs that the procedure takes (the rest, e.g. an operation, dropped)."""
    data = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    names = {spec.name for spec in ruleset.compiled[procedure].inputs}
    return {k: v for k, v in data.items() if k in names}


def timed(function: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds)."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def without_collector(function: Callable[[], Any]) -> Callable[[], Any]:
    """``function`` run with the cyclic garbage collector paused, as wartable's odds run."""

    def run() -> Any:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return function()
        finally:
            if was_enabled:
                gc.enable()

    return run


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def exact_fields(dist: Any) -> dict:
    """A wartable Distribution as {battle_over fields in order: Fraction}, like hand_exact's."""
    return {tuple(value for _, value in outcome.fields): p for outcome, p in dist.outcomes}


def sample_fields(sample: Any) -> dict:
    counts: dict = {}
    for outcome, n in sample.counts:
        key = tuple(value for _, value in outcome.fields)
        counts[key] = counts.get(key, 0) + n
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10_000, help="Monte Carlo plays of fifteen_a_side (default 10,000)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="sampling: wartable and the hand loop alternate in this many rounds of trials/rounds plays (default 5)")
    parser.add_argument("--slow", action="store_true", help="also day_battleships 8 v 8 and eia 4 v 4, exact (minutes)")
    parser.add_argument("--with-situation", action="store_true", help="also the exact odds of three_a_side.yaml (many minutes)")
    args = parser.parse_args()

    eia = load_ruleset("eia")
    rows: list[tuple[str, str, str, str, str, str]] = []  # case, wartable, hand, ratio, target, met / check

    def report(row: tuple[str, str, str, str, str, str]) -> None:
        rows.append(row)
        print(" | ".join(row), f"| peak {peak_mb():.0f} MB", flush=True)

    # ---- exact 3 v 3 against the hand Fraction solver -------------------------------------
    three = {"attacker": [WARSHIP] * 3, "defender": [WARSHIP] * 3}
    dist, w_cpu, w_wall = timed(lambda: odds(eia, "battle", three, limits=UNLIMITED))
    hand, h_cpu, h_wall = timed(without_collector(lambda: hand_exact.exact(three)))
    same = exact_fields(dist) == hand and dist.truncated == 0
    ratio = w_cpu / h_cpu
    report(("eia battle 3 v 3 warships, exact", f"{w_cpu:.2f} s ({w_wall:.2f} wall)", f"{h_cpu:.2f} s ({h_wall:.2f} wall)",
            f"{ratio:.2f}x", "<= 1.0x", (f"{'met' if ratio <= 1.0 else 'not met'}; "
            f"{'equal fraction for fraction' if same else 'DIFFERENT'} ({len(hand)} outcomes)")))

    # ---- sampling fifteen_a_side against the hand loop -------------------------------------
    # The two alternate in rounds (trials / rounds plays each, round r seeded r): a slow spell of the machine
    # then falls on both, and the ratio is the median of the rounds' ratios (one long run of each measured
    # the hand loop anywhere from 0.24 to 0.36 ms a play).
    large = situation(eia, "battle", "rulesdata/eia_situations/fifteen_a_side.yaml")
    rounds = max(1, min(args.rounds, args.trials))
    per_round = args.trials // rounds
    w_cpu = w_wall = h_cpu = 0.0
    ratios: list[float] = []
    wartable_counts: dict = {}
    hand_counts: dict = {}
    same = True
    for number in range(1, rounds + 1):
        sample, cpu, wall = timed(partial(monte_carlo, eia, "battle", large, trials=per_round, seed=number, limits=UNLIMITED))
        counts, hand_cpu, _ = timed(partial(hand_battle.sample, large, per_round, seed=number))
        w_cpu, w_wall, h_cpu = w_cpu + cpu, w_wall + wall, h_cpu + hand_cpu
        ratios.append(cpu / hand_cpu)
        same = same and counts == sample_fields(sample)
        for key, n in sample_fields(sample).items():
            wartable_counts[key] = wartable_counts.get(key, 0) + n
        for key, n in counts.items():
            hand_counts[key] = hand_counts.get(key, 0) + n
    gap, where = hand_battle.largest_deviation(hand_counts, wartable_counts)
    ratio = statistics.median(ratios)
    plays = per_round * rounds
    per_play = 1000 / plays
    report((f"eia battle fifteen_a_side, {plays:,} plays in {rounds} rounds", f"{w_cpu * per_play:.3f} ms/play ({w_cpu:.2f} s; {w_wall:.2f} wall)",
            f"{h_cpu * per_play:.3f} ms/play ({h_cpu:.2f} s)", f"{ratio:.1f}x (rounds {min(ratios):.1f}-{max(ratios):.1f}x)",
            "<= 3x; 10,000 plays <= 10 s",
            (f"{'met' if ratio <= 3 else 'not met'}, {'met' if w_cpu * 10_000 / plays <= 10 else 'not met'}; "
            f"{'same counts as wartable' if same else 'counts differ' if per_round <= 1000 else 'other draws (chunked seeds past 1,000 plays)'} (seeds 1-{rounds}); "
            f"largest gap {gap:.1f} SE{f' ({where})' if where else ''}{'' if gap < 4 else ' TOO LARGE'}")))

    # ---- issue 13's engagement, and the slow rows ------------------------------------------
    great_war = load_ruleset("great_war")
    engagement = situation(great_war, "engagement", "rulesdata/great_war_situations/four_a_side.yaml")
    _, w_cpu, w_wall = timed(lambda: odds(great_war, "engagement", engagement, limits=UNLIMITED))
    report(("great_war engagement four_a_side, exact", f"{w_cpu:.2f} s ({w_wall:.2f} wall)", "-", "-", "< 1 s",
            "met" if w_cpu < 1 else "not met"))
    if args.with_situation:
        inputs = situation(eia, "battle", "rulesdata/eia_situations/three_a_side.yaml")
        _, w_cpu, w_wall = timed(lambda: odds(eia, "battle", inputs, limits=UNLIMITED))
        report(("eia battle three_a_side.yaml, exact", f"{w_cpu:.2f} s ({w_wall:.2f} wall)", "-", "-", "-", "-"))
    if args.slow:
        surface = load_ruleset("surface_combat")
        day = situation(surface, "battle", "rulesdata/surface_combat_situations/day_battleships.yaml")
        day["report"] = "summary"
        _, w_cpu, w_wall = timed(lambda: odds(surface, "battle", day, limits=UNLIMITED))
        report(("surface_combat day_battleships 8 v 8, exact", f"{w_cpu:.2f} s ({w_wall:.2f} wall)", "-", "-", "<= 12 s",
                "met" if w_cpu <= 12 else "not met"))
        four = {"attacker": [WARSHIP] * 4, "defender": [WARSHIP] * 4}
        _, w_cpu, w_wall = timed(lambda: odds(eia, "battle", four, limits=UNLIMITED))
        report(("eia battle 4 v 4 warships, exact", f"{w_cpu:.2f} s ({w_wall:.2f} wall)", "-", "-", "<= 60 s",
                "met" if w_cpu <= 60 else "not met"))

    print()
    print("| case | wartable (CPU) | hand (CPU) | ratio | target | met; check |")
    print("|---|---:|---:|---:|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
