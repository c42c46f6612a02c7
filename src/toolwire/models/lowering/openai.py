"""OpenAI lowering: tools to the Chat Completions ``tools`` format, strict mode included.

Format: OpenAI API reference, Chat Completions, ``tools[].function`` = ``{"name", "description",
"parameters", "strict"}``. Strict mode rules (OpenAI Structured Outputs guide, "Supported schemas"):
every object lists all its properties in ``required`` and sets ``additionalProperties: false``; an
optional parameter is expressed as a nullable type; ``default`` is not supported. An object that takes
arbitrary keys (``dict[str, str]``) cannot be written strictly: such a tool is sent non-strict, with a
warning (case S5 of ``shared/cases``).
"""

from __future__ import annotations

import copy
import logging
import warnings
from typing import Any

from toolwire.models.base import to_tool_spec

__all__ = ["StrictSchemaWarning", "convert_to_openai_tool", "strict_schema"]

log = logging.getLogger("toolwire.lowering")


class StrictSchemaWarning(UserWarning):
    """A tool asked for strict mode has a schema strict mode cannot express; it is sent non-strict."""


class _NotStrict(Exception):
    pass


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "anyOf" in schema:
        if any(s.get("type") == "null" for s in schema["anyOf"]):
            return schema
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    kind = schema.get("type")
    if kind is None:
        return {"anyOf": [schema, {"type": "null"}]}
    if isinstance(kind, list):
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    if kind == "null":
        return schema
    out = {**schema, "type": [kind, "null"]}
    if "enum" in out:
        out["enum"] = [*out["enum"], None] if None not in out["enum"] else out["enum"]
    return out


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items() if k not in ("default", "properties")}
    is_object = node.get("type") == "object" or "properties" in node
    if is_object:
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        if not props and extra not in (None, False):
            raise _NotStrict("an object with free-form keys")
        if not props and extra is None:
            raise _NotStrict("an object with no declared properties")
        required = set(node.get("required") or ())
        out["properties"] = {
            name: _strict(sub) if name in required else _nullable(_strict(sub)) for name, sub in props.items()
        }
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def strict_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """Return the OpenAI strict-mode form of an argument schema.

    Every property becomes required; the ones that were optional become nullable (the executor
    replaces a ``null`` received for a defaulted parameter by its Python default); every object gets
    ``additionalProperties: false``; ``default`` keywords are dropped.

    Raises:
        ValueError: the schema has an object with free-form keys, which strict mode cannot express.
    """
    if not parameters.get("properties"):
        return {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    try:
        return _strict(copy.deepcopy(parameters))  # type: ignore[no-any-return]
    except _NotStrict as exc:
        raise ValueError(str(exc)) from None


def convert_to_openai_tool(tool: Any, *, strict: bool | None = False) -> dict[str, Any]:
    """Return the OpenAI Chat Completions tool dict of a tool, function, pydantic model or tool dict.

    Args:
        tool: anything :func:`toolwire.models.to_tool` accepts.
        strict: write the schema in strict mode. A schema strict mode cannot express (a free-form
            ``dict``) is sent non-strict with a :class:`StrictSchemaWarning`.

    Returns:
        ``{"type": "function", "function": {"name", "description", "parameters"[, "strict": True]}}``.

    Raises:
        SchemaError: the object cannot be a tool.
    """
    spec = to_tool_spec(tool)
    function: dict[str, Any] = {"name": spec.name, "description": spec.description,
                                "parameters": spec.parameters}
    if strict:
        try:
            function["parameters"] = strict_schema(spec.parameters)
            function["strict"] = True
        except ValueError as exc:
            warnings.warn(
                f"Tool {spec.name!r} cannot use OpenAI strict mode ({exc}); it is sent non-strict. "
                "Give the parameter a pydantic model with named fields to make it strict.",
                StrictSchemaWarning,
                stacklevel=2,
            )
            log.debug("tool %s sent non-strict: %s", spec.name, exc)
    return {"type": "function", "function": function}
