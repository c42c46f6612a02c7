"""The fast path of :func:`toolwire.schema.function_schema`: core schema and JSON Schema built directly.

Private to :mod:`toolwire.schema`; see the comment below for what it does and how it is checked.
"""

from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Callable
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from toolwire._schema_docs import describe_class
from toolwire._schema_json import json_mode_needed_for, json_reader
from toolwire._schema_refs import DROPPED_KEYS, SCHEMA_KEYS, SCHEMA_MAP_KEYS, dangling_discriminator
from toolwire._schema_strict import build_validator, not_bool, numeric_leaf, strict_class_schema, transparent

__all__ = ["Unsupported", "fast_default", "fast_function_schema", "sorted_inline"]

# -- the fast path of function_schema ---------------------------------------------------------------
# The general path asks pydantic for the arguments' core schema (GenerateSchema, about 0.5 ms for five
# parameters) and then for its JSON Schema (GenerateJsonSchema, about 1 ms). For the common parameter
# types both are built here directly, still at decoration time, in about a tenth of that: the core
# schema from the annotations (a nested pydantic model brings the core schema pydantic built when the
# class was defined) and the JSON Schema by walking that core schema the way GenerateJsonSchema does:
# same keys and values, same ``$defs``/``$ref``; then ``sorted_inline`` does pydantic's key sorting and
# ``inline_refs`` in one pass. Anything outside the known set (a type, a constraint, a metadata key, a
# model setting) raises ``Unsupported`` and the general path runs, so the result never differs:
# benchmarks/check_schema_fastpath.py compares the two paths on thousands of random signatures.


class Unsupported(Exception):
    """The fast path does not know this type or feature: use the general path."""


_SIMPLE_CORE: dict[Any, str] = {str: "str", int: "int", float: "float", bool: "bool"}
_SIMPLE_JSON = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "none": "null"}
_SIMPLE_TYPE_JSON = {tp: _SIMPLE_JSON[kind] for tp, kind in _SIMPLE_CORE.items()}
_JSON_LEAF = (str, int, float, bool, type(None))
_CONTAINERS = (dict, list)
# model settings that change only validation (which runs the model's own validator), never the JSON Schema
_VALIDATION_ONLY_CONFIG = frozenset({
    "title", "extra", "frozen", "validate_assignment", "str_strip_whitespace", "str_to_lower", "str_to_upper",
    "populate_by_name", "validate_by_name", "from_attributes", "arbitrary_types_allowed", "protected_namespaces",
    "validate_default", "revalidate_instances", "strict", "use_enum_values", "defer_build", "hide_input_in_errors",
    "loc_by_alias", "cache_strings", "coerce_numbers_to_str", "regex_engine", "use_attribute_docstrings",
})
_NODE_KEYS: dict[str, frozenset[str]] = {
    kind: frozenset(keys) for kind, keys in {
        "str": {"type", "metadata"}, "int": {"type", "metadata"}, "float": {"type", "metadata", "allow_inf_nan"},
        "bool": {"type", "metadata"}, "any": {"type", "metadata"}, "none": {"type", "metadata"},
        "list": {"type", "items_schema", "metadata"},
        "dict": {"type", "keys_schema", "values_schema", "metadata"},
        "nullable": {"type", "schema", "metadata"},
        "union": {"type", "choices", "metadata"},
        "literal": {"type", "expected", "metadata"},
        "default": {"type", "schema", "default", "default_factory", "default_factory_takes_data",
                    "validate_default", "metadata"},
        "model": {"type", "cls", "schema", "config", "ref", "metadata", "custom_init", "root_model", "post_init",
                  "revalidate_instances", "frozen", "strict", "generic_origin", "extra_behavior", "serialization"},
        "model-fields": {"type", "fields", "model_name", "computed_fields", "strict", "extra_behavior",
                         "from_attributes"},
        "model-field": {"type", "schema", "metadata", "frozen", "serialization_exclude",
                        "serialization_exclude_if", "serialization_alias"},
    }.items()
}
_METADATA_KEYS = frozenset(("pydantic_js_updates", "pydantic_js_functions"))
_default_json_schema = BaseModel.__get_pydantic_json_schema__.__func__  # type: ignore[attr-defined]


