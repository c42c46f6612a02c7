"""LangChain interop (review 217): an injected argument's value never reaches the model in an error (#1), a value a
``functools.partial`` binds is used with ``args_schema`` (#2), a ``pydantic.v1`` ``args_schema`` coerces as LangChain
does (#3), OpenAI's built-in tools are refused by ChatAnthropic (#4), an argument named ``self`` works through
``to_langchain_tool`` (#5), and ``from_function``'s docstring follows LangChain's rules (#6)."""

from __future__ import annotations

from typing import Annotated, Any

import pytest

from toolwire import AIMessage, ToolExecutor

lc_tools = pytest.importorskip("langchain_core.tools")
pydantic = pytest.importorskip("pydantic")

SECRET = "sk-live-SECRET-123"


def _answer(tool: Any, args: dict[str, Any], name: str = "search") -> tuple[str, str]:
    call = {"name": name, "args": args, "id": "c1", "type": "tool_call"}
    [message] = ToolExecutor([tool]).execute(AIMessage("", tool_calls=[call]))
    return message.status, message.content


# -- #1: injected values stay out of errors --------------------------------------------------------------------------
def _leaky_tool() -> Any:
    from toolwire.interop.langchain import from_langchain_tool

    class SearchArgs(pydantic.BaseModel):
        query: str
        limit: int = 5
        api_key: Annotated[str, lc_tools.InjectedToolArg]
        state: Annotated[dict, lc_tools.InjectedToolArg]

        @pydantic.model_validator(mode="before")
        @classmethod
        def before(cls, data: Any) -> Any:
            if isinstance(data, dict) and data.get("query") == "bad":
                raise ValueError(f"refused {data}")
            return data

        @pydantic.model_validator(mode="after")
        def check_limit(self) -> Any:
            if self.limit > 10:
                raise ValueError("limit must be at most 10")
            return self

    def search(query: str, api_key: str, state: dict, limit: int = 5) -> str:
        return f"results for {query}"

    lc_tool = lc_tools.StructuredTool.from_function(search, name="search", description="Search the web.",
                                                    args_schema=SearchArgs)
    return from_langchain_tool(lc_tool, injected={"api_key": SECRET, "state": {"user": "PRIVATE-USER"}})


@pytest.mark.parametrize("args", [{"query": "cats", "limit": 50}, {"query": "bad"}, {"query": 3, "limit": 50}])
def test_an_injected_value_is_never_quoted_in_a_validation_error(args: dict[str, Any]) -> None:
    status, text = _answer(_leaky_tool(), args)
    assert status == "error" and "Invalid arguments for tool 'search'" in text
    assert "SECRET" not in text and "PRIVATE" not in text and "api_key" not in text.replace("'api_key': <", "")


def test_the_error_quotes_the_arguments_the_model_sent() -> None:
    _, text = _answer(_leaky_tool(), {"query": "cats", "limit": 50})
    assert "limit must be at most 10 (got {'query': 'cats', 'limit': 50})" in text


def test_handle_errors_false_raises_without_the_injected_value() -> None:
    from toolwire.errors import ToolValidationError

    with pytest.raises(ToolValidationError) as info:
        _leaky_tool().invoke({"query": "cats", "limit": 50})
    assert "SECRET" not in str(info.value)


# -- #2: a functools.partial's values with args_schema ---------------------------------------------------------------
def delete_files(pattern: str, user_id: Annotated[str, lc_tools.InjectedToolArg] = "anonymous") -> str:
    """Delete the user's files matching a pattern."""
    return f"deleted {pattern} as user {user_id!r}"


def delete_plain(pattern: str, user_id: str = "anonymous") -> str:
    """Delete the user's files matching a pattern."""
    return f"deleted {pattern} as user {user_id!r}"


def test_an_injected_field_bound_by_the_partial_keeps_the_partial_value() -> None:
    import functools

    from toolwire import tool

    class Args(pydantic.BaseModel):
        pattern: str
        user_id: Annotated[str, lc_tools.InjectedToolArg] = "anonymous"

    made = tool(functools.partial(delete_files, user_id="alice"), name="delete_files", args_schema=Args)
    assert list(made.parameters["properties"]) == ["pattern"]
    assert _answer(made, {"pattern": "*.tmp"}, "delete_files") == ("success", "deleted *.tmp as user 'alice'")
    assert made.invoke({"pattern": "*.tmp"}) == "deleted *.tmp as user 'alice'"


