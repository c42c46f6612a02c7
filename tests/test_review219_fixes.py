"""Review 219: a named tool_choice on servers that refuse "required" (vLLM < 0.8.3) and on those that take only the
string values (LM Studio); a real TGI < 3.2 stream; Responses preambles sent back between the calls. Replayed on a
local HTTP server (tests/_queued_http.py) behind the real openai SDK, or on the codec functions."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests._compatible_tools import City, get_weather, now
from tests._queued_http import QueuedServer, serving

from toolwire.errors import ProviderError
from toolwire.messages import HumanMessage, ToolMessage, merge_chunks
from toolwire.models import ChatOpenAI
from toolwire.models._openai_choice import BOTH_REFUSED
from toolwire.models.lowering import openai as codec


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("/v1") as found:
        yield found


def _args(name: str) -> str:
    return '{"name": "Paris", "country": "France"}' if name == "City" else '{"city": "Paris"}'


def _reply(name: str, stream: bool) -> Any:
    call = {"id": "chatcmpl-tool-1", "type": "function", "function": {"name": name, "arguments": _args(name)}}
    if stream:
        head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
        return [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, **call}]},
                                      "finish_reason": None}]},
                {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    return {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}


def _old_vllm(body: Any, n: int) -> Any:
    """vLLM before 0.8.3: 'required' refused (serving_chat.py), a named object choice served."""
    choice = body.get("tool_choice")
    if choice == "required":
        return (400, {"object": "error", "message": 'tool_choice = "required" is not supported!',
                      "type": "BadRequestError", "param": None, "code": 400})
    return _reply(choice["function"]["name"], bool(body.get("stream")))


def _lm_studio(body: Any, n: int) -> Any:
    """LM Studio: an object tool_choice refused with its real 400, a string one served."""
    if isinstance(body.get("tool_choice"), dict):
        return (400, {"error": "Invalid tool_choice type: 'object'. Supported string values: none, auto, required"})
    return _reply(body["tools"][0]["function"]["name"], bool(body.get("stream")))


def _choices(server: QueuedServer) -> list[Any]:
    return [body.get("tool_choice") for body in server.requests]


OBJECT = {"type": "function", "function": {"name": "get_weather"}}


# ---------------------------------------------------------------- #1 named tool_choice on older vLLM


def test_1_structured_output_on_old_vllm_asks_again_in_the_object_form_and_remembers_it(server: QueuedServer) -> None:
    server.answer = _old_vllm
    model = ChatOpenAI("llama", base_url=server.url, max_retries=0)
    model._choice.remember("required")  # (as if LM Studio had been seen: the object form is sent first by default)
    assert model.with_structured_output(City).invoke("Where?") == City(name="Paris", country="France")
    assert _choices(server) == ["required", {"type": "function", "function": {"name": "City"}}]
    assert [t["function"]["name"] for t in server.requests[-1]["tools"]] == ["City"]
    # the form that worked is kept: the next request (a bound copy too) is sent that way at once
    reply = model.bind_tools([now, get_weather], tool_choice="get_weather").invoke("Weather?")
    assert reply.tool_calls[0]["args"] == {"city": "Paris"}
    assert _choices(server)[2:] == [OBJECT]
    assert [t["function"]["name"] for t in server.requests[-1]["tools"]] == ["get_weather"]


@pytest.mark.parametrize("how", ["invoke", "stream", "ainvoke", "astream", "streaming"])
def test_1_every_driver_falls_back_once_on_old_vllm(server: QueuedServer, how: str) -> None:
    server.answer = _old_vllm
    model = ChatOpenAI("llama", base_url=server.url, max_retries=0, streaming=how == "streaming")
    model._choice.remember("required")  # (the object form is the default: this checks the way back to it)
    bound = model.bind_tools([now, get_weather], tool_choice="get_weather")

    async def collect() -> Any:
        if how == "ainvoke":
            return await bound.ainvoke("Weather?")
        return merge_chunks([c async for c in bound.astream("Weather?")], as_chunk=False)

    if how in ("ainvoke", "astream"):
        reply = asyncio.run(collect())
    elif how == "stream":
        reply = merge_chunks(list(bound.stream("Weather?")), as_chunk=False)
    else:
        reply = bound.invoke("Weather?")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert _choices(server) == ["required", OBJECT]
    assert model._choice.get() == "object"


def test_1_old_vllm_gets_the_object_form_in_one_request(server: QueuedServer) -> None:
    server.answer = _old_vllm
    model = ChatOpenAI("llama", base_url=server.url, max_retries=0)
    assert model.bind_tools([now, get_weather], tool_choice="get_weather").invoke("Weather?").tool_calls[0]["args"] \
        == {"city": "Paris"}
    assert _choices(server) == [OBJECT]
    assert [t["function"]["name"] for t in server.requests[-1]["tools"]] == ["get_weather"]


def test_1_lm_studio_learns_required_from_its_refusal_of_the_object_form(server: QueuedServer) -> None:
    server.answer = _lm_studio
    model = ChatOpenAI("qwen", base_url=server.url, max_retries=0)
    bound = model.bind_tools([now, get_weather], tool_choice="get_weather")
    assert bound.invoke("Weather?").tool_calls[0]["name"] == "get_weather"
    assert _choices(server) == [OBJECT, "required"]
    assert model._choice.get() == "required"
    assert bound.invoke("Weather?").tool_calls[0]["name"] == "get_weather"
    assert _choices(server)[2:] == ["required"]


def test_1_a_server_refusing_both_forms_gets_one_error_naming_the_way_out(server: QueuedServer) -> None:
    server.answer = lambda body, n: (400, {"error": {"message": "tool_choice is not supported", "type": "invalid"}})
    bound = ChatOpenAI("m", base_url=server.url, max_retries=0).bind_tools([get_weather], tool_choice="get_weather")
    with pytest.raises(ProviderError) as caught:
        bound.invoke("Weather?")
    assert caught.value.hint == BOTH_REFUSED
    assert _choices(server) == [OBJECT, "required"]


def test_1_other_errors_and_other_choices_are_not_asked_again(server: QueuedServer) -> None:
    server.answer = lambda body, n: (400, {"error": {"message": "Context too long", "type": "invalid"}})
    model = ChatOpenAI("m", base_url=server.url, max_retries=0)
    with pytest.raises(ProviderError):
        model.bind_tools([get_weather], tool_choice="get_weather").invoke("Weather?")
    server.answer = _old_vllm
    other = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}}
    with pytest.raises(ProviderError):  # ("required" with one tool is asked again with it named: review 310 #4)
        model.bind_tools([get_weather, other], tool_choice="required").invoke("Weather?")
    assert _choices(server) == [OBJECT, "required"]
    assert model._choice.get() == "object"


def test_1_copies_share_the_learned_form_and_deep_copies_keep_their_own() -> None:
    model = ChatOpenAI("m", base_url="http://127.0.0.1:9/v1")
    bound = model.bind_tools([get_weather], tool_choice="get_weather")
    bound._choice.remember("object")
    assert model._choice.get() == "object"
    other = copy.deepcopy(model)
    other._choice.remember("required")
    assert (model._choice.get(), other._choice.get()) == ("object", "required")


# ---------------------------------------------------------------- #2 a real TGI < 3.2 stream


def _tgi_events(generated: str) -> list[dict[str, Any]]:
    """TGI 2.x/3.0's stream: each token of the grammar's output as the arguments of one lone, nameless tool_calls
    object (router/src/server.rs, router/src/lib.rs ChatCompletionChunk::new)."""
    tokens = [generated[i:i + 4] for i in range(0, len(generated), 4)]
    return [{"id": "", "object": "chat.completion.chunk", "created": 1, "model": "tgi",
             "choices": [{"index": 0, "logprobs": None, "finish_reason": "eos_token" if i == len(tokens) - 1 else None,
                          "delta": {"role": "assistant", "tool_calls": {
                              "index": 0, "id": "", "type": "function",
                              "function": {"name": None, "arguments": token}}}}]}
            for i, token in enumerate(tokens)]


def test_2_a_tgi_stream_gives_its_call_as_invoke_does(server: QueuedServer) -> None:
    server.queue.append(_tgi_events('{"function": {"_name": "get_weather", "city": "Oslo"}}'))
    model = ChatOpenAI("tgi", base_url=server.url, max_retries=0).bind_tools([get_weather])
    reply = merge_chunks(list(model.stream("Weather in Oslo?")), as_chunk=False)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Oslo"})]
    assert reply.invalid_tool_calls == [] and reply.content == ""


def test_2_a_tgi_no_tool_stream_is_text() -> None:
    state = codec.StreamState(compatible=True)
    chunks = [state.feed(e) for e in _tgi_events('{"function": {"_name": "no_tool", "content": "Hello there."}}')]
    reply = merge_chunks([c for c in chunks if c is not None] + [state.finish()], as_chunk=False)
    assert reply.content == "Hello there."
    assert reply.tool_calls == [] and reply.invalid_tool_calls == []


def test_2_other_nameless_streams_keep_their_reading() -> None:
    # OpenAI's own pieces (a named first piece, nameless ones after it) are passed on at once, one call
    state = codec.StreamState(compatible=True)
    head = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    pieces = [{"index": 0, "id": "call_9", "function": {"name": "get_weather", "arguments": '{"city": '}},
              {"index": 0, "function": {"arguments": '"Oslo"}'}}]
    chunks = [state.feed({**head, "choices": [{"index": 0, "delta": {"tool_calls": [p]}, "finish_reason": None}]})
              for p in pieces]
    assert all(c is not None and c.tool_call_chunks for c in chunks)
    chunks.append(state.feed({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    reply = merge_chunks([c for c in chunks if c is not None] + [state.finish()], as_chunk=False)
    assert [(c["name"], c["args"], c["id"]) for c in reply.tool_calls] == [("get_weather", {"city": "Oslo"}, "call_9")]
    # text that is not TGI's shape stays a call without a name (an invalid call)
    state = codec.StreamState(compatible=True)
    first = state.feed({**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {
        "arguments": '{"city": "Oslo"}'}}]}, "finish_reason": "tool_calls"}]})
    reply = merge_chunks([c for c in (first, state.finish()) if c is not None], as_chunk=False)
    assert reply.tool_calls == [] and len(reply.invalid_tool_calls) == 1


# ---------------------------------------------------------------- #3 Responses preambles between the calls


def _msg(i: int, text: str) -> dict[str, Any]:
    return {"type": "message", "id": f"msg_{i}", "status": "completed", "role": "assistant", "phase": "commentary",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _fc(i: int, city: str) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": "get_weather",
            "arguments": json.dumps({"city": city}), "status": "completed"}


def _label(item: dict[str, Any]) -> str:
    if item.get("type") in ("function_call", "function_call_output"):
        return f"{item['type']}:{item['call_id']}"
    return f"{item.get('role')}[{item.get('phase')}]:{item['content']}"


def test_3_preambles_go_back_between_the_calls_without_reasoning_items() -> None:
    output = [_msg(1, "Checking Oslo first."), _fc(1, "Oslo"), _msg(2, "Now Bergen."), _fc(2, "Bergen")]
    ai = codec.parse_responses_response({"id": "resp_1", "object": "response", "model": "gpt-5.4",
                                         "status": "completed", "output": output,
                                         "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}})
    items = codec.lower_responses_messages([HumanMessage("Weather?"), ai, ToolMessage("Sunny", tool_call_id="call_1"),
                                            ToolMessage("Rain", tool_call_id="call_2")])
    assert [_label(i) for i in items[1:]] == [
        "assistant[commentary]:Checking Oslo first.", "function_call:call_1", "assistant[commentary]:Now Bergen.",
        "function_call:call_2", "function_call_output:call_1", "function_call_output:call_2"]
