"""OpenAI strict mode: an argument schema rewritten to the JSON Schema subset strict tools accept.

The rules come from the OpenAI Structured Outputs guide, "Supported schemas" (strict function calling
uses the same subset):

* every object lists all its properties in ``required`` and sets ``additionalProperties: false``; an
  optional parameter is expressed as a nullable type; ``default`` is not supported, so a default other than
  ``None`` is named in the description instead (``Default: "en".``, review 61), the model then able to send it;
* ``anyOf`` is supported, but not at the root ("Root objects must not be anyOf");
* the composition keywords ``allOf``, ``not``, ``if``/``then``/``else``, ``dependentRequired`` and
  ``dependentSchemas`` are not supported, nor is ``oneOf`` (the API answers 400 "'oneOf' is not
  permitted"); of the array keywords only ``items``, ``minItems`` and ``maxItems`` are, so neither
  ``uniqueItems`` nor ``prefixItems`` (a ``tuple[int, str]``) is; the "Supported properties" of strings are
  ``pattern`` and ``format`` only (no ``minLength``/``maxLength``, though the API has been seen to take them), of
  numbers ``multipleOf``, ``maximum``, ``exclusiveMaximum``, ``minimum`` and ``exclusiveMinimum``;
* limits on size ("Objects have limitations on nesting depth and size", same section): at most 5000 object
  properties in all, 10 levels of nesting, 1000 ``enum`` values in all, 15,000 characters for all the
  values of one string ``enum`` of more than 250 values, and 120,000 characters for all property names,
  ``enum`` values and ``const`` values together. toolwire counts a level for each object on the way from
  the root (the root object is level 1), whether reached through ``properties``, ``items`` or ``anyOf``,
  a cautious count (the guide does not say how it counts: a schema near a limit goes non-strict rather
  than risk a 400), and counts the ``enum`` values strict mode writes (a nullable ``enum`` gains its
  ``null``).

Source: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas

What :func:`strict_schema` does with a schema outside that subset:

* a ``oneOf`` becomes an ``anyOf`` when its alternatives cannot overlap in the strict form, so "exactly
  one matches" and "at least one matches" accept the same values: each alternative is a distinct JSON
  type, or each is an object pinning one shared (in strict mode required) property to its own
  ``const``/``enum`` values, as a pydantic discriminated union does (``Field(discriminator="kind")``);
* a string ``format`` strict mode does not support (the guide's "Supported properties" list only
  ``date-time``, ``time``, ``date``, ``duration``, ``email``, ``hostname``, ``ipv4``, ``ipv6`` and ``uuid``;
  the API answers 400 "'uri' is not a valid format") is dropped and named in the description instead
  (``Format: path.``): pydantic writes ``path`` for ``pathlib.Path``, ``binary`` for ``bytes``, ``uri`` for
  ``HttpUrl``, ``password`` for ``SecretStr``... (review 28); the value is still validated before the call;
* ``discriminator`` (an OpenAPI keyword pydantic writes next to that ``oneOf``) is dropped;
* every keyword outside the guide's subset (:data:`STRICT_KEYWORDS`: the structure, and the "Supported properties":
  ``pattern`` and ``format`` for strings; ``multipleOf``, ``maximum``, ``exclusiveMaximum``, ``minimum``,
  ``exclusiveMinimum`` for numbers; ``minItems``, ``maxItems`` for arrays) is dropped and said in the description
  (:func:`dropped_notes`; review 94): ``uniqueItems`` ("Items must be unique."), ``minLength``/``maxLength`` (every
  ``HttpUrl`` has both; OpenAI has answered unlisted keywords with 400 "... is not permitted"),
  ``minProperties``/``maxProperties``, ``contentMediaType``/``contentSchema`` (``Json[...]``), ``deprecated``,
  ``examples`` (and OpenAPI's ``example``); annotations that say nothing of the value (``writeOnly`` of a
  ``SecretStr``, ``readOnly``, ``$comment``, ``propertyOrdering``, a vendor's ``x-...``) are dropped unsaid. The
  arguments are still validated against the tool's full schema before the call (``jsonschema`` enforces
  ``uniqueItems``; a pydantic ``set[...]`` parameter drops duplicates as it always does);
* an optional property is nullable (:func:`_nullable`): a ``const`` becomes an ``enum`` of its value and ``null``
  (``NotRequired[Literal[True]]``: ``{"enum": [true, null]}``), since ``null`` fails a ``const`` (review 94); a
  ``const`` whose default is its value (``kind: Literal["cat"] = "cat"``) stays required instead;
* an object that takes keys beyond its declared properties (``additionalProperties`` true or a schema, as a
  pydantic model with ``extra="allow"`` writes), or declares none and is not closed (``{"type": "object"}``,
  ``"properties": {}``), cannot be strict, which forces ``additionalProperties: false``: writing false would
  silently refuse the extra keys the tool takes. An object is a schema whose ``type`` is ``"object"`` or a list
  holding it (``["object", "null"]``, review 228 #1), or that has ``properties``;
* an array without an ``items`` schema (``{"type": "array"}``, as many MCP servers write a list) cannot be strict:
  the API answers 400 "array schema missing items", and strict mode takes no ``items: {}`` (review 190 #1);
* an ``enum``/``const`` string strict mode refuses (above) raises :class:`StrictLiteralError` naming the value
  (review 252 #1);
* anything else it cannot express, and a schema past the size limits, raises ``ValueError``, and
  :func:`~toolwire.models.lowering.openai.convert_to_openai_tool` sends the tool non-strict with a
  warning.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from toolwire.models.lowering._common import constraint_notes, default_notes
from toolwire.models.lowering._tuples import untyped_items

__all__ = ["ADVICE_EXTRA", "ADVICE_ITEMS", "ADVICE_NAMED", "ADVICE_ONE_OBJECT", "ADVICE_PLAIN", "ADVICE_TAG",
           "ADVICE_TYPE", "REFUSED", "STRICT_KEYWORDS", "NotStrictError", "StrictLimitError", "StrictLiteralError",
           "dropped_notes", "json_types", "pairwise_disjoint", "pinned_values", "refused_advice", "strict_schema"]


# what the user can change to make a tool strict, for each reason a strict mode refuses a schema: a sentence fragment
# the warning ends with " to make it strict." (shared by the OpenAI and Anthropic warnings, review 264 #3)
ADVICE_TYPE = "give the parameter a type"
ADVICE_PLAIN = "write the parameter as a plain object, list or value type (a tuple as a list or a model)"
ADVICE_ALL_OF = "write the allOf as one schema"
ADVICE_TAG = "give the union's members a tag field (a Literal) that tells them apart"
ADVICE_NAMED = "give the parameter a pydantic model with named fields instead of a dict"
# (an object with properties that takes other keys too: the user has named fields already, review 271 #5)
ADVICE_EXTRA = ("drop extra='allow' from the pydantic model or set extra='forbid' (in a JSON Schema: "
                "additionalProperties false)")
ADVICE_ITEMS = "give the array an items schema (list[str] rather than a bare list)"
ADVICE_ONE_OBJECT = "give the tool one object of arguments"
ADVICE_SIMPLIFY = "simplify that parameter's type"


def refused_advice(key: str) -> str:
    """The advice for a keyword of :data:`REFUSED` (``"allOf"``, ``"not"``, ``"prefixItems"``...)."""
    return ADVICE_ALL_OF if key == "allOf" else ADVICE_PLAIN


class _NotStrict(Exception):
    """A schema strict mode cannot say: the reason, and what the user can change (``advice``)."""

    def __init__(self, reason: str, advice: str = ADVICE_SIMPLIFY) -> None:
        super().__init__(reason)
        self.advice = advice


class NotStrictError(ValueError):
    """A tool's schema is outside the subset a provider's strict mode takes: ``str(exc)`` says why, ``exc.advice``
    what to change (a sentence fragment, e.g. ``"give the parameter a type"``)."""

    def __init__(self, reason: str, advice: str) -> None:
        super().__init__(reason)
        self.advice = advice


class StrictLimitError(ValueError):
    """The strict form of a schema is past a size limit of OpenAI's Structured Outputs (module doc)."""


