"""Review 177 #1, #3, #6: the errors of OpenAI-compatible servers started or reached the wrong way.

#1: vLLM without a tool parser (400) and llama.cpp's server without ``--jinja`` (500) refuse every request with tools;
the hint names the flags to start them with, and the llama.cpp 500 is not retried. #3: LM Studio's HTTP 200
``{"error": "Unexpected endpoint or method. ..."}`` (a ``base_url`` without ``/v1``) is not retried and gets the
``base_url`` hint a 404 gets. #6: an error event in a stream and a 200 error body from a server of the user's own get
the hint its HTTP status would get (its log), not a hosted API's "try again later".
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from providers.scripted_http import Answer, ScriptedServer
from toolwire import tool
from toolwire.errors import ProviderError
from toolwire.models import ChatOpenAI


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"Sunny in {city}"


_NO_PARSER = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
VLLM = Answer(400, {"object": "error", "type": "BadRequestError", "param": None, "code": 400, "message": _NO_PARSER})
LLAMA = Answer(500, {"error": {"code": 500, "type": "server_error", "message": "tools param requires --jinja flag"}})


def _failure(server: ScriptedServer, mode: str, base_url: str | None = None, **kwargs: Any) -> ProviderError:
    model = ChatOpenAI(model="m", base_url=base_url or server.url + "/v1", retry_backoff=0.001, **kwargs)
    bound = model.bind_tools([get_weather])
    with pytest.raises(ProviderError) as info:
        if mode == "invoke":
            bound.invoke("Weather in Paris?")
        elif mode == "stream":
            list(bound.stream("Weather in Paris?"))
        else:
            asyncio.run(bound.ainvoke("Weather in Paris?"))
    return info.value


@pytest.mark.parametrize("mode", ["invoke", "stream", "ainvoke"])
def test_a_vllm_without_a_tool_parser_gets_the_flags_to_start_it_with(mode: str) -> None:
    with ScriptedServer() as server:
        server.push(VLLM, VLLM, VLLM)
        error = _failure(server, mode)
        assert len(server.requests) == 1 and not error.retryable and error.status == 400
    assert "--enable-auto-tool-choice --tool-call-parser" in error.hint
    assert "says which field" not in str(error)


@pytest.mark.parametrize("mode", ["invoke", "stream", "ainvoke"])
def test_a_llama_server_without_jinja_gets_the_flag_and_is_not_retried(mode: str) -> None:
    with ScriptedServer() as server:
        server.push(LLAMA, LLAMA, LLAMA)
        error = _failure(server, mode)
        assert len(server.requests) == 1, "the same refusal each time: not tried again"
    assert not error.retryable and "--jinja" in error.hint and "gave up" not in str(error)


@pytest.mark.parametrize("mode", ["invoke", "stream", "ainvoke"])
def test_lm_studio_unexpected_endpoint_is_not_retried_and_points_at_base_url(mode: str) -> None:
    wrong = Answer(200, {"error": "Unexpected endpoint or method. (POST /chat/completions)"})
    with ScriptedServer() as server:
        server.push(wrong, wrong, wrong)
        error = _failure(server, mode, base_url=server.url)  # /v1 left out
        assert len(server.requests) == 1
    assert not error.retryable and error.hint.startswith("Check base_url") and "/v1" in error.hint
    assert "Try the request again" not in str(error)


_CRASH = {"message": "CUDA error: an illegal memory access was encountered", "type": "InternalServerError",
          "code": 500}
_CHUNK = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
          "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}


@pytest.mark.parametrize("how", ["status", "event", "body"])
def test_a_failure_of_the_users_own_server_points_at_its_log_however_it_came(how: str) -> None:
    answer = {"status": Answer(500, {"error": _CRASH}), "event": Answer(200, events=[_CHUNK, {"error": _CRASH}]),
              "body": Answer(200, {"error": _CRASH})}[how]
    with ScriptedServer() as server:
        server.push(answer)
        error = _failure(server, "stream" if how == "event" else "invoke", max_retries=0)
    assert error.status == 500 and "its log says why" in error.hint and "try again later" not in error.hint


def test_a_hosted_apis_error_event_keeps_the_usual_hint() -> None:
    model = ChatOpenAI(model="m", base_url="https://api.together.xyz/v1", api_key="k" * 20)
    error = model._error_event(_CRASH, _CRASH["message"])
    found = model._translate_any(error)
    assert found is not None and found.hint == "The provider failed on its side: try again later."
