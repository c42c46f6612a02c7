"""Chat Completions replies: :func:`parse_response` reads a whole ``chat.completion``, :class:`StreamState` folds
its stream (``chat.completion.chunk`` events) into the same AIMessage. Both are re-exported by
:mod:`toolwire.models.lowering.openai`.

A body or stream that is not a Chat Completions reply at all (a gateway's ``{"status": "ok"}``, ``{}``, another
API's reply or events, ``"choices": []``) raises :class:`~toolwire.models.lowering._stream_errors.NotAReply`, which
the model's driver turns into the ProviderError that says to check ``base_url``; a reply whose choice has empty
content is read as it is. Azure OpenAI's block of a filtered prompt (``"choices": []`` beside
``prompt_filter_results`` in which a category has ``"filtered": true``; Azure OpenAI reference, "Content
filtering": annotations) is a reply: empty content, ``finish_reason`` ``"content_filter"`` and the filter's results
in ``response_metadata["prompt_filter_results"]``, which the Agent reports as a refusal.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection
from typing import Any

from toolwire.chunks import merge_call_pieces
from toolwire.messages import AIMessage, AIMessageChunk
from toolwire.models.lowering._calls import CUT_OFF, STREAM_CUT, unclosed_arguments
from toolwire.models.lowering._common import native_call, split_calls, usage
from toolwire.models.lowering._openai_compat import (
    REASONING_KEY,
    is_first,
    pick_choice,
    raise_stream_error,
    read_content,
    reasoning_of,
    same_choice,
)
from toolwire.models.lowering._openai_replies import REFUSAL
from toolwire.models.lowering._openai_replies import as_dict as _as_dict
from toolwire.models.lowering._openai_replies import metadata as _metadata
from toolwire.models.lowering._stream import ToolCallMerger, cut_calls
from toolwire.models.lowering._stream_errors import cut_short, not_a_reply
from toolwire.models.lowering._surrogates import SurrogateCarry
from toolwire.results import valid_text

__all__ = ["LENGTH", "RETURN_REASONING", "StreamState", "parse_response"]

log = logging.getLogger("toolwire.lowering")

RETURN_REASONING = "return_reasoning"
"""The ``provider_data["openai"]`` flag of a reply whose ``reasoning_content`` goes back with its tool calls."""

LENGTH = "length"  # the finish_reason of a reply the output token limit cut short


def _chat_usage(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return None
    cached = (raw.get("prompt_tokens_details") or {}).get("cached_tokens")
    reasoning = (raw.get("completion_tokens_details") or {}).get("reasoning_tokens")  # (review 290 #3)
    return usage(raw.get("prompt_tokens"), raw.get("completion_tokens"), raw.get("total_tokens"), cached, reasoning)


def _chat_metadata(model: Any, finish: Any, **extra: Any) -> dict[str, Any]:
    """Chat Completions metadata: ``finish_reason`` is always there, ``None`` when the server sent none."""
    return {**_metadata(model, finish, **extra), "finish_reason": finish}


def _reasoning_data(reasoning: str, returned: bool = False) -> dict[str, Any] | None:
    """``provider_data`` of a reply's reasoning; ``returned``: the server sent it in ``reasoning_content``
    and the reply has tool calls, so :func:`lower_messages` sends it back (DeepSeek, Kimi thinking mode)."""
    if not reasoning:
        return None
    return {"openai": {REASONING_KEY: reasoning, RETURN_REASONING: True} if returned else {REASONING_KEY: reasoning}}


CONTENT_FILTER = "content_filter"  # the finish_reason of a reply Azure OpenAI's content filter stopped


def prompt_filtered(data: dict[str, Any]) -> list[Any] | None:
    """Return ``data["prompt_filter_results"]`` when Azure OpenAI filtered the prompt (one of its entries'
    ``content_filter_results`` has a category with ``"filtered": true``), else ``None``.

    Args:
        data: a reply body or stream chunk as a dict. Azure sends ``prompt_filter_results`` as a list of
            ``{"prompt_index", "content_filter_results": {category: {"filtered", "severity"}}}`` (Azure OpenAI
            reference, "Content filtering"); anything else there is not a filter's result and gives ``None``.
    """
    results = data.get("prompt_filter_results")
    if not isinstance(results, list):
        return None
    for entry in results:
        categories = entry.get("content_filter_results") if isinstance(entry, dict) else None
        if isinstance(categories, dict) and any(
                isinstance(found, dict) and found.get("filtered") is True for found in categories.values()):
            return results
    return None


def _filtered(id_: Any, model: Any, results: list[Any]) -> dict[str, Any]:
    """Log Azure OpenAI's block of the prompt of reply ``id_`` and return the reply's ``response_metadata``:
    ``finish_reason`` ``"content_filter"`` and the filter's ``prompt_filter_results`` (see :func:`prompt_filtered`)."""
    log.warning("Azure OpenAI's content filter blocked the prompt%s: the reply is empty (response_metadata"
                "['prompt_filter_results'] says which category).", f" of {id_}" if id_ else "")
    return _chat_metadata(model, CONTENT_FILTER, prompt_filter_results=results)


