"""Two small conveniences of the ruleset format (issue 23): a modifier entry's rule defaults to its label
(a DRM table's line is usually its own rule), and a list input may require a fewest number of items."""

from __future__ import annotations

import io

import pytest
from conftest import procedure, ruleset_text

from interpreter import RulesetError, UsageError, load_ruleset, resolve
from interpreter.cli import main

MODIFIERS = """\
modifiers:
  drm:
    kind: drm
    title: "DRM"
    rule: "r"
    entries:
      night: {label: "Night: -1", value: -1, when: "night"}
      heavy: {label: "Heavy ship", value: 1, when: "not night", rule: "Heavy Ship: +1 (rule 7.2)"}
"""
FIRE = procedure(
    "let d = 1d6 + modifiers drm\noutcome o(hit = d >= 4, n = count(fleet))",
    inputs="{night: {type: bool, default: false}, fleet: {type: list, of: int, min_items: 1, max_items: 3, default: [1]}}",
)


@pytest.fixture
def ruleset(make_ruleset):
    return make_ruleset({"p": FIRE}, extra=MODIFIERS)


def test_an_entry_without_a_rule_cites_its_label(ruleset):
    entries = {entry.name: entry for entry in ruleset.modifiers["drm"].entries}
    assert entries["night"].rule == "Night: -1"  # no rule: given, the label stands for it
    assert entries["heavy"].rule == "Heavy Ship: +1 (rule 7.2)"
    played = resolve(ruleset, "p", {"night": True}, dice=[5])  # 5 - 1 = 4: a hit
    (step,) = [e for e in played.trace if e.kind == "modifier" and e.get("step") == "modifier_entry"]
    assert step.rule == "Night: -1"
    assert played.outcome.fields["hit"] is True


def test_a_list_input_holds_at_least_its_fewest_items(ruleset):
    assert resolve(ruleset, "p", {"fleet": [4, 5, 6]}, dice=[1]).outcome.fields["n"] == 3
    with pytest.raises(UsageError, match="input 'fleet' must hold at least 1 item, not 0"):
        resolve(ruleset, "p", {"fleet": []}, dice=[1])
    with pytest.raises(UsageError, match="may hold at most 3 items, not 4"):
        resolve(ruleset, "p", {"fleet": [1, 2, 3, 4]}, dice=[1])
    stdout = io.StringIO()
    assert main(["list", ruleset.path], stdout=stdout, stderr=io.StringIO()) == 0
    assert "--set fleet=...  list of int, 1 to 3 items, default [1]" in stdout.getvalue()


def test_a_default_shorter_than_the_fewest_items_is_refused(write_yaml):
    bad = procedure("outcome o", inputs="{fleet: {type: list, of: int, min_items: 2, default: [1]}}")
    path = write_yaml(ruleset_text({"p": bad}))
    with pytest.raises(RulesetError, match="must hold at least 2 items, not 1"):
        load_ruleset(path)
