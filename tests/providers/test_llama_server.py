"""A real OpenAI-compatible server: llama-cpp-python's ``llama_cpp.server`` on 127.0.0.1, with the
smallest model of the registry, driven by ``ChatOpenAI(base_url=...)`` through the chapter's cycle.

The server runs llama-cpp-python's ``chatml-function-calling`` handler, which answers a named
``tool_choice`` with a grammar-constrained OpenAI ``tool_calls`` reply. The tiny model's *words* are not
judged (135M parameters); the wire is: tool schemas sent, tool calls parsed, ToolMessages sent back
under their ids, a text answer, in invoke and stream alike.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from toolwire import HumanMessage, ToolExecutor, merge_chunks
from toolwire.examples.book import BOOK_TOOLS, get_weather

pytestmark = pytest.mark.model
pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python[server] is not installed")
pytest.importorskip("openai", reason="the openai extra is not installed")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from toolwire.models.pull import pull_model

    path = pull_model("smollm2-135m", progress=False)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", "smollm2",
         "--chat_format", "chatml-function-calling", "--n_ctx", "2048", "--n_threads", "2",
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=(log := (tmp_path_factory.mktemp("server") / "log").open("w+")),
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"llama_cpp.server exited: {log.read()[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama_cpp.server did not start within 120 seconds")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture
def llm(server_url: str):
    from toolwire.models.openai import ChatOpenAI

    model = ChatOpenAI(model="smollm2", base_url=server_url, api_key="unused", temperature=0, max_tokens=48)
    yield model
    model.close()


@pytest.mark.parametrize("streaming", [False, True])
def test_chapter_cycle_against_llama_cpp_server(llm, streaming: bool) -> None:
    forced = llm.bind_tools(BOOK_TOOLS, tool_choice="get_weather")
    messages = [HumanMessage("Como está o clima em Paris?")]
    if streaming:
        chunks = list(forced.stream(messages))
        assert len(chunks) > 1
        ai_msg = merge_chunks(chunks, as_chunk=False)
    else:
        ai_msg = forced.invoke(messages)
    assert ai_msg.invalid_tool_calls == []
    assert [c["name"] for c in ai_msg.tool_calls] == ["get_weather"]
    call = ai_msg.tool_calls[0]
    assert isinstance(call["args"].get("city"), str) and call["id"]
    messages.append(ai_msg)
    results = ToolExecutor([get_weather]).execute(ai_msg)
    assert [(m.tool_call_id, m.status) for m in results] == [(call["id"], "success")]
    assert results[0].content == f"It's always sunny in {call['args']['city']}!"
    messages.extend(results)

    answer_model = llm.bind_tools(BOOK_TOOLS, tool_choice="none")
    final = merge_chunks(answer_model.stream(messages), as_chunk=False) if streaming else answer_model.invoke(messages)
    assert final.tool_calls == [] and final.text.strip()
    if not streaming:  # llama_cpp.server sends no usage in its stream
        assert final.usage and final.usage["input_tokens"] > 0 and final.usage["output_tokens"] > 0
