"""Review 262 #3: ``tool.invoke(tool_call)`` / ``ainvoke`` answer argument text that is no JSON object with the
ToolMessage ``ToolExecutor`` answers it with (the text received, the advice to send the call again), from one
implementation. Review 265 #2: a sync tool whose function returns an awaitable (a decorator without
``functools.wraps``) is refused with one sentence by ``invoke`` and ``ainvoke``, for a tool call and for bare
arguments, never handed back as an un-awaited coroutine."""

from __future__ import annotations

import asyncio
import pickle
import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire import Tool, ToolExecutor, tool
from toolwire.errors import ToolExecutionError, ToolValidationError


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


# -- review 265 #2: a sync tool returning an awaitable -------------------------------------------------------------

MADE: list[Any] = []


async def _fetch(city: str) -> str:
    return f"sunny in {city}"


async def _items(city: str) -> AsyncIterator[str]:
    yield city


@tool
def fetch(city: str):  # type: ignore[no-untyped-def]
    """Fetch the weather (a sync function returning a coroutine, as a decorator without functools.wraps makes)."""
    made = _fetch(city)
    MADE.append(made)
    return made


@tool
def feed(city: str):  # type: ignore[no-untyped-def]
    """A sync function returning an async generator."""
    return _items(city)


SENTENCE = ("Tool 'fetch' returned an awaitable or async generator instead of a result; declare the function "
            "`async def` (or keep functools.wraps on its decorator) so toolwire awaits it.")


def _closed(coroutine: Any) -> bool:
    return coroutine.cr_frame is None  # (closed: Python will not warn "never awaited")


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_bare_arguments_are_refused_by_invoke_and_ainvoke(timeout: float | None) -> None:
    MADE.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ToolExecutionError) as sync_error:
            fetch.invoke({"city": "Rome"}, timeout=timeout)
        with pytest.raises(ToolExecutionError) as async_error:
            asyncio.run(fetch.ainvoke({"city": "Rome"}, timeout=timeout))
    assert str(sync_error.value) == str(async_error.value) == SENTENCE
    assert not isinstance(sync_error.value, ToolValidationError)
    assert len(MADE) == 2 and all(_closed(made) for made in MADE)


def test_a_tool_call_is_answered_with_the_same_sentence() -> None:
    MADE.clear()
    call = _call({"city": "Rome"}, name="fetch")
    for answer in (fetch.invoke(call), asyncio.run(fetch.ainvoke(call)), ToolExecutor([fetch]).execute([call])[0]):
        assert (answer.status, answer.content) == ("error", f"Error: tool 'fetch' failed: {SENTENCE}")
    assert len(MADE) == 3 and all(_closed(made) for made in MADE)
    strict = Tool.from_function(fetch.func, handle_errors=False)
    with pytest.raises(ToolExecutionError, match="declare the function `async def`"):
        strict.invoke(call)


def test_an_async_generator_returned_by_a_sync_tool_is_refused_too() -> None:
    with pytest.raises(ToolExecutionError, match="returned an awaitable or async generator"):
        feed.invoke({"city": "Rome"})
    with pytest.raises(ToolExecutionError, match="returned an awaitable or async generator"):
        asyncio.run(feed.ainvoke({"city": "Rome"}))


def test_async_tools_and_ordinary_results_still_run() -> None:
    @tool
    async def later(city: str) -> str:
        """Async."""
        return f"later in {city}"

    @tool
    def numbers(n: int):  # type: ignore[no-untyped-def]
        """A lazy iterator."""
        return iter(range(n))

    assert later.invoke({"city": "Oslo"}) == asyncio.run(later.ainvoke({"city": "Oslo"})) == "later in Oslo"
    assert numbers.invoke({"n": 3}) == asyncio.run(numbers.ainvoke({"n": 3})) == [0, 1, 2]


def test_the_docstring_gives_the_advice_that_works() -> None:
    doc = " ".join((Tool.invoke.__doc__ or "").split())
    assert "(use :meth:`ainvoke`)" not in doc
    assert "declare the function ``async def``" in doc


def test_an_async_tool_whose_value_is_a_coroutine_is_told_to_await_it() -> None:
    @tool
    async def forgot(city: str):  # type: ignore[no-untyped-def]
        """Forgets an await."""
        return _fetch(city)

    answer = forgot.invoke(_call({"city": "Rome"}, name="forgot"))
    assert answer.status == "error" and "await it inside the function and return its value" in answer.content
