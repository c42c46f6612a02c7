"""Review 66, the faults found by driving the cloud providers against fake servers: the codec and option checks
that need no server (the wire-level tests are in ``tests/providers/test_review66_wire.py``). Each test failed on
the code before its fix.

F1. Past tool calls go back with valid JSON ``arguments`` (vLLM and SGLang ``json.loads`` them:
    vllm-project/vllm#43995).
F3. OpenAI's data-residency hosts (``eu.api.openai.com``...) keep OpenAI's rules; ``compatible=`` says it for any host.
F4. Gemini's ``retryDelay`` in the error body is read; OpenAI's ``insufficient_quota`` is not retried.
F6. Parse errors show the called tool's own argument shape; a call cut at the token limit says so, alike for every
    provider.
F9. ``init_chat_model``: the base URL given once, LangChain's ``google_genai`` and ``ollama``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("google.genai")

from toolwire import AIMessage, HumanMessage, ToolMessage, UserError, tool
from toolwire.messages import tool_call
from toolwire.models import _retry as retry_module
from toolwire.models import init_chat_model
from toolwire.models.lowering._calls import CUT_OFF, arguments_json, native_call
from toolwire.models.lowering._openai_replies import _failure
from toolwire.models.lowering.anthropic import StreamState as AnthropicStreamState
from toolwire.models.lowering.anthropic import parse_response as parse_anthropic
from toolwire.models.lowering.openai import lower_messages, lower_responses_messages, parse_response
from toolwire.models.openai import ChatOpenAI, is_openai_url

KEY = "sk-review66-0123456789abcdef"


@pytest.fixture(autouse=True)
def no_provider_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key or base URL from the environment reaches these tests."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT",
                 "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@tool
def write_file(path: str, text: str) -> str:
    """Write a text file."""
    return f"wrote {len(text)} characters to {path}"


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"sunny in {city}"


def invalid(args: str, name: str = "write_file", call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "error": "bad", "type": "invalid_tool_call"}


def completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}]}


CUT = '{"path": "a.txt", "text": "Lorem ipsum dolor sit'

# --------------------------------------------------------------------------- F1: past calls as valid JSON

@pytest.mark.parametrize(("raw", "sent"), [
    ('{"path": "a.txt", "text": "He said "hi""}', {"path": "a.txt", "text": "He said "}),  # a quote unescaped
    ('{"path": "a.txt", "text": "Lorem ipsum', {"path": "a.txt", "text": "Lorem ipsum"}),  # cut off
    ('{"path": "a.txt" "text": "hi"}', {"path": "a.txt"}),  # a comma missing
    ('["a.txt", "hi"]', {}),  # not an object
    ("write the file", {}),  # no JSON
    ("{'path': 'a.txt'}", {"path": "a.txt"}),  # a Python dict
    ('{"name": "write_file", "arguments": {"path": "a.txt", "text": "Lor', {"path": "a.txt", "text": "Lor"}),
    ('{"x": NaN}', {}),  # Python's json reads NaN, JSON has none
    ("", {}),
])
def test_a_past_invalid_call_goes_back_as_a_json_object(raw, sent):
    text = arguments_json(invalid(raw))  # type: ignore[arg-type]
    assert json.loads(text, parse_constant=lambda c: pytest.fail(c)) == sent


def test_a_past_call_whose_text_is_an_object_goes_back_as_it_was():
    raw = '{"city":  "Paris"}'  # (an invalid call for another reason: no name, say)
    assert arguments_json(invalid(raw, name=""))  == raw  # type: ignore[arg-type]


def test_responses_api_sends_a_past_invalid_call_as_json_too():
    items = lower_responses_messages([HumanMessage("q"), AIMessage("", invalid_tool_calls=[invalid('{"a": ')]),
                                      ToolMessage("Error", tool_call_id="c1")])
    assert items[1]["type"] == "function_call" and json.loads(items[1]["arguments"]) == {}


# --------------------------------------------------------------------------- F3: OpenAI's regional hosts

@pytest.mark.parametrize(("url", "openai"), [
    ("https://api.openai.com/v1", True), ("https://eu.api.openai.com/v1", True),
    ("https://us.api.openai.com/v1/", True), ("https://JP.API.OPENAI.COM:443/v1", True), (None, True),
    ("https://api.openai.com.example.net/v1", False), ("http://eu.api.openai.com/v1", False),
    ("https://evilapi.openai.com/v1", False), ("http://localhost:8000/v1", False),
])
def test_openai_hosts_are_read_from_the_url(url, openai):
    assert is_openai_url(url) is openai


def test_a_data_residency_host_keeps_openais_rules():
    with pytest.raises(UserError, match="needs an API key"):
        ChatOpenAI("gpt-5-mini", base_url="https://eu.api.openai.com/v1")
    model = ChatOpenAI("gpt-5-mini", base_url="https://eu.api.openai.com/v1", api_key=KEY, max_tokens=50)
    body = model.bind_tools([get_weather])._lower(model._request("hi", {}))
    assert body["max_completion_tokens"] == 50 and "max_tokens" not in body and not model.text_tool_calls


def test_compatible_says_which_rules_a_host_follows():
    gateway = ChatOpenAI("gpt-5-mini", base_url="https://llm-gateway.example.com/v1", api_key=KEY, compatible=False,
                         max_tokens=50)
    assert not gateway.text_tool_calls and "max_completion_tokens" in gateway._lower(gateway._request("hi", {}))
    local = ChatOpenAI("m", base_url="https://api.openai.com/v1", compatible=True)  # (a key is not needed then)
    assert local.text_tool_calls and "max_tokens" in local._lower(local._request("hi", {"max_tokens": 5}))
    with pytest.raises(UserError, match="compatible=True"):
        ChatOpenAI("m", compatible=True, api_key=KEY)
    with pytest.raises(UserError, match="True, False or None"):
        ChatOpenAI("m", base_url="http://h/v1", compatible="no")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- F4: retry delays and billing

def test_retry_delay_reads_durations_and_is_capped():
    error = type("E", (Exception,), {})()
    for delay, wanted in (("1.5s", 1.5), ("0.25s", 0.25), ({"seconds": 2, "nanos": 500_000_000}, 2.5),
                          ("soon", None)):
        error.details = {"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                                "retryDelay": delay}]}}
        assert retry_module.retry_after(error) == wanted
    assert retry_module.RetryPolicy().delay(1, 90.0) == 20.0


def test_insufficient_quota_in_a_stream_event_is_not_retried_either():
    error = _failure({"code": "insufficient_quota", "message": "You exceeded your current quota."})
    assert error.status == 429 and not error.retryable and "add credit" in str(error)
    assert _failure({"code": "rate_limit_exceeded", "message": "slow down"}).retryable


# --------------------------------------------------------------------------- F6: errors the model can act on

def test_a_parse_error_shows_the_called_tools_shape():
    shapes = {"write_file": write_file.parameters, "get_weather": get_weather.parameters}
    bad = native_call("write_file", '{"path": "a.txt" "text": "hi"}', "c1", shapes)
    assert '{"path": <text>, "text": <text>}' in bad["error"] and "Paris" not in bad["error"]  # type: ignore[typeddict-item]
    array = native_call("write_file", '["a.txt", "hi"]', "c2", shapes)
    assert '{"path": <text>, "text": <text>}' in array["error"]  # type: ignore[typeddict-item]


def test_anthropic_says_the_same_of_a_call_cut_at_max_tokens():
    block = {"type": "tool_use", "id": "t1", "name": "write_file", "input": {"path": "a.txt"}}
    reply = parse_anthropic({"id": "m", "type": "message", "role": "assistant", "model": "claude", "content": [block],
                             "stop_reason": "max_tokens", "usage": {"input_tokens": 1, "output_tokens": 1}})
    assert reply.invalid_tool_calls[0]["error"] == CUT_OFF
    state = AnthropicStreamState()
    for event in [{"type": "message_start", "message": {"id": "m", "model": "claude", "usage": {"input_tokens": 1}}},
                  {"type": "content_block_start", "index": 0, "content_block": {**block, "input": {}}},
                  {"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": '{"path": "a'}},
                  {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 1}}]:
        state.feed(event)
    assert state.finish().invalid_tool_calls[0]["error"] == CUT_OFF


def test_chat_length_cut_goes_back_as_json_with_its_error():
    reply = parse_response(completion({"content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": CUT}}]}, "length"))
    lowered = lower_messages([HumanMessage("q"), reply, ToolMessage("Error", tool_call_id="c1")])
    assert json.loads(lowered[1]["tool_calls"][0]["function"]["arguments"]) == {"path": "a.txt",
                                                                               "text": "Lorem ipsum dolor sit"}


# --------------------------------------------------------------------------- F9: init_chat_model

def test_init_chat_model_takes_the_url_once_and_langchains_provider_names(monkeypatch):
    with pytest.raises(UserError, match="once"):
        init_chat_model("openai-compatible:m@http://h:1/v1", base_url="http://other:2/v1")
    model: Any = init_chat_model("openai-compatible:m", base_url="http://h:1/v1")
    assert model.base_url == "http://h:1/v1" and model.model == "m"
    ollama: Any = init_chat_model("ollama:llama3.1:8b")
    assert (ollama.model, ollama.base_url, ollama.text_tool_calls) == ("llama3.1:8b", "http://localhost:11434/v1",
                                                                      True)
    assert init_chat_model("llama3.1", model_provider="ollama", base_url="http://box:11434/v1").base_url == (  # type: ignore[attr-defined]
        "http://box:11434/v1")
    monkeypatch.setenv("GOOGLE_API_KEY", "k" * 20)
    assert type(init_chat_model("google_genai:gemini-2.5-flash")).__name__ == "ChatGoogleGenAI"
    assert type(init_chat_model("gemini-2.5-flash", model_provider="google_genai")).__name__ == "ChatGoogleGenAI"
    with pytest.raises(UserError, match="google_genai, ollama"):
        init_chat_model("vllm:m")


# -- the Agent and replies cut at the output token limit (review 66, F6) ------------------------------------------


def _cut(message: AIMessage, reason: str) -> AIMessage:
    return message.copy(response_metadata={"finish_reason": reason})


@pytest.mark.parametrize("reason", ["length", "max_tokens", "MAX_TOKENS", "max_output_tokens"])
def test_an_answer_cut_at_the_token_limit_stops_with_stop_reason_length(reason):
    from toolwire import Agent
    from toolwire.testing import ScriptedChatModel

    @tool
    def get_time(tz: str = "UTC") -> str:
        """Get the current time in a time zone."""
        return f"12:00 {tz}"

    for text in ("", "It is twelve o'"):  # a reasoning model that spent its budget thinking; a cut answer
        result = Agent(ScriptedChatModel([_cut(AIMessage(text), reason)]), [get_time]).invoke("Time?")
        assert (result.stop_reason, result.output) == ("length", text)
    assert Agent(ScriptedChatModel([AIMessage("Noon.")]), [get_time]).invoke("Time?").stop_reason == "answer"


def test_max_steps_with_calls_cut_at_the_token_limit_says_to_raise_max_tokens():
    from toolwire import Agent, MaxStepsExceeded
    from toolwire.messages import invalid_tool_call
    from toolwire.testing import ScriptedChatModel

    @tool
    def write_file(path: str, text: str) -> str:
        """Write a file."""
        return "ok"

    cut = [_cut(AIMessage("", invalid_tool_calls=[invalid_tool_call("write_file", '{"path": "a.txt", "text": "He',
                                                                      f"c{i}", "cut off")]), "length")
           for i in range(2)]
    with pytest.raises(MaxStepsExceeded, match="raise max_tokens") as info:
        Agent(ScriptedChatModel(cut), [write_file], max_steps=2).invoke("Write it.")
    assert sum(isinstance(m, ToolMessage) for m in info.value.messages) == 2  # every call answered
    whole = [AIMessage("", tool_calls=[tool_call("write_file", {"path": "a", "text": "b"}, f"w{i}")])
             for i in range(2)]
    with pytest.raises(MaxStepsExceeded, match="raise max_steps"):
        Agent(ScriptedChatModel(whole), [write_file], max_steps=2).invoke("Write it.")
