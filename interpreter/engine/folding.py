"""Rolls whose faces need not be followed one by one: counted per branch, or per table cell.

After a literal roll, the statements that follow usually run once per face.
Two common shapes need less: a roll read only by the conditions of the `if`
right after it (:func:`fold_target`: the faces are counted per branch), and a
roll read only as the row of a table lookup right after it
(:func:`fold_lookup`: the faces are counted per cell of the lookup's column).
The analysis functions say whether a roll folds; the writers write the
counting and give the header of the loop the rest runs in (once a branch,
or once a cell), which the caller opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import ir
from .expressions import SIMPLE
from .frame import literal_dice
from .sites import column_site, rows_by_key

if TYPE_CHECKING:  # pragma: no cover - types only
    from .exact import ExactWriter
    from .expressions import Expressions
    from .facts import Facts
    from .frame import Frame, Targets
    from .program import ProcedureCompiler
    from .writer import CodeWriter

Faces = tuple[tuple[int, int], ...]


def fold_target(facts: Facts, roll: ir.Roll, rest: tuple[Any, ...]) -> ir.If | None:
    """The `if` right after a roll when the die is read by its conditions only (not by its branches, nor
    after it): then the faces need only be counted per branch."""
    if not rest or type(rest[0]) is not ir.If:
        return None
    target, slot = rest[0], roll.slot
    if slot in facts.after[id(target)]:
        return None
    blocks = [body for _, body in target.branches] + ([target.otherwise] if target.otherwise is not None else [])
    if any(slot in facts.block_in[id(block)] for block in blocks):
        return None
    return target


def fold_lookup(facts: Facts, roll: ir.Roll, rest: tuple[Any, ...], faces: Faces) -> tuple[int, tuple[Faces, ...]] | None:
    """When the die is read only as the row of a table lookup right after it (a combat results table
    keyed by a die roll), (position of that statement in ``rest``, the cells per column index, each a
    tuple of (cell, ways)): the faces are then counted per cell, and the rest runs once a cell.

    The die may first be copied into a variable (``let die = 1d6``); neither may be read afterwards.
    Every total must land on a row and the column be a plain value, so the lookup's only possible
    error is its column's, which the first face would meet before any other work."""
    found = _lookup_reading(facts, roll, rest)
    if found is None:
        return None
    at, lookup = found
    keys = facts.ranges.get(lookup.row.slot) if type(lookup.row) is ir.Local else None
    by_key = rows_by_key(lookup.table, keys) if keys is not None else None
    if by_key is None or any(total >= len(by_key) or by_key[total] is None for total, _ in faces):
        return None
    return at, _cells_per_column(by_key, faces)


def _lookup_reading(facts: Facts, roll: ir.Roll, rest: tuple[Any, ...]) -> tuple[int, ir.Lookup] | None:
    """(its position in ``rest``, the lookup) when the statement right after the roll (or after a copy of
    the die) looks the die up as a row, with a plain column, and nothing reads the die afterwards."""
    slots = {roll.slot}
    at = 0
    first = rest[0] if rest else None
    if type(first) is ir.Assign and type(first.value) is ir.Local and first.value.slot == roll.slot:
        slots.add(first.slot)
        at = 1
    target = rest[at] if len(rest) > at else None
    if type(target) is not ir.Assign or type(target.value) is not ir.Lookup:
        return None
    lookup = target.value
    if type(lookup.row) is not ir.Local or lookup.row.slot not in slots or not _plain_column(lookup, slots):
        return None
    if (slots - {target.slot}) & facts.after[id(target)]:
        return None  # the die is read again later
    return at, lookup


def _plain_column(lookup: ir.Lookup, die_slots: set[int]) -> bool:
    """Whether the lookup's column and shift are plain values (constants, inputs, variables) other than the die."""
    if lookup.table.columns is not None and (type(lookup.column) not in SIMPLE or (lookup.shift is not None and type(lookup.shift) not in SIMPLE)):
        return False
    return not any(type(e) is ir.Local and e.slot in die_slots for e in (lookup.column, lookup.shift))


