"""Whole random rulesets, compiled engine against the reference evaluator, and plays against their called form.

tests/test_differential.py draws one procedure with one fixed callee.  Here each case is a ruleset of two to
five procedures: callees that resolve smaller ones (small enough to be written in place: engine/inline.py),
called in `let`, `set`, destructuring, conditions and loops, with expressions as arguments and coerced
inputs (an enumeration, bounded numbers); records and lists of records (`with {...}`, `replace_at`,
`append`, `remove_at`, field reads, a field with bounds); aggregates nested in arithmetic, comparisons and
outcome fields (`sum(count(...) for ...)`, walks over positions); `while` and `for` loops with `break`;
dice, pools and re-rolls; a table and a modifier list.  Each case must give:

- the same exact odds in both back ends (or errors of one kind);
- the same outcome or error (words and position) for seeded plays and small value limits, and the same
  Monte Carlo counts for a seed, in the compiled engine, in its *called form* (the play code written with no
  callee in place and no aggregate walked before its statement, as before issue 24's tenth round) and in
  the evaluator;
- for every work budget from 1 unit to what a play needs, the same stop (words, line, column) or none in
  the compiled engine, its called form and the called form with walks (inlining alone off): the same units
  charged in the same order.

Twenty fixed rulesets run by default (about 6 s of CPU); ``WARTABLE_DIFF_RULESETS=2000`` runs that many, drawn
afresh each run.  The s11 differential hunt ran about 14,000 such rulesets (a larger form of this generator) and
found three places where a work budget stopped the compiled engine elsewhere than its called form (regression
tests: the last of test_play_inlining.py, two in the outcome section of test_play_aggregates.py).
"""

from __future__ import annotations

import os
import random

import pytest

from interpreter import load_ruleset, odds, resolve
from interpreter.api import monte_carlo
from interpreter.compiled_ruleset import CompiledRuleset
from interpreter.engine import inline, play, playwork
from interpreter.errors import WartableError
from interpreter.limits import Budget, Limits

RUNS = int(os.environ.get("WARTABLE_DIFF_RULESETS", "20"))
FIRST = random.randrange(1 << 30) if "WARTABLE_DIFF_RULESETS" in os.environ else 0
KINDS = ["a", "b", "c"]
TESTS = ["alive", "str > 1", 'kind == "a"']  # of an item, in any/all
HEADER = """\
wartable: 1
name: g
title: "generated"
source: "tests"
version: "1"
types:
  unit:
    fields:
      kind: {type: enum, values: [a, b, c]}
      str: {type: int, default: 1}
      hits: {type: int, default: 0, min: -2, max: 9}
      alive: {type: bool, default: true}
tables:
  hits:
    title: "Hits"
    rule: "r"
    rows: {name: "Die", dice: 1d6}
    edges: {rows: clamp}
    cells: {"1-2": 0, "3-5": 1, "6": 2}
modifiers:
  drms:
    kind: drm
    rule: "r"
    entries:
      big: {label: "big", value: 1, when: "n > 2", rule: "r"}
      many: {label: "many", value: -2, when: "count(us) > 1", rule: "r"}
procedures:
"""
CALLEE_INPUTS = ("{k: {type: int, default: 2, min: -3, max: 8}, e: {type: enum, values: [a, b, c], default: a}, a: {type: int},"
                 " u: {type: unit}, us: {type: list, of: unit}, cols: {type: list, of: {type: list, of: unit}}}")
MAIN_INPUTS = ("{n: {type: int, default: 2}, xs: {type: list, of: int, default: [1, 2]}, us: {type: list, of: unit, default: []},"
               " cols: {type: list, of: {type: list, of: unit}, default: [[]]}}")
ROLLS = ["1d6", "2d3", "d3", "sum(highest(pool(3, 3), 2))", "successes(3, 4, [1, 4])", "reroll(1d6, [1])",
         "count(pool(2, 3))", "reroll(2d3, [1, 2], until_none)", "dice(min(max(n, 0), 2), 3)"]


