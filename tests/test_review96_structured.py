"""Review 96 #3 and #4.

#3: LangChain's TypedDict convention ``Annotated[T, default, "description"]`` and toolwire's ``Annotated[T,
"description"]`` hold in a nested TypedDict too (a field's type, or in a list, dict or ``Optional`` of it), whether
or not the outer TypedDict has such a field itself, for ``typing``'s and ``typing_extensions``' TypedDict, for
structured output and tool arguments alike.

#4: ``with_structured_output(<JSON Schema dict or tool dict>)`` drops a ``null`` the schema does not allow at a key
it does not require (OpenAI strict mode makes every key required and nullable, so the model sends one for each key
it leaves out), at any depth, so the result fits the user's own schema; a ``null`` the schema allows is kept.
"""

from __future__ import annotations

import typing
import warnings
from typing import Annotated, Any, Optional

import pytest
import typing_extensions

from toolwire import convert_to_openai_tool, tool
from toolwire.errors import ToolCallParseError
from toolwire.messages import AIMessage
from toolwire.models.structured import output_tool
from toolwire.testing import ScriptedChatModel

# -- #3: nested TypedDicts -----------------------------------------------------------------------------------------


class ExtInner(typing_extensions.TypedDict):
    x: Annotated[int, 0, "x coord"]
    y: Annotated[str, "the y"]


class ExtOuter(typing_extensions.TypedDict):
    inner: ExtInner


class TypInner(typing.TypedDict):
    x: Annotated[int, 0, "x coord"]
    y: Annotated[str, "the y"]


class TypOuter(typing.TypedDict):
    inner: TypInner


class Deep(typing_extensions.TypedDict):  # three levels, none but the last with a described field
    outer: ExtOuter


class Containers(typing_extensions.TypedDict):
    many: list[ExtInner]
    by_name: dict[str, ExtInner]
    maybe: Optional[ExtInner]  # noqa: UP045  (the spelling users write)
    either: ExtInner | None


def _reply(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "c1"}])


_INNER = {"additionalProperties": False, "type": "object", "required": ["y"],
          "properties": {"x": {"default": 0, "description": "x coord", "type": "integer"},
                         "y": {"description": "the y", "type": "string"}}}


@pytest.mark.parametrize("outer", [ExtOuter, TypOuter], ids=["typing_extensions", "typing"])
def test_a_nested_typeddict_keeps_its_defaults_and_descriptions(outer: Any) -> None:
    spec, _ = output_tool(outer)
    assert spec.parameters["properties"]["inner"] == _INNER
    assert spec.parameters["required"] == ["inner"]


@pytest.mark.parametrize("outer", [ExtOuter, TypOuter], ids=["typing_extensions", "typing"])
def test_a_nested_default_fills_in_for_structured_output(outer: Any) -> None:
    model = ScriptedChatModel([_reply(outer.__name__, {"inner": {"y": "a"}})])
    assert model.with_structured_output(outer).invoke("x") == {"inner": {"x": 0, "y": "a"}}


def test_a_nested_required_field_is_still_required() -> None:
    model = ScriptedChatModel([_reply("ExtOuter", {"inner": {"x": 1}})])
    with pytest.raises(ToolCallParseError, match=r"inner\.y"):
        model.with_structured_output(ExtOuter).invoke("x")


def test_it_matches_langchains_reading_of_the_nested_field() -> None:
    lc = pytest.importorskip("langchain_core.utils.function_calling")
    theirs = lc.convert_to_openai_tool(ExtOuter)["function"]["parameters"]["properties"]["inner"]
    ours = convert_to_openai_tool(ExtOuter)["function"]["parameters"]["properties"]["inner"]
    assert ours["properties"]["x"] == theirs["properties"]["x"] == {"default": 0, "description": "x coord",
                                                                     "type": "integer"}
    assert "x" not in ours["required"] and "x" not in theirs.get("required", [])
    # (LangChain reads a lone string as the default; toolwire keeps its own reading: the description)
    assert ours["properties"]["y"] == {"description": "the y", "type": "string"}


def test_any_depth_and_inside_lists_dicts_and_optionals() -> None:
    spec, read = output_tool(Deep)
    assert spec.parameters["properties"]["outer"]["properties"]["inner"] == _INNER
    assert read({"outer": {"inner": {"y": "b"}}}) == {"outer": {"inner": {"x": 0, "y": "b"}}}

    spec, read = output_tool(Containers)
    props = spec.parameters["properties"]
    assert props["many"]["items"] == _INNER
    assert props["by_name"]["additionalProperties"] == _INNER
    for name in ("maybe", "either"):
        branches = [b for b in props[name]["anyOf"] if b.get("type") != "null"]
        assert branches == [_INNER], name
    value = {"many": [{"y": "a"}], "by_name": {"k": {"y": "b"}}, "maybe": {"y": "c"}, "either": None}
    assert read(value) == {"many": [{"x": 0, "y": "a"}], "by_name": {"k": {"x": 0, "y": "b"}},
                           "maybe": {"x": 0, "y": "c"}, "either": None}