class StrictLiteralError(ValueError):
    """An ``enum`` or ``const`` string of a schema holds a character OpenAI's Structured Outputs refuse in a string
    literal (a double quote, a line feed, a NUL: module doc); ``str(exc)`` names the value and the character.

    Attributes:
        advice: what the user can change to make the tool strict (without the closing full stop).
    """

    advice = "Take that character out of the enum or const value"


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also takes ``null``: how strict mode says a property is optional (Structured Outputs guide,
    "All fields must be required": "emulate an optional parameter with a union with null"). A ``const`` becomes an
    ``enum`` of its value and ``null`` (``NotRequired[Literal[True]]``: ``{"enum": [true, null]}``, review 94), an
    ``enum`` gains ``null``, a ``type`` gains ``"null"``; a schema without a type is put in an ``anyOf`` with
    ``{"type": "null"}``."""
    if "anyOf" in schema:
        if any(s.get("type") == "null" for s in schema["anyOf"]):
            return schema
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    kind = schema.get("type")
    if kind is None:
        return {"anyOf": [schema, {"type": "null"}]}
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return schema
    out = {**schema, "type": [*kind, "null"] if isinstance(kind, list) else [kind, "null"]}
    if "const" in out:  # (null must pass the pinned value too)
        value = out.pop("const")
        out["enum"] = [value] if value is None else [value, None]
    elif isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


# the string formats strict mode supports (Structured Outputs guide, "Supported properties")
STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})

_SUB_SCHEMA_LISTS = ("anyOf",)
_SUB_SCHEMAS = ("items",)
_TYPED = ("type", "enum", "const", "anyOf", "oneOf", "allOf", "properties", "items")
_DROPPED = ("default", "properties", "discriminator")
# what strict mode takes (Structured Outputs guide, "Supported schemas": the structure it describes, and its
# "Supported properties": for strings pattern and format, for numbers multipleOf, maximum, exclusiveMaximum,
# minimum, exclusiveMinimum, for arrays minItems and maxItems); "title", which the guide does not name either, is
# kept as OpenAI's own SDK keeps it (openai-python's to_strict_json_schema sends pydantic's titles)
STRICT_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const", "$ref", "$defs",
    "definitions", "description", "title", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum",
    "minimum", "exclusiveMinimum", "minItems", "maxItems"})
# annotations that say nothing of the value (JSON Schema 2020-12 Core 8 and Validation 9.4): dropped unsaid
_UNSAID = frozenset({"$schema", "$id", "$comment", "$anchor", "writeOnly", "readOnly"})
# keywords that annotate and constrain nothing (toolwire's validation ignores them): JSON Schema's own, OpenAPI's
# externalDocs and xml, Gemini's propertyOrdering (a hint of the keys' order) and every vendor extension ("x-..."):
# dropped_notes leaves them out, where "Must also meet" would ask the model to match them (review 271 #6)
ANNOTATIONS = _UNSAID | {"$dynamicAnchor", "$vocabulary", "externalDocs", "xml", "propertyOrdering"}
_MAX_NOTE = 400  # characters of a dropped keyword's value (a contentSchema, examples) written into a description
# the keywords strict mode cannot say (a reason each, for the warning); the Anthropic lowering shares them
REFUSED = {
    "allOf": "an allOf (all of several schemas)",
    "not": "a 'not' schema",
    "if": "an if/then/else schema",
    "then": "an if/then/else schema",
    "else": "an if/then/else schema",
    "dependentRequired": "a dependentRequired rule",
    "dependentSchemas": "a dependentSchemas rule",
    "prefixItems": "a tuple (an array with a schema per position, prefixItems)",
    "patternProperties": "an object whose keys follow patterns (patternProperties), beyond its declared properties",
}

# the limits of the Structured Outputs guide, "Supported schemas" (module doc)
MAX_PROPERTIES = 5000
MAX_NESTING = 10
MAX_ENUM_VALUES = 1000
MAX_TEXT = 120_000
LARGE_ENUM = 250  # a string enum of more values than this...
MAX_LARGE_ENUM_TEXT = 15_000  # ...may have at most this many characters in all its values


def json_types(branch: dict[str, Any]) -> set[str] | None:
    """The JSON types ``branch`` admits (``integer`` counted as a ``number``), or ``None`` when not stated."""
    kind = branch.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if not kinds or not all(isinstance(k, str) for k in kinds):
        return None
    return {"number" if k == "integer" else k for k in kinds}


def pinned_values(schema: Any) -> set[str] | None:
    """The values (as JSON text) ``schema`` allows when it pins them (``const``/``enum``, an ``anyOf`` of
    such, ``null``), else ``None``."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return {json.dumps(schema["const"], sort_keys=True)}
    if isinstance(schema.get("enum"), list):
        return {json.dumps(v, sort_keys=True) for v in schema["enum"]}
    if isinstance(schema.get("anyOf"), list):
        out: set[str] = set()
        for sub in schema["anyOf"]:
            part = pinned_values(sub)
            if part is None:
                return None
            out |= part
        return out
    if schema.get("type") == "null":
        return {"null"}
    return None


