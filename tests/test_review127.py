"""Review 127 (tool argument schemas): strict-mode nulls in a union of models whose default cannot be given back,
nested classes' docstrings (sections kept, aliased, generic and inherited fields), and ``tuple[()]`` for OpenAI."""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from toolwire import tool

# -- #1: a null for a key whose default its own schema refuses (z: int = None) is dropped, not given back ----------

class _A(BaseModel):
    x: int
    y: int = 0


class _NoneDefault(BaseModel):
    x: int
    z: int = None  # type: ignore[assignment]


class _Factory(BaseModel):
    x: int
    z: list[str] = Field(default_factory=list)


def test_a_strict_mode_null_for_a_key_whose_default_is_a_refused_null_is_dropped() -> None:
    @tool
    def f(v: _A | _NoneDefault) -> str:
        """Take one.

        Args:
            v: the value
        """
        return repr(v)

    assert f.invoke({"v": {"x": 1, "z": None}}) == repr(_A(x=1))  # (as before review 124 #3: the null is dropped)
    assert f.invoke({"v": {"x": 1, "z": 5}}) == repr(_NoneDefault(x=1, z=5))
    assert f.invoke({"v": {"x": 1, "y": None}}) == repr(_A(x=1))


def test_a_strict_mode_null_for_a_default_factory_key_is_dropped_and_pydantic_picks_the_member() -> None:
    """The documented exception of null_plan (review 127 #2): no JSON default to give back, so the smart union reads
    {"x": 1} as the first member that fits."""
    @tool
    def g(v: _A | _Factory) -> str:
        """Take one.

        Args:
            v: the value
        """
        return repr(v)

    assert g.invoke({"v": {"x": 1, "z": None}}) == repr(_A(x=1))
    assert g.invoke({"v": {"x": 1, "z": ["a"]}}) == repr(_Factory(x=1, z=["a"]))


# -- #9: tuple[()] is sent to OpenAI with items ---------------------------------------------------------------------

def test_an_empty_tuple_is_sent_to_openai_with_items_and_max_items_0() -> None:
    from toolwire.models.lowering._tuples import with_items
    from toolwire.models.lowering.openai import convert_to_openai_tool

    @tool
    def f(empty: tuple[()] = (), pair: tuple[int, int] = (0, 0)) -> str:
        """F.

        Args:
            empty: nothing
            pair: two numbers
        """
        return repr((empty, pair))

    for strict in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (strict mode takes no tuple: sent non-strict, said by a warning)
            props = convert_to_openai_tool(f, strict=strict)["function"]["parameters"]["properties"]
        empty = props["empty"]
        empty = next((b for b in empty.get("anyOf", ()) if b.get("type") == "array"), empty)
        assert empty["items"] == {} and empty["maxItems"] == 0, empty
        assert props["pair"]["items"] == {"type": "integer"}
    assert f.invoke({"empty": []}) == "((), (0, 0))"
    assert with_items({"type": "array", "items": False}) == {"type": "array", "items": {}, "maxItems": 0}
    assert with_items({"type": "array", "prefixItems": [], "items": False})["items"] == {}
    kept = {"type": "array", "maxItems": 0, "items": {"type": "string"}}
    assert with_items(kept) == kept  # (an items schema of its own: left alone)


# -- #5: a nested class's description keeps every part of its docstring but the entries moved to its fields ---------

class _Window(BaseModel):
    """A time window.

    Attributes:
        start: first hour (0-23)
        end: last hour (0-23)
        MAX_HOURS (int): at most 12 hours

    Note:
        end may be smaller than start for a window across midnight.

    Example:
        {"start": 22, "end": 6}
    """

    MAX_HOURS: ClassVar[int] = 12
    start: int
    end: int


class _Span(BaseModel):
    """A span.

    Args:
        a (int): where it starts,
            counted from 0
        b: where it ends

    More prose at the margin.
    """

    a: int
    b: int


class _NumpySpan(BaseModel):
    """A span.

    Attributes
    ----------
    a : int
        where it starts
    """

    a: int


def _class_node(parameters: dict[str, Any], name: str) -> dict[str, Any]:
    node = parameters["properties"][name]
    return parameters["$defs"][node["$ref"].split("/")[-1]] if "$ref" in node else node


