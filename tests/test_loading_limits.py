"""Loading a stranger's ruleset: which files it may make wartable read, how
the API checks its arguments, and the loading limits (interpreter/load_limits.py).

The command-line view of the same properties is the corpus in tests/hostile/.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
import yaml
from conftest import HEADER
from jsonschema import Draft202012Validator
from work import line_events

from interpreter import RulesetError, UsageError, load_ruleset, yaml_loader
from interpreter import errors as errors_module
from interpreter import files as files_module
from interpreter import schema as schema_module
from interpreter.errors import Diagnostic, Source
from interpreter.load_limits import LoadLimits, OverLimit
from interpreter.merge import copy_tree, subtree_paths
from interpreter.parser import TextOrigin, parse_procedure
from interpreter.resources import bundled_ruleset
from interpreter.tables import (
    Axis,
    Heading,
    parse_numeric_label,
    parse_rolls,
    uncovered_totals,
)

RULESET = HEADER.format(name="h") + "constants:\n  c: {value: 1, rule: r}\n"


def variant(extends: str, name: str = "v") -> str:
    """A variant file: the header (5 lines), then extends: on line 6 (its value at column 10)."""
    return HEADER.format(name=name) + f"extends: {extends}\n"


def only(error) -> Diagnostic:
    assert len(error.value.diagnostics) == 1, error.value.format()
    return error.value.diagnostics[0]


# ==== the schema =========================================================================


def test_the_schema_is_a_valid_2020_12_schema():
    # checked here once, not at every start: it costs ~40 ms a process
    Draft202012Validator.check_schema(schema_module.ruleset_schema())
    for kind in ("ruleset", "fragment"):
        Draft202012Validator.check_schema(schema_module._validator(kind).schema)


def _patterns(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            else:
                yield from _patterns(value)
    elif isinstance(node, list):
        for item in node:
            yield from _patterns(item)


def test_every_schema_pattern_is_anchored_at_both_ends_once():
    # schema._ecma_pattern turns the final $ into \Z (ECMA's end of text); a $ anywhere else would be missed
    patterns = sorted(set(_patterns(schema_module.ruleset_schema())))
    assert patterns, "no patterns found: the walk is wrong"
    for pattern in patterns:
        assert pattern.startswith("^") and pattern.endswith("$") and pattern.count("$") == 1, pattern


@pytest.mark.parametrize("pattern, text, matches", [
    ("^[A-Za-z_][A-Za-z0-9_]*$", "zones", True),
    ("^[A-Za-z_][A-Za-z0-9_]*$", "zones\n", False),  # Python's $ alone would match before the newline
    ("^[0-9]*d[0-9]+$", "2d6\n", False),
    ("^[0-9]*d[0-9]+$", "2d6", True),
])
def test_schema_patterns_end_at_the_end_of_the_text(pattern, text, matches):
    assert bool(schema_module._ecma_pattern(pattern).search(text)) is matches


def test_loading_does_not_check_the_metaschema(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("metaschema checked at run time")

    monkeypatch.setattr(Draft202012Validator, "check_schema", refuse)
    schema_module._validator.cache_clear()
    try:
        path = tmp_path / "r.yaml"
        path.write_text(RULESET, encoding="utf-8")
        assert load_ruleset(path).constants["c"].value == 1
    finally:
        schema_module._validator.cache_clear()


def test_inlined_references_keep_the_recursive_one():
    inlined = schema_module._validator("ruleset").schema
    text = repr(inlined["properties"])
    assert "'$ref': '#/$defs/type_spec'" in text  # lists of lists still recurse through $defs
    assert "#/$defs/table" not in text and "#/$defs/rule" not in text


# ==== the API checks its arguments =======================================================


@pytest.mark.parametrize("argument, fragment", [
    (None, "not NoneType"),
    (123, "not int"),
    (b"eto", "not bytes"),
    ("", "no ruleset named"),
    ("   ", "no ruleset named"),
    ("no_such_ruleset", "no ruleset 'no_such_ruleset': not a file, and the bundled rulesets are"),
    ("a\0b", "the name contains a NUL byte"),
    ("x" * 5000, "the name is too long"),
])
def test_bad_ruleset_arguments_are_usage_errors(argument, fragment):
    with pytest.raises(UsageError) as error:
        load_ruleset(argument)
    assert fragment in only(error).message


def test_a_folder_without_ruleset_yaml_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argument in (tmp_path, Path(""), "."):
        with pytest.raises(UsageError) as error:
            load_ruleset(argument)
        assert "a folder without ruleset.yaml" in only(error).message


@pytest.mark.parametrize("base_paths, fragment", [
    (123, "base_paths is a list of folders or files, not int"),
    ([None], "base_paths holds paths (str), not NoneType"),
    ([b"/tmp"], "base_paths holds paths (str), not bytes"),
    (["/no/such/folder"], "base path '/no/such/folder': no such file"),
])
def test_bad_base_paths_are_usage_errors(base_paths, fragment):
    with pytest.raises(UsageError) as error:
        load_ruleset("eto", base_paths=base_paths)
    assert fragment in only(error).message


def test_bad_limits_are_usage_errors():
    with pytest.raises(UsageError, match="limits must be a LoadLimits, not dict"):
        load_ruleset("eto", limits={"max_nodes": 10})
    with pytest.raises(UsageError, match="LoadLimits.max_nodes must be a positive whole number, not 0"):
        LoadLimits(max_nodes=0)
    with pytest.raises(UsageError, match="LoadLimits.max_depth may be at most 100"):
        LoadLimits(max_depth=10_000)  # jsonschema recurses per level


# ==== extends: and include: stay inside ==================================================


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """cwd = tmp_path; base.yaml at the top, a variant in rules/ extending ../base.yaml."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.yaml").write_text(RULESET, encoding="utf-8")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "v.yaml").write_text(variant("../base.yaml"), encoding="utf-8")
    return tmp_path


