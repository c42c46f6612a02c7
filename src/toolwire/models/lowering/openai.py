"""OpenAI codec: tools, messages, requests and replies for Chat Completions and the Responses API.

Pure functions, no I/O; :class:`toolwire.models.openai.ChatOpenAI` does the calls. Formats, from the
OpenAI API reference:

* Chat Completions ("Create chat completion"): ``tools[].function`` = ``{"name", "description",
  "parameters", "strict"}``; messages ``system`` / ``user`` / ``assistant`` (``tool_calls[{"id", "type":
  "function", "function": {"name", "arguments"}}]``) / ``tool`` (``tool_call_id``); ``tool_choice`` is
  ``"auto" | "none" | "required" | {"type": "function", "function": {"name"}}`` (an OpenAI-compatible server is sent
  a named tool as ``"required"`` with that one tool, since LM Studio and llama-server take only the strings: review
  214 #1; or in the object form with that one tool, for vLLM before 0.8.3, which refuses ``"required"``: review 219
  #1); ``parallel_tool_calls``.
  Streaming ("The chat completion chunk object"): ``choices[].delta.tool_calls[{"index", "id"?,
  "function": {"name"?, "arguments"}}]``.
* Responses ("Create a model response"): ``tools[]`` = ``{"type": "function", "name", "description",
  "parameters", "strict"}`` (``strict`` defaults to true there, so it is always sent); input items
  ``{"role", "content"}``, ``{"type": "function_call", "call_id", "name", "arguments"}``,
  ``{"type": "function_call_output", "call_id", "output"}`` and ``reasoning`` items, which are kept on
  the AIMessage (``provider_data["openai"]["reasoning"]``) and sent back unchanged, in the order of the reply's
  output, each ``message`` and ``function_call`` item with its own ``id`` (``msg_...``, ``fc_...``; kept in
  ``provider_data["openai"]["output"]``); with ``store: false`` the request asks for each reasoning item's
  ``encrypted_content`` and sends reasoning items back only with it. Replies are read in
  :mod:`~toolwire.models.lowering._openai_replies` (``parse_responses_response``, ``ResponsesStreamState``,
  re-exported here), Chat Completions replies in :mod:`~toolwire.models.lowering._openai_chat_replies`
  (``parse_response``, ``StreamState``, re-exported here); assistant turns are written back by
  :mod:`~toolwire.models.lowering._openai_turns`.

Refusals (``message.refusal`` / ``delta.refusal`` in Chat Completions, ``refusal`` content parts and
``response.refusal.delta`` in the Responses API) are the reply's text, the same in ``invoke`` and ``stream``;
``response_metadata["refusal"]`` holds the refusal text and ``finish_reason`` is ``"refusal"``, so the Agent
stops with ``stop_reason="refusal"`` (as for Anthropic's ``refusal`` stop reason).

Strict mode rules (OpenAI Structured Outputs guide, "Supported schemas"): every object lists all its
properties in ``required`` and sets ``additionalProperties: false``; an optional parameter is expressed
as a nullable type; ``default``, ``oneOf``, ``allOf``, ``not``, ``uniqueItems``, ``prefixItems`` are not
supported; a schema has size limits (5000 properties, 10 levels of nesting, 1000 enum values...).
:func:`strict_schema` (in ``_openai_strict``) rewrites a schema into that subset where it can (a
disjoint ``oneOf`` becomes ``anyOf``; ``discriminator`` dropped; ``uniqueItems``, ``minLength``/``maxLength`` and
every other keyword outside the guide's "Supported properties" dropped and said in the description). What it
cannot write, such as an object that takes arbitrary keys (``dict[str, str]``, a model with ``extra="allow"``) or a
``tuple``, or a schema past the size limits, makes the tool go non-strict, with a warning (case S5).

A non-strict schema (asked for, or fallen back to) is sent as JSON Schema, except that every array without an
``items`` schema gets one: a tuple (an array with ``prefixItems``, which pydantic writes without ``items``) the
schema of its positions, any other array (``{"type": "array"}``, as many MCP servers write a list) ``items: {}``;
the API answers such an array with 400 "array schema missing items" (review 124 #1, review 190 #1;
:mod:`~toolwire.models.lowering._tuples`). Strict mode takes neither, so such a tool goes non-strict. The same
lowering serves OpenAI-compatible servers.
"""

