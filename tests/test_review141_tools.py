"""Review 141 #1 and #2: a class written for smolagents (its own ``Tool`` base, not toolwire's) is refused with the
advice toolwire's own subclasses get, as a class and as an instance; a ToolSpec's name is held to the rule tool dicts
are."""

from __future__ import annotations

from typing import ClassVar

import pytest

from toolwire import Agent, SchemaError, ToolSpec, UserError, tool
from toolwire.testing import ScriptedChatModel


class _SmolTool:  # stands in for smolagents.Tool
    def __init__(self, *args: object, **kwargs: object) -> None:
        pass


class WeatherTool(_SmolTool):
    """Get the weather of a city."""

    name = "get_weather"
    description = "Get the weather."
    inputs: ClassVar[dict[str, object]] = {"city": {"type": "string", "description": "the city"}}
    output_type = "string"

    def forward(self, city: str) -> str:
        return f"sunny in {city}"


class NoForward(_SmolTool):
    """Inputs and output type only."""

    inputs: ClassVar[dict[str, object]] = {}
    output_type = "string"


@pytest.mark.parametrize("given", [WeatherTool, NoForward], ids=["forward", "inputs-output_type"])
def test_a_smolagents_style_class_is_refused_with_advice(given: type) -> None:
    with pytest.raises(UserError, match=r"toolwire makes tools of functions.*tool\(obj\.forward\)"):
        tool(given)
    with pytest.raises(UserError, match="toolwire makes tools of functions"):
        Agent(ScriptedChatModel(["ok"]), [given])


def test_an_instance_of_one_is_refused_with_the_same_advice() -> None:
    with pytest.raises(UserError, match="toolwire makes tools of functions"):
        ScriptedChatModel(["ok"]).bind_tools([WeatherTool()])


def test_an_ordinary_class_and_a_bound_forward_still_make_tools() -> None:
    class Point:
        """Make a point."""

        def __init__(self, x: int) -> None:
            self.x = x

    assert tool(Point).name == "Point"
    assert tool(WeatherTool().forward, description="Get the weather.").name == "forward"


def test_a_tool_spec_with_a_name_the_rule_forbids_is_refused_when_bound() -> None:
    spec = ToolSpec("get weather!", "Get the weather.", {"type": "object", "properties": {}})
    with pytest.raises(SchemaError, match="Tool name 'get weather!' is not allowed"):
        ScriptedChatModel(["ok"]).bind_tools([spec])
    good = ToolSpec("get_weather", "Get the weather.", {"type": "object", "properties": {}})
    assert ScriptedChatModel(["ok"]).bind_tools([good]).invoke("hi").content == "ok"


class _CallableSmolTool:  # the shape of smolagents.Tool: __call__ runs forward
    def __call__(self, *args: object, sanitize_inputs_outputs: bool = False, **kwargs: object) -> object:
        return self.forward(*args, **kwargs)  # type: ignore[attr-defined]


class WebSearch(_CallableSmolTool):
    name = "web_search"
    description = "Search the web."
    inputs: ClassVar[dict[str, object]] = {"query": {"type": "string", "description": "the query"}}
    output_type = "string"

    def forward(self, query: str) -> str:
        return "results for " + query


def test_a_callable_smolagents_instance_is_refused_with_the_advice_too() -> None:
    from toolwire import Tool

    # review 144 #4: smolagents' Tool has __call__, so every real instance is callable
    with pytest.raises(UserError, match="toolwire makes tools of functions"):
        ScriptedChatModel(["ok"]).bind_tools([WebSearch()])
    with pytest.raises(UserError, match="toolwire makes tools of functions"):
        Tool.from_function(WebSearch(), name="web_search", description="Search the web.")
