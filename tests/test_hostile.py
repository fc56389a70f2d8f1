"""Hostile inputs: every case in tests/hostile/ runs through the command line
in-process and must end the way it declares, quickly, with a positioned
message and never a traceback.  The format is in tests/hostile/README.md.

For every case the runner checks:

- the exit code is the declared one;
- the declared message (and each ``also`` text) is in the output, each
  ``absent`` text is not (a refused file's content never appears);
- with ``at: LINE:COLUMN``, the output names that position;
- a failing command's first line is ``file:line:column: message``;
- no ``Traceback``, and the output stays small (a hostile input must not
  make wartable print megabytes);
- it ends within TIME_LIMIT seconds of CPU time (WAIT_LIMIT on the wall clock), and with ``memory: true`` its peak
  Python allocation (tracemalloc) stays under MEMORY_LIMIT.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import time
import tracemalloc
from pathlib import Path

import pytest
import yaml

from interpreter.cli import main

HOSTILE = Path(__file__).resolve().parent / "hostile"
CASE_KEYS = {"argv", "exit", "message", "at", "also", "absent", "files", "dirs", "fifos", "symlinks", "memory", "max_output"}
WAIT_LIMIT = 60.0  # wall-clock seconds: only a command that waits comes near it
TIME_LIMIT = 5.0  # CPU seconds of this process (a loaded machine stretches wall time, not CPU time); the target is 2 s
MEMORY_LIMIT = 200_000_000  # bytes of peak Python allocation
MAX_OUTPUT = 200_000  # characters
POSITIONED = re.compile(r"^\S.*?:\d+:\d+: \S")


def case_paths() -> list[Path]:
    singles = sorted(HOSTILE.glob("*.yaml"))
    folders = sorted(path.parent for path in HOSTILE.glob("*/case.yaml"))
    return sorted(singles + folders, key=lambda path: path.name)


def read_case(path: Path) -> dict:
    case_file = path / "case.yaml" if path.is_dir() else path
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    unknown = set(case) - CASE_KEYS
    assert not unknown, f"{case_file.name}: unknown keys {sorted(unknown)}"
    for key in ("argv", "exit", "message"):
        assert key in case, f"{case_file.name}: no {key}"
    return case


def spelled(parts, folder: Path) -> str | bytes:
    """A file's content or an argument: a text, or a list of parts joined."""
    if isinstance(parts, str):
        return parts.replace("{dir}", str(folder))
    pieces: list[bytes] = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(part.replace("{dir}", str(folder)).encode("utf-8"))
        elif "repeat" in part:
            text, times = part["repeat"], part["times"]
            if "{i}" in text:
                pieces.append("".join(text.replace("{i}", str(i)) for i in range(times)).encode("utf-8"))
            else:
                pieces.append(text.encode("utf-8") * times)
        elif "hex" in part:
            pieces.append(bytes.fromhex(part["hex"]))
        else:
            raise AssertionError(f"unknown part {part!r}")
    return b"".join(pieces)


def prepare(path: Path, case: dict, folder: Path) -> list[str]:
    """Write the case's files into ``folder``; return its command line."""
    if path.is_dir():
        for item in path.iterdir():
            if item.name != "case.yaml":
                (shutil.copytree if item.is_dir() else shutil.copy)(item, folder / item.name)
    for name in case.get("dirs", ()):
        (folder / name).mkdir(parents=True, exist_ok=True)
    for name, content in (case.get("files") or {}).items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        content = spelled(content, folder)
        target.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    for name in case.get("fifos", ()):
        os.mkfifo(folder / name)
    for name, target in (case.get("symlinks") or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(str(target).replace("{dir}", str(folder)), folder / name)
    argv = []
    for arg in case["argv"]:
        value = spelled(arg, folder)
        argv.append(value.decode("utf-8") if isinstance(value, bytes) else str(value))
    return argv


def run(argv: list[str]) -> tuple[int, str, float]:
    """The exit code, the output (stderr then stdout) and the CPU seconds the command took.

    CPU time, not wall time: a loaded machine (CI beside other jobs, a laptop
    building something) stretches the wall clock, not the work done.  A case
    that waits instead of working (a named pipe read without a writer) is
    held by WAIT_LIMIT on the wall clock.
    """
    stdout, stderr = io.StringIO(), io.StringIO()
    start, started = time.process_time(), time.monotonic()
    code = main(argv, stdout=stdout, stderr=stderr)
    assert time.monotonic() - started < WAIT_LIMIT, "the command waited on something"
    return code, stderr.getvalue() + stdout.getvalue(), time.process_time() - start


@pytest.mark.parametrize("path", case_paths(), ids=lambda path: path.stem if path.is_file() else path.name)
def test_hostile_case(path: Path, tmp_path: Path, monkeypatch):
    case = read_case(path)
    folder = tmp_path / "case"
    folder.mkdir()
    argv = prepare(path, case, folder)
    monkeypatch.chdir(folder)
    code, output, elapsed = run(argv)
    shown = output[:2000]
    assert "Traceback" not in output, shown
    assert code == case["exit"], f"exit {code}, expected {case['exit']}:\n{shown}"
    assert case["message"] in output, f"no {case['message']!r} in:\n{shown}"
    for text in case.get("also", ()):
        assert text in output, f"no {text!r} in:\n{shown}"
    for text in case.get("absent", ()):
        assert text not in output, f"{text!r} must not appear in:\n{shown}"
    if "at" in case:
        assert f":{case['at']}: " in output, f"no position {case['at']} in:\n{shown}"
    if code != 0:
        assert POSITIONED.match(output), f"the first line is not file:line:column: message:\n{shown}"
    assert len(output) <= case.get("max_output", MAX_OUTPUT), f"{len(output)} characters of output"
    assert elapsed < TIME_LIMIT, f"took {elapsed:.2f} s"
    if case.get("memory"):
        tracemalloc.start()
        try:
            run(argv)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < MEMORY_LIMIT, f"peak allocation {peak / 1e6:.0f} MB"


def test_the_corpus_is_complete():
    cases = case_paths()
    assert len(cases) >= 50, len(cases)
    names = [path.stem if path.is_file() else path.name for path in cases]
    assert len(names) == len(set(names)), "two cases share a name"
    for path in cases:
        read_case(path)
