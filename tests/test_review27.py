"""Review 27: porting LangChain tool-calling code to toolwire. Each test failed before its fix."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import AIMessage, HumanMessage, SystemMessage, ToolExecutor, UserError, message_from_dict
from toolwire.messages import tool_call

lc = pytest.importorskip("langchain_core.messages")
lc_tools = pytest.importorskip("langchain_core.tools")

from toolwire.interop.langchain import (  # noqa: E402
    from_langchain_messages,
    from_langchain_tool,
    to_langchain_messages,
)

# -- 1: LangChain's single-input Tool (``Tool(name, func, description)``) could never be called ------------------


def _old_style_tool():
    return lc_tools.Tool(name="Search", func=lambda query: f"results for {query}", description="Search the web.")


def test_single_input_langchain_tool_runs_with_the_schema_the_model_sees() -> None:
    """The model is offered ``{"__arg1": string}``, but the arguments were checked against the tool_call_schema
    LangChain makes from ``Tool._run(*args, config, **kwargs)``: every call failed with "'config' is required"."""
    tool = from_langchain_tool(_old_style_tool())
    assert list(tool.parameters["properties"]) == ["__arg1"]
    call = tool_call("Search", {"__arg1": "paris"}, "c1")
    (answer,) = ToolExecutor([_old_style_tool()]).execute(AIMessage("", tool_calls=[call]))
    assert (answer.status, answer.content, answer.tool_call_id) == ("success", "results for paris", "c1")
    (answer,) = asyncio.run(ToolExecutor([_old_style_tool()]).aexecute(AIMessage("", tool_calls=[call])))
    assert answer.content == "results for paris"


def test_single_input_langchain_tool_still_refuses_other_keys() -> None:
    bad = tool_call("Search", {"q": "paris"}, "c2")
    (answer,) = ToolExecutor([_old_style_tool()]).execute(AIMessage("", tool_calls=[bad]))
    assert answer.status == "error"
    assert "'q' is not a parameter" in answer.content and "__arg1" in answer.content


def test_structured_langchain_tool_keeps_pydantic_checks() -> None:
    @lc_tools.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    tool = from_langchain_tool(add)
    with pytest.raises(Exception, match="'c' is not a parameter"):
        tool.invoke({"a": 1, "b": 2, "c": 3})
    answer = tool.invoke(tool_call("add", {"a": "2", "b": 3}, "c9"))  # pydantic's coercion, as LangChain does
    assert (answer.content, answer.tool_call_id) == ("5", "c9")


# -- 2: from_langchain_messages dropped an AI message's additional_kwargs ----------------------------------------


def _lc_ai():
    return lc.AIMessage(
        "x", id="m1", response_metadata={"model_name": "m"},
        additional_kwargs={"refusal": "no", "reasoning_content": "think", "toolwire_provider_data": {"p": 1},
                           "tool_calls": [{"id": "c1", "type": "function",
                                           "function": {"name": "f", "arguments": '{"x": 1}'}}]},
    )


def test_from_langchain_messages_keeps_additional_kwargs_like_message_from_dict() -> None:
    """``reasoning_content`` (DeepSeek through LangChain) and ``refusal`` were lost, while reading the same message
    from ``messages_to_dict`` kept them."""
    (got,) = from_langchain_messages([_lc_ai()])
    assert got.response_metadata == {"model_name": "m", "refusal": "no",
                                     "additional_kwargs": {"reasoning_content": "think"}}
    assert got.provider_data == {"p": 1}
    assert got.tool_calls == [tool_call("f", {"x": 1}, "c1")]
    assert got == message_from_dict(lc.messages_to_dict([_lc_ai()])[0])


def test_additional_kwargs_go_back_to_langchain() -> None:
    (back,) = to_langchain_messages(from_langchain_messages([_lc_ai()]))
    # the refusal too, where LangChain's ChatOpenAI keeps it (review 76)
    assert back.additional_kwargs == {"refusal": "no", "reasoning_content": "think", "toolwire_provider_data": {"p": 1}}
    assert "additional_kwargs" not in back.response_metadata and "refusal" not in back.response_metadata
    plain = lc.AIMessage("y", response_metadata={"model_name": "m"})
    assert from_langchain_messages([plain])[0].response_metadata == {"model_name": "m"}


# -- 3: items that are not LangChain messages crashed from_langchain_messages with AttributeError ----------------


def test_from_langchain_messages_reads_what_toolwire_reads() -> None:
    assert from_langchain_messages([("system", "be brief"), ("user", "hi")]) == [SystemMessage("be brief"),
                                                                                HumanMessage("hi")]
    assert from_langchain_messages("hello") == [HumanMessage("hello")]  # not one message per character
    assert from_langchain_messages([{"role": "user", "content": "hi"}, lc.AIMessage("yo")]) == [
        HumanMessage("hi"), AIMessage("yo")]
    assert from_langchain_messages([AIMessage("mine")]) == [AIMessage("mine")]


@pytest.mark.parametrize("value", [None, 5, [None], [object()]])
def test_from_langchain_messages_refuses_other_values_in_one_sentence(value) -> None:
    with pytest.raises(UserError):
        from_langchain_messages(value)


# -- 4: an OpenAI image block's "detail" was dropped before the request ------------------------------------------


@pytest.mark.parametrize("url", ["https://example.org/cat.png", "data:image/png;base64,iVBORw0KGgo="])
def test_openai_image_detail_is_sent(url) -> None:
    """``{"type": "image_url", "image_url": {"url", "detail": "low"}}`` reached OpenAI without ``detail``, so the
    image was billed and read at the default detail the user had turned down."""
    from toolwire.models.base import ChatRequest
    from toolwire.models.lowering import anthropic, gemini, openai

    block = {"type": "image_url", "image_url": {"url": url, "detail": "low"}}
    request = ChatRequest([HumanMessage([{"type": "text", "text": "what is it?"}, block])])
    chat = openai.lower_request(request, "gpt-5-mini")["messages"][0]["content"][1]
    assert chat == {"type": "image_url", "image_url": {"url": url, "detail": "low"}}
    responses = openai.lower_responses_request(request, "gpt-5-mini")["input"][0]["content"][1]
    assert responses == {"type": "input_image", "image_url": url, "detail": "low"}
    plain = ChatRequest([HumanMessage([{"type": "image_url", "image_url": {"url": url}}])])
    assert openai.lower_request(plain, "m")["messages"][0]["content"][0] == {"type": "image_url",
                                                                            "image_url": {"url": url}}
    assert "detail" not in openai.lower_responses_request(plain, "m")["input"][0]["content"][0]
    # the other providers have no such setting: their image parts are unchanged
    assert "detail" not in str(anthropic.lower_request(request, "c")["messages"])
    assert "detail" not in str(gemini.lower_request(request, "gemini-2.5-flash")["contents"])


# -- 5: a LangChain ChatAnthropic turn lost its thinking blocks when sent to Anthropic by toolwire ---------------


def test_thinking_blocks_in_langchain_content_reach_anthropic() -> None:
    """LangChain keeps Claude's thinking blocks in the AIMessage's content; toolwire sent only the text and the
    tool_use, and Anthropic refuses a tool-use turn of a thinking conversation without its thinking block."""
    from toolwire.models.base import ChatRequest
    from toolwire.models.lowering import anthropic

    turn = lc.AIMessage(
        content=[{"type": "thinking", "thinking": "add them", "signature": "sig==", "index": 0},
                 {"type": "redacted_thinking", "data": "opaque", "index": 1},
                 {"type": "text", "text": "Let me add.", "index": 2},
                 {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1}, "index": 3}],
        tool_calls=[{"name": "add", "args": {"a": 1}, "id": "toolu_1"}])
    conversation = from_langchain_messages([lc.HumanMessage("1 + 1?"), turn,
                                            lc.ToolMessage("2", tool_call_id="toolu_1")])
    sent = anthropic.lower_request(ChatRequest(conversation), "claude-sonnet-4-6")["messages"][1]
    assert sent == {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "add them", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Let me add."},
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1}}]}
    plain = AIMessage([{"type": "text", "text": "hi"}])
    assert anthropic.lower_request(ChatRequest([HumanMessage("q"), plain]), "c")["messages"][1]["content"] == [
        {"type": "text", "text": "hi"}]


# -- 6: a TypedDict class in bind_tools (a LangChain schema tool) failed with an unclear signature error ---------


def test_a_typeddict_tool_is_taken_as_a_schema_only_tool() -> None:
    """It failed with "Cannot read the signature of <class 'TD'>: no signature found for builtin type <class
    'dict'>", which names no way out; then it was refused in one sentence; since review 71 it is taken as
    LangChain takes it (a schema-only tool, as ``with_structured_output`` reads one)."""
    import typing

    import typing_extensions

    from toolwire.testing import ScriptedChatModel
    from toolwire.tools import ToolSpec

    class Plain(typing.TypedDict):
        """Record a person."""

        name: str

    class Extended(typing_extensions.TypedDict):
        """Record a person."""

        name: str

    for schema in (Plain, Extended):
        [spec] = ScriptedChatModel(["ok"]).bind_tools([schema]).tools
        assert type(spec) is ToolSpec
        assert (spec.name, spec.description) == (schema.__name__, "Record a person.")
        assert spec.parameters["properties"] == {"name": {"type": "string"}}
        assert spec.parameters["required"] == ["name"]
