"""Review 289 on ``Tool.invoke(tool_call)`` itself (the executor's path has its own tests): with
``handle_errors=False`` the raised error names the call; with ``handle_errors=True`` the failure is logged at DEBUG
on ``toolwire.tools``, once, with its exception."""

from __future__ import annotations

import asyncio
import logging

import pytest

from toolwire import tool
from toolwire.errors import ToolResultError, ToolValidationError
from toolwire.messages import tool_call


@tool(handle_errors=False)
def ok(x: int) -> int:
    """Return x."""
    return x


@tool(handle_errors=False)
def raw() -> bytes:
    """Return bytes that are not text."""
    return b"\xff\xfe"


@tool
def boom(x: int) -> int:
    """Fail."""
    raise RuntimeError("bad") from KeyError("orders_2024")


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
@pytest.mark.parametrize(("made", "args", "kind"), [(ok, {"x": "nope"}, ToolValidationError),
                                                   (raw, {}, ToolResultError)])
def test_the_raised_error_names_its_call(how: str, made: object, args: dict[str, object], kind: type) -> None:
    call = tool_call(made.name, args, "call_9")  # type: ignore[attr-defined]
    with pytest.raises(kind) as raised:
        made.invoke(call) if how == "invoke" else asyncio.run(made.ainvoke(call))  # type: ignore[attr-defined]
    assert (raised.value.tool_name, raised.value.tool_call_id) == (made.name, "call_9")  # type: ignore[attr-defined]
    if kind is ToolResultError:
        assert str(raised.value).startswith("Tool 'raw' returned bytes")


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_a_failed_call_is_logged_once_with_its_exception(how: str, caplog: pytest.LogCaptureFixture) -> None:
    call = tool_call("boom", {"x": 1}, "c1")
    with caplog.at_level(logging.DEBUG, logger="toolwire.tools"):
        answer = boom.invoke(call) if how == "invoke" else asyncio.run(boom.ainvoke(call))
    assert answer.status == "error" and answer.content == "Error: tool 'boom' raised RuntimeError: bad"
    records = [r for r in caplog.records if r.name == "toolwire.tools"]
    assert len(records) == 1 and records[0].levelno == logging.DEBUG
    assert records[0].exc_info and isinstance(records[0].exc_info[1].__cause__, KeyError)  # type: ignore[index]
    assert (records[0].tool_name, records[0].tool_call_id) == ("boom", "c1")  # type: ignore[attr-defined]


def test_nothing_is_logged_for_a_call_that_works(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="toolwire.tools"):
        ok.invoke(tool_call("ok", {"x": 1}, "c2"))
    assert not [r for r in caplog.records if r.name == "toolwire.tools"]