def _fast_core(tp: Any, classes: list[type] | None = None) -> dict[str, Any]:
    """The core schema pydantic's GenerateSchema makes for ``tp``, for the types the fast path knows; with
    ``classes``, the one :mod:`toolwire._schema_strict` makes of it (the model classes to build from their schema
    are added to ``classes``: see :func:`~toolwire._schema_strict.build_validator`)."""
    try:
        simple = _SIMPLE_CORE.get(tp)
    except TypeError:  # an unhashable annotation
        raise Unsupported from None
    if simple is not None:
        if classes is None or simple in ("str", "bool"):
            return {"type": simple}
        return not_bool({"type": simple, "allow_inf_nan": False} if simple == "float" else {"type": simple})
    if tp is Any:
        return {"type": "any"}
    if tp is None or tp is type(None):
        return {"type": "none"}
    if tp is list:
        return {"type": "list", "items_schema": {"type": "any"}}
    if tp is dict:
        return {"type": "dict", "keys_schema": {"type": "any"}, "values_schema": {"type": "any"}}
    if type(tp) is types.GenericAlias and (tp.__origin__ is list or tp.__origin__ is dict):
        origin, args = tp.__origin__, tp.__args__  # (what get_origin and get_args give, read directly)
    else:
        origin = get_origin(tp)
        args = get_args(tp)
    if origin is list and len(args) == 1:
        return {"type": "list", "items_schema": _fast_core(args[0], classes)}
    if origin is dict and len(args) == 2 and args[0] is str:
        return {"type": "dict", "keys_schema": {"type": "str"}, "values_schema": _fast_core(args[1], classes)}
    if origin is typing.Union or origin is types.UnionType:
        choices = [_fast_core(a, classes) for a in args if a is not type(None)]
        if not choices:
            raise Unsupported
        if classes is not None and len(choices) > 1 and _UnionSeen not in classes:
            classes.append(_UnionSeen)  # (build_validator then applies the unions' rules: only then, benchmark B3)
        schema = choices[0] if len(choices) == 1 else {"type": "union", "choices": choices}
        return {"type": "nullable", "schema": schema} if len(choices) < len(args) else schema
    if origin is typing.Literal:
        if not args or any(type(a) not in (str, int, bool) for a in args):
            raise Unsupported
        literal = {"type": "literal", "expected": list(args)}
        return literal if classes is None else numeric_leaf(literal, {})
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        generic = tp.__dict__.get("__pydantic_generic_metadata__") or {}
        if not tp.__dict__.get("__pydantic_complete__", False) or generic.get("args") or generic.get("parameters"):
            raise Unsupported
        schema = tp.__dict__.get("__pydantic_core_schema__")
        if not isinstance(schema, dict) or schema.get("type") != "model" or schema.get("cls") is not tp:
            raise Unsupported
        return schema if classes is None else strict_class_schema(schema, classes)  # type: ignore[return-value]
    raise Unsupported


def _finite(value: Any) -> bool:
    """Whether JSON-like ``value`` holds no ``inf``/``nan``. Every other number the fast path writes is finite
    (defaults: :func:`fast_default`; literals: str, int, bool), so its schemas need no check for them."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    if kind is dict:
        return all(_finite(v) for v in value.values())
    if kind is list or kind is tuple:
        return all(_finite(v) for v in value)
    return True


def fast_default(value: Any) -> Any:
    """A default's JSON form, as pydantic writes it, for JSON-like values (a fresh copy)."""
    kind = type(value)
    if kind is float:
        if not math.isfinite(value):
            raise Unsupported
        return value
    if kind in _JSON_LEAF:
        return value
    if kind is list or kind is tuple:
        return [fast_default(v) for v in value]
    if kind is dict:
        if any(type(k) is not str for k in value):
            raise Unsupported
        return {k: fast_default(v) for k, v in value.items()}
    raise Unsupported


