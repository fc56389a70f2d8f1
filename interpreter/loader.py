"""Load a ruleset: files -> safe YAML -> JSON Schema -> model -> checked, compiled.

``load_ruleset`` is the Python API's front door.  It returns an immutable
:class:`~compiled_ruleset.CompiledRuleset` (the model and its checked
procedures); load as many as you like in one process, they share nothing.

Which files a ruleset may make wartable read (it comes from a stranger):

- the file the user names (any path, or a bundled ruleset's name);
- ``include:`` files: inside the including file's folder once every symbolic
  link is followed, regular files only;
- the ``extends:`` base: the same rule, or a bundled ruleset (by name or by
  path), or a file inside a folder the *user* allowed (``base_paths``),
  never one the ruleset itself points at.  The base must be a ``.yaml``/``.yml`` file or a
  folder holding ``ruleset.yaml``.

A refused file is never opened, so its content can never appear in an error.
A problem with a file named in a ruleset is reported where it is named; a
problem with the path the user gave is a UsageError.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from . import cache
from .errors import DiagnosticList, RulesetError, Source, UsageError
from .files import confined, describe, display_name, is_inside, read_source, real_path
from .load_limits import DEFAULT_LOAD_LIMITS, LoadLimits, OverLimit
from .resources import bundled_names, bundled_ruleset, data_dir

if TYPE_CHECKING:  # pragma: no cover
    from .compiled_ruleset import CompiledRuleset
    from .yaml_loader import LoadedYaml

# YAML, JSON Schema, the parser and the checker are imported when a ruleset is
# read from its files, not when it comes from the cache (see cache.py).

__all__ = ["COMMAND_LINE", "display_name", "load_ruleset", "read_source", "resolve_ruleset_path"]

COMMAND_LINE = "<command line>"
RULESET_SUFFIXES = (".yaml", ".yml")


def load_ruleset(
    path_or_name: str | os.PathLike,
    *,
    base_paths: Iterable[str | os.PathLike] | str | os.PathLike = (),
    limits: LoadLimits = DEFAULT_LOAD_LIMITS,
) -> CompiledRuleset:
    """Load, validate, check and compile a ruleset.  Raises RulesetError with every problem found.

    ``path_or_name`` is a ``.yaml`` file, a folder holding ``ruleset.yaml``,
    or a bundled ruleset's name.  ``base_paths`` are folders (or files)
    outside the ruleset's own folder that its ``extends:`` chain may name:
    the user's choice, which a ruleset can never widen.  A bad argument
    raises UsageError.
    """
    path = resolve_ruleset_path(path_or_name)
    if not isinstance(limits, LoadLimits):
        raise _usage(f"limits must be a LoadLimits, not {type(limits).__name__}")
    allowed = _allowed_bases(base_paths)
    # The name as given was just resolved (a new ./eto/ beside a bundled eto leads elsewhere): the key
    # holds where it led; the names inside the files are re-resolved by the cache (_Loading.leads_to).
    key = (os.fspath(real_path(path)), tuple(map(os.fspath, allowed)), repr(limits))
    loading = _Loading(limits, allowed)
    cached = cache.lookup(key, limits, loading.leads_to)
    if cached is not None:
        return cached
    from .builder import Builder
    from .compiled_ruleset import compile_model

    try:
        main = loading.parse(path, fragment=False)
    except (OSError, OverLimit) as error:
        raise _usage(f"cannot read ruleset '{_shorten(os.fspath(path_or_name))}': {_reason(error)}") from None
    document = loading.assemble(main, path, ())
    diagnostics = DiagnosticList()
    model = Builder([document], diagnostics, limits).build()
    ruleset = compile_model(model, diagnostics)
    diagnostics.raise_if_any()
    cache.store(key, ruleset, loading.sources, loading.names)
    return ruleset


def resolve_ruleset_path(path_or_name: str | os.PathLike) -> Path:
    """A path as given (a folder means its ruleset.yaml), or a bundled ruleset's file by name."""
    if isinstance(path_or_name, (bytes, bytearray)) or not isinstance(path_or_name, (str, os.PathLike)):
        raise _usage(f"a ruleset is a path or a bundled ruleset's name (a str), not {type(path_or_name).__name__}")
    text = os.fspath(path_or_name)
    if not isinstance(text, str):  # a PathLike that gives bytes
        raise _usage(f"a ruleset is a path or a bundled ruleset's name (a str), not {type(text).__name__}")
    shown = _shorten(text)
    if not text.strip():
        raise _usage("no ruleset named: give a path or a bundled ruleset's name")
    if "\0" in text:
        raise _usage(f"no ruleset '{shown}': the name contains a NUL byte")
    path = Path(text)
    try:
        os.stat(path)
    except FileNotFoundError:
        bundled = bundled_ruleset(text)
        if bundled is not None:
            return bundled
        raise _usage(f"no ruleset '{shown}': not a file, and the bundled rulesets are {', '.join(bundled_names()) or 'none'}") from None
    except (OSError, ValueError) as error:
        raise _usage(f"no ruleset '{shown}': {_reason(error)}") from None
    if path.is_dir():
        inside = path / "ruleset.yaml"
        if not inside.exists():
            raise _usage(f"no ruleset '{shown}': a folder without ruleset.yaml")
        return inside
    return path


