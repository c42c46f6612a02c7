"""LangChain's Runnable methods on toolwire chat models: ``bind``, ``with_retry``, ``with_config`` and ``|``
(:mod:`toolwire.models._runnable`), checked against langchain-core's rules (``runnables/base.py``,
``runnables/retry.py`` and tenacity's ``wait_exponential_jitter``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import Agent, AIMessage, tool
from toolwire.errors import ProviderError, UserError
from toolwire.messages import AIMessageChunk, BaseMessage
from toolwire.models._pipeline import ModelPipeline
from toolwire.models.base import BaseChatModel, ChatRequest
from toolwire.testing import ScriptedChatModel


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"sunny in {city}"


def failing(times: int, exc: BaseException | None = None) -> list[Any]:
    """A script whose first ``times`` replies raise ``exc`` (a ConnectionError), then answer "ok"."""
    def boom(messages: list[BaseMessage]) -> str:
        raise exc if exc is not None else ConnectionError("connection reset")

    return [boom] * times + ["ok"]


# -- bind ------------------------------------------------------------------------------------------------------------

def test_bind_sends_its_options_with_every_call_and_leaves_the_model_unchanged() -> None:
    model = ScriptedChatModel(["a", "b", "c"])
    bound = model.bind(stop=["x"], max_tokens=5)
    assert bound.invoke("q").content == "a"
    assert model.requests[-1].options == {"stop": ["x"], "max_tokens": 5}
    assert asyncio.run(bound.ainvoke("q")).content == "b"
    assert model.requests[-1].options == {"stop": ["x"], "max_tokens": 5}
    model.invoke("q")
    assert model.requests[-1].options == {}  # the original model sends none
    assert type(bound) is type(model) and bound is not model


def test_bind_merges_as_langchains_runnable_binding() -> None:
    model = ScriptedChatModel(["a", "b"])
    bound = model.bind(temperature=0.1, stop=["x"]).bind(temperature=0.5)  # a second bind adds, later wins
    bound.invoke("q")
    assert model.requests[-1].options == {"temperature": 0.5, "stop": ["x"]}
    bound.invoke("q", stop=["y"], seed=3)  # a call's own options win ({**bound, **call})
    assert model.requests[-1].options == {"temperature": 0.5, "stop": ["y"], "seed": 3}


def test_bind_reaches_stream_and_batch() -> None:
    model = ScriptedChatModel(["ab", "c", "d"])
    bound = model.bind(seed=7)
    assert "".join(chunk.text for chunk in bound.stream("q")) == "ab"
    assert [m.content for m in bound.batch(["q1", "q2"])] == ["c", "d"]
    assert [r.options for r in model.requests] == [{"seed": 7}] * 3


@pytest.mark.parametrize("order", ["bind_then_tools", "tools_then_bind"])
def test_bind_composes_with_bind_tools_in_either_order(order: str) -> None:
    model = ScriptedChatModel(["a"])
    if order == "bind_then_tools":
        both = model.bind(stop=["x"]).bind_tools([get_weather], tool_choice="required")
    else:
        both = model.bind_tools([get_weather], tool_choice="required").bind(stop=["x"])
    both.invoke("q")
    request = model.requests[-1]
    assert (request.tools, request.tool_choice, request.options) == (["get_weather"], "required", {"stop": ["x"]})
    assert model.tools == () and not model._bound_options


def _invoke_error(model: BaseChatModel, **options: Any) -> str:
    with pytest.raises(UserError) as refused:
        model.invoke("q", **options)
    return str(refused.value)


@pytest.mark.parametrize("options", [{"temprature": 0.2}, {"max_tokens": 0}, {"stop": 5}, {"config": {}},
                                     {"messages": []}])
def test_bind_refuses_at_bind_time_what_invoke_refuses_with_its_error(options: dict[str, Any]) -> None:
    model = ScriptedChatModel(["a"], cycle=True)
    expected = _invoke_error(model, **options)
    with pytest.raises(UserError) as refused:
        model.bind(**options)
    assert str(refused.value) == expected


def test_bind_on_hosted_and_embedded_models_refuses_what_their_invoke_refuses() -> None:
    pytest.importorskip("anthropic")
    from toolwire.models import ChatAnthropic, ChatLlamaCpp

    claude = ChatAnthropic("claude-sonnet-4-5", api_key="sk-ant-secret-1234567890")
    with pytest.raises(UserError) as refused:
        claude.bind(seed=1)
    assert str(refused.value) == _invoke_error(claude, seed=1)  # refused before anything is sent
    with pytest.raises(UserError, match="did you mean 'temperature'"):
        claude.bind(temprature=1)
    local = ChatLlamaCpp()  # (nothing is loaded: the check needs no model file)
    with pytest.raises(UserError, match="Unknown ChatLlamaCpp option 'n_gpu_layers'"):
        local.bind(n_gpu_layers=10)
    with pytest.raises(UserError, match="top_k must be a whole number"):
        local.bind(top_k="x")
    assert local.bind(top_k=5)._bound_options == {"top_k": 5}


def test_bind_accepts_what_invoke_accepts_on_a_custom_model() -> None:
    class Echo(BaseChatModel):
        def _generate(self, request: ChatRequest) -> AIMessage:
            return AIMessage(repr(sorted(request.options.items())))

    assert Echo().bind(my_option=1).invoke("q").content == "[('my_option', 1)]"


def test_bind_sends_tools_to_bind_tools() -> None:
    with pytest.raises(UserError, match=r"in toolwire call model.bind_tools\(tools"):
        ScriptedChatModel(["a"]).bind(tools=[{"type": "function", "function": {"name": "f"}}])


def test_a_bound_models_repr_shows_generation_options_and_no_secret() -> None:
    model = ScriptedChatModel(["a"]).bind(stop=["x"], extra_headers={"Authorization": "Bearer sk-secret"})
    assert repr(model) == "ScriptedChatModel(model='scripted', bound={'stop': ['x'], 'extra_headers': '...'})"
    pytest.importorskip("openai")
    from toolwire.models import ChatOpenAI

    hosted = ChatOpenAI("gpt-4o", api_key="sk-secret-1234567890").bind(
        max_tokens=5, extra_headers={"Authorization": "Bearer sk-secret-1234567890"}).with_retry()
    assert "sk-secret" not in repr(hosted) and "sk-secret" not in str(hosted)
    # review 98 #6: a hosted model's repr shows what bind/with_retry added, as the base repr does
    assert repr(hosted) == ("ChatOpenAI(model='gpt-4o', bound={'max_tokens': 5, 'extra_headers': '...'}, "
                            "retry='3 attempts')")
    assert repr(ChatOpenAI("gpt-4o", api_key="sk-secret-1234567890")) == "ChatOpenAI(model='gpt-4o')"


def test_a_retrying_models_repr_counts_one_attempt_in_the_singular() -> None:
    """Review 98 #6: ``retry='1 attempts'``."""
    assert repr(ScriptedChatModel(["a"]).with_retry(stop_after_attempt=1)) == \
        "ScriptedChatModel(model='scripted', retry='1 attempt')"
    assert repr(ScriptedChatModel(["a"]).with_retry(stop_after_attempt=2)).endswith("retry='2 attempts')")


