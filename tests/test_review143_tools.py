"""Review 143: LangChain's positional config on a chat model (#6), a tool renamed or given LangChain-only fields after
it is made (#8), and injected arguments declared in an ``args_schema`` model (#3)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolwire import AIMessage, tool
from toolwire.errors import UserError
from toolwire.models.base import BaseChatModel, ChatRequest
from toolwire.testing import ScriptedChatModel


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: the first.
        b: the second.
    """
    return a + b


# -- #6: model.invoke(input, config) --------------------------------------------------------------------------------


async def _drain(stream: Any) -> list[Any]:
    return [chunk async for chunk in stream]


_CALLS = {
    "invoke": lambda m, cfg: m.invoke("hi", cfg),
    "ainvoke": lambda m, cfg: asyncio.run(m.ainvoke("hi", cfg)),
    "stream": lambda m, cfg: list(m.stream("hi", cfg)),
    "astream": lambda m, cfg: asyncio.run(_drain(m.astream("hi", cfg))),
}


@pytest.mark.parametrize("bound", [False, True])
@pytest.mark.parametrize("method", list(_CALLS))
def test_a_positional_config_is_refused_with_a_user_error(method: str, bound: bool) -> None:
    model = ScriptedChatModel(["x"], cycle=True)
    if bound:
        model = model.bind_tools([add])
    with pytest.raises(UserError, match=rf"^{method}\(input, config\) passes LangChain's RunnableConfig.*leave it out"):
        _CALLS[method](model, {"callbacks": [], "run_name": "demo"})
    assert not model.requests  # nothing was sent


def test_a_lone_none_config_and_the_normal_call_still_work() -> None:
    model = ScriptedChatModel(["x"], cycle=True)
    assert model.invoke("hi", None).content == "x"
    assert model.invoke("hi").content == "x"
    assert "".join(str(c.content) for c in model.stream("hi")) == "x"


# -- #8: tool.name / tool.description set after the tool is made ----------------------------------------------------


class _Recorder(BaseChatModel):
    """A model that answers with ``replies`` in turn and keeps every :class:`ChatRequest` (the specs it was sent)."""

    def __init__(self, replies: list[AIMessage]) -> None:
        self.replies = replies
        self.seen: list[ChatRequest] = []

    def _generate(self, request: ChatRequest) -> AIMessage:
        self.seen.append(request)
        return self.replies[len(self.seen) - 1]


def _search() -> Any:
    @tool
    def search(query: str) -> str:
        """Search the web.

        Args:
            query: the query.
        """
        return "results for " + query

    return search


@pytest.mark.parametrize(("key", "value"), [("name", "wiki_search"), ("description", "Search the company wiki.")])
def test_a_new_name_or_description_is_refused_saying_to_make_the_tool_with_it(key: str, value: str) -> None:
    # review 144 #1, #5, #6, #10: a rename reached some of what was made from the tool and not the rest (a copy's
    # rename renamed the original's async side, a process pool got the old name, a bound method's rename was lost)
    search = _search()
    model = ScriptedChatModel(["x"], cycle=True)
    with pytest.raises(UserError, match=rf"Cannot set the {key} of tool 'search' after it is made.*tool\(func, "):
        setattr(search, key, value)
    assert (search.name, search.spec.name, search.spec.description) == ("search", "search", "Search the web.")
    setattr(search, key, getattr(search, key))  # the same value again: nothing changes, nothing refused
    model.bind_tools([search]).invoke("hi")
    assert model.requests[0].tools == ["search"]


def test_a_method_tool_reached_through_its_instance_refuses_a_rename_too() -> None:
    class Calc:
        @tool
        def add(self, a: int, b: int) -> int:
            """Add two numbers."""
            return a + b

    with pytest.raises(UserError, match="Cannot set the name of tool 'add'"):
        Calc().add.name = "plus"


@pytest.mark.parametrize(("key", "value", "error"), [
    ("return_direct", "yes", "return_direct must be True or False"),
    ("timeout", -1, "timeout must be a positive number of seconds"),
    ("response_format", "artifact", "response_format must be 'content' or 'content_and_artifact'"),
])
def test_a_bad_value_is_refused_as_when_the_tool_is_made(key: str, value: Any, error: str) -> None:
    search = _search()
    with pytest.raises(UserError, match=error):
        setattr(search, key, value)
    assert (search.name, search.spec.name, search.return_direct, search.timeout) == ("search", "search", False, None)


@pytest.mark.parametrize("key", ["handle_tool_error", "handle_validation_error", "verbose", "tags", "metadata",
                                 "callbacks", "coroutine"])
def test_langchain_only_fields_are_refused_as_from_function_refuses_them(key: str) -> None:
    from toolwire._keywords import ADVICE

    search = _search()
    with pytest.raises(UserError, match=rf"^Cannot set {key} on tool 'search': ") as caught:
        setattr(search, key, "Sorry.")
    if key != "coroutine":  # (which StructuredTool.from_function takes, when it makes the tool)
        assert ADVICE[key] in str(caught.value)
    assert key not in getattr(search, "__dict__", {})


def test_the_options_from_function_takes_are_taken_as_attributes() -> None:
    search = _search()
    search.return_direct = True
    search.handle_errors = False
    search.timeout = 5
    assert (search.return_direct, search.handle_errors, search.timeout) == (True, False, 5)
    search.my_note = "anything else"  # an attribute of the user's own stays allowed
    assert search.my_note == "anything else"


# -- #3: injected arguments declared in an args_schema model -------------------------------------------------------