def pairwise_disjoint(sets: list[set[str] | None]) -> bool:
    """Whether every set is known and no two share a member."""
    seen: set[str] = set()
    for values in sets:
        if values is None or seen & values:
            return False
        seen |= values
    return True


def _disjoint(branches: list[Any]) -> bool:
    """Whether no value can match two of the (strict-form) ``branches`` of a ``oneOf``: they admit distinct
    JSON types, or they are strict objects with a shared property pinned to different values in each (a
    discriminated union's tag, whatever ``discriminator`` says)."""
    if not all(isinstance(b, dict) for b in branches):
        return False
    if pairwise_disjoint([json_types(b) for b in branches]):
        return True
    props: list[dict[str, Any]] = []
    for branch in branches:
        # a strict object: every property required, no other key, so a shared property is always present
        if not isinstance(branch.get("properties"), dict) or branch.get("additionalProperties") is not False:
            return False
        props.append(branch["properties"])
    shared = set(props[0]).intersection(*props[1:])
    return any(pairwise_disjoint([pinned_values(p[name]) for p in props]) for name in shared)


def _strict(node: Any) -> Any:
    # walks schema keywords only, so data inside a schema ("examples", "enum" values) is left alone
    if node is True or (isinstance(node, dict) and not any(k in node for k in _TYPED)):
        raise _NotStrict("a parameter that takes a value of any type", ADVICE_TYPE)
    if not isinstance(node, dict):
        return node
    for key, reason in REFUSED.items():
        if key in node:
            raise _NotStrict(reason, refused_advice(key))
    out: dict[str, Any] = {}
    dropped: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or key in _UNSAID:
            continue
        if key not in STRICT_KEYWORDS and key != "oneOf":
            dropped[key] = value  # (a 400 risked: said in the description, toolwire still validates it)
            continue
        if key == "oneOf" and isinstance(value, list):
            branches = [_strict(x) for x in value]
            if "anyOf" in node or not _disjoint(branches):
                raise _NotStrict("a oneOf whose alternatives may overlap, which anyOf cannot stand for", ADVICE_TAG)
            out["anyOf"] = branches
        elif key in _SUB_SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_strict(x) for x in value]
        elif key in _SUB_SCHEMAS:
            out[key] = _strict(value)
        else:
            out[key] = copy.deepcopy(value)
    notes = []
    fmt = out.get("format")
    if isinstance(fmt, str) and fmt not in STRICT_FORMATS:
        del out["format"]  # (a 400 in strict mode; the model is told in the description, toolwire validates it)
        notes.append(f"Format: {fmt}.")
    notes += dropped_notes(dropped)
    notes += default_notes(node)  # (dropped: the model is told it, so it can send it; review 61)
    if notes:
        note = " ".join(notes)
        described = out.get("description")
        out["description"] = f"{described} ({note})" if isinstance(described, str) and described else note
    kind = node.get("type")  # (a type list holding "object", ["object", "null"], is an object too: review 228 #1)
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node
    if is_object:
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        if not props and extra not in (None, False):
            raise _NotStrict("an object with free-form keys", ADVICE_NAMED)
        if not props and extra is None:
            raise _NotStrict("an object with no declared properties", ADVICE_NAMED)
        if extra not in (None, False):
            raise _NotStrict("an object that takes keys beyond its declared properties (additionalProperties, "
                             "a pydantic model with extra='allow')", ADVICE_EXTRA)
        required = set(node.get("required") or ())
        out["properties"] = {
            name: _strict(sub) if name in required or _pinned_default(sub) else _nullable(_strict(sub))
            for name, sub in props.items()
        }
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def _pinned_default(prop: Any) -> bool:
    """Whether ``prop`` is a ``const`` whose ``default`` is that value (``kind: Literal["cat"] = "cat"``, the tag of
    a discriminated union): then sending the value is the same as leaving it out, and the property stays required
    and not nullable, so that branches pinned by it stay apart."""
    return isinstance(prop, dict) and "const" in prop and "default" in prop and prop["default"] == prop["const"] \
        and type(prop["default"]) is type(prop["const"])


