"""LangChain interop: the book chapter's code run on LangChain and on toolwire gives the same messages;
LangChain tools work in toolwire as is; toolwire tools work in LangChain; messages convert both ways."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core import messages as lc
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.tools import InjectedToolArg, InjectedToolCallId
from langchain_core.tools import tool as lc_tool
from langchain_core.utils.function_calling import convert_to_openai_tool as lc_convert
from pydantic import Field

import toolwire
from toolwire import Agent, ToolExecutor, ToolValidationError
from toolwire.examples.arith import evaluate
from toolwire.interop.langchain import (
    from_langchain_messages,
    from_langchain_tool,
    to_langchain_messages,
    to_langchain_tool,
)
from toolwire.models.lowering.openai import convert_to_openai_tool
from toolwire.testing import ScriptedChatModel

# The replies of "gpt-5-mini" in the chapter, written once and built for either library.
SCRIPT: list[dict[str, Any]] = [
    {"tool_calls": [("get_weather", {"city": "Paris"}, "call_hgXrHGD")]},
    {"content": "O clima atual em Paris está ensolarado. Tenha um ótimo dia!"},
    {"tool_calls": [("calculate", {"expression": "123 * 456"}, "call_xyz789")]},
    {"tool_calls": [("calculate", {"expression": "123 * 456"}, "call_xyz789")]},
    {"content": "123 multiplicado por 456 é 56.088."},
    {"tool_calls": [("get_weather", {"city": "Tóquio"}, "call_a1"),
                    ("calculate", {"expression": "123 * 456"}, "call_b2")]},
    {"content": "O clima em Tóquio está ensolarado no momento, e 123 multiplicado por 456 é 56.088."},
]


def replies(ai_message_cls: type) -> list[Any]:
    return [ai_message_cls(content=r.get("content", ""), tool_calls=[
        {"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in r.get("tool_calls", [])]) for r in SCRIPT]


class FakeToolChatModel(GenericFakeChatModel):
    """LangChain's GenericFakeChatModel plus bind_tools, recording what it was sent."""

    received: list[tuple[list[Any], list[str]]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[lc_convert(t) for t in tools], **kwargs)

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.received.append((list(messages), [t["function"]["name"] for t in kwargs.get("tools", [])]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def chapter_13(llm: Any, tool: Any, HumanMessage: Any) -> list[list[Any]]:
    """Sections 13.2.2 and 13.3 of the chapter, verbatim but for the imports (passed in) and the safe
    calculator. Returns the three conversations."""
    conversations = []

    # 13.2.2
    @tool
    def get_weather(city: str) -> str:
        """Obtém o clima atual de uma determinada cidade."""
        return f"It's always sunny in {city}!"

    llm_with_tools = llm.bind_tools([get_weather])
    tool_map = {get_weather.name: get_weather}

    messages = [HumanMessage("Como está o clima em Paris?")]
    ai_msg = llm_with_tools.invoke(messages)
    messages.append(ai_msg)

    if ai_msg.tool_calls:
        tool_call = ai_msg.tool_calls[0]
        selected_tool = tool_map[tool_call["name"]]
        tool_message = selected_tool.invoke(tool_call)
        messages.append(tool_message)

        final_response = llm_with_tools.invoke(messages)
        print(final_response.content)

    for m in messages:
        print(f"{type(m).__name__}: {m.content!r}")
    conversations.append([*messages, final_response])

    # 13.3
    @tool
    def calculate(expression: str) -> str:
        """Avalia uma expressão aritmética simples como '123 * 456'."""
        return str(evaluate(expression))  # the chapter's eval(), made safe

    @tool
    def search_web(query: str) -> str:
        """Pesquisa na web informações atuais sobre um tópico."""
        return f"Top result for '{query}': ..."

    tools = [get_weather, calculate, search_web]
    llm_with_tools = llm.bind_tools(tools)
    tool_map = {t.name: t for t in tools}

    response = llm_with_tools.invoke("Quanto é 123 multiplicado por 456?")
    print(response.tool_calls)

    messages = [HumanMessage("Quanto é 123 multiplicado por 456?")]
    ai_msg = llm_with_tools.invoke(messages)
    messages.append(ai_msg)

    if ai_msg.tool_calls:
        for tool_call in ai_msg.tool_calls:
            selected_tool = tool_map[tool_call["name"]]
            tool_message = selected_tool.invoke(tool_call)
            messages.append(tool_message)

        final_response = llm_with_tools.invoke(messages)
        print(final_response.content)
    conversations.append([*messages, final_response])

    messages = [HumanMessage("Como está o clima em Tóquio e quanto é 123 * 456?")]
    ai_msg = llm_with_tools.invoke(messages)
    messages.append(ai_msg)

    if ai_msg.tool_calls:
        for tool_call in ai_msg.tool_calls:
            print(f"Tool: {tool_call['name']}")
            selected_tool = tool_map[tool_call["name"]]
            tool_message = selected_tool.invoke(tool_call)
            messages.append(tool_message)

        final_response = llm_with_tools.invoke(messages)
        print(final_response.content)
    conversations.append([*messages, final_response])
    return conversations


def shape(messages: list[Any]) -> list[dict[str, Any]]:
    """What must match between the libraries: types in order, content, tool calls, tool_call_id."""
    out = []
    for m in messages:
        row: dict[str, Any] = {"type": type(m).__name__.replace("Chunk", ""), "content": m.content}
        if getattr(m, "tool_calls", None):
            row["tool_calls"] = [(c["name"], c["args"], c["id"]) for c in m.tool_calls]
        if hasattr(m, "tool_call_id"):
            row["tool_call_id"] = m.tool_call_id
            row["status"] = m.status
        out.append(row)
    return out


def test_book_chapter_same_messages_on_langchain_and_toolwire(capsys):
    lc_model = FakeToolChatModel(messages=iter(replies(lc.AIMessage)))
    lc_run = chapter_13(lc_model, lc_tool, lc.HumanMessage)
    lc_printed = capsys.readouterr().out

    tw_model = ScriptedChatModel(replies(toolwire.AIMessage))
    tw_run = chapter_13(tw_model, toolwire.tool, toolwire.HumanMessage)
    tw_printed = capsys.readouterr().out

    assert [shape(c) for c in lc_run] == [shape(c) for c in tw_run]
    assert lc_printed == tw_printed
    assert "Tool: get_weather\nTool: calculate\n" in tw_printed
    assert shape(tw_run[2])[2:4] == [
        {"type": "ToolMessage", "content": "It's always sunny in Tóquio!", "tool_call_id": "call_a1",
         "status": "success"},
        {"type": "ToolMessage", "content": "56088", "tool_call_id": "call_b2", "status": "success"}]
    # both models were sent the same conversations and the same tools
    assert [(shape(m), t) for m, t in lc_model.received] == \
        [(shape(r.messages), r.tools) for r in tw_model.requests]
    # and the converters agree with both runs
    for lc_conv, tw_conv in zip(lc_run, tw_run, strict=True):
        assert shape(from_langchain_messages(lc_conv)) == shape(tw_conv)
        assert shape(to_langchain_messages(tw_conv)) == shape(lc_conv)


def test_langchain_tools_in_toolwire_as_is(capsys):
    """The chapter's LangChain tools, given to toolwire's bind_tools, tool_map loop, executor and Agent."""
    lc_model = FakeToolChatModel(messages=iter(replies(lc.AIMessage)))
    lc_run = chapter_13(lc_model, lc_tool, lc.HumanMessage)

    # toolwire model, LangChain @tool functions: same conversations
    tw_model = ScriptedChatModel(replies(toolwire.AIMessage))
    mixed = chapter_13(tw_model, lambda f: from_langchain_tool(lc_tool(f)), toolwire.HumanMessage)
    assert [shape(c) for c in mixed] == [shape(c) for c in lc_run]
    capsys.readouterr()

    @lc_tool
    def get_weather(city: str) -> str:
        """Obtém o clima atual de uma determinada cidade."""
        return f"It's always sunny in {city}!"

    @lc_tool
    def calculate(expression: str) -> str:
        """Avalia uma expressão aritmética simples como '123 * 456'."""
        return str(evaluate(expression))

    bound = ScriptedChatModel(["x"]).bind_tools([get_weather, calculate])
    assert [t.name for t in bound.tools] == ["get_weather", "calculate"]
    assert bound.tool_specs[0].parameters == lc_convert(get_weather)["function"]["parameters"]

    model = ScriptedChatModel(replies(toolwire.AIMessage)[5:])
    result = Agent(model, [get_weather, calculate]).invoke("Como está o clima em Tóquio e quanto é 123 * 456?")
    assert shape(result.messages) == shape(lc_run[2])

    out = ToolExecutor([calculate]).execute(toolwire.AIMessage("", tool_calls=[
        {"name": "calculate", "args": {"expression": 5}, "id": "bad"}]))
    assert out[0].status == "error" and "'expression'" in out[0].content


def test_langchain_tool_features_are_kept():
    @lc_tool(response_format="content_and_artifact", return_direct=True)
    def lookup(key: str) -> tuple[str, dict]:
        """Look a key up."""
        return f"value of {key}", {"key": key, "raw": [1, 2]}

    @lc_tool
    async def slow_double(n: int) -> int:
        """Double a number, asynchronously."""
        await asyncio.sleep(0)
        return 2 * n

    @lc_tool
    def broken(n: int) -> str:
        """Always fails."""
        raise RuntimeError("boom")

    tw = from_langchain_tool(lookup)
    assert tw.return_direct and tw.response_format == "content_and_artifact"
    msg = tw.invoke({"name": "lookup", "args": {"key": "k"}, "id": "c1", "type": "tool_call"})
    assert (msg.content, msg.artifact, msg.tool_call_id) == ("value of k", {"key": "k", "raw": [1, 2]}, "c1")

    double = from_langchain_tool(slow_double)
    assert double.is_async
    assert asyncio.run(double.ainvoke({"name": "slow_double", "args": {"n": 4}, "id": "c2",
                                       "type": "tool_call"})).content == "8"
    assert double.invoke({"name": "slow_double", "args": {"n": 5}, "id": "c3", "type": "tool_call"}).content == "10"
    with pytest.raises(ToolValidationError, match="'n'"):
        double.invoke({"n": "x"})

    err = from_langchain_tool(broken).invoke({"name": "broken", "args": {"n": 1}, "id": "c4", "type": "tool_call"})
    assert err.status == "error" and "RuntimeError" in err.content and "boom" in err.content

    # a LangChain tool that turns its own errors into text keeps that text, as an error
    broken.handle_tool_error = True

    @lc_tool
    def picky(n: int) -> str:
        """Fails with a ToolException."""
        from langchain_core.tools import ToolException

        raise ToolException("n must be even")

    picky.handle_tool_error = True
    err = from_langchain_tool(picky).invoke({"name": "picky", "args": {"n": 1}, "id": "c5", "type": "tool_call"})
    assert err.status == "error" and "n must be even" in err.content
    # with bare arguments, the text LangChain's own invoke(args) gives (review 163 #2)
    assert from_langchain_tool(picky).invoke({"n": 1}) == picky.invoke({"n": 1}) == "n must be even"

    # the agent stops after a return_direct LangChain tool
    call = {"name": "lookup", "args": {"key": "z"}, "id": "d"}
    model = ScriptedChatModel([toolwire.AIMessage("", tool_calls=[call])])
    result = Agent(model, [lookup]).invoke("look z up")
    assert result.stop_reason == "return_direct" and result.output == "value of z"


def test_toolwire_tools_in_langchain():
    from toolwire.examples.book import BOOK_TOOLS

    @toolwire.tool(response_format="content_and_artifact")
    def stats(values: list[float], precision: int = 2) -> tuple[str, dict]:
        """Mean of some numbers."""
        mean = round(sum(values) / len(values), precision)
        return f"mean {mean}", {"mean": mean, "n": len(values)}

    converted = [to_langchain_tool(t) for t in [*BOOK_TOOLS, stats]]
    for tw, lc_t in zip([*BOOK_TOOLS, stats], converted, strict=True):
        assert lc_convert(lc_t) == convert_to_openai_tool(tw)  # same name, description, schema

    weather, calc, _, lc_stats = converted
    assert weather.invoke({"city": "Paris"}) == "It's always sunny in Paris!"
    msg = calc.invoke({"name": "calculate", "args": {"expression": "123 * 456"}, "id": "t1", "type": "tool_call"})
    assert isinstance(msg, lc.ToolMessage) and (msg.content, msg.tool_call_id) == ("56088", "t1")
    msg = lc_stats.invoke({"name": "stats", "args": {"values": [1, 2]}, "id": "t2", "type": "tool_call"})
    assert (msg.content, msg.artifact) == ("mean 1.5", {"mean": 1.5, "n": 2})
    # toolwire validation errors become LangChain error ToolMessages
    bad = lc_stats.invoke({"name": "stats", "args": {"values": "x"}, "id": "t3", "type": "tool_call"})
    assert bad.status == "error" and "Invalid arguments for tool 'stats'" in bad.content
    assert asyncio.run(weather.ainvoke({"city": "Lima"})) == "It's always sunny in Lima!"

    # the chapter's code on LangChain with toolwire's book tools converted
    model = FakeToolChatModel(messages=iter(replies(lc.AIMessage)[5:]))
    bound = model.bind_tools(converted[:3])
    tool_map = {t.name: t for t in converted}
    messages: list[Any] = [lc.HumanMessage("Como está o clima em Tóquio e quanto é 123 * 456?")]
    ai_msg = bound.invoke(messages)
    messages.append(ai_msg)
    messages.extend(tool_map[c["name"]].invoke(c) for c in ai_msg.tool_calls)
    assert [m.content for m in messages[2:]] == ["It's always sunny in Tóquio!", "56088"]

    @toolwire.tool(handle_errors=False)
    def ident(n: int) -> int:
        """Return n."""
        return n

    with pytest.raises(ToolValidationError):  # handle_errors=False: toolwire's error reaches the caller
        to_langchain_tool(ident).invoke({"n": "x"})


def test_messages_round_trip_both_ways():
    tw_messages = [
        toolwire.SystemMessage("Be brief."),
        toolwire.HumanMessage([{"type": "text", "text": "What is in"}, {"type": "image", "base64": "AAA=",
                                                                       "mime_type": "image/png"}], id="h1"),
        toolwire.AIMessage(
            "", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1", "type": "tool_call"}],
            invalid_tool_calls=[{"name": "g", "args": "{bad", "id": "c2", "error": "not JSON",
                                 "type": "invalid_tool_call"}],
            usage={"input_tokens": 10, "output_tokens": 3, "total_tokens": 13, "cached_tokens": 4},
            response_metadata={"model_name": "m", "finish_reason": "tool_calls"},
            provider_data={"thought_signature": "sig"}, id="a1"),
        toolwire.ToolMessage("Error: nope", "c1", status="error", artifact={"trace": [1]}, name="f"),
        toolwire.ToolMessage("Error: bad call", "c2", status="error", name="g"),
        toolwire.AIMessage("Done.", name="bot"),
    ]
    as_lc = to_langchain_messages(tw_messages)
    assert [type(m).__name__ for m in as_lc] == ["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage",
                                                 "ToolMessage", "AIMessage"]
    ai = as_lc[2]
    assert ai.tool_calls == [{"name": "f", "args": {"x": 1}, "id": "c1", "type": "tool_call"}]
    assert ai.invalid_tool_calls[0]["args"] == "{bad"
    assert ai.usage_metadata["input_token_details"] == {"cache_read": 4}
    assert (as_lc[3].status, as_lc[3].artifact, as_lc[3].tool_call_id) == ("error", {"trace": [1]}, "c1")
    assert from_langchain_messages(as_lc) == tw_messages

    # LangChain's own forms: chunks, role messages, a single message
    chunk = lc.AIMessageChunk(content="hi", tool_call_chunks=[
        {"name": "f", "args": '{"x": 2}', "id": "k1", "index": 0, "type": "tool_call_chunk"}])
    (got,) = from_langchain_messages([chunk])
    assert got.tool_calls == [{"name": "f", "args": {"x": 2}, "id": "k1", "type": "tool_call"}]
    assert from_langchain_messages(lc.ChatMessage(content="x", role="user")) == [toolwire.HumanMessage("x")]
    with pytest.raises(toolwire.UserError):
        from_langchain_messages([lc.ChatMessage(content="x", role="narrator")])
    assert to_langchain_messages("hello")[0] == lc.HumanMessage("hello")


def test_an_injected_tool_call_id_is_the_models_call_id():
    from toolwire import AIMessage

    @lc_tool
    def remember(fact: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Store a fact."""
        return f"stored by {tool_call_id}"

    tw = from_langchain_tool(remember)
    assert "tool_call_id" not in tw.parameters["properties"]
    [message] = ToolExecutor([tw]).execute(AIMessage("", tool_calls=[
        {"name": "remember", "args": {"fact": "x"}, "id": "call_MODEL_42"}]))
    assert (message.tool_call_id, message.content) == ("call_MODEL_42", "stored by call_MODEL_42")


def test_a_langchain_tool_refuses_keys_its_schema_does_not_declare_injected_ones_included():
    # review 6, finding 1: an InjectedToolArg value or an unknown key from the model used to reach the tool
    @lc_tool
    def lc_add(a: int, b: int = 2, user_id: Annotated[str, InjectedToolArg] = "anon") -> str:
        """Add numbers."""
        return f"{a + b} by {user_id}"

    tw = from_langchain_tool(lc_add)
    assert set(tw.parameters["properties"]) == {"a", "b"}
    # (review 93: the injected one is not called "not a parameter", and the error says how to give it)
    for args, bad in [({"a": 1, "user_id": "evil"}, "'user_id' is not an argument a call may set (got 'evil')"),
                      ({"a": 1, "zzz": 3}, "'zzz' is not a parameter of this tool (got 3)")]:
        with pytest.raises(ToolValidationError) as info:
            tw.invoke(args)
        assert str(info.value).startswith(f"Invalid arguments for tool 'lc_add': {bad}. Its parameters are: a, b.")
        message = tw.invoke({"name": "lc_add", "args": args, "id": "c1", "type": "tool_call"})
        assert message.status == "error" and bad in message.content
    # the declared ones still go through, coerced by LangChain, the injected one at its default
    assert tw.invoke({"a": "5"}) == "7 by anon"  # a "content" tool: its content (review 93)


def test_a_model_sent_tool_call_id_is_refused_and_langchain_fills_it():
    from toolwire import AIMessage

    @lc_tool
    def remember(fact: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Store a fact."""
        return f"stored by {tool_call_id}"

    tw = from_langchain_tool(remember)
    bad, good = ToolExecutor([tw]).execute(AIMessage("", tool_calls=[
        {"name": "remember", "args": {"fact": "x", "tool_call_id": "call_FORGED"}, "id": "call_1"},
        {"name": "remember", "args": {"fact": "y"}, "id": "call_2"}]))
    assert bad.status == "error" and "'tool_call_id' is not an argument a call may set" in bad.content
    assert "stored by" not in bad.content
    assert (good.status, good.content) == ("success", "stored by call_2")


def test_an_async_langchain_tool_refuses_unknown_keys_too():
    from langchain_core.tools import StructuredTool

    async def shout(text: str) -> str:
        return text.upper()

    tw = from_langchain_tool(StructuredTool.from_function(coroutine=shout, name="shout", description="Shout."))
    assert asyncio.run(tw.ainvoke({"text": "hi"})) == "HI"
    with pytest.raises(ToolValidationError, match=r"'loud' is not a parameter of this tool"):
        asyncio.run(tw.ainvoke({"text": "hi", "loud": True}))


def test_a_langchain_tool_with_a_draft07_dict_schema_is_validated_in_draft07():
    # review 6 #3: the schema's $schema was dropped before its validator was built, so draft-07 tuple items
    # were checked as 2020-12 and the tool refused
    from langchain_core.tools import StructuredTool

    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "title": "p",
              "description": "P.", "properties": {"pair": {"type": "array",
                                                           "items": [{"type": "integer"}, {"type": "string"}]}},
              "required": ["pair"]}
    lc = StructuredTool.from_function(func=lambda pair: str(pair), name="p", description="P.", args_schema=schema)
    wrapped = from_langchain_tool(lc)
    assert wrapped.invoke({"pair": [1, "a"]}) == "[1, 'a']"
    bad = wrapped.invoke({"name": "p", "args": {"pair": ["x", 1]}, "id": "1", "type": "tool_call"})
    assert bad.status == "error" and "'x' is not of type 'integer'" in bad.content


def test_review58_a_one_parameter_tool_takes_a_bare_string_and_error_text_is_not_prefixed_twice():
    from toolwire import tool
    from toolwire.interop.langchain import from_langchain_tool, to_langchain_tool

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        return f"sunny in {city}"

    @tool
    def boom(x: int) -> str:
        """Raises."""
        raise ValueError("bad")

    lc = to_langchain_tool(get_weather)
    assert lc.invoke("Paris") == lc.invoke({"city": "Paris"}) == "sunny in Paris"  # as LangChain's own @tool
    assert asyncio.run(lc.ainvoke("Oslo")) == "sunny in Oslo"
    call = {"name": "boom", "args": {"x": 1}, "id": "c1", "type": "tool_call"}
    assert from_langchain_tool(to_langchain_tool(boom)).invoke(call).content == boom.invoke(call).content == (
        "Error: tool 'boom' raised ValueError: bad")
