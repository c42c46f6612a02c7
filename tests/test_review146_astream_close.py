"""Review 146 #3: leaving ``ChatOpenAI.astream`` early (``break``) made asyncio log ``ERROR ... aclose(): asynchronous
generator is already running`` when the loop shut down, and ``await agen.aclose()`` returned before the HTTP stream
was closed (the inner generators were left to asyncio's finalizer). Every layer now closes the one it wraps, so the
HTTP stream is closed before ``aclose()`` returns, for every provider, and nothing is logged."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("google.genai")

import toolwire.models._sdk as sdk_module
from providers.conftest import build_model
from providers.scripted_http import Answer, ScriptedServer

CHAT = [{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"content": "Hel"}, "finish_reason": None}]}] * 3
RESPONSES = [
    {"type": "response.created", "sequence_number": 0,
     "response": {"id": "r", "object": "response", "created_at": 1, "model": "m", "status": "in_progress",
                  "output": []}},
    {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
     "item": {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}},
    *[{"type": "response.output_text.delta", "sequence_number": 2 + n, "item_id": "msg_1", "output_index": 0,
       "content_index": 0, "delta": "Hel", "logprobs": []} for n in range(3)],
]
ANTHROPIC = [
    ("message_start", {"type": "message_start", "message": {
        "id": "m", "type": "message", "role": "assistant", "model": "c", "content": [],
        "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0,
                             "content_block": {"type": "text", "text": ""}}),
    *[("content_block_delta", {"type": "content_block_delta", "index": 0,
                               "delta": {"type": "text_delta", "text": "Hel"}})] * 3,
]
GEMINI = [{"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}, "index": 0}],
           "modelVersion": "gemini-2.5-flash"}] * 3
EVENTS: dict[str, list[Any]] = {"openai-chat": CHAT, "openai-responses": RESPONSES, "anthropic": ANTHROPIC,
                                "gemini": GEMINI}


def _pauses(provider: str) -> list[float]:
    return [0.0] * (len(EVENTS[provider]) - 1) + [1.5]


@pytest.mark.parametrize("provider", ["openai-chat", "openai-responses"])
def test_breaking_out_of_astream_logs_no_asyncio_error(provider: str, caplog: pytest.LogCaptureFixture) -> None:
    with ScriptedServer() as server:
        server.push(Answer(events=EVENTS[provider], pauses=_pauses(provider)))
        model = build_model(provider, server.url)

        async def main() -> str:
            async for chunk in model.astream("hi"):
                return chunk.text  # leaves the loop early, then the event loop shuts down at once
            return ""

        with caplog.at_level(logging.ERROR, logger="asyncio"):
            first = asyncio.run(main())
    assert first == "Hel"
    errors = [r.getMessage() for r in caplog.records if r.name == "asyncio"]
    assert errors == []  # (was: "an error occurred during closing of asynchronous generator ...attempt")


@pytest.mark.parametrize("provider", ["openai-chat", "openai-responses", "anthropic", "gemini"])
def test_aclose_closes_the_http_stream_before_it_returns(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = sdk_module.aclose_stream
    log: list[str] = []

    async def traced(stream: Any) -> None:
        log.append("closed " + type(stream).__name__)
        await real(stream)

    monkeypatch.setattr(sdk_module, "aclose_stream", traced)
    with ScriptedServer() as server:
        server.push(Answer(events=EVENTS[provider], pauses=_pauses(provider)))
        model = build_model(provider, server.url)

        async def main() -> None:
            stream = model.astream("hi")
            async for _ in stream:
                break
            await stream.aclose()  # type: ignore[attr-defined]
            log.append("aclose returned")

        asyncio.run(main())
    assert "aclose returned" in log
    returned = log.index("aclose returned")
    assert returned > 0 and all(entry.startswith("closed") for entry in log[:returned]), log


def test_a_pipelines_astream_closes_the_models_stream_before_aclose_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sdk_module.aclose_stream
    log: list[str] = []

    async def traced(stream: Any) -> None:
        log.append("closed")
        await real(stream)

    monkeypatch.setattr(sdk_module, "aclose_stream", traced)
    with ScriptedServer() as server:
        server.push(Answer(events=CHAT, pauses=_pauses("openai-chat")))
        pipeline = (lambda text: text) | build_model("openai-chat", server.url)

        async def main() -> None:
            stream = pipeline.astream("hi")
            async for _ in stream:
                break
            await stream.aclose()  # type: ignore[attr-defined]
            log.append("aclose returned")

        asyncio.run(main())
    assert log and log[0] == "closed" and log[-1] == "aclose returned"
