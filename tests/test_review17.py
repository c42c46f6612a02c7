"""Review 17 regressions (robustness of parsing, execution and messages on bad input).

Each test names the finding it covers; each fails on the code before the fix.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from toolwire import AIMessage, ToolExecutor, tool

# -- finding 2: a result ready in time is not thrown away because another tool blocked the event loop ----------

_CHARGE_STARTED = threading.Event()
_LOOKUP_STARTED = threading.Event()
_BLOCKING = threading.Event()


@tool(timeout=0.5)
def charge_card(amount: int) -> str:
    """Charge the card (sync, quick)."""
    _CHARGE_STARTED.set()
    time.sleep(0.02)
    return f"charged {amount}"


@tool(timeout=0.5)
async def lookup(q: str) -> str:
    """An async lookup that is done long before its timeout (its last step is due while the loop is blocked)."""
    _LOOKUP_STARTED.set()
    for _ in range(500):  # its last step falls in the block (was: a fixed 0.1 s, which ended before the block when
        if _BLOCKING.is_set():  # the sync call's thread was slow to start on a loaded machine)
            break
        await asyncio.sleep(0.01)
    return f"found {q}"


@tool
async def blocker() -> str:
    """An async tool that blocks the event loop for 0.8 s (a sync client inside async code; no timeout)."""
    for _ in range(500):  # the other calls start first (not a fixed wait: a loaded CI machine can be slower)
        if _CHARGE_STARTED.is_set() and _LOOKUP_STARTED.is_set():
            break
        await asyncio.sleep(0.01)
    _BLOCKING.set()
    time.sleep(0.8)
    return "ok"


@tool(timeout=0.2)
async def self_blocker() -> str:
    """An async tool that blocks the event loop past its own timeout."""
    time.sleep(0.4)
    return "late"


def _calls(*names: str) -> AIMessage:
    return AIMessage(tool_calls=[{"name": n, "args": {"amount": 5} if n == "charge_card" else
                                  ({"q": "x"} if n == "lookup" else {}), "id": f"c{i}", "type": "tool_call"}
                                 for i, n in enumerate(names)])


@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_sync_result_ready_in_time_survives_another_tool_blocking_the_loop(run):
    for event in (_CHARGE_STARTED, _LOOKUP_STARTED, _BLOCKING):
        event.clear()
    executor = ToolExecutor([charge_card, lookup, blocker])
    reply = _calls("charge_card", "lookup", "blocker")
    out = executor.execute(reply) if run == "sync" else asyncio.run(executor.aexecute(reply))
    assert (out[0].status, out[0].content) == ("success", "charged 5")  # its thread finished in time
    # an async result after the deadline is a timeout, whichever tool blocked the loop (documented)
    assert out[1].status == "error" and "did not finish within 0.5 seconds" in out[1].content
    assert (out[2].status, out[2].content) == ("success", "ok")


def test_an_async_tool_that_blocks_the_loop_past_its_own_timeout_still_times_out():
    [message] = ToolExecutor([self_blocker]).execute(_calls("self_blocker"))
    assert message.status == "error" and "did not finish within 0.2 seconds" in message.content
    assert "must not block the event loop" in message.content


# -- finding 1: an integer too long for Python to read is an invalid call, not a crash -----------------------

_HUGE = "9" * 5000  # over Python's 4300-digit limit for int()


@tool
def add(a: int, b: int = 0) -> int:
    """Add two numbers."""
    return a + b


def test_an_integer_too_long_to_read_makes_an_invalid_call_everywhere():
    from toolwire.messages import AIMessageChunk, merge_chunks, message_from_dict
    from toolwire.models.lowering.openai import parse_response
    from toolwire.parsing import normalize_arguments, parse_tool_calls
    from toolwire.parsing.arguments import ToolCallParseError

    args = '{"a": ' + _HUGE + "}"
    parsed = parse_tool_calls('<tool_call>{"name": "add", "arguments": ' + args + "}</tool_call>", ["add"])
    [bad] = parsed.invalid_tool_calls
    assert not parsed.tool_calls and _HUGE in bad["args"]  # the text as written is kept
    assert "not a finite number" in bad["error"] and "too large to read" in bad["error"]
    with pytest.raises(ToolCallParseError, match="too large to read"):
        normalize_arguments(args)
    chunk = AIMessageChunk(tool_call_chunks=[{"name": "add", "args": args, "id": "c1", "index": 0,
                                              "type": "tool_call_chunk"}])
    merged = merge_chunks([chunk], as_chunk=False)
    restored = message_from_dict({"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "add", "arguments": args}}]})
    reply = parse_response({"id": "r", "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls",
                            "message": {"role": "assistant", "content": None, "tool_calls": [
                                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": args}}]}}]},
                           tool_names=["add"])
    for message in (merged, restored, reply):
        assert not message.tool_calls and message.invalid_tool_calls[0]["args"] == args
    [answer] = ToolExecutor([add]).execute(AIMessage(tool_calls=[{"name": "add", "args": args, "id": "c1",
                                                                   "type": "tool_call"}]))
    assert answer.status == "error" and "too large to read" in answer.content


# -- finding 3: a resumed conversation that repeats a call id leaves no call unanswered, runs none twice ----------


def test_repeated_ids_in_a_resumed_conversation_are_answered_once_each():
    from toolwire import Agent, HumanMessage, ToolMessage
    from toolwire.testing import ScriptedChatModel

    ai = AIMessage(tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c", "type": "tool_call"},
                               {"name": "add", "args": {"a": 2}, "id": "c", "type": "tool_call"}])
    for tail, second in (([], "2"), ([HumanMessage("and?")], None)):
        model = ScriptedChatModel(["done"])
        result = Agent(model, [add]).invoke([HumanMessage("go"), ai, ToolMessage("1", "c", name="add"), *tail])
        sent = model.requests[0].messages
        calls = [c["id"] for m in sent if isinstance(m, AIMessage) for c in m.tool_calls]
        answers = [m for m in sent if isinstance(m, ToolMessage)]
        assert calls == ["c", "c_2"] and [m.tool_call_id for m in answers] == ["c", "c_2"]
        assert answers[0].content == "1"  # the answer given is kept for the first call
        if second is None:  # the conversation went on past it: the second call gets the stale-call error
            assert answers[1].status == "error"
        else:  # still pending: it runs now
            assert answers[1].content == second
        assert result.output == "done"
    # two answers to two calls with one id: nothing runs again
    model = ScriptedChatModel(["done"])
    Agent(model, [add]).invoke([HumanMessage("go"), ai, ToolMessage("1", "c"), ToolMessage("2", "c")])
    assert [m.content for m in model.requests[0].messages if isinstance(m, ToolMessage)] == ["1", "2"]


# -- findings 4, 5, 12: call ids and invalid calls of odd shapes get the shape the rest relies on ---------------


def test_numeric_and_missing_ids_and_odd_invalid_calls_are_normalised():
    from toolwire import Agent, HumanMessage, ToolMessage
    from toolwire.messages import message_from_dict
    from toolwire.models.lowering.openai import lower_messages
    from toolwire.testing import ScriptedChatModel

    ai = message_from_dict({"role": "assistant", "content": None, "tool_calls": [
        {"id": 7, "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}},
        {"id": 7, "type": "function", "function": {"name": "add", "arguments": '{"a": 2}'}}]})
    assert [c["id"] for c in ai.tool_calls] == ["7", "7"]
    result = Agent(ScriptedChatModel(["done"]), [add]).invoke([HumanMessage("go"), ai])
    answers = [(m.tool_call_id, m.content) for m in result.messages if isinstance(m, ToolMessage)]
    assert answers == [("7", "1"), ("7_2", "2")]
    assert [message_from_dict(m.to_dict()) for m in result.messages] == result.messages  # it reloads

    odd = AIMessage(invalid_tool_calls=[{"name": "add", "args": "{", "id": "x", "error": {"code": 1}},
                                        {"name": "add", "args": {"a": 1}, "error": "cut off"}])
    first, second = odd.invalid_tool_calls
    assert first["error"] == "{'code': 1}" and second["args"] == '{"a": 1}' and second["id"]
    result = Agent(ScriptedChatModel(["done"]), [add]).invoke([HumanMessage("go"), odd])
    answers = [m for m in result.messages if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in answers] == ["x", second["id"]] and all(m.status == "error" for m in answers)
    lower_messages(result.messages)  # no KeyError

    calls = [{"name": "add", "args": {"a": 1}, "id": None}, {"name": "add", "args": {"a": 2}, "id": None}]
    for out in (ToolExecutor([add]).call(calls), asyncio.run(ToolExecutor([add]).acall(calls))):
        ids = [m.tool_call_id for m in out]
        assert all(ids) and len(set(ids)) == 2 and [m.content for m in out] == ["1", "2"]


# -- finding 11: a Python definition in a text reply is not a call --------------------------------------------


def test_a_function_definition_in_text_is_not_a_tool_call():
    from toolwire.parsing import parse_tool_calls

    text = "Here is the helper:\ndef add(a=1, b=2):\n    return a + b"
    reply = parse_tool_calls(text, ["add"])
    assert not reply.tool_calls and reply.content == text
    for other in ("class add(a=1): pass", "async def add(a=1): pass"):
        assert not parse_tool_calls(other, ["add"]).tool_calls
    assert parse_tool_calls("undef add(a=1)", ["add"]).tool_calls  # only the keyword itself


# -- findings 6, 9: URL credentials never show (MCP server URLs; keys in a query string) ------------------------


def test_url_credentials_are_masked_in_mcp_reprs_messages_and_descriptions():
    from toolwire import UserError
    from toolwire.mcp import MCPClient
    from toolwire.mcp.common import HttpServer, _describe

    url = "http://user:sk-SECRET@127.0.0.1:9/mcp?token=tk-SECRET"
    server = HttpServer(url)
    assert "SECRET" not in repr(server) and "SECRET" not in server.label
    assert server.url == url  # the real URL is still the one connected to
    assert "SECRET" not in repr(MCPClient(url))
    assert "SECRET" not in _describe(OSError(f"cannot reach {url}"))
    with pytest.raises(UserError) as caught, MCPClient(url, connect_timeout=5):
        pass
    assert "SECRET" not in str(caught.value)


def test_secret_query_parameters_are_masked():
    from toolwire.models._retry import redact_url
    from toolwire.models.openai import ChatOpenAI

    shown = repr(ChatOpenAI("gpt-x", api_key="sk-1", base_url="https://proxy.example/v1?api_key=sk-SECRET&v=2"))
    assert "sk-SECRET" not in shown and "api_key=****&v=2" in shown
    assert redact_url("https://u:p@x/v1?page=2&Access_Token=abc#f") == "https://****@x/v1?page=2&Access_Token=****#f"


# -- finding 8: a timeout that is not a positive number of seconds is refused with one sentence -----------------


def test_bad_timeouts_are_refused_with_a_sentence():
    from toolwire import SchemaError, UserError

    def f(x: int) -> int:
        """Echo."""
        return x

    for bad in (float("nan"), "5", 0, -1, True, float("inf")):
        with pytest.raises(SchemaError, match="timeout must be a positive number of seconds"):
            tool(timeout=bad)(f)
        with pytest.raises(UserError, match="timeout must be a positive number of seconds"):
            add.invoke({"a": 1}, timeout=bad)
        with pytest.raises(UserError, match="timeout must be a positive number of seconds"):
            asyncio.run(add.ainvoke({"a": 1}, timeout=bad))
    assert add.invoke({"a": 1}, timeout=5) == 1


# -- finding 7: a sync generator tool that times out stops being drained ----------------------------------------


def test_a_timed_out_sync_generator_is_closed_not_drained():
    pulled: list[int] = []
    closed: list[bool] = []

    @tool(timeout=0.2)
    def feed() -> list:
        """Yield rows of an endless feed."""
        try:
            while True:
                time.sleep(0.01)
                pulled.append(1)
                yield "row"
        finally:
            closed.append(True)

    def settle() -> int:
        deadline = time.monotonic() + 10  # (a bound for a slow machine: it closes within one item)
        while not closed and time.monotonic() < deadline:
            time.sleep(0.02)
        return len(pulled)

    for run in (lambda: ToolExecutor([feed]).execute([{"name": "feed", "args": {}, "id": "c"}])[0],
                lambda: feed.invoke({"name": "feed", "args": {}, "id": "c", "type": "tool_call"})):
        pulled.clear()
        closed.clear()
        message = run()
        assert message.status == "error" and "did not finish within 0.2 seconds" in message.content
        count = settle()
        assert closed == [True]  # the generator was closed (its finally ran) ...
        time.sleep(0.2)
        assert len(pulled) == count  # ... and nothing more was pulled from it


# -- finding 10: odd chunk fields are read as what they stand for, never a TypeError -------------------------


def test_merge_chunks_reads_odd_chunk_fields():
    from toolwire.messages import AIMessageChunk, merge_chunks

    def chunk(**fields: object) -> AIMessageChunk:
        return AIMessageChunk(tool_call_chunks=[{"name": None, "args": None, "id": None, "index": None,
                                                 "type": "tool_call_chunk", **fields}])  # type: ignore[typeddict-item]

    merged = merge_chunks([chunk(index=0, id="a", name="f", args={"x": 1})], as_chunk=False)
    assert merged.tool_calls[0]["args"] == {"x": 1}
    merged = merge_chunks([chunk(index="1", id="b", name="g", args="{}"), chunk(index=0, id="a", name="f", args="{}")],
                          as_chunk=False)
    assert [c["name"] for c in merged.tool_calls] == ["f", "g"]  # "1" is index 1
    merged = merge_chunks([chunk(index=0, id=["a"], name="f", args="{}"), chunk(index=1, id=7, name="g", args="{}")],
                          as_chunk=False)
    assert merged.tool_calls[0]["id"] and merged.tool_calls[1]["id"] == "7"