# -- with_retry ------------------------------------------------------------------------------------------------------

def test_with_retry_retries_the_whole_call_with_exponential_backoff_and_jitter(waits: list[float]) -> None:
    model = ScriptedChatModel(failing(2))
    assert model.with_retry().invoke("q").content == "ok"
    assert len(model.requests) == 3
    assert len(waits) == 2 and 1 <= waits[0] <= 2 and 2 <= waits[1] <= 3  # seconds: 1 * 2**n + uniform(0, 1)


def test_with_retry_waits_as_tenacitys_wait_exponential_jitter(waits: list[float]) -> None:
    tenacity = pytest.importorskip("tenacity")
    params = {"initial": 0.5, "max": 3.0, "exp_base": 3.0, "jitter": 0.25}
    random.seed(11)
    ScriptedChatModel(failing(3)).with_retry(stop_after_attempt=4, exponential_jitter_params=params).invoke("q")
    random.seed(11)
    strategy = tenacity.wait_exponential_jitter(**params)
    expected = []
    for attempt in (1, 2, 3):
        state = tenacity.RetryCallState(None, None, (), {})
        state.attempt_number = attempt
        expected.append(strategy(state))
    assert waits == expected
    assert waits[-1] == 3.0  # capped at max


def test_with_retry_async_shares_the_rule(waits: list[float]) -> None:
    model = ScriptedChatModel(failing(2))
    assert asyncio.run(model.with_retry().ainvoke("q")).content == "ok"
    assert len(model.requests) == 3 and len(waits) == 2 and 1 <= waits[0] <= 2 and 2 <= waits[1] <= 3


def test_with_retry_raises_the_last_error_when_the_attempts_run_out(waits: list[float]) -> None:
    model = ScriptedChatModel(failing(5))
    with pytest.raises(ConnectionError, match="connection reset"):  # reraise=True: the error itself
        model.with_retry(stop_after_attempt=2).invoke("q")
    assert len(model.requests) == 2 and len(waits) == 1
    with pytest.raises(ConnectionError):
        asyncio.run(model.with_retry(stop_after_attempt=1).ainvoke("q"))
    assert len(model.requests) == 3 and len(waits) == 1  # one attempt, no retry, no wait


