"""Review 285: the usage of an Agent run found on every path: a ``stream_mode`` stream's :attr:`usage` (#1), the
error of a run whose structured call failed (#2), every ``input_token_details`` key summed (#3), and the ``Usage``
type's detail keys (#4)."""

from __future__ import annotations

import asyncio
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from run_ways import WAYS, run_as
from toolwire import Agent, tool
from toolwire.errors import MaxStepsExceeded, ProviderError, ToolCallParseError
from toolwire.messages import AIMessage, Usage
from toolwire.testing import ScriptedChatModel


class W(BaseModel):
    """The weather."""

    celsius: float


@tool
def weather(city: str) -> str:
    """Weather of a city."""
    return "12 C"


def _usage(i: int, o: int) -> dict[str, int]:
    return {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}


def _call(name: str, args: dict[str, Any], usage: dict[str, Any] | None, cid: str = "c1") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": cid}], usage=usage)


def _script() -> list[Any]:
    return [AIMessage("It is 12", usage=_usage(200, 20)), _call("W", {"celsius": "bad"}, _usage(300, 30), "s1"),
            _call("W", {"celsius": 12}, _usage(400, 40), "s2")]


def _boom(messages: Any) -> AIMessage:
    raise ProviderError("boom", provider="scripted", status=500, retryable=True)


# -- #1: stream_mode streams keep the run's result and usage ----------------------------------------------------------


@pytest.mark.parametrize("mode", ["values", "updates", "messages"])
def test_state_stream_has_the_runs_usage_structured_attempts_included(mode: str) -> None:
    model = ScriptedChatModel(_script())
    agent = Agent(model, [], response_format=model.with_structured_output(W, retries=1))
    stream = agent.stream("q", stream_mode=mode)
    assert stream.result is None and stream.usage is None  # before the run ends
    items = list(stream)
    assert items
    assert stream.usage == {"input_tokens": 900, "output_tokens": 90, "total_tokens": 990}
    assert stream.result is not None and stream.result.structured_response == W(celsius=12)
    assert stream.result.usage == stream.usage and stream.result.steps == 3


@pytest.mark.parametrize("mode", ["values", "updates", "messages"])
def test_async_state_stream_has_the_runs_usage(mode: str) -> None:
    model = ScriptedChatModel(_script())
    agent = Agent(model, [], response_format=model.with_structured_output(W, retries=1))

    async def run() -> Any:
        stream = agent.astream("q", stream_mode=mode)
        assert stream.usage is None
        _ = [item async for item in stream]
        return stream

    stream = asyncio.run(run())
    assert stream.usage == {"input_tokens": 900, "output_tokens": 90, "total_tokens": 990}
    assert stream.result is not None and stream.result.steps == 3


def test_state_stream_stopped_early_has_no_result() -> None:
    model = ScriptedChatModel([_call("weather", {"city": "Oslo"}, _usage(10, 1)), AIMessage("ok")])
    stream = Agent(model, [weather]).stream("q", stream_mode="values")
    next(stream)
    stream.close()
    assert stream.result is None and stream.usage is None


# -- #2: a failed structured call keeps the usage of the requests made before it ------------------------------------


def test_agent_error_after_a_structured_attempt_has_the_runs_usage() -> None:
    model = ScriptedChatModel([AIMessage("It is 12", usage=_usage(200, 20)),
                               _call("W", {"celsius": "bad"}, _usage(300, 30), "s1"), _boom])
    agent = Agent(model, [], response_format=model.with_structured_output(W, retries=1))
    with pytest.raises(ProviderError) as caught:
        agent.invoke("q")
    assert caught.value.usage == {"input_tokens": 500, "output_tokens": 50, "total_tokens": 550}  # type: ignore
    assert len(caught.value.messages) == 2  # type: ignore[attr-defined]  # (resume unchanged: no attempt in it)


@pytest.mark.parametrize("how", WAYS)
def test_agent_error_after_with_retry_tries_has_every_trys_usage(how: str) -> None:
    model = ScriptedChatModel([AIMessage("It is 12", usage=_usage(200, 20)),
                               _call("W", {"celsius": "bad"}, _usage(300, 30), "s1"),
                               _call("W", {"celsius": "bad"}, _usage(400, 40), "s2")])
    structured = model.with_structured_output(W).with_retry(stop_after_attempt=2, wait_exponential_jitter=False)
    agent = Agent(model, [], response_format=structured)
    with pytest.raises(ToolCallParseError) as caught:
        run_as(how, agent, "q", stream_mode="values")
    assert caught.value.usage == {"input_tokens": 900, "output_tokens": 90, "total_tokens": 990}  # type: ignore