class _Loading:
    """One call of :func:`load_ruleset`: its limits, the bases the user allowed, the files read so far."""

    def __init__(self, limits: LoadLimits, allowed_bases: tuple[Path, ...]):
        self.limits = limits
        # The bundled rulesets are wartable's own files: a base may name them by path too.
        self.allowed_bases = allowed_bases + (real_path(data_dir("rulesdata")),)
        self.files_read = 0
        self.bytes_read = 0
        self.nodes_read = 0
        self.sources: list[tuple[Path, Source]] = []  # every file read (its real path), for the cache
        # every include:/extends: name followed: (kind, folder it was taken from, name as written, where it led),
        # for the cache, which re-resolves each through leads_to before trusting an entry
        self.names: list[tuple[str, str, str, str]] = []

    # -- one file

    def parse(self, path: Path, *, fragment: bool) -> LoadedYaml:
        """One file, schema-checked.  OSError or OverLimit when it cannot be read; RulesetError for its content."""
        self.files_read += 1
        if self.files_read > self.limits.max_files:
            raise OverLimit(f"a ruleset may read at most {self.limits.max_files} files (itself, its includes, its bases)")
        from .example_groups import ungroup_examples
        from .merge import SECTIONS
        from .schema import validate
        from .yaml_loader import load_yaml

        source = read_source(path, self.limits)
        self.sources.append((real_path(path), source))
        self.bytes_read += len(source.text.encode("utf-8", "surrogatepass"))
        if self.bytes_read > self.limits.max_bytes:
            raise OverLimit(f"the files of this ruleset are larger than {self.limits.max_bytes} bytes together")
        loaded = load_yaml(source, self.limits, nodes_before=self.nodes_read)
        self.nodes_read = loaded.nodes
        if not isinstance(loaded.data, dict):
            raise RulesetError(loaded.diagnostic((), "a ruleset file must be a mapping (name: ..., tables: ..., ...)"))
        if "extends" in loaded.data:
            misplaced = [key for key in SECTIONS if key in loaded.data]
            if misplaced:  # say this before the schema complains that a partial table lacks its title
                raise RulesetError([
                    loaded.diagnostic((key,), f"a variant changes its base under override:, add: or remove:; move '{key}' under one of them", at_key=True)
                    for key in misplaced
                ])
        problems = validate(loaded, fragment=fragment, limits=self.limits)
        if problems:
            raise RulesetError(problems)
        loaded, problems = ungroup_examples(loaded)  # examples grouped by procedure: one list from here on
        if problems:
            raise RulesetError(problems)
        return loaded

    # -- a whole document

    def assemble(self, main: LoadedYaml, path: Path, chain: tuple[Path, ...]) -> LoadedYaml:
        """One document for the ruleset in ``main``: its includes merged in, its base applied under it."""
        from .merge import apply_variant, include_fragments
        from .schema import validate
        from .sides import for_variant

        diagnostics = DiagnosticList()
        if "extends" not in main.data:
            merged = include_fragments(main, self._includes(main, path), diagnostics)
            diagnostics.raise_if_any()
            return merged
        target = self._base_of(main, path)
        chain = chain + (real_path(path),)
        if target in chain:
            cycle = " -> ".join(display_name(p) for p in chain[chain.index(target):] + (target,))
            raise RulesetError(main.diagnostic(("extends",), f"extends forms a cycle: {cycle}"))
        try:
            base_main = self.parse(target, fragment=False)
        except (OSError, OverLimit) as error:
            raise RulesetError(main.diagnostic(("extends",), f"extends '{_shorten(main.data['extends'])}': {_reason(error)}")) from None
        base = self.assemble(base_main, target, chain)
        base = for_variant(base, main, diagnostics)  # one side of a per_side input changed: that block expanded first
        merged = apply_variant(base, main, base.data.get("name", display_name(target)), diagnostics)
        diagnostics.raise_if_any()
        problems = validate(merged, limits=self.limits)
        if problems:
            raise RulesetError(problems)
        return merged

    def _includes(self, main: LoadedYaml, path: Path) -> list[LoadedYaml]:
        """Files named under include:, each inside the including file's folder."""
        documents, diagnostics = [], DiagnosticList()
        folder = real_path(path.parent)
        read = {real_path(path): "this file itself"}
        for index, name in enumerate(main.data.get("include", ())):
            at, shown = ("include", index), _shorten(name)
            try:
                try:
                    target = resolve_include(folder, name)
                except Refused as refusal:
                    diagnostics.add(main.diagnostic(at, f"include '{shown}' {refusal}"))
                    continue
                self.names.append(("include", os.fspath(folder), name, os.fspath(target)))
                if target in read:
                    diagnostics.add(main.diagnostic(at, f"include '{shown}' is {read[target]}"))
                    continue
                read[target] = f"already included (include[{index + 1}])"  # counted from 1, as every path a message shows
                documents.append(self.parse(target, fragment=True))
            except (OSError, OverLimit) as error:
                diagnostics.add(main.diagnostic(at, f"include '{shown}': {_reason(error)}"))
                if isinstance(error, OverLimit):
                    break
            except RulesetError as error:
                diagnostics.extend(error.diagnostics)
        diagnostics.raise_if_any()
        return documents

    def _base_of(self, variant: LoadedYaml, path: Path) -> Path:
        """The real path of the base ``extends:`` names (see the module's docstring for what it may name)."""
        name = variant.data["extends"]
        folder = real_path(path.parent)
        try:
            target, found = resolve_base(folder, name, self.allowed_bases)
        except Refused as refusal:
            raise RulesetError(variant.diagnostic(("extends",), f"extends '{_shorten(name)}': {refusal}")) from None
        self.names.append(("extends", os.fspath(folder), name, found))
        return target

    def leads_to(self, kind: str, folder: str, name: str) -> str | None:
        """Where an ``include:`` or ``extends:`` name taken from ``folder`` leads now, as ``names`` records it;
        None when it is refused now.  The cache asks this of every name an entry recorded."""
        try:
            if kind == "include":
                return os.fspath(resolve_include(Path(folder), name))
            if kind == "extends":
                return resolve_base(Path(folder), name, self.allowed_bases)[1]
        except (Refused, OSError):
            return None
        return None


