"""Helpers shared by the provider codecs: content blocks, tool-result grouping, generation options.

Pure functions (no I/O). Each codec (``openai.py``, ``anthropic.py``, ``gemini.py``) uses them under the
same step names: ``convert_to_<p>_tool``, ``lower_messages``, ``lower_request``, ``parse_response`` and a
``StreamState`` that folds streamed events into :class:`~toolwire.messages.AIMessageChunk` values.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from toolwire._call_records import in_reply_order, split_in_order
from toolwire.errors import UserError
from toolwire.messages import (
    AIMessage,
    BaseMessage,
    InvalidToolCall,
    ToolCall,
    ToolMessage,
    Usage,
    is_text_block,
)
from toolwire.models.lowering._calls import CUT_OFF, arguments_json, arguments_object, native_call, sent_call_name
from toolwire.models.lowering._media import MediaBlock, read_media
from toolwire.models.lowering._object_union import COMBINATORS, fold_top_union, merge_object_union, object_branches

__all__ = [
    "COMBINATORS",
    "CUT_OFF",
    "RESPONSES_ITEM_BLOCKS",
    "STANDARD_OPTIONS",
    "CallIds",
    "ImageBlock",
    "arguments_json",
    "arguments_object",
    "assistant_calls",
    "block_as_text",
    "call_names",
    "constraint_notes",
    "content_parts",
    "default_notes",
    "fold_top_union",
    "group_messages",
    "is_text_block",
    "log",
    "merge_object_union",
    "merge_options",
    "native_call",
    "object_branches",
    "record_text",
    "sent_text",
    "split_calls",
    "system_text",
    "tool_result_text",
    "usage",
]


def sent_text(message: BaseMessage) -> str:
    """The text a provider is sent for a message sent as text (a system prompt, an assistant turn's text): a
    content list's text parts on lines of their own, so two parts never run together (``message.text`` joins them
    with nothing between, as LangChain's does: review 95). An untyped dict whose ``"text"`` is a string counts as
    text here whatever its other keys (a Gemini part with its ``thought_signature``, a block with ``cache_control``):
    only a tool's result reads such a dict as a record (review 233 #2)."""
    content = message.content
    if isinstance(content, str):
        return content
    return "\n".join(b if isinstance(b, str) else b["text"] for b in content if isinstance(b, str) or is_text_block(b)
                     or (isinstance(b, dict) and "type" not in b and isinstance(b.get("text"), str)))


def system_text(message: BaseMessage, api: str) -> str:
    """:func:`sent_text` of a system message, for an API whose system prompt takes text only (``api``: its name for
    the error). Raises UserError for an image, file or any other block there, rather than dropping it without a word
    (review 160 #5; docs/providers.md: an unknown block is a UserError)."""
    kinds = [b.get("type") for b in content_parts(message.content) if b.get("type") != "text"]
    if kinds:
        raise UserError(f"{api} takes text only in a system message, which holds a block of type {kinds[0]!r}: move "
                        "it into a user message.")
    return sent_text(message)

log = logging.getLogger("toolwire.lowering")

STANDARD_OPTIONS = ("temperature", "top_p", "max_tokens", "stop", "seed")
"""Option names every provider maps to its own field; any other option is passed through unchanged."""


class ImageBlock(dict):  # type: ignore[type-arg]
    """An image content block in toolwire's neutral form: ``{"type": "image", "url"}``,
    ``{"type": "image", "data": <base64 str>, "mime_type": "image/png"}`` or ``{"type": "image", "file_id"}`` (an
    uploaded file's id: LangChain's standard image block, Anthropic's ``{"source": {"type": "file"}}``, OpenAI
    Responses' ``input_image``; sent where the provider takes one, refused with advice elsewhere), with the
    ``"detail"`` (``"low"``, ``"high"``, ``"auto"``) of an OpenAI block that gave one (the OpenAI codecs send it
    back)."""


def _image(block: dict[str, Any]) -> ImageBlock | None:
    kind = block.get("type")
    if kind == "image_url":  # OpenAI form {"type": "image_url", "image_url": {"url": ..., "detail"?}} or a string
        ref = block.get("image_url")
        url = ref.get("url") if isinstance(ref, dict) else ref
        detail = ref.get("detail") if isinstance(ref, dict) else None
        extra = {"detail": detail} if isinstance(detail, str) else {}
        if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
            head, data = url[5:].split(";base64,", 1)
            return ImageBlock(type="image", data=data, mime_type=head or "image/png", **extra)
        return ImageBlock(type="image", url=url, **extra) if isinstance(url, str) else None
    if kind == "image" and isinstance(block.get("source"), dict) and set(block) <= {"type", "source"}:
        # Anthropic's form (Messages API, image content blocks), read so that other providers get it too;
        # with other keys (cache_control) it stays as given, for the Anthropic codec to send unchanged
        source = block["source"]
        if source.get("type") == "base64" and isinstance(source.get("data"), str):
            return ImageBlock(type="image", data=source["data"], mime_type=source.get("media_type") or "image/png")
        if source.get("type") == "url" and isinstance(source.get("url"), str):
            return ImageBlock(type="image", url=source["url"])
        if source.get("type") == "file" and isinstance(source.get("file_id"), str):
            return ImageBlock(type="image", file_id=source["file_id"])
        return None
    if kind == "input_image" and isinstance(block.get("file_id"), str) and not isinstance(block.get("image_url"), str):
        detail = block.get("detail")  # OpenAI Responses' part by uploaded file (a tool may return one)
        return ImageBlock(type="image", file_id=block["file_id"], **({"detail": detail} if isinstance(detail, str)
                                                                     else {}))
    if kind == "image" and "source" not in block:  # toolwire / LangChain neutral form
        data = block.get("base64") or block.get("data")
        if isinstance(data, str):
            return ImageBlock(type="image", data=data, mime_type=block.get("mime_type") or "image/png")
        if isinstance(block.get("url"), str):  # a mime_type given is kept: Gemini sends it with the URL
            mime = block.get("mime_type")
            return ImageBlock(type="image", url=block["url"], **({"mime_type": mime} if isinstance(mime, str) else {}))
        if isinstance(block.get("file_id"), str) and not block.keys() & {"base64", "data", "url"}:
            return ImageBlock(type="image", file_id=block["file_id"])  # LangChain's standard block by uploaded file
        if block.get("source_type") == "id" and isinstance(block.get("id"), str):  # its older form (there "id" is
            return ImageBlock(type="image", file_id=block["id"])  # the file's id, not the block's)
    return None


RESPONSES_ITEM_BLOCKS = frozenset({"mcp_approval_response"})
"""Block types only OpenAI's Responses API takes, from a HumanMessage, as items of their own: the answer to an
``mcp_approval_request`` (review 290 #2); :func:`content_parts` refuses one anywhere else (review 302 #3)."""


def responses_only(kind: str) -> UserError:
    """The error for a block of type ``kind`` (one of :data:`RESPONSES_ITEM_BLOCKS`) where it cannot go."""
    return UserError(f"An {kind} block is taken only by OpenAI's Responses API, from a user message "
                     "(ChatOpenAI(..., use_responses_api=True), answering its mcp_approval_request): leave it out of "
                     "a conversation sent to another model.")


def content_parts(content: str | list[Any]) -> list[dict[str, Any]]:
    """Read message content into a list of blocks, dropping empty text.

    Args:
        content: a string, or a list of strings and block dicts.

    Returns:
        Blocks in order: ``{"type": "text", "text", ...}`` (never empty or whitespace-only; a text block's
        other keys, such as ``cache_control``, kept: the OpenAI and Gemini codecs read only ``text``), a dict that
        is no block (:func:`~toolwire.messages.is_text_block`: no ``"type"``, or a ``"text"`` one whose ``text`` is no
        string, such as a tool's record ``{"sku": "A1", "text": ""}``; a Gemini part, ``{"inline_data": ...}`` or
        ``{"file_data": ...}``, is a block) as a text block of its whole JSON (:func:`record_text`: review
        229 #1, such a record was cut to its ``"text"`` or dropped),
        :class:`ImageBlock` for the image forms toolwire reads (``{"type": "image", "base64"|"data",
        "mime_type"}``, ``{"type": "image", "url"}``, ``{"type": "image", "file_id"}`` (LangChain's older
        ``{"source_type": "id", "id"}`` too), OpenAI
        ``{"type": "image_url", ...}`` and ``{"type": "input_image", "file_id"}``, Anthropic
        ``{"type": "image", "source": {"type": "base64" | "url" | "file", ...}}`` with no other key),
        :class:`~toolwire.models.lowering._media.MediaBlock` for the file, document and audio forms
        :func:`~toolwire.models.lowering._media.read_media` reads (LangChain's, OpenAI's, Anthropic's), and any other
        dict unchanged (a provider-native block the codec may pass through).

    Raises:
        UserError: a block only the Responses API takes as an item of its own (:data:`RESPONSES_ITEM_BLOCKS`, which its
            codec takes out of a user message first): :func:`responses_only`.
    """
    items = [content] if isinstance(content, str) else list(content)
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            if item.strip():
                out.append({"type": "text", "text": item})
            continue
        if not isinstance(item, dict):
            continue
        if is_text_block(item):
            if item["text"].strip():
                # other keys (Anthropic's cache_control, citations) kept for the codecs that send them
                out.append({**item, "type": "text"})
            continue
        if (not isinstance(item.get("type"), str) or item["type"] == "text") and not (
                "type" not in item and item.keys() <= _GEMINI_PART_KEYS):  # a record, no block (review 229 #1)
            out.append({"type": "text", "text": record_text(item)})
            continue
        if item.get("type") in RESPONSES_ITEM_BLOCKS:  # (a Gemini part has no type)
            raise responses_only(item["type"])
        found = _image(item)
        if found is None:
            found = read_media(item)
        out.append(found if found is not None else item)
    return out


def record_text(record: Any) -> str:
    """A dict that is no content block (a tool's record), as its whole JSON text, written as a tool's result is
    (:func:`~toolwire.results.result_to_content`: NaN as ``"NaN"``, non-text keys as text...); its ``str()`` when
    it cannot be JSON (a circular value). Never raises, never leaves a key out."""
    from toolwire.results import result_to_content

    try:
        text = result_to_content(record)
        if isinstance(text, str):
            return text
    except Exception:  # bytes that are not UTF-8, a circular value: written below as far as it can be
        pass
    try:
        return json.dumps(record, ensure_ascii=False, default=str)
    except Exception:
        return str(record)


_MEDIA_TYPES = frozenset({"image", "image_url", "input_image", "audio", "input_audio", "video", "file", "input_file",
                          "document"})
"""The block types whose base64 payload :func:`block_as_text` writes as a note of its length."""


_GEMINI_PART_KEYS = frozenset({"text", "inline_data", "inlineData", "file_data", "fileData"})
"""The keys of a Gemini part dict (no ``"type"``) that :func:`content_parts` passes on as a block, not as a record."""


def block_as_text(block: dict[str, Any]) -> str:
    """A content block a provider cannot take, as text for the model: an image, audio, video, file or document
    block's JSON with each base64 payload replaced by a note of its length, so no metadata is lost silently; any
    other dict (a block of a type no provider knows, a tool's record) as its whole JSON (:func:`record_text`), no
    key cut (review 229 #1)."""
    if not (block.get("type") in _MEDIA_TYPES or isinstance(block, ImageBlock | MediaBlock)
            or isinstance(block.get("source"), dict)):
        return record_text(block)
    shown = {k: (f"<{len(v)} base64 characters not sent>" if k in ("base64", "data") and isinstance(v, str) else v)
             for k, v in block.items()}
    if isinstance(shown.get("source"), dict) and isinstance(shown["source"].get("data"), str):
        shown["source"] = {**shown["source"], "data": f"<{len(shown['source']['data'])} base64 characters not sent>"}
    return json.dumps(shown, ensure_ascii=False, default=str)


def tool_result_text(message: ToolMessage, why: str | None = None) -> str:
    """The text of a tool result where a provider takes only a string (OpenAI chat and Responses, Gemini):
    the content itself, or its blocks joined by newlines, text blocks as their text (case E4: a list of text
    parts is accepted everywhere), an image, audio or file block as a note that the result holds it and that it is
    not shown (logged once per process: review 111, a tool's image reached the model as a JSON note of its base64
    length, and nothing told the developer), and any other block as :func:`block_as_text`, never dropped. ``why``:
    the note's reason where an API takes media in a result but not in this one (Anthropic's error results), which is
    not logged."""
    if isinstance(message.content, str):
        return message.content
    from toolwire.models._text_content import media_note

    def text(block: dict[str, Any]) -> str:
        if block.get("type") in ("text", "input_text") and isinstance(block.get("text"), str):  # (input_text: a
            return str(block["text"])  # Responses API part a tool returned, review 248 #5)
        note = media_note(block, why or "this API takes only text in a tool result")
        if note is None:
            return block_as_text(block)
        if why is None and not _TOLD_MEDIA:
            _TOLD_MEDIA.append(True)
            log.warning(
                "A tool result holds an image (or audio, or a file), which this API takes only as text in a tool "
                "result: the model reads a note that it is not shown; Anthropic's API and OpenAI's Responses API take "
                "images in tool results, and every provider takes one in a user message.")
        return note

    return "\n".join(text(b) for b in content_parts(message.content))


_TOLD_MEDIA: list[bool] = []
"""Whether :func:`tool_result_text` has logged that a media block is not sent (once per process)."""


def assistant_calls(message: AIMessage, names: Any = None) -> list[ToolCall | InvalidToolCall]:
    """The calls of an assistant turn in the order the model sent them: the valid ones, with each invalid one at
    its ``index`` (:func:`~toolwire._call_records.in_reply_order`), the others after them.

    Invalid calls are part of the turn too: the executor answered each with an error ToolMessage, and
    providers reject a result whose call is missing from the previous turn. A call whose name no provider takes
    back (gpt-4o's ``multi_tool_use.parallel``) is a copy under :func:`~toolwire.models.lowering._calls.sent_call_name`
    (``names``: the provider's own pattern of names, such as Gemini's; default: what every provider takes).
    """
    calls = in_reply_order(message.tool_calls, message.invalid_tool_calls, message.invalid_tool_calls)
    sent = (lambda n: sent_call_name(n)) if names is None else (lambda n: sent_call_name(n, names))
    return [c if c.get("name") == (name := sent(c.get("name"))) else {**c, "name": name}  # type: ignore[misc]
            for c in calls]


def call_names(messages: Iterable[BaseMessage]) -> dict[str, str]:
    """Map each tool-call id of the conversation to its tool name (for results that carry no name)."""
    names: dict[str, str] = {}
    for message in messages:
        if isinstance(message, AIMessage):
            for call in in_reply_order(message.tool_calls, message.invalid_tool_calls, message.invalid_tool_calls):
                if call.get("id"):  # (the name the model wrote: each lowering sends it as its API takes it)
                    names[str(call["id"])] = call.get("name") or ""
    return names


def group_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage | list[ToolMessage]]:
    """Put each ToolMessage right after the assistant turn whose call it answers, grouped and ordered as that
    turn's calls (case E3), whatever order and place they were appended in.

    Every provider wants a call's results to follow its assistant turn directly: OpenAI Chat "an assistant
    message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'", Anthropic
    ``tool_result`` blocks first in the next user turn, Gemini the function responses in the turn right after
    the function calls. So a result appended after a user or system message is moved back to its call's
    turn. A result whose id matches no call before it (a stale or mistyped id) would be refused by all three:
    it is sent as a user message that says what it is, so neither the request nor the result is lost.

    Every call gets exactly one result in the request, as the providers require (review 53): of several results
    for one call (a retried tool whose results were both appended) the last is sent, with a warning on the
    ``toolwire.lowering`` log; a call that the conversation went on past without a result gets the error result
    the Agent gives such a call (``... was not run: the conversation went on without its result``), and so does a
    call of the last assistant turn when some of that turn's calls have results and it has none (review 72: all three
    providers refuse a turn answered in part, and Gemini, which pairs results by position and name, would have read
    the one result as another call's). The calls of the last assistant turn with no result at all after it are left
    as they are (the caller is about to answer them). Where ids repeat (providers that number calls ``call_0``... in
    every reply), a result that names its tool goes to the latest turn whose call of its id has that name, and, in a
    turn that repeats an id, to the call of that tool (review 246 #4); a result without a name goes to the latest.
    """
    out: list[BaseMessage | list[ToolMessage]] = []
    turns: dict[str, list[int]] = {}  # call id -> indexes in ``out`` of the assistant turns that made it, in order
    made: dict[int, list[ToolCall | InvalidToolCall]] = {}  # that turn's index -> its calls

    for message in messages:
        if isinstance(message, ToolMessage):
            at = _answered_turn(message, turns.get(message.tool_call_id), made)
            if at is None:
                out.append(_orphan_result(message))
                continue
            if at + 1 < len(out) and isinstance(out[at + 1], list):
                out[at + 1].append(message)  # type: ignore[union-attr]
            elif at + 1 == len(out):  # right after its turn, as results mostly come: nothing moves
                out.append([message])
            else:
                out.insert(at + 1, [message])
                for key, value in turns.items():  # the turns after it moved one place on
                    turns[key] = [v + 1 if v > at else v for v in value]
                made = {(k + 1 if k > at else k): v for k, v in made.items()}
            continue
        if isinstance(message, AIMessage):
            calls = assistant_calls(message)
            if calls:
                index = len(out)
                made[index] = calls
                for key in dict.fromkeys(str(c.get("id")) for c in calls):
                    turns.setdefault(key, []).append(index)
        out.append(message)
    for at in sorted(made, reverse=True):  # from the end: an inserted group moves nothing still to come
        grouped = at + 1 < len(out) and isinstance(out[at + 1], list)
        run: list[ToolMessage] = out[at + 1] if grouped else []  # type: ignore[assignment]
        need: dict[str, int] = {}  # results each call id takes: one per call (a turn may repeat an id)
        for call in made[at]:
            need[str(call.get("id"))] = need.get(str(call.get("id")), 0) + 1
        by_id: dict[str, list[ToolMessage]] = {}
        for message in run:
            by_id.setdefault(message.tool_call_id, []).append(message)
        twice = sorted(i for i, got in by_id.items() if len(got) > need.get(i, 1))
        if twice:
            log.warning("tool call %s has several results: the request sends the last", ", ".join(twice))
        kept = _paired_results(made[at], by_id, grouped or at + 1 < len(out))
        if not kept:
            continue
        if grouped:
            out[at + 1] = kept
        else:
            out.insert(at + 1, kept)
    return out


