"""An AIMessage given usage= without total_tokens gets the sum, as usage_metadata= does, so messages_to_dict and
to_langchain_messages write it; bad token counts in usage= are refused as in usage_metadata= (review 280 #5)."""

from __future__ import annotations

import json

import pytest

from toolwire import AIMessage, AIMessageChunk, UserError, merge_chunks, messages_from_dict, messages_to_dict

COUNTS = {"input_tokens": 10, "output_tokens": 5}
WHOLE = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}


def test_usage_without_total_gets_the_sum_as_usage_metadata_does():
    made = AIMessage("hi", usage=dict(COUNTS))  # type: ignore[typeddict-item]
    assert made.usage == WHOLE
    assert made == AIMessage("hi", usage_metadata=dict(COUNTS))
    assert made.usage_metadata == WHOLE


def test_saved_read_back_and_langchain_forms_have_the_total():
    made = AIMessage("hi", usage=dict(COUNTS))  # type: ignore[typeddict-item]
    saved = messages_to_dict([made])
    assert json.loads(json.dumps(saved))[0]["data"]["usage_metadata"]["total_tokens"] == 15
    assert messages_from_dict(saved)[0].usage == WHOLE


def test_to_langchain_messages_has_the_total():
    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import to_langchain_messages

    assert to_langchain_messages([AIMessage("hi", usage=dict(COUNTS))])[0].usage_metadata == WHOLE  # type: ignore[typeddict-item]
    # a chunk keeps its usage as given; its LangChain form still gets the sum
    from toolwire.interop._langchain_messages import _usage_to_lc

    assert _usage_to_lc(dict(COUNTS))["total_tokens"] == 15


def test_given_total_and_other_keys_are_kept_and_the_callers_dict_is_not_changed():
    given = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 20, "cached_tokens": 4,
             "input_token_details": {"cache_read": 4}}
    made = AIMessage("hi", usage=given)  # type: ignore[typeddict-item]
    assert made.usage == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 20, "cached_tokens": 4}
    assert made.usage_metadata == given  # (cache_read is cached_tokens: read as usage_metadata= is, review 291 #3)
    given["input_tokens"] = 99
    assert made.usage["input_tokens"] == 10


def test_missing_or_none_counts_read_as_usage_metadata_reads_them():
    for usage in ({"output_tokens": 5}, {"input_tokens": 10, "output_tokens": None},
                  {"input_tokens": 10.0, "output_tokens": 5, "total_tokens": None}):
        assert AIMessage("", usage=usage).usage == AIMessage("", usage_metadata=usage).usage  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [{"input_tokens": "10", "output_tokens": 5}, {"input_tokens": -1, "output_tokens": 5},
                                 {"input_tokens": 3.5, "output_tokens": 5}, {"input_tokens": True, "output_tokens": 5},
                                 {"input_tokens": 1, "output_tokens": 5, "total_tokens": "6"}])
def test_bad_counts_are_refused_as_in_usage_metadata(bad):
    with pytest.raises(UserError):
        AIMessage("hi", usage_metadata=bad)
    with pytest.raises(UserError, match=r"usage .*not a whole number of tokens"):
        AIMessage("hi", usage=bad)


@pytest.mark.parametrize("bad", ["10 tokens", 15, ["input_tokens"]])
def test_usage_that_is_not_a_dict_is_refused(bad):
    with pytest.raises(UserError, match=r"^AIMessage usage must be a dict of token counts"):
        AIMessage("hi", usage=bad)


def test_merged_chunks_get_the_total():
    merged = merge_chunks([AIMessageChunk("a", usage={"input_tokens": 10}),  # type: ignore[typeddict-item]
                           AIMessageChunk("b", usage={"output_tokens": 5})], as_chunk=False)  # type: ignore[typeddict-item]
    assert merged.usage == WHOLE
    assert AIMessage("x", usage=None).usage is None


def test_cached_tokens_are_checked_too():
    with pytest.raises(UserError, match="cached_tokens -1"):
        AIMessage("hi", usage={**WHOLE, "cached_tokens": -1})  # type: ignore[typeddict-item]
    assert "cached_tokens" not in AIMessage("hi", usage={**WHOLE, "cached_tokens": None}).usage  # type: ignore[typeddict-item, operator]
    assert AIMessage("hi", usage={**WHOLE, "cached_tokens": 4.0}).usage["cached_tokens"] == 4  # type: ignore[typeddict-item, index]
