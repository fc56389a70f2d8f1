"""Shared helpers: small rulesets written to a temporary folder and loaded.

A test describes its procedures in a few lines of YAML; these helpers add
the required header (wartable, name, title, source, version) and indent
each body as a literal block, so every test ruleset goes through the same
loader (safe YAML, JSON Schema, builder, parser, checker) as a real one.
"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from interpreter import load_ruleset
from interpreter.ruleset import Ruleset

HEADER = """\
wartable: 1
name: {name}
title: "test ruleset {name}"
source: "tests"
version: "1"
"""


def procedure(body: str, *, inputs: str = "", choices: str = "", title: str = "test procedure") -> str:
    """One procedure's YAML (without its name): ``inputs``/``choices`` in flow style, the body as a literal block."""
    lines = [f'title: "{title}"', 'rule: "test rule"']
    if inputs:
        lines.append(f"inputs: {inputs}")
    if choices:
        lines.append(f"choices: {choices}")
    lines.append("body: |")
    lines.append(textwrap.indent(textwrap.dedent(body).strip("\n"), "  "))
    return "\n".join(lines) + "\n"


def ruleset_text(procedures: Mapping[str, str] | None = None, extra: str = "", name: str = "t") -> str:
    """A whole ruleset file: the header, ``extra`` sections (YAML at top level), then ``procedures``."""
    text = HEADER.format(name=name)
    if extra:
        text += textwrap.dedent(extra).strip("\n") + "\n"
    if procedures:
        text += "procedures:\n"
        for proc_name, spec in procedures.items():
            text += f"  {proc_name}:\n" + textwrap.indent(spec, "    ")
    return text


def load_in(folder: Path, procedures: Mapping[str, str] | None = None, extra: str = "") -> Ruleset:
    """A ruleset of ``procedures`` (and ``extra`` sections) written to ``folder`` and loaded: for
    module-scoped fixtures, ``load_in(tmp_path_factory.mktemp("name"), PROCEDURES, extra=...)``."""
    path = folder / "ruleset.yaml"
    path.write_text(ruleset_text(procedures, extra), encoding="utf-8")
    return load_ruleset(path)


@pytest.fixture(autouse=True)
def no_colour(monkeypatch):
    """Tests compare text: colour stays off even where a test's stderr pretends to be a terminal.

    tests/test_colour.py turns it on where it tests it (``--color always``, an environment of its own).
    """
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.fixture
def write_yaml(tmp_path: Path):
    """Write YAML text to a fresh file in tmp_path; return its path."""
    counter = itertools.count(1)

    def write(text: str) -> Path:
        path = tmp_path / f"ruleset_{next(counter)}.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def make_ruleset(write_yaml):
    """``make_ruleset({"p": procedure(...)}, extra=...)`` -> a loaded Ruleset."""

    def make(procedures: Mapping[str, str] | None = None, extra: str = "", name: str = "t") -> Ruleset:
        return load_ruleset(write_yaml(ruleset_text(procedures, extra, name)))

    return make


@pytest.fixture
def one_procedure(make_ruleset):
    """``one_procedure(body, inputs=..., extra=...)`` -> a Ruleset whose only procedure is ``p``."""

    def make(body: str, *, inputs: str = "", choices: str = "", extra: str = "") -> Ruleset:
        return make_ruleset({"p": procedure(body, inputs=inputs, choices=choices)}, extra)

    return make
