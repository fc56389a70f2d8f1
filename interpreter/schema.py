"""JSON Schema validation of a loaded YAML file, errors at their YAML position."""

from __future__ import annotations

import copy
import functools
import itertools
import json
import re

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from .errors import Diagnostic
from .load_limits import DEFAULT_LOAD_LIMITS, LoadLimits
from .resources import data_dir
from .yaml_loader import LoadedYaml

SECTIONS = ("description", "notes", "constants", "types", "tables", "modifiers", "functions", "procedures", "examples")


@functools.cache
def ruleset_schema() -> dict:
    return json.loads((data_dir("schemas") / "ruleset.schema.json").read_text(encoding="utf-8"))


@functools.cache
def _validator(kind: str):
    schema = ruleset_schema()
    if kind == "fragment":
        # An included file holds sections only, no metadata.
        schema = fragment_schema(schema)
    # The schema itself is checked against the metaschema by the test suite
    # (tests/test_loading_limits.py), not here: that costs ~40 ms a process.
    return _Validator(_inline_refs(schema))


@functools.cache
def _ecma_pattern(pattern: str) -> re.Pattern:
    r"""A schema ``pattern`` compiled to mean in Python what it means in ECMA-262 (JSON Schema's dialect).

    jsonschema runs ``re.search(pattern, text)``, where ``$`` also matches before a final
    newline: ``"zones\n"`` would pass ``^[A-Za-z_][A-Za-z0-9_]*$``.  In ECMA-262 (what editors
    run) ``$`` is the end of the text only: Python's ``\Z``.  Every pattern of ours ends in ``$``
    and has no other (tests/test_loading_limits.py checks).  ``re.ASCII``: ECMA's ``\d`` is ASCII.
    """
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern, re.ASCII)


def _pattern(validator, pattern: str, instance, schema):
    if validator.is_type(instance, "string") and not _ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{_shorten(instance)} does not match {pattern!r}")


def _shorten(text: str, width: int = 40) -> str:
    """A string from a ruleset, quoted, shown by its start when long (a 5,000-digit position)."""
    return repr(text) if len(text) <= width else f"{text[:width]!r}... ({len(text)} characters)"


_Validator = validators.extend(Draft202012Validator, {"pattern": _pattern})


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
    """Where in the file, as the reader counts: ``aids[1].rows.over`` is the first item of ``aids`` (jsonschema counts
    list items from 0; the language and every other message count them from 1)."""
    parts: list[str] = []
    for part in path:
        parts.append(f"[{part + 1}]" if isinstance(part, int) else ("." if parts else "") + str(part))
    return "".join(parts) or "the document"


SHOWN_VALUE_CHARS = 80  # a value quoted in a message: enough to recognise it, never a whole section


def yaml_text(value: object) -> str:
    """``value`` as it would be written in the YAML file (flow style: ``[miss, hit]``, ``{a: 1}``, ``true``),
    not as Python's repr (``['miss', 'hit']``, ``True``): the reader wrote YAML."""
    import yaml

    text = yaml.safe_dump(value, default_flow_style=True, width=10**9, allow_unicode=True).strip()
    if text.endswith("\n..."):
        text = text[: -len("\n...")]
    elif text.endswith("..."):
        text = text[:-3].strip()
    return text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 3] + "..."


def _readable(error: ValidationError) -> str:
    """jsonschema's message with the Python reprs of the offending value (and of the schema's value) written as YAML."""
    message = error.message
    for value in (error.instance, error.validator_value):
        if isinstance(value, (dict, list, bool)) or value is None:
            shown = repr(value)
            if shown in message:
                message = message.replace(shown, yaml_text(value), 1)
    return message


