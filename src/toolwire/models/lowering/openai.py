"""OpenAI codec: tools, messages, requests and replies for Chat Completions and the Responses API.

Pure functions, no I/O; :class:`toolwire.models.openai.ChatOpenAI` does the calls. Formats, from the
OpenAI API reference:

* Chat Completions ("Create chat completion"): ``tools[].function`` = ``{"name", "description",
  "parameters", "strict"}``; messages ``system`` / ``user`` / ``assistant`` (``tool_calls[{"id", "type":
  "function", "function": {"name", "arguments"}}]``) / ``tool`` (``tool_call_id``); ``tool_choice`` is
  ``"auto" | "none" | "required" | {"type": "function", "function": {"name"}}``; ``parallel_tool_calls``.
  Streaming ("The chat completion chunk object"): ``choices[].delta.tool_calls[{"index", "id"?,
  "function": {"name"?, "arguments"}}]``.
* Responses ("Create a model response"): ``tools[]`` = ``{"type": "function", "name", "description",
  "parameters", "strict"}`` (``strict`` defaults to true there, so it is always sent); input items
  ``{"role", "content"}``, ``{"type": "function_call", "call_id", "name", "arguments"}``,
  ``{"type": "function_call_output", "call_id", "output"}`` and ``reasoning`` items, which are kept on
  the AIMessage (``provider_data["openai"]["reasoning"]``) and sent back unchanged, in the order of the reply's
  output, each ``message`` and ``function_call`` item with its own ``id`` (``msg_...``, ``fc_...``; kept in
  ``provider_data["openai"]["output"]``). Replies are read in :mod:`~toolwire.models.lowering._openai_replies`
  (``parse_responses_response``, ``ResponsesStreamState``, re-exported here); assistant turns are written back
  by :mod:`~toolwire.models.lowering._openai_turns`.

Refusals (``message.refusal`` / ``delta.refusal`` in Chat Completions, ``refusal`` content parts and
``response.refusal.delta`` in the Responses API) are the reply's text, the same in ``invoke`` and ``stream``;
``response_metadata["refusal"]`` holds the refusal text and ``finish_reason`` is ``"refusal"``, so the Agent
stops with ``stop_reason="refusal"`` (as for Anthropic's ``refusal`` stop reason).

Strict mode rules (OpenAI Structured Outputs guide, "Supported schemas"): every object lists all its
properties in ``required`` and sets ``additionalProperties: false``; an optional parameter is expressed
as a nullable type; ``default``, ``oneOf``, ``allOf``, ``not``, ``uniqueItems``, ``prefixItems`` are not
supported; a schema has size limits (5000 properties, 10 levels of nesting, 1000 enum values...).
:func:`strict_schema` (in ``_openai_strict``) rewrites a schema into that subset where it can (a
disjoint ``oneOf`` becomes ``anyOf``; ``discriminator``/``uniqueItems`` dropped). What it cannot write,
such as an object that takes arbitrary keys (``dict[str, str]``, a model with ``extra="allow"``) or a
``tuple``, or a schema past the size limits, makes the tool go non-strict, with a warning (case S5).
"""

from __future__ import annotations

import copy
import logging
import warnings
from collections.abc import Callable, Collection
from typing import Any

from toolwire.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from toolwire.models._sdk_options import refuse_untaken
from toolwire.models.base import ChatRequest, ServerTool, ToolDictSpec, to_tool_spec
from toolwire.models.lowering._calls import CUT_OFF, STREAM_CUT
from toolwire.models.lowering._common import (
    arguments_json,
    assistant_calls,
    content_parts,
    fold_top_union,
    group_messages,
    merge_options,
    merge_tool_option,
    native_call,
    split_calls,
    tool_result_text,
    usage,
)
from toolwire.models.lowering._media import CHAT_PARTS, RESPONSES_PARTS, MediaBlock, chat_part, responses_part
from toolwire.models.lowering._media import refuse_block as _refused
from toolwire.models.lowering._openai_compat import (
    REASONING_KEY,
    is_first,
    pick_choice,
    raise_stream_error,
    read_content,
    reasoning_of,
    same_choice,
)
from toolwire.models.lowering._openai_replies import REFUSAL, ResponsesStreamState, parse_responses_response
from toolwire.models.lowering._openai_replies import as_dict as _as_dict
from toolwire.models.lowering._openai_replies import metadata as _metadata
from toolwire.models.lowering._openai_strict import StrictLimitError, strict_schema
from toolwire.models.lowering._openai_turns import (
    CHAT_ID_LIMIT,
    RESPONSES_ID_LIMIT,
    capped_call_id,
    responses_turn_items,
)
from toolwire.models.lowering._stream import ToolCallMerger, cut_calls
from toolwire.models.lowering._stream_errors import cut_short

