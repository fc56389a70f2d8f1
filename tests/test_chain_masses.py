"""The chain solver's masses (chains.py): reduced (numerator, denominator) pairs, added as Fractions add.

solve_until pushes each state's mass on to the states after it hundreds of thousands of times
in a battle; it keeps them as integer pairs instead of Fractions.  These tests hold the pair
arithmetic to Fraction's, value for value and reduced, on cases counted by hand and on many
seeded random ones.
"""

from __future__ import annotations

import random
from fractions import Fraction

from interpreter import chains


def test_a_share_added_to_nothing_and_to_a_mass():
    masses: dict = {}
    # 1/6 * 3 = 1/2 (the 3 and the 6 share a factor 3)
    chains._add(masses, {"a": 3}, (1, 6))
    assert masses["a"] == (1, 2)
    # 1/2 + 1/3 * 1 = 5/6
    chains._add(masses, {"a": 1}, (1, 3))
    assert masses["a"] == (5, 6)
    # 5/6 + 1/6 = 1/1: the sum reduced (6/6)
    chains._add(masses, {"a": 1}, (1, 6))
    assert masses["a"] == (1, 1)


def test_a_step_adds_every_key_but_the_one_skipped():
    masses: dict = {"a": (1, 2)}
    # 1/4 pushed through weights a 2, b 1, c 1, skipping c: a = 1/2 + 2/4 = 1/1, b = 1/4, c untouched
    chains._add(masses, {"a": 2, "b": 1, "c": 1}, (1, 4), "c")
    assert masses == {"a": (1, 1), "b": (1, 4)}


def test_pairs_add_as_fractions_do():
    rng = random.Random(24)
    for _ in range(2000):
        masses: dict = {}
        expected = Fraction(0)
        for _ in range(rng.randint(1, 6)):
            share = Fraction(rng.randint(1, 10**rng.randint(1, 30)), rng.randint(1, 10**rng.randint(1, 30)))
            weight = rng.randint(1, 1000)
            chains._add(masses, {"k": weight}, (share.numerator, share.denominator))
            expected += share * weight
        # the same value, and reduced: the very numerator and denominator Fraction keeps
        assert masses["k"] == (expected.numerator, expected.denominator)


def test_a_loop_with_a_self_round_sums_its_geometric_series():
    # a state that stays with 1/6 a round and ends with 5/6 ("x" 2 of 6, "y" 3 of 6): the stay summed
    # as a series, the rest scaled by 1 / (1 - 1/6): x = 2/5, y = 3/5
    rounds = {"s": chains.Round(True, None, {"s": 1}, {"x": 2, "y": 3}, {}, 6)}

    class Budget:
        def charge(self, units, pos):
            pass

        def check_states(self, count, pos):
            pass

    chain = chains.Chain(rounds.__getitem__, Budget(), None)
    finished, exits, denom = chains.solve_until(chain, {"s": 1}, 1, str)
    assert exits == {}
    assert {key: Fraction(w, denom) for key, w in finished.items()} == {"x": Fraction(2, 5), "y": Fraction(3, 5)}
