"""How fast whole-battle sampling could get with every run-time check taken out: the engine's floor (issue 24).

    python benchmarks/play/floor.py                    # CPU a play: main, the floor, the hand loop; 3 rounds
    python benchmarks/play/floor.py --plays 1000 --rounds 5
    python benchmarks/play/floor.py --instructions     # also callgrind instructions a play (valgrind; minutes)

Issue 24 asks for sampling of `eia battle` on `fifteen_a_side` within 3x the hand loop of
benchmarks/eia_battle/hand_battle.py.  This measures what is left when the checks the engine
makes while it plays are removed, so that the part of the gap they explain can be told from
the part the ruleset's own procedures explain.  It copies this tree into a temporary folder
and edits the copy's play code (STRIPS below; nothing here is ever installed or tested):

- no value measured or charged (a list built, a record changed, a ``replace_at``): no work
  limit, no ``max_value_items``, no ``max_value_depth``;
- no charge or depth test on a resolved call;
- no integer bounds on arithmetic, no coercion test of a callee's inputs.

What stays is the ruleset's algorithm as the play compiler writes it: the same lists of
positions, the same records (read by name), the same dice in the same order.  The counts of
each seed must equal main's: the script checks that before it times anything, so the floor is
the same plays.  An edit that no longer matches the engine's text stops the script with its name.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (file, text, replacement, what it removes): each text must occur exactly once
STRIPS: tuple[tuple[str, str, str, str], ...] = (
    ("interpreter/engine/playwork.py",
     '    t = x.w.temp("t")\n    extra, walked = ',
     ('    t = x.w.temp("t")\n    return f"({made} if ({walked}) is not None else None)" if walked else f"({made})"\n'
      '    extra, walked = '),
     "a list built in a play: measured and charged (the walk it charges is still evaluated)"),
    ("interpreter/engine/expressions.py",
     '            return checked_locally(self, inner, self.pos(e), "")\n        return f"{self.budget()}.check_value({inner}, {self.pos(e)})"',
     '            return checked_locally(self, inner, self.pos(e), "")\n        return inner',
     "a list literal outside a play's statements: measured and charged"),
    ("interpreter/engine/play.py",
     '        budget = self.c.budget(self.w)\n        self.w.line(f"{budget}.work += {CALL_WORK}',
     '        return\n        budget = self.c.budget(self.w)\n        self.w.line(f"{budget}.work += {CALL_WORK}',
     "a resolved call's charge and clock check"),
    ("interpreter/functions.py",
     "return rt.budget.check_changed(items[: position - 1] + (item,) + items[position:], items, items[position - 1], item, pos)",
     "return items[: position - 1] + (item,) + items[position:]",
     "replace_at's measure and charge"),
    ("interpreter/functions.py",
     "        made.keep_size_of(record)  # one plain value for another: the same size, not measured again\n    return rt.budget.check_value(made, pos)",
     "        made.keep_size_of(record)  # one plain value for another: the same size, not measured again\n    return made",
     "with_field's measure and charge"),
    ("interpreter/runtime.py",
     "    # check_value's charge (Budget.charge_measured) in place",
     "    return made\n    # check_value's charge (Budget.charge_measured) in place",
     "a remembered changed record's charge"),
    ("interpreter/engine/expressions.py",
     "        t = self.w.temp()\n        if type(e.left) in SIMPLE and type(e.right) in SIMPLE:",
     '        t = self.w.temp()\n        return f"({left} {e.op} {right})"\n        if type(e.left) in SIMPLE and type(e.right) in SIMPLE:',
     "integer bounds on + - * in a play"),
    ("interpreter/engine/calls.py",
     'values.append(slow if fast is None else f"({given} if {fast} else {slow})")',
     'values.append(slow if fast is None else f"({given})")',
     "a callee's input coercion test"),
)

# One measurement in a child process: TREE PLAYS SEED -> "ms_a_play digest" (after 50 warm plays; 0 plays: none timed)
PLAY = """
import hashlib, os, sys, time, yaml
tree, plays, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, tree)
from interpreter import load_ruleset
from interpreter.api import monte_carlo
from interpreter.limits import Limits
eia = load_ruleset(os.path.join(tree, "rulesdata", "eia.yaml"))
data = yaml.safe_load(open(os.path.join(tree, "rulesdata", "eia_situations", "fifteen_a_side.yaml")))
names = {s.name for s in eia.compiled["battle"].inputs}
inputs = {k: v for k, v in data.items() if k in names}
free = Limits(max_work=None, max_states=None, timeout=None)
monte_carlo(eia, "battle", inputs, trials=50, seed=9, limits=free)
start = time.process_time()
sample = monte_carlo(eia, "battle", inputs, trials=plays, seed=seed, limits=free) if plays else None
spent = time.process_time() - start
print(spent / max(plays, 1) * 1000, hashlib.sha256(repr(sorted(sample.counts, key=repr)).encode()).hexdigest()[:12] if sample else "-")
"""

HAND = """
import os, sys, time, yaml
tree, plays, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, os.path.join(tree, "benchmarks", "eia_battle"))
import hand_battle
data = yaml.safe_load(open(os.path.join(tree, "rulesdata", "eia_situations", "fifteen_a_side.yaml")))
hand_battle.sample(data, 50, seed=9)
start = time.process_time()
hand_battle.sample(data, plays, seed=seed) if plays else None
print((time.process_time() - start) / max(plays, 1) * 1000, "-")
"""


def stripped_copy(into: Path) -> Path:
    """This tree copied into ``into``, with every edit of STRIPS made; SystemExit naming an edit that does not apply."""
    tree = into / "floor"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*_cache", "dist", "build"))
    for name, text, replacement, what in STRIPS:
        path = tree / name
        source = path.read_text(encoding="utf-8")
        if source.count(text) != 1:
            raise SystemExit(f"floor.py: the edit '{what}' no longer matches {name}: update STRIPS")
        path.write_text(source.replace(text, replacement), encoding="utf-8")
    return tree


def child(script: str, tree: Path, plays: int, seed: int, cache: Path, tool: list[str] | None = None) -> list[str]:
    """The child's printed fields; under ``tool`` (valgrind), the tool's output file is left to the caller."""
    env = dict(os.environ, WARTABLE_CACHE_DIR=str(cache), PYTHONHASHSEED="0")
    command = [*(tool or []), sys.executable, "-c", script, str(tree), str(plays), str(seed)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"floor.py: a run of {tree} failed:\n{done.stderr[-2000:]}")
    return done.stdout.split()


def instructions(script: str, tree: Path, plays: int, cache: Path, scratch: Path) -> float:
    """Callgrind instructions a play: (a run of ``plays`` less a run of none) / plays."""
    totals = []
    for count in (0, plays):
        out = scratch / f"callgrind.{count}"
        child(script, tree, count, 1, cache, ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"])
        total = next(line for line in out.read_text().splitlines() if line.startswith(("summary:", "totals:")))
        totals.append(int(total.split()[1]))
    return (totals[1] - totals[0]) / plays


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=2000, help="timed plays a run (default 2,000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each, alternating (default 3)")
    parser.add_argument("--instructions", action="store_true", help="also callgrind instructions a play (40 plays each)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wartable-floor-") as scratch_name:
        scratch = Path(scratch_name)
        floor = stripped_copy(scratch)
        trees = {"main": (PLAY, ROOT), "floor": (PLAY, floor), "hand loop": (HAND, ROOT)}
        caches = {name: scratch / f"cache-{index}" for index, name in enumerate(trees)}
        digests = {name: child(PLAY, tree, 200, 1, caches[name])[1] for name, (_, tree) in trees.items() if name != "hand loop"}
        if digests["main"] != digests["floor"]:
            raise SystemExit(f"floor.py: the floor's counts differ from main's ({digests}): it does not play the same plays")
        print(f"counts of 200 plays, seed 1: main {digests['main']}, floor {digests['floor']} (equal)")
        times: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, (script, tree) in trees.items():
                times[name].append(float(child(script, tree, args.plays, 1, caches[name])[0]))
        hand = statistics.median(times["hand loop"])
        for name, spent in times.items():
            ranged = ", ".join(f"{t:.3f}" for t in spent)
            print(f"{name:10} {statistics.median(spent):6.3f} ms a play (CPU; {ranged})  {statistics.median(spent) / hand:4.2f}x the hand loop")
        if args.instructions:
            counted = {name: instructions(script, tree, 40, caches[name], scratch) for name, (script, tree) in trees.items()}
            for name, count in counted.items():
                print(f"{name:10} {count / 1e6:6.3f} M instructions a play (callgrind, 40 plays less 0)"
                      f"  {count / counted['hand loop']:4.2f}x the hand loop")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
