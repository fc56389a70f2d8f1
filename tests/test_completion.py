"""Shell completion: the candidates worked out in Python, and the scripts driven in real shells.

The ruleset here is the test's own, so every expected word is read off the YAML below:
procedures ``fight`` (inputs ``range``, ``ships``; choice ``stance`` with options ``bold``,
``careful``; outcomes with fields ``hits``, ``lost``) and ``scout``; table ``shots``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import procedure, ruleset_text
from test_cli import installed_wartable

from interpreter.cli import COMMANDS, complete_line, main
from interpreter.completion import script
from interpreter.resources import bundled_names

FIGHT = procedure(
    'if stance == "bold" then\n  outcome hit(hits = range, lost = ships)\nend\noutcome miss(hits = 0, lost = 0)',
    inputs="{range: {type: int, default: 1}, ships: {type: int, default: 2}}",
    choices='{stance: {options: [bold, careful], default: careful, rule: "r"}}',
)
SCOUT = procedure("outcome seen")
TABLE = """\
tables:
  shots:
    title: "Shots"
    rule: "r"
    rows: {name: roll}
    edges: {rows: error}
    cells: {"1-3": miss, "4-6": hit}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "game.yaml").write_text(ruleset_text({"fight": FIGHT, "scout": SCOUT}, TABLE), encoding="utf-8")
    (tmp_path / "situations").mkdir()
    (tmp_path / "situations" / "close.yaml").write_text("range: 1\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a ruleset\n", encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("wartable: [\n", encoding="utf-8")
    return tmp_path


BUNDLED = set(bundled_names())


def words(line: str, folder: Path, shell: str = "zsh") -> list[str]:
    return complete_line(shell, line, cwd=folder)


def test_commands_and_their_options(folder):
    assert words("wartable ", folder) == sorted(COMMANDS)
    assert words("wartable s", folder) == ["schema", "show", "sweep"]
    assert words("wartable -", folder) == ["--help", "--version"]
    assert "--situation" in words("wartable odds game.yaml fight --s", folder)
    assert words("wartable check --format ", folder) == ["github", "json", "junit", "text"]  # check's --format choices


def test_rulesets_bundled_names_and_files(folder):
    found = words("wartable run ", folder)
    assert {"eto", "eia", "great_war", "naval_mines", "surface_combat"} <= set(found)  # the bundled rulesets
    assert "game.yaml" in found and "situations/" in found and "notes.txt" not in found
    assert words("wartable run ga", folder) == ["game.yaml"]
    assert words("wartable check situations/", folder) == ["situations/close.yaml"]


def test_procedures_tables_inputs_choices_and_fields_of_the_ruleset_on_the_line(folder):
    assert words("wartable odds game.yaml ", folder) == ["fight", "scout"]
    assert words("wartable show game.yaml ", folder) == ["fight", "scout", "shots"]
    assert words("wartable odds game.yaml fight --set ", folder) == ["range=", "ships="]
    assert words("wartable odds game.yaml fight --choose ", folder) == ["stance="]
    assert words("wartable odds game.yaml fight --choose stance=b", folder) == ["stance=bold"]
    assert words("wartable odds game.yaml fight --by ", folder) == ["hits", "lost", "outcome"]
    # options with values before the procedure's words are skipped, not read as positional words
    assert words("wartable run --seed 3 game.yaml --dice 4,2 fight --set ", folder) == ["range=", "ships="]
    assert words("wartable run game.yaml fight --situation sit", folder) == ["situations/"]


def test_bash_gets_the_part_after_its_word_breaks(folder):
    # bash splits "stance=b" at "=": its candidate replaces "b" only
    assert words("wartable odds game.yaml fight --choose stance=b", folder, "bash") == ["bold"]
    assert words("wartable odds game.yaml fight --choose stance=b", folder, "fish") == ["stance=bold"]


def test_nothing_for_what_cannot_be_read(folder):
    assert words("wartable odds broken.yaml ", folder) == []  # a ruleset that does not load: silent
    assert words("wartable odds missing.yaml fight --set ", folder) == []
    assert words("wartable nosuch ", folder) == []
    assert words('wartable odds "game', folder) == ["game.yaml"]  # an open quote is completed
    assert words("", folder) == []


def test_the_command_prints_scripts_and_candidates(folder, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    assert main(["completion", "--complete", "bash", "wartable odds game.yaml "]) == 0
    assert capsys.readouterr().out == "fight\nscout\n"
    assert main(["completion", "fish"]) == 0
    assert capsys.readouterr().out == script("fish")
    assert main(["completion"]) == 2
    assert "name the shell (bash, zsh or fish)" in capsys.readouterr().err
    assert main(["completion", "tcsh"]) == 2
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err


HOSTILE_NAMES = ["$(touch pwned).yaml", "my game.yaml", "a;b&c|d.yaml", "`id`.yaml", "q'uote\".yaml"]


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    for name in HOSTILE_NAMES + ["x\x1b[2J.yaml", "two\nlines.yaml"]:
        (tmp_path / name).write_text("", encoding="utf-8")
    return tmp_path


def test_file_names_are_escaped_for_the_shells_that_insert_them_as_they_are(hostile_folder):
    # bash and zsh (compadd -Q) insert a candidate as it is: "$(touch pwned).yaml" became a command substitution
    # that Enter ran, "my game.yaml" two arguments.  Each character but letters, digits and @%+=:,./~- gets a
    # backslash; fish escapes what it inserts itself.  A name holding a control character or a newline is left out:
    # the output guard would print its ESC as \x1b (another name), a newline would split it in two candidates.
    escaped = ["\\$\\(touch\\ pwned\\).yaml", "\\`id\\`.yaml", "a\\;b\\&c\\|d.yaml", "my\\ game.yaml", "q\\'uote\\\".yaml"]
    for shell in ("bash", "zsh"):
        assert [w for w in words("wartable check ", hostile_folder, shell) if w not in BUNDLED] == escaped
    assert [w for w in words("wartable check ", hostile_folder, "fish") if w not in BUNDLED] == sorted(HOSTILE_NAMES)
    assert words("wartable check my", hostile_folder, "bash") == ["my\\ game.yaml"]  # matched before it is escaped


def test_an_escaped_name_is_one_word_to_bash_and_runs_nothing(hostile_folder):
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    found = [w for w in words("wartable check ", hostile_folder, "bash") if w not in BUNDLED]
    # what bash does with the completed line when Enter is pressed: one argument each, the name as it is on disk
    program = "".join(f"printf '%s\\n' {word}\n" for word in found)
    done = subprocess.run([bash, "--norc", "-c", program], check=False, cwd=hostile_folder, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == sorted(HOSTILE_NAMES)
    assert not (hostile_folder / "pwned").exists()


def shell_env() -> dict[str, str]:
    """PATH with the installed wartable first, so the scripts' ``command wartable`` finds it."""
    return {**os.environ, "PATH": f"{installed_wartable().parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_bash_script_completes_in_bash(folder):
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    line = "wartable odds game.yaml fight --choose stance="
    program = (
        f'eval "$(wartable completion bash)"\n'
        f'COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}\n'
        'COMP_WORDS=(wartable odds game.yaml fight --choose stance =); COMP_CWORD=7\n'
        '_wartable_complete wartable "" =\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
        'complete -p wartable\n'
    )
    done = subprocess.run([bash, "--norc", "-c", program], check=False, cwd=folder, env=shell_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["bold", "careful", "complete -F _wartable_complete wartable"]


def test_fish_script_completes_in_fish(folder):
    fish = shutil.which("fish")
    if fish is None:
        pytest.skip("fish is not installed (apt-get install fish)")
    program = 'wartable completion fish | source; complete -C "wartable odds game.yaml "'
    done = subprocess.run([fish, "--no-config", "-c", program], check=False, cwd=folder, env=shell_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [line.split("\t")[0] for line in done.stdout.splitlines()] == ["fight", "scout"]


def test_zsh_script_completes_in_zsh(folder):
    zsh = shutil.which("zsh")
    if zsh is None:
        pytest.skip("zsh is not installed (apt-get install zsh)")
    # zsh's compadd works inside a completion widget only: a stand-in prints what the script hands it.
    # Words that end in = take no space after them (-S ''), finished words do.
    program = (
        'autoload -U compinit && compinit -u && eval "$(wartable completion zsh)"\n'
        'print -r -- "registered $_comps[wartable]"\n'
        'compadd() { print -r -- "compadd $*" }\n'
        'LBUFFER="wartable odds game.yaml fight --set "; _wartable_complete\n'
        'LBUFFER="wartable odds game.yaml "; _wartable_complete\n'
    )
    done = subprocess.run([zsh, "-f", "-c", program], check=False, cwd=folder, env={**shell_env(), "HOME": str(folder)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "registered _wartable_complete",
        "compadd -Q -S  -- range= ships=",
        "compadd -Q -- fight scout",
    ]
