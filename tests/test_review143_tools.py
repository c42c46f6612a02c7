"""Review 143: LangChain's positional config on a chat model (#6), a tool renamed or given LangChain-only fields after
it is made (#8), and injected arguments declared in an ``args_schema`` model (#3)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import tool
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: the first.
        b: the second.
    """
    return a + b


# -- #6: model.invoke(input, config) --------------------------------------------------------------------------------


async def _drain(stream: Any) -> list[Any]:
    return [chunk async for chunk in stream]


_CALLS = {
    "invoke": lambda m, cfg: m.invoke("hi", cfg),
    "ainvoke": lambda m, cfg: asyncio.run(m.ainvoke("hi", cfg)),
    "stream": lambda m, cfg: list(m.stream("hi", cfg)),
    "astream": lambda m, cfg: asyncio.run(_drain(m.astream("hi", cfg))),
}


@pytest.mark.parametrize("bound", [False, True])
@pytest.mark.parametrize("method", list(_CALLS))
def test_a_positional_config_is_refused_with_a_user_error(method: str, bound: bool) -> None:
    model = ScriptedChatModel(["x"], cycle=True)
    if bound:
        model = model.bind_tools([add])
    with pytest.raises(UserError, match=rf"^{method}\(input, config\) passes LangChain's RunnableConfig.*leave it out"):
        _CALLS[method](model, {"callbacks": [], "run_name": "demo"})
    assert not model.requests  # nothing was sent


def test_a_lone_none_config_and_the_normal_call_still_work() -> None:
    model = ScriptedChatModel(["x"], cycle=True)
    assert model.invoke("hi", None).content == "x"
    assert model.invoke("hi").content == "x"
    assert "".join(str(c.content) for c in model.stream("hi")) == "x"
