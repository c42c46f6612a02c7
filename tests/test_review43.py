"""Review 43: provider chat models and text-call parsing against what real servers send.

Faults found, now fixed (each has a test below):

1. _stream.ToolCallMerger: a name streamed in pieces on one index ("get_" + "weather") becomes two calls.
2. _common.native_call: invoke replaces a numeric call id (5) by a generated one; stream keeps "5".
3. anthropic.lower_messages: a call id repeated in a later turn gives two tool_use blocks with one id (400).
4. openai.parse_response: a legacy message.function_call reply loses its call silently.
5. openai.lower_messages: an Anthropic-form image block (source base64) goes to Chat Completions as is (400).
6. anthropic.StreamState.finish: a streamed tool_use cut at max_tokens keeps "{}", not its raw partial JSON.
"""

from __future__ import annotations

import json

import httpx
import pytest

from toolwire import Agent, tool
from toolwire.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, coerce_messages, merge_chunks
from toolwire.messages import tool_call as make_call
from toolwire.models.lowering import anthropic as anthropic_codec
from toolwire.models.lowering import gemini as gemini_codec
from toolwire.models.lowering import openai as openai_codec

openai = pytest.importorskip("openai")


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"sunny in {city}"


# --------------------------------------------------------------------------- helpers


def _chat(message: dict, finish: str | None = "stop") -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "qwen",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}]}


def _chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "qwen",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _openai_stream(deltas: list[dict], finish: str = "tool_calls") -> AIMessage:
    state = openai_codec.StreamState()
    chunks = [c for c in (state.feed(_chunk(d)) for d in deltas) if c is not None]
    state.feed(_chunk({}, finish))
    chunks.append(state.finish())
    return merge_chunks(chunks, as_chunk=False, tool_names=["get_weather"])  # type: ignore[return-value]


def _tc(**piece: object) -> dict:
    return {"tool_calls": [piece]}


class _Server:
    """An OpenAI-compatible server answering from a script, through httpx.MockTransport (no network)."""

    def __init__(self, answers: list[httpx.Response | dict]) -> None:
        self.answers = list(answers)
        self.requests: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        answer = self.answers.pop(0)
        return answer if isinstance(answer, httpx.Response) else httpx.Response(200, json=answer)


def _compatible_model(answers: list[httpx.Response | dict]) -> tuple[object, _Server]:
    from toolwire.models import ChatOpenAI

    server = _Server(answers)
    model = ChatOpenAI("qwen", base_url="http://gpu-box:8000/v1", max_retries=0)
    model._clients.sync = openai.OpenAI(  # the SDK client itself, on a mocked transport
        api_key="not-needed", base_url="http://gpu-box:8000/v1", max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(server)))
    return model, server


def _sse(events: list[dict]) -> httpx.Response:
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


# --------------------------------------------------------------------------- faults


