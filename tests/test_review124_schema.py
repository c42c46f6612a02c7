"""Review 124 (tool argument schemas): an aliased parameter's strict-mode null and default, a plain union of models
after its nulls are dropped, discriminated unions whose tags have defaults, nested models with a before/wrap
validator, and the docstrings of nested models."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Annotated, Any, Literal, Union

import pydantic.dataclasses
import pytest
from pydantic import BaseModel, ConfigDict, Field, model_validator

from toolwire import tool
from toolwire.errors import ToolValidationError
from toolwire.models.lowering.openai import convert_to_openai_tool

# -- #2: an aliased parameter with a default: OpenAI strict mode's null is dropped, the default is published -------

class _TripArgs(BaseModel):
    from_: str = Field(alias="from", description="where the trip starts")
    limit_: int = Field(10, alias="limit", description="how many results")


def test_an_aliased_parameter_with_a_default_drops_a_strict_mode_null_and_publishes_its_default() -> None:
    @tool
    def trips(from_: Annotated[str, Field(alias="from")], limit_: Annotated[int, Field(alias="limit")] = 10) -> str:
        """Find trips.

        Args:
            from_: where the trip starts
            limit_: how many results
        """
        return f"{limit_} trips from {from_}"

    assert trips.parameters["properties"]["limit"]["default"] == 10
    assert trips.invoke({"from": "Lisbon", "limit": None}) == "10 trips from Lisbon"
    assert trips.invoke({"from": "Lisbon", "limit": 3}) == "3 trips from Lisbon"
    with pytest.raises(ToolValidationError):
        trips.invoke({"from": None, "limit": 3})  # (a required parameter's null is still an error)


def test_an_args_schema_field_with_an_alias_and_a_default_drops_a_strict_mode_null() -> None:
    @tool(args_schema=_TripArgs)
    def trips(from_: str, limit_: int = 10) -> str:
        """Find trips."""
        return f"{limit_} trips from {from_}"

    assert trips.invoke({"from": "Lisbon", "limit": None}) == "10 trips from Lisbon"


# -- #4: a discriminated union whose tags have defaults: the published schema requires the tag ---------------------

class _Card(BaseModel):
    method: Literal["card"] = "card"
    number: str


class _Cash(BaseModel):
    method: Literal["cash"] = "cash"
    amount: float


_Payment = Annotated[Union[_Card, _Cash], Field(discriminator="method")]  # noqa: UP007


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return schema.get("oneOf") or schema["anyOf"]


def test_a_defaulted_tag_of_a_discriminated_union_is_required_in_every_branch_it_is_needed() -> None:
    @tool
    def pay(payment: _Payment, fallback: _Card | None = None) -> str:
        """Pay an order.

        Args:
            payment: how to pay
            fallback: a card to use when the payment fails
        """
        return repr(payment)

    props = pay.parameters["properties"]
    for branch in _branches(props["payment"]):
        assert "method" in branch["required"]
    assert [b["required"] for b in _branches(props["payment"])] == [["method", "number"], ["method", "amount"]]
    card = next(b for b in _branches(props["fallback"]) if b.get("type") == "object")
    assert card["required"] == ["number"]  # the same class outside the union: its tag stays optional
    lowered = convert_to_openai_tool(pay)["function"]["parameters"]["properties"]["payment"]
    assert all("method" in b["required"] for b in _branches(lowered))
    assert pay.invoke({"payment": {"method": "cash", "amount": 5}}) == "_Cash(method='cash', amount=5.0)"
    with pytest.raises(ToolValidationError, match="Unable to extract tag"):  # (what the schema now says)
        pay.invoke({"payment": {"number": "4111"}})


class _PayArgs(BaseModel):
    payment: _Payment


def test_a_defaulted_tag_is_required_in_an_args_schema_too() -> None:
    @tool(args_schema=_PayArgs)
    def pay(payment: _Card | _Cash) -> str:
        """Pay an order."""
        return repr(payment)

    assert all("method" in b["required"] for b in _branches(pay.parameters["properties"]["payment"]))


# -- #3: a plain union of models: after its nulls are dropped, the function gets the member the model filled in -----

class _A(BaseModel):
    x: int
    y: int = 0


class _B(BaseModel):
    x: int
    z: str = "q"


def test_a_strict_mode_null_for_a_key_only_one_member_has_keeps_that_member() -> None:
    @tool
    def ab(v: _A | _B, vs: list[_A | _B] | None = None) -> str:
        """Take an A or a B.

        Args:
            v: an A or a B
            vs: more of them
        """
        return repr((v, v.model_fields_set, vs))

    assert ab.invoke({"v": {"x": 1, "z": None}}) == repr((_B(x=1), {"x", "z"}, None))
    assert ab.invoke({"v": {"x": 1, "z": "r"}}) == repr((_B(x=1, z="r"), {"x", "z"}, None))
    assert ab.invoke({"v": {"x": 1, "y": None}}).startswith("(A(x=1, y=0)".replace("A", "_A"))
    assert ab.invoke({"v": {"x": 1}}) == repr((_A(x=1), {"x"}, None))  # (no null: nothing is filled in)
    out = ab.invoke({"v": {"x": 1, "y": 2}, "vs": [{"x": 2, "z": None}, {"x": 3, "y": None}, {"x": 4}]})
    assert out == repr((_A(x=1, y=2), {"x", "y"}, [_B(x=2), _A(x=3), _A(x=4)]))


# -- #5: a nested model with a before/wrap model validator still refuses unknown keys -----------------------------

class _Booking(BaseModel):
    room: str
    guests: int = 1

    @model_validator(mode="before")
    @classmethod
    def _strip_room(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("room"), str):
            data = {**data, "room": data["room"].strip()}
        return data


class _WrappedBooking(BaseModel):
    room: str
    guests: int = 1

    @model_validator(mode="wrap")
    @classmethod
    def _logged(cls, data: Any, handler: Any) -> Any:
        return handler(data)


class _LegacyBooking(BaseModel):
    """Takes the old key ``num_guests`` for ``guests``."""

    room: str
    guests: int = 1

    @model_validator(mode="before")
    @classmethod
    def _old_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "num_guests" in data:
            data = {**data}
            data["guests"] = data.pop("num_guests")
        return data


class _LenientBooking(_Booking):
    model_config = ConfigDict(extra="ignore")


def _refuses_unknown_keys(model: type[BaseModel]) -> None:
    @tool
    def book(booking: model) -> str:  # type: ignore[valid-type]
        """Book a room.

        Args:
            booking: what to book
        """
        return f"{booking.room} for {booking.guests}"

    assert book.parameters["properties"]["booking"]["additionalProperties"] is False
    with pytest.raises(ToolValidationError, match=r"'booking\.num_guests' is not an allowed field"):
        book.invoke({"booking": {"room": " Suite 5", "num_guests": 4}})
    assert book.invoke({"booking": {"room": "Suite 5", "guests": 4}}) == "Suite 5 for 4"


def test_a_nested_model_with_a_before_validator_refuses_unknown_keys() -> None:
    _refuses_unknown_keys(_Booking)


def test_guard_a_nested_model_with_a_wrap_validator_refuses_unknown_keys() -> None:
    """Guards existing behaviour (it passed before review 124 #5's fix too, review 127 #7): pydantic puts a
    ``mode="wrap"`` model validator outside the model node, whose fields node was already closed."""
    _refuses_unknown_keys(_WrappedBooking)


def test_a_before_validator_that_maps_an_old_key_still_works_and_extra_ignore_is_kept() -> None:
    @tool
    def book(booking: _LegacyBooking, other: _LenientBooking | None = None) -> str:
        """Book a room.

        Args:
            booking: what to book
            other: a second room
        """
        return f"{booking.room} for {booking.guests}; {other}"

    assert book.invoke({"booking": {"room": "Suite 5", "num_guests": 4}}) == "Suite 5 for 4; None"
    with pytest.raises(ToolValidationError, match=r"'booking\.guest' is not an allowed field"):
        book.invoke({"booking": {"room": "Suite 5", "guest": 4}})
    out = book.invoke({"booking": {"room": "A"}, "other": {"room": "B", "num_guests": 2}})
    assert out == "A for 1; room='B' guests=1"


# -- #8: a nested class's fields are described from its docstring and Annotated text -------------------------------

class _Loc(BaseModel):
    """A place on Earth, in WGS84.

    Attributes:
        lat: latitude in degrees, -90 to 90
        lon: longitude in degrees, -180 to 180
    """

    lat: float
    lon: float = Field(0.0, description="longitude, east of Greenwich")


@dataclasses.dataclass
class _Named:
    name: Annotated[str, "the name"]


@pydantic.dataclasses.dataclass
class _PydanticNamed:
    name: Annotated[str, "the name"]


class _ModelNamed(BaseModel):
    name: Annotated[str, "the name"]
    nick: Annotated[str, "the nickname"] = Field("", description="what friends say")


def test_a_documented_nested_model_keeps_its_fields_described_by_its_attributes_section() -> None:
    @tool
    def go(loc: _Loc, back: _Loc | None = None) -> str:
        """Go somewhere.

        Args:
            loc: where to go
            back: where to come back to
        """
        return repr(loc)

    @tool
    def go_bare(loc: _Loc) -> str:
        """Go somewhere."""
        return repr(loc)

    loc = go.parameters["properties"]["loc"]
    assert loc["description"] == (  # (the parameter's text, then the class's: review 175 #6; it replaced it before)
        "where to go.\n\nA place on Earth, in WGS84.\n\nAttributes:\n    lon: longitude in degrees, -180 to 180")
    assert loc["properties"]["lat"]["description"] == "latitude in degrees, -90 to 90"
    assert loc["properties"]["lon"]["description"] == "longitude, east of Greenwich"  # (its Field's wins)
    back = next(b for b in go.parameters["properties"]["back"]["anyOf"] if b.get("type") == "object")
    assert back["properties"]["lat"]["description"] == "latitude in degrees, -90 to 90"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bare = go_bare.parameters["properties"]["loc"]
    # (lat's entry is in its field now; lon's, not moved as lon has a description of its own, stays: review 127 #5)
    assert bare["description"] == (
        "A place on Earth, in WGS84.\n\nAttributes:\n    lon: longitude in degrees, -180 to 180")
    assert bare["properties"]["lat"]["description"] == "latitude in degrees, -90 to 90"


def test_annotated_text_describes_a_field_of_a_dataclass_or_a_pydantic_model() -> None:
    @tool
    def f(d: _Named, pd: _PydanticNamed, m: _ModelNamed) -> str:
        """F.

        Args:
            d: d
            pd: pd
            m: m
        """
        return "x"

    props = f.parameters["properties"]
    for name in ("d", "pd", "m"):
        assert props[name]["properties"]["name"]["description"] == "the name"
    assert props["m"]["properties"]["nick"]["description"] == "what friends say"
