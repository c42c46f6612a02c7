"""Review 202: #5 a ``</think>`` with no ``<think>`` before it ends the reasoning only when it stands alone on its line
outside a code block, so a real call followed by prose or a fence quoting the tag is still read.

Read with ``read_text_calls`` and ``TextCallStream`` directly.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.chunks import merge_chunks
from toolwire.messages import AIMessageChunk
from toolwire.models._text_calls import TextCallStream, read_text_calls

NAMES = ("delete_file", "web_search")
DRAFT = '<tool_call>\n{"name": "delete_file", "arguments": {"path": "/home/me/report.docx"}}\n</tool_call>'
REAL = '<tool_call>\n{"name": "web_search", "arguments": {"q": "rain in Oslo"}}\n</tool_call>'
SEARCH = [("web_search", {"q": "rain in Oslo"})]


def _streamed(text: str, size: int) -> tuple[str, list[Any], list[Any]]:
    """What TextCallStream makes of ``text`` fed in pieces of ``size`` characters: (content, calls, invalid)."""
    reader = TextCallStream(NAMES)
    chunks = [c for i in range(0, len(text), size) for c in reader.feed(AIMessageChunk(text[i:i + size]))]
    message = merge_chunks([*chunks, *reader.finish()], as_chunk=False)
    return message.text, message.tool_calls, message.invalid_tool_calls


def _read(text: str) -> tuple[str, list[tuple[str, Any]], list[Any]]:
    """read_text_calls' (content, [(name, args)], invalid), the same for the stream at several chunk sizes."""
    found = read_text_calls(text, NAMES)
    assert found is not None
    content, calls, invalid = found
    pairs = [(c["name"], c["args"]) for c in calls]
    for size in (1, 3, 7, 64):
        streamed = _streamed(text, size)
        assert (streamed[0], [(c["name"], c["args"]) for c in streamed[1]]) == (content, pairs)
        assert len(streamed[2]) == len(invalid)
    return content, pairs, invalid


# -- #5: which lone </think> ends the reasoning ----------------------------------------------------------------------

NOTE = '<tool_call>\n{"name": "web_search", "arguments": {"q": "Qwen3 closing tag"}}\n</tool_call>\n'


@pytest.mark.parametrize("after", [
    "Saved. The tag is written like this:\n```\n</think>\n```",
    "Saved. The tag is written like this:\n~~~xml\n  </think>\n~~~\nand then the answer.",
    "Saved. Qwen3 closes its reasoning with </think>\nand then answers.",
    "Saved.\n</think> is how Qwen3 ends its reasoning.",
])
def test_a_real_call_followed_by_a_quoted_closing_think_is_read(after: str) -> None:
    content, calls, invalid = _read(NOTE + after)
    assert calls == [("web_search", {"q": "Qwen3 closing tag"})] and invalid == []
    assert content == after


@pytest.mark.parametrize("close", ["\n</think>\n\n", "\n</think>\n", "\n  </think>  \r\n", "\n\t</think>\n\n"])
def test_a_closing_think_alone_on_its_line_still_ends_the_reasoning(close: str) -> None:
    text = f"Maybe:\n{DRAFT}\nNo, that is destructive.{close}{REAL}"
    content, calls, invalid = _read(text)
    assert calls == SEARCH and invalid == [] and content == text[:text.index(REAL)].rstrip()
    assert read_text_calls(f"Maybe:\n{DRAFT}\nNo.{close}It will rain.", NAMES) is None


def test_a_fence_closed_in_the_reasoning_and_one_never_closed_do_not_hide_the_closing_think() -> None:
    # a code block the reasoning closes before the tag
    text = f"Draft:\n```\n{DRAFT}\n```\nNo.\n</think>\n\nIt will rain."
    assert read_text_calls(text, NAMES) is None
    # a fence that no later fence line closes opened no block: the tag in it still ends the reasoning
    text = f"Draft:\n```xml\n{DRAFT}\nNo.\n</think>\n\nIt will rain."
    assert read_text_calls(text, NAMES) is None
