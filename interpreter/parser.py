"""Text -> typed AST for the procedure language.

The LALR parser is built once per process from ``grammar.lark`` (package
data) and never with Lark's ``cache=True`` (see shared/notes/safety.md).
DSL text usually sits inside a YAML file; a :class:`TextOrigin` maps the
parser's line and column back to that file so errors point into the YAML.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer_NonRecursive, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from . import syntax
from .errors import Diagnostic, RulesetError, Source
from .load_limits import DEFAULT_LOAD_LIMITS, LoadLimits, OverLimit
from .mirror import CopyBudget, mirrored

# YAML counts these as line breaks (errors.LINE_BREAK) and keeps LS and PS in a
# scalar's value: the parser sees them as the line breaks they are in the file,
# so its line numbers stay the file's.
_AS_NEWLINE = str.maketrans({"\x85": "\n", "\u2028": "\n", "\u2029": "\n"})
# The pre-scan's tokens: a string, a comment (not counted), a word or number,
# a two-character operator, any other character.  Close to the grammar's own
# tokens, and far cheaper to count than to parse.
_TOKEN_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z0-9_]+|//|==|!=|<=|>=|\.\.|\S')
# What the bracket scan looks at: strings and comments (skipped), brackets.
_BRACKET_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[(\[]|[)\]]')


# What a `{value}` inside a note string costs of the token budget: its own parse (see _note_parts) costs
# about as much as 40 tokens of procedure text, so a note of 60,000 values is refused before any is parsed.
NOTE_VALUE_TOKENS = 40


class TokenBudget:
    """The procedure tokens one ruleset may hold (:attr:`LoadLimits.max_procedure_tokens`).

    One per load: the builder spends every procedure body and modifier
    condition from it *before* parsing any, so a ruleset over the budget is
    refused at once, not after seconds of parsing.
    """

    def __init__(self, limits: LoadLimits):
        self.limit = limits.max_procedure_tokens
        self.left = self.limit

    def spend(self, text: str, origin_of: Callable[[], TextOrigin]) -> None:
        """Take ``text``'s tokens; RulesetError at the first token past the budget (``origin_of()`` places it)."""
        text = text.translate(_AS_NEWLINE)
        for match in _TOKEN_SCAN.finditer(text):
            token = match.group()
            if token[0] == "#":
                continue
            # a note's `{value}` is parsed on its own, at about a millisecond a parse (a token costs ~25 us)
            self.left -= 1 + (NOTE_VALUE_TOKENS * token.count("{") if token[0] == '"' else 0)
            if self.left < 0:
                pos = origin_of().pos(*_line_column(text, match.start()))
                raise RulesetError(pos.diagnostic(
                    f"too much procedure text: the procedures and conditions of one ruleset may hold {self.limit} tokens in all"
                ))


@dataclass(frozen=True)
class TextOrigin:
    """Where DSL text sits in its file.

    Line 1 of the text is ``first_line`` of the file; its column 1 is
    ``first_column`` of the file; later lines start at ``other_column``
    (the indent of a YAML literal block).
    """

    source: Source
    first_line: int = 1
    first_column: int = 1
    other_column: int = 1
    # For a quoted or folded YAML scalar: the file's (line, column) of every
    # character of the text, since escapes and folding move them.
    char_map: tuple[tuple[int, int], ...] | None = None
    text: str = ""

    @functools.cached_property
    def _line_starts(self) -> tuple[int, ...]:
        """Where each line of ``text`` starts, as the parser counts lines (computed once)."""
        text = self.text.translate(_AS_NEWLINE)
        return (0,) + tuple(index + 1 for index, char in enumerate(text) if char == "\n")

    def pos(self, line: int, column: int) -> syntax.Pos:
        if self.char_map is not None:
            starts = self._line_starts
            index = starts[line - 1] + column - 1 if line <= len(starts) else len(self.text)
            if 0 <= index < len(self.char_map):
                file_line, file_column = self.char_map[index]
                return syntax.Pos(self.source, file_line, file_column)
            if self.char_map and index >= len(self.char_map):
                file_line, file_column = self.char_map[-1]
                return syntax.Pos(self.source, file_line, file_column + 1)
        base = self.first_column if line == 1 else self.other_column
        return syntax.Pos(self.source, self.first_line + line - 1, base + column - 1)


