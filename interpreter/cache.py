"""A cache of checked rulesets: a command need not read, validate, parse and check the same files again.

What it stores.  For each ruleset :func:`~loader.load_ruleset` loaded
successfully (one entry per ruleset path and loading options), a pickle of
the :class:`~compiled_ruleset.CompiledRuleset` (the model and its checked
procedures, never generated code), with the real path, the name as shown in
messages and the SHA-256 of the text of every file that went into it (the
ruleset, its includes, its bases), and every ``include:`` and ``extends:``
name that was followed: the folder it was taken from, the name as written,
and where it led (a real path, or ``bundled NAME``).  Procedure bodies and
modifier conditions (syntax trees) are pickles of their own inside it, read
when first needed (see "syntax trees" below).

Where.  ``$WARTABLE_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/wartable``,
else ``~/.cache/wartable``.  At most :data:`MAX_ENTRIES` entries are kept;
the oldest go first.  ``WARTABLE_CACHE=0`` turns the cache off.

How it is invalidated.  An entry is used only if every ``include:`` and
``extends:`` name it recorded still leads to the same place, resolved again
by the loader's own functions (a symbolic link pointed elsewhere, or a
folder ``eto/`` that appears beside a variant of the bundled ``eto``, is a
miss), if every file it was made from still holds the same text and is
still shown under the same name (the name depends on the working
directory), and if the Python version and
wartable's own source files (their sizes and modification times, which an
upgrade changes) are those that wrote it.  Otherwise the ruleset is loaded from its
files and the entry written afresh.  Failed loads are never stored.

Why it cannot be poisoned.  Unpickling runs code, so an entry is unpickled
only when both hold:

- it is in a folder owned by the current user that no one else may write to
  (created with mode 0700), and is itself a regular file owned by the current
  user that no one else may write to (checked on the open file);
- its HMAC-SHA-256 (the first 32 bytes; over the entry's file name and the
  rest) verifies, checked *before* unpickling, under the folder's key:
  32 random bytes in ``entries.key``, a regular file owned by the current
  user that no one else may read or write (mode 0600), made by linking a
  finished temporary file into place (``os.link`` never replaces a file, so
  two processes agree on one key and none reads half of one).  The key is
  bound to that file's identity (device, inode, change time), which the
  system sets when the file is made and which no copy or unpacked archive
  can carry along.

The first alone is not enough: a cache folder that is also an unpacked
download (or a copy from elsewhere) holds files the user owns.  Its entries
are misses, never code, even when a key file came with them.  A key file
that is not ours alone turns the cache off (never read, never written).  On
a system without user ids (Windows) the cache is off.  Entries are written
by this module only, from wartable's own objects, through a temporary file
and an atomic rename.
"""

from __future__ import annotations

import functools
import io
import os
import pickle
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .resources import data_dir

# The SHA-256 built into CPython, and a comparison that takes as long wherever two MACs differ: `hashlib`
# (which `hmac` imports) would load OpenSSL first, 3 ms or more of every cold start (see _hmac_sha256).
try:
    from _sha256 import sha256  # type: ignore[import-not-found]  # Python 3.10, 3.11
except ImportError:  # pragma: no cover - depends on the Python
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # 3.12 and later
    except ImportError:
        from hashlib import sha256
try:
    from _operator import _compare_digest as _same_bytes
except ImportError:  # pragma: no cover - another Python
    from hmac import compare_digest as _same_bytes  # type: ignore[no-redef]

FORMAT = 3  # bump when what an entry holds changes
MAX_ENTRIES = 64
_SUFFIX = ".ruleset-cache"
_KEY_NAME = "entries.key"
# How the key and an entry are opened: never through a symbolic link, and without waiting: a named pipe in their
# place (an unpacked archive can hold one) is opened at once and refused by the file-type check, where a plain
# open would wait for a writer forever, and every command with it.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_KEY_BYTES = 32
_MAC_BYTES = 32


def enabled() -> bool:
    return os.environ.get("WARTABLE_CACHE", "1") not in ("0", "", "off", "no", "false") and hasattr(os, "getuid")


