"""Review 270: Gemini's own aiohttp session, a compatible server's location hint, and retry waits. Each test failed on
the code before its fix.

#1. Gemini's async client on an event loop closed by hand (``run_until_complete`` then ``loop.close()``, without
    ``shutdown_asyncgens``) left toolwire's aiohttp session open: aiohttp reported "Unclosed client session" and
    "Unclosed connector" through the loop's exception handler (on stderr) for every such loop.
#2. In asyncio debug mode (``PYTHONASYNCIODEBUG=1``, ``-X dev``) aiohttp warns about any attribute set on a
    ``ClientSession`` of its own list: the session set one, so ``ainvoke`` failed where DeprecationWarnings are errors.
#3. OpenAI's 403 ``unsupported_country_region_territory`` (or a billing refusal) passed on by an OpenAI-compatible
    server said "Pass this server's own API key", not that the location (or billing) is the problem.
#4. A ``max_retries`` of 1,025 or more against a server that stays down overflowed the backoff (``OverflowError``)
    instead of waiting the longest wait and ending in the usual ProviderError.
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import textwrap
import types
import warnings

import pytest

from _queued_http import serving
from toolwire.errors import ProviderError
from toolwire.models._retry import RetryPolicy

KEY = "sk-test-0123456789abcdef"
GEMINI_KEY = "AIza-test-0123456789"
GEMINI_REPLY = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP",
                                "index": 0}], "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1}}
_UNCLOSED = ("Unclosed client session", "Unclosed connector")


def _failure(run) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        run()
    return caught.value


# --- #1: a loop closed by hand drops Gemini's session quietly -------------------------------------------------------


def test_gemini_session_of_a_loop_closed_by_hand_is_dropped_quietly():
    """Two loops closed by hand, one after the other (a server that runs a loop per request), then the model dropped
    and collected: aiohttp reports no unclosed session or connector, neither as a warning (all shown, as ``-W error``
    would raise them) nor through a loop's exception handler (the message on stderr)."""
    pytest.importorskip("aiohttp")
    from toolwire.models import ChatGoogleGenAI

    reported: list[str] = []
    with serving() as server, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        server.queue += [GEMINI_REPLY] * 2
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key=GEMINI_KEY, base_url=server.url, timeout=5,
                                max_retries=0)
        for _ in range(2):
            loop = asyncio.new_event_loop()
            loop.set_exception_handler(lambda _loop, context: reported.append(str(context.get("message"))))
            assert loop.run_until_complete(model.ainvoke("hi")).content == "ok"
            loop.close()
        del model, loop
        gc.collect()
    said = reported + [str(w.message) for w in caught]
    assert not [s for s in said if s.startswith(_UNCLOSED)], said


def test_gemini_session_is_still_closed_when_the_loop_shuts_down():
    """``asyncio.run`` (which shuts the loop down) still closes the session itself, as before."""
    pytest.importorskip("aiohttp")
    from toolwire.models import ChatGoogleGenAI

    sessions = []
    with serving() as server:
        server.queue.append(GEMINI_REPLY)
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key=GEMINI_KEY, base_url=server.url, max_retries=0)

        async def run() -> str:
            found = await model.ainvoke("hi")
            clients = model._clients.async_by_loop[asyncio.get_running_loop()]
            sessions.append(clients.client._session)
            return found.content

        assert asyncio.run(run()) == "ok"
    assert sessions[0].closed


# --- #2: asyncio debug mode -----------------------------------------------------------------------------------------

_DEBUG_SCRIPT = """
import asyncio, sys
from toolwire.models import ChatGoogleGenAI
model = ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=sys.argv[1], max_retries=0)
print(asyncio.run(model.ainvoke("hi")).content)
"""


