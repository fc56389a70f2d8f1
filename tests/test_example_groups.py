"""Examples grouped by procedure (``examples: {shot: [...], save: [...]}``) against today's list form.

The grouped form is turned into the list form as each file is read (interpreter/example_groups.py):
the same ruleset written either way must give the same examples, the same results, failures at
each example's own line, and the same variants and diffs.  Lines and columns are counted by hand
in the comments beside the files.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from interpreter import RulesetError, load_ruleset
from interpreter.cli import main
from interpreter.diff import changes
from interpreter.examples import run_examples

HEAD = (
    "wartable: 1\n"                        # 1
    "name: base\n"                         # 2
    'title: "Base"\n'                      # 3
    'source: "tests"\n'                    # 4
    'version: "1"\n'                       # 5
    "procedures:\n"                        # 6
    "  shot:\n"                            # 7
    '    title: "Shot"\n'                  # 8
    '    rule: "A die: 4 or more hits."\n'  # 9
    "    body: |\n"                        # 10
    "      let die = 1d6\n"                # 11
    "      if die >= 4 then\n"             # 12
    "        outcome hit()\n"              # 13
    "      end\n"                          # 14
    "      outcome miss()\n"               # 15
    "  save:\n"                            # 16
    '    title: "Save"\n'                  # 17
    '    rule: "A die: 6 saves."\n'        # 18
    "    body: |\n"                        # 19
    "      let die = 1d6\n"                # 20
    "      if die == 6 then\n"             # 21
    "        outcome saved()\n"            # 22
    "      end\n"                          # 23
    "      outcome lost()\n"               # 24
    "examples:\n"                          # 25
)

LIST_FORM = HEAD + (
    '  - name: "A 4 hits"\n'               # 26
    "    procedure: shot\n"                # 27
    "    dice: [4]\n"                      # 28
    "    expect: {outcome: hit}\n"         # 29
    '  - name: "A 6 saves"\n'              # 30
    "    procedure: save\n"                # 31
    "    dice: [6]\n"                      # 32
    "    expect: {outcome: saved}\n"       # 33
    '  - name: "Shot odds"\n'              # 34
    "    procedure: shot\n"                # 35
    "    odds:\n"                          # 36: faces 4, 5, 6 hit: 3 of 6
    '      - {outcome: hit, probability: "1/2"}\n'
    '  - name: "A 3 hits (wrong on purpose)"\n'  # 38
    "    procedure: shot\n"                # 39
    "    dice: [3]\n"                      # 40
    "    expect: {outcome: hit}\n"         # 41: "    expect: {outcome: " is 22 characters
)

GROUPED_FORM = HEAD + (
    "  # the shots first\n"                # 26
    "  shot:\n"                            # 27
    '    - name: "A 4 hits"\n'             # 28
    "      dice: [4]\n"                    # 29
    "      expect: {outcome: hit}\n"       # 30
    '    - name: "Shot odds"\n'            # 31
    "      odds:\n"                        # 32
    '        - {outcome: hit, probability: "1/2"}\n'  # 33
    '    - name: "A 3 hits (wrong on purpose)"\n'  # 34
    "      procedure: shot\n"              # 35: repeating the group's procedure is allowed
    "      dice: [3]\n"                    # 36
    "      expect: {outcome: hit}\n"       # 37: "      expect: {outcome: " is 24 characters
    "  save:\n"                            # 38
    '    - name: "A 6 saves"\n'            # 39
    "      dice: [6]\n"                    # 40
    "      expect: {outcome: saved}\n"     # 41
)

WRONG = "A 3 hits (wrong on purpose)"


@pytest.fixture
def forms(tmp_path: Path) -> dict[str, Path]:
    """The same base ruleset in each form, each in a folder of its own (variants extend base.yaml)."""
    paths = {}
    for form, text in (("list", LIST_FORM), ("grouped", GROUPED_FORM)):
        folder = tmp_path / form
        folder.mkdir()
        (folder / "base.yaml").write_text(text, encoding="utf-8")
        paths[form] = folder
    return paths


def by_procedure(ruleset) -> dict[str, list[tuple]]:
    """Each procedure's examples in order: (name, rule, data as written plus procedure)."""
    found: dict[str, list[tuple]] = {}
    for example in ruleset.examples:
        found.setdefault(example.procedure, []).append((example.name, example.rule, dict(example.data)))
    return found


