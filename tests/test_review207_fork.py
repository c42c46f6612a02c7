"""Review 207: state made before ``os.fork()`` (gunicorn ``--preload``, a 'fork' multiprocessing pool) used in the
child. #2: MCP tools from the sync ``load_tools()`` waited for ever in the child (their session thread stayed in the
parent); now refused at once with what to do. #3: the embedded model loaded (and used) in the parent hung in the
child (llama.cpp's OpenMP threads do not survive a fork); now refused at once. The MCP server is a small hand-written
JSON-RPC process; the model is a fake (no model is loaded). Each child is forked with ``os.fork()`` and ends with
``os._exit``; the parent waits a few seconds at most for its answer, then kills it."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import textwrap
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX only")]

_HUNG = "the child did not answer in time: it hung"


def _in_child(work: Callable[[], str], wait: float = 8.0) -> str:
    """Run ``work()`` in a child made by ``os.fork()`` and return what it returned (or the error it raised, as
    ``"TypeName: message"``), or :data:`_HUNG` when the child did not answer within ``wait`` seconds (it is killed)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        try:
            try:
                answer = work()
            except BaseException as exc:
                answer = f"{type(exc).__name__}: {exc}"
            os.write(write, answer.encode())
        finally:
            os._exit(0)
    os.close(write)
    chunks, deadline = [], time.monotonic() + wait
    try:
        while True:
            ready, _, _ = select.select([read], [], [], max(deadline - time.monotonic(), 0.0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                return _HUNG
            chunk = os.read(read, 65536)
            if not chunk:
                return b"".join(chunks).decode()
            chunks.append(chunk)
    finally:
        os.close(read)
        os.waitpid(pid, 0)


# -- 2: MCP tools of load_tools() in a fork child ------------------------------------------------------------------

SERVER = textwrap.dedent('''
    import json, sys

    OBJ = {"type": "object", "properties": {"tag": {"type": "string"}}}
    for line in sys.stdin:
        message = json.loads(line)
        method, mid = message.get("method"), message.get("id")
        if mid is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "echo", "description": "Echo the tag.", "inputSchema": OBJ}]}
        elif method == "tools/call":
            tag = (message["params"].get("arguments") or {}).get("tag", "")
            result = {"content": [{"type": "text", "text": "echo " + tag}]}
        else:
            result = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\\n")
        sys.stdout.flush()
''')


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_mcp_tools_loaded_before_a_fork_are_refused_at_once_in_the_child(tmp_path: Path,
                                                                         timeout: float | None) -> None:
    pytest.importorskip("mcp")
    from toolwire import AIMessage, ToolExecutor
    from toolwire.errors import UserError
    from toolwire.mcp import load_tools

    path = tmp_path / "echo_server.py"
    path.write_text(SERVER)
    call = {"name": "echo", "args": {"tag": "x"}, "id": "c1", "type": "tool_call"}
    with load_tools([sys.executable, str(path)], timeout=timeout, connect_timeout=30) as tools:
        assert ToolExecutor(tools).execute(AIMessage("", tool_calls=[call]))[0].content == "echo x"

        def call_in_child() -> str:
            started = time.monotonic()
            message = ToolExecutor(tools).execute(AIMessage("", tool_calls=[call]))[0]
            try:
                tools.client.refresh()
                refreshed = "refreshed"
            except UserError as exc:
                refreshed = str(exc)
            return json.dumps({"status": message.status, "content": message.content, "refresh": refreshed,
                               "seconds": time.monotonic() - started})

        answer = _in_child(call_in_child)
        assert answer != _HUNG
        got = json.loads(answer)
        assert got["status"] == "error" and got["seconds"] < 3.0, got
        for text in (got["content"], got["refresh"]):
            assert "forked from" in text and "call load_tools(...) in each worker process, after the fork" in text
            assert "may still be running" not in text and "did not finish" not in text
        # the parent's session is untouched
        assert ToolExecutor(tools).execute(AIMessage("", tool_calls=[call]))[0].content == "echo x"
        assert tools.client.refresh()[0].name == "echo"


# -- 3: the embedded model loaded before a fork --------------------------------------------------------------------


class _FakeLlama:
    """What LoadedModel reads from a ``llama_cpp.Llama`` when it is made (no generation)."""

    metadata: ClassVar[dict[str, str]] = {}
    _model = types.SimpleNamespace(vocab=None)

    def token_bos(self) -> int:
        return -1

    def token_eos(self) -> int:
        return -1

    def close(self) -> None:
        pass


@pytest.fixture
def fake_llama_cpp(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import _loaded, llamacpp

    lib = types.SimpleNamespace(llama_token_to_piece=None, llama_vocab_is_eog=None,
                                llama_vocab_get_add_bos=lambda vocab: 0)
    monkeypatch.setattr(_loaded, "_llama_cpp", lambda: lib)
    monkeypatch.setattr(llamacpp, "_llama_cpp", lambda: lib)
    monkeypatch.setattr(_loaded, "_llama", lambda *args: _FakeLlama())
    monkeypatch.setattr(_loaded, "_MODELS", {})


def _error_in_child(work: Callable[[], Any]) -> str:
    def run() -> str:
        started = time.monotonic()
        try:
            work()
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}", "seconds": time.monotonic() - started})
        return json.dumps({"error": None})

    answer = _in_child(run)
    assert answer != _HUNG
    got = json.loads(answer)
    assert got["error"] is not None and got["seconds"] < 3.0, got
    return str(got["error"])


def test_a_model_loaded_before_a_fork_is_refused_in_the_child_before_generating(fake_llama_cpp: None,
                                                                                tmp_path: Path) -> None:
    from toolwire.models._loaded import load_model
    from toolwire.models.llamacpp import ChatLlamaCpp

    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"not read: llama.cpp is a fake here")
    model = ChatLlamaCpp(str(path))
    loaded = model.load()
    assert loaded.pid == os.getpid() and load_model(path, n_ctx=model.n_ctx) is loaded  # the parent's, cached

    for work in (lambda: model.invoke("hi"), model.load):  # (the parent's model object)
        error = _error_in_child(work)
        assert error.startswith("UserError: The local model tiny.gguf was loaded in the process this one was forked"), \
            error
        assert "load the model in each worker, after the fork" in error
    assert model.load() is loaded  # the parent still has its model


def test_a_fork_child_leaves_the_parents_models_alone_at_exit(fake_llama_cpp: None, tmp_path: Path) -> None:
    from toolwire.models import _loaded

    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"fake")
    loaded = _loaded.load_model(path, n_ctx=64)
    closed: list[int] = []
    loaded.llm.close = lambda: closed.append(os.getpid())  # type: ignore[method-assign]

    def close_in_child() -> str:
        _loaded._close_models()
        return json.dumps(closed)

    assert json.loads(_in_child(close_in_child)) == []
    assert loaded is _loaded.load_model(path, n_ctx=64)


def test_a_model_made_in_the_child_loads_its_own(fake_llama_cpp: None, tmp_path: Path) -> None:
    """Review 210 #1: the parent's cached copy is not handed to a model the child makes (the README's advice)."""
    from toolwire.models._loaded import load_model
    from toolwire.models.llamacpp import ChatLlamaCpp

    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"fake")
    parent = ChatLlamaCpp(str(path)).load()

    def in_child() -> str:
        own = ChatLlamaCpp(str(path)).load()
        again = load_model(path, n_ctx=ChatLlamaCpp(str(path)).n_ctx)
        return json.dumps([own is not parent, own.pid == os.getpid(), again is own])

    assert json.loads(_in_child(in_child)) == [True, True, True]
    assert ChatLlamaCpp(str(path)).load() is parent  # the parent keeps its own
