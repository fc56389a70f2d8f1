"""A play function's local work counter (``u``): the source of the charges written to it.

In a play function (PlayWriter in "play" mode), values made and walked are charged to a local
instead of through the budget's methods (``Expressions.local_work``): about 600 method calls a
play of fifteen_a_side.  The play writer checks the local against the run's work chunk after each
statement that adds to it and at each loop round's start, and charges what is left at every exit;
a charge inside an aggregate checks it in place (:func:`local_charge`).  A statement that assigns
``count``/``any``/``all`` over an existing list is a loop here (:func:`walk_assigned`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextlib import nullcontext as _nothing
from typing import TYPE_CHECKING, Any

from .. import ir
from ..limits import SHORT_LIST
from .facts import cannot_fail
from .module import literal
from .sites import lookup_site

if TYPE_CHECKING:  # pragma: no cover - types only
    from .expressions import Expressions
    from .writer import CodeWriter

# Finishes a play's statement writes as a loop over an existing list (walk_assigned): the result's start,
# and its update for an item whose condition holds (the element evaluated for any and all, as the list holds it).
WALK_FINISH = {
    "count": ("0", "{result} += 1"),
    "any": ("False", "if {element}: {result} = True"),
    "all": ("True", "if not {element}: {result} = False"),
    # added up as it goes (Python's ints), the total then tested against the integer bounds as checked_sum tests it
    "sum": ("0", "{result} += {element}"),
    "list": ("[]", "{result}.append({element})"),  # then checked as the comprehension's tuple is (checked_locally)
    # the key, the item's place and the item, as the comprehension gave them to the finish (functions._finish_sort)
    "sort": ("[]", "{result}.append(({element}, {var}_n, {var}))"),
    "sort_desc": ("[]", "{result}.append(({element}, {var}_n, {var}))"),
}

# What an inner loop (_inner_walk) does for an item whose condition holds: its result's start and update (a list
# then checked and charged as the comprehension's is).
INNER_FINISH = {name: WALK_FINISH[name] for name in ("count", "any", "all", "list")}

# The update of an ``any``/``all`` that stops at its first decisive item (stops_early): no later item can fail.
STOPPING_UPDATE = {"any": "if {element}: {result} = True; break", "all": "if not {element}: {result} = False; break"}


def stops_early(e: ir.Aggregate) -> bool:
    """May the loop of ``any``/``all`` ``e`` stop at its first decisive item?  Only when neither its condition nor
    its element can fail or charge (facts.cannot_fail): the evaluator's list evaluates every item, and a later item
    that raises must still raise; one that cannot changes nothing by being skipped (the walk itself is charged by
    the list's length, before or after the loop, not item by item)."""
    return (e.function.name in STOPPING_UPDATE and cannot_fail(e.element)
            and (e.condition is None or cannot_fail(e.condition)))


def local_charge(x: Expressions, units: str, pos: str) -> str:
    """A condition that adds ``units`` to the local counter and is always true; inside an aggregate, the counter
    is charged to the budget (at ``pos``) and started afresh once it passes the run's work chunk."""
    u = x.work_local
    x.local_charges += 1
    x.local_pos = pos
    if x.aggregate_depth == 0:
        return f"({u} := {u} + {units}) >= 0"
    chunk = x.w.need("WL", "rt.work_chunk")
    return f"(({u} := {u} + {units}) <= {chunk} or {x.budget()}.charge_items({u}, {pos}) or ({u} := 0) == 0)"


def checked_locally(x: Expressions, made: str, pos: str, walked: str, plain: bool = False) -> str:
    """A list made in a play's statement, checked and charged in place in the common case: a list of plain
    values shorter than ``FLATN`` (within max_value_items and below BIG_VALUE_ITEMS: Budget.check_flat would
    only charge it), or a short list whose measure the budget remembers (Budget.check_value would only charge
    it: it was within these limits when measured); anything else through the budget's method, which charges
    it itself.  The charge, and ``walked`` (the units of a walk charged with it, or ""), go to the local counter
    (see local_work)."""
    t = x.w.temp("t")
    extra, walked = (f", {walked}", f" + {walked}") if walked else ("", "")
    if plain:
        n, flat = x.w.temp("n"), x.w.need("FLATN", "rt.flat_items")
        charged = local_charge(x, f"{n}{walked}", pos)
        return f"({t} if ({n} := len({t} := {made})) < {flat} and {charged} else {x.budget()}.check_flat({t}, {pos}{extra}))"
    m, sizes = x.w.temp("m"), x.w.need("SZ", "rt.budget.sizes_known")
    charged = local_charge(x, f"{m}[0]{walked}", pos)
    return (f"({t} if len({t} := {made}) <= {SHORT_LIST} and ({m} := {sizes}.get({t})) is not None and {charged}"
            f" else {x.budget()}.check_value({t}, {pos}{extra}))")


def walk_assigned(x: Expressions, target: str, e: Any, first: bool = False) -> bool:
    """In a play function (``x``), ``target = count/any/all/list/sort(... for item in items ...)`` over a list that exists (a
    variable or an input, or its positions) written as a loop rather than a list made and finished (a comprehension is
    a function called, about 0.2 µs, and a play makes hundreds of these): every item's condition and element
    evaluated, as the list would evaluate them, the result counted, tested or gathered as it goes (a list then checked
    as the comprehension's is, a sort's keys sorted by its finish), the walk charged to the local counter after it.  A
    condition or element that is itself ``count``/``any``/``all`` over a list is an inner loop (:func:`_inner_walk`).
    In a try when it reads fields or items without tests (see assign), the expression after it.  False, writing
    nothing, for any other value."""
    if x.work_local is None or x.aggregate_depth or type(e) is not ir.Aggregate or e.function.name not in WALK_FINISH:
        return False
    walks = x.positions_walked(e)
    if not walkable(x, e):
        return False
    charges = x.local_charges
    slow = x(e)
    slow_pos = x.local_pos  # where the expression's last charge points (a sum's statement reports a breach there too)
    # what visiting the expression leaves as the last charge's position, if it charges (read where it is pulled)
    x.walk_pos = slow_pos if x.local_charges > charges else None
    x.fast_fields, x.fast_reads = True, 0
    if walks is not None:
        x.positions_of[e.slot] = walks
    w, result = x.w, x.w.temp("wr")
    body = _Lines()
    try:
        # any other list a sum walks is held and charged before the walk, as the expression charges it (depth 0)
        collection, walked, before = x.walked_collection(e, walks, 0, True)
        x.aggregate_depth += 1
        if walks is not None:  # the positions' count read once, for the range and the charge (it cannot change here)
            length = w.temp("ln")
            collection, walked = f"range(1, {length} + 1)", f"2 * {length}"
        start = WALK_FINISH[e.function.name][0]
        keyed = e.function.keyed
        header = f"for v{e.slot}_n, v{e.slot} in enumerate({collection}):" if keyed else f"for v{e.slot} in {collection}:"
        # a sum of inner counts adds each counted item to its total in the inner loop: no count of its own
        into = result if _sums_counts(e) else None
        _loop(body, header, e, _update(e, into), result, lambda node: _walked_value(x, body, node, into if node is e.element else None))
    finally:
        x.fast_fields = False
        x.positions_of.pop(e.slot, None)
        x.aggregate_depth -= 1
    if walks is not None:
        w.line(f"{length} = {walked_length(walks)}")
    with w.block("try:") if x.fast_reads else _nothing():
        # the walk charged before it, as the aggregate's expression charges it (an inner walk checks the counter in
        # place: the same units before it as there); a statement's own count/any/all after it, unless walked first
        early = _charged_first(e, first)
        if early:
            w.line(before) if before else _charge_walk(x, walked, e)
        w.line(f"{result} = {start}")
        body.emit(w)
        _finished(x, target, e, result, walked, slow_pos if early else None)
        if first:  # walked before its statement: a breach at the statement's check named as the expression named it
            x.local_pos = slow_pos
    if x.fast_reads:
        with w.block("except FMISS:"):
            w.line(f"{target} = {slow}")
    return True


def _charged_first(e: ir.Aggregate, first: bool) -> bool:
    """Whether a statement's walk of ``e`` charges its list before the loop: a sort's (keyed), a sum's, and, walked
    before its statement (``first``: walk_pulled), a count's, any's or all's, as their expressions charge them."""
    return e.function.keyed or e.function.name == "sum" or (first and e.function.name in ("count", "any", "all"))


def _sums_counts(e: ir.Aggregate) -> bool:
    """Whether ``e`` is ``sum(count(...) for ...)`` (each count's items added to the sum's total: walk_assigned)."""
    return e.function.name == "sum" and type(e.element) is ir.Aggregate and e.element.function.name == "count"


def _update(e: ir.Aggregate, into: str | None) -> str:
    """A statement's walk's update of its result for an item whose condition holds (none when its element adds to
    the result itself, ``into``); an ``any``/``all`` that may stop early (stops_early) breaks at its first decisive item."""
    if into is not None:
        return ""
    return STOPPING_UPDATE[e.function.name] if stops_early(e) else WALK_FINISH[e.function.name][1]


def _loop(body: _Lines, header: str, e: ir.Aggregate, update: str, result: str, value: Callable[[Any], str]) -> None:
    """The loop of a walk (``header``): each item's condition, then, where it holds, its element (for the
    finishes that evaluate it) and ``update`` of ``result``; ``value`` writes a condition's or element's source."""
    with body.block(header):
        condition = value(e.condition) if e.condition is not None else None
        with body.block(f"if {condition}:") if condition is not None else _nothing():
            element = value(e.element) if e.function.evaluates_element else ""
            if update:
                body.line(update.format(result=result, element=element, var=f"v{e.slot}"))


def walkable(x: Expressions, e: ir.Aggregate) -> bool:
    """Whether walk_assigned writes aggregate ``e`` as a loop: a finish it knows, over a list that exists (a variable or
    an input, or its positions) or a range; a sum over any list (held in a local and charged before the walk)."""
    return e.function.name in WALK_FINISH and (
        e.function.name == "sum" or x.positions_walked(e) is not None or type(e.collection) in (ir.Local, ir.InputRef, ir.Range))


def walk_pulled(x: Expressions, target: str, value: Any) -> bool:
    """In a play function, ``target = value`` where ``value`` holds aggregates evaluated before anything in it that
    may fail or charge (:func:`first_walks`: ``sum(...) - sum(...)``, columns_act's losses): each walked first by a
    loop of its own (walk_assigned) into a local, in the order the expression evaluates them, then the statement
    written with those locals (Expressions.pulled).  The same values, errors and charges in the same order as the
    expression's: nothing evaluated before an aggregate could fail or charge, and each is evaluated whenever the
    value is.  False, writing nothing, when there is none."""
    if not pull_walks(x, [value]):
        return False
    try:
        x.assign_forms(target, value)
    finally:
        x.pulled.clear()
    return True


def pull_walks(x: Expressions, values: list[Any]) -> bool:
    """The aggregates :func:`first_walks` finds in ``values`` (evaluated one after the other: a statement's value, an
    outcome's fields) walked into locals, each by a loop of its own, and noted in ``x.pulled`` for the expression
    written after them (its writer clears it); False, writing nothing, where there is none, or outside a play
    function."""
    if x.work_local is None or x.aggregate_depth:
        return False
    found: list[ir.Aggregate] = []
    all(first_walks(x, value, found) for value in values)
    nodes = [id(node) for node in ir.walk(*values)]
    if any(nodes.count(id(e)) > 1 for e in found):
        return False  # one node met twice would be read from its local the second time, uncharged: none walked first
    for e in found:
        held = x.w.temp("pw")
        walk_assigned(x, held, e, first=True)  # charged as the expression charged it: before the walk
        # a sum of counts is at least 0, and its loop tested it against HI (_sum_checked)
        x.pulled[id(e)] = (held, e.function.name == "sum" and counts(e.element), x.walk_pos)
    return bool(found)


# How deep first_walks looks for aggregates: well above Expressions' outlining depth (MAX_EXPRESSION_DEPTH levels of
# source, one or two a level), so that no walked aggregate sits in an outlined part, which would evaluate it again.
FIRST_WALKS_DEPTH = 8


def first_walks(x: Expressions, e: Any, found: list[ir.Aggregate], depth: int = 0) -> bool:
    """Gather into ``found``, in evaluation order, the aggregates of ``e`` (walkable) that are evaluated whenever ``e``
    is and after nothing that may fail or charge (facts.cannot_fail): through arithmetic, comparisons, ``not``, a
    list's items, the left of ``and``/``or`` and an ``if``'s condition (what follows those depends on their values).
    True when evaluating ``e`` cannot fail once they are walked (a later value may be gathered too)."""
    kind = type(e)
    if depth > FIRST_WALKS_DEPTH:
        return False
    depth += 1
    if kind is ir.Aggregate:
        if walkable(x, e):
            found.append(e)
            return True
        return False
    if kind in (ir.Arithmetic, ir.Comparison):
        # a comparison of equality cannot fail; arithmetic may leave the integer bounds
        return first_walks(x, e.left, found, depth) and first_walks(x, e.right, found, depth) and kind is ir.Comparison and e.op in ("==", "!=")
    if kind is ir.Logical:
        first_walks(x, e.left, found, depth)
        return False
    if kind is ir.Not:
        return first_walks(x, e.operand, found, depth)
    if kind is ir.Conditional:
        first_walks(x, e.condition, found, depth)
        return False
    if kind is ir.ListOf:
        all(first_walks(x, item, found, depth) for item in e.items)
        return False  # the list is checked and charged
    return cannot_fail(e)


def unsigned_difference(x: Expressions, e: ir.Arithmetic) -> bool:
    """Whether ``e`` is ``a - b`` of two sums of counts walked before the statement (walk_pulled): each in 0 .. HI, so
    the difference is in -HI .. HI, inside the integer bounds (they are symmetric: Limits.derived)."""
    if e.op != "-" or not x.pulled:
        return False
    left, right = x.pulled.get(id(e.left)), x.pulled.get(id(e.right))
    return left is not None and right is not None and left[1] and right[1]


def plain_list(x: Expressions, e: ir.Aggregate) -> bool:
    """Whether ``list(...)`` makes plain values, sized by its length (Budget.check_flat): a range's, a play's positions."""
    ranged = isinstance(e.collection, ir.Range) and type(e.element) is ir.Local and e.element.slot == e.slot
    return ranged or (x.keys is not None and x.c.positions.positive(e.element))


def walked_first(before: str, value: str) -> str:
    """``value`` after ``before`` (a walked collection charged first: see Expressions.walked_collection), if there is one."""
    return f"({value} if {before} else None)" if before else value


def _finished(x: Expressions, target: str, e: ir.Aggregate, result: str, walked: str, slow_pos: str | None) -> None:
    """``target`` set from a walk's ``result`` by its finish (see walk_assigned); ``slow_pos``: the walk was charged
    before it, and a breach at the statement's check is reported where the expression's last charge points."""
    w = x.w
    if e.function.name == "list":
        w.line(f"{target} = {checked_locally(x, f'tuple_({result})', x.pos(e), walked, plain_list(x, e))}")
    elif e.function.keyed:
        w.line(f"{target} = {x.module.ref(e.function.finish, 'ag')}(rt, {x.pos(e)}, {result})")
    elif e.function.name == "sum":
        x.local_pos = slow_pos or x.local_pos
        w.line(f"{target} = {_sum_checked(x, e, result)}")
    else:
        if slow_pos is None:
            _charge_walk(x, walked, e)
        else:
            x.local_pos = slow_pos
        w.line(f"{target} = {result}")


def _sum_checked(x: Expressions, e: ir.Aggregate, total: str) -> str:
    """The total of a sum's walk inside the integer bounds, or its finish (functions.checked_sum) given the total alone,
    which refuses it as it refuses the list.  A sum of counts is at least 0: only the upper bound is tested."""
    finish, high = x.module.ref(e.function.finish, "ag"), x.w.need("HI", "rt.int_high")
    if not counts(e.element):
        return f"({total} if {x.w.need('LO', 'rt.int_low')} <= {total} <= {high} else {finish}(rt, {x.pos(e)}, ({total},)))"
    return f"({total} if {total} <= {high} else {finish}(rt, {x.pos(e)}, ({total},)))"


def counts(e: Any) -> bool:
    """Whether ``e`` is a count (``count(xs)`` or ``count(x for x in xs ...)``): an int at least 0."""
    return type(e) in (ir.Aggregate, ir.CallFunction) and e.function.name == "count"


def _charge_walk(x: Expressions, walked: str, e: ir.Aggregate) -> None:
    """The walk of a statement's loop added to the local counter (nothing for a range: CRNG charges it as it is made)."""
    if walked:
        x.w.line(f"{x.work_local} += {walked}")
        x.local_charges += 1
        x.local_pos = x.pos(e)


class _Lines:
    """Lines of a loop written before it is known whether they go inside a ``try`` (see walk_assigned): kept with
    their indentation relative to where they are emitted."""

    def __init__(self) -> None:
        self.lines: list[tuple[int, str]] = []
        self.indent = 0

    def line(self, text: str) -> None:
        self.lines.append((self.indent, text))

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        self.line(header)
        self.indent += 1
        yield
        self.indent -= 1

    def emit(self, w: CodeWriter) -> None:
        for indent, text in self.lines:
            w.indent += indent
            w.line(text)
            w.indent -= indent


def _walked_value(x: Expressions, body: _Lines, node: Any, into: str | None = None) -> str:
    """The source of a walk's condition or element, ``node``; a ``count``/``any``/``all`` over a list written as an
    inner loop first (:func:`_inner_walk`), its result held in a local (or, ``into``, added to a sum's total)."""
    if type(node) is ir.Aggregate and node.function.name in INNER_FINISH:
        return _inner_walk(x, body, node, into)
    return x.expr(node, True, 1)


def _inner_walk(x: Expressions, body: _Lines, e: ir.Aggregate, into: str | None = None) -> str:
    """``count/any/all/list(... for item in items ...)`` inside a walk's loop (``list(j for j in js if any(afloat(s) for s
    in ships[j]))``, about 1,000 items a play of fifteen_a_side) as a loop of its own: no list made and finished.
    Every item is evaluated, as the evaluator's list evaluates them (an item after a true one may still raise); the
    walk is charged to the local counter before it, checked in place, as the aggregate's expression charges it
    (Expressions.visit_Aggregate); the local holding the result is returned."""
    walks = x.positions_walked(e)
    if walks is not None:
        x.positions_of[e.slot] = walks
    x.aggregate_depth += 1
    try:
        collection, walked, before = x.walked_collection(e, walks, 1, True)
        listed = e.function.name == "list"  # its walk charged with the list made, after the loop, as there
        if before:
            body.line(before)
        elif walked and not listed:
            body.line(local_charge(x, walked, x.pos(e)))
        start, update = INNER_FINISH[e.function.name]
        update = STOPPING_UPDATE[e.function.name] if stops_early(e) else update
        if into is not None:  # a count added to the total of the sum walking it (walk_assigned)
            result = into
        else:
            result = x.w.temp("wi")
            body.line(f"{result} = {start}")
        _loop(body, f"for v{e.slot} in {collection}:", e, update, result, lambda node: x.expr(node, True, 2))
    finally:
        x.positions_of.pop(e.slot, None)
        x.aggregate_depth -= 1
    if listed:  # checked in place, as the outer walk's item (Expressions.visit_Aggregate at that depth)
        return checked_locally(x, f"tuple_({result})", x.pos(e), walked, plain_list(x, e))
    return result


def decided(x: Expressions, e: Any) -> Any:
    """Plays only: the branch an ``if c then a else b`` takes when ``c`` is a yes/no constant (a rules switch such as
    ``positions_close_up``: the evaluator evaluates only that branch), so that a walk there is written as a
    statement's loop (walk_assigned); anything else as it is."""
    while x.keys is not None and type(e) is ir.Conditional and type(e.condition) is ir.Const and type(e.condition.value) is bool:
        e = e.then if e.condition.value else e.otherwise
    return e


def constant_lookup(x: Expressions, e: Any) -> Any:
    """Plays only: the value of a lookup whose row, column and shift are constants (``lookup unspecified_rolls(row =
    "tactical_contest", column = "dice")``, 63 lookups a play of fifteen_a_side), found now, when it is a number,
    yes/no or text found without an error; None otherwise (an error is raised where the evaluator raises it)."""
    if x.keys is None or type(e) is not ir.Lookup:
        return None
    values = []
    for part in (e.row, e.column, e.shift):
        if part is not None and not isinstance(part, ir.Const):
            return None
        values.append(None if part is None else part.value)
    row, column, shift = values
    try:
        value = lookup_site(e.table, e.pos)(row, column, 0 if shift is None else shift)
    except Exception:  # noqa: BLE001 - any error is the run's to raise, at run time
        return None
    return value if literal(value) is not None else None


def walked_length(walks: tuple[str, ...]) -> str:
    """How many positions ``walks`` (Expressions.positions_walked) gives: its list's length, the least of its lists'."""
    lengths = [f"len({source})" for source in walks]
    return lengths[0] if len(lengths) == 1 else f"min({', '.join(lengths)})"