class Writer:
    """Random statements and expressions of one procedure, typed: int, bool, unit, li (list of int), lu (of units).
    ``env`` maps what may be read (names, and reads such as ``r3.v``) to its type."""

    def __init__(self, rng: random.Random, callees: list[str], inputs: set[str]) -> None:
        self.r, self.callees, self.inputs, self.k = rng, callees, inputs, 0

    def fresh(self, prefix: str) -> str:
        self.k += 1
        return f"{prefix}{self.k}"

    def pick(self, items):
        return self.r.choice(items)

    def leaf(self, t: str, env: dict) -> str:
        names = [n for n, ty in env.items() if ty == t]
        extra = {"int": ["0", "1", "2", "-1"], "bool": ["true", "false"], "li": ["[]", "[1, 2]", "[3, 1, 2]"], "lu": ["[]"],
                 "unit": ['unit(kind = "a")', 'unit(kind = "b", str = 2, hits = 1)']}[t]
        return self.pick(names + extra)

    def at(self, items: str, env: dict, d: int, default: str) -> str:
        """An item of ``items``: mostly at a position inside it, sometimes anywhere (an error both engines word)."""
        if self.r.random() < 0.1:
            return f"{items}[{self.pick(['1', '2', 'count(xs)', self.e('int', env, d - 1)])}]"
        return f"(if count({items}) > 0 then {items}[1 + abs({self.e('int', env, d - 1)}) % count({items})] else {default})"

    def changed(self, function: str, items: str, env: dict, d: int, extra: str) -> str:
        if self.r.random() < 0.1:
            return f"{function}({items}, {self.pick(['1', '2', self.e('int', env, d - 1)])}{extra})"
        return f"(if count({items}) > 0 then {function}({items}, 1 + abs({self.e('int', env, d - 1)}) % count({items}){extra}) else {items})"

    def cond(self, v: str, env: dict, d: int) -> str:
        if self.r.random() < 0.4:
            return ""
        return " if " + self.pick([f"{v}.alive", f"{v}.str >= {self.leaf('int', env)}", f'{v}.kind == "{self.pick(KINDS)}"',
                                   f"{v}.hits < {self.e('int', env, d - 1)}"])

    def call(self, env: dict, d: int) -> str:
        args = [f"a = {self.e('int', env, d - 1, top=self.r.random() < 0.2)}", f"u = {self.e('unit', env, d - 1)}",
                f"us = {self.e('lu', env, d - 1)}", "cols = cols"]
        if self.r.random() < 0.5:
            args.append(f"k = {self.e('int', env, d - 1)}")  # coerced: outside -3 .. 8 is an error at the call
        if self.r.random() < 0.5:
            args.append(self.pick([f"e = {self.e('unit', env, d - 1)}.kind", 'e = "b"',
                                   f'e = (if {self.e("bool", env, d - 1)} then "c" else "{self.pick(["a", "a", "zz"])}")']))
        self.r.shuffle(args)
        return f"resolve {self.pick(self.callees)}({', '.join(args)})"

    def positions(self, t: str, env: dict, lists: list[str]) -> str | None:
        """An aggregate over the positions of one or two list variables (a play reads their items without tests)."""
        one, two, i = self.pick(lists), self.pick(lists), self.fresh("j")
        span = self.pick([f"1 .. count({one})", f"1 .. min(count({one}), count({two}))"])
        forms = {
            "int": [f"sum({one}[{i}].str for {i} in {span})",
                    f"count({i} for {i} in {span} if {one}[{i}].alive and {two}[{i}].hits >= {self.leaf('int', env)})",
                    f"sum({one}[{i}].hits - {two}[{i}].str for {i} in {span} if {i} != {self.leaf('int', env)})"],
            "lu": [f"list(if {i} in xs then {one}[{i}] with {{alive = false}} else {two}[{i}] for {i} in {span})",
                   f'list({one}[{i}] for {i} in {span} if {two}[{i}].kind == "a")'],
            "bool": [f"any({one}[{i}].alive for {i} in {span})", f"all({one}[{i}].str > {two}[{i}].hits for {i} in {span})"],
            "li": [f"list({i} for {i} in {span} if {one}[{i}].alive)"],
        }
        return self.pick(forms[t]) if t in forms else None

    def e(self, t: str, env: dict, d: int, top: bool = False) -> str:
        """An expression of type ``t``; ``top``: it may roll dice or resolve a callee (a statement's value)."""
        r = self.r
        if d <= 0 or r.random() < 0.25:
            return self.leaf(t, env)
        if top and self.callees and r.random() < 0.25 and t in ("int", "bool", "unit"):
            c = self.call(env, d)
            return self.pick({"int": [f"{c}.v", f"({c}.v + {self.e('int', env, d - 1)})", f"lookup hits(row = {c}.v)"],
                              "bool": [f'({c}.outcome == "{self.pick(["hit", "miss", "odd"])}")'], "unit": [f"{c}.u"]}[t])
        if top and t == "int" and r.random() < 0.25:
            return self.pick(ROLLS) + self.pick(["", f" + {self.e('int', env, d - 1)}"])
        lists = [n for n, ty in env.items() if ty == "lu" and n.isidentifier()]
        if lists and r.random() < 0.15 and t in ("int", "lu", "bool", "li"):
            return self.positions(t, env, lists) or self.leaf(t, env)
        return self.pick(FORMS[t])(self, env, d, lambda tt: self.e(tt, env, d - 1))

    def statement(self, env: dict, depth: int, in_loop: bool) -> list[str]:
        forms = ["let", "let", "let", "set", "set", "set"] + ["call", "call", "destructure"] * bool(self.callees)
        forms += ["require"] * (self.r.random() < 0.3) + ["note"] * (self.r.random() < 0.3) + ["break"] * in_loop
        forms += ["if", "for", "for", "while"] * (depth > 0)
        return STATEMENTS[self.pick(forms)](self, env, depth, in_loop)

    def block(self, env: dict, depth: int, in_loop: bool, n: int) -> list[str]:
        return [line for _ in range(n) for line in self.statement(env, depth, in_loop)]


