"""Review 7, findings 1 and 3, on OpenAI-compatible servers, through the local wire server (no network).

Finding 1: DeepSeek, GLM, Kimi and OpenRouter give the parallel calls of one reply the same ``id`` (on
indexes 0, 1... or, OpenRouter, all on index 0). A stream merged them into one broken call; ``invoke`` kept
both under the same id, so two ToolMessages answered one ``tool_call_id``. Now a new index (or a new named
call after complete JSON) is a new call, and a repeated id is renamed ``<id>_2``... the same way in both
paths, so the merged stream equals ``invoke`` and each ToolMessage answers one call.

Finding 3: the merged stream read argument text with ``normalize_arguments`` only, so arguments wrapped
as ``{"name": ..., "arguments": {...}}`` came out wrapped (``invoke`` unwraps them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Agent
from toolwire.examples.book import calculate, get_weather
from toolwire.messages import AIMessage, merge_chunks
from toolwire.models.lowering._common import CallIds, split_calls
from toolwire.models.lowering._stream import ToolCallMerger
from toolwire.models.lowering.openai import StreamState, parse_response

from .conftest import build_model
from .wire_openai import OpenAIChat
from .wire_servers import Reply, WireServer, sse

SHARED_ID = "call_0"
TOOLS = [get_weather, calculate]


class SharedIdChat(OpenAIChat):
    """A server like DeepSeek, GLM or Kimi: every call of a reply has the same id, each on its own index.

    Requests are checked as a strict server checks them: an assistant turn's tool_call ids are unique.
    """

    def _calls(self, reply: Reply, server: WireServer) -> list[dict[str, Any]]:
        return [{**call, "id": SHARED_ID} for call in super()._calls(reply, server)]

    def validate(self, body: Any, headers: dict[str, str], route: str, server: WireServer) -> list[str]:
        problems = super().validate(body, headers, route, server)
        for i, msg in enumerate(body.get("messages") or () if isinstance(body, dict) else ()):
            ids = [c.get("id") for c in msg.get("tool_calls") or ()] if isinstance(msg, dict) else []
            if len(ids) != len(set(ids)):
                problems.append(f"messages[{i}].tool_calls: duplicate ids {ids}")
        return problems


class IndexZeroChat(SharedIdChat):
    """OpenRouter's form: every call whole in one delta, all on index 0, all with the same id."""

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return sse({"id": "gen-1", "object": "chat.completion.chunk", "created": 1, "model": model,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

        frames = [chunk({"role": "assistant", "content": reply.text})]
        frames += [chunk({"tool_calls": [{"index": 0, **call}]}) for call in self._calls(reply, server)]
        frames += [chunk({}, "tool_calls" if reply.calls else "stop"), sse("[DONE]")]
        return frames


@pytest.fixture(params=[SharedIdChat, IndexZeroChat], ids=["new-index-same-id", "index-0-same-id"])
def wire(request: pytest.FixtureRequest) -> Iterator[WireServer]:
    with WireServer(request.param()) as server:
        yield server
    assert not server.problems, f"requests a strict server rejects: {server.problems}"


def calls_of(message: AIMessage) -> list[tuple[str, Any, str]]:
    return [(c["name"], c["args"], c["id"]) for c in message.tool_calls]


# -- finding 1 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("calls", [
    [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],  # same name
    [("get_weather", {"city": "Paris"}), ("calculate", {"expression": "2 * 3"})],  # another name
    [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"}), ("calculate", {"expression": "1"})],
])
def test_parallel_calls_sharing_an_id_stream_as_invoke_returns_them(wire: WireServer, calls: list[Any]) -> None:
    model = build_model("openai-chat", wire.url).bind_tools(TOOLS)
    wire.queue(Reply(calls=calls), Reply(calls=calls, piece=4))
    invoked = model.invoke("q")
    streamed = merge_chunks(list(model.stream("q")), as_chunk=False)
    expected = [(name, args, SHARED_ID + (f"_{i + 1}" if i else "")) for i, (name, args) in enumerate(calls)]
    assert calls_of(invoked) == expected and invoked.invalid_tool_calls == []
    assert calls_of(streamed) == expected and streamed.invalid_tool_calls == []


@pytest.mark.parametrize("streaming", [False, True])
def test_each_tool_message_answers_one_call_and_goes_back_unique(wire: WireServer, streaming: bool) -> None:
    """The renamed ids are the calls' ids from then on: the assistant turn and its results carry them."""
    model = build_model("openai-chat", wire.url, streaming=streaming)
    result = Agent(model, TOOLS).invoke("Como está o clima em Paris? E 123 * 456?")
    assert result.output == "Resposta: It's always sunny in Paris! | 56088"
    sent = wire.requests[-1].body["messages"]
    call_ids = [c["id"] for c in sent[1]["tool_calls"]]
    assert call_ids == [SHARED_ID, SHARED_ID + "_2"]
    assert [(m["role"], m["tool_call_id"]) for m in sent[2:4]] == [("tool", SHARED_ID), ("tool", SHARED_ID + "_2")]


def test_a_whole_reply_renames_repeated_ids_in_reply_order() -> None:
    def call(call_id: str, city: str, args: str | None = None) -> dict[str, Any]:
        return {"id": call_id, "type": "function",
                "function": {"name": "get_weather", "arguments": args or json.dumps({"city": city})}}

    reply = parse_response({"choices": [{"message": {"content": None, "tool_calls": [
        call("c1", "Paris"), call("c1", "Rome", '{"city": "Ro'), call("c1_2", "Oslo"), call("c1", "Lima")]}}]})
    # an invalid call is renamed too (a ToolMessage answers it), and "c1_2" already taken moves on
    assert [c["id"] for c in reply.tool_calls] == ["c1", "c1_2_2", "c1_3"]
    assert [c["id"] for c in reply.invalid_tool_calls] == ["c1_2"]


def test_the_stream_renames_ids_as_the_whole_reply_does() -> None:
    ids = ["c1", "c1", "c1_2", "c1", "c2"]
    merger = ToolCallMerger()
    for index, call_id in enumerate(ids):
        merger.add(index=index, id=call_id, name="f", args="{}")
    whole, _ = split_calls({"name": "f", "args": {}, "id": i, "type": "tool_call"} for i in ids)
    assert [c["id"] for c in merger.tool_calls()] == [c["id"] for c in whole] == ["c1", "c1_2", "c1_2_2", "c1_3", "c2"]
    fresh = CallIds()
    assert [fresh.unique(i) for i in ids] == ["c1", "c1_2", "c1_2_2", "c1_3", "c2"]


def _piece(index: int | None, call_id: str | None, name: str | None, args: str) -> dict[str, Any]:
    fn = {"arguments": args, **({"name": name} if name else {})}
    tc = {**({"index": index} if index is not None else {}), **({"id": call_id} if call_id else {}), "function": fn}
    return {"id": "chatcmpl-7", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [tc]}}]}


