"""Review 157 #4: an empty or blank ``description=`` is refused by ``Tool.from_schema`` as by ``@tool``, with an
error that names ``description=`` rather than a docstring ``from_schema`` never reads."""

from __future__ import annotations

import pytest

from toolwire import Tool, tool
from toolwire.errors import SchemaError
from toolwire.interop import tool_from_schema

PARAMS = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def sections_only(a: int, b: int) -> int:
    """
    Args:
        a: one.
        b: two.
    """
    return a + b


@pytest.mark.parametrize("func", [add, sections_only, lambda a, b: a + b])
@pytest.mark.parametrize("description", ["", "   ", "\n\t"])
def test_from_schema_refuses_a_blank_description_naming_it(func: object, description: str) -> None:
    with pytest.raises(SchemaError) as raised:
        Tool.from_schema(func, "add", description, PARAMS)  # type: ignore[arg-type]
    text = str(raised.value)
    blank = " (only whitespace)" if description else ""
    assert text == (f"Tool 'add' has no description: description= is empty{blank}; pass a sentence saying what the "
                    "tool does.")
    assert "docstring" not in text


def test_from_schema_refuses_a_description_that_is_not_text() -> None:
    with pytest.raises(SchemaError, match=r"^Tool 'add' has no description: description= is None, not text; pass"):
        Tool.from_schema(add, "add", None, PARAMS)  # type: ignore[arg-type]


@pytest.mark.parametrize("description", ["", "   "])
def test_tool_refuses_the_same_descriptions(description: str) -> None:
    blank = r" \(only whitespace\)" if description else ""
    with pytest.raises(SchemaError, match=rf"^Tool 'add' has no description: description= is empty{blank}; pass a "
                                          r"sentence saying what the tool does, or leave it out to use the docstring"):
        tool(description=description)(add)


def test_a_description_given_is_kept() -> None:
    assert Tool.from_schema(add, "add", "Add a and b.", PARAMS).description == "Add a and b."
    assert tool_from_schema({"name": "add", "description": "", "parameters": PARAMS}, add).description == (
        "Add two integers.")  # (tool_from_schema falls back on the docstring's summary, as documented)
