"""An AIMessage's usage= is read as usage_metadata= is: ``input_token_details["cache_read"]`` is ``cached_tokens``,
the other detail keys are kept, an empty details dict is left out; so a message whose usage has token details is equal
to itself after ``model_dump()``, ``messages_to_dict``/``messages_from_dict`` and a LangChain round trip
(review 291 #3)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire import AIMessage, AIMessageChunk, merge_chunks, messages_from_dict, messages_to_dict

COUNTS = {"input_tokens": 10, "output_tokens": 2}
USAGES: list[dict[str, Any]] = [
    {**COUNTS, "input_token_details": {"cache_read": 4}},
    {**COUNTS, "input_token_details": {}},
    {**COUNTS, "output_token_details": {}},
    {**COUNTS, "input_token_details": {"cache_read": 4, "cache_creation": 3}, "output_token_details": {"reasoning": 1}},
    {**COUNTS, "cached_tokens": 4, "input_token_details": {"cache_creation": 3}},
    {**COUNTS, "cached_tokens": 4, "input_token_details": {}},
    {**COUNTS, "input_token_details": {"cache_read": None, "audio": 2}},
    {**COUNTS, "total_tokens": 12, "output_token_details": {"reasoning": 0}},
]


@pytest.mark.parametrize("usage", USAGES)
def test_usage_is_read_as_usage_metadata_is(usage):
    assert AIMessage("hi", usage=dict(usage)) == AIMessage("hi", usage_metadata=dict(usage))


def test_the_normal_form():
    assert AIMessage("hi", usage={**COUNTS, "input_token_details": {"cache_read": 4, "audio": 1},  # type: ignore[typeddict-unknown-key]
                                  "output_token_details": {}}).usage == {
        **COUNTS, "total_tokens": 12, "cached_tokens": 4, "input_token_details": {"audio": 1}}
    assert AIMessage("hi", usage={**COUNTS, "input_token_details": {}}).usage == {  # type: ignore[typeddict-unknown-key]
        **COUNTS, "total_tokens": 12}
    with_details = AIMessage("hi", usage={**COUNTS, "input_token_details": {"cache_read": 4}})  # type: ignore[typeddict-unknown-key]
    assert with_details.usage_metadata == {**COUNTS, "total_tokens": 12, "cached_tokens": 4,
                                           "input_token_details": {"cache_read": 4}}


@pytest.mark.parametrize("usage", USAGES)
def test_model_dump_rebuilds_an_equal_message(usage):
    message = AIMessage("hi", usage=dict(usage))
    assert AIMessage(**message.model_dump()) == message


@pytest.mark.parametrize("usage", USAGES)
def test_saved_and_read_back_is_equal(usage):
    message = AIMessage("hi", usage=dict(usage))
    assert messages_from_dict(json.loads(json.dumps(messages_to_dict([message]))))[0] == message


@pytest.mark.parametrize("usage", USAGES)
def test_langchain_round_trips_are_equal(usage):
    pytest.importorskip("langchain_core")
    from langchain_core.messages import messages_from_dict as lc_messages_from_dict

    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    message = AIMessage("hi", usage=dict(usage))
    assert from_langchain_messages(to_langchain_messages([message]))[0] == message
    read_by_langchain = lc_messages_from_dict(json.loads(json.dumps(messages_to_dict([message]))))
    assert from_langchain_messages(read_by_langchain)[0] == message


@pytest.mark.parametrize("usage", USAGES)
def test_chunks_read_it_alike(usage):
    chunk = AIMessageChunk("hi", usage=dict(usage))
    assert chunk.usage == AIMessage("hi", usage=dict(usage)).usage
    assert AIMessageChunk(**chunk.model_dump()) == chunk
    assert merge_chunks([chunk], as_chunk=False) == AIMessage("hi", usage=dict(usage))


def test_details_of_split_usage_add_up():
    merged = merge_chunks([
        AIMessageChunk("a", usage={**COUNTS, "input_token_details": {"cache_read": 1}}),  # type: ignore[typeddict-unknown-key]
        AIMessageChunk("b", usage={**COUNTS, "input_token_details": {"cache_read": 2, "audio": 0}}),  # type: ignore[typeddict-unknown-key]
    ], as_chunk=False)
    assert merged.usage == {"input_tokens": 20, "output_tokens": 4, "total_tokens": 24, "cached_tokens": 3,
                            "input_token_details": {"audio": 0}}
    assert merged.usage_metadata == {"input_tokens": 20, "output_tokens": 4, "total_tokens": 24, "cached_tokens": 3,
                                     "input_token_details": {"audio": 0, "cache_read": 3}}
