"""Review 203 #2: ``model.close()`` repeated while many threads call one model could leave a call waiting for its
whole request timeout. ``close()`` closed the HTTP client's sockets under a thread blocked reading its reply; once a
new connection reused the socket's number, that thread polled the new socket in its place and never saw its reply.
Now ``close()`` leaves a sync client that a request is still on to that request, which closes it when it ends: no
socket is closed under a reader, and the call in flight gets its reply.

The race is injected with events, not timing: the server holds each request until the test lets it answer, and the
socket number is reused on purpose by opening a connection right after ``close()``."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

from toolwire.models._handed_out import ClientsInUse

providers = pytest.importorskip("providers.conftest")
wire_servers = pytest.importorskip("providers.wire_servers")

CASES = ["openai-chat", "openai-responses", "anthropic", "gemini"]


class Gated:
    """A brain that holds every request until ``gate`` opens; ``arrived`` counts the requests that came."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.count = 0
        self.cond = threading.Condition()

    def __call__(self, conversation: list[dict[str, Any]]) -> Any:
        with self.cond:
            self.count += 1
            self.cond.notify_all()
        assert self.gate.wait(10)
        return wire_servers.Reply(text="late")

    def wait_for(self, n: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: self.count >= n, 10), self.count


class Spy:
    """Wraps every sync SDK client the model makes: notes when each is closed, and whether a request was still
    held on the server then (the gate closed)."""

    def __init__(self, model: Any, brain: Gated) -> None:
        self.made: list[Any] = []
        self.closed_in_flight: list[bool] = []
        make = model._make_client

        def made(asynchronous: bool) -> Any:
            client = make(asynchronous)
            if not asynchronous:
                close = client.close

                def spied_close() -> None:
                    self.closed_in_flight.append(not brain.gate.is_set())
                    close()

                client.close = spied_close
                self.made.append(client)
            return client

        object.__setattr__(model, "_make_client", made)


def _calls(model: Any, n: int, stream: bool, out: dict[int, Any]) -> list[threading.Thread]:
    def call(i: int) -> None:
        started = time.monotonic()
        try:
            if stream:
                out[i] = "".join(str(c.content) for c in model.stream(f"q{i}"))
            else:
                out[i] = model.invoke(f"q{i}").content
        except Exception as exc:  # (kept to assert on)
            out[i] = exc
        out[-1 - i] = time.monotonic() - started

    threads = [threading.Thread(target=call, args=(i,), daemon=True) for i in range(n)]
    for thread in threads:
        thread.start()
    return threads


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("provider", CASES)
def test_close_under_calls_in_flight_with_the_socket_number_reused(provider: str, stream: bool) -> None:
    brain = Gated()
    with wire_servers.WireServer(providers.ADAPTERS[provider](), brain=brain) as wire:
        host, port = wire.url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        model = providers.build_model(provider, wire.url, max_retries=0, timeout=8)
        spy = Spy(model, brain)
        out: dict[int, Any] = {}
        first = _calls(model, 2, stream, out)
        brain.wait_for(2)  # two requests on the first client, waiting for their replies
        model.close()
        reuse = socket.create_connection((host, int(port)))  # takes the number of a socket close() freed, if any
        second: list[threading.Thread] = []
        try:
            model.close()  # again: nothing open now
            later: dict[int, Any] = {}
            second = _calls(model, 1, stream, later)  # a new client while the first is still in use
            brain.wait_for(3)
            model.close()
            model.close()
            brain.gate.set()
            for thread in first + second:
                thread.join(6)
        finally:
            brain.gate.set()
            reuse.close()
        assert not any(t.is_alive() for t in first + second), "a call still waits for its reply"
        assert [out[0], out[1], later[0]] == ["late"] * 3  # each call got its own reply, no error, no retry
        assert max(out[-1], out[-2], later[-1]) < 5  # not the 8 s timeout
        assert len(spy.made) == 2
        assert spy.closed_in_flight == [False, False]  # each client closed once, after its requests ended
        assert len(wire.requests) == 3


@pytest.mark.parametrize("provider", ["openai-chat", "gemini"])
def test_a_close_with_nothing_in_flight_closes_at_once(provider: str) -> None:
    brain = Gated()
    brain.gate.set()
    with wire_servers.WireServer(providers.ADAPTERS[provider](), brain=brain) as wire:
        model = providers.build_model(provider, wire.url, max_retries=0)
        spy = Spy(model, brain)
        assert model.invoke("hi").content == "late"
        model.close()
        assert len(spy.closed_in_flight) == 1
        assert model.invoke("again").content == "late"  # a new client
        assert len(spy.made) == 2


def test_clients_in_use_close_when_the_last_attempt_ends() -> None:
    in_use = ClientsInUse()
    client = object()
    assert not in_use.close_later(client)  # not in use: the caller closes it now
    in_use.take(client)
    in_use.take(client)
    assert in_use.close_later(client)  # in use: left to its attempts
    assert not in_use.give_back(client)
    assert in_use.give_back(client)  # the last one closes it
    assert not in_use.clients
    in_use.take(client)
    assert not in_use.give_back(client)  # never left by close(): not closed by its attempt
    assert not in_use.clients


def test_many_threads_taking_and_closing_never_close_a_client_in_use() -> None:
    in_use = ClientsInUse()
    lock = threading.Lock()
    state = {"current": object(), "closed_in_use": 0, "closed": 0}
    busy: dict[int, int] = {}

    def close(client: Any) -> None:
        with lock:
            state["closed"] += 1
            if busy.get(id(client)):
                state["closed_in_use"] += 1

    def attempts() -> None:
        for _ in range(300):
            with lock:
                client = state["current"]
                in_use.take(client)
                busy[id(client)] = busy.get(id(client), 0) + 1
            with lock:
                busy[id(client)] -= 1
            if in_use.give_back(client):
                close(client)

    def closer() -> None:
        for _ in range(300):
            with lock:
                client, state["current"] = state["current"], object()
            if not in_use.close_later(client):
                close(client)

    threads = [threading.Thread(target=attempts) for _ in range(4)] + [threading.Thread(target=closer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert state["closed_in_use"] == 0
    assert state["closed"] == 300  # every replaced client closed exactly once
    assert not in_use.clients
