"""The built-in functions of the procedure language: one registry for every pass.

Each entry says what a function is called, how many arguments it takes, its
type rule (run by the checker, which reports misuse at the argument's
position and wraps values it cannot type in run-time guards), whether it
may roll dice, and its implementation.  The tree-walking evaluator calls
the implementation; the compiler to Python calls the same implementation
by reference, or writes the expression inline when ``inline`` says how and
nothing can go wrong.

``FUNCTIONS`` holds the calls (``min(a, b)``, ``append(xs, x)``);
``AGGREGATES`` the forms over a list (``sum(u.strength for u in fleet)``).

An implementation is ``run(rt, pos, *args)``: ``rt`` is the call's
:class:`runtime.Run`, in both back ends (its ``budget``, ``limits``, ``int_low`` and ``int_high``), ``pos``
the call's position for errors.  Arguments arrive typed as the checker
promised (guards have run), so only run-time facts are checked here: empty
lists, positions, division by zero, sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

from .errors import RuleViolation
from .ir import Canonical
from .limits import breach
from .proven_types import records_differ
from .values import (
    ANY,
    BOOL,
    INT,
    RATIO,
    ListType,
    OutcomeValue,
    Record,
    RecordType,
    Type,
    base_kind,
    compatible,
    is_order_free,
    measure,
    show,
)


class Function(NamedTuple):
    name: str
    usage: str  # how it is called, for messages
    arity: tuple[int, int | None]  # fewest and most arguments (None: no most)
    rolls: bool  # may roll dice: the checker hoists it into a Roll statement
    type_rule: Callable[[Any, Any], Type]  # (checker, CallSite) -> result type
    run: Callable[..., Any] | None  # (rt, pos, *args) -> value; None for dice (a Roll statement)
    # A Python expression template over the argument sources ("abs({0})"), for the compiler,
    # when the function cannot fail for the given number of arguments; None otherwise.
    inline: Callable[[int], str | None] = lambda arguments: None


class AggregateFunction(NamedTuple):
    name: str
    # (checker, aggregate AST node, element IR, element type, collection element type) -> (element IR, result type)
    type_rule: Callable[..., tuple[Any, Type]]
    # (rt, pos, values) -> result; ``values`` are the elements (count: the items kept; sort: (key, index, item))
    finish: Callable[..., Any]
    evaluates_element: bool = True  # count only tests the condition
    keyed: bool = False  # sort and sort_desc keep the item beside its key


class CallSite(NamedTuple):
    """What a type rule sees: the call, its arguments' AST, IR (replaceable: guards) and types."""

    expr: Any  # syntax.Call
    sources: list  # syntax.Expr per argument
    values: list  # ir.Expr per argument; a rule may wrap one in a guard
    types: list  # Type per argument


# ---- implementations ---------------------------------------------------------------


def checked_sum(rt, pos, values) -> int:
    total = sum(values)
    if total > rt.int_high or total < rt.int_low:
        raise breach(pos, "max_int_bits", f"a sum grows past {rt.limits.max_int_bits} bits")
    return total


def _min_max(name: str, chooser: Callable) -> Callable:
    def run(rt, pos, *args):
        values = args[0] if len(args) == 1 else args
        if not values:
            raise RuleViolation(pos.diagnostic(f"{name}() of an empty list"))
        return chooser(values)

    return run


