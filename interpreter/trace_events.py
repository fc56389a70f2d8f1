"""Trace events: what the evaluator records of each step, and the words that tell it.

The evaluator records data only (the step, its values, the rule and the
source line); :func:`describe` words an event for people, and
:func:`public_fields` gives the fields a machine reads.  The text and JSON
reporters both take the message from here, so no English is assembled where
procedures run, and a step's wording changes in one place.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .values import brief, show, to_plain


@dataclass(frozen=True)
class TraceEvent:
    """One step of an explanation: ``kind`` for filtering (roll, lookup, shift, clamp, modifier, set, note,
    call, outcome), ``data`` the step's values with ``step`` naming what happened (a note whose step is
    ``omitted`` stands for the steps a long play left out: see BoundedTrace)."""

    kind: str
    rule: str | None = None
    depth: int = 0
    where: str = ""
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, name: str, default: Any = None) -> Any:
        for key, value in self.data:
            if key == name:
                return value
        return default

    @property
    def message(self) -> str:
        return describe(self)


class BoundedTrace:
    """The steps a play records, at most ``limit`` of them: the first half and the last half.

    A play may run a loop of 150,000 rounds: its whole trace took 387 MB and
    printed 28.7 MB of JSON.  The steps between the head and the tail are
    counted, not kept; :meth:`events` puts one step in their place saying how
    many were left out (a ``note``, so every reporter shows it as it is).
    """

    __slots__ = ("head", "head_size", "left_out", "tail")

    def __init__(self, limit: int):
        self.head_size = (limit + 1) // 2
        self.head: list[TraceEvent] = []
        self.tail: deque[TraceEvent] = deque(maxlen=limit - self.head_size)
        self.left_out = 0

    def append(self, event: TraceEvent) -> None:
        if len(self.head) < self.head_size:
            self.head.append(event)
            return
        tail = self.tail
        if len(tail) == tail.maxlen:
            self.left_out += 1  # the oldest step of the tail drops out
        tail.append(event)

    def events(self) -> tuple[TraceEvent, ...]:
        """The steps kept, in order, with one in place of those left out between the head and the tail."""
        if not self.left_out:
            return (*self.head, *self.tail)
        depth = self.tail[0].depth if self.tail else 0
        gap = TraceEvent("note", None, depth, "", (
            ("step", "omitted"), ("count", self.left_out), ("first", len(self.head)), ("last", len(self.tail)),
        ))
        return (*self.head, gap, *self.tail)


def describe(event: TraceEvent) -> str:
    """The step in words, as the trace prints it."""
    data = dict(event.data)
    return _WORDING[data["step"]](data)


def public_fields(event: TraceEvent) -> dict[str, Any]:
    """The step's fields as plain data (JSON): its recorded values, and a roll's ``dice`` as written."""
    data = dict(event.data)
    fields = {key: to_plain(value) for key, value in data.items()}
    if data["step"] == "roll":
        fields["dice"] = _dice_label(data)
    return fields


# ---- the words of each step --------------------------------------------------------------


def _dice_label(data: dict) -> str:
    label = _plain_dice_label(data)
    if "rerolling" in data:  # reroll(...): the faces each die was rolled again on
        faces = ", ".join(map(str, data["rerolling"]))
        return f"{label} re-rolling {faces} {'once' if data['once'] else 'until none is left'}"
    return label


def _plain_dice_label(data: dict) -> str:
    count, sides = data["count"], data["sides"]
    if data["form"] == "pool":
        return f"pool({count}, {sides})"
    if data["form"] == "successes":
        return f"{count}d{sides} counting {', '.join(map(str, data['counting'])) or 'no face'}"
    return data["text"] if data["text"] != "dice" else f"{count}d{sides}"


def _roll(data: dict) -> str:
    faces, form = data["faces"], data["form"]
    if form == "pool":
        shown = ", ".join(map(str, faces)) + f" -> {show(data['value'])}"
    elif form == "successes":
        value = data["value"]
        shown = ", ".join(map(str, faces)) + f" -> {value} success{'' if value == 1 else 'es'}"
    else:
        shown = " + ".join(map(str, faces)) + (f" = {data['total']}" if len(faces) > 1 else "")
    return f"roll {_dice_label(data)}: {shown}"


def _shift_amount(value: int) -> str:
    return f"{abs(value)}{'R' if value > 0 else 'L'}"


def _modifier_entry(data: dict) -> str:
    value = data["value"]
    if data["shifts"]:
        return f"column shift {_shift_amount(value)}: {data['label']}"
    return f"DRM {value:+d}: {data['label']}"


def _modifier_total(data: dict) -> str:
    total = data["total"]
    if data["shifts"]:
        return f"{data['list']}: net column shift {_shift_amount(total) if total else '0'}"
    return f"{data['list']}: net DRM {total:+d}"


def _column_shift(data: dict) -> str:
    shift = data["shift"]
    direction = "right" if shift > 0 else "left"
    clamped = " (clamped at the edge)" if data["clamped"] else ""
    return f"{data['table_title']}: column {data['from_column']} shifted {abs(shift)} {direction}{clamped} -> {data['column']}"


def _lookup(data: dict) -> str:
    where = f"row {data['row']}" + (f", column {data['column']}" if data["column"] is not None else "")
    return f"{data['table_title']}: {where} -> {show(data['value'])}"


_WORDING: dict[str, Callable[[dict], str]] = {
    "note": lambda data: data["text"],
    "omitted": lambda data: (
        f"... {data['count']:,} steps left out (max_trace_steps: the first {data['first']:,} "
        f"and the last {data['last']:,} are kept) ..."
    ),
    "set": lambda data: f"{data['name']} = {brief(data['value'])}",
    "roll": _roll,
    "call": lambda data: f"resolve {data['procedure']}: {data['title']}",
    "outcome": lambda data: f"outcome {brief(data['outcome'], 400)}",
    "row_clamp": lambda data: f"{data['table_title']}: row key {data['key']} is off the table; clamped to row {data['row']}",
    "column_clamp": lambda data: f"{data['table_title']}: column key {data['key']} is off the table; clamped to column {data['column']}",
    "column_shift": _column_shift,
    "lookup": _lookup,
    "modifier_entry": _modifier_entry,
    "modifier_total": _modifier_total,
}
