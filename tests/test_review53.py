"""Review 53 (the faults of ``shared/cases/tool-calling-cases.md``, each tried in variations; no model loaded):

1. Two results for one call id (a retried tool) were both sent: OpenAI Chat and Anthropic refuse the request.
   A call that a plain ``model.invoke`` conversation went on past without a result was sent unanswered too.
2. Gemini: a ``dict[str, Model]`` parameter (sent as JSON text) named only "each value of type object", so the
   model never saw the value's fields.
3. Gemini: the call ids a reply carried were not sent back in the ``function_call`` and ``function_response``
   parts (only replies with thought signatures kept their parts).
4. A bare Python-dict call nested 63 levels deep was returned as prose: no call, no invalid call.
5. ``strict=True`` on Anthropic or Gemini was silently not applied.
6. ``<|python_tag|>`` followed by a fenced JSON call was an invalid call.
"""

from __future__ import annotations

import logging
import warnings

import pytest
from pydantic import BaseModel, Field

from toolwire import AIMessage, HumanMessage, ToolMessage, tool
from toolwire.messages import tool_call
from toolwire.models.lowering import anthropic as anthropic_codec
from toolwire.models.lowering import gemini as gemini_codec
from toolwire.models.lowering import openai as openai_codec
from toolwire.models.lowering._gemini_schema import gemini_schema
from toolwire.models.lowering.openai import StrictSchemaWarning
from toolwire.parsing import parse_tool_calls

TWO_CALLS = AIMessage("", tool_calls=[tool_call("t", {"i": 1}, "a1"), tool_call("t", {"i": 2}, "a2")])


# -- 1 -------------------------------------------------------------------------------------------------


def test_a_retried_call_sends_its_last_result_only(caplog: pytest.LogCaptureFixture) -> None:
    conversation = [HumanMessage("q"), TWO_CALLS, ToolMessage("timed out", tool_call_id="a1", status="error"),
                    ToolMessage("r2", tool_call_id="a2"), ToolMessage("r1", tool_call_id="a1")]
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        sent = openai_codec.lower_messages(conversation)
    assert [(m["role"], m.get("tool_call_id"), m.get("content")) for m in sent[2:]] == [
        ("tool", "a1", "r1"), ("tool", "a2", "r2")]
    assert "tool call a1 has several results: the request sends the last" in caplog.text
    _, blocks = anthropic_codec.lower_messages(conversation)
    assert [(b["tool_use_id"], b["content"]) for b in blocks[-1]["content"]] == [("a1", "r1"), ("a2", "r2")]
    assert conversation[2].content == "timed out"  # the conversation itself keeps both


def test_a_call_the_conversation_went_on_past_gets_an_error_result_in_the_request() -> None:
    conversation = [HumanMessage("q"), TWO_CALLS, ToolMessage("r2", tool_call_id="a2"), HumanMessage("and now?")]
    sent = openai_codec.lower_messages(conversation)
    assert [(m["role"], m.get("tool_call_id")) for m in sent] == [
        ("user", None), ("assistant", None), ("tool", "a1"), ("tool", "a2"), ("user", None)]
    assert sent[2]["content"] == "Error: tool 't' was not run: the conversation went on without its result."
    # the last turn's calls with nothing after them are left as they are (the caller is about to answer them)
    pending = openai_codec.lower_messages([HumanMessage("q"), TWO_CALLS])
    assert [m["role"] for m in pending] == ["user", "assistant"]


# -- 2 -------------------------------------------------------------------------------------------------


class Order(BaseModel):
    sku: str = Field(description="stock keeping unit")
    qty: int


@tool
def place(orders_by_customer: dict[str, Order], counts: dict[str, int] | None = None) -> str:
    """Place orders.

    Args:
        orders_by_customer: each customer's order.
        counts: how many of each.
    """
    return "ok"


def test_gemini_writes_a_map_value_schema_into_its_description() -> None:
    schema, _ = gemini_schema(place.parameters, "place")
    assert schema is not None
    orders = schema["properties"]["orders_by_customer"]["description"]
    assert orders.startswith("each customer's order. (A JSON object written as a string")
    assert '"sku":{"description":"stock keeping unit","type":"string"}' in orders and '"qty"' in orders
    assert schema["properties"]["counts"]["description"].endswith("each value of type integer.)")


# -- 3 -------------------------------------------------------------------------------------------------


def test_gemini_call_ids_go_back_with_the_calls_and_their_results() -> None:
    reply = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"id": "g-1", "name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"id": "g-2", "name": "get_weather", "args": {"city": "Rome"}}}]}, "finishReason": "STOP"}]}
    ai = gemini_codec.parse_response(reply)
    assert [c["id"] for c in ai.tool_calls] == ["g-1", "g-2"]
    _, contents = gemini_codec.lower_messages([HumanMessage("q"), ai, ToolMessage("sunny", tool_call_id="g-1"),
                                               ToolMessage("rain", tool_call_id="g-2")])
    assert [p["function_call"]["id"] for p in contents[1]["parts"]] == ["g-1", "g-2"]
    assert [p["function_response"]["id"] for p in contents[2]["parts"]] == ["g-1", "g-2"]
    # a reply without ids keeps none (toolwire's own ids are not Gemini's)
    plain = gemini_codec.parse_response({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}, "finishReason": "STOP"}]})
    _, contents = gemini_codec.lower_messages([HumanMessage("q"), plain, ToolMessage("sunny",
                                                                                    tool_call_id=plain.tool_calls[0]["id"])])
    assert "id" not in contents[1]["parts"][0]["function_call"] and "id" not in contents[2]["parts"][0][
        "function_response"]