@functools.cache
def _parser() -> Lark:
    """One LALR parser for both start symbols: a procedure body ("start") and a lone expression ("expr")."""
    grammar = resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=True, maybe_placeholders=True, start=["start", "expr"])


_FRIENDLY_TERMINALS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": 'a "string"',
    "DICE": "a die such as 2d6",
    "COMP_OP": "a comparison",
    "$END": "the end of the text",
}


def _describe_terminal(name: str, parser: Lark) -> str:
    if name in _FRIENDLY_TERMINALS:
        return _FRIENDLY_TERMINALS[name]
    for terminal in parser.terminals:
        if terminal.name == name:
            return f"'{terminal.pattern.value}'"
    return name


def _syntax_error(error: UnexpectedInput, origin: TextOrigin, parser: Lark, text: str) -> RulesetError:
    # described tokens ("a name") before literal ones ("'{'"): after `let`, "expected a name, '{'"
    expected = sorted({_describe_terminal(n, parser) for n in (getattr(error, "expected", None) or ())}, key=lambda t: (t[0] == "'", t))
    expected_text = f"; expected {', '.join(expected)}" if expected and len(expected) <= 12 else ""
    if isinstance(error, UnexpectedToken):
        hint = _slip_hint(error, text)
        if hint is not None:
            return RulesetError(origin.pos(hint[0], hint[1]).diagnostic(hint[2]))
        if error.token.type == "$END":
            message = f"unexpected end of procedure{expected_text}"
        elif error.token.type == "DICE" and "NAME" in (error.expected or ()):
            message = f"syntax error: '{error.token}' is a die roll and cannot be a name; pick another name"
        else:
            message = f"syntax error: unexpected '{error.token}'{expected_text}"
    elif isinstance(error, UnexpectedCharacters):
        message = f"syntax error: unexpected character {error.char!r}"
    elif isinstance(error, UnexpectedEOF):
        message = f"unexpected end of procedure{expected_text}"
    else:  # pragma: no cover - lark adds no other kinds today
        message = f"syntax error: {error}"
    line = getattr(error, "line", None) or 1
    column = getattr(error, "column", None) or 1
    at_end = isinstance(error, UnexpectedEOF) or (isinstance(error, UnexpectedToken) and error.token.type == "$END")
    if at_end or line < 1:
        # lark gives $END the last token's position; the problem is just after it
        line, column = _last_token_end(text)
    pos = origin.pos(line, column)
    return RulesetError(pos.diagnostic(message))


# Statements that open a block closed by `end`, as the parser names their first token.
_OPENERS = {"IF": "if", "FOR": "for", "WHILE": "while"}


def _slip_hint(error: UnexpectedToken, text: str) -> tuple[int, int, str] | None:
    """A common slip behind a syntax error, as (line, column, message) where the slip is; None for any other error.

    ``=`` for ``==`` in a condition; a bare assignment without ``let`` or ``set``; ``else if`` for ``elif``;
    a block never closed with ``end``, reported at the statement that opened it, not at the end of the text.
    """
    token, expected = error.token, set(error.expected or ())
    line, column = token.line or 1, token.column or 1
    if token.type == "EQUAL" and "COMP_OP" in expected:
        return line, column, "syntax error: unexpected '=': to compare, write == (a single = only follows let NAME, set NAME, or a field or argument name)"
    if token.type == "NAME" and "LET" in expected and re.match(r"[ \t]*=(?!=)", text[token.end_pos:]):
        return line, column, (f"syntax error: unexpected '{token}': a statement starts with a keyword; write `let {token} = ...` "
                              f"for a new name, or `set {token} = ...` to change one")
    if token.type != "$END" or "END" not in expected:
        return None
    return _unclosed_hint(error, text)


def _unclosed_hint(error: UnexpectedToken, text: str) -> tuple[int, int, str] | None:
    """The text ended inside a block: where the innermost block still open starts (an `else if` is named as such)."""
    stack = getattr(getattr(error.interactive_parser, "parser_state", None), "value_stack", ())
    opened = [item for item in stack if isinstance(item, Token) and item.type in (*_OPENERS, "ELSE")]
    for item in reversed(opened):
        line, column = item.line or 1, item.column or 1
        if item.type == "ELSE" and re.match(r"[ \t]*if\b", text[item.end_pos:]):
            return line, column, ("syntax error: `else if` opens a second `if` inside the `else`, which needs an `end` of its own: "
                                  "write `elif CONDITION then` instead")
        if item.type in _OPENERS:
            return line, column, f"unexpected end of procedure: this `{_OPENERS[item.type]}` is never closed with `end`"
    return None


