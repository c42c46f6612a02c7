"""normalize_arguments, unwrap_call and tool_call_from_native (cases P1, P2, P6 and neighbours)."""

from __future__ import annotations

import json

import pytest

from toolwire.errors import ToolCallParseError
from toolwire.parsing import normalize_arguments, tool_call_from_native, unwrap_call
from toolwire.parsing.arguments import no_name_error

OBJECT_HINT = 'The arguments must be a JSON object such as {"city": "Paris"}'

# ---------------------------------------------------------------------------------------------- P1


@pytest.mark.parametrize("raw", ["", None, "  \n", "\t", "null", " null "])
def test_p1_empty_arguments_are_an_empty_object(raw):
    assert normalize_arguments(raw) == {}


@pytest.mark.parametrize("raw", ["", None, "  \n"])
def test_p1_native_call_with_empty_arguments_runs(raw):
    call = tool_call_from_native("get_time", raw, "c1")
    assert call == {"name": "get_time", "args": {}, "id": "c1", "type": "tool_call"}


def test_p1_truncated_json_is_an_invalid_call_keeping_the_raw_text():
    call = tool_call_from_native("get_weather", '{"city": "Pa', "c2")
    assert call["type"] == "invalid_tool_call"
    assert call["name"] == "get_weather"
    assert call["args"] == '{"city": "Pa'
    assert call["id"] == "c2"
    assert call["error"] == (
        "The arguments JSON is cut off before it is closed; "
        'send the complete JSON object such as {"city": "Paris"}.'
    )


@pytest.mark.parametrize(
    "raw", ['{"city": "Pa', '{"a": [1, 2', '{"a": ', "{", '{"a": {"b": 1}', '"{\\"city\\": \\"Pa"']
)
def test_p1_truncated_json_raises_and_never_returns_empty(raw):
    with pytest.raises(ToolCallParseError) as info:
        normalize_arguments(raw)
    assert info.value.raw == raw
    assert str(info.value).endswith(".")


@pytest.mark.parametrize(
    ("raw", "kind"),
    [("[1, 2]", "a JSON array"), ('"x"', "a JSON string"), ("5", "a JSON number"),
     ("true", "a JSON boolean"), ("-1.5", "a JSON number")],
)
def test_non_object_json_is_refused_with_an_actionable_sentence(raw, kind):
    with pytest.raises(ToolCallParseError) as info:
        normalize_arguments(raw)
    assert str(info.value) == f"{OBJECT_HINT}; got {kind}."
    assert info.value.raw == raw


@pytest.mark.parametrize("raw", [[1, 2], 5, 3.5, True, ("a",)])
def test_non_object_python_values_are_refused(raw):
    with pytest.raises(ToolCallParseError, match="must be a JSON object"):
        normalize_arguments(raw)


def test_json_object_followed_by_whitespace_is_accepted_but_not_other_text():
    assert normalize_arguments('{"city": "Paris"}  \n\t') == {"city": "Paris"}
    assert normalize_arguments('  {"city": "Paris"}') == {"city": "Paris"}
    with pytest.raises(ToolCallParseError, match="exactly one JSON object"):
        normalize_arguments('{"city": "Paris"} thanks')
    with pytest.raises(ToolCallParseError, match="exactly one JSON object"):
        normalize_arguments('{"a": 1}{"b": 2}')


def test_strict_json_trailing_comma_is_refused():
    with pytest.raises(ToolCallParseError, match="not valid JSON"):
        normalize_arguments('{"a": 1,}')


def test_text_that_is_not_json_is_refused():
    with pytest.raises(ToolCallParseError, match="not JSON"):
        normalize_arguments("Paris")


def test_dict_is_returned_as_is_and_clean_json_is_decoded():
    args = {"city": "Oslo", "days": [1, 2]}
    assert normalize_arguments(args) is args
    assert normalize_arguments(json.dumps(args)) == args


def test_unicode_arguments_are_kept():
    assert normalize_arguments('{"city": "Tóquio", "emoji": "\\ud83c\\udf27"}') == {
        "city": "Tóquio", "emoji": "🌧"}
    assert normalize_arguments('{"city": "Tóquio"}'.encode()) == {"city": "Tóquio"}


def test_bytes_that_are_not_utf8_are_refused():
    with pytest.raises(ToolCallParseError, match="UTF-8"):
        normalize_arguments(b"\xff\xfe{")


