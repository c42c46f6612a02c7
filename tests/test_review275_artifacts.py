"""Review 275 #6: coroutines inside a ``content_and_artifact`` tool's artifact (a list or dict) are refused, as a
coroutine artifact is, and an ``async def`` returning a list of coroutines gets advice fit for an async def."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from toolwire import ToolExecutor, tool


async def _fetch(url: str) -> str:
    await asyncio.sleep(0)
    return "page " + url


@pytest.mark.parametrize("shape", ["list", "dict", "nested"])
def test_coroutines_inside_an_artifact_are_refused_and_closed(shape: str) -> None:
    def pages() -> str:
        """Fetch pages."""
        coros = [_fetch("a")]
        artifact = {"list": coros, "dict": {"k": coros[0]}, "nested": {"x": [{"y": coros[0]}]}}[shape]
        return "text", artifact  # type: ignore[return-value]

    t = tool(pages, response_format="content_and_artifact")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        message = ToolExecutor([t]).execute([{"name": "pages", "args": {}, "id": "c1"}])[0]
        gc.collect()
    assert message.status == "error"
    assert message.tool_call_id == "c1"
    assert "holds an awaitable" in message.content
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_an_artifact_of_plain_values_is_kept() -> None:
    data = {"rows": [1, 2.5, "x", None, [True, b"z"]], "n": 3}

    def rows() -> str:
        """Rows."""
        return "3 rows", data  # type: ignore[return-value]

    t = tool(rows, response_format="content_and_artifact")
    message = ToolExecutor([t]).execute([{"name": "rows", "args": {}, "id": "c1"}])[0]
    assert message.status == "success"
    assert message.artifact is data


def test_an_async_def_holding_coroutines_is_told_to_await_them_not_to_be_async() -> None:
    @tool
    async def fetch_all(urls: list[str]) -> list:
        """Fetch every URL (asyncio.gather forgotten)."""
        return [_fetch(u) for u in urls]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call = {"name": "fetch_all", "args": {"urls": ["a", "b"]}, "id": "c1"}
        message = ToolExecutor([fetch_all]).execute([call])[0]
        gc.collect()
    assert message.status == "error"
    assert "await them inside the function" in message.content
    assert "declare the function `async def`" not in message.content
    assert not [w for w in caught if "never awaited" in str(w.message)]
