"""Review 139 #2: a dict two of whose keys are one JSON text keeps every entry inside a pydantic model, a dataclass
and a mapping type too, in the model's text and in the saved artifact alike; a model or dataclass holding no such
dict is written by pydantic as before."""

from __future__ import annotations

import dataclasses
import datetime
import json
import types
from typing import Any

import pytest
from pydantic import BaseModel, field_serializer

from toolwire import messages_to_dict, tool
from toolwire.results import result_to_content

OWNERS = {1: "alice", "1": "bob"}
PAIRS = [[1, "alice"], ["1", "bob"]]


class Holder(BaseModel):
    owners: dict


@dataclasses.dataclass
class Data:
    owners: dict


@dataclasses.dataclass(slots=True)
class Slotted:
    owners: dict


class Dated(BaseModel):
    when: datetime.date
    owners: dict

    @field_serializer("when")
    def _when(self, value: datetime.date) -> str:
        return "day " + value.isoformat()


def _invoke(value: Any) -> tuple[Any, Any]:
    @tool(response_format="content_and_artifact")
    def owners_of() -> tuple:
        """Owners."""
        return value, value

    message = owners_of.invoke({"name": "owners_of", "args": {}, "id": "c1", "type": "tool_call"})
    saved = messages_to_dict([message])[0]
    return json.loads(message.content), saved.get("data", saved)["artifact"]


@pytest.mark.parametrize("value", [Holder(owners=OWNERS), Data(OWNERS), Slotted(OWNERS)], ids=type)
def test_a_colliding_dict_in_a_model_or_dataclass_keeps_both_entries(value: Any) -> None:
    content, artifact = _invoke(value)
    assert content == {"owners": PAIRS}
    assert artifact == {"owners": PAIRS}


def test_a_mapping_type_with_colliding_keys_keeps_both_entries() -> None:
    content, artifact = _invoke(types.MappingProxyType(OWNERS))
    assert content == PAIRS
    assert artifact == PAIRS
    assert json.loads(result_to_content({"x": types.MappingProxyType({True: 1, "true": 2})})) == {
        "x": [[True, 1], ["true", 2]]}


def test_deep_inside_a_list_of_models() -> None:
    value = [Holder(owners={"a": 1}), {"k": Data({None: 1, "null": 2})}]
    assert json.loads(result_to_content(value)) == [{"owners": {"a": 1}}, {"k": {"owners": [[None, 1], ["null", 2]]}}]


def test_a_model_without_collision_is_written_by_pydantic_as_before() -> None:
    text = result_to_content(Dated(when=datetime.date(2024, 1, 2), owners={1: "a", "2": "b"}))
    assert text == Dated(when=datetime.date(2024, 1, 2), owners={1: "a", "2": "b"}).model_dump_json()
    assert json.loads(text) == {"when": "day 2024-01-02", "owners": {"1": "a", "2": "b"}}


def test_a_model_with_collision_keeps_its_python_serialisers() -> None:
    text = result_to_content(Dated(when=datetime.date(2024, 1, 2), owners=OWNERS))
    assert json.loads(text) == {"when": "day 2024-01-02", "owners": PAIRS}


# --------------------------------------------------------------------------- review 144 #2, #3


def test_a_model_whose_serialiser_fails_is_refused_as_before_and_never_shows_an_excluded_field() -> None:
    from pydantic import Field

    from toolwire.errors import ToolResultError

    class Account(BaseModel):
        name: str
        api_key: str = Field(exclude=True)
        stats: dict
        when: int

        @field_serializer("when")
        def _when(self, value: int) -> str:
            raise ValueError("bad timestamp")

    account = Account(name="bo", api_key="sk-SECRET-123", stats=OWNERS, when=-1)
    with pytest.raises(ToolResultError) as caught:
        result_to_content(account)
    assert "sk-SECRET" not in str(caught.value)


def test_a_mapping_whose_iteration_fails_is_written_as_its_text_and_the_rest_kept() -> None:
    from collections.abc import Mapping

    class Lazy(Mapping):
        def __getitem__(self, key: Any) -> Any:
            raise KeyError(key)

        def __iter__(self) -> Any:
            raise RuntimeError("cursor closed")

        def __len__(self) -> int:
            return 1

        def __str__(self) -> str:
            return "LazyRecord(id=7)"

    assert json.loads(result_to_content([Lazy(), {"ok": True}])) == ["LazyRecord(id=7)", {"ok": True}]