from __future__ import annotations

import copy
import functools
import importlib
import logging
import re
import typing
from collections.abc import Callable, Sequence
from typing import Any

from toolwire.errors import StrictSchemaWarning, UserError  # (StrictSchemaWarning: re-exported, its old home)
from toolwire.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from toolwire.models._sdk_options import refuse_untaken
from toolwire.models.base import ChatRequest, ServerTool
from toolwire.models.lowering._common import (
    RESPONSES_ITEM_BLOCKS,
    ImageBlock,
    arguments_json,
    assistant_calls,
    block_as_text,
    content_parts,
    group_messages,
    merge_options,
    merge_tool_option,
    sent_text,
    system_text,
    tool_result_text,
)
from toolwire.models.lowering._media import CHAT_PARTS, RESPONSES_PARTS, MediaBlock, chat_part, responses_part
from toolwire.models.lowering._media import refuse_block as _refused
from toolwire.models.lowering._openai_chat_replies import RETURN_REASONING, StreamState, parse_response
from toolwire.models.lowering._openai_compat import (
    REASONING_KEY,
)
from toolwire.models.lowering._openai_replies import ResponsesStreamState, parse_responses_response
from toolwire.models.lowering._openai_strict import strict_schema
from toolwire.models.lowering._openai_tools import convert_to_openai_responses_tool, convert_to_openai_tool
from toolwire.models.lowering._openai_turns import (
    CHAT_ID_LIMIT,
    RESPONSES_ID_LIMIT,
    capped_call_id,
    responses_turn_items,
    unique_responses_ids,
)

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
for _public in (convert_to_openai_tool, convert_to_openai_responses_tool):
    _public.__module__ = __name__  # their public home (help(), pickling by reference, the API docs)


# --------------------------------------------------------------------------- Chat Completions


def _data_url(block: dict[str, Any]) -> str:
    return block["url"] if "url" in block else f"data:{block['mime_type']};base64,{block['data']}"


def _unread_neutral(block: dict[str, Any]) -> bool:
    """Whether ``block`` is a ``file`` block in LangChain's standard form (no OpenAI ``file`` object) that
    :func:`~toolwire.models.lowering._media.read_media` could not read (its ``base64`` an int, say): refused, not
    passed on as Chat Completions' own ``file`` part (review 173 #1)."""
    return block.get("type") == "file" and not isinstance(block.get("file"), dict)


def _content_parts(content: str | list[Any], text_type: str, image: Any, media: Callable[[MediaBlock], dict[str, Any]],
                   native: frozenset[str] = CHAT_PARTS, api: str = "OpenAI's Chat Completions API") -> Any:
    """Content blocks (a string, or a list) in an OpenAI API's own part types (Chat Completions and Responses);
    ``image(url, detail)`` makes an image part, ``detail`` ``{"detail": ...}`` or ``{}``; ``media`` a file or audio
    part (:mod:`~toolwire.models.lowering._media`); a block of one of ``api``'s ``native`` types is sent as given.

    Raises:
        UserError: a block of another type (:func:`~toolwire.models.lowering._media.refuse_block`), an image or
            file block whose data or url is not text (the same sentence as every provider's), or a file or audio
            block ``api`` cannot take.
    """
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for block in content_parts(content):
        if block.get("type") == "text":
            parts.append({"type": text_type, "text": block["text"]})
        elif isinstance(block, ImageBlock) and "file_id" in block:  # an uploaded file: the Responses API's input_image
            if "input_image" not in native:  # takes one (API reference: "file_id"); Chat Completions' image_url not
                raise UserError("OpenAI's Chat Completions API takes no image by file_id: give the image's base64 "
                                "data or a URL, or use the Responses API (ChatOpenAI(..., use_responses_api=True)).")
            parts.append({"type": "input_image", "file_id": block["file_id"],
                          **({"detail": block["detail"]} if "detail" in block else {})})
        elif isinstance(block, ImageBlock):  # (a raw image dict toolwire could not read is refused: review 173 #1)
            parts.append(image(_data_url(block), {"detail": block["detail"]} if "detail" in block else {}))
        elif isinstance(block, MediaBlock):
            parts.append(media(block))
        elif block.get("type") in native and "source" not in block and not _unread_neutral(block):
            parts.append(block)
        else:
            raise _refused(block, api)
    return parts or ""


