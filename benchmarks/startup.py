"""The two targets of the engine-speed issue that benchmarks/run.py does not time.

    python benchmarks/startup.py           # cold start (7 runs each) and the 1000-mine crossing
    python benchmarks/startup.py --runs 15

- Cold start, median wall time of fresh processes, beside `python3 -c pass`:
  `wartable run eto interception --set zones=7 --dice 4` (target at most
  150 ms) and `wartable --help` (target at most 60 ms).  The installed
  console script is used when it sits beside this Python (a venv), else
  `python -m interpreter`, which costs the same plus the module lookup.
- naval_mines cross_minefield, exact odds of 1000 mines against 10 battleships:
  target under 0.2 s (CPU of the computation, the ruleset already loaded).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def median_wall(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes a command (default 7)")
    args = parser.parse_args(argv)

    # A start reads compiled bytecode when it is there; where PYTHONDONTWRITEBYTECODE is set (as on this
    # project's machines) nothing would ever write it and every start would compile the sources anew.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "interpreter")], check=True)
    script = Path(sys.executable).parent / "wartable"
    wartable = [str(script)] if script.is_file() else [sys.executable, "-m", "interpreter"]
    median_wall(wartable + ["--help"], 2)  # warm the disk cache and the ruleset cache
    median_wall(wartable + ["run", "eto", "interception", "--set", "zones=7", "--dice", "4"], 2)
    baseline = median_wall([sys.executable, "-c", "pass"], args.runs)
    run = median_wall(wartable + ["run", "eto", "interception", "--set", "zones=7", "--dice", "4"], args.runs)
    helped = median_wall(wartable + ["--help"], args.runs)

    sys.path.insert(0, str(ROOT))
    from interpreter import load_ruleset, odds
    from interpreter.limits import Limits

    mines = load_ruleset("naval_mines")
    inputs = {"mines": 1000, "units": [{"kind": "battleship"}] * 10}
    odds(mines, "cross_minefield", {"mines": 1, "units": [{"kind": "battleship"}]})  # compile before timing
    cpu = time.process_time()
    crossing = odds(mines, "cross_minefield", inputs, limits=Limits(max_work=None, max_states=None, timeout=None))
    cpu = time.process_time() - cpu

    print(f"{' '.join(Path(wartable[0]).name if i == 0 else a for i, a in enumerate(wartable))}: medians of {args.runs} fresh processes")
    print()
    print("| target | measured | python3 -c pass | met |")
    print("|---|---:|---:|---|")
    print(f"| `wartable run eto interception --set zones=7 --dice 4` ≤ 150 ms | {run * 1e3:.0f} ms | {baseline * 1e3:.0f} ms | {'yes' if run <= 0.150 else 'no'} |")
    print(f"| `wartable --help` ≤ 60 ms | {helped * 1e3:.0f} ms | {baseline * 1e3:.0f} ms | {'yes' if helped <= 0.060 else 'no'} |")
    print(f"| cross_minefield, 1000 mines v 10 battleships, exact, < 0.2 s | {cpu:.3f} s ({len(crossing.outcomes)} outcomes) | | {'yes' if cpu < 0.2 else 'no'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
