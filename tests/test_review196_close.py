"""Review 196 #2: ``model.close()`` / ``aclose()`` while another thread or task has a request in flight: that call's
retry goes out on the model's new client and succeeds (it was sent again on the closed client, a raw
``RuntimeError: Cannot send a request, as the client has been closed``, or "Could not connect ... check that the
server is running"); without retries it ends in a ProviderError that says the connection was closed under it.
Since review 203 #2, ``close()`` leaves a sync client that a request is still on open until that request ends (closing
its sockets under the waiting thread could leave it waiting for the whole timeout), so a sync call in flight at
``close()`` gets its own reply; ``aclose()`` still closes the loop's client at once."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from toolwire.errors import ProviderError

providers = pytest.importorskip("providers.conftest")
wire_servers = pytest.importorskip("providers.wire_servers")

CASES = ["openai-chat", "openai-responses", "anthropic", "gemini"]


class Held:
    """A brain whose first request waits (``arrived`` set) until ``gate`` opens; the later ones answer at once."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.gate = threading.Event()
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, conversation: list[dict[str, Any]]) -> Any:
        with self.lock:
            self.calls += 1
            first = self.calls == 1
        if first:
            self.arrived.set()
            self.gate.wait(10)
            return wire_servers.Reply(text="late")
        return wire_servers.Reply(text="ok")


def _sync_call_closed_in_flight(provider: str, max_retries: int) -> Any:
    held = Held()
    with wire_servers.WireServer(providers.ADAPTERS[provider](), brain=held) as wire:
        model = providers.build_model(provider, wire.url, max_retries=max_retries)
        out: dict[str, Any] = {}

        def call() -> None:
            try:
                out["reply"] = model.invoke("hi").content
            except Exception as exc:
                out["reply"] = exc

        worker = threading.Thread(target=call)
        worker.start()
        try:
            assert held.arrived.wait(10)
            model.close()  # another thread's shutdown hook, while the call waits for its reply
        finally:
            held.gate.set()
            worker.join(10)
        assert model.invoke("again").content == "ok"  # (the model is fine afterwards)
        return out["reply"]


def _async_call_closed_in_flight(provider: str, max_retries: int) -> Any:
    held = Held()
    with wire_servers.WireServer(providers.ADAPTERS[provider](), brain=held) as wire:
        model = providers.build_model(provider, wire.url, max_retries=max_retries)

        async def main() -> Any:
            task = asyncio.ensure_future(model.ainvoke("hi"))
            try:
                while not held.arrived.is_set():
                    await asyncio.sleep(0.01)
                await model.aclose()  # another task closes the loop's client
            finally:
                held.gate.set()
            try:
                return (await task).content
            except Exception as exc:
                return exc

        return asyncio.run(main())


@pytest.mark.parametrize("max_retries", [0, 2])
@pytest.mark.parametrize("provider", CASES)
def test_a_sync_call_in_flight_at_close_gets_its_reply(provider: str, max_retries: int) -> None:
    assert _sync_call_closed_in_flight(provider, max_retries=max_retries) == "late"  # (review 203 #2)


@pytest.mark.parametrize("provider", CASES)
def test_an_async_call_in_flight_at_aclose_is_retried_on_the_new_client(provider: str) -> None:
    assert _async_call_closed_in_flight(provider, max_retries=2) == "ok"


@pytest.mark.parametrize("provider", CASES)
@pytest.mark.parametrize("run", [_async_call_closed_in_flight])
def test_without_retries_the_error_says_the_connection_was_closed(provider: str, run: Any) -> None:
    error = run(provider, max_retries=0)
    assert isinstance(error, ProviderError), error
    text = str(error)
    assert "connection was closed (close() or aclose()) while this request was in flight" in text
    assert "server" not in text  # not sent to check a server that is fine
    assert error.retryable
