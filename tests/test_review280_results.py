"""Review 280 #1: ``max_result_chars`` cuts a returned ToolMessage whose content lists strings or records."""

from __future__ import annotations

import json

from langchain_core.messages import ToolMessage as LCToolMessage

from toolwire import Agent, AIMessage, ToolExecutor, ToolMessage, tool
from toolwire.models.lowering._common import tool_result_text
from toolwire.results import truncate_content
from toolwire.testing import ScriptedChatModel
from toolwire.tools import current_call_id

MARK = "\n[... result truncated: {} of {} characters cut; ask for a narrower result ...]"


def _sent_chars(content: str | list[object]) -> int:
    if isinstance(content, str):
        return len(content)
    return sum(len(p) if isinstance(p, str) else len(json.dumps(p)) for p in content)


def test_truncate_content_cuts_a_list_of_strings() -> None:
    items = ["abc", "defgh", "ij"]
    assert truncate_content(items, 10) is items
    assert truncate_content(items, 5) == ["abc", "de" + MARK.format(5, 10)]


def test_truncate_content_counts_records_as_their_json_text() -> None:
    record = {"url": "https://e.com", "text": "lorem"}
    text = json.dumps(record)
    image = {"type": "image", "url": "https://e.com/a.png"}
    content = ["ab", image, record, {"type": "text", "text": "tail"}]
    total = 2 + len(text) + 4
    assert truncate_content(content, total) is content
    assert truncate_content(content, 12) == ["ab", image, text[:10] + MARK.format(total - 12, total)]


def test_truncate_content_text_blocks_unchanged() -> None:
    image = {"type": "image", "url": "u"}
    blocks = [{"type": "text", "text": "abc"}, image, {"type": "text", "text": "defg"}, {"type": "text", "text": "h"}]
    assert truncate_content(blocks, 8) is blocks
    assert truncate_content(blocks, 5) == [
        {"type": "text", "text": "abc"}, image, {"type": "text", "text": "de" + MARK.format(3, 8)}]


@tool
def big() -> ToolMessage:
    """Return a ToolMessage whose content is a list of strings."""
    return ToolMessage(["x" * 5000, "tail"], tool_call_id=current_call_id())


@tool
def big_lc() -> LCToolMessage:
    """Return a LangChain ToolMessage whose content is a list holding one string."""
    return LCToolMessage(content=["x" * 5000], tool_call_id=current_call_id())


@tool
def search(q: str) -> ToolMessage:
    """Search the web; the results as records."""
    rows = [{"url": f"https://e.com/{i}", "text": "lorem ipsum " * 200} for i in range(5)]
    return ToolMessage(rows, tool_call_id=current_call_id(), artifact=rows)


def test_executor_cuts_returned_tool_message_lists() -> None:
    for t in (big, big_lc):
        [m] = ToolExecutor([t], max_result_chars=100).execute([{"name": t.name, "args": {}, "id": "c1"}])
        assert isinstance(m.content, list)
        total = 5004 if t is big else 5000
        assert m.content[0] == "x" * 100 + MARK.format(total - 100, total)
        assert len(m.content) == 1
    [m] = ToolExecutor([search], max_result_chars=1000).execute([{"name": "search", "args": {"q": "x"}, "id": "c1"}])
    assert _sent_chars(m.content) < 1200
    assert len(tool_result_text(m)) < 1200
    assert "result truncated" in tool_result_text(m)
    assert m.artifact is not None and len(m.artifact) == 5  # the program still gets every record


def test_executor_without_limit_keeps_the_list() -> None:
    [m] = ToolExecutor([big]).execute([{"name": "big", "args": {}, "id": "c1"}])
    assert m.content == ["x" * 5000, "tail"]


def test_agent_cuts_returned_tool_message_lists() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "big_lc", "args": {}, "id": "c1"}]), "done"])
    Agent(model, [big_lc], max_result_chars=100).invoke("go")
    sent = model.requests[1].messages[-1]
    assert _sent_chars(sent.content) < 200
    assert "result truncated: 4900 of 5000" in tool_result_text(sent)
