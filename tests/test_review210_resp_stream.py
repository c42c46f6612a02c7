"""Review 210 #4: in a Responses stream whose ``response.output_item.added`` was lost, events carrying only the
output item's ``item_id`` (no ``output_index``) join the call (or text) that ``response.output_item.done`` or the
terminal event's output later names with that id, so the stream gives the calls ``invoke`` gives, never an extra
call with no name; a delta whose item never shows up is still an invalid call.
"""

from __future__ import annotations

from typing import Any

from toolwire.messages import merge_chunks
from toolwire.models.lowering.openai import ResponsesStreamState, parse_responses_response

A = {"id": "fc_a", "type": "function_call", "status": "completed", "arguments": '{"city":"Paris"}',
     "call_id": "call_a", "name": "get_weather"}
B = {"id": "fc_b", "type": "function_call", "status": "completed", "arguments": '{"q":"rain"}',
     "call_id": "call_b", "name": "web_search"}
MSG = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
       "content": [{"type": "output_text", "text": "Looking.", "annotations": []}]}
R0 = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "m", "output": []}


def _full(*items: dict[str, Any]) -> dict[str, Any]:
    return {**R0, "status": "completed", "output": list(items)}


def _delta(item: dict[str, Any], piece: str, index: int | None = None) -> dict[str, Any]:
    event = {"type": "response.function_call_arguments.delta", "item_id": item["id"], "delta": piece}
    return event if index is None else {**event, "output_index": index}


def _added(item: dict[str, Any], index: int) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": {**item, "arguments": ""}}


def _done(item: dict[str, Any], index: int | None) -> dict[str, Any]:
    event = {"type": "response.output_item.done", "item": item}
    return event if index is None else {**event, "output_index": index}


def _halves(item: dict[str, Any]) -> tuple[str, str]:
    text = item["arguments"]
    return text[:5], text[5:]


def _check(events: list[dict[str, Any]], full: dict[str, Any], ordered: bool = True) -> Any:
    """The merged stream, checked equal to invoke's reading of ``full`` (text, calls with ids, no invalid ones);
    not ``ordered``: the calls compared in any order (a call held for its name goes out after one that an
    ``output_item.added`` opened)."""
    state = ResponsesStreamState()
    chunks = [c for c in (state.feed(e) for e in [{"type": "response.created", "response": R0}, *events,
                                                  {"type": "response.completed", "response": full}]) if c is not None]
    streamed = merge_chunks([*chunks, state.finish()], as_chunk=False)
    whole = parse_responses_response(full)
    assert streamed.content == whole.content
    calls = [(c["name"], c["args"], c["id"]) for c in streamed.tool_calls]
    expected = [(c["name"], c["args"], c["id"]) for c in whole.tool_calls]
    assert calls == expected if ordered else sorted(map(str, calls)) == sorted(map(str, expected))
    assert streamed.invalid_tool_calls == whole.invalid_tool_calls == []
    assert streamed.provider_data == whole.provider_data
    return streamed


def test_deltas_keyed_by_item_id_join_the_call_output_item_done_names() -> None:
    a1, a2 = _halves(A)
    streamed = _check([_delta(A, a1), _delta(A, a2), _done(A, 0)], _full(A))
    assert [(c["name"], c["id"]) for c in streamed.tool_calls] == [("get_weather", "call_a")]


def test_deltas_keyed_by_item_id_join_the_call_the_terminal_output_names() -> None:
    a1, a2 = _halves(A)
    _check([_delta(A, a1), _delta(A, a2)], _full(A))


def test_arguments_done_keyed_by_item_id_join_the_call_output_item_done_names() -> None:
    done = {"type": "response.function_call_arguments.done", "item_id": "fc_a", "arguments": A["arguments"]}
    _check([_delta(A, A["arguments"]), done, _done(A, 0)], _full(A))


def test_two_interleaved_calls_both_added_lost() -> None:
    a1, a2 = _halves(A)
    b1, b2 = _halves(B)
    events = [_delta(A, a1), _delta(B, b1), _delta(A, a2), _delta(B, b2), _done(A, 0), _done(B, 1)]
    streamed = _check(events, _full(A, B))
    assert [c["id"] for c in streamed.tool_calls] == ["call_a", "call_b"]
    _check(events[:4], _full(A, B))  # (no output_item.done: the terminal output names them)
    _check([*events[:4], _done(B, 1)], _full(A, B), ordered=False)  # (only the second call's)


def test_two_interleaved_calls_one_added_lost() -> None:
    a1, a2 = _halves(A)
    b1, b2 = _halves(B)
    events = [_added(A, 0), _delta(A, a1), _delta(B, b1), _delta(A, a2), _delta(B, b2), _done(A, 0), _done(B, 1)]
    _check(events, _full(A, B))  # (the second call's added lost)
    _check(events[1:], _full(A, B))  # (both lost)
    events = [_delta(A, a1), _added(B, 1), _delta(B, b1), _delta(A, a2), _delta(B, b2), _done(A, 0), _done(B, 1)]
    _check(events, _full(A, B), ordered=False)  # (the first call's added lost)
    _check(events[:-2], _full(A, B), ordered=False)  # (... and no output_item.done)


def test_deltas_mixing_item_id_only_and_output_index() -> None:
    a1, a2 = _halves(A)
    _check([_delta(A, a1), _delta(A, a2, 0), _done(A, 0)], _full(A))


def test_text_deltas_keyed_by_item_id_are_not_sent_twice() -> None:
    text = {"type": "response.output_text.delta", "item_id": "msg_1", "content_index": 0, "delta": "Looking."}
    a1, a2 = _halves(A)
    streamed = _check([text, _delta(A, a1), _delta(A, a2), _done(MSG, 0), _done(A, 1)], _full(MSG, A))
    assert streamed.content == "Looking."


def test_a_call_done_without_output_index_is_not_sent_again_by_the_terminal_output() -> None:
    _check([_delta(A, A["arguments"]), _done(A, None)], _full(A))


def test_a_delta_whose_item_never_shows_up_is_still_an_invalid_call() -> None:
    state = ResponsesStreamState()
    events = [{"type": "response.created", "response": R0}, _delta(A, A["arguments"]), _done(A, 0),
              {"type": "response.function_call_arguments.delta", "item_id": "fc_ghost", "delta": '{"x":1}'},
              {"type": "response.completed", "response": _full(A)}]
    chunks = [c for c in (state.feed(e) for e in events) if c is not None]
    streamed = merge_chunks([*chunks, state.finish()], as_chunk=False)
    assert [(c["name"], c["id"]) for c in streamed.tool_calls] == [("get_weather", "call_a")]
    assert [(c["name"], c["args"]) for c in streamed.invalid_tool_calls] == [(None, '{"x":1}')]
