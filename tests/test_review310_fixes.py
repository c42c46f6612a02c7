"""Review 310, OpenAI-compatible servers' quirks:

* #1: LiteLLM's proxy writes an error's ``code`` as digits in a string (``"401"``) and its ``param`` as ``"None"``:
  the code is read as the status (a client error is not retried, and gets its hint), and ``"None"``/``"null"``/``""``
  name no field.
* #2: ``ollama:`` honours ``OLLAMA_HOST`` (read as ollama-python's ``_parse_host`` reads it, ``/v1`` added), an
  explicit ``base_url=`` still wins, ``ollama:<model>@<url>`` is read as ``openai-compatible:`` reads it, and a refused
  connection names ``OLLAMA_HOST``.
* #3: an assistant turn with neither text nor calls is sent to a compatible server with a one-space content, which
  mistral_common's validator takes (it refuses ``""``), in the place the role order and a chat template's
  alternation need; OpenAI itself keeps ``""``.
* #4: a compatible server that refuses ``tool_choice="required"`` (vLLM before 0.8.3) is asked again once with the one
  bound tool named; with several tools the error says what to do.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from typing import Any

import pytest

pytest.importorskip("openai")

from providers.scripted_http import Answer, ScriptedServer
from toolwire.errors import ProviderError, UserError
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models import ChatOpenAI, init_chat_model
from toolwire.models._status_hints import named_field
from toolwire.models.lowering._stream_errors import error_status
from toolwire.models.lowering.openai import lower_messages

KEY = "sk-litellm-virtual-0123456789"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _litellm(code: Any, message: str, kind: str = "None") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": "None", "code": code}}


def _completion(text: str | None = None, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}]}


def _call(name: str, arguments: str) -> dict[str, Any]:
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}


def _model(url: str, **kwargs: Any) -> ChatOpenAI:
    kwargs.setdefault("max_retries", 2)
    return ChatOpenAI("gpt-4o", base_url=url + "/v1", api_key=KEY, retry_backoff=0.001, **kwargs)


# --------------------------------------------------------------------------- #1: LiteLLM's string codes and params

def test_a_code_in_digits_is_the_status_it_names() -> None:
    assert error_status("auth_error", "401") == 401
    assert error_status("None", " 400 ") == 400
    assert error_status("None", "503") == 503
    assert error_status("None", "200") is None and error_status("None", "4010") is None
    assert error_status("None", "None") is None


@pytest.mark.parametrize("param", ["None", "null", "", "  ", "NULL"])
def test_a_param_of_none_names_no_field(param: str) -> None:
    assert named_field("Bad request.", param) == "Bad request."
    assert named_field("Bad request.", "max_tokens") == "Bad request. (field: max_tokens)"


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_litellm_stream_error_with_a_string_code_is_that_client_error(asynchronous: bool) -> None:
    auth = [_chunk({"role": "assistant", "content": ""}),
            _litellm("401", "litellm.AuthenticationError: Incorrect API key provided.", "auth_error")]
    window = [_chunk({"role": "assistant", "content": ""}),
              _litellm("400", "litellm.ContextWindowExceededError: This model's maximum context length is 8192 "
                              "tokens.")]
    for events, status, hint in ((auth, 401, "API key"), (window, 400, "context window")):
        with ScriptedServer() as server:
            server.push(*[Answer(events=events) for _ in range(3)])
            model = _model(server.url, compatible=False)
            with pytest.raises(ProviderError) as caught:
                if asynchronous:
                    async def read(model: ChatOpenAI = model) -> None:
                        async for _ in model.astream("hi"):
                            pass
                    asyncio.run(read())
                else:
                    for _ in model.stream("hi"):
                        pass
            error = caught.value
            assert error.status == status and error.retryable is False and len(server.requests) == 1
            assert hint in (error.hint or "") and "(field: None)" not in str(error)


def test_a_litellm_http_error_shows_no_field_none() -> None:
    body = _litellm("400", "/chat/completions: Invalid model name passed in model=gpt-5-mini.")
    with ScriptedServer() as server:
        server.push(Answer(status=400, body=body))
        with pytest.raises(ProviderError) as caught:
            _model(server.url, compatible=False, max_retries=0).invoke("hi")
    assert "field: None" not in str(caught.value) and "says which field" not in (caught.value.hint or "")


# --------------------------------------------------------------------------- #2: ollama: and OLLAMA_HOST

@pytest.mark.parametrize(("host", "url"), [
    ("127.0.0.1:5555", "http://127.0.0.1:5555/v1"),
    ("example.com", "http://example.com:11434/v1"),
    (":56789", "http://127.0.0.1:56789/v1"),
    ("0.0.0.0", "http://0.0.0.0:11434/v1"),
    ("https://example.com", "https://example.com:443/v1"),
    ("http://example.com", "http://example.com:80/v1"),
    ("example.com:56789/path/", "http://example.com:56789/path/v1"),
    ("[::1]:56789", "http://[::1]:56789/v1"),
    ("  ", "http://localhost:11434/v1"),
])
def test_ollama_reads_ollama_host_as_the_ollama_client_does(monkeypatch: pytest.MonkeyPatch, host: str,
                                                             url: str) -> None:
    monkeypatch.setenv("OLLAMA_HOST", host)
    model: Any = init_chat_model("ollama:llama3.1")
    assert (model.model, model.base_url) == ("llama3.1", url)


def test_ollama_base_url_and_at_url_win_over_ollama_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "elsewhere:1")
    model: Any = init_chat_model("ollama:llama3.1", base_url="http://box:11434/v1")
    assert model.base_url == "http://box:11434/v1"
    model = init_chat_model("ollama:qwen2.5:7b@http://127.0.0.1:9/v1")
    assert (model.model, model.base_url) == ("qwen2.5:7b", "http://127.0.0.1:9/v1")
    with pytest.raises(UserError, match="once"):
        init_chat_model("ollama:qwen2.5:7b@http://127.0.0.1:9/v1", base_url="http://box:11434/v1")
    with pytest.raises(UserError, match="Ollama model"):
        init_chat_model("ollama:@http://127.0.0.1:9/v1")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("from_env", [False, True])
def test_an_unreachable_ollama_names_ollama_host(monkeypatch: pytest.MonkeyPatch, from_env: bool) -> None:
    port = _closed_port()
    if from_env:
        monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{port}")
    else:
        monkeypatch.delenv("OLLAMA_HOST", raising=False)
    model: Any = init_chat_model("ollama:llama3.1" if from_env else f"ollama:llama3.1@http://127.0.0.1:{port}/v1",
                                 max_retries=0)
    with pytest.raises(ProviderError) as caught:
        model.invoke("hi")
    hint = caught.value.hint or ""
    assert f"127.0.0.1:{port}" in hint
    if from_env:
        assert "from OLLAMA_HOST" in hint and "ollama:<model>@http" in hint
    else:  # (a model given its URL reads no OLLAMA_HOST: review 318 #3)
        assert "OLLAMA_HOST" not in hint and "the URL the model name gives" in hint
    plain = ChatOpenAI("m", base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
    with pytest.raises(ProviderError) as caught:
        plain.invoke("hi")
    assert "OLLAMA_HOST" not in (caught.value.hint or "")


# --------------------------------------------------------------------------- #3: an empty assistant turn

def _mistral_common(messages: list[dict[str, Any]]) -> None:
    """mistral_common's ``MistralRequestValidator`` rules (serving mode) that concern roles and empty turns."""
    after = {"system": {"user", "assistant", "system"}, "user": {"assistant", "system", "user"},
             "assistant": {"assistant", "user", "tool"}, "tool": {"assistant", "tool"}}
    for before, message in itertools.pairwise(messages):
        assert message["role"] in after[before["role"]], f"Unexpected role {message['role']} after {before['role']}"
    for message in messages:
        if message["role"] == "assistant":
            assert message.get("content") or message.get("tool_calls"), "Assistant message must have either ..."
    assert messages[-1]["role"] in ("user", "tool")


