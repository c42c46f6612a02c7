"""toolwire.chunks: merging streamed chunks (merge_chunks, AIMessageChunk) (review 2, findings 1 and 10)."""

from __future__ import annotations

from typing import Any

from toolwire import AIMessageChunk, merge_chunks


def piece(name: str | None, args: str | None, id: str | None = None, index: int | None = None) -> AIMessageChunk:
    return AIMessageChunk(tool_call_chunks=[{"name": name, "args": args, "id": id, "index": index,
                                             "type": "tool_call_chunk"}])


def calls(chunks: list[AIMessageChunk]) -> tuple[list[tuple[str, dict[str, Any], str | None]], list[Any]]:
    message = merge_chunks(chunks, as_chunk=False)
    return [(c["name"], c["args"], c["id"]) for c in message.tool_calls], message.invalid_tool_calls


# -- finding 1: one call whose id changes on every piece ---------------------------------------------------------


def test_pieces_on_one_index_with_a_new_id_each_stay_one_call() -> None:
    """Poolside / mlx-openai-server: same index, a new id on every piece, the name only on the first."""
    chunks = [piece("get_weather", "", "call_a1", 0), piece(None, '{"city": ', "call_a2", 0),
              piece(None, '"Paris"}', "call_a3", 0)]
    assert calls(chunks) == ([("get_weather", {"city": "Paris"}, "call_a1")], [])


def test_parallel_calls_with_changing_ids_split_by_index() -> None:
    chunks = [piece("get_weather", "", "a1", 0), piece("get_time", "", "b1", 1), piece(None, '{"city": ', "a2", 0),
              piece(None, '{"tz": "CET"}', "b2", 1), piece(None, '"Oslo"}', "a3", 0)]
    assert calls(chunks) == ([("get_weather", {"city": "Oslo"}, "a1"), ("get_time", {"tz": "CET"}, "b1")], [])


def test_a_repeated_name_while_the_arguments_are_open_continues_the_call() -> None:
    chunks = [piece("f", '{"a": ', "c1", 0), piece("f", "1}", "c2", 0)]
    assert calls(chunks) == ([("f", {"a": 1}, "c1")], [])


# -- finding 10: whole calls without index or id, or an index reused for the next call ---------------------------


def test_whole_calls_without_index_or_id_are_kept_apart() -> None:
    message = merge_chunks([piece("f", '{"x": 1}'), piece("g", '{"y": 2}'), piece("g", '{"y": 3}')], as_chunk=False)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("f", {"x": 1}), ("g", {"y": 2}), ("g", {"y": 3})]
    assert message.invalid_tool_calls == []


def test_an_index_reused_with_a_new_id_and_name_starts_the_next_call() -> None:
    chunks = [piece("f", '{"x": 1}', "A", 0), piece("g", '{"y": 2}', "B", 0), piece(None, "", None, 0)]
    assert calls(chunks) == ([("f", {"x": 1}, "A"), ("g", {"y": 2}, "B")], [])
    # the same function twice on index 0: the first call's JSON is complete, so the name starts the next
    chunks = [piece("f", "", "A", 0), piece(None, '{"x": 1}', None, 0), piece("f", "", "B", 0),
              piece(None, '{"x": 2}', None, 0)]
    assert calls(chunks) == ([("f", {"x": 1}, "A"), ("f", {"x": 2}, "B")], [])


def test_a_call_without_arguments_then_another_name_on_the_same_index() -> None:
    """get_time() sent with no argument text must not swallow the next call's arguments."""
    chunks = [piece("get_time", "", "A", 0), piece("get_weather", "", "B", 0), piece(None, '{"city": "Oslo"}', "B", 0)]
    assert calls(chunks) == ([("get_time", {}, "A"), ("get_weather", {"city": "Oslo"}, "B")], [])


def test_a_known_id_on_a_reused_index_goes_back_to_its_call() -> None:
    chunks = [piece("f", "", "A", 0), piece("g", "", "B", 0), piece(None, '{"x": 1}', "A", 0),
              piece(None, '{"y": 2}', "B", 0), piece(None, "", "A", None)]
    assert calls(chunks) == ([("f", {"x": 1}, "A"), ("g", {"y": 2}, "B")], [])


def test_split_calls_merge_the_same_in_any_grouping() -> None:
    chunks = [piece("f", '{"x"', "A", 0), piece(None, ": 1}", "A2", 0), piece("g", "", "B", 0),
              piece(None, '{"y": 2}', None, 0), AIMessageChunk("done")]
    whole = merge_chunks(chunks, as_chunk=False)
    assert [(c["name"], c["args"], c["id"]) for c in whole.tool_calls] == [("f", {"x": 1}, "A"), ("g", {"y": 2}, "B")]
    for cut in range(1, len(chunks)):
        assert (merge_chunks(chunks[:cut]) + merge_chunks(chunks[cut:])).to_message() == whole
