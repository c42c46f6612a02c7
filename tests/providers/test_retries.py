"""Retries with backoff on 429/5xx and connection errors, the request timeout, and the one final error.

Parametrised by provider: the failures come from each API's wire server (in its own error format) and
go through each SDK's own exceptions, translated at the provider's one boundary.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from toolwire import ProviderError
from toolwire.messages import merge_chunks
from toolwire.models import _retry
from toolwire.models._retry import RetryPolicy, retry_after, with_retries

from .conftest import build_model
from .wire_servers import Fail, Reply


@pytest.fixture
def sleeps(monkeypatch):
    """Record the backoff waits (seconds) instead of sleeping."""
    waits: list[float] = []

    async def asleep(seconds):
        waits.append(seconds)

    monkeypatch.setattr(_retry.time, "sleep", waits.append)
    monkeypatch.setattr(_retry.asyncio, "sleep", asleep)
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


def test_connection_errors_are_retried(provider, sleeps):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with pytest.raises(ProviderError) as failed:
        build_model(provider, url, max_retries=2).invoke("oi")
    assert failed.value.status is None and failed.value.retryable
    assert "gave up after 3 attempts" in str(failed.value) and len(sleeps) == 2
    assert url in str(failed.value)


def test_request_timeout(provider, server, make_model):
    server.queue(Reply(text="tarde demais", delay=1.5))
    with pytest.raises(ProviderError) as failed:
        make_model(timeout=0.3).invoke("oi")
    assert "timed out after 0.3 s" in str(failed.value) and failed.value.retryable


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
    assert retry_after(Error({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) is None
    assert retry_after(ValueError()) is None


def test_unknown_exceptions_pass_through_untouched():
    def boom():
        raise KeyError("not an SDK error")

    with pytest.raises(KeyError):
        with_retries(boom, RetryPolicy(max_retries=3), lambda exc: None)
