"""Review 155 #3: ``ScriptedChatModel.astream`` computes a callable reply on a worker thread, as ``ainvoke`` does, so
a reply function that blocks does not stall the event loop, and concurrent streams run side by side."""

from __future__ import annotations

import asyncio
import contextvars
import threading

from toolwire import AIMessage
from toolwire.messages import BaseMessage
from toolwire.testing import ScriptedChatModel

_REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("_REQUEST_ID", default="none")


def test_concurrent_astreams_of_a_blocking_reply_run_side_by_side() -> None:
    both = threading.Barrier(2, timeout=5)  # on the event loop, the first reply would wait alone and break it

    def reply(messages: list[BaseMessage]) -> str:
        both.wait()
        return f"seen {len(messages)} on {threading.current_thread().name}"

    model = ScriptedChatModel([reply], cycle=True)

    async def collect() -> str:
        return "".join([str(chunk.content) async for chunk in model.astream("q")])

    async def main() -> tuple[list[str], str]:
        return list(await asyncio.gather(collect(), collect())), threading.current_thread().name

    texts, loop_thread = asyncio.run(main())
    assert all(text.startswith("seen 1 on ") for text in texts)
    assert all(not text.endswith(f" on {loop_thread}") for text in texts)


def test_astream_reply_sees_the_callers_context_and_keeps_call_order() -> None:
    def reply(messages: list[BaseMessage]) -> AIMessage:
        return AIMessage(f"id={_REQUEST_ID.get()}")

    model = ScriptedChatModel(["first", reply, "third"])

    async def main() -> list[str]:
        _REQUEST_ID.set("r-7")
        return ["".join([str(c.content) async for c in model.astream("q")]) for _ in range(3)]

    assert asyncio.run(main()) == ["first", "id=r-7", "third"]
    assert len(model.requests) == 3