def test_agent_error_from_a_model_call_and_max_steps_have_the_runs_usage() -> None:
    model = ScriptedChatModel([_call("weather", {"city": "Oslo"}, _usage(10, 1)), _boom])
    with pytest.raises(ProviderError) as caught:
        Agent(model, [weather]).invoke("q")
    assert caught.value.usage == _usage(10, 1)  # type: ignore[attr-defined]
    model = ScriptedChatModel([_call("weather", {"city": "Oslo"}, _usage(10, 1), "a"),
                               _call("weather", {"city": "Rome"}, _usage(20, 2), "b")])
    with pytest.raises(MaxStepsExceeded) as stopped:
        Agent(model, [weather], max_steps=2).invoke("q")
    assert stopped.value.usage == _usage(30, 3)  # type: ignore[attr-defined]
    model = ScriptedChatModel([_boom])
    with pytest.raises(ProviderError) as first:
        Agent(model, []).invoke("q")
    assert first.value.usage is None  # type: ignore[attr-defined]  # (no request reported usage)


def test_one_error_object_raised_in_two_runs_keeps_each_runs_usage() -> None:
    shared = ProviderError("boom", provider="scripted", status=500)

    def fail(messages: Any) -> AIMessage:
        raise shared

    errors = []
    for tokens in (10, 20):
        model = ScriptedChatModel([_call("weather", {"city": "Oslo"}, _usage(tokens, 1)), fail])
        with pytest.raises(ProviderError) as caught:
            Agent(model, [weather]).invoke("q")
        errors.append(caught.value)
    assert [e.usage["input_tokens"] for e in errors] == [10, 20]  # type: ignore[attr-defined]


def test_attempts_failed_lists_the_earlier_attempts_usage() -> None:
    from toolwire.models._structured_retry import Attempts, Problem

    def check(reply: AIMessage) -> tuple[Any, Problem | None]:
        return None, Problem(ToolCallParseError("bad", raw=reply), "Bad.")

    attempts = Attempts("q", 1, "W", check, False)
    assert attempts.outcome(_call("W", {}, _usage(300, 30))) == (False, None)
    error = ProviderError("boom", provider="x")
    assert attempts.failed(error) is error
    assert error.attempts_usage == [_usage(300, 30)]  # type: ignore[attr-defined]
    untouched = ProviderError("boom", provider="x")
    assert Attempts("q", 1, "W", check, False).failed(untouched) is untouched
    assert untouched.attempts_usage == []  # type: ignore[attr-defined]  # (it ended the first request)


# -- #3: every detail key summed -------------------------------------------------------------------------------------


def test_run_usage_keeps_every_detail_key_with_cached_tokens() -> None:
    u1 = {**_usage(100, 10), "cached_tokens": 40, "input_token_details": {"cache_read": 40, "cache_creation": 20},
          "output_token_details": {"reasoning": 7}}
    u2 = {**_usage(100, 10), "input_token_details": {"cache_creation": 5, "audio": 3}}
    model = ScriptedChatModel([_call("weather", {"city": "Oslo"}, u1), AIMessage("done", usage=u2)])
    result = Agent(model, [weather]).invoke("q")
    assert result.usage is not None
    assert result.usage["input_token_details"] == {"cache_read": 40, "cache_creation": 25, "audio": 3}
    assert result.usage["output_token_details"] == {"reasoning": 7}
    assert result.usage["cached_tokens"] == 40
    reply = result.messages[1]
    assert isinstance(reply, AIMessage) and reply.usage_metadata is not None
    assert reply.usage_metadata["input_token_details"] == {"cache_read": 40, "cache_creation": 20}


def test_langchain_usage_does_not_change_its_argument() -> None:
    from toolwire._message_history import langchain_usage

    usage: Any = {**_usage(1, 1), "cached_tokens": 1, "input_token_details": {"cache_creation": 2}}
    assert langchain_usage(usage)["input_token_details"] == {"cache_creation": 2, "cache_read": 1}  # type: ignore
    assert usage["input_token_details"] == {"cache_creation": 2}
    odd: Any = {**_usage(1, 1), "cached_tokens": 1, "input_token_details": "n/a"}
    assert langchain_usage(odd)["input_token_details"] == {"cache_read": 1}  # type: ignore[index]


# -- #4: the Usage type names the detail keys -----------------------------------------------------------------------


def test_usage_type_has_the_detail_keys_as_not_required() -> None:
    hints = typing.get_type_hints(Usage, include_extras=True)
    for key in ("input_token_details", "output_token_details", "cached_tokens"):
        assert typing.get_origin(hints[key]) is typing.NotRequired, key
    assert typing.get_args(hints["input_token_details"]) == (dict[str, int],)