def _paired_results(calls: list[ToolCall | InvalidToolCall], by_id: dict[str, list[ToolMessage]],
                    complete: bool) -> list[ToolMessage]:
    """One result for each of a turn's ``calls``, in call order, from its results ``by_id`` (in the order given).

    A call takes the last result of its id; when the turn repeats an id, a result that names a call's tool (its
    ``name``) goes to that call first, so one tool's result is not sent as another's (review 246 #4), and the
    others take the last results left, in call order. When ``complete`` (results were given, or the conversation
    went on), a call left without one gets the error result the Agent gives such a call (:func:`stale_answer`)."""
    from toolwire._agent_checks import stale_answer  # (that module imports this one)

    answers: list[tuple[int, ToolMessage]] = []
    answered: set[int] = set()
    for key, got in by_id.items():
        positions = [n for n, c in enumerate(calls) if str(c.get("id")) == key]
        left = list(got)
        free: list[int] = []
        for n in positions:
            name = calls[n].get("name")
            match = next((m for m in reversed(left) if m.name and m.name == name), None) if len(positions) > 1 else None
            if match is None:
                free.append(n)
                continue
            left.remove(match)
            answers.append((n, match))
            answered.add(n)
        for n, message in zip(free, left[-len(free):] if free else [], strict=False):  # the last given
            answers.append((n, message))
            answered.add(n)
    if complete:
        answers.extend((n, stale_answer(c)) for n, c in enumerate(calls) if n not in answered)
    answers.sort(key=lambda pair: pair[0])
    return [message for _, message in answers]