__all__ = [
    "CHAT_ID_LIMIT",
    "RESPONSES_ID_LIMIT",
    "ResponsesStreamState",
    "StreamState",
    "StrictSchemaWarning",
    "capped_call_id",
    "convert_to_openai_responses_tool",
    "convert_to_openai_tool",
    "lower_messages",
    "lower_request",
    "lower_responses_messages",
    "lower_responses_request",
    "parse_response",
    "parse_responses_response",
    "strict_schema",
]

log = logging.getLogger("toolwire.lowering")

RETURN_REASONING = "return_reasoning"
"""The ``provider_data["openai"]`` flag of a reply whose ``reasoning_content`` goes back with its tool calls."""

LENGTH = "length"  # the finish_reason of a reply the output token limit cut short


class StrictSchemaWarning(UserWarning):
    """A tool asked for strict mode has a schema strict mode cannot express; it is sent non-strict."""


def convert_to_openai_tool(tool: Any, *, strict: bool | None = False) -> dict[str, Any]:
    """Return the OpenAI Chat Completions tool dict of a tool, function, pydantic model or tool dict.

    Args:
        tool: anything :func:`toolwire.models.to_tool` accepts.
        strict: write the schema in strict mode (:func:`strict_schema`); None takes a tool dict's own
            ``"strict"`` (OpenAI function-calling guide), else not strict. A schema strict mode cannot
            express (a free-form ``dict``, an object with ``extra="allow"``, a ``tuple``, a parameter
            without a type, a ``oneOf`` whose alternatives may overlap, ``allOf``/``not``/``if``, a
            top-level union) or past the Structured Outputs size limits (5000 properties, 10 levels of
            nested objects, 1000 enum values...) is sent non-strict with a :class:`StrictSchemaWarning`.

    Returns:
        ``{"type": "function", "function": {"name", "description", "parameters"[, "strict": True]}}``. A
        top-level ``anyOf``/``oneOf``/``allOf`` of objects (OpenAI answers 400 "schema must have type
        'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level") is folded into one
        object (:func:`~toolwire.models.lowering._common.fold_top_union`), sent non-strict.

    Raises:
        SchemaError: the object cannot be a tool, or its arguments are a top-level union of schemas that
            are not objects.
    """
    spec = to_tool_spec(tool)
    if strict is None and isinstance(spec, ToolDictSpec) and isinstance(spec.extra.get("strict"), bool):
        strict = spec.extra["strict"]  # the dict's own flag, as written in OpenAI's guide
    parameters = fold_top_union(spec.name, spec.parameters, provider="OpenAI", field="function parameters")
    function: dict[str, Any] = {"name": spec.name, "description": spec.description, "parameters": parameters}
    if strict:
        try:
            function["parameters"] = strict_schema(spec.parameters)
            function["strict"] = True
        except ValueError as exc:
            fix = ("Split the tool, or give it fewer or flatter parameters" if isinstance(exc, StrictLimitError)
                   else "Give the parameter a pydantic model with named fields")
            warnings.warn(
                f"Tool {spec.name!r} cannot use OpenAI strict mode ({exc}); it is sent non-strict. "
                f"{fix} to make it strict.",
                StrictSchemaWarning,
                stacklevel=2,
            )
            log.debug("tool %s sent non-strict: %s", spec.name, exc)
    return {"type": "function", "function": function}


def _function_parts(tool: Any, strict: bool | None) -> tuple[Any, dict[str, Any], bool]:
    spec = to_tool_spec(tool)
    function = convert_to_openai_tool(spec, strict=strict)["function"]
    return spec, function["parameters"], bool(function.get("strict"))


