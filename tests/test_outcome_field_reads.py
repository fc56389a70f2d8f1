"""Reading a field of a resolved outcome in compiled code: tried as an outcome first where the checker knows it is one.

Exact odds keep resolved outcomes in their states, so ``acting.attacker`` is read from an ``OutcomeValue``
every time; the compiled read tests that kind first (``ir.Field.of_outcome``) and a record second, and an
outcome without the field still gets the general read's message.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import procedure

from interpreter import odds, resolve
from interpreter.engine import procedure_source
from interpreter.errors import RuleViolation

ENGINES = ("compiled", "reference")

CALLEE = procedure('let d = 1d6\nif d >= 5 then\n  outcome hit(damage = d - 4)\nend\noutcome miss')
# reads .damage only after a hit: rolls 5 and 6 of 6 hit, for damage 1 and 2 -> 1/6 each; 1-4 miss -> 4/6
CALLER = procedure('let shot = resolve fire()\nif shot.outcome == "hit" then\n  outcome damaged(by = shot.damage)\nend\noutcome unhurt')
# reads .damage whatever the outcome: a miss has none
CARELESS = procedure('let shot = resolve fire()\noutcome read(by = shot.damage)')


@pytest.mark.parametrize("engine", ENGINES)
def test_a_resolved_outcomes_field_counts_by_hand(make_ruleset, engine):
    rules = make_ruleset({"fire": CALLEE, "p": CALLER})
    dist = odds(rules, "p", engine=engine)
    assert dist.probability("damaged", by=1) == Fraction(1, 6) and dist.probability("damaged", by=2) == Fraction(1, 6)
    assert dist.probability("unhurt") == Fraction(2, 3)
    # a play: dice 6 -> a hit of 2
    assert resolve(rules, "p", dice=[6], trace=False, engine=engine).outcome.get("by") == 2


def test_the_exact_code_tries_an_outcome_first(make_ruleset):
    rules = make_ruleset({"fire": CALLEE, "p": CALLER})
    exact = procedure_source(rules, "p", "exact")
    read = next(line for line in exact.splitlines() if "'damage'" in line)
    assert read.index("is OUT") < read.index("is REC")


@pytest.mark.parametrize("engine", ENGINES)
def test_an_outcome_without_the_field_is_refused_in_odds_and_plays(make_ruleset, engine):
    rules = make_ruleset({"fire": CALLEE, "p": CARELESS})
    with pytest.raises(RuleViolation, match="has no field 'damage'"):
        odds(rules, "p", engine=engine)
    with pytest.raises(RuleViolation, match="has no field 'damage'"):
        resolve(rules, "p", dice=[1], trace=False, engine=engine)  # 1: a miss
