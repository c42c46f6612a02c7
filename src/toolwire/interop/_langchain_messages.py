"""LangChain messages, both ways: :func:`to_langchain_messages` and :func:`from_langchain_messages`.

Re-exported by :mod:`toolwire.interop.langchain` (where they are documented for users); kept apart from the tool
conversions there so each module stays short. Formats follow langchain-core's own (``langchain_core.messages``).
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Iterable
from typing import Any

from toolwire._call_records import in_reply_order
from toolwire._extras import install_hint
from toolwire._legacy_calls import legacy_call
from toolwire._message_dicts import INDEX_KEY, unconvertible_langchain
from toolwire.errors import UserError
from toolwire.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    invalid_tool_call,
    new_tool_call_id,
    tool_call,
)

__all__ = ["from_langchain_messages", "to_langchain_messages"]

_PROVIDER_DATA_KEY = "toolwire_provider_data"
# marks an AI message converted from a toolwire one whose content holds tool_use/tool_result blocks: they were read
# already, so from_langchain_messages does not read them again as calls (review 246 #3)
_BLOCKS_READ_KEY = "toolwire_content_blocks_read"
# where LangChain marks the system message of a ("developer", text) prompt, read as the system message it is
_OPENAI_ROLE = "__openai_role__"


def _lc() -> Any:
    """``langchain_core.messages``, imported on first use.

    Raises:
        UserError: langchain-core is not installed (the message gives the command that installs it).
    """
    try:
        import langchain_core  # noqa: F401
    except ImportError:
        raise UserError(f"LangChain interop needs langchain-core, {install_hint('langchain')}.") from None
    import langchain_core.messages as lc_messages

    return lc_messages


def _usage_to_lc(usage: Any) -> Any:
    """``usage`` (a message's or a chunk's) as LangChain's ``usage_metadata``: a missing count 0, a missing
    ``total_tokens`` the sum (a chunk keeps its usage as given: review 280 #5), ``cached_tokens`` as
    ``input_token_details["cache_read"]``; None for no usage."""
    if not usage:
        return None
    out: dict[str, Any] = {k: usage.get(k) or 0 for k in ("input_tokens", "output_tokens")}
    total = usage.get("total_tokens")
    out["total_tokens"] = out["input_tokens"] + out["output_tokens"] if total is None else total
    for key in ("input_token_details", "output_token_details"):  # (kept whole: cache_creation, reasoning...)
        if isinstance(usage.get(key), dict):
            out[key] = dict(usage[key])
    if usage.get("cached_tokens") is not None:  # (merged, not replacing the other details: review 285 #3)
        out["input_token_details"] = {**out.get("input_token_details", {}), "cache_read": usage["cached_tokens"]}
    out.update({k: v for k, v in usage.items() if k not in out and k != "cached_tokens"})  # (cost_usd: review 304 #4)
    return out


def _invalid_places(msg: AIMessage) -> dict[str, int]:
    """``{call id: index}`` for the calls of ``msg`` that go to LangChain as invalid ones and have a place among the
    reply's calls (:class:`~toolwire.messages.InvalidToolCall` ``index``): each indexed invalid call, and each call
    whose arguments are not an object (LangChain's invalid call too) that a readable call follows. LangChain's
    invalid_tool_call has no ``index``, so :func:`to_langchain_messages` keeps this in ``additional_kwargs``, where
    :func:`from_langchain_messages` reads it back (review 76: a round trip wrote the turn back reordered)."""
    unread = [c for c in msg.tool_calls if not isinstance(c["args"], dict)]
    places = {bad["id"]: bad["index"] for bad in msg.invalid_tool_calls if type(bad.get("index")) is int}
    if unread:
        order = in_reply_order(msg.tool_calls, msg.invalid_tool_calls, msg.invalid_tool_calls)
        last_read = max((i for i, c in enumerate(order) if c.get("type") == "tool_call"
                         and isinstance(c.get("args"), dict)), default=-1)
        for position, call in enumerate(order):
            if position < last_read and any(call is c for c in unread):
                places[call["id"]] = position
    return places


def _chunk_calls(msg: Any, pieces: list[dict[str, Any]] | None = None) -> tuple[list[Any], list[Any]]:
    """The ``(tool_calls, invalid_tool_calls)`` of a LangChain ``AIMessageChunk``, read from its raw
    ``tool_call_chunks`` as toolwire's own :class:`~toolwire.chunks.AIMessageChunk` reads them
    (:meth:`~toolwire.chunks.AIMessageChunk.to_message`), not from LangChain's ``tool_calls``: LangChain parses the
    argument text as partial JSON, so arguments a stream cut off mid-way (``'{"pattern": "*.tmp", "dry_run": fa'``)
    read as a call without the cut ones (review 76: it ran with ``dry_run`` at its default). Here such a call is an
    :class:`~toolwire.messages.InvalidToolCall` that never runs. Invalid calls the chunk was given with an error
    (LangChain makes a chunk of each; those read from chunks have none) are kept as given. ``pieces``: copies of the
    chunk's tool-call chunks, their ids given (:func:`_give_ids`); by default, copies as they are."""
    from toolwire.chunks import AIMessageChunk as Chunk

    pieces = [dict(piece) for piece in msg.tool_call_chunks] if pieces is None else pieces
    given = [bad for bad in msg.invalid_tool_calls if bad.get("error") is not None]
    for bad in given:  # the piece LangChain made of it (None index, its name, args and id) is not read again
        made = [i for i, piece in enumerate(pieces) if piece.get("index") is None and (
            piece.get("name"), piece.get("args"), piece.get("id")) == (bad.get("name"), bad.get("args"), bad.get("id"))]
        if made:
            del pieces[made[0]]
    read = Chunk("", tool_call_chunks=pieces,  # type: ignore[arg-type]
                 invalid_tool_calls=[invalid_tool_call(bad.get("name"), bad.get("args"), bad.get("id"),
                                                       bad.get("error")) for bad in given],
                 response_metadata=dict(msg.response_metadata or {})).to_message()
    return read.tool_calls, read.invalid_tool_calls


_IDS_LOCK = threading.Lock()  # two threads reading the same LangChain reply give its calls one id each


def _no_id(record: Any) -> bool:
    return isinstance(record, dict) and not record.get("id")


def _same_call(piece: dict[str, Any], record: dict[str, Any]) -> bool:
    """Whether the tool-call chunk ``piece`` is the one LangChain read the call ``record`` from (or made of it): the
    same name, and the same argument text (an invalid call's) or text that reads as the call's arguments."""
    if (piece.get("name") or "") != (record.get("name") or ""):
        return False
    if not isinstance(record.get("args"), dict):
        return bool(piece.get("args") == record.get("args"))
    from langchain_core.utils.json import parse_partial_json

    try:
        return bool((parse_partial_json(piece["args"]) if piece.get("args") else {}) == record["args"])
    except Exception:  # text that is no JSON: not the piece of a readable call
        return False


def _give_ids(msg: Any, lc: Any) -> list[dict[str, Any]]:
    """Give each tool call and invalid tool call of the LangChain AI message ``msg`` that has no id (LangChain's ids
    are optional) a new one, written into ``msg``'s own dicts in place, so every later reading of the same message
    (by ``ToolExecutor.execute``, ``model.invoke``, the Agent, LangChain itself) gives the same ids and the results
    made for them answer its calls (review 143 #4: each reading made new ones, so a resumed Agent ran the calls again).

    Returns:
        For an ``AIMessageChunk``, copies of its tool-call chunks, each without an id given the id of the call LangChain
        read from it (or made it of); the chunks themselves keep None, so a provider's id in a later chunk still
        merges with them under LangChain's ``+`` (which then reads the calls again, to be given ids again). An empty
        list for other messages.
    """
    with _IDS_LOCK:
        records = [*msg.tool_calls, *msg.invalid_tool_calls]
        pieces = [dict(piece) for piece in msg.tool_call_chunks] if isinstance(msg, lc.AIMessageChunk) else []
        known = {piece.get("id") for piece in pieces if not _no_id(piece)}
        # the calls that stand for id-less tool-call chunks: those without an id, or with one no chunk has (made here)
        stand_in = [record for record in records if isinstance(record, dict) and record.get("id") not in known]
        for record in stand_in:
            if not record.get("id"):
                record["id"] = new_tool_call_id()
        for position, piece in enumerate(pieces):
            if _no_id(piece):
                same = next((i for i, record in enumerate(stand_in) if _same_call(piece, record)), None)
                if same is None:  # (a chunk whose call was edited away: written in, to read the same next time)
                    piece["id"] = msg.tool_call_chunks[position]["id"] = new_tool_call_id()
                else:
                    piece["id"] = stand_in.pop(same)["id"]
        return pieces


def to_langchain_messages(messages: Any) -> list[Any]:
    """Convert toolwire messages to ``langchain_core.messages`` ones.

    Args:
        messages: a toolwire message, a list of them, or anything toolwire accepts as a conversation
            (strings, ``(role, text)`` tuples, role dicts).

    Returns:
        LangChain ``SystemMessage``/``HumanMessage``/``AIMessage``/``ToolMessage`` objects in order.
        ``AIMessage.usage`` becomes ``usage_metadata``; ``provider_data`` is kept in
        ``additional_kwargs["toolwire_provider_data"]`` so it survives a round trip, as is each invalid call's place
        in the reply (its ``index``, for which LangChain's ``invalid_tool_call`` has no field), as
        ``additional_kwargs["toolwire_invalid_call_index"]`` ``{call id: index}``; a call's keys LangChain's
        calls have no field for (``extras``...) are left out, of valid and invalid calls alike; the LangChain
        ``additional_kwargs`` that :func:`from_langchain_messages` kept in ``response_metadata["additional_kwargs"]``
        go back to ``additional_kwargs``, and so does ``response_metadata["refusal"]`` (where ChatOpenAI keeps it).
        A toolwire message is converted as it is: an AI message's Anthropic ``tool_use`` content block that is not
        one of its calls (a call the program removed) stays a content block, never a call, and the message gets
        ``additional_kwargs["toolwire_content_blocks_read"] = True`` so that :func:`from_langchain_messages` does
        not read it as a call either.

    Raises:
        UserError: langchain-core is not installed, or an item is not a message.
    """
    lc = _lc()
    out: list[Any] = []
    for msg in _own_messages(messages):
        common = {"id": msg.id, "name": msg.name}
        if isinstance(msg, SystemMessage):
            out.append(lc.SystemMessage(content=msg.content, **common))
        elif isinstance(msg, HumanMessage):
            out.append(lc.HumanMessage(content=msg.content, **common))
        elif isinstance(msg, AIMessage):
            metadata = dict(msg.response_metadata)
            kept = metadata.get("additional_kwargs")  # what from_langchain_messages kept of LangChain's
            extra: dict[str, Any] = dict(metadata.pop("additional_kwargs")) if isinstance(kept, dict) else {}
            if metadata.get("refusal"):  # where LangChain's ChatOpenAI keeps it (review 76)
                extra["refusal"] = metadata.pop("refusal")
            if msg.provider_data:
                extra[_PROVIDER_DATA_KEY] = msg.provider_data
            if places := _invalid_places(msg):
                extra[INDEX_KEY] = places
            if _has_call_blocks(msg):
                extra[_BLOCKS_READ_KEY] = True
            out.append(lc.AIMessage(
                content=msg.content,
                tool_calls=[{"name": c["name"], "args": c["args"], "id": c["id"], "type": "tool_call"}
                            for c in msg.tool_calls if isinstance(c["args"], dict)],
                # a call whose arguments are text that could not be read (kept as sent, see AIMessage): LangChain
                # holds such a call as an invalid one (a place in the reply, "index", is kept in extra above:
                # LangChain's invalid_tool_call has no field for it); other keys an invalid call was given with
                # ("extras", OpenAI's "function"...) are dropped, as a valid call's are (review 203 #5: LangChain's
                # invalid_tool_call(**...) raised a TypeError for them)
                invalid_tool_calls=[*({"name": c.get("name"), "args": c.get("args"), "id": c.get("id"),
                                       "error": c.get("error"), "type": "invalid_tool_call"}
                                      for c in msg.invalid_tool_calls),
                                    *({"name": c["name"], "args": c["args"] if isinstance(c["args"], str)
                                       else json.dumps(c["args"], default=str), "id": c["id"],
                                       "error": "the arguments are not a JSON object", "type": "invalid_tool_call"}
                                      for c in msg.tool_calls if not isinstance(c["args"], dict))],
                usage_metadata=_usage_to_lc(msg.usage),
                response_metadata=metadata,
                additional_kwargs=extra,
                **common,
            ))
        elif isinstance(msg, ToolMessage):
            out.append(lc.ToolMessage(content=msg.content, tool_call_id=msg.tool_call_id, status=msg.status,
                                      artifact=msg.artifact, **common))
        else:  # pragma: no cover - coerce_messages returns only these
            raise UserError(f"Cannot convert {type(msg).__name__} to a LangChain message.")
    return out


def _own_messages(messages: Any) -> list[BaseMessage]:
    """``messages`` as :func:`~toolwire.messages.coerce_messages` reads them, except that a toolwire message given
    as one is converted as it is: its Anthropic ``tool_use``/``tool_result`` content blocks are not read again as
    calls and results, so a call the program removed from ``tool_calls`` (keeping the reply's content) does not
    come back as a runnable call (review 246 #3, as ``to_dict`` and pickling keep it)."""
    from toolwire._content_calls import read_content_calls
    from toolwire._message_dicts import _coerced

    given = {id(m) for m in ([messages] if isinstance(messages, BaseMessage) else
                             messages if isinstance(messages, list | tuple) else ()) if isinstance(m, BaseMessage)}
    out: list[BaseMessage] = []
    for msg in _coerced(messages):
        out.extend([msg] if id(msg) in given else read_content_calls([msg]))
    return out


def _has_call_blocks(msg: BaseMessage) -> bool:
    """Whether a message's content holds an Anthropic ``tool_use`` or ``tool_result`` block."""
    return isinstance(msg.content, list) and any(
        isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in msg.content)


def _content(value: Any) -> Any:
    return value if isinstance(value, str | list) else str(value)


def _warn_dropped(msg: Any) -> None:
    """Warn that a LangChain system, human, tool or chat message's ``additional_kwargs``/``response_metadata`` are
    left out: toolwire's message has no place for them (review 93: they were dropped silently, where toolwire's own
    constructors refuse them)."""
    dropped = []
    for field in ("additional_kwargs", "response_metadata"):
        data = getattr(msg, field, None)
        # (LangChain's mark of a ("developer", text) prompt's system message says nothing toolwire's does not)
        keys = [k for k, v in data.items() if not (k == _OPENAI_ROLE and v in ("developer", "system"))] if isinstance(
            data, dict) else []
        if keys:
            dropped.append(f"{field} ({', '.join(map(str, keys))})")
    if dropped:
        kind = type(msg).__name__
        also = ", and data for your code in its artifact" if isinstance(msg, _lc().ToolMessage) else ""
        warnings.warn(f"A LangChain {kind}'s {' and '.join(dropped)} were left out, since toolwire's system, user and "
                      f"tool messages have no place for them: put what the model should read in the content{also}.",
                      UserWarning, stacklevel=3)


def from_langchain_messages(messages: Any) -> list[BaseMessage]:
    """Convert ``langchain_core.messages`` objects to toolwire messages.

    Args:
        messages: one LangChain message or a list (any iterable) of them (``AIMessageChunk`` counts as an
            ``AIMessage``, its calls read from its raw ``tool_call_chunks`` as toolwire's own chunk reads them, so a
            call whose arguments a stream cut off is an invalid call; a ``ChatMessage`` is read by its role). Items
            that are not LangChain messages are read as toolwire reads a conversation
            (:func:`toolwire.messages.coerce_messages`): toolwire messages are kept, ``(role, text)`` tuples, role
            dicts and strings become messages.

    Returns:
        toolwire messages in order; tool calls keep name, args and id, invalid tool calls keep their raw
        text (a call, invalid call or tool-call chunk without an id is given one, written into the LangChain
        message's own dict so that every reading of it gives the same id), ToolMessages keep ``tool_call_id``,
        ``status`` and ``artifact``. An AI message's
        ``additional_kwargs`` are kept as :func:`toolwire.message_from_dict` keeps them from LangChain's
        ``messages_to_dict`` form: ``refusal`` in ``response_metadata["refusal"]``, the others (such as
        ``reasoning_content``; not the raw ``tool_calls``, which LangChain already read into ``tool_calls``) in
        ``response_metadata["additional_kwargs"]``, and the invalid calls' places that :func:`to_langchain_messages`
        kept (``toolwire_invalid_call_index``) as their ``index``. A legacy OpenAI ``function_call`` in an AI message
        without tool calls is read as its tool call (arguments text parsed as a call's are; an id is made). A system,
        human, tool or chat message's ``additional_kwargs``/``response_metadata`` have no place in toolwire's
        message: they are left out with a ``UserWarning`` naming their keys. An AI message whose call is only an
        Anthropic ``tool_use`` content block gets that call, and a human message's ``tool_result`` blocks become
        ToolMessages (:func:`toolwire._content_calls.read_content_calls`), as a model reads its input; not an AI
        message that :func:`to_langchain_messages` marked ``toolwire_content_blocks_read`` (its blocks were read
        already: a block that is not a call stays one).

    Raises:
        UserError: langchain-core is not installed, ``messages`` is not a message or an iterable of them, or a
            message has no toolwire equivalent (``FunctionMessage``, ``RemoveMessage``, a ``ChatMessage`` with an
            unknown role: the message says what to pass instead), or an item is neither a LangChain message nor one
            toolwire reads.
    """
    from toolwire._content_calls import read_content_calls
    from toolwire._message_dicts import _is_role_pair
    from toolwire.messages import coerce_messages

    lc = _lc()
    if isinstance(messages, lc.BaseMessage | BaseMessage | str | dict) or _is_role_pair(messages):
        messages = [messages]  # one message (a string is one question, not its characters)
    elif not isinstance(messages, Iterable):
        raise UserError(f"from_langchain_messages takes a LangChain message or a list of them, not "
                        f"{type(messages).__name__}.")
    items: Iterable[Any] = messages
    out: list[BaseMessage] = []
    read: set[int] = set()  # AI messages converted from toolwire ones: their content blocks are not read again
    roles = {"system": SystemMessage, "user": HumanMessage, "human": HumanMessage,
             "assistant": AIMessage, "ai": AIMessage, "developer": SystemMessage}  # (OpenAI's: review 143 #5)
    for msg in items:
        if not isinstance(msg, lc.BaseMessage):  # a toolwire message, a (role, text) tuple, a role dict...
            out.extend(coerce_messages([msg]))
            continue
        common = {"id": msg.id, "name": msg.name}
        content = _content(msg.content)
        if isinstance(msg, lc.SystemMessage | lc.HumanMessage | lc.ToolMessage) or (
                isinstance(msg, lc.ChatMessage) and msg.role in roles):  # (an AIMessage keeps them)
            _warn_dropped(msg)
        if isinstance(msg, lc.SystemMessage):
            out.append(SystemMessage(content, **common))
        elif isinstance(msg, lc.HumanMessage):
            out.append(HumanMessage(content, **common))
        elif isinstance(msg, lc.AIMessage):
            extra = dict(msg.additional_kwargs or {})
            extra.pop("tool_calls", None)  # OpenAI's raw form of the calls LangChain read into tool_calls
            blocks_read = extra.pop(_BLOCKS_READ_KEY, None) is True
            pieces = _give_ids(msg, lc)  # the same ids on every reading of this message (review 143 #4)
            if isinstance(msg, lc.AIMessageChunk) and msg.tool_call_chunks:
                calls, invalid = _chunk_calls(msg, pieces)
            else:
                calls = [tool_call(c["name"], dict(c.get("args") or {}), c.get("id")) for c in msg.tool_calls]
                invalid = [invalid_tool_call(c.get("name"), c.get("args"), c.get("id"), c.get("error"))
                           for c in msg.invalid_tool_calls]
            if not calls and not invalid and (legacy_read := legacy_call(extra, msg.id)) is not None:  # OpenAI's legacy
                del extra["function_call"]  # function call (review 93), its id the same on every reading (review 304)
                calls, invalid = legacy_read
            # LangChain's keywords, read as AIMessage reads them (provider_data, refusal, the invalid calls' places)
            out.append(AIMessage(content, tool_calls=calls, invalid_tool_calls=invalid,
                                 usage_metadata=msg.usage_metadata or None,
                                 response_metadata=dict(msg.response_metadata or {}), additional_kwargs=extra,
                                 **common))
            if blocks_read:
                read.add(id(out[-1]))
        elif isinstance(msg, lc.ToolMessage):
            out.append(ToolMessage(content, msg.tool_call_id, status=getattr(msg, "status", "success"),
                                   artifact=getattr(msg, "artifact", None), **common))
        elif isinstance(msg, lc.ChatMessage) and msg.role in roles:
            out.append(roles[msg.role](content, **common))
        else:
            raise unconvertible_langchain(msg)
    # an AI message's call kept only as an Anthropic ``tool_use`` block, and ``tool_result`` blocks in a user turn,
    # read as the calls and results they are, as a model reads its input (review 195 #2)
    return [m for msg in out for m in ([msg] if id(msg) in read else read_content_calls([msg]))]
