"""A hosted model's SDK clients are not shared with a child made by os.fork(): the child starts with none, and a
lock another thread held at the fork is not held there (review 207 #1: gunicorn --preload workers got one another's
replies)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from toolwire.models._loop_clients import Clients

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="needs os.fork")


def _in_child(check) -> int:
    pid = os.fork()
    if pid == 0:  # the child: report by exit status only
        try:
            code = 0 if check() else 3
        except BaseException:
            code = 4
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_fork_child_starts_without_the_parents_clients() -> None:
    clients = Clients()
    parent_client = object()
    clients.sync = parent_client
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with clients.lock:
            held.set()
            release.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(5)
    try:
        def check() -> bool:
            got = clients.lock.acquire(timeout=2)  # (held by the parent's thread at the fork: a new lock here)
            return got and clients.sync is None and not clients.async_by_loop

        assert _in_child(check) == 0
    finally:
        release.set()
        thread.join()
    assert clients.sync is parent_client  # the parent keeps its own


def test_a_model_made_before_the_fork_opens_its_own_client_in_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models.openai import ChatOpenAI

    model = ChatOpenAI(model="m", api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    parent_client = model._client()

    def check() -> bool:
        return model._client() is not parent_client

    assert _in_child(check) == 0
    assert model._client() is parent_client
