"""Review 157 #5: ``Tool.batch``/``abatch``'s docstring (shared with the models') says what a tool's batch takes:
argument dicts or tool calls, and ``timeout=`` as its only option; its refusal of generation options is listed."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import Tool, tool
from toolwire.errors import UserError


@tool
def inv(x: int) -> float:
    """Inverse.

    Args:
        x: x.
    """
    return 1 / x


@pytest.mark.parametrize("name", ["batch", "abatch"])
def test_the_docstring_names_timeout_as_a_tools_only_option(name: str) -> None:
    doc = " ".join((getattr(Tool, name).__doc__ or "").split())
    batch_doc = " ".join((Tool.batch.__doc__ or "").split())  # (abatch's points at batch's for its arguments)
    assert "as for :meth:`batch`" in doc or name == "batch"
    args = batch_doc.split("Args:")[1].split("Returns:")[0]
    assert "for a tool, only ``timeout=``" in args and "for a tool a dict of its arguments, or a tool call" in args
    raises = batch_doc.split("Raises:")[1]
    assert "for a tool's any but ``timeout=``" in raises


def test_what_it_says_is_what_a_tool_does() -> None:
    with pytest.raises(UserError, match=r"^Tool\.batch\(\) passes on only timeout= to each invoke\(\), not "):
        inv.batch([{"x": 2}], temperature=0.5)
    with pytest.raises(UserError, match=r"^Tool\.abatch\(\) passes on only timeout="):
        asyncio.run(inv.abatch([{"x": 2}], max_tokens=5))
    assert inv.batch([{"x": 2}, {"x": 4}], timeout=5) == [0.5, 0.25]
