"""Review 136: replies cut by Anthropic's context window (#4), API keys echoed in errors the codecs raise themselves
(#6), and client-error events inside a stream (#10).

Each test failed before its fix. Providers are driven through their SDKs against a scripted local server
(``providers.scripted_http``); no real model is used.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import Agent, merge_chunks, tool
from toolwire._agent_checks import stop_kind
from toolwire.messages import AIMessage
from toolwire.models.lowering._anthropic_replies import WINDOW_CUT, StreamState, parse_response
from toolwire.testing import ScriptedChatModel

WINDOW = "model_context_window_exceeded"

written: list[tuple[str, str]] = []


@tool
def write_file(path: str, text: str) -> str:
    """Write text to a file."""
    written.append((path, text))
    return f"wrote {len(text)} characters to {path}"


def _reply(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 199000, "output_tokens": 1000}}


_CUT_CALL = [{"type": "text", "text": "Writing the report."},
             {"type": "tool_use", "id": "toolu_1", "name": "write_file",
              "input": {"path": "report.md", "text": "# Report\n\nThe first half of the re"}}]


# -- #4: model_context_window_exceeded is a cut reply --------------------------------------------------------------


def test_window_cut_tool_use_is_an_invalid_call_that_says_to_shorten_the_conversation() -> None:
    reply = parse_response(_reply(_CUT_CALL, WINDOW))
    assert reply.tool_calls == []
    [bad] = reply.invalid_tool_calls
    assert bad["id"] == "toolu_1" and bad["name"] == "write_file"
    assert bad["error"] == WINDOW_CUT
    assert "context window" in WINDOW_CUT and "shorten the conversation" in WINDOW_CUT
    assert "max_tokens" not in WINDOW_CUT.replace("(stop_reason model_context_window_exceeded)", "")


def test_window_cut_keeps_the_calls_before_the_last() -> None:
    first = {"type": "tool_use", "id": "toolu_0", "name": "write_file", "input": {"path": "a", "text": "b"}}
    reply = parse_response(_reply([first, *_CUT_CALL[1:]], WINDOW))
    assert [c["id"] for c in reply.tool_calls] == ["toolu_0"]
    assert [c["id"] for c in reply.invalid_tool_calls] == ["toolu_1"]


def test_agent_never_runs_a_call_the_context_window_cut() -> None:
    written.clear()
    model = ScriptedChatModel([parse_response(_reply(_CUT_CALL, WINDOW)), "Done."])
    result = Agent(model, [write_file]).invoke("Write the report to report.md")
    assert written == []
    [answer] = [m for m in result.messages if m.type == "tool"]
    assert answer.tool_call_id == "toolu_1" and "context window" in answer.content


def test_agent_ends_a_text_answer_the_context_window_cut_with_length() -> None:
    reply = parse_response(_reply([{"type": "text", "text": "The three causes are: first, the"}], WINDOW))
    assert stop_kind(reply) == "length"
    result = Agent(ScriptedChatModel([reply]), [write_file]).invoke("Why?")
    assert result.stop_reason == "length"
    assert result.output == "The three causes are: first, the"


def _events(stop: str, deltas: list[str], start_input: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "c",
                                               "content": [], "stop_reason": None, "stop_sequence": None,
                                               "usage": {"input_tokens": 5, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": start_input or {}}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": d}}
          for d in deltas),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]


def _streamed(events: list[dict[str, Any]]) -> AIMessage:
    state = StreamState()
    chunks = [c for c in map(state.feed, events) if c is not None]
    return merge_chunks([*chunks, state.finish()], as_chunk=False)  # type: ignore[return-value]


@pytest.mark.parametrize("deltas, start", [
    (['{"path": "r.md", "text": "# Rep'], None),  # the JSON text cut off
    ([], {"path": "r.md", "text": "# Rep"}),  # the whole (cut) input in the block's start: valid JSON
    (['{"path": "r.md", ', '"text": "# Rep"}'], None),  # cut right where an object closes
])
def test_streamed_window_cut_call_is_one_invalid_call(deltas: list[str], start: dict[str, Any] | None) -> None:
    message = _streamed(_events(WINDOW, deltas, start))
    assert message.tool_calls == []
    assert [c["id"] for c in message.invalid_tool_calls] == ["toolu_1"]
    assert stop_kind(message) == "length"
