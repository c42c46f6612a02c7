"""Review 281 #1: the token usage of every request a run makes can be found, the structured-output call(s) included:
``AgentResult.usage`` (a run-level total, ``AIMessage.usage_metadata``'s shape), ``AgentResult.steps`` counting each
structured attempt, and ``with_structured_output(..., retries=n)``'s earlier attempts on the last reply's
``response_metadata["attempts_usage"]``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import Agent, tool
from toolwire.errors import MaxStepsExceeded, ToolCallParseError
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


class W(BaseModel):
    """The weather."""

    city: str
    celsius: float


@tool
def weather(city: str) -> str:
    """Weather of a city."""
    return "12 C"


def _usage(i: int, o: int, cached: int | None = None) -> dict[str, int]:
    usage = {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}
    if cached is not None:
        usage["cached_tokens"] = cached
    return usage


def _call(name: str, args: dict[str, Any], usage: dict[str, int] | None, cid: str = "c1") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": cid}], usage=usage)


def _script() -> list[AIMessage]:
    return [_call("weather", {"city": "Oslo"}, _usage(100, 10)),
            AIMessage("It is 12 C in Oslo", usage=_usage(200, 20)),
            _call("W", {"city": "Oslo", "celsius": "twelve"}, _usage(300, 30), "s1"),  # rejected, asked again
            _call("W", {"city": "Oslo", "celsius": 12}, _usage(400, 40), "s2")]


def _run(agent: Agent, how: str, question: Any = "How warm is Oslo?") -> Any:
    if how == "invoke":
        return agent.invoke(question)
    if how == "ainvoke":
        return asyncio.run(agent.ainvoke(question))
    if how == "stream_tokens":
        return [e for e in agent.stream(question, stream_tokens=True) if e.type == "final"][-1].data

    async def streamed() -> Any:
        return [e async for e in agent.astream(question, stream_tokens=True) if e.type == "final"][-1].data

    return asyncio.run(streamed())


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream_tokens", "astream_tokens"])
def test_agent_usage_counts_every_request_the_structured_attempts_included(how: str) -> None:
    model = ScriptedChatModel(_script())
    agent = Agent(model, [weather], response_format=model.with_structured_output(W, retries=1))
    result = _run(agent, how)
    assert result.structured_response == W(city="Oslo", celsius=12)
    assert len(model.requests) == 4
    assert result.usage == {"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100}
    assert result.steps == 4  # "how many model calls were made": each structured attempt is one
    assert list(result) == ["messages", "output", "steps", "stop_reason", "structured_response"]  # keys unchanged
    assert "usage" not in result and result.get("usage") is None


def test_final_event_step_is_the_last_model_call() -> None:
    model = ScriptedChatModel(_script())
    agent = Agent(model, [weather], response_format=model.with_structured_output(W, retries=1))
    final = [e for e in agent.stream("How warm is Oslo?") if e.type == "final"][-1]
    assert final.step == final.data.steps == 4


def test_agent_usage_without_response_format_is_the_sum_over_the_replies() -> None:
    model = ScriptedChatModel(_script()[:2])
    result = Agent(model, [weather]).invoke("How warm is Oslo?")
    assert result.usage == {"input_tokens": 300, "output_tokens": 30, "total_tokens": 330}
    assert result.steps == 2


def test_agent_usage_is_none_when_no_request_reported_usage() -> None:
    result = Agent(ScriptedChatModel(["Hi."]), []).invoke("Hello")
    assert result.usage is None


def test_agent_usage_has_the_cached_details_as_usage_metadata_has_them() -> None:
    model = ScriptedChatModel([_call("weather", {"city": "Oslo"}, _usage(100, 10, cached=60)),
                               AIMessage("12 C", usage=_usage(200, 20, cached=90)),
                               AIMessage("no usage here")])
    result = Agent(model, [weather], max_steps=3).invoke("How warm is Oslo?")
    assert result.usage == {"input_tokens": 300, "output_tokens": 30, "total_tokens": 330, "cached_tokens": 150,
                            "input_token_details": {"cache_read": 150}}


def test_agent_usage_counts_only_the_requests_of_this_run() -> None:
    model = ScriptedChatModel([*_script()[:2], AIMessage("Still 12 C.", usage=_usage(500, 5))])
    agent = Agent(model, [weather])
    first = agent.invoke("How warm is Oslo?")
    again = agent.invoke([*first.messages, "And now?"])
    assert again.usage == {"input_tokens": 500, "output_tokens": 5, "total_tokens": 505} and again.steps == 1


def test_agent_usage_counts_a_with_retry_structured_models_whole_retries() -> None:
    model = ScriptedChatModel(_script())
    structured = model.with_structured_output(W).with_retry(stop_after_attempt=2, wait_exponential_jitter=False)
    result = Agent(model, [weather], response_format=structured).invoke("How warm is Oslo?")
    assert result.structured_response == W(city="Oslo", celsius=12)
    assert result.usage == {"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100}
    assert result.steps == 4


def test_agent_structured_attempts_without_usage_still_count_as_steps() -> None:
    script = [AIMessage("12 C"), _call("W", {"city": "Oslo", "celsius": "x"}, None, "s1"),
              _call("W", {"city": "Oslo", "celsius": 12}, None, "s2")]
    model = ScriptedChatModel(script)
    result = Agent(model, [], response_format=model.with_structured_output(W, retries=2)).invoke("Oslo?")
    assert result.steps == 3 and result.usage is None


def test_a_tools_own_structured_call_is_not_counted_as_the_runs() -> None:
    inner = ScriptedChatModel([_call("W", {"city": "Oslo", "celsius": 12}, _usage(7, 7))])

    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return str(inner.with_structured_output(W).invoke(city))

    model = ScriptedChatModel([_call("lookup", {"city": "Oslo"}, _usage(1, 1)), AIMessage("ok", usage=_usage(2, 2))])
    result = Agent(model, [lookup]).invoke("Oslo?")
    assert result.usage == {"input_tokens": 3, "output_tokens": 3, "total_tokens": 6} and result.steps == 2


def test_usage_is_an_attribute_of_return_direct_and_refusal_results_too() -> None:
    @tool(return_direct=True)
    def done(text: str) -> str:
        """Finish."""
        return text

    model = ScriptedChatModel([_call("done", {"text": "bye"}, _usage(5, 1))])
    result = Agent(model, [done]).invoke("go")
    assert result.stop_reason == "return_direct" and result.usage == _usage(5, 1)


def test_max_steps_exceeded_is_unchanged() -> None:
    model = ScriptedChatModel([_call("weather", {"city": "Oslo"}, _usage(1, 1))], cycle=True)
    with pytest.raises(MaxStepsExceeded):
        Agent(model, [weather], max_steps=1).invoke("go")


# -- with_structured_output(retries=n): the earlier attempts' usage on the last reply --------------------------------

_ATTEMPTS = [_call("W", {"city": "Oslo", "celsius": "twelve"}, _usage(300, 30), "s1"),
             _call("W", {"city": "Oslo", "celsius": 12}, _usage(400, 40), "s2")]


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream", "astream"])
def test_include_raw_keeps_its_shape_and_gives_every_attempts_usage(how: str) -> None:
    structured = ScriptedChatModel(list(_ATTEMPTS)).with_structured_output(W, retries=1, include_raw=True)
    if how == "invoke":
        out = structured.invoke("Oslo, 12 C")
    elif how == "ainvoke":
        out = asyncio.run(structured.ainvoke("Oslo, 12 C"))
    elif how == "stream":
        out = list(structured.stream("Oslo, 12 C"))[-1]
    else:
        async def read() -> Any:
            return [v async for v in structured.astream("Oslo, 12 C")][-1]

        out = asyncio.run(read())
    assert list(out) == ["raw", "parsed", "parsing_error"]
    assert out["parsed"] == W(city="Oslo", celsius=12)
    assert out["raw"].usage == _usage(400, 40)  # the reply's own usage, as before
    assert out["raw"].response_metadata["attempts_usage"] == [_usage(300, 30), _usage(400, 40)]


def test_a_single_attempt_has_no_attempts_usage() -> None:
    out = ScriptedChatModel(_ATTEMPTS[1:]).with_structured_output(W, retries=2, include_raw=True).invoke("Oslo")
    assert "attempts_usage" not in out["raw"].response_metadata


def test_the_last_failures_raw_has_the_attempts_usage_too() -> None:
    bad = [_ATTEMPTS[0], _call("W", {"city": "Oslo", "celsius": "warm"}, None, "s2")]
    out = ScriptedChatModel(list(bad)).with_structured_output(W, retries=1, include_raw=True).invoke("Oslo")
    assert out["parsed"] is None and out["parsing_error"].raw is out["raw"]
    assert out["raw"].response_metadata["attempts_usage"] == [_usage(300, 30), None]
    with pytest.raises(ToolCallParseError) as caught:
        ScriptedChatModel(list(bad)).with_structured_output(W, retries=1).invoke("Oslo")
    assert caught.value.raw.response_metadata["attempts_usage"] == [_usage(300, 30), None]


def _by_conversation(messages: list[Any]) -> AIMessage:
    """A reply decided by the conversation alone, so that runs made at once get the same replies."""
    from toolwire._agent_response import ASK_STRUCTURED
    from toolwire.messages import ToolMessage

    last = messages[-1]
    if isinstance(last, ToolMessage):  # the rejected structured call's feedback
        return _call("W", {"city": "Oslo", "celsius": 12}, _usage(400, 40), "s2")
    if getattr(last, "content", None) == ASK_STRUCTURED:
        return _call("W", {"city": "Oslo", "celsius": "twelve"}, _usage(300, 30), "s1")
    return AIMessage("It is 12 C in Oslo", usage=_usage(200, 20))


@pytest.mark.parametrize("how", ["batch", "abatch"])
def test_runs_made_at_once_each_count_their_own_requests(how: str) -> None:
    model = ScriptedChatModel([_by_conversation], cycle=True)
    agent = Agent(model, [], response_format=model.with_structured_output(W, retries=1))
    questions = ["Oslo?", "Oslo, again?", "And Oslo?"]
    results = agent.batch(questions) if how == "batch" else asyncio.run(agent.abatch(questions))
    for result in results:
        assert result.usage == {"input_tokens": 900, "output_tokens": 90, "total_tokens": 990} and result.steps == 3