def _answered_turn(message: ToolMessage, at: list[int] | None,
                   made: dict[int, list[ToolCall | InvalidToolCall]]) -> int | None:
    """The index of the assistant turn a result answers, of the turns ``at`` that made a call of its id: the latest,
    or, when several did (providers that number calls ``call_0``... in every reply) and the result names its tool,
    the latest whose call of that id has that name, so a late result of an earlier turn's call is not sent as the
    answer to a later call of another tool (review 246 #4). None when no turn made it."""
    if not at:
        return None
    if len(at) > 1 and message.name:
        for index in reversed(at):
            if any(str(c.get("id")) == message.tool_call_id and c.get("name") == message.name for c in made[index]):
                return index
    return at[-1]


def _orphan_result(message: ToolMessage) -> BaseMessage:
    """A tool result that answers no call of the conversation, as a user message saying what it is."""
    from toolwire.messages import HumanMessage

    head = (f"(A tool result{f' of {message.name}' if message.name else ''} for call id {message.tool_call_id!r}, "
            "which no earlier call in this conversation made:)")
    content = message.content
    if isinstance(content, str):
        return HumanMessage(f"{head}\n{content}")
    return HumanMessage([{"type": "text", "text": head}, *content])


def merge_tool_option(bound: list[dict[str, Any]], given: Any, *, as_is: Callable[[Any], bool],
                      convert: Callable[[Any], dict[str, Any]]) -> list[dict[str, Any]]:
    """The bound tools, then the ``tools`` option's (``model_kwargs={"tools": [...]}``, e.g. a provider's
    server tools), so neither replaces the other.

    Args:
        bound: the bound tools, already in the provider's form.
        given: the option's value: a list of tools.
        as_is: whether an item is already in the provider's form (sent unchanged, copied).
        convert: turns any other item (a Tool, a function, an OpenAI-format dict) into the provider's form.

    Returns:
        A new list: ``bound`` then the option's tools.

    Raises:
        UserError: the option is not a list, or one of its tools has the name of another tool (a name is
            ``"name"``, or ``"function"["name"]`` in OpenAI's Chat Completions form; server tools may have none).
    """
    if not isinstance(given, list | tuple):
        raise UserError(f"The 'tools' option must be a list of tools, not {type(given).__name__}.")
    out = list(bound)
    names = {_tool_name(t) for t in bound} - {None}
    for item in given:
        tool = copy.deepcopy(item) if as_is(item) else convert(item)
        name = _tool_name(tool)
        if name is not None and name in names:
            raise UserError(f"The 'tools' option and the bound tools both have a tool named {name!r}: "
                            "give it once (bind_tools or model_kwargs).")
        names.add(name)
        out.append(tool)
    return out


