"""A call written in the reply's text and cut at max_tokens reads the same streamed and invoked: the cut-off error
(raise max_tokens), not "send the whole call again" (session 36's known gap: only invoke read it as cut)."""

from __future__ import annotations

import pytest

from toolwire.messages import merge_chunks
from toolwire.models.lowering._calls import CUT_OFF

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
HEAD = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "qwen"}
CUT = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Os'


def _answers(text: str, finish: str, used: int) -> tuple[Answer, Answer]:
    usage = {"prompt_tokens": 10, "completion_tokens": used, "total_tokens": 10 + used}
    events = [{**HEAD, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text[:20]},
                                    "finish_reason": None}]},
              {**HEAD, "choices": [{"index": 0, "delta": {"content": text[20:]}, "finish_reason": None}]},
              {**HEAD, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
              {**HEAD, "choices": [], "usage": usage}]
    whole = {"id": "c", "object": "chat.completion", "created": 1, "model": "qwen", "usage": usage,
             "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text}}]}
    return Answer(events=events), Answer(body=whole)


def _both(text: str, finish: str, used: int, *, compatible: bool = True) -> list:
    with ScriptedServer() as server:
        server.push(*_answers(text, finish, used))
        model = build_model("openai-chat", server.url, compatible=compatible, text_tool_calls=True)
        model = model.bind_tools([WEATHER])
        streamed = merge_chunks(model.stream("Weather in Oslo?", max_tokens=8), as_chunk=False)
        invoked = model.invoke("Weather in Oslo?", max_tokens=8)
    return [streamed, invoked]


@pytest.mark.parametrize(("finish", "compatible"), [("stop", True), ("length", True), ("length", False)])
def test_a_text_call_cut_at_the_limit_gets_the_cut_off_error_streamed_and_invoked(finish: str,
                                                                                   compatible: bool) -> None:
    for reply in _both(CUT, finish, 8, compatible=compatible):
        assert reply.tool_calls == [] and reply.content == ""
        assert [bad["error"] for bad in reply.invalid_tool_calls] == [CUT_OFF]
        assert reply.response_metadata["finish_reason"] == "length"
        assert reply.response_metadata.get("server_finish_reason") == (None if finish == "length" else finish)


def test_a_text_call_cut_under_the_limit_keeps_its_own_error_and_the_servers_finish() -> None:
    for reply in _both(CUT, "stop", 5):  # 5 of 8 tokens: the model broke it off, no limit did
        assert len(reply.invalid_tool_calls) == 1 and reply.invalid_tool_calls[0]["error"] != CUT_OFF
        assert reply.response_metadata["finish_reason"] == "stop"
        assert "server_finish_reason" not in reply.response_metadata


def test_a_complete_text_call_beside_a_cut_one_runs_and_the_cut_one_is_answered_as_cut() -> None:
    text = ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n' + CUT)
    for reply in _both(text, "stop", 8):
        assert [call["args"] for call in reply.tool_calls] == [{"city": "Oslo"}]
        assert [bad["error"] for bad in reply.invalid_tool_calls] == [CUT_OFF]
        assert reply.response_metadata["server_finish_reason"] == "stop"
