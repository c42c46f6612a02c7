"""Review 142: streamed replies and saved conversations (#3 a saved chunk's cut call, #1 a late call id, #4 Gemini's
astream closed early, #2 a ``_stream``-only model's merged stream)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire import Agent, AIMessageChunk, ToolMessage, merge_chunks, messages_from_dict, messages_to_dict, tool
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel

_CUT = '{"pattern": "*.tmp", "dry_run": fa'  # the arguments a stream ending early cut off


def _deleter(ran: list[dict[str, Any]]) -> Any:
    @tool
    def delete_files(pattern: str, dry_run: bool = False) -> str:
        """Delete the files matching pattern (only list them with dry_run=True)."""
        ran.append({"pattern": pattern, "dry_run": dry_run})
        return "done"

    return delete_files


def _cut_chunk() -> AIMessageChunk:
    return merge_chunks([AIMessageChunk("", tool_call_chunks=[  # type: ignore[return-value]
        {"name": "delete_files", "args": '{"pattern": "a"}', "id": "c0", "index": 0},
        {"name": "delete_files", "args": _CUT, "id": "c1", "index": 1}])])


# -- #3: a saved chunk whose call the stream cut off loads back as an invalid call, never run ------------------------


def test_a_saved_chunk_writes_its_cut_call_as_invalid_and_loads_it_back_so() -> None:
    chunk = _cut_chunk()
    saved = json.loads(json.dumps(messages_to_dict([chunk])))
    data = saved[0]["data"]
    assert saved[0]["type"] == "AIMessageChunk" and data["tool_call_chunks"] == []
    assert [c["id"] for c in data["tool_calls"]] == ["c0"]
    assert [(c["id"], c["args"]) for c in data["invalid_tool_calls"]] == [("c1", _CUT)]
    loaded = messages_from_dict(saved)
    assert loaded == [chunk.to_message()]
    ran: list[dict[str, Any]] = []
    result = Agent(ScriptedChatModel(["ok"]), [_deleter(ran)]).invoke(["clean up", *loaded])
    assert ran == [{"pattern": "a", "dry_run": False}]  # the complete call only
    answers = {m.tool_call_id: m.status for m in result.messages if isinstance(m, ToolMessage)}
    assert answers == {"c0": "success", "c1": "error"}


def test_a_chunk_dict_with_raw_pieces_is_read_from_them_not_from_its_partial_json_calls() -> None:
    # toolwire's dump before review 142, and LangChain's own: tool_calls hold the cut call read as partial JSON
    old = {"type": "AIMessageChunk", "data": {
        "content": "", "type": "AIMessageChunk", "id": None, "name": None, "additional_kwargs": {},
        "response_metadata": {}, "usage_metadata": None, "chunk_position": None,
        "tool_calls": [{"name": "delete_files", "args": {"pattern": "*.tmp"}, "id": "c1", "type": "tool_call"}],
        "invalid_tool_calls": [],
        "tool_call_chunks": [{"name": "delete_files", "args": _CUT, "id": "c1", "index": 0,
                              "type": "tool_call_chunk"}]}}
    [message] = messages_from_dict([old])
    assert message.tool_calls == []
    assert [(c["id"], c["args"]) for c in message.invalid_tool_calls] == [("c1", _CUT)]
    ran: list[dict[str, Any]] = []
    Agent(ScriptedChatModel(["ok"]), [_deleter(ran)]).invoke(["clean up", message])
    assert ran == []


@pytest.mark.parametrize("data", [{"tool_call_chunks": {"name": "f"}}, {"tool_call_chunks": ["not a piece"]},
                                  {"tool_call_chunks": [{"name": "f", "args": "{}", "id": [1]}]},
                                  {"tool_call_chunks": [{"name": "f", "args": "{}"}], "invalid_tool_calls": ["x"]}])
def test_a_saved_chunk_whose_pieces_are_not_pieces_is_a_user_error(data: dict[str, Any]) -> None:
    with pytest.raises(UserError, match="fix or remove that key"):
        messages_from_dict([{"type": "AIMessageChunk", "data": {"content": "", **data}}])


def test_langchain_reads_the_saved_chunk_with_its_cut_call_invalid_and_its_dump_loads_back() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    chunk = _cut_chunk()
    [read] = lc.messages_from_dict(json.loads(json.dumps(messages_to_dict([chunk]))))
    assert isinstance(read, lc.AIMessageChunk)
    assert [c["id"] for c in read.tool_calls] == ["c0"]
    assert [(c["id"], c["args"]) for c in read.invalid_tool_calls] == [("c1", _CUT)]
    assert messages_from_dict(json.loads(json.dumps(lc.messages_to_dict([read])))) == [chunk.to_message()]


def test_langchains_dump_of_its_own_cut_chunk_loads_with_the_call_invalid() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    chunk = lc.AIMessageChunk("", tool_call_chunks=[{"name": "delete_files", "args": _CUT, "id": "c1", "index": 0}])
    assert chunk.tool_calls  # LangChain's partial-JSON reading: a valid call without dry_run
    [message] = messages_from_dict(json.loads(json.dumps(lc.messages_to_dict([chunk]))))
    assert message.tool_calls == [] and [c["id"] for c in message.invalid_tool_calls] == ["c1"]
