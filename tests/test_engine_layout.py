"""The engine's shape (interpreter/engine/): one visitor method per IR node kind, checked at import;
generated code that says where each statement came from, through repr() only.

A node kind added to ir.py without a method in a visitor that must handle it
stops the import (CoverageError), instead of failing on the first procedure
that uses it; the fake visitors below show the check firing both ways.
"""

from __future__ import annotations

import ast
import io
import tokenize
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import pytest

from interpreter import ir, load_ruleset
from interpreter.engine import procedure_source
from interpreter.engine.exact import ExactStraight
from interpreter.engine.exact_compound import ExactCompound
from interpreter.engine.expressions import Expressions
from interpreter.engine.facts import WrittenSlots
from interpreter.engine.liveness import Liveness
from interpreter.engine.play import PlayWriter
from interpreter.engine.visitor import CoverageError, NodeVisitor
from interpreter.engine.writer import CodeWriter

ENGINE = Path(__file__).resolve().parents[1] / "interpreter" / "engine"


# ---- dispatch: every kind has its method, checked when the class is made ------------------------------


def test_each_visitor_has_one_method_for_every_kind_it_must_cover():
    assert set(Expressions.visitors) == set(ir.EXPRESSIONS)
    for visitor in (PlayWriter, Liveness, WrittenSlots):
        assert set(visitor.visitors) == set(ir.STATEMENTS), visitor
    # exact odds: a statement is straight (inside a pass) or compound (passes of its own); `if` is either
    assert set(ExactStraight.visitors) | set(ExactCompound.visitors) == set(ir.STATEMENTS)
    assert set(ExactStraight.visitors) & set(ExactCompound.visitors) == {ir.If}
    # each entry is the method named after its kind
    assert Expressions.visitors[ir.Lookup] is Expressions.visit_Lookup
    assert PlayWriter.visitors[ir.Roll] is PlayWriter.visit_Roll


def _visitor_missing_one_kind():
    class MissingBreak(NodeVisitor):
        covers = (ir.Note, ir.Break)

        def visit_Note(self, node):
            return "note"

    return MissingBreak


def test_a_visitor_without_a_method_for_a_kind_it_covers_is_refused_when_defined():
    with pytest.raises(CoverageError, match="MissingBreak: no method for visit_Break"):
        _visitor_missing_one_kind()


def test_a_visitor_with_a_method_for_a_kind_it_does_not_cover_is_refused():
    with pytest.raises(CoverageError, match="methods for kinds it does not cover: visit_Teleport"):
        class Extra(NodeVisitor):
            covers = (ir.Note,)

            def visit_Note(self, node):
                return "note"

            def visit_Teleport(self, node):  # a kind that is not in covers
                return "teleport"


def test_a_new_ir_kind_stops_every_visitor_that_covers_the_statements():
    """What adding a statement to ir.STATEMENTS does: each statement visitor, remade with the new kind,
    is refused until it learns it."""

    class Teleport(NamedTuple):
        pos: object

    grown = ir.STATEMENTS + (Teleport,)
    for visitor in (PlayWriter, Liveness, WrittenSlots):
        with pytest.raises(CoverageError, match="no method for visit_Teleport"):
            type(visitor.__name__, (visitor,), {"covers": grown})
    # and one that learns it is accepted, its table one entry longer
    learned = type("Learned", (WrittenSlots,), {"covers": grown, "visit_Teleport": lambda self, s: ()})
    assert len(learned.visitors) == len(ir.STATEMENTS) + 1


def test_dispatch_calls_the_method_of_the_node_kind():
    class Names(NodeVisitor):
        covers = (ir.Note, ir.Break)

        def visit_Note(self, node):
            return f"note {node.text}"

        def visit_Break(self, node):
            return "break"

    names = Names()
    assert names.visitors[ir.Note](names, ir.Note(None, "x")) == "note x"
    assert names.visitors[ir.Break](names, ir.Break(None)) == "break"


# ---- the writer -------------------------------------------------------------------------------------


def test_a_block_with_only_comments_gets_a_pass_and_indentation_comes_back():
    from interpreter.engine.module import GeneratedModule

    writer = CodeWriter(GeneratedModule(), "f", "")
    with writer.block("if x:"):
        writer.lines.append("        # a comment only")
    with writer.block("for y in z:"):
        writer.line("y")
    place = writer.reserve()
    writer.line("done")
    place.fill("first = 1")
    assert writer.finish() == [
        "def f():", "    if x:", "        # a comment only", "        pass", "    for y in z:", "        y",
        "    first = 1", "    done", "",
    ]


