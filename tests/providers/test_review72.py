"""Review 72: the provider layer's async clients, stream retries, ``Retry-After`` dates and Gemini's key error.

Each test runs against the provider's local wire server (no network).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import time

import pytest

from toolwire.messages import AIMessage

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def _sockets() -> int:
    """Open sockets of this process (the client's and the in-process server's ends alike)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed since it was listed
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    return count


def _loops() -> int:
    """The event loops alive in this process (closed or not)."""
    return sum(isinstance(o, asyncio.AbstractEventLoop) for o in gc.get_objects())


def _settled_sockets(bound: int) -> int:
    """The open sockets once the server's side has seen the client's close (up to 10 s: a loaded machine's server
    thread can be slow to see it; a leak of a socket per request still fails)."""
    deadline = time.monotonic() + 10.0
    while (count := _sockets()) > bound and time.monotonic() < deadline:
        time.sleep(0.02)
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open sockets through /proc")
def test_asyncio_run_per_call_keeps_no_loop_client_or_socket(provider, server, make_model):
    """``asyncio.run(model.ainvoke(...))`` per request: each loop's client is closed as its loop shuts down (it
    kept every loop, client and connection: a process ran out of file descriptors after ~500 requests)."""
    model = make_model()
    asyncio.run(model.ainvoke("oi"))  # the first round opens what stays open for good (the SDK's own caches)
    before = _sockets()
    gc.collect()  # (counted before the runs too: a loop of an earlier test can still be alive on a loaded machine, as
    loops = _loops()  # a thread of it ends, and was counted as one these runs kept)
    for _ in range(30):
        assert isinstance(asyncio.run(model.ainvoke("oi")), AIMessage)
    assert len(model._clients.async_by_loop) == 0
    gc.collect()
    assert _loops() <= loops + 1
    assert _settled_sockets(before + 2) <= before + 2  # not 60 more


def test_loops_closed_by_hand_leave_at_most_one_client(provider, server, make_model):
    """A loop closed without ``shutdown_asyncgens`` (``run_until_complete`` then ``close``): its client is
    dropped when the next loop makes one, so the cache stays bounded."""
    model = make_model()
    for _ in range(10):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(model.ainvoke("oi"))
        finally:
            loop.close()
        assert len(model._clients.async_by_loop) <= 1


def test_one_client_per_running_loop_is_reused_and_aclose_closes_it(provider, server, make_model):
    model = make_model()

    async def main():
        await model.ainvoke("oi")
        first = model._aclient()
        await model.ainvoke("oi")
        assert [chunk async for chunk in model.astream("oi")]
        assert model._aclient() is first and len(model._clients.async_by_loop) == 1
        await model.aclose()
        assert len(model._clients.async_by_loop) == 0
        await model.ainvoke("oi")  # a new client opens on the next call
        assert model._aclient() is not first

    asyncio.run(main())
    assert len(model._clients.async_by_loop) == 0


def test_clients_of_a_dropped_model_close_on_the_running_loop(provider, server, make_model):
    """A model dropped while its loop still runs: the loop closes its client (nothing fails at shutdown)."""
    errors: list[dict] = []
    gc.collect()  # the garbage of earlier tests goes first (an SDK client collected on this loop may log)

    async def main():
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: errors.append(context))
        model = make_model()
        await model.ainvoke("oi")
        del model
        gc.collect()
        await asyncio.sleep(0.05)

    asyncio.run(main())
    assert errors == []


# -- stream error events before any content are retried -------------------------------------------------------------


def _response(output: list, status: str = "completed", **extra) -> dict:
    return {"id": "resp_1", "object": "response", "created_at": 1, "status": status, "model": "gpt-5", "output": output,
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}, **extra}


_MSG = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}


def _numbered(events: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    return [(kind, {"type": kind, "sequence_number": n, **data}) for n, (kind, data) in enumerate(events)]


_RESPONSES_FAILED = _numbered([
    ("response.created", {"response": _response([], "in_progress")}),
    ("response.in_progress", {"response": _response([], "in_progress")}),
    ("response.failed", {"response": _response([], "failed", error={"code": "server_error",
                                                                     "message": "The server had an error."})})])
_RESPONSES_OK = _numbered([
    ("response.created", {"response": _response([], "in_progress")}),
    ("response.output_item.added", {"output_index": 0, "item": {**_MSG, "content": [], "status": "in_progress"}}),
    ("response.output_text.delta", {"output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": "Hi"}),
    ("response.output_item.done", {"output_index": 0, "item": _MSG}),
    ("response.completed", {"response": _response([_MSG])})])
_START = ("message_start", {"type": "message_start", "message": {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [], "stop_reason": None,
    "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}})
_ANTHROPIC_OVERLOADED = [_START, ("ping", {"type": "ping"}),
                         ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})]
_ANTHROPIC_OK = [_START,
                 ("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}}),
                 ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "text_delta", "text": "Hi"}}),
                 ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                 ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 2},
                                    "delta": {"stop_reason": "end_turn", "stop_sequence": None}}),
                 ("message_stop", {"type": "message_stop"})]


