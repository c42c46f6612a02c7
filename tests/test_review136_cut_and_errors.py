"""Review 136: replies cut by Anthropic's context window (#4), API keys echoed in errors the codecs raise themselves
(#6), and client-error events inside a stream (#10).

Each test failed before its fix. Providers are driven through their SDKs against a scripted local server
(``providers.scripted_http``); no real model is used.
"""

from __future__ import annotations

import asyncio
import traceback
from typing import Any

import pytest

from providers.scripted_http import Answer, ScriptedServer
from toolwire import Agent, merge_chunks, tool
from toolwire._agent_checks import stop_kind
from toolwire.errors import ProviderError
from toolwire.messages import AIMessage
from toolwire.models import ChatAnthropic, ChatOpenAI
from toolwire.models.lowering._anthropic_replies import WINDOW_CUT, StreamState, parse_response
from toolwire.models.lowering._stream_errors import error_status
from toolwire.testing import ScriptedChatModel

WINDOW = "model_context_window_exceeded"

written: list[tuple[str, str]] = []


@tool
def write_file(path: str, text: str) -> str:
    """Write text to a file."""
    written.append((path, text))
    return f"wrote {len(text)} characters to {path}"


def _reply(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 199000, "output_tokens": 1000}}


_CUT_CALL = [{"type": "text", "text": "Writing the report."},
             {"type": "tool_use", "id": "toolu_1", "name": "write_file",
              "input": {"path": "report.md", "text": "# Report\n\nThe first half of the re"}}]


# -- #4: model_context_window_exceeded is a cut reply --------------------------------------------------------------


def test_window_cut_tool_use_is_an_invalid_call_that_says_to_shorten_the_conversation() -> None:
    reply = parse_response(_reply(_CUT_CALL, WINDOW))
    assert reply.tool_calls == []
    [bad] = reply.invalid_tool_calls
    assert bad["id"] == "toolu_1" and bad["name"] == "write_file"
    assert bad["error"] == WINDOW_CUT
    assert "context window" in WINDOW_CUT and "shorten the conversation" in WINDOW_CUT
    assert "max_tokens" not in WINDOW_CUT.replace("(stop_reason model_context_window_exceeded)", "")


def test_window_cut_keeps_the_calls_before_the_last() -> None:
    first = {"type": "tool_use", "id": "toolu_0", "name": "write_file", "input": {"path": "a", "text": "b"}}
    reply = parse_response(_reply([first, *_CUT_CALL[1:]], WINDOW))
    assert [c["id"] for c in reply.tool_calls] == ["toolu_0"]
    assert [c["id"] for c in reply.invalid_tool_calls] == ["toolu_1"]


def test_agent_never_runs_a_call_the_context_window_cut() -> None:
    written.clear()
    model = ScriptedChatModel([parse_response(_reply(_CUT_CALL, WINDOW)), "Done."])
    result = Agent(model, [write_file]).invoke("Write the report to report.md")
    assert written == []
    [answer] = [m for m in result.messages if m.type == "tool"]
    assert answer.tool_call_id == "toolu_1" and "context window" in answer.content


def test_agent_ends_a_text_answer_the_context_window_cut_with_length() -> None:
    reply = parse_response(_reply([{"type": "text", "text": "The three causes are: first, the"}], WINDOW))
    assert stop_kind(reply) == "length"
    result = Agent(ScriptedChatModel([reply]), [write_file]).invoke("Why?")
    assert result.stop_reason == "length"
    assert result.output == "The three causes are: first, the"


def _events(stop: str, deltas: list[str], start_input: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "c",
                                               "content": [], "stop_reason": None, "stop_sequence": None,
                                               "usage": {"input_tokens": 5, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": start_input or {}}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": d}}
          for d in deltas),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]


def _streamed(events: list[dict[str, Any]]) -> AIMessage:
    state = StreamState()
    chunks = [c for c in map(state.feed, events) if c is not None]
    return merge_chunks([*chunks, state.finish()], as_chunk=False)  # type: ignore[return-value]


