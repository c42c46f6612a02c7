"""Review 175: JSON Schema from function signatures (items 3 and 7: NamedTuple parameters, set defaults)."""

from __future__ import annotations

import enum
import functools
import importlib
import json
import os
import subprocess
import sys
import warnings
from typing import Annotated, NamedTuple

import pytest
from pydantic import BaseModel, Field

from toolwire import Tool, tool
from toolwire.errors import SchemaError
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import StrictSchemaWarning, convert_to_openai_tool
from toolwire.schema import function_schema


class Coord(NamedTuple):
    """A place on Earth.

    Attributes:
        lat: latitude in degrees
        lon: longitude in degrees
    """

    lat: float
    lon: float = 0.0


class Plain(NamedTuple):
    city: str
    nights: int


class Trip(BaseModel):
    stops: list[Coord]


HOME = Coord(1.0, 2.0)


@tool
def distance(start: Coord, trip: Trip, stay: Plain | None = None, home: Coord = HOME) -> str:
    """Distance of a trip.

    Args:
        start: where the trip starts
        trip: the stops
        stay: where to stay
        home: where home is
    """
    return f"{start!r}|{trip.stops!r}|{stay!r}|{home!r}"


# --------------------------------------------------------------------------- #3 NamedTuple as an object


def test_named_tuple_parameter_is_an_object_of_its_described_fields():
    props = distance.parameters["properties"]
    start = props["start"]
    assert start["type"] == "object" and start["additionalProperties"] is False
    assert start["properties"] == {"lat": {"description": "latitude in degrees", "type": "number"},
                                   "lon": {"default": 0.0, "description": "longitude in degrees", "type": "number"}}
    assert start["required"] == ["lat"]
    nested = props["trip"]["properties"]["stops"]["items"]
    assert list(nested["properties"]) == ["lat", "lon"] and nested["description"] == "A place on Earth."
    stay = props["stay"]["anyOf"][0]
    assert list(stay["properties"]) == ["city", "nights"] and "description" not in stay  # (Python's made-up doc)
    assert props["home"]["default"] == {"lat": 1.0, "lon": 2.0}


def test_named_tuple_object_reaches_the_function_as_the_named_tuple():
    out = distance.invoke({"start": {"lat": 1, "lon": 2}, "trip": {"stops": [{"lat": 3}, [4, 5]]},
                           "stay": {"city": "Oslo", "nights": 2}})
    assert out == ("Coord(lat=1.0, lon=2.0)|[Coord(lat=3.0, lon=0.0), Coord(lat=4.0, lon=5.0)]|"
                   "Plain(city='Oslo', nights=2)|Coord(lat=1.0, lon=2.0)")
    call = {"name": "distance", "args": {"start": {"lat": 1, "x": 2}, "trip": {"stops": []}}, "id": "c1",
            "type": "tool_call"}
    message = distance.invoke(call)
    assert message.status == "error" and "'start.x' is not an allowed field of 'start'" in message.content
    nulls = {**call, "args": {"start": {"lat": 1, "lon": None}, "trip": {"stops": []}, "home": None}}
    assert distance.invoke(nulls).content.startswith("Coord(lat=1.0, lon=0.0)|[]|None|Coord(lat=1.0, lon=2.0)")


def test_named_tuple_object_in_every_lowering():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StrictSchemaWarning)
        strict = convert_to_openai_tool(distance, strict=True)["function"]["parameters"]["properties"]["start"]
    assert strict["type"] == "object" and sorted(strict["required"]) == ["lat", "lon"]
    gemini = convert_to_gemini_tool(distance)["parameters"]["properties"]["start"]
    assert gemini["type"] == "OBJECT" and list(gemini["properties"]) == ["lat", "lon"]
    anthropic = convert_to_anthropic_tool(distance)["input_schema"]["properties"]["start"]
    assert list(anthropic["properties"]) == ["lat", "lon"]


# --------------------------------------------------------------------------- #7 set defaults in a stable order


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Filters(BaseModel):
    fields: set[str] = {"title", "body", "author", "tags"}


@tool
def search(query: str, fields: frozenset[str] = frozenset({"title", "body", "author", "tags"}),
           colors: frozenset[Color] = frozenset(Color), mixed: frozenset[int | str] = frozenset({2, "a", 1}),
           filters: Filters | None = None) -> str:
    """Search the notes.

    Args:
        query: words to look for
        fields: which fields to search
        colors: which colours
        mixed: anything
        filters: more filters
    """
    return query


def test_set_defaults_sorted():
    props = search.parameters["properties"]
    assert props["fields"]["default"] == ["author", "body", "tags", "title"]
    assert props["colors"]["default"] == ["blue", "green", "red"]
    assert props["mixed"]["default"] == ["a", 1, 2]  # (by JSON text: "\"a\"" < "1" < "2")
    assert props["filters"]["anyOf"][0]["properties"]["fields"]["default"] == ["author", "body", "tags", "title"]


