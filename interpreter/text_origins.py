"""Where procedure text sits in its YAML file: the file position of every character of a DSL scalar.

A block scalar (``|``, ``>``) keeps its lines and indent; a quoted or folded one moves characters
(escapes, folding), so each gets its own (line, column): errors in procedure text then point at the
file's own line and column, whatever the scalar's style.
"""

from __future__ import annotations

import re
from typing import Any

from .parser import TextOrigin
from .yaml_loader import LoadedYaml


def value_at(data: Any, path: tuple) -> Any:
    """The value at ``path`` (keys and indexes) inside loaded YAML data."""
    for key in path:
        data = data[key]
    return data


def origin_for(doc: LoadedYaml, path: tuple) -> TextOrigin:
    """Where the text of the scalar at ``path`` starts, for DSL positions."""
    mark = doc.mark(path)
    source = doc.source_of(mark)
    style = doc.styles.get(path, "plain")
    if style in ("|", ">"):
        lines = source.lines
        first_line = mark.line + 1
        header = lines[mark.line - 1][mark.column - 1:] if mark.line - 1 < len(lines) else ""
        indicator = re.match(r"[|>][+-]?([1-9])?", header)
        if indicator and indicator.group(1):
            # an explicit indentation indicator counts from the key's own indentation
            key_line = lines[mark.line - 1]
            indent = len(key_line) - len(key_line.lstrip(" ")) + int(indicator.group(1))
        else:
            indent = 0
            for number in range(first_line - 1, len(lines)):
                if lines[number].strip():
                    indent = len(lines[number]) - len(lines[number].lstrip(" "))
                    break
        if style == ">":
            # folding joins lines: map every character of the value back to the file
            text = value_at(doc.data, path)
            char_map = _scalar_char_map(source.lines, first_line, indent + 1, "plain", text) if isinstance(text, str) else None
            return TextOrigin(source, first_line, indent + 1, indent + 1, char_map, text if char_map is not None else "")
        return TextOrigin(source, first_line, indent + 1, indent + 1)
    column = mark.column + (1 if style in ("'", '"') else 0)
    text = value_at(doc.data, path)
    char_map = _scalar_char_map(source.lines, mark.line, mark.column, style, text) if isinstance(text, str) else None
    return TextOrigin(source, mark.line, column, 1, char_map, text if char_map is not None else "")


def _scalar_char_map(lines: tuple[str, ...], line: int, column: int, style: str, value: str) -> tuple[tuple[int, int], ...] | None:
    """The file position of each character of a flow scalar's value.

    Walks the source from the scalar's mark alongside the value: escapes
    (``\\"``, ``''``) take more source characters than value characters, and a
    line break folded into a space skips the next line's indentation.  Returns
    None when the two cannot be aligned (the caller then falls back to offsets).
    """
    row, col = line - 1, column - 1
    if style in ("'", '"'):
        col += 1  # past the opening quote
    positions: list[tuple[int, int]] = []
    for char in value:
        if row >= len(lines):
            return None
        current = lines[row]
        if col >= len(current.rstrip()) and char in " \n\u2028\u2029":  # YAML keeps LS and PS as they are
            # a folded line break: continue at the next line's first non-space
            row += 1
            while row < len(lines) and not lines[row].strip():
                row += 1
            if row >= len(lines):
                return None
            col = len(lines[row]) - len(lines[row].lstrip())
            positions.append((row + 1, col + 1))
            continue
        if col >= len(current):
            return None
        source_char = current[col]
        if style == '"' and source_char == "\\":
            positions.append((row + 1, col + 1))
            col += 2
            continue
        if style == "'" and source_char == "'" and current[col + 1:col + 2] == "'":
            positions.append((row + 1, col + 1))
            col += 2
            continue
        if source_char != char:
            return None
        positions.append((row + 1, col + 1))
        col += 1
    return tuple(positions)