# ---- generated code names its ruleset lines -----------------------------------------------------------

# Line numbers in this file: 1-5 the header, 6 procedures:, 7 p:, 8 title, 9 rule, 10 body: |, the body from 11.
RULESET = """\
wartable: 1
name: shown
title: "test ruleset"
source: "tests"
version: "1"
procedures:
  p:
    title: "p"
    rule: "r"
    body: |
      let die = 1d6
      note "it's # not code \\" ''' \\\\ end"
      if die >= 5 then
        outcome hit(die = die)
      end
      outcome miss
"""


@pytest.fixture
def shown(write_yaml):
    return load_ruleset(write_yaml(RULESET))


def _comments(source: str) -> list[str]:
    """Every comment token of the source, as the tokenizer reads them (so none is hidden in a string)."""
    return [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type == tokenize.COMMENT]


def test_each_statement_of_a_play_is_under_a_comment_naming_its_line(shown):
    source = procedure_source(shown, "p", "play")
    name = Path(shown.compiled["p"].body.pos.source.name).name
    # the checker hoists the roll into a statement of its own before the `let`: both come from line 11
    assert _comments(source) == [
        "# " + repr(f"{name}:11  let die = 1d6"),
        "# " + repr(f"{name}:11  let die = 1d6"),
        "# " + repr(f"{name}:12  note \"it's # not code \\\" ''' \\\\ end\""),
        "# " + repr(f"{name}:13  if die >= 5 then"),
        "# " + repr(f"{name}:14  outcome hit(die = die)"),
        "# " + repr(f"{name}:16  outcome miss"),
    ]
    compile(source, "<test>", "exec")  # the comments leave it valid Python


def test_comments_hold_ruleset_text_only_as_one_string_literal(shown):
    """The safety rule extends to comments: each is `# ` and one repr()'d str, whatever the line holds."""
    source = shown.program("p").source  # every mode, as compiled for use
    comments = _comments(source)
    assert len(comments) >= 4 * 3  # exact, play, sample: each statement written at least once per mode
    for comment in comments:
        assert comment.startswith("# ")
        text = ast.literal_eval(comment[2:])
        assert type(text) is str and repr(text) == comment[2:]
    # the note's line (both quotes, a hash, backslashes) is never written raw: only its repr, which escapes the '
    line = shown.compiled["p"].body.pos.source.line_text(12).strip()
    assert line.startswith("note \"it's") and line not in source
    assert repr(f"{Path(shown.compiled['p'].body.pos.source.name).name}:12  {line}") in source


def test_the_generated_code_runs_the_same_with_its_comments(shown):
    from interpreter import odds

    # 1d6 >= 5 on 5 and 6: hit(die = 5) 1/6, hit(die = 6) 1/6, miss on 1-4: 4/6
    distribution = odds(shown, "p")
    assert distribution.probability("hit", die=5) == Fraction(1, 6)
    assert distribution.probability("hit", die=6) == Fraction(1, 6)
    assert distribution.probability("miss") == Fraction(4, 6)


# ---- size ---------------------------------------------------------------------------------------------


def test_no_engine_module_is_over_500_lines():
    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in ENGINE.glob("*.py")}
    assert len(sizes) >= 10, sizes  # split by job
    assert max(sizes.values()) <= 500, sizes


def test_the_irs_tables_of_children_cover_every_node_kind(monkeypatch):
    # ir.walk and every analysis pass read a node's children from one table a kind; a kind missing from the
    # tables would be walked past silently, so ir checks them when it loads.  Here a kind is taken out of each
    # table in turn, and the check fires.
    ir._check_children_cover_every_kind()  # as loaded: complete
    for table, kind in ((ir._SUB_EXPRESSIONS, ir.Lookup), (ir._STATEMENT_EXPRESSIONS, ir.Roll)):
        with monkeypatch.context() as patch:
            patch.delitem(table, kind)
            with pytest.raises(AssertionError, match="tables of children"):
                ir._check_children_cover_every_kind()
    # and the walk reads them: `let x = T[1, y]` is the statement, its lookup, the lookup's row and column (no
    # shift) -- four nodes, found through the statement's table entry and then the lookup's.
    row, column = ir.Const(None, 1), ir.Local(None, "y", 0)
    lookup = ir.Lookup(None, None, row, column, None)
    statement = ir.Assign(None, "x", 1, lookup, True)
    assert list(ir.walk(statement)) == [statement, lookup, column, row]  # depth first, last child first (a stack)
