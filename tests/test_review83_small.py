"""Review 83, the smaller findings: error texts (hidden details, StopIteration, tiny limits, results that cannot
be written), lone surrogates in call ids and argument keys, cyclic artifacts and defaults, tool.invoke's call name."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolExecutor, ToolMessage, message_from_dict, tool
from toolwire.errors import SchemaError, ToolExecutionError
from toolwire.testing import ScriptedChatModel

SECRET = "sk-LEAKME"


# -- #7: hide_error_details hides a sys.exit() argument too --------------------------------------------------------

@tool
def exits(x: int = 0) -> str:
    """Exits with a secret."""
    sys.exit(SECRET)


@tool
async def aexits(x: int = 0) -> str:
    """Exits with a secret (async)."""
    sys.exit(SECRET)


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_hide_error_details_shows_only_the_type_of_a_sys_exit(timeout: float | None) -> None:
    calls = [{"name": "exits", "args": {}, "id": "a"}, {"name": "aexits", "args": {}, "id": "b"}]
    for message in ToolExecutor([exits, aexits], hide_error_details=True, timeout=timeout).execute(calls):
        assert message.status == "error"
        assert SECRET not in message.content
        assert f"tool '{message.name}' raised SystemExit." in message.content
    shown = ToolExecutor([exits]).execute(calls[:1])[0].content  # without the option the message is kept
    assert "tried to exit the program" in shown and SECRET in shown


# -- #8: lone surrogates in call ids and argument keys become U+FFFD, so to_dict() can be saved as UTF-8 JSON -------

def _saved(message: Any) -> bytes:
    return json.dumps(message.to_dict(), ensure_ascii=False).encode("utf-8")


@tool
def add(a: int) -> int:
    """Add."""
    return a


def test_a_call_id_with_a_lone_surrogate_becomes_u_fffd_in_the_call_and_its_answer() -> None:
    reply = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "\udc80sur", "type": "tool_call"}],
                      invalid_tool_calls=[{"name": "add", "args": "{", "id": "\udc81bad", "error": "cut"}])
    assert reply.tool_calls[0]["id"] == "\ufffdsur"
    assert reply.invalid_tool_calls[0]["id"] == "\ufffdbad"
    _saved(reply)
    answers = ToolExecutor([add]).execute(reply)
    assert [m.tool_call_id for m in answers] == ["\ufffdsur", "\ufffdbad"]
    for message in answers:
        _saved(message)
    # a list of call dicts, a ToolMessage made by hand and tool.invoke answer under the same repaired id
    [answer] = ToolExecutor([add]).execute([{"name": "add", "args": {"a": 1}, "id": "\udc80sur"}])
    assert answer.tool_call_id == "\ufffdsur" and b"\xef\xbf\xbdsur" in _saved(answer)
    assert ToolMessage("x", tool_call_id="\udc80sur").tool_call_id == "\ufffdsur"
    _saved(ToolMessage("x", tool_call_id="\udc80sur"))
    assert add.invoke({"name": "add", "args": {"a": 1}, "id": "\udc80sur", "type": "tool_call"}).tool_call_id == \
        "\ufffdsur"


def test_an_agent_run_with_a_surrogate_call_id_can_be_saved_and_pairs_the_answer() -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "add", "args": {"a": 3}, "id": "\udc80"}]), "done"])
    result = Agent(model, [add]).invoke("q")
    assert result.messages[1].tool_calls[0]["id"] == "\ufffd"
    assert result.messages[2].tool_call_id == "\ufffd"
    for message in result.messages:
        _saved(message)


def test_argument_keys_with_a_lone_surrogate_at_any_depth_are_replaced_in_to_dict() -> None:
    args = {"\udc80": {"k\udc81": [{"\udc82": "v\udc83"}]}}
    reply = AIMessage("", tool_calls=[{"name": "add", "args": args, "id": "c1"}])
    saved = json.loads(_saved(reply))
    assert saved["tool_calls"][0]["args"] == {"\ufffd": {"k\ufffd": [{"\ufffd": "v\ufffd"}]}}


# -- #9: a cyclic artifact is saved as its str(), so to_dict() does not raise -------------------------------------

def test_a_cyclic_artifact_is_saved_as_its_text_and_the_message_reads_back() -> None:
    tree: dict[str, Any] = {"name": "root"}
    tree["parent_of_self"] = tree
    loop: list[Any] = [1]
    loop.append(loop)

    @tool(response_format="content_and_artifact")
    def load_tree(which: str) -> Any:
        """Load a tree."""
        return "loaded", (tree if which == "tree" else {"rows": loop, "k\udc80": 1})

    for which in ("tree", "list"):
        [message] = ToolExecutor([load_tree]).execute([{"name": "load_tree", "args": {"which": which}, "id": "a"}])
        assert message.status == "success"
        assert message.artifact["rows" if which == "list" else "name"] is not None  # the object itself is kept
        saved = json.loads(_saved(message))
        assert isinstance(saved["artifact"], str)
        assert ("{...}" if which == "tree" else "[...]") in saved["artifact"]
        assert message_from_dict(saved).artifact == saved["artifact"]
    assert json.loads(_saved(ToolMessage("x", tool_call_id="a", artifact={"k\udc80": [1]})))["artifact"] == \
        {"k\ufffd": [1]}


# -- #12a: a default that holds itself is a SchemaError at decoration, not a RecursionError ------------------------

def test_a_parameter_default_that_holds_itself_is_a_schema_error_naming_it() -> None:
    cyc: list[Any] = []
    cyc.append(cyc)
    loop: dict[str, Any] = {}
    loop["self"] = loop
    for default in (cyc, loop):
        def f(x: int, opts: Any = default) -> int:
            """Tool whose default is self-referencing."""
            return x

        with pytest.raises(SchemaError, match=r"parameter 'opts' of tool 'f' holds itself") as info:
            tool(f)
        assert str(info.value).count(". ") == 0 and str(info.value).endswith("inside the tool.")


# -- #12b: a tiny max_result_chars keeps an error result saying it is an error, without "narrower result" advice ---

@tool
def fails(x: int = 0) -> str:
    """Always fails."""
    raise ValueError("the database is down, try again in a minute")


@tool
def long_text(x: int = 0) -> str:
    """A long result."""
    return "y" * 50


@pytest.mark.parametrize("limit", [1, 3, 10])
def test_a_tiny_max_result_chars_keeps_an_error_result_an_error(limit: int) -> None:
    calls = [{"name": "fails", "args": {}, "id": "a"}, {"name": "nope", "args": {}, "id": "b"},
             {"name": "long_text", "args": {}, "id": "c"}]
    error, unknown, success = ToolExecutor([fails, long_text], max_result_chars=limit).execute(calls)
    for message in (error, unknown):
        assert message.status == "error"
        assert message.content.startswith("Error:")
        assert "error text truncated" in message.content and "narrower" not in message.content
    assert success.content.startswith("y" * limit + "\n[... result truncated")
    assert "ask for a narrower result" in success.content


# -- #12d: a result whose __len__ raises is "ran, but its result could not be sent back", not "tool raised" --------

class _BadLen(list):  # type: ignore[type-arg]
    def __len__(self) -> int:
        raise RuntimeError("len boom")


@tool
def bad_len(x: int = 0) -> Any:
    """Returns a list whose len() fails."""
    return _BadLen([1])


def test_a_result_whose_len_raises_is_not_blamed_on_the_tool() -> None:
    call = {"name": "bad_len", "args": {}, "id": "a", "type": "tool_call"}
    for message in (ToolExecutor([bad_len]).execute([call])[0], bad_len.invoke(call)):
        assert "raised RuntimeError" not in message.content
        # written as JSON (json's C encoder reads a list without len()), or else the error that says it ran
        assert (message.status, message.content) == ("success", "[1]") or (
            message.status == "error" and "ran, but its result could not be sent back" in message.content)


# -- #12c: a result that cannot be written gives toolwire's sentence, not Python's advice or a codec error ---------

@dataclasses.dataclass
class _Blob:
    data: bytes


@tool
def unwritable(which: str) -> Any:
    """Returns a value JSON text cannot hold."""
    return {"bigint": 10**5000, "big_list": [*range(6000), 10**5000], "blob": _Blob(b"\xff\xfe"),
            "nested_bytes": {"a": [b"\xff"]}}[which]


@pytest.mark.parametrize("which", ["bigint", "big_list", "blob", "nested_bytes"])
def test_a_result_that_cannot_be_written_gives_one_sentence_of_toolwire(which: str) -> None:
    call = {"name": "unwritable", "args": {"which": which}, "id": "a", "type": "tool_call"}
    for message in (ToolExecutor([unwritable]).execute([call])[0], unwritable.invoke(call)):
        assert message.status == "error"
        assert "ran, but its result could not be sent back" in message.content
        assert "set_int_max_str_digits" not in message.content and "codec" not in message.content
        wanted = "integer too long to write as text" if which.startswith("big") else "not UTF-8 text"
        assert wanted in message.content


# -- #12e: tool.invoke(call) of a call that names another tool does not run the tool ------------------------------

def test_a_call_naming_another_tool_is_not_run_by_the_tool_it_was_given_to() -> None:
    ran: list[int] = []

    @tool
    def ok(x: int) -> int:
        """Records that it ran."""
        ran.append(x)
        return x

    call = {"name": "other", "args": {"x": 1}, "id": "a", "type": "tool_call"}
    for answer in (ok.invoke(call), asyncio.run(ok.ainvoke(call))):
        assert answer.status == "error" and answer.tool_call_id == "a"
        assert "did not run this call, which names the tool 'other'" in answer.content  # (review 170 #8)
    assert ran == []
    strict = tool(ok.func, name="ok", handle_errors=False)
    with pytest.raises(ToolExecutionError, match="given to the tool 'ok'"):
        strict.invoke(call)
    assert ran == []
    assert ok.invoke({**call, "name": "ok"}).content == "1"  # its own name, or none, runs it
    assert ok.invoke({"args": {"x": 2}, "id": "b", "type": "tool_call"}).content == "2"
    assert ran == [1, 2]


# -- #11: an async tool's StopIteration gives the sync tool's text, message kept ----------------------------------

@tool
def s_stop(x: int = 0) -> int:
    """Raises StopIteration."""
    raise StopIteration("no more rows")


@tool
async def a_stop(x: int = 0) -> int:
    """Raises StopIteration (async)."""
    raise StopIteration("no more rows")


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_a_stop_iteration_reads_the_same_from_a_sync_and_an_async_tool(timeout: float | None) -> None:
    calls = [{"name": "s_stop", "args": {}, "id": "s"}, {"name": "a_stop", "args": {}, "id": "a"}]
    sync, async_ = ToolExecutor([s_stop, a_stop], timeout=timeout).execute(calls)
    assert sync.content == ("Error: tool 's_stop' raised RuntimeError: StopIteration raised inside the tool: "
                            "no more rows")
    assert async_.content == sync.content.replace("s_stop", "a_stop")
    assert a_stop.invoke({**calls[1], "type": "tool_call"}).content == async_.content
    strict = tool(a_stop.func, name="a_stop", handle_errors=False)
    with pytest.raises(RuntimeError, match="StopIteration raised inside the tool: no more rows") as info:
        strict.invoke({})
    assert isinstance(info.value.__cause__, StopIteration)
