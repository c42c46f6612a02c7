"""Review 241: ``parallel_tool_calls=False`` keeps the same call on a stream as on ``invoke`` (#1); ``invoke`` and
``ainvoke`` (``batch`` and ``abatch``) agree for every combination of a custom model's hooks (#2); a ``_stream`` or
``_astream`` yielding anything but an ``AIMessageChunk`` is refused in one sentence (#3); ``invoke`` of a
``_generate``-only model keeps its reply's content blocks (#4) and the reply object itself, its class and fields
(#6), changing only the calls its stream would read otherwise; a merged chunk prints its invalid calls (#5)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from tests._custom_models import collect, get_weather

from toolwire import Agent
from toolwire.errors import UserError
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks
from toolwire.models.base import BaseChatModel, ChatRequest


def _piece(index: int, args: str, call_id: str | None = None, name: str | None = "get_weather") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "index": index, "type": "tool_call_chunk"}


# -- #1 -------------------------------------------------------------------------------------------------------------

def _streaming(pieces: list[list[dict[str, Any]]]) -> type[BaseChatModel]:
    class Streaming(BaseChatModel):
        """Streams its calls as a Chat Completions server does (merged by index)."""

        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            if any(m.type == "tool" for m in request.messages):
                yield AIMessageChunk("done")
                return
            for part in pieces:
                yield AIMessageChunk("", tool_call_chunks=[dict(p) for p in part])  # type: ignore[misc]
            yield AIMessageChunk("", response_metadata={"finish_reason": "tool_calls"})
    return Streaming


_LATER_FIRST = [[_piece(1, '{"city": ', "call_b")], [_piece(0, '{"city": "Paris"}', "call_a")],
                [_piece(1, '"Rome"}', name=None)]]
_INVALID_FIRST = [[_piece(0, "city=Paris", "call_a")], [_piece(1, '{"city": "Rome"}', "call_b")]]


def _calls(message: Any) -> tuple[list[tuple[Any, Any]], list[Any]]:
    return ([(c["id"], c["args"]) for c in message.tool_calls], [c.get("id") for c in message.invalid_tool_calls])


@pytest.mark.parametrize("pieces, kept", [(_LATER_FIRST, "call_a"), (_INVALID_FIRST, "call_b")],
                         ids=["later-index-first", "invalid-first"])
def test_one_call_of_a_stream_is_the_one_invoke_keeps(pieces: list[Any], kept: str) -> None:
    model = _streaming(pieces)().bind_tools([get_weather], parallel_tool_calls=False)
    whole = model.invoke("q")
    streamed = merge_chunks(list(model.stream("q")), as_chunk=False)
    astreamed = merge_chunks(collect(model.astream("q")), as_chunk=False)
    assert _calls(whole) == _calls(streamed) == _calls(astreamed)
    assert [c["id"] for c in whole.tool_calls] == [kept]
    assert whole.response_metadata["dropped_tool_calls"] == streamed.response_metadata["dropped_tool_calls"] == 1


def test_a_chat_completions_stream_keeps_the_call_of_the_whole_reply() -> None:
    from toolwire.models.lowering import openai as openai_codec

    def delta(calls: list[dict[str, Any]] | None = None, finish: str | None = None) -> dict[str, Any]:
        return {"id": "r1", "object": "chat.completion.chunk", "model": "m",
                "choices": [{"index": 0, "delta": {"tool_calls": calls} if calls else {}, "finish_reason": finish}]}

    def call(index: int, args: str, call_id: str | None = None) -> dict[str, Any]:
        function = {"arguments": args, **({"name": "get_weather"} if call_id else {})}
        return {"index": index, "function": function, **({"id": call_id, "type": "function"} if call_id else {})}

    events = [delta([call(1, '{"city": ', "call_b")]), delta([call(0, '{"city": "Paris"}', "call_a")]),
              delta([call(1, '"Rome"}')]), delta(finish="tool_calls")]
    whole = {"id": "r1", "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{n}", "type": "function",
             "function": {"name": "get_weather", "arguments": f'{{"city": "{c}"}}'}}
            for n, c in (("a", "Paris"), ("b", "Rome"))]}}]}

    class Server(BaseChatModel):
        def _generate(self, request: ChatRequest) -> AIMessage:
            return openai_codec.parse_response(whole)

        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            state = openai_codec.StreamState(compatible=True)
            yield from (c for c in (state.feed(e) for e in events) if c is not None)
            yield state.finish()

    model = Server().bind_tools([get_weather], parallel_tool_calls=False)
    assert _calls(model.invoke("q")) == _calls(merge_chunks(list(model.stream("q")), as_chunk=False)) == (
        [("call_a", {"city": "Paris"})], [])


def test_agent_paths_run_the_same_kept_call() -> None:
    model = _streaming(_LATER_FIRST)().bind_tools([get_weather], parallel_tool_calls=False)

    def results(result: Any) -> list[tuple[str, str]]:
        return [(m.tool_call_id, m.text) for m in result.messages if m.type == "tool"]

    final = [e.data for e in Agent(model, [get_weather]).stream("q", stream_tokens=True) if e.type == "final"][-1]
    assert results(Agent(model, [get_weather]).invoke("q")) == results(final) == [("call_a", "sunny in Paris")]


# -- #2 -------------------------------------------------------------------------------------------------------------

_REPLY = AIMessage("", tool_calls=[{"name": " get_weather ", "args": {"city": "Lima"}, "id": "c1"}])


def _chunks() -> list[AIMessageChunk]:
    return [AIMessageChunk("", tool_call_chunks=[_piece(0, '{"city": "Lima"}', "c1", " get_weather ")])]  # type: ignore[list-item]


async def _agenerate(self: Any, request: ChatRequest) -> AIMessage:
    return _REPLY


async def _astream(self: Any, request: ChatRequest) -> AsyncIterator[AIMessageChunk]:
    for chunk in _chunks():
        yield chunk


_HOOKS: dict[str, tuple[str, Callable[..., Any]]] = {
    "G": ("_generate", lambda self, request: _REPLY),
    "AG": ("_agenerate", _agenerate),
    "S": ("_stream", lambda self, request: iter(_chunks())),
    "AS": ("_astream", _astream),
}
_COMBOS = ["+".join(combo) for k in range(1, 5) for combo in itertools.combinations(_HOOKS, k)
           if {"G", "S"} & set(combo)]


def _names(message: AIMessage) -> list[Any]:
    return [c["name"] for c in message.tool_calls] + [("invalid", c.get("name")) for c in message.invalid_tool_calls]


@pytest.mark.parametrize("combo", _COMBOS)
def test_invoke_and_ainvoke_agree_for_every_hook_combination(combo: str) -> None:
    cls = type("M", (BaseChatModel,), {_HOOKS[h][0]: _HOOKS[h][1] for h in combo.split("+")})
    model = cls().bind_tools([get_weather])
    assert _names(model.invoke("q")) == _names(asyncio.run(model.ainvoke("q")))
    assert _names(model.batch(["q"])[0]) == _names(asyncio.run(model.abatch(["q"]))[0])


def test_generate_and_stream_model_agent_runs_agree() -> None:
    class Mine(BaseChatModel):
        def _reply(self, request: ChatRequest) -> AIMessage:
            if any(m.type == "tool" for m in request.messages):
                return AIMessage("done")
            return _REPLY

        def _generate(self, request: ChatRequest) -> AIMessage:
            return self._reply(request)

        def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
            reply = self._reply(request)
            yield AIMessageChunk(reply.content, tool_call_chunks=[
                _piece(0, '{"city": "Lima"}', c["id"], c["name"]) for c in reply.tool_calls])  # type: ignore[misc]

    def answers(result: Any) -> list[str]:
        return [m.text for m in result.messages if m.type == "tool"]

    assert answers(Agent(Mine(), [get_weather]).invoke("q")) == answers(
        asyncio.run(Agent(Mine(), [get_weather]).ainvoke("q")))


# -- #3 -------------------------------------------------------------------------------------------------------------

class _LangChainLike:
    """Stands for LangChain's ChatGenerationChunk (a model ported from LangChain yields those)."""

    def __init__(self) -> None:
        self.text = "hello"


