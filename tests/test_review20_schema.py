"""Schema fixes from review 20: unknown keys in nested pydantic models are refused (and the schema says so),
an unknown nested key is named as a field of its object, a docstring with no summary line, non-finite floats,
and ``Iterable[...]`` parameters validated up front."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from pydantic.dataclasses import dataclass as pydantic_dataclass
from typing_extensions import TypedDict

import toolwire.schema as schema_mod
from toolwire import Tool, tool
from toolwire.errors import SchemaError, ToolValidationError
from toolwire.schema import function_schema


def general_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make function_schema take pydantic's general path (the fast path refuses everything)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise schema_mod.Unsupported

    monkeypatch.setattr(schema_mod, "fast_function_schema", refuse)


def call(t: Tool, args: dict[str, Any]) -> Any:
    """``t.invoke`` with a tool call, as an agent runs it: the ToolMessage."""
    return t.invoke({"name": t.name, "args": args, "id": "c1", "type": "tool_call"})


# -- A: a nested pydantic model with pydantic's default ``extra`` refuses unknown keys ---------------------


class Addr(BaseModel):
    street: str
    city: str = "Paris"


class TAddr(TypedDict, total=False):
    street: str


class Holder(BaseModel):
    t: TAddr


class AllowAddr(BaseModel):
    model_config = ConfigDict(extra="allow")
    street: str


class IgnoreAddr(BaseModel):
    model_config = ConfigDict(extra="ignore")
    street: str


class Order(BaseModel):
    """An order."""

    addr: Addr
    more: list[Addr] = []


def _ship() -> Tool:
    @tool
    def ship(addr: Addr, others: list[Addr] | None = None) -> str:
        """Ship."""
        return f"{type(addr).__name__}:{addr!r}:{others!r}"

    return ship


@pytest.mark.parametrize("path", ["fast", "general"])
def test_a_misspelled_field_of_a_nested_model_is_refused(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "general":
        general_only(monkeypatch)
    ship = _ship()
    with pytest.raises(ToolValidationError, match=r"'addr\.citty' is not an allowed field of 'addr'"):
        ship.invoke({"addr": {"street": "s", "citty": "Lyon"}})
    with pytest.raises(ToolValidationError, match=r"'others\.0\.zip'"):
        ship.invoke({"addr": {"street": "s"}, "others": [{"street": "t", "zip": 1}]})
    message = call(ship, {"addr": {"street": "s", "citty": "Lyon"}})
    assert message.status == "error" and "citty" in message.content
    # a valid call still gets the user's own class, not a copy of it
    assert ship.invoke({"addr": {"street": "s", "city": "Lyon"}}) == "Addr:Addr(street='s', city='Lyon'):None"


@pytest.mark.parametrize("path", ["fast", "general"])
def test_the_schema_of_a_nested_model_says_no_other_keys(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "general":
        general_only(monkeypatch)
    props = _ship().parameters["properties"]
    assert props["addr"]["additionalProperties"] is False
    assert props["others"]["anyOf"][0]["items"]["additionalProperties"] is False


def test_args_schema_nested_models_refuse_unknown_keys_too() -> None:
    def place(**kwargs: Any) -> str:
        return repr(kwargs)

    t = Tool.from_function(place, args_schema=Order)
    with pytest.raises(ToolValidationError, match=r"'addr\.citty' is not an allowed field of 'addr'"):
        t.invoke({"addr": {"street": "s", "citty": "Lyon"}})
    with pytest.raises(ToolValidationError, match=r"'more\.0\.x'"):
        t.invoke({"addr": {"street": "s"}, "more": [{"street": "s", "x": 1}]})
    assert t.parameters["properties"]["addr"]["additionalProperties"] is False
    out = t.invoke({"addr": {"street": "s"}})
    assert out == "{'addr': Addr(street='s', city='Paris'), 'more': []}"


def test_a_typeddict_inside_a_default_model_refuses_unknown_keys() -> None:
    @tool
    def keep(h: Holder) -> str:
        """Keep."""
        return repr(h)

    with pytest.raises(ToolValidationError, match=r"'h\.t\.citty'"):
        keep.invoke({"h": {"t": {"citty": "L"}}})
    assert keep.parameters["properties"]["h"]["properties"]["t"]["additionalProperties"] is False


def test_an_explicit_extra_setting_of_the_users_model_is_kept() -> None:
    @tool
    def ship(a: AllowAddr, i: IgnoreAddr) -> str:
        """Ship."""
        return f"{a.model_extra}|{i!r}"

    assert ship.invoke({"a": {"street": "s", "zz": 1}, "i": {"street": "s", "zz": 1}}) == \
        "{'zz': 1}|IgnoreAddr(street='s')"
    props = ship.parameters["properties"]
    assert props["a"].get("additionalProperties") is True
    assert "additionalProperties" not in props["i"]


# -- B: an unknown nested key is named as a field of its object, not as a parameter -------------------------


def test_an_unknown_nested_key_is_not_called_a_parameter_of_the_tool() -> None:
    @tool
    def ship(t: TAddr) -> str:
        """Ship."""
        return "x"

    content = call(ship, {"t": {"citty": "L"}}).content
    assert "Invalid arguments for tool 'ship': 't.citty' is not an allowed field of 't' (got 'L'). " \
        "The fields of 't' are: street." in content
    assert "not a parameter" not in content and "Its parameters are" not in content
    # a top-level unknown key keeps its message
    content = call(ship, {"t": {}, "zz": 1}).content
    assert "'zz' is not a parameter of this tool (got 1)" in content and "Its parameters are: t." in content


@dataclasses.dataclass
class Point:
    x: int


def test_an_unknown_key_in_a_nested_dataclass_is_named_as_a_field_too() -> None:
    @tool
    def move(p: Point) -> str:
        """Move."""
        return "x"

    content = call(move, {"p": {"x": 1, "y": 2}}).content
    assert "'p.y' is not an allowed field of 'p' (got 2). The fields of 'p' are: x." in content


# -- C: a docstring that starts with its Args section ------------------------------------------------------


def nodesc(city: str) -> str:
    """Args:
        city: The city.
    """
    return city


def test_a_docstring_without_a_summary_line_gives_parameter_descriptions_and_no_description() -> None:
    schema = function_schema(nodesc, "nodesc")
    assert schema.description == ""
    assert schema.parameters["properties"]["city"] == {"type": "string", "description": "The city."}
    with pytest.raises(SchemaError, match="has no description"):  # as for a function with no docstring
        tool(nodesc)
    t = tool(description="Get the city.")(nodesc)
    assert t.description == "Get the city."
    assert t.parameters["properties"]["city"]["description"] == "The city."


def test_a_docstring_starting_with_args_and_other_sections_still_reads_both() -> None:
    def two(city: str, n: int) -> str:
        """Args:
            city: The city.
            n: How many.

        Returns:
            The weather.
        """
        return city

    schema = function_schema(two, "two")
    assert schema.description == ""
    assert {k: v["description"] for k, v in schema.parameters["properties"].items()} == \
        {"city": "The city.", "n": "How many."}


# -- D: non-finite numbers for a float --------------------------------------------------------------------


class Reading(BaseModel):
    value: float


@pytest.mark.parametrize("path", ["fast", "general"])
@pytest.mark.parametrize("bad", ["NaN", "inf", "-Infinity", float("nan"), float("inf")])
def test_a_float_parameter_refuses_nan_and_infinity(bad: Any, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "general":
        general_only(monkeypatch)

    @tool
    def scale(x: float, xs: list[float] = [], r: Reading | None = None) -> str:  # noqa: B006
        """Scale."""
        return repr((x, xs, r))

    for args, where in (({"x": bad}, "'x'"), ({"x": 1, "xs": [1.0, bad]}, "'xs.1'"),
                        ({"x": 1, "r": {"value": bad}}, "'r.value'")):
        message = call(scale, args)
        assert message.status == "error", args
        assert f"{where}: Input should be a finite number" in message.content
    assert scale.invoke({"x": 1, "xs": ["1.5"]}) == "(1.0, [1.5], None)"


def test_an_explicit_allow_inf_nan_is_kept() -> None:
    @tool
    def limit(x: Annotated[float, Field(allow_inf_nan=True)]) -> str:
        """Limit."""
        return repr(x)

    assert limit.invoke({"x": "inf"}) == "inf"


def test_lax_integers_still_take_numeric_strings() -> None:
    @tool
    def add(n: int) -> int:
        """Add."""
        return n + 1

    assert add.invoke({"n": "5"}) == 6


# -- E: Iterable parameters are validated before the tool runs --------------------------------------------


class Batch(BaseModel):
    ids: Iterable[int]


def test_an_iterable_parameter_is_validated_up_front() -> None:
    ran = []

    @tool
    def total(xs: Iterable[int]) -> int:
        """Total."""
        ran.append(xs)
        return sum(xs)

    message = call(total, {"xs": [1, "a"]})
    assert message.status == "error" and not ran
    assert message.content.startswith("Error: Invalid arguments for tool 'total': 'xs.1': Input should be a valid "
                                      "integer")
    assert total.invoke({"xs": [1, "2"]}) == 3 and ran == [[1, 2]]  # a list, which can be read twice
    assert total.parameters["properties"]["xs"] == {"type": "array", "items": {"type": "integer"}}


def test_an_iterable_field_of_a_nested_model_is_validated_up_front() -> None:
    @tool
    def run(b: Batch) -> str:
        """Run."""
        return repr(list(b.ids))

    message = call(run, {"b": {"ids": [1, "x"]}})
    assert message.status == "error" and "'b.ids.1': Input should be a valid integer" in message.content
    assert run.invoke({"b": {"ids": [3]}}) == "[3]"


# -- the rules reach every kind of node, whatever the parameters are named ----------------------------------


class ForbidReading(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: float


@pydantic_dataclass
class PydanticPoint:
    x: int


class WithPoint(BaseModel):
    p: Point


@pytest.mark.parametrize("path", ["fast", "general"])
def test_parameters_named_like_core_schema_keys_are_still_checked(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "general":
        general_only(monkeypatch)

    @tool
    def odd(config: float, type: Addr, default: float = 0.0, metadata: Addr | None = None) -> str:
        """Odd names."""
        return "ran"

    good = {"config": 1, "type": {"street": "s"}}
    assert odd.invoke(good) == "ran"
    for bad in ({**good, "config": "nan"}, {**good, "default": "inf"}, {**good, "type": {"street": "s", "x": 1}},
                {**good, "metadata": {"street": "s", "x": 1}}):
        with pytest.raises(ToolValidationError):
            odd.invoke(bad)


def test_a_model_that_forbids_extra_keys_itself_refuses_nan_too() -> None:
    @tool
    def read(r: ForbidReading) -> str:
        """Read."""
        return repr(r)

    with pytest.raises(ToolValidationError, match=r"'r\.value': Input should be a finite number"):
        read.invoke({"r": {"value": "nan"}})
    with pytest.raises(ToolValidationError, match=r"'r\.zz' is not an allowed field of 'r'"):
        read.invoke({"r": {"value": 1, "zz": 1}})
    # the user's classes are left as they were: complete, and validating as before on their own
    assert ForbidReading.__pydantic_complete__ is True and Addr.__pydantic_complete__ is True
    assert ForbidReading(value="nan").value != ForbidReading(value="nan").value  # (NaN: pydantic's own default)
    assert Addr.model_validate({"street": "s", "citty": "L"}) == Addr(street="s")


def test_dataclasses_refuse_unknown_keys_in_and_out_of_models() -> None:
    @tool
    def place(p: PydanticPoint, w: WithPoint) -> str:
        """Place."""
        return f"{p!r} {w!r}"

    assert place.invoke({"p": {"x": 1}, "w": {"p": {"x": 2}}}) == "PydanticPoint(x=1) WithPoint(p=Point(x=2))"
    with pytest.raises(ToolValidationError, match=r"'p\.y' is not an allowed field of 'p'"):
        place.invoke({"p": {"x": 1, "y": 2}, "w": {"p": {"x": 2}}})
    with pytest.raises(ToolValidationError, match=r"'w\.p\.y' is not an allowed field of 'w\.p'"):
        place.invoke({"p": {"x": 1}, "w": {"p": {"x": 2, "y": 3}}})
    props = place.parameters["properties"]
    assert props["p"]["additionalProperties"] is False
    assert props["w"]["properties"]["p"]["additionalProperties"] is False


class WithInfExamples(BaseModel):
    ratio: float = Field(1.0, examples=[0.5, float("inf")], description="a ratio")


@pytest.mark.parametrize("path", ["fast", "general"])
def test_no_inf_or_nan_reaches_the_schema_on_either_path(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "general":
        general_only(monkeypatch)

    def shops(w: WithInfExamples, limit: float = float("inf"), steps: list[float] = [float("nan")]) -> str:  # noqa: B006
        """Shops."""
        return "x"

    params = function_schema(shops, "shops").parameters
    json.dumps(params, allow_nan=False)
    assert params["properties"]["w"]["properties"]["ratio"] == {"type": "number", "default": 1.0,
                                                                 "description": "a ratio"}
    assert "default" not in params["properties"]["limit"] and "default" not in params["properties"]["steps"]
