"""The checker's part for ``reroll(...)``: dice rolled again on some faces, once or until another face shows.

``reroll(1d6, [1])`` re-rolls a die showing 1, once (the rulebook's "re-roll 1s": the second result stands);
``reroll(1d6, [1, 2], until_none)`` rolls it again until it shows neither.  The first argument is any roll —
``2d6``, ``dice(n, s)``, ``pool(n, s)``, ``successes(n, s, faces)`` — and each of its dice is re-rolled on its
own.  The roll is the plain roll's, checked by the checker's own ``_roll``; this module adds the faces to roll
again and how often to the ir.Roll that it hoisted, so both back ends see one Roll statement with a re-roll.

Kept apart from checker.py, which holds every other construct and is near its size cap.
"""

from __future__ import annotations

from typing import Any

from . import ir, syntax
from .errors import RuleViolation
from .pools import rerolled_faces
from .values import ANY, INT, Type

# the calls reroll() takes as its roll, and the kind of ir.Roll each makes
ROLL_FORMS = {"dice": "sum", "pool": "pool", "successes": "successes"}
# the third argument's words: whether a die is rolled again once only
MODES = {"once": True, "until_none": False}
USAGE = "reroll(roll, faces) or reroll(roll, faces, once | until_none)"


def check_reroll(checker: Any, expr: syntax.Call, scope: Any, context: Any) -> tuple[ir.Expr, Type]:
    """``reroll(roll, faces[, mode])`` checked and hoisted as one ir.Roll with its re-roll; errors at their arguments."""
    args = expr.args
    if not 2 <= len(args) <= 3:
        checker.error(expr.pos, f"{USAGE} takes two or three arguments")
        return ir.Const(expr.pos, None), ANY
    once = _mode(checker, args[2].value) if len(args) == 3 else True
    plain = _plain_roll(checker, args[0].value)
    if plain is None:
        return ir.Const(expr.pos, None), ANY
    kind, count, sides, faces, text = plain
    hoist = context.hoist
    before = len(hoist) if hoist is not None else 0
    value, result = checker._roll(expr.pos, count, sides, text, scope, context, kind, faces)
    if hoist is None or len(hoist) == before:  # dice cannot be rolled here: _roll said so
        return value, result
    inner = type(context)(None, "the faces to roll again cannot themselves be rolled", context.where)
    faces_source = args[1].value
    faces_ir, faces_type = checker._expr(faces_source, scope, inner)
    faces_ir = checker.expect_list_of(faces_source, faces_type, INT, "reroll", faces_ir)
    roll: ir.Roll = hoist[-1]  # what _roll hoisted: the plain roll
    _check_known_faces(checker, faces_source, faces_ir, roll.sides, once)
    hoist[-1] = roll._replace(reroll=faces_ir, reroll_once=once)
    return value, result


def _mode(checker: Any, mode: syntax.Expr) -> bool:
    if isinstance(mode, syntax.Name) and mode.name in MODES:
        return MODES[mode.name]
    checker.error(mode.pos, "reroll()'s third argument says how often a die is rolled again: `once` (the default) or `until_none`")
    return True


def _plain_roll(checker: Any, roll: syntax.Expr) -> tuple[str, syntax.Expr, syntax.Expr, syntax.Expr | None, str] | None:
    """(kind, count, sides, counted faces, text) of the roll reroll() takes, or None (reported)."""
    if isinstance(roll, syntax.Dice):
        return "sum", roll.count, roll.sides, None, roll.text
    if isinstance(roll, syntax.Call) and roll.function in ROLL_FORMS and all(arg.name is None for arg in roll.args):
        kind = ROLL_FORMS[roll.function]
        wanted = 3 if kind == "successes" else 2
        if len(roll.args) == wanted:
            faces = roll.args[2].value if kind == "successes" else None
            return kind, roll.args[0].value, roll.args[1].value, faces, roll.function
    checker.error(roll.pos, "reroll() rolls dice again: its first argument is a roll "
                            "(`1d6`, `dice(n, s)`, `pool(n, s)` or `successes(n, s, faces)`)")
    return None


def _check_known_faces(checker: Any, source: syntax.Expr, faces: ir.Expr, sides: ir.Expr, once: bool) -> None:
    """Faces off the die, or every face rolled again until none is left, refused at load when both are written out."""
    known = ir.literal_ints(faces)
    if known is None or type(sides) is not ir.Const or type(sides.value) is not int or sides.value < 1:
        return
    try:
        rerolled_faces(known, sides.value, once, source.pos)
    except RuleViolation as error:
        checker.error(source.pos, error.diagnostics[0].message)
