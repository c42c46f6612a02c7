"""Review 298 #5, the Gemini provider: a streamed reply of several candidates (``candidate_count`` > 1) is candidate
0's only (by its ``index``; a candidate without one is 0), as ``invoke`` reads it: other candidates' text is not
mixed in and their calls never run.

Gemini is driven through its SDK against a small local server that answers with queued JSON bodies.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from _queued_http import QueuedServer, serving
from gemini_kit import gemini_on, reply
from toolwire import Agent, tool
from toolwire.chunks import merge_chunks
from toolwire.models.lowering.gemini import StreamState, parse_response


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving('') as found:
        yield found


_gemini, _reply = gemini_on, reply



def _cand(index: int | None, parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if index is not None:
        out["index"] = index
    if finish:
        out["finishReason"] = finish
    return out


def _text(index: int | None, text: str, finish: str | None = None) -> dict[str, Any]:
    return _cand(index, [{"text": text}], finish)


def _fold(chunks: list[dict[str, Any]]) -> Any:
    state = StreamState()
    pieces = [piece for chunk in chunks if (piece := state.feed(chunk)) is not None]
    return merge_chunks([*pieces, state.finish()], as_chunk=False)


def test_stream_reads_candidate_zero_only_one_candidate_a_chunk() -> None:
    chunks = [{"candidates": [_text(None, "Alpha ")]}, {"candidates": [_text(1, "Beta ")]},
              {"candidates": [_text(0, "one", "STOP")]}, {"candidates": [_text(1, "two", "STOP")]}]
    streamed = _fold(chunks)
    whole = parse_response({"candidates": [_text(None, "Alpha one", "STOP"), _text(1, "Beta two", "STOP")]})
    assert streamed.content == whole.content == "Alpha one"
    assert streamed.response_metadata["finish_reason"] == "STOP"


def test_stream_ignores_a_later_candidate_that_ends_first() -> None:
    chunks = [{"candidates": [_text(1, "Beta two", "MAX_TOKENS"), _text(None, "Alpha ")]},
              {"candidates": [_text(0, "one", "STOP")]}]
    streamed = _fold(chunks)
    assert streamed.content == "Alpha one" and streamed.response_metadata["finish_reason"] == "STOP"


def test_invoke_reads_candidate_zero_by_its_index() -> None:
    whole = parse_response({"candidates": [_text(1, "Beta", "STOP"), _text(0, "Alpha", "STOP")]})
    assert whole.content == "Alpha"


_RAN: list[str] = []


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    _RAN.append(path)
    return "deleted"


@pytest.mark.parametrize("streaming", [False, True])
def test_another_candidates_call_never_runs(server: QueuedServer, streaming: bool) -> None:
    _RAN.clear()
    call = [{"functionCall": {"name": "delete_file", "args": {"path": "/etc/passwd"}}}]
    whole = {"candidates": [_text(None, "I will not delete anything.", "STOP"), _cand(1, call, "STOP")]}
    chunks = [{"candidates": [_text(None, "I will not ")]}, {"candidates": [_cand(1, call, "STOP")]},
              {"candidates": [_text(None, "delete anything.", "STOP")]}]
    server.queue = [chunks if streaming else whole, _reply([{"text": "done"}])]
    model = _gemini(server, streaming=streaming, model_kwargs={"candidate_count": 2})
    result = Agent(model, [delete_file]).invoke("clean up")
    assert result.messages[1].content == "I will not delete anything."
    assert not result.messages[1].tool_calls and _RAN == []