def _chat_parts(content: str | list[Any]) -> str | list[dict[str, Any]]:
    return _content_parts(content, "text",
                          lambda url, detail: {"type": "image_url", "image_url": {"url": url, **detail}}, chat_part)


EMPTY_TURN = " "
"""The ``content`` a compatible server is sent for an assistant turn with neither text nor calls (review 310 #3).
mistral_common (Mistral's API, vLLM's Mistral mode) refuses ``""`` ("Assistant message must have either content or
tool_calls"), and leaving the turn out is no cure: its role order refuses a ``user`` turn right after a ``tool`` one,
and Mistral's (and other) Hugging Face chat templates require user and assistant turns to alternate. One space keeps
the turn where it was and is text to both."""


def lower_messages(messages: list[BaseMessage], *, compatible: bool = False) -> list[dict[str, Any]]:
    """Return the conversation ``messages`` lowered to Chat Completions ``messages`` (a list of message dicts).

    System and tool content is sent as text (blocks joined); user content keeps its parts (text, ``image_url``);
    an assistant turn carries ``content`` (``None`` when it only calls tools, as the OpenAI reference allows;
    ``""`` when ``compatible`` is set, since servers such as llama.cpp's validate ``content`` as a string) and
    ``tool_calls`` (invalid calls included, with their raw argument text, since a result answers them); tool
    results follow their turn in the order of its calls. Call ids longer than 40 characters are cut
    (:func:`capped_call_id`), alike in a call and its result. An assistant turn with neither text nor calls (a
    reply cut at ``max_tokens`` while it reasoned, an empty answer) is sent to OpenAI with ``content: ""``, and to a
    compatible server with :data:`EMPTY_TURN` (review 310 #3).

    Reasoning text is not sent back, except on a turn with tool calls whose server sent it in
    ``reasoning_content`` (``provider_data["openai"]["return_reasoning"]``), and only when ``compatible``:
    there it goes back as ``reasoning_content``, since DeepSeek's thinking mode (its guide "Thinking Mode",
    "Tool Calls") and Kimi's thinking models answer 400 "Missing reasoning_content field" for a tool-call
    turn sent without it. Reasoning sent in ``reasoning`` (Groq, OpenRouter, newer vLLM, Ollama) or in
    ``thinking`` content parts (Mistral) is not sent back: Groq and Mistral refuse unknown message fields.

    A system, user or assistant message's ``name`` (the participant: ``HumanMessage("...", name="alice")``) is sent
    to OpenAI (and Azure) as the message's ``name``, which the API takes on those roles (review 118 #5: it was left
    out, so a chat of several users lost who said what); the characters OpenAI refuses there (whitespace,
    ``<|\\/>``) are sent as ``_`` (:func:`_participant_name`). It is not sent to an OpenAI-compatible server
    (``compatible``): Mistral's API and vLLM's Mistral mode refuse the field (review 122). A tool result's ``name``
    (its tool's) is never sent.
    """
    out: list[dict[str, Any]] = []
    for item in group_messages(messages):
        if isinstance(item, list):
            out.extend({"role": "tool", "tool_call_id": capped_call_id(m.tool_call_id), "content": tool_result_text(m)}
                       for m in item)
        elif isinstance(item, SystemMessage):
            out.append(_named({"role": "system", "content": system_text(item, "The Chat Completions API")}, item,
                             compatible))
        elif isinstance(item, AIMessage):
            calls = assistant_calls(item)
            empty = None if calls and not compatible else EMPTY_TURN if compatible and not calls else ""
            msg: dict[str, Any] = {"role": "assistant", "content": sent_text(item) or empty}
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
            out.append(_named(msg, item, compatible))
        elif isinstance(item, HumanMessage):
            out.append(_named({"role": "user", "content": _chat_parts(item.content)}, item, compatible))
        else:
            out.append({"role": "user", "content": sent_text(item)})
    return out


