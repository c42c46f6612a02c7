"""What the tests of custom ``BaseChatModel`` subclasses (reviews 236 and 241) share: the tool they bind and a helper
that runs an async stream to its end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from toolwire import tool


@tool
def get_weather(city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


def collect(stream: AsyncIterator[Any]) -> list[Any]:
    """The items of ``stream``, gathered in a new event loop."""
    async def run() -> list[Any]:
        return [item async for item in stream]
    return asyncio.run(run())