def _alternates(messages: list[dict[str, Any]]) -> None:
    """A Mistral Hugging Face chat template's check: user and assistant turns (tool turns and turns with calls
    left out) alternate."""
    roles = [m["role"] for m in messages if m["role"] in ("user", "assistant") and not m.get("tool_calls")]
    assert all(role == ("user" if n % 2 == 0 else "assistant") for n, role in enumerate(roles)), roles


CALL = {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1", "type": "tool_call"}


@pytest.mark.parametrize("conversation", [
    [HumanMessage("hi"), AIMessage(""), HumanMessage("hello?")],
    [HumanMessage("hi"), AIMessage("", tool_calls=[CALL]), ToolMessage("sunny", tool_call_id="call_1"), AIMessage(""),
     HumanMessage("hello?")],
    [HumanMessage("hi"), AIMessage([{"type": "reasoning", "reasoning": "hmm"}]), HumanMessage("hello?")],
])
def test_an_empty_turn_passes_mistral_commons_rules_and_keeps_alternation(conversation: list[Any]) -> None:
    sent = lower_messages(conversation, compatible=True)
    _mistral_common(sent)
    _alternates(sent)
    assert [m["role"] for m in sent].count("assistant") == sum(isinstance(m, AIMessage) for m in conversation)
    openai = lower_messages(conversation, compatible=False)  # OpenAI's own API takes "" (kept as it was)
    assert all(m["content"] == "" for m in openai if m["role"] == "assistant" and not m.get("tool_calls"))


def test_a_chat_goes_on_after_an_empty_answer_on_a_mistral_server() -> None:
    with ScriptedServer() as server:
        model = ChatOpenAI("mistral-small", base_url=server.url + "/v1", api_key="x", max_retries=0)
        server.push(Answer(body=_completion("")), Answer(body=_completion("hello")))
        first = model.invoke([HumanMessage("hi")])
        assert model.invoke([HumanMessage("hi"), first, HumanMessage("hello?")]).text == "hello"
    _mistral_common(server.requests[-1]["messages"])
    assert server.requests[-1]["messages"][1] == {"role": "assistant", "content": " "}


# --------------------------------------------------------------------------- #4: "required" refused

REFUSED = {"object": "error", "message": 'tool_choice = "required" is not supported!', "type": "BadRequestError",
           "param": None, "code": 400}
WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Get weather.",
                                            "parameters": {"type": "object", "properties": {"city": {"type":
                                                                                                      "string"}}}}}
