"""Review 68 (a user migrating from LangChain / the OpenAI Agents SDK, driving the public API; no model loaded).

1. A parameter whose type has no JSON Schema (a DB connection, a client object, a callback) made ``@tool`` raise
   pydantic's own message: several paragraphs, no parameter named, and the advice to set
   ``arbitrary_types_allowed`` in a ``model_config`` a tool's author does not have. Now one sentence names the
   parameter (or a model's field) and its type and says what to do.
2. A JSON Schema of an object with a ``title`` (what LangChain's ``bind_tools`` and docs/interop.md take as a
   schema-only tool) was read as a provider's server tool named ``"object"``: ``ScriptedChatModel`` and
   ``ChatOpenAI`` refused it with advice about server tools, and ``ChatAnthropic`` bound it, to be sent to
   Anthropic as a server tool.
3. ``AIMessage(tool_calls=one_call)`` (a dict, not a list) iterated over the dict's keys and said
   "Each tool call must be a dict ...; got 'name'"; ``AIMessageChunk(tool_call_chunks=one_piece)`` crashed with an
   ``AttributeError`` when merged.
4. A call whose arguments are under ``"arguments"`` (OpenAI's and MCP's key) lost them without a word: the executor
   ran the tool with ``{}`` (its defaults, or a "required but missing" error the model could not fix).
5. ``@tool(args_schema={...JSON Schema...})``, which LangChain takes, was refused without saying what to use instead.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable

import pytest
from pydantic import BaseModel

from toolwire import AIMessage, SchemaError, ToolExecutor, UserError, merge_chunks, tool
from toolwire.interop import tool_from_schema
from toolwire.messages import AIMessageChunk, tool_call
from toolwire.models.base import ServerTool, ToolSpec, to_tool
from toolwire.testing import ScriptedChatModel

# -- 1. a parameter type without a JSON Schema ---------------------------------------------------------------


def query(conn: sqlite3.Connection, sql: str) -> str:
    """Run a query."""
    return str(conn.execute(sql).fetchall())


def test_a_parameter_without_json_schema_is_named_in_one_sentence() -> None:
    with pytest.raises(SchemaError) as info:
        tool(query)
    text = str(info.value)
    assert "\n" not in text and "arbitrary_types_allowed" not in text and "errors.pydantic.dev" not in text
    assert text.startswith("Cannot build a JSON Schema for tool 'query': parameter 'conn' is typed "
                           "sqlite3.Connection, which has no JSON form a model could send; ")
    assert "functools.partial(func, conn=...)" in text
    # the advice works: the connection supplied by the program is no parameter of the tool
    made = tool("query")(functools.partial(query, conn=sqlite3.connect(":memory:")))
    assert list(made.args) == ["sql"]
    assert made.invoke({"sql": "select 1"}) == "[(1,)]"


def test_a_callable_parameter_and_a_models_field_are_named() -> None:
    def notify(user: str, callback: Callable[[str], None] | None = None) -> str:
        """Notify a user."""
        return user

    with pytest.raises(SchemaError, match=r"^Cannot build a JSON Schema for tool 'notify': parameter 'callback' is "
                                          r"typed collections\.abc\.Callable\[\[str\], None\] \| None, which") as info:
        tool(notify)
    assert "\n" not in str(info.value) and "CallableSchema" not in str(info.value)

    class Job(BaseModel):
        name: str
        on_done: Callable[[], None]

    def submit(job: Job) -> str:
        """Submit a job."""
        return job.name

    with pytest.raises(SchemaError, match=r"^Cannot build a JSON Schema for tool 'submit': the field 'job\.on_done' "
                                          r"is typed collections\.abc\.Callable\[\[\], None\], which has no JSON form"):
        tool(submit)
    with pytest.raises(SchemaError, match=r"^Cannot build a JSON Schema for Job: the field 'on_done' is typed"):
        ScriptedChatModel([]).with_structured_output(Job)


# -- 2. a JSON Schema dict bound as a tool ------------------------------------------------------------------

LOOKUP = {"title": "lookup", "description": "Look up a word.", "type": "object",
          "properties": {"word": {"type": "string"}}, "required": ["word"]}


def test_a_json_schema_with_a_title_is_a_schema_only_tool() -> None:
    spec = to_tool(LOOKUP)
    assert not isinstance(spec, ServerTool)
    assert spec == ToolSpec("lookup", "Look up a word.", {"type": "object", "properties": {"word": {"type": "string"}},
                                                          "required": ["word"]})
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("lookup", {"word": "sun"}, "c1")])])
    reply = model.bind_tools([LOOKUP], tool_choice="lookup").invoke("Define sun.")
    assert model.requests[0].tools == ["lookup"] and model.requests[0].tool_choice == "lookup"
    assert reply.tool_calls[0]["args"] == {"word": "sun"}


def test_a_json_schema_with_a_title_goes_to_the_providers_as_a_function() -> None:
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    from toolwire.models import ChatAnthropic, ChatOpenAI

    for model in (ChatOpenAI(model="gpt-4o", api_key="sk-test"), ChatAnthropic(model="claude-x", api_key="sk-test")):
        bound = model.bind_tools([LOOKUP])
        assert [type(t) for t in bound.tools] == [ToolSpec] and bound.tools[0].name == "lookup"


def test_a_json_schema_without_a_title_says_to_add_one() -> None:
    with pytest.raises(SchemaError, match=r"^A JSON Schema given as a tool needs a 'title' \(it names the tool\)"):
        ScriptedChatModel([]).bind_tools([{"type": "object", "properties": {"word": {"type": "string"}}}])


def test_server_tools_are_still_server_tools() -> None:
    search = to_tool({"type": "web_search_20250305", "name": "web_search", "max_uses": 3})
    assert isinstance(search, ServerTool) and search.provider == "anthropic"


# -- 3. one call given where a list is expected ---------------------------------------------------------------


def test_one_call_for_tool_calls_says_to_wrap_it_in_a_list() -> None:
    call = tool_call("get_weather", {"city": "Paris"}, "c1")
    with pytest.raises(UserError, match=r"^AIMessage tool_calls takes a list of tool calls, not one call \(a dict\): "
                                        r"wrap it in a list, tool_calls=\[call\]\.$"):
        AIMessage("", tool_calls=call)
    with pytest.raises(UserError, match="AIMessage invalid_tool_calls takes a list"):
        AIMessage("", invalid_tool_calls={"name": "f", "args": "{", "id": "c2", "error": "cut"})
    with pytest.raises(UserError, match="AIMessage tool_calls takes a list"):
        AIMessage("x").copy(tool_calls=call)
    assert AIMessage("", tool_calls=[call]).tool_calls == [call]
    assert AIMessage("", tool_calls=(call,)).tool_calls == [call]
    assert AIMessage("x", tool_calls=None).tool_calls == [] == AIMessage("x", tool_calls=[]).tool_calls


def test_one_piece_for_tool_call_chunks_says_to_wrap_it_in_a_list() -> None:
    piece = {"name": "get_weather", "args": '{"city": "Oslo"}', "id": "c1", "index": 0, "type": "tool_call_chunk"}
    with pytest.raises(UserError, match=r"^AIMessageChunk tool_call_chunks takes a list of tool calls, not one call"):
        AIMessageChunk("", tool_call_chunks=piece)
    with pytest.raises(UserError, match=r"^AIMessageChunk invalid_tool_calls takes a list"):
        AIMessageChunk("", invalid_tool_calls={"name": "f", "args": "{", "id": "c2", "error": "cut"})
    merged = merge_chunks([AIMessageChunk("", tool_call_chunks=[piece]), AIMessageChunk("", tool_call_chunks=None)])
    assert merged.to_message().tool_calls == [tool_call("get_weather", {"city": "Oslo"}, "c1")]


# -- 4. arguments under "arguments" --------------------------------------------------------------------------


@tool
def search(query: str = "", limit: int = 10) -> str:
    """Search the catalogue."""
    return f"{query}:{limit}"


def test_arguments_under_the_openai_and_mcp_key_are_not_dropped() -> None:
    calls = [{"name": "search", "arguments": {"query": "lamps", "limit": 2}, "id": "c1"},
             {"name": "search", "arguments": '{"query": "desks"}', "id": "c2", "type": "tool_call"}]
    answers = ToolExecutor([search]).call(calls)
    assert [(m.content, m.tool_call_id, m.status) for m in answers] == [
        ("lamps:2", "c1", "success"), ("desks:10", "c2", "success")]
    reply = AIMessage("", tool_calls=calls)
    assert [c["args"] for c in reply.tool_calls] == [{"query": "lamps", "limit": 2}, {"query": "desks"}]
    assert all("arguments" not in c for c in reply.tool_calls)
    # both there with different values: which were meant cannot be told, an invalid call (review 160 #2)
    both = AIMessage("", tool_calls=[{"name": "search", "args": {"query": "a"}, "arguments": {"query": "b"},
                                      "id": "c3"}])
    assert not both.tool_calls and both.invalid_tool_calls[0]["id"] == "c3"


# -- 5. a JSON Schema as args_schema ------------------------------------------------------------------------


def test_a_json_schema_as_args_schema_says_what_to_use() -> None:
    schema = {"title": "find", "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

    def find(q: str) -> str:
        """Find a thing."""
        return q.upper()

    with pytest.raises(SchemaError, match=r"^args_schema must be a pydantic BaseModel class: for a JSON Schema dict, "
                                          r"use toolwire\.interop\.tool_from_schema\(schema, func\) instead\.$"):
        tool(args_schema=schema)(find)
    made = tool_from_schema(schema, find)
    assert (made.name, made.description, made.invoke({"q": "x"})) == ("find", "Find a thing.", "X")
