"""The drivers of an :class:`~toolwire.agent.Agent` run: the sync and async loops that answer the requests of
``Agent._flow`` (call a model, run a round of tools) and yield its events, for :meth:`Agent.stream
<toolwire.agent.Agent.stream>` and :meth:`Agent.astream <toolwire.agent.Agent.astream>`. Moved out of ``agent.py``
when it reached 600 lines (review 280 #2 added the streams' overloads there).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Generator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from toolwire._agent_checks import keep_run
from toolwire._agent_input import read_reply, start_messages
from toolwire._agent_response import caller
from toolwire._agent_stream import AgentEvent, astreamed_reply, merged_reply, streamed_reply
from toolwire._batch import stop_if_batch_stopped
from toolwire._concurrency import ctrl_c_interrupts
from toolwire._model_stops import model_stopped
from toolwire._run_usage import RunUsage
from toolwire.messages import AIMessageChunk, BaseMessage

if TYPE_CHECKING:
    from toolwire.agent import Agent

__all__ = ["aevents", "events"]


def events(agent: Agent, input: Any, messages: list[BaseMessage], tokens: bool = False
           ) -> Generator[AgentEvent, Any, None]:
    """:meth:`Agent.stream <toolwire.agent.Agent.stream>`'s events: ``agent``'s loop (``Agent._flow``) run with
    the model's ``invoke`` and the executor's ``call``.

    Args:
        agent: the Agent whose run it is.
        input: the run's input, as ``Agent.stream`` takes it.
        messages: an empty list, which becomes the conversation as the loop builds it.
        tokens: ``stream_tokens`` (or ``stream_mode="messages"``): each model call but the structured one is
            streamed, its chunks yielded as ``"model_chunk"`` events.

    Raises:
        As ``Agent.stream`` documents; a failure carries the conversation so far as ``exc.messages``, and the usage
        of every request the run made before it, summed as ``AgentResult.usage`` is (the structured call's attempts
        included, whose replies are in no message), as ``exc.usage`` (None when none reported usage; review 285 #2).
    """
    messages.extend(start_messages(input, agent.system_prompt))
    flow = agent._flow(messages)
    value: Any = None
    calls = 0  # model calls so far (a chunk's step)
    usage = RunUsage()  # (the final result's usage and structured attempts: review 281 #1)
    while True:
        try:
            kind, payload = flow.send(read_reply(value))  # (its tool_use blocks as calls: review 226 #4)
        except StopIteration:
            return
        except BaseException as exc:  # MaxStepsExceeded, an input refused: the run's usage on it too
            usage.onto(exc)
            raise
        if kind == "event":
            value = yield usage.final(payload)  # (None: the stream's next() sends nothing)
            continue
        try:
            calls += kind != "tools"
            stop_if_batch_stopped()  # a sync batch that raised stops its other runs here (review 125 #3)
            if tokens and kind not in ("tools", "structured"):  # (Ctrl-C as below, but not across its yields)
                value = yield from streamed_reply(caller(agent, kind), payload, calls)
            elif kind == "structured":  # (response_format: each of its requests counted)
                with ctrl_c_interrupts(), usage.structured():
                    value = caller(agent, kind).invoke(payload)
            else:  # tools, or a model call: "model", "after_tools" or "answer"
                with ctrl_c_interrupts():  # (inside asyncio.run too: review 65)
                    value = (agent.executor.call(payload.fresh, payload.invalid) if kind == "tools"
                             else caller(agent, kind).invoke(payload))
            if kind not in ("tools", "structured"):  # (the structured call's: added by usage.structured)
                usage.add(value)
        except (Exception, KeyboardInterrupt) as exc:  # Ctrl-C during a long run keeps its work too
            failed = payload.with_answers(exc) if kind == "tools" else model_stopped(exc)  # (review 226 #1)
            own = usage.onto(keep_run(failed, messages))  # (this run's own object: review 285 #2)
            if own is exc:
                raise
            raise own from failed.__cause__  # (one error object raised in two runs: this run's copy; a stop's)


async def aevents(agent: Agent, input: Any, messages: list[BaseMessage], tokens: bool = False
                  ) -> AsyncGenerator[AgentEvent, None]:
    """:meth:`Agent.astream <toolwire.agent.Agent.astream>`'s events: as :func:`events` (same arguments), awaiting
    the model's ``ainvoke`` and the executor's ``acall``; a cancelled run's ``CancelledError`` carries
    ``exc.messages`` and ``exc.usage`` too."""
    messages.extend(start_messages(input, agent.system_prompt))
    flow = agent._flow(messages)
    value: Any = None
    calls = 0
    usage = RunUsage()
    while True:
        try:
            kind, payload = flow.send(read_reply(value))  # (its tool_use blocks as calls: review 226 #4)
        except StopIteration:
            return
        except BaseException as exc:  # MaxStepsExceeded, an input refused: the run's usage on it too
            usage.onto(exc)
            raise
        if kind == "event":
            value = None
            yield usage.final(payload)
            continue
        try:
            calls += kind != "tools"
            if kind == "tools":
                value = await agent.executor.acall(payload.fresh, payload.invalid)
            elif tokens and kind != "structured":
                chunks: list[AIMessageChunk] = []
                model = caller(agent, kind)
                async with aclosing(astreamed_reply(model, payload, calls, chunks)) as streamed:
                    async for event in streamed:
                        yield event
                value = merged_reply(chunks, model)
            elif kind == "structured":
                with usage.structured():
                    value = await caller(agent, kind).ainvoke(payload)
            else:  # a model call, as in events
                value = await caller(agent, kind).ainvoke(payload)
            if kind not in ("tools", "structured"):  # (the structured call's: added by usage.structured)
                usage.add(value)
        except (Exception, asyncio.CancelledError, KeyboardInterrupt) as exc:  # a cancelled run keeps its work too
            failed = payload.with_answers(exc) if kind == "tools" else model_stopped(exc)  # (review 226 #1)
            own = usage.onto(keep_run(failed, messages))  # (this run's own object: review 285 #2)
            if own is exc:
                raise
            raise own from failed.__cause__  # (one error object raised in two runs: this run's copy; a stop's)
