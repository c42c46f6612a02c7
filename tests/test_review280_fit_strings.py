"""A tool result whose content is a list of plain strings, cut by the executor (review 280 #1 made
``truncate_content`` count them), is cut again for a small context window with one marker counting against its
original size, as a list of text blocks is (``models/_fit.py``)."""

from __future__ import annotations

from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.messages import tool_call
from toolwire.models._fit import fit_tool_results
from toolwire.results import truncate_content


def test_a_string_list_cut_again_has_one_marker_counting_against_its_original_size() -> None:
    strings = truncate_content(["a" * 30_000, "b" * 30_000], 40_000)
    assert isinstance(strings, list) and strings[-1].endswith("narrower result ...]")
    messages = [HumanMessage("q"), AIMessage("", tool_calls=[tool_call("t", {}, "c1")]),
                ToolMessage(strings, tool_call_id="c1")]
    fitted = fit_tool_results(messages, lambda shown: 150 + sum(len(m.text) // 3 for m in shown), 1_500)
    assert fitted is not None and fitted[1] == 1
    text = fitted[0][2].text
    assert text.count("truncated") == 1
    assert text.endswith(" of 60000 characters cut; ask for a narrower result ...]")
