"""Repairs :func:`toolwire.interop.openai_tools.normalize_parameters` makes to a JSON-Schema tool's arguments, so that
the schema every provider is sent and the validation of the calls agree.

* A ``required`` key that ``properties`` does not declare (review 198 #2; MCP servers send such schemas after a
  property is renamed or removed): ``jsonschema`` takes it with any value, so toolwire declares it, with an empty
  schema (or the object's ``additionalProperties`` schema), before its unknown-key check adds
  ``additionalProperties: false`` and before any lowering drops it from ``required``
  (:func:`declare_required`). ``Tool.from_schema`` warns about it once, with a
  :class:`~toolwire.errors.ToolDefinitionWarning` (:func:`warn_declared`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["declare_required", "undeclared_required", "warn_declared"]

# keywords beside which a key missing from "properties" may still be declared (or refused) elsewhere: left alone
_DECLARING = ("patternProperties", "unevaluatedProperties", "allOf", "anyOf", "oneOf", "$ref", "if",
              "dependentSchemas", "dependencies")


def declare_required(schema: dict[str, Any], where: str = "") -> list[str]:
    """Declare, in place, each key an object schema lists in ``required`` but not in its ``properties``, at the top
    and in the objects below it through ``properties``, ``additionalProperties``, ``items`` and ``prefixItems``
    (not through a combinator, whose branches may name keys their parent declares).

    The key gets the object's ``additionalProperties`` schema when that is a dict, else ``{}`` (any value), which is
    what ``jsonschema`` lets it take. An object whose keys may be declared elsewhere (``patternProperties``, a
    combinator, a ``$ref``...) or that refuses other keys (``additionalProperties: false``, so no call fits it
    anyway) is left as it is.

    Args:
        schema: an object schema (its ``$ref`` inlined); changed in place.
        where: the path of ``schema`` in messages (``""`` for the top).

    Returns:
        The keys declared, each as ``"name"`` at the top or ``"path.name"`` below it.
    """
    declared: list[str] = []
    props = schema.get("properties")
    extra = schema.get("additionalProperties", True)
    for key in undeclared_required(schema):
        props[key] = dict(extra) if isinstance(extra, dict) else {}
        declared.append(f"{where}.{key}" if where else key)
    for name, sub in (props.items() if isinstance(props, dict) else ()):
        if isinstance(sub, dict):
            declared += declare_required(sub, f"{where}.{name}" if where else name)
    for key in ("additionalProperties", "items", "prefixItems", "additionalItems"):
        value = schema.get(key)
        for sub in value if isinstance(value, list) else [value]:
            if isinstance(sub, dict):
                declared += declare_required(sub, f"{where}[]" if where else "[]")
    return declared


def undeclared_required(schema: Any) -> list[str]:
    """The keys of the object schema ``schema`` (its own level only) that :func:`declare_required` declares: listed
    in ``required``, not in ``properties``, in an object whose keys cannot be declared elsewhere.

    Returns:
        Those keys, in ``required``'s order; ``[]`` for anything else (``schema`` is not changed).
    """
    if not isinstance(schema, dict):
        return []
    props, required = schema.get("properties"), schema.get("required")
    if not isinstance(props, dict) or not isinstance(required, list) or schema.get("additionalProperties") is False \
            or any(k in schema for k in _DECLARING):
        return []
    return list(dict.fromkeys(k for k in required if isinstance(k, str) and k not in props))


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
