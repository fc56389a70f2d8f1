"""``resolve P(a = x, ...)``: the arguments ``...`` stands for, as if written out.

A procedure that hands a battle on passes most of its inputs and choices unchanged, by the same
names (``attacker_orders = attacker_orders`` twenty times over). ``...`` after the written arguments
passes each input and choice of the callee that is not written and that the caller has too, as a
written ``NAME = NAME`` at the ``...``: the checker then checks it like any written argument, so the
generated code is that of the written-out call. Only the caller's own inputs and choices are passed
(not its variables or constants), so what ``...`` passes is read off the two procedures' headers.
"""

from __future__ import annotations

from collections.abc import Callable

from . import syntax
from .ruleset import Procedure


def passed_arguments(
    call: syntax.Resolve, callee: Procedure, caller: Procedure, error: Callable[[syntax.Pos, str], None],
) -> tuple[syntax.Arg, ...]:
    """The arguments ``...`` adds to ``call`` (none without ``...``), each positioned at the ``...``: a passed
    value of the wrong type is reported there by the checker, like a written one; a ``...`` that passes
    nothing is an error there too."""
    where = call.pass_rest
    if where is None:
        return ()
    written = {arg.name for arg in call.args}
    passed = []
    for name in [spec.name for spec in callee.inputs] + [choice.name for choice in callee.choices]:
        if name in written:
            continue
        if caller.input(name) is None and caller.choice(name) is None:
            continue
        passed.append(syntax.Arg(where, name, syntax.Name(where, name)))
    if not passed:
        error(where, f"`...` passes nothing: '{callee.name}' has no input or choice left unwritten that '{caller.name}' also has")
    return tuple(passed)



def passed_hint(call: syntax.Resolve, arg: syntax.Arg) -> str:
    """What a type error adds when the argument was passed by ``...`` (it stands at the ``...``)."""
    return f" (passed by `...`: write {arg.name} = ... before it)" if arg.pos is call.pass_rest else ""


def report_missing(call: syntax.Resolve, callee: Procedure, caller: Procedure, given: set[str],
                   error: Callable[[syntax.Pos, str], None]) -> None:
    """Each required input of ``callee`` the call does not give, at the call (at its ``...``, saying why it passed none)."""
    passing = f": `...` passes only what '{caller.name}' has by that name" if call.pass_rest else ""
    for spec in callee.inputs:
        if spec.required and spec.name not in given:
            error(call.pass_rest or call.pos, f"resolve {call.procedure}(...) is missing input '{spec.name}'{passing}")