@pytest.mark.parametrize(("pieces", "expected"), [
    # GLM / Kimi: the same id on indexes 0 and 1, the name on the first piece of each
    ([(0, "c1", "get_weather", ""), (0, "c1", None, '{"city": "Paris"}'), (1, "c1", "calculate", ""),
      (1, "c1", None, '{"expression": "2"}')],
     [("get_weather", {"city": "Paris"}, "c1"), ("calculate", {"expression": "2"}, "c1_2")]),
    # interleaved pieces of two calls under one id still go by index
    ([(0, "c1", "get_weather", '{"city": '), (1, "c1", "get_weather", '{"city": '), (0, "c1", None, '"Paris"}'),
      (1, "c1", None, '"Rome"}')],
     [("get_weather", {"city": "Paris"}, "c1"), ("get_weather", {"city": "Rome"}, "c1_2")]),
    # whole calls with the same id and no index
    ([(None, "c1", "get_weather", '{"city": "Paris"}'), (None, "c1", "get_weather", '{"city": "Rome"}')],
     [("get_weather", {"city": "Paris"}, "c1"), ("get_weather", {"city": "Rome"}, "c1_2")]),
    # one call whose every piece repeats its id and name stays one call
    ([(0, "c1", "get_weather", '{"city": '), (0, "c1", "get_weather", '"Paris"}'), (0, "c1", "get_weather", "")],
     [("get_weather", {"city": "Paris"}, "c1")]),
    # ... also when its last pieces are a closing brace and whitespace (review 10: a phantom second call)
    ([(0, "c1", "get_weather", '{"city": "Paris"'), (0, "c1", "get_weather", "}"), (0, "c1", "get_weather", "\n")],
     [("get_weather", {"city": "Paris"}, "c1")]),
])
def test_stream_state_splits_calls_by_index_not_by_a_shared_id(pieces: list[Any], expected: list[Any]) -> None:
    state = StreamState(compatible=True)  # these servers' pieces, without a finish_reason (review 72: OpenAI's is one)
    chunks = [c for c in (state.feed(_piece(*p)) for p in pieces) if c is not None] + [state.finish()]
    merged = merge_chunks(chunks, as_chunk=False)
    assert merged.invalid_tool_calls == [] and calls_of(merged) == expected
    assert [(c["name"], c["args"], c["id"]) for c in state.merger.tool_calls()] == expected


# -- finding 3 ------------------------------------------------------------------------------------------

WRAPPED = json.dumps({"name": "get_weather", "arguments": {"city": "Paris"}})


@pytest.mark.parametrize("name", ["get_weather", ""])
def test_wrapped_arguments_read_the_same_streamed_and_whole(name: str) -> None:
    with WireServer(OpenAIChat()) as server:
        model = build_model("openai-chat", server.url).bind_tools(TOOLS)
        reply = Reply(calls=[(name, {})], raw_arguments={0: WRAPPED}, piece=5)
        server.queue(reply, reply)
        invoked = model.invoke("q")
        streamed = merge_chunks(list(model.stream("q")), as_chunk=False)
    for message in (invoked, streamed):  # (each request gets its own call id from the server)
        assert [(c["name"], c["args"]) for c in message.tool_calls] == [("get_weather", {"city": "Paris"})]
        assert message.invalid_tool_calls == []


@pytest.mark.parametrize("streaming", [False, True])
def test_a_nameless_call_names_the_bound_tools_streamed_or_not(streaming: bool) -> None:
    """A streaming model merges its own stream for ``invoke``; the error of a call with no name lists the tools
    there too, as the whole reply's does."""
    with WireServer(OpenAIChat()) as server:
        model = build_model("openai-chat", server.url, streaming=streaming).bind_tools(TOOLS)
        server.queue(Reply(calls=[("", {"x": 1})], piece=3))
        [bad] = model.invoke("q").invalid_tool_calls
    assert "get_weather" in bad["error"] and "calculate" in bad["error"]
