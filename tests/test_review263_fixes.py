"""Review 263: provider error advice, retry waits and Gemini's async timeout. Each test failed on the code before its
fix.

#1. An error that is not about a request field or the key got advice pointing the wrong way: Anthropic's 400 "credit
    balance is too low" said "the message above says which field", its 402 ``billing_error`` had no hint at all,
    OpenAI's 403 ``unsupported_country_region_territory`` said to check the API key, and Gemini's 400
    ``FAILED_PRECONDITION`` ("User location is not supported") said "which field".
#2. ``retry_backoff`` above the 20 s cap was lowered to it without a word, and jitter pushed waits past ``max_delay``
    (documented as the longest wait).
#3. Gemini's ``ainvoke`` bounded the whole non-stream call (headers and body) by ``timeout``, where ``invoke`` bounds
    each read.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

import pytest

from _queued_http import serving
from toolwire.errors import ProviderError
from toolwire.models._retry import status_error

KEY = "sk-test-0123456789abcdef"


def _anthropic_error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}


def _failure(run) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        run()
    return caught.value


# --- #1: the hint fits the error -----------------------------------------------------------------------------------

_CREDIT = ("Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or "
           "purchase credits.")


@pytest.mark.parametrize("status, kind", [(400, "invalid_request_error"), (402, "billing_error")])
def test_anthropic_billing_errors_say_to_add_credit(status, kind):
    """Anthropic sends "credit balance is too low" as 400 ``invalid_request_error`` and documents 402
    ``billing_error``: both get the billing hint (as OpenAI's ``insufficient_quota`` does), not "which field" or
    none, and neither is retried."""
    from toolwire.models import ChatAnthropic

    with serving() as server:
        server.queue += [(status, _anthropic_error(kind, _CREDIT))] * 3
        model = ChatAnthropic("claude-sonnet-4-6", api_key=KEY, base_url=server.url, retry_backoff=0.001)
        error = _failure(lambda: model.invoke("hi"))
    assert error.status == status and not error.retryable and len(server.requests) == 1
    assert "add credit" in (error.hint or "") and "which field" not in str(error)


def test_anthropic_billing_error_event_in_a_stream_says_to_add_credit():
    """The same type sent as a stream ``error`` event (read as status 402) gets the billing hint too."""
    error = status_error("anthropic", 402, "Your credit balance is too low.", key_env="ANTHROPIC_API_KEY",
                         code="billing_error")
    assert not error.retryable and "add credit" in (error.hint or "")


def test_openai_unsupported_country_does_not_blame_the_key():
    """OpenAI's 403 ``unsupported_country_region_territory`` is about where the request comes from, not the key."""
    from toolwire.models import ChatOpenAI

    body = {"error": {"message": "Country, region, or territory not supported", "type": "request_forbidden",
                      "param": None, "code": "unsupported_country_region_territory"}}
    with serving("/v1") as server:
        server.queue.append((403, body))
        model = ChatOpenAI("gpt-4o", api_key=KEY, base_url=server.url, compatible=False)
        error = _failure(lambda: model.invoke("hi"))
    assert error.status == 403 and not error.retryable
    assert "Check the API key" not in (error.hint or "") and "country or region" in (error.hint or "")


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_gemini_failed_precondition_says_the_location_is_not_served(mode):
    """Gemini's 400 ``FAILED_PRECONDITION`` ("User location is not supported for the API use"; the free tier is not
    offered in every country) is no field error: the hint says so, and how to get past it."""
    from toolwire.models import ChatGoogleGenAI

    body = {"error": {"code": 400, "message": "User location is not supported for the API use.",
                      "status": "FAILED_PRECONDITION"}}
    with serving() as server:
        server.queue.append((400, body))
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=server.url)
        run = model.invoke if mode == "invoke" else (lambda text: asyncio.run(model.ainvoke(text)))
        error = _failure(lambda: run("hi"))
    assert error.status == 400 and not error.retryable
    assert "which field" not in str(error) and "location" in (error.hint or "")
    assert "billing" in (error.hint or "")


def test_other_errors_keep_their_hints():
    """What was right stays: a malformed request's 400 names the field, a 401/403 the key, a context too long says
    to shorten, OpenAI's 429 ``insufficient_quota`` says to add credit."""
    assert "which field" in status_error("google", 400, "Invalid value at 'contents'", code="INVALID_ARGUMENT").hint
    assert "which field" in status_error("anthropic", 400, "messages: field required",
                                         code="invalid_request_error").hint
    assert "Check the API key" in status_error("openai", 403, "You are not allowed", key_env="OPENAI_API_KEY").hint
    assert "Check the API key" in status_error("google", 403, "Permission denied", code="PERMISSION_DENIED").hint
    assert "Check the API key" in status_error("anthropic", 401, "invalid x-api-key",
                                               code="authentication_error").hint
    assert "shorten" in status_error("anthropic", 400, "prompt is too long: 210000 tokens > 200000 maximum").hint
    quota = status_error("openai", 429, "You exceeded your current quota", code="insufficient_quota")
    assert not quota.retryable and "add credit" in quota.hint