def convert_to_openai_responses_tool(tool: Any, *, strict: bool | None = False) -> dict[str, Any]:
    """Return the Responses API function tool of ``tool`` (OpenAI API reference, Responses, "Function"); ``tool``
    and ``strict`` are read as :func:`convert_to_openai_tool` reads them.

    Returns:
        ``{"type": "function", "name", "description", "parameters", "strict"}`` (``strict`` always: a missing one
        reads as true).

    Raises:
        SchemaError: the object cannot be a tool.
    """
    spec, parameters, is_strict = _function_parts(tool, strict)
    return {"type": "function", "name": spec.name, "description": spec.description,
            "parameters": parameters, "strict": is_strict}


# --------------------------------------------------------------------------- Chat Completions


def _data_url(block: dict[str, Any]) -> str:
    return block["url"] if "url" in block else f"data:{block['mime_type']};base64,{block['data']}"


def _content_parts(content: str | list[Any], text_type: str, image: Any, media: Callable[[MediaBlock], dict[str, Any]],
                   native: frozenset[str] = CHAT_PARTS, api: str = "OpenAI's Chat Completions API") -> Any:
    """Content blocks (a string, or a list) in an OpenAI API's own part types (Chat Completions and Responses);
    ``image(url, detail)`` makes an image part, ``detail`` ``{"detail": ...}`` or ``{}``; ``media`` a file or audio
    part (:mod:`~toolwire.models.lowering._media`); a block of one of ``api``'s ``native`` types is sent as given.

    Raises:
        UserError: a block of another type (:func:`~toolwire.models.lowering._media.refuse_block`), or a file
            or audio block ``api`` cannot take.
    """
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for block in content_parts(content):
        if block.get("type") == "text":
            parts.append({"type": text_type, "text": block["text"]})
        elif block.get("type") == "image" and ("url" in block or "data" in block):
            parts.append(image(_data_url(block), {"detail": block["detail"]} if "detail" in block else {}))
        elif isinstance(block, MediaBlock):
            parts.append(media(block))
        elif block.get("type") in native and "source" not in block:
            parts.append(block)
        else:
            raise _refused(block, api)
    return parts or ""


def _chat_parts(content: str | list[Any]) -> str | list[dict[str, Any]]:
    return _content_parts(content, "text",
                          lambda url, detail: {"type": "image_url", "image_url": {"url": url, **detail}}, chat_part)


def lower_messages(messages: list[BaseMessage], *, compatible: bool = False) -> list[dict[str, Any]]:
    """Return the conversation ``messages`` lowered to Chat Completions ``messages`` (a list of message dicts).

    System and tool content is sent as text (blocks joined); user content keeps its parts (text, ``image_url``);
    an assistant turn carries ``content`` (``None`` when it only calls tools, as the OpenAI reference allows;
    ``""`` when ``compatible`` is set, since servers such as llama.cpp's validate ``content`` as a string) and
    ``tool_calls`` (invalid calls included, with their raw argument text, since a result answers them); tool
    results follow their turn in the order of its calls. Call ids longer than 40 characters are cut
    (:func:`capped_call_id`), alike in a call and its result.

    Reasoning text is not sent back, except on a turn with tool calls whose server sent it in
    ``reasoning_content`` (``provider_data["openai"]["return_reasoning"]``), and only when ``compatible``:
    there it goes back as ``reasoning_content``, since DeepSeek's thinking mode (its guide "Thinking Mode",
    "Tool Calls") and Kimi's thinking models answer 400 "Missing reasoning_content field" for a tool-call
    turn sent without it. Reasoning sent in ``reasoning`` (Groq, OpenRouter, newer vLLM, Ollama) or in
    ``thinking`` content parts (Mistral) is not sent back: Groq and Mistral refuse unknown message fields.
    """
    out: list[dict[str, Any]] = []
    for item in group_messages(messages):
        if isinstance(item, list):
            out.extend({"role": "tool", "tool_call_id": capped_call_id(m.tool_call_id), "content": tool_result_text(m)}
                       for m in item)
        elif isinstance(item, SystemMessage):
            out.append({"role": "system", "content": item.text})
        elif isinstance(item, AIMessage):
            calls = assistant_calls(item)
            empty = None if calls and not compatible else ""
            msg: dict[str, Any] = {"role": "assistant", "content": item.text or empty}
            if calls:
                msg["tool_calls"] = [
                    {"id": capped_call_id(c["id"]), "type": "function",
                     "function": {"name": c.get("name") or "unknown_tool", "arguments": arguments_json(c)}}
                    for c in calls
                ]
                kept = (item.provider_data or {}).get("openai") or {}
                reasoning = kept.get(REASONING_KEY)
                if compatible and kept.get(RETURN_REASONING) is True and isinstance(reasoning, str) and reasoning:
                    msg[REASONING_KEY] = reasoning
            out.append(msg)
        elif isinstance(item, HumanMessage):
            out.append({"role": "user", "content": _chat_parts(item.content)})
        else:
            out.append({"role": "user", "content": item.text})
    return out


