"""Review 182 #3: a ``pydantic.v1`` model class made into a tool is refused as a pydantic 2 one is (its fields were
published without types), with advice that works for it: ``args_schema`` takes pydantic 2 models only, so the
message points to ``tool_from_schema(Model.schema(), Model)``."""

from __future__ import annotations

import functools
import warnings

import pytest

from toolwire import Tool, tool
from toolwire.errors import SchemaError, ToolValidationError
from toolwire.interop import tool_from_schema

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # (pydantic.v1 may warn on import)
    from pydantic import v1


class Ticket(v1.BaseModel):
    """Create a ticket."""

    title: str
    priority: int = v1.Field(3, ge=1, le=5, description="1 (urgent) to 5 (low)")


def test_v1_model_class_tool_refused_with_advice_that_works():
    with pytest.raises(SchemaError, match=r"pydantic\.v1 model class Ticket.*"
                                          r"toolwire\.interop\.tool_from_schema\(Ticket\.schema\(\), Ticket\)"):
        tool(Ticket)
    with pytest.raises(SchemaError, match=r"pydantic\.v1 model class Ticket"):
        Tool.from_function(functools.partial(Ticket, priority=2))
    made = tool_from_schema(Ticket.schema(), Ticket)  # (the way the message points to)
    props = made.parameters["properties"]
    assert props["title"]["type"] == "string" and props["priority"]["maximum"] == 5
    assert made.invoke({"title": "x"}) == Ticket(title="x")
    with pytest.raises(ToolValidationError):
        made.invoke({"title": "x", "priority": "high"})


def test_v2_model_class_advice_unchanged():
    from pydantic import BaseModel

    class Note(BaseModel):
        text: str

    with pytest.raises(SchemaError, match=r"pass the model as args_schema too \(tool\(Note, args_schema=Note\)\)"):
        tool(Note)


def test_a_plain_class_is_still_a_tool():
    class Point:
        """A point."""

        def __init__(self, x: int) -> None:
            self.x = x

    assert tool(Point).invoke({"x": 1}).x == 1


def test_a_v1_model_as_args_schema_gets_the_same_advice():
    def create(title: str, priority: int = 3) -> str:
        return title

    with pytest.raises(SchemaError, match=r"for a pydantic\.v1 model, use toolwire\.interop\.tool_from_schema\("
                                          r"Model\.schema\(\), func\)"):
        tool(create, args_schema=Ticket)
