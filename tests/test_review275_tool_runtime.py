"""Review 275 #7 (273 #3): ``@tool`` on a function taking LangChain v1's ``ToolRuntime`` names it and says what
toolwire offers instead, rather than "give it a JSON type"; ``ToolRuntime | None = None`` keeps its default."""

from __future__ import annotations

import pytest

from toolwire import ToolExecutor, tool
from toolwire.errors import SchemaError

ToolRuntime = pytest.importorskip("langgraph.prebuilt").ToolRuntime


def test_a_bare_tool_runtime_parameter_is_named_with_what_to_do() -> None:
    def weather(city: str, runtime: ToolRuntime) -> str:
        """Weather of a city."""
        return city

    with pytest.raises(SchemaError) as caught:
        tool(weather)
    text = str(caught.value)
    assert "LangChain's ToolRuntime" in text
    assert "current_tool_call()" in text
    assert "JSON type" not in text


@pytest.mark.parametrize("kind", ["generic", "union"])
def test_a_tool_runtime_without_default_is_named_as_tool_runtime(kind: str) -> None:
    annotation = ToolRuntime[None, dict] if kind == "generic" else ToolRuntime | None

    def weather(city: str, runtime: annotation) -> str:  # type: ignore[valid-type]
        """Weather of a city."""
        return city

    with pytest.raises(SchemaError, match="LangChain's ToolRuntime"):
        tool(weather)


def test_an_optional_tool_runtime_keeps_its_default_and_is_not_shown_to_the_model() -> None:
    def weather(city: str, runtime: ToolRuntime | None = None) -> str:
        """Weather of a city."""
        return f"{city} {runtime}"

    t = tool(weather)
    assert list(t.parameters["properties"]) == ["city"]
    message = ToolExecutor([t]).execute([{"name": "weather", "args": {"city": "Rio"}, "id": "c1"}])[0]
    assert (message.status, message.content) == ("success", "Rio None")