@pytest.mark.parametrize("debug", [["-X", "dev"], []], ids=["dev-mode", "PYTHONASYNCIODEBUG"])
def test_gemini_ainvoke_works_in_asyncio_debug_mode(debug):
    """aiohttp's debug mode (read when it is imported) warns about a custom attribute on a session; with
    DeprecationWarnings as errors ``ainvoke`` still answers, and nothing about the session is printed."""
    pytest.importorskip("aiohttp")
    env = {**os.environ, "PYTHONASYNCIODEBUG": "1"}
    with serving() as server:
        server.queue.append(GEMINI_REPLY)
        done = subprocess.run([sys.executable, *debug, "-W", "error::DeprecationWarning", "-c",
                               textwrap.dedent(_DEBUG_SCRIPT), server.url],
                              capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert "discouraged" not in done.stderr and "Unclosed client session" not in done.stderr, done.stderr


# --- #3: a compatible server's location and billing refusals --------------------------------------------------------


@pytest.mark.parametrize("code, said, hint", [
    ("unsupported_country_region_territory", "Country, region, or territory not supported", "country or region"),
    ("insufficient_quota", "You exceeded your current quota", "add credit"),
])
def test_a_compatible_server_passing_on_a_location_or_billing_refusal_keeps_its_hint(code, said, hint):
    """A gateway in front of OpenAI (``compatible=True``, the default for another ``base_url``) passing OpenAI's 403
    on: the hint says what the error is about, not to pass the server's own key; a plain 403 still says that."""
    from toolwire.models import ChatOpenAI
    from toolwire.models._openai_errors import SERVER_KEY_HINT

    body = {"error": {"message": said, "type": "request_forbidden", "param": None, "code": code}}
    plain = {"error": {"message": "Forbidden", "type": "invalid_request_error", "param": None, "code": None}}
    with serving("/v1") as server:
        server.queue += [(403, body), (403, plain)]
        model = ChatOpenAI("gpt-4o", api_key=KEY, base_url=server.url, max_retries=0)
        assert model._compatible
        error = _failure(lambda: model.invoke("hi"))
        other = _failure(lambda: model.invoke("hi"))
    assert error.status == 403 and not error.retryable
    assert hint in (error.hint or "") and "own API key" not in str(error)
    assert other.hint == SERVER_KEY_HINT


# --- #4: a large max_retries ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("retry", [1025, 1100, 10**6, 10**12])
def test_backoff_of_a_late_retry_is_the_longest_wait(retry):
    """The wait before a late retry is computed without overflowing (or working out a huge power): at most the
    longest wait, and about it."""
    for policy in (RetryPolicy(), RetryPolicy(initial_delay=3, multiplier=10), RetryPolicy(multiplier=3, jitter=0)):
        wait = policy.delay(retry)
        assert policy.max_delay * (1 - policy.jitter) <= wait <= policy.max_delay
    assert RetryPolicy(initial_delay=0).delay(retry) == 0
    assert RetryPolicy(multiplier=1, jitter=0).delay(retry) == 0.5
    assert RetryPolicy(initial_delay=60, jitter=0).delay(retry) == 60


def test_early_backoff_waits_are_unchanged():
    """The first waits still double from ``initial_delay`` up to the cap."""
    policy = RetryPolicy(jitter=0)
    assert [policy.delay(n) for n in range(1, 8)] == [0.5, 1, 2, 4, 8, 16, 20]
    assert RetryPolicy(initial_delay=1.5, multiplier=3, max_delay=100, jitter=0).delay(4) == 40.5


def test_many_retries_against_a_server_that_stays_down_end_in_a_provider_error(monkeypatch):
    """``max_retries=1100`` with every try failing as a server that stays down does (503): each wait is at most the
    longest (no real sleep here), and the run ends in the usual ProviderError after every try."""
    import toolwire.models._retry as retry_module

    waits: list[float] = []
    monkeypatch.setattr(retry_module, "time", types.SimpleNamespace(sleep=waits.append))  # (no real waits)
    tries: list[int] = []

    def down() -> None:
        tries.append(1)
        raise retry_module.status_error("openai", 503, "The engine is currently overloaded", key_env="OPENAI_API_KEY")

    error = _failure(lambda: retry_module.with_retries(down, RetryPolicy(max_retries=1100), lambda exc: None))
    assert error.status == 503 and "failed on its side" in (error.hint or "") and "1101 attempts" in str(error)
    assert len(tries) == 1101 and len(waits) == 1100 and max(waits) <= 20 and min(waits[10:]) >= 15