def folder() -> Path:
    explicit = os.environ.get("WARTABLE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "wartable"


def _private_folder(create: bool) -> Path | None:
    """The cache folder if it is ours and no one else may write to it (made so when ``create``)."""
    where = folder()
    try:
        if create:
            os.makedirs(where, mode=0o700, exist_ok=True)
        status = os.stat(where, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid() or status.st_mode & 0o022:
        return None
    return where


def _code_fingerprint() -> str:
    """Python's version, and the sizes and modification times of wartable's own source files, its engine's and the JSON
    Schemas it validates with (an upgrade rewrites them; an edited schema alone left a ruleset it now refuses cached
    as checked)."""
    here = Path(__file__).resolve().parent
    parts = [str(FORMAT), sys.version]
    for folder, suffixes in ((here, (".py", ".lark")), (here / "engine", (".py",)), (data_dir("schemas"), (".json",))):
        try:
            for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                if entry.name.endswith(suffixes):
                    info = entry.stat()
                    parts.append(f"{folder.name}/{entry.name}:{info.st_size}:{info.st_mtime_ns}")
        except OSError:
            parts.append(f"{folder.name}: unreadable")
    return "\n".join(parts)


def _entry_path(where: Path, key: Iterable[Any]) -> Path:
    digest = sha256(repr((_code_fingerprint(), *key)).encode("utf-8", "surrogatepass")).hexdigest()
    return where / (digest[:40] + _SUFFIX)


def _text_digest(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# ---- authentication --------------------------------------------------------------------


def _hmac_sha256(key: bytes, *parts: bytes | memoryview) -> bytes:
    """HMAC-SHA-256 (RFC 2104) of the parts joined, over the builtin SHA-256 (the ``hmac`` module would
    import hashlib and OpenSSL: see the imports); checked against ``hmac.new`` in tests/test_cache.py."""
    if len(key) > 64:  # SHA-256's block
        key = sha256(key).digest()
    key = key.ljust(64, b"\0")
    inner = sha256(key.translate(_INNER_PAD))
    for part in parts:
        inner.update(part)
    return sha256(key.translate(_OUTER_PAD) + inner.digest()).digest()


_INNER_PAD = bytes(byte ^ 0x36 for byte in range(256))  # translation tables: each key byte XOR 0x36 / 0x5C
_OUTER_PAD = bytes(byte ^ 0x5C for byte in range(256))


def _mac(key: bytes, entry: Path, payload: bytes | memoryview) -> bytes:
    """An entry's MAC: over its file name too, so an entry renamed never answers for another key."""
    return _hmac_sha256(key, entry.name.encode("utf-8", "surrogatepass"), b"\0", payload)


def _key(where: Path, create: bool) -> bytes | None:
    """The key that authenticates the entries in ``where``, or None: then nothing is read or written.

    Made (when ``create``) if there is none.  A key file someone else owns or
    could read or write, or that is not a regular file of 32 bytes, is None.
    """
    path = where / _KEY_NAME
    try:
        return _read_key(path)
    except FileNotFoundError:
        if not create:
            return None
    try:
        _make_key(where, path)
    except FileExistsError:
        pass  # another process made it first: theirs is the key
    except OSError:
        return None
    try:
        return _read_key(path)
    except OSError:
        return None


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``, bound to the file's identity; FileNotFoundError when there is none yet."""
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError:  # a symbolic link (ELOOP), no permission: not a key we can trust
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.getuid() or status.st_mode & 0o077 or status.st_size != _KEY_BYTES:
            return None
        secret = os.read(descriptor, _KEY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if len(secret) != _KEY_BYTES:
        return None
    return _bound(secret, status)


def _bound(secret: bytes, status: os.stat_result) -> bytes:
    """The key: the file's bytes and its identity, which the system sets when the file is made (device,
    inode, change time), so a key file that arrived with planted entries (an unpacked archive, a copy)
    is not the one they were authenticated under, whatever its bytes.  (A chmod or a new hard link of
    the key file changes its change time too: every entry is then a miss, written afresh.)"""
    return secret + f"{status.st_dev}:{status.st_ino}:{status.st_ctime_ns}".encode()


def _make_key(where: Path, path: Path) -> None:
    """32 random bytes in ``path``, mode 0600: written to a temporary file (O_EXCL), then linked into place,
    which never replaces a file (FileExistsError: another process was first) and is never seen half-written."""
    import tempfile  # only when writing (see store)

    handle, temporary = tempfile.mkstemp(dir=where, suffix=".tmp")  # O_EXCL, mode 0600
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(os.urandom(_KEY_BYTES))
        os.link(temporary, path)
    finally:
        os.unlink(temporary)


# ---- reading ---------------------------------------------------------------------------


def lookup(key: Iterable[Any], limits, leads_to: Callable[[str, str, str], str | None]) -> Any | None:
    """The cached CompiledRuleset for ``key`` (the ruleset's real path and the loading options), or None.

    ``leads_to(kind, folder, name)`` says where an ``include:``/``extends:``
    name leads now (the loader's resolution, see loader._Loading.leads_to):
    the key is only the file the user named, its names are checked here.
    """
    if not enabled():
        return None
    where = _private_folder(create=False)
    if where is None:
        return None
    secret = _key(where, create=False)
    if secret is None:
        return None
    path = _entry_path(where, key)
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.getuid() or status.st_mode & 0o022:
            return None  # not ours alone: never unpickled
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = handle.read()
    except OSError:
        return None
    finally:
        os.close(descriptor)
    mac, payload = data[:_MAC_BYTES], memoryview(data)[_MAC_BYTES:]
    if len(mac) != _MAC_BYTES or not _same_bytes(mac, _mac(secret, path, payload)):
        return None  # not written by us with this key: never unpickled
    try:
        files, names, ruleset = pickle.loads(payload)  # authenticated: see the module docstring
    except Exception:  # noqa: BLE001 - a stale or damaged entry is a miss
        return None
    if not _names_unchanged(names, leads_to) or not _files_unchanged(files, limits):
        return None
    return ruleset


def _names_unchanged(names, leads_to) -> bool:
    """Whether every name still leads where it led (checked before the files: reading the old ones would prove nothing)."""
    return all(leads_to(kind, folder, name) == found for kind, folder, name, found in names)


def _files_unchanged(files, limits) -> bool:
    from .files import read_source

    for path, shown, digest in files:
        try:
            source = read_source(Path(path), limits)
        except Exception:  # noqa: BLE001 - gone, unreadable, too large: load it for real and say why
            return False
        if source.name != shown or _text_digest(source.text) != digest:
            return False
    return True


# ---- writing ---------------------------------------------------------------------------


def store(key: Iterable[Any], ruleset: Any, sources: Iterable[tuple[Path, Any]], names: Iterable[tuple[str, str, str, str]]) -> None:
    """Keep ``ruleset``, made from ``sources`` ((real path, Source) for each file read) by following
    ``names`` ((kind, folder, name, where it led) for each include:/extends:); quietly gives up on any problem."""
    if not enabled():
        return
    where = _private_folder(create=True)
    if where is None:
        return
    secret = _key(where, create=True)
    if secret is None:
        return
    files = tuple((os.fspath(path), source.name, _text_digest(source.text)) for path, source in sources)
    try:
        buffer = io.BytesIO()
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump((files, tuple(names), ruleset))
    except Exception:  # noqa: BLE001 - something not picklable: no entry
        return
    target = _entry_path(where, key)
    payload = buffer.getvalue()
    try:
        import tempfile  # only when writing: a cold start that reads the cache never loads it

        handle, temporary = tempfile.mkstemp(dir=where, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(_mac(secret, target, payload))
                out.write(payload)
            os.chmod(temporary, 0o600)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
        _trim(where)
    except OSError:
        return


def _trim(where: Path) -> None:
    entries = []
    for entry in os.scandir(where):
        if entry.name.endswith(_SUFFIX):
            try:
                entries.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
            except OSError:
                pass
    entries.sort()
    for _, path in entries[: max(0, len(entries) - MAX_ENTRIES)]:
        try:
            os.unlink(path)
        except OSError:
            pass


class _Pickler(pickle.Pickler):
    """wartable's objects as data: mapping proxies as dicts, built-in functions by name, rulesets by their
    parts, syntax trees as pickles of their own (see _deferred_tree).

    Records need nothing here: ``Record.__reduce__`` stores a record as its contents and reads it back
    through ``Record(...)``, so a record from the cache is the interned one (values.Record)."""

    def reducer_override(self, obj: Any):
        from .compiled_ruleset import CompiledRuleset
        from .functions import AggregateFunction, Function
        from .ruleset import HelperFunction, ModifierEntry, Procedure

        kind = type(obj)
        if kind is Procedure or kind is ModifierEntry or kind is HelperFunction:
            tree = "condition" if kind is ModifierEntry else "body"
            state = dict(obj.__dict__)
            state[tree] = _deferred_tree(state[tree])
            return _rebuilt, (kind, state)
        if kind is MappingProxyType:
            return _mapping, (dict(obj),)
        if kind is Function:
            return _function, (obj.name,)
        if kind is AggregateFunction:
            return _aggregate, (obj.name,)
        if kind is CompiledRuleset:
            # the tables each procedure may read, found now: finding them later would read the syntax trees
            illustrative = {name: obj.illustrative_tables(name) for name in obj.compiled}
            readings = {name: obj.readings(name) for name in obj.compiled}  # likewise: the notes' readings each rests on
            return CompiledRuleset, (obj.model, dict(obj.compiled), illustrative, readings)
        return NotImplemented


# ---- syntax trees, read when first needed --------------------------------------------------
#
# A procedure's body and a modifier's condition (syntax trees) are stored as
# pickles inside the entry and unpickled the first time they are read
# (ruleset.Deferred): running a procedure needs only its checked form, and a
# cold start that never builds the trees never imports their 35 classes.  The
# sources their positions point into are shared with the rest of the entry.


def _deferred_tree(tree: Any) -> Any:
    from .ruleset import Deferred

    if type(tree) is Deferred:
        return tree  # never read since it came from an entry: stored as it came
    buffer = io.BytesIO()
    pickler = _TreePickler(buffer)
    pickler.dump(tree)
    return Deferred(functools.partial(_load_tree, buffer.getvalue(), tuple(pickler.sources)))


class _TreePickler(pickle.Pickler):
    """A syntax tree, its sources (errors.Source) left out by number: the entry holds them once."""

    def __init__(self, file: io.BytesIO):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.sources: list = []
        self._numbers: dict[int, int] = {}

    def persistent_id(self, obj: Any):
        from .errors import Source

        if type(obj) is not Source:
            return None
        number = self._numbers.get(id(obj))
        if number is None:
            number = self._numbers[id(obj)] = len(self.sources)
            self.sources.append(obj)
        return number


def _load_tree(data: bytes, sources: tuple) -> Any:
    return _TreeUnpickler(data, sources).load()  # part of our own entry: see the module docstring


class _TreeUnpickler(pickle.Unpickler):
    """A syntax tree read back, its sources (left out by :class:`_TreePickler`) given by number.

    ``persistent_load`` is a method of a subclass, not an attribute set on an
    instance: Python 3.13.0's C Unpickler made that attribute read-only (every
    tree read from a warm cache failed there), and a subclass works on every version.
    """

    def __init__(self, data: bytes, sources: tuple):
        super().__init__(io.BytesIO(data))
        self._sources = sources

    def persistent_load(self, pid: Any) -> Any:
        return self._sources[pid]


def _rebuilt(kind: type, state: dict) -> Any:
    made: Any = object.__new__(kind)
    made.__dict__.update(state)
    return made


def _mapping(items: dict) -> MappingProxyType:
    return MappingProxyType(items)


def _function(name: str):
    from .functions import FUNCTIONS

    return FUNCTIONS[name]


def _aggregate(name: str):
    from .functions import AGGREGATES

    return AGGREGATES[name]
