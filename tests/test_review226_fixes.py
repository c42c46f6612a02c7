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


# -- #2 -------------------------------------------------------------------------------------------------------------

def _errors() -> list[BaseException]:
    from toolwire._tool_run import WrongToolCallError
    from toolwire.errors import (
        ContextOverflowError,
        MaxStepsExceeded,
        MissingExtraError,
        ProviderError,
        ToolCallParseError,
        ToolResultError,
        ToolTimeoutError,
        ToolwireError,
        UserError,
    )
    from toolwire.evals.bfcl_runner import RunStopped

    return [
        MaxStepsExceeded("The model still asked for tools after 2 steps.", [AIMessage("m1")], 2, reused_calls={3: 1}),
        ProviderError("rate limited", provider="openai", status=429, retryable=True, hint="Wait.", api_advice=", x"),
        ContextOverflowError(5000, 4096, tools_tokens=3000, tool_count=2, trained_context=8192),
        ToolCallParseError("bad", raw="{oops"),
        ToolResultError("no bytes", "t", "c1", reason="it holds bytes"),
        ToolTimeoutError("slow", "t", "c1", artifact={"a": 1}),
        WrongToolCallError("wrong", "t", called="u"),
        MissingExtraError("pip install toolwire[local]"),
        ToolwireError("plain", api_advice=", or raise max_retries"),
        UserError("do this"),
        RunStopped("stopped", report=None),  # type: ignore[arg-type]
    ]


def _same(a: BaseException, b: BaseException) -> None:
    assert type(a) is type(b) and a.args == b.args and str(a) == str(b)
    assert vars(a) == vars(b)


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_errors_with_extra_arguments_pickle_and_copy(how: str) -> None:
    import copy
    import pickle

    from toolwire.errors import ToolwireError

    for error in _errors():
        error.add_note("a note")
        again = {"pickle": lambda e: pickle.loads(pickle.dumps(e)), "copy": copy.copy,
                 "deepcopy": copy.deepcopy}[how](error)
        _same(error, again)
        assert again.__notes__ == ["a note"]  # type: ignore[attr-defined]
        if isinstance(error, ToolwireError):
            assert again.without_api_advice() == error.without_api_advice()


def _run_to_the_limit(question: str) -> Any:
    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "add", "args": {"a": i, "b": 1}, "id": f"c{i}"}])
                               for i in range(5)])
    return Agent(model, [add], max_steps=2).invoke(question)


def test_max_steps_exceeded_comes_back_from_a_worker_process() -> None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from toolwire.errors import MaxStepsExceeded

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool, \
            pytest.raises(MaxStepsExceeded) as caught:
        pool.submit(_run_to_the_limit, "q").result(timeout=60)
    assert caught.value.steps == 2
    assert [m.type for m in caught.value.messages] == ["human", "ai", "tool", "ai", "tool"]


# -- #3 -------------------------------------------------------------------------------------------------------------

def _timed_out(messages: list[Any]) -> AIMessage:
    raise TimeoutError("read timed out")  # what socket.timeout is: asyncio rebuilt it from a worker's future


def _frames(error: BaseException) -> list[str]:
    import traceback

    return [frame.name for frame in traceback.extract_tb(error.__traceback__)]


@pytest.mark.parametrize("driver", ["batch", "abatch", "ainvoke", "invoke"])
def test_batch_keeps_a_timeout_errors_messages_and_traceback(driver: str) -> None:
    agent = Agent(ScriptedChatModel([_call_reply(), _timed_out]), [add])
    with pytest.raises(TimeoutError, match="read timed out") as caught:
        _DRIVERS[driver](agent)
    assert [m.type for m in caught.value.messages] == ["human", "ai", "tool"]  # type: ignore[attr-defined]
    assert "_timed_out" in _frames(caught.value)


def test_batch_with_return_exceptions_gives_the_timeout_error_raised() -> None:
    agent = Agent(ScriptedChatModel([_call_reply(), _timed_out]), [add])
    [error] = agent.batch(["q"], return_exceptions=True)
    assert isinstance(error, TimeoutError) and len(error.messages) == 3
    assert "_timed_out" in _frames(error)


@tool
def fetch(url: str) -> str:
    """Fetch a URL."""
    raise TimeoutError("timed out")


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_a_sync_tools_timeout_error_keeps_its_own_traceback(timeout: float | None) -> None:
    from toolwire import ToolExecutor

    executor = ToolExecutor([fetch], handle_errors=False, timeout=timeout)
    with pytest.raises(TimeoutError, match=r"^timed out$") as caught:
        executor.call([{"name": "fetch", "args": {"url": "u"}, "id": "c1"}])
    assert "fetch" in _frames(caught.value)
    with pytest.raises(TimeoutError) as caught:
        _bounded(fetch.ainvoke({"url": "u"}))
    assert "fetch" in _frames(caught.value)


def test_a_sync_tools_futures_cancelled_error_is_not_a_cancellation() -> None:
    import concurrent.futures

    from toolwire import ToolExecutor

    @tool
    def waits(x: int) -> int:
        """Wait for a cancelled future."""
        raise concurrent.futures.CancelledError("the job was cancelled")

    [message] = ToolExecutor([waits]).call([{"name": "waits", "args": {"x": 1}, "id": "c1"}])
    assert message.status == "error" and "CancelledError" in message.text


# -- #4 -------------------------------------------------------------------------------------------------------------

def _tool_use_reply(block_id: str | None = "toolu_1") -> AIMessage:
    block: dict[str, Any] = {"type": "tool_use", "name": "add", "input": {"a": 1, "b": 2}}
    if block_id is not None:
        block["id"] = block_id
    return AIMessage([{"type": "text", "text": "Let me add them."}, block])


@pytest.mark.parametrize("driver", ["invoke", "stream", "stream_tokens", "ainvoke", "astream", "astream_tokens"])
@pytest.mark.parametrize("block_id", ["toolu_1", None])
def test_a_replys_tool_use_block_is_run_as_a_call(driver: str, block_id: str | None) -> None:
    ran: list[tuple[int, int]] = []

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        ran.append((a, b))
        return a + b

    agent = Agent(ScriptedChatModel([_tool_use_reply(block_id), "It is 3."]), [add])
    tokens = driver.endswith("tokens")
    if driver in ("invoke", "ainvoke"):
        result = agent.invoke("q") if driver == "invoke" else _bounded(agent.ainvoke("q"))
        assert result.stop_reason == "answer" and result.output == "It is 3."
        messages = result.messages
    elif driver.startswith("a"):
        stream = agent.astream("q", stream_tokens=tokens)
        _bounded(_drain(stream))
        messages = stream.messages
    else:
        stream = agent.stream("q", stream_tokens=tokens)
        list(stream)
        messages = stream.messages
    assert ran == [(1, 2)]
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
    call = messages[1].tool_calls[0]
    assert call["name"] == "add" and messages[2].tool_call_id == call["id"]
    if block_id is not None:
        assert call["id"] == block_id
    # the conversation given back is read the same way: nothing is pending, nothing runs again
    again = Agent(ScriptedChatModel(["Still 3."]), [add]).invoke(messages)
    assert ran == [(1, 2)] and again.output == "Still 3."
