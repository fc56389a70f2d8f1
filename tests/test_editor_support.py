"""Editor support: the schemas an editor's YAML language server reads.

``wartable schema`` prints them; ``override:``, ``add:`` and ``remove:`` are typed (completion in a
variant, a typo flagged); files pulled in with ``include:`` have their own schema (no false
"missing property" errors); the bundled rulesets carry the ``yaml-language-server`` modeline.
What an editor shows is what jsonschema says about the file, so these tests ask jsonschema.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from interpreter import RulesetError, load_ruleset
from interpreter.cli import main
from interpreter.schema import fragment_schema, with_typed_variants

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "schemas"
RULESET_SCHEMA = json.loads((SCHEMAS / "ruleset.schema.json").read_text(encoding="utf-8"))
FRAGMENT_SCHEMA = json.loads((SCHEMAS / "fragment.schema.json").read_text(encoding="utf-8"))
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.MULTILINE)


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def editor_errors(schema: dict, text: str) -> list[tuple[tuple, str]]:
    """What the language server would flag: (path, validator) for each schema error."""
    return sorted((tuple(e.absolute_path), e.validator) for e in Draft202012Validator(schema).iter_errors(yaml.safe_load(text)))


def test_schema_command_prints_the_files():
    assert run(["schema"]) == (0, (SCHEMAS / "ruleset.schema.json").read_text(encoding="utf-8"), "")
    assert run(["schema", "--include-fragment"]) == (0, (SCHEMAS / "fragment.schema.json").read_text(encoding="utf-8"), "")


def test_schema_files_are_valid_and_up_to_date():
    Draft202012Validator.check_schema(RULESET_SCHEMA)
    Draft202012Validator.check_schema(FRAGMENT_SCHEMA)
    # the generated parts were regenerated after the last edit (write_schema_files)
    assert with_typed_variants(RULESET_SCHEMA) == RULESET_SCHEMA
    assert fragment_schema(RULESET_SCHEMA) == FRAGMENT_SCHEMA


VARIANT_HEAD = 'wartable: 1\nname: v\ntitle: "V"\nsource: "s"\nversion: "1"\nextends: eto\n'


def test_a_typo_in_a_variant_section_is_flagged():
    text = VARIANT_HEAD + "override:\n  tabels:\n    naval_interception: {}\n"
    assert editor_errors(RULESET_SCHEMA, text) == [(("override",), "additionalProperties")]


def test_a_typo_inside_an_overridden_element_is_flagged():
    text = VARIANT_HEAD + 'override:\n  tables:\n    naval_interception:\n      cels: {"7-8": "5,6"}\n'
    assert editor_errors(RULESET_SCHEMA, text) == [(("override", "tables", "naval_interception"), "additionalProperties")]
    text = VARIANT_HEAD + "remove:\n  modifiers:\n    drm:\n      entires: [a]\n"
    assert editor_errors(RULESET_SCHEMA, text) == [(("remove", "modifiers"), "anyOf")]


def test_a_correct_variant_has_no_editor_errors():
    for name in ("eto_one_more_pip", "eia_modified_six", "surface_combat_breakoff_strength"):
        text = (REPO / "rulesdata" / f"{name}.yaml").read_text(encoding="utf-8")
        assert editor_errors(RULESET_SCHEMA, text) == [], name
    # a partial change needs none of the element's required keys, a row may be changed cell by cell
    text = VARIANT_HEAD + 'override:\n  constants:\n    us_box_zones: {value: 10}\n  tables:\n    t:\n      cells: {"4": {"+1": A}}\n'
    assert editor_errors(RULESET_SCHEMA, text) == []


def test_override_completes_the_keys_of_each_element():
    # the editor offers an element's keys (with their descriptions) under override:
    override = RULESET_SCHEMA["properties"]["override"]["properties"]
    table_change = RULESET_SCHEMA["$defs"][override["tables"]["additionalProperties"]["$ref"].split("/")[-1]]
    assert {"title", "cells", "edges", "results"} <= set(table_change["properties"])
    assert "required" not in table_change
    entry = RULESET_SCHEMA["$defs"]["modifier_entry_change"]
    assert set(entry["properties"]) == {"label", "value", "when", "rule"}
    assert entry["properties"]["value"]["description"]


def test_variant_typo_is_reported_by_the_loader_at_the_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # line 8 "  tabels:", the key in column 3
    Path("v.yaml").write_text(VARIANT_HEAD + "override:\n  tabels:\n    naval_interception: {}\n", encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_ruleset("v.yaml")
    (d,) = info.value.diagnostics
    assert (d.file, d.line, d.column) == ("v.yaml", 8, 3)
    assert d.message.startswith("override: has no section 'tabels'")


def test_an_included_file_has_no_false_missing_property_errors():
    fragment = "tables:\n  extra:\n    title: T\n    rule: R\n    rows: {name: N}\n    edges: {rows: error}\n    cells: {\"1\": 1}\n"
    assert editor_errors(FRAGMENT_SCHEMA, fragment) == []
    # against the ruleset's schema the same file lacks wartable, name, title, source and version
    assert {validator for _, validator in editor_errors(RULESET_SCHEMA, fragment)} == {"required"}
    # and the fragment schema still flags what a fragment may not hold
    assert editor_errors(FRAGMENT_SCHEMA, "name: x\n" + fragment) == [((), "additionalProperties")]


# The modeline's schema for each kind of bundled file, relative to the file: rulesdata/../schemas, as in
# the installed package (interpreter/rulesdata, interpreter/schemas).  No include fragment is bundled today;
# a future one in rulesdata/fragments/ would get the fragment schema.
def expected_schema(path: Path) -> Path:
    if path.parent.name.endswith("_situations"):
        return SCHEMAS / "situation.schema.json"
    if path.parent.name == "fragments":
        return SCHEMAS / "fragment.schema.json"
    return SCHEMAS / "ruleset.schema.json"


BUNDLED_YAML = sorted((REPO / "rulesdata").rglob("*.yaml"))


def test_every_kind_of_bundled_file_is_covered():
    # 8 rulesets and variants (eto, eto_one_more_pip, eia, eia_modified_six, great_war, naval_mines,
    # surface_combat, surface_combat_breakoff_strength) and 4 + 3 + 3 situation files
    kinds = [expected_schema(path).name for path in BUNDLED_YAML]
    assert (kinds.count("ruleset.schema.json"), kinds.count("situation.schema.json")) == (8, 10)


@pytest.mark.parametrize("path", BUNDLED_YAML, ids=lambda path: str(path.relative_to(REPO)))
def test_bundled_files_carry_the_modeline_on_line_1(path):
    # yaml-language-server 1.24 and later read the modeline only on the first line
    first_line, rest = path.read_text(encoding="utf-8").split("\n", 1)
    match = MODELINE.fullmatch(first_line)
    assert match, first_line
    assert (path.parent / match.group(1)).resolve() == expected_schema(path).resolve()
    assert "yaml-language-server" not in rest  # one modeline, the one the server reads


SITUATION_SCHEMA = json.loads((SCHEMAS / "situation.schema.json").read_text(encoding="utf-8"))


def test_situation_schema_is_valid_and_shipped_like_the_others():
    Draft202012Validator.check_schema(SITUATION_SCHEMA)
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"interpreter.schemas" = ["*.json"]' in pyproject  # the wheel's package data takes every schema


@pytest.mark.parametrize("path", [p for p in BUNDLED_YAML if p.parent.name.endswith("_situations")], ids=lambda p: p.name)
def test_bundled_situations_validate(path):
    assert editor_errors(SITUATION_SCHEMA, path.read_text(encoding="utf-8")) == []


def test_situation_schema_flags_what_no_procedure_accepts():
    text = "distance: 2\n2nd: 1\nodds: 0.5\nships: [{kind: warship, 'bad key': 1}]\nnothing: null\n"
    # 2nd is no name (jsonschema reports propertyNames by its pattern); 0.5, null and a record key
    # with a blank are no input value
    assert editor_errors(SITUATION_SCHEMA, text) == [
        ((), "pattern"), (("nothing",), "anyOf"), (("odds",), "anyOf"), (("ships",), "anyOf")]


def test_readme_documents_the_modeline_and_vs_code_setting():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "# yaml-language-server: $schema=../schemas/ruleset.schema.json" in readme
    assert '"yaml.schemas"' in readme
    assert "--include-fragment" in readme
    assert "situation.schema.json" in readme
    # the server reads the modeline on the first line only (since 1.24): the README must not say "anywhere"
    assert "first line" in readme and "reads it anywhere" not in readme and "last line" not in readme