def test_both_forms_give_the_same_examples_and_results(forms):
    as_list = load_ruleset(forms["list"] / "base.yaml")
    grouped = load_ruleset(forms["grouped"] / "base.yaml")
    assert by_procedure(as_list) == by_procedure(grouped)
    assert by_procedure(grouped)["shot"][0] == ("A 4 hits", "", {"name": "A 4 hits", "procedure": "shot", "dice": [4], "expect": {"outcome": "hit"}})
    # the list's order, and the grouped order: shot's three, then save's one
    assert [e.name for e in as_list.examples] == ["A 4 hits", "A 6 saves", "Shot odds", WRONG]
    assert [e.name for e in grouped.examples] == ["A 4 hits", "Shot odds", WRONG, "A 6 saves"]
    outcomes = {}
    for form, ruleset in (("list", as_list), ("grouped", grouped)):
        results = {r.example.name: r for r in run_examples(ruleset)}
        assert {name for name, r in results.items() if r.passed} == {"A 4 hits", "A 6 saves", "Shot odds"}
        (problem,) = results[WRONG].problems
        outcomes[form] = (problem.message, problem.line, problem.column)
    # the failure is reported at the example's own expectation: `hit` at 41:23 in the list, 37:25 grouped
    assert outcomes["list"] == ("expected outcome hit, got miss", 41, 23)
    assert outcomes["grouped"] == ("expected outcome hit, got miss", 37, 25)


def test_a_grouped_example_is_found_at_its_name_and_its_group_key(forms):
    grouped = load_ruleset(forms["grouped"] / "base.yaml")
    saves = next(e for e in grouped.examples if e.name == "A 6 saves")
    assert (saves.pos.line, saves.pos.column) == (39, 13)  # `    - name: ` is 12 characters
    where = saves.where("procedure")  # no procedure: line: the group key `save` (38:3) stands for it
    assert (where.line, where.column) == (38, 3)


def test_test_command_prints_a_grouped_failure_at_its_line(forms, monkeypatch):
    monkeypatch.chdir(forms["grouped"])
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    assert main(["test", "base.yaml"]) == 1
    printed = out.getvalue() + err.getvalue()
    assert "base.yaml:37:25: expected outcome hit, got miss" in printed
    assert "3 passed, 1 failed" in printed
    assert "Traceback" not in printed


VARIANT_HEAD = (
    "wartable: 1\n"                               # 1
    "name: v\n"                                   # 2
    'title: "Variant"\n'                          # 3
    'source: "tests"\n'                           # 4
    'version: "1"\n'                              # 5
    "extends: base.yaml\n"                        # 6
)

VARIANT = VARIANT_HEAD + (
    "override:\n"                                 # 7
    "  examples:\n"                               # 8
    '    "Shot odds":\n'                          # 9
    "      odds:\n"                               # 10: faces 4, 5, 6 hit, 1, 2, 3 miss
    '        - {outcome: miss, probability: "1/2"}\n'  # 11
    "remove:\n"                                   # 12
    f'  examples: ["{WRONG}"]\n'                  # 13
    "add:\n"                                      # 14
    "  examples:\n"                               # 15
    "    save:\n"                                 # 16
    '      - name: "A 1 is lost"\n'               # 17
    "        dice: [1]\n"                         # 18
    "        expect: {outcome: lost}\n"           # 19
    "examples:\n"                                 # 20
    "  shot:\n"                                   # 21
    '    - name: "A 6 hits"\n'                    # 22
    "      dice: [6]\n"                           # 23
    "      expect: {outcome: hit}\n"              # 24
)