def test_an_injected_field_without_default_bound_by_the_partial_is_taken() -> None:
    import functools

    from toolwire import tool

    class Required(pydantic.BaseModel):
        pattern: str
        user_id: Annotated[str, lc_tools.InjectedToolArg]

    made = tool(functools.partial(delete_files, user_id="alice"), name="delete_files", args_schema=Required)
    assert made.invoke({"pattern": "*.tmp"}) == "deleted *.tmp as user 'alice'"


def test_a_plain_field_bound_by_the_partial_leaves_the_schema_and_is_refused() -> None:
    import functools

    from toolwire import tool

    class Plain(pydantic.BaseModel):
        pattern: str
        user_id: str = "anonymous"

    made = tool(functools.partial(delete_plain, user_id="alice"), name="delete_files", args_schema=Plain)
    assert list(made.parameters["properties"]) == ["pattern"]
    assert made.invoke({"pattern": "*.tmp"}) == "deleted *.tmp as user 'alice'"
    status, text = _answer(made, {"pattern": "*.tmp", "user_id": "mallory"}, "delete_files")
    assert status == "error" and "'user_id' is not an argument a call may set" in text


def test_a_bound_value_is_validated_but_never_quoted() -> None:
    import functools

    from toolwire import tool

    class Checked(pydantic.BaseModel):
        pattern: str
        user_id: str = "anonymous"

        @pydantic.model_validator(mode="after")
        def check(self) -> Any:
            if self.pattern == "*":
                raise ValueError(f"{self.user_id} may not delete everything")
            return self

    made = tool(functools.partial(delete_plain, user_id="alice-private"), name="delete_files", args_schema=Checked)
    status, text = _answer(made, {"pattern": "*"}, "delete_files")
    assert status == "error" and "may not delete everything" in text and "alice" not in text


# -- #5: an argument named self through to_langchain_tool ------------------------------------------------------------
def _self_tool() -> Any:
    from toolwire import Tool
    from toolwire.interop.langchain import to_langchain_tool

    spec = {"type": "object", "properties": {"self": {"type": "string", "description": "link to this resource"},
                                             "q": {"type": "string"}}, "required": ["self", "q"]}
    made = Tool.from_schema(lambda **kw: f"got {sorted(kw.items())}", "lookup", "Look a resource up.", spec)
    return to_langchain_tool(made)


def test_an_argument_named_self_is_offered_as_self_() -> None:
    lc = _self_tool()
    assert list(lc.args) == ["self_", "q"]
    assert lc.invoke({"self_": "https://x/1", "q": "a"}) == "got [('q', 'a'), ('self', 'https://x/1')]"


@pytest.mark.parametrize("key", ["self_", "self"])
def test_a_whole_tool_call_with_self_gets_its_tool_message(key: str) -> None:
    lc = _self_tool()
    message = lc.invoke({"name": "lookup", "args": {key: "https://x/1", "q": "a"}, "id": "c1", "type": "tool_call"})
    assert message.content == "got [('q', 'a'), ('self', 'https://x/1')]" and message.tool_call_id == "c1"


# -- #3: a pydantic.v1 args_schema coerces as LangChain does ---------------------------------------------------------
def _v1_tool(handled: bool = False) -> Any:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pydantic.v1 as pv1

    class V1Args(pv1.BaseModel):
        query: str
        n: int = 2

        @pv1.validator("query", pre=True, allow_reuse=True)
        def strip(cls, value: Any) -> Any:
            return value.strip() if isinstance(value, str) else value

    def search(query: str, n: int = 2) -> str:
        return f"{query} x{n}"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lc_tools.StructuredTool.from_function(search, name="search", description="Search.", args_schema=V1Args,
                                                     handle_validation_error="Check the arguments." if handled
                                                     else False)


def test_a_v1_args_schema_coerces_as_langchain_does() -> None:
    assert _answer(_v1_tool(), {"query": " cats ", "n": "3"}) == ("success", "cats x3")


