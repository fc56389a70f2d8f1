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


# Files with other owners do not carry the modeline yet: surface_combat*.yaml.
WITH_MODELINE = ["eto", "eto_one_more_pip", "eia", "eia_modified_six", "great_war", "naval_mines"]


@pytest.mark.parametrize("name", WITH_MODELINE)
def test_bundled_rulesets_carry_the_modeline(name):
    path = REPO / "rulesdata" / f"{name}.yaml"
    (target,) = MODELINE.findall(path.read_text(encoding="utf-8"))
    # relative to the file: rulesdata/../schemas, as in the installed package (interpreter/rulesdata, interpreter/schemas)
    assert (path.parent / target).resolve() == (SCHEMAS / "ruleset.schema.json").resolve()


def test_readme_documents_the_modeline_and_vs_code_setting():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "# yaml-language-server: $schema=../schemas/ruleset.schema.json" in readme
    assert '"yaml.schemas"' in readme
    assert "--include-fragment" in readme