_REFUSED_IN_NAME = re.compile(r"[\s<|\\/>]")
"""What OpenAI refuses in a message's ``name``: 400 "Invalid 'messages[N].name': string does not match pattern.
Expected a string that matches the pattern '^[^\\s<|\\\\/>]+$'" (LangChain issue 35054)."""


def _participant_name(name: str) -> str:
    """A message's ``name`` as Chat Completions takes it: each character its pattern refuses (whitespace, ``<``,
    ``|``, ``\\``, ``/``, ``>``) written ``_`` (``"Alice Smith"`` -> ``"Alice_Smith"``), so a name the user chose
    for a participant does not make OpenAI refuse the whole request."""
    return _REFUSED_IN_NAME.sub("_", name)


def _named(message: dict[str, Any], source: BaseMessage, compatible: bool) -> dict[str, Any]:
    """``message`` (a lowered system, user or assistant message) with ``source``'s participant ``name``, when set
    and the server is OpenAI's (not ``compatible``)."""
    name = source.name
    if isinstance(name, str) and name and not compatible:
        message["name"] = _participant_name(name)
    return message


def _chat_tool_choice(choice: str) -> Any:
    if choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _tool_name(tool: Any) -> Any:
    """The function name of a lowered Chat Completions tool (``None`` for any other entry)."""
    function = tool.get("function") if isinstance(tool, dict) else None
    return function.get("name") if isinstance(function, dict) else None


def _force_by_mode(body: dict[str, Any], choice: str, form: str = "required") -> None:
    """On an OpenAI-compatible server, force the tool named ``choice`` with only that tool sent, in ``form``:
    ``"required"`` (the default), the string ``tool_choice`` that forces the same call (review 214 #1: LM Studio
    refuses the object form, 400 "Invalid tool_choice type: 'object'. Supported string values: none, auto, required",
    and llama-server reads it as ``"auto"``), or ``"object"``, ``{"type": "function", "function": {"name"}}`` (vLLM
    before 0.8.3 answers ``"required"`` with 400 'tool_choice = "required" is not supported!': review 219 #1). Left
    as it is when no sent tool has that name (the object form stays, with every tool)."""
    if choice in ("auto", "none", "required") or not isinstance(body.get("tools"), list):
        return
    named = [tool for tool in body["tools"] if _tool_name(tool) == choice]
    if named:
        body["tools"] = named[:1]
        body["tool_choice"] = _chat_tool_choice(choice) if form == "object" else "required"