def _tool_name(tool: Any) -> Any:
    if not isinstance(tool, dict):
        return None
    function = tool.get("function")
    return function.get("name") if isinstance(function, dict) else tool.get("name")


def merge_options(defaults: dict[str, Any] | None, per_call: dict[str, Any] | None) -> dict[str, Any]:
    """Model-level defaults overlaid with per-call options; ``None`` values are dropped."""
    merged = {**(defaults or {}), **(per_call or {})}
    return {k: v for k, v in merged.items() if v is not None}


class CallIds:
    """The call ids of one reply, made unique in the order the calls come.

    DeepSeek, GLM, Kimi and OpenRouter (review 7, finding 1) can give every parallel call of a reply the
    same ``id``. Each :class:`~toolwire.messages.ToolMessage` must answer exactly one call, and strict
    servers reject a conversation that repeats a ``tool_call_id``, so a repeated id is renamed
    ``<id>_2``, ``<id>_3``... (the first such name no earlier call of the reply has). The whole-reply path
    (:func:`split_calls`, run by every ``parse_response``) and the streamed one
    (:class:`~toolwire.models.lowering._stream.ToolCallMerger`) both rename through this class, call by
    call in reply order, so a merged stream carries the same ids as ``invoke``. The new id is the call's id
    from then on: the AIMessage's call and the ToolMessage answering it both carry it to the next request,
    and the server never needs its own repeated id back.

    Usage::

        ids = CallIds()
        ids.unique("c1"), ids.unique("c1"), ids.unique("c2")   # ("c1", "c1_2", "c2")
    """

    __slots__ = ("_next", "_used")

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._next: dict[str, int] = {}  # id -> the next suffix to try, so k copies cost O(k), not O(k**2)

    def unique(self, call_id: str) -> str:
        """``call_id`` when no earlier call of the reply has it, else ``<call_id>_<n>`` (n = 2, 3...)."""
        if call_id in self._used:
            n = self._next.get(call_id, 2)
            while f"{call_id}_{n}" in self._used:
                n += 1
            self._next[call_id] = n + 1
            call_id = f"{call_id}_{n}"
        self._used.add(call_id)
        return call_id


