"""Whole-battle sampling speed (issue 24): CPU milliseconds a play of `eia battle` on bundled situations.

    python benchmarks/play/run.py                      # fifteen_a_side and three_a_side, 1,000 plays, median of 3
    python benchmarks/play/run.py --trials 500 --repeat 5 --situation fifteen_a_side

CPU time (time.process_time) of api.monte_carlo with every budget lifted, so that a busy shared
machine disturbs the figure less than wall time; the counts' digest is printed beside, so that two
versions of the engine can be compared for identical results as well as speed.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from interpreter import load_ruleset
from interpreter.api import monte_carlo
from interpreter.limits import Limits

UNLIMITED = Limits(max_work=None, max_states=None, timeout=None)


def situation(ruleset, procedure: str, name: str) -> dict:
    """The situation's values that are inputs of ``procedure`` (a situation may hold more)."""
    data = yaml.safe_load((ROOT / "rulesdata" / "eia_situations" / f"{name}.yaml").read_text(encoding="utf-8"))
    names = {spec.name for spec in ruleset.compiled[procedure].inputs}
    return {k: v for k, v in data.items() if k in names}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--situation", action="append", help="default: fifteen_a_side and three_a_side")
    args = parser.parse_args()
    eia = load_ruleset("eia")
    for name in args.situation or ["fifteen_a_side", "three_a_side"]:
        inputs = situation(eia, "battle", name)
        monte_carlo(eia, "battle", inputs, trials=5, seed=0, limits=UNLIMITED)  # compiled and warmed
        times = []
        digest = ""
        for _ in range(args.repeat):
            start = time.process_time()
            sample = monte_carlo(eia, "battle", inputs, trials=args.trials, seed=args.seed, limits=UNLIMITED)
            times.append(time.process_time() - start)
            digest = hashlib.sha256(repr(sample.counts).encode()).hexdigest()[:12]
        per_play = statistics.median(times) / args.trials * 1000
        print(f"{name:16} {per_play:7.3f} ms/play  (median of {args.repeat} x {args.trials} plays; counts {digest})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
