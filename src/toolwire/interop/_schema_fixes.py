"""Repairs :func:`toolwire.interop.openai_tools.normalize_parameters` makes to a JSON-Schema tool's arguments, so that
the schema every provider is sent and the validation of the calls agree.

* A ``required`` key that ``properties`` does not declare (review 198 #2; MCP servers send such schemas after a
  property is renamed or removed): ``jsonschema`` takes it with any value, so toolwire declares it, with an empty
  schema (or the object's ``additionalProperties`` schema), before its unknown-key check adds
  ``additionalProperties: false`` and before any lowering drops it from ``required``
  (:func:`declare_required`); so is a key an ``anyOf``/``oneOf``/``allOf`` branch requires that neither the object nor
  any branch declares, in that branch, so the embedded model's grammar can write that alternative and the fold the
  providers are sent carries it (review 204 #2). ``Tool.from_schema`` warns about it once, with a
  :class:`~toolwire.errors.ToolDefinitionWarning` (:func:`warn_declared`).
* OpenAPI 3.0's ``"nullable": true`` (what OpenAPI-generated MCP servers write; review 198 #3) is read as OpenAPI
  means it: the value may also be ``null`` (:func:`openapi_nullable`). JSON Schema has no such keyword, so without
  this Gemini, whose ``Schema`` has ``nullable``, was told null fits and toolwire's validation then refused it.
"""

from __future__ import annotations

from typing import Any

from toolwire._schema_refs import SCHEMA_KEYS, SCHEMA_MAP_KEYS

__all__ = ["declare_required", "openapi_nullable", "undeclared_required", "warn_declared"]

# keywords beside which a key missing from "properties" may still be declared (or refused) elsewhere: left alone
_DECLARING = ("patternProperties", "unevaluatedProperties", "$ref", "if", "dependentSchemas", "dependencies")
_COMBINATORS = ("allOf", "anyOf", "oneOf")


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The dict branches of ``schema``'s ``allOf``/``anyOf``/``oneOf``, in that order."""
    return [b for key in _COMBINATORS if isinstance(schema.get(key), list) for b in schema[key] if isinstance(b, dict)]


