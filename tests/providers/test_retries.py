"""Retries with backoff on 429/5xx and connection errors, the request timeout, and the one final error.

Parametrised by provider: the failures come from each API's wire server (in its own error format) and
go through each SDK's own exceptions, translated at the provider's one boundary. Connection failures and
timeouts are checked for sync and async calls alike: google-genai's async client uses aiohttp when it is
installed, whose errors differ from httpx's.
"""

from __future__ import annotations

import asyncio
import socket
import time
import types

import pytest

from toolwire import ProviderError
from toolwire.messages import merge_chunks
from toolwire.models import _retry
from toolwire.models._retry import RetryPolicy, retry_after, transport_error, with_retries

from .conftest import build_model
from .wire_servers import Fail, Reply

MODES = ["invoke", "ainvoke", "stream", "astream"]


def call(model, mode):
    """One call of ``model`` in ``mode``: the reply, or the list of streamed chunks."""
    if mode == "invoke":
        return model.invoke("oi")
    if mode == "stream":
        return list(model.stream("oi"))

    async def main():
        if mode == "ainvoke":
            return await model.ainvoke("oi")
        return [chunk async for chunk in model.astream("oi")]

    return asyncio.run(main())


@pytest.fixture
def sleeps(monkeypatch):
    """Record the backoff waits (seconds) instead of sleeping: only the retry module's own waits, not those
    of the HTTP clients (aiohttp sleeps inside its connector)."""
    waits: list[float] = []

    async def asleep(seconds):
        waits.append(seconds)

    monkeypatch.setattr(_retry, "time", types.SimpleNamespace(**{**vars(time), "sleep": waits.append}))
    monkeypatch.setattr(_retry, "asyncio", types.SimpleNamespace(**{**vars(asyncio), "sleep": asleep}))
    return waits


def test_retries_429_and_5xx_then_succeeds(provider, server, make_model, sleeps):
    server.queue(Fail(429, "slow down"), Fail(500, "oops"), Fail(503, "busy"), Reply(text="enfim"))
    model = make_model(max_retries=3, retry_backoff=0.5)
    assert model.invoke("oi").text == "enfim"
    assert len(server.requests) == 4
    assert len(sleeps) == 3
    for n, wait in enumerate(sleeps):  # 0.5, 1, 2 seconds, each within the +-25% jitter
        assert 0.5 * 2**n * 0.75 <= wait <= 0.5 * 2**n * 1.25


def test_gives_up_with_one_clear_error(provider, server, make_model, sleeps):
    server.queue(*[Fail(503, "the service is overloaded")] * 3)
    with pytest.raises(ProviderError) as failed:
        make_model(max_retries=2).invoke("oi")
    error = failed.value
    assert error.status == 503 and error.retryable
    assert error.provider in ("openai", "anthropic", "google")
    assert "the service is overloaded" in str(error) and "gave up after 3 attempts" in str(error)
    assert str(error).startswith(f"{error.provider} (status 503)")
    assert len(server.requests) == 3 and len(sleeps) == 2


def test_retry_after_header_is_honoured(provider, server, make_model, sleeps):
    server.queue(Fail(429, "rate limited", retry_after=3), Reply(text="ok"))
    assert make_model(max_retries=1).invoke("oi").text == "ok"
    assert sleeps == [3.0]


def test_client_errors_are_not_retried(provider, server, make_model, sleeps):
    server.queue(Fail(404, "no such model"))
    with pytest.raises(ProviderError) as failed:
        make_model(max_retries=5).invoke("oi")
    assert failed.value.status == 404 and not failed.value.retryable and "model name" in str(failed.value)
    assert len(server.requests) == 1 and sleeps == []


@pytest.mark.parametrize("mode", MODES)
def test_connection_errors_are_retried(provider, sleeps, mode):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with pytest.raises(ProviderError) as failed:
        call(build_model(provider, url, max_retries=2), mode)
    assert failed.value.status is None and failed.value.retryable and "Could not connect" in str(failed.value)
    assert "gave up after 3 attempts" in str(failed.value) and len(sleeps) == 2
    assert url in str(failed.value)


@pytest.mark.parametrize("mode", MODES)
def test_request_timeout(provider, server, make_model, mode):
    server.queue(Reply(text="tarde demais", delay=1.5))
    with pytest.raises(ProviderError) as failed:
        call(make_model(timeout=0.3), mode)
    assert "timed out after 0.3 s" in str(failed.value) and failed.value.retryable


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_stream_dropped_mid_body_is_one_provider_error(provider, server, make_model, sleeps, mode):
    """The server sends a few events and closes the connection: one ProviderError, and no retry (text was
    already handed out: six events hold some in every API, the Responses API's opening four hold none)."""
    server.queue(Reply(text="olá mundo, tudo bem por aí?", piece=2, drop_after=6))
    with pytest.raises(ProviderError) as failed:
        call(make_model(max_retries=2), mode)
    assert failed.value.status is None and failed.value.provider in ("openai", "anthropic", "google")
    assert len(server.requests) == 1 and sleeps == []
    # the SDKs raise one class for both; the wrapped HTTP error tells a broken stream from a refused connection
    assert "connection broke off" in str(failed.value) and "Could not connect" not in str(failed.value)


def test_stream_is_retried_until_its_first_event(provider, server, make_model, sleeps):
    server.queue(Fail(500), Reply(text="olá mundo", piece=2))
    chunks = list(make_model(max_retries=1).stream("oi"))
    assert merge_chunks(chunks, as_chunk=False).text == "olá mundo"
    assert [r.stream for r in server.requests] == [True, True]


