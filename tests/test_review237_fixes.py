"""Review 237: #1 the error for a union of models told apart by a ``Literal`` tag names the mistake of the member the
tag picks; #2 ``**kwargs: Unpack[TypedDict]`` (PEP 692); #3 a non-finite ``Decimal`` default is left out of the
schema."""

from __future__ import annotations

import functools
import warnings
from typing import Annotated, Any, Literal, NotRequired, Required, Union

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict, Unpack

from toolwire import Tool
from toolwire.errors import SchemaError, ToolDefinitionWarning

# ------------------------------------------------------------------ #1: a union of models told apart by a tag


class _AddStep(BaseModel):
    op: Literal["add"]
    text: str


class _DeleteStep(BaseModel):
    op: Literal["delete"]
    id: int


def _edit(step: Union[_AddStep, _DeleteStep]) -> str:  # noqa: UP007 (the spelling of the review)
    """Edit the document.

    Args:
        step: what to do.
    """
    return repr(step)


def _edit_many(steps: list[_AddStep | _DeleteStep], note: _AddStep | _DeleteStep | None = None) -> str:
    """Edit the document in steps.

    Args:
        steps: what to do, in order.
        note: one more step.
    """
    return repr(steps)


def _error(func: Any, args: dict[str, Any]) -> str:
    message = Tool.from_function(func).invoke({"type": "tool_call", "name": func.__name__, "id": "c", "args": args})
    assert message.status == "error"
    return str(message.content)


@pytest.mark.parametrize(("step", "expected"), [
    ({"op": "add", "text": "x", "id": 3},
     "Error: Invalid arguments for tool '_edit': with op \"add\": 'step.id' is not an allowed field of 'step' (got 3). "
     "The fields of 'step' are: op, text."),
    ({"op": "delete", "id": 3, "text": "x"},
     "Error: Invalid arguments for tool '_edit': with op \"delete\": 'step.text' is not an allowed field of 'step' "
     "(got 'x'). The fields of 'step' are: op, id."),
    ({"op": "delete", "id": "seven"},
     "Error: Invalid arguments for tool '_edit': with op \"delete\": 'step.id': Input should be a valid integer, "
     "unable to parse string as an integer (got 'seven')."),
    ({"op": "move", "id": 1},  # a tag that picks no member: only the tag is wrong
     "Error: Invalid arguments for tool '_edit': 'step.op': Input should be 'add', or input should be 'delete' "
     "(got 'move')."),
    ({"id": 1},
     "Error: Invalid arguments for tool '_edit': 'step.op' is required but missing (one of \"add\", \"delete\")."),
])
def test_the_error_of_a_tagged_union_is_the_one_of_the_member_the_tag_picks(step: dict[str, Any],
                                                                              expected: str) -> None:
    assert _error(_edit, {"step": step}) == expected


def test_a_tagged_union_in_a_list_or_optional_is_cut_the_same_way() -> None:
    text = _error(_edit_many, {"steps": [{"op": "add", "text": "a"}, {"op": "delete", "id": 1, "text": "b"}],
                               "note": {"op": "add", "text": 5}})
    assert text == ("Error: Invalid arguments for tool '_edit_many': with op \"delete\": 'steps.1.text' is not an "
                    "allowed field of 'steps.1' (got 'b'); with op \"add\": 'note.text': Input should be a valid "
                    "string (got 5). The fields of 'steps.1' are: op, id.")


def test_a_good_call_of_a_tagged_union_still_works() -> None:
    t = Tool.from_function(_edit)
    assert t.invoke({"step": {"op": "delete", "id": 3}}) == "_DeleteStep(op='delete', id=3)"


# ------------------------------------------------------------------ #2: **kwargs: Unpack[TypedDict] (PEP 692)


class _WeatherOptions(TypedDict):
    city: str
    units: NotRequired[Literal["metric", "imperial"]]


def _weather(**kwargs: Unpack[_WeatherOptions]) -> str:
    """Get the weather.

    Args:
        city: the city.
        units: metric or imperial.
    """
    return f"sunny in {kwargs['city']} ({kwargs.get('units', 'metric')})"


def _made(func: Any, **options: Any) -> tuple[Tool, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = Tool.from_function(func, **options)
    return made, [str(w.message) for w in caught if issubclass(w.category, ToolDefinitionWarning)]


def test_unpacked_typeddict_kwargs_are_the_tools_parameters() -> None:
    made, warned = _made(_weather)
    assert warned == []
    assert made.parameters == {"type": "object", "properties": {
        "city": {"type": "string", "description": "the city."},
        "units": {"type": "string", "enum": ["metric", "imperial"], "description": "metric or imperial."}},
        "required": ["city"], "additionalProperties": False}
    assert made.invoke({"city": "Paris"}) == "sunny in Paris (metric)"
    assert made.invoke({"city": "Oslo", "units": "imperial"}) == "sunny in Oslo (imperial)"
    assert "'city' is required but missing" in _error(_weather, {})
    assert "'zone' is not a parameter of this tool" in _error(_weather, {"city": "Paris", "zone": 1})


class _Limits(TypedDict, total=False):
    top: Required[int]
    skip: Annotated[int, Field(ge=0, description="rows to skip")]


def _search(query: str, /, *, exact: bool = False, **kwargs: Unpack[_Limits]) -> str:
    """Search.

    Args:
        query: what to find.
        exact: match the whole text.
        top: how many rows.
    """
    return f"{query} {exact} {sorted(kwargs.items())}"


def test_unpacked_kwargs_join_the_named_parameters() -> None:
    made, warned = _made(_search)
    params = made.parameters
    assert list(params["properties"]) == ["query", "exact", "top", "skip"]
    assert params["required"] == ["query", "top"]
    assert params["properties"]["skip"] == {"type": "integer", "minimum": 0, "description": "rows to skip"}
    assert warned == []
    assert made.invoke({"query": "q", "top": 3}) == "q False [('top', 3)]"
    assert made.invoke({"query": "q", "top": 3, "skip": 1, "exact": True}) == "q True [('skip', 1), ('top', 3)]"
    assert "'skip': Input should be greater than or equal to 0" in _error(_search, {"query": "q", "top": 1, "skip": -1})
    # a partial's fixed keyword goes into kwargs, and is no parameter any more
    fixed, _ = _made(functools.partial(_search, top=5), name="search5")
    assert list(fixed.parameters["properties"]) == ["query", "exact", "skip"]
    assert fixed.invoke({"query": "q"}) == "q False [('top', 5)]"


def test_an_unpacked_key_that_is_also_a_parameter_is_refused() -> None:
    def clash(city: str, **kwargs: Unpack[_WeatherOptions]) -> str:
        """Clash."""
        return city

    with pytest.raises(SchemaError, match=r"Unpack\[_WeatherOptions\], whose key 'city' is also a parameter"):
        Tool.from_function(clash)


def test_unpack_of_something_else_than_a_typeddict_is_refused() -> None:
    def odd(**kwargs: Unpack[dict[str, int]]) -> str:  # type: ignore[misc]
        """Odd."""
        return ""

    with pytest.raises(SchemaError, match="TypedDict"):
        Tool.from_function(odd)


def test_plain_kwargs_still_warn_and_are_left_out() -> None:
    def loose(a: int, **kwargs: int) -> int:
        """Loose."""
        return a

    made, warned = _made(loose)
    assert list(made.parameters["properties"]) == ["a"]
    assert any("**kwargs" in w for w in warned)