TIME = {"type": "function", "function": {"name": "get_time", "description": "Get time.",
                                         "parameters": {"type": "object", "properties": {}}}}


@pytest.mark.parametrize("mode", ["invoke", "stream", "ainvoke", "astream"])
def test_required_refused_with_one_tool_is_asked_again_with_that_tool_named(mode: str) -> None:
    call = _call("get_weather", '{"city": "Oslo"}')
    with ScriptedServer() as server:
        model = ChatOpenAI("Qwen/Qwen2.5-7B-Instruct", base_url=server.url + "/v1", api_key="x", max_retries=0)
        bound = model.bind_tools([WEATHER], tool_choice="required")
        if mode.endswith("stream"):
            events = [_chunk({"role": "assistant", "tool_calls": [{"index": 0, **call}]}), _chunk({}, "tool_calls")]
            server.push(Answer(status=400, body=REFUSED), Answer(events=events), Answer(events=events))
        else:
            server.push(Answer(status=400, body=REFUSED), Answer(body=_completion(None, [call])),
                        Answer(body=_completion(None, [call])))

        def run() -> Any:
            if mode == "invoke":
                return bound.invoke("Weather in Oslo?")
            if mode == "stream":
                return [c for c in bound.stream("Weather in Oslo?")]
            if mode == "ainvoke":
                return asyncio.run(bound.ainvoke("Weather in Oslo?"))

            async def read() -> list[Any]:
                return [c async for c in bound.astream("Weather in Oslo?")]
            return asyncio.run(read())

        reply = run()
        calls = reply.tool_calls if isinstance(reply, AIMessage) else [c for ch in reply for c in ch.tool_call_chunks]
        assert calls and calls[0]["name"] == "get_weather"
        run()  # the next request is sent in the form that worked, at once
    named = {"type": "function", "function": {"name": "get_weather"}}
    assert [r.get("tool_choice") for r in server.requests] == ["required", named, named]


def test_required_refused_with_several_tools_says_what_to_do() -> None:
    with ScriptedServer() as server:
        model = ChatOpenAI("Qwen/Qwen2.5-7B-Instruct", base_url=server.url + "/v1", api_key="x", max_retries=0)
        server.push(Answer(status=400, body=REFUSED))
        with pytest.raises(ProviderError) as caught:
            model.bind_tools([WEATHER, TIME], tool_choice="required").invoke("hi")
    hint = caught.value.hint or ""
    assert 'tool_choice="auto"' in hint and "0.8.3" in hint and "name" in hint and caught.value.retryable is False
    assert len(server.requests) == 1


def test_required_refused_then_named_refused_too_says_what_to_do() -> None:
    with ScriptedServer() as server:
        model = ChatOpenAI("Qwen/Qwen2.5-7B-Instruct", base_url=server.url + "/v1", api_key="x", max_retries=0)
        server.push(Answer(status=400, body=REFUSED),
                    Answer(status=400, body={**REFUSED, "message": "tool_choice of type object is not supported"}))
        with pytest.raises(ProviderError) as caught:
            model.bind_tools([WEATHER], tool_choice="required").invoke("hi")
    hint = caught.value.hint or ""
    assert 'tool_choice="auto"' in hint and len(server.requests) == 2
    assert "its one tool named" in hint and "name the tool" not in hint  # (what was just refused: review 318 #1)


@pytest.mark.parametrize("host", ["[::1:11434", "http://[fe80::1"])
def test_an_ollama_host_with_an_unbalanced_bracket_is_one_sentence(monkeypatch: pytest.MonkeyPatch,
                                                                   host: str) -> None:
    monkeypatch.setenv("OLLAMA_HOST", host)  # (was a bare ValueError: review 318 #2)
    with pytest.raises(UserError, match=r"OLLAMA_HOST=.* write it as host:port"):
        init_chat_model("ollama:llama3.1")