def _chat_tool_choice(choice: str) -> Any:
    if choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def lower_request(request: ChatRequest, model: str, options: dict[str, Any] | None = None, *,
                  max_tokens_field: str = "max_completion_tokens", compatible: bool = False) -> dict[str, Any]:
    """Build the keyword arguments of ``client.chat.completions.create``.

    Args:
        request: messages, tools, tool_choice, parallel_tool_calls, strict, per-call options.
        model: the model name.
        options: model-level default options (overridden by ``request.options``). ``max_tokens`` goes to
            ``max_tokens_field``; a ``tools`` option (``model_kwargs={"tools": [...]}``) is added after the bound
            tools, never in their place (typed dicts sent unchanged, anything else converted); ``temperature``,
            ``top_p``, ``stop``, ``seed`` and any other key pass as is.
        max_tokens_field: ``"max_completion_tokens"`` (OpenAI) or ``"max_tokens"`` (OpenAI-compatible
            servers such as vLLM, SGLang, llama.cpp, Ollama).
        compatible: the request goes to an OpenAI-compatible server, not OpenAI (see
            :func:`lower_messages`).

    Returns:
        ``{"model", "messages"[, "tools", "tool_choice", "parallel_tool_calls"], ...options}``.

    Raises:
        UserError: the ``tools`` option is not a list, or repeats a bound tool's name.
    """
    body: dict[str, Any] = {"model": model, "messages": lower_messages(request.messages, compatible=compatible)}
    if request.tools:
        body["tools"] = [convert_to_openai_tool(t, strict=request.strict) for t in request.tools]
        if request.tool_choice:
            body["tool_choice"] = _chat_tool_choice(request.tool_choice)
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    for key, value in merge_options(options, request.options).items():
        if key == "tools":  # after the bound tools, never in their place
            body["tools"] = merge_tool_option(
                body.get("tools") or [], value, as_is=lambda item: isinstance(item, dict) and isinstance(
                    item.get("type"), str), convert=lambda item: convert_to_openai_tool(item, strict=request.strict))
        else:
            body[max_tokens_field if key == "max_tokens" else key] = value
    return body


