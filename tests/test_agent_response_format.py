"""Agent(..., response_format=Schema): one more model call after the run answers, as LangGraph's create_react_agent."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import Agent, tool
from toolwire._agent_response import ASK_STRUCTURED
from toolwire.errors import SchemaError, ToolCallParseError, UserError
from toolwire.messages import AIMessage, HumanMessage, SystemMessage
from toolwire.testing import ScriptedChatModel

ASK = HumanMessage(ASK_STRUCTURED)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool(return_direct=True)
def finish(text: str) -> str:
    """Give the text as the answer."""
    return text


class Sum(BaseModel):
    """The total."""

    total: int


_ADD = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}])
_SUM = AIMessage("", tool_calls=[{"name": "Sum", "args": {"total": 3}, "id": "s1"}])


def _model(*extra: Any) -> ScriptedChatModel:
    return ScriptedChatModel([_ADD, "It is 3.", *extra])


def test_the_structured_call_gets_the_conversation_and_forces_the_schema_tool() -> None:
    model = _model(_SUM)
    result = Agent(model, [add], response_format=Sum).invoke("add 1 and 2")
    assert result.structured_response == Sum(total=3) and result["structured_response"] == Sum(total=3)
    assert result.output == "It is 3." and result.stop_reason == "answer"
    assert result.steps == 3  # the structured call is a model call
    last = model.requests[-1]
    assert last.tools == ["Sum"] and last.tool_choice == "Sum"
    assert last.messages == [*result.messages, ASK]  # the whole conversation, the answer, then the ask (r. 149 #1)
    assert [m.type for m in result.messages] == ["human", "ai", "tool", "ai"]  # its reply is not added
    assert list(result) == ["messages", "output", "steps", "stop_reason", "structured_response"]
    assert "structured_response" in result and result.get("structured_response") == Sum(total=3)


def test_without_response_format_there_is_no_call_and_no_key() -> None:
    model = _model()
    result = Agent(model, [add]).invoke("add 1 and 2")
    assert result.structured_response is None and len(model.requests) == 2 and result.steps == 2
    assert "structured_response" not in result and list(result.keys()) == ["messages", "output", "steps",
                                                                           "stop_reason"]
    with pytest.raises(KeyError, match="this run made no structured response"):
        result["structured_response"]


def test_a_prompt_tuple_leads_the_structured_call_only() -> None:
    model = _model(_SUM)
    result = Agent(model, [add], response_format=("Give the total.", Sum)).invoke("add 1 and 2")
    assert result.structured_response == Sum(total=3)
    assert model.requests[-1].messages == [SystemMessage("Give the total."), *result.messages, ASK]
    assert all(r.messages[0].type == "human" for r in model.requests[:-1])  # the loop's calls do not get it
    assert not any(m.type == "system" for m in result.messages)


def test_a_prompt_tuple_is_merged_before_the_agents_system_prompt() -> None:
    model = _model(_SUM)
    result = Agent(model, [add], system_prompt="Be brief.", response_format=("Give the total.", Sum)).invoke("add")
    first = model.requests[-1].messages[0]
    assert isinstance(first, SystemMessage) and first.content == "Give the total.\n\nBe brief."
    assert model.requests[-1].messages[1:] == [*result.messages[1:], ASK]
    marked = SystemMessage("Be brief.", id="toolwire:system_prompt")  # (the Agent's prompt, by its id)
    assert result.messages[0] == marked and model.requests[0].messages[0] == marked


def test_return_direct_refusal_and_length_make_no_structured_call() -> None:
    direct = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "finish", "args": {"text": "x"}, "id": "c1"}])])
    result = Agent(direct, [finish], response_format=Sum).invoke("go")
    assert result.stop_reason == "return_direct" and result.structured_response is None and len(direct.requests) == 1
    assert "structured_response" not in result  # as LangGraph's state after a return_direct tool
    for reason, stop in (("refusal", "refusal"), ("length", "length")):
        model = ScriptedChatModel([AIMessage("I", response_metadata={"finish_reason": reason})])
        result = Agent(model, [add], response_format=Sum).invoke("go")
        assert result.stop_reason == stop and result.structured_response is None and len(model.requests) == 1


def test_on_max_steps_answer_makes_the_structured_call() -> None:
    model = ScriptedChatModel([_ADD, "It is 3.", _SUM])
    result = Agent(model, [add], max_steps=1, on_max_steps="answer", response_format=Sum).invoke("add")
    assert result.stop_reason == "max_steps" and result.structured_response == Sum(total=3) and result.steps == 3
    assert model.requests[-1].tool_choice == "Sum" and model.requests[-1].messages == [*result.messages, ASK]


def test_the_structured_call_is_not_limited_by_max_steps() -> None:
    model = ScriptedChatModel(["It is 3.", _SUM])
    result = Agent(model, [add], max_steps=1, response_format=Sum).invoke("add")
    assert result.structured_response == Sum(total=3) and result.steps == 2


def test_a_schema_that_cannot_be_a_tool_is_refused_when_the_agent_is_made() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(SchemaError, match="Structured output takes"):
        Agent(model, [add], response_format=int)
    with pytest.raises(SchemaError, match="needs a 'title'"):
        Agent(model, [add], response_format={"type": "object", "properties": {}})
    with pytest.raises(UserError, match=r"a \(prompt, schema\) tuple"):
        Agent(model, [add], response_format=("a", "b", Sum))
    with pytest.raises(UserError, match=r"a \(prompt, schema\) tuple"):
        Agent(model, [add], response_format=(Sum, "prompt"))
    assert model.requests == []


def test_a_failed_structured_call_carries_the_conversation() -> None:
    model = _model("no call here")
    with pytest.raises(ToolCallParseError) as info:
        Agent(model, [add], response_format=Sum).invoke("add 1 and 2")
    assert [*info.value.messages, ASK] == model.requests[-1].messages and len(info.value.messages) == 4
    assert info.value.messages[-1].text == "It is 3."

    async def run() -> None:
        await Agent(_model("no call here"), [add], response_format=Sum).ainvoke("add 1 and 2")

    with pytest.raises(ToolCallParseError) as ainfo:
        asyncio.run(run())
    assert len(ainfo.value.messages) == 4


def test_ainvoke_batch_and_abatch() -> None:
    assert asyncio.run(Agent(_model(_SUM), [add], response_format=Sum).ainvoke("add")).structured_response == Sum(
        total=3)
    model = ScriptedChatModel(["It is 3.", _SUM], cycle=True)
    results = Agent(model, [add], response_format=Sum).batch(["one", "two"], max_concurrency=1)
    assert [r.structured_response for r in results] == [Sum(total=3), Sum(total=3)]
    results = asyncio.run(Agent(model, [add], response_format=Sum).abatch(["one", "two"], max_concurrency=1))
    assert [r.structured_response for r in results] == [Sum(total=3), Sum(total=3)]


def test_a_json_schema_gives_a_dict() -> None:
    schema = {"title": "Sum", "type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]}
    result = Agent(_model(_SUM), [add], response_format=schema).invoke("add")
    assert result.structured_response == {"total": 3}


def test_the_default_stream_gives_it_on_the_final_result() -> None:
    events = list(Agent(_model(_SUM), [add], response_format=Sum).stream("add"))
    assert [e.type for e in events] == ["model_reply", "tool_call", "tool_result", "model_reply", "final"]
    assert events[-1].data.structured_response == Sum(total=3) and events[-1].step == 3


def test_state_streams_end_with_the_structured_response() -> None:
    values = list(Agent(_model(_SUM), [add], response_format=Sum).stream("add", stream_mode="values"))
    assert [len(v["messages"]) for v in values] == [1, 2, 3, 4, 4]
    assert "structured_response" not in values[-2] and values[-1]["structured_response"] == Sum(total=3)
    updates = list(Agent(_model(_SUM), [add], response_format=Sum).stream("add", stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["agent", "tools", "agent", "generate_structured_response"]
    assert updates[-1] == {"generate_structured_response": {"structured_response": Sum(total=3)}}

    async def run(mode: str) -> list[dict[str, Any]]:
        return [s async for s in Agent(_model(_SUM), [add], response_format=Sum).astream("add", stream_mode=mode)]

    assert asyncio.run(run("values"))[-1]["structured_response"] == Sum(total=3)
    assert asyncio.run(run("updates"))[-1] == updates[-1]
    direct = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "finish", "args": {"text": "x"}, "id": "c1"}])])
    assert all("structured_response" not in s and "generate_structured_response" not in s
               for s in Agent(direct, [finish], response_format=Sum).stream("go", stream_mode="updates"))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # (langgraph 1.x's notice that create_react_agent moved)
@pytest.mark.parametrize("response_format", [Sum, ("Give the total.", Sum)], ids=["schema", "prompt tuple"])
def test_the_streams_and_result_match_langgraphs_on_the_same_script(response_format: Any) -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.tools import tool as lc_tool

    @lc_tool("add")
    def lc_add(a: int, b: int) -> int:  # (LangChain's twin of the module's tool)
        """Add two numbers."""
        return a + b

    class Fake(fakes.FakeMessagesListChatModel):
        def bind_tools(self, tools, **kwargs):  # type: ignore[no-untyped-def]
            return self

    def theirs(mode: str | None) -> Any:
        script = [LCAIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}]),
                  LCAIMessage("It is 3."),
                  LCAIMessage("", tool_calls=[{"name": "Sum", "args": {"total": 3}, "id": "s1"}])]
        agent = prebuilt.create_react_agent(Fake(responses=script), [lc_add], response_format=response_format)
        state = {"messages": [("user", "add")]}
        return agent.invoke(state) if mode is None else list(agent.stream(state, stream_mode=mode))

    def ours(mode: str | None) -> Any:
        agent = Agent(_model(_SUM), [add], response_format=response_format)
        return agent.invoke({"messages": [("user", "add")]}) if mode is None else list(
            agent.stream({"messages": [("user", "add")]}, stream_mode=mode))

    mine, their = ours("values"), theirs("values")
    assert [sorted(s) for s in mine] == [sorted(s) for s in their]
    assert [len(s["messages"]) for s in mine] == [len(s["messages"]) for s in their]
    assert mine[-1]["structured_response"] == their[-1]["structured_response"]
    mine, their = ours("updates"), theirs("updates")
    assert [next(iter(u)) for u in mine] == [next(iter(u)) for u in their]
    assert mine[-1] == their[-1]
    mine, their = ours(None), theirs(None)
    assert [k for k in mine if k in ("messages", "structured_response")] == sorted(their)
    assert mine["structured_response"] == their["structured_response"]
    assert [m.type for m in mine["messages"]] == [m.type for m in their["messages"]]


def test_pydantic_ai_and_agents_sdk_names_point_to_response_format() -> None:
    for name in ("output_type", "result_type"):
        with pytest.raises(UserError, match=r"pass Agent\(\.\.\., response_format=Schema\) and read "
                                            r"result\.structured_response"):
            Agent(ScriptedChatModel([]), [add], **{name: Sum})


def test_the_input_may_open_with_a_user_message_object() -> None:
    model = ScriptedChatModel(["It is 3.", _SUM])
    result = Agent(model, [add], response_format=Sum).invoke([HumanMessage("add")])
    assert result.structured_response == Sum(total=3) and model.requests[-1].messages == [*result.messages, ASK]


def test_the_structured_call_never_ends_with_the_assistants_answer() -> None:
    # review 149 #1: a request ending with an assistant turn is a prefill, refused by Claude 4.6+ (HTTP 400)
    model = _model(_SUM)
    result = Agent(model, [add], response_format=Sum).invoke("add 1 and 2")
    sent = model.requests[-1].messages
    assert isinstance(result.messages[-1], AIMessage) and sent[-1] == ASK and ASK not in result.messages
