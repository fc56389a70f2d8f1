"""Tests for interpreter.yaml_loader: safe event-stream YAML loading with positions.

Every test runs twice: with libyaml's C parser (when PyYAML has it) and with the
pure-Python parser, because their marks and errors differ in small ways.
Positions are 1-based; the counting is written next to each input.
"""

from __future__ import annotations

import pytest
import yaml
from work import function_calls, line_events

from interpreter import yaml_loader
from interpreter.errors import Diagnostic, RulesetError, Source
from interpreter.yaml_loader import LoadedYaml, Mark, YamlLimits, load_yaml

DEFAULT_LOADER = yaml_loader.YAML_LOADER  # captured before any monkeypatching

LOADERS = [
    pytest.param(getattr(yaml, "CSafeLoader", None), id="libyaml",
                 marks=pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")),
    pytest.param(yaml.SafeLoader, id="python"),
]


@pytest.fixture(autouse=True, params=LOADERS)
def loader(request, monkeypatch):
    monkeypatch.setattr(yaml_loader, "YAML_LOADER", request.param)
    return request.param


def load(text: str, **kwargs) -> LoadedYaml:
    return load_yaml(Source("rules.yaml", text), **kwargs)


def errors(text: str, **kwargs) -> list[Diagnostic]:
    with pytest.raises(RulesetError) as info:
        load(text, **kwargs)
    assert all(d.file == "rules.yaml" for d in info.value.diagnostics)
    return list(info.value.diagnostics)


def only_error(text: str, **kwargs) -> Diagnostic:
    found = errors(text, **kwargs)
    assert len(found) == 1, [d.format() for d in found]
    return found[0]


def at(diagnostic: Diagnostic) -> tuple[int, int]:
    return diagnostic.line, diagnostic.column


# --- the parser in use -------------------------------------------------------

def test_default_loader_is_libyaml_when_available():
    if yaml.__with_libyaml__:
        assert DEFAULT_LOADER is yaml.CSafeLoader
        first = next(iter(yaml.parse("a: 1", Loader=DEFAULT_LOADER)))
        assert type(first.start_mark).__module__ == "yaml._yaml"  # events come from C
    else:
        assert DEFAULT_LOADER is yaml.SafeLoader


# --- rejections ----------------------------------------------------------------

def test_anchor_rejected():
    # line 2 "  - &inf {name: a}": spaces 1-2, '-' 3, ' ' 4, '&' 5
    d = only_error("units:\n  - &inf {name: a}\n")
    assert "anchors and aliases are not allowed" in d.message and "extends:" in d.message
    assert "&inf" in d.message
    assert at(d) == (2, 5)


def test_self_referencing_alias_rejected():
    # "a: &x [1, *x]": a1 :2 ' '3 &4 x5 ' '6 [7 1=8 ,9 ' '10 *11
    found = errors("a: &x [1, *x]\n")
    assert [at(d) for d in found] == [(1, 4), (1, 11)]
    assert "anchor '&x'" in found[0].message and "alias '*x'" in found[1].message


def alias_bomb(levels: int) -> str:
    """``levels`` lines of 9 aliases each of the line before: 9**levels strings if expanded."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in list(zip("abcdefgh", "bcdefghi"))[:levels]:
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_rejected_fast():
    text = alias_bomb(8)
    assert len(text) < 600
    found, work = line_events(lambda: errors(text))
    # work grows with the text (twice the lines, about twice the work), not with the 9**levels expansion
    assert work <= 2.5 * line_events(lambda: errors(alias_bomb(4)))[1]
    # 9 anchors + 8 lines of 9 aliases; line 2 "b: &b [*a": &4, *8
    assert len(found) == 9 + 8 * 9
    assert [at(d) for d in found[:3]] == [(1, 4), (2, 4), (2, 8)]
    assert all("anchors and aliases are not allowed" in d.message for d in found)


@pytest.mark.parametrize("text, shown", [
    ("a: !!python/object:os.system x\n", "'!!python/object:os.system'"),
    ("a: !!binary aGk=\n", "'!!binary'"),
    ("a: !!set {x}\n", "'!!set'"),
    ("a: !!int 3\n", "'!!int'"),
    ("a: !!str 3\n", "'!!str'"),
    ("a: !foo x\n", "'!foo'"),
    ("a: ! x\n", "'!'"),
])
def test_every_explicit_tag_rejected(text, shown):
    # "a: !...": the tag starts at column 4
    d = only_error(text)
    assert d.message == f"tags are not allowed (found {shown})"
    assert at(d) == (1, 4)


def test_duplicate_key_names_first_line():
    text = ("name: a\n"     # line 1
            "units:\n"      # line 2
            "  inf: 1\n"    # line 3: first 'inf'
            "  cav: 2\n"    # line 4
            "  inf: 3\n")   # line 5: duplicate at column 3
    d = only_error(text)
    assert d.message == "duplicate key 'inf' (first defined at line 3)"
    assert at(d) == (5, 3)


def test_same_key_in_different_mappings_is_fine():
    assert load("a: {x: 1}\nb: {x: 2}\n").data == {"a": {"x": 1}, "b": {"x": 2}}


@pytest.mark.parametrize("text, where, kind", [
    ("? [a, b]\n: 1\n", (1, 3), "a sequence"),       # "? [": '[' at column 3
    ("x: {{a: 1}: 2}\n", (1, 5), "a mapping"),       # "x: {{": inner '{' at column 5
])
def test_non_scalar_key_rejected(text, where, kind):
    d = only_error(text)
    assert d.message == f"keys must be strings, not {kind}"
    assert at(d) == where


@pytest.mark.parametrize("text, key", [
    ("1: a\n", "1"),
    ("-3: a\n", "-3"),
    ("1.5: a\n", "1.5"),
    ("1e3: a\n", "1e3"),
    ("true: a\n", "true"),
    ("null: a\n", "null"),
    ("~: a\n", "~"),
    ("on: a\n", "on"),
    ("NO: a\n", "NO"),
    ("010: a\n", "010"),
    ("2001-12-14: a\n", "2001-12-14"),
    (".nan: a\n", ".nan"),
])
def test_plain_keys_are_read_as_literal_text(text, key):
    loaded = load(text)
    assert loaded.data == {key: "a"}
    assert type(next(iter(loaded.data))) is str
    assert loaded.key_marks[(key,)] == Mark(1, 1)


def test_number_and_bool_like_keys_stay_distinct():
    # as resolved values 1 == 1.0 == True would collide; as text they are three keys
    assert load("{1: a, 1.0: b, on: c}\n").data == {"1": "a", "1.0": "b", "on": "c"}


def test_nested_plain_number_key_keeps_its_position():
    # line 3 "  2: c": spaces 1-2, '2' at column 3
    loaded = load("a:\n  b: 1\n  2: c\n")
    assert loaded.data == {"a": {"b": 1, "2": "c"}}
    assert loaded.key_marks[("a", "2")] == Mark(3, 3)


def test_plain_y_key_is_accepted():
    assert load("x: 1\ny: 2\n").data == {"x": 1, "y": 2}


def test_values_are_still_resolved_and_checked_under_literal_keys():
    assert load("1: 2\n").data == {"1": 2}
    # "on: on": o1 n2 :3 ' '4, the value 'on' at column 5
    d = only_error("on: on\n")
    assert d.message == "ambiguous plain value 'on' (YAML 1.1 reads it as true): quote it"
    assert at(d) == (1, 5)


@pytest.mark.parametrize("text, where", [
    ("1: a\n1: b\n", (2, 1)),          # both plain: the second '1' at line 2, column 1
    ('"1": a\n1: b\n', (2, 1)),        # quoted then plain: same text "1"
    ("r: {x: 1, 1: p, 1: q}\n", (1, 17)),  # r1 :2 ' '3 {4 x5 :6 ' '7 1=8 ,9 ' '10 1=11 :12 ' '13 p14 ,15 ' '16 1=17
])
def test_duplicate_literal_keys_rejected(text, where):
    d = only_error(text)
    assert d.message == "duplicate key '1' (first defined at line 1)"
    assert at(d) == where


@pytest.mark.parametrize("text, where", [
    ("a: 1\n<<: {b: 2}\n", (2, 1)),     # line 2 "<<: ...": '<' at column 1
    ("r: {x: 1, <<: z}\n", (1, 11)),    # r1 :2 ' '3 {4 x5 :6 ' '7 1=8 ,9 ' '10 <11
])
def test_plain_merge_key_rejected(text, where):
    d = only_error(text)
    assert d.message == "merge keys (<<) are not allowed; use extends: to reuse a ruleset"
    assert at(d) == where


def test_quoted_merge_key_is_a_plain_string():
    assert load('"<<": 1\n').data == {"<<": 1}


def test_string_like_keys_are_fine():
    data = load('1-2: a\n11+: b\n"1": c\n\'true\': d\nfoo bar: e\n').data
    assert data == {"1-2": "a", "11+": "b", "1": "c", "true": "d", "foo bar": "e"}


@pytest.mark.parametrize("value, reading", [
    ("NO", "YAML 1.1 reads it as false"),
    ("no", "YAML 1.1 reads it as false"),
    ("On", "YAML 1.1 reads it as true"),
    ("off", "YAML 1.1 reads it as false"),
    ("yes", "YAML 1.1 reads it as true"),
    ("Y", "YAML 1.1 reads it as true"),
    ("n", "YAML 1.1 reads it as false"),
    ("010", "octal"),
    ("007", "octal"),
    ("-010", "octal"),
    ("0x1F", "hexadecimal"),
    ("0o17", "octal"),
    ("0b101", "binary"),
    ("1_000", "ignoring '_'"),
    ("1_000.5", "ignoring '_'"),
    ("1:30", "base-60"),
    ("190:20:30", "base-60"),
    ("2001-12-14", "date"),
    ("2001-13-14", "date"),
    ("2001-12-14t21:59:43.10-05:00", "date"),
    (".nan", "non-finite"),
    (".NaN", "non-finite"),
    (".inf", "non-finite"),
    ("-.inf", "non-finite"),
    ("<<", "merge key"),
])
def test_ambiguous_plain_values_rejected(value, reading):
    # line 2 "value: X": "value: " is 7 characters, X starts at column 8
    d = only_error(f"name: x\nvalue: {value}\n")
    assert d.message.startswith(f"ambiguous plain value '{value}' (")
    assert reading in d.message and d.message.endswith("): quote it")
    assert at(d) == (2, 8)


def test_norway_does_not_vanish():
    # "countries: [GB, NO]": "countries: " is 11 chars, [12 G13 B14 ,15 ' '16 N17
    d = only_error("countries: [GB, NO]\n")
    assert d.message == "ambiguous plain value 'NO' (YAML 1.1 reads it as false): quote it"
    assert at(d) == (1, 17)


def test_quoted_and_block_ambiguous_values_are_strings():
    loaded = load('a: "NO"\nb: \'010\'\nc: |\n  yes\nd: [GB, "NO"]\n"on": 1\n')
    assert loaded.data == {"a": "NO", "b": "010", "c": "yes\n", "d": ["GB", "NO"], "on": 1}


@pytest.mark.parametrize("text, where", [
    ("a: 1\n---\nb: 2\n", (2, 1)),              # second document's '---' on line 2
    ("a: 1\n...\n---\nb: 2\n", (3, 1)),         # after an end marker, '---' on line 3
    ("---\na: 1\n--- \n", (3, 1)),              # an empty second document still counts
])
def test_more_than_one_document_rejected(text, where):
    d = only_error(text)
    assert d.message == "only one YAML document is allowed per file"
    assert at(d) == where


def test_reading_stops_at_the_second_document():
    # nothing after line 2's '---' is reported: not 'NO', not the third document
    d = only_error("a: 1\n---\nb: NO\n---\nc: 1\n")
    assert at(d) == (2, 1)


def test_depth_limit_exact_boundary():
    load("[" * 64 + "]" * 64)  # 64 levels are fine
    d = only_error("[" * 65 + "]" * 65)
    assert d.message == "nesting deeper than 64 levels is not allowed"
    assert at(d) == (1, 65)  # the 65th '['


def test_depth_limit_custom_block_style():
    text = ("a:\n"           # depth 1 = root mapping, depth 2 = a's mapping starting at line 2
            "  b:\n"         # depth 3 = b's mapping starting at line 3
            "    c:\n"
            "      d: 1\n")  # depth 4 = c's mapping, 'd' at line 4 column 7
    load(text, limits=YamlLimits(max_depth=4))
    d = only_error(text, limits=YamlLimits(max_depth=3))
    assert d.message == "nesting deeper than 3 levels is not allowed"
    assert at(d) == (4, 7)


def test_very_deep_nesting_rejected_fast_without_crash():
    text = "[" * 30_000 + "]" * 30_000
    d = only_error(text)
    # the loader stops at the 65th bracket: a text fifteen times as deep costs no more to reject
    shallow, deep = ("[" * n + "]" * n for n in (2_000, 30_000))
    assert function_calls(lambda: only_error(deep))[1] <= 1.1 * function_calls(lambda: only_error(shallow))[1]
    assert "nesting deeper than 64 levels" in d.message and at(d) == (1, 65)


def test_too_many_nodes_rejected():
    # nodes: the sequence, then 1..5; "[1, 2, 3, 4, 5]": the 5 is at column 14
    load("[1, 2, 3, 4, 5]", limits=YamlLimits(max_nodes=6))
    d = only_error("[1, 2, 3, 4, 5]", limits=YamlLimits(max_nodes=5))
    assert d.message == "too many values: the limit is 5"
    assert at(d) == (1, 14)


def test_huge_scalar_rejected():
    # line 2 'b: "12345678901"': the quote is at column 4; 11 characters > 10
    text = 'a: short\nb: "12345678901"\n'
    d = only_error(text, limits=YamlLimits(max_scalar_chars=10))
    assert d.message == "value is 11 characters long; the limit is 10"
    assert at(d) == (2, 4)
    d = only_error("a: ok\nb: " + "x" * 1_000_001 + "\n")  # default limit
    assert "1000001 characters" in d.message and at(d) == (2, 4)


def test_file_over_size_limit_rejected_before_parsing(monkeypatch):
    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed a file over the size limit")

    monkeypatch.setattr(yaml, "parse", no_parsing)
    d = only_error("a: " + "x" * 6_000_000)
    assert d.message == "file is larger than 5000000 bytes" and at(d) == (1, 1)


def test_size_limit_counts_utf8_bytes():
    load("a: éé", limits=YamlLimits(max_bytes=7))   # 5 characters, 7 bytes
    d = only_error("a: ééé", limits=YamlLimits(max_bytes=8))  # 6 characters, 9 bytes
    assert d.message == "file is larger than 8 bytes"


def test_syntax_error_positioned():
    # "b: 1" on line 2: both parsers stop at the ':' in column 2
    d = only_error("a: [1, 2\nb: 1\n")
    assert d.message.startswith("YAML syntax error: ")
    assert "(while parsing a flow sequence at line 1, column 4)" in d.message
    assert at(d) == (2, 2)


def test_scanner_error_positioned():
    # "a: b: c": the second ':' is at column 5
    d = only_error("a: b: c\n")
    assert d.message.startswith("YAML syntax error: mapping values are not allowed")
    assert at(d) == (1, 5)


def test_nul_byte_positioned_after_non_ascii():
    # libyaml reports a byte offset (é is 2 bytes); line 2 "x: a\0": x1 :2 ' '3 a4 NUL5
    d = only_error("name: ééé\nx: a\x00b\n")
    assert d.message.startswith("unacceptable character #x0000")
    assert at(d) == (2, 5)


def test_lone_surrogate_positioned():
    # text decoded with surrogateescape; line 2 "b: \udc80": the bad character is at column 4
    d = only_error("a: 1\nb: \udc80\n")
    assert d.message.startswith("unacceptable character #xdc80")
    assert at(d) == (2, 4)


def test_all_problems_reported_in_order_then_the_fatal_one():
    text = ("a: NO\n"          # 1:4 ambiguous
            "b: !!int 3\n"     # 2:4 tag
            "a: 2\n"           # 3:1 duplicate
            "c: [1, 2\n")      # syntax error at end of stream
    found = errors(text)
    assert [at(d) for d in found[:3]] == [(1, 4), (2, 4), (3, 1)]
    assert len(found) == 4 and found[3].message.startswith("YAML syntax error")


def test_number_of_diagnostics_is_capped():
    found = errors("".join(f"k{i}: NO\n" for i in range(300)))
    assert len(found) == yaml_loader.DEFAULT_LIMITS.max_diagnostics


def test_out_of_range_numbers_rejected():
    assert "out of range" in only_error("a: 1e999\n").message
    assert "out of range" in only_error("a: " + "9" * 5000 + "\n").message


# --- results and positions -------------------------------------------------------

NESTED = ("game: Test\n"        # line 1: value at column 7
          "units:\n"            # line 2
          "  - name: inf\n"     # line 3: '-' 3, 'name' 5, 'inf' 11
          "    moves: 4\n"      # line 4: 'moves' 5, '4' 12
          "  - name: cav\n"     # line 5
          "    tags: [a, b]\n"  # line 6: 'tags' 5, '[' 11, 'a' 12, 'b' 15
          "rules: |\n"          # line 7: '|' at column 8
          "  roll 2d6\n"        # line 8: first content line of the block
          "note: >\n"           # line 9
          "  folded\n"
          "quoted: 'x'\n"       # line 11
          'dq: "y"\n')          # line 12


def test_nested_data_in_document_order():
    data = load(NESTED).data
    assert data == {"game": "Test",
                    "units": [{"name": "inf", "moves": 4}, {"name": "cav", "tags": ["a", "b"]}],
                    "rules": "roll 2d6\n", "note": "folded\n", "quoted": "x", "dq": "y"}
    assert list(data) == ["game", "units", "rules", "note", "quoted", "dq"]
    assert type(data) is dict and type(data["units"]) is list


def test_value_marks():
    marks = load(NESTED).value_marks
    assert marks[()] == Mark(1, 1)
    assert marks[("game",)] == Mark(1, 7)
    assert marks[("units",)] == Mark(3, 3)
    assert marks[("units", 0)] == Mark(3, 5)
    assert marks[("units", 0, "name")] == Mark(3, 11)
    assert marks[("units", 0, "moves")] == Mark(4, 12)
    assert marks[("units", 1, "tags")] == Mark(6, 11)
    assert marks[("units", 1, "tags", 1)] == Mark(6, 15)
    assert marks[("rules",)] == Mark(7, 8)


def test_key_marks():
    loaded = load(NESTED)
    assert loaded.key_marks[("game",)] == Mark(1, 1)
    assert loaded.key_marks[("units",)] == Mark(2, 1)
    assert loaded.key_marks[("units", 0, "name")] == Mark(3, 5)
    assert loaded.key_marks[("units", 0, "moves")] == Mark(4, 5)
    assert loaded.key_marks[("units", 1, "tags")] == Mark(6, 5)
    assert ("units", 0) not in loaded.key_marks  # sequence items have no key
    assert () not in loaded.key_marks


def test_styles_and_block_content_line():
    loaded = load(NESTED)
    assert loaded.styles[("rules",)] == "|"
    assert loaded.styles[("note",)] == ">"
    assert loaded.styles[("quoted",)] == "'"
    assert loaded.styles[("dq",)] == '"'
    assert loaded.styles[("game",)] == "plain"
    assert loaded.styles[("units", 0, "moves")] == "plain"
    assert ("units",) not in loaded.styles  # only scalars have a style
    # a literal block's first content line is the line after its value mark
    assert loaded.source.line_text(loaded.mark(("rules",)).line + 1) == "  roll 2d6"


def test_mark_falls_back_to_longest_existing_prefix():
    loaded = load(NESTED)
    assert loaded.mark(("units", 0, "nope", 3)) == Mark(3, 5)
    assert loaded.mark(["units", 1, "tags", 7]) == Mark(6, 11)  # lists work, like jsonschema paths
    assert loaded.mark(("zzz",)) == Mark(1, 1)
    assert loaded.key_mark(("units", 0)) == Mark(3, 5)  # no key: the value mark
    assert loaded.key_mark(("units", 0, "moves")) == Mark(4, 5)
    # the root's mark is where its value starts: line 2 after a comment line
    assert load("# rules\nname: x\n").mark(("nope",)) == Mark(2, 1)


def test_diagnostic_at_value_and_at_key():
    loaded = load(NESTED)
    d = loaded.diagnostic(("units", 0, "moves"), "too fast")
    assert (d.file, d.line, d.column, d.message) == ("rules.yaml", 4, 12, "too fast")
    assert d.line_text == "    moves: 4"
    d = loaded.diagnostic(("units", 0, "moves"), "unknown field", at_key=True)
    assert at(d) == (4, 5)


def test_empty_value_and_empty_file():
    # "a:" — the empty value is marked just after the ':' (column 3)
    loaded = load("a:\nb: 1\n")
    assert loaded.data == {"a": None, "b": 1}
    assert loaded.value_marks[("a",)] == Mark(1, 3)
    assert load("").data is None
    assert load("# only a comment\n").data is None


@pytest.mark.parametrize("text, expected", [
    ("-2", -2), ("+3", 3), ("0", 0), ("-0", 0), ("42", 42),
    ("11+", "11+"), ("1-2", "1-2"), ("81-100+", "81-100+"), ("-2 or less", "-2 or less"),
    ("1.5", 1.5), ("-0.25", -0.25), ("1e3", 1000.0), ("1.5e-3", 0.0015), (".5", 0.5),
    ("null", None), ("Null", None), ("NULL", None), ("~", None), ("", None),
    ("true", True), ("True", True), ("TRUE", True), ("false", False), ("FALSE", False),
    ("tRue", "tRue"), ("nan", "nan"), ("2d6", "2d6"), ("1.2.3", "1.2.3"), ("12:75", "12:75"),
])
def test_plain_scalar_resolution(text, expected):
    value = load(f"v: {text}\n").data["v"]
    assert type(value) is type(expected) and value == expected