def test_a_base_outside_the_folder_needs_the_users_permission(folders):
    with pytest.raises(RulesetError) as error:
        load_ruleset("rules/v.yaml")
    found = only(error)
    assert (found.file, found.line, found.column) == ("rules/v.yaml", 6, 10)
    assert found.message.startswith("extends '../base.yaml': outside this ruleset's folder (rules/)")
    for allowed in (folders, str(folders), [folders], ["base.yaml"], ("base.yaml",)):
        assert load_ruleset("rules/v.yaml", base_paths=allowed).constants["c"].value == 1


def test_permission_covers_only_what_the_user_named(folders):
    (folders / "other").mkdir()
    with pytest.raises(RulesetError, match="outside this ruleset's folder"):
        load_ruleset("rules/v.yaml", base_paths=[folders / "other"])


def test_a_variant_chain_is_held_to_the_same_rule(folders):
    # rules/v.yaml -> ../base.yaml (allowed) -> base.yaml's own base outside *its* folder (not allowed)
    (folders / "base.yaml").write_text(variant("/etc/passwd", name="b"), encoding="utf-8")
    with pytest.raises(RulesetError) as error:
        load_ruleset("rules/v.yaml", base_paths=[folders])
    assert "extends '/etc/passwd': outside this ruleset's folder" in only(error).message
    assert only(error).file == "base.yaml"


def test_a_bundled_ruleset_may_be_named_by_path(tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(variant(str(bundled_ruleset("eto"))), encoding="utf-8")
    values = lambda ruleset: {name: constant.value for name, constant in ruleset.constants.items()}
    assert values(load_ruleset(path)) == values(load_ruleset("eto"))


def test_a_refused_file_is_never_opened_nor_shown(tmp_path, monkeypatch):
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n", encoding="utf-8")
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "base.yaml").symlink_to(secret)
    (rules / "v.yaml").write_text(variant("base.yaml"), encoding="utf-8")
    opened = []
    real_open = os.open
    monkeypatch.setattr(files_module.os, "open", lambda path, *args: opened.append(str(path)) or real_open(path, *args))
    with pytest.raises(RulesetError) as error:
        load_ruleset(rules / "v.yaml")
    assert "hunter2" not in error.value.format()
    assert only(error).line_text == "extends: base.yaml"
    assert str(secret) not in opened


def test_include_through_a_link_inside_the_folder_is_fine(tmp_path):
    (tmp_path / "real.yaml").write_text("constants:\n  d: {value: 2, rule: r}\n", encoding="utf-8")
    (tmp_path / "linked.yaml").symlink_to(tmp_path / "real.yaml")
    path = tmp_path / "r.yaml"
    path.write_text(RULESET + "include: [linked.yaml]\n", encoding="utf-8")
    assert load_ruleset(path).constants["d"].value == 2


