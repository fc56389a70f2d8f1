"""Where bundled data lives: installed package data, or the repository checkout.

In a wheel, ``rulesdata/`` and ``schemas/`` are installed as the packages
``interpreter.rulesdata`` and ``interpreter.schemas`` (see pyproject.toml);
in a checkout they sit beside ``interpreter/``.  The version, too, comes from the
installed distribution, or from the checkout's ``pyproject.toml``.
"""

from __future__ import annotations

import re
from pathlib import Path

# A bundled ruleset's name: a file stem or folder name, never a path.
BUNDLED_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


def data_dir(kind: str) -> Path:
    """The directory of bundled ``rulesdata`` or ``schemas``."""
    here = Path(__file__).resolve().parent
    installed = here / kind
    if installed.is_dir():
        return installed
    return here.parent / kind


def bundled_ruleset(name: str) -> Path | None:
    """The file of a bundled ruleset by name (``eto``), or None (also for anything that is not a plain name)."""
    if not isinstance(name, str) or not BUNDLED_NAME.fullmatch(name):
        return None
    base = data_dir("rulesdata")
    for candidate in (base / f"{name}.yaml", base / name / "ruleset.yaml"):
        if candidate.is_file():
            return candidate
    return None


def bundled_names() -> list[str]:
    base = data_dir("rulesdata")
    names = [p.stem for p in base.glob("*.yaml")]
    names += [p.parent.name for p in base.glob("*/ruleset.yaml")]
    return sorted(names)


def version() -> str:
    """The installed distribution's version (the checkout's pyproject when not installed)."""
    from importlib import metadata  # slow to import: only when the version is asked for

    try:
        return metadata.version("wartable")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        match = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.MULTILINE) if pyproject.is_file() else None
        return match[1] if match else "unknown"