def _flattened_any_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """GenerateJsonSchema.get_flattened_anyof."""
    members: list[dict[str, Any]] = []
    for schema in schemas:
        if len(schema) == 1 and "anyOf" in schema:
            members.extend(schema["anyOf"])
        else:
            members.append(schema)
    # pydantic's _deduplicate_schemas, ``list({hashable(m): m for m in members}.values())``: an equal
    # member keeps the first one's place and the last one's value (for JSON values, == is that equality)
    unique: list[dict[str, Any]] = []
    for member in members:
        for index, seen in enumerate(unique):
            if seen == member:
                unique[index] = member
                break
        else:
            unique.append(member)
    return unique[0] if len(unique) == 1 else {"anyOf": unique}


def _sorted_data(value: Any, parent_key: str | None) -> Any:
    """A fresh copy of JSON data sorted as GenerateJsonSchema._sort_recursive sorts it (nothing dropped)."""
    kind = type(value)
    if kind is list:
        return [_sorted_data(v, parent_key) for v in value]
    if kind is not dict:
        return value
    keys = value.keys() if parent_key in ("properties", "default") else sorted(value)
    return {k: _sorted_data(value[k], k) for k in keys}


def sorted_inline(raw: dict[str, Any]) -> dict[str, Any]:
    """``inline_refs(sort(raw))`` in one pass, where ``sort`` is GenerateJsonSchema.sort (keys in
    alphabetical order, except in the dicts under 'properties' and 'default'), for fast-path output
    (its ``$defs`` are never recursive and its refs are ``#/$defs/Name``). Schema positions and data are
    told apart as :func:`toolwire._schema_refs.inline_refs` tells them."""
    defs = raw.get("$defs") or {}

    def walk(value: Any, parent_key: str | None) -> Any:
        kind = type(value)
        if kind is list:
            return [walk(v, parent_key) for v in value]
        if kind is not dict:
            return value
        keys = value.keys() if parent_key in ("properties", "default") else sorted(value)
        ref = value.get("$ref")
        out: dict[str, Any] = {}
        if ref is not None:
            name = ref[len("#/$defs/"):] if type(ref) is str and ref.startswith("#/$defs/") else None
            if name is None or name not in defs:
                raise Unsupported
            out = dict(walk(defs[name], name))
        for key in keys:
            if key in DROPPED_KEYS or key == "$ref":
                continue
            item = value[key]
            if type(item) not in _CONTAINERS:
                out[key] = item
            elif key in SCHEMA_KEYS:
                out[key] = walk(item, key)
            elif key in SCHEMA_MAP_KEYS and type(item) is dict:  # name -> schema: no name is dropped or moved
                keep = item.keys() if key == "properties" else sorted(item)
                out[key] = {name: walk(item[name], name) for name in keep}
            elif key == "discriminator" and dangling_discriminator(item):
                continue
            else:
                out[key] = _sorted_data(item, key)
        return out

    return walk(raw, None)  # type: ignore[no-any-return]


_WRAPPERS = ("function-before", "function-wrap")  # the kinds of _schema_strict.transparent wrappers


