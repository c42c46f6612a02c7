"""Anthropic codec: tools, messages, requests and replies for the Messages API.

Pure functions, no I/O; :class:`toolwire.models.anthropic.ChatAnthropic` does the calls. Formats, from
the Anthropic API reference ("Messages", "Streaming Messages") and the tool-use guide:

* tools: ``{"name", "description", "input_schema"}``; ``input_schema`` is a JSON Schema whose top level is
  ``{"type": "object"}`` (no top-level ``anyOf`` / ``oneOf`` / ``allOf``: the API answers 400 "input_schema
  does not support oneOf, allOf, or anyOf at the top level"; toolwire folds them into the object).
* ``tool_choice``: ``{"type": "auto" | "any" | "tool" | "none", "name"?, "disable_parallel_tool_use"?}``.
* ``system`` is a top-level field; ``messages`` alternate ``user`` and ``assistant``; content blocks
  ``text``, ``image``, ``tool_use`` ``{"id", "name", "input"}`` (assistant), ``tool_result``
  ``{"tool_use_id", "content", "is_error"}`` (user, before any other block of that turn), ``thinking`` /
  ``redacted_thinking`` (kept on the AIMessage as ``provider_data["anthropic"]["content"]`` and sent
  back unchanged; an AIMessage without that, such as one from LangChain's ChatAnthropic, sends the thinking
  blocks of its content list first, and one whose content list holds server tool blocks or cited text is sent in
  that list's order, as is a LangChain v1 turn, its ``reasoning`` blocks as ``thinking`` with their signatures:
  :mod:`~toolwire.models.lowering._anthropic_turns`). Empty text blocks are refused by the API, so they are dropped.
* streaming events: ``message_start``, ``content_block_start`` / ``_delta`` (``text_delta``,
  ``input_json_delta`` (on ``tool_use`` and on server blocks such as ``server_tool_use``), ``citations_delta``,
  ``thinking_delta``, ``signature_delta``, ``compaction_delta``) / ``_stop``, ``message_delta``, ``message_stop``,
  ``error``.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from typing import Any

from toolwire._content_calls import read_content_calls
from toolwire._warn_site import warn_user
from toolwire.errors import UserError
from toolwire.messages import (
    AIMessage,
    BaseMessage,
    SystemMessage,
    ToolMessage,
)
from toolwire.models._sdk_options import refuse_untaken
from toolwire.models.base import ChatRequest, ServerTool, ToolDictSpec, to_tool_spec
from toolwire.models.lowering._anthropic_replies import StreamState, parse_response
from toolwire.models.lowering._anthropic_strict import NotStrictError, anthropic_strict_schema, limit_strict
from toolwire.models.lowering._anthropic_turns import assistant_blocks, text_block, tool_use_id, v1_block_calls
from toolwire.models.lowering._common import (
    ImageBlock,
    assistant_calls,
    block_as_text,
    content_parts,
    fold_top_union,
    group_messages,
    log,
    merge_options,
    merge_tool_option,
    sent_text,
    system_text,
    tool_result_text,
)
from toolwire.models.lowering._media import MediaBlock, anthropic_keys, anthropic_part, refuse_block
from toolwire.models.lowering._turn_ids import TurnIds
from toolwire.models.lowering.openai import StrictSchemaWarning

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "StreamState",
    "check_property_keys",
    "convert_to_anthropic_tool",
    "lower_messages",
    "lower_request",
    "parse_response",
]

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` is required by the Messages API; this is sent when none is given."""

SERVER_TOOL_PROVIDERS = ("anthropic", None)
"""The :attr:`~toolwire.models.base.ServerTool.provider` values sent to Anthropic unchanged: a versioned
``type`` (``web_search_20250305``) or any other ``type`` but ``custom`` (Anthropic tool-use guide)."""


_TOOL_KEYS = frozenset({"cache_control", "defer_loading", "eager_input_streaming", "input_examples", "allowed_callers",
                        "type"})
