"""Review 254 #1: ``tool.invoke(tool_call)`` / ``ainvoke`` read a typed tool call with keys beyond
``name``/``args``/``id``/``type`` (a stream's ``index``, OpenAI's and MCP's ``arguments``, Anthropic's ``input``,
Llama's ``parameters``) as a tool call, as LangChain's ``BaseTool.invoke`` and ``ToolExecutor`` do, and answer it
with the ToolMessage ``ToolExecutor.execute`` gives for the same dict."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import ToolExecutor, current_tool_call, tool
from toolwire.errors import ToolExecutionError, ToolValidationError, UserError
from toolwire.messages import ToolMessage


@tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city.
    """
    return f"It's always sunny in {city}!"


CALLS = {
    "index": {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call", "index": 0},
    "arguments": {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "c2", "type": "tool_call"},
    "arguments text": {"name": "get_weather", "arguments": '{"city": "Paris"}', "id": "c3", "type": "tool_call"},
    "input": {"name": "get_weather", "input": {"city": "Oslo"}, "id": "c4", "type": "tool_call"},
    "parameters": {"name": "get_weather", "parameters": {"city": "Rome"}, "id": "c5", "type": "tool_call",
                   "index": 3},
    "same twice": {"name": "get_weather", "args": {"city": "Lima"}, "arguments": '{"city": "Lima"}', "id": "c6",
                   "type": "tool_call"},
    "number id": {"name": "get_weather", "args": {"city": "Paris"}, "id": 7, "type": "tool_call", "index": 1},
}


def _same(got: Any, want: ToolMessage) -> None:
    assert isinstance(got, ToolMessage)
    assert (got.content, got.tool_call_id, got.name, got.status, got.artifact) == (
        want.content, want.tool_call_id, want.name, want.status, want.artifact)


@pytest.mark.parametrize("label", list(CALLS))
def test_invoke_answers_a_call_with_more_keys_as_the_executor_does(label: str) -> None:
    call = CALLS[label]
    want = ToolExecutor([get_weather]).execute([call])[0]
    assert want.status == "success"
    _same(get_weather.invoke(call), want)


@pytest.mark.parametrize("label", list(CALLS))
def test_ainvoke_answers_a_call_with_more_keys_as_the_executor_does(label: str) -> None:
    call = CALLS[label]
    want = ToolExecutor([get_weather]).execute([call])[0]
    _same(asyncio.run(get_weather.ainvoke(call)), want)


CLASH = {"name": "get_weather", "args": {"city": "Paris"}, "arguments": {"city": "Oslo"}, "id": "c9",
         "type": "tool_call"}


def test_arguments_under_two_keys_that_differ_give_the_executors_error_message() -> None:
    want = ToolExecutor([get_weather]).execute([CLASH])[0]
    assert want.status == "error" and "'args' and 'arguments'" in want.content
    _same(get_weather.invoke(CLASH), want)
    _same(asyncio.run(get_weather.ainvoke(CLASH)), want)


def test_unreadable_argument_text_gives_the_executors_error_message() -> None:
    call = {"name": "get_weather", "arguments": '{"city": "Par', "id": "c8", "type": "tool_call", "index": 0}
    want = ToolExecutor([get_weather]).execute([call])[0]
    assert want.status == "error"
    _same(get_weather.invoke(call), want)


def test_handle_errors_false_raises_for_a_clash_as_the_executor_does() -> None:
    strict = tool(get_weather.func, handle_errors=False)
    with pytest.raises(ToolExecutionError, match="'args' and 'arguments'"):
        ToolExecutor([strict], handle_errors=False).execute([CLASH])
    with pytest.raises(ToolExecutionError, match="'args' and 'arguments'"):
        strict.invoke(CLASH)
    with pytest.raises(ToolExecutionError, match="'args' and 'arguments'"):
        asyncio.run(strict.ainvoke(CLASH))


def test_invalid_arguments_in_a_call_with_more_keys_are_an_error_message() -> None:
    call = {"name": "get_weather", "args": {}, "id": "c1", "type": "tool_call", "index": 0}
    got = get_weather.invoke(call)
    assert isinstance(got, ToolMessage) and got.status == "error" and got.tool_call_id == "c1"
    assert "city" in got.content and "'index'" not in got.content and "'type'" not in got.content


def test_a_call_with_more_keys_naming_another_tool_does_not_run_it() -> None:
    call = {"name": "calculate", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call", "index": 0}
    got = get_weather.invoke(call)
    assert got.status == "error" and "calculate" in got.content and "sunny" not in got.content


def test_a_call_with_more_keys_needs_an_id() -> None:
    call = {"name": "get_weather", "arguments": {"city": "Paris"}, "type": "tool_call", "index": 0}
    with pytest.raises(UserError, match='"id"') as raised:
        get_weather.invoke(call)
    assert raised.value.__context__ is None  # (nothing of toolwire's own chained to it)
    with pytest.raises(UserError, match='"id"'):
        asyncio.run(get_weather.ainvoke(call))


def test_the_tool_sees_the_call_it_answers() -> None:
    seen: list[Any] = []

    @tool
    def probe(city: str) -> str:
        """Probe.

        Args:
            city: the city.
        """
        seen.append(current_tool_call())
        return city

    for call in ({"name": "probe", "arguments": {"city": "Paris"}, "id": "c1", "type": "tool_call", "index": 2},
                 {"name": "probe", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call", "index": 2}):
        given = repr(call)
        assert probe.invoke(call).content == "Paris"
        assert ToolExecutor([probe]).execute([call])[0].content == "Paris"
        assert seen[-2] == seen[-1]  # the call as the executor reads it
        assert seen[-1]["args"] == {"city": "Paris"} and seen[-1]["id"] == "c1"
        assert current_tool_call() is None
        assert repr(call) == given  # the caller's dict is left as it was
    assert seen[-1]["index"] == 2  # (kept when the call gives "args")


def test_the_exact_call_shape_and_plain_arguments_are_unchanged() -> None:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}
    assert get_weather.invoke(call).content == "It's always sunny in Paris!"
    assert get_weather.invoke({"city": "Paris"}) == "It's always sunny in Paris!"

    @tool
    def tagged(type: str, city: str) -> str:
        """Tag a city.

        Args:
            type: the tag.
            city: the city.
        """
        return f"{type}:{city}"

    # no string name: arguments that happen to hold "type": "tool_call", as before
    assert tagged.invoke({"type": "tool_call", "city": "Paris"}) == "tool_call:Paris"
    with pytest.raises(ToolValidationError):
        get_weather.invoke({"type": "tool_call", "name": 5, "args": {"city": "Paris"}, "id": "c1", "index": 0})


def test_a_call_without_arguments_and_a_mapping_call_with_more_keys() -> None:
    from types import MappingProxyType

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    call = {"name": "ping", "id": "c1", "type": "tool_call", "index": 0}
    _same(ping.invoke(call), ToolExecutor([ping]).execute([call])[0])
    assert ping.invoke(call).content == "pong"
    proxy = MappingProxyType({"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "c2", "type": "tool_call"})
    got = get_weather.invoke(proxy)
    assert got.content == "It's always sunny in Oslo!" and got.tool_call_id == "c2"