_JUNK: list[Any] = ["hello", AIMessage("hello"), {"content": "hi"}, None, _LangChainLike()]
_JUNK_IDS = ["str", "aimessage", "dict", "none", "langchain-chunk"]


def _junk_stream(value: Any, hook: str) -> BaseChatModel:
    if hook == "_stream":
        class Junk(BaseChatModel):
            def _stream(self, request: ChatRequest) -> Iterator[Any]:
                yield value
    else:
        class Junk(BaseChatModel):  # type: ignore[no-redef]
            def _generate(self, request: ChatRequest) -> AIMessage:
                return AIMessage("x")

            async def _astream(self, request: ChatRequest) -> AsyncIterator[Any]:
                yield value
    return Junk()


_STREAM_PATHS: dict[str, Callable[[BaseChatModel], Any]] = {
    "invoke": lambda m: m.invoke("q"),
    "ainvoke": lambda m: asyncio.run(m.ainvoke("q")),
    "stream": lambda m: list(m.stream("q")),
    "astream": lambda m: collect(m.astream("q")),
    "stream-tools": lambda m: list(m.bind_tools([get_weather]).stream("q")),
    "astream-tools": lambda m: collect(m.bind_tools([get_weather]).astream("q")),
    "stream-one-call": lambda m: list(m.bind_tools([get_weather], parallel_tool_calls=False).stream("q")),
    "astream-one-call": lambda m: collect(m.bind_tools([get_weather], parallel_tool_calls=False).astream("q")),
    "agent-stream": lambda m: list(Agent(m, [get_weather]).stream("q", stream_tokens=True)),
}