def test_async_calls_retry_too(provider, server, make_model, sleeps):
    server.queue(Fail(429), Reply(text="async ok"), Fail(502), Reply(text="stream ok"))
    model = make_model(max_retries=1)

    async def main():
        whole = await model.ainvoke("oi")
        streamed = merge_chunks([c async for c in model.astream("oi")], as_chunk=False)
        return whole.text, streamed.text

    assert asyncio.run(main()) == ("async ok", "stream ok")
    assert len(sleeps) == 2


# --------------------------------------------------------------------------- the policy itself


def test_backoff_grows_exponentially_with_jitter_and_caps():
    policy = RetryPolicy(initial_delay=1.0, max_delay=5.0, multiplier=2.0, jitter=0.25)
    for retry, base in ((1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)):
        waits = [policy.delay(retry) for _ in range(200)]
        assert all(base * 0.75 <= w <= base * 1.25 for w in waits)
        assert len(set(waits)) > 1  # jittered
    assert policy.delay(1, server_hint=2.5) == 2.5
    assert policy.delay(1, server_hint=60) == 5.0  # a server's Retry-After is capped too


def test_retry_after_reads_seconds_and_milliseconds():
    class Response:
        def __init__(self, headers):
            self.headers = headers

    class Error(Exception):
        def __init__(self, headers):
            self.response = Response(headers)

    assert retry_after(Error({"retry-after": "7"})) == 7.0
    assert retry_after(Error({"retry-after-ms": "250"})) == 0.25
    assert retry_after(Error({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) is None  # a date past: no wait
    assert retry_after(ValueError()) is None


def test_retry_after_reads_an_http_date():
    """``Retry-After = HTTP-date / delay-seconds`` (RFC 9110 section 10.2.3): a date is counted from the response's
    ``Date`` (the server's clock), else from now, and capped as seconds are (it was ignored: the retry came after
    the short backoff)."""
    import email.utils

    class Error(Exception):
        def __init__(self, headers):
            self.response = types.SimpleNamespace(headers=headers)

    date = "Wed, 21 Oct 2015 07:28:00 GMT"
    assert retry_after(Error({"retry-after": "Wed, 21 Oct 2015 07:28:30 GMT", "date": date})) == 30.0
    assert retry_after(Error({"retry-after": "Wed, 21 Oct 2015 07:28:00 +0000", "date": date})) is None
    assert retry_after(Error({"retry-after": "Wed, 21 Oct 2015 07:27:00 GMT", "date": date})) is None
    assert retry_after(Error({"retry-after": "soon", "date": date})) is None
    assert retry_after(Error({"retry-after": "Wed, 21 Oct 2015 07:28:04 GMT", "date": "not a date"})) is None
    ahead = retry_after(Error({"retry-after": email.utils.formatdate(time.time() + 100, usegmt=True)}))
    assert ahead is not None and 90 < ahead <= 100
    assert RetryPolicy(max_delay=20.0).delay(1, server_hint=30.0) == 20.0  # capped as a number of seconds is


def _http_error(module, *names, base=Exception, **attrs):
    """An exception class chain ``names[0] <- names[1] <- ...`` defined in ``module`` (as httpx/aiohttp do)."""
    cls = base
    for name in names:
        cls = type(name, (cls,), {"__module__": module})
    error = cls("boom")
    error.__dict__.update(attrs)
    return error


def test_http_client_errors_are_recognised_by_name():
    """httpx and aiohttp errors that an SDK lets through become ProviderErrors without importing either."""
    refused = _http_error("aiohttp.client_exceptions", "ClientError", "ClientConnectionError", "ClientOSError",
                          "ClientConnectorError", base=OSError, os_error=ConnectionRefusedError(111, "refused"))
    cut = _http_error("aiohttp.client_exceptions", "ClientError", "ClientPayloadError")
    slow = _http_error("aiohttp.client_exceptions", "ClientError", "ServerTimeoutError", base=TimeoutError)
    dropped = _http_error("httpx2", "HTTPError", "RequestError", "TransportError", "ProtocolError",
                          "RemoteProtocolError")
    url = "http://user:s3cr3t@127.0.0.1:9"
    read = {name: transport_error("google", error, timeout=2, base_url=url)
            for name, error in (("refused", refused), ("cut", cut), ("slow", slow), ("dropped", dropped),
                                ("plain timeout", TimeoutError()))}
    assert "Could not connect: [Errno 111] refused" in str(read["refused"])
    assert "connection broke off: boom" in str(read["cut"]) and "connection broke off" in str(read["dropped"])
    assert "timed out after 2 s" in str(read["slow"]) and "timed out after 2 s" in str(read["plain timeout"])
    assert all(e is not None and e.retryable and e.status is None for e in read.values())
    assert all("s3cr3t" not in str(e) and "http://****@127.0.0.1:9" in str(e) for e in read.values())
    stranger = _http_error("mylib.errors", "ClientPayloadError")  # same name, another library
    assert transport_error("google", stranger, timeout=2) is None
    assert transport_error("google", ValueError("x"), timeout=2) is None


def test_unknown_exceptions_pass_through_untouched():
    def boom():
        raise KeyError("not an SDK error")

    with pytest.raises(KeyError):
        with_retries(boom, RetryPolicy(max_retries=3), lambda exc: None)