def _injected_models() -> tuple[Any, Any]:
    from typing import Annotated

    from langchain_core.tools import InjectedToolArg, InjectedToolCallId
    from pydantic import BaseModel, Field

    class DeleteArgs(BaseModel):
        doc_id: str = Field(description="the document to delete")
        user_id: Annotated[str, InjectedToolArg] = "guest"

    class EchoArgs(BaseModel):
        x: int = Field(description="a number")
        tool_call_id: Annotated[str, InjectedToolCallId]

    return DeleteArgs, EchoArgs


def _delete_doc(doc_id: str, user_id: str = "guest") -> str:
    """Delete a document the user owns."""
    return f"deleted {doc_id} as {user_id}"


def _echo_id(x: int, tool_call_id: str) -> str:
    """Echo the call id."""
    return f"{x} from {tool_call_id}"


async def _aecho_id(x: int, tool_call_id: str) -> str:
    """Echo the call id."""
    return f"async {x} from {tool_call_id}"


def _makers() -> list[Any]:
    from toolwire import StructuredTool

    return [lambda f, schema: tool(args_schema=schema)(f),
            lambda f, schema: StructuredTool.from_function(f, args_schema=schema)]


@pytest.mark.parametrize("maker", range(2))
def test_an_injected_tool_arg_field_is_hidden_and_keeps_its_default(maker: int) -> None:
    from toolwire import convert_to_openai_tool

    delete_args, _ = _injected_models()
    made = _makers()[maker](_delete_doc, delete_args)
    parameters = convert_to_openai_tool(made)["function"]["parameters"]
    assert list(parameters["properties"]) == ["doc_id"] and parameters["required"] == ["doc_id"]
    assert list(made.tool_call_schema.model_json_schema()["properties"]) == ["doc_id"]
    call = {"name": "_delete_doc", "args": {"doc_id": "d1"}, "id": "c1", "type": "tool_call"}
    assert made.invoke(call).content == "deleted d1 as guest"
    forged = made.invoke({**call, "args": {"doc_id": "d1", "user_id": "admin"}})
    assert forged.status == "error" and "'user_id' is not an argument a call may set" in forged.content
    assert "deleted" not in forged.content


@pytest.mark.parametrize("maker", range(2))
def test_an_injected_tool_call_id_field_is_hidden_and_filled_from_the_call(maker: int) -> None:
    from toolwire import AIMessage, ToolExecutor

    _, echo_args = _injected_models()
    made = _makers()[maker](_echo_id, echo_args)
    assert made.parameters["properties"].keys() == {"x"} and made.parameters["required"] == ["x"]
    call = {"name": "_echo_id", "args": {"x": 1}, "id": "c9", "type": "tool_call"}
    assert made.invoke(call).content == "1 from c9"
    reply = AIMessage("", tool_calls=[call, {**call, "args": {"x": 2}, "id": "c10"}])
    assert [m.content for m in ToolExecutor([made]).execute(reply)] == ["1 from c9", "2 from c10"]
    with pytest.raises(UserError, match="takes the id of its tool call"):
        made.invoke({"x": 1})


def test_an_injected_tool_call_id_field_reaches_the_coroutine_of_a_sync_and_async_tool() -> None:
    from toolwire import StructuredTool

    _, echo_args = _injected_models()
    made = StructuredTool.from_function(_echo_id, _aecho_id, args_schema=echo_args)
    call = {"name": "_echo_id", "args": {"x": 1}, "id": "c9", "type": "tool_call"}
    assert asyncio.run(made.ainvoke(call)).content == "async 1 from c9"


def test_an_injected_tool_arg_field_without_a_default_is_refused_as_a_parameter_is() -> None:
    from typing import Annotated

    from langchain_core.tools import InjectedToolArg
    from pydantic import BaseModel

    from toolwire.errors import SchemaError

    class Args(BaseModel):
        doc_id: str
        user_id: Annotated[str, InjectedToolArg]

    def delete(doc_id: str, user_id: str) -> str:
        """Delete a document."""
        return doc_id

    with pytest.raises(SchemaError) as by_schema:
        tool(args_schema=Args)(delete)

    def delete_param(doc_id: str, user_id: Annotated[str, InjectedToolArg]) -> str:
        """Delete a document."""
        return doc_id

    with pytest.raises(SchemaError) as by_param:
        tool(delete_param)
    assert str(by_schema.value).replace("'delete'", "'delete_param'") == str(by_param.value)


# ------------------------------------------------------------- review 143 #6: structured output, pipelines


def test_structured_output_and_pipelines_refuse_a_positional_config_in_one_sentence() -> None:
    import asyncio

    from pydantic import BaseModel as _Model

    from toolwire import AIMessage as _AIMessage
    from toolwire.errors import UserError as _UserError
    from toolwire.testing import ScriptedChatModel as _Scripted

    class Point(_Model):
        x: int

    call = _AIMessage("", tool_calls=[{"name": "Point", "args": {"x": 1}, "id": "c", "type": "tool_call"}])
    model = _Scripted([call] * 6)
    for target in (model.with_structured_output(Point), model | (lambda reply: reply)):
        with pytest.raises(_UserError, match=r"invoke\(input, config\) passes LangChain's RunnableConfig"):
            target.invoke("q", {"tags": []})
        with pytest.raises(_UserError, match=r"ainvoke\(input, config\)"):
            asyncio.run(target.ainvoke("q", {"tags": []}))
    assert model.with_structured_output(Point).invoke("q", None) == Point(x=1)
