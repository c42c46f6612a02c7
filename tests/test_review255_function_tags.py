"""Review 255 #1: a ``<tool_call>`` or ``<function=`` snippet quoted inside a Qwen3-Coder ``<parameter=...>`` value
(a file's content, code) stays whole in its call, and no call the model never made appears: in
``parse_tool_calls`` (every dialect setting), ``ChatOpenAI`` (invoke and merged stream) and the embedded
model's reading (``parse_reply``). A value that truly has no ``</parameter>`` is still tolerated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests._queued_http import QueuedServer, serving

from toolwire import tool
from toolwire.messages import merge_chunks
from toolwire.models import ChatOpenAI
from toolwire.models.dialects import parse_reply
from toolwire.parsing import parse_tool_calls


@tool
def search(q: str) -> str:
    """Search.

    Args:
        q: the query.
    """
    return q


@tool
def write_file(path: str, content: str) -> str:
    """Write a file.

    Args:
        path: where.
        content: what.
    """
    return "ok"


NAMES = ["search", "write_file"]
SCHEMAS = {t.name: t.parameters for t in (search, write_file)}

QUOTES = [
    'Models answer with <tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call> blocks.',
    "Qwen3-Coder writes <function=search><parameter=q>x</parameter></function>.",
    "A call:\n<tool_call>\n<function=search>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>\nDone.",
    'Llama 3.1 writes <function=search>{"q": "x"}</function> and\n<function=search>\n</function> too.',
    "Two: <tool_call>{\"name\": \"search\", \"arguments\": {}}</tool_call> and <function=search><parameter=q>y"
    "</parameter></function>; a bare </tool_call> and <tool_call> mention.",
]


def _call(content: str, wrapped: bool) -> str:
    text = ("<function=write_file>\n<parameter=path>\nREADME.md\n</parameter>\n<parameter=content>\n"
            f"{content}\n</parameter>\n</function>")
    return f"<tool_call>\n{text}\n</tool_call>" if wrapped else text


def _calls(reply: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in reply.tool_calls]


@pytest.mark.parametrize("wrapped", [True, False])
@pytest.mark.parametrize("content", QUOTES)
def test_a_quoted_call_stays_in_the_value_for_every_dialect_setting(content: str, wrapped: bool) -> None:
    text = _call(content, wrapped)
    expected = [("write_file", {"path": "README.md", "content": content})]
    for names in (NAMES, SCHEMAS):
        dialects: tuple[str | None, ...] = (None, "function_tag", "hermes") if wrapped else (None, "function_tag")
        for dialect in dialects:
            reply = parse_tool_calls(text, names, dialect)
            assert _calls(reply) == expected, (dialect, reply)
            assert reply.invalid_tool_calls == [] and reply.content == "", dialect
    for fmt in ("function_tag", "hermes") if wrapped else ():  # (the embedded model writes the block form)
        reply = parse_reply(text, [write_file.spec, search.spec], fmt)
        assert _calls(reply) == expected and reply.invalid_tool_calls == [], fmt


@pytest.mark.parametrize("wrapped", [True, False])
def test_a_quoted_call_then_a_real_call(wrapped: bool) -> None:
    real = "<tool_call>\n<function=search>\n<parameter=q>\nreal\n</parameter>\n</function>\n</tool_call>"
    text = "I'll write it.\n" + _call(QUOTES[0], wrapped) + "\n" + real + "\nDone."
    reply = parse_tool_calls(text, NAMES)
    assert _calls(reply) == [("write_file", {"path": "README.md", "content": QUOTES[0]}), ("search", {"q": "real"})]
    assert reply.invalid_tool_calls == [] and reply.content.split() == ["I'll", "write", "it.", "Done."]


def test_a_value_without_its_closing_tag_is_still_read_to_the_call_end() -> None:
    # the model forgot </parameter>: the value ends at </function>, the quoted call staying in it
    text = ('<function=write_file><parameter=path>a</parameter><parameter=content>See <tool_call>{"name": "search", '
            '"arguments": {}}</tool_call> here.</function>')
    reply = parse_tool_calls(text, NAMES)
    assert _calls(reply) == [("write_file", {"path": "a", "content": 'See <tool_call>{"name": "search", '
                                                                    '"arguments": {}}</tool_call> here.'})]
    # the lenience kept: a value ends at the next <parameter= when no </parameter> comes before </function>
    for text in ("<function=write_file><parameter=path>a<parameter=content>b</function>",
                 "<tool_call><function=write_file><parameter=path>a<parameter=content>b</tool_call>",
                 "<function=write_file><parameter=path>a</parameter><parameter=content>b</function>"):
        assert _calls(parse_tool_calls(text, NAMES)) == [("write_file", {"path": "a", "content": "b"})], text


def test_calls_whose_closing_tags_were_forgotten_are_still_two_calls() -> None:
    for text in ("<function=write_file><parameter=path>a</parameter><parameter=content>b\n"
                 "<function=search><parameter=q>x</parameter></function>",
                 "<tool_call><function=write_file><parameter=path>a</parameter><parameter=content>b</tool_call>\n"
                 "<tool_call><function=search><parameter=q>x</parameter></function></tool_call>",
                 "<tool_call><function=write_file><parameter=path>a</parameter><parameter=content>b\n"
                 "<tool_call><function=search><parameter=q>x</parameter></function></tool_call>"):
        reply = parse_tool_calls(text, NAMES)
        assert _calls(reply) == [("write_file", {"path": "a", "content": "b"}), ("search", {"q": "x"})], text


def test_a_cut_off_value_quoting_a_call_is_an_invalid_call_not_a_cut_one() -> None:
    text = _call(QUOTES[1], True)
    cut = text[: text.index("</function>.") + len("</function>.")]
    reply = parse_tool_calls(cut, NAMES)
    assert reply.tool_calls == [] and [c["name"] for c in reply.invalid_tool_calls] == ["write_file"]


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("/v1") as found:
        yield found


def _completion(content: str) -> dict:
    return {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


def _chunks(content: str) -> list[dict]:
    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    return [chunk({"content": content[i:i + 7]}) for i in range(0, len(content), 7)] + [chunk({}, "stop")]


@pytest.mark.parametrize("wrapped", [True, False])
def test_chat_openai_reads_the_same_call_in_invoke_and_stream(server: QueuedServer, wrapped: bool) -> None:
    model = ChatOpenAI("qwen3-coder", base_url=server.url, max_retries=0).bind_tools([search, write_file])
    for content in QUOTES[:3]:
        text = _call(content, wrapped)
        expected = [("write_file", {"path": "README.md", "content": content})]
        server.queue.append(_completion(text))
        reply = model.invoke("Write the README")
        assert _calls(reply) == expected and reply.invalid_tool_calls == []
        server.queue.append(_chunks(text))
        merged = merge_chunks(list(model.stream("Write the README")), as_chunk=False)
        assert _calls(merged) == expected and merged.invalid_tool_calls == []
