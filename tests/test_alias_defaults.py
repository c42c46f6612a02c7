"""A parameter's default that is a model instance (alone, in a list, in a dict) is published with the keys its
schema names, the fields' aliases, as the arguments are validated; a set in it sorted (found after review 182)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from toolwire import tool


class Stop(BaseModel):
    from_: str = Field(alias="from")
    tags: set[str] = set()


OSLO = [Stop(**{"from": "Oslo", "tags": {"b", "a"}})]
BERGEN = Stop(**{"from": "Bergen"})


@tool
def plan(stops: list[Stop] = OSLO, first: Stop = BERGEN, by_name: dict[str, Stop] | None = None) -> list[Stop]:
    """Plan a route."""
    return [*stops, first]  # (compared as values: a set's order differs from one process to the next)


def test_a_model_default_is_published_by_alias() -> None:
    props = plan.parameters["properties"]
    assert props["stops"]["default"] == [{"from": "Oslo", "tags": ["a", "b"]}]
    assert props["first"]["default"] == {"from": "Bergen", "tags": []}
    assert "from" in props["first"]["properties"]


def test_the_published_default_validates_as_the_default() -> None:
    props = plan.parameters["properties"]
    given = {"stops": props["stops"]["default"], "first": props["first"]["default"]}
    assert plan.invoke(given) == plan.invoke({})