class Refused(Exception):
    """A name in a ruleset that leads where it may not, or nowhere; the reason, worded to follow the name."""


def resolve_include(folder: Path, name: str) -> Path:
    """The real path an ``include:`` name leads to from ``folder`` (the including file's real folder).

    The one place an include is resolved: the loader follows it, the cache
    re-resolves it to know that an entry still answers for the same files.
    Raises Refused when it leads outside ``folder``, OSError when it cannot be a path.
    """
    target = confined(folder, name)
    if target is None:
        raise Refused(f"must be a relative path inside {folder.name}/ (symbolic links are followed)")
    return target


def resolve_base(folder: Path, name: str, allowed_bases: tuple[Path, ...]) -> tuple[Path, str]:
    """The real path of the base an ``extends:`` name leads to from ``folder``, and how it was found:
    the real path as text, or ``bundled NAME`` (a bundled ruleset, no such name in ``folder``).

    The one place a base is resolved (see :func:`resolve_include`).  Raises
    Refused, with the reason, for a base it may not or cannot read.
    """

    def check_place(target: Path) -> None:
        if not is_inside(target, folder) and not any(is_inside(target, allowed) for allowed in allowed_bases):
            raise Refused(
                f"outside this ruleset's folder ({folder.name}/); a base must be inside it (symbolic links followed), "
                "a bundled ruleset, or allowed with --base-path"
            )

    try:
        target = real_path(folder / name)
        check_place(target)
        if not _exists(target):
            bundled = bundled_ruleset(name)
            if bundled is not None:
                return real_path(bundled), f"bundled {name}"
            raise Refused(f"no such file next to this one, and no bundled ruleset of that name ({', '.join(bundled_names())})")
        if os.path.isdir(target):
            target = real_path(target / "ruleset.yaml")
            if not _exists(target):
                raise Refused("a folder without ruleset.yaml inside it")
            check_place(target)
        elif target.suffix not in RULESET_SUFFIXES:
            raise Refused("give a bundled name, a folder holding ruleset.yaml or the path of a .yaml ruleset")
    except OSError as error:
        raise Refused(_reason(error)) from None
    return target, os.fspath(target)


