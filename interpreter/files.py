"""Reading the files a ruleset is made of, safely.

Two questions, kept apart:

- *May* this file be read?  A name written in a ruleset (``include:``,
  ``extends:``) must lead, after every symbolic link is followed, to a file
  inside an allowed folder (:func:`confined`), so a stranger's ruleset cannot
  make wartable read, and echo under an error caret, ``/etc/passwd`` or
  ``/proc/self/environ``.
- *Can* it be read?  Only regular files are opened (never a FIFO that would
  block, a device or a directory), at most :attr:`LoadLimits.max_bytes` bytes
  are read, and the text must be UTF-8 (:func:`read_source`).

Every operating-system failure (permission, a symbolic-link loop, a name too
long or holding a NUL byte) is an :class:`OSError` with a readable
``strerror``; callers turn it into a positioned error at the place the file
was named (:func:`describe`).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import RulesetError, Source
from .load_limits import DEFAULT_LOAD_LIMITS, LoadLimits

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotARegularFile(OSError):
    """The path names a directory, a pipe, a device or a socket."""


def describe(error: OSError) -> str:
    """What went wrong, in words, without the path (the caller shows where the file was named)."""
    if isinstance(error, NotARegularFile):
        return str(error.strerror)  # always given: NotARegularFile(errno, what the path names)
    reasons: dict[int | None, str] = {
        errno.ENOENT: "no such file",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.ELOOP: "too many levels of symbolic links (a link loop?)",
        errno.ENAMETOOLONG: "the name is too long",
        errno.ENOTDIR: "a part of the path is not a folder",
        errno.EISDIR: "it is a directory, not a file",
    }
    return reasons.get(error.errno, error.strerror or str(error))


def check_name(name: str) -> None:
    """Refuse names the operating system cannot take (Python raises ValueError for them)."""
    if "\0" in name:
        raise OSError(errno.EINVAL, "the name contains a NUL byte")


def real_path(path: Path) -> Path:
    """``path`` with every symbolic link followed (as far as they lead; never raises for a loop)."""
    check_name(str(path))
    return Path(os.path.realpath(path))


def is_inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (both already real paths)."""
    return path == folder or folder in path.parents


def confined(folder: Path, name: str) -> Path | None:
    """The real path of ``name`` taken relative to ``folder``, or None when it leads outside ``folder``.

    Absolute names, ``..`` and symbolic links are all judged by where they
    finally lead.
    """
    check_name(name)
    root = real_path(folder)
    if Path(name).is_absolute():
        return None
    target = real_path(root / name)
    return target if is_inside(target, root) else None


def read_bytes(path: Path, limit: int) -> bytes | int:
    """The bytes of a regular file, or its size when it is larger than ``limit`` (nothing read).

    Opened without blocking, and its type checked on the open descriptor, so
    a named pipe is refused instead of waiting forever for a writer.
    """
    check_name(str(path))
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            kind = next((kind for test, kind in _KINDS if test(status.st_mode)), "something else")
            raise NotARegularFile(errno.EINVAL, f"{kind}, not a regular file")
        if status.st_size > limit:
            return status.st_size
        chunks, total = [], 0
        while True:  # files under /proc report size 0: read to the end, but never past the limit
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                return total
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def display_name(path: Path) -> str:
    """The path as a user would type it: relative to the working directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        return str(path)


def read_source(path: Path, limits: LoadLimits = DEFAULT_LOAD_LIMITS, name: str | None = None) -> Source:
    """The file as text, shown under ``name`` (default: :func:`display_name`).

    Raises OSError when the file cannot be read (see :func:`describe`), and
    RulesetError, positioned in the file, when it is too large or not UTF-8.
    """
    shown = name if name is not None else display_name(path)
    raw = read_bytes(path, limits.max_bytes)
    if isinstance(raw, int):
        raise RulesetError(Source(shown, "").diagnostic(1, 1, f"file is larger than {limits.max_bytes} bytes"))
    try:
        return Source(shown, raw.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        before = raw[: error.start].decode("utf-8", errors="replace")
        source = Source(shown, raw.decode("utf-8", errors="replace"))
        line, column = source.position(len(before))
        raise RulesetError(source.diagnostic(line, column, "the file is not valid UTF-8")) from None