# ==== operating-system failures are positioned user errors ================================


def _refusing(path_part: str, code: int):
    real_open = os.open

    def fake_open(path, *args):
        if path_part in str(path):
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, *args)

    return fake_open


def test_an_unreadable_include_is_reported_at_the_include(tmp_path, monkeypatch):
    # tests run as root, where chmod 000 blocks nothing: the refusal is simulated
    (tmp_path / "tables.yaml").write_text("constants: {}\n", encoding="utf-8")
    path = tmp_path / "r.yaml"
    path.write_text(HEADER.format(name="h") + "include: [tables.yaml]\n", encoding="utf-8")
    monkeypatch.setattr(files_module.os, "open", _refusing("tables.yaml", errno.EACCES))
    with pytest.raises(RulesetError) as error:
        load_ruleset(path)
    found = only(error)
    assert (found.line, found.column, found.message) == (6, 11, "include 'tables.yaml': permission denied")


def test_an_unreadable_ruleset_is_a_usage_error(tmp_path, monkeypatch):
    path = tmp_path / "r.yaml"
    path.write_text(RULESET, encoding="utf-8")
    monkeypatch.setattr(files_module.os, "open", _refusing("r.yaml", errno.EACCES))
    with pytest.raises(UsageError) as error:
        load_ruleset(path)
    assert only(error).message.endswith("permission denied")


def test_an_unreadable_base_is_reported_at_extends(tmp_path, monkeypatch):
    (tmp_path / "base.yaml").write_text(RULESET, encoding="utf-8")
    (tmp_path / "v.yaml").write_text(variant("base.yaml"), encoding="utf-8")
    monkeypatch.setattr(files_module.os, "open", _refusing("base.yaml", errno.EIO))
    with pytest.raises(RulesetError) as error:
        load_ruleset(tmp_path / "v.yaml")
    assert (only(error).line, only(error).message) == (6, f"extends 'base.yaml': {os.strerror(errno.EIO)}")


# ==== line numbers are the YAML parser's =================================================


