"""Review 209: #1 a call drafted in a ``<think>`` block after a real marked call is not read also when a call line
cut off before the block (or a line of another format) is read as an invalid call that runs on over the block: only
a ``<think>`` quoted inside a call read whole counts as quoted text, in invoke and stream alike; #2 a Responses
stream whose ``response.output_item.added`` was lost takes the call's name and ``call_id`` from
``response.output_item.done`` (or ``response.completed``), as invoke reads them.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from test_review202_think import _streamed  # (the same reader, the same NAMES)
from toolwire.chunks import merge_chunks
from toolwire.models._text_calls import read_text_calls

NAMES = ("delete_file", "web_search")
DRAFT_PY = ('<think>Maybe also <|python_tag|>{"name": "delete_file", "parameters": {"path": "/home/me/report.docx"}}'
            " - no.</think>")
DRAFT_HERMES = ('<think>Maybe also <tool_call>{"name": "delete_file", "arguments": {"path": "/home/me/report.docx"}}'
                "</tool_call> - no.</think>")
PY = '<|python_tag|>{"name": "web_search", "parameters": {"q": "rain"}}'
MI = '[TOOL_CALLS] [{"name": "web_search", "arguments": {"q": "rain"}}]'
HERMES = '<tool_call>{"name": "web_search", "arguments": {"q": "rain"}}</tool_call>'
RAIN = [("web_search", {"q": "rain"})]


def _read(text: str) -> tuple[str, list[tuple[str, Any]], list[Any]]:
    """read_text_calls' (content, [(name, args)], invalid), checked equal to the stream's at several chunk sizes."""
    found = read_text_calls(text, NAMES)
    assert found is not None
    content, calls, invalid = found
    for size in (1, 5, 17, len(text)):
        s_content, s_calls, s_invalid = _streamed(text, size)
        assert s_content == content
        assert [(c["name"], c["args"]) for c in s_calls] == [(c["name"], c["args"]) for c in calls]
        assert [(c["name"], c["args"]) for c in s_invalid] == [(c["name"], c["args"]) for c in invalid]
    return content, [(c["name"], c["args"]) for c in calls], invalid


@pytest.mark.parametrize("text", [
    PY + '\n{"name": "web_search", "parameters": {"q": "sn\n' + DRAFT_PY,
    PY + "\n" + MI + "\n" + DRAFT_PY,
    PY + '\n{"name": "web_search", "parameters": {"q": "sn\n' + DRAFT_PY + "\nThat is all.",
    HERMES + '\n<tool_call>{"name": "web_search", "arguments": {"q": "sn\n' + DRAFT_HERMES,
    MI + '\n[TOOL_CALLS] [{"name": "web_search", "arguments": {"q": "sn\n' + DRAFT_PY,
], ids=["python_tag-cut", "python_tag-then-mistral", "python_tag-cut-then-prose", "hermes-cut", "mistral-cut"])
def test_a_call_drafted_after_a_call_cut_off_before_the_block_is_not_read(text: str) -> None:
    content, calls, invalid = _read(text)
    assert calls == RAIN
    assert len(invalid) == 1
    assert "delete_file" not in str(invalid[0]["args"])  # (the block ends the cut call's text ...)
    assert "<think>Maybe also" in content  # (... and stays in the text where it stood)


def test_a_think_quoted_in_an_unknown_tools_closed_call_stays_in_that_call() -> None:
    text = PY + '\n{"name": "nope", "parameters": {"q": "x <think> y"}}\nDone.</think> bye'
    content, calls, invalid = _read(text)
    assert calls == RAIN
    assert [c["name"] for c in invalid] == ["nope"]
    assert "x <think> y" in invalid[0]["args"]
    assert "Done.</think> bye" in content


def test_a_think_quoted_in_a_valid_call_after_a_cut_one_still_stays_quoted() -> None:
    text = PY + '\n{"name": "web_search", "parameters": {"q": "a <think> b"}}\n' + DRAFT_PY
    content, calls, invalid = _read(text)
    assert calls == [*RAIN, ("web_search", {"q": "a <think> b"})]
    assert not invalid
    assert "delete_file" in content


def test_many_blocks_after_a_cut_call_are_read_in_linear_time() -> None:
    text = PY + '\n{"name": "web_search", "parameters": {"q": "sn\n' + DRAFT_PY * 4000
    began = time.perf_counter()
    found = read_text_calls(text, NAMES)
    assert found is not None
    assert [(c["name"], c["args"]) for c in found[1]] == RAIN
    assert time.perf_counter() - began < 5.0  # (linear: about a second on a loaded machine)


# ------------------------------------------------------------------ 2. Responses stream without output_item.added


FC = {"id": "fc_1", "type": "function_call", "status": "completed", "arguments": '{"city":"Paris"}',
      "call_id": "call_1", "name": "get_weather"}
FC2 = {"id": "fc_2", "type": "function_call", "status": "completed", "arguments": '{"city":"Oslo"}',
       "call_id": "call_2", "name": "get_weather"}
R0 = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5-mini", "output": []}
FULL = {**R0, "status": "completed", "output": [FC]}
CREATED = {"type": "response.created", "response": R0}


def _delta(item: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return {"type": "response.function_call_arguments.delta", "output_index": index, "item_id": item["id"],
            "delta": item["arguments"]}


def _args_done(item: dict[str, Any], index: int = 0, **extra: Any) -> dict[str, Any]:
    return {"type": "response.function_call_arguments.done", "output_index": index, "item_id": item["id"],
            "arguments": item["arguments"], **extra}


def _item_done(item: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def _folded(events: list[dict[str, Any]]) -> tuple[list[tuple[Any, Any, Any]], list[Any]]:
    from toolwire.models.lowering.openai import ResponsesStreamState

    state = ResponsesStreamState()
    chunks = [c for c in (state.feed(e) for e in events) if c is not None] + [state.finish()]
    message = merge_chunks(chunks, as_chunk=False)
    return [(c["name"], c["args"], c["id"]) for c in message.tool_calls], message.invalid_tool_calls


def _invoked(response: dict[str, Any]) -> tuple[list[tuple[Any, Any, Any]], list[Any]]:
    from toolwire.models.lowering.openai import parse_responses_response

    message = parse_responses_response(response)
    return [(c["name"], c["args"], c["id"]) for c in message.tool_calls], message.invalid_tool_calls


COMPLETED = {"type": "response.completed", "response": FULL}
NO_ADDED = {
    "deltas, arguments done, item done": [CREATED, _delta(FC), _args_done(FC), _item_done(FC), COMPLETED],
    "arguments done, item done": [CREATED, _args_done(FC), _item_done(FC), COMPLETED],
    "arguments done with the name, item done": [CREATED, _args_done(FC, name="get_weather"), _item_done(FC),
                                                COMPLETED],
    "arguments done, then only the completed output": [CREATED, _args_done(FC), COMPLETED],
    "deltas, then only the completed output": [CREATED, _delta(FC), COMPLETED],
}


@pytest.mark.parametrize("case", list(NO_ADDED))
def test_a_call_no_output_item_added_opened_takes_its_name_and_call_id_later(case: str) -> None:
    assert _folded(NO_ADDED[case]) == _invoked(FULL) == ([("get_weather", {"city": "Paris"}, "call_1")], [])


def test_two_parallel_calls_without_output_item_added_keep_their_ids_and_order() -> None:
    both = {**FULL, "output": [FC, FC2]}
    events = [CREATED, _args_done(FC), _args_done(FC2, 1), _item_done(FC), _item_done(FC2, 1),
              {"type": "response.completed", "response": both}]
    assert _folded(events) == _invoked(both)
    assert [c[2] for c in _folded(events)[0]] == ["call_1", "call_2"]


def test_a_call_whose_id_never_comes_still_runs_under_a_generated_one_at_the_end() -> None:
    nameless = {k: v for k, v in FC.items() if k != "call_id"}
    events = [CREATED, _args_done(FC, name="get_weather"), _item_done(nameless),
              {"type": "response.completed", "response": {**FULL, "output": []}}]
    calls, invalid = _folded(events)
    assert [(name, args) for name, args, _ in calls] == [("get_weather", {"city": "Paris"})]
    assert calls[0][2] and not invalid


def test_a_call_opened_by_output_item_added_still_goes_out_at_once() -> None:
    from toolwire.models.lowering.openai import ResponsesStreamState

    state = ResponsesStreamState()
    state.feed(CREATED)
    added = state.feed({"type": "response.output_item.added", "output_index": 0,
                        "item": {**FC, "status": "in_progress", "arguments": ""}})
    assert added is not None and added.tool_call_chunks[0]["id"] == "call_1"
    done = state.feed(_args_done(FC))
    assert done is not None and done.tool_call_chunks[0]["args"] == FC["arguments"]
