"""Summaries of exact odds and of Monte Carlo samples.

A :class:`~interpreter.api.Distribution` lists every outcome with its fields;
a player usually wants less: the chance of each number of hits whatever else
happened (a *marginal* over chosen fields), or the average of every numeric
field ("average units left").  A :class:`~interpreter.api.Sample` gets the
same, with the standard error of every estimate.

Everything here reads the results the evaluator produced; nothing asks the
evaluator for more.  ``outcome`` in a list of fields stands for the outcome's
name (as ``.outcome`` does in the procedure language).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

OUTCOME = "outcome"


def field_value(outcome: Any, field: str) -> Any:
    """The value of ``field`` in an outcome (its name for ``outcome``); None when it has no such field."""
    if field == OUTCOME:
        return outcome.name
    return outcome.get(field, None)


def numeric(value: Any) -> bool:
    """A whole number (true/false are not counted as numbers)."""
    return type(value) is int


def _order(keys: Iterable[tuple[Any, ...]], weight: dict) -> list[tuple[Any, ...]]:
    """Numeric keys in ascending order (0 hits, 1 hit, …); others most likely first."""
    keys = list(keys)
    if keys and all(all(numeric(v) for v in key) for key in keys):
        return sorted(keys)
    return sorted(keys, key=lambda key: (-weight[key], repr(key)))


# ---- exact distributions ----------------------------------------------------------------


@dataclass(frozen=True)
class Marginal:
    """Probabilities of the values of chosen fields, the rest summed out."""

    fields: tuple[str, ...]
    rows: tuple[tuple[tuple[Any, ...], Fraction], ...]
    truncated: Fraction = Fraction(0)

    def probability(self, *values: Any) -> Fraction:
        return sum((p for key, p in self.rows if key == tuple(values)), Fraction(0))

    def as_dict(self) -> dict[tuple[Any, ...], Fraction]:
        return dict(self.rows)


@dataclass(frozen=True)
class Mean:
    """The mean of a numeric outcome field over the outcomes that carry it.

    ``probability`` is the chance that the outcome carries the field (1 when
    every outcome does); the mean is conditional on it.  ``standard_error``
    is set for Monte Carlo estimates only.
    """

    field: str
    value: Fraction | float
    probability: Fraction | float
    standard_error: float | None = None


def marginal(distribution: Any, fields: Sequence[str]) -> Marginal:
    """The distribution over ``fields`` (``outcome`` for the name), other fields summed out."""
    fields = tuple(fields)
    totals: dict[tuple[Any, ...], Fraction] = {}
    for outcome, p in distribution.outcomes:
        key = tuple(field_value(outcome, f) for f in fields)
        totals[key] = totals.get(key, Fraction(0)) + p
    return Marginal(fields, tuple((key, totals[key]) for key in _order(totals, totals)), distribution.truncated)


def means(distribution: Any) -> dict[str, Mean]:
    """The exact mean of every numeric field, in the order fields first appear."""
    sums: dict[str, Fraction] = {}
    mass: dict[str, Fraction] = {}
    for outcome, p in distribution.outcomes:
        for name, value in outcome.fields:
            if numeric(value):
                sums[name] = sums.get(name, Fraction(0)) + p * value
                mass[name] = mass.get(name, Fraction(0)) + p
    return {name: Mean(name, sums[name] / mass[name], mass[name]) for name in sums if mass[name]}


def fields_of(outcomes: Iterable[Any]) -> list[str]:
    """Every field name the outcomes carry, in order of first appearance."""
    seen: dict[str, None] = {}
    for outcome in outcomes:
        for name, _ in outcome.fields:
            seen.setdefault(name, None)
    return list(seen)


# ---- Monte Carlo samples -----------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A share of the trials with its standard error, sqrt(p (1 - p) / n)."""

    key: tuple[Any, ...]
    count: int
    share: float
    standard_error: float


def proportion(count: int, trials: int) -> Estimate:
    share = count / trials
    return Estimate((), count, share, math.sqrt(share * (1 - share) / trials))