def lower_request(request: ChatRequest, model: str, options: dict[str, Any] | None = None, *,
                  max_tokens_field: str = "max_completion_tokens", compatible: bool = False,
                  named_form: str = "object") -> dict[str, Any]:
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
            :func:`lower_messages`). A ``tool_choice`` naming one tool is then sent with only that tool in
            ``tools``, in the object form or as ``"required"`` (the same forced call; see ``named_form``); OpenAI
            gets ``{"type": "function", "function": {"name"}}`` with every tool.
        named_form: how a compatible server is sent a ``tool_choice`` naming one tool: ``"object"`` (default,
            ``{"type": "function", "function": {"name"}}``: vLLM before 0.8.3 and llama-cpp-python's server take it
            and not ``"required"``) or ``"required"`` (LM Studio refuses the object form); ``ChatOpenAI`` sends the
            other form once when the server refuses one (:mod:`toolwire.models._openai_choice`, review 219 #1).

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
    if compatible and request.tools and request.tool_choice:
        _force_by_mode(body, request.tool_choice, named_form)
    return body


# --------------------------------------------------------------------------- Responses API


def _responses_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    return _content_parts(content, "input_text",
                          lambda url, detail: {"type": "input_image", "image_url": url, **detail}, responses_part,
                          RESPONSES_PARTS, "OpenAI's Responses API")


_OUTPUT_PARTS = frozenset({"input_text", "input_image", "input_file"})
"""The part types a Responses API ``function_call_output``'s ``output`` list takes (OpenAI API reference: "Text, image,
or file output of the function tool call")."""


_OUTPUT_WHY = "OpenAI's Responses API takes only text, images and files in a tool result"
"""The reason a note of a Responses API tool result gives for a block it stands for (audio, video: review 290 #4)."""


def _responses_output(message: Any) -> str | list[dict[str, Any]]:
    """A tool result as a ``function_call_output``'s ``output``: its text, or, when it holds an image or a file, its
    parts (``input_text``, ``input_image``, ``input_file``), which the Responses API takes there (review 136 #1: the
    image was replaced by a note). A block it cannot take there (audio, video) becomes an ``input_text`` note in its
    place, saying so (:data:`_OUTPUT_WHY`), an image or file it cannot send as given (base64 data with no
    ``mime_type``) a note that says why and what to add (review 302 #1), and any other block its JSON text, while the
    images and files beside it are still sent (review 290 #4: one audio clip turned the whole result into text); a
    result with no image or file sent is text, the parts' texts joined."""
    blocks = [] if isinstance(message.content, str) else content_parts(message.content)
    if not any(block.get("type") != "text" for block in blocks):
        return tool_result_text(message)
    parts = [_output_part(block) for block in blocks]
    if not any(part["type"] != "input_text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return parts


def _output_part(block: dict[str, Any]) -> dict[str, Any]:
    """One block of a tool result as a ``function_call_output`` part, or an ``input_text`` note standing for it (the
    reason logged once per process and reason)."""
    from toolwire.models._text_content import media_note

    try:
        parts = _responses_content([block])
    except UserError as error:
        note = media_note(block, "")
        if note is not None and block.get("type") not in ("audio", "video"):  # an image or file it could not send
            said = str(error).rstrip(".")  # (its first word lower-cased, unless a name such as OpenAI's)
            reason = said[:1].lower() + said[1:] if said[1:2].islower() or said[1:2] == " " else said
            _warn_output(reason, f"A tool result's {block.get('type')} block is not sent to OpenAI's Responses API "
                                 f"(the model reads a note in its place): {reason}.")
            return {"type": "input_text", "text": media_note(block, reason)}
        parts = ""
    if isinstance(parts, list) and len(parts) == 1 and parts[0].get("type") in _OUTPUT_PARTS:
        return parts[0]
    note = media_note(block, _OUTPUT_WHY)
    if note is not None:
        _warn_output("media", "A tool result holds audio (or video), which OpenAI's Responses API does not take in a "
                              "tool result: the model reads a note that it is not shown, and the result's images and "
                              "files are sent.")
    return {"type": "input_text", "text": note or block_as_text(block)}


def _warn_output(reason: str, text: str) -> None:
    """Log ``text`` (why a tool result's block is not sent) once per process and ``reason``."""
    if reason not in _TOLD_OUTPUT:
        _TOLD_OUTPUT.add(reason)
        log.warning("%s", text)


_TOLD_OUTPUT: set[str] = set()
"""The reasons :func:`_output_part` has logged for a block of a tool result it did not send (each once per process)."""


def lower_responses_messages(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """Lower a conversation to Responses API ``input`` items.

    An assistant turn becomes its output items in the order the reply gave them: ``reasoning`` items unchanged,
    ``message`` items with their ``id`` and ``status``, ``function_call`` items with theirs (a reasoning item sent
    back must be followed by the item that followed it; see
    :func:`~toolwire.models.lowering._openai_turns.responses_turn_items`); tool results become
    ``function_call_output`` items in the order of the calls; a built-in tool's item the reply gave (kept in
    ``provider_data["openai"]["output"]``) goes back in its place, and a HumanMessage's ``mcp_approval_response``
    block (``{"type": "mcp_approval_response", "approval_request_id", "approve"}``) as an item of its own.
    Call ids longer than 64 characters are cut (:func:`capped_call_id`), alike in a call and its result, and a
    call id repeated across replies is renamed ``<id>_2``... in the items, its result with it
    (:func:`~toolwire.models.lowering._openai_turns.unique_responses_ids`: the API refuses a repeated ``call_id``).

    Args:
        messages: the conversation (toolwire messages).

    Returns:
        The ``input`` items, dicts in the Responses API's form.
    """
    items: list[dict[str, Any]] = []
    for item in group_messages(messages):
        if isinstance(item, list):
            items.extend({"type": "function_call_output", "call_id": capped_call_id(m.tool_call_id, RESPONSES_ID_LIMIT),
                          "output": _responses_output(m)} for m in item)
        elif isinstance(item, SystemMessage):
            items.append({"role": "system", "content": system_text(item, "The Responses API")})
        elif isinstance(item, AIMessage):
            items.extend(responses_turn_items(item))
        elif isinstance(item, HumanMessage):
            items.extend(_user_items(item))
        else:
            items.append({"role": "user", "content": sent_text(item)})
    return unique_responses_ids(items)  # (ids repeated across replies, call_0 in each: review 279 #1)


def _user_items(message: HumanMessage) -> list[dict[str, Any]]:
    """A HumanMessage as Responses API input items: its ``mcp_approval_response`` blocks as items of their own, in
    their order, then a user message with the rest of its content (none when nothing is left)."""
    content = message.content
    answers = [] if isinstance(content, str) else [b for b in content if isinstance(b, dict)
                                                    and b.get("type") in RESPONSES_ITEM_BLOCKS]
    if not answers:
        return [{"role": "user", "content": _responses_content(content)}]
    rest = [b for b in content if not (isinstance(b, dict) and b.get("type") in RESPONSES_ITEM_BLOCKS)]
    return [*map(copy.deepcopy, answers), *([{"role": "user", "content": _responses_content(rest)}] if rest else [])]


_HOSTED_CHOICE_TYPES = frozenset({
    "file_search", "web_search_preview", "computer", "computer_use_preview", "computer_use",
    "web_search_preview_2025_03_11", "image_generation", "code_interpreter", "shell", "apply_patch",
})
"""The built-in tool types the Responses API forces as ``{"type": T}``, as openai 3.63 lists them
(``openai/types/responses/tool_choice_types_param.py``: ``ToolChoiceTypesParam``; ``tool_choice_shell_param.py``,
``tool_choice_apply_patch_param.py``): used when the installed SDK's own list cannot be read."""


@functools.cache
def _hosted_choice_types() -> frozenset[str]:
    """The built-in tool types the Responses API reference lets ``tool_choice`` name as ``{"type": T}``
    (``ToolChoiceTypes``, ``ToolChoiceShell``, ``ToolChoiceApplyPatch``), read from the installed openai SDK's types
    (generated from OpenAI's OpenAPI spec), else :data:`_HOSTED_CHOICE_TYPES` (no SDK, or one too old to list them).

    Returns:
        The type names (``file_search``, ``web_search_preview``, ``code_interpreter``...).
    """
    found: set[str] = set()
    for module, name in (("tool_choice_types", "ToolChoiceTypes"), ("tool_choice_shell", "ToolChoiceShell"),
                         ("tool_choice_apply_patch", "ToolChoiceApplyPatch")):
        try:
            model = getattr(importlib.import_module(f"openai.types.responses.{module}"), name)
            found.update(v for v in typing.get_args(model.model_fields["type"].annotation) if isinstance(v, str))
        except Exception:  # (no SDK, an SDK without that type, or of another shape: the list kept here)
            continue
    return frozenset(found) or _HOSTED_CHOICE_TYPES


def _responses_tool_choice(choice: str, tools: Sequence[Any]) -> Any:
    """The Responses API ``tool_choice`` of the neutral one, in a form the API reference lists: a mode as it is, a
    function tool's name as ``{"type": "function", "name"}``, and a bound built-in tool's as OpenAI writes it
    (review 146 #2): an MCP server's ``{"type": "mcp", "server_label"}`` (``ToolChoiceMcp``), a type
    :func:`_hosted_choice_types` lists as ``{"type": T}`` (``ToolChoiceTypes``), any other (the GA ``web_search``...)
    as ``{"type": "allowed_tools", "mode": "required", "tools": [{"type": T}]}`` (``ToolChoiceAllowed``, the tool
    named as the reference's examples name one: its ``type``, and its ``name`` or ``server_label`` if it has one;
    review 151 #1)."""
    if choice in ("auto", "none", "required"):
        return choice
    hosted = next((t for t in tools if isinstance(t, ServerTool) and t.name == choice), None)
    if hosted is None:
        return {"type": "function", "name": choice}
    definition = hosted.definition
    kind = definition.get("type")
    if kind == "mcp" and isinstance(definition.get("server_label"), str):
        return {"type": "mcp", "server_label": definition["server_label"]}
    if kind in _hosted_choice_types():
        return {"type": kind}
    named = {key: definition[key] for key in ("type", "name", "server_label") if key in definition}
    return {"type": "allowed_tools", "mode": "required", "tools": [named]}


def lower_responses_request(request: ChatRequest, model: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the keyword arguments of ``client.responses.create``.

    ``max_tokens`` becomes ``max_output_tokens``; a ``tools`` option (``model_kwargs={"tools": [...]}``, e.g.
    ``{"type": "web_search"}``) is added after the bound tools, never in their place (typed dicts in the
    Responses form sent unchanged, anything else converted); ``temperature``, ``top_p`` and other keys pass as is.

    Args:
        request: messages, tools, tool_choice, parallel_tool_calls, per-call options.
        model: the model name.
        options: model-level default options (overridden by ``request.options``).

    With ``store`` False (``model_kwargs={"store": False}``, as zero data retention requires), a request to a model
    that reasons also asks for ``reasoning.encrypted_content`` in ``include``, and
    reasoning items go back only with theirs (:func:`_unstored`).

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
            body["tool_choice"] = _responses_tool_choice(request.tool_choice, request.tools)
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
    if body.get("store") is False:
        _unstored(body)
    return body


_REASONING_MODEL = re.compile(r"^(?:ft:)?(?:o\d|gpt-5(?![\w.]*-chat)|codex)", re.IGNORECASE)
"""OpenAI's reasoning model names (o1, o3, o4-mini, gpt-5 but not a ``-chat`` model such as gpt-5-chat-latest,
codex-mini), per its models page, and a fine-tuned one (``ft:o4-mini-...``: review 186 #9); a deployment named
otherwise (Azure) is told by the request instead (:func:`_reasons`). Where the name misleads, the failure is mild: a
reasoning item without its encrypted content is left out of the next request, which still works."""


def _reasons(body: dict[str, Any]) -> bool:
    """Whether the request goes to a model that reasons: its name is one of OpenAI's reasoning models', it sets
    ``reasoning`` options, or its input holds a reasoning item an earlier reply gave."""
    model = body.get("model")
    return (isinstance(model, str) and _REASONING_MODEL.match(model) is not None) or body.get("reasoning") is not None \
        or any(isinstance(item, dict) and item.get("type") == "reasoning" for item in body.get("input") or ())


ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""The ``include`` entry that has the Responses API send each reasoning item's ``encrypted_content``."""


def _unstored(body: dict[str, Any]) -> None:
    """Make a ``store: false`` request one OpenAI can answer (review 179 #1): OpenAI keeps no item of such a request,
    so a reasoning item sent back by its id alone is refused (404 "Item with id 'rs_...' not found. Items are not
    persisted when `store` is set to false"). A reasoning item without its ``encrypted_content`` is left out of
    ``input``, with a debug log, and a request to a model that reasons asks for :data:`ENCRYPTED_REASONING` in its
    ``include``, so the reply's reasoning items carry their ``encrypted_content`` and go back whole (OpenAI reasoning
    guide, "Encrypted reasoning items").

    A model reasons when :func:`_reasons` says so (the entry is then added to the ``include`` the request gives). It
    is never added for another model, which OpenAI answers with 400 "Encrypted content is not supported with this
    model" (review 182 #1: gpt-4.1)."""
    if _reasons(body):
        include = body.get("include")
        entries = list(include) if isinstance(include, list | tuple) else [] if include is None else [include]
        body["include"] = entries if ENCRYPTED_REASONING in entries else [*entries, ENCRYPTED_REASONING]
    kept = [item for item in body["input"]
            if not (isinstance(item, dict) and item.get("type") == "reasoning" and not item.get("encrypted_content"))]
    if len(kept) < len(body["input"]):
        log.debug("openai: store=False: left out %d reasoning item(s) without encrypted_content (OpenAI kept none "
                  "of them to look up by id)", len(body["input"]) - len(kept))
        body["input"] = kept
