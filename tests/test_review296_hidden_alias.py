"""Review 296 #1: a field left out of the JSON Schema (``SkipJsonSchema``, ``WithJsonSchema(None)``) that validation
reads through a multi-step ``AliasPath`` was refused at decoration after review 294 #1, though no key is published
for it (the tests below failed before the fix). Only a field the published schema shows is checked now.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated

import pytest
from pydantic import AliasPath, BaseModel, Field, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict

from toolwire import Tool, tool
from toolwire.errors import SchemaError
from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


def _call(t: Tool, args: dict) -> tuple[str, str]:
    result = t.invoke({"type": "tool_call", "id": "1", "name": t.name, "args": args})
    return result.status, result.content


class Order(BaseModel):
    item: str
    source: SkipJsonSchema[str | None] = Field(None, validation_alias=AliasPath("meta", "source"))


def test_model_field_hidden_by_skip_json_schema_is_not_refused() -> None:
    @tool
    def place(order: Order) -> str:
        """Place an order."""
        return repr(order)

    inner = place.spec.parameters["properties"]["order"]
    assert list(inner["properties"]) == ["item"]
    assert "source" not in str(place.spec.parameters)
    assert _call(place, {"order": {"item": "tea"}}) == ("success", "Order(item='tea', source=None)")


class _TD(TypedDict, total=False):
    item: str
    source: Annotated[str | None, WithJsonSchema(None), Field(validation_alias=AliasPath("meta", "source"))]


@dataclasses.dataclass
class _DC:
    item: str
    source: SkipJsonSchema[str | None] = Field(None, validation_alias=AliasPath("meta", "source"))  # noqa: RUF009


@pytest.mark.parametrize("kind", [_TD, _DC])
def test_typed_dict_and_dataclass_fields_hidden_are_not_refused(kind: type) -> None:
    @tool
    def place(order: kind) -> str:  # type: ignore[valid-type]
        """Place an order."""
        return "ok"

    assert "source" not in str(place.spec.parameters)
    assert _call(place, {"order": {"item": "tea"}})[0] == "success"


_HIDDEN = Field(None, validation_alias=AliasPath("meta", "source"))


def test_parameter_hidden_by_skip_json_schema_is_not_refused() -> None:
    @tool
    def place(item: str, source: SkipJsonSchema[str | None] = _HIDDEN) -> str:
        """Place an order."""
        return f"{item}/{source}"

    assert list(place.spec.parameters["properties"]) == ["item"]
    assert _call(place, {"item": "tea"}) == ("success", "tea/None")


def test_args_schema_with_a_hidden_path_field_is_not_refused() -> None:
    t = Tool.from_function(lambda **kw: "ok", name="place", description="Place.", args_schema=Order)
    assert list(t.spec.parameters["properties"]) == ["item"]


def test_structured_output_of_a_model_with_a_hidden_path_field_works() -> None:
    m = ScriptedChatModel([AIMessage(content="", tool_calls=[
        {"name": "Order", "args": {"item": "tea"}, "id": "c1", "type": "tool_call"}])])
    so = m.with_structured_output(Order, strict=True)
    assert so.invoke("hi") == Order(item="tea")


def test_a_shown_field_with_a_multi_step_path_is_still_refused() -> None:
    class Shown(BaseModel):
        item: str
        source: str | None = Field(None, validation_alias=AliasPath("meta", "source"))

    with pytest.raises(SchemaError, match=r"field 'source' of Shown"):
        @tool
        def place(order: Shown) -> str:
            """Place an order."""
            return "ok"