@pytest.fixture(params=["libyaml", "python"])
def yaml_parser(request, monkeypatch):
    if request.param == "libyaml":
        if not hasattr(yaml, "CSafeLoader"):
            pytest.skip("PyYAML built without libyaml")
        monkeypatch.setattr(yaml_loader, "YAML_LOADER", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(yaml_loader, "YAML_LOADER", yaml.SafeLoader)


@pytest.mark.parametrize("line_break", ["\u2028", "\u2029", "\x85", "\r", "\r\n", "\n"])
def test_every_mark_points_at_its_value_after_any_line_break(yaml_parser, line_break):
    text = f'a: "x{line_break}y"\nb: after\nc: [one, two]\n'
    loaded = yaml_loader.load_yaml(Source("f.yaml", text))
    for path, expected in ((("b",), "after"), (("c", 0), "one"), (("c", 1), "two")):
        mark = loaded.mark(path)
        assert mark.line == 3 + (path[0] == "c")  # the break inside the string counts, as YAML counts it
        assert loaded.source.line_text(mark.line)[mark.column - 1:].startswith(expected)


def test_line_breaks_yaml_does_not_count_do_not_split_lines():
    # \v, \f and \x1c-\x1e end lines for str.splitlines(), not for YAML
    source = Source("f", "a\x0bb\x0cc\x1cd\ne")
    assert source.lines == ("a\x0bb\x0cc\x1cd", "e")
    assert source.position(8) == (2, 1)


def test_lines_are_split_once(monkeypatch):
    # a diagnostic per line must not split the text again (50,000 lines: 2.5e9 characters scanned if it did);
    # the splitting is C code, so it is counted by a spy on the pattern, not by the clock
    splits = []
    pattern = errors_module.LINE_BREAK

    class CountingPattern:
        def split(self, text):
            splits.append(len(text))
            return pattern.split(text)

        def finditer(self, text):
            splits.append(len(text))
            return pattern.finditer(text)

    monkeypatch.setattr(errors_module, "LINE_BREAK", CountingPattern())
    source = Source("f", "x\n" * 50_000)
    for line in range(1, 50_001):
        assert source.diagnostic(line, 1, "m").line_text == "x"
    for index in range(0, 100_000, 97):
        source.position(index)
    assert splits == [100_000, 100_000]  # the lines once, the line starts once
    assert source.lines is source.lines


def test_a_long_line_is_shown_around_the_caret():
    line = "".join(f"{i:05d}," for i in range(10_000))
    shown = Diagnostic("f", 1, 30_001, "m", line).format().splitlines()
    assert len(shown[1]) < 200
    assert shown[1][len(shown[2]) - 1] == line[30_000]


# ==== numbers ===========================================================================


def test_integers_are_held_to_64_bits_before_conversion():
    limits = LoadLimits()
    assert limits.integer(str(2**64 - 1)) == 2**64 - 1
    assert limits.integer("-" + "0" * 10_000 + "7") == -7  # leading zeros cost nothing
    for text in (str(2**64), "9" * 100_000):
        with pytest.raises(OverLimit, match="is out of range: the limit is 64 bits"):
            limits.integer(text)


def test_the_integer_limit_is_a_setting(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(HEADER.format(name="h") + "constants:\n  c: {value: 300, rule: r}\n", encoding="utf-8")
    assert load_ruleset(path).constants["c"].value == 300
    with pytest.raises(RulesetError) as error:
        load_ruleset(path, limits=LoadLimits(max_int_bits=8))
    assert (only(error).line, only(error).column) == (7, 14)
    assert "integer 300 is out of range: the limit is 8 bits" in only(error).message


def test_headings_and_die_faces_are_checked_by_arithmetic():
    limits = LoadLimits()
    assert parse_numeric_label("1-99999", limits) == (1, 99999)
    assert parse_numeric_label("٣", limits) is None  # only ASCII digits are numbers
    with pytest.raises(OverLimit):
        parse_numeric_label("1-" + "9" * 5000, limits)
    assert parse_rolls("1-3, 5", limits) == (1, 2, 3, 5)
    with pytest.raises(OverLimit, match="list more than 1000 faces"):
        parse_rolls("1-999999999", limits)
    huge = Axis("d", (Heading("1", 1, 1, numeric=True), Heading("big", 10**18, None, numeric=True)), "error")
    found, work = line_events(lambda: uncovered_totals(huge, 1, 2**62, at_most=3))
    assert found == [2, 3, 4]
    assert work < 100  # from the headings' bounds: a loop over 2**62 totals would never end


# ==== procedure text =====================================================================


def origin() -> TextOrigin:
    return TextOrigin(Source("p", "text"))


def test_brackets_are_counted_before_parsing():
    limits = LoadLimits(max_procedure_depth=10)
    parse_procedure("outcome o(v = " + "(" * 9 + "1" + ")" * 10, origin(), limits)
    with pytest.raises(RulesetError) as error:  # brackets in strings and comments do not count
        parse_procedure('note "(((((((((((" # (((((((((((\noutcome o(v = ' + "(" * 10 + "1" + ")" * 11, origin(), limits)
    assert (only(error).line, only(error).column) == (2, 24)  # the 11th bracket: 10 after "outcome o(v = " (14 characters)
    assert "more than 10 brackets open at once" in only(error).message


def test_positions_in_a_long_quoted_condition_cost_no_rescan():
    # a quoted condition maps each character back to the file; finding a token's index
    # used to re-scan the text for every token (quadratic in the condition's length)
    def work_per_lookup(items: int) -> float:
        text = "1 in [" + ", ".join(["7"] * items) + "]"
        origin = TextOrigin(Source("f", text), 1, 1, 1, tuple((1, i + 1) for i in range(len(text))), text)
        columns = range(1, len(text), len(text) // 200)
        origin.pos(1, 1)  # the line starts, worked out once for the whole text

        def look_up() -> None:
            for column in columns:
                assert origin.pos(1, column).column == column

        return line_events(look_up)[1] / len(columns)

    # the same work per lookup for a condition ten times as long (a re-scan would cost ten times as much)
    assert work_per_lookup(30_000) <= 1.2 * work_per_lookup(3_000)


def test_the_token_budget_covers_the_whole_ruleset(tmp_path):
    body = "      let x = 1 + 2\n      outcome o(v = x)\n"  # 13 tokens
    procedures = "".join(f"  p{i}:\n    title: t\n    rule: r\n    body: |\n{body}" for i in range(3))
    path = tmp_path / "r.yaml"
    path.write_text(HEADER.format(name="h") + "procedures:\n" + procedures, encoding="utf-8")
    assert len(load_ruleset(path, limits=LoadLimits(max_procedure_tokens=39)).procedures) == 3
    with pytest.raises(RulesetError) as error:
        load_ruleset(path, limits=LoadLimits(max_procedure_tokens=38))
    # 13 tokens a body; p2's body is on lines 23-24, and its last token, the 39th in all, is ")" at column 22 of line 24
    assert (only(error).line, only(error).column) == (24, 22)
    assert "may hold 38 tokens in all" in only(error).message


# ==== budgets for all the files of a ruleset ==============================================


def test_values_are_counted_over_all_the_files(tmp_path):
    (tmp_path / "more.yaml").write_text("constants:\n" + "".join(f"  c{i}: {{value: 1, rule: r}}\n" for i in range(40)), encoding="utf-8")
    path = tmp_path / "r.yaml"
    path.write_text(HEADER.format(name="h") + "include: [more.yaml]\n", encoding="utf-8")
    assert len(load_ruleset(path, limits=LoadLimits(max_nodes=300)).constants) == 40
    with pytest.raises(RulesetError) as error:
        load_ruleset(path, limits=LoadLimits(max_nodes=200))
    assert only(error).file.endswith("more.yaml")
    assert only(error).message == "too many values: the limit is 200 in all the files of a ruleset"


def test_bytes_and_files_are_counted_over_all_the_files(tmp_path):
    (tmp_path / "a.yaml").write_text("description: " + "x" * 500 + "\n", encoding="utf-8")
    path = tmp_path / "r.yaml"
    path.write_text(HEADER.format(name="h") + "include: [a.yaml]\n", encoding="utf-8")  # 91 bytes, and a.yaml 514
    load_ruleset(path, limits=LoadLimits(max_bytes=605))
    with pytest.raises(RulesetError) as error:
        load_ruleset(path, limits=LoadLimits(max_bytes=604))
    assert (only(error).line, only(error).message) == (6, "include 'a.yaml': the files of this ruleset are larger than 604 bytes together")
    for name in ("b.yaml", "c.yaml"):
        (tmp_path / name).write_text("description: x\n", encoding="utf-8")
    path.write_text(HEADER.format(name="h") + "include: [a.yaml, b.yaml, c.yaml]\n", encoding="utf-8")
    load_ruleset(path, limits=LoadLimits(max_files=4))
    with pytest.raises(RulesetError) as error:
        load_ruleset(path, limits=LoadLimits(max_files=3))
    assert [d.message for d in error.value.diagnostics] == ["include 'c.yaml': a ruleset may read at most 3 files (itself, its includes, its bases)"]


def test_a_file_is_included_once(tmp_path):
    (tmp_path / "a.yaml").write_text("constants:\n  d: {value: 2, rule: r}\n", encoding="utf-8")
    path = tmp_path / "r.yaml"
    path.write_text(HEADER.format(name="h") + "include: [a.yaml, ./a.yaml, r.yaml]\n", encoding="utf-8")
    with pytest.raises(RulesetError) as error:
        load_ruleset(path)
    assert [(d.column, d.message) for d in error.value.diagnostics] == [
        (19, "include './a.yaml' is already included (include[1])"),
        (29, "include 'r.yaml' is this file itself"),
    ]


# ==== nothing recurses on the depth of the data ==========================================


def test_copies_and_walks_of_deep_data_do_not_recurse():
    deep: list = []
    for _ in range(sys.getrecursionlimit() * 3):
        deep = [deep]
    assert len(list(subtree_paths(copy_tree(deep), ()))) == sys.getrecursionlimit() * 3 + 1


def test_lists_of_lists_nested_to_the_yaml_limit(tmp_path):
    spec = "int"
    for _ in range(25):  # two YAML levels a list: 50 levels, under the limit of 64
        spec = f"{{type: list, of: {spec}}}"
    path = tmp_path / "r.yaml"
    path.write_text(HEADER.format(name="h") + f"types:\n  deep: {spec}\n", encoding="utf-8")
    described = load_ruleset(path).types["deep"].describe()
    assert described.count("list") == 25
