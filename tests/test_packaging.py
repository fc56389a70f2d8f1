"""Packaging: --version, the LICENSE, the project's metadata, and the installed wheel.

The wheel check runs a fresh interpreter outside the checkout (``python -I`` from a temporary
folder), so it sees what ``pip install .`` put in site-packages, not the files beside the tests.
In a checkout installed in editable mode there is no wheel to look at: the test skips, except in
CI (``CI`` set), where ``.ci/run`` installs the project with ``pip install .`` and it must pass.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from interpreter.cli import main

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = (REPO / "pyproject.toml").read_text(encoding="utf-8")


def pyproject_version() -> str:
    return re.search(r'^version\s*=\s*"([^"]+)"', PYPROJECT, re.MULTILINE)[1]


def test_version_option():
    out, err = io.StringIO(), io.StringIO()
    assert main(["--version"], stdout=out, stderr=err) == 0
    assert out.getvalue() == f"wartable {pyproject_version()}\n"


def test_license_file_is_mit():
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
    # PEP 639: an SPDX expression and the file it names, not the deprecated {text = ...} table
    assert re.search(r'^license = "MIT"$', PYPROJECT, re.MULTILINE)
    assert re.search(r'^license-files = \["LICENSE"\]$', PYPROJECT, re.MULTILINE)
    assert "license = {" not in PYPROJECT
    # setuptools refuses a License classifier beside an SPDX expression, and reads neither before 77
    assert "License :: " not in PYPROJECT
    assert re.search(r'^requires = \["setuptools>=(7[7-9]|[89]\d)', PYPROJECT, re.MULTILINE)


def test_classifiers_urls_and_typed_marker():
    classifiers = re.findall(r'^\s+"([A-Z][^"]+ :: [^"]+)",$', PYPROJECT, re.MULTILINE)
    for wanted in (
        "Programming Language :: Python :: 3.10",
        "Programming Language :: Python :: 3.11",
        "Topic :: Games/Entertainment :: Board Games",
        "Typing :: Typed",
    ):
        assert wanted in classifiers
    # No placeholder addresses: the project has no public repository yet, so it names none.  When it
    # does, [project.urls] comes back with real https addresses (and this test with it).
    assert "wartable.dev" not in PYPROJECT
    table = re.search(r"^\[project\.urls\]$", PYPROJECT, re.MULTILINE)
    if table:
        urls = PYPROJECT[table.start():].split("\n\n")[0]
        assert re.findall(r'^\S+ = "https://', urls, re.MULTILINE), urls
    assert (REPO / "interpreter" / "py.typed").is_file()
    assert '"py.typed"' in PYPROJECT  # shipped as package data


# ---- the installed wheel -------------------------------------------------------------------------

PROBE = """
import json, sys
from importlib import metadata
import interpreter
distribution = metadata.distribution("wartable")
print(json.dumps({
    "package": interpreter.__file__,
    "version": distribution.version,
    "files": [str(f) for f in distribution.files or ()],
    "classifiers": distribution.metadata.get_all("Classifier") or [],
    "urls": distribution.metadata.get_all("Project-URL") or [],
    "license_expression": distribution.metadata.get("License-Expression"),
    "license_files": distribution.metadata.get_all("License-File") or [],
}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    where = tmp_path_factory.mktemp("outside")
    result = subprocess.run([sys.executable, "-I", "-c", PROBE], check=False, cwd=where, capture_output=True, text=True, timeout=60)
    found = json.loads(result.stdout) if result.returncode == 0 else None
    # an editable install (or a checkout on the path) imports from outside site-packages
    if found is None or not {"site-packages", "dist-packages"} & set(Path(found["package"]).resolve().parts):
        why = "wartable is not installed from a wheel here (an editable install or none): pip install . to test it"
        if os.environ.get("CI"):
            pytest.fail(f"{why} (CI is set); {result.stderr}")
        pytest.skip(why)
    found["root"] = Path(found["package"]).resolve().parent
    return found


def test_wheel_holds_the_bundled_rulesets_schemas_and_grammar(installed):
    files = set(installed["files"])
    bundled = sorted(p.relative_to(REPO / "rulesdata").as_posix() for p in (REPO / "rulesdata").rglob("*.yaml"))
    assert bundled, "the checkout has no bundled rulesets?"
    for name in bundled:
        assert f"interpreter/rulesdata/{name}" in files, name
        assert (installed["root"] / "rulesdata" / name).is_file(), name
    for name in ("schemas/ruleset.schema.json", "schemas/fragment.schema.json", "grammar.lark", "py.typed"):
        assert f"interpreter/{name}" in files, name
        assert (installed["root"] / name).is_file(), name
    # the installed schemas are the checkout's
    for name in ("ruleset.schema.json", "fragment.schema.json"):
        assert (installed["root"] / "schemas" / name).read_text(encoding="utf-8") == (REPO / "schemas" / name).read_text(encoding="utf-8")
    assert any(re.search(r"\.dist-info/(licenses/)?LICENSE$", f) for f in files), "LICENSE is not in the wheel's metadata"


def test_wheel_metadata(installed):
    assert installed["version"] == pyproject_version()
    assert installed["license_expression"] == "MIT"
    assert installed["license_files"] == ["LICENSE"]
    assert not [c for c in installed["classifiers"] if c.startswith("License :: ")]
    assert "Typing :: Typed" in installed["classifiers"]
    assert not [url for url in installed["urls"] if "wartable.dev" in url]


def test_installed_command_checks_every_bundled_ruleset_from_anywhere(installed, tmp_path):
    script = Path(sys.executable).parent / "wartable"
    assert script.is_file()
    result = subprocess.run([str(script), "check", "--json"], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    names = sorted(p.stem for p in (REPO / "rulesdata").glob("*.yaml"))
    assert sorted(entry["ruleset"] for entry in document["rulesets"]) == names
    assert all(Path(entry["path"]).resolve().is_relative_to(installed["root"]) for entry in document["rulesets"])
    version = subprocess.run([str(script), "--version"], check=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert version.stdout == f"wartable {pyproject_version()}\n"


def test_no_module_of_the_package_is_named_like_a_standard_library_module():
    # A module named ast.py, builtins.py or trace.py beside the code is what `import ast` finds when
    # the package folder is the working directory (`cd interpreter && python -c "import inspect"`
    # failed: inspect imports ast).  sys.stdlib_module_names lists them (Python 3.10 and later).
    package = Path(__file__).resolve().parent.parent / "interpreter"
    modules = {path.stem for path in package.glob("*.py")}
    assert "syntax" in modules and "functions" in modules  # the glob sees the package
    assert sorted(modules & set(sys.stdlib_module_names)) == []


# ---- the sdist -----------------------------------------------------------------------------------

# What a copy of the checkout leaves out before building the sdist: version control, virtual
# environments, caches, and earlier build output (setuptools merges a stale *.egg-info/SOURCES.txt
# into a new sdist, so building in the checkout would test yesterday's file list).
NOT_COPIED = shutil.ignore_patterns(".git", ".venv*", "*.egg-info", "build", "dist", "__pycache__", ".*_cache", ".hypothesis")

BUILD_SDIST = """
import sys
import tarfile
from setuptools import build_meta
print(build_meta.build_sdist(sys.argv[1]))
"""


def setuptools_version() -> tuple[int, ...] | None:
    try:
        from importlib.metadata import PackageNotFoundError, version
        return tuple(int(part) for part in re.findall(r"\d+", version("setuptools"))[:2])
    except PackageNotFoundError:
        return None


@pytest.fixture(scope="module")
def sdist_names(tmp_path_factory) -> set[str]:
    """The sdist's member names, relative to its top folder, built from a clean copy of the checkout."""
    found = setuptools_version()
    if found is None or found < (77,):
        # pyproject.toml's [build-system] asks for setuptools>=77 (PEP 639 license); the test extra installs it
        why = f"setuptools>=77 is not installed here (found {found}): pip install '.[test]'"
        if os.environ.get("CI"):
            pytest.fail(why + " (CI is set)")
        pytest.skip(why)
    source = tmp_path_factory.mktemp("sdist") / "source"
    shutil.copytree(REPO, source, ignore=NOT_COPIED)
    out = source.parent / "out"
    out.mkdir()
    result = subprocess.run([sys.executable, "-c", BUILD_SDIST, str(out)], check=False, cwd=source, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    archive = out / result.stdout.strip().splitlines()[-1]
    with tarfile.open(archive) as sdist:
        return {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}


def test_sdist_carries_what_its_tests_need(sdist_names):
    # every tracked file the tests read: the suite runs from an unpacked sdist
    wanted = ["tests/conftest.py", "pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml", "benchmarks/bench.yaml"]
    wanted += ["benchmarks/eia_battle/hand_battle.py", "benchmarks/eia_battle/hand_exact.py"]  # test_hand_reference.py
    wanted += [p.relative_to(REPO).as_posix() for p in (REPO / "tests").glob("test_*.py")]
    for folder, pattern in (("tests/hostile", "*"), ("tests/bad_rulesets", "*"), ("schemas", "*.json"), ("rulesdata", "**/*.yaml"), ("benchmarks/battles", "*.yaml")):
        files = [p.relative_to(REPO).as_posix() for p in (REPO / folder).glob(pattern) if p.is_file()]
        assert files, folder  # the glob sees the checkout's files
        wanted += files
    assert sorted(set(wanted) - sdist_names) == []
    # and not what only the maintainers use
    assert not [name for name in sdist_names if name.startswith((".ci/", "benchmarks/run", ".git/")) or "__pycache__" in name]
