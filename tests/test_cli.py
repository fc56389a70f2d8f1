"""The command line: in-process through ``main(argv, stdout, stderr)`` and,
once or twice, as the installed console script and as ``python -m interpreter``.

Expected values come from the seed (ETO Optional Naval Interception Rule
v1.1, Naval Interception Table):

    1-2 Automatic | 3-4 2,3,4,5,6 | 5-6 3,4,5,6 | 7-8 4,5,6 | 9-10 5,6 | 11+ 6

so at 7 zones a 4 intercepts, and 3 faces of 6 do: probability 1/2.

A bad command-line value is reported as ``<command line>:1:COL: message``
with the command line (``wartable `` + the shell-quoted arguments joined by
spaces) and a caret.  Every COL below is counted by hand on that line; the
counting is written next to it.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.resources import bundled_names, bundled_ruleset, data_dir

REPO = Path(__file__).resolve().parent.parent
SEED_ROWS = [
    ("1-2", "Automatic"),
    ("3-4", "2,3,4,5,6"),
    ("5-6", "3,4,5,6"),
    ("7-8", "4,5,6"),
    ("9-10", "5,6"),
    ("11+", "6"),
]


def run(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def run_json(argv: list[str]) -> dict:
    code, out, err = run(argv + ["--json"])
    assert code == 0, err
    return json.loads(out)


def assert_positioned(err: str, file: str, line: int, column: int, shown: str, fragment: str) -> None:
    """``file:line:column: message``, then the shown line and a caret under ``column``."""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) >= 3, err
    assert lines[0].startswith(f"{file}:{line}:{column}: "), err
    assert fragment in lines[0], err
    assert lines[1] == "    " + shown, err
    assert lines[2] == "    " + " " * (column - 1) + "^", err


def assert_usage_error(argv: list[str], column: int, command_line: str, fragment: str) -> None:
    code, out, err = run(argv)
    assert code == 2, err
    assert out == ""
    assert_positioned(err, "<command line>", 1, column, command_line, fragment)


# ---- run ------------------------------------------------------------------------------


def test_run_scripted_die_intercepts_at_seven_zones():
    code, out, err = run(["run", "eto", "interception", "--set", "zones=7", "--dice", "4"])
    assert code == 0, err
    assert "row 7-8 -> 4,5,6" in out
    assert re.search(r"^outcome: intercepted\(automatic = no\)$", out, re.MULTILINE), out
    assert "not_intercepted" not in out
    assert err == ""


def test_run_scripted_die_not_listed_is_not_intercepted():
    code, out, err = run(["run", "eto", "interception", "--set", "zones=7", "--dice", "3"])
    assert code == 0, err
    assert re.search(r"^outcome: not_intercepted$", out, re.MULTILINE), out


def test_run_json_document():
    document = run_json(["run", "eto", "interception", "--set", "zones=7", "--dice", "4"])
    assert set(document) == {"ruleset", "procedure", "inputs", "seed", "dice", "outcome", "trace", "unused_dice", "illustrative_tables", "readings"}
    assert document["unused_dice"] == 0  # one scripted die, one roll
    assert document["ruleset"] == "eto"
    assert document["procedure"] == "interception"
    assert document["inputs"] == {"zones": 7, "from_us_box": False, "mission": "change_base", "ground_units_embarked": True}
    assert document["seed"] is None
    assert document["dice"] == [4]
    assert document["outcome"] == {"name": "intercepted", "fields": {"automatic": False}}
    assert isinstance(document["trace"], list) and document["trace"]
    lookups = [step for step in document["trace"] if step.get("kind") == "lookup"]
    assert lookups and lookups[0]["row"] == "7-8"
    assert all({"kind", "message"} <= set(step) for step in document["trace"])


def test_run_seed_replays_identically_and_is_reported():
    argv = ["run", "eto", "interception", "--set", "zones=7", "--seed", "12345"]
    first, second = run(argv), run(argv)
    assert first[0] == 0, first[2]
    assert first == second
    assert "--seed 12345" in first[1]
    assert run_json(argv)["seed"] == 12345
    assert run_json(argv) == run_json(argv)


def test_different_seeds_give_different_dice():
    """So that the replay test above means something: the seed drives the dice."""
    faces = {tuple(run_json(["run", "eto", "interception", "--set", "zones=7", "--seed", str(seed)])["dice"]) for seed in range(12)}
    assert len(faces) > 1
    assert all(len(f) == 1 and 1 <= f[0] <= 6 for f in faces)


def test_run_without_seed_reports_one_that_replays():
    code, out, err = run(["run", "eto", "interception", "--set", "zones=7"])
    assert code == 0, err
    match = re.search(r"--seed (\d+)", out)
    assert match, out
    replay = run(["run", "eto", "interception", "--set", "zones=7", "--seed", match[1]])
    assert replay == (0, out, err)

    document = run_json(["run", "eto", "interception", "--set", "zones=7"])
    assert isinstance(document["seed"], int)
    again = run_json(["run", "eto", "interception", "--set", "zones=7", "--seed", str(document["seed"])])
    assert again["dice"] == document["dice"]
    assert again["outcome"] == document["outcome"]


def test_rule_violation_exits_1_with_the_seed_words():
    code, out, err = run(["run", "eto", "interception", "--set", "zones=5", "--set", "mission=shipping", "--dice", "4"])
    assert code == 1, err
    assert out == ""
    assert "cannot be intercepted" in err
    # positioned at the `require` in the bundled file
    path = bundled_ruleset("eto")
    lines = path.read_text(encoding="utf-8").splitlines()
    number = next(i for i, text in enumerate(lines, 1) if "require mission in interceptable_missions" in text)
    column = len(lines[number - 1]) - len(lines[number - 1].lstrip()) + 1
    head = err.splitlines()[0]
    assert re.match(rf"^\S*eto\.yaml:{number}:{column}: ", head), err
    assert err.splitlines()[2] == "    " + " " * (column - 1) + "^"
    assert "Traceback" not in err


# ---- check, list, show ----------------------------------------------------------------


def test_check_all_bundled():
    code, out, err = run(["check"])
    assert code == 0, err
    names = bundled_names()
    assert "eto" in names
    for name in names:
        assert re.search(rf"^ok +{re.escape(name)}: ", out, re.MULTILINE), out
    assert len(out.strip().splitlines()) == len(names)


def test_check_named_ruleset():
    code, out, err = run(["check", "eto"])
    assert code == 0, err
    assert out.startswith("ok   eto: 1 table")


def test_list_eto():
    code, out, err = run(["list", "eto"])
    assert code == 0, err
    assert "naval_interception" in out
    assert re.search(r"^  interception: ", out, re.MULTILINE), out
    assert re.search(r"^  withdrawal: ", out, re.MULTILINE), out
    assert "--set zones=...  int 1.., required" in out
    assert re.search(r"^  us_box_zones +11$", out, re.MULTILINE), out
    assert "outcomes: intercepted, not_intercepted" in out


def test_show_naval_interception_table_is_aligned():
    code, out, err = run(["show", "eto", "naval_interception"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Naval Interception Table"
    header = next(line for line in lines if line.startswith("Zones"))
    column = header.index("Result")
    rows = [line for line in lines if line[:1].isdigit()]
    assert len(rows) == 6, out
    for line, (label, cell) in zip(rows, SEED_ROWS):
        assert line[:column].rstrip() == label, line
        assert line[column:].rstrip() == cell, line


def test_show_unknown_table_is_a_usage_error():
    # wartable(1-8) show(10-13) eto(15-17) naval_intercept(19-)
    assert_usage_error(
        ["show", "eto", "naval_intercept"], 19, "wartable show eto naval_intercept", "has no table, modifier list or procedure 'naval_intercept'"
    )


# ---- odds -----------------------------------------------------------------------------


def test_odds_at_seven_zones():
    code, out, err = run(["odds", "eto", "interception", "--set", "zones=7"])
    assert code == 0, err
    assert re.search(r"^  intercepted\(automatic = no\) +1/2 ", out, re.MULTILINE), out
    assert re.search(r"^  not_intercepted +1/2 ", out, re.MULTILINE), out


def test_odds_json():
    document = run_json(["odds", "eto", "interception", "--set", "zones=7"])
    assert document["ruleset"] == "eto"
    assert document["procedure"] == "interception"
    assert document["inputs"]["zones"] == 7
    by_name = {o["name"]: o for o in document["outcomes"]}
    assert set(by_name) == {"intercepted", "not_intercepted"}
    assert by_name["intercepted"]["probability"] == "1/2"
    assert by_name["intercepted"]["fields"] == {"automatic": False}
    assert by_name["not_intercepted"]["probability"] == "1/2"
    assert document["truncated"] in ("0", "0/1")


# ---- usage errors on the command line (exit 2) ------------------------------------------
# Columns: "wartable " takes 1-9, so the first argument starts in column 10.


def test_set_not_a_number():
    # run(10-12) eto(14-16) interception(18-29) --set(31-35) zones=abc(37-45): the value in 43
    assert_usage_error(
        ["run", "eto", "interception", "--set", "zones=abc"], 43,
        "wartable run eto interception --set zones=abc", "--set zones: expected a whole number, not 'abc'",
    )


def test_set_with_equals_form():
    # --set=zones=abc starts in 31; `--set=` is 6 more, `zones=` 6 more: 43
    assert_usage_error(
        ["run", "eto", "interception", "--set=zones=abc"], 43,
        "wartable run eto interception --set=zones=abc", "expected a whole number",
    )


def test_set_below_minimum():
    # as in the README: zones=0 starts in 37, its value in 43
    assert_usage_error(
        ["run", "eto", "interception", "--set", "zones=0", "--dice", "4"], 43,
        "wartable run eto interception --set zones=0 --dice 4", "--set zones: input 'zones' must be at least 1, not 0",
    )


def test_odds_set_below_minimum():
    # odds(10-13) eto(15-17) interception(19-30) --set(32-36) zones=0(38-44): the value in 44
    assert_usage_error(
        ["odds", "eto", "interception", "--set", "zones=0"], 44,
        "wartable odds eto interception --set zones=0", "must be at least 1, not 0",
    )


def test_set_value_needing_shell_quotes():
    # odds(10-13) eto(15-17) interception(19-30) --set(32-36) zones=7(38-44) --set(46-50);
    # the quote opens in 52, `mission=` is 53-60, the value starts in 61
    assert_usage_error(
        ["odds", "eto", "interception", "--set", "zones=7", "--set", "mission=no such mission"], 61,
        "wartable odds eto interception --set zones=7 --set 'mission=no such mission'", "not 'no such mission'",
    )


def test_unknown_input():
    # zonez=7 starts in 37
    assert_usage_error(
        ["run", "eto", "interception", "--set", "zonez=7"], 37,
        "wartable run eto interception --set zonez=7", "procedure 'interception' has no input 'zonez'",
    )


def test_unknown_procedure():
    # intercept starts in 18
    assert_usage_error(
        ["run", "eto", "intercept", "--set", "zones=7"], 18,
        "wartable run eto intercept --set zones=7", "ruleset 'eto' has no procedure 'intercept'",
    )


def test_unknown_ruleset():
    # etox starts in 14
    assert_usage_error(
        ["run", "etox", "interception", "--set", "zones=7"], 14,
        "wartable run etox interception --set zones=7", "no ruleset 'etox'",
    )


def test_scripted_die_not_a_d6_face():
    # zones=7(37-43) --dice(45-50) 9(52)
    assert_usage_error(
        ["run", "eto", "interception", "--set", "zones=7", "--dice", "9"], 52,
        "wartable run eto interception --set zones=7 --dice 9", "is 9, but this roll is a d6",
    )


def test_scripted_dice_not_a_number():
    # 4,x starts in 52: the x is in 54
    assert_usage_error(
        ["run", "eto", "interception", "--set", "zones=7", "--dice", "4,x"], 54,
        "wartable run eto interception --set zones=7 --dice 4,x", "'x' is not a face",
    )


def test_seed_not_a_number():
    # --seed(45-50) abc(52)
    assert_usage_error(
        ["run", "eto", "interception", "--set", "zones=7", "--seed", "abc"], 52,
        "wartable run eto interception --set zones=7 --seed abc", "--seed takes a whole number, not 'abc'",
    )


def test_missing_required_input():
    # reported at the procedure: interception starts in 18
    assert_usage_error(
        ["run", "eto", "interception", "--dice", "4"], 18,
        "wartable run eto interception --dice 4", "input 'zones' is required",
    )


def test_unknown_option():
    # zones=7(37-43) --bogus(45)
    assert_usage_error(
        ["run", "eto", "interception", "--set", "zones=7", "--bogus"], 45,
        "wartable run eto interception --set zones=7 --bogus", "unrecognized arguments: --bogus",
    )


# ---- situation files: errors point into the file ------------------------------------------


def test_situation_file_gives_inputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("situation.yaml").write_text("zones: 7\nmission: sea_transport\n", encoding="utf-8")
    document = run_json(["run", "eto", "interception", "--situation", "situation.yaml", "--dice", "4"])
    assert document["inputs"]["zones"] == 7
    assert document["inputs"]["mission"] == "sea_transport"
    assert document["outcome"]["name"] == "intercepted"
    # --set wins over the file
    document = run_json(["run", "eto", "interception", "--situation", "situation.yaml", "--set", "zones=11", "--dice", "4"])
    assert document["inputs"]["zones"] == 11
    assert document["outcome"]["name"] == "not_intercepted"


def test_situation_file_with_an_unknown_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # line 2, column 1: the key zonez
    Path("situation.yaml").write_text("zones: 7\nzonez: 3\n", encoding="utf-8")
    code, out, err = run(["run", "eto", "interception", "--situation", "situation.yaml", "--dice", "4"])
    assert code == 2, err
    assert out == ""
    assert_positioned(err, "situation.yaml", 2, 1, "zonez: 3", "procedure 'interception' has no input 'zonez'")


def test_situation_file_with_a_value_of_the_wrong_type(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # line 2 (after a comment); `zones: ` is 7 characters, so the value is column 8
    Path("situation.yaml").write_text("# the port\nzones: seven\n", encoding="utf-8")
    code, out, err = run(["run", "eto", "interception", "--situation", "situation.yaml", "--dice", "4"])
    assert code == 2, err
    assert out == ""
    assert_positioned(err, "situation.yaml", 2, 8, "zones: seven", "input 'zones' must be a whole number, not 'seven'")


# ---- the installed command and python -m ----------------------------------------------------


def installed_wartable() -> Path:
    script = Path(sys.executable).parent / "wartable"
    if not script.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the console script {script} is not installed (CI is set)")
        pytest.skip(f"the console script {script} is not installed (pip install . to test it)")
    return script


def subprocess_run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=False, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_console_script_run(tmp_path):
    script = installed_wartable()
    result = subprocess_run([str(script), "run", "eto", "interception", "--set", "zones=7", "--dice", "4"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "row 7-8 -> 4,5,6" in result.stdout
    assert "outcome: intercepted(automatic = no)" in result.stdout


def test_console_script_usage_error(tmp_path):
    script = installed_wartable()
    result = subprocess_run([str(script), "run", "eto", "interception", "--set", "zones=0", "--dice", "4"], tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert_positioned(
        result.stderr, "<command line>", 1, 43, "wartable run eto interception --set zones=0 --dice 4", "must be at least 1, not 0"
    )


def test_python_m_interpreter():
    result = subprocess_run([sys.executable, "-m", "interpreter", "odds", "eto", "interception", "--set", "zones=7", "--json"], REPO)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert {o["name"]: o["probability"] for o in document["outcomes"]} == {"intercepted": "1/2", "not_intercepted": "1/2"}


def test_list_shows_record_types_for_situation_files():
    # great_war declares one record type, naval_unit, with nation/type/contact/combat (seed 004's
    # "each fleet's units with nation and contact rating"); a modder writing --set values needs them.
    out, err = io.StringIO(), io.StringIO()
    assert main(["list", "great_war"], stdout=out, stderr=err) == 0
    text = out.getvalue()
    types = text[text.index("types:"):].splitlines()[1]
    assert types.split()[0] == "naval_unit"
    for field in ("nation: enum(", "type: enum(", "contact: int", "combat: int"):
        assert field in types


COMMAND_NAMES = ("check", "list", "test", "show", "run", "odds", "sweep", "aid", "schema", "diff", "completion")


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["--help", "run"]])
def test_the_top_level_help_lists_every_command(argv, tmp_path):
    # `--help` before any command is the top level's: every command with its one line.
    done = subprocess_run([str(installed_wartable()), *argv], tmp_path)
    assert done.returncode == 0, done.stderr
    # a name longer than argparse's column stands alone on its line, its help below (Python before 3.13)
    listed = re.findall(r"^    (\w+)(?: |$)", done.stdout, re.MULTILINE)
    assert tuple(listed) == COMMAND_NAMES


def test_a_command_help_shows_that_commands_options(tmp_path):
    done = subprocess_run([str(installed_wartable()), "run", "--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: wartable run ")
    for option in ("--seed", "--dice", "--trace", "--set", "--situation", "--max-work", "--base-path", "--by"):
        assert option in done.stdout, option
    assert "--what-if" not in done.stdout  # odds' option, not run's


def test_a_misspelt_command_is_shown_with_every_command_to_choose_from(tmp_path):
    done = subprocess_run([str(installed_wartable()), "rn", "eto", "interception"], tmp_path)
    assert done.returncode == 2
    assert_positioned(done.stderr, "<command line>", 1, 10, "wartable rn eto interception", "invalid choice: 'rn'")
    assert all(f"'{name}'" in done.stderr for name in COMMAND_NAMES)


def test_the_help_imports_no_schema_grammar_or_evaluator(tmp_path):
    script = (
        "import sys, io, contextlib\nfrom interpreter.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'lark', 'yaml', 'dataclasses', 'typing')"
        " or m in ('interpreter.evaluator', 'interpreter.engine')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]"


def test_console_script_shows_a_procedures_generated_code_under_its_ruleset_lines(tmp_path):
    done = subprocess_run([str(installed_wartable()), "show", "eto", "interception", "--code", "play"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("def y0_"), done.stdout[:200]  # the play function only
    assert "\ndef e0_" not in done.stdout and "\ndef m0_" not in done.stdout
    # the eto.yaml line that rolls the die: its comment stands above the code that rolls it
    eto = (data_dir("rulesdata") / "eto.yaml").read_text(encoding="utf-8").splitlines()
    rolls = next(number for number, line in enumerate(eto, 1) if line.strip() == "let die = 1d6")
    lines = done.stdout.splitlines()
    at = lines.index(f"    # 'eto.yaml:{rolls}  let die = 1d6'")
    assert "R(6)" in "\n".join(lines[at:at + 4])
    compile(done.stdout, "<shown>", "exec")  # what is shown is the Python that runs


def test_show_code_of_every_mode_by_default():
    code, out, err = run(["show", "eto", "interception", "--code"])
    assert code == 0, err
    # exact (e), play (y), sample (m), the plain-inputs check (a): one entry function each
    assert [line.split("_")[0] for line in out.splitlines() if line.startswith("def ") and line[5] == "0"] == ["def e0", "def y0", "def m0", "def a0"]


def test_show_code_of_a_misspelt_procedure_is_a_positioned_usage_error():
    assert_usage_error(["show", "eto", "intercepton", "--code"], 19, "wartable show eto intercepton --code",
                       "--code: ruleset 'eto' has no procedure 'intercepton' (it has: interception, withdrawal)")


def test_show_code_refuses_the_flags_it_would_ignore():
    # --code prints Python: --json and --provenance were silently ignored (exit 0). "wartable show eto
    # interception " is 31 characters, so the flag after it starts at column 32; abbreviated as argparse takes it too.
    code, out, _ = run(["show", "eto", "interception", "--json", "--code", "play"])
    problem = json.loads(out)["diagnostics"][0]  # asked for JSON, the error comes as JSON
    assert code == 2 and problem["column"] == 32 and problem["message"].startswith("--json: --code prints the generated Python as it is")
    assert_usage_error(["show", "eto", "interception", "--prov", "--code"], 32,
                       "wartable show eto interception --prov --code", "--provenance: --code prints the generated Python as it is")


def test_show_provenance_of_what_is_not_a_table_is_refused():
    # only a table's cells have a provenance: a procedure or a modifier list was printed without one, exit 0
    assert_usage_error(["show", "eto", "interception", "--provenance"], 32, "wartable show eto interception --provenance",
                       "--provenance shows where a table's cells come from; 'interception' is a procedure")
    # "wartable show eia maneuver_drms " is 32 characters
    assert_usage_error(["show", "eia", "maneuver_drms", "--provenance"], 33, "wartable show eia maneuver_drms --provenance",
                       "'maneuver_drms' is a modifier list")
    code, out, err = run(["show", "eto", "naval_interception", "--provenance"])
    assert code == 0 and "eto.yaml:" in out, err


def test_show_code_of_an_unknown_mode_points_at_the_mode():
    # "wartable show eto interception --code=fast": the mode starts at column 32 + len("--code=") = 39
    assert_usage_error(["show", "eto", "interception", "--code=fast"], 39, "wartable show eto interception --code=fast", "--code: no mode 'fast'")
