"""Review 242: #8 an injected key of ``**kwargs: Unpack[TypedDict]`` is neither published nor taken from a call;
#6 a default holding a non-finite number anywhere (a float in an instance, a dict key) is not published; #9
``Unpack`` of a parametrised generic TypedDict; #2 and #10 a tagged union's error names the mistake of the member
the tag picks, for a defaulted tag, a tag of several values, a non-object member, and members sharing a name."""

from __future__ import annotations

import json
from typing import Annotated, Generic, Literal, NotRequired, TypeVar

import pytest
from langchain_core.tools import InjectedToolArg, InjectedToolCallId
from pydantic import BaseModel, Field, model_validator
from typing_extensions import TypedDict, Unpack

from toolwire import Tool
from toolwire.errors import SchemaError


def _call(t: Tool, args: dict, call_id: str = "call_1") -> str:
    return str(t.invoke({"type": "tool_call", "name": t.name, "id": call_id, "args": args}).content)


# ------------------------------------------------------------------ #8: injected keys of Unpack[TD]


class _Opts(TypedDict):
    city: str
    tool_call_id: Annotated[str, InjectedToolCallId]
    user_id: NotRequired[Annotated[str, InjectedToolArg]]


def _weather(**kwargs: Unpack[_Opts]) -> str:
    """Weather."""
    return json.dumps(kwargs, sort_keys=True)


def test_injected_unpack_keys_are_not_published() -> None:
    t = Tool.from_function(_weather)
    assert list(t.spec.parameters["properties"]) == ["city"]
    assert t.spec.parameters.get("required") == ["city"]


def test_injected_unpack_keys_are_filled_not_taken_from_the_call() -> None:
    t = Tool.from_function(_weather)
    assert json.loads(_call(t, {"city": "Rome"})) == {"city": "Rome", "tool_call_id": "call_1"}
    out = _call(t, {"city": "Rome", "tool_call_id": "made-up", "user_id": "admin"})
    assert out.startswith("Error:")
    assert "'tool_call_id' is not an argument a call may set" in out
    assert "'user_id' is not an argument a call may set" in out
    assert "InjectedToolArg" in out and "InjectedToolCallId" in out


def test_injected_unpack_key_outside_a_call() -> None:
    class Quiet(TypedDict):
        city: str
        tool_call_id: NotRequired[Annotated[str, InjectedToolCallId]]

    def quiet(**kw: Unpack[Quiet]) -> str:
        """Quiet."""
        return json.dumps(kw, sort_keys=True)

    t = Tool.from_function(quiet)
    assert list(t.spec.parameters["properties"]) == ["city"]
    assert json.loads(t.invoke({"city": "Oslo"})) == {"city": "Oslo"}  # (no call: a NotRequired key is not passed)
    assert json.loads(_call(t, {"city": "Oslo"}, "c9")) == {"city": "Oslo", "tool_call_id": "c9"}


def test_required_injected_arg_key_is_refused() -> None:
    class Needs(TypedDict):
        city: str
        user_id: Annotated[str, InjectedToolArg]

    def needs(**kw: Unpack[Needs]) -> str:
        """Needs."""
        return ""

    with pytest.raises(SchemaError, match=r"'user_id'.*InjectedToolArg.*NotRequired"):
        Tool.from_function(needs)


# ------------------------------------------------------------------ #6: non-finite numbers anywhere in a default


def test_non_finite_inside_instances_and_dict_keys_is_not_published() -> None:
    import dataclasses
    import math
    from decimal import Decimal

    from pydantic import BaseModel

    class Limits(BaseModel):
        ceiling: float = 1.0

    @dataclasses.dataclass
    class Range:
        high: float = 1.0

    def scan(limits: Limits = Limits(ceiling=math.inf)) -> str:  # noqa: B008
        """Scan."""
        return repr(limits)

    def span(r: Range = Range(high=math.nan)) -> str:  # noqa: B008
        """Span."""
        return repr(r)

    def weights(w: dict[Decimal, int] = {Decimal("NaN"): 1}) -> str:  # noqa: B006
        """Weights."""
        return repr(w)

    def buckets(b: dict[float, int] = {math.inf: 1}) -> str:  # noqa: B006
        """Buckets."""
        return repr(b)

    def nested(b: list[dict[float, int]] = [{-math.inf: 1}]) -> str:  # noqa: B006
        """Nested."""
        return repr(b)

    for f in (scan, span, weights, buckets, nested):
        t = Tool.from_function(f)
        (prop,) = t.spec.parameters["properties"].values()
        assert "default" not in prop, (f.__name__, prop)
        json.dumps(t.spec.parameters, allow_nan=False)
    assert _call(Tool.from_function(scan), {}) == "Limits(ceiling=inf)"