def split_calls(calls: Iterable[ToolCall | InvalidToolCall]) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Split parsed call records into (valid, invalid), order kept within each, after making their ids
    unique in reply order with :class:`CallIds` (a repeated ``"c1"`` becomes ``"c1_2"``): the reply's
    calls, valid and invalid, are answered by one ToolMessage each. An invalid call that a valid one follows
    keeps its place as ``index`` (:func:`~toolwire._call_records.split_in_order`), so the reply is written back
    and answered in the model's order (:func:`assistant_calls`)."""
    ids = CallIds()

    def unique(call: ToolCall | InvalidToolCall) -> ToolCall | InvalidToolCall:
        call_id = call.get("id")
        if isinstance(call_id, str) and (renamed := ids.unique(call_id)) != call_id:
            return {**call, "id": renamed}  # type: ignore[return-value]
        return call

    return split_in_order(unique(call) for call in calls)


def usage(input_tokens: Any, output_tokens: Any, total: Any = None, cached: Any = None,
          reasoning: Any = None) -> Usage | None:
    """Build a :class:`~toolwire.messages.Usage` (tokens) from provider counts; ``None`` when unknown. ``cached``
    (of the input) becomes ``cached_tokens`` and ``reasoning`` (of the output: OpenAI's ``reasoning_tokens``)
    ``output_token_details["reasoning"]``, as langchain-openai maps it, each only when it is a positive count."""
    if input_tokens is None and output_tokens is None:
        return None
    result: Usage = {
        "input_tokens": int(input_tokens or 0),
        "output_tokens": int(output_tokens or 0),
        "total_tokens": int(total if total is not None else (input_tokens or 0) + (output_tokens or 0)),
    }
    if cached:
        result["cached_tokens"] = int(cached)
    if isinstance(reasoning, int) and not isinstance(reasoning, bool) and reasoning > 0:
        result["output_token_details"] = {"reasoning": reasoning}
    return result


