"""LangGraph's ``stream_mode="values"``, ``"updates"`` and ``"messages"`` over an Agent run (private to
:mod:`toolwire.agent`).

A LangGraph ReAct agent (``create_react_agent``) streams its state as its graph steps: with ``"values"`` the whole
state after each step (``{"messages": [...]}``: the input first, then after each model call and after each round of
tools), with ``"updates"`` what each node added (``{"agent": {"messages": [reply]}}``, then ``{"tools": {"messages":
[result]}}`` per call, as its default version, "v2", runs each call as a step of its own). :class:`StateStream` gives
the same dicts from an Agent's :class:`~toolwire.agent.AgentEvent` stream, so the tutorial loop ``for step in
agent.stream({"messages": [...]}, stream_mode="values"): step["messages"][-1].pretty_print()`` ports unchanged
(review 99). Where the two loops differ, the states follow the Agent's: its system prompt leads every state, a reply
of unreadable calls is answered and the model asked again, and a run that fails before its first reply yields
nothing. An Agent with ``response_format`` ends as LangGraph's does after its ``generate_structured_response`` node:
an update ``{"generate_structured_response": {"structured_response": value}}``, or a last state holding both keys,
``{"messages": [...], "structured_response": value}`` (:mod:`toolwire._agent_response`).

With ``"messages"`` (LangGraph's token stream) each model call of the run is streamed, and the stream yields
``(message, metadata)`` pairs as LangGraph's does: each :class:`~toolwire.messages.AIMessageChunk` of a reply as the
model writes it, with ``{"langgraph_node": "agent", "langgraph_step": 2 * n - 1}`` for the run's ``n``-th model
call, and each tool result, a :class:`~toolwire.messages.ToolMessage`, with ``{"langgraph_node": "tools",
"langgraph_step": 2 * n}`` (``0`` for the calls the input left unanswered), as LangGraph numbers its ReAct graph's
steps. ``response_format``'s structured call is not streamed (its value is not a message).

None of the modes yields the run's :class:`~toolwire.agent.AgentResult` (LangGraph's streams have no such item), so
the stream keeps it: once the iteration has ended, :attr:`StateStream.result` is the result (``None`` for a run that
failed or was stopped early) and :attr:`StateStream.usage` its ``usage``, the tokens of every request the run made,
``response_format``'s structured call and its attempts included, which no state or message holds (review 285 #1).
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from toolwire.messages import BaseMessage, ToolMessage

if TYPE_CHECKING:
    from toolwire._agent_stream import AgentResult
    from toolwire.messages import Usage

__all__ = ["MODES", "AsyncStateStream", "StateStream", "checked_mode", "stream_options"]

MODES = ("values", "updates", "messages")
"""The ``stream_mode`` values an Agent takes (LangGraph's names)."""


def checked_mode(owner: str, mode: Any) -> str:
    """``mode`` when it is one of :data:`MODES`.

    Raises:
        UserError: another value, in one sentence saying what to use.
    """
    if mode in MODES:
        return str(mode)
    from toolwire.errors import UserError

    other = ("debug", "custom", "tasks", "checkpoints")  # (LangGraph's StreamMode, langgraph.types: review 172 #2)
    what = ("an Agent streams one mode at a time" if isinstance(mode, list | tuple) else
            f"LangGraph's {mode} stream has no counterpart in an Agent run" if mode in other
            else "it is none of LangGraph's modes")
    raise UserError(f"{owner}(stream_mode={mode!r}): {what}; use stream_mode='values' or 'updates' for LangGraph's "
                    "state dicts, 'messages' for the replies' tokens and the tool results, or leave it out for "
                    "AgentEvent objects.")


def stream_options(owner: str, rest: tuple[Any, ...], options: dict[str, Any],
                   settings: list[str]) -> tuple[str | None, bool]:
    """Read ``Agent.stream``'s (or ``astream``'s) options: ``stream_mode`` (:data:`MODES`, or None for AgentEvent
    objects) and ``stream_tokens`` (each model call streamed, its chunks given as ``"model_chunk"`` events).

    Args:
        owner: ``"Agent.stream"`` or ``"Agent.astream"``, for the messages; rest, options: what the call got besides
            its input; settings: the Agent's constructor settings, named when a LangGraph habit is refused.

    Returns:
        ``(mode, tokens)``: ``tokens`` is True for ``stream_tokens=True`` and for ``stream_mode="messages"``.

    Raises:
        UserError: another argument (:func:`toolwire._keywords.refuse_run_config`), a mode that is none of
            :data:`MODES`, ``stream_tokens`` that is not a bool, or given with ``"values"`` or ``"updates"``, whose
            states hold whole replies.
    """
    from toolwire._keywords import refuse_run_config
    from toolwire.errors import UserError

    mode, tokens = options.pop("stream_mode", None), options.pop("stream_tokens", False)
    if rest or options:  # a LangGraph habit (review 76)
        refuse_run_config(owner, rest, options, settings)
    if not isinstance(tokens, bool):
        raise UserError(f"{owner}(stream_tokens={tokens!r}): stream_tokens takes True or False.")
    mode = None if mode is None else checked_mode(owner, mode)
    if tokens and mode in ("values", "updates"):
        raise UserError(f"{owner}(stream_tokens=True, stream_mode={mode!r}): LangGraph's states hold whole replies; "
                        "use stream_mode='messages' for the tokens, or leave stream_mode out for AgentEvent objects.")
    return mode, tokens or mode == "messages"


class _States:
    """Turns a run's events into LangGraph's state dicts, or ``(message, metadata)`` pairs (``mode``: :data:`MODES`);
    shared by the sync and async streams. ``messages`` is the run's conversation as the loop builds it."""

    def __init__(self, messages: list[BaseMessage], mode: str) -> None:
        self._messages = messages
        self.mode = mode
        self.pending: deque[Any] = deque()
        self.step = 0  # the step of the newest event (the model call it belongs to)
        self.started = False
        self.told = 0  # the conversation's length at the last "values" state given
        self.round_start: int | None = None  # the conversation's length when the current round's calls were made
        self._failed: BaseException | None = None  # the run's error, raised once the updates queued before it are out
        self._ended = False  # the run's error was raised: nothing follows
        self.result: AgentResult | None = None

    @property
    def usage(self) -> Usage | None:
        """The run's token usage (:attr:`AgentResult.usage <toolwire.agent.AgentResult>`: every request summed,
        the structured call's attempts included) once its last item has been given; None before, for a run that
        failed or was stopped early (each reply in :attr:`messages` keeps its own ``usage``), and when no request
        reported usage."""
        return None if self.result is None else self.result.usage

    @property
    def messages(self) -> list[BaseMessage]:
        """A copy of the conversation so far (as :attr:`AgentStream.messages <toolwire.agent.AgentStream>`)."""
        return list(self._messages)

    def _upto(self, message: Any) -> int:
        """The length of the conversation up to and including ``message`` (found by identity, newest first)."""
        for index in range(len(self._messages) - 1, -1, -1):
            if self._messages[index] is message:
                return index + 1
        return len(self._messages)

    def _round_begins(self, call: Any) -> int:
        """Where the round that ``call`` (its first call, from a ``tool_call`` event) opens begins in the conversation:
        at ``call``'s answer when the loop put the round's answers in before its events (calls answered without
        running: refused, past the step limit, or pending under ``run_pending_calls=False``; review 106), else at the
        end."""
        call_id = (call.get("id") if isinstance(call, dict) else None) or ""
        for index in range(len(self._messages) - 1, -1, -1):  # the conversation's last block of answers only
            message = self._messages[index]
            if not isinstance(message, ToolMessage):
                break
            if message.tool_call_id == call_id:
                return index
        return len(self._messages)

    def _state(self, end: int) -> None:
        """Queue the "values" state of the conversation's first ``end`` messages, unless it was the last one given."""
        if end != self.told:
            self.told = end
            self.pending.append({"messages": list(self._messages[:end])})

    def feed(self, event: Any) -> None:
        """Queue the state dicts (or message pairs) ``event`` (an :class:`~toolwire.agent.AgentEvent`) makes."""
        self.step = event.step
        if event.type == "final":
            self.result = event.data
        if self.mode == "messages":
            if event.type == "model_chunk":
                self.pending.append((event.data, {"langgraph_node": "agent", "langgraph_step": 2 * event.step - 1}))
            elif event.type == "tool_call" and self.round_start is None:
                self.round_start = self._round_begins(event.data)
            elif event.type == "tool_result":
                self.round_start = None
                self.pending.append((event.data, {"langgraph_node": "tools", "langgraph_step": 2 * event.step}))
            return
        if not self.started and event.type in ("model_reply", "tool_call"):  # the input state comes first
            self.started = True
            if self.mode == "values":
                self._state(self._upto(event.data) - 1 if event.type == "model_reply" else
                            self._round_begins(event.data))
        if event.type == "model_reply":
            self.round_start = None
            if self.mode == "values":
                self._state(self._upto(event.data))
            else:
                self.pending.append({"agent": {"messages": [event.data]}})
        elif event.type == "tool_call" and self.round_start is None:
            self.round_start = self._round_begins(event.data)  # (the round's results come from this point)
        elif event.type == "tool_result" and self.round_start is not None:  # all the round's results are in by now
            new = [m for m in self._messages[self.round_start:] if isinstance(m, ToolMessage)]
            self.round_start = None
            if self.mode == "values":
                self._state(len(self._messages))
            else:  # one update per call, as the tool node of create_react_agent's default version ("v2") gives
                self.pending.extend({"tools": {"messages": [m]}} for m in new)
        elif event.type == "final" and event.data.structured_response is not None:  # response_format's call was made
            value = event.data.structured_response
            self.pending.append({"messages": list(self._messages), "structured_response": value} if self.mode ==
                                "values" else {"generate_structured_response": {"structured_response": value}})


    def fail(self, exc: BaseException) -> BaseException:
        """Queue, in "updates" mode, a tools update (in "messages" mode, a pair) for each call of the current round that
        was answered before the run failed with ``exc`` (``handle_errors=False``: the answers of the calls that
        finished first are on the error's ``messages``), as LangGraph's tool node streams the calls that finished
        before one raised (compared side by side; its "values" stream gives no state for them); then ``exc`` is
        raised by the caller.

        Returns:
            ``exc``, to raise once the queued updates are given.
        """
        kept = getattr(exc, "messages", None)
        if self.mode != "values" and self.round_start is not None and isinstance(kept, list):
            meta = {"langgraph_node": "tools", "langgraph_step": 2 * self.step}
            self.pending.extend((m, dict(meta)) if self.mode == "messages" else {"tools": {"messages": [m]}}
                                for m in kept[self.round_start:] if isinstance(m, ToolMessage))
            self.round_start = None
        return exc


    def end_if_failed(self, stop: type[Exception]) -> None:
        """Raise the run's error once its queued updates are out, then ``stop`` (``StopIteration`` or
        ``StopAsyncIteration``) on every later call, as the event stream ends after its error (review 102)."""
        if self._failed is not None:
            failed, self._failed, self._ended = self._failed, None, True
            raise failed
        if self._ended:
            raise stop


class StateStream(_States, Iterator[Any]):
    """What ``Agent.stream(input, stream_mode="values" | "updates" | "messages")`` returns: LangGraph's state dicts,
    or ``(message, metadata)`` pairs (module doc), with :attr:`messages`, the conversation so far, and :meth:`close` as
    on :class:`~toolwire.agent.AgentStream`.

    Attributes:
        result: the run's :class:`~toolwire.agent.AgentResult` (``structured_response``, ``steps``, ``usage``...) once
            the run has ended (its last item given); None before, and for a run that failed or was stopped early.
        usage: ``result.usage`` (None while ``result`` is None): the run's tokens, the structured call's included.
    """

    def __init__(self, events: Any, mode: str) -> None:
        super().__init__(events._messages, mode)
        self._events = events

    def __iter__(self) -> StateStream:
        return self

    def __next__(self) -> Any:
        while not self.pending:
            self.end_if_failed(StopIteration)
            try:
                self.feed(next(self._events))
            except StopIteration:
                raise
            except Exception as exc:  # (an interrupt or a cancellation is raised at once)
                self._failed = self.fail(exc)
        return self.pending.popleft()

    def close(self) -> None:
        """Stop the run (nothing more runs); :attr:`messages` keeps what it reached."""
        self._events.close()


class AsyncStateStream(_States, AsyncIterator[Any]):
    """Async :class:`StateStream` (``Agent.astream(input, stream_mode=...)``), with the same :attr:`result` and
    :attr:`usage` once the run has ended; :meth:`aclose` stops the run."""

    def __init__(self, events: Any, mode: str) -> None:
        super().__init__(events._messages, mode)
        self._events = events

    def __aiter__(self) -> AsyncStateStream:
        return self

    async def __anext__(self) -> Any:
        while not self.pending:
            self.end_if_failed(StopAsyncIteration)
            try:
                self.feed(await self._events.__anext__())
            except StopAsyncIteration:
                raise
            except Exception as exc:
                self._failed = self.fail(exc)
        return self.pending.popleft()

    async def aclose(self) -> None:
        """Stop the run (nothing more runs); :attr:`messages` keeps what it reached."""
        await self._events.aclose()