def test_a_nested_class_description_keeps_its_other_sections_and_the_entries_naming_no_field() -> None:
    @tool
    def book(window: _Window, span: _Span, numpy_span: _NumpySpan) -> str:
        """Book a slot."""
        return "ok"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the parameters are not in Args:)
        params = book.parameters
    window = _class_node(params, "window")
    assert window["description"] == (
        "A time window.\n\nAttributes:\n    MAX_HOURS (int): at most 12 hours\n\nNote:\n    end may be smaller than "
        "start for a window across midnight.\n\nExample:\n    {\"start\": 22, \"end\": 6}")
    assert {k: v["description"] for k, v in window["properties"].items()} == {
        "start": "first hour (0-23)", "end": "last hour (0-23)"}
    span = _class_node(params, "span")
    assert span["description"] == "A span.\n\nMore prose at the margin."  # (the section's title goes with its entries)
    assert span["properties"]["a"]["description"] == "where it starts,\ncounted from 0"
    numpy_span = _class_node(params, "numpy_span")  # (entries not found as Google writes them: the docstring stays)
    assert numpy_span["description"] == inspect.cleandoc(_NumpySpan.__doc__ or "")
    assert numpy_span["properties"]["a"]["description"] == "where it starts"


# -- #6: Attributes: entries describe aliased fields, a generic model's fields and inherited fields ------------------

_T = TypeVar("_T")


class _Trip(BaseModel):
    """A trip.

    Attributes:
        from_: the city to leave from
        to: the city to go to
    """

    from_: str = Field(alias="from")
    to: str


class _Page(BaseModel, Generic[_T]):
    """A page of results.

    Attributes:
        items: the results on this page
        cursor: where the next page starts
    """

    items: list[_T]
    cursor: str


class _Base(BaseModel):
    """A place.

    Attributes:
        lat: latitude in degrees
        lon: longitude in degrees
    """

    lat: float
    lon: float


class _Place(_Base):
    """A named place.

    Attributes:
        name: what it is called
        lon: longitude, east of Greenwich
    """

    name: str


class _Undocumented(_Base):
    name: str


@dataclasses.dataclass
class _DataBase:
    """A point.

    Attributes:
        x: across
    """

    x: int


@dataclasses.dataclass
class _DataChild(_DataBase):
    y: int = 0


class _TypedBase(TypedDict):
    """A size.

    Attributes:
        w: the width
    """

    w: int


class _TypedChild(_TypedBase):
    h: int


def test_attributes_describe_aliased_generic_and_inherited_fields() -> None:
    @tool
    def go(trip: _Trip, page: _Page[int], place: _Place, bare: _Undocumented, point: _DataChild,
           size: _TypedChild) -> str:
        """Go.

        Args:
            trip: the trip
            page: a page
            place: a place
            bare: another place
            point: a point
            size: a size
        """
        return "ok"

    params = go.parameters

    def fields(name: str) -> dict[str, Any]:
        return {k: v.get("description") for k, v in _class_node(params, name)["properties"].items()}

    assert fields("trip") == {"from": "the city to leave from", "to": "the city to go to"}
    assert fields("page") == {"items": "the results on this page", "cursor": "where the next page starts"}
    assert fields("place") == {"lat": "latitude in degrees", "lon": "longitude, east of Greenwich",
                               "name": "what it is called"}  # (the child's own entry first)
    assert fields("bare") == {"lat": "latitude in degrees", "lon": "longitude in degrees", "name": None}
    assert fields("point") == {"x": "across", "y": None}
    assert fields("size") == {"w": "the width", "h": None}

    @tool
    def bare_page(page: _Page[int]) -> str:
        """Show a page."""
        return "ok"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _class_node(bare_page.parameters, "page")["description"] == "A page of results."
        assert _class_node(bare_page.parameters, "page")["properties"]["items"]["description"] == (
            "the results on this page")

    @tool(args_schema=_Trip)
    def trip(**kwargs: Any) -> str:
        """Take a trip."""
        return "ok"

    assert trip.parameters["properties"]["from"]["description"] == "the city to leave from"
