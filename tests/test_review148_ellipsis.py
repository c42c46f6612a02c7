"""Review 148 #2: ``def f(city: str = ...)``, pydantic's and LangChain's way to say "required", makes a required
parameter, never a schema default of Python's Ellipsis."""

from __future__ import annotations

import json

from pydantic import Field

from toolwire import tool


def test_an_ellipsis_default_makes_the_parameter_required() -> None:
    @tool
    def get_weather(city: str = ..., unit: str = "celsius", days: int = Field(..., ge=1)) -> str:
        """Weather for a city.

        Args:
            city: the city
            unit: the unit
            days: how many days
        """
        return f"sunny in {city}"

    schema = get_weather.parameters
    assert schema["required"] == ["city", "days"] and "default" not in schema["properties"]["city"]
    json.dumps(schema)  # (Ellipsis has no JSON form)
    answer = get_weather.invoke({"name": "get_weather", "args": {"days": 1}, "id": "c1", "type": "tool_call"})
    assert answer.status == "error" and "'city' is required but missing" in answer.content
    assert get_weather.invoke({"city": "Paris", "days": 2}) == "sunny in Paris"
