"""Review 186 #4, #5: a default that is a model (or dataclass) instance is published under the keys its schema names
and validation reads: a field's ``validation_alias`` (alone or beside another ``serialization_alias``), the first
choice of an ``AliasChoices``, its ``alias``, else its name; pydantic's dump by alias wrote the serialization alias,
which validation ignores. A ``computed_field`` is left out of it (the schema does not list it; a set it returned was
written in hash order), so the published default validates back to the default, also where extra keys are refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pydantic
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, computed_field

from toolwire import tool


class Opts(BaseModel):
    unit: str = Field("km", validation_alias="unitName")
    lang: str = Field("en", validation_alias="langCode", serialization_alias="language")
    fmt: str = Field("json", alias="format")
    mode: str = Field("fast", validation_alias=AliasChoices("modeName", "m"))
    only_out: str = Field("x", serialization_alias="onlyOut")


class Outer(BaseModel):
    inner: Opts = Opts(unitName="ft", langCode="de", format="xml", modeName="slow", only_out="y")
    size: int = 1


@pydantic.dataclasses.dataclass
class DC:
    unit: str = Field("km", validation_alias="unitName", serialization_alias="u")


class Kinds(BaseModel):
    model_config = ConfigDict(extra="forbid")
    base: list[str] = ["news", "blogs", "papers", "forums", "wiki"]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def kinds(self) -> set[str]:
        return set(self.base)


SET = Opts(unitName="mi", langCode="fr", format="yaml", m="slow", only_out="z")
OUTER, DCD, KINDS = Outer(size=2), DC(unitName="mi"), Kinds(base=["b", "a"])


@tool
def run(options: Opts = SET, many: list[Opts] = [SET], keyed: dict[str, Opts] = {"a": SET},  # noqa: B006
        outer: Outer = OUTER, dc: DC = DCD, kinds: Kinds = KINDS) -> str:
    """Run."""
    return repr((options, many, keyed, outer, dc, kinds))


def _defaults() -> dict[str, Any]:
    return {key: prop["default"] for key, prop in run.parameters["properties"].items() if "default" in prop}


def test_the_default_is_published_under_the_schema_s_keys() -> None:
    props = run.parameters["properties"]
    expected = {"unitName": "mi", "langCode": "fr", "format": "yaml", "modeName": "slow", "only_out": "z"}
    assert props["options"]["default"] == expected
    assert set(expected) == set(props["options"]["properties"])
    assert props["many"]["default"] == [expected]
    assert props["keyed"]["default"] == {"a": expected}
    assert props["outer"]["default"]["inner"] == {"unitName": "ft", "langCode": "de", "format": "xml",
                                                  "modeName": "slow", "only_out": "y"}
    assert props["dc"]["default"] == {"unitName": "mi"}


def test_the_published_defaults_validate_back_to_the_defaults() -> None:
    assert run.invoke(_defaults()) == run.invoke({})


def test_a_computed_field_is_left_out_of_the_default() -> None:
    prop = run.parameters["properties"]["kinds"]
    assert prop["default"] == {"base": ["b", "a"]}
    assert "kinds" not in prop["properties"]
    assert run.invoke({"kinds": prop["default"]}) == run.invoke({})


def test_a_nested_model_field_default_uses_the_schema_s_keys() -> None:
    @tool
    def nest(outer: Outer) -> str:
        """Nest."""
        return repr(outer)

    inner = nest.parameters["properties"]["outer"]["properties"]["inner"]
    schema_text = json.dumps(nest.parameters)
    assert "language" not in schema_text and "onlyOut" not in schema_text
    assert inner["default"] == {"unitName": "ft", "langCode": "de", "format": "xml", "modeName": "slow",
                                "only_out": "y"}
    assert nest.invoke({"outer": {"inner": inner["default"]}}) == nest.invoke({"outer": {}})


class ByName(BaseModel):
    model_config = ConfigDict(validate_by_alias=False, validate_by_name=True)
    unit: str = Field("km", alias="unitName")


BY_NAME = ByName(unit="mi")


def test_a_model_validated_by_name_is_published_by_name() -> None:
    @tool
    def named(n: ByName = BY_NAME) -> str:
        """Named."""
        return repr(n)

    prop = named.parameters["properties"]["n"]
    assert prop["default"] == {"unit": "mi"} and "unit" in prop["properties"]
    assert named.invoke({"n": prop["default"]}) == "ByName(unit='mi')"


_SEEDED = """
import json
from pydantic import BaseModel, computed_field
from toolwire import tool

class Opts(BaseModel):
    base: list[str] = ["news", "blogs", "papers", "forums", "wiki"]

    @computed_field
    @property
    def kinds(self) -> set[str]:
        return set(self.base)

@tool
def search(q: str, o: Opts = Opts()) -> str:
    \"\"\"Search.\"\"\"
    return q

print(json.dumps(search.parameters, sort_keys=True))
"""


def test_the_schema_text_is_the_same_under_every_hash_seed() -> None:
    texts = {subprocess.run([sys.executable, "-c", _SEEDED], env={**os.environ, "PYTHONHASHSEED": seed},
                            capture_output=True, text=True, check=True).stdout for seed in ("1", "2", "3")}
    assert len(texts) == 1