@pytest.mark.parametrize("deltas, start", [
    (['{"path": "r.md", "text": "# Rep'], None),  # the JSON text cut off
    ([], {"path": "r.md", "text": "# Rep"}),  # the whole (cut) input in the block's start: valid JSON
    (['{"path": "r.md", ', '"text": "# Rep"}'], None),  # cut right where an object closes
])
def test_streamed_window_cut_call_is_one_invalid_call(deltas: list[str], start: dict[str, Any] | None) -> None:
    message = _streamed(_events(WINDOW, deltas, start))
    assert message.tool_calls == []
    assert [c["id"] for c in message.invalid_tool_calls] == ["toolu_1"]
    assert message.invalid_tool_calls[0]["error"] == WINDOW_CUT  # the window's advice, as from invoke
    assert stop_kind(message) == "length"


# -- #6: an API key echoed in an error a codec raises is masked ---------------------------------------------------

KEY = "sk-vllm-SECRET-0123456789abcdef"


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _chain(exc: BaseException) -> list[BaseException]:
    found, todo = [], [exc]
    while todo:
        current = todo.pop()
        if current is None or any(current is seen for seen in found):
            continue
        found.append(current)
        todo += [current.__cause__, current.__context__]
    return found


def _caught(run: Any) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        run()
    return info.value


def _assert_masked(error: ProviderError) -> None:
    assert KEY not in str(error) and KEY[:12] not in str(error)
    assert "**********" in str(error)
    assert KEY not in "".join(traceback.format_exception(error))
    for current in _chain(error):
        assert KEY not in repr(current.args) and KEY not in str(current)
    assert KEY not in str(error.hint or "")


def _stream(model: Any, asynchronous: bool) -> Any:
    if not asynchronous:
        return lambda: list(model.stream("hi"))

    async def run() -> list[Any]:
        return [c async for c in model.astream("hi")]

    return lambda: asyncio.run(run())


@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize("code", [401, 400, None])
def test_key_in_a_compatible_servers_error_event_is_masked(asynchronous: bool, code: int | None) -> None:
    event = {"object": "error", "message": f"Invalid API key {KEY}", "type": "Unauthorized", "code": code}
    with ScriptedServer() as server:
        server.push(Answer(events=[event]))
        model = ChatOpenAI("qwen", api_key=KEY, base_url=server.url + "/v1", max_retries=0)
        error = _caught(_stream(model, asynchronous))
    _assert_masked(error)
    assert error.status == code


def _response(status: str, error: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "created_at": 1, "status": status, "model": "gpt-5", "output": [],
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "error": error,
            "incomplete_details": None}


_FAILED = {"code": "server_error", "message": f"failed for key {KEY}"}
_CREATED = ("response.created", {"type": "response.created", "sequence_number": 0, "response": _response("x")})


@pytest.mark.parametrize("answer", [
    Answer(events=[_CREATED, ("response.failed", {"type": "response.failed", "sequence_number": 1,
                                                  "response": _response("failed", _FAILED)})]),
    Answer(events=[_CREATED, ("error", {"type": "error", "sequence_number": 1, "code": "invalid_api_key",
                                        "message": f"bad key {KEY}", "param": None})]),
    Answer(body=_response("failed", _FAILED)),
], ids=["response.failed", "error event", "failed body"])
def test_key_in_a_responses_api_failure_is_masked(answer: Answer) -> None:
    with ScriptedServer() as server:
        server.push(answer)
        model = ChatOpenAI("gpt-5", api_key=KEY, base_url=server.url + "/v1", compatible=False, max_retries=0,
                           use_responses_api=True)
        error = _caught((lambda: model.invoke("q")) if answer.events is None else _stream(model, False))
    _assert_masked(error)


def test_key_in_a_retried_codec_error_is_masked_in_the_log_and_the_last_error(caplog: pytest.LogCaptureFixture) -> None:
    with ScriptedServer() as server:
        for _ in range(2):
            server.push(Answer(events=[_CREATED, ("response.failed", {"type": "response.failed", "sequence_number": 1,
                                                                      "response": _response("failed", _FAILED)})]))
        model = ChatOpenAI("gpt-5", api_key=KEY, base_url=server.url + "/v1", compatible=False, max_retries=1,
                           retry_backoff=0, use_responses_api=True)
        with caplog.at_level("DEBUG"):
            error = _caught(_stream(model, False))
    _assert_masked(error)
    assert "gave up after 2 attempts" in str(error)
    assert KEY not in caplog.text


class _Stubborn(Exception):
    """An exception whose text is not built from its args, so masking them cannot hide the key."""

    def __str__(self) -> str:
        return f"stubborn {KEY}"


