"""A battle summary: what a player reads first when a procedure has too many outcomes to list.

A whole battle ends in hundreds of outcomes, each a name and a dozen fields
(``battle_over(reason = defender_destroyed, attacker_sunk = 0, ...)``); listed
one a line they fill screens, and the answer to "who wins, with what left" is
in none of the lines.  The summary answers it field by field:

- the chance of each outcome name, and of each value of every text or
  true/false field (``reason``): who wins, and how;
- the mean and standard deviation of every numeric field (ships sunk, ships
  left), and, for a count (never negative), the chance of at least 1, 2, ...

The same summary serves exact odds (probabilities, exact fractions in the
document) and samples (counts, each share with its standard error).  The
functions here make a plain-data document, as :mod:`results` does;
``render.text_summary`` prints it.  Everything is read from the outcomes the
evaluator produced; nothing is computed again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from . import results
from .summaries import OUTCOME, counted_moments, numeric
from .values import to_plain

# Values listed for one text field before the rest are summed into one line: a field with
# many values (a ship's name) would otherwise fill the screen the summary is meant to fit.
MAX_VALUES_SHOWN = 8
# "At least k" columns for a count: k = 1 .. this (or the largest count, when smaller).
MAX_AT_LEAST = 5


def _categorical(value: Any) -> bool:
    """A value a player reads as a kind of result (``reason``, ``won``): text or true/false."""
    return isinstance(value, (str, bool))


def _fields_in_order(weighted: Iterable[tuple[Any, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for outcome, _ in weighted:
        for name, _value in outcome.fields:
            seen.setdefault(name, None)
    return list(seen)


class _Weights:
    """How one kind of result turns a weight into shares: exact probabilities, or counts of plays.

    A probability's share is itself (``total`` 1); a count's is count / plays, with the standard
    error sqrt(p (1 - p) / plays) of a proportion.
    """

    def __init__(self, *, exact: bool, total: int | Fraction, digits: int | None):
        self.exact = exact
        self.total = total
        self.digits = digits
        self.zero: int | Fraction = Fraction(0) if exact else 0

    def share(self, weight: Any) -> dict[str, Any]:
        if self.exact:
            return {"probability": results.fraction(weight), "p": results.decimal(weight, self.digits)}
        p = weight / self.total
        error = math.sqrt(p * (1 - p) / self.total)
        return {"count": weight, "p": results.decimal(p, self.digits), "standard_error": results.decimal(error, self.digits)}


def _category(field: str, weighted: Sequence[tuple[Any, Any]], weights: _Weights) -> dict[str, Any] | None:
    """The shares of a text or true/false field's values (the outcome's name for ``outcome``), most
    likely first; None when the field also holds other kinds of value (then it is not a category)."""
    totals: dict[Any, Any] = {}
    absent = weights.zero
    for outcome, weight in weighted:
        value = outcome.name if field == OUTCOME else outcome.get(field, None)
        if value is None:  # no outcome field holds None: the outcome does not carry the field
            absent += weight
            continue
        if not _categorical(value):
            return None
        totals[value] = totals.get(value, weights.zero) + weight
    ordered = sorted(totals, key=lambda value: (-totals[value], repr(value)))
    shown, rest = ordered[:MAX_VALUES_SHOWN], ordered[MAX_VALUES_SHOWN:]
    entry: dict[str, Any] = {
        "field": field,
        "values": [{"value": to_plain(value), **weights.share(totals[value])} for value in shown],
    }
    if rest:
        entry["others"] = {"values": len(rest), **weights.share(sum((totals[v] for v in rest), weights.zero))}
    if absent:
        entry["absent"] = weights.share(absent)
    return entry


def _number(field: str, weighted: Sequence[tuple[Any, Any]], weights: _Weights) -> dict[str, Any] | None:
    """Mean, standard deviation, least and greatest value of a whole-number field, over the outcomes
    that carry it; for a count (no value below 0) the chance of at least k, over all outcomes."""
    pairs = [(value, weight) for outcome, weight in weighted if numeric(value := outcome.get(field, None))]
    carried = sum((weight for _, weight in pairs), weights.zero)
    if not pairs or not carried:
        return None
    if weights.exact:
        mean = sum((Fraction(value) * weight for value, weight in pairs), Fraction(0)) / carried
        squares = sum((Fraction(value - mean) ** 2 * weight for value, weight in pairs), Fraction(0))
    else:  # counts of plays: in integers (a sample may hold a million distinct outcomes)
        _, mean, squares = counted_moments(pairs)
    low, high = min(v for v, _ in pairs), max(v for v, _ in pairs)
    entry: dict[str, Any] = {"field": field, "min": low, "max": high}
    if weights.exact:
        variance = squares / carried
        entry.update(mean=results.fraction(mean), value=results.decimal(mean, weights.digits), probability=results.fraction(Fraction(carried)))
    else:  # the unbiased estimate (k - 1), and the standard error of the mean s / sqrt(k)
        variance = squares / (carried - 1) if carried > 1 else Fraction(0)
        entry.update(value=results.decimal(mean, weights.digits), probability=results.decimal(carried / weights.total, weights.digits))
        entry["standard_error"] = results.decimal(math.sqrt(variance / carried), weights.digits) if carried > 1 else None
    entry["sd"] = results.decimal(math.sqrt(variance), weights.digits)
    if low >= 0:
        entry["at_least"] = [
            {"k": k, **weights.share(sum((weight for value, weight in pairs if value >= k), weights.zero))}
            for k in range(1, min(high, MAX_AT_LEAST) + 1)
        ]
    return entry


def _summary(heading: dict[str, Any], weighted: Sequence[tuple[Any, Any]], weights: _Weights) -> dict[str, Any]:
    categories = [_category(OUTCOME, weighted, weights)]
    numbers, others = [], []
    for field in _fields_in_order(weighted):
        category = _category(field, weighted, weights)
        number = None if category is not None else _number(field, weighted, weights)
        if category is not None:
            categories.append(category)
        elif number is not None:
            numbers.append(number)
        else:
            others.append(field)
    return {
        **heading,
        "distinct_outcomes": len(weighted),
        "categories": [c for c in categories if c is not None],
        "numbers": numbers,
        "other_fields": others,
    }


def _heading(result: Any, defaults: Mapping[str, Any] | None) -> dict[str, Any]:
    """What ran; ``at_defaults`` names the inputs (and choices) left at their defaults, when ``defaults``
    says what those are: a summary shows the others (a battle has 29 inputs, most of them policies)."""
    inputs = {k: to_plain(v) for k, v in result.inputs.items()}
    heading = {
        "ruleset": result.ruleset,
        "procedure": result.procedure,
        "inputs": inputs,
        "illustrative_tables": list(result.illustrative_tables),
    }
    readings = getattr(result, "readings", None)  # the ruleset's readings a result rests on, where results carry them
    if readings:
        heading["readings"] = list(readings)
    if defaults is not None:
        heading["at_defaults"] = [name for name, value in inputs.items() if name in defaults and to_plain(defaults[name]) == value]
    return heading


def distribution_summary(distribution: Any, digits: int | None = None, defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The summary of exact odds (an ``api.Distribution``): every share an exact ``"p/q"`` beside its float.
    ``defaults`` (input or choice name: default value) lets the summary leave out the inputs at their defaults."""
    heading = {**_heading(distribution, defaults), "kind": "exact", "truncated": results.fraction(distribution.truncated)}
    return _summary(heading, distribution.outcomes, _Weights(exact=True, total=Fraction(1), digits=digits))


def sample_summary(sample: Any, digits: int | None = None, defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The summary of a sample (an ``api.Sample``): counts, shares and their standard errors (``defaults``:
    as for :func:`distribution_summary`)."""
    heading = {**_heading(sample, defaults), "kind": "sampled", "trials": sample.trials, "seed": sample.seed}
    return _summary(heading, sample.counts, _Weights(exact=False, total=sample.trials, digits=digits))
