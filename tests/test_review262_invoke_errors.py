"""Review 262 #3: ``tool.invoke(tool_call)`` / ``ainvoke`` answer argument text that is no JSON object with the
ToolMessage ``ToolExecutor`` answers it with (the text received, the advice to send the call again), from one
implementation. Review 265 #2: a sync tool whose function returns an awaitable (a decorator without
``functools.wraps``) is refused with one sentence by ``invoke`` and ``ainvoke``, for a tool call and for bare
arguments, never handed back as an un-awaited coroutine."""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest

from toolwire import Tool, ToolExecutor, tool
from toolwire.errors import ToolValidationError


@tool
def get_time(tz: str = "UTC") -> str:
    """Time in a zone."""
    return "12:00 " + tz


BAD_TEXT = ["[1, 2]", '{"tz": "U', "42", '"just text"', "{'tz': }", b"[1, 2]"]


def _call(args: Any, call_id: Any = "u2", name: str = "get_time") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


@pytest.mark.parametrize("args", BAD_TEXT)
def test_invoke_answers_bad_argument_text_as_the_executor_does(args: Any) -> None:
    expected = ToolExecutor([get_time]).execute([_call(args)])[0]
    got = get_time.invoke(_call(args))
    assert got.content == expected.content
    assert (got.status, got.tool_call_id, got.name) == ("error", "u2", "get_time")
    assert asyncio.run(get_time.ainvoke(_call(args))).content == expected.content
    assert get_time.batch([_call(args)])[0].content == expected.content


def test_the_answer_shows_the_text_received_and_says_to_send_the_call_again() -> None:
    content = get_time.invoke(_call("[1, 2]")).content
    assert content.startswith("Error: the call to 'get_time' was not valid: the arguments must be a JSON object "
                              'such as {"tz": <text>}; got a JSON array.')
    assert "The arguments received were: [1, 2]." in content
    assert content.endswith("Send the call again with the arguments as a JSON object.")
    assert "Invalid arguments for tool" not in content


def test_a_number_id_and_a_timeout_answer_the_same() -> None:
    expected = ToolExecutor([get_time]).execute([_call("42", "7")])[0]
    got = get_time.invoke(_call("42", 7), timeout=5)
    assert (got.content, got.tool_call_id) == (expected.content, "7")


def test_readable_text_and_dict_errors_are_unchanged() -> None:
    assert get_time.invoke(_call('{"tz": "CET"}')).content == "12:00 CET"
    for args in ({"tz": 5}, {"zone": "CET"}):  # (dict arguments agreed already: the schema's own error)
        assert get_time.invoke(_call(args)).content == ToolExecutor([get_time]).execute([_call(args)])[0].content


def test_with_handle_errors_false_the_validation_error_is_raised_as_before() -> None:
    strict = Tool.from_function(get_time.func, handle_errors=False)
    with pytest.raises(ToolValidationError, match="got a JSON array") as caught:
        strict.invoke(_call("[1, 2]"))
    assert caught.value.raw == "[1, 2]"  # type: ignore[attr-defined]
    copied = pickle.loads(pickle.dumps(caught.value))  # (its own attributes survive a pickle)
    assert (type(copied), str(copied), copied.raw) == (type(caught.value), str(caught.value), "[1, 2]")
    with pytest.raises(ToolValidationError, match="got a JSON array"):
        asyncio.run(strict.ainvoke(_call("[1, 2]")))


def test_a_tool_that_raises_a_validation_error_itself_is_not_taken_for_bad_text() -> None:
    @tool
    def picky(tz: str) -> str:
        """Refuses everything."""
        raise ToolValidationError("Invalid arguments for tool 'picky': no zone is good enough.", "picky")

    content = picky.invoke(_call('{"tz": "CET"}', name="picky")).content
    assert content == ToolExecutor([picky]).execute([_call('{"tz": "CET"}', name="picky")])[0].content
    assert "no zone is good enough" in content
