"""Review 83, the smaller findings: error texts (hidden details, StopIteration, tiny limits, results that cannot
be written), lone surrogates in call ids and argument keys, cyclic artifacts and defaults, tool.invoke's call name."""

from __future__ import annotations

import sys

import pytest

from toolwire import ToolExecutor, tool

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
