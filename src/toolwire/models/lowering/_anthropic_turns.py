"""Anthropic codec, the assistant side of the request: an AIMessage written as the ``assistant`` turn's content blocks.

A reply toolwire read keeps its blocks (``provider_data["anthropic"]["content"]``) and goes back as the API sent it;
a turn in another form (LangChain's ChatAnthropic, a conversation saved in the Anthropic SDK's form) is written from
its content list and calls (:func:`assistant_blocks`), a LangChain v1 turn (``output_version="v1"``) after its
standard blocks are read back into Anthropic's, as langchain-anthropic reads them (:func:`_from_v1`; a v1 turn
whose calls are only content blocks gets them first: :func:`v1_block_calls`). Split from
:mod:`toolwire.models.lowering.anthropic`, which uses it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from typing import Any

from toolwire.messages import AIMessage, BaseMessage
from toolwire.models.lowering._common import arguments_object, assistant_calls, sent_text

__all__ = ["assistant_blocks", "text_block", "tool_use_id", "v1_block_calls"]

_OPAQUE = ("thinking", "redacted_thinking")
_OPAQUE_KEYS = frozenset({"type", "thinking", "signature", "data"})
"""The fields of ``thinking`` / ``redacted_thinking`` blocks (Messages API reference); others (LangChain's stream
``index``) are dropped from such a block taken from an AIMessage's content."""

_TEXT_KEYS = frozenset({"type", "text", "cache_control", "citations"})
"""The fields of a ``text`` block (Messages API reference); others (LangChain's ``id``, ``annotations``) dropped."""

_SERVER_USE_KEYS = frozenset({"type", "id", "name", "input", "server_name", "cache_control"})
"""The fields of a ``server_tool_use`` / ``mcp_tool_use`` block sent back (``server_name``: MCP's), as
langchain-anthropic sends them; others (LangChain's stream ``index`` and ``partial_json``) dropped."""

_STREAM_KEYS = frozenset({"index", "partial_json"})
"""Keys LangChain's merged stream chunks add to a block, which the Messages API does not take."""

_ROUND_TRIP = ("compaction",)
"""Anthropic blocks of an assistant turn that go back as the API sent them (LangChain's stream keys left out), as
langchain-anthropic sends them: server-side compaction's ``compaction`` block stands in for the turns before it, so
dropping it sends the whole history again (review 317 #2)."""

_USE_KEYS = ("caller", "toolset_name")
"""The fields of a ``tool_use`` block that its call does not hold (programmatic tool calling's ``caller``, a
toolset's ``toolset_name``), sent back with the call as langchain-anthropic sends them."""

_LOCATIONS = (("start_char_index", "char_location"), ("search_result_index", "search_result_location"),
              ("start_block_index", "content_block_location"), ("start_page_number", "page_location"))
"""The key of a v1 citation's ``extras`` that tells which Anthropic citation it was, in the order
langchain-anthropic tries them (a ``search_result_location`` has a ``start_block_index`` too)."""


def text_block(block: dict[str, Any]) -> dict[str, Any]:
    """A ``text`` block as the Messages API takes it: ``type``, ``text``, ``cache_control`` and a non-empty
    ``citations`` kept (a citation's ``file_id`` of None left out, as langchain-anthropic leaves it), other keys
    dropped."""
    out = {k: v for k, v in block.items() if k in _TEXT_KEYS and (k != "citations" or v)}
    if isinstance(out.get("citations"), list):
        out["citations"] = [{k: v for k, v in c.items() if not (k == "file_id" and v is None)}
                            if isinstance(c, dict) else c for c in out["citations"]]
    return out


_VALID_ID = re.compile(r"[A-Za-z0-9_-]+")


