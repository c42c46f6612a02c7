"""Review 141: small defects.

#6: an argument whose ``repr()`` raises (or an int too long for text) no longer breaks argument validation: the call
gets the usual "Invalid arguments" error, not the exception of its ``repr`` worded as the tool's own failure.

#8: ``StrictSchemaWarning`` (named in docs/providers.md) lives in ``toolwire.errors`` beside the other warnings; its
old import path, ``toolwire.models.lowering.openai``, gives the same class.

#4: the docstring of ``toolwire.models.grammar``, which README calls "the full list" of the keywords the grammar does
not hold, names each keyword the grammar leaves out (``minLength``/``maxLength`` were missing).
"""

from __future__ import annotations

import warnings

import pytest
from pydantic import BaseModel

from toolwire import AIMessage, ToolExecutor, tool
from toolwire.errors import ToolValidationError


class _Unprintable:
    """An object whose repr and str raise (an ORM row whose session is closed)."""

    def __repr__(self) -> str:
        raise RuntimeError("session is closed")

    def __str__(self) -> str:
        raise RuntimeError("session is closed")


class _Point(BaseModel):
    x: int


_ran: list[object] = []


@tool
def add(a: int, b: int = 0, items: list[int] | None = None, point: _Point | None = None) -> int:
    """Add two integers."""
    _ran.append(a)
    return a + b


@pytest.mark.parametrize(("args", "where"), [
    ({"a": _Unprintable()}, "'a': Input should be a valid integer (got <_Unprintable>)"),
    ({"a": 1, "zz": _Unprintable()}, "'zz' is not a parameter of this tool (got <_Unprintable>)"),
    ({"a": 1, "items": [1, _Unprintable()]}, "'items.1': Input should be a valid integer (got <_Unprintable>)"),
    ({"a": 1, "point": {"x": 1, "y": _Unprintable()}},
     "'point.y' is not an allowed field of 'point' (got <_Unprintable>)"),
    ({"a": 1, "items": 10**5000}, "(got <int>)"),
])
def test_an_unprintable_argument_gets_the_validation_error(args: dict, where: str) -> None:
    _ran.clear()
    with pytest.raises(ToolValidationError) as caught:
        add.invoke(args)
    assert str(caught.value).startswith("Invalid arguments for tool 'add': ")
    assert where in str(caught.value)
    call = {"name": "add", "args": args, "id": "c1", "type": "tool_call"}
    answer = add.invoke(call)
    assert answer.status == "error" and "Invalid arguments for tool 'add'" in answer.content
    [answer] = ToolExecutor([add]).execute(AIMessage("", tool_calls=[{**call, "id": "c2"}]))
    assert answer.status == "error" and answer.tool_call_id == "c2"
    assert "Invalid arguments for tool 'add'" in answer.content and "raised" not in answer.content
    assert _ran == []


def test_the_strict_warning_is_importable_from_errors() -> None:
    import toolwire.errors
    from toolwire.models import ChatOpenAI
    from toolwire.models.lowering import openai

    assert "StrictSchemaWarning" in toolwire.errors.__all__
    assert openai.StrictSchemaWarning is toolwire.errors.StrictSchemaWarning
    assert issubclass(toolwire.errors.StrictSchemaWarning, UserWarning)

    @tool
    def lookup(data: dict) -> str:
        """Look up a free-form record."""
        return "x"

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ChatOpenAI("gpt-4o", api_key="k").bind_tools([lookup], strict=True)
    assert [w.category for w in caught] == [toolwire.errors.StrictSchemaWarning]


@pytest.mark.parametrize(("keyword", "schema"), [
    ("minLength", {"type": "string", "minLength": 3}),
    ("maxLength", {"type": "string", "maxLength": 5}),
    ("minProperties", {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1}),
    ("maxProperties", {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2}),
    ("minItems", {"type": "array", "items": {"type": "integer"}, "minItems": 2}),
    ("multipleOf", {"type": "integer", "multipleOf": 5}),
    ("uniqueItems", {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
])
def test_the_grammar_docstring_names_each_keyword_it_does_not_hold(keyword: str, schema: dict) -> None:
    from toolwire.models import grammar

    def text(value: dict) -> str:
        rules = grammar.Rules()
        return rules.text(grammar.value_rule(value, rules))

    assert text(schema) == text({k: v for k, v in schema.items() if k != keyword})  # not held
    assert f"``{keyword}``" in (grammar.__doc__ or "")
