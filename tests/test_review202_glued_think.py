"""A ``</think>`` glued to the reasoning's last sentence ends the reasoning when a blank line or the end follows it,
so a call drafted there is not run; one ending a prose line that goes on does not (review 202 #5, trade-off 1)."""

from __future__ import annotations

import pytest

from toolwire.chunks import AIMessageChunk, merge_chunks
from toolwire.messages import AIMessage
from toolwire.models._text_calls import TextCallStream, with_text_calls

NAMES = {"delete_file": {"type": "object", "properties": {"path": {"type": "string"}}}}
DRAFT = 'Maybe clean up:\n<tool_call>\n{"name": "delete_file", "arguments": {"path": "/x"}}\n</tool_call>\n'


@pytest.mark.parametrize("tail", ["No, that is destructive.</think>\n\nIt rains.", "No.</think>",
                                  "No.</think>  \r\n\r\nOk"])
def test_a_glued_close_before_a_blank_line_or_the_end_ends_the_reasoning(tail: str) -> None:
    assert with_text_calls(AIMessage(DRAFT + tail), NAMES).tool_calls == []


def test_a_glued_close_on_a_line_that_goes_on_is_not_the_end_of_reasoning() -> None:
    reply = DRAFT + "Saved. Qwen3 closes its reasoning with </think>\nand then answers."
    assert [c["name"] for c in with_text_calls(AIMessage(reply), NAMES).tool_calls] == ["delete_file"]


def test_stream_reads_it_alike() -> None:
    reply = DRAFT + "No, that is destructive.</think>\n\nIt rains."
    stream = TextCallStream(NAMES)
    chunks = [c for i in range(0, len(reply), 7) for c in stream.feed(AIMessageChunk(reply[i:i + 7]))]
    merged = merge_chunks([*chunks, *stream.finish()], as_chunk=False)
    assert merged.tool_calls == [] and merged.content == reply
