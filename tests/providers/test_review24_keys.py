"""Review 24, defect 1: an API key a server echoes in its error body never shows in a formatted traceback.

The server (a stub on 127.0.0.1) answers 401 with the key it was sent written into its message, as some proxies
and OpenAI-compatible servers do. ``ProviderError`` masked it in its own text, but was raised ``from`` the SDK's
exception, whose text still held the key, so ``traceback.format_exception`` and ``logging.exception`` printed
it. Each test failed before the fix.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import traceback
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from toolwire.errors import ProviderError

from .conftest import KEY, build_model

PROVIDERS = ["openai-chat", "openai-responses", "anthropic", "gemini"]


class EchoServer:
    """Answers every POST with ``status`` and ``{"error": {"message": "Incorrect API key provided: <key>"}}``,
    the key read back from whichever header the SDK sent it in, and an ``x-request-id``/``request-id``."""

    def __init__(self, status: int = 401) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                sent = (self.headers.get("authorization") or self.headers.get("x-api-key")
                        or self.headers.get("x-goog-api-key") or "")
                body = json.dumps({"error": {"code": status, "type": "authentication_error",
                                             "status": "UNAUTHENTICATED",
                                             "message": f"Incorrect API key provided: {sent}"}}).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("x-request-id", "req_review24")
                self.send_header("request-id", "req_review24")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> EchoServer:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def echo() -> Iterator[EchoServer]:
    with EchoServer() as server:
        yield server


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception it chains (cause and context, suppressed or not)."""
    seen: list[BaseException] = []
    stack = [exc]
    while stack:
        e = stack.pop()
        if e is None or any(e is s for s in seen):
            continue
        seen.append(e)
        stack += [e.__cause__, e.__context__]
    return seen


def _assert_no_key(error: ProviderError) -> None:
    shown = "".join(traceback.format_exception(error))
    assert KEY not in shown, shown
    for e in _chain(error):
        assert KEY not in str(e) and KEY not in repr(e), type(e)
        assert KEY not in "".join(traceback.format_exception(e))
        assert KEY not in json.dumps(getattr(e, "body", None), default=str)


def _failure(provider: str, url: str, how: str) -> ProviderError:
    model = build_model(provider, url)
    with pytest.raises(ProviderError) as caught:
        if how == "invoke":
            model.invoke("hi")
        elif how == "stream":
            list(model.stream("hi"))
        elif how == "ainvoke":
            asyncio.run(model.ainvoke("hi"))
        else:
            async def collect() -> None:
                async for _ in model.astream("hi"):
                    pass

            asyncio.run(collect())
    return caught.value


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("how", ["invoke", "stream", "ainvoke", "astream"])
def test_an_echoed_key_is_in_no_formatted_traceback(echo, provider, how):
    error = _failure(provider, echo.url, how)
    assert error.status == 401
    assert "**********" in str(error)  # the server's message is kept, with the key masked
    _assert_no_key(error)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_logging_exception_does_not_print_an_echoed_key(echo, provider, caplog):
    error = _failure(provider, echo.url, "invoke")
    with caplog.at_level(logging.ERROR, logger="review24"):
        try:
            raise error
        except ProviderError:
            logging.getLogger("review24").exception("the model failed")
    assert "Incorrect API key provided" in caplog.text
    assert KEY not in caplog.text


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic"])
def test_the_sdk_error_stays_the_cause_for_debugging(echo, provider):
    """The SDK's exception is still the cause (its class, status and request id), only its text masked."""
    error = _failure(provider, echo.url, "invoke")
    cause = error.__cause__
    assert cause is not None and type(cause).__name__ == "AuthenticationError"
    assert cause.status_code == 401 and cause.request_id == "req_review24"
    assert "**********" in str(cause)
    _assert_no_key(error)


def test_gemini_error_stays_the_cause_for_debugging(echo):
    error = _failure("gemini", echo.url, "invoke")
    cause = error.__cause__
    assert cause is not None and type(cause).__name__ == "ClientError" and cause.code == 401
    assert "**********" in str(cause) and "**********" in cause.message


def test_a_key_the_sdk_error_shows_in_its_own_way_drops_the_cause():
    """An SDK exception whose text is not built from its args or attributes (so masking them in place cannot
    help) is not chained at all: the ProviderError is raised ``from None``."""
    from toolwire.models._retry import RetryPolicy, with_retries

    class Opaque(Exception):
        def __str__(self) -> str:
            return f"secret in a property: {KEY}"

    model = build_model("openai-chat", "http://127.0.0.1:9")

    def call() -> Any:
        raise Opaque()

    original = model._translate

    def translate(exc: BaseException) -> ProviderError | None:
        if isinstance(exc, Opaque):
            return ProviderError(f"The server said: {exc}", provider="openai", status=401)
        return original(exc)

    model._translate = translate  # type: ignore[method-assign]
    with pytest.raises(ProviderError) as caught:
        with_retries(call, RetryPolicy(max_retries=0), model._translate_any)
    assert "**********" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert KEY not in "".join(traceback.format_exception(caught.value))


def test_a_short_or_missing_key_masks_nothing():
    """A dummy key (an OpenAI-compatible server without one) is not a secret to mask: errors are unchanged."""
    from toolwire.models._retry import RetryPolicy, with_retries

    model = build_model("openai-chat", "http://127.0.0.1:9", api_key="x")

    class Boom(Exception):
        pass

    def call() -> Any:
        raise Boom("x marks the spot")

    model._translate = lambda exc: ProviderError(str(exc), provider="openai", status=500)  # type: ignore[method-assign]
    with pytest.raises(ProviderError) as caught:
        with_retries(call, RetryPolicy(max_retries=0), model._translate_any)
    assert str(caught.value.__cause__) == "x marks the spot"


@pytest.mark.parametrize("shows_in_args", [True, False])
def test_a_reply_that_cannot_be_read_does_not_show_the_key(shows_in_args):
    """A body the codec cannot read becomes "not an OpenAI reply" chained to the codec's error: the key in that
    error's text is masked too (and the error is not chained when masking it in place cannot help)."""

    class Opaque(ValueError):
        def __str__(self) -> str:
            return f"cannot read {KEY}"

    model = build_model("openai-chat", "http://127.0.0.1:9")

    def parse(raw: Any, request: Any) -> Any:
        raise ValueError(f"cannot read {raw}") if shows_in_args else Opaque()

    model._parse = parse  # type: ignore[method-assign]
    with pytest.raises(ProviderError, match="not an OpenAI reply") as caught:
        model._read(f"a body holding {KEY}", None)  # type: ignore[arg-type]
    assert "**********" in str(caught.value)
    assert (caught.value.__cause__ is not None) == shows_in_args
    _assert_no_key(caught.value)
