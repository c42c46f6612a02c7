"""Review 298 #1, the Gemini provider: ``thoughtsTokenCount`` is also ``output_token_details["reasoning"]``, as
OpenAI's reasoning tokens are, in invoke and stream.

Gemini is driven through its SDK against a small local server that answers with queued JSON bodies.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from _queued_http import QueuedServer, serving
from gemini_kit import gemini_on, reply
from toolwire.models.lowering.gemini import StreamState, parse_response


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving('') as found:
        yield found


_gemini, _reply = gemini_on, reply


_USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 20, "thoughtsTokenCount": 30,
          "cachedContentTokenCount": 40, "totalTokenCount": 150}



def test_thought_tokens_are_the_reasoning_detail_in_invoke_and_stream() -> None:
    reply = parse_response(_reply([{"text": "42"}], usageMetadata=_USAGE))
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["output_tokens"] == 50 and reply.usage_metadata["total_tokens"] == 150
    assert reply.usage_metadata.get("output_token_details") == {"reasoning": 30}
    state = StreamState()
    state.feed({"candidates": [{"content": {"role": "model", "parts": [{"text": "4"}]}}]})
    state.feed(_reply([{"text": "2"}], usageMetadata=_USAGE))
    assert state.finish().usage_metadata == reply.usage_metadata


def test_no_thought_tokens_gives_no_output_details() -> None:
    reply = parse_response(_reply([{"text": "42"}], usageMetadata={"promptTokenCount": 3, "candidatesTokenCount": 2,
                                                                    "totalTokenCount": 5}))
    assert reply.usage_metadata is not None and "output_token_details" not in reply.usage_metadata


def test_thought_tokens_through_the_sdk(server: QueuedServer) -> None:
    server.queue = [_reply([{"text": "42"}], usageMetadata=_USAGE)]
    assert _gemini(server).invoke("q").usage_metadata.get("output_token_details") == {"reasoning": 30}