def test_with_retry_retries_only_the_chosen_exceptions(waits: list[float]) -> None:
    model = ScriptedChatModel(failing(1, ValueError("bad")))
    with pytest.raises(ValueError):
        model.with_retry(retry_if_exception_type=(ConnectionError,)).invoke("q")
    assert len(model.requests) == 1 and waits == []
    model = ScriptedChatModel(failing(1, ProviderError("overloaded", provider="openai", retryable=True)))
    assert model.with_retry(retry_if_exception_type=lambda e: getattr(e, "retryable", False)).invoke("q").content \
        == "ok"
    model = ScriptedChatModel(failing(1))
    assert model.with_retry(retry_if_exception_type=ConnectionError).invoke("q").content == "ok"  # one class


def test_with_retry_without_backoff_tries_again_at_once(waits: list[float]) -> None:
    assert ScriptedChatModel(failing(2)).with_retry(wait_exponential_jitter=False).invoke("q").content == "ok"
    assert waits == []


def test_with_retry_never_retries_an_interrupt(waits: list[float]) -> None:
    model = ScriptedChatModel(failing(1, KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        model.with_retry(retry_if_exception_type=(BaseException,)).invoke("q")
    assert len(model.requests) == 1


def test_with_retry_raises_an_input_error_once(waits: list[float]) -> None:
    model = ScriptedChatModel(["ok"])
    with pytest.raises(UserError, match="Pass a question"):
        model.with_retry().invoke([])
    assert model.requests == [] and waits == []


def test_with_retry_retries_each_input_of_a_batch(waits: list[float]) -> None:
    model = ScriptedChatModel([*failing(1), "ok2"])
    assert [m.content for m in model.with_retry().batch(["q1", "q2"], max_concurrency=1)] == ["ok", "ok2"]
    assert len(waits) == 1


class _Flaky(BaseChatModel):
    """Streams "a", "b"; its first ``early`` streams fail before any chunk, and with ``late`` every stream fails
    after its first chunk."""

    def __init__(self, early: int, late: bool = False) -> None:
        self.early, self.late, self.opens = early, late, [0]  # (shared by the copies with_retry makes)

    @property
    def opened(self) -> int:
        return self.opens[0]

    def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
        self.opens[0] += 1
        if self.opened <= self.early:
            raise ConnectionError("refused")
        yield AIMessageChunk("a")
        if self.late:
            raise ConnectionError("dropped")
        yield AIMessageChunk("b")


def test_with_retry_opens_a_stream_again_only_before_its_first_chunk(waits: list[float]) -> None:
    model = _Flaky(early=2)
    assert "".join(c.text for c in model.with_retry().stream("q")) == "ab"
    assert model.opened == 3 and len(waits) == 2
    late = _Flaky(early=0, late=True)
    got: list[str] = []
    with pytest.raises(ConnectionError, match="dropped"):
        for chunk in late.with_retry().stream("q"):
            got.append(chunk.text)
    assert got == ["a"] and late.opened == 1  # never repeated after a chunk reached the caller

    async def collect(model: BaseChatModel) -> str:
        return "".join([c.text async for c in model.astream("q")])

    assert asyncio.run(collect(_Flaky(early=1).with_retry())) == "ab"


@pytest.mark.parametrize("order", ["retry_first", "retry_last"])
def test_with_retry_composes_with_bind_and_bind_tools(order: str, waits: list[float]) -> None:
    model = ScriptedChatModel(failing(1))
    if order == "retry_first":
        both = model.with_retry().bind(seed=1).bind_tools([get_weather])
    else:
        both = model.bind_tools([get_weather]).bind(seed=1).with_retry()
    assert both.invoke("q").content == "ok"
    assert [(r.tools, r.options) for r in model.requests] == [(["get_weather"], {"seed": 1})] * 2
    assert "retry=" not in repr(model) and "retry=" in repr(both)  # the original keeps no retry


def test_structured_output_keeps_bind_and_with_retry(waits: list[float]) -> None:
    call = AIMessage("", tool_calls=[{"name": "Weather", "args": {"city": "Paris"}, "id": "c1"}])
    model = ScriptedChatModel([*failing(1)[:1], call])

    class Weather(BaseModel):
        city: str

    assert model.bind(seed=2).with_retry().with_structured_output(Weather).invoke("q") == Weather(city="Paris")
    assert [r.options for r in model.requests] == [{"seed": 2}] * 2 and len(waits) == 1


def test_an_agent_runs_a_retrying_model(waits: list[float]) -> None:
    call = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}])
    model = ScriptedChatModel([*failing(1)[:1], call, "It is sunny."])
    result = Agent(model.with_retry(), [get_weather]).invoke("Weather in Paris?")
    assert result.output == "It is sunny." and len(waits) == 1


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"stop_after_attempt": 0}, "1 or more"),
    ({"retry_if_exception_type": ("x",)}, "tuple of exception classes"),
    ({"exponential_jitter_params": {"initial": 1, "min": 0}}, "no key 'min'"),
    ({"exponential_jitter_params": {"initial": -1}}, "0 or more"),
    ({"wait_exponential_jitter": "yes"}, "True or False"),
    ({"stop_after_atempt": 2}, "did you mean 'stop_after_attempt'"),
])
def test_with_retry_refuses_wrong_values(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(UserError, match=match):
        ScriptedChatModel(["a"]).with_retry(**kwargs)


# -- with_config -----------------------------------------------------------------------------------------------------

def test_with_config_is_refused_in_one_sentence_saying_what_to_do() -> None:
    with pytest.raises(UserError) as refused:
        ScriptedChatModel(["a"]).with_config(tags=["x"], run_name="r")
    text = str(refused.value)
    assert text.startswith("with_config (run_name, tags) sets LangChain's RunnableConfig")
    assert "model.bind(temperature=...)" in text and text.count(". ") == 0
    with pytest.raises(UserError, match=r"with_config \(configurable\)"):
        ScriptedChatModel(["a"]).with_config({"configurable": {"x": 1}})


# -- | ---------------------------------------------------------------------------------------------------------------

def test_pipe_passes_the_reply_to_the_next_step_sync_and_async() -> None:
    model = ScriptedChatModel(["hello", "there"], cycle=True)
    chain = model | (lambda reply: reply.content.upper())
    assert isinstance(chain, ModelPipeline)
    assert chain.invoke("q") == "HELLO"

    async def shout(text: str) -> str:
        return text + "!"

    assert asyncio.run((chain | shout).ainvoke("q")) == "THERE!"
    with pytest.raises(TypeError, match="Use `ainvoke` instead"):
        (chain | shout).invoke("q")


def test_pipe_passes_options_to_the_first_step_and_chains_on_both_sides() -> None:
    model = ScriptedChatModel(["a"])
    chain = (lambda topic: f"Tell me about {topic}") | model | (lambda reply: reply.content)
    assert len(chain.steps) == 3
    assert chain.invoke("cats") == "a"
    assert model.requests[-1].messages[-1].content == "Tell me about cats"
    second = ScriptedChatModel(["b"])
    assert (second | (lambda r: r.content)).invoke("q", seed=4) == "b"
    assert second.requests[-1].options == {"seed": 4}  # RunnableSequence.invoke's **kwargs go to step one


def test_pipe_runs_a_dict_of_steps_on_the_same_input() -> None:
    model = ScriptedChatModel(["a"])
    chain = model | {"text": lambda r: r.content, "calls": lambda r: len(r.tool_calls)}
    assert chain.invoke("q") == {"text": "a", "calls": 0}


def test_pipe_gives_a_langchain_parser_langchains_message() -> None:
    parsers = pytest.importorskip("langchain_core.output_parsers")
    model = ScriptedChatModel(["hello", "again", "streamed"])
    chain = model | parsers.StrOutputParser()
    assert chain.invoke("q") == "hello"
    assert asyncio.run(chain.ainvoke("q")) == "again"
    assert list(chain.stream("q")) == ["streamed"]


def test_pipe_streams_a_model_at_the_end_and_a_function_as_one_result() -> None:
    model = ScriptedChatModel(["abcdef", "xyz"], stream_pieces=3)
    chunks = list(((lambda q: q + "?") | model).stream("q"))
    assert len(chunks) > 1 and "".join(c.text for c in chunks) == "abcdef"
    assert list((model | (lambda r: r.content)).stream("q")) == ["xyz"]


def test_pipe_refuses_what_langchain_refuses_and_batches() -> None:
    model = ScriptedChatModel(["a", "b"])
    with pytest.raises(TypeError, match="Expected a Runnable, callable or dict"):
        model | 5
    chain = model | (lambda r: r.content)
    assert chain.batch(["q1", "q2"], max_concurrency=1) == ["a", "b"]
    assert repr(chain) == "ScriptedChatModel(model='scripted') | <lambda>"
