"""``mirror a <-> b do ... end``: one side's code written once and run again for the other side.

A two-sided procedure repeats its logic with the sides exchanged: the attacker's column acts, then
the defender's does the same with every name turned round. ``mirror attacker <-> defender, a <-> d
do BLOCK end`` stands for BLOCK followed by BLOCK with the names exchanged, so the second copy is
never written by hand (and never drifts from the first).

What is exchanged, in the second copy: every name of the code (variables, inputs, constants, fields,
arguments, outcome names and fields, procedures, tables) that is one of a pair's words, or begins with
it and an underscore (``a`` and ``a_hit`` become ``d`` and ``d_hit``; ``attacker_orders`` becomes
``defender_orders``), and every text literal whose whole text is such a name (``"attacker_first_strike"``,
an enum value or an outcome name). In the prose of a note or a requirement, a word that is one of the
pairs' words is exchanged too ("The attacker's column acts." becomes "The defender's column acts."),
whole words only and never a single letter, which prose uses as a word of its own ("a"); the
expressions between a note's braces are code, exchanged like any other. A ``rule`` text quotes the
seed and is never changed.

The expansion is sugar, made as the parser builds the syntax tree: the checker, lint, both back ends
and the rulebook see the two copies as if written out. The copy keeps the written code's positions (as
:class:`~interpreter.errors.CopiedPos`), so an error in it is reported at the line it came from, saying
that it is about the copy. A mirror that exchanges nothing, a word paired with itself or a word in two
pairs is refused at the ``mirror`` line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from . import syntax
from .errors import CopiedPos, Pos, RulesetError

# The fields of syntax nodes that hold a name of the code (not text): everything else that is a str is
# text (a string literal's value is exchanged only when it reads as a name, see `_text`).
_NAME_FIELDS = {
    syntax.Name: ("name",),
    syntax.Attribute: ("name",),
    syntax.Arg: ("name",),
    syntax.Call: ("function",),
    syntax.Aggregate: ("function", "var"),
    syntax.Lookup: ("table",),
    syntax.ModifierSum: ("list_name",),
    syntax.Resolve: ("procedure",),
    syntax.Let: ("name",),
    syntax.Set: ("name",),
    syntax.For: ("var",),
    syntax.OutcomeField: ("name",),
    syntax.Outcome: ("name",),
    syntax.Binding: ("field", "name"),
}
# One pair of a mirror: each word with its position (for the message that refuses it).
Pair = tuple[tuple[Pos, str], tuple[Pos, str]]
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z0-9_]+")
# Prose texts of statements (a note's text and the literal parts between its braces; a requirement's message).
_PROSE_FIELDS = {syntax.Note: ("text", "parts"), syntax.Require: ("message",)}
_PLACEHOLDER = re.compile(r"(\{[^{}]*\})")  # a note's `{expression}`, as its text shows it


class CopyBudget:
    """The syntax nodes the mirrors of one procedure may copy: each mirror doubles its block, so mirrors nested in
    mirrors would grow a short text exponentially (twenty deep: a million copies). One budget a parse, the
    procedure token limit: a copy of more nodes than a ruleset may hold tokens is refused at the mirror."""

    def __init__(self, limit: int):
        self.limit = limit
        self.left = limit


class Exchange:
    """The pairs of one ``mirror``: which word becomes which, in both directions."""

    def __init__(self, pairs: Sequence[Pair], budget: CopyBudget, pos: Pos):
        self.budget = budget
        self.pos = pos
        self.header = "mirror " + ", ".join(f"{one} <-> {other}" for (_, one), (_, other) in pairs)
        self.words: dict[str, str] = {}
        for (one_pos, one), (other_pos, other) in pairs:
            if one == other:
                raise RulesetError(other_pos.diagnostic(f"`mirror` pairs '{one}' with itself: name two different words"))
            for word_pos, word in ((one_pos, one), (other_pos, other)):
                if word in self.words:
                    raise RulesetError(word_pos.diagnostic(f"`mirror` names '{word}' in two pairs: each word may be exchanged once"))
            self.words[one] = other
            self.words[other] = one
        self.used = False

    def name(self, name: str) -> str:
        """``name`` with its pair word exchanged (itself when it has none)."""
        exchanged = self.words.get(name)
        if exchanged is None:
            head, underscore, rest = name.partition("_")
            while underscore:  # the longest pair word the name begins with: `attacker_x` before `a` of `a_b_x`
                candidate = self.words.get(head)
                if candidate is not None:
                    exchanged = f"{candidate}_{rest}"
                head_more, underscore, rest = rest.partition("_")
                head = f"{head}_{head_more}"
            if exchanged is None:
                return name
        self.used = True
        return exchanged

    def text(self, value: str) -> str:
        """A text literal: exchanged when its whole text is a name the pairs exchange."""
        return self.name(value) if _IDENTIFIER.fullmatch(value) else value

    def prose(self, value: Any) -> Any:
        """A note's or requirement's words: a whole word of two letters or more that is a pair's word is exchanged."""
        if isinstance(value, tuple):
            return tuple(self.prose(part) if isinstance(part, str) else self.node(part) for part in value)

        def word(match: re.Match[str]) -> str:
            found = match.group(0)
            other = self.words.get(found) if len(found) > 1 else None
            if other is None:
                return found
            self.used = True
            return other

        # The text as written shows its placeholders' code too (the rulebook prints it): code there, prose around it.
        pieces = _PLACEHOLDER.split(value)
        return "".join(_IDENTIFIER.sub(lambda m: self.name(m.group(0)), piece) if index % 2 else _WORD.sub(word, piece)
                       for index, piece in enumerate(pieces))

    def node(self, node: Any) -> Any:
        """``node`` with every name exchanged (a new tree; the written one is left as it is)."""
        if isinstance(node, tuple):
            return tuple(self.node(item) for item in node)
        if isinstance(node, Pos):  # code copied by nested mirrors names the innermost mirror that copied it
            return node if isinstance(node, CopiedPos) else CopiedPos(node, self.header)
        if not dataclasses.is_dataclass(node) or isinstance(node, type):
            return node
        self.budget.left -= 1
        if self.budget.left < 0:
            raise RulesetError(self.pos.diagnostic(
                f"`mirror` copies too much code: the mirrors of one procedure may copy {self.budget.limit} syntax nodes "
                "(mirrors inside mirrors double the code at each level)"))
        changes: dict[str, Any] = {}
        names = _NAME_FIELDS.get(type(node), ())
        prose = _PROSE_FIELDS.get(type(node), ())
        for field in dataclasses.fields(node):
            value = getattr(node, field.name)
            if field.name in names:
                changed = value if value is None else self.name(value)  # an argument may have no name
            elif field.name in prose:
                changed = self.prose(value)
            elif isinstance(node, syntax.StrLit) and field.name == "value":
                changed = self.text(value)
            elif isinstance(value, (tuple, Pos, syntax.Expr, syntax.Stmt, syntax.Block, syntax.Arg, syntax.OutcomeField, syntax.Binding)):
                changed = self.node(value)
            else:
                continue
            if changed is not value:
                changes[field.name] = changed
        return dataclasses.replace(node, **changes) if changes else node


def mirrored(pos: Pos, pairs: Sequence[Pair], block: syntax.Block, budget: CopyBudget) -> tuple[syntax.Stmt, ...]:
    """The statements ``mirror PAIRS do BLOCK end`` stands for: BLOCK's, then BLOCK's with the pairs' words
    exchanged. Refused at ``pos`` when the exchange changes nothing (a misspelt word, most likely) or when the
    copy would take the parse past ``budget``."""
    exchange = Exchange(pairs, budget, pos)
    copy = exchange.node(block.statements)
    if not exchange.used:
        raise RulesetError(pos.diagnostic(
            f"`{exchange.header}` exchanges nothing: no name in its block is one of these words or begins with one and '_'"))
    return block.statements + copy