def test_deep_nesting_is_refused_not_a_recursion_error():
    with pytest.raises(ToolCallParseError, match="nested too deeply"):
        normalize_arguments("[" * 5000 + "]" * 5000)
    with pytest.raises(ToolCallParseError):
        normalize_arguments("{" * 5000)
    with pytest.raises(ToolCallParseError):
        normalize_arguments('{"a":' * 5000)


# ---------------------------------------------------------------------------------------------- P2


def test_p2_json_string_inside_a_string_is_decoded_one_more_level():
    assert normalize_arguments('"{\\"city\\": \\"Oslo\\"}"') == {"city": "Oslo"}


def test_p2_only_one_more_level_and_only_objects():
    assert normalize_arguments(json.dumps(json.dumps({"a": 1}))) == {"a": 1}
    assert normalize_arguments('"  "') == {}
    with pytest.raises(ToolCallParseError, match="got a JSON string"):
        normalize_arguments(json.dumps(json.dumps(json.dumps({"a": 1}))))
    with pytest.raises(ToolCallParseError, match="got a JSON string"):
        normalize_arguments(json.dumps("[1, 2]"))


def test_p2_string_parameter_that_looks_like_json_stays_a_string():
    schema = {"type": "object", "properties": {"payload": {"type": "string"}, "city": {"type": "string"}}}
    raw = json.dumps({"payload": '{"a": 1}', "city": "[Oslo]"})
    assert normalize_arguments(raw, schema) == {"payload": '{"a": 1}', "city": "[Oslo]"}
    # without a schema nothing inside is decoded either
    assert normalize_arguments(raw) == {"payload": '{"a": 1}', "city": "[Oslo]"}


