"""Review 155: a hosted model's async client of a loop closed by hand is dropped quietly (#1)."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_the_client_of_a_loop_closed_without_shutdown_is_dropped_without_an_error_log(sdk: str, caplog) -> None:
    module = pytest.importorskip(sdk)
    from toolwire.models._loop_clients import Clients

    make = (lambda: module.AsyncOpenAI(api_key="sk-test", base_url="http://127.0.0.1:9")) if sdk == "openai" else (
        lambda: module.AsyncAnthropic(api_key="sk-ant-test", base_url="http://127.0.0.1:9"))
    clients = Clients()
    first = asyncio.new_event_loop()
    old = first.run_until_complete(_client(clients, make))
    first.close()  # (by hand, without shutdown_asyncgens)
    second = asyncio.new_event_loop()
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        second.run_until_complete(_client(clients, make))  # drops the first loop's client
        assert old._client.is_closed  # (so the SDK's __del__ schedules no aclose on this loop)
        del old
        gc.collect()
        second.run_until_complete(asyncio.sleep(0.01))
    second.close()
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


async def _client(clients, make):  # type: ignore[no-untyped-def]
    return clients.for_loop(asyncio.get_running_loop(), make)