def _sum_of_counts(w, env, d, sub):
    v, c = w.fresh("s"), w.fresh("c")
    return f"sum(count({v} for {v} in {c}{w.cond(v, env, d)}) for {c} in cols)"


def _difference_of_sums(w, env, d, sub):
    v1, v2 = w.fresh("s"), w.fresh("s")
    return f"(sum(count({v1} for {v1} in c if {v1}.hits >= 1) for c in cols) - sum(count({v2} for {v2} in c if {v2}.alive) for c in [{sub('lu')}]))"


def _over(w, prefix, form):
    """``form(v)`` with a fresh name for its aggregate's variable."""
    return form(w.fresh(prefix))


def _aggregate(w, env, d, sub, form):
    """``form(v, items, cond)``: an aggregate over a list of units, its variable ``v``, maybe a condition."""
    v = w.fresh("y")
    return form(v, sub("lu"), w.cond(v, env, d))


FORMS = {
    "int": [
        lambda w, env, d, sub: f"({sub('int')} {w.pick(['+', '-', '*', '//', '%'])} {sub('int')})",
        lambda w, env, d, sub: f"{sub('unit')}.{w.pick(['str', 'hits'])}",
        lambda w, env, d, sub: w.at(sub("lu"), env, d, 'unit(kind = "c")') + ".str",
        lambda w, env, d, sub: _aggregate(w, env, d, sub, lambda v, items, cond: f"sum({v}.{w.pick(['str', 'hits'])} for {v} in {items}{cond})"),
        _sum_of_counts,
        lambda w, env, d, sub: _aggregate(w, env, d, sub, lambda v, items, cond: f"count({v} for {v} in {items}{cond})"),
        lambda w, env, d, sub: f"count({sub('lu')})",
        lambda w, env, d, sub: _aggregate(w, env, d, sub, lambda v, items, cond: f"(if count({items}) > 0 then {w.pick(['max', 'min'])}({v}.str for {v} in {items}) else 0)"),
        lambda w, env, d, sub: f"{w.pick(['min', 'max'])}({sub('int')}, {sub('int')})",
        lambda w, env, d, sub: f"(if {sub('bool')} then {sub('int')} else {sub('int')})",
        lambda w, env, d, sub: w.at(sub("li"), env, d, "0"),
        lambda w, env, d, sub: f"sum({sub('li')})",
        _difference_of_sums,
        lambda w, env, d, sub: f"abs({sub('int')})",
        lambda w, env, d, sub: "modifiers drms",
        lambda w, env, d, sub: f"lookup hits(row = {sub('int')})",
        lambda w, env, d, sub: _over(w, "y", lambda v: f"sum({v} * {sub('int')} for {v} in {sub('li')})"),
    ],
    "bool": [
        lambda w, env, d, sub: f"({sub('int')} {w.pick(['==', '!=', '<', '<=', '>', '>='])} {sub('int')})",
        lambda w, env, d, sub: f"({sub('bool')} {w.pick(['and', 'or'])} {sub('bool')})",
        lambda w, env, d, sub: f"(not {sub('bool')})",
        lambda w, env, d, sub: _over(w, "y", lambda v: f"{w.pick(['any', 'all'])}({v}.{w.pick(TESTS)} for {v} in {sub('lu')})"),
        lambda w, env, d, sub: f"{sub('unit')}.alive",
        lambda w, env, d, sub: f"({sub('int')} {w.pick(['in', 'not in'])} {sub('li')})",
        lambda w, env, d, sub: f'({sub("unit")}.kind == "{w.pick(KINDS)}")',
        lambda w, env, d, sub: f"({sub('int')} > count(cols[1]))",
    ],
    "unit": [
        lambda w, env, d, sub: f"({sub('unit')} with {{{w.pick(['str', 'hits'])} = {sub('int')}}})",
        lambda w, env, d, sub: f'unit(kind = "{w.pick(KINDS)}", str = {sub("int")})',
        lambda w, env, d, sub: w.at(sub("lu"), env, d, "u" if "u" in env else "w"),
        lambda w, env, d, sub: f"({sub('unit')} with {{alive = {sub('bool')}, hits = {sub('int')}}})",
        lambda w, env, d, sub: w.at(w.at("cols", env, d, "[]"), env, d, 'unit(kind = "b")'),
    ],
    "li": [
        lambda w, env, d, sub: f"[{sub('int')}, {sub('int')}]",
        lambda w, env, d, sub: f"append({sub('li')}, {sub('int')})",
        lambda w, env, d, sub: w.changed("remove_at", sub("li"), env, d, ""),
        lambda w, env, d, sub: w.changed("replace_at", sub("li"), env, d, ", " + sub("int")),
        lambda w, env, d, sub: _aggregate(w, env, d, sub, lambda v, items, cond: f"list({v}.str + {sub('int')} for {v} in {items}{cond})"),
        lambda w, env, d, sub: _over(w, "y", lambda v: f"{w.pick(['sort', 'sort_desc'])}({v} for {v} in {sub('li')})"),
        lambda w, env, d, sub: f"(1 .. min({sub('int')}, 4))",
        lambda w, env, d, sub: f"{w.pick(['highest', 'lowest'])}({sub('li')}, min(abs({sub('int')}), 3))",
    ],
    "lu": [
        lambda w, env, d, sub: f"append({sub('lu')}, {sub('unit')})",
        lambda w, env, d, sub: w.changed("replace_at", sub("lu"), env, d, ", " + sub("unit")),
        lambda w, env, d, sub: w.changed("remove_at", sub("lu"), env, d, ""),
        lambda w, env, d, sub: _aggregate(w, env, d, sub, lambda v, items, cond: f"list({v} with {{hits = {v}.hits + {sub('int')}}} for {v} in {items})"),
        lambda w, env, d, sub: _aggregate(w, env, d, sub, lambda v, items, cond: f"list({v} for {v} in {items}{cond})"),
        lambda w, env, d, sub: f"[{sub('unit')}, {sub('unit')}]",
        lambda w, env, d, sub: _over(w, "c", lambda c: f"list({c}[1] for {c} in cols if count({c}) > 0)"),
        lambda w, env, d, sub: _aggregate(w, env, d, sub, lambda v, items, cond: f"{w.pick(['sort', 'sort_desc'])}({v}.{w.pick(['str', 'hits'])} for {v} in {items}{cond})"),
        lambda w, env, d, sub: f"repeat({sub('unit')}, min(abs({sub('int')}), 3))",
        lambda w, env, d, sub: _aggregate(w, env, d, sub, lambda v, items, cond: f'list(with_field({v}, "hits", {v}.hits // 2) for {v} in {items})'),
    ],
}


