"""Review 182 #4: ``Annotated[T, "text"]`` on a NamedTuple's field describes that field, as it does a dataclass's or
a TypedDict's (the text was dropped without a word)."""

from __future__ import annotations

import collections
import dataclasses
from typing import Annotated, NamedTuple

from pydantic import BaseModel

from toolwire import tool
from toolwire.models._tool_text import python_signature
from toolwire.models.base import to_tool_spec
from toolwire.models.lowering.openai import convert_to_openai_tool


class Point(NamedTuple):
    """A point on Earth.

    Attributes:
        lon: east of Greenwich
    """

    lat: Annotated[float, "latitude in degrees"]
    lon: Annotated[float, "longitude in degrees"]
    alt: float = 0.0


@dataclasses.dataclass
class PointDC:
    lat: Annotated[float, "latitude in degrees"]


class Trip(BaseModel):
    stops: list[Point]


Plain = collections.namedtuple("Plain", ["x", "y"])


@tool
def where(a: Point, b: PointDC, trip: Trip) -> str:
    """Where."""
    return f"{a.lat} {a.lon} {trip.stops[0].lat}"


def test_named_tuple_field_takes_its_annotated_text():
    props = where.parameters["properties"]
    assert props["a"]["properties"]["lat"]["description"] == "latitude in degrees"
    assert props["a"]["properties"]["lon"]["description"] == "longitude in degrees"  # (Annotated first)
    assert "description" not in props["a"]["properties"]["alt"]
    assert props["b"]["properties"]["lat"]["description"] == "latitude in degrees"
    assert props["trip"]["properties"]["stops"]["items"]["properties"]["lat"]["description"] == "latitude in degrees"


def test_named_tuple_field_text_in_the_prompt_and_strict_lowering():
    assert "lat (float): latitude in degrees" in python_signature(to_tool_spec(where))
    strict = convert_to_openai_tool(where, strict=True)["function"]["parameters"]["properties"]
    assert strict["a"]["properties"]["lat"]["description"] == "latitude in degrees"


def test_the_named_tuple_still_reaches_the_function():
    assert where.invoke({"a": {"lat": 1, "lon": 2}, "b": {"lat": 3}, "trip": {"stops": [[5, 6]]}}) == "1.0 2.0 5.0"


def test_a_collections_namedtuple_without_hints_is_unchanged():
    @tool
    def at(p: Plain) -> str:
        """At."""
        return f"{p.x},{p.y}"

    assert "description" not in at.parameters["properties"]["p"]["properties"]["x"]
    assert at.invoke({"p": {"x": 1, "y": 2}}) == "1,2"
