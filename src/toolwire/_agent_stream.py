"""What an :class:`~toolwire.agent.Agent` run gives back: :class:`AgentResult` (``invoke``), and for ``stream`` and
``astream`` the loop's :class:`AgentEvent` objects with the conversation so far at any point, so that a caller who
stops early keeps the work done (review 58). ``toolwire.agent`` and ``toolwire`` export these names."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from toolwire._concurrency import ctrl_c_interrupts

if TYPE_CHECKING:
    from toolwire.messages import AIMessage, AIMessageChunk, BaseMessage, Usage

__all__ = ["AgentEvent", "AgentResult", "AgentStream", "AsyncAgentStream", "EventType", "StopReason",
           "astreamed_reply", "bound_parameters", "merged_reply", "streamed_reply"]

EventType = Literal["model_reply", "tool_call", "tool_result", "final", "model_chunk"]
StopReason = Literal["answer", "return_direct", "max_steps", "refusal", "length"]



@dataclasses.dataclass(frozen=True)
class AgentResult:
    """What an Agent run produced.

    Attributes:
        messages: the whole conversation, the input messages first.
        output: the final answer's text (for a return_direct stop, the tool result's text). When the last
            reply of ``on_max_steps="answer"`` has no text, only tool calls (which are not run), ``output`` is a
            sentence saying so.
        steps: how many model calls were made (requests to a model): each attempt of ``response_format``'s
            structured call counts, so ``with_structured_output(Schema, retries=2)`` adds up to 3.
        stop_reason: ``"answer"``, ``"return_direct"``, ``"max_steps"``, ``"refusal"`` (the model's last reply
            is a refusal or a safety block, by its ``response_metadata["finish_reason"]``; ``output`` is its text,
            often empty), or ``"length"`` (the last reply, without tool calls, was cut at the output token limit,
            ``max_tokens``: ``output`` is the text it got to, maybe empty, as a reasoning model's that spent its
            budget thinking; raise ``max_tokens`` for a whole answer; or the last reply, with or without calls, was
            cut where the embedded model's context window ran out, ``response_metadata["context_full"]``: its calls
            were answered, the cut one with an error, and the model was not asked again, since a longer conversation
            could not fit; pass a larger ``n_ctx`` (:func:`~toolwire.errors.window_advice` reads the reply's metadata),
            or shorten the conversation, and resume with ``invoke(result.messages)``: review 267 #1).
        structured_response: the typed answer of ``Agent(..., response_format=Schema)``: the value of one more model
            call, ``model.with_structured_output(Schema)`` on the conversation, made after a run that stopped with
            ``"answer"`` or ``"max_steps"`` (``on_max_steps="answer"``) and counted in ``steps`` (each of its
            attempts, with ``retries``); its reply is not in ``messages``, its usage is in ``usage``. ``None`` without
            ``response_format`` and after the other stops (as LangGraph's ``create_react_agent(response_format=...)``,
            :mod:`toolwire._agent_response`).
        reused_calls: the calls of this run given another call's answer without running the tool (a repeated call,
            ``repeat_calls``, see :class:`~toolwire.agent.Agent`): ``{index in messages of such a ToolMessage: index
            in messages of the ToolMessage whose answer it got}``, in the order they were given; empty when no call
            was answered so (calls answered with an error and not run, such as a refusal's, are not in it). Such a
            ToolMessage looks like any other, so a program that must know whether a tool ran for a call reads it here
            (the ``RepeatedCallWarning`` says it once per tool). Positions, as call ids may repeat across replies.
        usage: the token usage of every model request the run made, summed key by key, in
            :attr:`AIMessage.usage_metadata <toolwire.messages.AIMessage.usage_metadata>`'s shape (``input_tokens``,
            ``output_tokens``, ``total_tokens``; ``cached_tokens`` and ``input_token_details["cache_read"]`` when a
            reply counted cached prompt tokens): the replies in ``messages`` that this run made (not those of the
            input conversation), and each request of ``response_format``'s structured call, whose replies are not in
            ``messages``, the attempts of ``with_structured_output(..., retries=n)`` and ``with_retry`` included
            (review 281 #1). ``None`` when no request reported usage. An attribute only: LangGraph's state has no
            such key, so it is not one of the dict keys below. A run that raises has no result: its error carries
            the same total, every request up to the failure, as ``exc.usage`` (review 285 #2).

    Read as a dict (``result["messages"]``, LangGraph's habit), the result has the keys ``messages``, ``output``,
    ``steps`` and ``stop_reason``, and ``structured_response`` only when the run made one, as LangGraph's state has that
    key only once its ``generate_structured_response`` node has run.
    """

    messages: list[BaseMessage]
    output: str
    steps: int
    stop_reason: StopReason = "answer"
    structured_response: Any = None
    reused_calls: Mapping[int, int] = dataclasses.field(default_factory=dict)
    usage: Usage | None = None

    def _keys(self) -> tuple[str, ...]:
        """The dict keys: :data:`_RESULT_FIELDS`, and ``structured_response`` when the run made one."""
        return _RESULT_FIELDS if self.structured_response is None else (*_RESULT_FIELDS, "structured_response")

    def __getitem__(self, key: str) -> Any:
        """``result["messages"]`` (and the other keys, see the class docs), as a LangGraph agent's result dict is read.

        Raises:
            KeyError: ``key`` is none of the result's keys (the message lists them; for ``"structured_response"``, it
                says why the run has none).
        """
        if isinstance(key, str) and key in self._keys():
            return getattr(self, key)
        why = "" if key != "structured_response" else (
            f"; this run made no structured response (stop_reason={self.stop_reason!r}: only an Agent(..., "
            "response_format=Schema) run that stops with 'answer' or 'max_steps' makes one, as in LangGraph), so "
            "result.structured_response is None")
        raise KeyError(f"{key!r}: an AgentResult has {', '.join(self._keys())} (read them as attributes, such as "
                       f"result.messages){why}")

    def __contains__(self, key: object) -> bool:
        """``"messages" in result``: whether ``key`` is one of the result's keys (as for a LangGraph result dict)."""
        return key in self._keys()

    def __iter__(self) -> Iterator[str]:
        """The keys, as iterating a LangGraph result dict gives them."""
        return iter(self._keys())

    def keys(self) -> tuple[str, ...]:
        """The keys (``messages``, ``output``, ``steps``, ``stop_reason``, and ``structured_response`` when the run
        made one), as a dict's ``keys()``."""
        return self._keys()

    def get(self, key: str, default: Any = None) -> Any:
        """``result[key]``, or ``default`` when ``key`` is none of the result's keys, as a dict's ``get``."""
        return getattr(self, key) if key in self._keys() else default


_RESULT_FIELDS = ("messages", "output", "steps", "stop_reason")
"""The keys every :class:`AgentResult` has."""


@dataclasses.dataclass(frozen=True)
class AgentEvent:
    """One thing that happened in the loop, as :meth:`Agent.stream` yields it.

    Attributes:
        type: ``"model_reply"`` (an AIMessage), ``"model_chunk"`` (an AIMessageChunk of a reply being written, before
            that reply's ``"model_reply"``; only with ``stream_tokens=True``, and in the run behind
            ``stream_mode="messages"``, where each model call is streamed), ``"tool_call"`` (a ToolCall about to
            run, or a call about to be answered with an error without running: an InvalidToolCall, a call refused
            by the step limit or a refusal), ``"tool_result"`` (a ToolMessage), or ``"final"`` (the
            :class:`AgentResult`). Every ``tool_result`` comes after the ``tool_call`` of its call. The calls of one
            reply all get their ``tool_call`` first; their ``tool_result`` events come, in call order, once all of
            them have finished.
        data: the AIMessage, AIMessageChunk, ToolCall (or InvalidToolCall), ToolMessage or AgentResult.
        step: the number of the model call this event belongs to (1-based); ``0`` for the calls left
            unanswered in the input conversation, which are answered before the first model call.
    """

    type: EventType
    data: Any
    step: int




class _Conversation:
    """The conversation of one run, as the loop builds it (empty until the first event is asked for)."""

    _messages: list[BaseMessage]

    @property
    def messages(self) -> list[BaseMessage]:
        """A copy of the conversation so far: the input, each model reply and each tool result. A round's tool
        results are all in it as soon as its first ``"tool_result"`` event comes (the calls of a reply are
        answered together), so after ``break`` it holds every answer the run got: pass it to ``Agent.invoke``
        to resume without running those calls again."""
        return list(self._messages)


class AgentStream(_Conversation, Iterator["AgentEvent"]):
    """The iterator :meth:`Agent.stream <toolwire.agent.Agent.stream>` returns: its
    :class:`~toolwire.agent.AgentEvent` objects, plus :attr:`messages`, the conversation so far.

    Leaving the ``for`` loop early (``break``) stops the run there: no further model call or tool runs.
    :meth:`close` stops it too (as for a generator).
    """

    def __init__(self, events: Generator[AgentEvent, None, None], messages: list[BaseMessage]) -> None:
        self._events = events
        self._messages = messages
        self._closing = False
        self._turn = threading.Lock()  # held while the run goes on to its next event (in the iterating thread)

    def __iter__(self) -> AgentStream:
        return self

    def __next__(self) -> AgentEvent:
        with self._turn:
            if self._closing:  # closed from another thread while a step ran: stopped here, in the iterating thread
                self._events.close()
                raise StopIteration
            return next(self._events)

    def close(self) -> None:
        """Stop the run (nothing more runs); :attr:`messages` keeps what it reached.

        Called from another thread than the one iterating (a web server's "client went away" handler) while the run
        is in a step, it asks the run to stop: the step under way (a model reply, a round of tool calls) ends, and
        the iteration ends at its next event, with nothing more run (review 113: Python's "generator already
        executing" error, and the run went on to its end).
        """
        self._closing = True
        if self._turn.acquire(blocking=False):  # no step under way: the run ends here (review 115: a next() in
            try:  # the other thread at the same moment hit "generator already executing")
                self._events.close()
            finally:
                self._turn.release()


class AsyncAgentStream(_Conversation, AsyncIterator["AgentEvent"]):
    """The async iterator :meth:`Agent.astream <toolwire.agent.Agent.astream>` returns: its events, plus
    :attr:`messages`, the conversation so far; :meth:`aclose` stops the run."""

    def __init__(self, events: AsyncGenerator[AgentEvent, None], messages: list[BaseMessage]) -> None:
        self._events = events
        self._messages = messages
        self._closing = False
        self._turn = asyncio.Lock()  # held while the run goes on to its next event

    def __aiter__(self) -> AsyncAgentStream:
        return self

    async def __anext__(self) -> AgentEvent:
        async with self._turn:
            if self._closing:  # closed by another task while a step ran: stopped here
                await self._events.aclose()
                raise StopAsyncIteration
            return await self._events.__anext__()

    async def aclose(self) -> None:
        """Stop the run (nothing more runs); :attr:`messages` keeps what it reached. From another task than the one
        iterating, while a step runs, the iteration ends at its next event, as :meth:`AgentStream.close` does
        from another thread (to stop at once, cancel the iterating task)."""
        self._closing = True
        if not self._turn.locked():  # no step under way: the run ends here, the reader waiting for it (as in close)
            async with self._turn:
                await self._events.aclose()


def bound_parameters(model: Any) -> dict[str, Any]:
    """``{name: parameters JSON Schema}`` of the tools bound to ``model``, as a request's ``tool_parameters`` gives
    them to :func:`~toolwire.messages.merge_chunks`: a streamed reply's unreadable call gets the error ``invoke``
    gives it, with the called tool's own argument shape (review 107)."""
    specs = getattr(model, "tool_specs", ())
    return {spec.name: spec.parameters for spec in specs if isinstance(getattr(spec, "parameters", None), dict)}


def merged_reply(chunks: list[AIMessageChunk], model: Any) -> AIMessage:
    """The reply the streamed ``chunks`` of one call to ``model`` make, merged as ``invoke`` merges it (with the bound
    tools' schemas, :func:`bound_parameters`); shared by :func:`streamed_reply` and the Agent's async driver."""
    from toolwire.messages import merge_chunks

    return merge_chunks(chunks, as_chunk=False, tool_names=bound_parameters(model))  # type: ignore[return-value]


def streamed_reply(model: Any, messages: list[BaseMessage], step: int) -> Generator[AgentEvent, None, AIMessage]:
    """One model call of an Agent run streamed (``stream_tokens=True``, ``stream_mode="messages"``): a
    ``"model_chunk"`` event per
    :class:`~toolwire.messages.AIMessageChunk` of ``model.stream(messages)``, then the reply they merge into
    (:func:`~toolwire.messages.merge_chunks`, equal to what ``invoke`` returns, as ``BaseChatModel.stream`` says).

    A Ctrl-C raises ``KeyboardInterrupt`` inside ``asyncio.run`` too while the model's stream blocks (starting, each
    next chunk, closing: :func:`~toolwire._concurrency.ctrl_c_interrupts`), but asyncio's own handler is back at each
    ``yield``, so the caller's code between chunks (a paused stream, one left after ``break``) keeps it (review 125 #5).

    Args:
        model: the bound model the call goes to; messages: the conversation sent; step: the model call's number
            (1-based).

    Returns:
        The whole reply (an AIMessage), as the generator's return value.

    Raises:
        Exception: what the model's stream raises. The model's stream is closed when this generator is.
        KeyboardInterrupt: a Ctrl-C while the model's stream blocks.
    """
    chunks: list[AIMessageChunk] = []
    with ctrl_c_interrupts():
        stream = model.stream(messages)
        pieces = iter(stream)
    try:
        while True:
            with ctrl_c_interrupts():
                chunk = next(pieces, _ENDED)
            if chunk is _ENDED:
                break
            chunks.append(chunk)
            yield AgentEvent("model_chunk", chunk, step)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            with ctrl_c_interrupts():
                close()
    return merged_reply(chunks, model)


_ENDED: Any = object()  # (streamed_reply: the model's stream has no more chunks)


async def astreamed_reply(model: Any, messages: list[BaseMessage], step: int,
                          chunks: list[AIMessageChunk]) -> AsyncGenerator[AgentEvent, None]:
    """Async :func:`streamed_reply`: a ``"model_chunk"`` event per chunk of ``model.astream(messages)``, each chunk
    also appended to ``chunks`` (an async generator returns no value: the caller merges them, :func:`merged_reply`).
    The model's stream is closed when this generator is (use ``contextlib.aclosing``).

    Raises:
        Exception: what the model's stream raises.
    """
    stream = model.astream(messages)
    try:
        async for chunk in stream:
            chunks.append(chunk)
            yield AgentEvent("model_chunk", chunk, step)
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