def _message(error: ValidationError) -> tuple[tuple, str, bool]:
    """(path to point at, message, point at the key?)"""
    path = tuple(error.absolute_path)
    where = _describe_path(path)
    if error.validator == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        extras = [k for k in error.instance if k not in error.schema.get("properties", {})] if isinstance(error.instance, dict) else []
        if extras and path in (("override",), ("add",), ("remove",)):
            return path + (extras[0],), f"{path[0]}: has no section '{extras[0]}' (sections: {', '.join(known)})", True
        if extras:
            hint = f" (allowed: {', '.join(known)})" if known else ""
            return path + (extras[0],), f"{where}: unknown key '{extras[0]}'{hint}", True
    if error.validator == "required":
        return path, f"{where}: {_readable(error)}", False
    if error.validator in ("anyOf", "oneOf") and error.context:
        meant = _branch_meant(error)
        if meant:
            return _message(best_match(meant))
        deepest = best_match(error.context)
        if deepest is not None and deepest.validator != "type":
            return _message(deepest)
    bare = _bare_type_name(error, path)
    if bare:
        return path, f"{where}: {bare}", False
    if error.validator == "propertyNames":
        return path, f"{where}: key {error.instance!r} is not a valid name (letters, digits and _; not starting with a digit)", False
    return path, f"{where}: {_readable(error)}", False


def _branch_meant(error: ValidationError) -> list[ValidationError]:
    """The errors of the one branch of an ``anyOf`` the value plainly meant: the only branch whose required keys the
    mapping has (``fields:`` is a record type, not a type spec).  Without this, jsonschema's best match can come from
    a branch the author never meant: a record whose field is written ``strength: int`` was told "'values' is a
    required property" (the type spec's enum rule, vacuously on).  Empty when no single branch is meant."""
    if not isinstance(error.instance, dict) or not isinstance(error.validator_value, list):
        return []
    meant = [index for index, branch in enumerate(error.validator_value)
             if isinstance(branch, dict) and branch.get("required") and all(key in error.instance for key in branch["required"])]
    if len(meant) != 1:
        return []
    return [inner for inner in error.context if inner.schema_path and inner.schema_path[0] == meant[0]]


def _bare_type_name(error: ValidationError, path: tuple) -> str:
    """What to write where a record field or an input gives its type as a bare word (``strength: int``), which the
    schema reads as a type spec that is not a mapping; empty for any other error."""
    if error.validator != "type" or not isinstance(error.instance, str) or len(path) < 2 or path[-2] not in ("fields", "inputs"):
        return ""
    if not (isinstance(error.validator_value, str) and error.validator_value == "object"):
        return ""
    what = "a record field's type" if path[-2] == "fields" else "an input's type"
    key = str(path[-1])[:40]
    if _IDENTIFIER.fullmatch(error.instance) and len(error.instance) <= 40:
        return f"{what} is a mapping, not the bare word '{error.instance}': write `{key}: {{type: {error.instance}}}`"
    return f"{what} is a mapping, not the text {_shorten(error.instance)}: write `{key}: {{type: TYPE}}`"


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


# ---- the schema files -----------------------------------------------------------------
# schemas/ruleset.schema.json is written by hand, except for what follows from it:
# the typed override:/add:/remove: of a variant (each element's "_change" form: the
# same keys, none required, so an editor completes them and flags a typo) and
# schemas/fragment.schema.json (for files pulled in with include:).  After editing
# the schema, run
#     python -c "from interpreter.schema import write_schema_files; write_schema_files()"
# to rewrite both; a test checks they agree.

FRAGMENT_ID = "https://wartable.dev/schemas/fragment.schema.json"
VARIANT_SECTIONS = ("constants", "types", "tables", "modifiers", "functions", "procedures")
# What remove: may name inside an element, as merge.py walks it.
REMOVABLE_PARTS = {"tables": ("cells",), "modifiers": ("entries",), "procedures": ("inputs", "choices"), "types": ("fields",)}


def fragment_schema(schema: dict) -> dict:
    """The schema of an include:d file: the ruleset's sections, nothing required."""
    fragment = copy.deepcopy(schema)
    fragment.pop("required", None)
    fragment["properties"] = {k: v for k, v in fragment["properties"].items() if k in SECTIONS}
    fragment["$id"] = FRAGMENT_ID
    fragment["title"] = "wartable ruleset fragment (a file named under include:)"
    fragment["description"] = (
        "A file pulled into a ruleset with include: holds sections only (tables, modifiers, procedures, ...), "
        "no name, title or other metadata. Generated from ruleset.schema.json (interpreter.schema.write_schema_files)."
    )
    return fragment