def test_schema_object_and_array_values_sent_as_json_strings_are_decoded():
    schema = {
        "type": "object",
        "properties": {
            "to": {"type": "object", "properties": {"city": {"type": "string"}}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "maybe": {"anyOf": [{"type": "object"}, {"type": "null"}]},
            "ref": {"$ref": "#/$defs/Addr"},
            "note": {"type": "string"},
        },
        "$defs": {"Addr": {"type": "object", "properties": {"zip": {"type": "string"}}}},
    }
    raw = {"to": '{"city": "Oslo"}', "tags": '["a", "b"]', "maybe": '{"x": 1}',
           "ref": '{"zip": "0150"}', "note": '{"keep": true}'}
    assert normalize_arguments(raw, schema) == {
        "to": {"city": "Oslo"}, "tags": ["a", "b"], "maybe": {"x": 1}, "ref": {"zip": "0150"},
        "note": '{"keep": true}'}
    assert raw["to"] == '{"city": "Oslo"}'  # the caller's dict is not changed


def test_schema_decoding_only_when_the_kind_matches():
    schema = {"properties": {"to": {"type": "object"}, "tags": {"type": "array"},
                             "either": {"type": ["string", "object"]}}}
    raw = {"to": "[1, 2]", "tags": '{"a": 1}', "either": '{"a": 1}'}
    assert normalize_arguments(raw, schema) == raw
    assert normalize_arguments({"to": "{not json"}, schema) == {"to": "{not json"}


def test_schema_rules_reach_nested_objects_and_list_items():
    schema = {"properties": {
        "order": {"type": "object", "properties": {"items": {"type": "array"}}},
        "rows": {"type": "array", "items": {"type": "object", "properties": {"cells": {"type": "array"}}}},
    }}
    raw = {"order": {"items": "[1, 2]"}, "rows": [{"cells": '["x"]'}, 3]}
    assert normalize_arguments(raw, schema) == {"order": {"items": [1, 2]}, "rows": [{"cells": ["x"]}, 3]}
    sent_as_text = {"rows": '[{"cells": "[1]"}, {"cells": []}]'}
    assert normalize_arguments(sent_as_text, schema) == {"rows": [{"cells": [1]}, {"cells": []}]}
    assert normalize_arguments({"rows": "[]"}, schema) == {"rows": []}
    unchanged = {"rows": [{"cells": []}]}
    assert normalize_arguments(unchanged, schema) is unchanged


def test_unchanged_dict_with_schema_is_returned_as_is():
    args = {"city": "Oslo"}
    assert normalize_arguments(args, {"properties": {"city": {"type": "string"}}}) is args


# ---------------------------------------------------------------------------- Python-literal dicts


def test_single_quoted_python_dict_is_read_with_literal_eval():
    raw = "{'host': 'db1', 'verbose': True, 'port': None, 'pair': (1, -2), 'n': {'x': [1.5]}}"
    assert normalize_arguments(raw) == {
        "host": "db1", "verbose": True, "port": None, "pair": [1, -2], "n": {"x": [1.5]}}


@pytest.mark.parametrize(
    ("raw", "what"),
    [("{'a': {1, 2}}", "set"), ("{'a': b'x'}", "bytes"), ("{'a': 1j}", "complex"), ("{(1, 2): 'a'}", "key")],
)
def test_python_literal_with_values_json_cannot_carry_is_refused(raw, what):
    with pytest.raises(ToolCallParseError, match=what):
        normalize_arguments(raw)


@pytest.mark.parametrize(
    "raw",
    ["{'a': __import__('os').getcwd()}", "{'a': open('/etc/passwd').read()}", "{'a': [x for x in 'ab']}",
     "{'a': 1 if True else 2}", "{**{'a': 1}}"],
)
def test_python_expressions_are_never_evaluated(raw):
    with pytest.raises(ToolCallParseError):
        normalize_arguments(raw)


def test_python_literal_that_is_not_a_dict_is_refused():
    with pytest.raises(ToolCallParseError):
        normalize_arguments("['a', 'b']")


# ------------------------------------------------------------------------------------ unwrap_call


def test_unwrap_call_accepts_arguments_or_parameters():
    assert unwrap_call({"name": "f", "arguments": {"a": 1}}) == ("f", {"a": 1})
    assert unwrap_call({"name": "f", "parameters": '{"a": 1}'}) == ("f", '{"a": 1}')
    assert unwrap_call({"name": "f"}) == ("f", None)
    assert unwrap_call('{"name": "f", "arguments": {}}') == ("f", {})


def test_unwrap_call_reads_openai_function_form():
    obj = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    assert unwrap_call(obj) == ("f", '{"a": 1}')


def test_unwrap_call_with_empty_name_uses_the_wrapped_call():
    inner = {"name": "get_weather", "arguments": {"city": "Oslo"}}
    assert unwrap_call({"name": "", "arguments": inner}) == ("get_weather", {"city": "Oslo"})
    assert unwrap_call({"name": " ", "arguments": json.dumps(inner)}) == ("get_weather", {"city": "Oslo"})
    assert unwrap_call({"name": "", "arguments": {"city": "Oslo"}}) == ("", {"city": "Oslo"})


@pytest.mark.parametrize("obj", [[1], {"arguments": {}}, {"name": 5}, "[1]"])
def test_unwrap_call_refuses_what_is_not_a_call(obj):
    with pytest.raises(ToolCallParseError):
        unwrap_call(obj)


def test_wrapper_is_unwrapped_by_normalize_arguments_only_with_a_schema_that_lacks_those_keys():
    wrapped = {"name": "get_weather", "arguments": {"city": "Oslo"}}
    assert normalize_arguments(wrapped, {"properties": {"city": {"type": "string"}}}) == {"city": "Oslo"}
    assert normalize_arguments(json.dumps({"name": "x", "parameters": '{"city": "Oslo"}'}),
                               {"properties": {"city": {}}}) == {"city": "Oslo"}
    assert normalize_arguments(wrapped) == wrapped
    own = {"properties": {"name": {"type": "string"}, "arguments": {"type": "object"}}}
    assert normalize_arguments(wrapped, own) == wrapped


# ------------------------------------------------------------------------- tool_call_from_native


def test_native_call_with_dict_arguments_and_generated_id():
    call = tool_call_from_native("get_weather", {"city": "Oslo"})
    assert call["type"] == "tool_call"
    assert call["args"] == {"city": "Oslo"}
    assert isinstance(call["id"], str) and call["id"]
    assert list(call) == ["name", "args", "id", "type"]


def test_p6_native_calls_without_ids_get_unique_ids_in_order():
    calls = [tool_call_from_native("get_weather", {"city": "Oslo"}),
             tool_call_from_native("get_time", '{"tz": "CET"}')]
    assert [c["type"] for c in calls] == ["tool_call", "tool_call"]
    assert [(c["name"], c["args"]) for c in calls] == [("get_weather", {"city": "Oslo"}),
                                                        ("get_time", {"tz": "CET"})]
    assert calls[0]["id"] != calls[1]["id"]
    many = {tool_call_from_native("f", None)["id"] for _ in range(1000)}
    assert len(many) == 1000


def test_p6_results_go_back_under_their_own_ids():
    from toolwire.messages import AIMessage, ToolMessage

    calls = [tool_call_from_native("a", {"x": 1}), tool_call_from_native("b", '{"y": 2}')]
    message = AIMessage("", tool_calls=calls)
    assert [c["id"] for c in message.tool_calls] == [c["id"] for c in calls]
    results = [ToolMessage(str(c["args"]), tool_call_id=c["id"]) for c in message.tool_calls]
    assert [r.tool_call_id for r in results] == [calls[0]["id"], calls[1]["id"]]


def test_native_unknown_name_is_not_invalid_but_empty_name_is_with_tool_names():
    assert tool_call_from_native("get_date", "{}", "c1", tool_names=["get_time"])["type"] == "tool_call"
    call = tool_call_from_native("", '{"x": 1}', "c2", tool_names=["get_time", "add"])
    assert call == {"name": None, "args": '{"x": 1}', "id": "c2",
                    "error": "The tool call has no name; call one of the available tools: add, get_time.",
                    "type": "invalid_tool_call"}
    assert tool_call_from_native(None, "{}", "c3")["type"] == "tool_call"


def test_native_empty_name_never_claims_there_are_no_tools_when_they_are_unknown():
    """Finding 5: a nameless call read where the bound tools are not known must not say "available tools: none"."""
    unknown = tool_call_from_native("", "{}", "c1", require_name=True)
    assert unknown["type"] == "invalid_tool_call" and unknown["args"] == "{}"
    assert unknown["error"] == "The tool call has no name; send it again with the name of the tool to call."
    known = tool_call_from_native(None, "{}", "c2", tool_names=["get_weather"], require_name=True)
    assert known["error"] == "The tool call has no name; call one of the available tools: get_weather."
    none_bound = tool_call_from_native("", "{}", "c3", tool_names=())
    assert none_bound["error"] == "The tool call has no name, and no tools are available, so answer in plain text."
    assert no_name_error(None) == unknown["error"] and no_name_error("get_weather") == known["error"]


def test_native_empty_name_with_wrapped_call_uses_the_inner_call():
    raw = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    call = tool_call_from_native("", raw, "c1", tool_names=["get_weather"])
    assert call == {"name": "get_weather", "args": {"city": "Oslo"}, "id": "c1", "type": "tool_call"}


def test_native_same_name_wrapper_is_unwrapped():
    raw = {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
    assert tool_call_from_native("get_weather", raw)["args"] == {"city": "Oslo"}
    other = {"name": "other", "arguments": {"city": "Oslo"}}
    assert tool_call_from_native("get_weather", other)["args"] == other


def test_native_invalid_arguments_keep_raw_text_of_any_kind():
    call = tool_call_from_native("f", [1, 2], "c1")
    assert call["type"] == "invalid_tool_call"
    assert call["args"] == "[1, 2]"
    assert call["error"] == f"{OBJECT_HINT}; got a Python list."
    call = tool_call_from_native("f", "[1, 2]", "c1")
    assert call["args"] == "[1, 2]"
    assert call["error"] == f"{OBJECT_HINT}; got a JSON array."


def test_native_call_uses_the_schema():
    schema = {"properties": {"to": {"type": "object"}}}
    call = tool_call_from_native("ship", '{"to": "{\\"city\\": \\"Oslo\\"}"}', schema=schema)
    assert call["args"] == {"to": {"city": "Oslo"}}


def test_messages_module_reads_openai_calls_with_normalize_arguments():
    from toolwire.messages import AIMessageChunk

    chunk = AIMessageChunk("", tool_call_chunks=[
        {"name": "f", "args": "", "id": "a", "index": 0, "type": "tool_call_chunk"},
        {"name": "g", "args": '{"x": 1', "id": "b", "index": 1, "type": "tool_call_chunk"},
    ])
    message = chunk.to_message()
    assert message.tool_calls == [{"name": "f", "args": {}, "id": "a", "type": "tool_call"}]
    assert message.invalid_tool_calls[0]["args"] == '{"x": 1'


# ------------------------------------------------ review 3 #6, #10: surrogate pairs, non-finite numbers


@pytest.mark.parametrize(
    ("raw", "where", "number"),
    [('{"value": NaN}', "'value'", "NaN"), ('{"value": Infinity}', "'value'", "Infinity"),
     ('{"value": -Infinity}', "'value'", "-Infinity"), ('{"value": 1e999}', "'value'", "Infinity"),
     ('{"a": {"b": [1, NaN]}}', "'a.b[1]'", "NaN"), ("{'value': 1e999}", "'value'", "Infinity"),
     ('"{\\"value\\": NaN}"', "'value'", "NaN")],
)
def test_non_finite_numbers_are_refused_with_a_sentence_asking_for_a_finite_number(raw, where, number):
    with pytest.raises(ToolCallParseError) as info:
        normalize_arguments(raw)
    assert info.value.raw is raw
    assert str(info.value).startswith(f"The argument {where} is not a finite number ({number}")
    assert str(info.value).endswith("; send a finite number instead.")


def test_non_finite_numbers_in_a_dict_or_a_schema_decoded_string_are_refused():
    for args in ({"value": float("nan")}, {"points": [0.5, float("-inf")]}):
        with pytest.raises(ToolCallParseError, match="send a finite number"):
            normalize_arguments(args)
    schema = {"type": "object", "properties": {"points": {"type": "array"}}}
    with pytest.raises(ToolCallParseError, match=r"'points\[0\]' is not a finite number"):
        normalize_arguments({"points": "[Infinity]"}, schema)
    assert normalize_arguments({"big": 10**400, "x": 1e308}) == {"big": 10**400, "x": 1e308}


def test_native_call_with_non_finite_arguments_is_invalid_and_keeps_the_raw_text():
    call = tool_call_from_native("set_temp", '{"value": NaN}', "c1")
    assert call["type"] == "invalid_tool_call" and call["name"] == "set_temp"
    assert call["args"] == '{"value": NaN}' and "send a finite number" in call["error"]
    call = tool_call_from_native("set_temp", {"value": float("inf")}, "c2")
    assert call["type"] == "invalid_tool_call" and call["args"] == '{"value": Infinity}'


def test_surrogate_pairs_are_joined_and_lone_surrogates_replaced():
    emoji = "\U0001f600"
    assert normalize_arguments("{'q': '\\ud83d\\ude00'}") == {"q": emoji}  # Python literal escapes
    assert normalize_arguments({"q": "\ud83d\ude00", "\ud83d\ude00": ["\ud83d\ude00"]}) == {
        "q": emoji, emoji: [emoji]}
    assert normalize_arguments('{"q": "a\\ud83d", "r": "\\ude00b"}') == {"q": "a\ufffd", "r": "\ufffdb"}
    json.dumps(normalize_arguments('{"q": "\\udc00\\ud800"}'), ensure_ascii=False).encode("utf-8")


def test_clean_value_copies_only_what_changes_and_refuses_deep_nesting_without_recursing():
    from toolwire.parsing._scan import MAX_DEPTH, NestedTooDeep, NonFiniteNumber, clean_value, fix_surrogates

    assert fix_surrogates("\ud83d\ude00 \ud83d") == "\U0001f600 \ufffd"
    keep = {"a": [1, "x"], "b": {"c": 2.5}}
    fixed = {"a": [1, "\ud83d\ude00"], "b": keep}
    out = clean_value(fixed)
    assert out == {"a": [1, "\U0001f600"], "b": keep} and out["b"] is keep and fixed["a"][1] == "\ud83d\ude00"
    assert clean_value(keep) is keep
    deep: list = ["\ud83d\ude00"]
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    out = clean_value(deep)
    for _ in range(MAX_DEPTH - 1):
        out = out[0]
    assert out == ["\U0001f600"]
    for _ in range(50_000):  # (review 75: the code after it recursed on such values)
        deep = [deep]
    with pytest.raises(NestedTooDeep):
        clean_value(deep)
    with pytest.raises(NonFiniteNumber) as info:
        clean_value({"a": [{"b": float("nan")}]})
    assert info.value.where == "'a[0].b'" and info.value.number == "NaN"
