"""Merging chunks merges their additional_kwargs as LangChain's ``merge_dicts`` does: text joined, nested dicts
merged, lists merged as ``merge_lists`` merges them (items of one ``index`` merged, others added), counts added,
equal values kept; so a legacy OpenAI ``function_call`` streamed in pieces ends whole and is read as a tool call
(review 291 #2)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire import AIMessageChunk, merge_chunks, messages_from_dict, messages_to_dict

PIECES: list[dict[str, Any]] = [{"function_call": {"name": "get_weather", "arguments": ""}},
                                {"function_call": {"arguments": '{"city": '}},
                                {"function_call": {"arguments": '"Paris"}'}}]
WHOLE_CALL = {"function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}

CASES: list[list[dict[str, Any]]] = [
    PIECES,
    [{"citations": ["a"]}, {"citations": ["b"]}],
    [{"n": 1}, {"n": 2}, {"n": 4}],
    [{"z": {"p": "a"}}, {"z": {"q": "b"}}, {"z": {"p": "c"}}],
    [{"reasoning_content": "Thin"}, {"reasoning_content": "king"}, {"reasoning_content": None},
     {"d": {"x": None, "y": None}}, {"d": {"x": "now", "y": None}}, {"d": {"x": None}}],
    [{"id": "x"}, {"id": "x"}, {"model_provider": "openai"}, {"model_provider": "openai"}],
    [{"index": 1, "created": 5, "timestamp": 9}, {"index": 2, "created": 6, "timestamp": 10}],
    [{"flag": True}, {"flag": True}, {"ratio": 0.5}, {"ratio": 0.5}],
    [{"a": None}, {"a": "now"}, {"a": "!"}],
    [{"parts": [{"index": 0, "type": "text", "text": "Hel"}, {"index": 0, "text": "nope"}]},
     {"parts": [{"index": 0, "type": "text", "text": "lo"}, {"index": 1, "text": "x"}, {"index": 1, "text": "y"}]},
     {"parts": [{"index": 0, "text": "!", "extra": {"k": [1]}}, {"index": 0, "extra": {"k": [2]}}, "plain"]}],
    [{"parts": [{"index": 0, "id": "a", "text": "1"}]}, {"parts": [{"index": 0, "id": "b", "text": "2"}]},
     {"parts": [{"index": 0, "id": "", "text": "3"}, {"index": 0, "id": "b", "text": "4"}]}],
    [{"parts": [{"index": "lc_1", "text": "a"}]}, {"parts": [{"index": "lc_1", "text": "b"}]},
     {"parts": [{"index": "x", "text": "c"}]}, {"parts": [{"index": "x", "text": "d"}]}],
    [{"parts": [{"index": 0, "type": "text", "text": "a"}]},
     {"parts": [{"index": 0, "type": "non_standard", "value": {"type": "t", "k": "v"}}]},
     {"parts": [{"index": 1, "type": "non_standard", "value": {"a": "1"}}]},
     {"parts": [{"index": 1, "type": "non_standard", "value": {"b": "2"}}]}],
    [{"deep": {"a": {"b": ["x"], "c": 1, "d": "p"}}}, {"deep": {"a": {"b": ["y"], "c": 2, "d": "q"}}}],
]


def _langchain(parts: list[dict[str, Any]]) -> dict[str, Any]:
    from langchain_core.messages import AIMessageChunk as LangChainChunk

    merged = LangChainChunk(content="", additional_kwargs=parts[0])
    for part in parts[1:]:
        merged = merged + LangChainChunk(content="", additional_kwargs=part)
    return merged.additional_kwargs


@pytest.mark.parametrize("parts", CASES)
def test_additional_kwargs_merge_as_langchain_merges_them(parts):
    pytest.importorskip("langchain_core")
    expected = _langchain(json.loads(json.dumps(parts)))
    chunks = [AIMessageChunk("", additional_kwargs=part) for part in json.loads(json.dumps(parts))]
    assert merge_chunks(chunks).additional_kwargs == expected
    added = chunks[0]
    for chunk in chunks[1:]:
        added = added + chunk
    assert added.additional_kwargs == expected
    assert [chunk.additional_kwargs for chunk in chunks] == [  # none changed (a top-level None is left out when
        {k: v for k, v in part.items() if v is not None} for part in parts]  # the chunk is made, as documented)


def test_merging_changes_no_chunk():
    parts = [{"d": {"l": [{"index": 0, "text": "a"}]}}, {"d": {"l": [{"index": 0, "text": "b"}]}}]
    chunks = [AIMessageChunk("", additional_kwargs=json.loads(json.dumps(part))) for part in parts]
    merge_chunks(chunks)
    chunks[0] + chunks[1]
    assert [chunk.additional_kwargs for chunk in chunks] == parts


def test_streamed_function_call_ends_whole_and_reads_as_a_tool_call():
    merged = merge_chunks([AIMessageChunk("", additional_kwargs=dict(part)) for part in PIECES])
    assert merged.additional_kwargs == WHOLE_CALL
    message = merged.to_message()
    read = messages_from_dict(json.loads(json.dumps(messages_to_dict([message]))))[0]
    assert [(call["name"], call["args"]) for call in read.tool_calls] == [("get_weather", {"city": "Paris"})]


def test_streamed_function_call_reads_as_langchain_merged_one_does():
    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    merged = merge_chunks([AIMessageChunk("", additional_kwargs=dict(part)) for part in PIECES])
    ours = from_langchain_messages(to_langchain_messages([merged.to_message()]))[0]
    theirs = from_langchain_messages([_lc_chunk_sum(PIECES)])[0]
    assert [(c["name"], c["args"]) for c in ours.tool_calls] == [(c["name"], c["args"]) for c in theirs.tool_calls]
    assert [(c["name"], c["args"]) for c in ours.tool_calls] == [("get_weather", {"city": "Paris"})]


def _lc_chunk_sum(parts: list[dict[str, Any]]) -> Any:
    from langchain_core.messages import AIMessageChunk as LangChainChunk

    merged = LangChainChunk(content="", additional_kwargs=dict(parts[0]))
    for part in parts[1:]:
        merged = merged + LangChainChunk(content="", additional_kwargs=dict(part))
    return merged


@pytest.mark.parametrize(("parts", "expected"), [
    ([{"v": "text"}, {"v": 3}], {"v": 3}),
    ([{"v": 1}, {"v": "text"}, {"v": "more"}], {"v": "textmore"}),
    ([{"v": True}, {"v": False}], {"v": False}),
    ([{"v": 0.5}, {"v": 0.7}], {"v": 0.7}),
    ([{"v": [1]}, {"v": {"a": 1}}], {"v": {"a": 1}}),
])
def test_values_langchain_refuses_to_merge_leave_the_later_one(parts, expected):
    merged = merge_chunks([AIMessageChunk("", additional_kwargs=part) for part in parts])
    assert merged.additional_kwargs == expected


def test_many_pieces_merge():
    n = 20_000
    chunks = [AIMessageChunk("", additional_kwargs={"function_call": {"arguments": "x"}, "l": [{"index": 0, "t": "y"}],
                                                    "n": 1}) for _ in range(n)]
    merged = merge_chunks(chunks).additional_kwargs
    assert merged["function_call"]["arguments"] == "x" * n
    assert merged["l"] == [{"index": 0, "t": "y" * n}] and merged["n"] == 1  # (an equal value is kept)