def _ceil_div(rt, pos, a, b):
    if b == 0:
        raise RuleViolation(pos.diagnostic("division by zero"))
    return -(-a // b)


def _ratio(rt, pos, attack, defense):
    if defense <= 0 or attack < 0:
        raise RuleViolation(pos.diagnostic(f"odds need a defense above 0 and an attack of 0 or more, not {attack} to {defense}"))
    return Fraction(attack, defense)


def _append(rt, pos, items, item):
    return rt.budget.check_changed(items + (item,), items, None, item, pos)


def _position(name: str, pos, items, position) -> None:
    if not 1 <= position <= len(items):
        raise RuleViolation(pos.diagnostic(f"position {position} is outside the list (1 to {len(items)})"))


def _replace_at(rt, pos, items, position, item):
    if not 1 <= position <= len(items):  # _position's test in place (exact eia 3 v 3 makes 103,000 of these)
        _position("replace_at", pos, items, position)
    return rt.budget.check_changed(items[: position - 1] + (item,) + items[position:], items, items[position - 1], item, pos)


def _remove_at(rt, pos, items, position):
    _position("remove_at", pos, items, position)
    return rt.budget.check_value(items[: position - 1] + items[position:], pos)


def _repeat(rt, pos, item, times):
    if times < 0:
        raise RuleViolation(pos.diagnostic(f"repeat() count must be 0 or more, not {times}"))
    limits = rt.limits
    each, _ = measure((item,), limits.max_value_items, limits.max_value_depth)
    if each * times > limits.max_value_items:
        raise breach(pos, "max_value_items", f"repeat() would make a value of more than {limits.max_value_items:,} items")
    return rt.budget.check_value((item,) * times, pos)


def _keep(name: str, descending: bool) -> Callable:
    def run(rt, pos, items, k):
        if k < 0:
            raise RuleViolation(pos.diagnostic(f"{name}() keeps 0 or more items, not {k}"))
        rt.budget.charge(len(items), pos)
        return tuple(sorted(items, reverse=descending)[:k])

    return run


def _with_field(rt, pos, record, field_name, value):
    old = record.get(field_name, Record.MISSING) if isinstance(record, Record) else Record.MISSING
    if old is Record.MISSING:
        raise RuleViolation(pos.diagnostic(f"{show(record)} has no field '{field_name}'"))
    made = Record(record.type_name, tuple([(k, value if k == field_name else v) for k, v in record.items()]))
    if type(value) not in _NESTED and type(old) not in _NESTED:
        made.keep_size_of(record)  # one plain value for another: the same size, not measured again
    return rt.budget.check_value(made, pos)


_NESTED = (tuple, Record, OutcomeValue)


# ---- type rules --------------------------------------------------------------------
# Each reports misuse through the checker (``error``, ``expect``, ``expect_list_of``,
# ``guard``) and returns the call's type.  Messages are the language's own.


def _rule_min_max(checker, site: CallSite) -> Type:
    name, types = site.expr.function, site.types
    if len(types) == 1:
        site.values[0] = checker.expect_list_of(site.sources[0], types[0], INT, name, site.values[0])
        return INT
    if not types:
        checker.error(site.expr.pos, f"{name}() needs at least one argument")
    for index, t in enumerate(types):
        site.values[index] = checker.expect(site.sources[index], t, INT, f"an argument of {name}()", site.values[index])
    return INT


def _rule_all_any(checker, site: CallSite) -> Type:
    name = site.expr.function
    if len(site.types) != 1:
        checker.error(site.expr.pos, f"{name}() takes one list")
    else:
        site.values[0] = checker.expect_list_of(site.sources[0], site.types[0], BOOL, name, site.values[0])
    return BOOL


def _rule_count_sum(checker, site: CallSite) -> Type:
    name, types = site.expr.function, site.types
    if name == "sum" and len(types) == 1:
        site.values[0] = checker.expect_list_of(site.sources[0], types[0], INT, name, site.values[0])
        return INT
    if len(types) != 1:
        checker.error(site.expr.pos, f"{name}() takes one list")
    elif base_kind(types[0]) not in ("list", "any"):
        checker.error(site.sources[0].pos, f"{name}() needs a list, not {types[0].describe()}")
    else:
        site.values[0] = checker.guard(site.sources[0], types[0], (ListType(ANY),), f"what {name}() counts", site.values[0])
    return INT


def _rule_abs(checker, site: CallSite) -> Type:
    if len(site.types) != 1:
        checker.error(site.expr.pos, "abs() takes one number")
    else:
        site.values[0] = checker.expect(site.sources[0], site.types[0], INT, "the argument of abs()", site.values[0])
    return INT


def _rule_two_numbers(checker, site: CallSite) -> Type:
    name = site.expr.function
    function = FUNCTIONS[name]
    if len(site.types) != 2:
        checker.error(site.expr.pos, f"{function.usage} takes two numbers")
    for index, t in enumerate(site.types):
        site.values[index] = checker.expect(site.sources[index], t, INT, f"an argument of {name}()", site.values[index])
    return INT if name == "ceil_div" else RATIO


def _rule_dice(checker, site: CallSite) -> Type:  # pragma: no cover - the checker hoists rolls before type rules run
    return INT


def _rule_new_value(checker, site: CallSite) -> Type:
    """append, replace_at, remove_at, repeat, with_field: new values, never mutation."""
    name, sources, values, types = site.expr.function, site.sources, site.values, site.types
    function = FUNCTIONS[name]
    arity = function.arity[0]
    if len(types) != arity:
        checker.error(site.expr.pos, f"{function.usage} takes {arity} arguments")
        return ANY
    if name == "repeat":
        values[1] = checker.expect(sources[1], types[1], INT, "the count of repeat()", values[1])
        return ListType(types[0])
    if name == "with_field":
        return _rule_with_field(checker, site)
    list_type = types[0]
    if base_kind(list_type) not in ("list", "any"):
        checker.error(sources[0].pos, f"{name}() needs a list, not {list_type.describe()}")
        return ANY
    values[0] = checker.guard(sources[0], list_type, (ListType(ANY),), f"the list given to {name}()", values[0])
    element = list_type.element if isinstance(list_type, ListType) else ANY
    if name in ("replace_at", "remove_at"):
        values[1] = checker.expect(sources[1], types[1], INT, f"the position in {name}()", values[1])
    item_type = types[-1] if name in ("append", "replace_at") else None
    if item_type is not None and (not compatible(element, item_type) or records_differ(element, item_type)):
        checker.error(sources[-1].pos, f"a {list_type.describe()} cannot hold {item_type.describe()}")
    elif item_type is not None:
        values[-1] = checker.guard(sources[-1], item_type, (element,), f"an item of a {list_type.describe()}", values[-1])
    return list_type if isinstance(list_type, ListType) else ListType(ANY)


def _rule_keep(checker, site: CallSite) -> Type:
    """highest(list, k), lowest(list, k): a list of numbers and how many to keep."""
    name = site.expr.function
    if len(site.types) != 2:
        checker.error(site.expr.pos, f"{FUNCTIONS[name].usage} takes a list of numbers and a count")
        return ListType(INT)
    site.values[0] = checker.expect_list_of(site.sources[0], site.types[0], INT, name, site.values[0])
    site.values[1] = checker.expect(site.sources[1], site.types[1], INT, f"the count of {name}()", site.values[1])
    return ListType(INT)


def _rule_with_field(checker, site: CallSite) -> Type:
    from .syntax import (
        StrLit,  # a rule of the checker, which has the syntax tree loaded by then
    )

    sources, values, types = site.sources, site.values, site.types
    record_type = types[0]
    if not isinstance(sources[1], StrLit):
        checker.error(sources[1].pos, 'with_field needs the field name as a literal string: with_field(ship, "damaged", true)')
        return record_type
    if isinstance(record_type, RecordType):
        field_type = record_type.field(sources[1].value)
        if field_type is None:
            checker.error(sources[1].pos, f"{record_type.describe()} has no field '{sources[1].value}' (fields: {', '.join(n for n, _ in record_type.fields)})")
        elif not compatible(field_type, types[2]) or records_differ(field_type, types[2]):
            checker.error(sources[2].pos, f"field '{sources[1].value}' holds {field_type.describe()}, not {types[2].describe()}")
        else:
            values[2] = checker.guard(sources[2], types[2], (field_type,), f"field '{sources[1].value}'", values[2])
            if is_order_free(field_type) and type(values[2]) is not Canonical:
                values[2] = Canonical(values[2].pos, values[2])  # an order-free field keeps its items in order
    elif base_kind(record_type) != "any":
        checker.error(sources[0].pos, f"with_field needs a record, not {record_type.describe()}")
    return record_type


def _inline_min_max(name: str) -> Callable[[int], str | None]:
    # two or more numbers can never be empty; one argument is a list that may be
    return lambda arguments: f"{name}({', '.join(f'{{{i}}}' for i in range(arguments))})" if arguments >= 2 else None


FUNCTIONS: dict[str, Function] = {
    f.name: f
    for f in (
        Function("min", "min(a, b, ...) or min(list)", (1, None), False, _rule_min_max, _min_max("min", min), _inline_min_max("min")),
        Function("max", "max(a, b, ...) or max(list)", (1, None), False, _rule_min_max, _min_max("max", max), _inline_min_max("max")),
        Function("abs", "abs(n)", (1, 1), False, _rule_abs, lambda rt, pos, value: abs(value), lambda arguments: "abs({0})"),
        Function("count", "count(list)", (1, 1), False, _rule_count_sum, lambda rt, pos, items: len(items), lambda arguments: "len({0})"),
        Function("sum", "sum(list)", (1, 1), False, _rule_count_sum, checked_sum),
        Function("all", "all(list)", (1, 1), False, _rule_all_any, lambda rt, pos, items: all(items), lambda arguments: "all({0})"),
        Function("any", "any(list)", (1, 1), False, _rule_all_any, lambda rt, pos, items: any(items), lambda arguments: "any({0})"),
        Function("dice", "dice(count, faces)", (2, 2), True, _rule_dice, None),
        Function("pool", "pool(count, faces)", (2, 2), True, _rule_dice, None),
        Function("successes", "successes(count, faces, counted_faces)", (3, 3), True, _rule_dice, None),
        # checked by interpreter/rerolls.py: its first argument is a roll, its third a word
        Function("reroll", "reroll(roll, faces) or reroll(roll, faces, once | until_none)", (2, 3), True, _rule_dice, None),
        Function("highest", "highest(list, k)", (2, 2), False, _rule_keep, _keep("highest", True)),
        Function("lowest", "lowest(list, k)", (2, 2), False, _rule_keep, _keep("lowest", False)),
        Function("ceil_div", "ceil_div(a, b)", (2, 2), False, _rule_two_numbers, _ceil_div),
        Function("ratio", "ratio(attack, defense)", (2, 2), False, _rule_two_numbers, _ratio),
        Function("append", "append(list, item)", (2, 2), False, _rule_new_value, _append),
        Function("replace_at", "replace_at(list, position, item)", (3, 3), False, _rule_new_value, _replace_at),
        Function("remove_at", "remove_at(list, position)", (2, 2), False, _rule_new_value, _remove_at),
        Function("repeat", "repeat(item, times)", (2, 2), False, _rule_new_value, _repeat),
        Function("with_field", 'with_field(record, "field", value)', (3, 3), False, _rule_new_value, _with_field),
    )
}


# ---- aggregates ----------------------------------------------------------------------


def _aggregate_rule(expected: Type | None, what: str, result: Callable[[Type, Type], Type]):
    def rule(checker, expr, element_ir, element_type, item_type):
        if expected is not None:
            element_ir = checker.expect(expr.element, element_type, expected, what.format(name=expr.function), element_ir)
        return element_ir, result(element_type, item_type)

    return rule


def _finish_min_max(name: str, chooser: Callable) -> Callable:
    def finish(rt, pos, values):
        if not values:
            raise RuleViolation(pos.diagnostic(f"{name}() over an empty list"))
        return chooser(values)

    return finish


def _finish_sort(descending: bool) -> Callable:
    def finish(rt, pos, keyed):
        # Stable: equal keys keep their order, descending or not.
        keyed.sort(key=(lambda k: (-k[0], k[1])) if descending else (lambda k: (k[0], k[1])))
        return tuple(item for _, _, item in keyed)

    return finish


AGGREGATES: dict[str, AggregateFunction] = {
    a.name: a
    for a in (
        AggregateFunction("all", _aggregate_rule(BOOL, "what {name}() tests", lambda e, i: BOOL), lambda rt, pos, values: all(values)),
        AggregateFunction("any", _aggregate_rule(BOOL, "what {name}() tests", lambda e, i: BOOL), lambda rt, pos, values: any(values)),
        AggregateFunction("count", _aggregate_rule(None, "", lambda e, i: INT), lambda rt, pos, values: len(values), evaluates_element=False),
        AggregateFunction("sum", _aggregate_rule(INT, "what {name}() adds up or compares", lambda e, i: INT), checked_sum),
        AggregateFunction("min", _aggregate_rule(INT, "what {name}() adds up or compares", lambda e, i: INT), _finish_min_max("min", min)),
        AggregateFunction("max", _aggregate_rule(INT, "what {name}() adds up or compares", lambda e, i: INT), _finish_min_max("max", max)),
        AggregateFunction("list", _aggregate_rule(None, "", lambda e, i: ListType(e)), lambda rt, pos, values: rt.budget.check_value(tuple(values), pos)),
        AggregateFunction("sort", _aggregate_rule(INT, "the key {name}() orders by", lambda e, i: ListType(i)), _finish_sort(False), keyed=True),
        AggregateFunction("sort_desc", _aggregate_rule(INT, "the key {name}() orders by", lambda e, i: ListType(i)), _finish_sort(True), keyed=True),
    )
}
