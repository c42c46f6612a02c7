"""An AIMessageChunk given usage= reads it as AIMessage(usage=...) and usage_metadata= do: a missing total_tokens is
the sum and bad counts are refused at once, so a stream whose usage is split Anthropic's way (the input counts first,
the output count last, without a total) adds up to the right total (review 291 #1)."""

from __future__ import annotations

import pytest

from toolwire import Agent, AIMessage, AIMessageChunk, UserError, merge_chunks
from toolwire.models.base import BaseChatModel

START = {"input_tokens": 12, "output_tokens": 0, "total_tokens": 12}  # Anthropic's message_start
END = {"output_tokens": 7}  # Anthropic's message_delta
WHOLE = {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19}


def test_chunk_usage_gets_its_total_as_the_message_and_usage_metadata_do():
    chunk = AIMessageChunk("", usage=dict(END))  # type: ignore[typeddict-item]
    assert chunk.usage == {"input_tokens": 0, "output_tokens": 7, "total_tokens": 7}
    assert chunk.usage == AIMessage("", usage=dict(END)).usage  # type: ignore[typeddict-item]
    assert chunk.usage == AIMessageChunk("", usage_metadata=dict(END)).usage
    assert chunk.usage_metadata is not None and chunk.usage_metadata["total_tokens"] == 7


def test_chunk_keeps_its_own_copy_of_usage():
    given = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    chunk = AIMessageChunk("", usage=given)  # type: ignore[arg-type]
    given["input_tokens"] = 100
    assert chunk.usage == {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}


def test_split_usage_merges_to_the_right_total():
    for merged in (merge_chunks([AIMessageChunk("Hi", usage=dict(START)),  # type: ignore[typeddict-item]
                                 AIMessageChunk("!", usage=dict(END))], as_chunk=False),  # type: ignore[typeddict-item]
                   (AIMessageChunk("Hi", usage=dict(START))  # type: ignore[typeddict-item]
                    + AIMessageChunk("!", usage=dict(END))).to_message()):  # type: ignore[typeddict-item]
        assert merged.usage == WHOLE


class _Streamer(BaseChatModel):
    """A custom model that streams its reply with Anthropic-style split usage."""

    def _generate(self, request):  # type: ignore[no-untyped-def]
        return merge_chunks(list(self._stream(request)), as_chunk=False)

    def _stream(self, request):  # type: ignore[no-untyped-def]
        yield AIMessageChunk("Hi", usage=dict(START))  # type: ignore[typeddict-item]
        yield AIMessageChunk("!", usage=dict(END))  # type: ignore[typeddict-item]


def test_custom_model_stream_and_agent_count_every_token():
    model = _Streamer()
    assert model.invoke("x").usage == WHOLE
    total = None
    for chunk in model.stream("x"):
        total = chunk if total is None else total + chunk
    assert total is not None and total.usage_metadata == WHOLE
    assert Agent(_Streamer(), tools=[]).invoke("x").usage == WHOLE


@pytest.mark.parametrize("bad", ["junk", 15, ["input_tokens"]])
def test_chunk_usage_that_is_not_a_dict_is_refused_at_once(bad):
    with pytest.raises(UserError, match=r"^AIMessageChunk usage must be a dict of token counts"):
        AIMessageChunk("hi", usage=bad)


@pytest.mark.parametrize("bad", [{"input_tokens": "5"}, {"input_tokens": -1}, {"output_tokens": 2.5}])
def test_chunk_usage_with_a_bad_count_is_refused_at_once(bad):
    with pytest.raises(UserError, match=r"^AIMessageChunk usage .*not a whole number of tokens"):
        AIMessageChunk("hi", usage=bad)


def test_chunk_usage_with_none_counts_still_merges():
    merged = merge_chunks([AIMessageChunk("a", usage={"input_tokens": 3, "output_tokens": None}),  # type: ignore[typeddict-item]
                           AIMessageChunk("b", usage={"input_tokens": None, "output_tokens": 4})],  # type: ignore[typeddict-item]
                          as_chunk=False)
    assert merged.usage == {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}
