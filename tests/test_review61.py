"""Faults a fresh user's pass over the library found (review 61), each kept fixed by a test here.

Covered elsewhere: booleans for numbers at every depth and whole floats for a schema tool's integers
(``tests/test_review58.py``).
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from toolwire import Agent, AIMessage, tool
from toolwire.messages import merge_chunks
from toolwire.testing import ScriptedChatModel


def _two_calls() -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "step", "args": {"n": 1}, "id": "a", "type": "tool_call"},
                                     {"name": "step", "args": {"n": 2}, "id": "b", "type": "tool_call"}])


def test_parallel_tool_calls_false_keeps_one_call_whatever_the_provider_sent(caplog: pytest.LogCaptureFixture) -> None:
    """Review 61 #2: an OpenAI-compatible server that ignores ``parallel_tool_calls`` (or calls read from its text)
    gave two calls, and an Agent ran both at once, although the user bound ``parallel_tool_calls=False`` so that
    the tools run one at a time. Every reply of such a request now keeps its first call (invoke, stream, and
    their async twins), with a warning in the log; without the flag nothing changes."""
    ran: list[int] = []

    @tool
    def step(n: int) -> str:
        """Take a step."""
        ran.append(n)
        return f"did {n}"

    model = ScriptedChatModel([_two_calls(), "Done."])
    with caplog.at_level(logging.WARNING, logger="toolwire.models"):
        result = Agent(model.bind_tools([step], parallel_tool_calls=False), [step]).invoke("go")
    assert ran == [1] and result.output == "Done."
    assert "kept the first tool call of the reply, dropped 1" in caplog.text

    bound = ScriptedChatModel([_two_calls()] * 4).bind_tools([step], parallel_tool_calls=False)
    assert [c["id"] for c in bound.invoke("x").tool_calls] == ["a"]
    assert [c["id"] for c in merge_chunks(list(bound.stream("x"))).tool_calls] == ["a"]

    async def both() -> tuple[AIMessage, AIMessage]:
        reply = await bound.ainvoke("x")
        merged = merge_chunks([chunk async for chunk in bound.astream("x")])
        return reply, merged  # type: ignore[return-value]

    reply, merged = asyncio.run(both())
    assert [c["id"] for c in reply.tool_calls] == ["a"] and [c["id"] for c in merged.tool_calls] == ["a"]
    free = ScriptedChatModel([_two_calls()]).bind_tools([step])
    assert len(free.invoke("x").tool_calls) == 2  # not asked: both kept


def test_one_call_prefers_a_valid_call_and_streams_keep_the_first_sent() -> None:
    """The rule's edges: a reply with an invalid call and a valid one keeps the valid one; a stream keeps the first
    call sent, told by its chunks' index (a chunk without index or id goes on the call before it)."""
    from toolwire.chunks import AIMessageChunk
    from toolwire.models._one_call import one_call, one_call_stream

    bad = {"name": "step", "args": "{oops", "id": "x", "error": "not JSON", "type": "invalid_tool_call"}
    mixed = AIMessage("", tool_calls=[{"name": "step", "args": {"n": 1}, "id": "a", "type": "tool_call"}],
                      invalid_tool_calls=[bad])
    kept = one_call(mixed)
    assert [c["id"] for c in kept.tool_calls] == ["a"] and kept.invalid_tool_calls == []
    assert one_call(AIMessage("", invalid_tool_calls=[bad, {**bad, "id": "y"}])).invalid_tool_calls == [bad]
    chunks = [
        AIMessageChunk("Sure. ", tool_call_chunks=[{"name": "step", "args": '{"n"', "id": "a", "index": 0}]),
        AIMessageChunk(tool_call_chunks=[{"name": None, "args": ": 1}", "id": None, "index": 0}]),
        AIMessageChunk(tool_call_chunks=[{"name": "step", "args": '{"n": 2', "id": "b", "index": 1}]),
        AIMessageChunk(tool_call_chunks=[{"name": None, "args": "}", "id": None, "index": None}]),
        AIMessageChunk(usage={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}),
    ]
    merged = merge_chunks(list(one_call_stream(iter(chunks))))
    assert merged.tool_calls == [{"name": "step", "args": {"n": 1}, "id": "a", "type": "tool_call"}]
    assert merged.content == "Sure. " and merged.usage["total_tokens"] == 7


def test_argument_errors_show_the_tools_own_shape_not_a_city() -> None:
    """Review 61 #3: every malformed-arguments error told the model to send ``{"city": "Paris"}``, whatever the tool
    (small models copy examples); a tool without parameters given one was not told to send ``{}``."""

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    def content(t: object, args: object) -> str:
        return t.invoke({"name": t.name, "args": args, "id": "c", "type": "tool_call"}).content  # type: ignore[attr-defined]

    for args in ('{"a": 1, "b": ', "[1, 2]", '{"a": 1} and more'):
        text = content(add, args)
        assert '{"a": <integer>, "b": <integer>}' in text and "Paris" not in text, text
    assert content(ping, {"q": 1}).endswith("It takes no arguments: send {}.")
    assert "such as {};" in content(ping, '{"q": 1} trailing')
    from toolwire._tool_args import argument_example

    assert argument_example({"properties": {"s": {"type": "string"}, "o": {"type": ["null", "object"]},
                                            "x": {}, "n": {"type": "number"}}}) == \
        '{"s": <text>, "o": {...}, "x": ..., ...}'


