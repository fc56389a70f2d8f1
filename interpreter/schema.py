"""JSON Schema validation of a loaded YAML file, errors at their YAML position."""

from __future__ import annotations

import copy
import functools
import itertools
import json

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from .errors import Diagnostic
from .load_limits import DEFAULT_LOAD_LIMITS, LoadLimits
from .resources import data_dir
from .yaml_loader import LoadedYaml

SECTIONS = ("description", "notes", "constants", "types", "tables", "modifiers", "procedures", "examples")


@functools.lru_cache(maxsize=None)
def ruleset_schema() -> dict:
    return json.loads((data_dir("schemas") / "ruleset.schema.json").read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def _validator(kind: str) -> Draft202012Validator:
    schema = ruleset_schema()
    if kind == "fragment":
        # An included file holds sections only, no metadata.
        schema = copy.deepcopy(schema)
        schema.pop("required", None)
        schema["properties"] = {k: v for k, v in schema["properties"].items() if k in SECTIONS}
    # The schema itself is checked against the metaschema by the test suite
    # (tests/test_loading_limits.py), not here: that costs ~40 ms a process.
    return Draft202012Validator(_inline_refs(schema))


def _inline_refs(schema: dict) -> dict:
    """The schema with each ``$ref`` to a definition replaced by the definition itself.

    jsonschema resolves a ``$ref`` on every visit, which was half of the
    validation time of a large ruleset; inlined, the same checks run without
    the lookups.  A definition that refers to itself (``type_spec``) keeps its
    inner ``$ref``, which ``$defs`` still resolves.  (Recursion here follows
    our own schema, never a ruleset.)
    """
    definitions = schema.get("$defs", {})

    def expand(node, expanding: frozenset):
        if isinstance(node, list):
            return [expand(item, expanding) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        name = ref[len("#/$defs/"):] if isinstance(ref, str) and ref.startswith("#/$defs/") else None
        if name in definitions and name not in expanding:
            inlined = dict(expand(definitions[name], expanding | {name}))
            for key, value in node.items():
                if key != "$ref":
                    inlined.setdefault(key, value)  # sibling annotations such as description
            return inlined
        return {key: value if key == "$defs" else expand(value, expanding) for key, value in node.items()}

    return expand(schema, frozenset())


def _describe_path(path) -> str:
    parts = []
    for part in path:
        parts.append(f"[{part}]" if isinstance(part, int) else ("." if parts else "") + str(part))
    return "".join(parts) or "the document"


def _message(error: ValidationError) -> tuple[tuple, str, bool]:
    """(path to point at, message, point at the key?)"""
    path = tuple(error.absolute_path)
    where = _describe_path(path)
    if error.validator == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        extras = [k for k in error.instance if k not in error.schema.get("properties", {})] if isinstance(error.instance, dict) else []
        if extras:
            hint = f" (allowed: {', '.join(known)})" if known else ""
            return path + (extras[0],), f"{where}: unknown key '{extras[0]}'{hint}", True
    if error.validator == "required":
        return path, f"{where}: {error.message}", False
    if error.validator in ("anyOf", "oneOf") and error.context:
        deepest = best_match(error.context)
        if deepest is not None and deepest.validator != "type":
            return _message(deepest)
    if error.validator == "propertyNames":
        return path, f"{where}: key {error.instance!r} is not a valid name (letters, digits and _; not starting with a digit)", False
    return path, f"{where}: {error.message}", False


def validate(loaded: LoadedYaml, *, fragment: bool = False, limits: LoadLimits = DEFAULT_LOAD_LIMITS) -> list[Diagnostic]:
    """The schema violations in ``loaded`` (the first ``limits.max_diagnostics`` found), positioned; empty when valid."""
    validator = _validator("fragment" if fragment else "ruleset")
    diagnostics = []
    found = itertools.islice(validator.iter_errors(loaded.data), limits.max_diagnostics)
    for error in sorted(found, key=lambda e: list(map(str, e.absolute_path))):
        path, message, at_key = _message(error)
        if error.validator == "propertyNames":
            # jsonschema reports the mapping; point at the bad key itself.
            at_key = True
            path = path + (error.instance,)
        diagnostics.append(loaded.diagnostic(path, message, at_key=at_key))
    return diagnostics
