"""The CI kit: pre-commit hooks, ``test --format junit|github`` when a ruleset fails to load, real JUnit
``time`` attributes, and ``check`` on include fragments and situation files (their own schemas)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from interpreter.cli import main

REPO = Path(__file__).resolve().parent.parent
ANNOTATION = re.compile(r"^::error file=([^,:]+),line=(\d+),col=(\d+),title=([^,:]*)::(.*)$")

# Lacks title, source and version: three "required property" problems, all at 1:1.
NOT_LOADING = "wartable: 1\nname: broken\n"
GOOD = (
    'wartable: 1\nname: good\ntitle: "t"\nsource: "s"\nversion: "1"\n'
    "procedures:\n  p:\n    title: \"p\"\n    rule: \"r\"\n    body: |\n      outcome done\n"
    "examples:\n  - name: \"it ends\"\n    procedure: p\n    dice: []\n    expect: {outcome: done}\n"
)


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("broken.yaml").write_text(NOT_LOADING, encoding="utf-8")
    Path("good.yaml").write_text(GOOD, encoding="utf-8")
    return tmp_path


def non_negative_seconds(text: str | None) -> bool:
    return text is not None and float(text) >= 0


# ---- pre-commit ------------------------------------------------------------------------------------


def test_pre_commit_hooks_run_the_wartable_entry_point_on_yaml_files():
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert set(hooks) == {"wartable-check", "wartable-test"}
    # the entry point the hooks name (tomllib is 3.11+; the project supports 3.10)
    assert '[project.scripts]\nwartable = "interpreter.cli:console_main"' in (REPO / "pyproject.toml").read_text(encoding="utf-8")
    for hook_id, command in (("wartable-check", "check"), ("wartable-test", "test")):
        hook = hooks[hook_id]
        assert hook["language"] == "python"
        assert hook["entry"] == f"wartable {command}"
        assert hook.get("pass_filenames", True)  # the changed files are the arguments
        assert re.search(hook["files"], "rules/eto.yaml") and re.search(hook["files"], "a/b.yml")
        assert not re.search(hook["files"], "interpreter/cli.py")


def test_the_check_hook_accepts_what_a_repository_of_rules_holds():
    # a ruleset, a variant and situation files, as pre-commit would pass them
    given = ["rulesdata/eto.yaml", "rulesdata/eto_one_more_pip.yaml", *map(str, sorted((REPO / "rulesdata" / "eia_situations").glob("*.yaml")))]
    code, out, err = run(["check", *[str(REPO / g) if not g.startswith("/") else g for g in given]])
    assert (code, err) == (0, "")
    assert len(out.splitlines()) == 6  # one "ok" line each: 2 rulesets, 4 situations


# ---- test --format junit|github when a ruleset does not load ------------------------------------------


def test_junit_reports_a_ruleset_that_does_not_load_as_a_failing_case(files):
    code, out, _ = run(["test", "broken.yaml", "good.yaml", "--format", "junit"])
    assert code == 1
    root = ElementTree.fromstring(out)  # parseable
    # 1 load failure + 1 example: 2 tests, 1 failure
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("2", "1", "0")
    broken, good = root.findall("testsuite")
    assert (broken.get("name"), broken.get("tests"), broken.get("failures")) == ("broken.yaml", "1", "1")
    (case,) = broken.findall("testcase")
    assert (case.get("classname"), case.get("name")) == ("wartable.broken.yaml", "loads")
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == "the document: 'title' is a required property"
    # every diagnostic, positioned: title, source and version, each at 1:1
    assert re.findall(r"^broken\.yaml:1:1: the document: '(\w+)' is a required property$", failure.text, re.MULTILINE) == ["title", "source", "version"]
    # the other ruleset is still tested
    assert (good.get("name"), good.get("tests"), good.get("failures")) == ("good", "1", "0")
    assert [c.get("name") for c in good.findall("testcase")] == ["it ends"]


def test_github_reports_each_diagnostic_of_a_ruleset_that_does_not_load(files):
    code, out, err = run(["test", "broken.yaml", "good.yaml", "--format", "github"])
    assert (code, err) == (1, "")
    lines = out.splitlines()
    annotations = [ANNOTATION.match(line) for line in lines[:-1]]
    assert all(annotations), out
    assert [a.groups() for a in annotations] == [
        ("broken.yaml", "1", "1", "wartable test broken.yaml%3A does not load", f"the document: '{name}' is a required property")
        for name in ("title", "source", "version")
    ]
    assert lines[-1] == "wartable test: 1 passed, 0 failed, 1 ruleset not loaded"


def test_text_and_json_still_stop_at_a_ruleset_that_does_not_load(files):
    code, out, err = run(["test", "broken.yaml", "good.yaml"])
    assert (code, out) == (1, "")
    assert err.startswith("broken.yaml:1:1: the document: 'title' is a required property")
    code, out, _ = run(["test", "broken.yaml", "good.yaml", "--json"])
    assert code == 1 and json.loads(out)["error"] == "ruleset"


def test_a_bad_ruleset_name_is_still_a_usage_error(files):
    code, out, err = run(["test", "missing.yaml", "--format", "junit"])
    assert (code, out) == (2, "")
    assert "missing.yaml" in err


# ---- JUnit time -----------------------------------------------------------------------------------------


def test_junit_time_is_measured(files):
    _, out, _ = run(["test", "broken.yaml", "good.yaml", "eto", "--format", "junit"])
    root = ElementTree.fromstring(out)
    elements = [root, *root.iter("testsuite"), *root.iter("testcase")]
    # 1 + 3 suites + (1 load failure + 1 + eto's 7 examples) cases
    assert len(elements) == 1 + 3 + 9
    assert all(non_negative_seconds(element.get("time")) for element in elements)
    for suite in root.iter("testsuite"):  # a suite's time holds its cases'
        assert float(suite.get("time")) >= sum(float(c.get("time")) for c in suite.iter("testcase")) - 1e-5
    _, out, _ = run(["check", "broken.yaml", "good.yaml", "--format", "junit"])
    root = ElementTree.fromstring(out)
    assert all(non_negative_seconds(element.get("time")) for element in [root, *root.iter("testsuite"), *root.iter("testcase")])


# ---- check on fragments and situation files ------------------------------------------------------------

FRAGMENT = 'tables:\n  extra:\n    title: T\n    rule: R\n    rows: {name: "N"}\n    edges: {rows: error}\n    cells: {"1": 1}\n'


def test_check_a_fragment_against_the_fragment_schema(files):
    Path("part.yaml").write_text(FRAGMENT, encoding="utf-8")
    assert run(["check", "part.yaml"]) == (0, "ok   part.yaml: a fragment file, 1 table, 0 modifier lists, 0 procedures, 0 examples (schema checked)\n", "")
    # line 3 "    titel: T": the key's mapping starts at 3:5; the five required keys and the unknown one
    Path("part.yaml").write_text("tables:\n  extra:\n    titel: T\n", encoding="utf-8")
    code, out, err = run(["check", "part.yaml"])
    assert (code, out) == (1, "")
    assert err.count("part.yaml:3:5: tables.extra: ") == 6
    assert "unknown key 'titel'" in err
    assert err.splitlines()[-1] == "FAIL part.yaml: 6 errors (checked as a fragment file)"


def test_check_a_situation_against_the_situation_schema(files):
    Path("s.yaml").write_text("distance: 2\n2nd: 1\nodds: 0.5\nships: [{kind: warship, \"bad key\": 1}, {a: [1, 2.5]}]\nnone:\n", encoding="utf-8")
    code, out, _ = run(["check", "s.yaml", "--json"])
    assert code == 1

    (entry,) = json.loads(out)["rulesets"]
    assert entry["kind"] == "situation"
    # in the file's order: the key 2nd (2:1), 0.5 (3:7), the key "bad key" (4:25), 2.5 (4:48), null (5:6: after "none:")
    assert [(d["line"], d["column"]) for d in entry["diagnostics"]] == [(2, 1), (3, 7), (4, 25), (4, 48), (5, 6)]
    messages = [d["message"] for d in entry["diagnostics"]]
    assert messages[0] == "the document: '2nd' is not a name (letters, digits and _, not starting with a digit)"
    assert messages[3].startswith("ships[2].a[2]: 2.5 is not an input value")


AGREEMENT_SAMPLES = [
    "a: 1\n", "a: true\n", "a: text\n", "a: [1, [2, [x]]]\n", "a: {b: {c: [1, {d: false}]}}\n", "a: []\n", "a: {}\n",
    "a: 0.5\n", "a: null\n", "2a: 1\n", "a: [1, 0.5]\n", "a: {'b c': 1}\n", "a: {b: [{c: null}]}\n", "_a1: [[[[1]]]]\n",
]


@pytest.mark.parametrize("text", AGREEMENT_SAMPLES)
def test_check_and_the_situation_schema_agree(files, text):
    # check walks situations itself (jsonschema's anyOf was 9 s on a list of 40,000 floats): same verdicts
    from jsonschema import Draft202012Validator

    schema = json.loads((REPO / "schemas" / "situation.schema.json").read_text(encoding="utf-8"))
    schema_accepts = not list(Draft202012Validator(schema).iter_errors(yaml.safe_load(text)))
    Path("s.yaml").write_text("# yaml-language-server: $schema=situation.schema.json\n" + text, encoding="utf-8")
    assert (run(["check", "s.yaml"])[0] == 0) == schema_accepts


@pytest.mark.parametrize("path", sorted((REPO / "rulesdata").glob("*_situations/*.yaml")), ids=lambda p: p.name)
def test_check_accepts_every_bundled_situation(path):
    code, out, err = run(["check", str(path)])
    assert (code, err) == (0, "")
    assert out.startswith(f"ok   {path}: a situation file, ")


def test_how_check_tells_the_kinds_apart(files):
    # 1. the modeline decides: a fragment holding name: is flagged by the fragment schema
    Path("named.yaml").write_text("# yaml-language-server: $schema=schemas/fragment.schema.json\nname: x\n" + FRAGMENT, encoding="utf-8")
    code, _, err = run(["check", "named.yaml"])
    assert code == 1 and "named.yaml:2:1: the document: unknown key 'name'" in err and "checked as a fragment file" in err
    # 2. content: sections only -> fragment; no ruleset key -> situation; name/title without wartable -> ruleset
    Path("part.yaml").write_text(FRAGMENT, encoding="utf-8")
    Path("sit.yaml").write_text("distance: 2\nattacker: [{kind: warship}]\n", encoding="utf-8")
    Path("ruleset_without_version.yaml").write_text('name: r\ntitle: "t"\n', encoding="utf-8")
    assert "a fragment file" in run(["check", "part.yaml"])[1]
    assert "a situation file, 2 inputs" in run(["check", "sit.yaml"])[1]
    code, _, err = run(["check", "ruleset_without_version.yaml"])
    assert code == 1 and "'wartable' is a required property" in err and "checked as" not in err
    # a situation's modeline wins over content that looks like a fragment
    Path("odd.yaml").write_text("# yaml-language-server: $schema=../schemas/situation.schema.json\ntables: 3\n", encoding="utf-8")
    assert "a situation file, 1 input" in run(["check", "odd.yaml"])[1]


def test_schema_command_prints_the_situation_schema():
    code, out, _ = run(["schema", "--situation"])
    assert (code, out) == (0, (REPO / "schemas" / "situation.schema.json").read_text(encoding="utf-8"))