def test_a_provider_error_chaining_a_key_it_cannot_mask_is_raised_without_its_chain() -> None:
    model = ChatOpenAI("qwen", api_key=KEY, base_url="http://127.0.0.1:9/v1", max_retries=0)
    try:
        try:
            raise _Stubborn()
        except _Stubborn as inner:
            raise ProviderError(f"the server said {KEY}", provider="openai", hint=f"not {KEY}") from inner
    except ProviderError as exc:
        error = model._translate_any(exc)
    assert error is not None
    _assert_masked(error)


# -- #10: a client-error event inside a stream counts as its status, with that status's hint ----------------------

_START = ("message_start", {"type": "message_start", "message": {
    "id": "m", "type": "message", "role": "assistant", "model": "c", "content": [], "stop_reason": None,
    "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}})


@pytest.mark.parametrize("kind, status, hint", [
    ("invalid_request_error", 400, "shorten it"),  # (the message says the prompt is too long)
    ("authentication_error", 401, "ANTHROPIC_API_KEY"),
    ("permission_error", 403, "ANTHROPIC_API_KEY"),
    ("not_found_error", 404, "model name"),
    ("request_too_large", 413, "shorten it"),
])
def test_anthropic_client_error_event_gets_its_status_and_hint(kind: str, status: int, hint: str) -> None:
    message = "prompt is too long: 210000 tokens > 200000 maximum" if status in (400, 413) else "refused"
    event = ("error", {"type": "error", "error": {"type": kind, "message": message}})
    with ScriptedServer() as server:
        server.push(Answer(events=[_START, event]))
        model = ChatAnthropic("claude-sonnet-4-6", api_key="sk-ant-test-key", base_url=server.url, max_retries=0)
        error = _caught(lambda: list(model.stream("q")))
    assert error.status == status and not error.retryable
    assert hint in (error.hint or "")
    # the codec reads the same event the same way (a dict event, as a compatible server's stream may bring it)
    with pytest.raises(ProviderError) as info:
        StreamState().feed(event[1])
    assert info.value.status == status and hint in (info.value.hint or "")


def test_openai_context_length_event_in_a_stream_is_a_400_that_says_to_shorten() -> None:
    event = {"error": {"message": "This model's maximum context length is 128000 tokens.",
                       "type": "invalid_request_error", "code": "context_length_exceeded"}}
    with ScriptedServer() as server:
        server.push(Answer(events=[event]))
        model = ChatOpenAI("gpt-4o", api_key="sk-test-key-0000", base_url=server.url + "/v1", compatible=False,
                           max_retries=0)
        error = _caught(lambda: list(model.stream("q")))
    assert error.status == 400 and "shorten it" in (error.hint or "")


def test_responses_invalid_api_key_event_is_a_401_that_says_to_check_the_key() -> None:
    event = ("error", {"type": "error", "sequence_number": 1, "code": "invalid_api_key", "message": "bad key",
                       "param": None})
    with ScriptedServer() as server:
        server.push(Answer(events=[_CREATED, event]))
        model = ChatOpenAI("gpt-5", api_key="sk-test-key-0000", base_url=server.url + "/v1", compatible=False,
                           max_retries=0, use_responses_api=True)
        error = _caught(lambda: list(model.stream("q")))
    assert error.status == 401 and "Check the API key" in (error.hint or "")


@pytest.mark.parametrize("kinds, status", [
    (("invalid_request_error", "invalid_api_key"), 401),  # the specific code wins over the generic type
    (("invalid_api_key", "invalid_request_error"), 401),
    (("invalid_request_error", "context_length_exceeded"), 400),
    (("invalid_request_error", None), 400),
    (("invalid_request_error", "insufficient_quota"), 429),  # a retry rule's status still wins
    (("server_error", 400), 500),
    (("billing_error",), 402),
    (("BadRequestError", None), 400),
    (("something_else", None), None),
])
def test_error_status_maps_each_documented_type(kinds: tuple[Any, ...], status: int | None) -> None:
    assert error_status(*kinds) == status


def test_compatible_servers_error_event_with_a_type_and_no_code_gets_its_status() -> None:
    from toolwire.models.lowering._openai_compat import raise_stream_error

    with pytest.raises(ProviderError) as info:
        raise_stream_error({"object": "error", "message": "bad field", "type": "BadRequestError", "code": None})
    assert info.value.status == 400 and not info.value.retryable
