"""Review 20 (a fresh reviewer trying the library API as a new user): each test failed on the code before
its fix."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from pydantic import BaseModel, ConfigDict

from toolwire import AIMessage, HumanMessage, ToolExecutor, ToolMessage, message_from_dict, tool
from toolwire.errors import SchemaError, UserError
from toolwire.testing import ScriptedChatModel


@tool
def echo(city: str) -> str:
    """Echo the city."""
    return city


@tool
def ping() -> str:
    """Ping."""
    return "pong"


# -- 1: a number as a call id is answered with its text, on every path -----------------------------------------


def test_a_numeric_call_id_is_answered_as_text_on_success_and_on_error():
    ok = echo.invoke({"name": "echo", "args": {"city": "x"}, "id": 5, "type": "tool_call"})
    bad = echo.invoke({"name": "echo", "args": {"city": 1.5}, "id": 5, "type": "tool_call"})
    slow = asyncio.run(echo.ainvoke({"name": "echo", "args": {"city": "x"}, "id": 5, "type": "tool_call"}))
    assert [m.tool_call_id for m in (ok, bad, slow)] == ["5", "5", "5"]
    assert message_from_dict(ok.to_dict()).tool_call_id == "5"  # a saved conversation loads again


# -- 2: the executor answers malformed items in place instead of losing the batch ------------------------------


def test_call_answers_every_item_whatever_its_shape():
    ex = ToolExecutor([ping])
    out = ex.call([{"name": ["ping"], "args": {}, "id": "a"}, "ping", {"name": "ping", "args": {}, "id": "b"}])
    assert [m.status for m in out] == ["error", "error", "success"]
    assert out[0].tool_call_id == "a" and "no tool named" in out[0].content and out[2].tool_call_id == "b"
    assert "must be a dict" in out[1].content
    out = ex.call([], [{"name": "ping", "args": "x", "id": "z", "error": 5}])
    assert out[0].tool_call_id == "z" and out[0].status == "error" and "5" in out[0].content
    with pytest.raises(UserError, match="list of tool calls"):
        ex.call({"name": "ping", "args": {}, "id": "c"})  # type: ignore[arg-type]


# -- 4: LangChain keeps ``config`` and ``run_manager`` for itself: such arguments are offered renamed ----------


def test_a_langchain_tool_passes_arguments_named_config_and_run_manager():
    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import to_langchain_tool

    @tool
    def settings(config: str, run_manager: str = "-", tags: str = "-") -> str:
        """Echo the settings."""
        return f"{config} {run_manager} {tags}"

    lc = to_langchain_tool(settings)
    assert set(lc.args) == {"config_", "run_manager_", "tags"}
    assert lc.invoke({"config_": "X", "run_manager_": "Y", "tags": "Z"}) == "X Y Z"


# -- 5: arguments given as text become the object they hold, and no provider gets them garbled -----------------


def test_argument_text_in_a_message_becomes_an_object_for_every_provider():
    from toolwire.models.lowering import anthropic as la
    from toolwire.models.lowering import openai as lo

    message = message_from_dict({"type": "ai", "content": "", "tool_calls": [
        {"name": "f", "args": '{"a": 1}', "id": "c1", "type": "tool_call"}]})
    assert message.tool_calls[0]["args"] == {"a": 1}
    conversation = [HumanMessage("q"), message, ToolMessage("r", "c1")]
    assert json.loads(lo.lower_messages(conversation)[1]["tool_calls"][0]["function"]["arguments"]) == {"a": 1}
    _system, lowered = la.lower_messages(conversation)
    assert lowered[1]["content"][0]["input"] == {"a": 1}


def test_unreadable_argument_text_is_sent_as_written_and_answered_with_the_tools_error():
    from toolwire.models.lowering import openai as lo

    message = AIMessage(tool_calls=[{"name": "echo", "args": "{city: ", "id": "c1"}])
    lowered = lo.lower_messages([HumanMessage("q"), message, ToolMessage("r", "c1")])
    # not JSON-encoded a second time; and (review 66, F1) not the raw text either: vLLM and SGLang json.loads every
    # past call's arguments and refuse the request (vllm-project/vllm#43995), so what can be read of it goes back
    assert lowered[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    (answer,) = ToolExecutor([echo]).execute(message)
    # (review 77: such a call is an invalid call, answered with the parser's error and the raw text)
    assert answer.status == "error" and "not valid JSON" in answer.content and "{city: " in answer.content


# -- 6: an exception group gives the model the error inside it --------------------------------------------------


def test_an_exception_group_shows_the_error_inside():
    @tool
    async def forecast(city: str) -> str:
        """Fetch a forecast."""
        async def fetch() -> None:
            raise ConnectionError(f"could not reach the weather API for {city}")

        async with asyncio.TaskGroup() as group:
            group.create_task(fetch())
        return "never"

    answer = forecast.invoke({"name": "forecast", "args": {"city": "Oslo"}, "id": "1", "type": "tool_call"})
    assert answer.content == "Error: tool 'forecast' raised ConnectionError: could not reach the weather API for Oslo"


# -- 7: a call of a tool without arguments may leave "args" out ----------------------------------------------------


def test_invoke_reads_a_call_without_args_as_a_call():
    answer = ping.invoke({"name": "ping", "id": "1", "type": "tool_call"})
    assert isinstance(answer, ToolMessage) and answer.content == "pong" and answer.tool_call_id == "1"


# -- 8: classmethods are tools bound to their class, in either decorator order ----------------------------------


def test_a_classmethod_is_a_tool_bound_to_its_class():
    class Shop:
        @tool
        @classmethod
        def price(cls, item: str) -> str:
            """Price an item."""
            return f"{cls.__name__}:{item}"

        @classmethod
        @tool
        def stock(cls, item: str) -> str:
            """Stock of an item."""
            return f"{cls.__name__}:{item}"

    class Outlet(Shop):
        pass

    for name in ("price", "stock"):
        assert list(getattr(Shop, name).parameters["properties"]) == ["item"]
        assert getattr(Shop, name).invoke({"item": "pen"}) == "Shop:pen"
        assert getattr(Outlet(), name).invoke({"item": "pen"}) == "Outlet:pen"


# -- 9: an args_schema the function cannot take is refused when the tool is made ------------------------------


def test_an_args_schema_that_does_not_match_the_function_is_refused():
    class Wanted(BaseModel):
        a: int

    with pytest.raises(SchemaError, match="fields it does not take: a; required parameters it lacks: x"):
        @tool(args_schema=Wanted)
        def f(x: int) -> str:
            """F."""
            return str(x)

    @tool(args_schema=Wanted)
    def g(a: int, b: int = 2, **more: int) -> str:
        """G."""
        return str(a + b)

    assert g.invoke({"a": 1}) == "3"


# -- 10: a pydantic model with a field JSON cannot hold is written as one in a list is --------------------------


def test_a_model_result_with_an_odd_field_is_written_not_failed():
    class Thing:
        def __str__(self) -> str:
            return "a thing"

    class Box(BaseModel):
        model_config = ConfigDict(arbitrary_types_allowed=True)
        t: Thing

    @tool
    def one() -> object:
        """One box."""
        return Box(t=Thing())

    answer = one.invoke({"name": "one", "args": {}, "id": "1", "type": "tool_call"})
    assert answer.status == "success" and json.loads(answer.content) == {"t": "a thing"}


# -- 16: one tool where a list is expected gets a sentence saying so -----------------------------------------------


def test_one_tool_instead_of_a_list_is_refused_with_a_sentence():
    with pytest.raises(UserError, match=r"such as ToolExecutor\(\[echo\]\)"):
        ToolExecutor(echo)  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"such as model.bind_tools\(\[echo\]\)"):
        ScriptedChatModel(["x"]).bind_tools(echo)  # type: ignore[arg-type]


# -- 17: tool dicts given to bind_tools are checked like tool_from_schema's ---------------------------------------


@pytest.mark.parametrize(("spec", "match"), [
    ({"name": "g", "parameters": {"type": "string"}}, "must be an object schema"),
    ({"name": "g", "description": "d", "parameters": {"type": "object", "properties": {"a": {"type": "strin"}}}},
     "not valid JSON Schema"),
    ({"name": "g", "description": 5, "parameters": {"type": "object"}}, "must be text"),
])
def test_a_broken_tool_dict_is_refused_when_bound(spec, match):
    with pytest.raises(SchemaError, match=match):
        ScriptedChatModel(["x"]).bind_tools([spec])


def test_a_tool_dict_without_description_binds_with_empty_text():
    from toolwire.models.base import to_tool

    assert to_tool({"name": "g", "description": None, "parameters": {"type": "object"}}).description == ""


# -- 18: with handle_errors=False the async executor stops the other calls, as the sync one does ---------------


def test_async_executor_cancels_the_other_calls_when_one_fails_unhandled():
    done: list[str] = []
    go = threading.Event()  # set once the run has failed: a call left running then finishes at once

    @tool
    async def slow() -> str:
        """Slow."""
        for _ in range(500):  # (was: a fixed 0.3 s, which a loaded machine could let it finish in before the failure)
            if go.is_set():
                break
            await asyncio.sleep(0.01)
        done.append("finished")
        return "s"

    @tool
    def bad() -> str:
        """Bad."""
        raise ValueError("boom")

    ex = ToolExecutor([slow, bad], handle_errors=False)
    message = AIMessage(tool_calls=[{"name": "slow", "args": {}, "id": "1"}, {"name": "bad", "args": {}, "id": "2"}])

    async def main() -> None:
        with pytest.raises(ValueError, match="boom"):
            await ex.aexecute(message)
        go.set()
        await asyncio.sleep(0.5)

    asyncio.run(main())
    go.clear()
    with pytest.raises(ValueError, match="boom"):
        ex.execute(message)
    go.set()
    time.sleep(0.5)
    assert done == []


# -- 19: a call whose own arguments are "name" and "parameters" is not taken for a wrapper ------------------------


def test_arguments_named_like_a_wrapper_are_kept():
    from toolwire.models.lowering.openai import parse_response

    args = json.dumps({"name": "log_call", "parameters": "verbose"})
    reply = {"id": "r", "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "log_call", "arguments": args}}]}}]}
    message = parse_response(reply)
    assert message.invalid_tool_calls == []
    assert message.tool_calls[0]["args"] == {"name": "log_call", "parameters": "verbose"}


# -- 15: an older dialect's schema is sent to providers in the 2020-12 form they read --------------------------


def test_a_draft07_tuple_and_a_draft04_bound_are_sent_as_2020_12_and_validated_in_their_own_dialect():
    jsonschema = pytest.importorskip("jsonschema")
    from toolwire.interop import tool_from_schema

    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["pair"],
              "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                                      "additionalItems": False, "default": {"items": [1]}}}}
    pair = tool_from_schema(schema, lambda **k: k, name="d7", description="A pair.")
    jsonschema.Draft202012Validator.check_schema(pair.parameters)
    sent = pair.parameters["properties"]["pair"]
    assert sent["prefixItems"] == [{"type": "string"}, {"type": "integer"}] and sent["items"] is False
    assert sent["default"] == {"items": [1]}  # data, not a schema
    assert pair.invoke({"pair": ["a", 1]}) == {"pair": ["a", 1]}
    for bad in (["a", "b"], ["a", 1, 2]):
        assert pair.invoke({"name": "d7", "args": {"pair": bad}, "id": "1", "type": "tool_call"}).status == "error"
    limit = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
             "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True}}}
    below = tool_from_schema(limit, lambda **k: k, name="d4", description="Below five.")
    assert below.parameters["properties"]["n"] == {"type": "number", "exclusiveMaximum": 5}
    assert below.invoke({"n": 4.5}) == {"n": 4.5}
    assert below.invoke({"name": "d4", "args": {"n": 5}, "id": "1", "type": "tool_call"}).status == "error"


def test_a_call_with_unreadable_argument_text_goes_to_langchain_as_an_invalid_call():
    pytest.importorskip("langchain_core")
    from toolwire.interop.langchain import to_langchain_messages

    message = AIMessage(tool_calls=[{"name": "f", "args": "{bad", "id": "c1"},
                                    {"name": "g", "args": {"a": 1}, "id": "c2"}])
    (lc,) = to_langchain_messages([message])
    assert [c["id"] for c in lc.tool_calls] == ["c2"]
    assert [(c["id"], c["args"]) for c in lc.invalid_tool_calls] == [("c1", "{bad")]


def test_a_call_with_unreadable_argument_text_renders_in_every_dialect():
    from toolwire.models.base import to_tool_spec
    from toolwire.models.dialects import get_dialect

    conversation = [HumanMessage("q"), AIMessage(tool_calls=[{"name": "echo", "args": "{city: ", "id": "c1"}]),
                    ToolMessage("Error: not JSON", "c1")]
    for name in ("pythonic", "json"):
        rendered = get_dialect(name).render(conversation, [to_tool_spec(echo)])
        assert "{city: " in json.dumps(rendered.messages, ensure_ascii=False), name
