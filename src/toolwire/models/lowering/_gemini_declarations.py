"""Tools given in Gemini's own shapes, read as the tool dicts toolwire binds (review 298 #2).

A Gemini user's tools come as google-genai objects or their dicts, which the generic tool conversion
(:func:`~toolwire.models.base.to_tool`) does not read: it refused ``"type": "OBJECT"`` as "not an object schema".
``ChatGoogleGenAI.bind_tools`` and :func:`~toolwire.models.lowering.gemini.convert_to_gemini_tool` read them first:

* a ``google.genai.types.FunctionDeclaration`` (or its ``model_dump()``/REST dict): ``{"name", "description"?,
  "parameters"?: Schema, "parameters_json_schema"?}``. ``parameters`` in Gemini's ``Schema`` form (an upper-case
  ``Type``: ``OBJECT``, ``STRING``...; snake_case fields such as ``any_of``, ``min_items``) becomes JSON Schema:
  types lower-cased (``TYPE_UNSPECIFIED`` left out), ``any_of`` -> ``anyOf``, ``min_items`` -> ``minItems`` (and the
  other counts, which REST JSON writes as strings, as numbers), ``defs``/``ref`` -> ``$defs``/``$ref``,
  ``additional_properties`` -> ``additionalProperties``, ``example`` -> ``examples``, ``property_ordering`` left out
  (a dict keeps its order), ``nullable`` kept (read as JSON Schema's ``null``). ``parameters_json_schema`` is JSON
  Schema already and is taken as it is. ``response``, ``response_json_schema`` and ``behavior`` are left out.
* a ``google.genai.types.Tool`` (or a ``{"function_declarations": [...]}`` dict): one tool per declaration, and its
  other fields (``google_search``...) as one server-tool dict.

A dict already in JSON Schema form (lower-case types, camelCase keywords) is given back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["gemini_declaration", "gemini_tools"]

_TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL", "TYPE_UNSPECIFIED"})
_COUNTS = {"max_items": "maxItems", "min_items": "minItems", "max_length": "maxLength", "min_length": "minLength",
           "max_properties": "maxProperties", "min_properties": "minProperties"}
_RENAMED = {**_COUNTS, "any_of": "anyOf", "additional_properties": "additionalProperties", "defs": "$defs",
            "ref": "$ref"}
_GEMINI_ONLY = frozenset({*_RENAMED, "property_ordering", "propertyOrdering"})
_SCHEMA_MAPS = frozenset({"properties", "defs", "$defs"})  # name -> schema
_SCHEMA_LISTS = frozenset({"any_of", "anyOf"})
_DECLARATION_KEYS = ("name", "description", "parameters", "parameters_json_schema", "parametersJsonSchema")
_DECLARATIONS = ("function_declarations", "functionDeclarations")


def _sdk_dict(obj: Any) -> dict[str, Any] | None:
    """A google-genai ``Tool`` or ``FunctionDeclaration`` object as its JSON dict (``None`` when ``obj`` is not one)."""
    kind = type(obj)
    if kind.__name__ in ("Tool", "FunctionDeclaration") and kind.__module__.startswith("google.genai"):
        return obj.model_dump(mode="json", exclude_none=True)  # type: ignore[no-any-return]
    return None


def _gemini_form(node: Any) -> bool:
    """Whether a schema (any node of it) is in Gemini's ``Schema`` form: an upper-case type or a snake_case field."""
    if isinstance(node, list):
        return any(_gemini_form(v) for v in node)
    if not isinstance(node, Mapping):
        return False
    if (isinstance(node.get("type"), str) and node["type"] in _TYPES) or any(k in node for k in _GEMINI_ONLY):
        return True
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            if any(_gemini_form(v) for v in value.values()):
                return True
        elif key in ("items", "additionalProperties", *_SCHEMA_LISTS) and _gemini_form(value):
            return True
    return False


def _json_schema(node: Any) -> Any:
    """A Gemini ``Schema`` node (dict form) as JSON Schema (see the module docs); other values as they are."""
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if value is None or key in ("property_ordering", "propertyOrdering"):
            continue
        name = _RENAMED.get(key, key)
        if name == "type" and isinstance(value, str) and value in _TYPES:
            if value != "TYPE_UNSPECIFIED":
                out["type"] = value.lower()
        elif name in ("properties", "$defs") and isinstance(value, Mapping):
            out[name] = {k: _json_schema(v) for k, v in value.items()}
        elif name == "anyOf" and isinstance(value, list):
            out[name] = [_json_schema(v) for v in value]
        elif name in ("items", "additionalProperties"):
            out[name] = _json_schema(value)
        elif name == "$ref" and isinstance(value, str):
            out[name] = "#/$defs/" + value[len("#/defs/"):] if value.startswith("#/defs/") else value
        elif name in _COUNTS.values() and isinstance(value, str) and value.isdigit():  # (int64 in REST JSON)
            out[name] = int(value)
        elif name == "example":
            out["examples"] = [value]
        else:
            out[name] = value
    return out


def gemini_declaration(tool: Any) -> Any:
    """``tool`` as a tool dict toolwire reads, when it is a Gemini function declaration; else ``tool`` unchanged.

    Args:
        tool: one tool as given to ``bind_tools``: a google-genai ``FunctionDeclaration``, its dict (snake_case or
            REST camelCase), or anything else.

    Returns:
        ``{"name", "description"?, "parameters"}`` (``parameters`` in JSON Schema, see the module docs) or
        ``{"name", "description"?, "parameters_json_schema"}`` for a declaration; ``tool`` itself for anything else,
        and for a declaration dict whose ``parameters`` are JSON Schema already.
    """
    found = _sdk_dict(tool) if not isinstance(tool, Mapping) else tool
    if not isinstance(found, Mapping) or type(tool).__name__ == "Tool" or any(k in found for k in _DECLARATIONS):
        return tool
    if "type" in found or not isinstance(found.get("name"), str):  # (an OpenAI/Anthropic dict, a JSON Schema)
        return tool
    params = found.get("parameters")
    if found is tool and not _gemini_form(params):
        return tool
    out = {k: found[k] for k in _DECLARATION_KEYS if found.get(k) is not None}
    if isinstance(params, Mapping):
        out["parameters"] = _json_schema(params)
    return out


def gemini_tools(tools: Any) -> Any:
    """``tools`` with each google-genai ``Tool``/``FunctionDeclaration`` and each Gemini-form dict read as the tool
    dicts toolwire binds (see the module docs); anything else, and ``tools`` that is not a list or tuple (which
    ``bind_tools`` refuses itself), as it is.

    Args:
        tools: what was given to ``bind_tools``.

    Returns:
        A list of the tools, each ``Tool`` (object or ``{"function_declarations": [...]}`` dict) spread into its
        declarations (then its other fields as one server-tool dict, when it has any).
    """
    if not isinstance(tools, list | tuple):
        return tools
    out: list[Any] = []
    for tool in tools:
        found = tool if isinstance(tool, Mapping) else _sdk_dict(tool)
        key = next((k for k in _DECLARATIONS if isinstance(found, Mapping) and k in found), None)
        if not isinstance(found, Mapping) or (key is None and (found is tool or type(tool).__name__ != "Tool")):
            out.append(gemini_declaration(tool))  # (not a Tool: a declaration, or anything else)
            continue
        declarations = found.get(key) if key else None
        listed = declarations if isinstance(declarations, list | tuple) else [declarations] if declarations else []
        out.extend(gemini_declaration(d) for d in listed)
        rest = {k: v for k, v in found.items() if k != key and v is not None}
        if rest:
            out.append(rest)
    return out
