"""Reading OpenAI replies: what Chat Completions and the Responses API share, and the Responses API reader.

Pure functions, no I/O; :mod:`toolwire.models.lowering.openai` re-exports :func:`parse_responses_response`
and :class:`ResponsesStreamState`. Formats, from the OpenAI API reference ("The response object",
"Streaming events"):

* ``output`` items: ``message`` (content parts ``output_text`` and ``refusal``), ``function_call``
  (``{"id": "fc_...", "call_id", "name", "arguments"}``) and ``reasoning`` items.
* Streaming: ``response.output_text.delta``, ``response.refusal.delta``, ``response.output_item.added`` /
  ``.done``, ``response.function_call_arguments.delta`` / ``.done`` (keyed by ``output_index``, else
  ``item_id``), and one terminal event: ``response.completed``, ``response.incomplete`` or ``response.failed``
  (an ``error`` event may come instead).

What is kept on the AIMessage, and sent back unchanged by ``lower_responses_messages``:
``provider_data["openai"]["reasoning"]`` (the ``reasoning`` items) and, with them,
``provider_data["openai"]["function_call_ids"]`` (``{call_id: "fc_..."}``, each ``function_call`` item's own
id) and ``provider_data["openai"]["output"]``, the reply's output items in their order: ``{"type": "reasoning",
"index": k}`` (the k-th reasoning item), the ``message`` items themselves (``{"type": "message", "id": "msg_...",
"status", "role", "content"}``), ``{"type": "function_call", "id": "fc_...", "call_id"}`` (the call itself is
the AIMessage's) and any other item (a built-in tool's, ``web_search_call``...) as it came. OpenAI refuses a
reasoning item sent back without the item that followed it in the output
("Item 'rs_...' of type 'reasoning' was provided without its required following item"), matched by that item's
id: so the items go back in their order, each message with its id, status and ``phase``. A built-in tool's item
(``image_generation_call`` with the image in ``result``, ``code_interpreter_call``, ``web_search_call``,
``file_search_call``, ``mcp_call``, ``mcp_list_tools``, ``mcp_approval_request``, any type toolwire does not know) is
kept so, whole, with or without reasoning (review 290 #2): ``output`` is where the user reads them, and they go back
in the next request in their place. Without reasoning or such items
the ids pair nothing and none of this is kept; only a message item's ``phase`` (``"commentary"`` for a preamble
before tool calls, ``"final_answer"``: gpt-5.3-codex and later), which the API reference asks to send back on every
assistant message, is kept then, as ``provider_data["openai"]["messages"]`` (``[{"text", "phase", "after_calls"}]``,
one per message item, with the number of ``function_call`` items before it: review 216 #2, 219 #3).

The ``annotations`` (``url_citation`` of a ``web_search`` answer...) and requested ``logprobs`` of the
``output_text`` parts are in ``response_metadata["annotations"]`` and ``response_metadata["logprobs"]``, with or
without reasoning, invoke and stream alike.

A refusal (``refusal`` content parts, ``response.refusal.delta`` events) is the reply's text, as Anthropic's
refusals and Gemini's safety stops keep theirs; the text is also in ``response_metadata["refusal"]`` and
``finish_reason`` is ``"refusal"``, so the Agent stops with ``stop_reason="refusal"``.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any

from toolwire.errors import ProviderError
from toolwire.messages import AIMessage, AIMessageChunk
from toolwire.models._retry import status_error
from toolwire.models._status_hints import named_field
from toolwire.models.lowering._common import CallIds, native_call, split_calls, usage
from toolwire.models.lowering._stream import ToolCallMerger, cut_calls
from toolwire.models.lowering._stream_errors import cut_short, error_status, not_a_reply
from toolwire.models.lowering._surrogates import SurrogateCarry
from toolwire.results import valid_text

__all__ = ["REFUSAL", "ResponsesStreamState", "as_dict", "metadata", "parse_responses_response"]

log = logging.getLogger("toolwire.lowering")

REFUSAL = "refusal"
"""The ``finish_reason`` of a reply that is a refusal (the Agent's refusal stop reasons include it)."""


def as_dict(obj: Any) -> dict[str, Any]:
    """A reply (or stream event) as a dict: a dict as it is, an SDK model dumped in JSON mode.

    Raises:
        TypeError: ``obj`` is neither.
    """
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    if dump is None:
        raise TypeError(f"Cannot read a reply of type {type(obj).__name__}.")
    # servers send fields in other shapes than the SDK's models declare (arguments as a JSON object, content
    # as a list of parts): read them as they came, without pydantic's serializer warning on every reply
    return dump(mode="json", exclude_none=True, warnings=False)  # type: ignore[no-any-return]


def metadata(model: Any, finish: Any, **extra: Any) -> dict[str, Any]:
    """``response_metadata``: ``{"model", "model_name", "finish_reason", **extra}`` without the ``None`` values
    (``model_name``, the same name, is LangChain's key: review 93)."""
    data = {"model": model, "model_name": model, "finish_reason": finish, **extra}
    return {k: v for k, v in data.items() if v is not None}


def _usage(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return None
    cached = (raw.get("input_tokens_details") or {}).get("cached_tokens")
    reasoning = (raw.get("output_tokens_details") or {}).get("reasoning_tokens")  # (review 290 #3)
    return usage(raw.get("input_tokens"), raw.get("output_tokens"), raw.get("total_tokens"), cached, reasoning)


def _token_limit(response: dict[str, Any]) -> bool:
    """Whether the output token limit cut the response: ``status: "incomplete"`` for ``max_output_tokens`` (or for
    no reason given), not for another reason such as ``content_filter``, which cuts no argument text at a limit."""
    reason = (response.get("incomplete_details") or {}).get("reason")
    return response.get("status") == "incomplete" and reason in (None, "max_output_tokens")


def _finish(data: dict[str, Any]) -> Any:
    reason = (data.get("incomplete_details") or {}).get("reason")
    return reason or data.get("status")


def _failure(error: Any) -> ProviderError:
    """The error of a ``response.failed`` response or an ``error`` event: its ``code`` read as an HTTP status
    when it names one (``server_error`` 500, ``rate_limit_exceeded`` 429...), so those are retryable (not
    ``insufficient_quota``, a billing limit: see :func:`~toolwire.models._retry.status_error`); an ``error`` event's
    ``param`` (the request field it is about) named after its message when the message does not name it."""
    error = error if isinstance(error, dict) else {}
    message = named_field(str(error.get("message") or "The response failed."), error.get("param"))
    status = error_status(error.get("code"), error.get("type"))
    code = next((c for c in (error.get("code"), error.get("type")) if isinstance(c, str)), None)
    return status_error("openai", status, message, code=code) if status else ProviderError(message, provider="openai")


_PART_KEYS = {"output_text": ("type", "text", "annotations"), "refusal": ("type", "refusal")}


def _message_item(item: dict[str, Any]) -> dict[str, Any]:
    """A ``message`` output item as an input item sends it back: ``id``, ``status``, ``role``, ``phase`` (when it has
    one: ``"commentary"`` or ``"final_answer"``, which the API reference asks to send back unchanged; review 216 #2)
    and its ``output_text`` / ``refusal`` parts (the fields the API reference lists for an output message given as
    input; others, such as ``logprobs``, left out)."""
    parts = [{k: part[k] for k in _PART_KEYS[part["type"]] if k in part}
             for part in item.get("content") or () if isinstance(part, dict) and part.get("type") in _PART_KEYS]
    out = {"type": "message", "id": item.get("id"), "status": item.get("status") or "completed",
           "role": item.get("role") or "assistant", "phase": _phase(item), "content": parts}
    return {k: v for k, v in out.items() if v is not None}


def _phase(item: dict[str, Any]) -> str | None:
    """A ``message`` item's ``phase`` (a non-empty string), else ``None``."""
    phase = item.get("phase")
    return phase if isinstance(phase, str) and phase else None


def _phases(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``provider_data`` of a reply without reasoning whose ``message`` items have a ``phase``:
    ``{"openai": {"messages": [{"text", "phase", "after_calls"}...]}}``, one entry per message item in order (its text
    as :func:`parse_responses_response` reads it; ``phase`` left out when it has none; ``after_calls``, the number of
    ``function_call`` items before it in the output, left out when 0), so each goes back as an assistant message with
    its phase, between the calls where it stood (a preamble before each call: review 219 #3); ``None`` when no
    message item has one (nothing to keep; review 216 #2)."""
    if not any(_phase(item) for item in items if item.get("type") == "message"):
        return None
    kept = []
    calls = 0
    for item in items:
        if item.get("type") == "function_call":
            calls += 1
        if item.get("type") != "message":
            continue
        text = "".join(t for t, _ in map(_part_text, item.get("content") or ()) if t is not None)
        entry = {"text": text, "phase": _phase(item), "after_calls": calls or None}
        kept.append({k: v for k, v in entry.items() if v is not None})
    return {"openai": {"messages": kept}}


def _part_extras(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``response_metadata`` entries of the ``output_text`` parts of the output's ``message`` items (review 179 #2,
    #3): ``annotations`` (``url_citation`` of ``web_search``, ``file_citation``...; each as sent, its indexes into its
    part's text) and ``logprobs`` (asked for with ``include=["message.output_text.logprobs"]``: one entry per token),
    each the parts' lists joined in output order, ``None`` when empty. Kept whether or not the reply has reasoning."""
    found: dict[str, list[Any]] = {"annotations": [], "logprobs": []}
    for item in items:
        if item.get("type") != "message":
            continue
        for part in item.get("content") or ():
            if isinstance(part, dict) and part.get("type") == "output_text":
                for key, kept in found.items():
                    if isinstance(part.get(key), list):
                        kept.extend(part[key])
    return {key: kept or None for key, kept in found.items()}


_OWN_ITEMS = frozenset({"message", "function_call", "reasoning"})
"""The output item types toolwire reads into the AIMessage itself; any other is a built-in tool's (kept whole)."""


def _opaque(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``provider_data`` of a reply whose output ``items`` (in order) hold reasoning or a built-in tool's item
    (``image_generation_call``, ``mcp_approval_request``...: review 290 #2): the reasoning items, the ids of the
    function_call items, and the order of the output, each built-in tool's item whole (see the module docs); else
    the ``phase`` of its message items (:func:`_phases`), else ``None``. An ``mcp_approval_request`` is logged as a
    warning that says how to answer it (:func:`_approval_asked`)."""
    reasoning = [item for item in items if item.get("type") == "reasoning"]
    if not reasoning and all(item.get("type") in _OWN_ITEMS for item in items):
        return _phases(items)
    call_ids: dict[str, str] = {}
    output: list[dict[str, Any]] = []
    ids = CallIds()  # the calls' ids as split_calls and the stream's merger make them unique, in reply order
    thoughts = 0
    for item in items:
        kind = item.get("type")
        if kind == "reasoning":
            output.append({"type": "reasoning", "index": thoughts})
            thoughts += 1
        elif kind == "message":
            output.append(_message_item(item))
        elif kind == "function_call":
            _keep_call_id(call_ids, item)
            ref = {"type": "function_call", "id": item.get("id"),
                   "call_id": ids.unique(item["call_id"]) if isinstance(item.get("call_id"), str) else None}
            output.append({k: v for k, v in ref.items() if v is not None})
        elif isinstance(kind, str):  # a built-in tool's item (web_search_call...): it may be what follows reasoning
            output.append(item)
            if kind == "mcp_approval_request":
                _approval_asked(item)
    kept: dict[str, Any] = {"reasoning": reasoning} if reasoning else {}
    if call_ids:
        kept["function_call_ids"] = call_ids
    kept["output"] = output
    return {"openai": kept}


def _approval_asked(item: dict[str, Any]) -> None:
    """Log that a reply asks to approve a remote MCP server's call (an ``mcp_approval_request`` item), which nothing
    answers unless the user does: the reply may say nothing else, and an Agent run ends with it."""
    log.warning("openai: the reply asks for approval to call the MCP tool %r of server %r (mcp_approval_request %r, "
                "kept in the AIMessage's provider_data['openai']['output']): answer it with a HumanMessage holding "
                "the block {'type': 'mcp_approval_response', 'approval_request_id': %r, 'approve': True} (or False), "
                "or bind the server with require_approval='never'.", item.get("name"), item.get("server_label"),
                item.get("id"), item.get("id"))


def _keep_call_id(call_ids: dict[str, str], item: dict[str, Any]) -> None:
    if isinstance(item.get("call_id"), str) and isinstance(item.get("id"), str) and item["id"]:
        call_ids[item["call_id"]] = item["id"]


def parse_responses_response(obj: Any, *, tool_names: Collection[str] | None = None) -> AIMessage:
    """Read a Responses API reply (``response`` object, or the SDK's ``Response``).

    Args:
        obj: the reply.
        tool_names: the bound tools' names, listed in the error of a call that has no name (``None``: not
            known, the error names no tools).

    Returns:
        An AIMessage: text of the ``output_text`` and ``refusal`` parts in order, one call per
        ``function_call`` item (id = ``call_id``; in a reply ``incomplete`` for ``max_output_tokens``, one whose
        ``arguments`` are empty or unclosed is an invalid call with the cut-off error, never run; in one that
        completed, unclosed ``arguments`` are an invalid call with the ordinary "not valid JSON" error),
        ``provider_data["openai"]`` with the
        ``reasoning`` items, the ``function_call`` items' ids (``function_call_ids``) and the output's order
        (``output``, see the module docs, with each built-in tool's item whole) when the reply has reasoning items or
        a built-in tool's items (without them, the message items'
        ``phase``, ``messages``, when they have one), usage in tokens, ``response_metadata``
        ``{"model", "finish_reason"}`` (the status, or the incomplete reason; ``"refusal"`` with
        ``"refusal"``: the refusal text, for a refusal), with ``"annotations"`` and ``"logprobs"`` of the
        ``output_text`` parts when they have some (:func:`_part_extras`).

    Raises:
        ProviderError: the response has ``status: "failed"`` (retryable when its error code is a server
            error or a rate limit).
        NotAReply: ``obj`` has no ``output`` list (not a Responses API reply: ``{}``, a gateway's JSON).
    """
    data = as_dict(obj)
    if data.get("status") == "failed":
        raise _failure(data.get("error"))
    if not isinstance(data.get("output"), list):
        raise not_a_reply(data, "output")
    cut = _token_limit(data)  # a call whose arguments never began was cut off, not {}
    text: list[str] = []
    refusal: list[str] = []
    calls = []
    items = [item for item in data.get("output") or () if isinstance(item, dict)]
    for item in items:
        kind = item.get("type")
        if kind == "message":
            for part in item.get("content") or ():
                if part.get("type") == "output_text":
                    text.append(part.get("text") or "")
                elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                    text.append(part["refusal"])
                    refusal.append(part["refusal"])
        elif kind == "function_call":
            calls.append(native_call(item.get("name"), item.get("arguments"), item.get("call_id"), tool_names,
                                     cut=cut))
    valid, invalid = split_calls(calls)
    refused = "".join(refusal)
    finish = REFUSAL if refused else _finish(data)
    return AIMessage("".join(text), tool_calls=valid, invalid_tool_calls=invalid, usage=_usage(data.get("usage")),
                     response_metadata=metadata(data.get("model"), finish, refusal=refused or None,
                                                **_part_extras(items)),
                     provider_data=_opaque(items), id=data.get("id"))


def _part_text(part: Any) -> tuple[str | None, bool]:
    """The whole text of a finished ``output_text`` or ``refusal`` content part, and whether it is a refusal
    (``(None, False)`` for any other part)."""
    if not isinstance(part, dict):
        return None, False
    if part.get("type") == "output_text" and isinstance(part.get("text"), str):
        return part["text"], False
    if part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
        return part["refusal"], True
    return None, False


def _valid(value: Any) -> Any:
    """``value`` with surrogate pairs joined and lone surrogates U+FFFD (:func:`~toolwire.results.valid_text`) when
    it is text; anything else as it is."""
    return valid_text(value) if isinstance(value, str) else value


class ResponsesStreamState:
    """Folds Responses API stream events into AIMessageChunks (same contract as the Chat ``StreamState``).

    Function-call pieces are keyed by ``output_index``; an event that carries only its output item's ``item_id``
    goes to the index an earlier event gave that id, else it is held under the id until an event (the item's
    ``response.output_item.done``, the terminal event's output) gives the id's index, and then joins that item's
    call or text there, so a call whose ``output_item.added`` was lost is one call, as invoke reads it, not a second
    call with no name (review 210 #4); pieces of an id that no event places are finished as a call of their own
    when the reply ends (with no name: invalid). A call's name and id are passed on when its
    ``response.output_item.added`` comes, its arguments whole when it finishes; a call no ``output_item.added``
    opened (a gateway lost it) is passed on whole once the finishing events gave its name and ``call_id`` too
    (``response.function_call_arguments.done`` carries no ``call_id``; ``response.output_item.done`` and the terminal
    event's output do), else with what they gave when the reply ends (review 209 #2). The finishing events'
    ``arguments`` (``response.function_call_arguments.done``, ``response.output_item.done``, the terminal event's
    output) are the call's, as :func:`parse_responses_response` reads them, and its ``function_call_arguments.delta``
    text (else the arguments an ``output_item.added`` carried) only stands in when no finishing event gives them
    (review 206 #3: the deltas were passed on as they came, so arguments repeated in ``output_item.added`` (older
    llama-cpp-python servers) or a delta a gateway lost made the stream's call differ from ``invoke``'s; a lost
    delta can make valid arguments that are wrong). The output items (the ``output`` of the terminal event's
    response, else those of the ``response.output_item.done`` events, in ``output_index`` order) give
    :meth:`finish`'s ``provider_data`` as :func:`parse_responses_response` reads it from the whole reply
    (reasoning items, function_call ids, the output's order); refusal deltas are text, as there.

    The events that finish a piece of the output carry it whole: ``response.output_text.done`` (``text``),
    ``response.refusal.done``, ``response.content_part.done`` (``part``), ``response.output_item.done`` (``item``)
    and the terminal event (``response.output``). A content part's text that the deltas did not bring (none came,
    as from gateways that re-chunk a stream and servers that send short items whole, or one was lost) is the
    missing end of it, sent when such an event shows it, and a function call that no event before the terminal
    one finished is sent then; so :func:`~toolwire.messages.merge_chunks` of the chunks equals
    :func:`parse_responses_response` of the reply. Text already sent cannot be taken back: when a finished text
    does not extend what the deltas gave, the finished one is kept as the part's text (later events are compared
    with it) and a warning is logged; a call's arguments that a later finishing event gives otherwise than the first
    (not extending them) stay as first sent, with a warning. In an ``incomplete`` reply, a call whose argument text
    never began is declared invalid with the cut-off error in :meth:`finish` (one left unclosed is invalid already).

    Raises:
        ProviderError: an ``error`` or ``response.failed`` event arrives (retryable when its code is a
            server error or a rate limit), or, in :meth:`finish`, the stream ended without a terminal event
            (retryable: the connection was cut before the reply was complete).
    """

    def __init__(self) -> None:
        self.merger = ToolCallMerger()
        self.id: str | None = None
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.items: dict[Any, dict[str, Any]] = {}  # output_index -> the finished output item
        self.refusal: list[str] = []
        self.ended = False  # response.completed or response.incomplete came
        self.incomplete = False  # ... and the response is incomplete (a token limit cut it)
        self.texts: dict[tuple[Any, Any], str] = {}  # (output index, content index) -> the part's text sent so far
        self.indexes: dict[str, Any] = {}  # output item id -> its output_index (its id: a call sent under it)
        self.calls: set[Any] = set()  # the output indexes of the function calls sent
        self.deltas: dict[Any, list[str]] = {}  # output index -> a call's argument deltas, held until it finishes
        self.given: dict[Any, str] = {}  # output index -> the arguments its output_item.added carried (held too)
        self.sent: dict[Any, str] = {}  # output index -> the call's argument text passed on (once it finished)
        self.pending: dict[Any, dict[str, Any]] = {}  # output index -> a finished call no output_item.added opened,
        # held while its name or call_id is unknown: {"text", "name", "call_id"}
        self.carry = SurrogateCarry()  # (output index, content index) -> a high surrogate a text delta ended with,
        # held for the part's next delta so each chunk holds whole characters (review 282 #4)

    def _index(self, data: dict[str, Any], item_id: Any = None) -> Any:
        """The output index of an event (its ``output_index``, else that of its ``item_id``), kept for the id."""
        index = data.get("output_index")
        item_id = item_id if item_id is not None else data.get("item_id")
        if isinstance(index, int) and not isinstance(index, bool):
            return self._place(item_id, index)
        return self.indexes.get(item_id, item_id) if isinstance(item_id, str) else index

    def _place(self, item_id: Any, index: int) -> Any:
        """The key of output item ``index`` whose id is ``item_id``, now that an event gives both.

        What events that carried only the ``item_id`` held under it before (argument deltas, arguments, a call
        waiting for its name, text sent) becomes that of ``index``, so they join the item's call or text there
        (review 210 #4: they were finished apart, as a second call with no name). A call already passed on under
        its id keeps that key (the chunks sent cannot be taken back).
        """
        if not isinstance(item_id, str):
            return index
        if item_id in self.calls:
            self.indexes[item_id] = item_id
            self._move(index, item_id)
            return item_id
        self.indexes[item_id] = index
        self._move(item_id, index)
        return index

    def _move(self, old: Any, new: Any) -> None:
        """Put what is held under key ``old`` (deltas, arguments, a pending call, text sent) under ``new``."""
        if old in self.deltas:
            self.deltas[new] = self.deltas.pop(old) + self.deltas.get(new, [])
        if old in self.given:
            self.given.setdefault(new, self.given.pop(old))
        if old in self.pending:
            self.pending.setdefault(new, self.pending.pop(old))
        for key in [key for key in self.texts if key[0] == old]:
            self.texts[(new, key[1])] = self.texts.pop(key) + self.texts.get((new, key[1]), "")
        for key in [key for key in self.carry.waiting() if key[0] == old]:  # type: ignore[index]
            self.carry.held[(new, key[1])] = self.carry.held.pop(key)  # type: ignore[index]

    def _delta(self, key: tuple[Any, Any], text: str, refusal: bool) -> str:
        if self.carry.held or not text.isascii():  # whole characters in each chunk (review 282 #4)
            text = self.carry.take(text, key)
        self.texts[key] = self.texts.get(key, "") + text
        if refusal:
            self.refusal.append(text)
        return text

    def _whole(self, key: tuple[Any, Any], text: str | None, refusal: bool) -> str:
        """The end of a content part's text that the deltas did not bring, now that ``text`` is all of it."""
        if text is None:
            return ""
        text = valid_text(text)  # (as the deltas were passed on: a surrogate pair joined, a lone one U+FFFD)
        self.carry.drop(key)  # (the whole text gives the character a held surrogate began)
        sent = self.texts.get(key, "")
        if text == sent:
            return ""
        self.texts[key] = text
        if text.startswith(sent):
            missing = text[len(sent):]
            if refusal:
                self.refusal.append(missing)
            return missing
        log.warning("openai: the finished text of a Responses stream's output item %s differs from its deltas "
                    "(%d characters sent, %d finished): the text already sent stays, the finished text is kept "
                    "as that part's.", key[0], len(sent), len(text))
        return ""

    def _item_text(self, index: Any, item: dict[str, Any]) -> str:
        """The missing text of a finished ``message`` item's content parts."""
        if item.get("type") != "message":
            return ""
        return "".join(self._whole((index, n), *_part_text(part)) for n, part in enumerate(item.get("content") or ()))

    def _added(self, item: dict[str, Any], index: Any) -> AIMessageChunk:
        """A call's first piece (its name and id) at its ``output_item.added``; arguments it carries are held."""
        if isinstance(item.get("arguments"), str) and item["arguments"]:
            self.given[index] = item["arguments"]
        self.calls.add(index)
        return AIMessageChunk(tool_call_chunks=[self.merger.add(index=index, id=item.get("call_id"),
                                                                name=item.get("name"))], id=self.id)

    def _finished(self, item: dict[str, Any], index: Any, last: bool = False) -> list[Any]:
        """The pieces that finish call ``index`` now that an event (``item``: the call, or ``{"arguments"[, "name"]}``)
        gives it whole: its arguments, or what the deltas (else its ``output_item.added``) held when the event has
        none; the call's name and id too when no ``output_item.added`` opened it. Such a call is held (none) until an
        event gave both its name and ``call_id``, as :func:`parse_responses_response` reads them from the output
        item, or ``last`` (the reply ended: it goes with what the events gave; review 209 #2)."""
        pending = self.pending.pop(index, None)
        if pending is not None:
            name, call_id = pending["name"] or item.get("name"), pending["call_id"] or item.get("call_id")
            if not last and (not name or not call_id):
                self.pending[index] = {**pending, "name": name, "call_id": call_id}
                return []
            self.calls.add(index)
            self.sent[index] = pending["text"] if isinstance(pending["text"], str) else ""
            first = self.merger.add(index=index, id=call_id, name=name, args=pending["text"])
            return [first, *self._finished({"arguments": item.get("arguments")}, index)]
        final, held = _valid(item.get("arguments")), valid_text("".join(self.deltas.pop(index, ())))
        given = _valid(self.given.pop(index, None))  # (surrogate pairs split across deltas joined: review 282 #4)
        text = final if isinstance(final, str) and (final or not held) else held or given or final
        sent = self.sent.get(index)
        if index not in self.calls and not last and (not item.get("name") or not item.get("call_id")):
            self.pending[index] = {"text": text, "name": item.get("name") or None,
                                   "call_id": item.get("call_id") or None}
            return []
        if index not in self.calls:
            self.calls.add(index)
            self.sent[index] = text if isinstance(text, str) else ""
            return [self.merger.add(index=index, id=item.get("call_id"), name=item.get("name"), args=text)]
        if not isinstance(text, str) or not text or text == sent:
            return []
        if sent and not text.startswith(sent):
            log.warning("openai: a Responses stream's function call (output item %s) finished with other arguments "
                        "than those already sent (%d characters sent, %d finished): the ones sent stay.", index,
                        len(sent), len(text))
            return []
        self.sent[index] = text
        return [self.merger.add(index=index, args=text[len(sent or ""):])]

    def _call(self, item: dict[str, Any], index: Any) -> AIMessageChunk | None:
        """:meth:`_finished` as a chunk (None: nothing to pass on)."""
        pieces = self._finished(item, index)
        return AIMessageChunk(tool_call_chunks=pieces, id=self.id) if pieces else None

    def _ended(self, response: dict[str, Any]) -> AIMessageChunk | None:
        """Read the terminal event's response; the text and calls of its output that no event before brought."""
        output = response.get("output")
        text: list[str] = []
        pieces: list[Any] = []
        if isinstance(output, list) and output:  # the whole output, in order: as the reply without a stream
            self.items = dict(enumerate(item for item in output if isinstance(item, dict)))
            for position, item in self.items.items():
                item_id = item.get("id")
                known = isinstance(item_id, str) and item_id in self.indexes
                index = self.indexes[item_id] if known else self._place(item_id, position)
                text.append(self._item_text(index, item))
                if item.get("type") == "function_call":
                    pieces += self._finished(item, index)
        for index in dict.fromkeys([*self.deltas, *self.given, *self.pending]):  # calls no event finished (or named)
            pieces += self._finished({}, index, last=True)
        self.usage = _usage(response.get("usage"))
        self.model = response.get("model") or self.model
        self.finish_reason = _finish(response)
        self.incomplete = _token_limit(response)
        self.ended = True
        text += [self.carry.rest(key) for key in self.carry.waiting()]  # a high surrogate no delta completed: U+FFFD
        joined = "".join(text)
        return AIMessageChunk(joined, tool_call_chunks=pieces, id=self.id) if joined or pieces else None

    def feed(self, event: Any) -> AIMessageChunk | None:
        """Return the text or tool-call piece of one Responses API stream ``event`` as a chunk, or ``None``."""
        data = as_dict(event)
        kind = data.get("type")
        text = ""
        if kind in ("response.created", "response.in_progress"):
            response = data.get("response") or {}
            self.id = self.id or response.get("id")
            self.model = response.get("model") or self.model
        elif kind in ("response.output_text.delta", "response.refusal.delta") and isinstance(data.get("delta"), str):
            key = (self._index(data), data.get("content_index") or 0)
            text = self._delta(key, data["delta"], kind == "response.refusal.delta")
        elif kind == "response.output_text.done":
            text = self._whole((self._index(data), data.get("content_index") or 0), data.get("text"), False)
        elif kind == "response.refusal.done":
            text = self._whole((self._index(data), data.get("content_index") or 0), data.get("refusal"), True)
        elif kind == "response.content_part.done":
            text = self._whole((self._index(data), data.get("content_index") or 0), *_part_text(data.get("part")))
        elif kind == "response.output_item.added" and (data.get("item") or {}).get("type") == "function_call":
            return self._added(data["item"], self._index(data, data["item"].get("id")))
        elif kind == "response.function_call_arguments.delta" and isinstance(data.get("delta"), str) and data["delta"]:
            self.deltas.setdefault(self._index(data), []).append(data["delta"])  # (passed on when the call finishes)
        elif kind == "response.function_call_arguments.done":
            return self._call({"arguments": data.get("arguments"), "name": data.get("name")}, self._index(data))
        elif kind == "response.output_item.done":
            item = data.get("item") or {}
            index = self._index(data, item.get("id"))
            position = data.get("output_index")
            position = position if isinstance(position, int) and not isinstance(position, bool) else index
            self.items[position if isinstance(position, int) else len(self.items)] = item
            if item.get("type") == "function_call":
                return self._call(item, index)
            text = self._item_text(index, item)
        elif kind in ("response.completed", "response.incomplete"):
            return self._ended(data.get("response") or {})
        elif kind == "response.failed":
            raise _failure((data.get("response") or {}).get("error"))
        elif kind == "error":
            raise _failure(data.get("error") if isinstance(data.get("error"), dict) else data)
        return AIMessageChunk(text, id=self.id) if text else None

    def finish(self) -> AIMessageChunk:
        """Return the closing chunk: usage, ``{"model", "finish_reason"[, "refusal", "annotations", "logprobs"]}``,
        kept reasoning items, call ids,
        and, in an incomplete reply, the calls whose argument text never began, as invalid calls.

        Raises:
            ProviderError: no ``response.completed`` or ``response.incomplete`` event came (retryable).
        """
        if not self.ended:
            raise cut_short("openai", "response.completed event")
        refused = "".join(self.refusal)
        finish = REFUSAL if refused else self.finish_reason
        items = [self.items[k] for k in sorted(self.items)]
        return AIMessageChunk(usage=self.usage, response_metadata=metadata(self.model, finish, refusal=refused or None,
                                                                           **_part_extras(items)),
                              provider_data=_opaque(items),
                              invalid_tool_calls=cut_calls(self.merger) if self.incomplete else None, id=self.id)