@pytest.mark.parametrize("path", sorted(_STREAM_PATHS))
@pytest.mark.parametrize("value", _JUNK, ids=_JUNK_IDS)
def test_stream_yielding_no_chunk_is_one_sentence_on_every_path(path: str, value: Any) -> None:
    with pytest.raises(UserError, match=r"^Junk\._stream must yield toolwire AIMessageChunk objects, not .*: yield "
                                        r"toolwire\.AIMessageChunk\(.*\)\.(\n|$)"):
        _STREAM_PATHS[path](_junk_stream(value, "_stream"))


@pytest.mark.parametrize("path", ["astream", "astream-tools", "astream-one-call"])
@pytest.mark.parametrize("value", _JUNK, ids=_JUNK_IDS)
def test_astream_yielding_no_chunk_names_astream(path: str, value: Any) -> None:
    with pytest.raises(UserError, match=r"^Junk\._astream must yield toolwire AIMessageChunk objects, not "):
        _STREAM_PATHS[path](_junk_stream(value, "_astream"))


# -- #4 -------------------------------------------------------------------------------------------------------------

_BLOCKS = [
    [{"type": "reasoning", "reasoning": "The user wants a greeting.", "index": 0},
     {"type": "text", "text": "Hello!", "index": 0}],
    [{"type": "image", "url": "https://example.com/a.png", "index": 0},
     {"type": "image", "url": "https://example.com/b.png", "index": 0}],
]


def _generate_only(reply: AIMessage) -> BaseChatModel:
    class Mine(BaseChatModel):
        def _generate(self, request: ChatRequest) -> AIMessage:
            return reply
    return Mine()


@pytest.mark.parametrize("blocks", _BLOCKS, ids=["reasoning-text", "images"])
@pytest.mark.parametrize("with_call", [False, True])
def test_invoke_keeps_the_replys_content_blocks(blocks: list[dict[str, Any]], with_call: bool) -> None:
    calls = [{"name": " get_weather ", "args": {"city": "Lima"}, "id": "c1"}] if with_call else []
    reply = AIMessage(blocks, tool_calls=calls)  # type: ignore[arg-type]
    model = _generate_only(reply).bind_tools([get_weather])
    for got in (model.invoke("q"), asyncio.run(model.ainvoke("q"))):
        assert got.content == blocks and got.text == reply.text
        if with_call:
            assert [c["name"] for c in got.tool_calls] == ["get_weather"]


