"""An AIMessageChunk is rebuilt from its own model_dump(), as LangChain rebuilds one (review 195 #5)."""

from __future__ import annotations

import json

import pytest

from toolwire.chunks import AIMessageChunk, merge_chunks
from toolwire.errors import UserError


def _chunk() -> AIMessageChunk:
    return AIMessageChunk("hi", tool_call_chunks=[{"name": "f", "args": '{"a": 1}', "id": "c1", "index": 0,
                                                   "type": "tool_call_chunk"}],
                          usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}, id="m1")


@pytest.mark.parametrize("mode", ["python", "json"])
def test_chunk_rebuilt_from_its_model_dump(mode: str) -> None:
    chunk = _chunk()
    data = chunk.model_dump() if mode == "python" else json.loads(chunk.model_dump_json())
    rebuilt = AIMessageChunk(**data)
    assert rebuilt == chunk
    assert rebuilt.to_message() == chunk.to_message()


def test_calls_without_chunks_become_chunks() -> None:
    data = _chunk().model_dump()
    data["tool_call_chunks"] = []
    rebuilt = AIMessageChunk(**data)
    assert rebuilt.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    merged = merge_chunks([rebuilt, AIMessageChunk(" there")]).to_message()
    assert merged.tool_calls == rebuilt.tool_calls and merged.content == "hi there"


def test_unreadable_call_arguments_stay_an_invalid_call() -> None:
    message = AIMessageChunk(tool_calls=[{"name": "f", "args": "{bad", "id": "c9"}]).to_message()
    assert message.tool_calls == []
    assert [(c["name"], c["id"], c["args"]) for c in message.invalid_tool_calls] == [("f", "c9", "{bad")]


@pytest.mark.parametrize("keys", [{"type": "ai"}, {"chunk_position": "first"}])
def test_other_values_are_refused(keys: dict[str, str]) -> None:
    with pytest.raises(UserError, match="AIMessageChunk was given"):
        AIMessageChunk(**keys)


def test_last_position_and_own_type_are_taken() -> None:
    assert AIMessageChunk("x", type="AIMessageChunk", chunk_position="last").content == "x"
