"""Targets of issue 10: battles at real sizes, exact, beside independent hand-written chains.

    python benchmarks/battles/run.py              # every target
    python benchmarks/battles/run.py --skip-eia-5 # without the slowest case

Each case runs in a fresh process (so its peak memory is its own), with the
default compiled engine and every budget lifted; times are CPU seconds of
that process (time.process_time) around the computation itself, loading and
compiling the ruleset excluded; wall time is printed beside.

- Risk: the 100 battles 1..10 attacking armies against 1..10 defending,
  exact, all in one process, against hand_chains.risk_attacker_wins:
  target under 1 s.
- A land battle to the finish, 5 infantry + 3 tanks against 6 infantry,
  exact with nothing truncated, against hand_chains.land_battle (every end
  state, fraction for fraction): target under 0.5 s.
- EIA naval combat, one round (battle_round) of one column of N ships of the
  line a side (the issue's "column_round"): 4 a side under 5 s and 500 MB,
  5 a side under 60 s.  No hand-written solver: tests/test_eia.py checks the
  small cases by hand.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _case_risk() -> dict:
    import hand_chains

    from interpreter import load_ruleset, odds
    from interpreter.limits import Limits

    ruleset = load_ruleset(HERE / "risk.yaml")
    unlimited = Limits(max_work=None, max_states=None, timeout=None)
    cpu, wall = time.process_time(), time.perf_counter()
    found = {}
    for attackers in range(1, 11):
        for defenders in range(1, 11):
            dist = odds(ruleset, "battle", {"attackers": attackers, "defenders": defenders}, limits=unlimited)
            found[attackers, defenders] = (dist.marginal(["outcome"]).probability("attacker_wins"), dist.truncated)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    hand_cpu = time.process_time()
    hand_chains.risk_attacker_wins.cache_clear()
    hand_chains.risk_round.cache_clear()
    expected = {(a, d): hand_chains.risk_attacker_wins(a, d) for a in range(1, 11) for d in range(1, 11)}
    hand_cpu = time.process_time() - hand_cpu
    wrong = [key for key in expected if found[key] != (expected[key], 0)]
    return {"cpu": cpu, "wall": wall, "hand_cpu": hand_cpu, "agree": not wrong,
            "detail": f"100 battles, P(10 v 10 attacker wins) = {float(expected[10, 10]):.6f}"}


def _case_land() -> dict:
    import hand_chains

    from interpreter import load_ruleset, odds
    from interpreter.limits import Limits

    ruleset = load_ruleset(HERE / "land_battle.yaml")
    unlimited = Limits(max_work=None, max_states=None, timeout=None)
    inputs = {"infantry": 5, "tanks": 3, "defenders": 6}
    cpu, wall = time.process_time(), time.perf_counter()
    dist = odds(ruleset, "battle", inputs, limits=unlimited)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    found = {}
    for outcome, p in dist.outcomes:
        if outcome.name == "attacker_wins":
            key = ("attacker_wins", outcome.get("infantry_left"), outcome.get("tanks_left"))
        elif outcome.name == "defender_holds":
            key = ("defender_holds", outcome.get("defenders_left"))
        else:
            key = ("both_destroyed",)
        found[key] = p
    hand_cpu = time.process_time()
    expected = hand_chains.land_battle(5, 3, 6)
    hand_cpu = time.process_time() - hand_cpu
    wins = sum((p for key, p in expected.items() if key[0] == "attacker_wins"), Fraction(0))
    return {"cpu": cpu, "wall": wall, "hand_cpu": hand_cpu, "agree": found == expected and dist.truncated == 0,
            "detail": f"{len(expected)} end states, attacker wins {float(wins):.4%}, truncated {dist.truncated}"}


def _case_eia(ships: int) -> dict:
    from interpreter import load_ruleset, odds
    from interpreter.limits import Limits

    ruleset = load_ruleset("eia")
    unlimited = Limits(max_work=None, max_states=None, timeout=None)
    column = [{"kind": "warship"}] * ships
    cpu, wall = time.process_time(), time.perf_counter()
    dist = odds(ruleset, "battle_round", {"attacker": [column], "defender": [column]}, limits=unlimited)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"cpu": cpu, "wall": wall, "hand_cpu": None, "agree": None,
            "detail": f"{len(dist.outcomes):,} end states, truncated {dist.truncated}"}


CASES = {
    "risk": ("Risk, 100 battles 1..10 v 1..10, exact", 1.0, None, _case_risk),
    "land": ("land battle 5 inf + 3 tanks v 6 inf, exact", 0.5, None, _case_land),
    "eia4": ("EIA battle_round, a column of 4 v 4 ships", 5.0, 500, lambda: _case_eia(4)),
    "eia5": ("EIA battle_round, a column of 5 v 5 ships", 60.0, None, lambda: _case_eia(5)),
}


def _child(name: str) -> int:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(HERE))
    result = CASES[name][3]()
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-eia-5", action="store_true", help="leave out the 5 v 5 EIA round (about a minute or more)")
    parser.add_argument("--give-up", type=float, default=600, help="seconds after which a case is stopped and reported unfinished (default 600)")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # run one case in this process (the child)
    args = parser.parse_args(argv)
    if args.case:
        return _child(args.case)
    rows = []
    for name, (label, target_s, target_mb, _) in CASES.items():
        if name == "eia5" and args.skip_eia_5:
            continue
        try:
            done = subprocess.run([sys.executable, __file__, "--case", name], check=False, capture_output=True, text=True, cwd=ROOT,
                                  timeout=args.give_up)
        except subprocess.TimeoutExpired:
            print(f"{label}: unfinished after {args.give_up:g} s; target {target_s:g} s: NOT met", flush=True)
            rows.append((label, target_s, target_mb, {"unfinished": args.give_up}))
            continue
        if done.returncode != 0:
            print(f"{label}: failed\n{done.stderr}", file=sys.stderr)
            rows.append((label, target_s, target_mb, None))
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        met = result["cpu"] < target_s and (target_mb is None or result["peak_mb"] < target_mb)
        hand = f", hand chain {result['hand_cpu']:.3f} s" if result["hand_cpu"] is not None else ""
        agree = {True: ", agrees with the hand chain", False: ", DISAGREES with the hand chain", None: ""}[result["agree"]]
        print(f"{label}: {result['cpu']:.3f} s CPU ({result['wall']:.3f} s wall), peak {result['peak_mb']:.0f} MB{hand}{agree}; "
              f"{result['detail']}; target {target_s:g} s{f' and {target_mb} MB' if target_mb else ''}: {'met' if met else 'NOT met'}",
              flush=True)
        rows.append((label, target_s, target_mb, result))
    print()
    print("| case | target | CPU s | peak MB | hand chain s | agrees | met |")
    print("|---|---|---:|---:|---:|---|---|")
    for label, target_s, target_mb, result in rows:
        target = f"< {target_s:g} s" + (f", < {target_mb} MB" if target_mb else "")
        if result is None:
            print(f"| {label} | {target} | failed | | | | no |")
            continue
        if "unfinished" in result:
            print(f"| {label} | {target} | unfinished after {result['unfinished']:g} | | | | no |")
            continue
        met = result["cpu"] < target_s and (target_mb is None or result["peak_mb"] < target_mb)
        hand = f"{result['hand_cpu']:.3f}" if result["hand_cpu"] is not None else "-"
        agree = {True: "yes", False: "NO", None: "-"}[result["agree"]]
        print(f"| {label} | {target} | {result['cpu']:.3f} | {result['peak_mb']:.0f} | {hand} | {agree} | {'yes' if met else 'no'} |")
    return 0 if all(r is not None and r.get("agree") is not False for *_, r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