"""The keys of a tool dict Anthropic's tool definition takes besides ``name``, ``description``, ``input_schema`` and
``strict`` (Messages API reference, ``ToolParam``; ``type`` only as ``"custom"``); any other key (a dumped MCP tool's
``title``, ``annotations``, ``outputSchema``, ``_meta``; OpenAI's ``format``) would be refused with a 400 ("Extra
inputs are not permitted"), so it is dropped with a debug log (review 163 #1)."""


def convert_to_anthropic_tool(tool: Any, *, strict: bool | None = False) -> dict[str, Any]:
    """Return the Anthropic tool definition of a tool, function, pydantic model or tool dict.

    Args:
        tool: anything :meth:`~toolwire.models.base.BaseChatModel.bind_tools` takes as one tool.
        strict: use strict tool use (Anthropic docs, "Strict tool use"): ``"strict": true`` and the schema in its
            subset (:func:`~toolwire.models.lowering._anthropic_strict.anthropic_strict_schema`); None takes a tool
            dict's own ``"strict"``. A schema the subset cannot express is sent non-strict with a
            :class:`~toolwire.models.lowering.openai.StrictSchemaWarning`.

    Returns:
        A server tool's dict unchanged (``{"type": "web_search_20250305", "name": "web_search", ...}``);
        else ``{"name", "description", "input_schema"[, "strict": True]}`` (``description`` left out when empty)
        plus the keys of a tool dict that Anthropic's tool definition takes (``cache_control``, ``defer_loading``,
        ``input_examples``...; other keys, such as a dumped MCP tool's ``title`` or ``annotations``, are dropped with
        a debug log, as the API would refuse the request). A top-level
        ``anyOf``/``oneOf``/``allOf`` (refused by the API) is folded into the object: its own properties and
        required kept, the object branches' properties added, required grown by what every branch requires
        (see :func:`~toolwire.models.lowering._common.merge_object_union`; a debug log says so).

    Raises:
        SchemaError: the object cannot be a tool, or its arguments are a union of non-object schemas.
        UserError: it is a Gemini server tool (``{"google_search": {}}``), or one of its parameter names (a key of
            ``input_schema.properties``) breaks Anthropic's rule for them (:func:`check_property_keys`).
    """
    spec = to_tool_spec(tool)
    if isinstance(spec, ServerTool):
        if spec.provider not in SERVER_TOOL_PROVIDERS:
            raise UserError(f"Tool {spec.definition!r} is a Gemini server tool: Anthropic cannot run it.")
        return copy.deepcopy(spec.definition)
    schema = copy.deepcopy(spec.parameters) or {"type": "object", "properties": {}}
    schema = fold_top_union(spec.name, schema, provider="Anthropic", field="input_schema")
    schema.setdefault("type", "object")
    check_property_keys(spec.name, schema, source=spec.parameters)
    out: dict[str, Any] = {"name": spec.name}
    if spec.description:
        out["description"] = spec.description
    out["input_schema"] = schema
    if isinstance(spec, ToolDictSpec):  # cache_control and the other keys of an Anthropic tool, unchanged
        out.update({k: copy.deepcopy(v) for k, v in spec.extra.items() if k in _TOOL_KEYS})
        if dropped := sorted(k for k in spec.extra if k not in _TOOL_KEYS and k != "strict"):
            log.debug("anthropic: tool %s: dropped %s (not fields of Anthropic's tool definition)", spec.name,
                      ", ".join(dropped))
        if strict is None and isinstance(spec.extra.get("strict"), bool):
            strict = spec.extra["strict"]  # the dict's own flag, as Anthropic's strict tool use guide writes it
    if strict:
        try:
            out["input_schema"] = anthropic_strict_schema(schema)  # (the folded schema: review 98 #1)
            out["strict"] = True
        except NotStrictError as exc:
            warn_user(f"Tool {spec.name!r} cannot use Anthropic strict tool use ({exc}); it is sent non-strict: "
                      f"{exc.advice} to make it strict.", StrictSchemaWarning)
    return out