def _partial(node, changed: set):
    """``node`` with nothing required: refs to object definitions lead to their _change forms.

    Lists are replaced whole by a variant, so what sits in an array stays as it is.
    """
    if isinstance(node, list):
        return [_partial(item, changed) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref[len("#/$defs/"):] in changed:
        return {**node, "$ref": ref + "_change"}
    if node.get("type") == "array":
        return node
    result = {}
    for key, value in node.items():
        if key in ("required", "minProperties", "allOf"):
            continue  # required keys and their conditions are checked on the merged ruleset
        if key in ("properties", "patternProperties"):
            result[key] = {name: _partial(item, changed) for name, item in value.items()}
        elif key in ("additionalProperties", "anyOf", "oneOf", "items"):
            result[key] = _partial(value, changed)
        else:
            result[key] = value
    return result


def with_typed_variants(schema: dict) -> dict:
    """The schema with override:, add: and remove: typed from the ruleset's own definitions."""
    schema = copy.deepcopy(schema)
    definitions = {k: v for k, v in schema["$defs"].items() if not k.endswith("_change")}
    changed = {name for name, d in definitions.items() if "properties" in d and name not in ("note", "aid", "aid_axis")}
    for name in sorted(changed):
        partial = _partial(definitions[name], changed)
        partial["description"] = f"Changes to a {name.replace('_', ' ')}: any of its keys, none required. " + definitions[name].get("description", "")
        definitions[f"{name}_change"] = partial
    # A row of a table's cells may be overridden cell by cell, by column heading.
    cells = definitions["table_change"]["properties"]["cells"]
    cells["additionalProperties"] = {"anyOf": cells["additionalProperties"]["anyOf"] + [
        {"description": "Some cells of the row, by column heading.", "type": "object", "additionalProperties": {"$ref": "#/$defs/cell"}}
    ]}
    schema["$defs"] = definitions
    properties = schema["properties"]
    sections = {name: _partial(properties[name], changed) for name in VARIANT_SECTIONS}
    examples = {
        "description": "Examples of the base to change, keyed by name like every other override section "
                       '({"Odds at seven zones": {odds: [...]}}), or a list of changes each naming its example (name:).',
        "anyOf": [
            {"type": "object", "additionalProperties": {"$ref": "#/$defs/example_change"}},
            {"type": "array", "items": {"$ref": "#/$defs/example_change", "required": ["name"]}},
        ],
    }
    properties["override"] = {
        "description": properties["override"]["description"],
        "type": "object",
        "additionalProperties": False,
        "properties": {**sections, "examples": examples},
    }
    properties["add"] = {
        "description": properties["add"]["description"],
        "type": "object",
        "additionalProperties": False,
        "properties": {**sections, "notes": properties["notes"], "examples": properties["examples"]},
    }
    names = {"type": "array", "items": {"type": ["string", "integer"]}, "description": "Names (or row headings) to remove."}
    remove_sections = {}
    for section in VARIANT_SECTIONS:
        parts = REMOVABLE_PARTS.get(section, ())
        inner = {"type": "object", "additionalProperties": False, "properties": {part: names for part in parts}}
        remove_sections[section] = {
            "description": f"Whole {section} by name, or named parts of them ({', '.join(parts) or 'none'}).",
            "anyOf": [names, {"type": "object", "additionalProperties": inner}] if parts else [names],
        }
    properties["remove"] = {
        "description": properties["remove"]["description"],
        "type": "object",
        "additionalProperties": False,
        "properties": {**remove_sections, "examples": {**names, "description": "Examples of the base to remove, by name."}},
    }
    return schema


def write_schema_files(folder=None) -> list:
    """Rewrite schemas/ruleset.schema.json (its generated parts) and schemas/fragment.schema.json."""
    folder = folder or data_dir("schemas")
    ruleset_path = folder / "ruleset.schema.json"
    schema = with_typed_variants(json.loads(ruleset_path.read_text(encoding="utf-8")))
    written = []
    for path, document in ((ruleset_path, schema), (folder / "fragment.schema.json", fragment_schema(schema))):
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written
