"""``wartable check FILE.yaml`` on a file that is not a ruleset: an include fragment or a situation file.

All three kinds end in ``.yaml``, so the extension cannot tell them apart.  What decides, in order:

1. The ``yaml-language-server`` modeline on the first line, when it names one of our schemas
   (``ruleset``, ``fragment`` or ``situation.schema.json``): it is what the author told the
   editor, so the editor and ``check`` apply the same schema and agree.
2. The content: a top-level ``wartable:`` key makes a ruleset (found without parsing: every
   ruleset starts so, and a file with it is loaded as one); a mapping whose keys are all
   ruleset sections (``tables:``, ``procedures:`` …) is a fragment; a mapping that holds none
   of a ruleset's own keys (``name``, ``title``, ``extends``, ``include`` …) is a situation.
3. Anything else is a ruleset, so that a ruleset missing ``wartable: 1`` is told what it lacks.

A fragment or a situation is checked against its own schema only: a fragment's procedures
are checked with the ruleset that includes it, a situation's inputs with the procedure it is
given to (``run``/``odds --situation``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .errors import Diagnostic, RulesetError, Source, UsageError
from .example_groups import example_count
from .files import read_source
from .load_limits import DEFAULT_LOAD_LIMITS
from .schema import SECTIONS, validate
from .yaml_loader import LoadedYaml, load_yaml

RULESET = "ruleset"
FRAGMENT = "fragment"
SITUATION = "situation"

_MODELINE = re.compile(r"#\s*yaml-language-server:\s*\$schema=\S*?\b(ruleset|fragment|situation)\.schema\.json\s*")
_RULESET_KEY = re.compile(r"^wartable[ \t]*:", re.MULTILINE)
# The keys only a ruleset (or variant) has at its top level: a file with one is no situation.
_RULESET_ONLY = frozenset({"wartable", "name", "title", "source", "version", "extends", "include", "aids", "override", "add", "remove"})


def file_kind(given: str) -> tuple[str, LoadedYaml | None]:
    """RULESET, FRAGMENT or SITUATION for what ``check`` was given (a bundled name or a folder: RULESET),
    and the file's YAML when it had to be read to tell (so that it is parsed once)."""
    path = Path(given)
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return RULESET, None
    source = _read(path, given)
    first_line = source.text.split("\n", 1)[0]
    named = _MODELINE.fullmatch(first_line.strip())
    if named:
        return named.group(1), None
    if _RULESET_KEY.search(source.text):
        return RULESET, None
    try:
        loaded = load_yaml(source)
    except RulesetError:
        return RULESET, None  # the loader reports the YAML error, positioned
    return _kind_of(loaded.data), loaded


def _kind_of(data: Any) -> str:
    if not isinstance(data, dict) or not data:
        return RULESET
    keys = set(map(str, data))
    if keys <= set(SECTIONS):
        return FRAGMENT
    if not keys & _RULESET_ONLY:
        return SITUATION
    return RULESET


def check_file(given: str, kind: str, loaded: LoadedYaml | None = None) -> dict[str, int]:
    """Check a fragment or a situation file against its schema; what it holds (``{"tables": 2, …}`` or
    ``{"inputs": 4}``) when valid, else RulesetError with every problem at its line and column."""
    if loaded is None:
        loaded = load_yaml(_read(Path(given), given))
    if not isinstance(loaded.data, dict):
        what = "a fragment is a mapping of ruleset sections" if kind == FRAGMENT else "a situation file is a mapping of input names to values"
        raise RulesetError(loaded.diagnostic((), what))
    problems = validate(loaded, fragment=True) if kind == FRAGMENT else situation_problems(loaded)
    if problems:
        raise RulesetError(problems)
    return _counts(loaded, kind)


def _counts(loaded: LoadedYaml, kind: str) -> dict[str, int]:
    data = loaded.data
    if kind == SITUATION:
        return {"inputs": len(data)}
    sections = {"tables": "tables", "modifier_lists": "modifiers", "procedures": "procedures", "examples": "examples"}
    # examples: a list, or grouped by procedure (a mapping of lists): counted one by one either way
    return {count: example_count(data.get(section)) if section == "examples" else len(data.get(section) or ())
            for count, section in sections.items()}


def situation_problems(loaded: LoadedYaml) -> list[Diagnostic]:
    """What schemas/situation.schema.json rejects in a situation file, each at the value (or key) at fault,
    in the file's order, the first ``max_diagnostics`` of them.

    A walk of our own, not jsonschema: the schema's ``value`` is an ``anyOf``, and jsonschema
    gathers every branch's errors for every item before it reports one (a list of 40,000 ``0.5``
    took 9 s and 740 MB); this walk stops at the cap.  tests/test_ci_kit.py checks that it and
    the schema accept and reject the same files.
    """
    cap = DEFAULT_LOAD_LIMITS.max_diagnostics
    diagnostics: list[Diagnostic] = []
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), loaded.data)]
    while pending and len(diagnostics) < cap:  # a stack, not recursion: the nesting is the file's
        path, value = pending.pop()
        if isinstance(value, dict):
            for key, item in reversed(value.items()):
                if not (isinstance(key, str) and _NAME.fullmatch(key)):
                    message = f"{_where(path)}: {str(key)[:40]!r} is not a name (letters, digits and _, not starting with a digit)"
                    diagnostics.append(loaded.diagnostic(path + (key,), message, at_key=True))
                pending.append((path + (key,), item))
        elif isinstance(value, list):
            pending.extend((path + (index,), item) for index, item in reversed(list(enumerate(value))))
        elif not isinstance(value, (bool, int, str)):
            shown = "null" if value is None else repr(value)[:40]
            message = f"{_where(path)}: {shown} is not an input value (a whole number, true or false, a text, a record or a list)"
            diagnostics.append(loaded.diagnostic(path, message))
    return sorted(diagnostics[:cap], key=lambda d: (d.line, d.column))


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)  # the schema's identifier pattern, used with fullmatch


def _where(path: tuple[str | int, ...]) -> str:
    """Where in the file, list items counted from 1 as the language counts them (``ships[1]`` is the first ship)."""
    return "".join(f"[{part + 1}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".") or "the document"


def _read(path: Path, given: str) -> Source:
    """The file's text; a file that cannot be read is a bad command-line value (exit 2), as for a ruleset."""
    try:
        return read_source(path)
    except OSError as error:
        raise UsageError(Source("<command line>", given).diagnostic(1, 1, f"cannot read '{given}': {error.strerror or error}")) from None
