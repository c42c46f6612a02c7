"""Review 275 #5: a ``functools.partial`` binding a key to a ``functools.wraps``-decorated async def (the README's
way to keep a key from the model, under a logging decorator) runs as an async tool, sync and async alike."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from toolwire import ToolExecutor, tool


def _logged(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


@_logged
async def _fetch(q: str, api_key: str) -> str:
    """Fetch a page.

    Args:
        q: what to fetch.
        api_key: the service's key.
    """
    await asyncio.sleep(0)
    return f"page for {q} ({len(api_key)})"


def test_a_partial_of_a_wrapped_async_def_is_an_async_tool() -> None:
    t = tool(functools.partial(_fetch, api_key="sk-123"), name="fetch")
    assert t.is_async
    assert list(t.parameters["properties"]) == ["q"]
    call = {"name": "fetch", "args": {"q": "a"}, "id": "c1"}
    assert ToolExecutor([t]).execute([call])[0].content == "page for a (6)"
    assert asyncio.run(ToolExecutor([t]).aexecute([call]))[0].content == "page for a (6)"


def test_a_partial_of_a_partial_and_of_a_plain_sync_function_keep_their_kind() -> None:
    inner = functools.partial(_fetch, api_key="sk-123")
    assert tool(functools.partial(inner), name="fetch").is_async

    def plain(q: str, n: int) -> str:
        """Plain."""
        return q * n

    t = tool(functools.partial(plain, n=2), name="plain")
    assert not t.is_async
    assert t.invoke({"q": "ab"}) == "abab"


def test_a_partial_of_an_object_with_an_async_call_is_an_async_tool() -> None:  # (review 284 #5)
    class Fetcher:
        """A client-holding callable object."""

        async def __call__(self, url: str, timeout: int) -> str:
            """Fetch url."""
            return f"fetched {url} in {timeout}s"

    t = tool(functools.partial(Fetcher(), timeout=3), name="fetch", description="Fetch a url.")
    assert t.is_async
    message = t.invoke({"type": "tool_call", "id": "c", "name": "fetch", "args": {"url": "u"}})
    assert (message.status, message.content) == ("success", "fetched u in 3s")
