"""Python expression source for IR expressions: one ``visit_<Kind>`` per expression node.

An expression that cannot fail is written as Python; one that can goes
through a helper of :mod:`interpreter.runtime` (same message, same
position as the evaluator), with the common case tested in place
(``walrus``: assignment expressions are allowed there, which they are not
in a comprehension's iterable).  Deep expressions become functions of their
own (Python limits how deeply an expression nests), and costly values that
a loop does not change are computed once, on first use (``hoist``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import ir
from ..runtime import make_guard
from . import playwork
from .bounds import CHECKED_ARITHMETIC, both_forms, positive_read, prove_arithmetic
from .calls import outcome_name_test
from .facts import free_locals_in, locals_in
from .module import literal
from .playwork import checked_locally, local_charge, walk_assigned
from .sites import column_site, lookup_site, rows_by_key
from .visitor import NodeVisitor
from .writer import CodeWriter

if TYPE_CHECKING:  # pragma: no cover - types only
    from .program import ProcedureCompiler

MAX_EXPRESSION_DEPTH = 20  # procedure-language expression levels before a helper function

SIMPLE = (ir.Const, ir.Local, ir.InputRef)  # read without work: never hoisted, never outlined

# Worth computing once for a loop when they read nothing the loop changes.
COSTLY = (ir.Field, ir.Index, ir.CallFunction, ir.Aggregate, ir.Lookup, ir.ModifierSum, ir.Range, ir.ListOf, ir.Guard)

# Aggregates whose finish cannot fail, written as the built-in they call (the list built first, as before).
INLINE_FINISH = {"count": "len", "any": "any", "all": "all"}

_COMPARISON = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "in": "in", "notin": "not in"}


class Expressions(NodeVisitor):
    """Python expression source for IR expressions, in one function being written.

    Inside a loop (Monte Carlo trials, a roll's faces): costly values that
    read only inputs, constants and variables the loop does not change
    (``stable``) are computed once, on first use (so that an error is still
    raised where the evaluator raises it), into a local named in ``hoist``
    (node id -> name); the loop's writer sets those locals to UNSET before it.
    """

    covers = ir.EXPRESSIONS

    def __init__(self, compiler: ProcedureCompiler, writer: CodeWriter, hoist: dict[Any, str] | None = None,
                 stable: Callable[[int], bool] | None = None, keys: dict[int, str] | None = None,
                 hoist_aggregates: bool = False) -> None:
        self.c = compiler
        self.w = writer
        self.module = compiler.module
        self.hoist = hoist
        self.stable = stable
        # exact odds' passes over states: an aggregate reading nothing but inputs and constants is hoisted too
        # (see invariant); plays and rolls' faces leave aggregates where they are
        self.hoist_aggregates = hoist_aggregates
        # plays only: slots holding a resolved procedure's outcome key, by procedure (facts.outcome_key_slots)
        self.keys = keys
        # plays only: inside ``agg(... for i in 1 .. count(xs) ...)``, the variable's slot -> the list's source
        # (("i0",); two for ``1 .. min(count(xs), count(ys))``): xs[i] there is always inside the list, read without a
        # bounds check
        self.positions_of: dict[int, tuple[str, ...]] = {}
        # plays only, while a statement's fast form is written (see assign): a record's field read as
        # ``subject._fields[name]``, no test of the subject's kind, and a list's item without comparing the
        # position with its length; fast_reads counts them
        self.fast_fields = False
        self.fast_reads = 0
        # plays only (PlayWriter in "play" mode): the local that counts work not yet charged to the budget (see
        # local_work); None where values are charged through the budget's methods.  aggregate_depth: how deeply the
        # expression being written sits inside aggregates (a charge there checks the counter in place)
        self.work_local: str | None = None
        self.aggregate_depth = 0
        self.local_charges = 0
        # the position of the last value charged to work_local (a statement's check reports a breach there, where
        # the budget's method would have)
        self.local_pos = ""
        # plays: arithmetic proven inside the integer bounds -> its proof's local, and its plain form (bounds.py)
        self.unchecked_flags: dict[int, str] = {}
        self.unchecked_steps = False
        # plays: aggregates walked before their statement (walk_pulled): each one's local, whether a sum of counts, the
        # local_pos its expression would leave where it is read (walk_pos: of the aggregate walk_assigned wrote last)
        self.pulled: dict[int, tuple[str, bool, str | None]] = {}
        self.walk_pos: str | None = None

    def __call__(self, expr: Any, walrus: bool = True, depth: int = 0) -> str:
        return self.expr(expr, walrus, depth)

    def expr(self, e: Any, walrus: bool, depth: int) -> str:
        if self.pulled and id(e) in self.pulled:
            held, _, pos = self.pulled[id(e)]
            self.local_pos = pos or self.local_pos  # a breach at the statement's check named as the expression names it
            return held
        if depth >= MAX_EXPRESSION_DEPTH and type(e) not in SIMPLE:
            return self._outlined(e)
        if self.hoist is not None and walrus and self._worth_hoisting(e):
            return self._hoisted(id(e), self.visit(e, walrus, depth + 1))
        return self.visit(e, walrus, depth)

    def _worth_hoisting(self, e: Any) -> bool:
        if self.stable is None or not invariant(e, self.stable, self.hoist_aggregates):
            return False
        # in a pass over states (aggregates), a built-in written inline, such as count, costs less than the test
        return not (self.hoist_aggregates and type(e) is ir.CallFunction and e.function.inline(len(e.args)) is not None)

    def visit(self, e: Any, walrus: bool, depth: int) -> str:
        text: str = self.visitors[type(e)](self, e, walrus, depth)
        return text

    def pos(self, node: Any) -> str:
        return self.module.ref(node.pos, "p")

    def budget(self) -> str:
        return self.w.need("BUD", "rt.budget")

    def assign(self, target: str, value: Any) -> None:
        """Write ``target = value``; in a play whose value reads a field of something the checker does not know
        to be an outcome, in two forms: first each such field read as ``subject._fields[name]`` (a record's
        dictionary: a play reads about 3,500 fields, and testing each subject's kind cost more than the read) and
        each item of a list at a position above 0 read without ``len`` (Python raises IndexError past the end),
        then, when that raises AttributeError (not a record), KeyError (no such field) or IndexError, the whole value again
        with every read tested and worded as the evaluator words it.  An expression draws no dice and calls no
        procedure, so the second form meets what the first met (the first's work charges are spent twice then:
        only on the way to an error, or for a field of an outcome the checker could not see).  Try blocks cost
        nothing in Python 3.11 until they catch."""
        value = playwork.decided(self, value)
        if self.work_local is not None:
            prove_arithmetic(self, value)
        if not (walk_assigned(self, target, value) or playwork.walk_pulled(self, target, value)):
            self.assign_forms(target, value)

    def assign_forms(self, target: str, value: Any) -> None:
        """``target = value``, in one form or two (see assign)."""
        slow = self(value)
        fast = self.fast_form(value)
        if fast is None:
            self.w.line(f"{target} = {slow}")
        else:
            self.write_forms(target, fast, slow)

    def write_forms(self, target: str, fast: str, slow: str) -> None:
        """``target = fast``, and ``target = slow`` when that raises FMISS (AttributeError, KeyError, IndexError: see assign)."""
        with self.w.block("try:"):
            self.w.line(f"{target} = {fast}")
        with self.w.block("except FMISS:"):
            self.w.line(f"{target} = {slow}")

    def fast_form(self, value: Any) -> str | None:
        """``value`` with record fields read without tests (see assign); None outside plays."""
        if self.keys is None:
            return None
        self.fast_fields, self.fast_reads = True, 0
        try:
            text = self(value)
        finally:
            self.fast_fields = False
        return text if self.fast_reads else None

    # ---- leaves

    def visit_Const(self, e: ir.Const, walrus: bool, depth: int) -> str:
        text = literal(e.value)
        return text if text is not None else self.module.ref(e.value)

    def visit_Local(self, e: ir.Local, walrus: bool, depth: int) -> str:
        return f"v{e.slot}"

    def visit_InputRef(self, e: ir.InputRef, walrus: bool, depth: int) -> str:
        return self.c.input_local(self.w, e.name)

    # ---- values built, checked, read

    def visit_ListOf(self, e: ir.ListOf, walrus: bool, depth: int) -> str:
        items = [self.expr(item, walrus, depth + 1) for item in e.items]
        inner = f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
        if self.local_work(walrus):
            return checked_locally(self, inner, self.pos(e), "")
        return f"{self.budget()}.check_value({inner}, {self.pos(e)})"

    def visit_Guard(self, e: ir.Guard, walrus: bool, depth: int) -> str:
        guard = self.module.ref(make_guard(e.pos, e.expected, e.what), "g")
        return f"{guard}({self.expr(e.value, walrus, depth + 1)})"

    def visit_Canonical(self, e: ir.Canonical, walrus: bool, depth: int) -> str:
        return f"CANON({self.expr(e.value, walrus, depth + 1)})"

    def visit_Field(self, e: ir.Field, walrus: bool, depth: int) -> str:
        subject_node = e.subject
        if self.keys is not None and type(subject_node) is ir.Local and subject_node.slot in self.keys:
            return self._key_field(e, subject_node.slot, walrus)
        subject, pos = self.expr(e.subject, walrus, depth + 1), self.pos(e)
        if self.keys is not None and e.proven_field_type is not None:
            return f"{subject}._fields[{e.name!r}]"  # plays: a read the checker proves (proven_types) cannot fail
        if self.fast_fields and not e.of_outcome:
            self.fast_reads += 1
            return f"{subject}._fields[{e.name!r}]"  # a play's fast form (see assign); an outcome's read tries it first below
        if not walrus:
            return f"FLD({subject}, {e.name!r}, {pos})"
        # a record's field straight from its dictionary (Record._fields, made with the record); anything else through FLD
        s_, v_ = self.w.temp("fs"), self.w.temp("fv")
        # and a resolved outcome's from its own (OutcomeValue._by_name, made with the outcome), tried first
        # where the checker knows the subject is an outcome (exact odds keep resolved outcomes in their states)
        name = repr(e.name)

        def record(subject: str) -> str:
            return f"type({subject}) is REC and ({v_} := {s_}._fields.get({name}, MISS)) is not MISS"

        def outcome(subject: str) -> str:
            return f"type({subject}) is OUT and ({v_} := {s_}._by_name.get({name}, MISS)) is not MISS"

        first, second = (outcome, record) if e.of_outcome else (record, outcome)
        return f"({v_} if {first(f'{s_} := {subject}')} else {v_} if {second(s_)} else FLD({s_}, {name}, {pos}))"

    def _key_field(self, e: ir.Field, slot: int, walrus: bool) -> str:
        """A field of a resolved outcome held as its key in ``slot``, ``(number, field values...)`` or a bare
        number: read by position, the callee's outcome numbers telling where; an outcome without it raises
        FLD's message."""
        assert self.keys is not None
        m, key = self.module, f"v{slot}"
        sites = self.c.callee_sites(self.keys[slot])
        names = m.ref(tuple(name for name, _ in sites), "kn")
        if e.name == "outcome":  # its name, as OutcomeValue.fields_by_name gives it (before any field so called)
            return f"{names}[{key}[0] if type({key}) is tuple else {key}]"
        # where the field sits in each outcome's key (0: not there); the last of equal names, as a dict keeps it
        places = tuple(len(fields) - fields[::-1].index(e.name) if e.name in fields else 0 for _, fields in sites)
        if len(set(places)) == 1 and places[0] and all(fields for _, fields in sites):
            return f"{key}[{places[0]}]"  # every outcome has it, in the same place
        positions, pos = m.ref(places, "kp"), self.pos(e)
        if not walrus:
            return f"KFLD({positions}, {names}, {key}, {e.name!r}, {pos})"
        at = self.w.temp("kj")
        return f"({key}[{at}] if type({key}) is tuple and ({at} := {positions}[{key}[0]]) else NOKFLD({names}, {key}, {e.name!r}, {pos}))"

    def visit_Index(self, e: ir.Index, walrus: bool, depth: int) -> str:
        subject, position, pos = self.expr(e.subject, walrus, depth + 1), self.expr(e.index, walrus, depth + 1), self.pos(e)
        if type(e.index) is ir.Local and subject in self.positions_of.get(e.index.slot, ()):
            return f"{subject}[{position} - 1]"  # a position of 1 .. count(subject): inside the list
        if (known := positive_read(self, e.index, subject, position)) is not None:
            return known  # a play's fast form, a position at least 1 (bounds.Positions)
        # a play's fast form (see assign) leaves a position past the end to Python's IndexError
        inside = "" if self.fast_fields else f" <= len({subject})"
        if walrus and subject.isidentifier():
            # a variable's item read in place when the position is inside the list (subject first, as in
            # IDX: reading a variable cannot fail); anything else through IDX, which words the error
            at = self.w.temp("ix")
            self.fast_reads += self.fast_fields
            return f"({subject}[{at} - 1] if 0 < ({at} := {position}){inside} else IDX({subject}, {at}, {pos}))"
        if self.keys is not None and subject.isidentifier() and type(e.index) in SIMPLE:
            # a play, where := is not allowed (a comprehension's iterable): a variable's item by a variable or a
            # constant, read twice rather than through IDX (reading either cannot fail)
            self.fast_reads += self.fast_fields
            return f"({subject}[{position} - 1] if 0 < {position}{inside} else IDX({subject}, {position}, {pos}))"
        if walrus and self.keys is None:
            # exact odds: any other list's item read in place as well, the list held in a local (the list read
            # first, then the position, as IDX reads them: `len(a) >= b > 0` evaluates a and b before comparing)
            listed, at = self.w.temp("ls"), self.w.temp("ix")
            return f"({listed}[{at} - 1] if len({listed} := {subject}) >= ({at} := {position}) > 0 else IDX({listed}, {at}, {pos}))"
        return f"IDX({subject}, {position}, {pos})"

    # ---- operators

    def visit_Negate(self, e: ir.Negate, walrus: bool, depth: int) -> str:
        return f"(-{self.expr(e.operand, walrus, depth + 1)})"

    def visit_Not(self, e: ir.Not, walrus: bool, depth: int) -> str:
        return f"(not {self.expr(e.operand, walrus, depth + 1)})"

    def visit_Arithmetic(self, e: ir.Arithmetic, walrus: bool, depth: int) -> str:
        proof = None if self.unchecked_steps else self.unchecked_flags.get(id(e))  # proven: bounds.prove_arithmetic
        return self._arithmetic(e, walrus, depth) if proof is None else both_forms(self, proof, lambda: self._arithmetic(e, walrus, depth))

    def _arithmetic(self, e: ir.Arithmetic, walrus: bool, depth: int) -> str:
        pos = self.pos(e)
        left = self.expr(e.left, walrus, depth + 1)
        right = self.expr(e.right, walrus, depth + 1)
        if e.op in ("//", "%"):
            if type(e.right) is ir.Const and type(e.right.value) is int and e.right.value != 0:
                return f"({left} {e.op} {right})"
            if walrus and self.unchecked_steps:  # proven (bounds.py): the dividend cannot fail, so it may come second
                return f"({left} {e.op} {(b := self.w.temp('b'))} if ({b} := {right}) else DIV({pos}, {left}, {e.op!r}, {b}))"
            if walrus and self.keys is not None:
                # plays: divided in place unless the divisor is 0 (DIV words that), both sides evaluated in order first
                a, b = self.w.temp("a"), self.w.temp("b")
                return f"({a} {e.op} {b} if (({a} := {left}) is {a}) and ({b} := {right}) else DIV({pos}, {a}, {e.op!r}, {b}))"
            return f"DIV({pos}, {left}, {e.op!r}, {right})"
        if self.unchecked_steps or playwork.unsigned_difference(self, e):
            return f"({left} {e.op} {right})"
        low, high = self.w.need("LO", "rt.int_low"), self.w.need("HI", "rt.int_high")
        if not walrus:
            return f"{self.module.ref(CHECKED_ARITHMETIC[e.op], 'ar')}(rt, {pos}, {left}, {right})"
        t = self.w.temp()
        if type(e.left) in SIMPLE and type(e.right) in SIMPLE:
            return f"({t} if {low} <= ({t} := {left} {e.op} {right}) <= {high} else OVF(rt, {pos}, {left}, {e.op!r}, {right}))"
        a, b = self.w.temp("a"), self.w.temp("b")
        return f"({t} if {low} <= ({t} := ({a} := {left}) {e.op} ({b} := {right})) <= {high} else OVF(rt, {pos}, {a}, {e.op!r}, {b}))"

    def visit_Comparison(self, e: ir.Comparison, walrus: bool, depth: int) -> str:
        return outcome_name_test(self, e) or f"({self.expr(e.left, walrus, depth + 1)} {_COMPARISON[e.op]} {self.expr(e.right, walrus, depth + 1)})"

    def visit_Logical(self, e: ir.Logical, walrus: bool, depth: int) -> str:
        return f"({self.expr(e.left, walrus, depth + 1)} {e.op} {self.expr(e.right, walrus, depth + 1)})"

    def visit_Conditional(self, e: ir.Conditional, walrus: bool, depth: int) -> str:
        branch = playwork.decided(self, e)  # plays: the branch a yes/no constant takes
        if branch is not e:
            return self.expr(branch, walrus, depth)
        then, condition, otherwise = (self.expr(x, walrus, depth + 1) for x in (e.then, e.condition, e.otherwise))
        return f"({then} if {condition} else {otherwise})"

    def visit_Range(self, e: ir.Range, walrus: bool, depth: int) -> str:
        return f"RNG(rt, {self.expr(e.low, walrus, depth + 1)}, {self.expr(e.high, walrus, depth + 1)}, {self.pos(e)})"

    # ---- functions, aggregates, tables, modifiers

    def visit_CallFunction(self, e: ir.CallFunction, walrus: bool, depth: int) -> str:
        args = [self.expr(a, walrus, depth + 1) for a in e.args]
        template = e.function.inline(len(args))
        if template is not None:
            return "(" + template.format(*args) + ")"
        if e.function.name == "with_field":
            run = "CHREC"  # the changed record remembered for the run (runtime.changed_record), in plays and exact odds
        else:
            run = self.module.ref(e.function.run, "fn")
        return f"{run}(rt, {self.pos(e)}{''.join(', ' + a for a in args)})"

    def visit_Aggregate(self, e: ir.Aggregate, walrus: bool, depth: int) -> str:
        var = f"v{e.slot}"
        function = e.function
        walks = self.positions_walked(e)
        local = self.local_work(walrus)
        collection, walked, before = self.walked_collection(e, walks, depth, local)
        if walks is not None:
            self.positions_of[e.slot] = walks
        self.aggregate_depth += 1
        try:
            items = self._aggregate_items(e, var, collection, walrus, depth)
        finally:
            self.positions_of.pop(e.slot, None)
            self.aggregate_depth -= 1
        # a walk charged with the finish (plays: the walk of a list that exists, see walked_collection)
        if function.name == "list":
            # the list checked in place (the finish's own call saved); a list of the numbers of a range, whose
            # size is its length, without looking at each item
            plain = playwork.plain_list(self, e)
            if local:
                return playwork.walked_first(before, checked_locally(self, f"tuple_({items})", self.pos(e), walked, plain))
            extra = f", {walked}" if walked else ""
            return f"{self.budget()}.{'check_flat' if plain else 'check_value'}(tuple_({items}), {self.pos(e)}{extra})"
        if function.name in INLINE_FINISH:
            finished = f"{INLINE_FINISH[function.name]}({items})"  # a finish that cannot fail, without its own call
        else:
            finished = f"{self.module.ref(function.finish, 'ag')}(rt, {self.pos(e)}, {items})"
        if walked and local:
            return f"({finished} if {local_charge(self, walked, self.pos(e))} else None)"
        return playwork.walked_first(before, f"{self.budget()}.walked({finished}, {walked}, {self.pos(e)})" if walked else finished)

    def local_work(self, walrus: bool) -> bool:
        """Whether a value made or walked here is charged to the play's local work counter (``work_local``) rather
        than through a budget method: in a play function, where ``:=`` is allowed.  In a statement, the play writer
        checks the counter against the run's work chunk after it and at each loop round's start, and charges what
        is left at every exit; inside an aggregate (a list of a thousand lists of a thousand items would otherwise
        add up unchecked), the charge checks it in place (playwork.local_charge).  The budget sees the same units, a
        statement later at most."""
        return self.work_local is not None and walrus

    def walked_collection(self, e: ir.Aggregate, walks: tuple[str, ...] | None, depth: int, local: bool) -> tuple[str, str, str]:
        """What an aggregate walks, and (plays only) the work of walking it charged with its finish instead of by
        a call of its own: the positions ``1 .. count(xs)`` of a list or input ``xs`` (``2 * len(xs)``, what
        CRNG charges for the range made and walked) or the items of one (``len(xs)``, what CNT charges).
        That list exists, so it is within the size limits CRNG checks; the walk is charged after it rather
        than before (at most the list's length later: a play makes about a thousand such walks).  Any other list
        a play walks where ``local`` (see local_work): held in a local and charged as CNT charges, before the walk,
        by the condition given third (the aggregate is written after it).  Exact odds and anything else: CRNG or
        CNT, charged before the walk, and no work left for the finish."""
        span = e.collection
        if self.keys is not None and walks is not None:
            return f"range(1, {playwork.walked_length(walks)} + 1)", f"2 * {playwork.walked_length(walks)}", ""
        if self.keys is not None and type(span) in (ir.Local, ir.InputRef):
            listed = self.visit(span, False, depth + 1)
            return listed, f"len({listed})", ""
        if isinstance(span, ir.Range):
            # the range walked without making its list, checked and charged as RNG and CNT would
            low, high = (self.expr(bound, False, depth + 2) for bound in (span.low, span.high))
            return f"CRNG(rt, {low}, {high}, {self.pos(span)}, {self.pos(e)})", "", ""
        if local:
            held = self.w.temp("q")
            return held, "", local_charge(self, f"len({held} := {self.expr(span, True, depth + 1)})", self.pos(e))
        return f"CNT(rt, {self.expr(e.collection, False, depth + 1)}, {self.pos(e)})", "", ""  # no := in a comprehension's iterable

    def _aggregate_items(self, e: ir.Aggregate, var: str, collection: str, walrus: bool, depth: int) -> str:
        """The list comprehension an aggregate finishes."""
        function = e.function
        condition = f" if {self.expr(e.condition, walrus, depth + 1)}" if e.condition is not None else ""
        if function.keyed:
            element = self.expr(e.element, walrus, depth + 1)
            return f"[({element}, {var}_n, {var}) for {var}_n, {var} in enumerate({collection}){condition}]"
        if function.evaluates_element:
            element = self.expr(e.element, walrus, depth + 1)
            return f"[{element} for {var} in {collection}{condition}]"
        return f"[{var} for {var} in {collection}{condition}]"

    def positions_walked(self, e: ir.Aggregate) -> tuple[str, ...] | None:
        """The sources of the lists whose positions an aggregate walks (``for i in 1 .. count(xs)``, xs a variable
        or an input, which nothing in the aggregate can change; in plays also ``1 .. min(count(xs), count(ys))``,
        positions inside both); None for any other collection."""
        span = e.collection
        if not isinstance(span, ir.Range) or not (type(span.low) is ir.Const and span.low.value == 1):
            return None
        high = span.high
        counted: tuple[ir.Expr, ...] = (high,)
        if self.keys is not None and isinstance(high, ir.CallFunction) and high.function.name == "min" and len(high.args) > 1:
            counted = high.args
        sources = []
        for each in counted:
            if not (isinstance(each, ir.CallFunction) and each.function.name == "count" and len(each.args) == 1 and type(each.args[0]) in (ir.Local, ir.InputRef)):
                return None
            listed = each.args[0]
            if type(listed) is ir.Local and listed.slot == e.slot:
                return None
            sources.append(self.visit(listed, False, 0))
        return tuple(sources)

    def visit_Lookup(self, e: ir.Lookup, walrus: bool, depth: int) -> str:
        m = self.module
        known = playwork.constant_lookup(self, e)
        if known is not None:
            return literal(known) or ""
        row = self.expr(e.row, walrus, depth + 1)
        keys = self.c.facts.ranges.get(e.row.slot) if type(e.row) is ir.Local else None
        by_key = rows_by_key(e.table, keys) if keys is not None else None
        if by_key is not None and e.table.columns is None:
            # a die roll's every total lands on a row: the cells, by total
            return f"{m.ref(tuple(row_cells[0] if row_cells is not None else None for row_cells in by_key), 'cells')}[{row}]"
        if by_key is not None and type(e.column) in SIMPLE and (e.shift is None or type(e.shift) in SIMPLE):
            column = self.expr(e.column, walrus, depth + 1)
            shift = self.expr(e.shift, walrus, depth + 1) if e.shift is not None else "0"
            index_ = f"{m.ref(column_site(e.table, e.pos), 'lkc')}({column}, {shift})"
            if walrus and self._reads_stable(e.column, e.shift):
                index_ = self._hoisted((id(e), "column"), index_)
            return f"{m.ref(by_key, 'rows')}[{row}][{index_}]"
        site = m.ref(lookup_site(e.table, e.pos), "lk")
        column = self.expr(e.column, walrus, depth + 1) if e.column is not None else "None"
        shift = self.expr(e.shift, walrus, depth + 1) if e.shift is not None else "0"
        return f"{site}({row}, {column}, {shift})"

    def visit_ModifierSum(self, e: ir.ModifierSum, walrus: bool, depth: int) -> str:
        if not e.entries:
            return "0"
        parts = [f"({literal(entry.value) or self.module.ref(entry.value)} if {self.expr(condition, walrus, depth + 1)} else 0)"
                 for entry, condition in e.entries]
        return "(" + " + ".join(parts) + ")"

    # ---- hoisting and outlining

    def _hoisted(self, key: Any, inner: str) -> str:
        assert self.hoist is not None
        name = self.hoist.get(key)
        if name is None:
            name = self.hoist[key] = self.w.temp("h")
        return f"({name} if {name} is not UNSET else ({name} := {inner}))"

    def _reads_stable(self, *exprs: Any) -> bool:
        """Whether expressions read only inputs, constants and variables the hoisting loop does not change."""
        stable = self.stable
        if self.hoist is None or stable is None:
            return False
        return all(all(stable(slot) for slot in locals_in(e)) for e in exprs if e is not None)

    def _outlined(self, e: Any) -> str:
        """A deep expression as a function of its own (Python limits how deeply an expression nests)."""
        slots = sorted(free_locals_in(e))  # an aggregate inside it binds its own variable
        name = self.w.temp("x")
        inner = CodeWriter(self.module, name, ", ".join(["rt", "I"] + [f"v{s}" for s in slots]))
        text = Expressions(self.c, inner, keys=self.keys).expr(e, True, 0)  # charged through the budget: no local counter there
        inner.line(f"return {text}")
        self.module.add(inner.finish())
        return f"{name}(rt, I{''.join(', v' + str(s) for s in slots)})"


def invariant(expr: Any, stable: Callable[[int], bool], aggregates: bool = False) -> bool:
    """Worth computing once for a loop (trials, faces, states): costly, and reads only inputs, constants and
    stable variables.  An aggregate's variable changes inside it: with ``aggregates``, an aggregate may be
    hoisted when every variable it reads but its own (and those of aggregates inside it) is stable."""
    if type(expr) not in COSTLY:
        return False
    nodes = list(ir.walk(expr))
    own = {node.slot for node in nodes if type(node) is ir.Aggregate}
    if own and not aggregates:
        return False
    return all(type(node) is not ir.Local or node.slot in own or stable(node.slot) for node in nodes)