def test_tool_arguments_get_the_nested_default_too() -> None:
    @tool
    def place(where: ExtOuter) -> str:
        """Place something."""
        return repr(where)

    params = convert_to_openai_tool(place)["function"]["parameters"]
    assert params["properties"]["where"]["properties"]["inner"] == _INNER
    assert place.invoke({"where": {"inner": {"y": "a"}}}) == repr({"inner": {"x": 0, "y": "a"}})


def test_a_typeddict_needing_nothing_is_used_as_it_is() -> None:
    class Plain(typing_extensions.TypedDict):
        a: int

    class HoldsPlain(typing_extensions.TypedDict):
        plain: Plain
        items: list[Plain]

    from toolwire._schema_compat import _compat

    assert _compat(HoldsPlain) is HoldsPlain
    assert _compat(Optional[HoldsPlain]) == Optional[HoldsPlain]  # noqa: UP045


# -- #4: nulls from strict mode in a JSON Schema dict or tool dict -------------------------------------------------

_PERSON = {"title": "Person", "type": "object",
           "properties": {"name": {"type": "string"}, "email": {"type": "string"},
                          "nick": {"type": ["string", "null"]},
                          "address": {"type": "object",
                                      "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                                      "required": ["city"]},
                          "pets": {"type": "array",
                                   "items": {"type": "object",
                                             "properties": {"kind": {"type": "string"},
                                                            "age": {"type": "integer"}},
                                             "required": ["kind"]}}},
           "required": ["name", "address"]}

_STRICT_REPLY = {"name": "Ann", "email": None, "nick": None, "address": {"city": "Oslo", "zip": None},
                 "pets": [{"kind": "cat", "age": None}, {"kind": "dog", "age": 3}]}
_FITTING = {"name": "Ann", "nick": None, "address": {"city": "Oslo"},
            "pets": [{"kind": "cat"}, {"kind": "dog", "age": 3}]}


def _tool_dicts() -> list[tuple[str, Any]]:
    params = {k: v for k, v in _PERSON.items() if k != "title"}
    return [("json-schema", _PERSON),
            ("openai-tool", {"type": "function", "function": {"name": "Person", "description": "A person.",
                                                             "parameters": params}}),
            ("bare-tool", {"name": "Person", "description": "A person.", "parameters": params}),
            ("anthropic-tool", {"name": "Person", "description": "A person.", "input_schema": params})]


@pytest.mark.parametrize(("kind", "schema"), _tool_dicts(), ids=[k for k, _ in _tool_dicts()])
def test_a_null_the_schema_refuses_at_an_optional_key_is_dropped(kind: str, schema: Any) -> None:
    model = ScriptedChatModel([_reply("Person", _STRICT_REPLY)])
    out = model.with_structured_output(schema).invoke("x")
    assert out == _FITTING
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(out, _PERSON)


def test_a_null_at_a_required_key_is_kept() -> None:
    """Not dropped: the schema's check then names it (review 185 #5: the value is checked against the schema)."""
    model = ScriptedChatModel([_reply("Person", {"name": None, "address": {"city": None}})])
    with pytest.raises(ToolCallParseError, match=r"'address.city': None is not of type 'string'; 'name': None"):
        model.with_structured_output(_PERSON).invoke("x")


def test_defs_and_unions_follow_the_same_rule() -> None:
    schema = {"title": "Order", "type": "object",
              "$defs": {"Line": {"type": "object", "properties": {"sku": {"type": "string"},
                                                                   "note": {"type": "string"}},
                                 "required": ["sku"]}},
              "properties": {"line": {"$ref": "#/$defs/Line"},
                             "extra": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                             "code": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
              "required": ["line"]}
    model = ScriptedChatModel([_reply("Order", {"line": {"sku": "a", "note": None}, "extra": None, "code": None})])
    assert model.with_structured_output(schema).invoke("x") == {"line": {"sku": "a"}, "extra": None}


def test_strict_mode_on_the_wire_gives_a_value_that_fits_the_schema() -> None:
    providers = pytest.importorskip("providers.conftest")
    from providers.wire_servers import Reply, WireServer

    schema = {"title": "Person", "type": "object",
              "properties": {"name": {"type": "string"}, "email": {"type": "string"}}, "required": ["name"]}
    with WireServer(providers.ADAPTERS["openai-chat"]()) as wire:
        wire.queue(Reply(calls=[("Person", {"name": "Ann", "email": None})]))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = providers.build_model("openai-chat", wire.url).with_structured_output(schema, strict=True).invoke("x")
        sent = wire.requests[-1].body["tools"][0]["function"]["parameters"]
    assert sent["properties"]["email"] == {"type": ["string", "null"]} and "email" in sent["required"]
    assert out == {"name": "Ann"}


def test_a_config_title_names_the_output_tool_as_in_langchain() -> None:
    # review 96 #8: ConfigDict(title="Invoice") was ignored; LangChain's convert_to_openai_tool names the tool by it
    from pydantic import BaseModel, ConfigDict

    class Titled(BaseModel):
        model_config = ConfigDict(title="Invoice Record")
        total: int

    model = ScriptedChatModel([_reply("Invoice_Record", {"total": 3})])
    structured = model.with_structured_output(Titled, include_raw=True)
    out = structured.invoke("x")
    assert out["parsed"] == Titled(total=3) and out["raw"].tool_calls[0]["name"] == "Invoice_Record"
    assert list(model.requests[-1].tools) == ["Invoice_Record"]
