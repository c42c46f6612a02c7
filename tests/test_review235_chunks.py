"""Review 235 #1: a merged stream (``AIMessageChunk``) prints as LangChain's chunk does (``pretty_repr`` /
``pretty_print``) and has LangChain 1.x's ``chunk_position`` (None: toolwire's chunks never mark the last one)."""

from __future__ import annotations

import pytest

from toolwire.messages import AIMessageChunk


def _merged() -> AIMessageChunk:
    return AIMessageChunk("Let me ") + AIMessageChunk(
        "check.", tool_call_chunks=[{"name": "get_weather", "args": '{"city": "Paris"}', "id": "c1", "index": 0}])


def test_a_merged_chunk_prints_its_text_and_calls(capsys: pytest.CaptureFixture[str]) -> None:
    full = _merged()
    full.pretty_print()
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "=" * 28 + " Aimessagechunk Message " + "=" * 28
    assert out.endswith("Let me check.\nTool Calls:\n  get_weather (c1)\n Call ID: c1\n  Args:\n    city: Paris\n")
    assert full.pretty_repr() + "\n" == out
    assert full.chunk_position is None


def test_it_matches_langchains_layout() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    theirs = lc.AIMessageChunk("Let me ") + lc.AIMessageChunk(
        "check.", tool_call_chunks=[{"name": "get_weather", "args": '{"city": "Paris"}', "id": "c1", "index": 0}])
    assert _merged().pretty_repr() == theirs.pretty_repr()