def _let(w, env, depth, in_loop):
    t, name = w.pick(["int", "int", "bool", "unit", "li", "lu"]), w.fresh("z")
    line = f"let {name} = {w.e(t, env, 3, top=True)}"
    env[name] = t
    return [line]


def _set(w, env, depth, in_loop):
    name = w.pick([n for n in env if n.isidentifier() and not n.startswith("i_") and n not in w.inputs])
    return [f"set {name} = {w.e(env[name], env, 3, top=True)}"]


def _call(w, env, depth, in_loop):
    name = w.fresh("r")
    line = f"let {name} = {w.call(env, 2)}"
    env.update({f"{name}.v": "int", f"{name}.u": "unit", f'{name}.outcome == "hit"': "bool"})
    return [line]


def _destructure(w, env, depth, in_loop):
    value, ints = w.call(env, 2), [n for n, t in env.items() if t == "int" and n.isidentifier() and not n.startswith("i_") and n not in w.inputs]
    if ints and w.r.random() < 0.5:
        return [f"set {{v as {w.pick(ints)}}} = {value}"]
    a, b = w.fresh("dv"), w.fresh("du")
    env.update({a: "int", b: "unit"})
    return [f"let {{v as {a}, u as {b}}} = {value}"]


def _note(w, env, depth, in_loop):
    text = f'note "x {{{w.e("int", env, 2)}}} and {{{w.e("bool", env, 1)}}}"'
    return [text] if text.count('"') == 2 else []


