"""Review 294 #1: arguments published under a key validation does not read (the tests below failed before the fix).

A parameter or a nested model's field with a multi-step ``validation_alias=AliasPath("names", 0)`` was published
under its Python name (``first``), a key ``invoke`` refuses ("'names.0' is required but missing; 'first' is not a
parameter ... Its parameters are: first"): every call a model made under the schema was refused. It is now
refused at decoration with a :class:`SchemaError` saying what to do (a one-step key, or ``AliasChoices`` with a
plain key first); with ``populate_by_name`` (validation reads the name too) it is published under its name as
before. A one-step ``AliasPath("x")``, which pydantic's JSON Schema also wrote under the name, is published as
``x``, the key validation reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import pytest
from pydantic import AliasChoices, AliasPath, BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from toolwire import Tool, tool
from toolwire.errors import SchemaError
from toolwire.messages import tool_call
from toolwire.models.lowering.openai import convert_to_openai_tool


def _call(t: Tool, args: dict) -> tuple[str, str]:
    result = t.invoke({"type": "tool_call", "id": "1", "name": t.name, "args": args})
    return result.status, result.content


# -- 1: a multi-step AliasPath is refused at decoration, a one-step one published under its key ---------------------


def test_parameter_with_a_multi_step_alias_path_is_refused_at_decoration() -> None:
    with pytest.raises(SchemaError) as caught:
        @tool
        def find(first: Annotated[str, Field(validation_alias=AliasPath("names", 0))]) -> str:
            """Find."""
            return first
    text = str(caught.value)
    assert "parameter 'first'" in text.lower()
    assert "AliasPath('names', 0)" in text
    assert "AliasChoices('first', AliasPath('names', 0))" in text
    assert text.count(". ") == 0 and text.endswith(".")  # (one sentence)


def test_nested_field_with_a_multi_step_alias_path_is_refused_at_decoration() -> None:
    class Q(BaseModel):
        first: str = Field(validation_alias=AliasPath("names", 0))
        size: int = Field(1, validation_alias=AliasChoices("size", "n"))

    with pytest.raises(SchemaError, match=r"field 'first' of Q: .*AliasPath\('names', 0\)"):
        @tool
        def find(q: Q) -> str:
            """Find."""
            return repr(q)

    with pytest.raises(SchemaError, match=r"field 'first' of Q"):  # (as an args_schema too)
        Tool.from_function(lambda **kw: "x", name="find2", description="Find.", args_schema=Q)


@pytest.mark.parametrize("kind", ["typeddict", "dataclass", "choices"])
def test_other_multi_step_alias_paths_are_refused(kind: str) -> None:
    if kind == "typeddict":
        class TD(TypedDict):
            first: Annotated[str, Field(validation_alias=AliasPath("a", "b"))]
        annotation: object = TD
    elif kind == "dataclass":
        @dataclass
        class DC:
            first: Annotated[str, Field(validation_alias=AliasPath("a", 1))]
        annotation = DC
    else:
        class M(BaseModel):
            first: str = Field(validation_alias=AliasChoices(AliasPath("a", 0), AliasPath("b", 0)))
        annotation = M

    def find(q):  # type: ignore[no-untyped-def]
        """Find."""
        return repr(q)

    find.__annotations__ = {"q": annotation, "return": str}
    with pytest.raises(SchemaError, match=r"field 'first' of (TD|DC|M): "):
        tool(find)


def test_multi_step_alias_path_with_populate_by_name_is_published_under_its_name() -> None:
    class Q(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        first: str = Field(validation_alias=AliasPath("names", 0))

    @tool
    def find(q: Q) -> str:
        """Find."""
        return q.first

    assert list(find.spec.parameters["properties"]["q"]["properties"]) == ["first"]
    assert _call(find, {"q": {"first": "a"}}) == ("success", "a")


def test_one_step_alias_paths_and_choices_keep_working() -> None:
    class R(BaseModel):
        a: str = Field(validation_alias=AliasPath("x"))
        b: str = Field(validation_alias=AliasChoices(AliasPath("n", 0), "bb"))
        c: int = Field(0, validation_alias=AliasChoices(AliasPath("cc")))

    @tool
    def find(r: R, y: Annotated[int, Field(validation_alias=AliasPath("why"))],
             n: Annotated[int, Field(validation_alias=AliasChoices("count", AliasPath("num", 0)))] = 1) -> str:
        """Find."""
        return repr((r.a, r.b, r.c, y, n))

    props = find.spec.parameters["properties"]
    assert list(props) == ["r", "why", "count"]
    assert list(props["r"]["properties"]) == ["x", "bb", "cc"]
    assert find.spec.parameters["required"] == ["r", "why"]
    assert props["r"]["required"] == ["x", "bb"]
    assert _call(find, {"r": {"x": "1", "bb": "2", "cc": 3}, "why": 4, "count": 5}) == (
        "success", "('1', '2', 3, 4, 5)")
    assert _call(find, {"r": {"x": "1", "bb": "2"}, "why": 4}) == ("success", "('1', '2', 0, 4, 1)")


def test_one_step_alias_path_default_and_text_are_under_its_key() -> None:
    class R(BaseModel):
        a: Annotated[str, "The a."] = Field("d", validation_alias=AliasPath("x"))

    @tool
    def find(r: R = R(x="1")) -> str:  # type: ignore[call-arg]  # noqa: B008
        """Find."""
        return r.a

    prop = find.spec.parameters["properties"]["r"]
    assert prop["default"] == {"x": "1"}
    assert prop["properties"]["x"] == {"default": "d", "description": "The a.", "type": "string"}
    assert _call(find, {"r": prop["default"]}) == ("success", "1")


def test_multi_step_alias_path_not_read_by_alias_or_injected_is_left_alone() -> None:
    from langchain_core.tools import InjectedToolArg

    class V(BaseModel):
        model_config = ConfigDict(validate_by_alias=False, validate_by_name=True)
        first: str = Field(validation_alias=AliasPath("names", 0))

    @tool
    def find(v: V) -> str:
        """Find."""
        return v.first

    assert _call(find, {"v": {"first": "a"}}) == ("success", "a")

    class Args(BaseModel):
        x: int
        state: Annotated[str, InjectedToolArg] = Field("kept", validation_alias=AliasPath("ctx", "state"))

    def echo(x: int, state: str) -> str:
        """Echo."""
        return f"{x} {state}"

    echo_tool = Tool.from_function(echo, args_schema=Args)
    assert list(echo_tool.spec.parameters["properties"]) == ["x"]
    assert _call(echo_tool, {"x": 1}) == ("success", "1 kept")


def test_a_parameter_with_a_one_step_alias_path_shows_its_default_under_its_key() -> None:
    @tool
    def explain(q: str, reason: Annotated[str, Field(validation_alias=AliasPath("why"))] = "none") -> str:
        """Explain."""
        return f"{q}/{reason}"

    shown = explain.spec.parameters["properties"]
    assert shown["why"].get("default") == "none" and "reason" not in shown
    assert explain.invoke({"q": "a", "why": "b"}) == "a/b" and explain.invoke({"q": "a"}) == "a/none"
    strict = convert_to_openai_tool(explain, strict=True)["function"]["parameters"]
    assert strict["required"] == ["q", "why"]
    assert explain.invoke(tool_call("explain", {"q": "a", "why": None}, "c1")).content == "a/none"  # (strict's null)