def test_a_compatible_server_keeps_a_location_or_billing_hint():
    """On an OpenAI-compatible gateway, a 401/403 gets the hint to pass the server's own key, unless the error said
    it is about the location or billing (a gateway passing OpenAI's refusal on)."""
    from toolwire.models._openai_errors import SERVER_KEY_HINT, adapt_error

    plain = adapt_error(status_error("openai", 403, "Forbidden"), "https://gw.example.com/v1", compatible=True)
    assert plain.hint == SERVER_KEY_HINT
    where = adapt_error(status_error("openai", 403, "Country, region, or territory not supported",
                                     code="unsupported_country_region_territory"),
                        "https://gw.example.com/v1", compatible=True)
    assert "country or region" in where.hint


# --- #2: retry waits keep their documented limits -------------------------------------------------------------------

@pytest.fixture
def jitter_at(monkeypatch):
    """Fix the jitter's random factor at its top (``"high"``) or bottom (``"low"``) end."""
    from toolwire.models import _retry

    def pick(end: str) -> None:
        monkeypatch.setattr(_retry.random, "uniform", (lambda a, b: b) if end == "high" else (lambda a, b: a))
    return pick


def test_jitter_never_pushes_a_wait_past_max_delay(jitter_at):
    """``max_delay`` is the longest wait: a wait that reached it is not pushed up to 25 s by the jitter."""
    from toolwire.models._retry import RetryPolicy

    policy = RetryPolicy(max_retries=10)
    jitter_at("high")
    assert [policy.delay(n) for n in range(1, 11)][-1] == policy.max_delay == 20.0
    assert max(policy.delay(n) for n in range(1, 11)) <= policy.max_delay
    assert policy.delay(1) == pytest.approx(0.625)  # (below the cap, the jitter still spreads the waits)
    jitter_at("low")
    assert policy.delay(10) == pytest.approx(15.0) and policy.delay(1) == pytest.approx(0.375)


def test_a_retry_backoff_above_the_cap_is_honoured(jitter_at):
    """``retry_backoff`` is "seconds before the first retry": 60 waits about 60 s (not 15-25 s), and no wait is longer
    than it; a server's Retry-After may ask for as long too."""
    from toolwire.models import ChatOpenAI
    from toolwire.models._retry import RetryPolicy

    policy = ChatOpenAI("gpt-4o", api_key=KEY, base_url="http://127.0.0.1:9/v1", compatible=False,
                        retry_backoff=60).retry_policy
    jitter_at("high")
    assert policy.delay(1) == 60.0 and policy.delay(2) == 60.0
    jitter_at("low")
    assert policy.delay(1) == pytest.approx(45.0)
    assert policy.delay(1, server_hint=100) == 60.0 and policy.delay(1, server_hint=30) == 30.0
    assert RetryPolicy().delay(1, server_hint=100) == 20.0  # (the default's cap stays 20 s)


def test_random_waits_stay_within_their_limits():
    """Sampled, not fixed: every wait of the default policy is at most 20 s, and with ``retry_backoff=60`` the first
    is never below 45 s."""
    from toolwire.models._retry import RetryPolicy

    random.seed(263)
    assert max(RetryPolicy().delay(7) for _ in range(500)) <= 20.0
    assert min(RetryPolicy(initial_delay=60).delay(1) for _ in range(500)) >= 45.0


# --- #3: Gemini's async timeout bounds each read --------------------------------------------------------------------


def _drip_server(gap: float, pieces: int):
    """A server whose whole (non-stream) Gemini reply comes a byte every ``gap`` seconds (``pieces`` of them, then
    the rest), as from a keep-alive proxy or a large reply on a slow link: each read is quick, the whole is not."""
    import json
    import time
    from http.server import BaseHTTPRequestHandler

    reply = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP",
                             "index": 0}], "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1}}

    class Drip(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            data = (" " * pieces + json.dumps(reply)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            try:
                for _ in range(pieces):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(gap)
                self.wfile.write(data[pieces:])
            except OSError:  # (the client gave up)
                pass

    return Drip


def test_gemini_ainvoke_bounds_each_read_as_invoke_does():
    """A reply whose body takes longer than ``timeout`` in all, each piece well within it, is read by ``ainvoke`` as
    by ``invoke`` (it was a timeout after ``timeout`` seconds, retried from scratch)."""
    from _queued_http import serve_handler
    from toolwire.models import ChatGoogleGenAI

    with contextlib.contextmanager(serve_handler)(_drip_server(gap=0.15, pieces=12)) as port:  # ~1.8 s in all
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=f"http://127.0.0.1:{port}",
                                timeout=1, max_retries=0)
        assert asyncio.run(model.ainvoke("hi")).content == "ok"


def test_gemini_ainvoke_still_times_out_on_a_stalled_read():
    """A body that stops coming still fails after ``timeout`` (one read waited for longer), as a retryable timeout."""
    from _queued_http import serve_handler
    from toolwire.models import ChatGoogleGenAI

    with contextlib.contextmanager(serve_handler)(_drip_server(gap=3, pieces=2)) as port:
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=f"http://127.0.0.1:{port}",
                                timeout=0.5, max_retries=0)
        error = _failure(lambda: asyncio.run(model.ainvoke("hi")))
    assert error.retryable and "timed out" in str(error)