def _if(w, env, depth, in_loop):
    lines = [f"if {w.e('bool', env, 2, top=True)} then", *_indented(w.block(dict(env), depth - 1, in_loop, w.r.randint(1, 2)))]
    if w.r.random() < 0.5:
        lines += [f"elif {w.e('bool', env, 2)} then", *_indented(w.block(dict(env), depth - 1, in_loop, w.r.randint(1, 2)))]
    if w.r.random() < 0.5:
        lines += ["else", *_indented(w.block(dict(env), depth - 1, in_loop, w.r.randint(1, 2)))]
    return lines + ["end"]


def _for(w, env, depth, in_loop):
    var, inner = "i_" + w.fresh(""), dict(env)
    lists = [n for n, t in env.items() if t in ("lu", "li") and n.isidentifier()]
    over = w.pick(["us", "cols[1]", "1 .. 3", "xs"] + lists + [f"1 .. count({n})" for n in lists if env[n] == "lu"])
    inner[var] = "unit" if over in ("us", "cols[1]") or env.get(over) == "lu" else "int"
    if over.startswith("1 .. count("):  # the positions of a list of units: its items read at them
        inner[f"{over[11:-1]}[{var}]"] = "unit"
    return [f"for {var} in {over} do", *_indented(w.block(inner, depth - 1, True, w.r.randint(1, 3))), "end"]


def _while(w, env, depth, in_loop):
    rounds = w.fresh("wk")  # at most three rounds whatever the condition, so that plays end within their budgets
    condition = w.pick([f"{rounds} < 3 and {w.e('bool', env, 2)}", f"{w.e('bool', env, 2)} and {rounds} < 3",
                        f"({w.e('int', env, 2)} > {w.e('int', env, 1)}) and {rounds} < 3"])
    bound = w.pick([" limit 3", " limit 5", ""])
    return [f"let {rounds} = 0", f"while {condition}{bound} do", f"  set {rounds} = {rounds} + 1",
            *_indented(w.block(dict(env), depth - 1, True, w.r.randint(1, 3))), "end"]


def _indented(lines: list[str]) -> list[str]:
    return ["  " + line for line in lines]


STATEMENTS = {
    "let": _let, "set": _set, "call": _call, "destructure": _destructure, "note": _note, "if": _if, "for": _for, "while": _while,
    "require": lambda w, env, depth, in_loop: [f'require {w.e("bool", env, 2)}, "a rule"'],
    "break": lambda w, env, depth, in_loop: [f"if {w.e('bool', env, 1)} then", "  break", "end"],
}