def _line_column(text: str, index: int) -> tuple[int, int]:
    """The parser's 1-based line and column of character ``index`` of ``text``."""
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def _check_brackets(text: str, origin: TextOrigin, limits: LoadLimits) -> None:
    """Refuse brackets nested past the depth limit before parsing: a cheap linear scan.

    (The parser would accept 100,000 nested parentheses, after several seconds.)
    """
    depth = 0
    for match in _BRACKET_SCAN.finditer(text):
        bracket = match.group()
        if bracket in "([":
            depth += 1
            if depth > limits.max_procedure_depth:
                pos = origin.pos(*_line_column(text, match.start()))
                raise RulesetError(pos.diagnostic(f"procedure is nested too deeply: more than {limits.max_procedure_depth} brackets open at once"))
        elif bracket in ")]":
            depth = max(depth - 1, 0)


def _too_deep(tree: Tree, limit: int) -> Tree | None:
    """The first node nested deeper than ``limit`` (or None); iterative, never recursive."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return node
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1))
    return None


def _last_token_end(text: str) -> tuple[int, int]:
    """Line and column just after the last character that is not space or a comment."""
    lines = text.split("\n")
    for number in range(len(lines), 0, -1):
        code = lines[number - 1].split("#", 1)[0].rstrip()
        if code:
            return number, len(code) + 1
    return 1, 1


def _operator(node: type[syntax.Logical | syntax.Binary], op: str) -> Any:
    """The transformer method of one binary operator of the grammar: ``node(pos, op, left, right)``."""

    @v_args(meta=True)
    def build(self: _ToAst, meta: Any, children: list) -> syntax.Expr:
        return node(self._pos(meta), op, children[0], children[1])

    return build


@dataclass(frozen=True)
class _Mirrored:
    """A ``mirror`` block's statements (both copies), until the enclosing block splices them in."""

    statements: tuple[syntax.Stmt, ...]


