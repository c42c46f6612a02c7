"""Review 202: #2 a call drafted in a ``<think>`` block that follows a real call (interleaved thinking written in the
content) is not read, in any marked format, in invoke and stream alike, and the block stays in the content where it
stood; #5 a ``</think>`` with no ``<think>`` before it ends the reasoning only when it stands alone on its line
outside a code block, so a real call followed by prose or a fence quoting the tag is still read.

Read with ``read_text_calls`` and ``TextCallStream`` directly, and through ``ChatOpenAI`` against a small local
server that answers with queued bodies.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from _queued_http import serving
from toolwire import Agent, tool
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


# -- #2: a <think> block after a real call ---------------------------------------------------------------------------

THOUGHT = f"<think>\nShould I also clean up?\n{DRAFT}\nNo - nobody asked for that.\n</think>"

MARKED = {  # the same web_search call, and a delete_file draft, in each marked format
    "hermes": (REAL, DRAFT),
    "mistral": ('[TOOL_CALLS] [{"name": "web_search", "arguments": {"q": "rain in Oslo"}}]',
                '[TOOL_CALLS] [{"name": "delete_file", "arguments": {"path": "/home/me/report.docx"}}]'),
    "python_tag": ('<|python_tag|>{"name": "web_search", "parameters": {"q": "rain in Oslo"}}',
                   '<|python_tag|>{"name": "delete_file", "parameters": {"path": "/home/me/report.docx"}}'),
    "function": ('<function=web_search>{"q": "rain in Oslo"}</function>',
                 '<function=delete_file>{"path": "/home/me/report.docx"}</function>'),
    "qwen3_coder": ("<function=web_search>\n<parameter=q>\nrain in Oslo\n</parameter>\n</function>",
                    "<function=delete_file>\n<parameter=path>\n/home/me/report.docx\n</parameter>\n</function>"),
}


@pytest.mark.parametrize("closed", [True, False])
@pytest.mark.parametrize("family", sorted(MARKED))
def test_a_call_drafted_in_a_think_block_after_a_real_call_is_not_read(family: str, closed: bool) -> None:
    real, draft = MARKED[family]
    thought = f"<think>\nShould I also clean up?\n{draft}\nNo - nobody asked for that."
    thought += "\n</think>" if closed else ""
    content, calls, invalid = _read(f"Let me look.\n{real}\n{thought}")
    assert calls == SEARCH and invalid == []
    assert content == f"Let me look.\n\n{thought}"  # (the reasoning kept, in place)


def test_a_think_block_between_two_real_calls_is_kept_between_them_in_the_content() -> None:
    text = f"{REAL}\n{THOUGHT}\n{REAL.replace('rain in Oslo', 'sun in Rome')}\n<think>\n{DRAFT}"
    content, calls, invalid = _read(text)
    assert calls == [*SEARCH, ("web_search", {"q": "sun in Rome"})] and invalid == []
    assert THOUGHT in content and content.endswith(f"<think>\n{DRAFT}")
    found = read_text_calls(text, NAMES)
    assert found is not None and len({c["id"] for c in found[1]}) == 2  # (one parse: unique ids)


@pytest.mark.parametrize("quoted", ["what does <think> mean", "is <think>x</think> a tag"])
def test_a_think_tag_quoted_in_an_argument_stays_in_its_call(quoted: str) -> None:
    call = REAL.replace("rain in Oslo", quoted)
    content, calls, invalid = _read(f"{call}\n{THOUGHT}")
    assert calls == [("web_search", {"q": quoted})] and invalid == []
    assert "delete_file" not in str(calls) and content == THOUGHT


def test_several_calls_quoting_think_then_a_thought_keep_their_calls_and_drop_the_draft() -> None:
    calls_text = "\n".join(REAL.replace("rain in Oslo", f"what is <think> {i}") for i in range(3))
    content, calls, invalid = _read(f"{calls_text}\n{THOUGHT}")
    assert calls == [("web_search", {"q": f"what is <think> {i}"}) for i in range(3)] and invalid == []
    assert content == THOUGHT


@pytest.mark.parametrize("text", [
    f"{REAL}<think>\n{DRAFT}\n</think>",  # (glued to the call)
    f'{REAL}\n<think>\n<tool_call>\n{{"name": "delete_file", "arguments": {{"path": "/x\n</think>\n{THOUGHT}',
    f"{REAL}\nOK. <think> {DRAFT} </think> done",
])
def test_no_drafted_call_is_read_from_blocks_glued_cut_or_inside_a_line(text: str) -> None:
    content, calls, invalid = _read(text)
    assert calls == SEARCH and invalid == [] and "delete_file" in content


def test_a_qwen3_coder_raw_value_holding_think_stays_in_its_call() -> None:
    text = ("<function=web_search>\n<parameter=q>\n<think>\nx\n</parameter>\n</function>\n"
            f"<think>\n{DRAFT}\n</think>")
    found = read_text_calls(text, {"delete_file": {}, "web_search": {"type": "object",
                                                                    "properties": {"q": {"type": "string"}}}})
    assert found is not None and [(c["name"], c["args"]) for c in found[1]] == [("web_search", {"q": "<think>\nx"})]
    assert found[0] == f"<think>\n{DRAFT}\n</think>"


def test_a_compatible_servers_interleaved_thinking_runs_only_the_real_call() -> None:
    from toolwire.models.openai import ChatOpenAI

    ran: list[str] = []

    @tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        ran.append(path)
        return "deleted"

    @tool
    def web_search(q: str) -> str:
        """Search the web."""
        return "rain"

    replies = [f"{REAL}\n{THOUGHT}", f"{REAL}\n{THOUGHT}", f"{REAL}\n{THOUGHT}", "It will rain in Oslo."]

    def answer(body: Any, n: int) -> Any:
        text = replies[min(n, len(replies) - 1)]
        if not body.get("stream"):
            return {"id": "x", "object": "chat.completion", "created": 0, "model": "qwen3",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}]}
        base = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "qwen3"}
        return [*({**base, "choices": [{"index": 0, "delta": {"content": text[i:i + 6]}}]}
                  for i in range(0, len(text), 6)),
                {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]

    with serving("/v1", done=True) as server:
        server.answer = answer
        model = ChatOpenAI("qwen3", base_url=server.url, api_key="x", max_retries=0)
        bound = model.bind_tools([delete_file, web_search])
        assert [(c["name"], c["args"]) for c in bound.invoke("Weather?").tool_calls] == SEARCH
        streamed = merge_chunks(list(bound.stream("Weather?")), as_chunk=False)
        assert [(c["name"], c["args"]) for c in streamed.tool_calls] == SEARCH
        result = Agent(model, [delete_file, web_search]).invoke("Weather in Oslo?")
    assert ran == [] and result.output == "It will rain in Oslo."


def test_many_think_blocks_after_a_call_are_read_in_linear_time() -> None:
    text = REAL + "".join(f"\n<think>\n{DRAFT}\n</think>" for _ in range(20_000))
    began = time.perf_counter()
    found = read_text_calls(text, NAMES)
    assert time.perf_counter() - began < 5
    assert found is not None and [c["name"] for c in found[1]] == ["web_search"]


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