def sample_marginal(sample: Any, fields: Sequence[str]) -> list[Estimate]:
    fields = tuple(fields)
    counts: dict[tuple[Any, ...], int] = {}
    for outcome, count in sample.counts:
        key = tuple(field_value(outcome, f) for f in fields)
        counts[key] = counts.get(key, 0) + count
    estimates = []
    for key in _order(counts, counts):
        estimate = proportion(counts[key], sample.trials)
        estimates.append(Estimate(key, estimate.count, estimate.share, estimate.standard_error))
    return estimates


def sample_means(sample: Any) -> dict[str, Mean]:
    """The sample mean of every numeric field, with its standard error s / sqrt(k) (k trials carrying it)."""
    values: dict[str, list[tuple[int, int]]] = {}
    for outcome, count in sample.counts:
        for name, value in outcome.fields:
            if numeric(value):
                values.setdefault(name, []).append((value, count))
    result = {}
    for name, pairs in values.items():
        k, mean, squares = counted_moments(pairs)
        if k > 1:
            variance = squares / (k - 1)
            error = math.sqrt(variance / k)
        else:
            error = math.nan
        result[name] = Mean(name, float(mean), k / sample.trials, error)
    return result


def counted_moments(pairs: list[tuple[int, int]]) -> tuple[int, Fraction, Fraction]:
    """Over ``(value, count)`` pairs of whole numbers: the total count k, the mean, and the sum of the squared
    differences from it, sum(c (v - mean)^2), exactly.  Worked out in integers (S1 = sum(c v), S2 = sum(c v^2):
    the mean is S1/k and the squares (k S2 - S1^2)/k, the same fractions as summing Fractions pair by pair), so
    that a sample of a million distinct outcomes is summarised in a second, not minutes past its timeout."""
    k = s1 = s2 = 0
    for value, count in pairs:
        k += count
        s1 += value * count
        s2 += value * value * count
    return k, Fraction(s1, k), Fraction(k * s2 - s1 * s1, k)


# ---- spread and quantiles --------------------------------------------------------------
# Over the outcomes that carry the field, as ``means`` does: a field some outcomes lack is
# described where it is present (its ``Mean.probability`` says how often that is).


def numeric_weights(weighted: Iterable[tuple[Any, Any]], field: str) -> list[tuple[int, Any]]:
    """``(value, weight)`` of ``field`` in every outcome carrying it as a whole number, the weight
    a probability (exact odds) or a count (a sample)."""
    return [(value, weight) for outcome, weight in weighted if numeric(value := outcome.get(field, None))]


def variance(distribution: Any, field: str) -> Fraction:
    """The exact variance of ``field``: E[X²] - E[X]², as a Fraction (0 when no outcome carries it)."""
    pairs = numeric_weights(distribution.outcomes, field)
    mass = sum((p for _, p in pairs), Fraction(0))
    if not mass:
        return Fraction(0)
    mean = sum((p * v for v, p in pairs), Fraction(0)) / mass
    return sum((p * v * v for v, p in pairs), Fraction(0)) / mass - mean * mean


def sample_variance(sample: Any, field: str) -> float:
    """The unbiased sample variance of ``field`` (divided by k - 1, k the plays carrying it); NaN below 2 plays."""
    pairs = numeric_weights(sample.counts, field)
    k = sum(count for _, count in pairs)
    if k < 2:
        return math.nan
    mean = sum((Fraction(v) * c for v, c in pairs), Fraction(0)) / k
    return float(sum(((v - mean) ** 2 * c for v, c in pairs), Fraction(0)) / (k - 1))


def weighted_quantile(pairs: Sequence[tuple[int, Any]], q: Fraction) -> int | None:
    """The smallest value v with P(X <= v) >= q (q = 0 gives the least value); None without values.

    The lower quantile, a value the field really takes: the median of 1, 2, 3, 4 is 2, not 2.5.
    Worked out in exact fractions of the weights, so that q = 1/2 on a fair coin is exact.
    """
    total = sum(weight for _, weight in pairs)
    if not pairs or not total:
        return None
    needed = q * total
    running = 0
    values: dict[int, Any] = {}
    for value, weight in pairs:
        values[value] = values.get(value, 0) + weight
    ordered = sorted(values)
    for value in ordered:
        running += values[value]
        if running >= needed:
            return value
    return ordered[-1]