def _cells_per_column(by_key: tuple[Any, ...], faces: Faces) -> tuple[Faces, ...]:
    """For each column index, the cells the faces reach there, each with its ways (faces reaching a cell summed)."""
    width = len(by_key[faces[0][0]])
    per_column = []
    for column in range(width):
        ways: dict[Any, int] = {}
        for total, count in faces:
            cell = by_key[total][column]
            ways[cell] = ways.get(cell, 0) + count
        per_column.append(tuple(ways.items()))
    return tuple(per_column)


def roll_checks(c: ProcedureCompiler, w: CodeWriter, roll: ir.Roll, targets: Targets, faces: Faces) -> None:
    """Whether the limits allow the roll, and its faces counted as states (each face is one, folded or not)."""
    pos = c.module.ref(roll.pos, "p")
    count, sides = literal_dice(roll)
    # the dice are literal: whether the limits allow them is known once per call
    fits = w.need(f"DOK{count}_{sides}", f"{count} <= rt.limits.max_dice_per_roll and {sides} <= rt.limits.max_faces and {len(faces)} <= rt.limits.max_roll_totals")
    w.line(f"if not {fits}: rt.check_dice({count}, {sides}, {pos}, True)")
    targets.counted = True
    w.line(f"n += {len(faces)}")
    w.line(f"if n > MS: rt.too_many_states({pos})")


def folded_branches_header(c: ProcedureCompiler, w: CodeWriter, roll: ir.Roll, target: ir.If, once: Expressions, faces: Faces) -> str:
    """A roll that only chooses a branch of ``target``: its faces counted per branch (the conditions read
    for each face, in order, as written); the header of the loop over branches (``v<slot>`` the branch's
    number, ``c`` its ways), in which the branch and what follows run once a branch."""
    slot = f"v{roll.slot}"
    groups = w.temp("G")

    def count_per_branch() -> None:
        w.line(f"{groups} = {{}}")
        with w.block(f"for {slot}, c in {c.module.ref(faces, 'faces')}:"):
            for number, (condition, _) in enumerate(target.branches):
                w.line(f"{'if' if number == 0 else 'elif'} {once(condition)}: {groups}[{number}] = {groups}.get({number}, 0) + c")
            otherwise = len(target.branches)
            w.line(f"else: {groups}[{otherwise}] = {groups}.get({otherwise}, 0) + c")

    # conditions that read nothing of the state but the die (inputs, constants): counted once a call
    if all(c.facts.uses(condition) <= {roll.slot} for condition, _ in target.branches):
        w.need(groups, "UNSET")
        with w.block(f"if {groups} is UNSET:"):
            count_per_branch()
    else:
        count_per_branch()
    return f"for {slot}, c in {groups}.items():"


def folded_lookup_header(c: ProcedureCompiler, w: CodeWriter, target: ir.Assign, per_column: tuple[Faces, ...], once: Expressions) -> str:
    """A roll read only as a lookup's row (see fold_lookup): the header of the loop over the cells of the
    lookup's column, each with the faces that reach it, in which the statements after the lookup run."""
    lookup = target.value
    assert type(lookup) is ir.Lookup
    if lookup.table.columns is None:
        column = "0"
    else:
        site = c.module.ref(column_site(lookup.table, lookup.pos), "lkc")
        column = f"{site}({once(lookup.column)}, {once(lookup.shift) if lookup.shift is not None else '0'})"
    return f"for v{target.slot}, c in {c.module.ref(per_column, 'cells')}[{column}]:"


def chosen_branches(exact: ExactWriter, w: CodeWriter, statement: ir.If, chosen: str, expressions: Expressions, frame: Frame) -> bool:
    """An `if` whose branch is already chosen (its number in ``chosen``); True when every branch ends."""
    all_end = True
    for number, (_, body) in enumerate(statement.branches):
        with w.block(f"{'if' if number == 0 else 'elif'} {chosen} == {number}:"):
            all_end = exact.straight.branch(w, body, expressions, frame) and all_end
    if statement.otherwise is None:
        return False
    with w.block("else:"):
        all_end = exact.straight.branch(w, statement.otherwise, expressions, frame) and all_end
    return all_end