class _ToAst(Transformer_NonRecursive):
    """Lark tree -> frozen dataclasses, positions mapped through the origin."""

    def __init__(self, origin: TextOrigin, limits: LoadLimits):
        super().__init__()
        self.origin = origin
        self.limits = limits
        self.mirror_budget = CopyBudget(limits.max_procedure_tokens)

    def _literal(self, parse, token: Token):
        """A number or die literal, held to the loading limits (positioned at the token)."""
        try:
            return parse(str(token))
        except OverLimit as error:
            raise RulesetError(self._tok(token).diagnostic(str(error))) from None

    def _pos(self, meta) -> syntax.Pos:
        if getattr(meta, "empty", True):
            return self.origin.pos(1, 1)
        return self.origin.pos(meta.line, meta.column)

    def _tok(self, token: Token) -> syntax.Pos:
        if token.line is None or token.column is None:  # a token the lexer did not place (as an empty meta)
            return self.origin.pos(1, 1)
        return self.origin.pos(token.line, token.column)

    # -- statements
    @v_args(meta=True)
    def start(self, meta, children):
        return children[0]

    @v_args(meta=True)
    def block(self, meta, children):
        statements: list[syntax.Stmt] = []
        for child in children:  # a mirror stands for its statements, spliced in place (mirror.py)
            statements.extend(child.statements if isinstance(child, _Mirrored) else (child,))
        return syntax.Block(self._pos(meta), tuple(statements))

    @v_args(meta=True)
    def mirror_stmt(self, meta, children):
        *pairs, body = children
        return _Mirrored(mirrored(self._pos(meta), pairs, body, self.mirror_budget))

    def exchange(self, children):
        one, other = children
        return ((self._tok(one), str(one)), (self._tok(other), str(other)))

    @v_args(meta=True)
    def let_stmt(self, meta, children):
        name, value = children
        return syntax.Let(self._pos(meta), str(name), value)

    @v_args(meta=True)
    def set_stmt(self, meta, children):
        name, value = children
        return syntax.Set(self._pos(meta), str(name), value)

    # -- records (issue 23): destructuring, record update, outcome from
    @v_args(meta=True)
    def let_destructure(self, meta, children):
        return syntax.Destructure(self._pos(meta), children[0], children[1], True)

    @v_args(meta=True)
    def set_destructure(self, meta, children):
        return syntax.Destructure(self._pos(meta), children[0], children[1], False)

    def destructure(self, children):
        return tuple(children)

    def bind(self, children):
        field, name = children
        if field.type == "OUTCOME" and name is None:
            raise RulesetError(self._tok(field).diagnostic(
                "`outcome` is a keyword, so it cannot name a variable: write `outcome as result` to bind the outcome's name "
                "(or read it as `r.outcome`)"))
        return syntax.Binding(self._tok(field), str(field), str(name) if name is not None else str(field))

    def outcome_word(self, children):
        return children[0]  # the token `outcome`: the outcome's name, as a destructured field (see grammar.lark)

    def new_word(self, children):
        return children[0]  # the token itself: `from`, `as`, `with` used as a name (see grammar.lark)

    @v_args(meta=True)
    def record_update(self, meta, children):
        subject, *fields = children
        return syntax.RecordUpdate(self._pos(meta), subject, tuple(fields))

    @v_args(meta=True)
    def outcome_from(self, meta, children):
        source, fields, rule = children
        if fields is None and isinstance(source, syntax.Call) and all(arg.name is not None for arg in source.args):
            # `outcome from result(losses = 1)`: the grammar reads a name and its fields as a call (a shift
            # over a reduce); built-in and helper calls take no named arguments, so these are the fields
            fields = [syntax.OutcomeField(arg.pos, arg.name, arg.value) for arg in source.args if arg.name is not None]
            source = syntax.Name(source.pos, source.function)
        return syntax.OutcomeFrom(self._pos(meta), source, tuple(fields or ()), rule)

    @v_args(meta=True)
    def if_stmt(self, meta, children):
        condition, body, *rest = children
        branches = [(condition, body)]
        otherwise = None
        for clause in rest:
            if clause is None:
                continue
            kind, payload = clause
            if kind == "elif":
                branches.append(payload)
            else:
                otherwise = payload
        return syntax.If(self._pos(meta), tuple(branches), otherwise)

    def elif_clause(self, children):
        return ("elif", (children[0], children[1]))

    def else_clause(self, children):
        return ("else", children[0])

    @v_args(meta=True)
    def for_stmt(self, meta, children):
        var, iterable, body = children
        return syntax.For(self._pos(meta), str(var), iterable, body)

    @v_args(meta=True)
    def while_stmt(self, meta, children):
        condition, limit, body = children
        return syntax.While(self._pos(meta), condition, limit, body)

    @v_args(meta=True)
    def break_stmt(self, meta, children):
        return syntax.Break(self._pos(meta))

    @v_args(meta=True)
    def outcome_stmt(self, meta, children):
        name, fields, rule = children
        return syntax.Outcome(self._pos(meta), str(name), tuple(fields or ()), rule)

    def field_list(self, children):
        return [c for c in children if c is not None]

    @v_args(meta=True)
    def field(self, meta, children):
        name, value = children
        return syntax.OutcomeField(self._tok(name), str(name), value)

    def rule_ref(self, children):
        return _unquote(children[0])

    @v_args(meta=True)
    def require_stmt(self, meta, children):
        condition, message = children
        return syntax.Require(self._pos(meta), condition, _unquote(message))

    @v_args(meta=True)
    def note_stmt(self, meta, children):
        token, rule = children
        return syntax.Note(self._pos(meta), _unquote(token), self._note_parts(token), rule)

    def _note_parts(self, token: Token) -> tuple[str | syntax.Expr, ...]:
        """A note's text cut at its ``{expression}`` placeholders (empty when it has no brace at all)."""
        raw = str(token)[1:-1]
        if "{" not in raw and "}" not in raw:
            return ()
        parts: list[str | syntax.Expr] = []
        literal, index = [], 0
        while index < len(raw):
            char = raw[index]
            if char in "{}" and raw[index + 1:index + 2] == char:  # {{ and }} are braces
                literal.append(char)
                index += 2
                continue
            if char == "}":
                raise RulesetError(self._note_pos(token, index).diagnostic("a lone '}' in a note: write '}}' for a brace"))
            if char != "{":
                literal.append(char)
                index += 1
                continue
            end = _closing_brace(raw, index)
            if end is None:
                raise RulesetError(self._note_pos(token, index).diagnostic(
                    "a '{' in a note opens a value to show and is never closed: write '{{' for a brace"))
            if literal:
                parts.append(_unquote('"' + "".join(literal) + '"'))
                literal = []
            parts.append(self._note_expression(token, raw, index + 1, end))
            index = end + 1
        if literal:
            parts.append(_unquote('"' + "".join(literal) + '"'))
        return tuple(parts)

    def _note_expression(self, token: Token, raw: str, start: int, end: int) -> syntax.Expr:
        text = _unquote('"' + raw[start:end] + '"')
        pos = self._note_pos(token, start)
        if not text.strip():
            raise RulesetError(pos.diagnostic("an empty '{}' in a note: put the value to show inside, or write '{{}}' for braces"))
        origin = TextOrigin(pos.source, pos.line, pos.column, pos.column)
        try:
            return _parse(text, origin, "expr", self.limits)
        except RulesetError as error:  # say where the text came from: a value inside a note
            raise RulesetError([
                Diagnostic(d.file, d.line, d.column, f"in a note's {{…}}: {d.message.replace('end of procedure', 'end of the value')}", d.line_text)
                for d in error.diagnostics
            ]) from None

    def _note_pos(self, token: Token, index: int) -> syntax.Pos:
        """The file position of character ``index`` of the note's text (inside its quotes)."""
        if token.line is None or token.column is None:
            return self.origin.pos(1, 1)
        line, column = token.line, token.column + 1
        for char in str(token)[1:index + 1]:
            if char == "\n":
                line, column = line + 1, 1
            else:
                column += 1
        return self.origin.pos(line, column)

    # -- expressions
    @v_args(meta=True)
    def if_expr(self, meta, children):
        return syntax.Conditional(self._pos(meta), *children)

    or_op = _operator(syntax.Logical, "or")
    and_op = _operator(syntax.Logical, "and")

    @v_args(meta=True)
    def not_op(self, meta, children):
        return syntax.Not(self._pos(meta), children[0])

    @v_args(meta=True)
    def compare(self, meta, children):
        left, op, right = children
        return syntax.Compare(self._pos(meta), str(op), left, right)

    @v_args(meta=True)
    def member(self, meta, children):
        return syntax.Compare(self._pos(meta), "in", children[0], children[1])

    @v_args(meta=True)
    def not_member(self, meta, children):
        return syntax.Compare(self._pos(meta), "notin", children[0], children[1])

    @v_args(meta=True)
    def range_op(self, meta, children):
        return syntax.RangeExpr(self._pos(meta), children[0], children[1])

    add = _operator(syntax.Binary, "+")
    sub = _operator(syntax.Binary, "-")
    mul = _operator(syntax.Binary, "*")
    floordiv = _operator(syntax.Binary, "//")
    mod = _operator(syntax.Binary, "%")

    @v_args(meta=True)
    def neg(self, meta, children):
        operand = children[0]
        if isinstance(operand, syntax.IntLit):
            return syntax.IntLit(self._pos(meta), -operand.value)
        return syntax.Negate(self._pos(meta), operand)

    @v_args(meta=True)
    def attribute(self, meta, children):
        return syntax.Attribute(self._pos(meta), children[0], str(children[1]))

    def field_name(self, children):
        return str(children[0])

    @v_args(meta=True)
    def index(self, meta, children):
        return syntax.Index(self._pos(meta), children[0], children[1])

    def int_lit(self, children):
        token = children[0]
        return syntax.IntLit(self._tok(token), self._literal(self.limits.integer, token))

    def str_lit(self, children):
        token = children[0]
        return syntax.StrLit(self._tok(token), _unquote(token))

    @v_args(meta=True)
    def true_lit(self, meta, children):
        return syntax.BoolLit(self._pos(meta), True)

    @v_args(meta=True)
    def false_lit(self, meta, children):
        return syntax.BoolLit(self._pos(meta), False)

    def name(self, children):
        token = children[0]  # a NAME, or a new word used as one
        return syntax.Name(self._tok(token), str(token))

    def dice_lit(self, children):
        token = children[0]
        pos = self._tok(token)
        count, sides = self._literal(self.limits.dice, token)
        return syntax.Dice(pos, syntax.IntLit(pos, count), syntax.IntLit(pos, sides), str(token))

    @v_args(meta=True)
    def list_lit(self, meta, children):
        return syntax.ListLit(self._pos(meta), tuple(c for c in children if c is not None))

    @v_args(meta=True)
    def call(self, meta, children):
        name, *args = children
        return syntax.Call(self._tok(name), str(name), tuple(a for a in args if a is not None))

    @v_args(meta=True)
    def aggregate(self, meta, children):
        function, element, var, collection, condition = children
        return syntax.Aggregate(self._tok(function), str(function), element, str(var), collection, condition)

    @v_args(meta=True)
    def lookup(self, meta, children):
        name, *args = children
        return syntax.Lookup(self._pos(meta), str(name), tuple(a for a in args if a is not None))

    @v_args(meta=True)
    def modifiers(self, meta, children):
        return syntax.ModifierSum(self._pos(meta), "drm", str(children[0]))

    @v_args(meta=True)
    def shifts(self, meta, children):
        return syntax.ModifierSum(self._pos(meta), "column_shift", str(children[0]))

    @v_args(meta=True)
    def resolve(self, meta, children):
        name, *args = children
        passes = [a for a in args if isinstance(a, Token)]  # `...`: the PASS_REST token
        written = tuple(a for a in args if a is not None and not isinstance(a, Token))
        if passes and (len(passes) > 1 or args[-1] is not passes[0]):
            raise RulesetError(self._tok(passes[0]).diagnostic("`...` comes once, after the arguments written out: resolve P(a = x, ...)"))
        return syntax.Resolve(self._pos(meta), str(name), written, self._tok(passes[0]) if passes else None)

    @v_args(meta=True)
    def named_arg(self, meta, children):
        name, value = children
        return syntax.Arg(self._tok(name), str(name), value)

    @v_args(meta=True)
    def positional_arg(self, meta, children):
        value = children[0]
        return syntax.Arg(value.pos, None, value)


