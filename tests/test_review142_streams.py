"""Review 142: streamed replies and saved conversations (#3 a saved chunk's cut call, #1 a late call id, #4 Gemini's
astream closed early, #2 a ``_stream``-only model's merged stream)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire import Agent, AIMessageChunk, ToolMessage, merge_chunks, messages_from_dict, messages_to_dict, tool
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel

_CUT = '{"pattern": "*.tmp", "dry_run": fa'  # the arguments a stream ending early cut off


def _deleter(ran: list[dict[str, Any]]) -> Any:
    @tool
    def delete_files(pattern: str, dry_run: bool = False) -> str:
        """Delete the files matching pattern (only list them with dry_run=True)."""
        ran.append({"pattern": pattern, "dry_run": dry_run})
        return "done"

    return delete_files


def _cut_chunk() -> AIMessageChunk:
    return merge_chunks([AIMessageChunk("", tool_call_chunks=[  # type: ignore[return-value]
        {"name": "delete_files", "args": '{"pattern": "a"}', "id": "c0", "index": 0},
        {"name": "delete_files", "args": _CUT, "id": "c1", "index": 1}])])


# -- #3: a saved chunk whose call the stream cut off loads back as an invalid call, never run ------------------------


def test_a_saved_chunk_writes_its_cut_call_as_invalid_and_loads_it_back_so() -> None:
    chunk = _cut_chunk()
    saved = json.loads(json.dumps(messages_to_dict([chunk])))
    data = saved[0]["data"]
    assert saved[0]["type"] == "AIMessageChunk" and data["tool_call_chunks"] == []
    assert [c["id"] for c in data["tool_calls"]] == ["c0"]
    assert [(c["id"], c["args"]) for c in data["invalid_tool_calls"]] == [("c1", _CUT)]
    loaded = messages_from_dict(saved)
    assert loaded == [chunk.to_message()]
    ran: list[dict[str, Any]] = []
    result = Agent(ScriptedChatModel(["ok"]), [_deleter(ran)]).invoke(["clean up", *loaded])
    assert ran == [{"pattern": "a", "dry_run": False}]  # the complete call only
    answers = {m.tool_call_id: m.status for m in result.messages if isinstance(m, ToolMessage)}
    assert answers == {"c0": "success", "c1": "error"}


def test_a_chunk_dict_with_raw_pieces_is_read_from_them_not_from_its_partial_json_calls() -> None:
    # toolwire's dump before review 142, and LangChain's own: tool_calls hold the cut call read as partial JSON
    old = {"type": "AIMessageChunk", "data": {
        "content": "", "type": "AIMessageChunk", "id": None, "name": None, "additional_kwargs": {},
        "response_metadata": {}, "usage_metadata": None, "chunk_position": None,
        "tool_calls": [{"name": "delete_files", "args": {"pattern": "*.tmp"}, "id": "c1", "type": "tool_call"}],
        "invalid_tool_calls": [],
        "tool_call_chunks": [{"name": "delete_files", "args": _CUT, "id": "c1", "index": 0,
                              "type": "tool_call_chunk"}]}}
    [message] = messages_from_dict([old])
    assert message.tool_calls == []
    assert [(c["id"], c["args"]) for c in message.invalid_tool_calls] == [("c1", _CUT)]
    ran: list[dict[str, Any]] = []
    Agent(ScriptedChatModel(["ok"]), [_deleter(ran)]).invoke(["clean up", message])
    assert ran == []


@pytest.mark.parametrize("data", [{"tool_call_chunks": {"name": "f"}}, {"tool_call_chunks": ["not a piece"]},
                                  {"tool_call_chunks": [{"name": "f", "args": "{}", "id": [1]}]},
                                  {"tool_call_chunks": [{"name": "f", "args": "{}"}], "invalid_tool_calls": ["x"]}])
def test_a_saved_chunk_whose_pieces_are_not_pieces_is_a_user_error(data: dict[str, Any]) -> None:
    with pytest.raises(UserError, match="fix or remove that key"):
        messages_from_dict([{"type": "AIMessageChunk", "data": {"content": "", **data}}])


def test_langchain_reads_the_saved_chunk_with_its_cut_call_invalid_and_its_dump_loads_back() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    chunk = _cut_chunk()
    [read] = lc.messages_from_dict(json.loads(json.dumps(messages_to_dict([chunk]))))
    assert isinstance(read, lc.AIMessageChunk)
    assert [c["id"] for c in read.tool_calls] == ["c0"]
    assert [(c["id"], c["args"]) for c in read.invalid_tool_calls] == [("c1", _CUT)]
    assert messages_from_dict(json.loads(json.dumps(lc.messages_to_dict([read])))) == [chunk.to_message()]


def test_langchains_dump_of_its_own_cut_chunk_loads_with_the_call_invalid() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    chunk = lc.AIMessageChunk("", tool_call_chunks=[{"name": "delete_files", "args": _CUT, "id": "c1", "index": 0}])
    assert chunk.tool_calls  # LangChain's partial-JSON reading: a valid call without dry_run
    [message] = messages_from_dict(json.loads(json.dumps(lc.messages_to_dict([chunk]))))
    assert message.tool_calls == [] and [c["id"] for c in message.invalid_tool_calls] == ["c1"]


# -- #1: a streamed call whose id comes after its first piece keeps the provider's id, as invoke does ----------------


def _completion_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _late_id_events(second: str = ' "a"}') -> list[Any]:
    return [_completion_chunk({"role": "assistant"}),
            _completion_chunk({"tool_calls": [{"index": 0, "type": "function",
                                               "function": {"name": "f", "arguments": '{"x":'}}]}),
            _completion_chunk({"tool_calls": [{"index": 0, "id": "call_late", "function": {"arguments": second}}]}),
            _completion_chunk({}, "tool_calls")]


def test_a_call_id_that_comes_after_the_first_piece_is_the_streamed_calls_id() -> None:
    import asyncio

    from providers.scripted_http import Answer, ScriptedServer
    from toolwire.models import ChatOpenAI

    @tool
    def f(x: str) -> str:
        """F."""
        return x

    whole = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o", "choices": [{
        "index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_late", "type": "function", "function": {"name": "f", "arguments": '{"x": "a"}'}}]}}]}
    with ScriptedServer() as server:
        server.push(Answer(body=whole), Answer(events=_late_id_events()), Answer(events=_late_id_events()))
        model = ChatOpenAI("gpt-4o", base_url=server.url + "/v1", api_key="sk-test", max_retries=0).bind_tools([f])
        invoked = model.invoke("hi")
        chunks = list(model.stream("hi"))

        async def streamed() -> list[AIMessageChunk]:
            return [c async for c in model.astream("hi")]

        achunks = asyncio.run(streamed())
    assert invoked.tool_calls[0]["id"] == "call_late"
    for pieces in (chunks, achunks):
        assert merge_chunks(pieces, as_chunk=False) == invoked
        ids = [p["id"] for c in pieces for p in c.tool_call_chunks]
        assert ids[-1] == "call_late"  # the piece that brought it carries it


def test_the_merger_gives_way_to_the_first_provider_id_and_keeps_it() -> None:
    from toolwire.models.lowering._stream import ToolCallMerger

    merger = ToolCallMerger()
    first = merger.add(index=0, name="f", args='{"x":')
    pieces = [first, merger.add(index=0, id="real_1", args=' "a"'), merger.add(index=0, id="real_2", args="}")]
    assert [p["id"] for p in pieces[1:]] == ["real_1", "real_1"]  # the first real id stays the call's
    assert [c["id"] for c in merger.tool_calls()] == ["real_1"]
    merged = merge_chunks([AIMessageChunk(tool_call_chunks=[p]) for p in pieces], as_chunk=False)
    assert [(c["id"], c["args"]) for c in merged.tool_calls] == [("real_1", {"x": "a"})]
    # a call that never gets one keeps the id made for it, in the pieces and the merge alike
    lone = ToolCallMerger()
    made = [lone.add(index=0, name="f", args='{"x":'), lone.add(index=0, args=' "a"}')]
    assert made[0]["id"] == made[1]["id"] == lone.tool_calls()[0]["id"]
    assert merge_chunks([AIMessageChunk(tool_call_chunks=[p]) for p in made], as_chunk=False).tool_calls[0]["id"] \
        == made[0]["id"]


def test_a_provider_id_does_not_replace_another_provider_id_in_a_merge() -> None:
    pieces = [{"name": "f", "args": '{"x":', "id": "first", "index": 0},
              {"name": None, "args": ' "a"}', "id": "second", "index": 0}]
    merged = merge_chunks([AIMessageChunk(tool_call_chunks=[p]) for p in pieces], as_chunk=False)  # type: ignore[list-item]
    assert merged.tool_calls[0]["id"] == "first"  # per-piece ids (Poolside, vLLM): the call keeps its first


# -- #4: ChatGoogleGenAI.astream closed early closes its HTTP response at once ----------------------------------------


def _open_connections(port: int) -> int:
    """This process's established TCP connections to ``port`` (the client's side of them)."""
    import os

    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:"):
            inodes.add(link[8:-1])
    with open("/proc/net/tcp", encoding="ascii") as table:
        rows = [line.split() for line in table.read().splitlines()[1:]]
    return sum(1 for row in rows if row[9] in inodes and int(row[2].split(":")[1], 16) == port and row[3] == "01")


@pytest.mark.parametrize("library", ["aiohttp", "httpx"])
def test_a_gemini_astream_closed_early_closes_its_http_response_at_once(library: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    import os
    import time

    from providers.scripted_http import Answer, ScriptedServer
    from toolwire.models import ChatGoogleGenAI

    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("counts the connections in /proc/net/tcp (Linux)")
    api_client = pytest.importorskip("google.genai._api_client")
    if library == "httpx":
        monkeypatch.setattr(api_client, "has_aiohttp", False)
    elif not api_client.has_aiohttp:
        pytest.skip("aiohttp is not installed")

    def piece(text: str, finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}

    events = [piece(str(n)) for n in range(60)] + [piece("", "STOP")]
    with ScriptedServer() as server:
        server.push(Answer(events=events, pauses=[0.0] + [0.05] * 60))  # 3 s of a reply nobody reads
        port = int(server.url.rsplit(":", 1)[1])
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test", base_url=server.url, max_retries=0)

        async def run() -> tuple[int, float | None]:
            stream = model.astream("hi")
            async for _ in stream:
                break
            before = _open_connections(port)
            start = time.monotonic()
            await stream.aclose()  # type: ignore[attr-defined]
            while time.monotonic() - start < 1.5:
                if not _open_connections(port):
                    return before, time.monotonic() - start
                await asyncio.sleep(0.02)
            return before, None

        before, closed_after = asyncio.run(run())
    assert before == 1
    assert closed_after is not None and closed_after < 0.5  # (was: open until the server ended the stream, 3 s)


# -- review 141 #3: the message classes and messages_to_dict document their arguments, returns and errors -----------


def test_human_and_system_message_and_messages_to_dict_document_their_shapes_and_errors() -> None:
    import inspect

    import toolwire

    for cls in (toolwire.HumanMessage, toolwire.SystemMessage):
        doc = inspect.getdoc(cls) or ""
        assert "Args:" in doc and "content" in doc and "additional_kwargs" in doc
        assert "Raises:" in doc and "TypeError" in doc and "UserError" in doc
    doc = inspect.getdoc(toolwire.messages_to_dict) or ""
    assert "Args:" in doc and "Returns:" in doc and "Raises:" in doc


# --------------------------------------------------------------------------- review 142 #2: a _stream-only model


def test_a_stream_only_models_merged_stream_equals_invoke_on_an_unreadable_call() -> None:
    import asyncio

    from toolwire import AIMessageChunk as _Chunk
    from toolwire import merge_chunks as _merge
    from toolwire import tool as _tool
    from toolwire.models import BaseChatModel

    @_tool
    def write_file(path: str, text: str) -> str:
        """Write a file."""
        return "ok"

    class StreamOnly(BaseChatModel):
        """A provider with native streaming only."""

        def _stream(self, request: Any) -> Any:
            yield _Chunk(tool_call_chunks=[{"name": "write_file", "args": '{"path": "a.txt", ', "id": "so1",
                                            "index": 0}])
            yield _Chunk(tool_call_chunks=[{"name": None, "args": '"text": "hello"', "id": None, "index": 0}])

    model = StreamOnly().bind_tools([write_file])
    invoked = model.invoke("q")
    streamed = _merge(model.stream("q"), as_chunk=False)

    async def collect() -> Any:
        return _merge([chunk async for chunk in model.astream("q")], as_chunk=False)

    astreamed = asyncio.run(collect())
    assert invoked == streamed == astreamed
    assert '{"path": <text>, "text": <text>}' in streamed.invalid_tool_calls[0]["error"]


def test_a_single_saved_chunk_dict_and_an_agent_input_of_dicts_read_a_cut_call_as_invalid() -> None:
    import langchain_core.messages as lc

    from toolwire import Agent as _Agent
    from toolwire import message_from_dict as _one
    from toolwire.testing import ScriptedChatModel as _Scripted

    cut = lc.AIMessageChunk(content="", tool_call_chunks=[
        {"name": "delete_files", "args": '{"pattern": "*.tmp", "dry_run": fa', "id": "c1", "index": 0}])
    dump = lc.messages_to_dict([cut])[0]
    message = _one(dump)
    assert message.tool_calls == [] and [bad["id"] for bad in message.invalid_tool_calls] == ["c1"]
    ran: list[dict[str, Any]] = []
    result = _Agent(_Scripted(["ok"]), [_deleter(ran)]).invoke([{"type": "human", "data": {"content": "clean"}}, dump])
    assert ran == []
    assert [m.status for m in result.messages if m.type == "tool"] == ["error"]