class _Inner(TypedDict):
    x: float


def test_finite_instance_defaults_are_still_published() -> None:
    import dataclasses

    from pydantic import BaseModel

    class Limits(BaseModel):
        ceiling: float | None = 1.0

    @dataclasses.dataclass
    class Range:
        high: float = 2.5

    def scan(limits: Limits = Limits(ceiling=None), r: Range = Range(), w: dict[float, int] = {1.5: 1}) -> str:  # noqa: B006, B008
        """Scan."""
        return ""

    props = Tool.from_function(scan).spec.parameters["properties"]
    assert props["limits"]["default"] == {"ceiling": None}
    assert props["r"]["default"] == {"high": 2.5}
    assert props["w"]["default"] == {"1.5": 1}


def test_nested_model_field_default_instance_with_inf_is_not_published() -> None:
    import math

    from pydantic import BaseModel

    class Limits(BaseModel):
        ceiling: float = 1.0

    class Query(BaseModel):
        limits: Limits = Limits(ceiling=math.inf)
        text: str

    def search(q: Query) -> str:
        """Search."""
        return ""

    t = Tool.from_function(search)
    text = json.dumps(t.spec.parameters, allow_nan=False)
    assert '"ceiling": null' not in text
    assert "default" not in t.spec.parameters["properties"]["q"]["properties"]["limits"]


def test_injected_unpack_key_on_the_general_path_and_with_a_partial() -> None:
    import functools

    class Opts(TypedDict):
        city: Annotated[str, Field(min_length=1, description="The city.")]
        user_id: NotRequired[Annotated[str, InjectedToolArg]]

    def weather(**kw: Unpack[Opts]) -> str:
        """Weather."""
        return json.dumps(kw, sort_keys=True)

    t = Tool.from_function(weather)
    assert list(t.spec.parameters["properties"]) == ["city"]
    out = _call(t, {"city": "Rome", "user_id": "admin"})
    assert "'user_id' is not an argument a call may set" in out and "(the key is not passed)" in out
    assert json.loads(_call(t, {"city": "Rome"})) == {"city": "Rome"}
    bound = Tool.from_function(functools.partial(weather, user_id="me"), name="weather")
    assert list(bound.spec.parameters["properties"]) == ["city"]
    assert json.loads(_call(bound, {"city": "Rome"})) == {"city": "Rome", "user_id": "me"}
    assert _call(bound, {"city": "Rome", "user_id": "admin"}).startswith("Error:")


# ------------------------------------------------------------------ #9: Unpack of a parametrised generic TypedDict

_T = TypeVar("_T")


class _Generic(TypedDict, Generic[_T]):
    value: _T
    many: NotRequired[list[_T]]
    note: str


def _gen(**kw: Unpack[_Generic[int]]) -> str:
    """Generic."""
    return repr(sorted(kw.items()))


def test_unpack_of_a_parametrised_generic_typeddict() -> None:
    t = Tool.from_function(_gen)
    props = t.spec.parameters["properties"]
    assert props["value"] == {"type": "integer"}
    assert props["many"]["items"] == {"type": "integer"}
    assert sorted(t.spec.parameters["required"]) == ["note", "value"]
    assert _call(t, {"value": "3", "note": "n"}) == "[('note', 'n'), ('value', 3)]"
    assert _call(t, {"value": "x", "note": "n"}).startswith("Error:")


# ------------------------------------------------------------------ #2, #10: tagged unions of other shapes


class _AddD(BaseModel):
    op: Literal["add"] = "add"
    text: str


class _DeleteD(BaseModel):
    op: Literal["delete"] = "delete"
    id: int


class _Add2(BaseModel):
    op: Literal["add", "append"]
    text: str


class _Delete2(BaseModel):
    op: Literal["delete"]
    id: int


class _Add(BaseModel):
    op: Literal["add"]
    text: str


class _Delete(BaseModel):
    op: Literal["delete"]
    id: int


def _edit_defaulted(step: _AddD | _DeleteD) -> str:
    """Edit."""
    return repr(step)


def _edit_two(step: _Add2 | _Delete2) -> str:
    """Edit."""
    return repr(step)


def _edit_or_text(step: _Add | _Delete | str) -> str:
    """Edit: a step, or a free-text instruction."""
    return repr(step)


