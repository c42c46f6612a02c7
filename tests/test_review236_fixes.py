"""Review 236: a custom model that implements only ``_generate`` gives the same calls through invoke and stream (#1);
an OpenAI-compatible stream keeps the server's ``index`` order of parallel calls (#2); a ``_generate`` that returns
something other than an AIMessage is refused at the model call, in one sentence, on every path (#3)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests._custom_models import collect, get_weather

from toolwire import Agent
from toolwire.errors import UserError
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks
from toolwire.models.base import BaseChatModel, ChatRequest
from toolwire.models.lowering import openai as openai_codec
from toolwire.models.lowering._stream import ToolCallMerger

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
    astreamed = merge_chunks(collect(model.astream("q")), as_chunk=False, tool_names=["get_weather"])
    assert _shape(whole) == _shape(streamed) == _shape(awhole) == _shape(astreamed)  # type: ignore[arg-type]
    if name:
        assert whole.tool_calls[0]["name"] == "get_weather"
    else:
        assert not whole.tool_calls and len(whole.invalid_tool_calls) == 1


def test_agenerate_only_model_reads_its_reply_as_its_astream_does() -> None:
    model = _async_generating(" get_weather ")().bind_tools([get_weather])
    awhole = asyncio.run(model.ainvoke("q"))
    astreamed = merge_chunks(collect(model.astream("q")), as_chunk=False)
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


# -- #2 -------------------------------------------------------------------------------------------------------------

def _delta(calls: list[dict[str, Any]] | None = None, finish: str | None = None) -> dict[str, Any]:
    delta: dict[str, Any] = {"tool_calls": calls} if calls else {}
    return {"id": "r1", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _streamed(events: list[dict[str, Any]], injected: bool) -> AIMessage:
    state = openai_codec.StreamState(compatible=True)
    if injected:  # the merger the codec builds, given to it directly
        state.merger = ToolCallMerger(index_order=True)
    chunks = [c for c in (state.feed(e) for e in events) if c is not None]
    chunks.append(state.finish())
    return merge_chunks(chunks, as_chunk=False)  # type: ignore[return-value]


def _call(index: int, args: str, call_id: str | None = None, name: str | None = "get_weather") -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": args}
    if name:
        function["name"] = name
    out: dict[str, Any] = {"index": index, "function": function}
    if call_id:
        out["id"] = call_id
        out["type"] = "function"
    return out


_INJECTED = [pytest.param(True, id="merger"), pytest.param(False, id="codec")]


@pytest.mark.parametrize("injected", _INJECTED)
def test_stream_keeps_the_servers_index_order(injected: bool) -> None:
    events = [_delta([_call(1, '{"city": ', "call_b")]),
              _delta([_call(0, '{"city": "Paris"}', "call_a")]),
              _delta([_call(1, '"Rome"}', name=None)]),
              _delta(finish="tool_calls")]
    whole = openai_codec.parse_response({"id": "r1", "model": "m", "choices": [{
        "index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
        ]}}]})
    streamed = _streamed(events, injected)
    assert [c["id"] for c in streamed.tool_calls] == [c["id"] for c in whole.tool_calls] == ["call_a", "call_b"]
    assert [c["args"]["city"] for c in streamed.tool_calls] == ["Paris", "Rome"]


@pytest.mark.parametrize("injected", _INJECTED)
def test_an_unreadable_call_keeps_its_index_place(injected: bool) -> None:
    from toolwire._call_records import in_reply_order

    events = [_delta([_call(1, "{not json", "call_b")]),
              _delta([_call(0, '{"city": "Paris"}', "call_a")]),
              _delta([_call(2, '{"city": "Rome"}', "call_c")]),
              _delta(finish="tool_calls")]
    streamed = _streamed(events, injected)
    order = in_reply_order(streamed.tool_calls, streamed.invalid_tool_calls, streamed.invalid_tool_calls)
    assert [c["id"] for c in order] == ["call_a", "call_b", "call_c"]


def test_merger_with_index_order_follows_the_index() -> None:
    merger = ToolCallMerger(index_order=True)
    chunks = [AIMessageChunk(tool_call_chunks=[merger.add(index=2, id="c", name="f", args='{"x": 3}')]),
              AIMessageChunk(tool_call_chunks=[merger.add(index=0, id="a", name="f", args='{"x": 1}')]),
              AIMessageChunk(tool_call_chunks=[merger.add(index=1, id="b", name="f", args='{"x": 2}')])]
    assert [c["id"] for c in merger.tool_calls()] == ["a", "b", "c"]
    assert [merger.raw_args(n) for n in range(3)] == ['{"x": 1}', '{"x": 2}', '{"x": 3}']
    assert merger.partial_args(0) == {"x": 1}
    assert [c["id"] for c in merge_chunks(chunks, as_chunk=False).tool_calls] == ["a", "b", "c"]  # type: ignore[union-attr]


@pytest.mark.parametrize("index_order", [False, True])
@pytest.mark.parametrize("pieces", [
    # no index at all (Gemini-like whole calls, or a server that sends none): the order they start in
    [dict(id="b", name="f", args='{"x": 2}'), dict(id="a", name="f", args='{"x": 1}')],
    # one index reused for every call (Ollama): the order they start in
    [dict(index=0, id="b", name="f", args='{"x": 2}'), dict(index=0, id="a", name="f", args='{"x": 1}')],
], ids=["no-index", "index-0-reused"])
def test_order_without_distinct_indexes_is_the_arrival_order(pieces: list[dict[str, Any]], index_order: bool) -> None:
    merger = ToolCallMerger(index_order=index_order)
    chunks = [AIMessageChunk(tool_call_chunks=[merger.add(**piece)]) for piece in pieces]
    assert [c["id"] for c in merger.tool_calls()] == ["b", "a"]
    assert [c["id"] for c in merge_chunks(chunks, as_chunk=False).tool_calls] == ["b", "a"]  # type: ignore[union-attr]
    assert [c.tool_call_chunks[0]["index"] for c in chunks] == [0, 1]


@pytest.mark.parametrize("index_order", [False, True])
def test_in_order_indexes_are_numbered_as_before(index_order: bool) -> None:
    merger = ToolCallMerger(index_order=index_order)
    pieces = [merger.add(index=0, id="a", name="f", args="{}"), merger.add(index=1, id="b", name="f", args="{}"),
              merger.add(index=2, id="c", name="f", args="{}")]
    assert [p["index"] for p in pieces] == [0, 1, 2]


def test_block_indexes_are_numbered_from_0_by_default() -> None:
    merger = ToolCallMerger()  # Anthropic's content-block index: a text block took index 0
    pieces = [merger.add(index=1, id="a", name="f", args="{}"), merger.add(index=2, id="b", name="f", args="{}")]
    assert [p["index"] for p in pieces] == [0, 1]


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
    "astream": lambda m: collect(m.astream("q")),
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
