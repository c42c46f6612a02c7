"""Deterministic models for tests: users' own tests and toolwire's.

:class:`ScriptedChatModel` replays given replies in order and records every request it received
(messages, bound tools, tool_choice), so a test can assert both what the program did with a reply and
what it sent to the model. It implements the whole chat-model interface, streaming included, and
bound copies (``bind_tools``) share the script and the record with the model they came from.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, ClassVar

from toolwire._carried import carrying, uncarried
from toolwire._concurrency import thread_pool
from toolwire._model_stops import stops_escaped
from toolwire.errors import UserError
from toolwire.messages import AIMessage, AIMessageChunk, BaseMessage, merge_chunks
from toolwire.models._sdk_options import check_call_options
from toolwire.models.base import BaseChatModel, ChatRequest, message_to_chunks

__all__ = ["RecordedRequest", "ScriptedChatModel"]

Reply = AIMessage | str | Callable[[list[BaseMessage]], "AIMessage | str"]


@dataclasses.dataclass(frozen=True)
class RecordedRequest:
    """One request a :class:`ScriptedChatModel` received.

    Attributes:
        messages: the conversation sent (a copy of the list; messages are immutable).
        tools: the names of the bound tools, in bind order.
        tool_choice: the binding's tool_choice: ``"auto"`` when tools were bound without one (``bind_tools``'s
            default), None with no binding or ``tool_choice=None``.
        parallel_tool_calls: the binding's setting.
        options: the per-call options (temperature...).
    """

    messages: list[BaseMessage]
    tools: list[str]
    tool_choice: str | None
    parallel_tool_calls: bool | None
    options: dict[str, Any]


def _reply_list(responses: Any) -> list[Any]:
    """``responses`` as a new list of replies.

    Raises:
        UserError: ``responses`` is one reply rather than a list of them (a string, a message, a callable, a dict...):
            a string is a sequence too, and was replayed one character per call (review 211 #1).
    """
    from toolwire._printing import type_label

    if isinstance(responses, Iterator) or (isinstance(responses, Sequence)
                                           and not isinstance(responses, str | bytes | bytearray)):
        return list(responses)
    if isinstance(responses, str | BaseMessage) or callable(responses):
        one = f"a single {'string' if isinstance(responses, str) else 'reply'}"
    else:
        one = "None" if responses is None else type_label(responses)
    raise UserError(f"ScriptedChatModel takes a list of replies, such as ScriptedChatModel([\"It is sunny.\"]), "
                    f"not {one}: put even a single reply in a list.")


def _checked_pieces(stream_pieces: Any) -> int:
    """``stream_pieces`` when it is a whole number of 1 or more (review 211 #1: ``2.5`` failed only at the first
    stream, ``-1`` was taken).

    Raises:
        UserError: any other value.
    """
    if isinstance(stream_pieces, bool) or not isinstance(stream_pieces, int) or stream_pieces < 1:
        raise UserError(f"stream_pieces must be a whole number of 1 or more, not {stream_pieces!r}.")
    return stream_pieces


class _Script:
    def __init__(self, replies: Sequence[Reply], cycle: bool) -> None:
        self.replies = _reply_list(replies)
        self.cycle = cycle
        self.position = 0
        self.requests: list[RecordedRequest] = []
        self.lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """The script without its lock, so ``copy.deepcopy`` and ``pickle`` of a model take it (review 312 #3)."""
        state = dict(self.__dict__)
        del state["lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """The script copied or unpickled, with a lock of its own."""
        self.__dict__.update(state)
        self.lock = threading.Lock()


def _langchain_reply(reply: Any) -> Any:
    """A LangChain message as toolwire's (found by its module: LangChain is not imported for anything else), or
    ``reply`` itself."""
    from toolwire._message_dicts import langchain_message

    try:
        converted = langchain_message(reply)
    except UserError:  # a LangChain message of a kind toolwire has none of: refused as a reply
        return reply
    return reply if converted is None else converted


class ScriptedChatModel(BaseChatModel):
    """A chat model that answers from a script.

    Args:
        responses: a list (or tuple, or other sequence or iterator) of the replies, in order, even for one reply
            (``["It is sunny."]``; a lone reply, a string included, is refused); each reply is an
            :class:`AIMessage` (or LangChain's, converted as
            :func:`~toolwire.interop.langchain.from_langchain_messages` converts it), a string (a text reply), or a
            callable ``f(messages) -> AIMessage | str`` that computes the reply from the conversation (under
            ``ainvoke`` and ``astream``, on a worker thread in a copy of the caller's context, so it may block).
            A reply's tool calls are read as a provider reads a reply's calls, by :meth:`invoke` and :meth:`ainvoke`
            as by :meth:`stream` and :meth:`astream` (the same reply from all four): each call's arguments are sent
            as JSON text (a value that is not JSON as its ``str``) and read back, the name stripped, arguments
            wrapped as ``{"name", "arguments"}`` unwrapped, and a call left without a name made an invalid call
            (:meth:`~toolwire.messages.AIMessageChunk.to_message`).
        cycle: start again from the first reply when the script runs out (default False: a further
            call raises :class:`~toolwire.errors.UserError`).
        stream_pieces: how many pieces :meth:`stream` cuts each text and argument string into (a whole number
            of 1 or more; default 3).

    Attributes:
        requests: every :class:`RecordedRequest` received, by this model and its bound copies.

    Raises:
        UserError: (when built) ``responses`` is a single reply rather than a list (``ScriptedChatModel("hi")``), or
            ``stream_pieces`` is not a whole number of 1 or more (``2.5``, ``0``, ``True``); (on a call) the script
            ran out; a scripted reply, or what a callable returned, is
            neither an AIMessage nor a string (named with its module); or a call's options hold a generation option
            with a wrong value (``temperature=-1``, ``max_tokens=0``) or a close misspelling of one
            (``temprature=0``), checked as a
            hosted model checks them (:func:`~toolwire.models._sdk_options.check_call_options`), so a test with
            this model fails where production would. Other option names are recorded as given.
        RuntimeError: (on a call) a callable reply raised ``StopIteration`` or ``StopAsyncIteration`` (``next()`` on
            its used-up replies), which asyncio cannot carry; the message names it (review 226 #1).
    """

    provider: ClassVar[str] = "scripted"
    strict_mode: ClassVar[bool] = True  # recorded as given (RecordedRequest), for tests of the calling code

    def __init__(self, responses: Sequence[Reply], *, cycle: bool = False, stream_pieces: int = 3) -> None:
        self.stream_pieces = _checked_pieces(stream_pieces)
        self._script = _Script(responses, cycle)

    @property
    def model_name(self) -> str:
        """Always ``"scripted"``."""
        return "scripted"

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received so far, oldest first."""
        return self._script.requests

    def _next(self, request: ChatRequest) -> AIMessage:
        return self._made(self._take(request), request)

    def _take(self, request: ChatRequest) -> Reply:
        """Record ``request`` and take the next scripted reply (not yet computed when it is a callable)."""
        check_call_options(type(self).__name__, request.options)
        script = self._script
        with script.lock:
            script.requests.append(RecordedRequest(
                list(request.messages), [t.name for t in request.tools], request.tool_choice,
                request.parallel_tool_calls, dict(request.options)))
            if script.position >= len(script.replies):
                if not script.cycle or not script.replies:
                    raise UserError(
                        f"ScriptedChatModel ran out of replies after {script.position}: "
                        "add more responses or pass cycle=True."
                    )
                script.position = 0
            reply = script.replies[script.position]
            script.position += 1
        return reply

    def _made(self, reply: Any, request: ChatRequest) -> AIMessage:
        """The AIMessage of a scripted ``reply``: a callable's result for ``request``, a string as a text reply."""
        if callable(reply) and not isinstance(reply, AIMessage):  # (its StopIteration, as a RuntimeError: asyncio
            reply = stops_escaped(reply)(list(request.messages))  # cannot carry it, review 226 #1)
        if isinstance(reply, str):
            return AIMessage(reply)
        if not isinstance(reply, AIMessage):
            if isinstance(converted := _langchain_reply(reply), AIMessage):
                return converted
            kind = type(reply)  # (review 93: "not AIMessage" for LangChain's, so named with its module)
            named = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
            raise UserError(f"A scripted reply must be a toolwire AIMessage (or LangChain's) or a string, not {named}: "
                            "write the reply as toolwire.AIMessage(...).")
        return reply

    def _generate(self, request: ChatRequest) -> AIMessage:
        # the reply's calls are read as the streamed one's are (name stripped, a {"name", "arguments"} wrapper
        # unwrapped, a call without a name made invalid...), as a provider reads a whole reply and a stream by the
        # same function, so invoke, ainvoke, stream and astream give one reply for one script (review 194 #1)
        return merge_chunks(message_to_chunks(self._next(request), pieces=self.stream_pieces),  # type: ignore[return-value]
                            as_chunk=False, tool_names=request.tool_parameters)

    def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
        yield from message_to_chunks(self._next(request), pieces=self.stream_pieces)

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessageChunk]:
        # the reply is taken here, in call order; a callable one is computed on a worker thread, in a copy of the
        # caller's context, as ainvoke computes it, so a slow reply function does not block the event loop (review 155)
        reply = self._take(request)
        if callable(reply) and not isinstance(reply, AIMessage):
            loop = asyncio.get_running_loop()
            message = await uncarried(loop.run_in_executor(thread_pool(), contextvars.copy_context().run,
                                                           carrying(self._made), reply, request))
        else:
            message = self._made(reply, request)
        for chunk in message_to_chunks(message, pieces=self.stream_pieces):
            yield chunk
