"""Review 236: a custom model that implements only ``_generate`` gives the same calls through invoke and stream (#1);
an OpenAI-compatible stream keeps the server's ``index`` order of parallel calls (#2); a ``_generate`` that returns
something other than an AIMessage is refused at the model call, in one sentence, on every path (#3)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from toolwire import Agent, tool
from toolwire.errors import UserError
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks
from toolwire.models.base import BaseChatModel, ChatRequest


@tool
def get_weather(city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


def _collect(stream: AsyncIterator[Any]) -> list[Any]:
    async def run() -> list[Any]:
        return [item async for item in stream]
    return asyncio.run(run())


# -- #1 -------------------------------------------------------------------------------------------------------------

def _generating(name: str) -> type[BaseChatModel]:
    class Generating(BaseChatModel):
        """Implements only _generate, as the base class allows."""

        def _generate(self, request: ChatRequest) -> AIMessage:
            if any(m.type == "tool" for m in request.messages):
                return AIMessage("done")
            return AIMessage("", tool_calls=[{"name": name, "args": {"city": "Lima"}, "id": "c1"}])
    return Generating


def _async_generating(name: str) -> type[BaseChatModel]:
    class AsyncGenerating(BaseChatModel):
        """Implements only _agenerate (async paths only)."""

        async def _agenerate(self, request: ChatRequest) -> AIMessage:
            return AIMessage("", tool_calls=[{"name": name, "args": {"city": "Lima"}, "id": "c1"}])
    return AsyncGenerating


def _shape(message: AIMessage) -> tuple[Any, Any]:
    return ([(c["name"], c["args"], c["id"]) for c in message.tool_calls],
            [(c.get("name"), c.get("id")) for c in message.invalid_tool_calls])


@pytest.mark.parametrize("name", [" get_weather ", ""])
def test_generate_only_model_reads_its_reply_as_its_stream_does(name: str) -> None:
    model = _generating(name)().bind_tools([get_weather])
    whole = model.invoke("q")
    streamed = merge_chunks(list(model.stream("q")), as_chunk=False, tool_names=["get_weather"])
    awhole = asyncio.run(model.ainvoke("q"))
    astreamed = merge_chunks(_collect(model.astream("q")), as_chunk=False, tool_names=["get_weather"])
    assert _shape(whole) == _shape(streamed) == _shape(awhole) == _shape(astreamed)  # type: ignore[arg-type]
    if name:
        assert whole.tool_calls[0]["name"] == "get_weather"
    else:
        assert not whole.tool_calls and len(whole.invalid_tool_calls) == 1


def test_agenerate_only_model_reads_its_reply_as_its_astream_does() -> None:
    model = _async_generating(" get_weather ")().bind_tools([get_weather])
    awhole = asyncio.run(model.ainvoke("q"))
    astreamed = merge_chunks(_collect(model.astream("q")), as_chunk=False)
    assert _shape(awhole) == _shape(astreamed)  # type: ignore[arg-type]
    assert awhole.tool_calls[0]["name"] == "get_weather"


@pytest.mark.parametrize("name", [" get_weather ", ""])
def test_agent_paths_agree_for_a_generate_only_model(name: str) -> None:
    model = _generating(name)

    def answers(result: Any) -> list[tuple[str, str]]:
        return [(m.status, m.text) for m in result.messages if m.type == "tool"]

    outcomes = [
        answers(Agent(model(), [get_weather]).invoke("q")),
        answers(asyncio.run(Agent(model(), [get_weather]).ainvoke("q"))),
        answers([e.data for e in Agent(model(), [get_weather]).stream("q", stream_tokens=True)
                 if e.type == "final"][-1]),
    ]
    assert outcomes[0] == outcomes[1] == outcomes[2]
    if name:
        assert outcomes[0] == [("success", "sunny in Lima")]


def test_a_model_with_its_own_stream_is_read_as_before() -> None:
    class Both(BaseChatModel):
        def _generate(self, request: ChatRequest) -> AIMessage:
            return AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Lima"}, "id": "c1"}])

        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            yield AIMessageChunk("hi")

    reply = Both().invoke("q")  # its own _generate's reply, as it is: the model streams by itself
    assert reply.tool_calls[0]["id"] == "c1"


# -- #3 -------------------------------------------------------------------------------------------------------------

_JUNK: list[Any] = ["plain string", None, {"role": "assistant", "content": "hi"},
                    AIMessageChunk("hi")]


def _junk_model(value: Any, hook: str = "_generate") -> BaseChatModel:
    if hook == "_generate":
        class Junk(BaseChatModel):
            def _generate(self, request: ChatRequest) -> Any:
                return value
    else:
        class Junk(BaseChatModel):  # type: ignore[no-redef]
            async def _agenerate(self, request: ChatRequest) -> Any:
                return value
    return Junk()


_PATHS: dict[str, Callable[[BaseChatModel], Any]] = {
    "invoke": lambda m: m.invoke("q"),
    "ainvoke": lambda m: asyncio.run(m.ainvoke("q")),
    "stream": lambda m: list(m.stream("q")),
    "astream": lambda m: _collect(m.astream("q")),
}


@pytest.mark.parametrize("path", sorted(_PATHS))
@pytest.mark.parametrize("value", _JUNK, ids=["str", "none", "dict", "chunk"])
def test_generate_returning_no_message_is_one_sentence_on_every_path(path: str, value: Any) -> None:
    with pytest.raises(UserError, match=r"^Junk\._generate must return a toolwire AIMessage, not "):
        _PATHS[path](_junk_model(value))


@pytest.mark.parametrize("path", ["ainvoke", "astream"])
def test_agenerate_returning_no_message_names_agenerate(path: str) -> None:
    with pytest.raises(UserError, match=r"^Junk\._agenerate must return a toolwire AIMessage, not str"):
        _PATHS[path](_junk_model("text", "_agenerate"))


def test_agent_reports_it_at_the_model_call() -> None:
    for run in (lambda a: a.invoke("q"), lambda a: asyncio.run(a.ainvoke("q")),
                lambda a: list(a.stream("q", stream_tokens=True))):
        with pytest.raises(UserError, match=r"Junk\._generate must return a toolwire AIMessage, not str"):
            run(Agent(_junk_model("plain string"), [get_weather]))
