"""Targets of issue 13: whole battles in eia and great_war.

    python benchmarks/eia_battle/run.py            # the three targets, as the issue states them
    python benchmarks/eia_battle/run.py --trials 1000   # a shorter Monte Carlo

Measures, with the default engine (compiled procedures) and every budget lifted:

- eia battle, exact odds, three ships of the line a side: target under 5 s
  (--with-situation adds rulesdata/eia_situations/three_a_side.yaml, mixed ships
  with admirals who reload: far slower, see the README);
- eia battle, 10,000 Monte Carlo plays of fifteen ships a side
  (rulesdata/eia_situations/fifteen_a_side.yaml): target under 10 s;
- great_war engagement, exact odds, four units a side
  (rulesdata/great_war_situations/four_a_side.yaml): target under 1 s.

Times are CPU seconds of this process (time.process_time), which a busy
shared machine disturbs less than wall time; wall time is printed beside.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from interpreter import load_ruleset, odds
from interpreter.api import monte_carlo
from interpreter.limits import Limits

UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)


def situation(ruleset, procedure: str, path: str) -> dict:
    data = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    names = {spec.name for spec in ruleset.compiled[procedure].inputs}
    return {k: v for k, v in data.items() if k in names}


def timed(function):
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10_000, help="Monte Carlo plays of the large battle (default 10,000)")
    parser.add_argument("--with-situation", action="store_true", help="also the exact odds of three_a_side.yaml (minutes)")
    args = parser.parse_args()

    eia = load_ruleset("eia")
    great_war = load_ruleset("great_war")
    warship = {"kind": "warship"}
    rows = []

    cases = [("eia battle, exact, 3 ships of the line a side", 5.0,
              lambda: odds(eia, "battle", {"attacker": [warship] * 3, "defender": [warship] * 3}, limits=UNLIMITED))]
    if args.with_situation:
        inputs = situation(eia, "battle", "rulesdata/eia_situations/three_a_side.yaml")
        cases.append(("eia battle, exact, three_a_side.yaml", 5.0, lambda: odds(eia, "battle", inputs, limits=UNLIMITED)))
    large = situation(eia, "battle", "rulesdata/eia_situations/fifteen_a_side.yaml")
    target = 10.0 * args.trials / 10_000
    cases.append((f"eia battle, {args.trials:,} Monte Carlo plays, fifteen_a_side.yaml", target,
                  lambda: monte_carlo(eia, "battle", large, trials=args.trials, seed=1, limits=UNLIMITED)))
    engagement = situation(great_war, "engagement", "rulesdata/great_war_situations/four_a_side.yaml")
    cases.append(("great_war engagement, exact, four_a_side.yaml", 1.0,
                  lambda: odds(great_war, "engagement", engagement, limits=UNLIMITED)))

    for label, target, run in cases:
        _, cpu, wall = timed(run)
        rows.append((label, target, cpu, wall))
        print(f"{label}: {cpu:.2f} s CPU ({wall:.2f} s wall), target {target:g} s: {'met' if cpu < target else 'not met'}", flush=True)
    print()
    print("| case | target | CPU s | wall s | met |")
    print("|---|---:|---:|---:|---|")
    for label, target, cpu, wall in rows:
        print(f"| {label} | {target:g} s | {cpu:.2f} | {wall:.2f} | {'yes' if cpu < target else 'no'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
