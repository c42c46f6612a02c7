"""Turning what a user binds (toolwire tools, plain functions, pydantic model classes, TypedDicts, LangChain tools,
OpenAI-, Anthropic- and Gemini-format tool dicts, providers' server tools) into toolwire tools and specs:
:func:`to_tool`, :func:`to_tool_spec`, :func:`server_tool`.

Part of :mod:`toolwire.models.base`, which re-exports these names (import them from there).
"""

from __future__ import annotations

import copy
import dataclasses
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import typing_extensions
from pydantic import BaseModel

from toolwire._tool_checks import check_name
from toolwire.errors import SchemaError
from toolwire.interop.openai_tools import PARAMETER_KEYS, definition_parameters, refuse_free_form
from toolwire.tools import Tool, ToolSpec

__all__ = ["GEMINI_SERVER_TOOLS", "OPENAI_BUILTIN_TYPES", "ServerTool", "ToolDictSpec", "hosted_choice",
           "openai_builtin", "server_tool", "to_tool", "to_tool_spec"]


@dataclasses.dataclass(frozen=True, slots=True)
class ToolDictSpec(ToolSpec):
    """The spec of a tool dict that carries provider keys besides its name, description and schema.

    Attributes:
        extra: those keys, unchanged (e.g. Anthropic's ``"cache_control": {"type": "ephemeral"}``, which marks
            the end of a cached prefix: Anthropic prompt-caching guide). A codec sends the ones its API takes.
    """

    extra: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class ServerTool(ToolSpec):
    """A provider's server tool (the provider runs it; toolwire never does), kept as the dict given.

    Recognised by :func:`server_tool` from its dict: Anthropic's ``{"type": "web_search_20250305", "name":
    "web_search", "max_uses": 3}`` (any ``"type"`` but ``"custom"``/``"function"``: Anthropic tool-use guide,
    "server tools"), Gemini's ``{"google_search": {}}``, ``{"code_execution": {}}``, ``{"url_context": {}}``...
    (the ``Tool`` fields other than ``function_declarations``). Its calls come back as provider blocks
    (``server_tool_use``...), not as tool calls, so no ToolMessage answers them.

    Its name (what ``tool_choice`` names, unique among the bound tools) is the dict's ``"name"``, else its
    ``"type"``; an OpenAI remote MCP server's (``{"type": "mcp", "server_label": "deepwiki", ...}``) is
    ``mcp:<server_label>`` (``mcp:deepwiki``), so several servers can be bound together (review 151 #1); Gemini's
    is its key (``google_search``).

    Attributes:
        provider: ``"anthropic"`` (a versioned ``type`` such as ``web_search_20250305``, or ``mcp_toolset``),
            ``"google"``, or ``None`` (another ``type``: Anthropic takes it as a server tool, and OpenAI's Responses
            API, whose own built-in tools :func:`openai_builtin` tells; other providers refuse it).
        definition: the dict, sent unchanged by the provider that takes it.
    """

    provider: str | None = None
    definition: dict[str, Any] = dataclasses.field(default_factory=dict)


GEMINI_SERVER_TOOLS = frozenset({
    "google_search", "google_search_retrieval", "code_execution", "url_context", "file_search", "google_maps",
    "computer_use", "enterprise_web_search", "retrieval", "googleSearch", "googleSearchRetrieval", "codeExecution",
    "urlContext", "fileSearch", "googleMaps", "computerUse", "enterpriseWebSearch",
})
"""Keys of a Gemini ``Tool`` that are server tools (google-genai ``types.Tool`` fields, snake or camel case)."""

_VERSIONED = re.compile(r"^[a-z][a-z0-9_]*_\d{8}$")

_ANTHROPIC_UNVERSIONED = frozenset({"mcp_toolset"})
"""Anthropic server tool types without a date (the MCP connector's toolset): Anthropic's, though unversioned (review
217 #4: ChatOpenAI(use_responses_api=True) took one as its own built-in tool)."""

OPENAI_BUILTIN_TYPES = frozenset({
    "web_search", "web_search_2025_08_26", "web_search_preview", "web_search_preview_2025_03_11", "file_search",
    "code_interpreter", "image_generation", "computer_use_preview", "computer_use", "local_shell", "shell",
    "apply_patch", "mcp",
})
"""The ``type`` of OpenAI's built-in tools of the Responses API (OpenAI API reference, Responses, "Tools"): tools
of no other provider, which a model of another provider refuses (see :func:`openai_builtin`)."""