def _scripted_model(api: str, url: str, **kwargs):
    kwargs = {"api_key": "sk-test-0123456789", "retry_backoff": 0.001, **kwargs}
    if api == "responses":
        from toolwire.models.openai import ChatOpenAI

        return ChatOpenAI("gpt-5", base_url=url + "/v1", use_responses_api=True, **kwargs)
    from toolwire.models.anthropic import ChatAnthropic

    return ChatAnthropic("claude-sonnet-4-6", base_url=url, **kwargs)


def _run(model, mode: str) -> str:
    if mode == "invoke":
        return model.invoke("x").text
    if mode == "stream":
        chunks = list(model.stream("x"))
    else:
        async def main():
            if mode == "ainvoke":
                return await model.ainvoke("x")
            return [chunk async for chunk in model.astream("x")]

        got = asyncio.run(main())
        if mode == "ainvoke":
            return got.text
        chunks = got
    from toolwire.messages import merge_chunks

    return merge_chunks(chunks, as_chunk=False).text


FAILS = {"responses": (_RESPONSES_FAILED, _RESPONSES_OK, 500), "anthropic": (_ANTHROPIC_OVERLOADED, _ANTHROPIC_OK, 529)}


@pytest.mark.parametrize("mode", ["invoke", "stream", "ainvoke", "astream"])
@pytest.mark.parametrize("api", sorted(FAILS))
def test_an_error_event_after_the_opening_events_is_retried(api, mode):
    """``response.created`` / ``message_start`` bring no content: an error event after them is retried as the same
    error of a call without a stream is (it ended the stream after one attempt), and the caller gets the second
    try's reply once, with nothing of the first."""
    from .scripted_http import Answer, ScriptedServer

    failing, ok, _ = FAILS[api]
    with ScriptedServer() as server:
        server.push(Answer(events=failing), Answer(events=ok))
        model = _scripted_model(api, server.url, max_retries=1, streaming=mode.endswith("invoke"))
        assert _run(model, mode) == "Hi"
        assert len(server.requests) == 2


@pytest.mark.parametrize("api", sorted(FAILS))
def test_an_error_event_before_content_gives_up_after_the_retries(api):
    from toolwire.errors import ProviderError

    from .scripted_http import Answer, ScriptedServer

    failing, _, status = FAILS[api]
    with ScriptedServer() as server:
        server.push(*[Answer(events=failing)] * 3)
        with pytest.raises(ProviderError) as failed:
            list(_scripted_model(api, server.url, max_retries=2).stream("x"))
        assert failed.value.status == status and failed.value.retryable
        assert "gave up after 3 attempts" in str(failed.value) and len(server.requests) == 3


def test_an_error_event_after_text_is_not_retried():
    """Once text has reached the caller, a retry would repeat it: the error ends the stream."""
    from toolwire.errors import ProviderError

    from .scripted_http import Answer, ScriptedServer

    cut = [*_ANTHROPIC_OK[:3], _ANTHROPIC_OVERLOADED[-1]]
    with ScriptedServer() as server:
        server.push(Answer(events=cut), Answer(events=_ANTHROPIC_OK))
        got: list = []
        with pytest.raises(ProviderError) as failed:
            got.extend(_scripted_model("anthropic", server.url, max_retries=2).stream("x"))
        assert failed.value.status == 529 and len(server.requests) == 1


def test_a_stream_cut_before_content_is_retried(provider, server, make_model):
    """A connection that breaks after the opening event only (no text yet; Gemini's first event holds text, so
    before it) is tried again."""
    from .wire_servers import Reply

    drop = 0 if provider == "gemini" else 1
    server.queue(Reply(text="olá mundo", piece=2, drop_after=drop), Reply(text="olá mundo", piece=2))
    from toolwire.messages import merge_chunks

    chunks = list(make_model(max_retries=1).stream("oi"))
    assert merge_chunks(chunks, as_chunk=False).text == "olá mundo"
    assert len(server.requests) == 2


# -- Gemini's invalid key -------------------------------------------------------------------------------------------

_BAD_KEY = {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                      "status": "INVALID_ARGUMENT",
                      "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                                   "domain": "googleapis.com",
                                   "metadata": {"service": "generativelanguage.googleapis.com"}}]}}


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_gemini_invalid_key_says_to_check_the_key(mode):
    """Gemini refuses a bad key with 400 INVALID_ARGUMENT and ErrorInfo ``API_KEY_INVALID`` (not 401): the hint
    names the key's variables, as a 401 does, rather than "the message above says which field"."""
    from toolwire.errors import ProviderError
    from toolwire.models.google import ChatGoogleGenAI

    from .scripted_http import Answer, ScriptedServer

    with ScriptedServer() as server:
        server.push(Answer(400, _BAD_KEY), Answer(400, {"error": {**_BAD_KEY["error"], "details": [],
                                                                  "message": "Invalid value at 'contents'"}}))
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-not-a-real-key-0123", base_url=server.url)
        run = model.invoke if mode == "invoke" else (lambda text: asyncio.run(model.ainvoke(text)))
        with pytest.raises(ProviderError) as failed:
            run("x")
        assert failed.value.status == 400 and not failed.value.retryable
        assert failed.value.hint == "Check the API key (GOOGLE_API_KEY or GEMINI_API_KEY) and its permissions."
        with pytest.raises(ProviderError) as other:  # another INVALID_ARGUMENT keeps the field hint
            run("x")
        assert "says which field" in (other.value.hint or "")
