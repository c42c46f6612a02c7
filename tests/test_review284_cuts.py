"""Review 284: the cut of a tool result whose content is a list.

#3: ``models/_fit.py`` measures a list of records (and strings, input_text parts) by the text the model reads, so such
a result is cut to fit a small context window; #4: a cut ``return_direct`` result of strings or records read back from
storage ends with ``CUT_NOTE``; #6: a tool's own ``status="error"`` result is cut as an error is; #8: OpenAI Responses
text parts (``input_text``, ``output_text``) count toward ``max_result_chars`` and are cut like text blocks.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ToolMessage, tool
from toolwire._agent_direct import CUT_NOTE, direct_output
from toolwire.execution import ToolExecutor
from toolwire.messages import BaseMessage, messages_from_dict, messages_to_dict, tool_call
from toolwire.models._fit import fit_tool_results, floor_size
from toolwire.models.lowering import openai as lowering_openai
from toolwire.models.lowering._common import tool_result_text
from toolwire.results import truncate_content
from toolwire.testing import ScriptedChatModel

MARK = "\n[... result truncated: {} of {} characters cut; ask for a narrower result ...]"
RECORDS = [{"title": f"doc {i}", "body": "lorem ipsum " * 20} for i in range(40)]
RECORDS_TOTAL = sum(len(json.dumps(r, ensure_ascii=False)) for r in RECORDS)


def _measure(messages: Sequence[BaseMessage]) -> int:
    """One token per character the model reads (a tool result as OpenAI's lowering writes it)."""
    return sum(len(tool_result_text(m)) if isinstance(m, ToolMessage) else len(m.text) for m in messages)


def _conversation(content: object) -> list[BaseMessage]:
    return [HumanMessage("find docs"), AIMessage("", tool_calls=[tool_call("search", {}, "c1")]),
            ToolMessage(content, tool_call_id="c1")]  # type: ignore[arg-type]


# -- #3: models/_fit.py measures records --------------------------------------------------------------------------


def test_fit_cuts_a_result_of_records() -> None:
    messages = _conversation(RECORDS)
    assert _measure(messages) > 2_000
    fitted = fit_tool_results(messages, _measure, 2_000)
    assert fitted is not None and fitted[1] == 1
    assert _measure(fitted[0]) <= 2_000
    content = fitted[0][2].content
    assert isinstance(content, list) and isinstance(content[-1], str)
    assert content[-1].endswith(f" of {RECORDS_TOTAL} characters cut; ask for a narrower result ...]")
    assert tool_result_text(fitted[0][2]).count("truncated") == 1
    assert floor_size(messages, _measure) is not None
    assert messages[2].content is RECORDS  # the caller's messages are not changed


def test_fit_of_records_cut_before_keeps_one_marker_counting_the_original() -> None:
    cut = truncate_content(RECORDS, 3_000)
    assert isinstance(cut, list) and cut[-1].endswith(MARK.format(RECORDS_TOTAL - 3_000, RECORDS_TOTAL))
    fitted = fit_tool_results(_conversation(cut), _measure, 1_000)
    assert fitted is not None and fitted[1] == 1
    assert _measure(fitted[0]) <= 1_000
    text = tool_result_text(fitted[0][2])
    assert text.count("truncated") == 1
    assert text.endswith(f" of {RECORDS_TOTAL} characters cut; ask for a narrower result ...]")


def test_fit_of_input_text_parts_cut_before_counts_the_original() -> None:
    cut = truncate_content([{"type": "input_text", "text": "x" * 10_000}], 4_000)
    fitted = fit_tool_results(_conversation(cut), _measure, 1_000)
    assert fitted is not None and fitted[1] == 1
    [part] = fitted[0][2].content
    assert part["type"] == "input_text"
    assert part["text"].endswith(" of 10000 characters cut; ask for a narrower result ...]")
    assert part["text"].count("truncated") == 1


# -- #4: a cut return_direct result of strings or records read back gets CUT_NOTE ---------------------------------


@pytest.mark.parametrize("items", [[f"customer {i}: row data row data" for i in range(30)], RECORDS[:10],
                                   [{"type": "input_text", "text": "row data " * 40}]])
def test_direct_output_of_a_cut_list_read_back_ends_with_the_note(items: list, caplog: pytest.LogCaptureFixture
                                                                   ) -> None:
    cut = truncate_content(items, 100)
    assert cut is not items
    kept = ToolMessage(cut, tool_call_id="c1", name="export")
    with caplog.at_level(logging.WARNING, logger="toolwire.agent"):
        out = direct_output(kept)
    assert out.content[-1] == {"type": "text", "text": CUT_NOTE}
    assert "was cut" in caplog.text


def test_direct_output_of_an_uncut_list_is_the_result() -> None:
    kept = ToolMessage(["a", "b"], tool_call_id="c1", name="export")
    assert direct_output(kept) is kept


@tool(return_direct=True)
def export() -> ToolMessage:
    """Export the customer list."""
    return ToolMessage([f"customer {i}: row data row data" for i in range(30)], tool_call_id="x")


def test_agent_resumed_from_storage_gives_the_cut_strings_with_the_note() -> None:
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=[tool_call("export", {}, "c1")])]), [export],
                  max_result_chars=100)
    saved = messages_to_dict(agent.invoke({"messages": [HumanMessage("export")]})["messages"])
    again = Agent(ScriptedChatModel([AIMessage("should not be called")]), [export], max_result_chars=100)
    result = again.invoke({"messages": messages_from_dict(saved)})
    assert result.stop_reason == "return_direct"
    assert result.output.endswith(CUT_NOTE)


