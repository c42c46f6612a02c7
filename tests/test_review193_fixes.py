"""Review 193: #1 a reply whose reasoning block has only its closing ``</think>`` (the thinking templates of
DeepSeek-R1 and Qwen3 end the prompt with ``<think>``) gets no call read from that reasoning, in invoke and stream;
#2 a Gemini reply cut at the output token limit (``finishReason: MAX_TOKENS``) never runs the function call it ended
on: it is an invalid call with the cut-off error, as Anthropic's ``stop_reason: max_tokens`` makes it.

Driven through the real SDKs against a small local server that answers with queued bodies.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from _queued_http import QueuedServer, serving
from toolwire import Agent, tool
from toolwire.chunks import merge_chunks
from toolwire.messages import AIMessageChunk
from toolwire.models._text_calls import TextCallStream, read_text_calls
from toolwire.models.lowering import gemini as codec
from toolwire.models.lowering._calls import CUT_OFF

# -- #1: a lone </think> ---------------------------------------------------------------------------------------------

DRAFT = '<tool_call>\n{"name": "delete_file", "arguments": {"path": "/home/me/report.docx"}}\n</tool_call>'
REAL = '<tool_call>\n{"name": "web_search", "arguments": {"q": "rain in Oslo"}}\n</tool_call>'
NAMES = ("delete_file", "web_search")


def _streamed(text: str, size: int = 5) -> tuple[str, list[Any], list[Any]] | None:
    """What TextCallStream makes of ``text`` fed in pieces of ``size`` characters: (content, calls, invalid)."""
    reader = TextCallStream(NAMES)
    chunks = [c for i in range(0, len(text), size) for c in reader.feed(AIMessageChunk(text[i:i + size]))]
    message = merge_chunks([*chunks, *reader.finish()], as_chunk=False)
    return message.text, message.tool_calls, message.invalid_tool_calls


@pytest.mark.parametrize("lead", ["", "The user wants the weather. Maybe I should clean up first:\n"])
def test_a_call_drafted_before_a_lone_closing_think_is_not_read(lead: str) -> None:
    text = f"{lead}{DRAFT}\nNo - that would destroy data and nobody asked for it.\n</think>\n\nIt will rain in Oslo."
    assert read_text_calls(text, NAMES) is None
    assert _streamed(text) == (text, [], [])


@pytest.mark.parametrize("close", ["\n</think>\n\n", "\n</think>\r\n\r\n", "\n</think>\n", "\n  </think>  \r\n"])
def test_only_the_calls_after_a_lone_closing_think_are_read(close: str) -> None:
    text = f"Maybe:\n{DRAFT}\nNo, that is destructive.{close}{REAL}"
    found = read_text_calls(text, NAMES)
    assert found is not None
    content, calls, invalid = found
    assert [(c["name"], c["args"]) for c in calls] == [("web_search", {"q": "rain in Oslo"})] and invalid == []
    assert content == text[:text.index(REAL)].rstrip()
    streamed = _streamed(text)
    assert streamed is not None and streamed[0] == content
    assert [(c["name"], c["args"]) for c in streamed[1]] == [("web_search", {"q": "rain in Oslo"})]


def test_a_closing_think_quoted_in_an_argument_does_not_hide_its_call() -> None:
    text = '<tool_call>\n{"name": "web_search", "arguments": {"q": "what does </think> mean"}}\n</tool_call>'
    found = read_text_calls(text, NAMES)
    assert found is not None and [c["args"] for c in found[1]] == [{"q": "what does </think> mean"}]


def test_a_full_think_block_and_a_later_closing_tag_keep_their_rules() -> None:
    # a <think> before the first </think> is an ordinary block: the call after it is read
    text = f"<think>\nhm\n{DRAFT}\n</think>\n{REAL}"
    found = read_text_calls(text, NAMES)
    assert found is not None and [c["name"] for c in found[1]] == ["web_search"]
    # the lone block, then a full one: neither is read, the JSON call between them (it must end the reply) is not
    text = f'a\n{DRAFT}\n</think>\n{{"name": "web_search", "arguments": {{}}}}\n<think>\n{DRAFT}\n</think>\n'
    assert read_text_calls(text, NAMES) is None


def _chat_reply(text: str, stream: bool) -> Any:
    if not stream:
        return {"id": "x", "object": "chat.completion", "created": 0, "model": "qwen3",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}
    base = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "qwen3"}
    return [*({**base, "choices": [{"index": 0, "delta": {"content": text[i:i + 6]}}]} for i in range(0, len(text), 6)),
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]


def test_a_compatible_servers_lone_closing_think_runs_no_drafted_call() -> None:
    from toolwire.models.openai import ChatOpenAI

    ran: list[str] = []

    @tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        ran.append(path)
        return "deleted"

    text = f"Clean up first?\n{DRAFT}\nNo, nobody asked for that.\n</think>\n\nIt will rain in Oslo tomorrow."
    with serving("/v1", done=True) as server:
        server.answer = lambda body, n: _chat_reply(text, bool(body.get("stream")))
        model = ChatOpenAI("qwen3", base_url=server.url, api_key="x", max_retries=0)
        bound = model.bind_tools([delete_file])
        assert bound.invoke("Weather?").tool_calls == []
        assert merge_chunks(list(bound.stream("Weather?")), as_chunk=False).tool_calls == []
        result = Agent(model, [delete_file]).invoke("Weather in Oslo tomorrow?")
    assert ran == [] and result.stop_reason == "answer" and result.output.endswith("It will rain in Oslo tomorrow.")


# -- #2: Gemini's MAX_TOKENS -----------------------------------------------------------------------------------------

def _candidate(parts: list[dict[str, Any]], reason: str = "MAX_TOKENS") -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": reason}],
            "modelVersion": "gemini-2.5-flash"}


WRITE = {"functionCall": {"name": "write_file", "args": {"path": "index.html", "content": "<html><body><h1>Welc"}}}
FIRST = {"functionCall": {"name": "write_file", "args": {"path": "a.txt", "content": "done"}}}


def _read(parts: list[dict[str, Any]], reason: str, streaming: bool) -> Any:
    if not streaming:
        return codec.parse_response(_candidate(parts, reason), tool_names=["write_file"])
    state = codec.StreamState(tool_names=["write_file"])
    chunks = [state.feed({"candidates": [{"content": {"role": "model", "parts": [p]}}]}) for p in parts]
    chunks.append(state.feed({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": reason}]}))
    return merge_chunks([c for c in chunks if c is not None] + [state.finish()], as_chunk=False)


@pytest.mark.parametrize("streaming", [False, True])
def test_the_call_a_max_tokens_reply_ended_on_is_invalid_with_the_cut_off_error(streaming: bool) -> None:
    message = _read([FIRST, WRITE], "MAX_TOKENS", streaming)
    assert [c["args"] for c in message.tool_calls] == [{"path": "a.txt", "content": "done"}]  # (it was finished)
    [cut] = message.invalid_tool_calls
    assert (cut["name"], cut["error"]) == ("write_file", CUT_OFF)
    assert cut["args"] == '{"path": "index.html", "content": "<html><body><h1>Welc"}'  # (kept as it came)
    assert message.response_metadata["finish_reason"] == "MAX_TOKENS"


@pytest.mark.parametrize("streaming", [False, True])
def test_a_max_tokens_call_without_args_is_cut_too(streaming: bool) -> None:
    message = _read([{"functionCall": {"name": "write_file"}}], "MAX_TOKENS", streaming)
    assert message.tool_calls == [] and [(c["args"], c["error"]) for c in message.invalid_tool_calls] == [
        ("{}", CUT_OFF)]


@pytest.mark.parametrize("streaming", [False, True])
def test_calls_that_text_followed_or_that_stopped_normally_are_run(streaming: bool) -> None:
    message = _read([WRITE, {"text": "Writing the page now."}], "MAX_TOKENS", streaming)
    assert [c["name"] for c in message.tool_calls] == ["write_file"] and message.invalid_tool_calls == []
    message = _read([FIRST, WRITE], "STOP", streaming)
    assert len(message.tool_calls) == 2 and message.invalid_tool_calls == []
    # an empty part (a thought signature's) after the call does not hide the cut
    message = _read([WRITE, {"text": "", "thoughtSignature": "c2ln"}], "MAX_TOKENS", streaming)
    assert message.tool_calls == [] and [c["error"] for c in message.invalid_tool_calls] == [CUT_OFF]


def test_the_stream_declares_the_cut_call_under_its_streamed_id() -> None:
    state = codec.StreamState(tool_names=["write_file"])
    chunk = state.feed(_candidate([WRITE]))
    assert chunk is not None
    closing = state.finish()
    assert [c["id"] for c in closing.invalid_tool_calls] == [chunk.tool_call_chunks[0]["id"]]
    merged = merge_chunks([chunk, closing], as_chunk=False)  # (the merged message leaves the streamed call out)
    assert merged.tool_calls == [] and len(merged.invalid_tool_calls) == 1


@pytest.fixture
def server() -> Iterator[QueuedServer]:
    with serving("") as found:
        yield found


@pytest.mark.parametrize("streaming", [False, True])
def test_an_agent_never_runs_a_gemini_call_cut_at_max_tokens(server: QueuedServer, streaming: bool) -> None:
    from toolwire.models.google import ChatGoogleGenAI

    written: dict[str, str] = {}

    @tool
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        written[path] = content
        return "written"

    @tool
    def send_email(to: str = "all@company.com", body: str = "") -> str:
        """Send an email (to everyone unless told)."""
        written[to] = body
        return "sent"

    server.queue += [_candidate([WRITE]), _candidate([{"functionCall": {"name": "send_email"}}]),
                     _candidate([{"text": "I could not fit the page in my output lim"}])]
    model = ChatGoogleGenAI("gemini-2.5-flash", api_key="test-key-123456", base_url=server.url, max_retries=0)
    agent = Agent(model, [write_file, send_email])
    if streaming:  # (each model call streamed)
        events = list(agent.stream("Write the landing page, then email everyone.", stream_tokens=True))
        assert any(e.type == "model_chunk" for e in events)
        result = events[-1].data
    else:
        result = agent.invoke("Write the landing page, then email everyone.")
    assert written == {}
    assert result is not None and result.stop_reason == "length"
    answers = [m for m in result.messages if m.type == "tool"]
    assert [m.status for m in answers] == ["error", "error"] and all("cut off" in m.content for m in answers)
