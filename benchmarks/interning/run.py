"""Issue 24, interned records: exact odds of a surface battle, timed, with a digest of the answer.

    python benchmarks/interning/run.py                 # day_battleships, 8 ships a side
    python benchmarks/interning/run.py --ships 5       # the first 5 ships of each side

Prints CPU seconds (time.process_time) around the odds alone (loading
excluded), peak memory of the process (ru_maxrss), the number of outcomes
and a SHA-256 of every outcome with its exact probability, so that two
builds (before and after a change) can be compared run for run: the digest
must be the same, fraction for fraction.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SITUATION = ROOT / "rulesdata" / "surface_combat_situations" / "day_battleships.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ships", type=int, default=8, help="ships a side, the first of each list (default 8: all)")
    parser.add_argument("--situation", type=Path, default=SITUATION, help="a surface_combat battle situation")
    arguments = parser.parse_args()

    from interpreter import load_ruleset, odds
    from interpreter.limits import Limits

    ruleset = load_ruleset("surface_combat")
    data = yaml.safe_load(arguments.situation.read_text(encoding="utf-8"))
    names = {spec.name for spec in ruleset.compiled["battle"].inputs}
    inputs = {key: value for key, value in data.items() if key in names}
    for side in ("phasing", "reacting"):
        inputs[side] = inputs[side][: arguments.ships]
    inputs["report"] = "summary"
    unlimited = Limits(max_work=None, max_states=None, timeout=None)
    cpu, wall = time.process_time(), time.perf_counter()
    dist = odds(ruleset, "battle", inputs, limits=unlimited)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    digest = hashlib.sha256()
    for outcome, probability in sorted((repr(o), p) for o, p in dist.outcomes):
        digest.update(f"{outcome}={probability}\n".encode())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"day_battleships {arguments.ships} v {arguments.ships} exact: {cpu:.2f} s CPU ({wall:.2f} s wall), "
          f"peak {peak:.0f} MB, {len(dist.outcomes)} outcomes, truncated {dist.truncated}, sha256 {digest.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
