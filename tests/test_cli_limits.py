"""Budgets and bad numbers on the command line, and Ctrl-C through the installed command."""

from __future__ import annotations

import io
import re
import signal
import subprocess
from pathlib import Path

import pytest
from test_cli import installed_wartable

from interpreter.cli import main

MINEFIELD = ["odds", "naval_mines", "attack_through_minefield", "--set", "units=[{kind: battleship}, {kind: cruiser}]"]


def run(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def first_line(err: str) -> str:
    assert "Traceback" not in err
    return err.splitlines()[0]


def test_a_budget_breach_names_the_flag_that_raises_it():
    code, out, err = run(MINEFIELD + ["--set", "mines=5000", "--max-work", "1000"])
    assert code == 1 and out == ""
    line = first_line(err)
    assert "naval_mines.yaml:" in line  # positioned in the ruleset, at the statement that crossed the line
    assert "more than 1,000 units of work (max_work; raise it with --max-work N" in line


def test_raising_the_budget_lets_the_same_computation_finish():
    # 3 mines, 2 surface units, each mine detonates on 1-2 of 6 (1/3); no unit lost: (2/3)**3 = 8/27
    code, out, err = run(MINEFIELD + ["--set", "mines=3", "--max-work", "0", "--max-states", "0", "--timeout", "0", "--choose", "sweepers=no_escort"])
    assert code == 0, err
    assert "8/27" in out


def test_max_states_on_the_command_line():
    code, _, err = run(MINEFIELD + ["--set", "mines=3", "--max-states", "1"])
    assert code == 1
    assert "more than 1 states" in first_line(err) and "--max-states" in first_line(err)


@pytest.mark.parametrize("flag, value", [
    ("--max-work", "lots"), ("--max-states", "-5"), ("--timeout", "nan"), ("--timeout", "-1"), ("--max-work", "1" + "0" * 5000),
])
def test_a_bad_budget_value_is_a_usage_error(flag, value):
    code, out, err = run(["odds", "eto", "interception", "--set", "zones=7", flag, value])
    assert code == 2 and out == ""
    assert first_line(err).startswith("<command line>:1:")
    assert flag in first_line(err)


@pytest.mark.parametrize("argv, fragment", [
    (["run", "eto", "interception", "--set", "zones=7", "--seed", "9" * 5000], "--seed takes a whole number"),
    (["run", "eto", "interception", "--set", "zones=7", "--dice", "4" * 5000], "--dice takes die faces"),
    (["run", "eto", "interception", "--set", "zones=" + "7" * 5000], "at most 20 digits"),
    (["run", "eto", "interception", "--set", "zones=7", "--n", "9" * 5000], "--n takes a whole number"),
    (["run", "eto", "interception", "--set", "zones=7", "--n", "1000000000000"], "at most 100,000,000 trials"),
])
def test_huge_numbers_on_the_command_line_are_usage_errors(argv, fragment):
    code, out, err = run(argv)
    assert code == 2 and out == ""
    assert fragment in first_line(err)
    assert len(first_line(err)) < 300  # the message shortens the number; the command line itself is shown below it


def test_an_unreadable_situation_file_is_a_usage_error(tmp_path):
    folder = tmp_path / "situation.yaml"
    folder.mkdir()
    for path in (str(folder), "x" * 5000):
        code, _, err = run(["run", "eto", "interception", "--situation", path])
        assert code == 2, err
        assert first_line(err).startswith("<command line>:1:")


def test_a_malformed_situation_file_exits_2(tmp_path):
    situation = tmp_path / "situation.yaml"
    situation.write_text("zones: [7\n", encoding="utf-8")
    code, _, err = run(["run", "eto", "interception", "--situation", str(situation)])
    assert code == 2
    assert "YAML syntax error" in first_line(err)


class TerminalRun:
    """The installed command with stderr on a pseudo-terminal, so it draws its progress line.

    Tests wait for what the command writes, never for a length of time: a loaded
    machine may take seconds to start Python, and a sleep that guessed the
    start-up (Ctrl-C sent after 2 s) failed three times under load.
    """

    def __init__(self, argv: list[str], cwd: Path) -> None:
        import os
        import pty

        master, slave = pty.openpty()
        self.master = master
        self.process = subprocess.Popen([str(installed_wartable()), *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        self.err = b""

    def read_until(self, text: bytes) -> bool:
        """Read stderr until ``text`` appears (True) or the command closes it (False)."""
        import os

        while text not in self.err:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the child closed the terminal
                return False
            if not chunk:
                return False
            self.err += chunk
        return True

    def finish(self) -> str:
        import os

        try:
            self.read_until(b"\0never printed\0")
            self.process.wait(timeout=120)  # a backstop for a hung child, not a measure of speed
        finally:
            self.process.kill()
            os.close(self.master)
        return self.err.decode()


def test_ctrl_c_exits_130_with_one_line(tmp_path):
    # a computation that would run for minutes with every budget lifted
    run = TerminalRun(MINEFIELD + ["--set", "mines=100000", "--max-work", "0", "--timeout", "0"], tmp_path)
    assert run.read_until(b"\rexact odds:"), run.finish()  # inside the computation: its first progress line
    run.process.send_signal(signal.SIGINT)
    err = run.finish()
    assert run.process.returncode == 130, err
    assert "Traceback" not in err
    shown = [line.strip() for line in re.split(r"[\r\n]", err) if line.strip()]
    assert shown[-1] == "wartable: interrupted", err  # one line, after the progress lines it replaces
    assert all(line.startswith("exact odds:") for line in shown[:-1]), err


def test_exact_odds_show_progress_on_a_terminal_and_stop_at_the_timeout(tmp_path):
    # stderr a pseudo-terminal: a progress line every half second, then the timeout's message.
    run = TerminalRun(MINEFIELD + ["--set", "mines=100000", "--max-work", "0", "--timeout", "1.5"], tmp_path)
    text = run.finish()
    process = run.process
    assert process.returncode == 1, text
    assert "\rexact odds:" in text and "units of work (Ctrl-C stops)" in text
    assert "stopped after 1.5 seconds (timeout" in text
    assert "Traceback" not in text


def test_exact_odds_show_no_progress_when_not_on_a_terminal():
    code, _out, err = run(MINEFIELD + ["--set", "mines=3"])
    assert code == 0 and "exact odds:" not in err


def test_a_base_outside_the_folder_needs_base_path(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "variant").mkdir()
    base = (Path(__file__).resolve().parent.parent / "rulesdata" / "eto.yaml").read_text(encoding="utf-8")
    (tmp_path / "base" / "copy.yaml").write_text(base.replace("\nname: eto\n", "\nname: eto_copy\n"), encoding="utf-8")
    variant = tmp_path / "variant" / "v.yaml"
    variant.write_text('wartable: 1\nname: v\ntitle: v\nsource: s\nversion: "1"\nextends: ../base/copy.yaml\n', encoding="utf-8")
    code, _, err = run(["check", str(variant)])
    assert code == 1
    assert "outside this ruleset's folder" in first_line(err) and "--base-path" in first_line(err)
    code, out, err = run(["check", str(variant), "--base-path", str(tmp_path / "base")])
    assert code == 0, err
    # the variant changes nothing: eto's one table and two procedures
    assert "1 table" in out and "2 procedures" in out


# ---- one situation file for every step ---------------------------------------------------------------------------

def test_a_situation_key_for_another_step_is_a_warning(tmp_path):
    situation = tmp_path / "situation.yaml"
    # zones is interception's; normal_loss belongs to withdrawal, the next step of the same ruleset
    situation.write_text("zones: 7\nnormal_loss: 3\n", encoding="utf-8")
    code, out, err = run(["run", "eto", "interception", "--situation", str(situation), "--dice", "4"])
    assert code == 0, err
    assert "intercepted" in out  # row 7-8 lists 4
    assert "situation.yaml:2:1: warning: procedure 'interception' does not use 'normal_loss' (another step does); ignored" in err


def test_a_misspelt_situation_key_is_an_error_with_a_hint(tmp_path):
    situation = tmp_path / "situation.yaml"
    situation.write_text("zone: 7\n", encoding="utf-8")
    code, _, err = run(["run", "eto", "interception", "--situation", str(situation), "--dice", "4"])
    assert code == 2
    # One wording for an unknown input wherever it is written (binding.unknown_name_message): the
    # closest name, then the procedure's inputs in declared order (eto's interception declares
    # zones, from_us_box, mission, ground_units_embarked), as the API, --set and examples say it.
    assert ("situation.yaml:1:1: procedure 'interception' has no input 'zone' "
            "(did you mean 'zones'? inputs: zones, from_us_box, mission, ground_units_embarked)") in first_line(err)
