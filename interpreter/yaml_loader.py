"""Load a ruleset's YAML safely, with a position for every value.

Rulesets come from strangers, so this module never calls ``yaml.load``: it
reads PyYAML's *event stream* (libyaml's C parser when available) and builds
plain dicts, lists and scalars with its own explicit stack, without recursion.
While reading it enforces size, depth, node and scalar limits and rejects
anchors, aliases, tags, duplicate keys, non-string keys, several documents and
plain values that YAML 1.1 reads differently from YAML 1.2 (``NO``, ``010``,
``1:30``, ``2001-12-14``, ``.nan`` ...).  Every problem becomes a positioned
:class:`Diagnostic`; :func:`load_yaml` raises them all in one
:class:`RulesetError`.

Positions are 1-based.  A block scalar's value mark is its ``|``/``>``
indicator; its first content line is the line after that mark.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import yaml
from yaml.reader import ReaderError

from .errors import Diagnostic, DiagnosticList, RulesetError, Source
from .load_limits import DEFAULT_LOAD_LIMITS, LoadLimits, OverLimit

# This module checks LoadLimits' max_bytes, max_depth, max_nodes,
# max_scalar_chars, max_diagnostics and max_int_bits (the YAML ones); the
# older names stay for callers that set them.
YamlLimits = LoadLimits
DEFAULT_LIMITS = DEFAULT_LOAD_LIMITS
# libyaml's parser when PyYAML was built with it, else the pure-Python one.
YAML_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True)
class Mark:
    """A 1-based position, as editors show it.

    ``source`` is set when a document is assembled from several files (a
    variant over its base): then each mark names the file it came from.
    """

    line: int
    column: int
    source: Source | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class LoadedYaml:
    """The data of one YAML file plus the positions of its keys and values."""

    source: Source
    # What the file holds: mappings, lists and scalars as YAML read them, of no static type until the
    # schema has checked them (the builder reads them after that).
    data: Any
    value_marks: Mapping[tuple, Mark]
    key_marks: Mapping[tuple, Mark]
    styles: Mapping[tuple, str]
    nodes: int = 0  # values read, counting those of the same ruleset's earlier files (see load_yaml)

    def mark(self, path) -> Mark:
        """Start of the value at the longest existing prefix of ``path``."""
        path = tuple(path)
        for end in range(len(path), -1, -1):
            found = self.value_marks.get(path[:end])
            if found is not None:
                return found
        return Mark(1, 1)

    def key_mark(self, path) -> Mark:
        """Start of the key naming ``path``'s last element, else :meth:`mark`."""
        return self.key_marks.get(tuple(path)) or self.mark(path)

    def source_of(self, mark: Mark) -> Source:
        """The file a mark points into."""
        return mark.source or self.source

    def diagnostic(self, path, message: str, *, at_key: bool = False) -> Diagnostic:
        """A diagnostic pointing at the value (or key) at ``path``."""
        where = self.key_mark(path) if at_key else self.mark(path)
        return self.source_of(where).diagnostic(where.line, where.column, message)


