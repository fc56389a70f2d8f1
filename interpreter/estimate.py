"""Exact where it can be, sampled where it cannot: ``odds --auto`` and :func:`auto_odds`.

Why a probe and not a formula: how many states exact odds enumerate depends on what
the procedure does with its dice (a battle's states multiply with every ship a side;
a minefield's stay flat), and no cheap reading of the text tells which.  So the probe
*is* the exact computation, run under a share of the budget (PROBE_SHARE of the work,
the states and the time).  When it finishes, that is the answer, exact, at no extra
cost.  When it runs out, exact odds would need more than the share it spent (the
estimate is a lower bound, said as such), and the procedure is sampled instead, in
the fixed-seed chunks of :mod:`parallel`, until the largest standard error of an
outcome's share is at most the one asked for.

The sampling is deterministic whatever the number of workers: after a first batch of
FIRST_CHUNKS chunks, the plays still needed are worked out from the shares counted so
far (``p(1 - p) / se**2`` for the least certain share), rounded up to whole chunks,
and played as the next chunks in order; every decision rests on counts that are the
same for any ``jobs``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .api import Distribution, Sample, check_jobs, odds, outcome_tally, sampling_job
from .arguments import check_callable, check_type, misuse
from .limits import Budget, LimitExceeded, Limits
from .parallel import CHUNK_PLAYS, run_tasks

# The share of each budget (work, states, time) the exact attempt may spend before sampling takes over.
PROBE_SHARE = 0.25
# The standard error sampled to when none is asked for: ±0.5 percentage points on every share.
DEFAULT_SE = 0.005
# The smallest standard error one may ask for: 0.25 / MIN_SE**2 = 25 million plays at worst.
MIN_SE = 0.0001
# The budgets an exact attempt may run out of and be replaced by sampling; any other breach is an error.
TRADED = ("max_work", "max_states", "timeout")
# Chunks in the first batch of plays, before the shares say how many more are needed.
FIRST_CHUNKS = 4


@dataclass(frozen=True)
class AutoOdds:
    """What ``auto_odds`` found: the exact distribution, or a sample with its error bars.

    ``mode`` is "exact" (``distribution`` set) or "sampled" (``sample`` set, with
    ``standard_error``: the largest of any outcome's share, ``requested_se``, ``exact_work``:
    the units of work the exact attempt spent without finishing, so exact needs more, and
    ``estimated_outcomes``: the distinct outcomes the sample suggests (Chao1 estimator)).
    """

    mode: str
    distribution: Distribution | None = None
    sample: Sample | None = None
    standard_error: float | None = None
    requested_se: float | None = None
    exact_work: int | None = None
    estimated_outcomes: int | None = None

    def label(self) -> str:
        """One line saying how the numbers were found, for the text output."""
        if self.sample is None:
            return "exact"
        return (f"sampled (exact would need more than {self.exact_work:,} units of work; ~{self.estimated_outcomes:,} distinct outcomes): "
                f"{self.sample.trials:,} plays, ± {self.standard_error:.4f}")

    def to_json(self) -> dict[str, Any]:
        """The result's document (``results``'s, from its Distribution or Sample) with how it was found."""
        if self.sample is None:
            assert self.distribution is not None  # an exact result holds its distribution
            return {**self.distribution.to_json(), "mode": "exact"}
        return {**self.sample.to_json(), **self.labels()}

    def labels(self) -> dict[str, Any]:
        """The fields a sampled result's JSON adds to the sample's own."""
        return {"mode": "sampled", "standard_error": self.standard_error, "requested_se": self.requested_se,
                "exact_work_spent": self.exact_work, "estimated_outcomes": self.estimated_outcomes}


def check_se(se: Any) -> float:
    """``se``, checked: a number from MIN_SE to below 0.5 (a share's standard error never reaches 0.5)."""
    if isinstance(se, bool) or not isinstance(se, (int, float)) or not MIN_SE <= se < 0.5:
        raise misuse(f"se is a standard error from {MIN_SE} to below 0.5, not {se!r}")
    return float(se)


def auto_odds(
    ruleset: Any,
    procedure: str,
    inputs: Mapping[str, Any] | None = None,
    *,
    se: float = DEFAULT_SE,
    seed: int | None = None,
    choices: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> AutoOdds:
    """Exact odds when they fit PROBE_SHARE of the budget, else Monte Carlo to standard error ``se``.

    The timeout holds for the whole call (the exact attempt and the sampling); ``jobs``
    worker processes play the chunks (the same counts for any number); ``progress(done,
    total)`` follows the plays of each batch.
    """
    se = check_se(se)
    jobs = check_jobs(jobs)
    check_type(limits, Limits, "limits", "a Limits(...)", optional=True)
    check_callable(progress, "progress")
    limits = limits or Limits()
    clock = Budget(limits)  # the call's deadline, from now
    probe = Budget(_probe_limits(limits))
    if clock.deadline is not None and (probe.deadline is None or probe.deadline > clock.deadline):
        probe.deadline = clock.deadline
    try:
        return AutoOdds("exact", distribution=odds(ruleset, procedure, inputs, choices=choices, budget=probe))
    except LimitExceeded as error:
        if error.limit not in TRADED or (error.limit == "timeout" and clock.deadline == probe.deadline):
            raise
    return _sampled(ruleset, procedure, inputs, se, seed, choices, limits, jobs, progress, clock, probe.work)


def _probe_limits(limits: Limits) -> Limits:
    """The limits of the exact attempt: PROBE_SHARE of the work, the states and the time (a lifted one stays lifted)."""
    def share(value: Any, kind: type) -> Any:
        return None if value is None else max(kind(value * PROBE_SHARE), kind(1))

    return dataclasses.replace(limits, max_work=share(limits.max_work, int), max_states=share(limits.max_states, int),
                               timeout=share(limits.timeout, float))


def _sampled(
    ruleset: Any, procedure: str, inputs: Any, se: float, seed: int | None, choices: Any, limits: Limits, jobs: int,
    progress: Callable[[int, int], None] | None, clock: Budget, exact_work: int,
) -> AutoOdds:
    """Chunks of plays in order until the largest standard error of a share is at most ``se`` (or max_trials is reached)."""
    job, limits, compiled = sampling_job(ruleset, procedure, inputs, seed=seed, choices=choices, limits=limits, engine="compiled")
    here = job.start(clock.deadline)
    most_chunks = max(1, limits.max_trials // CHUNK_PLAYS)
    tally = outcome_tally(limits, compiled)
    played, wanted = 0, min(FIRST_CHUNKS, most_chunks)
    while True:
        planned = [(index, CHUNK_PLAYS) for index in range(played, wanted)]
        run_tasks(job, planned, jobs, deadline=clock.deadline, timed_out=lambda: clock.timed_out(compiled.body.pos),
                  progress=progress, state=here, fold=tally.add)
        played = wanted
        sample = job.sample(tally.total, played * CHUNK_PLAYS)
        spread = largest_share_spread(sample)
        if math.sqrt(spread / sample.trials) <= se or played >= most_chunks:
            break
        needed = math.ceil(spread / (se * se) / CHUNK_PLAYS)
        wanted = min(max(needed, played + 1), most_chunks)
    return AutoOdds("sampled", sample=sample, standard_error=math.sqrt(spread / sample.trials), requested_se=se,
                    exact_work=exact_work, estimated_outcomes=estimated_outcomes(sample))


def largest_share_spread(sample: Sample) -> float:
    """The largest p(1 - p) over the shares of every outcome and of every outcome name: its square root
    over sqrt(trials) is the largest standard error of a share."""
    by_name: dict[str, int] = {}
    shares = []
    for outcome, count in sample.counts:
        by_name[outcome.name] = by_name.get(outcome.name, 0) + count
        shares.append(count)
    shares.extend(by_name.values())
    return max((count / sample.trials) * (1 - count / sample.trials) for count in shares)


def estimated_outcomes(sample: Sample) -> int:
    """The distinct outcomes the whole distribution has, estimated from the sample (bias-corrected Chao1):
    those seen, plus f1 (f1 - 1) / (2 (f2 + 1)) for the f1 seen once and the f2 seen twice."""
    once = sum(1 for _, count in sample.counts if count == 1)
    twice = sum(1 for _, count in sample.counts if count == 2)
    return len(sample.counts) + (once * (once - 1)) // (2 * (twice + 1))
