"""Review 214: OpenAI-compatible servers' quirks, replayed on a local HTTP server (tests/_queued_http.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests._compatible_tools import City, get_weather, now
from tests._queued_http import QueuedServer, serving

from toolwire.messages import HumanMessage
from toolwire.models import ChatOpenAI
from toolwire.models.base import ChatRequest
from toolwire.models.lowering.openai import lower_request


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("/v1") as found:
        yield found


def _completion(content: Any = None, calls: Any = None, finish: str = "tool_calls", usage: Any = None) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls is not None:
        message["tool_calls"] = calls
    reply: dict[str, Any] = {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
                             "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    if usage is not None:
        reply["usage"] = usage
    return reply


def _call(name: str, args: str, id: str = "call_1") -> dict:
    return {"id": id, "type": "function", "function": {"name": name, "arguments": args}}


# ---------------------------------------------------------------- #1 named tool_choice on compatible servers

def _lm_studio(body: Any, n: int) -> Any:
    """LM Studio: a string tool_choice is served, an object one refused with its real 400."""
    if isinstance(body.get("tool_choice"), dict):
        return (400, {"error": "Invalid tool_choice type: 'object'. Supported string values: none, auto, required"})
    name = body["tools"][0]["function"]["name"]
    return _completion(None, [_call(name, '{"name": "Oslo", "country": "Norway"}' if name == "City"
                                    else '{"city": "Oslo"}')])


def test_1_structured_output_works_on_a_server_that_takes_only_string_choices(server: QueuedServer) -> None:
    server.answer = _lm_studio
    model = ChatOpenAI("qwen", base_url=server.url, max_retries=0)
    assert model.with_structured_output(City).invoke("Where?") == City(name="Oslo", country="Norway")
    body = server.requests[-1]
    assert body["tool_choice"] == "required"
    assert [t["function"]["name"] for t in body["tools"]] == ["City"]


def test_1_a_named_choice_reaches_a_compatible_server_as_required_with_that_tool_only(server: QueuedServer) -> None:
    server.answer = _lm_studio
    model = ChatOpenAI("qwen", base_url=server.url, max_retries=0).bind_tools([now, get_weather],
                                                                             tool_choice="get_weather")
    reply = model.invoke("Weather in Oslo?")
    assert reply.tool_calls[0]["name"] == "get_weather"
    body = server.requests[-1]
    assert body["tool_choice"] == "required"
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather"]


def test_1_openai_keeps_the_object_form_and_every_tool() -> None:
    request = ChatRequest(messages=[HumanMessage("hi")], tools=[now, get_weather], tool_choice="get_weather")
    body = lower_request(request, "gpt-4.1")
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert len(body["tools"]) == 2
    compatible = lower_request(request, "m", compatible=True)
    assert compatible["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert [t["function"]["name"] for t in compatible["tools"]] == ["get_weather"]
    studio = lower_request(request, "m", compatible=True, named_form="required")  # (LM Studio's, once learned)
    assert studio["tool_choice"] == "required"
    assert [t["function"]["name"] for t in studio["tools"]] == ["get_weather"]
    for mode in ("auto", "none", "required"):
        same = lower_request(ChatRequest(messages=[HumanMessage("hi")], tools=[now, get_weather], tool_choice=mode),
                             "m", compatible=True)
        assert same["tool_choice"] == mode and len(same["tools"]) == 2


# ---------------------------------------------------------------- #2 text calls cut at max_tokens

_CUT_TEXTS = {
    "pythonic": '[get_weather(city="Os',
    "python_tag": '<|python_tag|>get_weather(city="Os',
    "function_tag": '<function=get_weather>{"city": "Os',
    "qwen3_coder_xml": '<tool_call>\n<function=get_weather>\n<parameter=city>\nOs',
}
_USED_ALL = {"prompt_tokens": 5, "completion_tokens": 20, "total_tokens": 25}


def _chunk(delta: Any = None, finish: Any = None, usage: Any = None, choices: bool = True) -> dict:
    found: dict[str, Any] = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                             "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}] if choices
                             else []}
    if usage is not None:
        found["usage"] = usage
    return found


@pytest.mark.parametrize("finish", ["length", "stop"])
@pytest.mark.parametrize("form", sorted(_CUT_TEXTS))
@pytest.mark.parametrize("streamed", [False, True])
def test_2_a_text_call_cut_at_max_tokens_says_to_raise_max_tokens(server: QueuedServer, form: str, finish: str,
                                                                   streamed: bool) -> None:
    from toolwire.messages import merge_chunks
    from toolwire.models.lowering._calls import CUT_OFF
    text = _CUT_TEXTS[form]
    if streamed:
        server.queue.append([_chunk({"content": text}), _chunk(finish=finish), _chunk(usage=_USED_ALL, choices=False)])
    else:
        server.queue.append(_completion(text, None, finish=finish, usage=_USED_ALL))
    model = ChatOpenAI("m", base_url=server.url, max_retries=0, max_tokens=20).bind_tools([get_weather])
    reply = merge_chunks(list(model.stream("Weather?")), as_chunk=False) if streamed else model.invoke("Weather?")
    assert [bad["error"] for bad in reply.invalid_tool_calls] == [CUT_OFF]
    assert reply.response_metadata["finish_reason"] == "length"


def test_2_a_text_call_cut_short_in_a_reply_under_the_limit_keeps_its_own_error(server: QueuedServer) -> None:
    server.queue.append(_completion(_CUT_TEXTS["pythonic"], None, finish="stop",
                                    usage={"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}))
    model = ChatOpenAI("m", base_url=server.url, max_retries=0, max_tokens=20).bind_tools([get_weather])
    reply = model.invoke("Weather?")
    assert "closing parenthesis" in reply.invalid_tool_calls[0]["error"]
    assert reply.response_metadata["finish_reason"] == "stop"


# ---------------------------------------------------------------- #3 TGI < 3.2: tool_calls as one object

_TGI_CALL = {"index": 0, "id": "", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}


def test_3_a_stream_whose_tool_calls_is_one_object_gives_that_call(server: QueuedServer) -> None:
    from toolwire.messages import merge_chunks
    server.queue.append([_chunk({"role": "assistant", "tool_calls": _TGI_CALL}), _chunk(finish="tool_calls")])
    model = ChatOpenAI("tgi", base_url=server.url, max_retries=0).bind_tools([get_weather])
    reply = merge_chunks(list(model.stream("Weather?")), as_chunk=False)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Oslo"})]
    assert not reply.invalid_tool_calls


def test_3_a_reply_whose_tool_calls_is_one_object_gives_that_call(server: QueuedServer) -> None:
    server.queue.append(_completion(None, _TGI_CALL))
    model = ChatOpenAI("tgi", base_url=server.url, max_retries=0).bind_tools([get_weather])
    reply = model.invoke("Weather?")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Oslo"})]


# ---------------------------------------------------------------- #4 a structured-output stream cut mid-call

_HALF = [_chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                 "function": {"name": "City", "arguments": '{"name": "Paris", "coun'}}]})]
_PARIS = '{"name": "Paris", "country": "France"}'
_WHOLE = [_chunk({"tool_calls": [{"index": 0, "id": "c2", "type": "function",
                                  "function": {"name": "City", "arguments": _PARIS}}]}),
          _chunk(finish="tool_calls")]


@pytest.mark.parametrize("mode", ["stream", "astream", "invoke_streaming"])
def test_4_a_structured_stream_that_ended_within_the_call_is_tried_again(server: QueuedServer, mode: str) -> None:
    import asyncio
    server.queue.extend([_HALF, _WHOLE])
    model = ChatOpenAI("m", base_url=server.url, max_retries=2, retry_backoff=0,
                       streaming=mode == "invoke_streaming")
    structured = model.with_structured_output(City)

    async def collect() -> list[Any]:
        return [value async for value in structured.astream("Where?")]

    values = (asyncio.run(collect()) if mode == "astream" else [structured.invoke("Where?")]
              if mode == "invoke_streaming" else list(structured.stream("Where?")))
    assert values == [City(name="Paris", country="France")]
    assert len(server.requests) == 2


def test_4_when_the_tries_run_out_the_error_speaks_to_the_user(server: QueuedServer) -> None:
    from toolwire.errors import ToolCallParseError
    server.answer = lambda body, n: _HALF
    model = ChatOpenAI("m", base_url=server.url, max_retries=1, retry_backoff=0)
    with pytest.raises(ToolCallParseError) as caught:
        list(model.with_structured_output(City).stream("Where?"))
    assert len(server.requests) == 2
    message = str(caught.value)
    assert "stream ended early" in message and "try again" in message
    assert "send the call again" not in message


# ---------------------------------------------------------------- #5 hints of listed servers' errors

def _failure(server: QueuedServer, status: int, body: Any, retries: int = 0) -> Any:
    from toolwire.errors import ProviderError
    server.answer = lambda request, n: (status, body)
    model = ChatOpenAI("m", base_url=server.url, max_retries=retries, retry_backoff=0).bind_tools([get_weather])
    with pytest.raises(ProviderError) as caught:
        model.invoke("Weather?")
    return caught.value


def test_5_llama_server_loading_its_model_is_said_to_be_temporary(server: QueuedServer) -> None:
    error = _failure(server, 503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}},
                     retries=1)
    assert len(server.requests) == 2 and error.retryable
    assert "still loading its model" in str(error) and "try again" in str(error)
    assert "fails the same way each time" not in str(error)


def test_5_ollama_refusing_tools_names_the_model_s_lack_of_tool_support(server: QueuedServer) -> None:
    error = _failure(server, 400, {"error": {"message": "registry.ollama.ai/library/gemma:2b does not support tools",
                                             "type": "api_error", "param": None, "code": None}})
    assert not error.retryable
    assert "does not support tool calling" in str(error) and "without tools" in str(error)
    assert "says which field" not in str(error)


@pytest.mark.parametrize("said", [
    "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and "
    "500 `max_new_tokens`",
    "Input validation error: `inputs` must have less than 4096 tokens. Given: 5000"])
def test_5_tgi_context_overflow_gets_the_context_window_hint(server: QueuedServer, said: str) -> None:
    error = _failure(server, 422, {"error": said, "error_type": "validation"})
    assert "longer than the model's context window" in str(error)