def _closing_brace(raw: str, start: int) -> int | None:
    """Where the ``{`` at ``start`` closes (braces inside counted; strings inside, written \\"…\\", skipped), or None."""
    depth, index, quoted = 0, start, False
    while index < len(raw):
        char = raw[index]
        if char == "\\":
            if raw[index + 1:index + 2] == '"':
                quoted = not quoted
            index += 2
            continue
        if not quoted and char == "{":
            depth += 1
        elif not quoted and char == "}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def _unquote(token: str) -> str:
    body = str(token)[1:-1]
    if "\\" not in body:
        return body
    out, chars = [], iter(body)
    for char in chars:
        if char == "\\":
            escaped = next(chars, "")
            out.append({"n": "\n", "t": "\t"}.get(escaped, escaped))
        else:
            out.append(char)
    return "".join(out)


def _parse(text: str, origin: TextOrigin, start: str, limits: LoadLimits):
    parser = _parser()
    if len(text) > limits.max_procedure_chars:
        raise RulesetError(origin.pos(1, 1).diagnostic(
            f"procedure text is too long ({len(text)} characters; the limit is {limits.max_procedure_chars})"
        ))
    text = text.translate(_AS_NEWLINE)
    _check_brackets(text, origin, limits)
    try:
        tree = parser.parse(text, start=start)
    except UnexpectedInput as error:
        raise _syntax_error(error, origin, parser, text) from None
    deep = _too_deep(tree, limits.max_procedure_depth)
    if deep is not None:
        where = origin.pos(deep.meta.line, deep.meta.column) if not getattr(deep.meta, "empty", True) else origin.pos(1, 1)
        raise RulesetError(where.diagnostic(f"procedure is nested too deeply (more than {limits.max_procedure_depth} levels)"))
    try:
        return _ToAst(origin, limits).transform(tree)
    except VisitError as error:  # a RulesetError from a literal, or a bug in the transformer: keep its traceback
        raise error.orig_exc


def parse_procedure(text: str, origin: TextOrigin, limits: LoadLimits = DEFAULT_LOAD_LIMITS) -> syntax.Block:
    """Parse a procedure body.  Raises RulesetError with a positioned message."""
    return _parse(text, origin, "start", limits)


def parse_expression(text: str, origin: TextOrigin, limits: LoadLimits = DEFAULT_LOAD_LIMITS) -> syntax.Expr:
    """Parse one expression (a modifier's condition, say)."""
    return _parse(text, origin, "expr", limits)
