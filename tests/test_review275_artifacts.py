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


def test_finished_tasks_in_an_artifact_are_kept() -> None:  # (review 284 #2)
    async def crawl() -> str:
        """Crawl two pages."""
        tasks = [asyncio.ensure_future(_fetch(u)) for u in "ab"]
        await asyncio.wait(tasks)
        return "fetched 2 pages", {"tasks": tasks}  # type: ignore[return-value]

    t = tool(crawl, response_format="content_and_artifact")
    message = asyncio.run(ToolExecutor([t]).aexecute([{"name": "crawl", "args": {}, "id": "c1"}]))[0]
    assert (message.status, message.content) == ("success", "fetched 2 pages")
    assert [task.result() for task in message.artifact["tasks"]] == ["page a", "page b"]


def test_a_store_like_mapping_artifact_is_not_read_and_a_deque_is_looked_into() -> None:  # (review 284 #1)
    import collections
    from collections.abc import Mapping

    class Store(Mapping):
        reads = 0

        def __getitem__(self, key: str) -> str:
            Store.reads += 1
            return key

        def __iter__(self):  # type: ignore[no-untyped-def]
            return iter(["a", "b"])

        def __len__(self) -> int:
            return 2

    def rows() -> str:
        """Rows."""
        return "2 rows", Store()  # type: ignore[return-value]

    message = ToolExecutor([tool(rows, response_format="content_and_artifact")]).execute(
        [{"name": "rows", "args": {}, "id": "c1"}])[0]
    assert message.status == "success" and Store.reads == 0

    def queued() -> str:
        """Queued."""
        return "queued", collections.deque([_fetch("a")])  # type: ignore[return-value]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        message = ToolExecutor([tool(queued, response_format="content_and_artifact")]).execute(
            [{"name": "queued", "args": {}, "id": "c1"}])[0]
        gc.collect()
    assert message.status == "error" and "holds an awaitable" in message.content
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_a_coroutine_among_many_records_is_found_when_it_is_among_the_first_items() -> None:
    def rows() -> str:
        """Rows."""
        return "rows", [{"id": 1}, {"id": 2, "page": _fetch("a")}, *({"id": n} for n in range(3, 5000))]  # type: ignore

    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        message = ToolExecutor([tool(rows, response_format="content_and_artifact")]).execute(
            [{"name": "rows", "args": {}, "id": "c1"}])[0]
        gc.collect()
    assert message.status == "error"