def _chat_usage(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return None
    cached = (raw.get("prompt_tokens_details") or {}).get("cached_tokens")
    return usage(raw.get("prompt_tokens"), raw.get("completion_tokens"), raw.get("total_tokens"), cached)


def _chat_metadata(model: Any, finish: Any, **extra: Any) -> dict[str, Any]:
    """Chat Completions metadata: ``finish_reason`` is always there, ``None`` when the server sent none."""
    return {**_metadata(model, finish, **extra), "finish_reason": finish}


def _reasoning_data(reasoning: str, returned: bool = False) -> dict[str, Any] | None:
    """``provider_data`` of a reply's reasoning; ``returned``: the server sent it in ``reasoning_content``
    and the reply has tool calls, so :func:`lower_messages` sends it back (DeepSeek, Kimi thinking mode)."""
    if not reasoning:
        return None
    return {"openai": {REASONING_KEY: reasoning, RETURN_REASONING: True} if returned else {REASONING_KEY: reasoning}}


def _field_text(message: dict[str, Any], key: str) -> str:
    value = message.get(key)
    return value if isinstance(value, str) else ""


def parse_response(obj: Any, *, tool_names: Collection[str] | None = None) -> AIMessage:
    """Read a Chat Completions reply (``chat.completion`` object, or the SDK's ``ChatCompletion``).

    Args:
        obj: the reply.
        tool_names: the bound tools' names, listed in the error of a call that has no name (``None``: not
            known, the error names no tools).

    Returns:
        An AIMessage of the choice with ``index`` 0 (else the first): ``content`` = its text (``""`` when null; the
        ``text`` parts joined when it is a list of parts, other parts kept as blocks after the text), ``tool_calls``
        from ``message.tool_calls``, or from the deprecated ``message.function_call`` (``finish_reason``
        ``"function_call"``, a call with a generated id) when there are none (arguments JSON text read with
        :func:`~toolwire.parsing.normalize_arguments`; unreadable ones become invalid calls keeping the text; with
        ``finish_reason: "length"``, a call whose arguments are empty is cut off too, an invalid call never run),
        ``usage`` in tokens, ``response_metadata`` ``{"model", "finish_reason"}`` (``finish_reason`` ``None`` when the
        server sent none), ``provider_data["openai"]["reasoning_content"]`` = the reasoning text
        (``reasoning_content`` / ``reasoning`` / ``thinking`` parts, see
        :mod:`~toolwire.models.lowering._openai_compat`; with ``"return_reasoning": True`` when it came in
        ``reasoning_content`` beside tool calls), ``id``. A ``message.refusal`` is the content's text (after any other
        text), ``response_metadata["refusal"]`` and ``finish_reason`` ``"refusal"``.
    """
    data = _as_dict(obj)
    choice = pick_choice(data.get("choices") or ())
    message = choice.get("message") or {}
    cut = choice.get("finish_reason") == LENGTH  # a call whose arguments never began was cut off, not {}
    calls = [native_call((tc.get("function") or {}).get("name"), (tc.get("function") or {}).get("arguments"),
                         tc.get("id"), tool_names, cut=cut) for tc in message.get("tool_calls") or ()]
    legacy = message.get("function_call")
    if not calls and isinstance(legacy, dict):  # the deprecated single-call form (functions API), no id
        calls = [native_call(legacy.get("name"), legacy.get("arguments"), None, tool_names, cut=cut)]
    valid, invalid = split_calls(calls)
    refusal = _field_text(message, "refusal")
    parts = read_content(message.get("content"))
    text = parts.text + refusal
    content: str | list[Any] = text
    if parts.blocks:
        content = [{"type": "text", "text": text}, *parts.blocks] if text else parts.blocks
    finish = REFUSAL if refusal else choice.get("finish_reason")
    returned = bool(calls and _field_text(message, REASONING_KEY))
    return AIMessage(content, tool_calls=valid, invalid_tool_calls=invalid,
                     usage=_chat_usage(data.get("usage")),
                     response_metadata=_chat_metadata(data.get("model"), finish, refusal=refusal or None),
                     provider_data=_reasoning_data(reasoning_of(message) + parts.reasoning, returned),
                     id=data.get("id"))


_LEGACY_CALL = "function_call"  # the merger's key for a streamed legacy ``delta.function_call``


class StreamState:
    """Folds Chat Completions stream chunks (``chat.completion.chunk`` objects) into AIMessageChunks.

    ``feed(chunk)`` returns the chunk's text and tool-call pieces (or ``None``); ``finish()`` returns the
    last chunk with usage (sent when ``stream_options.include_usage`` is set), finish reason, model, the
    reasoning text (``provider_data``) and any content part that is neither text nor thinking. Only the
    choice with index 0 is read; a stream that never sends one gives the first index it sent, whole, in
    ``finish()`` (as :func:`parse_response` falls back to the first choice). Merged with
    :func:`~toolwire.messages.merge_chunks` they equal :func:`parse_response` of the same reply.

    A stream that ends without a ``finish_reason`` was cut short (the ``openai`` SDK does not say whether
    ``data: [DONE]`` came, and llama.cpp server reports a failure mid-stream in an ``error:`` line the SDK
    skips). Under OpenAI's rules (``compatible=False``: OpenAI, Azure, a gateway in front of them) every
    stream's last choice chunk has one (OpenAI API reference, "The chat completion chunk object"), so
    ``finish()`` raises a retryable ProviderError, as the Responses, Anthropic and Gemini codecs do. With
    ``compatible=True`` it is not refused, since some OpenAI-compatible servers never send one: ``finish()``
    logs a warning and sets ``response_metadata["finish_reason"]`` to ``None``. Either way a tool call whose
    argument text is unclosed or never began when the stream ended without a ``finish_reason``, or with
    ``"length"`` (the token limit), is an InvalidToolCall, never run, with the cut-off error
    (:data:`~toolwire.models.lowering._calls.CUT_OFF` for ``"length"``,
    :data:`~toolwire.models.lowering._calls.STREAM_CUT` for a stream that lost its end): ``finish()`` declares them
    (``""`` is ``{}`` only in a reply that finished), and the merged message leaves their chunks out. In a reply that
    finished normally, unclosed argument text is an invalid call with the ordinary "not valid JSON" error.

    ``delta.refusal`` pieces are text, as :func:`parse_response` reads ``message.refusal``.

    Args:
        compatible: the stream comes from an OpenAI-compatible server (a missing ``finish_reason`` is then
            tolerated, see above), not from OpenAI.

    Raises:
        ProviderError: an error event (``{"object": "error", "message"}``) arrives, or, in ``finish()``, the
            stream brought no chunk at all, or (``compatible=False``) none with a ``finish_reason`` (retryable).
    """

    def __init__(self, *, compatible: bool = False) -> None:
        self.compatible = compatible
        self.merger = ToolCallMerger()
        self.id: str | None = None
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.reasoning: list[str] = []
        self.reasoning_field = False  # some reasoning came in reasoning_content
        self.refusal: list[str] = []
        self.blocks: list[dict[str, Any]] = []
        self.chunks = 0
        self.seen_first = False  # a choice with index 0 came
        self.other: list[dict[str, Any]] = []  # until then, the choices of the first other index
        self.tool_calls_seen = False  # a delta brought tool_calls (a legacy function_call is then not read)
        self.legacy: list[dict[str, Any]] = []  # the delta.function_call pieces, read in finish() when alone

    def _read(self, choice: dict[str, Any]) -> tuple[str, list[Any]]:
        delta = choice.get("delta") or {}
        parts = read_content(delta.get("content"))
        self.reasoning.extend((reasoning_of(delta), parts.reasoning))
        self.reasoning_field = self.reasoning_field or bool(_field_text(delta, REASONING_KEY))
        refusal = _field_text(delta, "refusal")
        self.refusal.append(refusal)
        self.blocks.extend(parts.blocks)
        pieces = []
        for tc in delta.get("tool_calls") or ():
            fn = tc.get("function") or {}
            pieces.append(self.merger.add(index=tc.get("index"), id=tc.get("id"), name=fn.get("name"),
                                          args=fn.get("arguments")))
        self.tool_calls_seen = self.tool_calls_seen or bool(delta.get("tool_calls"))
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):  # the deprecated single-call form: held until finish() knows there were
            self.legacy.append(legacy)  # no tool_calls (llama-cpp-python's handlers send the call in both)
        self.finish_reason = choice.get("finish_reason") or self.finish_reason
        return parts.text + refusal, pieces

    def feed(self, event: Any) -> AIMessageChunk | None:
        """Return the text and tool-call pieces of one streamed ``event`` (a chunk) as an AIMessageChunk or ``None``."""
        data = _as_dict(event)
        raise_stream_error(data)
        self.chunks += 1
        self.id = self.id or data.get("id")
        self.model = data.get("model") or self.model
        if data.get("usage"):
            self.usage = _chat_usage(data["usage"])
        text = ""
        pieces = []
        for choice in data.get("choices") or ():
            if is_first(choice):
                self.seen_first, self.other = True, []
                more, new = self._read(choice)
                text += more
                pieces += new
            elif not self.seen_first and (not self.other or same_choice(choice, self.other[0])):
                self.other.append(choice)
        if not text and not pieces:
            return None
        return AIMessageChunk(text, tool_call_chunks=pieces, id=self.id)

    def finish(self) -> AIMessageChunk:
        """Return the closing chunk: usage, ``{"model", "finish_reason"[, "refusal"]}``, reasoning, other parts.

        Raises:
            ProviderError: no chunk came at all, or (``compatible=False``) no ``finish_reason`` came (retryable).
        """
        if not self.chunks:
            raise cut_short("openai", "chunk")
        if self.finish_reason is None and not self.compatible:
            raise cut_short("openai", "chunk with a finish_reason")
        text = ""
        pieces = []
        for choice in self.other:
            more, new = self._read(choice)
            text += more
            pieces += new
        if not self.tool_calls_seen:  # as parse_response reads message.function_call: one call, whole
            pieces += [self.merger.add(index=_LEGACY_CALL, name=p.get("name"), args=p.get("arguments"))
                       for p in self.legacy]
        if self.finish_reason is None:
            log.warning("The chat completion stream%s ended without a finish_reason: the reply may be cut short "
                        "(response_metadata['finish_reason'] is None).", f" {self.id}" if self.id else "")
        content: str | list[Any] = text
        if self.blocks:
            content = [{"type": "text", "text": text}, *self.blocks] if text else list(self.blocks)
        refusal = "".join(self.refusal)
        finish = REFUSAL if refusal else self.finish_reason
        returned = self.reasoning_field and len(self.merger) > 0
        cut = cut_calls(self.merger, CUT_OFF if self.finish_reason == LENGTH else STREAM_CUT) \
            if self.finish_reason in (None, LENGTH) else []
        return AIMessageChunk(content, tool_call_chunks=pieces, invalid_tool_calls=cut, usage=self.usage,
                              response_metadata=_chat_metadata(self.model, finish, refusal=refusal or None),
                              provider_data=_reasoning_data("".join(self.reasoning), returned), id=self.id)