_PROPERTY_KEY = re.compile(r"[a-zA-Z0-9_.-]{1,64}")
"""The parameter names Anthropic takes: the keys of a tool's top-level ``input_schema.properties`` must match
``^[a-zA-Z0-9_.-]{1,64}$``, or the API refuses the whole request with a 400 ("Property keys should match pattern").
Keys of nested objects are not checked by the API."""


def check_property_keys(tool_name: str, schema: Any, *, source: Any = None) -> None:
    """Refuse a tool whose parameter names Anthropic refuses, before any request is sent (review 145 #2).

    Anthropic answers a request with a 400 for all its tools when one key of a tool's top-level
    ``input_schema.properties`` does not match :data:`_PROPERTY_KEY` (non-ASCII letters such as ``número``, spaces,
    brackets as in ``filter[id]``, ``$top``, more than 64 characters); OpenAI and Gemini take such keys.

    Args:
        tool_name: the tool's name, for the error.
        schema: the tool's ``input_schema`` (anything else, or one without a ``properties`` dict, passes).
        source: the schema ``schema`` was copied from (the tool spec's ``parameters``), if a copy; it or ``schema``
            being the schema of a dict given to ``with_structured_output``
            (:func:`~toolwire.models._structured_dicts.is_output_schema`) makes the error speak of that schema.

    Raises:
        UserError: a parameter name breaks the rule; the error names the tool and the parameter, and gives a name
            that fits: for a tool, to rename a dict's key or give a field or function parameter an alias that fits
            (or to leave the tool out); for structured output from a dict, to rename that key in the schema, whose
            value is returned as written (review 252 #3).
    """
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return
    for key in properties:
        if not (isinstance(key, str) and _PROPERTY_KEY.fullmatch(key)):
            _refuse_key(tool_name, schema, source, key)


def _refuse_key(tool_name: str, schema: Any, source: Any, key: Any) -> None:
    """Raise the UserError of :func:`check_property_keys` for ``key``, with the advice that fits the schema's form."""
    from toolwire.models._structured_dicts import is_output_schema

    rule = "Anthropic's rule for parameter names (1 to 64 ASCII letters, digits, '_', '.' or '-')"
    fitting = _fitting_key(str(key))
    if is_output_schema(schema) or is_output_schema(source):
        raise UserError(
            f"Structured output {tool_name!r} cannot be sent to Anthropic: its schema's key {key!r} breaks {rule}, "
            f"so every request with it would fail; rename that key in the schema given to with_structured_output "
            f"(to {fitting!r}, say), and the value comes back under the new key.")
    raise UserError(
        f"Tool {tool_name!r} cannot be sent to Anthropic: its parameter name {key!r} breaks {rule}, so every request "
        f"with it would fail; rename the parameter, such as {fitting!r} (in a JSON Schema or tool dict, rename the "
        f"key; a function's parameter or a pydantic field can keep its name with an alias that fits, "
        f"Annotated[..., Field(alias={fitting!r})]), or leave the tool out for Anthropic.")


def _fitting_key(key: str) -> str:
    """A parameter name close to ``key`` that fits :data:`_PROPERTY_KEY`: accents dropped (``número`` ->
    ``numero``), any other character outside the rule turned to ``_``, cut to 64 characters."""
    ascii_key = unicodedata.normalize("NFKD", key).encode("ascii", "ignore").decode("ascii")
    fitted = re.sub(r"[^a-zA-Z0-9_.-]+", "_", ascii_key).strip("_")[:64]
    return fitted or "param"


_RESULT_BLOCKS = frozenset({"image", "document", "search_result"})
"""Block types a ``tool_result`` may hold besides text (Anthropic Messages API reference, tool_result content)."""


