"""Review 296 #4: a model whose config says ``json_schema_mode_override="serialization"`` had its fields read through
a ``validation_alias`` path published under their names (the serialization key), which validation refuses: every call
under the schema was refused ("'q.names.0' is required but missing; 'q.first' is not an allowed field of 'q'"). Such a
field is now published as in any other model (the tests below failed before the fix): under the key validation reads
(a one-step path's key, a plain choice of an ``AliasChoices``), its name where validation reads names, and refused at
decoration when validation reads it only through a multi-step path.
"""

from __future__ import annotations

import pytest
from pydantic import AliasChoices, AliasPath, BaseModel, ConfigDict, Field

from toolwire import Tool, tool
from toolwire.errors import SchemaError

_SER = ConfigDict(json_schema_mode_override="serialization")


def _call(t: Tool, args: dict) -> tuple[str, str]:
    result = t.invoke({"type": "tool_call", "id": "1", "name": t.name, "args": args})
    return result.status, result.content


def _decorated(cls: type) -> Tool:
    @tool
    def find(q: cls) -> str:  # type: ignore[valid-type]
        """Find a person."""
        return repr(q)
    return find


def test_multi_step_path_under_a_serialization_override_is_refused_at_decoration() -> None:
    class Query(BaseModel):
        model_config = _SER
        first: str = Field(validation_alias=AliasPath("names", 0))

    with pytest.raises(SchemaError, match=r"field 'first' of Query: .*AliasPath\('names', 0\)"):
        _decorated(Query)


def test_one_step_path_and_choices_under_a_serialization_override_are_published_under_the_key_read() -> None:
    class Query(BaseModel):
        model_config = _SER
        first: str = Field(validation_alias=AliasPath("given"))
        last: str = Field(validation_alias=AliasChoices("family", AliasPath("names", 1)), serialization_alias="sur")
        age: int = 0

    t = _decorated(Query)
    inner = t.spec.parameters["properties"]["q"]
    assert list(inner["properties"]) == ["given", "family", "age"]
    assert _call(t, {"q": {"given": "Ada", "family": "Lovelace"}}) == (
        "success", "Query(first='Ada', last='Lovelace', age=0)")


def test_multi_step_path_read_by_name_under_a_serialization_override_is_published_by_name() -> None:
    class Query(BaseModel):
        model_config = ConfigDict(json_schema_mode_override="serialization", populate_by_name=True)
        first: str = Field(validation_alias=AliasPath("names", 0), serialization_alias="given")

    t = _decorated(Query)
    assert list(t.spec.parameters["properties"]["q"]["properties"]) == ["first"]
    assert _call(t, {"q": {"first": "Ada"}})[0] == "success"


def test_excluded_field_under_a_serialization_override_is_left_alone() -> None:
    class Query(BaseModel):
        model_config = _SER
        first: str
        source: str | None = Field(None, validation_alias=AliasPath("meta", "source"), exclude=True)

    t = _decorated(Query)
    assert list(t.spec.parameters["properties"]["q"]["properties"]) == ["first"]
    assert _call(t, {"q": {"first": "Ada"}})[0] == "success"