def _fast_json(node: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema GenerateJsonSchema writes for the core schema ``node`` (validation mode), before
    sorting; models go to ``defs`` and are referred to with ``$ref``."""
    kind = node.get("type")
    if len(node) == 3 and kind in _WRAPPERS and transparent(node):  # a number refusing booleans, a boolean
        # literal's check (_schema_strict)
        return _fast_json(node["schema"], defs)
    allowed = _NODE_KEYS.get(kind)
    if allowed is None or not allowed.issuperset(node):
        raise Unsupported
    metadata = node.get("metadata")
    if metadata:
        updates = metadata.get("pydantic_js_updates")
        functions = metadata.get("pydantic_js_functions", ())
        if not _METADATA_KEYS.issuperset(metadata) or (updates is not None and type(updates) is not dict) \
                or (updates and not _finite(updates)):  # (examples=[inf]: the general path drops them)
            raise Unsupported
    else:
        updates, functions = None, ()
    if kind == "model":
        out = _fast_model_json(node, functions, defs)
    else:
        if functions:
            raise Unsupported
        out = _fast_json_body(kind, node, defs)
    if updates:
        out = {**out, **updates}
    return out


def _fast_json_body(kind: str, node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if kind in _SIMPLE_JSON:
        return {"type": _SIMPLE_JSON[kind]}
    if kind == "any":
        return {}
    if kind == "list":
        return {"type": "array", "items": _fast_json(node["items_schema"], defs) if "items_schema" in node else {}}
    if kind == "dict":
        keys = node.get("keys_schema", {"type": "any"}).get("type")
        if keys not in ("str", "any") or len(node.get("keys_schema", {})) > 1:
            raise Unsupported
        values = dict(_fast_json(node["values_schema"], defs)) if "values_schema" in node else {}
        values.pop("title", None)
        return {"type": "object", "additionalProperties": values if values else True}
    if kind == "nullable":
        inner = _fast_json(node["schema"], defs)
        null = {"type": "null"}
        return null if inner == null else _flattened_any_of([inner, null])
    if kind == "union":
        choices = node["choices"]
        if any(not isinstance(c, dict) for c in choices):  # (schema, tag) pairs: a tagged union
            raise Unsupported
        generated = [_fast_json(c, defs) for c in choices]
        return generated[0] if len(generated) == 1 else _flattened_any_of(generated)
    if kind == "literal":
        expected = node["expected"]
        if any(type(v) not in (str, int, bool) for v in expected):
            raise Unsupported
        out: dict[str, Any] = {"const": expected[0]} if len(expected) == 1 else {"enum": list(expected)}
        kinds = {type(v) for v in expected}
        if len(kinds) == 1:
            out["type"] = {str: "string", int: "integer", bool: "boolean"}[kinds.pop()]
        return out
    if kind == "model-field":
        return _fast_json(node["schema"], defs)
    if kind == "default":
        out = _fast_json(node["schema"], defs)
        if "default" in node:
            out = {**out, "default": fast_default(node["default"])}
        return out
    raise Unsupported


# id(node) -> (node, the $defs entries its JSON Schema made: its own and its nested models'), for model nodes: a
# model's JSON Schema is the same each time a tool takes it, so it is walked once (the entries are never changed:
# sorted_inline builds new dicts)
_MODEL_JSON: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}


def _fast_model_json(node: dict[str, Any], functions: Any, defs: dict[str, Any]) -> dict[str, Any]:
    cached = _MODEL_JSON.get(id(node))
    if cached is not None and cached[0] is node:
        for key, body in cached[1].items():
            known = defs.setdefault(key, body)
            if known is None:  # being built further up: a recursive model, which needs the general path
                raise Unsupported
        return {"$ref": f"#/$defs/{node['ref']}"}
    before = set(defs)
    out = _fast_model_json_uncached(node, functions, defs)
    made = {key: body for key, body in defs.items() if key not in before}
    if made and all(body is not None for body in made.values()):
        if len(_MODEL_JSON) > 1024:
            _MODEL_JSON.clear()
        _MODEL_JSON[id(node)] = (node, made)  # (node kept alive: its id is not reused meanwhile)
    return out


def _fast_model_json_uncached(node: dict[str, Any], functions: Any, defs: dict[str, Any]) -> dict[str, Any]:
    cls = node["cls"]
    ref = node["ref"]
    if (len(functions) != 1 or getattr(functions[0], "__func__", None) is not _default_json_schema
            or getattr(cls.__get_pydantic_json_schema__, "__func__", None) is not _default_json_schema
            or node.get("root_model") or "__deprecated__" in cls.__dict__
            or not _VALIDATION_ONLY_CONFIG.issuperset(cls.model_config)
            or not isinstance(ref, str) or "/" in ref or cls.__name__ in ("properties", "default")):
        raise Unsupported
    if ref not in defs:
        defs[ref] = None  # being built: a reference back to it is recursion, which needs the general path
        fields_node = node["schema"]
        if not isinstance(fields_node, dict) or fields_node.get("type") != "model-fields" \
                or not _NODE_KEYS["model-fields"].issuperset(fields_node):
            raise Unsupported
        properties: dict[str, Any] = {}
        required: list[str] = []
        for name, field in fields_node["fields"].items():
            if not isinstance(field, dict) or field.get("type") != "model-field":
                raise Unsupported
            properties[name] = _ref_overrides(_fast_json(field, defs), defs)
            if field["schema"].get("type") != "default":
                required.append(name)
        body: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            body["required"] = required
        if cls.__doc__:
            body.setdefault("description", inspect.cleandoc(cls.__doc__))
        describe_class(body, cls)  # (as _schema_strict.StrictJsonSchema.model_schema does)
        extra = cls.model_config.get("extra")
        if extra == "allow":
            body["additionalProperties"] = True
        elif extra is None or extra == "forbid":  # pydantic's default is refused too (see _schema_strict)
            body["additionalProperties"] = False
        defs[ref] = body
    elif defs[ref] is None:
        raise Unsupported
    return {"$ref": f"#/$defs/{ref}"}


def _ref_overrides(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """GenerateJsonSchema.handle_ref_overrides: drop keys beside a ``$ref`` that repeat the target's."""
    ref = schema.get("$ref")
    if ref is None:
        return schema
    target = defs.get(ref.rsplit("/", 1)[1])
    if target is None:
        return schema
    return {k: v for k, v in schema.items() if k == "$ref" or k not in target or target[k] != v}


class _UnionSeen:
    """Put in ``classes`` by :func:`_fast_core` once it writes a union of two members or more (no pydantic class:
    :func:`~toolwire._schema_strict.build_validator` marks only those)."""


def fast_function_schema(
    params: list[tuple[str, Any, str | None, bool]], model_name: str
) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    """The raw JSON Schema (as pydantic's, unsorted) and the validator of the arguments, or ``Unsupported``.

    Args:
        params: ``(name, annotation, description, required)`` for each parameter.
        model_name: the arguments' type name (the TypedDict's name on the general path).
    """
    fields: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    defs: dict[str, Any] = {}
    classes: list[type] = []
    json_mode = False  # (whether pydantic's JSON and Python modes may differ on these arguments: review 94)
    for name, annotation, desc, is_required in params:
        inner = _fast_core(annotation, classes)  # (the JSON Schema of the stricter schema is pydantic's of the other)
        json_mode = json_mode or json_mode_needed_for(annotation, inner)
        field: dict[str, Any] = {"type": "typed-dict-field", "schema": inner, "required": is_required,
                                 "metadata": {"pydantic_js_updates": {"description": desc}} if desc else {}}
        fields[name] = field
        simple = _SIMPLE_TYPE_JSON.get(annotation) if type(annotation) is type else None
        if simple is not None:  # str, int, float, bool: what _fast_json writes of their (wrapped) core schema
            properties[name] = {"type": simple, "description": desc} if desc else {"type": simple}
        else:
            schema = _fast_json(inner, defs)
            if desc:
                schema = {**schema, "description": desc}
            properties[name] = _ref_overrides(schema, defs)
        if is_required:
            required.append(name)
    core = {"type": "typed-dict", "fields": fields, "extra_behavior": "forbid",
            "config": {"title": model_name, "extra_fields_behavior": "forbid"}}
    try:  # (the unions' rules walk the schema: only where a parameter's type holds a union, benchmark B3)
        validator = build_validator(core, classes, unions=_UnionSeen in classes)
    except Exception:  # a schema pydantic-core refuses (never expected): let the general path report it
        raise Unsupported from None
    raw: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        raw["required"] = required
    raw["additionalProperties"] = False
    if defs:
        raw["$defs"] = defs
    return raw, json_reader(validator) if json_mode else validator.validate_python