def openai_builtin(tool: Any) -> bool:
    """Whether ``tool`` (a :class:`ServerTool`) is one of OpenAI's built-in tools of the Responses API
    (:data:`OPENAI_BUILTIN_TYPES`), which only ``ChatOpenAI(use_responses_api=True)`` can send."""
    return isinstance(tool, ServerTool) and tool.provider is None and tool.definition.get("type") in \
        OPENAI_BUILTIN_TYPES


_FORMAT_TYPES = frozenset({"json_object", "text"})  # (OpenAI's response_format types other than json_schema)

MCP_PREFIX = "mcp:"
"""How the name of an OpenAI remote MCP server tool begins, before its ``server_label`` (no function tool's name holds
a ``:``, so it cannot clash with one)."""


def server_tool(obj: dict[str, Any]) -> ServerTool | None:
    """Return the :class:`ServerTool` the tool dict ``obj`` is, or ``None`` for a client tool (``"type"`` missing,
    ``"function"`` or ``"custom"``, or a Gemini dict with ``function_declarations``). Its name is as
    :class:`ServerTool` says (``mcp:<server_label>`` for an MCP server).

    Raises:
        SchemaError: ``obj`` is OpenAI's whole ``response_format`` dict, ``{"type": "json_schema", "json_schema":
            {...}}`` (or the Responses API's ``text.format``, ``{"type": "json_schema", "name", "schema"}``),
            ``{"type": "json_object"}`` or ``{"type": "text"}``: a response format, not a tool (it was taken for a
            built-in tool and sent as one; review 187 #3, review 191 #6).
    """
    kind = obj.get("type")
    if kind == "json_schema":
        inner = obj.get("json_schema")
        name = inner.get("name") if isinstance(inner, Mapping) else None
        if not (isinstance(name, str) and name):  # (the Responses API's ``text.format``: its name at the top level)
            name = obj.get("name")
        raise SchemaError(_misplaced_message(repr(name) if isinstance(name, str) and name
                                             else "{'type': 'json_schema', ...}", "schema"))
    if kind in _FORMAT_TYPES:  # (taken for a built-in tool, it was sent as one: review 191 #6)
        raise SchemaError(f"Tool {{'type': {kind!r}}} is OpenAI's response_format, not a tool, which bind_tools does "
                          "not take: leave it out, and for JSON output give with_structured_output a schema (a "
                          "pydantic model, a TypedDict or a JSON Schema dict).")
    if isinstance(kind, str) and kind not in ("function", "custom", "object"):  # ("object": a JSON Schema, review 68)
        name = obj.get("name") if isinstance(obj.get("name"), str) else kind
        label = obj.get("server_label")
        if name == "mcp" and isinstance(label, str) and label:  # one entry per MCP server, told apart by its label
            name = f"{MCP_PREFIX}{label}"
        provider = "anthropic" if _VERSIONED.match(kind) or kind in _ANTHROPIC_UNVERSIONED else None
        return ServerTool(name, "", {}, provider, copy.deepcopy(obj))
    if kind is None and obj and set(obj) <= GEMINI_SERVER_TOOLS:
        return ServerTool("/".join(obj), "", {}, "google", copy.deepcopy(obj))
    return None