def _tree(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """``schema`` and every branch of its combinators, and of theirs (one object's schemas: not through
    ``properties``, ``not``...)."""
    out, pending = [], [schema]
    while pending:
        node = pending.pop()
        out.append(node)
        pending.extend(reversed(_branches(node)))
    return out


def _may_be_object(branch: dict[str, Any]) -> bool:
    kind = branch.get("type", "object")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def _undeclared(schema: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """``(node, key)`` for each key a node of ``schema``'s :func:`_tree` (``schema`` itself or a combinator's
    branch, review 204 #2) lists in ``required`` that no ``properties`` of that tree declares; ``[]`` when a node
    of the tree may declare keys otherwise (:data:`_DECLARING`), when no node declares ``properties`` (an object
    that takes any key), and for a node (or, for its branches, an object) with ``additionalProperties: false``,
    which refuses the key anyway."""
    tree = _tree(schema)
    if any(k in node for node in tree for k in _DECLARING) or not any(
            isinstance(node.get("properties"), dict) for node in tree):
        return []
    known = {name for node in tree if isinstance(node.get("properties"), dict) for name in node["properties"]}
    found: list[tuple[dict[str, Any], str]] = []
    pending: list[tuple[dict[str, Any], bool]] = [(schema, schema.get("additionalProperties") is False)]
    while pending:
        node, closed = pending.pop()
        closed = closed or node.get("additionalProperties") is False
        required = node.get("required")
        if not closed and _may_be_object(node) and isinstance(required, list):
            for key in dict.fromkeys(k for k in required if isinstance(k, str) and k not in known):
                found.append((node, key))
        pending.extend((branch, closed) for branch in reversed(_branches(node)))
    return found


def declare_required(schema: dict[str, Any], where: str = "") -> list[str]:
    """Declare, in place, each key an object schema lists in ``required`` but not in its ``properties``, at the top
    and in the objects below it through ``properties``, ``additionalProperties``, ``items`` and ``prefixItems``. A
    key an ``allOf``/``anyOf``/``oneOf`` branch requires (review 204 #2) counts as declared when the object or any
    branch of its combinators declares it; else it is declared in that branch (which gains ``properties`` when it
    has none), so each alternative's form and the fold the providers are sent carry it.

    The key gets the ``additionalProperties`` schema of its node (else of the object) when that is a dict, else
    ``{}`` (any value), which is what ``jsonschema`` lets it take. An object whose keys may be declared elsewhere
    (``patternProperties``, ``unevaluatedProperties``, a ``$ref``, ``if``...), whose schemas declare no
    ``properties`` at all (it takes any key), or that refuses other keys (``additionalProperties: false``, so no
    call fits it anyway) is left as it is.

    Args:
        schema: an object schema (its ``$ref`` inlined); changed in place.
        where: the path of ``schema`` in messages (``""`` for the top).

    Returns:
        The keys declared, each once, as ``"name"`` at the top or ``"path.name"`` below it.
    """
    declared: list[str] = []
    extra = schema.get("additionalProperties", True)
    for node, key in _undeclared(schema):
        own = node.get("additionalProperties", True)
        given = own if isinstance(own, dict) else extra
        node.setdefault("properties", {})[key] = dict(given) if isinstance(given, dict) else {}
        name = f"{where}.{key}" if where else key
        if name not in declared:
            declared.append(name)
    for node in _tree(schema):
        props = node.get("properties")
        for name, sub in (props.items() if isinstance(props, dict) else ()):
            if isinstance(sub, dict):
                declared += declare_required(sub, f"{where}.{name}" if where else name)
        for key in ("additionalProperties", "items", "prefixItems", "additionalItems"):
            value = node.get(key)
            for sub in value if isinstance(value, list) else [value]:
                if isinstance(sub, dict):
                    declared += declare_required(sub, f"{where}[]" if where else "[]")
    return list(dict.fromkeys(declared))


def undeclared_required(schema: Any) -> list[str]:
    """The keys of the object schema ``schema`` (its own level and its combinators' branches, not the objects below
    it) that :func:`declare_required` declares: listed in a ``required`` there, declared by no ``properties``
    there, in an object whose keys cannot be declared elsewhere.

    Returns:
        Those keys, in the order found; ``[]`` for anything else (``schema`` is not changed).
    """
    if not isinstance(schema, dict):
        return []
    return list(dict.fromkeys(key for _, key in _undeclared(schema)))


def warn_declared(declared: list[str], tool_name: str) -> None:
    """Issue one :class:`~toolwire.errors.ToolDefinitionWarning` naming the keys :func:`declare_required` declared.

    Args:
        declared: its return value (nothing is issued when empty).
        tool_name: the tool's name, for the message.
    """
    if not declared:
        return
    from toolwire._tool_checks import _warn

    shown = ", ".join(repr(k) for k in declared[:5]) + (f" (and {len(declared) - 5} more)" if len(declared) > 5
                                                          else "")
    one = len(declared) == 1
    what, it, kind = ("the key", "it", "a parameter that accepts") if one else ("the keys", "them", "parameters that "
                                                                               "accept")
    _warn(f"Tool {tool_name!r}: its schema requires {what} {shown}, which its 'properties' do not declare, so toolwire "
          f"takes {it} as {kind} any value: declare {it} under 'properties' with a type, or remove {it} from "
          "'required'.")


_CLOSING = ("allOf", "anyOf", "oneOf", "const", "not", "if")  # beside these, a type list alone may not take null


def openapi_nullable(schema: Any) -> Any:
    """``schema`` with each OpenAPI ``"nullable": true`` written as JSON Schema, which lets the value be ``null``
    too: a ``type`` gains ``"null"`` (``{"type": "string", "nullable": true}`` becomes ``{"type": ["string",
    "null"]}``) and an ``enum`` gains ``None``; a node with a combinator, ``const``, ``not`` or ``if``, which may
    refuse null whatever its ``type`` (OpenAPI's nullable ``allOf: [{$ref}]``), becomes ``anyOf: [the node,
    {"type": "null"}]``, its ``description`` kept outside. ``nullable: false`` (which says nothing) is dropped too.
    Values of ``enum``, ``const``, ``default`` and ``examples`` are data, left alone.

    Args:
        schema: a JSON Schema (``$ref`` inlined); not changed.

    Returns:
        A copy of ``schema`` so written (the parts it does not reach are shared).
    """
    if isinstance(schema, list):
        return [openapi_nullable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key, value in schema.items():
        if key in SCHEMA_KEYS:
            out[key] = openapi_nullable(value)
        elif key in SCHEMA_MAP_KEYS and isinstance(value, dict):
            out[key] = {name: openapi_nullable(sub) for name, sub in value.items()}
    if not isinstance(out.get("nullable"), bool):
        return out
    if not out.pop("nullable"):
        return out
    if any(k in out for k in _CLOSING):
        described = {"description": out.pop("description")} if "description" in out else {}
        return {**described, "anyOf": [out, {"type": "null"}]}
    kind = out.get("type")
    if isinstance(kind, str) and kind != "null":
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out
