"""Review 16, finding 2: a toolwire tool run by LangChain (``to_langchain_tool``) sees the call LangChain runs
through ``current_tool_call()``, as on toolwire's own paths (langchain-core: ``BaseTool.invoke`` with a ToolCall
passes its ``id`` to ``run``/``arun`` as ``tool_call_id``)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core")

from toolwire import current_tool_call, tool
from toolwire.interop.langchain import to_langchain_tool


@tool
def whoami(n: int) -> str:
    """Say which call runs.

    Args:
        n: a number.
    """
    call = current_tool_call()
    return "none" if call is None else f"{call['id']}:{call['name']}:{call['args']['n']}"


@tool
async def awhoami(n: int) -> str:
    """Say which call runs (async).

    Args:
        n: a number.
    """
    call = current_tool_call()
    return "none" if call is None else f"{call['id']}:{call['name']}:{call['args']['n']}"


def _call(name: str, call_id: str) -> dict:
    return {"name": name, "args": {"n": 3}, "id": call_id, "type": "tool_call"}


def test_langchain_tool_call_id_reaches_current_tool_call():
    converted = to_langchain_tool(whoami)
    message = converted.invoke(_call("whoami", "lc_1"))
    assert message.content == "lc_1:whoami:3" and message.tool_call_id == "lc_1"
    assert converted.invoke({"n": 3}) == "none"  # bare arguments: no call, as tool.invoke(args)
    assert current_tool_call() is None  # nothing left behind


def test_langchain_async_tool_call_id_reaches_current_tool_call():
    converted = to_langchain_tool(awhoami)

    async def main() -> tuple:
        return (await converted.ainvoke(_call("awhoami", "lc_2")), await converted.ainvoke({"n": 3}))

    message, bare = asyncio.run(main())
    assert message.content == "lc_2:awhoami:3" and bare == "none"
    # a sync toolwire tool run through LangChain's async path sees its call too
    sync_message = asyncio.run(to_langchain_tool(whoami).ainvoke(_call("whoami", "lc_3")))
    assert sync_message.content == "lc_3:whoami:3"
