"""Dice pools: every face of N dice kept (``pool``), or the dice showing given faces counted (``successes``);
and dice re-rolled on given faces (``reroll``), counted in every form by their face weights.

Both engines take their exact distributions from here.  A pool is kept
sorted highest first, so it has one state per multiset of faces, weighted by
the multinomial coefficient N! / (m1! m2! ...) of the orderings that give it:
C(N + S - 1, N) states for N dice of S faces (56 for 3d6), not S ** N.
Counting successes needs only the binomial weights C(N, j) k^j (S - k)^(N - j)
for j dice among N showing one of k faces.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from math import comb, factorial

from .errors import RuleViolation
from .limits import breach


def pool_size(count: int, sides: int) -> int:
    """How many distinct pools (multisets of faces) ``count`` dice of ``sides`` faces make."""
    return comb(count + sides - 1, count)


def check_pool(count: int, sides: int, pos, limits) -> None:
    """Exact odds follow at most max_roll_totals distinct pools a roll (checked before any is made)."""
    size = pool_size(count, sides)
    if size > limits.max_roll_totals:
        raise breach(pos, "max_roll_totals", f"pool({count}, {sides}) has {size:,} distinct rolls, more than exact odds follow")


def pool_work(count: int, sides: int) -> int:
    """The work units making a pool's distribution costs: a unit a face of every pool."""
    return pool_size(count, sides) * (count + 1)


def pool_distribution(count: int, sides: int) -> dict[tuple, int]:
    """Each pool (faces highest first) and the number of the sides ** count rolls that give it."""
    orderings = factorial(count)
    ways: dict[tuple, int] = {}
    # combinations of the faces taken highest first come out sorted highest first
    for faces in itertools.combinations_with_replacement(range(sides, 0, -1), count):
        weight = orderings
        for _, run in itertools.groupby(faces):
            weight //= factorial(sum(1 for _ in run))
        ways[faces] = weight
    return ways


def counted_faces(faces: tuple, sides: int, pos) -> frozenset:
    """The faces ``successes`` counts, each a face of the die (a positioned error otherwise)."""
    for face in faces:
        if not 1 <= face <= sides:
            raise RuleViolation(pos.diagnostic(f"successes() counts face {face}, but the dice have faces 1 to {sides}"))
    return frozenset(faces)


def successes_distribution(count: int, sides: int, hits: int) -> dict[int, int]:
    """Ways (of sides ** count) that exactly j of ``count`` dice show one of ``hits`` faces, for each j.

    C(count, j) hits^j misses^(count - j), each term made from the last by a
    multiplication and a division of long integers (math.comb and two powers
    for each j took 70 ms for 1,000 dice; this takes about 2).
    """
    misses = sides - hits
    if hits == 0 or misses == 0:  # every face counts, or none: a single total
        return {count if misses == 0 else 0: sides**count}
    ways = {}
    term = misses**count  # j = 0: C(count, 0) misses^count
    for j in range(count + 1):
        ways[j] = term
        # C(n, j+1) h^(j+1) m^(n-j-1) = C(n, j) h^j m^(n-j) * (n - j) h / ((j + 1) m), exactly
        term = term * (count - j) * hits // ((j + 1) * misses)
    return ways


def successes_work(count: int, sides: int) -> int:
    """Work units making a successes distribution costs: a unit for each of its count + 1 terms, and one more a
    term for each 4,096 bits of sides ** count (a term is a multiplication and a division of integers that long;
    1,000 six-sided dice: 1,001 units, about 1 ms)."""
    return (count + 1) * (1 + (count * sides.bit_length() >> 12))


# ---- re-rolls --------------------------------------------------------------------------------------------------------
# A die re-rolled on some faces is still one die, with unequal faces: its face distribution is a list of integer
# weights over a common total, worked out once (not a tree of nested rolls).  Every form then counts N such dice
# as it counts plain ones, with the weights in place of 1: a total by the power of a polynomial, a pool by the
# multinomial weight times each face's weight to its multiplicity, successes by the binomial of the hit weight.


def rerolled_faces(faces: tuple, sides: int, once: bool, pos) -> frozenset:
    """The faces ``reroll`` re-rolls, each a face of the die, and not every face when a die is rolled until none is
    left: it would roll for ever (a positioned error otherwise)."""
    for face in faces:
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= sides:
            raise RuleViolation(pos.diagnostic(f"reroll() re-rolls face {face}, but the dice have faces 1 to {sides}"))
    rerolled = frozenset(faces)
    if not once and len(rerolled) == sides:
        raise RuleViolation(pos.diagnostic(f"reroll() re-rolls every face of a d{sides}: no roll would ever stand"))
    return rerolled


