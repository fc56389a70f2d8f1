"""``like:`` in an example: an earlier example's inputs and choices, with its own written over them.

interpreter/example_likes.py.  The procedure below echoes what it was given, so every expected
value is read straight off the example's inputs (its own, else the earlier example's, else the
declared default); the bad forms of ``like:`` are in tests/bad_rulesets/example_like_*.yaml.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from interpreter import load_ruleset
from interpreter.cli import main
from interpreter.examples import run_examples

BASE = textwrap.dedent(
    """\
    wartable: 1
    name: likes
    title: "Likes"
    source: "tests"
    version: "1"
    procedures:
      echo:
        title: "Echo"
        rule: "Says what it was given."
        inputs:
          zones: {type: int, min: 1}
          mission: {type: enum, values: [patrol, shipping], default: patrol}
        choices:
          stance: {options: [bold, careful], default: careful, rule: "The player's stance."}
        body: |
          outcome done(zones = zones, mission = mission, stance = stance)
    examples:
      echo:
        - name: seven
          inputs: {zones: 7, mission: shipping}
          choices: {stance: bold}
          expect: {outcome: done, fields: {zones: 7, mission: shipping, stance: bold}}
    """
)


def _results(tmp_path: Path, text: str) -> dict[str, tuple[bool, list[str]]]:
    path = tmp_path / "likes.yaml"
    path.write_text(text)
    return {r.example.name: (r.passed, [d.message for d in r.problems]) for r in run_examples(load_ruleset(path))}


def test_an_example_takes_the_inputs_and_choices_it_does_not_write(tmp_path: Path) -> None:
    results = _results(tmp_path, BASE + (
        "    - name: eight\n"
        "      like: seven\n"
        "      inputs: {zones: 8}\n"
        # zones its own (8); mission and the stance taken from 'seven' (shipping, bold)
        "      expect: {outcome: done, fields: {zones: 8, mission: shipping, stance: bold}}\n"
        "    - name: eight again\n"
        "      like: eight\n"
        "      choices: {stance: careful}\n"
        # a chain: zones from 'eight' (8), mission through it from 'seven' (shipping); the stance its own
        "      expect: {outcome: done, fields: {zones: 8, mission: shipping, stance: careful}}\n"
    ))
    assert results == {"seven": (True, []), "eight": (True, []), "eight again": (True, [])}


def test_dice_and_expectations_are_not_taken(tmp_path: Path) -> None:
    results = _results(tmp_path, BASE + (
        "    - name: no expectation\n"
        "      like: seven\n"
        "      inputs: {zones: 9}\n"
    ))
    # 'seven' checks an outcome; one like it that checks nothing is told so, not given seven's expect
    assert results["no expectation"] == (False, ["example checks nothing: give expect, violation or odds"])


def test_a_wrong_inherited_value_is_reported_where_it_is_written(tmp_path: Path, capsys) -> None:
    path = tmp_path / "likes.yaml"
    path.write_text(BASE.replace("zones: 7, mission: shipping}", "zones: 0, mission: shipping}") + (
        "    - name: also zero\n"
        "      like: seven\n"
        "      expect: {outcome: done}\n"
    ))
    assert main(["test", str(path)]) == 1
    captured = capsys.readouterr()
    # both examples fail on zones: 0 (min 1), each at the text that says it: line 20, 'inputs: {zones: ' is
    # 6 spaces + 16 characters, so the 0 is at column 23
    assert (captured.out + captured.err).count("likes.yaml:20:23: ") == 2


def test_a_variant_that_overrides_an_example_reaches_the_examples_like_it(tmp_path: Path) -> None:
    (tmp_path / "likes.yaml").write_text(BASE + (
        "    - name: patrol instead\n"
        "      like: seven\n"
        "      inputs: {mission: patrol}\n"
        "      expect: {outcome: done, fields: {zones: 7, mission: patrol}}\n"
    ))
    (tmp_path / "variant.yaml").write_text(textwrap.dedent(
        """\
        wartable: 1
        name: variant
        title: "Variant"
        source: "tests"
        version: "1"
        extends: likes.yaml
        override:
          examples: {seven: {inputs: {zones: 9, mission: shipping}}}
        """
    ))
    results = _results(tmp_path, (tmp_path / "likes.yaml").read_text())
    assert results["patrol instead"] == (True, [])
    variant = {r.example.name: [d.message for d in r.problems] for r in run_examples(load_ruleset(tmp_path / "variant.yaml"))}
    # 'patrol instead' now starts from zones 9: its zones: 7 no longer holds; 'seven' itself expects 7 too
    assert variant == {"seven": ["expected zones = 7, got 9"], "patrol instead": ["expected zones = 7, got 9"]}