@pytest.mark.parametrize("handled", [False, True])
def test_a_v1_args_schema_refuses_what_toolwire_refuses(handled: bool) -> None:
    status, text = _answer(_v1_tool(handled), {"query": "cats", "nn": 3})
    assert status == "error" and "'nn' is not a parameter of this tool" in text and "query, n" in text
    status, text = _answer(_v1_tool(handled), {"query": "cats", "n": True})
    assert status == "error" and "not a boolean" in text


def test_a_v1_args_schema_error_names_the_field() -> None:
    status, text = _answer(_v1_tool(), {"query": "cats", "n": "many"})
    assert status == "error" and "'n': value is not a valid integer" in text
    assert _answer(_v1_tool(True), {"query": "cats", "n": "many"}) == ("error", "Check the arguments.")


# -- #4: server tools of one provider are refused by another ---------------------------------------------------------
def test_anthropics_unversioned_mcp_toolset_is_refused_by_openai() -> None:
    from toolwire.errors import UserError
    from toolwire.models import ChatOpenAI

    model = ChatOpenAI("gpt-4.1", api_key="x", use_responses_api=True)
    with pytest.raises(UserError, match="server tool of Anthropic"):
        model.bind_tools([{"type": "mcp_toolset", "mcp_server_name": "docs"}])
    assert model.bind_tools([{"type": "web_search"}]).tools[0].name == "web_search"


@pytest.mark.parametrize("definition", [{"type": "web_search"}, {"type": "file_search", "vector_store_ids": ["v"]},
                                        {"type": "code_interpreter", "container": {"type": "auto"}},
                                        {"type": "mcp", "server_label": "deepwiki", "server_url": "https://x/mcp"}])
def test_openais_built_in_tools_are_told_apart(definition: dict[str, Any]) -> None:
    from toolwire.models._tool_conversion import openai_builtin, server_tool

    assert openai_builtin(server_tool(definition))
    assert not openai_builtin(server_tool({"type": "web_search_20250305", "name": "web_search"}))
    assert not openai_builtin(server_tool({"type": "mcp_toolset", "mcp_server_name": "docs"}))


# -- #6: StructuredTool.from_function's docstring follows LangChain ---------------------------------------------------
def _typo(query: str, limit: int = 5) -> str:
    """Search the web.

    Args:
        query: what to look for, in plain
            words.
        limt: how many results
    """
    return query


def _wrapped(query: str) -> str:
    """Search the web.

    Args:
        query: what to look for, in plain
            words.
    """
    return query


def test_an_args_entry_naming_no_parameter_is_refused_with_error_on_invalid_docstring() -> None:
    from toolwire import StructuredTool
    from toolwire.errors import SchemaError

    with pytest.raises(SchemaError, match="describes 'limt', which is no parameter"):
        StructuredTool.from_function(_typo, parse_docstring=True, error_on_invalid_docstring=True)


def test_a_wrapped_args_entry_is_joined_with_a_space() -> None:
    from toolwire import StructuredTool

    made = StructuredTool.from_function(_wrapped, parse_docstring=True)
    assert made.args["query"]["description"] == "what to look for, in plain words."
    assert made.spec.parameters["properties"]["query"]["description"] == "what to look for, in plain words."
    made = StructuredTool.from_function(_wrapped, parse_docstring=True, error_on_invalid_docstring=True)
    assert made.args["query"]["description"] == "what to look for, in plain words."


def test_an_injected_value_the_args_schema_refuses_is_not_quoted() -> None:
    from toolwire.interop.langchain import from_langchain_tool

    class Args(pydantic.BaseModel):
        query: str
        api_key: Annotated[int, lc_tools.InjectedToolArg]

    def search(query: str, api_key: int) -> str:
        return "ok"

    lc_tool = lc_tools.StructuredTool.from_function(search, name="search", description="Search.", args_schema=Args)
    status, text = _answer(from_langchain_tool(lc_tool, injected={"api_key": SECRET}), {"query": "x"})
    assert status == "error" and "'api_key'" in text and "SECRET" not in text
    good = from_langchain_tool(lc_tool, injected={"api_key": 7})
    assert _answer(good, {"query": "x"}) == ("success", "ok")