_NATIVE = frozenset({"text", "image", "document", "search_result", "tool_use", "tool_result", "thinking",
                     "redacted_thinking", "container_upload", "server_tool_use", "mcp_tool_use"})
"""Anthropic's own content block types (Messages API reference), sent as given when toolwire does not read them;
so are the results of its server tools (``web_search_tool_result``, ``mcp_tool_result``...: a ``_tool_result``
suffix)."""


def _native(block: dict[str, Any]) -> bool:
    kind = block.get("type")
    return isinstance(kind, str) and (kind in _NATIVE or kind.endswith("_tool_result"))


def _blocks(content: str | list[Any], in_result: bool = False) -> list[dict[str, Any]]:
    """Message content as Anthropic content blocks (``in_result``: of a tool result).

    Raises:
        UserError: in a user message, a block Anthropic cannot take: a file or audio block it has no form for
            (:func:`_media_block`), an image or file block whose ``base64`` is not text, or a block of a type it
            does not know (another provider's, such as OpenAI's
            ``image_url`` in a shape toolwire does not read, or a misspelled one: :func:`~toolwire.models.lowering.
            _media.refuse_block`).
    """
    out: list[dict[str, Any]] = []
    if in_result and not isinstance(content, str):
        content = [_responses_part(b) for b in content]
    items = [content] if isinstance(content, str) else list(content)
    for item, block in ((given, part) for given in items for part in content_parts([given])):
        if block.get("type") == "text":
            out.append(text_block(block))
        elif isinstance(block, ImageBlock):
            if "file_id" in block:  # an uploaded file (Files API; the beta header is added: models/anthropic.py)
                source: dict[str, Any] = {"type": "file", "file_id": block["file_id"]}
            elif "url" in block:
                source = {"type": "url", "url": block["url"]}
            else:
                source = {"type": "base64", "media_type": block["mime_type"], "data": block["data"]}
            out.append({"type": "image", "source": source, **_image_keys(item)})
        elif block.get("type") == "image" and "source" not in block and not in_result:
            # toolwire's form that content_parts could not read (base64 not text: review 170 #1)
            raise refuse_block(block, "Anthropic's Messages API")
        elif isinstance(block, MediaBlock):
            out.append(_media_block(block, in_result))
        elif in_result and block.get("type") != "text" and not (
                "source" in block and block.get("type") in _RESULT_BLOCKS):
            # a block a tool_result does not take (a file, audio, a document without its source): its JSON as text
            out.append({"type": "text", "text": block_as_text(block)})
        elif in_result or _native(block):
            out.append(block)
        else:
            raise refuse_block(block, "Anthropic's Messages API")
    return out


def _image_keys(item: Any) -> dict[str, Any]:
    """The ``cache_control`` of a LangChain standard image block (on it, or in its ``extras`` or ``metadata``), which
    an Anthropic image block takes, as langchain-anthropic sends it (review 297 #4); ``{}`` for any other item."""
    if isinstance(item, dict) and item.get("type") == "image" and "source" not in item:
        return anthropic_keys(item, ("cache_control",))
    return {}


def _responses_part(block: Any) -> Any:
    """An OpenAI Responses part a tool returned (``input_text``, ``input_image`` with an ``image_url``) as the block
    Anthropic takes for it in a tool result (a text block, an image read from the URL or data URL), so its text is
    not sent as JSON nor its image's base64 as text (review 245 #4); any other block itself."""
    if isinstance(block, dict) and block.get("type") == "input_text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if isinstance(block, dict) and block.get("type") == "input_image" and isinstance(block.get("image_url"), str):
        return {"type": "image_url", "image_url": block["image_url"]}
    return block  # (an input_image by file_id is read as an image by content_parts)