def _allowed_bases(base_paths) -> tuple[Path, ...]:
    """The real paths of the bases the user allowed; each must exist."""
    if isinstance(base_paths, (str, os.PathLike)):
        base_paths = (base_paths,)
    try:
        items = tuple(base_paths)
    except TypeError:
        raise _usage(f"base_paths is a list of folders or files, not {type(base_paths).__name__}") from None
    allowed = []
    for item in items:
        if isinstance(item, (bytes, bytearray)) or not isinstance(item, (str, os.PathLike)) or not isinstance(os.fspath(item), str):
            raise _usage(f"base_paths holds paths (str), not {type(item).__name__}")
        shown = _shorten(os.fspath(item))
        try:
            real = real_path(Path(item))
            os.stat(real)
        except OSError as error:
            raise _usage(f"base path '{shown}': {_reason(error)}") from None
        allowed.append(real)
    return tuple(allowed)


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; OSError for anything but a plain absence (a link loop, a name too long)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    return True


def _reason(error: Exception) -> str:
    if isinstance(error, OSError):
        return describe(error)
    return str(error)


def _usage(message: str) -> UsageError:
    return UsageError(Source(COMMAND_LINE, "").diagnostic(1, 1, message))


def _shorten(text: str, width: int = 60) -> str:
    """A name from a ruleset or the command line, shortened for a message, control characters escaped."""
    text = str(text)
    shown = "".join(char if char.isprintable() else repr(char)[1:-1] for char in text[:width])
    return shown if len(text) <= width else f"{shown}... ({len(text)} characters)"


def files_read(
    path_or_name: str | os.PathLike,
    *,
    base_paths: Iterable[str | os.PathLike] | str | os.PathLike = (),
    limits: LoadLimits = DEFAULT_LOAD_LIMITS,
) -> tuple[Path, ...]:
    """Every file loading this ruleset reads: the file, its includes, its bases and theirs.

    A command that writes a file (``aid -o``) refuses to overwrite any of them.  The files are
    read again: a ruleset from the cache does not carry the list, and this is asked only before
    writing.  A file that no longer reads (changed since the ruleset was loaded) ends the list
    where reading stopped.
    """
    path = resolve_ruleset_path(path_or_name)
    loading = _Loading(limits, _allowed_bases(base_paths))
    try:
        loading.assemble(loading.parse(path, fragment=False), path, ())
    except (OSError, OverLimit, RulesetError):
        pass
    return tuple(read for read, _ in loading.sources)
