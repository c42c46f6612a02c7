"""Review 182 #2: a set or NamedTuple inside a default that is a pydantic model or dataclass instance is written as
a plain default's is: the set sorted (the same text in every process), the NamedTuple as the object of its fields."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import warnings
from typing import Any, NamedTuple

from pydantic import BaseModel, field_serializer

from toolwire import tool
from toolwire.models.lowering.openai import convert_to_openai_tool

SOURCES = ["blogs", "books", "forums", "news", "papers", "podcasts", "videos", "wiki"]


class Coord(NamedTuple):
    lat: float
    lon: float


class Filters(BaseModel):
    sources: frozenset[str] = frozenset(SOURCES)
    extra: Any = None


@dataclasses.dataclass
class Limits:
    kinds: set[str] = dataclasses.field(default_factory=lambda: set(SOURCES))


class Route(BaseModel):
    stops: list[Coord] = []
    spots: frozenset[Coord] = frozenset()


class Options(BaseModel):
    filters: Filters = Filters(extra={"by": set(SOURCES)})
    home: Coord = Coord(1.0, 2.0)


class Shouted(BaseModel):
    words: set[str] = set(SOURCES)

    @field_serializer("words")
    def _upper(self, words: set[str]) -> list[str]:
        return [word.upper() for word in words]


FILTERS, LIMITS, OPTIONS, SHOUTED = Filters(), Limits(), Options(), Shouted()
ROUTE = Route(stops=[Coord(1.0, 2.0)], spots=frozenset({Coord(5.0, 6.0), Coord(3.0, 4.0)}))
MANY = [Limits()]


@tool
def search(q: str, filters: Filters = FILTERS, limits: Limits = LIMITS, route: Route = ROUTE,
           options: Options = OPTIONS, shouted: Shouted = SHOUTED, many: list[Limits] = MANY) -> str:
    """Search."""
    return q


def test_set_in_model_or_dataclass_instance_default_is_sorted():
    props = search.parameters["properties"]
    assert props["filters"]["default"] == {"sources": SOURCES, "extra": None}
    assert props["limits"]["default"] == {"kinds": SOURCES}
    assert props["many"]["default"] == [{"kinds": SOURCES}]
    assert props["options"]["default"]["filters"] == {"sources": SOURCES, "extra": {"by": SOURCES}}
    assert props["shouted"]["default"] == {"words": [w.upper() for w in SOURCES]}  # (its serializer still applies)


def test_named_tuple_in_instance_default_is_its_object():
    props = search.parameters["properties"]
    assert props["route"]["default"] == {"stops": [{"lat": 1.0, "lon": 2.0}],
                                         "spots": [{"lat": 3.0, "lon": 4.0}, {"lat": 5.0, "lon": 6.0}]}
    assert props["options"]["default"]["home"] == {"lat": 1.0, "lon": 2.0}


def test_model_field_whose_default_is_an_instance():
    field = search.parameters["properties"]["options"]["properties"]["filters"]
    assert field["default"] == {"sources": SOURCES, "extra": {"by": SOURCES}}


@tool
def plan(limits: Limits = LIMITS, route: Route = ROUTE) -> str:
    """Plan."""
    return "ok"


def test_strict_lowering_default_text_is_sorted():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (strict mode is kept)
        props = convert_to_openai_tool(plan, strict=True)["function"]["parameters"]["properties"]
    assert props["limits"]["description"] == f'Default: {{"kinds": {json.dumps(SOURCES)}}}.'
    assert '"spots": [{"lat": 3.0, "lon": 4.0}, {"lat": 5.0, "lon": 6.0}]' in props["route"]["description"]


def test_the_tool_still_runs_with_its_defaults():
    assert search.invoke({"q": "x"}) == "x"


def test_instance_default_schema_text_same_in_every_process():
    code = ("import json, tests.test_review182_instance_defaults as m; "
            "print(json.dumps(m.search.parameters, sort_keys=True))")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    texts = {subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(texts) == 1