def join_logprobs(kept: dict[str, Any], logprobs: Any) -> None:
    """Add a choice's ``logprobs`` (``{"content": [...], "refusal": [...]}``, one entry per token) to ``kept``: lists
    joined in order, other values replaced, ``None`` values left out (a whole reply's is the join of one)."""
    if not isinstance(logprobs, dict):
        return
    for key, value in logprobs.items():
        if isinstance(value, list):
            kept[key] = [*(kept.get(key) or []), *value]
        elif value is not None:
            kept[key] = value


def _annotations(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _field_text(message: dict[str, Any], key: str) -> str:
    value = message.get(key)
    return value if isinstance(value, str) else ""


def _call_list(value: Any) -> list[dict[str, Any]]:
    """The calls of a message's or delta's ``tool_calls``: a list's call objects, or a lone object as a list of one
    (TGI before 3.2 streamed ``delta.tool_calls`` as one object: huggingface/text-generation-inference#2949; review
    214 #3). Items that are not objects carry no call and are passed over; ``None`` or anything else gives ``[]``."""
    if isinstance(value, dict):
        return [value]
    if isinstance(value, (list, tuple)):
        return [item for item in value if isinstance(item, dict)]
    return []


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
        text), ``response_metadata["refusal"]`` and ``finish_reason`` ``"refusal"``. The choice's ``logprobs`` (asked
        for with ``logprobs=True``) are ``response_metadata["logprobs"]`` (``{"content": [...]}``, LangChain's key) and
        ``message.annotations`` (a search model's ``url_citation`` entries) ``response_metadata["annotations"]``.

        A prompt Azure OpenAI's content filter blocked (``"choices": []`` with ``prompt_filter_results``, see the
        module's docstring) gives empty content and ``finish_reason`` ``"content_filter"``.

    Raises:
        NotAReply: ``obj`` has no ``choices``, or none (not a Chat Completions reply), and no content filter
            blocked its prompt.
    """
    data = _as_dict(obj)
    if not isinstance(data.get("choices"), list) or not data["choices"]:  # {}, a gateway's JSON, another API's
        results = prompt_filtered(data)
        if results is not None:
            return AIMessage("", usage=_chat_usage(data.get("usage")), id=data.get("id"),
                             response_metadata=_filtered(data.get("id"), data.get("model"), results))
        raise not_a_reply(data, "choices")
    choice = pick_choice(data["choices"])
    message = choice.get("message") or {}
    cut = choice.get("finish_reason") == LENGTH  # a call whose arguments never began was cut off, not {}
    calls = [native_call((tc.get("function") or {}).get("name"), (tc.get("function") or {}).get("arguments"),
                         tc.get("id"), tool_names, cut=cut) for tc in _call_list(message.get("tool_calls"))]
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
    logprobs: dict[str, Any] = {}
    join_logprobs(logprobs, choice.get("logprobs"))
    return AIMessage(content, tool_calls=valid, invalid_tool_calls=invalid,
                     usage=_chat_usage(data.get("usage")),
                     response_metadata=_chat_metadata(data.get("model"), finish, refusal=refusal or None,
                                                      annotations=_annotations(message.get("annotations")) or None,
                                                      logprobs=logprobs or None),
                     provider_data=_reasoning_data(reasoning_of(message) + parts.reasoning, returned),
                     id=data.get("id"))


_LEGACY_CALL = "function_call"  # the merger's key for a streamed legacy ``delta.function_call``

NO_TOOL = "no_tool"
"""The tool name TGI before 3.2 gave a text answer under ``tool_choice="auto"`` (its grammar's ``no_tool``)."""


def tgi_call(text: str) -> tuple[str, Any] | None:
    """The call in the argument text TGI before 3.2 streamed under a nameless call: its grammar's whole output,
    ``{"function": {"_name": NAME, ...arguments}}`` (``router/src/server.rs`` streamed each token as the
    ``arguments`` of a ``tool_calls`` object with ``name: null``; review 219 #2).

    Args:
        text: the joined argument text of a call that came without a name.

    Returns:
        ``(NAME, {arguments})``, or ``(NO_TOOL, text answer)`` for a text answer (``_name`` ``"no_tool"``, its
        ``content``); None for any other text (the call stays nameless, an invalid call).
    """
    try:
        value = json.loads(text)
    except ValueError:
        return None
    inner = value.get("function") if isinstance(value, dict) and len(value) == 1 else None
    name = inner.get("_name") if isinstance(inner, dict) else None
    if not isinstance(name, str) or not name:
        return None
    rest = {key: item for key, item in inner.items() if key != "_name"}  # type: ignore[union-attr]
    if name == NO_TOOL:
        content = rest.get("content")
        return NO_TOOL, content if isinstance(content, str) else ""
    return name, rest


def _whole_pieces(pieces: list[Any]) -> list[Any]:
    """``pieces`` (one per call, the ``finish`` chunk's) with surrogates in their argument text made whole or U+FFFD
    (:func:`~toolwire.results.valid_text`): a legacy ``function_call``'s pieces are joined only there."""
    return [{**piece, "args": valid_text(piece["args"])} if isinstance(piece.get("args"), str)
            and not piece["args"].isascii() else piece for piece in pieces]


class StreamState:
    """Folds Chat Completions stream chunks (``chat.completion.chunk`` objects) into AIMessageChunks.

    ``feed(chunk)`` returns the chunk's text and tool-call pieces (or ``None``); ``finish()`` returns the
    last chunk with usage (sent when ``stream_options.include_usage`` is set), finish reason, model, the
    reasoning text (``provider_data``) and any content part that is neither text nor thinking. Only the
    choice with index 0 is read; a stream that never sends one gives the first index it sent, whole, in
    ``finish()`` (as :func:`parse_response` falls back to the first choice), each call in one tool-call piece, so
    that the closing chunk alone (or accumulated with ``+``) reads as the reply. Merged with
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

    ``delta.refusal`` pieces are text, as :func:`parse_response` reads ``message.refusal``. The choice's ``logprobs``
    pieces are joined (their ``content`` lists in order) and the deltas' ``annotations`` too, into
    ``response_metadata["logprobs"]`` and ``["annotations"]`` as :func:`parse_response` has them.

    Args:
        compatible: the stream comes from an OpenAI-compatible server (a missing ``finish_reason`` is then
            tolerated, see above), not from OpenAI.
        limit: the request's output token limit, for a compatible server: a stream that used every token of it and
            left a call's argument text unclosed is read as cut at the limit (``finish_reason`` ``"length"``, the
            server's own in ``server_finish_reason``) whatever ``finish_reason`` the server sent.

    Raises:
        ProviderError: an error event (``{"object": "error", "message"}``) arrives, or, in ``finish()``, the
            stream brought no chunk at all, or (``compatible=False``) none with a ``finish_reason`` (retryable).
    """

    def __init__(self, *, compatible: bool = False, limit: int | None = None) -> None:
        self.compatible = compatible
        self.limit = limit  # the request's max_tokens, on a compatible server (see finish())
        self.merger = ToolCallMerger(index_order=True)
        self.id: str | None = None
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.reasoning: list[str] = []
        self.reasoning_field = False  # some reasoning came in reasoning_content
        self.refusal: list[str] = []
        self.blocks: list[dict[str, Any]] = []
        self.chunks = 0
        self.other_events: dict[str, Any] | None = {}  # the last event without "choices" (None: one had them)
        self.seen_first = False  # a choice with index 0 came
        self.other: list[dict[str, Any]] = []  # until then, the choices of the first other index
        self.tool_calls_seen = False  # a delta brought tool_calls (a legacy function_call is then not read)
        self.legacy: list[dict[str, Any]] = []  # the delta.function_call pieces, read in finish() when alone
        self.prompt_filter: list[Any] | None = None  # Azure's prompt_filter_results when its filter blocked one
        self.annotations: list[Any] = []  # the deltas' annotations (url_citation of a search model), in order
        self.logprobs: dict[str, Any] = {}  # the choice's logprobs pieces, joined
        self.named: set[Any] = set()  # the indexes of calls whose first piece had a name or an id
        self.nameless: dict[Any, list[str]] = {}  # the argument text of calls that began with neither (TGI < 3.2)
        self.carry = SurrogateCarry()  # a high surrogate a delta ended with, held for the next one (review 282 #4)

    def _read(self, choice: dict[str, Any]) -> tuple[str, list[Any]]:
        delta = choice.get("delta") or {}
        parts = read_content(delta.get("content"))
        self.reasoning.extend((reasoning_of(delta), parts.reasoning))
        self.reasoning_field = self.reasoning_field or bool(_field_text(delta, REASONING_KEY))
        refusal = _field_text(delta, "refusal")
        self.refusal.append(refusal)
        self.blocks.extend(parts.blocks)
        self.annotations.extend(_annotations(delta.get("annotations")))
        join_logprobs(self.logprobs, choice.get("logprobs"))
        pieces = []
        for tc in _call_list(delta.get("tool_calls")):
            fn = tc.get("function") or {}
            args = fn.get("arguments")
            if isinstance(args, str) and (self.carry.held or not args.isascii()):  # whole characters (282 #4)
                args = self.carry.take(args, ("call", tc.get("index")))
            released = self._held(tc.get("index"), tc.get("id"), fn.get("name"), args)
            if released is None:
                continue
            pieces += released
            pieces.append(self.merger.add(index=tc.get("index"), id=tc.get("id"), name=fn.get("name"), args=args))
        self.tool_calls_seen = self.tool_calls_seen or bool(delta.get("tool_calls"))
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):  # the deprecated single-call form: held until finish() knows there were
            self.legacy.append(legacy)  # no tool_calls (llama-cpp-python's handlers send the call in both)
        self.finish_reason = choice.get("finish_reason") or self.finish_reason
        return parts.text + refusal, pieces

    def _held(self, index: Any, id: Any, name: Any, args: Any) -> list[Any] | None:
        """None when a call piece is held until :meth:`finish`: the pieces of a call that began with neither a name
        nor an id, as TGI before 3.2 streamed its grammar's output (``{"function": {"_name": N, ...}}``, read by
        :func:`tgi_call` in :meth:`_nameless_calls`; review 219 #2). Else the pieces to give before this one: none,
        or, for a piece with a name or an id that comes later for a held index, the held text, in order, as an
        ordinary call's."""
        if index in self.named or (index not in self.nameless and (name or id)):
            self.named.add(index)
            return []
        if name or id:  # a named piece after all: the held text goes to the merger first, in order
            self.named.add(index)
            return [self.merger.add(index=index, args="".join(self.nameless.pop(index)))]
        self.nameless.setdefault(index, []).append(args if isinstance(args, str) else "")
        return None

    def _nameless_calls(self) -> tuple[str, list[Any]]:
        """The text and call pieces of the held nameless calls (:meth:`_held`), at the end of the stream: TGI's
        ``{"function": {"_name": N, ...rest}}`` is the call of ``N`` with ``rest`` (``"no_tool"``: a text answer),
        as its whole reply reads; any other text stays a call without a name (an invalid call, as before)."""
        text, pieces = "", []
        for index, held in self.nameless.items():
            joined = "".join(held)
            found = tgi_call(joined)
            if found is not None and found[0] == NO_TOOL:
                text += found[1]
            elif found is not None:
                pieces.append(self.merger.add(index=index, name=found[0], args=json.dumps(found[1])))
            else:
                pieces.append(self.merger.add(index=index, args=joined))
        self.nameless = {}
        return text, pieces

    def feed(self, event: Any) -> AIMessageChunk | None:
        """Return the text and tool-call pieces of one streamed ``event`` (a chunk) as an AIMessageChunk or ``None``."""
        data = _as_dict(event)
        raise_stream_error(data)
        self.chunks += 1
        if self.other_events is not None:
            self.other_events = None if "choices" in data else data
        self.id = self.id or data.get("id")
        self.model = data.get("model") or self.model
        self.prompt_filter = prompt_filtered(data) or self.prompt_filter
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
        if text:  # a trailing high surrogate held for the next delta, so each chunk can be printed (review 282 #4)
            text = self.carry.take(text)
        if not text and not pieces:
            return None
        return AIMessageChunk(text, tool_call_chunks=pieces, id=self.id)

    def _rest(self) -> tuple[str, list[Any]]:
        """The high surrogates still held at the end of the stream, each as U+FFFD: the text's, and the call pieces
        of calls' arguments (a nameless call's joins its held text)."""
        pieces = []
        for key in self.carry.waiting():
            if key is None:
                continue
            index, replacement = key[1], self.carry.rest(key)
            if index in self.nameless:
                self.nameless[index].append(replacement)
            else:
                pieces.append(self.merger.add(index=index, args=replacement))
        return self.carry.rest(), pieces

    def finish(self) -> AIMessageChunk:
        """Return the closing chunk: usage, ``{"model", "finish_reason"[, "refusal"]}``, reasoning, other parts;
        for a stream whose prompt Azure OpenAI's content filter blocked (no choice came, ``prompt_filter_results``
        says filtered), empty with ``finish_reason`` ``"content_filter"`` as :func:`parse_response` reads it.

        Raises:
            ProviderError: no chunk came at all, or (``compatible=False``) no ``finish_reason`` came (retryable).
            NotAReply: events came, but none with ``choices`` (not a Chat Completions stream).
        """
        if not self.chunks:
            raise cut_short("openai", "chunk")
        if self.prompt_filter is not None and not (self.seen_first or self.other):  # Azure blocked the prompt
            return AIMessageChunk("", usage=self.usage, id=self.id,
                                  response_metadata=_filtered(self.id, self.model, self.prompt_filter))
        if self.other_events is not None:  # events of another API, or a gateway's: no chunk of a reply came
            raise not_a_reply(self.other_events, "choices", stream=True)
        if self.finish_reason is None and not self.compatible:
            raise cut_short("openai", "chunk with a finish_reason")
        text = ""
        pieces = []
        for choice in self.other:
            more, new = self._read(choice)
            text += more
            pieces += new
        text = self.carry.take(text) if text else text
        more, new = self._rest()
        text += more
        pieces += new
        more, new = self._nameless_calls()
        text += more
        pieces += new
        if not self.tool_calls_seen:  # as parse_response reads message.function_call: one call, whole
            pieces += [self.merger.add(index=_LEGACY_CALL, name=p.get("name"), args=p.get("arguments"))
                       for p in self.legacy]
        # one piece per call: this chunk may be the stream's only one (review 159)
        pieces = _whole_pieces(merge_call_pieces(pieces))
        if self.finish_reason is None:
            log.warning("The chat completion stream%s ended without a finish_reason: the reply may be cut short "
                        "(response_metadata['finish_reason'] is None).", f" {self.id}" if self.id else "")
        content: str | list[Any] = text
        if self.blocks:
            content = [{"type": "text", "text": text}, *self.blocks] if text else list(self.blocks)
        refusal = valid_text("".join(self.refusal))
        finish = REFUSAL if refusal else self.finish_reason
        returned = self.reasoning_field and len(self.merger) > 0
        cut = cut_calls(self.merger, CUT_OFF if self.finish_reason == LENGTH else STREAM_CUT) \
            if self.finish_reason in (None, LENGTH) else []
        extra: dict[str, Any] = {}
        used = (self.usage or {}).get("output_tokens") if isinstance(self.usage, dict) else None
        if not cut and self.limit is not None and type(used) is int and used >= self.limit and not refusal:
            # every token used, a call's text not closed: cut at the limit, though the server said otherwise
            # (llama-cpp-python's "tool_calls"; review 91), as ChatOpenAI reads a whole reply (blank text is {})
            cut = [bad for bad in cut_calls(self.merger, CUT_OFF) if unclosed_arguments(bad.get("args"))]
            if cut:
                extra, finish = {"server_finish_reason": finish}, LENGTH
        return AIMessageChunk(content, tool_call_chunks=pieces, invalid_tool_calls=cut, usage=self.usage,
                              response_metadata=_chat_metadata(self.model, finish, refusal=refusal or None,
                                                               annotations=self.annotations or None,
                                                               logprobs=self.logprobs or None, **extra),
                              provider_data=_reasoning_data(valid_text("".join(self.reasoning)), returned), id=self.id)

