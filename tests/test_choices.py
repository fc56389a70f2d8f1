"""Which player choices are open: a choice that a `resolve` fixes is not the player's to make."""

from __future__ import annotations

from fractions import Fraction

from conftest import procedure

from interpreter.api import odds_by_choice, reachable_choices

CALLEE = procedure('if c == "x" then\n  outcome a\nend\noutcome b', choices='{c: {options: [x, z], default: x, rule: "r"}}')


def test_a_choice_fixed_by_resolve_is_not_open(make_ruleset):
    ruleset = make_ruleset({"q": CALLEE, "p": procedure('let r = resolve q(c = "z")\noutcome v(n = r.outcome)')})
    assert reachable_choices(ruleset, "p") == []
    (only,) = odds_by_choice(ruleset, "p")
    # c is "z" on the only path, so q always ends in b
    assert only[1].probability("v", n="b") == Fraction(1)


def test_a_choice_reached_without_fixing_it_stays_open(make_ruleset):
    body = 'let r = resolve q(c = "z")\nlet s = resolve q()\noutcome v(n = r.outcome, m = s.outcome)'
    ruleset = make_ruleset({"q": CALLEE, "p": procedure(body)})
    assert [choice.name for choice in reachable_choices(ruleset, "p")] == ["c"]
    by_choice = {chosen["c"]: distribution for chosen, distribution in odds_by_choice(ruleset, "p")}
    # the second call follows the player's choice; the first is always z (outcome b)
    assert by_choice["x"].probability("v", n="b", m="a") == 1
    assert by_choice["z"].probability("v", n="b", m="b") == 1


def test_an_examples_choices_are_checked_where_they_are_written(tmp_path):
    # A rule test that fixes a choice the procedure does not have, or an option the choice does not
    # offer, fails at that name or value (it used to pass, the misspelt choice ignored).
    import subprocess

    from conftest import ruleset_text
    from test_cli import assert_positioned, installed_wartable

    examples = """
examples:
  - name: "a choice of the procedure it resolves"
    procedure: p
    choices: {c: z}
    expect: {outcome: v, fields: {n: b}}
  - name: "misspelt choice"
    procedure: p
    choices: {cc: z}
    expect: {outcome: v, fields: {n: b}}
  - name: "option not offered"
    procedure: p
    choices: {c: w}
    expect: {outcome: v, fields: {n: b}}
"""
    path = tmp_path / "r.yaml"
    path.write_text(ruleset_text({"q": CALLEE, "p": procedure('let s = resolve q()\noutcome v(n = s.outcome)')}) + examples, encoding="utf-8")
    text = path.read_text(encoding="utf-8").splitlines()
    misspelt = next(i for i, line in enumerate(text, 1) if "{cc: z}" in line)
    offered = next(i for i, line in enumerate(text, 1) if "{c: w}" in line)
    done = subprocess.run([str(installed_wartable()), "test", "r.yaml"], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "1 passed, 2 failed" in done.stdout
    lines = done.stderr.splitlines()  # each problem: the message, the line, the caret
    assert len(lines) == 6, done.stderr
    assert_positioned("\n".join(lines[:3]), "r.yaml", misspelt, 15, "    choices: {cc: z}",
                      "procedure 'p' has no choice 'cc' (did you mean 'c'? choices: c)")
    assert_positioned("\n".join(lines[3:]), "r.yaml", offered, 18, "    choices: {c: w}", "choice 'c' must be one of x, z, not 'w'")


def test_choose_on_the_command_line_names_the_closest_choice(tmp_path):
    # eia battle's players' choices include attacker_intent (options first_strike, evade,
    # evade_if_outnumbered): a misspelt name is shown with the closest choice, a wrong option with
    # the options, each at its place on the command line.
    from test_cli import assert_usage_error

    base = ["odds", "eia", "battle", "--set", "attacker=[{kind: warship}]", "--set", "defender=[{kind: warship}]"]
    line = "wartable odds eia battle --set 'attacker=[{kind: warship}]' --set 'defender=[{kind: warship}]'"
    assert_usage_error(base + ["--choose", "atacker_intent=evade"], len(line) + 11, line + " --choose atacker_intent=evade",
                       "has no choice 'atacker_intent' (did you mean 'attacker_intent'?")
    assert_usage_error(base + ["--choose", "attacker_intent=flee"], len(line) + 27, line + " --choose attacker_intent=flee",
                       "choice 'attacker_intent' must be one of first_strike, evade, evade_if_outnumbered, not 'flee'")
