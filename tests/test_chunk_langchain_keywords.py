"""AIMessageChunk takes LangChain's constructor keywords ``usage_metadata`` and ``additional_kwargs``, as AIMessage
does (a LangChain migrant's streaming code builds chunks with them)."""

from __future__ import annotations

import pytest

from toolwire import UserError
from toolwire.messages import AIMessageChunk, merge_chunks

USAGE = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}


def _raw(index: int, args: str, name: str | None = None, id: str | None = None) -> dict:
    return {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": args}}


def test_usage_metadata_is_the_usage() -> None:
    chunk = AIMessageChunk("hi", usage_metadata=USAGE)
    assert chunk.usage == USAGE == chunk.usage_metadata
    assert merge_chunks([AIMessageChunk("a"), chunk]).to_message().usage == USAGE


def test_usage_metadata_fills_a_missing_total_and_reads_cache_reads() -> None:
    chunk = AIMessageChunk(usage_metadata={"input_tokens": 4, "output_tokens": 1,
                                           "input_token_details": {"cache_read": 2}})
    assert chunk.usage == {"input_tokens": 4, "output_tokens": 1, "total_tokens": 5, "cached_tokens": 2}


def test_openai_format_calls_in_additional_kwargs_are_the_tool_call_chunks() -> None:
    chunks = [AIMessageChunk(additional_kwargs={"tool_calls": [_raw(0, '{"city": ', "weather", "c1")]}),
              AIMessageChunk(additional_kwargs={"tool_calls": [_raw(0, '"Oslo"}'), _raw(1, "{}", "time", "c2")]})]
    message = merge_chunks(chunks).to_message()
    assert [(c["name"], c["args"], c["id"]) for c in message.tool_calls] == [
        ("weather", {"city": "Oslo"}, "c1"), ("time", {}, "c2")]
    assert message.response_metadata == {}  # the calls are read, not kept twice


def test_given_tool_call_chunks_win_over_the_raw_calls() -> None:
    given = [{"name": "a", "args": "{}", "id": "x", "index": 0, "type": "tool_call_chunk"}]
    chunk = AIMessageChunk(tool_call_chunks=given, additional_kwargs={"tool_calls": [_raw(0, "{}", "b", "y")]})
    assert [c["name"] for c in chunk.tool_calls] == ["a"]


def test_other_additional_kwargs_are_kept_in_response_metadata() -> None:
    chunk = AIMessageChunk("x", additional_kwargs={"refusal": None, "logprobs": [1]})
    assert chunk.response_metadata == {"additional_kwargs": {"logprobs": [1]}}


@pytest.mark.parametrize(("keywords", "message"), [
    ({"usage_metadata": 5}, r"^AIMessageChunk usage_metadata must be a dict"),
    ({"usage_metadata": {"input_tokens": "many"}}, "not a whole number of tokens"),
    ({"additional_kwargs": "x"}, r"^AIMessageChunk additional_kwargs must be a dict"),
    ({"usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}, "usage_metadata": USAGE},
     r"^AIMessageChunk takes the token counts once"),
])
def test_wrong_keywords_are_one_sentence(keywords: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        AIMessageChunk("", **keywords)