def hosted_choice(choice: Any, tools: Sequence[Any]) -> Any:
    """The name of the bound built-in tool a Responses API ``tool_choice`` dict picks, else ``choice`` unchanged.

    OpenAI writes the choice of a built-in tool as ``{"type": "<hosted tool type>"}`` (``ToolChoiceTypes``:
    ``file_search``, ``web_search_preview``, ``code_interpreter``, ``image_generation``...) and of an MCP server as
    ``{"type": "mcp", "server_label"}`` (``ToolChoiceMcp``); review 146 #2. ``{"type": "mcp"}`` without a label,
    and the name ``"mcp"`` (an MCP server's name before review 151 #1), pick the MCP server when only one is bound.

    Args:
        choice: the ``tool_choice`` given to ``bind_tools``.
        tools: the bound tools, converted (:func:`to_tool`).

    Returns:
        The name of the :class:`ServerTool` (``provider`` None) of that ``type`` (and ``server_label``) when
        ``choice`` is such a dict and one is bound; ``choice`` itself otherwise.
    """
    if choice == "mcp" or (isinstance(choice, dict) and choice == {"type": "mcp"}):
        servers = [t.name for t in tools if isinstance(t, ServerTool) and t.name.startswith(MCP_PREFIX)]
        return servers[0] if len(servers) == 1 and not any(t.name == "mcp" for t in tools) else choice
    if not isinstance(choice, dict) or not isinstance(choice.get("type"), str) or set(choice) - {"type",
                                                                                                   "server_label"}:
        return choice
    for tool in tools:
        if isinstance(tool, ServerTool) and tool.provider is None and tool.definition.get("type") == choice["type"] \
                and choice.get("server_label", tool.definition.get("server_label")) == tool.definition.get(
                    "server_label"):
            return tool.name
    return choice


_SPEC_KEYS = frozenset({"type", "function", "name", "description", *PARAMETER_KEYS})


def to_tool(obj: Any) -> Tool | ToolSpec:
    """Convert what a user may pass to ``bind_tools`` into a :class:`Tool` (runnable) or
    :class:`ToolSpec` (schema only).

    Accepts a :class:`Tool`, a :class:`ToolSpec`, a plain function with a docstring, a pydantic model
    class (its fields are the arguments, its docstring the description; schema only; a ``pydantic.v1`` model too,
    by its ``schema()``), a ``TypedDict`` class (the same, as ``with_structured_output`` reads one), a JSON Schema
    of an object with a ``title`` (the tool's name; schema only), an OpenAI-format tool dict
    ``{"type": "function", "function": {"name", "description", "parameters"}}`` or a bare
    ``{"name", "description", "parameters"}`` (or Anthropic's ``input_schema``, MCP's ``inputSchema``, google-genai's
    ``parameters_json_schema``: :data:`~toolwire.interop.openai_tools.PARAMETER_KEYS`) dict (schema only; other keys
    such as ``cache_control`` kept in a :class:`ToolDictSpec`), a provider server-tool dict (a
    :class:`ServerTool`, see :func:`server_tool`), and a LangChain tool. A dict's
    parameters are checked and made self-contained as :func:`~toolwire.interop.tool_from_schema` does
    (:func:`toolwire.interop.openai_tools.normalize_parameters`: valid JSON Schema of an object, local
    ``$ref``/``$defs`` inlined, ``title`` keywords and ``$schema`` dropped), so the :class:`ToolSpec` holds no
    ``$ref``, as it promises, strict mode can read it, and a broken schema fails here rather than at the
    provider.

    Args:
        obj: any one of the forms above (not a list of them).

    Returns:
        ``obj`` itself for a :class:`Tool` or :class:`ToolSpec`; a new :class:`Tool` for a function or a LangChain
        tool; otherwise a new :class:`ToolSpec` (a :class:`ToolDictSpec` or :class:`ServerTool` for those dicts).

    Raises:
        SchemaError: the object cannot be a tool (the message says what is accepted), a pydantic model class or
            TypedDict cannot give a JSON Schema of its fields, or a dict's parameters are not a valid JSON Schema of
            an object (not a dict, another type, a recursive ``$ref`` or one to a definition they lack), or its
            description is not text, or a dict with no parameters key carries its schema under ``schema``,
            ``json_schema`` (OpenAI's ``response_format``) or ``properties`` (review 185 #1), or the dict is OpenAI's
            whole ``response_format``, ``{"type": "json_schema", "json_schema": {...}}`` (review 187 #3),
            ``{"type": "json_object"}`` or ``{"type": "text"}`` (review 191 #6).
        UserError: an OpenAI custom (free-form text) tool dict, ``{"type": "custom", "name", "description",
            "format"?}`` with no schema, which toolwire does not support (review 163 #4: it was bound as a function
            with no parameters).
    """
    if isinstance(obj, Tool | ToolSpec):
        if type(obj) is ToolSpec:  # one made by hand: its name held to the rule a tool dict's is (review 141 #2)
            check_name(obj.name)
        return obj
    if isinstance(obj, dict):
        server = server_tool(obj)
        if server is not None:
            return server
        refuse_free_form(obj)
        if obj.get("type") == "object" and not {"name", "function", *PARAMETER_KEYS} & obj.keys():
            obj = _json_schema_tool(obj)  # a JSON Schema of the arguments, named by its title, as LangChain takes it
        # OpenAI Chat Completions nests the function ({"type": "function", "function": {...}}); the Responses
        # API writes it flat ({"type": "function", "name", "description", "parameters", "strict"})
        nested = obj.get("type") == "function" and "function" in obj
        fn = obj.get("function") if nested else obj
        if not isinstance(fn, dict) or "name" not in fn:
            raise SchemaError("A tool dict needs 'name' (or the OpenAI form {'type': 'function', 'function': {...}}).")
        from toolwire.interop.openai_tools import normalize_parameters

        name = check_name(fn["name"])
        params = definition_parameters(fn)  # (the keys tool_from_schema reads: MCP's inputSchema and google-genai's
        # parameters_json_schema too, review 163 #1)
        if params is None:
            _refuse_misplaced_schema(fn, name)
            params = {"type": "object", "properties": {}}
        if not isinstance(params, dict):
            raise SchemaError(f"The 'parameters' of tool {name!r} must be a JSON Schema dict.")
        description = fn.get("description") or ""
        if not isinstance(description, str):
            raise SchemaError(f"The 'description' of tool {name!r} must be text, not {type(description).__name__}.")
        params = normalize_parameters(params, name)
        extra = {k: copy.deepcopy(v) for k, v in [*obj.items(), *fn.items()] if k not in _SPEC_KEYS}
        if extra:
            return ToolDictSpec(name, description, params, extra)
        return ToolSpec(name, description, params)
    if isinstance(obj, type) and issubclass(obj, BaseModel):
        from toolwire.schema import model_schema

        schema = model_schema(obj, obj.__name__)
        return ToolSpec(check_name(obj.__name__), schema.description, schema.parameters)
    if (v1 := _pydantic_v1_schema(obj)) is not None:  # LangChain takes these too (review 54)
        return to_tool(v1)
    if _is_langchain_tool(obj):
        from toolwire.interop.langchain import from_langchain_tool

        return from_langchain_tool(obj)
    if typing_extensions.is_typeddict(obj):  # callable (a dict type), but no function: LangChain takes it as a schema
        from toolwire.models.structured import output_tool  # (that module imports this one)

        return output_tool(obj)[0]  # the spec structured output forces for it: name, docstring, JSON Schema
    if callable(obj):
        return Tool.from_function(obj)
    from toolwire._tool_checks import check_subclass

    check_subclass(type(obj))  # an instance of a smolagents-style class: its own advice (review 141 #1)
    raise SchemaError(
        f"Cannot use {type(obj).__name__} as a tool: pass a @tool, a function with a docstring, "
        "a pydantic model class, or an OpenAI tool dict."
    )