def _outcome(w: Writer, env: dict, name: str) -> str:
    fields = [f"v = {w.e('int', env, 2)}", f"u = {w.e('unit', env, 2)}"]
    if w.r.random() < 0.3:
        fields.append(w.pick([f"extra = {w.e('int', env, 2)}", f"v2 = {w.e('li', env, 2)}"]))
    w.r.shuffle(fields)
    return f"outcome {name}({', '.join(fields)})"


def _callee_body(w: Writer, env: dict) -> list[str]:
    """A callee's statements, then its outcomes: one, a final if/elif/else, or a guard and what follows it."""
    lines = w.block(env, w.pick([0, 0, 1]), False, w.r.randint(0, 3))
    shape = w.r.randrange(3)
    if shape == 0:
        return lines + [_outcome(w, env, w.pick(["hit", "miss", "odd"]))]
    if shape == 1:
        return lines + [f"if {w.e('bool', env, 2)} then", "  " + _outcome(w, env, "hit"), f"elif {w.e('bool', env, 2)} then",
                        "  " + _outcome(w, env, "odd"), "else", "  " + _outcome(w, env, "miss"), "end"]
    return lines + [f"if {w.e('bool', env, 2)} then", "  " + _outcome(w, env, "hit"), "end", _outcome(w, env, "miss")]


def _procedure(name: str, body: list[str], inputs: str) -> str:
    return f'  {name}:\n    title: "{name}"\n    rule: "r"\n    inputs: {inputs}\n    body: |\n' + "".join(f"      {line}\n" for line in body)


def ruleset_text(seed: int) -> str:
    """Callees c1 .. cN (each may resolve those after it: no cycle), and p, which resolves any of them."""
    rng = random.Random(seed)
    names = [f"c{k}" for k in range(1, rng.randint(1, 4) + 1)]
    text = HEADER
    for k, name in enumerate(names):
        lower = names[k + 1:] if rng.random() < 0.5 else []
        w = Writer(rng, lower, {"a", "u", "us", "cols", "k", "e"})
        env = {"a": "int", "u": "unit", "us": "lu", "n": "int", "k": "int", "xs": "li", '(e == "b")': "bool"}
        text += _procedure(name, ["let n = a", "let xs = [a, 1]", *_callee_body(w, env)], CALLEE_INPUTS)
    w = Writer(rng, names, {"n", "xs", "us", "cols"})
    env = {"n": "int", "xs": "li", "us": "lu", "x": "int", "b": "bool", "w": "unit"}
    body = ["let x = 1", "let b = false", 'let w = unit(kind = "a")', *w.block(env, 2, False, rng.randint(2, 6))]
    whole = [n.split(".")[0] for n in env if n.endswith(".v")]
    passed_on = f", r = {rng.choice(whole)}" if whole and rng.random() < 0.3 else ""  # an outcome kept whole
    body.append(f"outcome done(x = x, b = b, w = w, t = {w.e('int', env, 2)}{passed_on})")
    return text + _procedure("p", body, MAIN_INPUTS)


def inputs_of(seed: int) -> dict:
    rng = random.Random(seed * 7 + 1)

    def unit():
        return {"kind": rng.choice(KINDS), "str": rng.randint(-1, 4), "hits": rng.randint(0, 3), "alive": rng.random() < 0.7}

    return {"n": rng.randint(0, 3), "xs": [rng.randint(-2, 4) for _ in range(rng.randint(0, 3))], "us": [unit() for _ in range(rng.randint(0, 4))],
            "cols": [[unit() for _ in range(rng.randint(0, 3))] for _ in range(rng.randint(1, 3))]}


# ---- running a case --------------------------------------------------------------------------------------------

SMALL = Limits(max_work=200_000, max_states=20_000, timeout=10)
PLAY = Limits(max_work=1_000_000, timeout=10)
COUNTS = {"cases": 0, "loaded": 0, "in place": 0}


def outcome_of(run):
    """('ok', value) or the error as (class, positions and messages)."""
    try:
        return ("ok", run())
    except WartableError as error:
        return (type(error).__name__, tuple((d.line, d.column, d.message) for d in error.diagnostics))


