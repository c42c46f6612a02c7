"""Anthropic codec, the reply side: a Messages API reply (whole, or as streaming events) read into an AIMessage.

Formats from the Anthropic API reference ("Messages", "Streaming Messages"); the request side, and the module doc of
the whole codec, are in :mod:`toolwire.models.lowering.anthropic`, which re-exports :func:`parse_response` and
:class:`StreamState`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Collection
from typing import Any

from toolwire.errors import ProviderError
from toolwire.messages import AIMessage, AIMessageChunk, InvalidToolCall, invalid_tool_call
from toolwire.models._retry import status_error
from toolwire.models.lowering._calls import sent_call_name
from toolwire.models.lowering._common import CUT_OFF, log, native_call, split_calls, usage
from toolwire.models.lowering._stream import ToolCallMerger
from toolwire.models.lowering._stream_errors import cut_short, error_status, not_a_reply

__all__ = ["WINDOW_CUT", "StreamState", "parse_response"]

WINDOW_CUT = ("The call's arguments were cut off before they were complete because the model's context window ran out "
              "(stop_reason model_context_window_exceeded), so it was not run: shorten the conversation (fewer or "
              "shorter messages and tool results), then send the call again.")
"""The error of the ``tool_use`` a reply ended on when Anthropic stopped it at the model's context window
(``stop_reason: "model_context_window_exceeded"``, "Handling stop reasons"): its ``input`` may be cut short, as at
``max_tokens`` (:data:`~toolwire.models.lowering._calls.CUT_OFF`), but a higher ``max_tokens`` cannot help: only a
shorter conversation leaves room for the call (review 136 #4)."""

_CUT_ERRORS = {"max_tokens": CUT_OFF, "model_context_window_exceeded": WINDOW_CUT}
"""The stop reasons of a reply cut short, and the error of the ``tool_use`` it ended on."""


def _usage(raw: dict[str, Any] | None) -> Any:
    """The reply's token counts: ``input_tokens`` the sum of plain input, cache reads and cache writes (Anthropic's
    ``input_tokens`` counts neither), ``cached_tokens`` the cache reads and ``input_token_details["cache_creation"]``
    the cache writes (``cache_creation_input_tokens``, billed above plain input), each when more than 0, as
    langchain-anthropic reports them (review 297 #2); ``None`` without counts."""
    if not raw:
        return None
    cached = raw.get("cache_read_input_tokens") or 0
    written = raw.get("cache_creation_input_tokens") or 0
    inputs = raw.get("input_tokens")
    total_in = None if inputs is None else inputs + cached + written
    counts = usage(total_in, raw.get("output_tokens"), None, cached)
    if counts is not None and isinstance(written, int) and not isinstance(written, bool) and written > 0:
        counts["input_token_details"] = {**counts.get("input_token_details", {}), "cache_creation": written}
    return counts


def _as_dict(obj: Any) -> dict[str, Any]:
    """``obj``, a reply or stream event (the SDK's object, or a dict), as a dict. A field of the wrong type (a
    proxy's ``tool_use`` ``input`` of ``[1, 2]``) is dumped as it is, without pydantic's serializer warning, which
    reached the user from ``invoke`` but not from ``stream`` (review 265 #3)."""
    if isinstance(obj, dict):
        return obj
    return obj.model_dump(mode="json", exclude_none=True, warnings=False)  # type: ignore[no-any-return]


def _arguments(given: Any) -> Any:
    """The arguments of a ``tool_use`` block whose ``input`` is ``given``: an object (or None) as it is; any other
    value as its JSON text, the text a stream's ``input_json_delta`` pieces give for it, so that the invalid call and
    its error ("got a JSON array") are the same through ``invoke`` and ``stream`` (review 265 #3)."""
    if given is None or isinstance(given, dict):
        return given
    try:
        return json.dumps(given, ensure_ascii=False)
    except (TypeError, ValueError):  # (not from JSON: left to the reader's own error)
        return given


def _metadata(model: Any, finish: Any, container: dict[str, Any] | None = None,
              stop_sequence: Any = None) -> dict[str, Any]:
    """``response_metadata``: ``model`` (also as LangChain's ``model_name``), ``finish_reason`` (the ``stop_reason``,
    also under that name, as langchain-anthropic gives it), the ``stop_sequence`` that ended the reply (one of the
    request's ``stop_sequences``, review 297 #5) and the ``container``, each when known."""
    pairs = (("model", model), ("model_name", model), ("finish_reason", finish), ("stop_reason", finish),
             ("stop_sequence", stop_sequence), ("container", container))
    return {k: copy.deepcopy(v) for k, v in pairs if v is not None}


def _container(raw: Any) -> dict[str, Any] | None:
    """The reply's ``container`` (``{"id": "container_...", "expires_at"[, "skills"]}``: the code execution tool's
    container, whose id the next request must give while tool uses that code execution made wait for their results;
    Anthropic's programmatic tool calling guide, review 216 #1) as sent, or ``None`` when there is none or it has no
    id."""
    if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"]:
        return copy.deepcopy(raw)
    return None


def _opaque(blocks: Collection[dict[str, Any]]) -> bool:
    """Whether some of a reply's blocks say more than its text and calls: a block of another type (thinking, server
    tools...) or a text block with ``citations`` (document citations, which a reply of text blocks alone may carry:
    review 297 #1)."""
    return any(b.get("type") not in ("text", "tool_use") or (b.get("type") == "text" and b.get("citations"))
               for b in blocks)


def _kept(blocks: list[dict[str, Any]], container: dict[str, Any] | None) -> dict[str, Any] | None:
    """``provider_data``: ``{"anthropic": {"content": blocks}}`` when some blocks are opaque (:func:`_opaque`:
    thinking, server tools, citations...), and ``"container"`` there when the reply gave one; ``None`` when
    neither."""
    kept: dict[str, Any] = {}
    if _opaque(blocks):  # (a text block's empty citations, [] or None, left out: a stream's start may give [])
        kept["content"] = [{k: v for k, v in b.items() if k != "citations"}
                           if b.get("type") == "text" and "citations" in b and not b["citations"] else b
                           for b in blocks]
    if container is not None:
        kept["container"] = container
    return {"anthropic": kept} if kept else None


def parse_response(obj: Any, *, tool_names: Collection[str] | None = None) -> AIMessage:
    """Read a Messages API reply (``message`` object, or the SDK's ``Message``).

    Args:
        obj: the reply.
        tool_names: the bound tools' names, listed in the error of a call that has no name (``None``: not
            known, the error names no tools).

    Returns:
        An AIMessage: text blocks joined, one call per ``tool_use`` block (its ``input`` object, its
        ``id``; the last one, when the reply stopped at ``max_tokens`` or at the context window
        (``model_context_window_exceeded``), an invalid call, since its ``input`` may be cut short; its error says
        which limit and what to do), ``provider_data["anthropic"]["content"]`` = all blocks when some are opaque
        (thinking, server tools, a text block's ``citations``: an empty ``citations`` is left out), usage in tokens
        (input includes cache reads and writes; ``cached_tokens`` = cache reads, ``input_token_details
        ["cache_creation"]`` = cache writes),
        ``response_metadata`` ``{"model", "model_name", "finish_reason", "stop_reason"[, "stop_sequence"]}``
        (``finish_reason`` and ``stop_reason`` both the reply's ``stop_reason``; ``stop_sequence`` the one that ended
        it, when one did). A reply's ``container`` (code
        execution's: ``{"id", "expires_at"}``) is kept as ``response_metadata["container"]`` and
        ``provider_data["anthropic"]["container"]``, which the next request sends back (see
        :func:`~toolwire.models.lowering.anthropic.lower_request`).

    Raises:
        NotAReply: ``obj`` has no ``content`` list (not a Messages API reply: ``{}``, a gateway's JSON).
    """
    data = _as_dict(obj)
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise not_a_reply(data, "content")
    text = "".join(b.get("text") or "" for b in blocks if b.get("type") == "text")
    calls = [native_call(b.get("name"), _arguments(b.get("input")), b.get("id"), tool_names)
             for b in blocks if b.get("type") == "tool_use"]
    error = _CUT_ERRORS.get(str(data.get("stop_reason")))
    if error and blocks and blocks[-1].get("type") == "tool_use" and calls:
        calls[-1] = _cut_call(blocks[-1], error=error)
    valid, invalid = split_calls(calls)
    container = _container(data.get("container"))
    return AIMessage(text, tool_calls=valid, invalid_tool_calls=invalid, usage=_usage(data.get("usage")),
                     response_metadata=_metadata(data.get("model"), data.get("stop_reason"), container,
                                                 data.get("stop_sequence")),
                     provider_data=_kept(blocks, container), id=data.get("id"))


def _cut_call(block: dict[str, Any], text: str | None = None, error: str = CUT_OFF) -> InvalidToolCall:
    """The ``tool_use`` block a reply ended on when it stopped at ``max_tokens`` (or at the context window): its
    ``input`` may be cut short (Anthropic, "Handling stop reasons": retry with a higher ``max_tokens``), so it is not
    run. ``text``: the argument JSON text streamed for it (kept as the invalid call's ``args``, cut as it is), else
    ``input``'s. ``error``: :data:`~toolwire.models.lowering._calls.CUT_OFF` (as for a call other providers' replies
    cut short), or :data:`WINDOW_CUT`."""
    raw = block.get("input")
    if text is None:
        text = json.dumps(raw, ensure_ascii=False) if raw is not None else ""
    return invalid_tool_call(block.get("name") or None, text, block.get("id"), error)


def _input_object(text: str, block: dict[str, Any]) -> Any:
    """The ``input`` of a streamed non-client block (``server_tool_use``...) from its ``input_json_delta``
    text; the block's own ``input`` when the text is empty or not JSON (a debug log says so)."""
    if not text.strip():
        return block.get("input", {})
    try:
        return json.loads(text)
    except ValueError:
        log.debug("anthropic: the streamed input of a %s block is not JSON; its start input is kept",
                  block.get("type"))
        return block.get("input", {})


class StreamState:
    """Folds Messages API stream events into AIMessageChunks.

    ``feed(event)`` returns text and ``tool_use`` ``input_json_delta`` pieces as chunks (pieces keyed by
    block ``index``); thinking blocks and signatures, the ``input`` of other blocks that stream one
    (``server_tool_use``, ``mcp_tool_use``: not client calls), ``citations_delta`` citations (appended to
    the text block's ``citations``, as the reply's ``content`` has them) and a ``compaction`` block's
    ``compaction_delta`` (its summary ``content`` and ``encrypted_content``, set as the SDK's accumulator sets
    them) are collected and returned, with
    usage, stop reason and the reply's ``container`` (``message_start``'s message, or ``message_delta``'s delta,
    which wins), by :meth:`finish`; they go back to the API unchanged in the next turn. Merged, the chunks equal
    :func:`parse_response` of the same reply.

    Raises:
        ProviderError: an ``error`` event arrives (``overloaded_error`` is retryable), or the stream ends
            without a ``stop_reason`` (see :meth:`finish`).
    """

    def __init__(self) -> None:
        self.merger = ToolCallMerger()
        self.id: str | None = None
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.stop_sequence: str | None = None  # the stop sequence that ended the reply (review 297 #5)
        self.raw_usage: dict[str, Any] = {}
        self.container: dict[str, Any] | None = None  # the reply's code execution container (review 216 #1)
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial: dict[int, str] = {}  # input JSON text of blocks that are not client calls, by index
        self.lost: set[int] = set()  # tool_use blocks whose content_block_start was lost (review 249 #1)

    def feed(self, event: Any) -> AIMessageChunk | None:
        """Return the text or tool-call piece of one Messages API stream ``event`` (SDK object or dict) as an
        AIMessageChunk, or ``None`` for an event that carries none (``message_start``, ``message_delta``...).

        Raises:
            ProviderError: an ``error`` event, with the HTTP status its type stands for and that status's hint
                (``overloaded_error``: 529, retryable; ``invalid_request_error`` 400, ``authentication_error`` 401...:
                :func:`~toolwire.models.lowering._stream_errors.error_status`).
        """
        data = _as_dict(event)
        kind = data.get("type")
        index = data.get("index")
        if kind == "message_start":
            message = data.get("message") or {}
            self.id, self.model = message.get("id"), message.get("model")
            self.raw_usage.update(message.get("usage") or {})
            self.container = _container(message.get("container")) or self.container
        elif kind == "content_block_start":
            block = copy.deepcopy(data.get("content_block") or {})
            self.blocks[index] = block
            if block.get("type") == "tool_use":
                piece = self.merger.add(index=index, id=block.get("id"), name=block.get("name"))
                return AIMessageChunk(tool_call_chunks=[piece], id=self.id)
            if block.get("type") == "text" and block.get("text"):
                return AIMessageChunk(block["text"], id=self.id)
        elif kind == "content_block_delta":
            return self._delta(index, data.get("delta") or {})
        elif kind == "content_block_stop":
            block = self.blocks.get(index) or {}
            given = block.get("input")
            if block.get("type") == "tool_use" and given is not None and not self.merger.has_args(index):
                # the whole input came in the block's start and no input_json_delta followed (some compatible
                # servers and proxies send it so; review 33): it is the call's arguments. An empty one is "{}": the
                # block closed, so the call was whole, not cut before its arguments began (review 82); one that is
                # not an object is refused as parse_response refuses it (review 265 #3: the call ran with {})
                text = json.dumps(given, ensure_ascii=False) if isinstance(given, dict) else _arguments(given)
                piece = self.merger.add(index=index, args=text if isinstance(text, str) else str(text))
                return AIMessageChunk(tool_call_chunks=[piece], id=self.id)
        elif kind == "message_delta":
            self.finish_reason = (data.get("delta") or {}).get("stop_reason") or self.finish_reason
            self.stop_sequence = (data.get("delta") or {}).get("stop_sequence") or self.stop_sequence
            self.container = _container((data.get("delta") or {}).get("container")) or self.container
            self.raw_usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
        elif kind == "error":
            error = data.get("error") or {}
            message = str(error.get("message") or "The stream failed.")
            status = error_status(error.get("type"), error.get("code"))  # (review 136 #10: a client error's too)
            if status is None:
                raise ProviderError(message, provider="anthropic")
            raise status_error("anthropic", status, message, key_env="ANTHROPIC_API_KEY", code=error.get("type"))
        return None

    def _unstarted(self, index: Any, kind: Any) -> dict[str, Any]:
        """The block of a delta whose ``content_block_start`` never came (a proxy or server lost it): a ``tool_use``
        for ``input_json_delta`` (a call with no name and no id: kept as an invalid call, its arguments kept, so the
        model gets an error result rather than the call vanishing, as a Chat Completions call whose first piece was
        lost; review 249 #1), a ``compaction`` block for ``compaction_delta`` (which holds the whole block), else
        text; a warning says so, but for text pieces, which are kept as they are, and for the compaction block."""
        if kind == "input_json_delta":
            log.warning("anthropic: the content_block_start of block %s was lost; its input_json_delta pieces are "
                        "kept as a call with no name, which is not run (the model gets an error result)", index)
            self.lost.add(index)
            return {"type": "tool_use"}
        if kind == "compaction_delta":  # the delta holds the block's whole summary: nothing is lost
            return {"type": "compaction"}
        if kind not in ("text_delta", "citations_delta"):
            log.warning("anthropic: the content_block_start of block %s was lost; its %s pieces are dropped",
                        index, kind)
        return {"type": "text", "text": ""}

    def _delta(self, index: Any, delta: dict[str, Any]) -> AIMessageChunk | None:
        kind = delta.get("type")
        block = self.blocks.get(index)
        if block is None:
            block = self.blocks[index] = self._unstarted(index, kind)
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta.get("text", "")
            return AIMessageChunk(delta.get("text", ""), id=self.id) if delta.get("text") else None
        if kind == "input_json_delta":
            if block.get("type") != "tool_use":
                # server_tool_use, mcp_tool_use...: not a client call, but its input goes back unchanged
                self.partial[index] = self.partial.get(index, "") + (delta.get("partial_json") or "")
                return None
            piece = self.merger.add(index=index, args=delta.get("partial_json") or "")
            return AIMessageChunk(tool_call_chunks=[piece], id=self.id)
        if kind == "citations_delta":
            citations = block.get("citations")
            block["citations"] = [*(citations if isinstance(citations, list) else []), delta.get("citation")]
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + delta.get("signature", "")
        elif kind == "compaction_delta" and block.get("type") == "compaction":  # its start had "content": null
            block.update({k: delta[k] for k in ("content", "encrypted_content") if delta.get(k) is not None})
        return None

    def _content(self) -> list[dict[str, Any]]:
        calls = iter(self.merger.tool_calls())
        out = []
        for index, block in sorted(self.blocks.items(), key=lambda kv: kv[0]):
            if block.get("type") == "tool_use":
                call = next(calls)
                block = {**block, "input": call.get("args") if call.get("type") == "tool_call" else {}}
                if index in self.lost:  # sent back under its call's id (its result's), with a name the API takes
                    block.update(id=call.get("id"), name=sent_call_name(None))
            elif index in self.partial:
                block = {**block, "input": _input_object(self.partial[index], block)}
            out.append(block)
        return out

    def finish(self) -> AIMessageChunk:
        """Return the closing chunk: usage, ``{"model", "finish_reason", "stop_reason"[, "stop_sequence",
        "container"]}``, the blocks when some are
        opaque and the container (``provider_data["anthropic"]``, as :func:`parse_response` keeps them);
        when the reply stopped at ``max_tokens`` or at the context window (``model_context_window_exceeded``), the
        ``tool_use`` it ended on as an invalid call (never run).

        Its error is :data:`~toolwire.models.lowering._calls.CUT_OFF` for both stop reasons: merging the chunks
        (:meth:`toolwire.chunks.AIMessageChunk.to_message`) leaves the call's streamed pieces out in favour of this
        invalid call only when its error is that sentence (or the stop reason ``max_tokens``), so another sentence
        would give the call twice.

        Raises:
            ProviderError: (retryable) the stream ended before the ``message_delta`` that gives every reply of the
                Messages API its ``stop_reason``: the connection was cut and the reply is incomplete.
        """
        if self.finish_reason is None:
            raise cut_short("anthropic", "stop_reason")
        opaque = _opaque(self.blocks.values())
        cut: list[InvalidToolCall] = []
        if self.finish_reason in _CUT_ERRORS and self.blocks:  # as parse_response: the tool_use the reply ended
            content = self._content()  # on is not run; its chunks were sent, so it is declared invalid here
            last = content[-1]         # (the merged message leaves that call out, review 33), with its text
            if max(self.blocks) in self.lost:  # (no name: its start was lost)
                last = {**last, "name": None}
            if last.get("type") == "tool_use":
                position = sum(b.get("type") == "tool_use" for b in content) - 1
                cut.append(_cut_call(last, self.merger.raw_args(position) or None, _CUT_ERRORS[self.finish_reason]))
        return AIMessageChunk(usage=_usage(self.raw_usage),
                              response_metadata=_metadata(self.model, self.finish_reason, self.container,
                                                          self.stop_sequence),
                              provider_data=_kept(self._content() if opaque else [], self.container),
                              invalid_tool_calls=cut, id=self.id)
