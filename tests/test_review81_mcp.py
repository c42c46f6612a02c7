"""Review 81 (of review 79's MCP findings): a callback that is not one, re-entering ``async with`` after the server
died, an empty ``host`` for ``serve``, and server dicts that cannot be read."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.errors import UserError
from toolwire.mcp import MCPClient, connect, load_tools

_NO_SERVER = "python -c 'raise SystemExit(1)'"  # never started: the options are refused first


@pytest.mark.parametrize("callback", [5, "print", [print]])
def test_an_on_tools_changed_that_is_not_a_function_is_refused_when_given(callback: Any) -> None:
    # it was taken, and failed only at the server's first tools/list_changed, as a traceback in the log
    for make in (MCPClient, connect, load_tools):
        with pytest.raises(UserError, match="on_tools_changed must be a function taking the new list of tools") as info:
            make(_NO_SERVER, on_tools_changed=callback)
        assert "async function" in str(info.value) and str(info.value).count(". ") == 0


def test_an_on_tools_changed_that_takes_no_argument_is_refused_when_given() -> None:
    with pytest.raises(UserError, match="on_tools_changed must be a function taking the new list of tools"):
        MCPClient(_NO_SERVER, on_tools_changed=lambda: None)


def test_functions_sync_or_async_and_none_are_taken_as_on_tools_changed() -> None:
    async def changed(tools: list[Any]) -> None:
        pass

    for callback in (None, print, changed, lambda tools, *more: None, list.append.__get__([])):
        assert MCPClient(_NO_SERVER, on_tools_changed=callback).on_tools_changed is callback
