"""The tools and structured-output model the OpenAI-compatible server tests of reviews 214 and 219 bind."""

from __future__ import annotations

from pydantic import BaseModel

from toolwire import tool


class City(BaseModel):
    name: str
    country: str


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


@tool
def now() -> str:
    """Current time."""
    return "12:00"
