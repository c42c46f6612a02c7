"""Shared helpers of the interop tests: start real MCP servers (stdio command lines, HTTP processes)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SERVERS = HERE / "mcp_servers"
SRC = HERE.parent.parent / "src"
DEMO = [sys.executable, str(SERVERS / "demo.py")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def start_http(argv: list[str], port: int) -> subprocess.Popen:
    proc = subprocess.Popen(argv, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(port, proc)
    except RuntimeError:
        proc.kill()
        _, err = proc.communicate(timeout=10)
        raise RuntimeError(f"{argv} did not start: {err.decode(errors='replace')[-2000:]}") from None
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def demo_http_url() -> Iterator[str]:
    """The demo MCP server over streamable HTTP on 127.0.0.1, for the whole session."""
    port = free_port()
    proc = start_http([*DEMO, "--http", str(port)], port)
    yield f"http://127.0.0.1:{port}/mcp"
    stop(proc)
