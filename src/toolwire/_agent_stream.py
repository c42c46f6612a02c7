"""What :meth:`Agent.stream <toolwire.agent.Agent.stream>` and ``astream`` return: the loop's events, and the
conversation so far at any point, so that a caller who stops early keeps the work done (review 58)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolwire.agent import AgentEvent
    from toolwire.messages import BaseMessage

__all__ = ["AgentStream", "AsyncAgentStream"]


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

    def __iter__(self) -> AgentStream:
        return self

    def __next__(self) -> AgentEvent:
        return next(self._events)

    def close(self) -> None:
        """Stop the run (nothing more runs); :attr:`messages` keeps what it reached."""
        self._events.close()


class AsyncAgentStream(_Conversation, AsyncIterator["AgentEvent"]):
    """The async iterator :meth:`Agent.astream <toolwire.agent.Agent.astream>` returns: its events, plus
    :attr:`messages`, the conversation so far; :meth:`aclose` stops the run."""

    def __init__(self, events: AsyncGenerator[AgentEvent, None], messages: list[BaseMessage]) -> None:
        self._events = events
        self._messages = messages

    def __aiter__(self) -> AsyncAgentStream:
        return self

    async def __anext__(self) -> AgentEvent:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """Stop the run (nothing more runs); :attr:`messages` keeps what it reached."""
        await self._events.aclose()
