"""Review 177 #2, #7, #8: streamed tool calls of OpenAI-compatible servers read as ``invoke`` reads the same reply.

#2: a call the stream sends again whole (same id, name and arguments: LiteLLM's summary chunk, GLM's resent payload),
in one piece or in pieces, is dropped, not a second call; OpenRouter's several calls under one id with other
arguments stay several. #7: two id-less calls on index 0 with ``""`` arguments and different names are two calls
when both are bound tools and the names joined are not. #8: a call id ``0`` is kept as ``"0"``.
"""

from __future__ import annotations

from typing import Any

from providers.scripted_http import Answer, ScriptedServer
from toolwire import Agent, tool
from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks
from toolwire.models import ChatOpenAI
from toolwire.models.lowering import openai as openai_codec
from toolwire.models.lowering._stream import ToolCallMerger

ARGS = '{"to": "boss@example.com"}'


def _chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _tc(index: Any = 0, id: Any = None, name: str | None = None, args: str | None = None) -> dict:
    piece: dict[str, Any] = {"index": index, "function": {}}
    if id is not None:
        piece["id"] = id
    if name is not None:
        piece["function"]["name"] = name
    if args is not None:
        piece["function"]["arguments"] = args
    return {"tool_calls": [piece]}


def _streamed(deltas: list[dict], tool_names: Any = None) -> tuple[AIMessage, list[AIMessageChunk]]:
    state = openai_codec.StreamState(compatible=True)
    state.merger.tool_names = tool_names
    chunks = [c for c in (state.feed(_chunk(d)) for d in deltas) if c is not None]
    state.feed(_chunk({}, "tool_calls"))
    chunks.append(state.finish())
    return merge_chunks(chunks, as_chunk=False), chunks  # type: ignore[return-value]


def _raw(deltas: list[dict], tool_names: Any = None) -> AIMessage:
    """The deltas merged by merge_chunks alone, each as a chunk of its raw piece (as LangChain's chunks hold them)."""
    chunks = [AIMessageChunk("", tool_call_chunks=[{"name": p["function"].get("name"), "args": p["function"].get(
        "arguments"), "id": p.get("id"), "index": p.get("index"), "type": "tool_call_chunk"}])
        for d in deltas for p in d["tool_calls"]]
    return merge_chunks(chunks, as_chunk=False, tool_names=tool_names)  # type: ignore[return-value]


def _calls(reply: AIMessage) -> list[tuple]:
    return [(c["name"], c["args"], c["id"]) for c in [*reply.tool_calls, *reply.invalid_tool_calls]]


# -- #2 ------------------------------------------------------------------------------------------------------------

OPENED = [_tc(id="t1", name="send_email", args=""), _tc(args=ARGS)]
ONE = [("send_email", {"to": "boss@example.com"}, "t1")]


def test_a_call_sent_again_whole_is_one_call_in_the_stream_and_its_merge() -> None:
    deltas = [*OPENED, _tc(id="t1", name="send_email", args=ARGS)]
    reply, chunks = _streamed(deltas)
    assert _calls(reply) == ONE
    assert "".join(p["args"] for c in chunks for p in c.tool_call_chunks) == ARGS  # the restated text is not sent
    assert _calls(_raw(deltas)) == ONE
    state = openai_codec.StreamState()
    for d in deltas:
        state.feed(_chunk(d))
    assert [c["id"] for c in state.merger.tool_calls()] == ["t1"]


def test_a_call_sent_again_in_pieces_or_spaced_otherwise_is_one_call() -> None:
    for again in ([_tc(id="t1", name="send_email", args=""), _tc(args='{"to": '), _tc(args='"boss@example.com"}')],
                  [_tc(id="t1", name="send_email", args='{"to":'), _tc(id="t1", name="send_email",
                                                                        args='"boss@example.com"}\n')],
                  [_tc(id="t1", name="send_email", args='{ "to" : "boss@example.com" }')]):
        deltas = [*OPENED, *again]
        assert _calls(_streamed(deltas)[0]) == ONE, again
        assert _calls(_raw(deltas)) == ONE, again


