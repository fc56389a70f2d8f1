"""Load a ruleset: file -> safe YAML -> JSON Schema -> model -> checked, compiled.

``load_ruleset`` is the Python API's front door.  It returns an immutable
:class:`Ruleset`; load as many as you like in one process, they share nothing.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .builder import Builder
from .checker import compile_ruleset
from .errors import DiagnosticList, RulesetError, Source, UsageError
from .resources import bundled_names, bundled_ruleset
from .ruleset import Ruleset, frozen_mapping
from .schema import validate
from .merge import SECTIONS, apply_variant, include_fragments
from .yaml_loader import DEFAULT_LIMITS, LoadedYaml, load_yaml

COMMAND_LINE = "<command line>"


def resolve_ruleset_path(path_or_name: str | Path) -> Path:
    """A path as given, or a bundled ruleset's file by name."""
    path = Path(path_or_name)
    if path.is_dir() and (path / "ruleset.yaml").is_file():
        return path / "ruleset.yaml"
    if path.is_file():
        return path
    bundled = bundled_ruleset(str(path_or_name))
    if bundled is not None:
        return bundled
    text = str(path_or_name)
    raise UsageError(
        Source(COMMAND_LINE, text).diagnostic(
            1, 1, f"no ruleset '{text}': not a file, and the bundled rulesets are {', '.join(bundled_names()) or 'none'}"
        )
    )


def display_name(path: Path) -> str:
    """The path as a user would type it: relative to the working directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def read_source(path: Path) -> Source:
    """The file as text, refusing huge or undecodable files with a position."""
    name = display_name(path)
    size = path.stat().st_size
    if size > DEFAULT_LIMITS.max_bytes:
        raise RulesetError(Source(name, "").diagnostic(1, 1, f"file is {size} bytes; the limit is {DEFAULT_LIMITS.max_bytes}"))
    raw = path.read_bytes()
    try:
        return Source(name, raw.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        before = raw[: error.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        text = raw.decode("utf-8", errors="replace")
        raise RulesetError(Source(name, text).diagnostic(line, column, "the file is not valid UTF-8")) from None


def _load_document(path: Path, *, fragment: bool) -> LoadedYaml:
    loaded = load_yaml(read_source(path))
    if not isinstance(loaded.data, dict):
        raise RulesetError(loaded.diagnostic((), "a ruleset file must be a mapping (name: ..., tables: ..., ...)"))
    if "extends" in loaded.data:
        misplaced = [key for key in SECTIONS if key in loaded.data]
        if misplaced:  # say this before the schema complains that a partial table lacks its title
            raise RulesetError([
                loaded.diagnostic((key,), f"a variant changes its base under override:, add: or remove:; move '{key}' under one of them", at_key=True)
                for key in misplaced
            ])
    problems = validate(loaded, fragment=fragment)
    if problems:
        raise RulesetError(problems)
    return loaded


def _includes(main: LoadedYaml, main_path: Path) -> list[LoadedYaml]:
    """Files named under include:, which must stay inside the ruleset's folder."""
    documents, diagnostics = [], DiagnosticList()
    root = main_path.parent.resolve()
    for index, name in enumerate(main.data.get("include", ())):
        target = (root / name).resolve()
        if Path(name).is_absolute() or root not in target.parents:
            diagnostics.add(main.diagnostic(("include", index), f"include '{name}' must be a relative path inside {root.name}/"))
            continue
        if not target.is_file():
            diagnostics.add(main.diagnostic(("include", index), f"include '{name}': no such file"))
            continue
        try:
            documents.append(_load_document(target, fragment=True))
        except RulesetError as error:
            diagnostics.extend(error.diagnostics)
    diagnostics.raise_if_any()
    return documents


def _extends_target(loaded: LoadedYaml, path: Path) -> Path:
    """The base a variant names: a path relative to the variant, or a bundled name."""
    name = loaded.data["extends"]
    relative = (path.parent / name)
    is_folder = relative.is_dir() and (relative / "ruleset.yaml").is_file()
    bundled_name = "/" not in name and "\\" not in name and not Path(name).suffix
    if not (Path(name).suffix in (".yaml", ".yml") or is_folder or bundled_name):
        # a ruleset from a stranger must not make wartable read (and echo in errors) any file it likes
        raise RulesetError(loaded.diagnostic(("extends",), f"extends '{name}': give a bundled name or the path of a .yaml ruleset"))
    if relative.is_file():
        return relative.resolve()
    if relative.is_dir() and (relative / "ruleset.yaml").is_file():
        return (relative / "ruleset.yaml").resolve()
    bundled = bundled_ruleset(name)
    if bundled is not None:
        return bundled.resolve()
    raise RulesetError(loaded.diagnostic(("extends",), f"extends '{name}': no such file next to this one, and no bundled ruleset of that name ({', '.join(bundled_names())})"))


def load_document(path: Path, chain: tuple[Path, ...] = ()) -> LoadedYaml:
    """One document for the ruleset at ``path``: its includes merged in, its base applied under it."""
    main = _load_document(path, fragment=False)
    diagnostics = DiagnosticList()
    if "extends" not in main.data:
        merged = include_fragments(main, _includes(main, path), diagnostics)
        diagnostics.raise_if_any()
        return merged
    target = _extends_target(main, path)
    resolved_chain = chain + (path.resolve(),)
    if target in resolved_chain:
        cycle = " -> ".join(display_name(p) for p in resolved_chain[resolved_chain.index(target):] + (target,))
        raise RulesetError(main.diagnostic(("extends",), f"extends forms a cycle: {cycle}"))
    base = load_document(target, resolved_chain)
    merged = apply_variant(base, main, base.data.get("name", display_name(target)), diagnostics)
    diagnostics.raise_if_any()
    problems = validate(merged)
    if problems:
        raise RulesetError(problems)
    return merged


def load_ruleset(path_or_name: str | Path) -> Ruleset:
    """Load, validate, check and compile a ruleset.  Raises RulesetError with every problem found."""
    path = resolve_ruleset_path(path_or_name)
    document = load_document(path)
    diagnostics = DiagnosticList()
    ruleset = Builder([document], diagnostics).build()
    compiled = compile_ruleset(ruleset, diagnostics)
    diagnostics.raise_if_any()
    return dataclasses.replace(ruleset, compiled=frozen_mapping(compiled))
