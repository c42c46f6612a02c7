"""Review 237: #1 the error for a union of models told apart by a ``Literal`` tag names the mistake of the member the
tag picks; #2 ``**kwargs: Unpack[TypedDict]`` (PEP 692); #3 a non-finite ``Decimal`` default is left out of the
schema."""

from __future__ import annotations

import dataclasses
import decimal
import functools
import warnings
from typing import Annotated, Any, Literal, NotRequired, Required, Union

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict, Unpack

from toolwire import Tool, tool
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


# ------------------------------------------------------------------ #3: a non-finite Decimal default


@dataclasses.dataclass
class _Price:
    amount: decimal.Decimal
    currency: str = "EUR"


def _priced(amount: decimal.Decimal = decimal.Decimal("NaN"), cap: decimal.Decimal = decimal.Decimal("-Infinity"),
            steps: tuple[decimal.Decimal, ...] = (decimal.Decimal(1), decimal.Decimal("Infinity")),
            base: _Price = _Price(decimal.Decimal("sNaN")),  # noqa: B008
            fee: decimal.Decimal = decimal.Decimal("1.50"), price: _Price = _Price(decimal.Decimal(2), "NaN")) -> str:  # noqa: B008
    """Price something.

    Args:
        amount: the amount, NaN when unknown.
        cap: the lowest price.
        steps: the price steps.
        base: the base price.
        fee: the fee.
        price: the price.
    """
    return f"{amount} {cap} {steps} {base.amount} {fee} {price.amount}"


def test_a_non_finite_decimal_default_is_left_out_of_the_schema() -> None:
    made = Tool.from_function(_priced)
    props = made.parameters["properties"]
    for name in ("amount", "cap", "steps", "base"):
        assert "default" not in props[name], (name, props[name])
    assert props["fee"]["default"] == "1.50"  # a finite one is still published
    assert props["price"]["default"] == {"amount": "2", "currency": "NaN"}  # (a text "NaN" is no number)
    assert "required" not in made.parameters
    assert made.invoke({}) == "NaN -Infinity (Decimal('1'), Decimal('Infinity')) sNaN 1.50 2"


class _Quote(BaseModel):
    """A quote."""

    amount: decimal.Decimal = decimal.Decimal("NaN")
    floor: decimal.Decimal = decimal.Decimal("0.5")


def test_a_non_finite_decimal_default_of_a_model_field_is_left_out_too() -> None:
    def quote(q: _Quote) -> str:
        """Quote."""
        return f"{q.amount} {q.floor}"

    made = Tool.from_function(quote)
    fields = made.parameters["properties"]["q"]["properties"]
    assert "default" not in fields["amount"] and fields["floor"]["default"] == "0.5"
    assert made.invoke({"q": {}}) == "NaN 0.5"

    @tool(args_schema=_Quote)
    def quote2(amount: decimal.Decimal, floor: decimal.Decimal) -> str:
        """Quote."""
        return f"{amount} {floor}"

    props = quote2.parameters["properties"]
    assert "default" not in props["amount"] and props["floor"]["default"] == "0.5"
    assert quote2.invoke({}) == "NaN 0.5"
