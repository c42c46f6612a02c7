"""Review 226: a model call raising StopIteration never hangs an async path and keeps the run (#1); errors with extra
constructor arguments pickle and copy (#2); Agent.batch keeps a TimeoutError's messages (#3); a reply's tool_use
content block is run as a call (#4)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import Agent, tool
from toolwire.messages import AIMessage
from toolwire.models.base import BaseChatModel, ChatRequest
from toolwire.testing import ScriptedChatModel


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _call_reply() -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}])


def _bounded(coro: Any) -> Any:
    async def run() -> Any:
        return await asyncio.wait_for(coro, 5)
    return asyncio.run(run())


# -- #1 -------------------------------------------------------------------------------------------------------------

def _stopping(stop: BaseException) -> ScriptedChatModel:
    def raiser(messages: list[Any]) -> AIMessage:
        raise stop
    return ScriptedChatModel([_call_reply(), raiser])


async def _drain(stream: Any) -> None:
    async for _ in stream:
        pass


_DRIVERS: dict[str, Callable[[Agent], Any]] = {
    "invoke": lambda a: a.invoke("q"),
    "stream": lambda a: list(a.stream("q")),
    "stream_tokens": lambda a: list(a.stream("q", stream_tokens=True)),
    "ainvoke": lambda a: _bounded(a.ainvoke("q")),
    "astream": lambda a: _bounded(_drain(a.astream("q"))),
    "astream_tokens": lambda a: _bounded(_drain(a.astream("q", stream_tokens=True))),
    "batch": lambda a: a.batch(["q"]),
    "abatch": lambda a: _bounded(a.abatch(["q"])),
}


@pytest.mark.parametrize("driver", sorted(_DRIVERS))
@pytest.mark.parametrize("stop", [StopIteration, StopAsyncIteration])
def test_model_stop_iteration_is_one_clear_error_with_the_run(driver: str, stop: type[BaseException]) -> None:
    with pytest.raises(RuntimeError, match=f"^{stop.__name__} raised inside the model call") as caught:
        _DRIVERS[driver](Agent(_stopping(stop()), [add]))
    assert [m.type for m in caught.value.messages] == ["human", "ai", "tool"]  # type: ignore[attr-defined]
    assert isinstance(caught.value.__cause__, stop)


class _IterModel(BaseChatModel):
    """A user's own model with only ``_generate``, replying from an iterator."""

    provider = "mine"

    def __init__(self) -> None:
        self.replies = iter(["hello"])

    def _generate(self, request: ChatRequest) -> AIMessage:
        return AIMessage(next(self.replies))


def test_own_model_stop_iteration_does_not_hang_ainvoke() -> None:
    model = _IterModel()
    assert _bounded(model.ainvoke("hi")).text == "hello"
    with pytest.raises(RuntimeError, match=r"^StopIteration raised inside the model call"):
        _bounded(model.ainvoke("hi"))
    model = _IterModel()
    model.invoke("hi")
    with pytest.raises(RuntimeError, match=r"^StopIteration raised inside the model call"):
        model.invoke("hi")


def test_own_model_stop_iteration_in_agent_ainvoke() -> None:
    model = _IterModel()
    model.replies = iter([])
    with pytest.raises(RuntimeError, match=r"^StopIteration raised inside the model call") as caught:
        _bounded(Agent(model, [add]).ainvoke(["q1", AIMessage("a"), "q2"]))
    assert len(caught.value.messages) == 3  # type: ignore[attr-defined]


def test_pipeline_step_stop_iteration_does_not_hang() -> None:
    def step(reply: Any) -> Any:
        raise StopIteration

    pipeline = ScriptedChatModel(["hi"]) | step
    with pytest.raises(RuntimeError, match=r"^StopIteration raised inside a pipeline step"):
        _bounded(pipeline.ainvoke("q"))
