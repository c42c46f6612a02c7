"""Review 144: injected fields of an ``args_schema`` model are hidden under every key pydantic takes for them (#7) and
left out of the parameters an unknown-argument error lists (#8)."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from langchain_core.tools import InjectedToolArg, InjectedToolCallId
from pydantic import AliasChoices, AliasPath, BaseModel, ConfigDict, Field

from toolwire import StructuredTool, tool
from toolwire.errors import SchemaError

_MAKERS = [lambda f, schema: tool(args_schema=schema)(f),
           lambda f, schema: StructuredTool.from_function(f, args_schema=schema)]


def _search(query: str, user_id: str = "guest") -> str:
    """Search the user's documents."""
    return f"{query} as {user_id}"


def _run(made: Any, args: dict[str, Any]) -> Any:
    return made.invoke({"type": "tool_call", "name": made.name, "args": args, "id": "c1"})


def _refused(made: Any, args: dict[str, Any], key: str) -> None:
    reply = _run(made, args)
    assert reply.status == "error" and f"'{key}' is not an argument a call may set" in reply.content, reply.content
    assert " as " not in reply.content


# -- #7: every key pydantic takes for an injected field -------------------------------------------------------------


class _ByName(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    query: str
    user_id: Annotated[str, InjectedToolArg] = Field(default="guest", alias="userId")


class _ValidateByName(BaseModel):
    model_config = ConfigDict(validate_by_name=True)
    query: str
    user_id: Annotated[str, InjectedToolArg] = Field(default="guest", alias="userId")


class _ValidationAlias(BaseModel):
    query: str
    user_id: Annotated[str, InjectedToolArg] = Field(default="guest", validation_alias="userId")


class _Choices(BaseModel):
    query: str
    user_id: Annotated[str, InjectedToolArg] = Field(
        default="guest", validation_alias=AliasChoices("userId", AliasPath("uid"), AliasPath("ctx", "user")))


class _ExtraAllowed(BaseModel):
    model_config = ConfigDict(extra="allow")
    query: str
    user_id: Annotated[str, InjectedToolArg] = Field(default="guest", alias="userId")


@pytest.mark.parametrize("maker", range(2))
@pytest.mark.parametrize("model", [_ByName, _ValidateByName, _ValidationAlias, _Choices, _ExtraAllowed])
def test_an_injected_field_is_hidden_and_refused_under_every_key_pydantic_takes(maker: int, model: Any) -> None:
    made = _MAKERS[maker](_search, model)
    assert list(made.parameters["properties"]) == ["query"] and made.parameters["required"] == ["query"]
    assert _run(made, {"query": "q"}).content == "q as guest"
    for key in ("user_id", "userId"):
        _refused(made, {"query": "q", key: "admin"}, key)
    if model is _Choices:
        _refused(made, {"query": "q", "uid": "admin"}, "uid")
        _refused(made, {"query": "q", "ctx": {"user": "admin"}}, "ctx.user")


@pytest.mark.parametrize("maker", range(2))
def test_an_injected_call_id_field_with_an_alias_is_filled_and_refused_under_its_name(maker: int) -> None:
    class Args(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        x: int
        call_id: Annotated[str, InjectedToolCallId] = Field(alias="callId")

    def echo(x: int, call_id: str) -> str:
        """Echo the call id."""
        return f"{x} as {call_id}"

    made = _MAKERS[maker](echo, Args)
    assert list(made.parameters["properties"]) == ["x"]
    assert _run(made, {"x": 1}).content == "1 as c1"
    for key in ("call_id", "callId"):
        _refused(made, {"x": 1, key: "forged"}, key)


def test_an_injected_field_sharing_a_key_with_another_field_is_refused_when_the_tool_is_made() -> None:
    class Args(BaseModel):  # pydantic sets both fields from {"user_id": ...}
        model_config = ConfigDict(populate_by_name=True)
        query: str
        user_id: Annotated[str, InjectedToolArg] = Field(default="guest", alias="uid")
        owner: str = Field(default="", alias="user_id")

    def search(query: str, user_id: str = "guest", owner: str = "") -> str:
        """Search."""
        return query

    with pytest.raises(SchemaError, match=r"also sets field 'owner'.*give the two fields different keys"):
        tool(args_schema=Args)(search)


def test_an_injected_call_id_field_set_through_an_alias_path_only_is_refused_when_the_tool_is_made() -> None:
    class Args(BaseModel):
        x: int
        call_id: Annotated[str, InjectedToolCallId] = Field(validation_alias=AliasPath("meta", "id"))

    def echo(x: int, call_id: str) -> str:
        """Echo the call id."""
        return call_id

    with pytest.raises(SchemaError, match="give it a plain alias or validation_alias"):
        tool(args_schema=Args)(echo)


def test_a_field_whose_key_is_an_injected_fields_name_is_still_shown_and_set() -> None:
    class Args(BaseModel):  # by_name is off: "user_id" sets owner only
        query: str
        user_id: Annotated[str, InjectedToolArg] = Field(default="guest", alias="uid")
        owner: str = Field(default="", alias="user_id")

    def search(query: str, user_id: str = "guest", owner: str = "") -> str:
        """Search."""
        return f"{query} as {user_id} for {owner}"

    made = tool(args_schema=Args)(search)
    assert list(made.parameters["properties"]) == ["query", "user_id"]
    assert _run(made, {"query": "q", "user_id": "bob"}).content == "q as guest for bob"
    _refused(made, {"query": "q", "uid": "admin"}, "uid")


# -- #8: the parameters an unknown-argument error lists --------------------------------------------------------------


@pytest.mark.parametrize("maker", range(2))
def test_an_unknown_argument_error_lists_only_the_parameters_the_model_is_shown(maker: int) -> None:
    class Args(BaseModel):
        query: str
        call_id: Annotated[str, InjectedToolCallId]
        state: Annotated[dict, InjectedToolArg] = {}

    def search(query: str, call_id: str, state: dict | None = None) -> str:
        """Search."""
        return query

    def search_params(query: str, call_id: Annotated[str, InjectedToolCallId],
                      state: Annotated[dict, InjectedToolArg] = {}) -> str:  # noqa: B006
        """Search."""
        return query

    made = _MAKERS[maker](search, Args)
    reply = _run(made, {"qeury": "x"})
    assert reply.content.endswith("Its parameters are: query."), reply.content
    equivalent = tool(search_params)
    assert reply.content.replace("'search'", "'search_params'") == _run(equivalent, {"qeury": "x"}).content


def test_a_tool_whose_fields_are_all_injected_says_it_takes_no_arguments() -> None:
    class Args(BaseModel):
        call_id: Annotated[str, InjectedToolCallId]

    def ping(call_id: str) -> str:
        """Ping."""
        return call_id

    made = tool(args_schema=Args)(ping)
    assert _run(made, {}).content == "c1"
    reply = _run(made, {"zz": 1})
    assert "call_id" not in reply.content and reply.content.endswith("It takes no arguments: send {}."), reply.content
