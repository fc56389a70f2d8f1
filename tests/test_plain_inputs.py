"""The generated input check of the common API call (ProcedureCode.plain_inputs).

``odds``, ``resolve`` and ``monte_carlo`` check a plain call (a dict of ints,
bools and strs) with a function generated per procedure.  It must take exactly
what ``prepare_inputs`` takes as it is, give the same inputs (defaults filled
in), and hand everything else (misspelt names, values to coerce, refusals) to
the general path, which words the error.
"""

from __future__ import annotations

import json

import pytest
from conftest import procedure

from interpreter import odds
from interpreter.api import prepare_inputs
from interpreter.errors import UsageError

BOUND = 2**64 - 1  # inputs hold at most 64 bits, sign apart (Limits.max_int_bits)

HOSTILE = "'); __import__('os').system('echo pwned') #\n\\x41 \"\"\""

INPUTS = (
    '{n: {type: int, min: -3, max: 5}, free: {type: int}, big: {type: int, min: 0, default: 2}, '
    'flag: {type: bool, default: false}, side: {type: enum, values: [a, ' + json.dumps(HOSTILE) + '], default: a}, '
    'label: {type: str, default: ' + json.dumps(HOSTILE) + '}}'
)
BODY = """
    if flag then
      outcome flagged(n = n, side = side)
    end
    outcome plain(n = n, free = free, big = big, side = side, label = label)
"""


@pytest.fixture
def ruleset(make_ruleset):
    return make_ruleset({"p": procedure(BODY, inputs=INPUTS)})


class Subclass(dict):
    pass


CALLS = [
    {"n": 0, "free": 0},
    {"n": -3, "free": -BOUND},  # both ends that are allowed
    {"n": 5, "free": BOUND, "big": BOUND},
    {"n": 5, "free": 0, "side": HOSTILE, "label": "x", "flag": True},
    {"n": 6, "free": 0},  # over max
    {"n": -4, "free": 0},  # under min
    {"n": 0, "free": BOUND + 1},  # 65 bits
    {"n": 0, "free": -BOUND - 1},
    {"n": 0, "free": 0, "big": -1},
    {"n": True, "free": 0},  # a bool is not an int input
    {"n": 0, "free": 0, "flag": 1},  # nor an int a bool
    {"n": 0, "free": 0, "side": "b"},  # not one of the values
    {"n": 0, "free": 0, "label": 7},
    {"n": 0, "free": "3"},  # coerced by the general path
    {"n": 0},  # a required input missing
    {"n": 0, "free": 0, "nn": 1},  # a misspelt name
    {"n": 0, "free": 0, 5: 1},
    Subclass(n=0, free=0),
]


@pytest.mark.parametrize("given", CALLS, ids=range(len(CALLS)))
def test_plain_check_takes_what_prepare_inputs_takes_as_it_is(ruleset, given):
    checked = ruleset.program("p").plain_inputs(given)
    try:
        prepared = prepare_inputs(ruleset.compiled["p"], given)
    except UsageError:
        assert checked is None  # the general path words the refusal
        return
    plain = type(given) is dict and all(type(v) in (int, bool, str) for v in given.values()) and given.get("free") != "3"
    if not plain:
        assert checked is None
        return
    assert checked is not None, "a plain call must take the fast path"
    inputs, values = checked
    assert inputs == prepared and list(inputs) == list(prepared)
    assert values == tuple(prepared[name] for name in ("n", "free", "big", "flag", "side", "label"))


def test_the_fast_and_general_paths_give_one_answer(ruleset):
    # the same call through odds: plain, and with choices given (empty), which takes the general path
    fast = odds(ruleset, "p", {"n": 2, "free": 4})
    general = odds(ruleset, "p", {"n": 2, "free": 4}, choices={})
    assert fast.inputs == general.inputs == {"n": 2, "free": 4, "big": 2, "flag": False, "side": "a", "label": HOSTILE}
    assert fast.outcomes == general.outcomes
    (outcome, probability), = fast.outcomes  # no die: one outcome, certain
    assert probability == 1 and outcome.get("label") == HOSTILE


def test_the_none_and_the_empty_call(make_ruleset):
    ruleset = make_ruleset({"p": procedure("outcome done(n = n)", inputs="{n: {type: int, default: 3}}")})
    code = ruleset.program("p")
    assert code.plain_inputs(None) == ({"n": 3}, (3,))
    assert code.plain_inputs({}) == ({"n": 3}, (3,))


def test_procedures_with_choices_take_the_general_path(make_ruleset):
    body = """
        if tactic == "close" then
          outcome near
        end
        outcome away
    """
    ruleset = make_ruleset({"p": procedure(body, choices="{tactic: {options: [close, far], default: close}}")})
    assert ruleset.program("p").plain_inputs({}) is None
    assert odds(ruleset, "p").probability("near") == 1  # default option 'close' -> near, certain


def test_user_text_reaches_the_check_only_as_a_literal(ruleset):
    source = ruleset.program("p").source
    assert repr(HOSTILE) in source  # the default, written with repr()
    assert HOSTILE not in source.replace(repr(HOSTILE), "")
    assert ruleset.program("p").plain_inputs({"n": 0, "free": 0})[0]["label"] == HOSTILE