def _text(value: Any) -> str:
    """``value`` as compact JSON for a description, cut at :data:`_MAX_NOTE` characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    return text if len(text) <= _MAX_NOTE else text[:_MAX_NOTE - 1] + "…"


def dropped_notes(dropped: dict[str, Any]) -> list[str]:
    """What the description says of the keywords of one node that strict mode does not take (``dropped``:
    keyword -> value), so the model still knows them: ``minLength``/``maxLength`` as the bounds other providers'
    lowerings state (:func:`~toolwire.models.lowering._common.constraint_notes`), ``uniqueItems`` ("Items must be
    unique."), key counts, ``contentMediaType``/``contentEncoding``/``contentSchema`` (a ``Json[...]`` string),
    ``deprecated``, ``examples`` (with OpenAPI's ``example``), and any other keyword as its JSON, except annotations
    that constrain nothing (:data:`ANNOTATIONS`, ``x-...``: review 271 #6). Returns the sentences, each ending in a
    full stop; ``[]`` for none."""
    notes = constraint_notes({k: v for k, v in dropped.items() if k in ("minLength", "maxLength")})
    for key, value in _with_example(dropped).items():
        if key in ("minLength", "maxLength") or key in ANNOTATIONS or key.startswith("x-"):
            continue
        if key == "uniqueItems":
            notes += ["Items must be unique."] if value is True else []
        elif key in ("minProperties", "maxProperties") and isinstance(value, int):
            notes.append(f"Must have {'at least' if key == 'minProperties' else 'at most'} {value} "
                         f"key{'' if value == 1 else 's'}.")
        elif key == "contentMediaType" and isinstance(value, str):
            notes.append(f"Holds {value} text.")
        elif key == "contentEncoding" and isinstance(value, str):
            notes.append(f"Encoded as {value}.")
        elif key == "contentSchema":
            notes.append(f"Its content matches the JSON Schema {_text(value)}.")
        elif key == "deprecated":
            notes += ["Deprecated."] if value is True else []
        elif key == "examples" and isinstance(value, list):
            notes.append(f"Examples: {', '.join(_text(v) for v in value)}."[:_MAX_NOTE])
        else:
            notes.append(f"Must also meet the JSON Schema {_text({key: value})}.")
    return notes


def _with_example(dropped: dict[str, Any]) -> dict[str, Any]:
    """``dropped`` with OpenAPI's one ``example`` among the ``examples`` (in their place, or as ``examples``)."""
    if "example" not in dropped:
        return dropped
    one, many = dropped["example"], dropped.get("examples")
    if not isinstance(many, list):
        return {("examples" if k == "example" else k): [one] if k == "example" else v for k, v in dropped.items()
                if k != "examples"}
    return {k: ([*many, one] if one not in many else many) if k == "examples" else v for k, v in dropped.items()
            if k != "example"}


class _Size:
    """What the size limits count in a strict schema (see :func:`_measure`)."""

    def __init__(self) -> None:
        self.properties = 0
        self.depth = 0
        self.enum_values = 0
        self.text = 0
        self.large_enum_text = 0  # the longest total of one string enum of more than LARGE_ENUM values
        self.refused: tuple[str, str] | None = None  # the first enum/const string strict mode refuses, and where


# the characters strict mode refuses in an enum or const string (module doc), and how the error names them
_REFUSED_CHARS = {'"': "a double quote (\")", "\n": "a line feed", "\x00": "a NUL character"}


def _refused_literal(values: Any, where: str, size: _Size) -> None:
    """Note in ``size`` the first string of ``values`` holding a character of :data:`_REFUSED_CHARS` (``where``:
    ``"enum"`` or ``"const"``), unless one is noted already."""
    if size.refused is None:
        for value in values:
            if isinstance(value, str) and ('"' in value or "\n" in value or "\x00" in value):
                size.refused = (value, where)
                return


def _measure(node: Any, size: _Size, depth: int = 0) -> None:
    """Add what ``node`` (a strict schema, from :func:`_strict`) counts towards the limits to ``size``;
    ``depth``: the objects on the way to ``node``, itself excluded."""
    if not isinstance(node, dict):
        return
    props = node.get("properties")
    if node.get("type") == "object" or (isinstance(node.get("type"), list) and "object" in node["type"]) or (
            isinstance(props, dict)):
        depth += 1
        size.depth = max(size.depth, depth)
    if isinstance(props, dict):
        size.properties += len(props)
        size.text += sum(len(str(name)) for name in props)
        for sub in props.values():
            _measure(sub, size, depth)
    enum = node.get("enum")
    if isinstance(enum, list):
        size.enum_values += len(enum)
        strings = [v for v in enum if isinstance(v, str)]
        size.text += sum(len(v) for v in strings)
        if len(strings) > LARGE_ENUM:
            size.large_enum_text = max(size.large_enum_text, sum(len(v) for v in strings))
        _refused_literal(strings, "enum", size)
    if isinstance(node.get("const"), str):
        size.text += len(node["const"])
        _refused_literal((node["const"],), "const", size)
    for key in _SUB_SCHEMA_LISTS:
        for sub in node.get(key) or ():
            _measure(sub, size, depth)
    for key in _SUB_SCHEMAS:
        _measure(node.get(key), size, depth)


def _check_size(schema: dict[str, Any]) -> None:
    """Raise :class:`StrictLimitError` naming the first size limit (module doc) that the strict ``schema`` goes past,
    or :class:`StrictLiteralError` naming an ``enum``/``const`` string strict mode refuses."""
    size = _Size()
    _measure(schema, size)
    if size.refused is not None:
        value, where = size.refused
        shown = repr(value) if len(value) <= 80 else repr(value[:77]) + "..."
        char = next(c for c in _REFUSED_CHARS if c in value)
        raise StrictLiteralError(f"the {where} value {shown} holds {_REFUSED_CHARS[char]}, which OpenAI's Structured "
                                 "Outputs refuse in an enum or const string")
    for count, limit, what in (
        (size.properties, MAX_PROPERTIES, "object properties in all"),
        (size.depth, MAX_NESTING, "levels of nested objects"),
        (size.enum_values, MAX_ENUM_VALUES, "enum values in all"),
        (size.large_enum_text, MAX_LARGE_ENUM_TEXT, f"characters in one string enum of over {LARGE_ENUM} values"),
        (size.text, MAX_TEXT, "characters of property names and enum/const values"),
    ):
        if count > limit:
            raise StrictLimitError(f"{count} {what}, past the limit of {limit} that OpenAI's Structured Outputs set")


def strict_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """Return the OpenAI strict-mode form of an argument schema (rules in the module doc).

    Every property becomes required; the ones that were optional become nullable (the executor
    replaces a ``null`` received for a defaulted parameter by its Python default); every object gets
    ``additionalProperties: false``; ``default`` and ``discriminator`` are dropped, and so are a ``format`` strict
    mode does not support and every keyword outside :data:`STRICT_KEYWORDS` (``uniqueItems``, ``minLength``...),
    each named in the description instead (:func:`dropped_notes`); a ``oneOf`` whose alternatives cannot overlap
    becomes an ``anyOf``. The input is not changed.

    Args:
        parameters: a tool's argument schema, a JSON Schema object (``{"type": "object", "properties"...}``).

    Returns:
        A new schema dict in strict form.

    Raises:
        NotStrictError: (a ``ValueError``; its ``advice`` says what to change) the schema has something strict mode
            cannot express: an object with free-form keys
            or with keys beyond its declared properties, a parameter of any type (no ``type``), a
            top-level union, a ``oneOf`` whose alternatives may overlap, ``allOf``, ``not``,
            ``if``/``then``/``else``, ``dependentRequired``, ``dependentSchemas``, ``patternProperties`` or
            ``prefixItems`` (a tuple), an array without an ``items`` schema (``{"type": "array"}``, review 190
            #1); or its strict form is past one of the size limits of the Structured Outputs guide
            (too many properties or enum values, objects nested more than 10 deep; module doc): then a
            :class:`StrictLimitError`; or an ``enum``/``const`` string holds a double quote, a line feed or a NUL,
            which strict mode refuses: then a :class:`StrictLiteralError` naming the value.
    """
    if not parameters.get("properties") and parameters.get("additionalProperties") in (None, False) and not any(
            k in parameters for k in ("anyOf", "oneOf", *REFUSED)):
        return {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    if "anyOf" in parameters or "oneOf" in parameters:
        raise NotStrictError("a top-level union of argument sets, which strict mode does not allow at the root",
                             ADVICE_ONE_OBJECT)
    try:
        out: dict[str, Any] = _strict(copy.deepcopy(parameters))
    except _NotStrict as exc:
        raise NotStrictError(str(exc), exc.advice) from None
    if untyped_items(out):  # (strict mode refuses both no items and items: {}; review 190 #1)
        raise NotStrictError("an array whose items have no schema (no 'items', as in {\"type\": \"array\"})",
                             ADVICE_ITEMS)
    _check_size(out)
    return out