_TIMESTAMP = (r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
              r"(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
              r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?")
# Plain scalars that YAML 1.1 (PyYAML, yaml.v2, ...) and YAML 1.2 read differently.
_AMBIGUOUS_READINGS: tuple[tuple[str, str], ...] = (
        (r"(?i:y|yes|on)", "YAML 1.1 reads it as true"),
        (r"(?i:n|no|off)", "YAML 1.1 reads it as false"),
        (r"[-+]?\.(?:nan|NaN|NAN|inf|Inf|INF)", "YAML reads it as a non-finite float"),
        (r"<<", "YAML 1.1 reads it as a merge key"),
        (r"=", "YAML 1.1 reads it as a value key"),
        (_TIMESTAMP, "YAML 1.1 reads it as a date"),
        (r"[-+]?0x[0-9a-fA-F_]+", "YAML reads it as a hexadecimal number"),
        (r"[-+]?0o[0-7_]+", "YAML 1.2 reads it as an octal number"),
        (r"[-+]?0b[01_]+", "YAML 1.1 reads it as a binary number"),
        (r"[-+]?(?=[0-9._]*_)(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)(?:[eE][-+][0-9]+)?",
         "YAML 1.1 reads it as a number, ignoring '_'"),
        (r"[-+]?0[0-9]+", "YAML 1.1 reads it as an octal number"),
)
# One pattern for them all (a plain scalar is tested once, not twelve times);
# the group that matched, a0, a1, ..., names the reading.
_AMBIGUOUS = re.compile("|".join(f"(?P<a{index}>{pattern})" for index, (pattern, _) in enumerate(_AMBIGUOUS_READINGS)))
# YAML 1.1's base-60 numbers ([-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(.[0-9_]*)?) are
# checked part by part: as one regular expression, "1:1:1:...:" cost over a
# microsecond a character.
_BASE60_HEAD = re.compile(r"[-+]?[0-9][0-9_]*")
_BASE60_PART = re.compile(r"[0-5]?[0-9]")
_BASE60_FRACTION = re.compile(r"[0-9_]*")


# A plain value longer than this that starts like a number is refused before
# any pattern runs: no real number is that long, and each pattern would scan it.
_LONGEST_NUMBER = 100
_DIGITS = re.compile(r"[-+]?[0-9]+")


def _is_base60(text: str) -> bool:
    head, colon, rest = text.partition(":")
    if not colon or _BASE60_HEAD.fullmatch(head) is None:
        return False
    *parts, last = rest.split(":")
    last, dot, fraction = last.partition(".")
    return (
        _BASE60_PART.fullmatch(last) is not None
        and (not dot or _BASE60_FRACTION.fullmatch(fraction) is not None)
        and all(_BASE60_PART.fullmatch(part) for part in parts)
    )
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_KINDS = {type(None): "null", bool: "a boolean", int: "an integer", float: "a number"}


def _show(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _resolve_plain(text: str, limits: LoadLimits) -> tuple[object, str | None]:
    """YAML 1.2 core resolution of a plain scalar, restricted; (value, problem)."""
    if len(text) > _LONGEST_NUMBER and text[0] in "+-.0123456789" and not _DIGITS.fullmatch(text):
        return text, f"plain value {_show(text)} starts like a number but is {len(text)} characters long (a number has at most {_LONGEST_NUMBER}): quote it if it is text"
    ambiguous = _AMBIGUOUS.fullmatch(text)
    group = ambiguous.lastgroup if ambiguous else None  # each alternative is a named group, a{index}
    if group is not None or _is_base60(text):
        reading = _AMBIGUOUS_READINGS[int(group[1:])][1] if group is not None else "YAML 1.1 reads it as a base-60 number"
        return text, f"ambiguous plain value {_show(text)} ({reading}): quote it"
    if text in _NULLS:
        return None, None
    if text in _BOOLS:
        return _BOOLS[text], None
    if _INT.fullmatch(text):
        try:
            return limits.integer(text), None
        except OverLimit as error:
            return text, f"{error}: quote it if it is text"
    if _FLOAT.fullmatch(text) and math.isfinite(float(text)):
        return float(text), None
    if _FLOAT.fullmatch(text):
        return text, f"number {_show(text)} is out of range: quote it if it is text"
    return text, None


def _yaml_mark(mark) -> Mark:
    """A 1-based Mark from PyYAML's or libyaml's 0-based mark."""
    return Mark(mark.line + 1, mark.column + 1)


@dataclass(slots=True)
class _Frame:
    """An open mapping or sequence; ``path`` is None inside a discarded subtree."""

    container: dict | list
    path: tuple | None
    key: str | None = None  # the pending key; None with has_key: discard the value
    has_key: bool = False
    key_lines: dict[str, int] = field(default_factory=dict)  # key -> line of first use


class _Builder:
    """Turns an event stream into data and marks, collecting diagnostics."""

    def __init__(self, source: Source, limits: LoadLimits, nodes_before: int = 0) -> None:
        self.source, self.limits = source, limits
        self.nodes_before = nodes_before
        self._start()

    def _start(self) -> None:
        """Nothing read yet: no diagnostics, data, marks or values counted."""
        self.diags = DiagnosticList()
        self.stack: list[_Frame] = []
        self.root: object = None
        self.value_marks: dict[tuple, Mark] = {(): Mark(1, 1)}
        self.key_marks: dict[tuple, Mark] = {}
        self.styles: dict[tuple, str] = {}
        self.documents = 0
        self.nodes = self.nodes_before

    def error(self, mark: Mark, message: str) -> None:
        self.diags.add(self.source.diagnostic(mark.line, mark.column, message))

    def run(self, loader: type) -> None:
        """Read all events, stopping at the first fatal problem."""
        events = yaml.parse(self.source.text, Loader=loader)
        try:
            while len(self.diags.items) < self.limits.max_diagnostics:
                try:
                    event = next(events)
                except StopIteration:
                    return
                except yaml.YAMLError as exc:
                    if loader.__module__ == "yaml.cyaml" and "maximum nesting depth" in str(getattr(exc, "problem", "")):
                        # libyaml 0.2.5 and later (PyYAML 6.0.4's wheels) stop deep flow nesting while
                        # scanning, far past this reader's own limit: read again with PyYAML's own
                        # parser, which hands over events as it goes, to stop at the right place
                        events.close()
                        self._start()
                        return self.run(yaml.SafeLoader)
                    return self.yaml_error(exc, loader)
                except UnicodeEncodeError as exc:  # libyaml: lone surrogates
                    return self.error(Mark(*self.source.position(exc.start)),
                                      f"unacceptable character #x{ord(exc.object[exc.start]):04x}: {exc.reason}")
                except (ValueError, TypeError) as exc:
                    return self.error(Mark(1, 1), f"cannot read YAML: {exc}")
                if not self.handle(event):
                    return
        finally:
            events.close()

    def yaml_error(self, exc: yaml.YAMLError, loader: type) -> None:
        """Report a scanner, parser or reader error at its position."""
        if isinstance(exc, ReaderError):
            index = exc.position
            if loader.__module__ == "yaml.cyaml":  # libyaml counts UTF-8 bytes
                raw = self.source.text.encode("utf-8", "surrogatepass")[:index]
                index = len(raw.decode("utf-8", "ignore"))
            char = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
            return self.error(Mark(*self.source.position(index)),
                              f"unacceptable character {char}: {exc.reason}")
        if isinstance(exc, yaml.MarkedYAMLError):
            at = exc.problem_mark or exc.context_mark
            message = f"YAML syntax error: {exc.problem or exc.context or 'invalid YAML'}"
            if exc.problem and exc.context and exc.context_mark:
                cm = exc.context_mark
                message += f" ({exc.context} at line {cm.line + 1}, column {cm.column + 1})"
            where = _yaml_mark(at) if at else Mark(1, 1)
            return self.error(where, message)
        self.error(Mark(1, 1), f"YAML error: {exc}")

    def handle(self, event: yaml.Event) -> bool:
        """Process one event; False stops reading (a fatal problem)."""
        if isinstance(event, yaml.CollectionEndEvent):
            self.stack.pop()
            return True
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                self.error(_yaml_mark(event.start_mark), "only one YAML document is allowed per file")
            return self.documents == 1
        if not isinstance(event, yaml.NodeEvent):
            return True  # stream start/end, document end
        return self.node(event)

    def node(self, event: yaml.NodeEvent) -> bool:
        """A scalar, an alias or the start of a collection: counted, checked and attached (or taken as a key)."""
        mark = _yaml_mark(event.start_mark)
        self.nodes += 1
        if self.nodes > self.limits.max_nodes:
            together = " in all the files of a ruleset" if self.nodes_before else ""
            self.error(mark, f"too many values: the limit is {self.limits.max_nodes}{together}")
            return False
        self.refuse_anchor_and_tag(event, mark)
        top = self.stack[-1] if self.stack else None
        # the mapping whose key this node is, if it is one
        key_of = top if top is not None and isinstance(top.container, dict) and not top.has_key else None
        if isinstance(event, yaml.ScalarEvent):
            self.scalar_node(event, key_of, mark)
        elif isinstance(event, yaml.AliasEvent):
            if key_of is not None:
                self.take_key(key_of, None, mark)
            else:
                self.attach(None, mark)
        else:
            return self.open_collection(event, key_of, mark)
        return True

    def refuse_anchor_and_tag(self, event: yaml.NodeEvent, mark: Mark) -> None:
        if event.anchor is not None:
            found = f"alias '*{event.anchor}'" if isinstance(event, yaml.AliasEvent) else f"anchor '&{event.anchor}'"
            self.error(mark, f"anchors and aliases are not allowed (found {found}); use extends: to reuse a ruleset")
        tag = getattr(event, "tag", None)
        if tag is not None:
            shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
            self.error(mark, f"tags are not allowed (found {shown!r})")

    def scalar_node(self, event: yaml.ScalarEvent, key_of: _Frame | None, mark: Mark) -> None:
        if key_of is not None:
            self.take_key(key_of, self.key_text(event, mark), mark)
            return
        path = self.attach(self.scalar(event, mark), mark)
        if path is not None:
            self.styles[path] = event.style or "plain"

    def open_collection(self, event: yaml.NodeEvent, key_of: _Frame | None, mark: Mark) -> bool:
        """A mapping or sequence starts: a frame on the stack, unless too deep (False: stop reading)."""
        if len(self.stack) >= self.limits.max_depth:
            self.error(mark, f"nesting deeper than {self.limits.max_depth} levels is not allowed")
            return False
        container: dict | list = {} if isinstance(event, yaml.MappingStartEvent) else []
        path: tuple | None = None
        if key_of is not None:
            kind = "a mapping" if isinstance(container, dict) else "a sequence"
            self.error(mark, f"keys must be strings, not {kind}")
            self.take_key(key_of, None, mark)
        else:
            path = self.attach(container, mark)
        self.stack.append(_Frame(container, path))
        return True

    def scalar(self, event: yaml.ScalarEvent, mark: Mark) -> object:
        """The value of a scalar: quoted and block scalars are str."""
        text = event.value
        if len(text) > self.limits.max_scalar_chars:
            self.error(mark, f"value is {len(text)} characters long; the limit is {self.limits.max_scalar_chars}")
            return ""
        if event.style:
            return text
        value, problem = _resolve_plain(text, self.limits)
        if problem:
            self.error(mark, problem)
        return value

    def key_text(self, event: yaml.ScalarEvent, mark: Mark) -> str | None:
        """The key a scalar names: always its text, never a resolved value.

        Keys are names (a row heading "1", a mission "on"), so a plain key
        is read as written and YAML 1.1's readings of it cannot bite; only
        the merge key ``<<`` and an empty key are refused.
        """
        text = event.value
        if len(text) > self.limits.max_scalar_chars:
            self.error(mark, f"key is {len(text)} characters long; the limit is {self.limits.max_scalar_chars}")
            return None
        if not event.style and text in ("<<", ""):
            self.error(mark, "merge keys (<<) are not allowed; use extends: to reuse a ruleset" if text else "empty key")
            return None
        return text

    def take_key(self, top: _Frame, key: str | None, mark: Mark) -> None:
        """Record the pending key of mapping ``top``; None discards its value."""
        top.has_key = True
        if key is not None:
            first = top.key_lines.get(key)
            if first is not None:
                self.error(mark, f"duplicate key {_show(key)} (first defined at line {first})")
                key = None
            else:
                top.key_lines[key] = mark.line
                if top.path is not None:
                    self.key_marks[top.path + (key,)] = mark
        top.key = key

    def attach(self, value: object, mark: Mark) -> tuple | None:
        """Store a new node in its parent; return its path (None if discarded)."""
        path: tuple | None
        if not self.stack:
            self.root, path = value, ()
        else:
            top = self.stack[-1]
            if isinstance(top.container, list):
                path = None if top.path is None else top.path + (len(top.container),)
                top.container.append(value)
            else:
                key, top.key, top.has_key = top.key, None, False
                if key is None:
                    return None
                top.container[key] = value
                path = None if top.path is None else top.path + (key,)
        if path is not None:
            self.value_marks[path] = mark
        return path


def load_yaml(source: Source, limits: LoadLimits = DEFAULT_LOAD_LIMITS, *, nodes_before: int = 0) -> LoadedYaml:
    """Parse one YAML document safely; raise RulesetError listing every problem found.

    ``nodes_before`` is the number of values already read for the same
    ruleset: ``limits.max_nodes`` holds for all its files together.
    """
    size = len(source.text)
    if size <= limits.max_bytes < 4 * size:  # only encode when it can matter
        size = len(source.text.encode("utf-8", "surrogatepass"))
    if size > limits.max_bytes:
        raise RulesetError(source.diagnostic(1, 1, f"file is larger than {limits.max_bytes} bytes"))
    builder = _Builder(source, limits, nodes_before)
    builder.run(YAML_LOADER)
    builder.diags.raise_if_any(RulesetError)
    return LoadedYaml(source, builder.root, MappingProxyType(builder.value_marks),
                      MappingProxyType(builder.key_marks), MappingProxyType(builder.styles), builder.nodes)