def called_form(ruleset, monkeypatch, walks: bool = False) -> CompiledRuleset:
    """The same checked procedures, their code written now with no callee in place and, unless ``walks``, no
    aggregate walked before its statement (the play code of the ninth round); their own code, not
    procedure_source's copy."""
    called = CompiledRuleset(ruleset.model, ruleset.compiled)
    with monkeypatch.context() as patch:
        patch.setattr(inline, "MAX_INLINE_NODES", 0)
        if not walks:
            patch.setattr(playwork, "WALK_FINISH", {k: v for k, v in playwork.WALK_FINISH.items() if k != "sum"})
            patch.setattr(playwork, "walk_pulled", lambda x, target, value: False)
            for module in (playwork, play):
                patch.setattr(module, "pull_walks", lambda x, values: False)
        for name in called.compiled:
            source = called.program(name).source
            assert "written in place" not in source and (walks or "pw" not in source)
    return called


def work_spent(ruleset, given) -> int:
    budget = Budget(Limits(max_work=None, timeout=10))
    outcome_of(lambda: resolve(ruleset, "p", given, seed=1, trace=False, budget=budget))
    return budget.work


def played(ruleset, given, engine="compiled", seed=1, limits=PLAY):
    return outcome_of(lambda: resolve(ruleset, "p", given, seed=seed, trace=False, limits=limits, engine=engine).outcome)


def compare(ruleset, called, given) -> None:
    exact = [outcome_of(lambda engine=engine: dict(odds(ruleset, "p", given, limits=SMALL, engine=engine).outcomes))
             for engine in ("compiled", "reference")]
    if "ok" in (exact[0][0], exact[1][0]):
        assert exact[0] == exact[1]
    assert exact[0][0] == exact[1][0]  # errors: of one kind (exact odds may meet different states' errors first)
    forms = ((ruleset, "compiled"), (called, "compiled"), (ruleset, "reference"))
    for seed in (1, 2):
        plays = [played(r, given, engine, seed=seed) for r, engine in forms]
        assert plays[0] == plays[1] == plays[2], seed
    counts = [outcome_of(lambda r=r, engine=engine: monte_carlo(r, "p", given, trials=20, seed=5, limits=PLAY, engine=engine).counts)
              for r, engine in forms]
    assert counts[0] == counts[1] == counts[2]
    for limits in (Limits(max_int_bits=4), Limits(max_value_items=7), Limits(max_call_depth=1)):
        plays = [played(r, given, engine, limits=limits) for r, engine in forms]
        assert plays[0] == plays[1] == plays[2], limits


def compare_budgets(forms, given) -> None:
    """Every work budget from 1 unit to past what the play needs: the same stop, or none, in each compiled form."""
    need = work_spent(forms[0], given)
    assert all(work_spent(form, given) == need for form in forms[1:])
    for max_work in range(1, min(need, 150) + 2):
        stops = [played(form, given, limits=Limits(max_work=max_work, timeout=10)) for form in forms]
        assert all(stop == stops[0] for stop in stops[1:]), max_work


@pytest.mark.parametrize("case", range(RUNS))
def test_random_rulesets_agree(tmp_path, monkeypatch, case):
    seed = FIRST + case
    path = tmp_path / "ruleset.yaml"
    path.write_text(ruleset_text(seed), encoding="utf-8")
    COUNTS["cases"] += 1
    try:
        ruleset = load_ruleset(path)
    except WartableError:
        return  # the checker refused it: nothing to run
    COUNTS["loaded"] += 1
    COUNTS["in place"] += sum("written in place" in ruleset.program(name).source for name in ruleset.compiled)
    called = called_form(ruleset, monkeypatch)
    given = inputs_of(seed)
    compare(ruleset, called, given)
    compare_budgets((ruleset, called, called_form(ruleset, monkeypatch, walks=True)), given)


def test_random_rulesets_mostly_load_and_inline():
    """The generator makes rulesets the checker accepts, with callees written in place (else the test above
    compares little)."""
    if COUNTS["cases"] < RUNS:
        pytest.skip("runs after the random test above, in the same process")
    assert COUNTS["loaded"] >= 0.8 * RUNS and COUNTS["in place"] >= RUNS // 2, COUNTS
