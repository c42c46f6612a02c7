"""Review 160 #3: under ``dialect="template"`` tool results reach the model's own chat template in call order, one per
call, as the hosted providers get them (``group_messages``), and an invalid call is a call its error result answers.

Rendered through the dialect and :class:`ChatTemplate` only (no model is loaded), with Qwen2.5-Coder's template, which
writes each result as a bare ``<tool_response>`` that the model pairs with a call by its place."""

from __future__ import annotations

import logging

from test_dialects import QWEN_TEMPLATE, WEATHER
from toolwire.messages import AIMessage, HumanMessage, ToolMessage, tool_call
from toolwire.models.dialects import ChatTemplate, get_dialect
from toolwire.models.lowering.openai import lower_messages

TOOLS = [WEATHER]


def _render(messages):
    chat = get_dialect("template", QWEN_TEMPLATE).render(messages, TOOLS)
    return chat, ChatTemplate(QWEN_TEMPLATE).render(chat)


def _parallel_turn():
    return AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Paris"}, "c1"),
                                     tool_call("get_weather", {"city": "London"}, "c2")])


def _tool_turns(chat):
    return [(m["tool_call_id"], m["content"]) for m in chat.messages if m["role"] == "tool"]


def test_results_appended_out_of_order_go_back_in_call_order():
    conv = [HumanMessage("Weather in Paris and London?"), _parallel_turn(),
            ToolMessage("rainy", tool_call_id="c2", name="get_weather"),  # finished first (asyncio.as_completed)
            ToolMessage("sunny", tool_call_id="c1", name="get_weather")]
    chat, prompt = _render(conv)
    assert _tool_turns(chat) == [("c1", "sunny"), ("c2", "rainy")]
    assert prompt.index("<tool_response>\nsunny") < prompt.index("<tool_response>\nrainy")
    # the order the hosted lowerings send
    assert [m["tool_call_id"] for m in lower_messages(conv) if m["role"] == "tool"] == ["c1", "c2"]


def test_of_several_results_for_one_call_the_last_is_sent(caplog):
    conv = [HumanMessage("Weather in Paris?"), AIMessage("", tool_calls=[tool_call("get_weather", {"city": "Paris"},
                                                                                   "c1")]),
            ToolMessage("Error: timeout", tool_call_id="c1", name="get_weather", status="error"),
            ToolMessage("sunny", tool_call_id="c1", name="get_weather")]
    with caplog.at_level(logging.WARNING, logger="toolwire.lowering"):
        chat, prompt = _render(conv)
    assert _tool_turns(chat) == [("c1", "sunny")]
    assert "timeout" not in prompt
    assert "several results" in caplog.text


def test_a_result_appended_after_a_user_message_goes_back_to_its_call():
    conv = [HumanMessage("Weather in Paris and London?"), _parallel_turn(),
            ToolMessage("sunny", tool_call_id="c1", name="get_weather"),
            HumanMessage("And quickly please."),
            ToolMessage("rainy", tool_call_id="c2", name="get_weather")]
    chat, _ = _render(conv)
    roles = [m["role"] for m in chat.messages if m["role"] != "system"]
    assert roles == ["user", "assistant", "tool", "tool", "user"]
    assert _tool_turns(chat) == [("c1", "sunny"), ("c2", "rainy")]


def test_a_result_of_no_call_is_a_user_turn_saying_what_it_is_and_a_stale_call_gets_an_error():
    conv = [HumanMessage("Weather in Paris and London?"), _parallel_turn(),
            ToolMessage("sunny", tool_call_id="c1", name="get_weather"),
            ToolMessage("cloudy", tool_call_id="zz", name="get_weather"),
            HumanMessage("Thanks.")]
    chat, _ = _render(conv)
    assert [c for c, _ in _tool_turns(chat)] == ["c1", "c2"]  # c2 answered: the conversation went on without it
    assert "was not run" in _tool_turns(chat)[1][1]
    orphan = [m["content"] for m in chat.messages if m["role"] == "user" and "cloudy" in m["content"]]
    assert orphan and "'zz'" in orphan[0]


def test_an_invalid_call_is_a_call_its_error_result_answers():
    """explore11: an invalid call written as text, its error a ``<tool_response>``: 1 call and 2 responses, the error
    lining up with the valid call. Now both are calls, in the order the model made them."""
    bad = {"name": "get_weather", "args": '{"city": "Paris"', "id": "c1", "error": "not JSON", "index": 0,
           "type": "invalid_tool_call"}
    conv = [HumanMessage("Weather in Paris and London?"),
            AIMessage("", tool_calls=[tool_call("get_weather", {"city": "London"}, "c2")], invalid_tool_calls=[bad]),
            ToolMessage("Error: the arguments are not valid JSON", tool_call_id="c1", name="get_weather",
                        status="error"),
            ToolMessage("rainy", tool_call_id="c2", name="get_weather")]
    chat, prompt = _render(conv)
    calls = next(m for m in chat.messages if m["role"] == "assistant")["tool_calls"]
    assert [(c["id"], c["function"]["arguments"]) for c in calls] == [("c1", '{"city": "Paris"'),
                                                                     ("c2", {"city": "London"})]
    assert [c for c, _ in _tool_turns(chat)] == ["c1", "c2"]
    answer = prompt.split("<|im_start|>user\nWeather")[1]
    assert answer.count("<tool_call>") == answer.count("<tool_response>") == 2
    assert answer.index("Error: the arguments") < answer.index("rainy")


def test_a_call_with_no_name_is_written_under_a_name_the_template_can_show():
    bad = {"name": None, "args": "garbage", "id": "c1", "error": "no name", "type": "invalid_tool_call"}
    conv = [HumanMessage("Weather?"), AIMessage("", invalid_tool_calls=[bad]),
            ToolMessage("Error: no function named", tool_call_id="c1", status="error")]
    chat, prompt = _render(conv)
    assert chat.messages[-2]["tool_calls"][0]["function"] == {"name": "unknown_tool", "arguments": "garbage"}
    assert '"name": "unknown_tool"' in prompt


def test_the_pythonic_and_json_dialects_write_results_in_call_order_too():
    # (review 195 #3: the same rule as template and the hosted providers; review 160 had left them as appended)
    conv = [HumanMessage("Weather in Paris and London?"), _parallel_turn(),
            ToolMessage("rainy", tool_call_id="c2", name="get_weather"),
            ToolMessage("sunny", tool_call_id="c1", name="get_weather")]
    text = get_dialect("json").render(conv, TOOLS).messages[-1]["content"]
    assert text.index("Paris") < text.index("London")