def test_set_default_schema_text_same_in_every_process():
    code = ("import json, tests.test_review175_schema as m; "
            "print(json.dumps(m.search.parameters, sort_keys=True))")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    texts = {subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(texts) == 1 and json.loads(texts.pop())["properties"]["fields"]["default"][0] == "author"


# --------------------------------------------------------------------------- #2 a default inside Annotated[..., Field]


@tool
def find(query: str,
         limit: Annotated[int, Field(default=10, ge=1, description="max results")],
         tags: Annotated[list[str], Field(default_factory=list)],
         page: int = Field(default=1, ge=1, description="page number")) -> str:
    """Search the catalogue.

    Args:
        query: the words to look for
        tags: labels to match
    """
    tags.append("seen")  # (a fresh list for each call)
    return f"{query}|{limit}|{tags}|{page}"


def test_annotated_field_default_is_the_parameters_default():
    params = find.parameters
    assert params["required"] == ["query"]
    assert params["properties"]["limit"] == {"default": 10, "description": "max results", "minimum": 1,
                                             "type": "integer"}
    assert "default" not in params["properties"]["tags"]  # (a factory has no fixed value, as with = Field(...))
    assert function_schema(find.func, "find").defaulted_non_nullable == frozenset({"limit", "tags", "page"})
    assert find.invoke({"query": "lamp"}) == "lamp|10|['seen']|1"
    assert find.invoke({"query": "lamp"}) == "lamp|10|['seen']|1"
    call = {"name": "find", "args": {"query": "lamp", "limit": None, "tags": None, "page": None}, "id": "c1",
            "type": "tool_call"}
    assert find.invoke(call).content == "lamp|10|['seen']|1"
    assert find.invoke({"query": "lamp", "limit": 3, "tags": ["a"]}) == "lamp|3|['a', 'seen']|1"
    assert find.invoke({"name": "find", "args": {"query": "x", "limit": 0}, "id": "c2", "type": "tool_call"}
                       ).status == "error"


def test_annotated_field_default_in_strict_lowering():
    strict = convert_to_openai_tool(find, strict=True)["function"]["parameters"]
    assert strict["properties"]["limit"]["type"] == ["integer", "null"]
    assert strict["properties"]["page"]["type"] == ["integer", "null"]


# --------------------------------------------------------------------------- #4 a pydantic model class as a tool


class CreateTicket(BaseModel):
    """Open a support ticket."""

    title: str = Field(description="one-line summary")
    priority: int = Field(3, ge=1, le=5, description="1 (urgent) to 5 (low)")


def test_model_class_tool_refused_pointing_to_args_schema():
    with pytest.raises(SchemaError, match=r"pass the model as args_schema too \(tool\(CreateTicket, "
                                          r"args_schema=CreateTicket\)\)"):
        Tool.from_function(CreateTicket)
    with pytest.raises(SchemaError, match="pydantic model class CreateTicket"):
        tool(functools.partial(CreateTicket, priority=2))
    made = tool(CreateTicket, args_schema=CreateTicket)  # (the way the message points to)
    assert made.parameters["properties"]["priority"]["maximum"] == 5
    assert made.invoke({"title": "x"}) == CreateTicket(title="x")


# --------------------------------------------------------------------------- #8 a type defined after the function


_LATER = '''from __future__ import annotations
from dataclasses import dataclass
from toolwire import Tool, tool
from toolwire.errors import SchemaError


@tool
def plan(stop: {hint}) -> str:
    """Plan a trip.

    Args:
        stop: where to stop
    """
    return repr(stop)


@dataclass
class Stop:
    city: str
'''


@pytest.mark.parametrize(("hint", "advice"), [
    ("Stop", "Stop is defined or imported after the function, but the schema is built when @tool runs, so define or "
             "import Stop before the function that uses it."),
    ("Stopp", "import every type the signature names at module level."),
])
def test_type_defined_after_the_function_says_to_move_it_up(tmp_path, monkeypatch, hint, advice):
    name = f"_review175_later_{hint.lower()}"
    (tmp_path / f"{name}.py").write_text(_LATER.replace("{hint}", hint))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SchemaError) as caught:
        importlib.import_module(name)
    sys.modules.pop(name, None)
    assert str(caught.value).startswith("Cannot resolve the type hints of 'plan' (name ")
    assert str(caught.value).endswith(advice)


# --------------------------------------------------------------------------- #6 a documented class-typed parameter


class Unit(enum.Enum):
    """C is Celsius, F is Fahrenheit, K is Kelvin."""

    C = "C"
    F = "F"


class Window(BaseModel):
    """A time window. Both ends are inclusive and in UTC.

    Attributes:
        start: first reading
        end: last reading
    """

    start: str
    end: str


class Same(BaseModel):
    """the window again"""

    at: str


@tool
def readings(unit: Unit, window: Window, same: Same, back: Window | None = None, bare: Plain | None = None,
             plain: Unit = Unit.C) -> str:
    """Temperature readings.

    Args:
        unit: the unit of the temperatures
        window: which readings
        same: the window again
        back: which readings to compare with
        bare: a stay
        plain: another unit
    """
    return unit.value


def test_documented_class_parameter_keeps_the_class_text_after_its_own():
    props = readings.parameters["properties"]
    assert props["unit"]["description"] == ("the unit of the temperatures.\n\n"
                                            "C is Celsius, F is Fahrenheit, K is Kelvin.")
    assert props["window"]["description"] == "which readings.\n\nA time window. Both ends are inclusive and in UTC."
    assert props["window"]["properties"]["start"]["description"] == "first reading"
    assert props["same"]["description"] == "the window again"  # (the same text once)
    assert props["back"]["description"] == "which readings to compare with"  # (the class's in its anyOf branch)
    assert props["back"]["anyOf"][0]["description"].startswith("A time window.")
    assert props["plain"]["description"].startswith("another unit.\n\nC is Celsius")
    assert props["plain"]["default"] == "C"
    assert readings.invoke({"unit": "C", "window": {"start": "a", "end": "b"}, "same": {"at": "x"}}) == "C"
