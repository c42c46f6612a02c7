"""Review 158 #1, #2: Gemini decodes the JSON text of exactly the tuple positions that were sent as JSON text: a map
(``dict[str, X]``) at a tuple position is decoded (it was never decoded), an ``Any`` position is decoded alone (every
position was, turning a ``str`` position's ``"2024"`` into a number)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from toolwire import tool
from toolwire.models.lowering._gemini_schema import Rest, decode_json_text, json_text_paths
from toolwire.models.lowering.gemini import StreamState, json_text_plan, parse_response


@tool
def tag_item(pair: tuple[str, dict[str, int]], anything: tuple[int, Any] = (0, None)) -> str:
    """Tag an item.

    Args:
        pair: the item name and its counts
        anything: a number and any value
    """
    return f"{pair!r} {anything!r}"


@tool
def set_field(entry: tuple[str, Any]) -> str:
    """Set one field.

    Args:
        entry: the field name and its new value
    """
    return repr(entry)


class Counts(BaseModel):
    """Counts by name."""

    by_name: dict[str, int]


@tool
def nested(rows: list[tuple[str, dict[str, int]]], item: tuple[str, Counts], either: tuple[int, str | dict[str, int]]
           ) -> str:
    """Nested tuples.

    Args:
        rows: names and their counts
        item: a name and its counts
        either: a number and a label or labels
    """
    return f"{rows!r} {item!r} {either!r}"


def _call(t: Any, args: dict[str, Any]) -> dict[str, Any]:
    raw = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": t.name, "args": args}}]},
                           "finishReason": "STOP", "index": 0}]}
    plan = json_text_plan([t])
    message = parse_response(raw, tool_names=[t.name], json_text=plan)
    state = StreamState(json_text=plan)
    from toolwire.messages import merge_chunks
    chunks = [c for c in (state.feed(raw), state.finish()) if c]
    assert merge_chunks(chunks).to_message().tool_calls[0]["args"] == message.tool_calls[0]["args"]
    return message.tool_calls[0]


def test_map_at_a_tuple_position_is_decoded_and_the_tool_runs():
    call = _call(tag_item, {"pair": ["apples", '{"red": 2}'], "anything": [1, "[1, 2]"]})
    assert call["args"] == {"pair": ["apples", {"red": 2}], "anything": [1, [1, 2]]}
    result = tag_item.invoke(call)
    assert result.status == "success" and result.content == "('apples', {'red': 2}) (1, [1, 2])"


def test_any_position_alone_is_decoded():
    assert json_text_plan([set_field]) == {"set_field": [("entry", 1)]}
    for sent, expected in ((["2024", '"x"'], ["2024", "x"]), (["null", "1"], ["null", 1]),
                           (["true", "[1]"], ["true", [1]]), (["zip", '"02134"'], ["zip", "02134"])):
        call = _call(set_field, {"entry": sent})
        assert call["args"] == {"entry": expected}
        result = set_field.invoke(call)
        assert result.status == "success" and result.content == repr(tuple(expected))


def test_nested_tuple_positions():
    call = _call(nested, {"rows": [["a", '{"x": 1}'], ["b", '{"y": 2}']],
                          "item": ["c", {"by_name": '{"z": 3}'}],
                          "either": [1, '{"k": 4}']})
    assert call["args"] == {"rows": [["a", {"x": 1}], ["b", {"y": 2}]], "item": ["c", {"by_name": {"z": 3}}],
                            "either": [1, {"k": 4}]}
    assert nested.invoke(call).status == "success"
    # (a string that is no fitting map stays the string member's)
    call = _call(nested, {"rows": [], "item": ["c", {"by_name": "{}"}], "either": [1, '{"k": "four"}']})
    assert call["args"]["either"] == [1, '{"k": "four"}']
    assert nested.invoke(call).content.endswith("(1, '{\"k\": \"four\"}')")


def test_positions_after_the_prefix_are_decoded_from_their_index_on():
    schema = {"type": "object", "properties": {"row": {"type": "array", "prefixItems": [{"type": "string"}],
                                                       "items": {}}}, "required": ["row"]}
    paths = json_text_paths(schema, "t")
    assert paths == [("row", 1)] and isinstance(paths[0][1], Rest)
    assert decode_json_text({"row": ["7", "8", '"x"']}, paths) == {"row": ["7", 8, "x"]}
    assert decode_json_text({"row": ["7"]}, paths) == {"row": ["7"]}


def test_a_position_past_the_end_or_not_a_list_is_left_alone():
    args = {"entry": ["only"]}
    assert decode_json_text(args, [("entry", 1)]) is args
    args = {"entry": {"1": "2"}}
    assert decode_json_text(args, [("entry", 1)]) is args
