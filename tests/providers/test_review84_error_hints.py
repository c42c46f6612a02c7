"""Review 84 #6: error hints that gave the wrong next step, or none.

* a 400 that says the request is longer than the model's context said "the message above says which field";
* a compatible server's 401 pointed only to OPENAI_API_KEY (which would send an OpenAI key to that host);
* a stream that stalled after content advised raising max_retries (a stream is not retried after content);
* a Gemini HTML error page was shown raw, tags and all;
* a vLLM ``{"object": "error"}`` event was not retryable and gave no advice, unlike other cuts of a stream.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from toolwire.errors import ProviderError
from toolwire.messages import AIMessageChunk, merge_chunks
from toolwire.models._retry import RetryPolicy, retry_stream, transport_error

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer
from .wire_raw import Raw, chunk


def _error(provider: str, answer: Answer, **options: object) -> ProviderError:
    with ScriptedServer() as server:
        server.push(answer)
        with pytest.raises(ProviderError) as caught:
            build_model(provider, server.url, **options).invoke("hi")
    return caught.value


@pytest.mark.parametrize(("provider", "body"), [
    ("openai-chat", {"error": {"message": "This model's maximum context length is 128000 tokens. However, your "
                                          "messages resulted in 130000 tokens.", "type": "invalid_request_error",
                               "code": "context_length_exceeded"}}),
    ("anthropic", {"type": "error", "error": {"type": "invalid_request_error",
                                              "message": "prompt is too long: 210000 tokens > 200000 maximum"}}),
])
def test_a_request_longer_than_the_context_says_to_shorten_it(provider: str, body: dict) -> None:
    error = _error(provider, Answer(status=400, body=body))
    assert "shorten" in (error.hint or "") and "which field" not in (error.hint or "")
    assert error.retryable is False


def test_a_compatible_servers_401_points_to_api_key() -> None:
    body = {"error": {"message": "Unauthorized", "type": "invalid_request_error"}}
    compat = _error("openai-chat", Answer(status=401, body=body))
    assert "api_key=" in (compat.hint or "")  # (was: "Check the API key (OPENAI_API_KEY) ...")
    openai = _error("openai-chat", Answer(status=401, body=body), compatible=False)
    assert "OPENAI_API_KEY" in (openai.hint or "")


def test_a_stall_after_content_does_not_advise_max_retries() -> None:
    class ReadTimeout(Exception):  # what httpx raises when the next piece of a stream does not come in time
        pass

    ReadTimeout.__module__ = "httpx"
    ReadTimeout.__qualname__ = ReadTimeout.__name__ = "TimeoutException"

    def attempt() -> Iterator[AIMessageChunk]:
        yield AIMessageChunk("Hel")
        raise ReadTimeout("read timed out")

    def translate(exc: BaseException) -> ProviderError | None:
        return transport_error("openai", exc, timeout=1.0)

    with pytest.raises(ProviderError) as caught:
        list(retry_stream(attempt, RetryPolicy(max_retries=2, initial_delay=0.0), translate,
                          lambda c: bool(c.content)))
    assert "max_retries" not in str(caught.value)  # (was: "..., or raise timeout / max_retries.")
    assert "timeout" in (caught.value.hint or "")
    assert "max_retries" not in caught.value.without_api_advice()


def test_a_gemini_html_error_page_is_shown_as_its_text() -> None:
    page = "<html><body><h1>503 Service Unavailable</h1></body></html>"
    error = _error("gemini", Answer(status=503, body=page, content_type="text/html"))
    assert "<" not in str(error) and "503 Service Unavailable" in str(error)


@pytest.mark.parametrize("event", [{"object": "error", "message": "Engine died", "code": 500},
                                   {"object": "error", "message": "Engine died"}])
def test_a_vllm_error_event_after_content_is_like_other_cuts(raw, make, event) -> None:
    raw.queue(Raw(events=[chunk({"content": "Hel"}), event]))
    with pytest.raises(ProviderError) as caught:
        merge_chunks(make().stream("hi"))
    assert caught.value.retryable is True  # (was: False, and no advice)
    # a 500 of a server on this machine points at its log, as an HTTP 500 from it does (review 177 #6)
    assert ("its log says why" if "code" in event else "again") in (caught.value.hint or "")