def test_a_wrapped_call_of_another_tool_does_not_run_this_one() -> None:
    """Review 61 #4: arguments written as a whole call, ``{"name": "read_file", "arguments": {"path": ...}}``, were
    unwrapped for ``delete_file`` without reading the name inside, so the file was deleted."""
    deleted: list[str] = []

    @tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        deleted.append(path)
        return "deleted"

    other = {"name": "delete_file", "args": '{"name": "read_file", "arguments": {"path": "notes.txt"}}', "id": "c",
             "type": "tool_call"}
    message = delete_file.invoke(other)
    assert message.status == "error" and "a call of another tool, 'read_file'" in message.content and not deleted
    same = {**other, "args": '{"name": "delete_file", "arguments": {"path": "notes.txt"}}'}
    assert delete_file.invoke(same).content == "deleted" and deleted == ["notes.txt"]


def test_a_langchain_config_argument_and_an_empty_description_get_clear_errors() -> None:
    """Review 61 #8 and #9: ``tool.invoke(call, config)`` (a LangChain habit) raised a bare TypeError about
    positional arguments; ``@tool(description="")`` blamed the docstring."""
    from toolwire import SchemaError, UserError

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    with pytest.raises(UserError, match="RunnableConfig"):
        add.invoke({"a": 1, "b": 2}, {"callbacks": []})
    with pytest.raises(UserError, match="RunnableConfig"):
        asyncio.run(add.ainvoke({"a": 1, "b": 2}, config={"tags": []}))
    assert add.invoke({"a": 1, "b": 2}) == 3

    def f(x: int) -> int:
        """F."""
        return x

    with pytest.raises(SchemaError, match="description= is empty"):
        tool(f, description=" ")


def test_gemini_and_strict_openai_tell_the_model_what_their_schema_drops() -> None:
    """Review 61 #5 and #6: Gemini's lowering dropped bounds, patterns, formats and defaults without a word to the
    model (which then sent values the tool refused), and OpenAI strict mode dropped a default other than None, so
    ``lang: Optional[str] = "en"`` got null from the model and the tool None. Both now say them in the
    description; the arguments are still validated against the full schema."""
    import datetime
    from typing import Annotated

    from pydantic import Field

    from toolwire.models.lowering.gemini import convert_to_gemini_tool
    from toolwire.models.lowering.openai import convert_to_openai_tool

    @tool
    def f(e: Annotated[int, Field(ge=1, le=5)], s: Annotated[str, Field(min_length=2, pattern="^[a-z]+$")],
          d: datetime.date, lang: str | None = "en", n: Annotated[int, Field(ge=0)] | None = None) -> str:
        """F."""
        return s

    props = convert_to_gemini_tool(f)["parameters"]["properties"]
    assert props["e"]["description"] == "Must be at least 1, at most 5."
    assert props["s"]["description"] == \
        "Must be at least 2 characters long. Must match the regular expression `^[a-z]+$`."
    assert props["d"]["description"] == "Format: date."
    assert props["lang"] == {"type": "STRING", "nullable": True, "description": 'Default: "en".'}
    assert props["n"]["description"] == "Must be at least 0."  # (a None default is not worth a word)
    strict = convert_to_openai_tool(f, strict=True)["function"]["parameters"]["properties"]
    assert strict["lang"]["description"] == 'Default: "en".' and "description" not in strict["n"]
    assert "Default" not in str(convert_to_openai_tool(f)["function"]["parameters"]["properties"]["lang"].get(
        "description", ""))  # the default itself is sent there
    assert f.invoke({"name": "f", "args": {"e": 9, "s": "ab", "d": "2026-01-02"}, "id": "c",
                     "type": "tool_call"}).status == "error"


def test_an_agent_drops_a_bound_tool_choice_none_that_would_keep_it_from_its_tools() -> None:
    """Review 62 #6: ``Agent(model.bind_tools([], tool_choice="none"), [a])`` kept "none", so the Agent could never
    call ``a``; it is now dropped with a warning. With no tools of its own, the Agent keeps it."""

    @tool
    def a() -> str:
        """Say a."""
        return "a"

    model = ScriptedChatModel(["Done."])
    with pytest.warns(UserWarning, match="tool_choice='none'"):
        agent = Agent(model.bind_tools([], tool_choice="none"), [a])
    assert agent.model.tool_choice in (None, "auto")
    assert Agent(model.bind_tools([], tool_choice="none"), []).model.tool_choice == "none"