def reroll_face_weights(sides: int, rerolled: frozenset, once: bool) -> tuple[tuple[int, ...], int]:
    """Each face's weight (faces 1 to ``sides``) on one die re-rolled on ``rerolled``, and their total.

    Once: a face kept at the first roll stands (S ways of the unrolled second die), and any face may come up on
    the re-roll, after one of the r re-rolled faces: w = S + r for a kept face, r for a re-rolled one, out of
    S ** 2 (the d6 re-rolling 1s: a 6 is 7/36, a 1 is 1/36).  Until none is left: the geometric series
    (1 + r/S + (r/S)^2 + ...) / S sums to 1 / (S - r) for each kept face, exactly: w = 1 out of S - r.
    """
    r = len(rerolled)
    if once:
        return tuple(r if face in rerolled else sides + r for face in range(1, sides + 1)), sides * sides
    return tuple(0 if face in rerolled else 1 for face in range(1, sides + 1)), sides - r


def weighted_sum_distribution(count: int, weights: tuple[int, ...], each_die: Callable[[], None] | None = None) -> dict[int, int]:
    """Ways (out of sum(weights) ** count) of each total of ``count`` dice whose face f has weight weights[f - 1].

    The generating polynomial (w1 + w2 x + ... + wS x^(S-1)) ** count as one big integer power when it fits, as
    runtime.dice_distribution does for plain dice; otherwise one die at a time, calling ``each_die`` after each (a
    look at the clock: with the work budget lifted, a thousand d100s would otherwise run past any timeout).
    """
    sides, total = len(weights), sum(weights)
    if count == 0:
        return {0: 1}
    totals = count * (sides - 1) + 1
    width = _packed_width(count, total)
    if totals * width * 8 <= PACKED_BITS:
        base = 1 << (width * 8)
        one = sum(weight * base**power for power, weight in enumerate(weights))
        packed = (one**count).to_bytes(totals * width, "little")
        found = {count + offset: int.from_bytes(packed[offset * width:(offset + 1) * width], "little") for offset in range(totals)}
        return {key: ways for key, ways in found.items() if ways}
    ways: dict[int, int] = {0: 1}
    for _ in range(count):
        step: dict[int, int] = {}
        for so_far, times in ways.items():
            for face, weight in enumerate(weights, 1):
                if weight:
                    step[so_far + face] = step.get(so_far + face, 0) + times * weight
        ways = step
        if each_die is not None:
            each_die()
    return ways


# the largest generating polynomial worked out as one integer power, in bits (as runtime.dice_distribution)
PACKED_BITS = 1 << 22


def _packed_width(count: int, total: int) -> int:
    """Bytes a coefficient of the packed polynomial takes: each is below total ** count, with room to spare."""
    return (total**count).bit_length() // 8 + 1


def weighted_sum_work(count: int, weights: tuple[int, ...], plain_work: int) -> int:
    """Work units :func:`weighted_sum_distribution` costs: the plain roll's (``plain_work``) when the polynomial
    fits one integer power, else that times the faces that can show, for it adds every face to every total so
    far, die by die (100 d100s re-rolled once: 5 million steps, refused by the default budget, not left to run)."""
    totals = count * (len(weights) - 1) + 1
    if count == 0 or totals * _packed_width(count, sum(weights)) * 8 <= PACKED_BITS:
        return plain_work
    return plain_work * sum(1 for weight in weights if weight)


def weighted_pool_distribution(count: int, weights: tuple[int, ...]) -> dict[tuple, int]:
    """Each pool (faces highest first) of ``count`` dice whose face f has weight weights[f - 1], and its ways out of
    sum(weights) ** count: the multinomial coefficient times each face's weight to the power of its multiplicity.
    Faces of weight 0 (re-rolled until none is left) appear in no pool."""
    orderings = factorial(count)
    possible = [face for face in range(len(weights), 0, -1) if weights[face - 1]]
    ways: dict[tuple, int] = {}
    for faces in itertools.combinations_with_replacement(possible, count):
        weight = orderings
        for face, run in itertools.groupby(faces):
            times = sum(1 for _ in run)
            weight = weight // factorial(times) * weights[face - 1] ** times
        ways[faces] = weight
    return ways