def test_stream_name_split_across_chunks_is_one_call() -> None:
    reply = _openai_stream([
        _tc(index=0, id="call_1", type="function", function={"name": "get_", "arguments": ""}),
        _tc(index=0, function={"name": "weather"}),
        _tc(index=0, function={"arguments": '{"city": "Paris"}'}),
    ])
    assert [(c["name"], c["args"], c["id"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"}, "call_1")]
    assert reply.invalid_tool_calls == []


def test_numeric_call_id_is_kept_as_text_like_the_stream() -> None:
    whole = openai_codec.parse_response(_chat(
        {"content": None, "tool_calls": [{"id": 5, "type": "function",
                                          "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
        "tool_calls"), tool_names=["get_weather"])
    streamed = _openai_stream([_tc(index=0, id=5, type="function",
                                   function={"name": "get_weather", "arguments": '{"city": "Oslo"}'})])
    assert streamed.tool_calls[0]["id"] == "5"
    assert whole.tool_calls[0]["id"] == streamed.tool_calls[0]["id"] == "5"


def test_anthropic_call_id_repeated_in_a_later_turn_is_sent_unique() -> None:
    conversation = [
        HumanMessage("Weather in Paris?"),
        AIMessage("", tool_calls=[make_call("get_weather", {"city": "Paris"}, "call_1")]),
        ToolMessage("sunny", tool_call_id="call_1"),
        AIMessage("Sunny in Paris."),
        HumanMessage("And Oslo?"),
        AIMessage("", tool_calls=[make_call("get_weather", {"city": "Oslo"}, "call_1")]),
        ToolMessage("rain", tool_call_id="call_1"),
    ]
    _, turns = anthropic_codec.lower_messages(conversation)
    uses = [b["id"] for t in turns for b in t["content"] if b["type"] == "tool_use"]
    assert len(uses) == 2 and len(set(uses)) == 2, uses
    # each result still answers the tool_use of the turn right before it
    for n, turn in enumerate(turns):
        results = [b for b in turn["content"] if b["type"] == "tool_result"]
        if results:
            previous = [b["id"] for b in turns[n - 1]["content"] if b["type"] == "tool_use"]
            assert [b["tool_use_id"] for b in results] == previous
    answered = {b["tool_use_id"]: b["content"] for t in turns for b in t["content"] if b["type"] == "tool_result"}
    assert sorted(answered.values()) == ["rain", "sunny"]


def test_legacy_function_call_reply_is_not_lost() -> None:
    reply = openai_codec.parse_response(_chat(
        {"content": None, "function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        "function_call"), tool_names=["get_weather"])
    calls = [*reply.tool_calls, *reply.invalid_tool_calls]
    assert len(calls) == 1
    assert calls[0]["name"] == "get_weather"


def test_openai_lowers_anthropic_form_image() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    messages = openai_codec.lower_messages([HumanMessage([{"type": "text", "text": "What is this?"}, image])])
    parts = messages[0]["content"]
    assert parts[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def test_anthropic_stream_cut_call_keeps_raw_arguments() -> None:
    state = anthropic_codec.StreamState()
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 3}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"city": "Par'}},
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}},
    ]
    chunks = [c for c in (state.feed(e) for e in events) if c is not None]
    chunks.append(state.finish())
    reply = merge_chunks(chunks, as_chunk=False)
    assert reply.tool_calls == []
    assert len(reply.invalid_tool_calls) == 1
    assert '"city": "Par' in (reply.invalid_tool_calls[0]["args"] or "")


def test_stream_repeated_name_is_not_joined_and_new_id_starts_a_call() -> None:
    # some servers send the whole name on every delta: a repeat, not a piece
    repeated = _openai_stream([
        _tc(index=0, id="call_1", type="function", function={"name": "get_weather", "arguments": ""}),
        _tc(index=0, function={"name": "get_weather", "arguments": '{"city": '}),
        _tc(index=0, function={"name": "get_weather", "arguments": '"Paris"}'}),
    ])
    assert [(c["name"], c["args"]) for c in repeated.tool_calls] == [("get_weather", {"city": "Paris"})]
    # another name under another id on the same index is another call, even before any argument text
    two = _openai_stream([
        _tc(index=0, id="call_1", type="function", function={"name": "get_weather", "arguments": ""}),
        _tc(index=0, id="call_2", type="function", function={"name": "get_time", "arguments": ""}),
        _tc(index=0, function={"arguments": "{}"}),
    ])
    assert [c["name"] for c in [*two.tool_calls, *two.invalid_tool_calls]] == ["get_weather", "get_time"]


def test_legacy_function_call_stream_equals_the_whole_reply() -> None:
    whole = openai_codec.parse_response(_chat(
        {"content": None, "function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        "function_call"), tool_names=["get_weather"])
    streamed = _openai_stream([{"function_call": {"name": "get_weather", "arguments": ""}},
                               {"function_call": {"arguments": '{"city": '}},
                               {"function_call": {"arguments": '"Paris"}'}}], finish="function_call")
    for reply in (whole, streamed):
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"})]
        assert reply.tool_calls[0]["id"]


def test_function_call_sent_beside_tool_calls_is_one_call() -> None:
    # llama-cpp-python's function-calling handlers send each piece both as function_call and tool_calls
    both = {"function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    whole = openai_codec.parse_response(_chat(
        {"content": None, "function_call": both["function"],
         "tool_calls": [{"id": "call_1", "type": "function", **both}]}, "tool_calls"), tool_names=["get_weather"])
    streamed = _openai_stream([
        {"function_call": {"name": "get_weather", "arguments": '{"city": '},
         "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                         "function": {"name": "get_weather", "arguments": '{"city": '}}]},
        {"function_call": {"name": "get_weather", "arguments": '"Paris"}'},
         "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                         "function": {"name": "get_weather", "arguments": '"Paris"}'}}]},
    ])
    for reply in (whole, streamed):
        calls = [(c["name"], c["args"], c["id"]) for c in reply.tool_calls]
        assert calls == [("get_weather", {"city": "Paris"}, "call_1")]


def test_anthropic_form_image_reaches_gemini_and_round_trips_to_anthropic() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    _, contents = gemini_codec.lower_messages([HumanMessage([{"type": "text", "text": "What is this?"}, image])])
    assert contents[0]["parts"][1] == {"inline_data": {"mime_type": "image/png", "data": b"\x89PNG\r\n\x1a\n"}}
    _, turns = anthropic_codec.lower_messages([HumanMessage([{"type": "text", "text": "What is this?"}, image])])
    assert turns[0]["content"][1] == image
    kept = {**image, "cache_control": {"type": "ephemeral"}}
    _, turns = anthropic_codec.lower_messages([HumanMessage([{"type": "text", "text": "What is this?"}, kept])])
    assert turns[0]["content"][1] == kept


def test_anthropic_repeated_id_within_one_turn_and_its_results() -> None:
    conversation = [
        HumanMessage("Weather in Paris and Oslo?"),
        AIMessage("", tool_calls=[make_call("get_weather", {"city": "Paris"}, "call_1"),
                                  make_call("get_weather", {"city": "Oslo"}, "call_1")]),
        ToolMessage("sunny", tool_call_id="call_1"),
        ToolMessage("rain", tool_call_id="call_1"),
    ]
    _, turns = anthropic_codec.lower_messages(conversation)
    uses = [b["id"] for b in turns[1]["content"] if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for b in turns[2]["content"] if b["type"] == "tool_result"]
    assert len(set(uses)) == 2 and results == uses


# --------------------------------------------------------------------------- what works


@pytest.mark.parametrize("arguments", [{"city": "Paris"}, '{"city": "Paris"}', '"{\\"city\\": \\"Paris\\"}"'])
def test_openai_arguments_as_object_string_or_double_encoded(arguments: object) -> None:
    reply = openai_codec.parse_response(_chat(
        {"content": None, "tool_calls": [{"id": "c1", "type": "function",
                                          "function": {"name": "get_weather", "arguments": arguments}}]},
        "tool_calls"), tool_names=["get_weather"])
    assert reply.tool_calls == [{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}]


@pytest.mark.parametrize("arguments", ["", "null", None])
def test_openai_empty_arguments_are_an_empty_object(arguments: object) -> None:
    reply = openai_codec.parse_response(_chat(
        {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}]},
        "tool_calls"), tool_names=["get_weather"])
    assert reply.tool_calls[0]["args"] == {} and reply.invalid_tool_calls == []


def test_openai_missing_and_repeated_ids_each_get_their_own() -> None:
    reply = openai_codec.parse_response(_chat({"tool_calls": [
        {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "A"}'}},
        {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "B"}'}},
        {"id": "x", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "C"}'}},
        {"id": "x", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "D"}'}},
    ]}, "tool_calls"), tool_names=["get_weather"])
    ids = [c["id"] for c in reply.tool_calls]
    assert len(set(ids)) == 4 and all(ids) and ids[2:] == ["x", "x_2"]


def test_openai_stream_index_gaps_and_whole_calls_on_index_zero() -> None:
    gaps = _openai_stream([
        _tc(index=0, id="a", function={"name": "get_weather", "arguments": '{"city": '}),
        _tc(index=0, function={"arguments": '"A"}'}),
        _tc(index=2, id="b", function={"name": "get_weather", "arguments": '{"city": "B"}'}),
    ])
    assert [(c["id"], c["args"]) for c in gaps.tool_calls] == [("a", {"city": "A"}), ("b", {"city": "B"})]
    ollama = _openai_stream([
        _tc(index=0, id="a", function={"name": "get_weather", "arguments": '{"city": "A"}'}),
        _tc(index=0, id="b", function={"name": "get_weather", "arguments": '{"city": "B"}'}),
    ])
    assert [(c["id"], c["args"]) for c in ollama.tool_calls] == [("a", {"city": "A"}), ("b", {"city": "B"})]


def test_openai_stream_cut_at_length_keeps_raw_text() -> None:
    reply = _openai_stream([_tc(index=0, id="a", function={"name": "get_weather", "arguments": '{"city": "Par'})],
                           finish="length")
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["args"] == '{"city": "Par'


def test_compatible_server_text_calls_run_through_agent_and_go_back_native() -> None:
    text = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    model, server = _compatible_model([_chat({"content": text}), _chat({"content": "It is sunny."})])
    result = Agent(model, [get_weather]).invoke("Weather in Paris?")
    assert result.output == "It is sunny."
    second = server.requests[1]["messages"]
    assert second[1]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert second[2] == {"role": "tool", "tool_call_id": second[1]["tool_calls"][0]["id"], "content": "sunny in Paris"}


def test_compatible_server_text_calls_stream_equals_invoke() -> None:
    text = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    events = [_chunk({"role": "assistant", "content": ""})]
    events += [_chunk({"content": text[i:i + 5]}) for i in range(0, len(text), 5)]
    events.append(_chunk({}, "stop"))
    model, _ = _compatible_model([_sse(events), _chat({"content": text})])
    bound = model.bind_tools([get_weather])  # type: ignore[attr-defined]
    streamed = merge_chunks(bound.stream("hi"), as_chunk=False)
    whole = bound.invoke("hi")
    for reply in (streamed, whole):
        assert reply.content == "Checking."
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"})]
        assert reply.response_metadata["tool_calls_from_text"] is True


def test_anthropic_several_tool_uses_thinking_and_error_results() -> None:
    reply = anthropic_codec.parse_response({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "stop_reason": "max_tokens",
        "content": [{"type": "thinking", "thinking": "hm", "signature": "sig"}, {"type": "text", "text": ""},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "A"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}, tool_names=["get_weather"])
    assert [c["id"] for c in reply.tool_calls] == ["toolu_1"]
    assert [c["id"] for c in reply.invalid_tool_calls] == ["toolu_2"]
    conversation = [HumanMessage("q"), reply, ToolMessage("cut", tool_call_id="toolu_2", status="error"),
                    ToolMessage({"temp": 20}, tool_call_id="toolu_1")]
    _, turns = anthropic_codec.lower_messages(conversation)
    assert turns[1]["content"][0] == {"type": "thinking", "thinking": "hm", "signature": "sig"}
    assert all(b.get("text", "x") for b in turns[1]["content"])  # the empty text block is not sent
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"temp": 20}'},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "cut", "is_error": True}]


def test_gemini_calls_without_id_nested_args_and_error_results() -> None:
    reply = gemini_codec.parse_response({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Let me check."},
        {"functionCall": {"name": "get_weather", "args": {"city": {"name": "Paris", "tags": [1, {"a": None}]}}}},
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]}, "finishReason": "STOP"}]},
        tool_names=["get_weather"])
    ids = [c["id"] for c in reply.tool_calls]
    assert len(set(ids)) == 2 and all(ids)
    assert reply.tool_calls[0]["args"] == {"city": {"name": "Paris", "tags": [1, {"a": None}]}}
    conversation = [HumanMessage("q"), reply, ToolMessage("boom", tool_call_id=ids[1], status="error"),
                    ToolMessage("ok", tool_call_id=ids[0])]
    _, contents = gemini_codec.lower_messages(conversation)
    assert [p["function_response"]["response"] for p in contents[2]["parts"]] == [{"result": "ok"}, {"error": "boom"}]


def test_gemini_safety_block_has_no_calls_and_says_why() -> None:
    reply = gemini_codec.parse_response({"candidates": [{"finishReason": "SAFETY"}]}, tool_names=["get_weather"])
    assert reply.tool_calls == [] and reply.response_metadata["finish_reason"] == "SAFETY"
    blocked = gemini_codec.parse_response({"promptFeedback": {"blockReason": "SAFETY"}})
    assert blocked.response_metadata["block_reason"] == "SAFETY"


def test_conversation_restored_from_dicts_lowers_the_same() -> None:
    gemini_reply = gemini_codec.parse_response({"candidates": [{"content": {"parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "A"}, "id": "g1"}, "thoughtSignature": "YWJj"}]},
        "finishReason": "STOP"}]})
    bad = openai_codec.parse_response(_chat({"tool_calls": [
        {"id": "b1", "type": "function", "function": {"name": "get_weather", "arguments": "{bad"}}]}, "tool_calls"))
    conversation = [SystemMessage("Be brief."), HumanMessage("q"), gemini_reply,
                    ToolMessage("sunny", tool_call_id="g1"), bad,
                    ToolMessage("bad arguments", tool_call_id="b1", status="error")]
    restored = coerce_messages(json.loads(json.dumps([m.to_dict() for m in conversation])))
    assert openai_codec.lower_messages(restored) == openai_codec.lower_messages(conversation)
    assert anthropic_codec.lower_messages(restored) == anthropic_codec.lower_messages(conversation)
    assert gemini_codec.lower_messages(restored) == gemini_codec.lower_messages(conversation)


def test_api_key_never_in_repr() -> None:
    from toolwire.models import ChatOpenAI

    model = ChatOpenAI("gpt-5-mini", api_key="sk-review43-secret-value")
    assert "sk-review43" not in repr(model) and "sk-review43" not in str(vars(model))