def _refuse_misplaced_schema(fn: Mapping[str, Any], name: str) -> None:
    """Refuse a tool dict with no parameters key that carries its schema elsewhere: OpenAI's ``response_format``
    schema (``{"name", "schema", "strict"}``) or a schema's own keys (``properties``) at the top. Bound as it was, the
    tool had no parameters and the model could only send ``{}`` (review 185 #1).

    Raises:
        SchemaError: ``fn`` has a ``schema``, ``json_schema`` or ``properties`` dict.
    """
    key = next((k for k in ("schema", "json_schema", "properties") if isinstance(fn.get(k), Mapping)), None)
    if key is None:
        return
    if key == "properties":
        raise SchemaError(f"Tool {name!r} has 'properties' beside its name, where a tool dict reads none: put its "
                          "JSON Schema under 'parameters', e.g. {'name': ..., 'parameters': {'type': 'object', "
                          "'properties': {...}}}.")
    raise SchemaError(_misplaced_message(repr(name), key))


def _misplaced_message(tool: str, key: str) -> str:
    """The refusal of a tool dict whose schema sits under ``key`` of OpenAI's ``response_format`` (``tool``: the
    tool as the sentence names it)."""
    return (f"Tool {tool} has its schema under {key!r}, the key of OpenAI's response_format, which a tool dict does "
            "not read: put it under 'parameters' (with_structured_output takes the response_format dict as it is).")