# -- 4, 6 ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [63, 200, 2000])
@pytest.mark.parametrize("quote", ["'", '"'])
def test_a_bare_call_nested_too_deeply_is_an_invalid_call(depth: int, quote: str) -> None:
    text = f"{{{quote}name{quote}: {quote}get_config{quote}, {quote}arguments{quote}: {{{quote}x{quote}: " + \
        "[" * depth + "]" * depth + "}}"
    parsed = parse_tool_calls(text, ["get_config"])
    if quote == '"' and depth < 64:  # JSON is read up to 64 levels (MAX_DEPTH since review 75; 900 before)
        assert parsed.tool_calls and not parsed.invalid_tool_calls
        return
    assert not parsed.tool_calls and [bad["name"] for bad in parsed.invalid_tool_calls] == ["get_config"]
    assert "nested too deeply" in parsed.invalid_tool_calls[0]["error"]
    read = quote == '"' and depth < 900  # decoded, then refused past MAX_DEPTH: its arguments' text is kept
    assert parsed.invalid_tool_calls[0]["args"] == (text[text.index('{"x"'):-1] if read else text)  # the raw text


def test_deep_text_naming_no_bound_tool_stays_text_and_is_read_quickly() -> None:
    text = "{'name': 'other', 'arguments': " * 10000 + "[" * 2000
    parsed = parse_tool_calls(text, ["get_config"])  # (reading on inside it took seconds)
    assert not parsed.tool_calls and not parsed.invalid_tool_calls and parsed.content == text


@pytest.mark.parametrize("fence", ["```json\n", "```\n", "```tool_call\n"])
def test_python_tag_then_a_fenced_call(fence: str) -> None:
    text = f'<|python_tag|>{fence}{{"name": "web_search", "parameters": {{"q": "rain"}}}}\n```<|eom_id|>'
    parsed = parse_tool_calls(text, ["web_search"])
    assert [(c["name"], c["args"]) for c in parsed.tool_calls] == [("web_search", {"q": "rain"})]
    assert not parsed.invalid_tool_calls and parsed.content == ""


# -- 5 -------------------------------------------------------------------------------------------------


def test_strict_on_a_provider_without_strict_mode_warns() -> None:
    from toolwire.models import ChatAnthropic, ChatGoogleGenAI, ChatOpenAI

    pytest.importorskip("anthropic")
    pytest.importorskip("google.genai")
    with pytest.warns(StrictSchemaWarning, match=r": strict=True is not sent \(toolwire lowers schemas to OpenAI's "):
        ChatGoogleGenAI("gemini", api_key="k").bind_tools([place], strict=True)
    # providers with a strict mode say why this tool cannot use it, at the bind line (review 98 #9, session 38)
    with pytest.warns(StrictSchemaWarning, match=r"^Tool 'place' cannot use OpenAI strict mode \(an object with "
                                                 r"free-form keys\)") as caught:
        ChatOpenAI("gpt", api_key="k").bind_tools([place], strict=True)
    assert caught[0].filename == __file__
    with pytest.warns(StrictSchemaWarning, match=r"^Tool 'place' cannot use Anthropic strict tool use \(an object "
                                                 r"that takes keys"):
        ChatAnthropic("claude", api_key="k").bind_tools([place], strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ChatAnthropic("claude", api_key="k").bind_tools([place], strict=False)


def test_a_last_turn_answered_in_part_gets_an_error_result_for_the_rest() -> None:
    # review 72: [Human, AI(a1, a2), Tool(a2)] was sent as it is, which OpenAI, Anthropic and Gemini all refuse
    conversation = [HumanMessage("q"), TWO_CALLS, ToolMessage("r2", tool_call_id="a2")]
    sent = openai_codec.lower_messages(conversation)
    assert [(m["role"], m.get("tool_call_id")) for m in sent] == [
        ("user", None), ("assistant", None), ("tool", "a1"), ("tool", "a2")]
    assert sent[2]["content"] == "Error: tool 't' was not run: the conversation went on without its result."
    _, blocks = anthropic_codec.lower_messages(conversation)
    assert [b["tool_use_id"] for b in blocks[-1]["content"]] == ["a1", "a2"]
    _, contents = gemini_codec.lower_messages(conversation)  # by position: a1's error first, then a2's result
    assert [p["function_response"]["response"] for p in contents[-1]["parts"]] == [
        {"error": "Error: tool 't' was not run: the conversation went on without its result."}, {"result": "r2"}]