@pytest.mark.parametrize("form", ["list", "grouped"])
def test_a_grouped_variant_over_a_base_in_either_form(forms, form):
    (forms[form] / "v.yaml").write_text(VARIANT, encoding="utf-8")
    ruleset = load_ruleset(forms[form] / "v.yaml")
    base_order = ["A 4 hits", "A 6 saves", "Shot odds"] if form == "list" else ["A 4 hits", "Shot odds", "A 6 saves"]
    # the base's examples (less the removed one), then the variant's own, then add:'s
    assert [e.name for e in ruleset.examples] == base_order + ["A 6 hits", "A 1 is lost"]
    assert {e.name: e.procedure for e in ruleset.examples}["A 1 is lost"] == "save"
    odds = next(e for e in ruleset.examples if e.name == "Shot odds")
    assert odds.procedure == "shot"  # kept from the base
    assert (Path(odds.where("odds.0").source.name).name, odds.where("odds.0").line) == ("v.yaml", 11)
    assert all(r.passed for r in run_examples(ruleset))


@pytest.mark.parametrize("form", ["list", "grouped"])
def test_a_variant_may_not_add_an_example_the_grouped_base_has(forms, form):
    (forms[form] / "v.yaml").write_text(VARIANT_HEAD + (
        "examples:\n"                       # 7
        "  save:\n"                         # 8
        '    - name: "A 6 saves"\n'         # 9: `    - name: ` is 12 characters
        "      dice: [5]\n"
        "      expect: {outcome: lost}\n"), encoding="utf-8")
    with pytest.raises(RulesetError) as caught:
        load_ruleset(forms[form] / "v.yaml")
    (problem,) = caught.value.diagnostics
    assert (Path(problem.file).name, problem.line, problem.column) == ("v.yaml", 9, 13)
    assert "example 'A 6 saves' is already in base; change it under override: examples:" in problem.message


def test_diff_reports_the_same_example_changes_whichever_form(forms):
    as_list = load_ruleset(forms["list"] / "base.yaml")
    grouped = load_ruleset(forms["grouped"] / "base.yaml")
    assert changes(as_list, grouped) == [] and changes(grouped, as_list) == []
    texts = {}
    for form in ("list", "grouped"):
        (forms[form] / "v.yaml").write_text(VARIANT, encoding="utf-8")
        texts[form] = [c.text for c in changes(load_ruleset(forms[form] / "base.yaml"), load_ruleset(forms[form] / "v.yaml"))]
    assert texts["list"] == texts["grouped"]
    assert sorted(texts["grouped"]) == sorted([
        "example added: A 6 hits", "example added: A 1 is lost", f"example removed: {WRONG}", "example changed: Shot odds (odds)",
    ])
    # and across forms: the grouped variant against the list base says the same
    assert sorted(c.text for c in changes(as_list, load_ruleset(forms["grouped"] / "v.yaml"))) == sorted(texts["list"])


def test_an_included_fragment_may_group_its_examples_under_the_main_files_procedures(tmp_path):
    main_text = HEAD.replace("examples:\n", "include: [more.yaml]\n")
    (tmp_path / "r.yaml").write_text(main_text, encoding="utf-8")
    (tmp_path / "more.yaml").write_text(
        "examples:\n"                    # 1
        "  save:\n"                      # 2
        '    - name: "A 6 saves"\n'      # 3
        "      dice: [6]\n"
        "      expect: {outcome: saved}\n"
        "  shoot:\n"                     # 6: no such procedure (shot)
        '    - name: "A 5 hits"\n'
        "      dice: [5]\n"
        "      expect: {outcome: hit}\n", encoding="utf-8")
    with pytest.raises(RulesetError) as caught:
        load_ruleset(tmp_path / "r.yaml")
    (problem,) = caught.value.diagnostics
    assert (Path(problem.file).name, problem.line, problem.column) == ("more.yaml", 6, 3)
    assert problem.message.startswith("examples: no procedure 'shoot' in this ruleset (did you mean 'shot'?)")
    text = (tmp_path / "more.yaml").read_text(encoding="utf-8").replace("shoot:", "shot:")
    (tmp_path / "more.yaml").write_text(text, encoding="utf-8")
    ruleset = load_ruleset(tmp_path / "r.yaml")
    assert [(e.name, e.procedure) for e in ruleset.examples] == [("A 6 saves", "save"), ("A 5 hits", "shot")]
    assert all(r.passed for r in run_examples(ruleset))