def _made(tag: str, kind: type) -> type[BaseModel]:
    class Step(BaseModel):
        op: Literal[tag]  # type: ignore[valid-type]
        v: kind  # type: ignore[valid-type]

    return Step


_NumStep, _TextStep = _made("num", int), _made("txt", str)


def _run(step: _NumStep | _TextStep) -> str:  # type: ignore[valid-type]
    """Run a step."""
    return repr(step)


def _error(f: object, step: object) -> str:
    out = _call(Tool.from_function(f, name="edit"), {"step": step})
    assert out.startswith("Error: Invalid arguments for tool 'edit': "), out
    return out.split(": ", 2)[2]


def test_defaulted_tag_picks_the_member() -> None:
    assert _error(_edit_defaulted, {"op": "add", "text": "x", "id": 3}) == (
        "with op \"add\": 'step.id' is not an allowed field of 'step' (got 3). The fields of 'step' are: op, text.")
    assert _error(_edit_defaulted, {"op": "delete", "id": "seven"}) == (
        "with op \"delete\": 'step.id': Input should be a valid integer, unable to parse string as an integer "
        "(got 'seven').")
    assert _error(_edit_defaulted, {"op": "move"}).startswith("'step.op': Input should be 'add'")


def test_tag_of_several_values_picks_the_member() -> None:
    assert _error(_edit_two, {"op": "delete", "id": "seven"}) == (
        "with op \"delete\": 'step.id': Input should be a valid integer, unable to parse string as an integer "
        "(got 'seven').")
    assert _error(_edit_two, {"op": "append", "id": 3}).startswith("with op \"append\": 'step.text' is required")
    assert "'delete'" not in _error(_edit_two, {"op": "append", "id": 3})


def test_union_with_a_non_object_member() -> None:
    assert _error(_edit_or_text, {"op": "delete", "id": "seven"}) == (
        "with op \"delete\": 'step.id': Input should be a valid integer, unable to parse string as an integer "
        "(got 'seven').")


def test_members_sharing_a_class_name() -> None:
    text = _error(_run, {"op": "txt", "v": "hello", "extra": 1})
    assert text.startswith("with op \"txt\": 'step.extra' is not an allowed field"), text
    assert "integer" not in text and "'num'" not in text
    text = _error(_run, {"op": "num", "v": "hello"})
    assert text.startswith("with op \"num\": 'step.v': Input should be a valid integer"), text
    assert "'txt'" not in text


def test_members_sharing_a_name_are_told_apart_by_the_tag_or_get_every_error() -> None:
    def made(tag: str, kind: type) -> type[BaseModel]:
        class Step(BaseModel):
            op: Literal[tag]  # type: ignore[valid-type]
            v: kind  # type: ignore[valid-type]

        return Step

    num, txt, lst = made("num", int), made("txt", str), made("lst", list)

    def run(step: num | txt | lst) -> str:  # type: ignore[valid-type]
        """Run."""
        return ""

    # num's errors [op] and txt's [v] follow each other under one name: the tag tells them apart, since only lst
    # can end with [op, v] (review 247 #4; it was every error)
    text = _error(run, {"op": "txt", "v": 3})
    assert text.startswith("with op \"txt\": 'step.v': Input should be a valid string"), text
    assert "'num'" not in text and "valid list" not in text, text

    def fields(tag: str, **kinds: type) -> type[BaseModel]:
        return type("Step", (BaseModel,), {"__annotations__": {"op": Literal[tag], **kinds}})  # type: ignore[misc]

    first, second, third = fields("a", v=int, w=str), fields("b", w=int, v=str), fields("c", v=int, x=list[int])

    def runs(step: first | second | third) -> str:  # type: ignore[valid-type]
        """Run."""
        return ""

    # a's [op, v, w], b's [op, w] and c's [v, x]: b's errors could end before v or after it; no member is picked
    # on a guess
    text = _error(runs, {"op": "c", "v": "s"})
    assert "with op" not in text and "'step.x' is required" in text, text


class _Checked(BaseModel):
    op: Literal["check"]
    n: int

    @model_validator(mode="after")
    def _positive(self) -> _Checked:
        if self.n < 0:
            raise ValueError("n must not be negative")
        return self


def _check(step: _Checked | _Delete) -> str:
    """Check."""
    return repr(step)


def test_picked_member_failing_its_own_check() -> None:
    text = _error(_check, {"op": "check", "n": -1})
    assert text.startswith("with op \"check\": 'step': Value error, n must not be negative"), text
    assert "'delete'" not in text