def _json_schema_tool(schema: dict[str, Any]) -> dict[str, Any]:
    """The bare tool dict of a JSON Schema of an object given as a tool: its ``title`` the name, its ``description``
    the description (as :func:`~toolwire.interop.tool_from_schema` and structured output read one).

    Raises:
        SchemaError: the schema has no ``title`` to name the tool.
    """
    title = schema.get("title")
    if not isinstance(title, str) or not title:
        raise SchemaError("A JSON Schema given as a tool needs a 'title' (it names the tool), e.g. {'title': "
                          "'lookup', 'description': 'Look up a word.', 'type': 'object', 'properties': {...}}.")
    return {"name": title, "description": schema.get("description") or "",
            "parameters": {k: v for k, v in schema.items() if k not in ("title", "description")}}


def _pydantic_v1_schema(obj: Any) -> dict[str, Any] | None:
    """The tool dict of a ``pydantic.v1`` model class (its ``schema()`` as the parameters), else None: read as a
    function, its fields would have lost their types."""
    v1 = sys.modules.get("pydantic.v1")
    if v1 is None or not (isinstance(obj, type) and issubclass(obj, v1.BaseModel)):
        return None
    try:
        parameters = obj.schema()
    except Exception as exc:  # a field type v1 cannot describe
        raise SchemaError(f"{obj.__name__} cannot be given as a JSON Schema: {exc}") from None
    from toolwire.models.structured import _class_description  # (that module imports this one)

    return {"name": check_name(obj.__name__), "description": _class_description(obj),
            "parameters": _one_ref({k: v for k, v in parameters.items() if k not in ("title", "description")})}


def _one_ref(node: Any) -> Any:
    """``node`` with pydantic v1's ``{"description": ..., "allOf": [{"$ref": ...}]}`` (a described nested model)
    written as ``{"$ref": ..., "description": ...}``, as pydantic v2 writes it (strict mode refuses ``allOf``)."""
    if isinstance(node, list):
        return [_one_ref(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _one_ref(value) for key, value in node.items()}
    only = out.get("allOf")
    if isinstance(only, list) and len(only) == 1 and isinstance(only[0], dict) and set(only[0]) == {"$ref"}:
        del out["allOf"]
        out = {**only[0], **out}
    return out


def to_tool_spec(obj: Any) -> ToolSpec:
    """Return the :class:`ToolSpec` (name, description, JSON Schema) of ``obj``, anything :func:`to_tool` accepts.

    Args:
        obj: one tool in any form :func:`to_tool` accepts: a :class:`Tool`, a :class:`ToolSpec`, a function with a
            docstring, a pydantic model class, a ``TypedDict`` class, a JSON Schema of an object with a ``title``,
            an OpenAI-, Anthropic- or Gemini-format tool dict, a provider server-tool dict, or a LangChain tool (not
            a list of them).

    Returns:
        The spec: ``obj`` itself for a :class:`ToolSpec` (including a :class:`ToolDictSpec` or :class:`ServerTool`),
        ``tool.spec`` for a :class:`Tool` (a function or a LangChain tool is first made a :class:`Tool`), otherwise a
        new :class:`ToolSpec` (a :class:`ToolDictSpec` for a tool dict with provider keys such as
        ``cache_control``, a :class:`ServerTool` for a server-tool dict). Its ``parameters`` are a self-contained
        JSON Schema of an object (no ``$ref``).

    Raises:
        SchemaError: as :func:`to_tool`: ``obj`` cannot be a tool (the message says what is accepted), its name
            breaks the rule, or its schema is not a valid JSON Schema of an object.
        UserError: a LangChain tool needs an injected argument (see
            :func:`toolwire.interop.langchain.from_langchain_tool`, which takes ``injected=``), or ``obj`` is an OpenAI
            custom (free-form text) tool dict, which toolwire does not support.
    """
    converted = to_tool(obj)
    return converted.spec if isinstance(converted, Tool) else converted


def _is_langchain_tool(obj: Any) -> bool:
    return any(c.__module__.startswith("langchain_core.tools") and c.__name__ == "BaseTool"
               for c in type(obj).__mro__)