def tool_use_id(call_id: str) -> str:
    """``call_id`` as Anthropic takes a ``tool_use`` id (``^[a-zA-Z0-9_-]+$``, the Messages API's check): kept when
    it fits, else every other character turned to ``_`` and 8 hex digits of its SHA-256 added, so the same id
    always maps to the same text (a call and its result still match) and two ids differing only in such
    characters stay apart. Ids from another provider need it: Kimi K2 on OpenAI-compatible servers writes
    ``functions.get_weather:0`` (review 36)."""
    if _VALID_ID.fullmatch(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{re.sub(r'[^A-Za-z0-9_-]', '_', call_id)}_{digest}"


def _unchanged(calls: list[Any], uses: list[dict[str, Any]]) -> bool:
    """Whether the kept ``tool_use`` blocks are still the message's calls (same ids, same arguments)."""
    if len(calls) != len(uses):
        return False
    return all(c.get("id") == b.get("id") and (c.get("type") != "tool_call" or c.get("args") == b.get("input"))
               for c, b in zip(calls, uses, strict=True))


def _use(call: Any, block: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``tool_use`` block of ``call``; with the content ``block`` that placed it, that block's ``caller`` and
    ``toolset_name`` (:data:`_USE_KEYS`) too."""
    use = {"type": "tool_use", "id": tool_use_id(call["id"]), "name": call.get("name") or "unknown_tool",
           "input": arguments_object(call)}
    if block is not None:
        use.update({key: copy.deepcopy(block[key]) for key in _USE_KEYS if block.get(key)})
    return use


def _server_block(block: dict[str, Any]) -> bool:
    """Whether ``block`` is one of Anthropic's server tool blocks: a ``server_tool_use`` / ``mcp_tool_use``, or a
    server tool's result (``web_search_tool_result``, ``mcp_tool_result``...: a ``_tool_result`` suffix; a client
    ``tool_result`` is not one, nor LangChain's standard ``server_tool_result``, which the API has no block for:
    review 307 #1)."""
    kind = block.get("type")
    return isinstance(kind, str) and (kind in ("server_tool_use", "mcp_tool_use") or (
        kind.endswith("_tool_result") and kind not in ("tool_result", "server_tool_result")))


def _in_content(message: AIMessage) -> bool:
    """Whether the message's content list holds blocks that only its content can give: server tool blocks, a text
    block's ``citations`` or a ``compaction`` block (a turn from LangChain's ChatAnthropic, or in the Anthropic SDK's
    form; review 297 #3, review 317 #2)."""
    return isinstance(message.content, list) and any(
        isinstance(b, dict) and (_server_block(b) or b.get("type") in _ROUND_TRIP or (
            b.get("type") == "text" and b.get("citations"))) for b in message.content)


def _server(block: dict[str, Any]) -> dict[str, Any]:
    """A server tool block of a content list as the API takes it back: LangChain's stream keys left out, and a
    ``server_tool_use``'s input read from its streamed ``partial_json`` when its ``input`` is empty."""
    if block.get("type") not in ("server_tool_use", "mcp_tool_use"):
        return {k: copy.deepcopy(v) for k, v in block.items() if k not in _STREAM_KEYS}
    out = {k: copy.deepcopy(v) for k, v in block.items() if k in _SERVER_USE_KEYS}
    if not out.get("input") and isinstance(block.get("partial_json"), str) and block["partial_json"].strip():
        try:
            given = json.loads(block["partial_json"])
        except ValueError:
            given = None
        if isinstance(given, dict):
            out["input"] = given
    return out


def _from_content(content: list[Any], calls: list[Any]) -> list[dict[str, Any]]:
    """The turn written from a content list in Anthropic's form, in its order: text blocks (:func:`text_block`;
    empty ones dropped), thinking blocks (a signed one without text given an empty ``thinking``, as
    langchain-anthropic gives it), server tool blocks (:func:`_server`), ``compaction`` blocks (:data:`_ROUND_TRIP`,
    stream keys left out), each ``tool_use`` block as the message's call
    of that id (its arguments as the call has them, the block's ``caller`` and ``toolset_name`` kept; a block with no
    such call dropped), then the calls no block placed. Other blocks are left out, as the text form leaves them."""
    by_id = {c.get("id"): c for c in calls}
    placed: set[Any] = set()
    turn: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            if block["text"].strip():
                turn.append(copy.deepcopy(text_block(block)))
        elif kind in _OPAQUE:
            turn.append({k: copy.deepcopy(v) for k, v in block.items() if k in _OPAQUE_KEYS})
            if kind == "thinking" and "signature" in block:
                turn[-1].setdefault("thinking", "")
        elif _server_block(block):
            turn.append(_server(block))
        elif kind in _ROUND_TRIP:
            turn.append({k: copy.deepcopy(v) for k, v in block.items() if k not in _STREAM_KEYS})
        elif kind == "tool_use" and block.get("id") in by_id and block.get("id") not in placed:
            placed.add(block["id"])
            turn.append(_use(by_id[block["id"]], block))
    turn.extend(_use(c) for c in calls if c.get("id") not in placed)
    return turn


def _citation(note: Any) -> Any:
    """A v1 annotation of a text block as the Anthropic citation LangChain read it from, as langchain-anthropic's
    ``_convert_annotation_from_v1`` writes it back: a ``non_standard_annotation`` as its ``value``; a ``citation``
    with a ``url`` as a ``web_search_result_location``, one whose ``extras`` hold a location key (:data:`_LOCATIONS`)
    as that location (``title`` as ``document_title``, but for a ``search_result_location``), its ``extras`` as its
    other fields; any other as it is."""
    if not isinstance(note, dict) or note.get("type") not in ("citation", "non_standard_annotation"):
        return note
    if note["type"] == "non_standard_annotation":
        return note.get("value")
    extras = note["extras"] if isinstance(note.get("extras"), dict) else {}
    own: dict[str, Any] = {"cited_text": note["cited_text"]} if note.get("cited_text") else {}
    if "url" in note:
        own.update({"type": "web_search_result_location", "url": note["url"]})
        own.update({"title": note["title"]} if "title" in note else {})
        return {**extras, **own}
    kind = next((kind for key, kind in _LOCATIONS if key in extras), None)
    if kind is None:
        return note
    own["type"] = kind
    if kind == "content_block_location":
        own.update({"document_title": note["title"]} if "title" in note else {})
        return {**extras, **own}
    if note.get("title"):
        own["title" if kind == "search_result_location" else "document_title"] = note["title"]
    return {**own, **extras}


_V1_CALLS = ("tool_call", "tool_call_chunk", "invalid_tool_call")
"""The LangChain v1 content blocks that stand for a call of the turn (read by :func:`v1_block_calls`, placed by
:func:`_from_v1`)."""


def v1_block_calls(message: BaseMessage) -> BaseMessage:
    """A LangChain v1 turn with no calls, with the calls its content blocks hold (review 317 #3).

    LangChain does not fill ``tool_calls`` from a v1 content list (a hand-built or re-serialised turn), so such a
    turn's call was lost and its ToolMessage sent as stray user text. As a v0 ``tool_use`` block is read as its call
    (:func:`~toolwire._content_calls.read_content_calls`), and as langchain-anthropic writes the turn, each
    ``tool_call`` block is read as a call (its ``name``, ``args`` and ``id``), a ``tool_call_chunk`` too (its
    ``args`` text read as JSON), an ``invalid_tool_call`` as an invalid call (its ``args`` text and ``error``); a
    block without an id (no result could answer it) or repeating one is skipped. Only a turn with no calls at all is
    read so: one with calls keeps them (an edited or removed call wins over its block, as before).

    Args:
        message: any message; only an AIMessage whose ``response_metadata["output_version"]`` is ``"v1"``, whose
            content is a list and that has no ``tool_calls`` nor ``invalid_tool_calls`` is read.

    Returns:
        ``message`` itself when nothing is read, else a copy with the calls (in content order, split into
        ``tool_calls`` and ``invalid_tool_calls``).
    """
    if (not isinstance(message, AIMessage) or message.tool_calls or message.invalid_tool_calls
            or not isinstance(message.content, list) or message.response_metadata.get("output_version") != "v1"):
        return message
    blocks = [b for b in message.content if isinstance(b, dict) and b.get("type") in _V1_CALLS]
    if not blocks:
        return message
    from toolwire._call_records import split_in_order
    from toolwire.messages import invalid_tool_call
    from toolwire.parsing.arguments import raw_text, tool_call_from_native

    calls: list[Any] = []
    seen: set[str] = set()
    for block in blocks:
        given = block.get("id")
        if not isinstance(given, str | int) or isinstance(given, bool) or not str(given) or str(given) in seen:
            continue
        seen.add(call_id := str(given))
        name = block["name"] if isinstance(block.get("name"), str) else None
        if block["type"] == "invalid_tool_call":
            error = block["error"] if isinstance(block.get("error"), str) else None
            calls.append(invalid_tool_call(name, raw_text(block.get("args")), call_id, error))
        else:
            calls.append(tool_call_from_native(name, block.get("args"), call_id, require_name=True))
    if not calls:
        return message
    valid, invalid = split_in_order(calls)
    return message.model_copy(update={"tool_calls": valid, "invalid_tool_calls": invalid})


def _server_use(block: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    """A v1 ``server_tool_call`` as the ``server_tool_use`` it was (``code_interpreter`` named ``code_execution``
    again), or the ``mcp_tool_use`` of a ``remote_mcp`` one (its ``extras``' ``tool_name`` and ``server_name``); a
    streamed input's ``extras["partial_json"]`` kept for :func:`_server` to read."""
    name = block.get("name")
    use: dict[str, Any] = {"type": "mcp_tool_use" if name == "remote_mcp" else "server_tool_use"}
    use.update({"id": block["id"]} if "id" in block else {})
    use["input"] = block.get("args", {})
    if extras.get("partial_json"):
        use.update({"input": {}, "partial_json": extras["partial_json"]})
    if name == "remote_mcp":
        use.update({out: extras[key] for key, out in (("tool_name", "name"), ("server_name", "server_name"))
                    if key in extras})
    else:
        use["name"] = "code_execution" if name == "code_interpreter" else (name or "")
    return use


def _from_v1(content: list[Any], anthropic: bool) -> list[Any]:
    """A LangChain v1 content list read back into Anthropic's blocks, as langchain-anthropic's
    ``_convert_from_v1_to_anthropic`` reads it (``anthropic``: whether the turn's ``model_provider`` is
    ``"anthropic"``), for :func:`_from_content` to write: a ``text`` block as one (its ``annotations`` as
    ``citations``, :func:`_citation`, for an Anthropic turn); a ``tool_call`` (also ``tool_call_chunk``,
    ``invalid_tool_call``) as a ``tool_use`` that places its call (its ``extras``' ``caller`` and ``toolset_name``
    kept). For an Anthropic turn only: a ``reasoning`` block as ``thinking`` (``extras["signature"]`` its
    ``signature``; none when it has none, as langchain-anthropic writes it), a ``server_tool_call``
    (:func:`_server_use`), a ``server_tool_result`` as the block of its ``extras["block_type"]`` (left out when that
    is no server tool result's type: langchain-anthropic would send ``"type": ""``, which the API refuses; its
    ``output`` as ``content``, which the API requires on every server tool result but ``mcp_tool_result``: ``[]``
    when LangChain left out an empty one, a web search that found nothing, review 317 #1), a ``non_standard`` block
    as its ``value`` (a ``redacted_thinking``, a ``compaction``...). Other blocks (another provider's reasoning and
    server blocks, a ``refusal``, media) are left out: the Messages API has none of them in an assistant turn."""
    out: list[Any] = []
    for block in content:
        if not isinstance(block, dict):
            out.append(block)
            continue
        kind = block.get("type")
        extras = block["extras"] if isinstance(block.get("extras"), dict) else {}
        if kind == "text":
            text = {"type": "text", "text": block.get("text", "")}
            if anthropic and "annotations" in block and isinstance(block["annotations"], list):
                text["citations"] = [_citation(note) for note in block["annotations"]]
            out.append(text)
        elif kind in ("tool_call", "tool_call_chunk", "invalid_tool_call"):
            out.append({"type": "tool_use", "id": block.get("id"), **{k: extras[k] for k in _USE_KEYS if k in extras}})
        elif not anthropic:
            continue
        elif kind == "reasoning":
            thinking = {"type": "thinking"}
            thinking.update({"thinking": block["reasoning"]} if "reasoning" in block else {})
            thinking.update({"signature": extras["signature"]} if extras.get("signature") else {})
            out.append(thinking)
        elif kind == "server_tool_call":
            out.append(_server_use(block, extras))
        elif kind == "server_tool_result":
            result: dict[str, Any] = {"type": extras.get("block_type")}
            if "output" in block or result["type"] != "mcp_tool_result":  # (langchain-core leaves an empty one out)
                result["content"] = block.get("output", [])
            result.update({"tool_use_id": block["tool_call_id"]} if "tool_call_id" in block else {})
            if result["type"] == "mcp_tool_result":
                result["is_error"] = block.get("status") == "error"
            out.append(result)
        elif kind == "non_standard" and isinstance(block.get("value"), dict):
            out.append(block["value"])
    return out


def assistant_blocks(message: AIMessage) -> list[dict[str, Any]]:
    """The content blocks of the ``assistant`` turn ``message`` stands for.

    A reply toolwire read, whose calls and text are unchanged, goes as its kept blocks
    (``provider_data["anthropic"]["content"]``: thinking signatures intact), less any empty text block. A LangChain
    v1 turn (``response_metadata["output_version"] == "v1"``, a content list) is written from that list in its order,
    its standard blocks read back into Anthropic's as langchain-anthropic reads them (:func:`_from_v1`: a
    ``reasoning`` block of an Anthropic turn is its ``thinking`` block, signature included; review 313 #4). A message
    whose content list holds server tool blocks, cited text or a ``compaction`` block (LangChain's ChatAnthropic, the
    Anthropic SDK's form) is written from that list in its order (:func:`_from_content`). Any other: its kept
    ``compaction`` and thinking blocks (or its content list's thinking blocks), its text as one block, then one
    ``tool_use`` per call.

    Args:
        message: the assistant message.

    Returns:
        The blocks, possibly empty (an empty message: the caller drops the turn).
    """
    calls = assistant_calls(message)
    kept = ((message.provider_data or {}).get("anthropic") or {}).get("content") or []
    said = "".join(str(b.get("text") or "") for b in kept if b.get("type") == "text")
    if kept and _unchanged(calls, [b for b in kept if b.get("type") == "tool_use"]) and said == message.text:
        # (an edited text, model_copy(update={"content": ...}), is sent as edited, the thinking blocks kept: review 98
        # #3, the kept blocks' original text went out)
        # the turn as the API sent it (thinking signatures intact), less any empty text block; an invalid call's
        # input, when the kept block has none (a stream's unreadable JSON), what can be read of its text
        invalid = {c.get("id"): c for c in calls if c.get("type") == "invalid_tool_call"}
        turn = [copy.deepcopy(b) for b in kept if b.get("type") != "text" or str(b.get("text", "")).strip()]
        for block in turn:
            if block.get("type") == "tool_use" and block.get("id") in invalid and not block.get("input"):
                block["input"] = arguments_object(invalid[block["id"]])
        return turn
    if not kept and isinstance(message.content, list) and message.response_metadata.get("output_version") == "v1":
        anthropic = message.response_metadata.get("model_provider") == "anthropic"
        return _from_content(_from_v1(message.content, anthropic), calls)
    if not kept and _in_content(message):
        return _from_content(message.content, calls)
    blocks = [copy.deepcopy(b) for b in kept if b.get("type") in (*_ROUND_TRIP, *_OPAQUE)]  # (compaction: 317 #2)
    if not kept and isinstance(message.content, list):  # LangChain's ChatAnthropic keeps thinking in the content
        blocks = [{k: copy.deepcopy(v) for k, v in b.items() if k in _OPAQUE_KEYS} for b in message.content
                  if isinstance(b, dict) and b.get("type") in _OPAQUE]
    if (text := sent_text(message)).strip():
        blocks.append({"type": "text", "text": text})
    blocks.extend(_use(c) for c in calls)
    return blocks