# --------------------------------------------------------------------------- Responses API


def _responses_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    return _content_parts(content, "input_text",
                          lambda url, detail: {"type": "input_image", "image_url": url, **detail}, responses_part,
                          RESPONSES_PARTS, "OpenAI's Responses API")


def lower_responses_messages(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """Lower a conversation to Responses API ``input`` items.

    An assistant turn becomes its output items in the order the reply gave them: ``reasoning`` items unchanged,
    ``message`` items with their ``id`` and ``status``, ``function_call`` items with theirs (a reasoning item sent
    back must be followed by the item that followed it; see
    :func:`~toolwire.models.lowering._openai_turns.responses_turn_items`); tool results become
    ``function_call_output`` items in the order of the calls.
    Call ids longer than 64 characters are cut (:func:`capped_call_id`), alike in a call and its result.

    Args:
        messages: the conversation (toolwire messages).

    Returns:
        The ``input`` items, dicts in the Responses API's form.
    """
    items: list[dict[str, Any]] = []
    for item in group_messages(messages):
        if isinstance(item, list):
            items.extend({"type": "function_call_output", "call_id": capped_call_id(m.tool_call_id, RESPONSES_ID_LIMIT),
                          "output": tool_result_text(m)} for m in item)
        elif isinstance(item, SystemMessage):
            items.append({"role": "system", "content": item.text})
        elif isinstance(item, AIMessage):
            items.extend(responses_turn_items(item))
        elif isinstance(item, HumanMessage):
            items.append({"role": "user", "content": _responses_content(item.content)})
        else:
            items.append({"role": "user", "content": item.text})
    return items


def lower_responses_request(request: ChatRequest, model: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the keyword arguments of ``client.responses.create``.

    ``max_tokens`` becomes ``max_output_tokens``; a ``tools`` option (``model_kwargs={"tools": [...]}``, e.g.
    ``{"type": "web_search"}``) is added after the bound tools, never in their place (typed dicts in the
    Responses form sent unchanged, anything else converted); ``temperature``, ``top_p`` and other keys pass as is.

    Args:
        request: messages, tools, tool_choice, parallel_tool_calls, per-call options.
        model: the model name.
        options: model-level default options (overridden by ``request.options``).

    Returns:
        ``{"model", "input"[, "tools", "tool_choice", "parallel_tool_calls"], ...options}``.

    Raises:
        UserError: ``stop`` or ``seed`` was asked for: the Responses API has neither (use Chat
            Completions, ``use_responses_api=False``); or the ``tools`` option is not a list or repeats a
            bound tool's name.
    """
    body: dict[str, Any] = {"model": model, "input": lower_responses_messages(request.messages)}
    if request.tools:
        body["tools"] = [copy.deepcopy(t.definition) if isinstance(t, ServerTool)  # a built-in tool, unchanged
                         else convert_to_openai_responses_tool(t, strict=request.strict) for t in request.tools]
        if request.tool_choice:
            choice = request.tool_choice
            body["tool_choice"] = choice if choice in ("auto", "none", "required") else {"type": "function",
                                                                                        "name": choice}
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    opts = merge_options(options, request.options)
    refuse_untaken("responses", opts)  # (the model refused its own options when built)
    for key, value in opts.items():
        if key == "tools":  # after the bound tools, never in their place
            body["tools"] = merge_tool_option(
                body.get("tools") or [], value,
                as_is=lambda item: isinstance(item, dict) and isinstance(item.get("type"), str)
                and "function" not in item,
                convert=lambda item: convert_to_openai_responses_tool(item, strict=request.strict))
        else:
            body["max_output_tokens" if key == "max_tokens" else key] = value
    return body