_BOUNDS = (("minimum", "at least {}"), ("exclusiveMinimum", "more than {}"), ("maximum", "at most {}"),
           ("exclusiveMaximum", "less than {}"), ("multipleOf", "a multiple of {}"),
           ("minLength", "at least {} characters long"), ("maxLength", "at most {} characters long"))


def constraint_notes(node: Mapping[str, Any]) -> list[str]:
    """The bounds of a JSON Schema node as sentences for a description, for a provider whose schema drops them:
    ``minimum``, ``maximum``, their exclusive forms (numbers only: draft-04's booleans are left out),
    ``multipleOf``, ``minLength``, ``maxLength`` and ``pattern`` (JSON Schema Validation, sections 6.2 and 6.3).

    Args:
        node: one schema node (a dict); its other keywords are ignored.

    Returns:
        The sentences, each ending in a full stop: ``["Must be at least 1, at most 5."]``,
        ``["Must match the regular expression `^[a-z]+$`."]`` (the pattern between backticks, two with spaces
        when it holds one, so neither the full stop nor a note after it reads as part of it); ``[]`` when it
        has none.
    """
    parts = [(words.replace("characters", "character") if node[key] == 1 else words).format(json.dumps(node[key]))
             for key, words in _BOUNDS
             if isinstance(node.get(key), int | float) and not isinstance(node.get(key), bool)]
    notes = [f"Must be {', '.join(parts)}."] if parts else []
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        quoted = f"`` {pattern} ``" if "`" in pattern else f"`{pattern}`"
        notes.append(f"Must match the regular expression {quoted}.")
    return notes


def default_notes(node: Mapping[str, Any]) -> list[str]:
    """The ``default`` of a JSON Schema node a provider's schema drops, as a sentence for the description
    (``['Default: "en".']``); ``[]`` without one, or for ``None`` and ``""`` (the model leaves such a parameter
    out, so the words would only cost tokens)."""
    value = node.get("default")
    if value is None or value == "":
        return []
    return [f"Default: {json.dumps(value, ensure_ascii=False, default=str)}."]