def _media_block(block: MediaBlock, in_result: bool) -> dict[str, Any]:
    """A file, document or audio block as Anthropic takes it (:func:`~toolwire.models.lowering._media.
    anthropic_part`); in a tool result, one it cannot take (audio) goes as its JSON text, as other blocks do there.

    Raises:
        UserError: in a user message, a block Anthropic cannot take (audio, video, a file of another type than PDF,
            text or an image).
    """
    try:
        return anthropic_part(block)
    except UserError:
        if not in_result:
            raise
    return {"type": "text", "text": block_as_text(block)}


def _tool_result(message: ToolMessage) -> dict[str, Any]:
    """A ``tool_result`` block. An error result's content is text only, never empty, as the Messages API requires
    ("content cannot be empty if ``is_error`` is true", "all content must be type 'text' if ``is_error`` is true"): an
    image or document in it is written as a note that it is not shown (:func:`tool_result_text`), and an empty or
    whitespace-only one as ``"Error"`` (review 136 #3: a ``ToolMessage(str(TimeoutError()), status="error")`` made
    every later request a 400). Text content is never whitespace-only ("text content blocks must contain
    non-whitespace text"): a result that is only whitespace (a shell tool's ``"\n"``) is sent without content, as an
    empty one is (review 245 #5)."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id(message.tool_call_id)}
    if message.status == "error":
        parts = [] if isinstance(message.content, str) else content_parts(message.content)
        texts = _blocks(message.content, True) if parts and all(b.get("type") == "text" for b in parts) else None
        text = texts or tool_result_text(message, "an error result takes only text")
        block["content"] = text if texts or text.strip() else "Error"  # (text blocks as blocks: their
        # cache_control kept, review 139 #8)
        block["is_error"] = True
        return block
    content: Any = message.content if isinstance(message.content, str) else _blocks(message.content, True)
    if content and (not isinstance(content, str) or content.strip()):
        block["content"] = content
    return block


def _system_blocks(message: SystemMessage) -> list[dict[str, Any]]:
    system_text(message, "Anthropic's Messages API")  # (an image there: a UserError, review 160 #5)
    return [text_block(b) for b in content_parts(message.content)]


def lower_messages(messages: list[BaseMessage]) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """Lower a conversation to Anthropic's ``(system, messages)``.

    System messages go to the top-level ``system`` (Anthropic has no system role in ``messages``): their
    text joined by blank lines, or, when a text block carries other keys (``cache_control``: Anthropic
    prompt-caching guide), a list of ``{"type": "text", "text", ...}`` blocks kept as given. A SystemMessage
    after the conversation has started is moved there too, with a logged warning (its place is lost).
    Tool results that answer one assistant turn go into one ``user`` turn, as ``tool_result`` blocks in the
    order of that turn's calls (case E3), ahead of any user text that follows; consecutive turns of one role
    are merged; empty text is dropped; text blocks keep their ``cache_control``. A call or result given only as a
    ``tool_use`` / ``tool_result`` content block is read as one first
    (:func:`~toolwire._content_calls.read_content_calls`, as every model's input is: review 195 #2), and so is a
    LangChain v1 turn's call given only as a ``tool_call`` content block
    (:func:`~toolwire.models.lowering._anthropic_turns.v1_block_calls`: review 317 #3), so a ``tool_result`` is
    never sent without its ``tool_use``.

    Args:
        messages: the conversation, toolwire messages in order.

    Returns:
        ``(system, [{"role": "user" | "assistant", "content": [blocks]}])``; ``system`` is a string, a list
        of text blocks, or ``None`` when there is no system text.

    Raises:
        UserError: a block Anthropic cannot take (see :func:`_blocks`), or a ``tool_result`` block without its
            ``tool_use_id``.
    """
    system: list[tuple[str, list[dict[str, Any]]]] = []  # (text, text blocks) of each system message
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for item in group_messages(read_content_calls([v1_block_calls(m) for m in messages])):
        if isinstance(item, list):
            add("user", [_tool_result(m) for m in item])
        elif isinstance(item, SystemMessage):
            blocks = _system_blocks(item)
            if blocks and turns:
                log.warning("anthropic: a SystemMessage after the conversation started is sent in the top-level "
                            "system prompt (Anthropic has no system role in messages), not at its place")
            if blocks:
                system.append((sent_text(item), blocks))
        elif isinstance(item, AIMessage):
            add("assistant", assistant_blocks(item))
        else:
            add("user", _blocks(item.content))
    _unique_use_ids(turns)
    _trim_prefill(turns)
    if any(set(b) - {"type", "text"} for _, blocks in system for b in blocks):
        return [b for _, blocks in system for b in blocks], turns
    return ("\n\n".join(text for text, _ in system) or None), turns


def _trim_prefill(turns: list[dict[str, Any]]) -> None:
    """A conversation that ends with an assistant turn (a prefill) ends without trailing whitespace, which the
    Messages API refuses with HTTP 400 ("final assistant content cannot end with trailing whitespace"; review 160 #6):
    its last text block is stripped on the right, and dropped (with the turn, when nothing is left) when empty."""
    while turns and turns[-1]["role"] == "assistant" and turns[-1]["content"]:
        last = turns[-1]["content"][-1]
        if last.get("type") != "text":
            return
        text = str(last.get("text", "")).rstrip()
        if text:
            turns[-1]["content"][-1] = {**last, "text": text}
            return
        turns[-1]["content"].pop()
        if not turns[-1]["content"]:
            turns.pop()


def _unique_use_ids(turns: list[dict[str, Any]]) -> None:
    """Give every ``tool_use`` block of the conversation its own id, in place.

    Anthropic refuses a request whose ``tool_use`` ids repeat ("tool_use ids must be unique"), which
    happens when a conversation's calls come from several sources (a provider that numbers calls
    ``call_1``... in every reply, hand-written history). A repeated id becomes ``<id>_2``, ``<id>_3``...
    and the ``tool_result`` blocks of the next user turn that answer it follow, in call order (the
    results sit in that turn: :func:`~toolwire.models.lowering._common.group_messages`). The renaming is the
    Responses API lowering's too (:class:`~toolwire.models.lowering._turn_ids.TurnIds`).
    """
    ids = TurnIds()
    for n, turn in enumerate(turns):
        if turn["role"] != "assistant":
            continue
        ids.turn()
        for block in turn["content"]:
            if block.get("type") == "tool_use":
                block["id"] = ids.call(str(block.get("id")))
        for block in turns[n + 1]["content"] if n + 1 < len(turns) else ():
            if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                block["tool_use_id"] = ids.answer(block["tool_use_id"])


def _tool_choice(choice: str | None, parallel: bool | None) -> dict[str, Any] | None:
    if choice is None and parallel is not False:
        return None
    if choice == "none":
        return {"type": "none"}
    if choice in (None, "auto"):
        out: dict[str, Any] = {"type": "auto"}
    elif choice == "required":
        out = {"type": "any"}
    else:
        out = {"type": "tool", "name": choice}
    if parallel is False:
        out["disable_parallel_tool_use"] = True
    return out


def lower_request(request: ChatRequest, model: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the keyword arguments of ``client.messages.create``.

    ``max_tokens`` defaults to :data:`DEFAULT_MAX_TOKENS` (the API requires it); ``stop`` becomes
    ``stop_sequences``; a ``tools`` option (``model_kwargs={"tools": [...]}``, e.g. server tools) is added
    after the bound tools, never in their place; ``temperature``, ``top_p`` and other keys (``top_k``,
    ``thinking``...) pass as is. When the conversation's last assistant turn holds calls and its reply gave a
    code execution ``container`` (:func:`_pending_container`), that container's id is sent as ``container``: the
    API refuses the results of tool uses that code execution made without it (programmatic tool calling, review
    216 #1); a ``container`` option wins.

    Args:
        request: messages, tools, tool_choice, parallel_tool_calls, per-call options.
        model: the model name.
        options: model-level default options (overridden by ``request.options``).

    Returns:
        ``{"model", "max_tokens", "messages"[, "system", "tools", "tool_choice", "container"], ...options}``.

    Raises:
        UserError: ``seed`` was asked for (the Messages API has none), the ``tools`` option repeats a
            bound tool's name, a server tool is Gemini's, or the conversation leaves no message to send (a system
            message alone, or an empty question: the API needs at least one).
        SchemaError: a bound tool cannot be written as an Anthropic tool.
    """
    system, messages = lower_messages(request.messages)
    if not messages:  # (the API refuses "messages": [] with HTTP 400 after a round trip: review 211 #4)
        raise UserError("Anthropic needs at least one user message with text or content, and a system message alone "
                        "(or an empty question) is not one: pass the question as a user message.")
    opts = merge_options(options, request.options)
    body: dict[str, Any] = {"model": model, "max_tokens": int(opts.pop("max_tokens", DEFAULT_MAX_TOKENS)),
                            "messages": messages}
    if system:
        body["system"] = system
    if container := _pending_container(request.messages):
        body["container"] = container  # (before the options: a container option wins)
    if request.tools:
        body["tools"] = [convert_to_anthropic_tool(t, strict=request.strict) for t in request.tools]
        choice = _tool_choice(request.tool_choice, request.parallel_tool_calls)
        if choice:
            body["tool_choice"] = choice
    refuse_untaken("anthropic", opts)  # (the model refused its own options when built)
    for key, value in opts.items():
        if key == "stop":
            body["stop_sequences"] = [value] if isinstance(value, str) else list(value)
        elif key == "tools":
            body["tools"] = _merge_tools(body.get("tools") or [], value)
        else:
            body[key] = value
    if body.get("tools"):  # the per-request limits of strict tool use, over the bound tools and the option's
        bound = len(request.tools)
        body["tools"] = limit_strict(body["tools"], lambda i: convert_to_anthropic_tool(request.tools[i]) if i < bound
                                     else {k: v for k, v in body["tools"][i].items() if k != "strict"})
    return body


def _pending_container(messages: list[BaseMessage]) -> str | None:
    """The container id a request for ``messages`` must send: that of the conversation's last assistant turn
    (``provider_data["anthropic"]["container"]["id"]``, kept from its reply) when that turn holds calls, whose
    results this request brings (Anthropic answers 400 "container_id is required when there are pending tool uses
    generated by code execution with tools" without it); ``None`` when there is no such turn, it has no calls, or its
    reply gave no container.

    Args:
        messages: the conversation, toolwire messages in order.

    Returns:
        The container id, or ``None``.
    """
    last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if last is None:
        return None
    kept = (last.provider_data or {}).get("anthropic")
    container = kept.get("container") if isinstance(kept, dict) else None
    uses = kept.get("content") if isinstance(kept, dict) and isinstance(kept.get("content"), list) else []
    if not isinstance(container, dict) or not isinstance(container.get("id"), str) or not container["id"]:
        return None
    pending = assistant_calls(last) or any(isinstance(b, dict) and b.get("type") == "tool_use" for b in uses)
    return container["id"] if pending else None


def _merge_tools(bound: list[dict[str, Any]], given: Any) -> list[dict[str, Any]]:
    """The bound tools, then the ``tools`` option's: dicts in Anthropic's form (``input_schema``, or a typed
    server tool) sent unchanged, anything else converted (see :func:`merge_tool_option`); the parameter names of
    those sent unchanged are checked too (:func:`check_property_keys`)."""
    merged = merge_tool_option(bound, given, convert=convert_to_anthropic_tool, as_is=lambda item: isinstance(
        item, dict) and ("input_schema" in item or (isinstance(item.get("type"), str) and item["type"] != "function")))
    for item in merged[len(bound):]:
        check_property_keys(str(item.get("name")), item.get("input_schema"))
    return merged
