"""Review 296 #2: a LangChain ``StructuredTool`` whose ``args_schema`` reads a field by an alias (``alias=``, a one-step
``validation_alias=AliasPath("vee")``) was published by ``from_langchain_tool`` under the field's name, LangChain's
own schema, while LangChain's check (and toolwire's) reads the alias: no call under the schema could run, and the
error called ``inner.v`` both not allowed and one of the fields. A nested model's fields are now published under the
keys validation reads (the tests below failed before the fix). :func:`lc_schema` gives the top-level keys that way too
(with the names of the fields shown) for ``from_langchain_tool`` to publish.
"""

from __future__ import annotations

import pytest
from pydantic import AliasPath, BaseModel, Field

pytest.importorskip("langchain_core")

from langchain_core.tools import StructuredTool

from toolwire import Tool
from toolwire.interop._langchain_schema import lc_schema
from toolwire.interop.langchain import from_langchain_tool


def _call(t: Tool, args: dict) -> tuple[str, str]:
    result = t.invoke({"type": "tool_call", "id": "1", "name": t.name, "args": args})
    return result.status, result.content


class Inner(BaseModel):
    v: int = Field(validation_alias=AliasPath("vee"))
    w: int = Field(0, alias="dub")


class Nested(BaseModel):
    inner: Inner
    label: str = "x"


class Top(BaseModel):
    inner: Inner
    city: str = Field(alias="town")
    zip: str = Field(validation_alias=AliasPath("postcode"))


def _lc(schema: type[BaseModel]) -> StructuredTool:
    def fn(**kw: object) -> str:
        """D."""
        return repr(sorted(kw.items()))
    return StructuredTool.from_function(fn, name="f", description="D.", args_schema=schema)


def test_nested_aliased_fields_are_published_under_the_keys_langchain_reads() -> None:
    t = from_langchain_tool(_lc(Nested))
    inner = t.spec.parameters["properties"]["inner"]
    assert list(inner["properties"]) == ["vee", "dub"]
    assert inner["required"] == ["vee"]
    status, content = _call(t, {"inner": {"vee": 1, "dub": 2}})
    assert status == "success" and "Inner(v=1, w=2)" in content


def test_nested_field_name_is_refused_without_contradiction() -> None:
    t = from_langchain_tool(_lc(Nested))
    status, content = _call(t, {"inner": {"v": 1}})
    assert status == "error"
    assert "'inner.vee' is required" in content
    assert "are: v." not in content and "v, w" not in content  # (the fields listed are the keys published)


def test_lc_schema_gives_alias_keys_and_the_names_shown() -> None:
    parameters, visible = lc_schema(_lc(Top))
    assert list(parameters["properties"]) == ["inner", "town", "postcode"]
    assert parameters["required"] == ["inner", "town", "postcode"]
    assert list(parameters["properties"]["inner"]["properties"]) == ["vee", "dub"]
    assert visible == {"inner", "city", "zip"}


def test_unaliased_and_multi_step_schemas_are_left_as_langchain_writes_them() -> None:
    class Plain(BaseModel):
        a: int
        b: str = "x"

    class Multi(BaseModel):
        a: int = Field(validation_alias=AliasPath("loc", 0))

    for model in (Plain, Multi):
        parameters, visible = lc_schema(_lc(model))
        assert list(parameters["properties"]) == ["a", "b"][:len(model.model_fields)]
        assert visible == set(model.model_fields)


def test_top_level_aliases_are_published_and_taken_end_to_end() -> None:
    t = from_langchain_tool(_lc(Top))
    assert list(t.spec.parameters["properties"]) == ["inner", "town", "postcode"]
    status, content = _call(t, {"inner": {"vee": 1}, "town": "P", "postcode": "75"})
    assert status == "success" and "('city', 'P')" in content and "('zip', '75')" in content
    status, content = _call(t, {"inner": {"vee": 1}, "city": "P", "postcode": "75"})
    assert status == "error" and "'city' is not a parameter" in content and "Its parameters are: inner, town" in content
