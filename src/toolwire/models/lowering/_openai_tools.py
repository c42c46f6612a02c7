"""OpenAI tool dicts of tools, functions, pydantic models and tool dicts: Chat Completions'
(:func:`convert_to_openai_tool`) and the Responses API's (:func:`convert_to_openai_responses_tool`), both
re-exported by :mod:`toolwire.models.lowering.openai`."""

from __future__ import annotations

import logging
from typing import Any

from toolwire._warn_site import warn_user
from toolwire.errors import StrictSchemaWarning, UserError
from toolwire.models.base import ToolDictSpec, to_tool_spec
from toolwire.models.lowering._common import fold_top_union
from toolwire.models.lowering._openai_strict import strict_schema
from toolwire.models.lowering._tuples import with_items

__all__ = ["convert_to_openai_responses_tool", "convert_to_openai_tool"]

log = logging.getLogger("toolwire.lowering")


def convert_to_openai_tool(tool: Any, *, strict: bool | None = None) -> dict[str, Any]:
    """Return the OpenAI Chat Completions tool dict of a tool, function, pydantic model or tool dict.

    Args:
        tool: anything :func:`toolwire.models.to_tool` accepts.
        strict: True writes the schema in strict mode (:func:`strict_schema`), False not; None (default, as in
            langchain-core's ``convert_to_openai_tool``) takes a tool dict's own ``"strict"`` (OpenAI
            function-calling guide), else not strict. Unlike langchain-core, which returns an OpenAI tool dict
            as it is, a True or False given here decides for a tool dict too, and a non-strict result has no
            ``"strict"`` key (langchain-core writes ``"strict": false`` for ``strict=False``; Chat Completions
            reads the two alike). A schema strict mode cannot
            express (a free-form ``dict``, an object with ``extra="allow"``, a ``tuple``, a parameter
            without a type, an array without an ``items`` schema, a ``oneOf`` whose alternatives may overlap,
            ``allOf``/``not``/``if``, a top-level union) or past the Structured Outputs size limits (5000
            properties, 10 levels of nested objects, 1000 enum values...) is sent non-strict with a
            :class:`StrictSchemaWarning`.

    Returns:
        ``{"type": "function", "function": {"name", "description", "parameters"[, "strict": True]}}``. A
        top-level ``anyOf``/``oneOf``/``allOf`` of objects (OpenAI answers 400 "schema must have type
        'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level") is folded into one
        object (:func:`~toolwire.models.lowering._common.fold_top_union`), sent non-strict. A non-strict
        schema's arrays without an ``items`` schema get one: a tuple's (``prefixItems``) the schema of its positions,
        any other (``{"type": "array"}``) ``items: {}`` (OpenAI answers 400 "array schema missing items" without
        it; :func:`~toolwire.models.lowering._tuples.with_items`, review 124 #1, review 190 #1). The tool's own
        schema is not changed.

    Raises:
        SchemaError: the object cannot be a tool, or its arguments are a top-level union of schemas that
            are not objects.
        UserError: ``strict`` is neither a bool nor None (the text ``"false"``, say), as
            :meth:`~toolwire.models.base.BaseChatModel.bind_tools` refuses it (review 280 #4).
    """
    if strict is not None and not isinstance(strict, bool):  # "false" from a config file would read as true
        raise UserError(f"strict must be True, False or None, not {strict!r}.")
    spec = to_tool_spec(tool)
    if strict is None and isinstance(spec, ToolDictSpec) and isinstance(spec.extra.get("strict"), bool):
        strict = spec.extra["strict"]  # the dict's own flag, as written in OpenAI's guide
    parameters = with_items(fold_top_union(spec.name, spec.parameters, provider="OpenAI", field="function parameters"))
    function: dict[str, Any] = {"name": spec.name, "description": spec.description, "parameters": parameters}
    if strict:
        try:
            function["parameters"] = strict_schema(spec.parameters)
            function["strict"] = True
        except ValueError as exc:
            # (a StrictLiteralError says which character to take out, a NotStrictError what fits its reason, with
            # the words of the Anthropic warning: review 264 #3)
            fix = getattr(exc, "advice", None) or "Split the tool, or give it fewer or flatter parameters"
            fix = fix[:1].upper() + fix[1:]
            warn_user(f"Tool {spec.name!r} cannot use OpenAI strict mode ({exc}); it is sent non-strict. "
                      f"{fix} to make it strict.", StrictSchemaWarning)
            log.debug("tool %s sent non-strict: %s", spec.name, exc)
    return {"type": "function", "function": function}


def _function_parts(tool: Any, strict: bool | None) -> tuple[Any, dict[str, Any], bool]:
    spec = to_tool_spec(tool)
    function = convert_to_openai_tool(spec, strict=strict)["function"]
    return spec, function["parameters"], bool(function.get("strict"))


def convert_to_openai_responses_tool(tool: Any, *, strict: bool | None = None) -> dict[str, Any]:
    """Return the Responses API function tool of ``tool`` (OpenAI API reference, Responses, "Function"); ``tool``
    and ``strict`` are read as :func:`convert_to_openai_tool` reads them (None, the default: a tool dict's own
    ``"strict"``, else not strict).

    Returns:
        ``{"type": "function", "name", "description", "parameters", "strict"}`` (``strict`` always: a missing one
        reads as true).

    Raises:
        SchemaError: the object cannot be a tool.
        UserError: ``strict`` is neither a bool nor None.
    """
    spec, parameters, is_strict = _function_parts(tool, strict)
    return {"type": "function", "name": spec.name, "description": spec.description,
            "parameters": parameters, "strict": is_strict}