def test_other_arguments_under_the_same_id_stay_another_call() -> None:
    # OpenRouter: one id for every call; the second shares the start of the first's text, then differs
    deltas = [_tc(id="c", name="get_weather", args='{"city": "A'), _tc(args='"}'),
              _tc(id="c", name="get_weather", args='{"city": "A'), _tc(args='B"}')]
    expected = [("get_weather", {"city": "A"}, "c"), ("get_weather", {"city": "AB"}, "c_2")]
    assert _calls(_streamed(deltas)[0]) == expected
    assert [(n, a) for n, a, _ in _calls(_raw(deltas))] == [(n, a) for n, a, _ in expected]


def test_the_agent_runs_a_tool_once_for_a_call_the_server_sent_again() -> None:
    sent: list[str] = []

    @tool
    def send_email(to: str) -> str:
        """Send the report by email."""
        sent.append(to)
        return f"sent to {to}"

    events = [_chunk({"role": "assistant", "content": None}), *(_chunk(d) for d in OPENED),
              _chunk(_tc(id="t1", name="send_email", args=ARGS), "tool_calls")]
    done = [_chunk({"role": "assistant", "content": "Done."}), _chunk({}, "stop")]
    with ScriptedServer() as server:
        server.push(Answer(events=events), Answer(events=done))
        model = ChatOpenAI(model="m", base_url=server.url + "/v1", streaming=True)
        result = Agent(model, [send_email], repeat_calls=["send_email"]).invoke("Mail the report to my boss")
    assert sent == ["boss@example.com"]
    assert [m.tool_call_id for m in result.messages if m.type == "tool"] == ["t1"]


# -- #7 ------------------------------------------------------------------------------------------------------------

TWO = [_tc(name="list_alarms", args=""), _tc(name="list_timers", args="")]


def test_two_id_less_calls_without_arguments_on_one_index_are_two_calls() -> None:
    names = {"list_alarms", "list_timers"}
    assert [c["name"] for c in _streamed(TWO, names)[0].tool_calls] == ["list_alarms", "list_timers"]
    assert [c["name"] for c in _raw(TWO, names).tool_calls] == ["list_alarms", "list_timers"]
    # a name streamed in pieces still joins, and so do two tool names whose join is a tool too
    pieces = [_tc(id="x", name="list_", args=""), _tc(name="alarms"), _tc(args="{}")]
    assert [c["name"] for c in _streamed(pieces, names)[0].tool_calls] == ["list_alarms"]
    assert [c["name"] for c in _raw(pieces, names).tool_calls] == ["list_alarms"]
    both = {"get", "weather", "getweather"}
    split = [_tc(id="y", name="get", args=""), _tc(name="weather"), _tc(args="{}")]
    assert [c["name"] for c in _streamed(split, both)[0].tool_calls] == ["getweather"]


def test_chat_openai_streams_two_parameterless_calls_as_invoke_reads_them() -> None:
    @tool
    def list_alarms() -> str:
        """List the alarms."""
        return "none"

    @tool
    def list_timers() -> str:
        """List the timers."""
        return "none"

    events = [_chunk({"role": "assistant", "content": None}), *(_chunk(d) for d in TWO), _chunk({}, "tool_calls")]
    with ScriptedServer() as server:
        server.push(Answer(events=events))
        model = ChatOpenAI(model="m", base_url=server.url + "/v1").bind_tools([list_alarms, list_timers])
        reply = merge_chunks(list(model.stream("hi")), as_chunk=False)
    assert [c["name"] for c in reply.tool_calls] == ["list_alarms", "list_timers"]  # type: ignore[union-attr]
    assert not reply.invalid_tool_calls  # type: ignore[union-attr]


# -- #8 ------------------------------------------------------------------------------------------------------------


def test_a_call_id_zero_is_kept_as_its_text() -> None:
    deltas = [_tc(id=0, name="send_email", args=ARGS)]
    assert [c["id"] for c in _streamed(deltas)[0].tool_calls] == ["0"]
    assert [c["id"] for c in _raw(deltas).tool_calls] == ["0"]
    merger = ToolCallMerger()
    assert merger.add(index=0, id=0, name="f", args="{}")["id"] == "0"  # type: ignore[arg-type]