# -- #5 -------------------------------------------------------------------------------------------------------------

def _merged_bad() -> AIMessageChunk:
    return AIMessageChunk("Checking.", tool_call_chunks=[_piece(0, "city=Paris", "c1")]) + AIMessageChunk(  # type: ignore[list-item]
        "", response_metadata={"finish_reason": "tool_calls"})


def test_a_merged_chunk_prints_its_unreadable_call() -> None:
    full = _merged_bad()
    text = full.pretty_repr()
    assert "\nInvalid Tool Calls:\n  get_weather (c1)\n Call ID: c1\n" in text
    assert text.endswith("  Args:\n    city=Paris")
    assert text.splitlines()[1:] == full.to_message().pretty_repr().splitlines()[1:]


def test_a_merged_chunk_prints_as_langchain_for_valid_and_invalid_calls() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    pieces = [_piece(0, '{"city": "Paris"}', "c1"), _piece(1, "city=Rome", "c2")]
    theirs = lc.AIMessageChunk("Checking.", tool_call_chunks=pieces).pretty_repr()
    ours = AIMessageChunk("Checking.", tool_call_chunks=pieces).pretty_repr()  # type: ignore[arg-type]
    assert [line for line in ours.splitlines() if not line.startswith("  Error: ")] == theirs.splitlines()


# -- #6 -------------------------------------------------------------------------------------------------------------

class TracedReply(AIMessage):
    __slots__ = ("trace_id",)


def _traced(calls: list[dict[str, Any]]) -> TracedReply:
    reply = TracedReply("hello", tool_calls=calls)  # type: ignore[arg-type]
    object.__setattr__(reply, "trace_id", "t-42")
    return reply


def test_invoke_returns_the_generate_reply_itself() -> None:
    reply = _traced([{"name": "get_weather", "args": {"city": "Lima"}, "id": "c1"}])
    model = _generate_only(reply).bind_tools([get_weather])
    assert model.invoke("q") is reply
    assert asyncio.run(model.ainvoke("q")) is reply


def test_a_reply_whose_calls_change_keeps_its_class_and_fields() -> None:
    reply = _traced([{"name": " get_weather ", "args": {"city": "Lima"}, "id": "c1"}])
    for got in (_generate_only(reply).invoke("q"), asyncio.run(_generate_only(reply).ainvoke("q"))):
        assert type(got) is TracedReply and got.trace_id == "t-42"  # type: ignore[attr-defined]
        assert [c["name"] for c in got.tool_calls] == ["get_weather"] and got.content == "hello"
    assert reply.tool_calls[0]["name"] == " get_weather "  # the model's own reply is not changed


_ODD_REPLIES = [
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": float("nan")}, "id": "c1"}]),
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Lima"}, "id": "c1"}],
              invalid_tool_calls=[{"name": "get_weather", "args": "{bad", "id": "c1", "error": "bad json"}],
              response_metadata={"finish_reason": "max_tokens"}),
    AIMessage("", tool_calls=[{"name": "", "args": {"city": "Lima"}, "id": "c1"},
                              {"name": "get_weather", "args": {"city": "Rome"}, "id": "c2"}]),
]


@pytest.mark.parametrize("reply", _ODD_REPLIES, ids=["nan", "max-tokens-declared", "nameless"])
def test_invoke_reads_the_calls_as_the_stream_does(reply: AIMessage) -> None:
    model = _generate_only(reply).bind_tools([get_weather])
    streamed = merge_chunks(list(model.stream("q")), as_chunk=False, tool_names=["get_weather"])

    def shape(message: Any) -> Any:
        return ([(c["name"], c["args"], c["id"]) for c in message.tool_calls],
                [(c.get("name"), c.get("args"), c.get("id")) for c in message.invalid_tool_calls])

    assert shape(model.invoke("q")) == shape(asyncio.run(model.ainvoke("q"))) == shape(streamed)
