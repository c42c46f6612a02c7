"""Review 145 #3: a dataclass parameter refuses unknown keys, but its schema said ``additionalProperties: false`` only
because pydantic 2.14 writes it; below 2.14 (``pydantic>=2.7`` is allowed) the schema let the model send keys that
validation then refused. toolwire now writes it itself, as for a pydantic model. pydantic 2.13's behaviour is
reproduced by leaving out what 2.14 adds: the key, unless the class's own config chose ``extra``."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pydantic import ConfigDict
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic.json_schema import GenerateJsonSchema

from toolwire import tool


@pytest.fixture
def pydantic_213(monkeypatch: pytest.MonkeyPatch) -> None:
    """pydantic's ``dataclass_schema`` as 2.13 wrote it: ``additionalProperties`` only from the class's own config,
    not from the core config toolwire sets to refuse unknown keys."""
    original = GenerateJsonSchema.dataclass_schema

    def dataclass_schema(self: GenerateJsonSchema, schema: Any) -> Any:
        out = original(self, schema)
        if "extra" not in (getattr(schema["cls"], "__pydantic_config__", None) or {}):
            out.pop("additionalProperties", None)
        return out

    monkeypatch.setattr(GenerateJsonSchema, "dataclass_schema", dataclass_schema)


def _point_tools() -> tuple[Any, Any]:
    @dataclasses.dataclass
    class Point:
        """A point."""

        x: float
        y: float = 0.0

    @pydantic_dataclass(config=ConfigDict(extra="allow"))
    class Loose:
        k: int

    @tool
    def plot(pt: Point, pts: list[Point], loose: Loose) -> str:
        """Plot points.

        Args:
            pt: The point.
            pts: More points.
            loose: Anything goes.
        """
        return repr(pt)

    return plot, Point


@pytest.mark.usefixtures("pydantic_213")
def test_a_dataclass_parameter_says_it_refuses_unknown_keys_on_pydantic_below_2_14() -> None:
    plot, _ = _point_tools()
    props = plot.parameters["properties"]
    assert props["pt"] == {"additionalProperties": False, "description": "The point.\n\nA point.",  # (review 175 #6)
                           "properties": {"x": {"type": "number"}, "y": {"default": 0.0, "type": "number"}},
                           "required": ["x"], "type": "object"}
    assert props["pts"]["items"]["additionalProperties"] is False
    assert props["loose"]["additionalProperties"] is True  # (the class's own choice, kept)
    result = plot.invoke({"name": "plot", "id": "c1", "type": "tool_call", "args": {
        "pt": {"x": 1, "z": 2}, "pts": [], "loose": {"k": 1}}})
    assert result.status == "error" and "'pt.z' is not an allowed field" in str(result.content)


def test_the_installed_pydantic_gives_the_same_schema() -> None:
    plot, _ = _point_tools()
    props = plot.parameters["properties"]
    assert props["pt"]["additionalProperties"] is False and list(props["pt"]) == [
        "additionalProperties", "description", "properties", "required", "type"]
    assert props["loose"]["additionalProperties"] is True