# -- #6: a tool's own error result is cut as an error ------------------------------------------------------------


@tool
def failing_str() -> ToolMessage:
    """F."""
    return ToolMessage("Error: upstream said " + "x" * 100, tool_call_id="x", status="error")


@tool
def failing_list() -> ToolMessage:
    """F."""
    return ToolMessage(["Error: upstream said " + "x" * 100, {"code": 503, "detail": "y" * 50}], tool_call_id="x",
                       status="error")


def test_a_tools_error_result_keeps_error_and_gets_the_error_marker() -> None:
    executor = ToolExecutor([failing_str, failing_list], max_result_chars=3)
    text, items = executor.execute(AIMessage("", tool_calls=[tool_call("failing_str", {}, "a"),
                                                             tool_call("failing_list", {}, "b")]))
    assert text.status == items.status == "error"
    assert text.content == "Error:\n[... error text truncated: 115 of 121 characters cut ...]"
    total = 121 + len(json.dumps({"code": 503, "detail": "y" * 50}))
    assert items.content == [f"Error:\n[... error text truncated: {total - 6} of {total} characters cut ...]"]


def test_truncate_content_error_list() -> None:
    blocks = [{"type": "text", "text": "Error: bad"}, {"type": "image", "url": "u"}]
    assert truncate_content(blocks, 1, error=True) == [
        {"type": "text", "text": "Error:\n[... error text truncated: 4 of 10 characters cut ...]"},
        {"type": "image", "url": "u"}]
    assert truncate_content(blocks, 10, error=True) is blocks


# -- #8: Responses text parts count toward the limit -------------------------------------------------------------


@pytest.mark.parametrize("kind", ["input_text", "output_text"])
def test_truncate_content_counts_responses_text_parts(kind: str) -> None:
    parts = [{"type": kind, "text": "abc"}, {"type": kind, "text": "defgh"}]
    assert truncate_content(parts, 8) is parts
    assert truncate_content(parts, 5) == [{"type": kind, "text": "abc"}, {"type": kind, "text": "de" + MARK.format(
        3, 8)}]


@tool
def report() -> ToolMessage:
    """Report."""
    return ToolMessage([{"type": "input_text", "text": "row data " * 2000}], tool_call_id="x")


def test_executor_cuts_input_text_and_responses_sends_the_cut() -> None:
    [message] = ToolExecutor([report], max_result_chars=100).execute(
        AIMessage("", tool_calls=[tool_call("report", {}, "c1")]))
    [part] = message.content
    assert part == {"type": "input_text", "text": ("row data " * 2000)[:100] + MARK.format(17_900, 18_000)}
    lowered = lowering_openai.lower_responses_messages(
        [HumanMessage("hi"), AIMessage("", tool_calls=[tool_call("report", {}, "c1")]), message])[-1]
    assert len(json.dumps(lowered)) < 400


@tool(return_direct=True)
def failing_export() -> ToolMessage:
    """F."""
    return ToolMessage("Error: upstream said " + "x" * 500, tool_call_id="x", status="error")


def test_an_agents_return_direct_tool_error_result_is_cut_as_an_error() -> None:
    agent = Agent(ScriptedChatModel([AIMessage("", tool_calls=[tool_call("failing_export", {}, "c1")]),
                                     AIMessage("sorry")]), [failing_export], max_result_chars=20)
    result = agent.invoke({"messages": [HumanMessage("export")]})
    [error] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert error.status == "error"
    assert error.content == "Error: upstream said\n[... error text truncated: 501 of 521 characters cut ...]"
