"""Dice pools: every face of N dice kept (``pool``), or the dice showing given faces counted (``successes``).

Both engines take their exact distributions from here.  A pool is kept
sorted highest first, so it has one state per multiset of faces, weighted by
the multinomial coefficient N! / (m1! m2! ...) of the orderings that give it:
C(N + S - 1, N) states for N dice of S faces (56 for 3d6), not S ** N.
Counting successes needs only the binomial weights C(N, j) k^j (S - k)^(N - j)
for j dice among N showing one of k faces.
"""

from __future__ import annotations

import itertools
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
