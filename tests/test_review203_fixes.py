"""Review 203 #3, #4, #5: invalid calls through a chunk's dump and LangChain's messages, and "did you mean" hints."""

from __future__ import annotations

import pytest

from toolwire.messages import AIMessage

lc = pytest.importorskip("langchain_core.messages")


# -- #5: an invalid call with keys LangChain's InvalidToolCall has no field for -------------------------------------

@pytest.mark.parametrize("given", [
    {"tool_calls": [{"type": "invalid_tool_call", "name": "f", "args": {"x": 1}, "id": "c1", "extras": {"k": 1}}]},
    {"tool_calls": [{"type": "invalid_tool_call", "id": "c1", "function": {"name": "f", "arguments": "{}"}}]},
    {"invalid_tool_calls": [{"type": "invalid_tool_call", "name": "f", "args": "{", "id": "c1", "error": "cut",
                             "foo": 1, "extras": {"k": 1}}]},
])
def test_invalid_call_with_extra_keys_converts_to_langchain(given: dict) -> None:
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    message = AIMessage("", **given)
    out = to_langchain_messages([message])[0]
    assert out.tool_calls == []
    [bad] = out.invalid_tool_calls
    assert set(bad) == {"type", "id", "name", "args", "error"} and bad["id"] == "c1" and bad["error"]
    back = from_langchain_messages([out])[0]
    assert back.tool_calls == [] and [c["id"] for c in back.invalid_tool_calls] == ["c1"]


def test_invalid_call_keeps_its_place_without_extra_keys() -> None:
    from toolwire.interop.langchain import from_langchain_messages, to_langchain_messages

    message = AIMessage("", tool_calls=[
        {"type": "invalid_tool_call", "name": "f", "args": "{", "id": "c1", "error": "cut", "extras": {"k": 1}},
        {"name": "g", "args": {}, "id": "c2", "extras": {"k": 2}}])
    back = from_langchain_messages(to_langchain_messages([message]))[0]
    assert [c["id"] for c in back.tool_calls] == ["c2"]
    assert [(c["id"], c.get("index")) for c in back.invalid_tool_calls] == [("c1", 0)]
