"""Tool calls written into text: Hermes, Llama/JSON, Mistral and pythonic dialects (cases P3-P5)."""

from __future__ import annotations

import json

import pytest

from toolwire.errors import UserError
from toolwire.parsing import (
    DIALECTS,
    ParsedReply,
    parse_hermes,
    parse_json,
    parse_mistral,
    parse_pythonic,
    parse_tool_calls,
)

TOOLS = ["get_weather", "get_time", "web_search", "get_config", "calculate", "brave_search.call"]


def check(reply: ParsedReply) -> ParsedReply:
    """Assert the reply's shape: well-formed records with unique ids, stripped content."""
    assert isinstance(reply, ParsedReply)
    assert reply.content == reply.content.strip()
    ids = []
    for call in reply.tool_calls:
        assert list(call) == ["name", "args", "id", "type"] and call["type"] == "tool_call"
        assert isinstance(call["args"], dict) and isinstance(call["name"], str)
        ids.append(call["id"])
    for bad in reply.invalid_tool_calls:
        assert list(bad) in (["name", "args", "id", "error", "type"], ["name", "args", "id", "error", "type", "index"])
        assert bad["type"] == "invalid_tool_call" and type(bad.get("index", 0)) is int  # index: a valid call follows
        assert bad["args"] is None or isinstance(bad["args"], str)
        assert isinstance(bad["error"], str) and bad["error"]
        ids.append(bad["id"])
    assert all(isinstance(i, str) and i for i in ids)
    assert len(set(ids)) == len(ids)
    return reply


def calls(reply: ParsedReply) -> list[tuple[str, dict]]:
    return [(c["name"], c["args"]) for c in check(reply).tool_calls]


def parse(text: str, dialect: str | None = None) -> ParsedReply:
    return check(parse_tool_calls(text, TOOLS, dialect))


# ------------------------------------------------------------------------------------- P3 python dicts

P3 = "{'name': 'get_config', 'arguments': {'host': 'db1', 'verbose': True}}"


@pytest.mark.parametrize("dialect", [None, "json"])
def test_p3_python_dict_call_is_read_safely(dialect):
    reply = parse(P3, dialect)
    assert calls(reply) == [("get_config", {"host": "db1", "verbose": True})]
    assert reply.content == ""
    assert reply.invalid_tool_calls == []


def test_p3_neighbours_none_tuples_and_text_around():
    text = "Checking.\n{'name': 'get_config', 'arguments': {'host': None, 'ports': (1, 2)}}\nDone."
    reply = parse(text)
    assert calls(reply) == [("get_config", {"host": None, "ports": [1, 2]})]
    assert reply.content == "Checking.\n\nDone."
    mixed = '{"name": "get_config", "arguments": {"host": "db1", "verbose": True}}'
    assert calls(parse(mixed)) == [("get_config", {"host": "db1", "verbose": True})]


def test_p3_python_expressions_are_never_evaluated_and_the_model_gets_an_error():
    text = "Checking {'name': 'get_config', 'arguments': {'host': __import__('os').getcwd()}} now"
    reply = parse(text)
    assert reply.tool_calls == [] and reply.content == "Checking  now"
    [bad] = reply.invalid_tool_calls
    assert bad["name"] == "get_config"
    assert bad["args"] == "{'name': 'get_config', 'arguments': {'host': __import__('os').getcwd()}}"
    assert bad["error"].startswith("The call is neither valid JSON (")
    assert bad["error"].endswith(
        'Send the whole tool call again as valid JSON, such as {"name": "get_config", "arguments": '
        '{"param": "value"}}.')


def test_p3_cut_off_python_dict_call_and_unknown_names():
    reply = parse("{'name': 'get_config', 'arguments': {'host': 'db")
    assert reply.invalid_tool_calls[0]["name"] == "get_config"
    assert "cut off" in reply.invalid_tool_calls[0]["error"]
    text = "{'name': 'Ann', 'arguments': {'age': x}}"
    assert parse(text) == ParsedReply(text, [], [])


def test_p3_call_in_a_tag_that_does_not_parse_gives_an_actionable_error():
    reply = parse("<tool_call>{'name': 'get_config', 'arguments': {'host': db1}}</tool_call>")
    assert reply.tool_calls == []
    [bad] = reply.invalid_tool_calls
    assert bad["args"] == "{'name': 'get_config', 'arguments': {'host': db1}}"
    assert "neither valid JSON" in bad["error"] and '"arguments"' in bad["error"]
    assert reply.content == ""


# ------------------------------------------------------------------------------------- P4 hermes


P4 = ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n'
      '<tool_call>\n{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_call>')


@pytest.mark.parametrize("dialect", [None, "hermes"])
def test_p4_first_block_without_closing_tag(dialect):
    reply = parse(P4, dialect)
    assert calls(reply) == [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "CET"})]
    assert reply.invalid_tool_calls == [] and reply.content == ""


def test_p4_neighbours_last_block_unclosed_and_text_around():
    text = ('Let me look.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\n'
            '<tool_call>{"name": "get_time", "arguments": {"tz": "CET"}}')
    reply = parse(text)
    assert calls(reply) == [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "CET"})]
    assert reply.content == "Let me look."
    both_open = ('<tool_call>{"name": "get_weather", "arguments": {"city": "A"}}'
                 '<tool_call>{"name": "get_weather", "arguments": {"city": "B"}} bye')
    reply = parse(both_open, "hermes")
    assert calls(reply) == [("get_weather", {"city": "A"}), ("get_weather", {"city": "B"})]
    assert reply.content == "bye"


def test_hermes_closing_tag_and_braces_inside_string_arguments():
    text = ('<tool_call>{"name": "web_search", "arguments": {"q": "what is </tool_call> and {x}?"}}'
            '</tool_call> after')
    reply = parse(text)
    assert calls(reply) == [("web_search", {"q": "what is </tool_call> and {x}?"})]
    assert reply.content == "after"
    inner_open = '<tool_call>{"name": "web_search", "arguments": {"q": "<tool_call>"}}</tool_call>'
    assert calls(parse(inner_open)) == [("web_search", {"q": "<tool_call>"})]


def test_hermes_unicode_and_string_encoded_arguments():
    text = '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Tóquio\\"}"}</tool_call>'
    assert calls(parse(text, "hermes")) == [("get_weather", {"city": "Tóquio"})]
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "東京 🌧"}}</tool_call>'
    assert calls(parse(text)) == [("get_weather", {"city": "東京 🌧"})]


def test_hermes_truncated_json_keeps_the_raw_text():
    text = 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa'
    reply = parse(text, "hermes")
    assert reply.tool_calls == []
    [bad] = reply.invalid_tool_calls
    assert bad["name"] == "get_weather"
    assert bad["args"] == '{"name": "get_weather", "arguments": {"city": "Pa'
    assert "cut off" in bad["error"]
    assert reply.content == "Sure."


def test_hermes_truncated_first_block_does_not_swallow_the_second():
    text = ('<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"</tool_call>\n'
            '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>')
    reply = parse(text)
    assert calls(reply) == [("get_time", {})]
    assert [b["args"] for b in reply.invalid_tool_calls] == ['{"name": "get_weather", "arguments": {"city": "Oslo"']


def test_hermes_unknown_name_is_invalid_and_names_the_available_tools():
    reply = parse_hermes('<tool_call>{"name": "get_date", "arguments": {}}</tool_call>', ["get_time"])
    assert reply.tool_calls == []
    assert reply.invalid_tool_calls[0]["name"] == "get_date"
    assert reply.invalid_tool_calls[0]["error"] == (
        "Unknown tool 'get_date'; call one of the available tools: get_time.")


def test_hermes_block_with_a_list_a_pythonic_call_or_nothing():
    listed = ('<tool_call>[{"name": "get_time", "arguments": {}}, '
              '{"name": "get_weather", "arguments": {"city": "Oslo"}}]</tool_call>')
    assert calls(parse(listed)) == [("get_time", {}), ("get_weather", {"city": "Oslo"})]
    assert calls(parse('<tool_call>get_weather(city="Oslo")</tool_call>')) == [("get_weather", {"city": "Oslo"})]
    reply = parse("<tool_call></tool_call>")
    assert reply.tool_calls == [] and "holds no JSON object" in reply.invalid_tool_calls[0]["error"]
    reply = parse('<tool_call>{"arguments": {}}</tool_call>')
    assert reply.invalid_tool_calls[0]["args"] == '{"arguments": {}}'


def test_hermes_fenced_json_inside_the_block():
    text = '<tool_call>\n```json\n{"name": "get_time", "arguments": {}}\n```\n</tool_call>'
    reply = parse(text)
    assert calls(reply) == [("get_time", {})] and reply.content == ""


def test_hermes_model_ids_are_kept_and_duplicates_replaced():
    text = ('<tool_call>{"name": "get_time", "arguments": {}, "id": "x1"}</tool_call>'
            '<tool_call>{"name": "get_time", "arguments": {}, "id": "x1"}</tool_call>')
    reply = parse(text)
    assert reply.tool_calls[0]["id"] == "x1" and reply.tool_calls[1]["id"] != "x1"


def test_hermes_arguments_not_an_object_are_invalid():
    reply = parse('<tool_call>{"name": "get_time", "arguments": [1, 2]}</tool_call>')
    assert reply.invalid_tool_calls[0]["args"] == "[1, 2]"
    assert reply.invalid_tool_calls[0]["error"].endswith("got a Python list.")


def test_hermes_flat_arguments_inside_the_marker():
    reply = parse('<tool_call>{"name": "get_weather", "city": "Oslo"}</tool_call>')
    assert calls(reply) == [("get_weather", {"city": "Oslo"})]


# ------------------------------------------------------------------------------------- P5 llama / json

P5_CALL = [("web_search", {"q": "rain"})]


@pytest.mark.parametrize(
    "text",
    [
        '<|python_tag|>{"name": "web_search", "parameters": {"q": "rain"}}',
        '<|python_tag|>{"name": "web_search", "parameters": {"q": "rain"}}<|eom_id|>',
        '{"name": "web_search", "parameters": {"q": "rain"}}',
        '```json\n{"name": "web_search", "parameters": {"q": "rain"}}\n```',
        '```\n{"name": "web_search", "arguments": {"q": "rain"}}\n```',
    ],
)
@pytest.mark.parametrize("dialect", [None, "json"])
def test_p5_python_tag_bare_and_fenced(text, dialect):
    reply = parse(text, dialect)
    assert calls(reply) == P5_CALL
    assert reply.content == "" and reply.invalid_tool_calls == []


@pytest.mark.parametrize(
    "text",
    ['My friend is {"name": "Ann"}.', '{"name": "Ann", "arguments": {"age": 3}}',
     '```json\n{"name": "Ann"}\n```', '[{"name": "Ann", "parameters": {}}]',
     'The tool {"name": "web_search", "description": "Search", "parameters": {"type": "object", '
     '"properties": {"q": {"type": "string"}}}} is available.',
     '{"name": "web_search", "results": ["a", "b"]}'],
)
def test_p5_prose_json_is_not_a_call(text):
    reply = parse(text)
    assert reply.tool_calls == [] and reply.invalid_tool_calls == []
    assert reply.content == text.strip()


def test_p5_unknown_name_after_python_tag_is_invalid():
    reply = parse('<|python_tag|>{"name": "get_date", "parameters": {}}')
    assert reply.tool_calls == []
    assert reply.invalid_tool_calls[0]["error"].startswith("Unknown tool 'get_date'; call one of")


def test_llama_several_calls_after_the_tag_and_text_around():
    text = ('I will check.<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}; '
            '{"name": "get_time", "parameters": {"tz": "CET"}}\n<|eot_id|>')
    reply = parse(text)
    assert calls(reply) == [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "CET"})]
    assert reply.content == "I will check."


def test_llama_builtin_tool_call_after_the_tag():
    reply = parse('<|python_tag|>brave_search.call(query="rain in Oslo")<|eom_id|>')
    assert calls(reply) == [("brave_search.call", {"query": "rain in Oslo"})]


def test_llama_truncated_after_tag_and_bare():
    reply = parse('<|python_tag|>{"name": "web_search", "parameters": {"q": "ra')
    assert reply.invalid_tool_calls[0]["name"] == "web_search"
    assert reply.invalid_tool_calls[0]["args"] == '{"name": "web_search", "parameters": {"q": "ra'
    reply = parse('Searching: {"name": "web_search", "parameters": {"q": "ra')
    assert reply.content == "Searching:" and reply.invalid_tool_calls[0]["name"] == "web_search"
    # cut-off prose JSON naming no tool stays text
    text = 'A {"name": "Ann", "age": 3'
    assert parse(text).content == text and parse(text).invalid_tool_calls == []


def test_llama_bare_list_of_calls_and_several_bare_objects():
    text = ('[{"name": "get_time", "arguments": {}}, {"name": "get_weather", "arguments": {"city": "Oslo"}}]'
            ' and {"name": "web_search", "arguments": {"q": "x"}}')
    reply = parse(text, "json")
    assert calls(reply) == [("get_time", {}), ("get_weather", {"city": "Oslo"}), ("web_search", {"q": "x"})]
    assert reply.content == "and"
    reply = parse('[{"name": "get_time", "arguments": {}}, {"name": "get_date", "arguments": {}}]')
    assert calls(reply) == [("get_time", {})]
    assert reply.invalid_tool_calls[0]["name"] == "get_date"


def test_llama_braces_and_tags_inside_strings_and_unicode():
    text = 'ok {"name": "web_search", "parameters": {"q": "a } ] [ \\" {", "lang": "português"}}'
    assert calls(parse(text)) == [("web_search", {"q": 'a } ] [ " {', "lang": "português"})]
    tagged = '<|python_tag|>{"name": "web_search", "parameters": {"q": "<|python_tag|> {"}}'
    assert calls(parse(tagged)) == [("web_search", {"q": "<|python_tag|> {"})]


def test_llama_openai_shaped_object_in_text():
    text = '{"id": "c7", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}'
    reply = parse(text)
    assert calls(reply) == [("get_time", {})] and reply.tool_calls[0]["id"] == "c7"


def test_fence_with_other_content_is_left_alone():
    text = '```json\n{"name": "web_search", "parameters": {"q": "x"}}\nnot json\n```'
    reply = parse(text, "json")
    assert calls(reply) == [("web_search", {"q": "x"})]
    assert "not json" in reply.content


def test_python_tag_without_a_call_is_invalid():
    reply = parse("<|python_tag|>import math; print(math.pi)")
    assert reply.tool_calls == [] and "After <|python_tag|>" in reply.invalid_tool_calls[0]["error"]


# ------------------------------------------------------------------------------------- mistral


@pytest.mark.parametrize("dialect", [None, "mistral"])
def test_mistral_list_form_with_ids(dialect):
    text = ('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Tóquio"}, "id": "abc123def"}, '
            '{"name": "get_time", "arguments": {}}]')
    reply = parse(text, dialect)
    assert calls(reply) == [("get_weather", {"city": "Tóquio"}), ("get_time", {})]
    assert reply.tool_calls[0]["id"] == "abc123def" and reply.content == ""


def test_mistral_args_forms_several_in_a_row():
    text = ('Checking. [TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}[TOOL_CALLS]get_time[ARGS]{"tz": "CET"}'
            "\nDone")
    reply = parse(text)
    assert calls(reply) == [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "CET"})]
    assert reply.content == "Checking. \nDone"
    compact = '[TOOL_CALLS]get_weather{"city": "Oslo"}get_time{}'
    assert calls(parse(compact, "mistral")) == [("get_weather", {"city": "Oslo"}), ("get_time", {})]
    with_id = '[TOOL_CALLS]get_time[CALL_ID]a1b2c3d4e[ARGS]{"tz": "UTC"}'
    reply = parse(with_id)
    assert calls(reply) == [("get_time", {"tz": "UTC"})] and reply.tool_calls[0]["id"] == "a1b2c3d4e"


def test_mistral_strings_with_markers_and_braces():
    text = '[TOOL_CALLS]web_search[ARGS]{"q": "[TOOL_CALLS] {x} ]"}'
    assert calls(parse(text)) == [("web_search", {"q": "[TOOL_CALLS] {x} ]"})]


def test_mistral_unknown_truncated_and_empty():
    reply = parse('[TOOL_CALLS]get_date[ARGS]{"x": 1}')
    assert reply.invalid_tool_calls[0]["name"] == "get_date" and "Unknown tool" in reply.invalid_tool_calls[0]["error"]
    reply = parse('[TOOL_CALLS]get_weather[ARGS]{"city": "Pa')
    assert reply.invalid_tool_calls[0]["name"] == "get_weather"
    assert reply.invalid_tool_calls[0]["args"] == '{"city": "Pa'
    reply = parse('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Pa')
    assert reply.invalid_tool_calls[0]["name"] == "get_weather"
    reply = parse("[TOOL_CALLS]")
    assert reply.invalid_tool_calls[0]["error"].startswith("[TOOL_CALLS] must be followed")


def test_mistral_prose_after_calls_stays_text():
    reply = parse('[TOOL_CALLS]get_time[ARGS]{} Then I will answer.')
    assert calls(reply) == [("get_time", {})] and reply.content == "Then I will answer."


# ------------------------------------------------------------------------------------- pythonic


@pytest.mark.parametrize("dialect", [None, "pythonic"])
def test_pythonic_call_list(dialect):
    text = 'Vou verificar. [get_weather(city="Tóquio"), calculate(expression="123 * 456")] Pronto.'
    reply = parse(text, dialect)
    assert calls(reply) == [("get_weather", {"city": "Tóquio"}), ("calculate", {"expression": "123 * 456"})]
    assert reply.content == "Vou verificar.  Pronto."


def test_pythonic_single_call_and_literal_values():
    text = "get_config(host='db1', ports=[1, -2], opts={'a': (1, 2)}, verbose=True, x=None, f=-1.5e3)"
    assert calls(parse(text)) == [("get_config", {"host": "db1", "ports": [1, -2], "opts": {"a": [1, 2]},
                                                  "verbose": True, "x": None, "f": -1500.0})]
    assert calls(parse("get_time()")) == [("get_time", {})]


def test_pythonic_brackets_and_quotes_in_strings():
    text = '[web_search(q="a ) ] ( [ \\" \' x"), get_time(tz=\'C"E)T\')]'
    assert calls(parse(text)) == [("web_search", {"q": "a ) ] ( [ \" ' x"}), ("get_time", {"tz": 'C"E)T'})]


def test_pythonic_dotted_names():
    assert calls(parse('[brave_search.call(query="x")]')) == [("brave_search.call", {"query": "x"})]
    assert parse('brave_search.other(query="x")').tool_calls == []


def test_pythonic_positional_and_non_literal_arguments():
    reply = parse('[get_weather("Oslo")]')
    assert reply.tool_calls == []
    assert reply.invalid_tool_calls[0]["args"] == 'get_weather("Oslo")'
    assert "keyword arguments" in reply.invalid_tool_calls[0]["error"]
    reply = parse('get_weather("Oslo")')
    assert "keyword arguments" in reply.invalid_tool_calls[0]["error"]
    reply = parse("[get_weather(city=input())]")
    assert "must be a literal" in reply.invalid_tool_calls[0]["error"]


def test_pythonic_prose_that_only_looks_like_a_call():
    for text in ["Use get_weather(city) to check.", "[1, 2, 3]", "[foo(x=1)]", "print(get_weather)",
                 "the list [a, b] and f(x=1)", "my_get_weather(city='x')", "obj.get_weather(city='x')"]:
        reply = parse(text)
        assert reply.tool_calls == [] and reply.invalid_tool_calls == [], text
        assert reply.content == text


def test_pythonic_unknown_name_in_a_list_with_a_bound_one():
    reply = parse('[get_time(), get_date(day="x")]')
    assert calls(reply) == [("get_time", {})]
    assert reply.invalid_tool_calls[0]["name"] == "get_date"


def test_pythonic_cut_off_call():
    reply = parse('Checking [get_weather(city="Pa')
    assert reply.content == "Checking" and reply.invalid_tool_calls[0]["name"] == "get_weather"
    assert reply.invalid_tool_calls[0]["args"] == '[get_weather(city="Pa'
    reply = parse_pythonic('get_weather(city="Pa', TOOLS)
    assert reply.invalid_tool_calls[0]["error"].startswith("The call is cut off")


def test_pythonic_several_single_calls_with_text():
    text = 'First get_time(tz="UTC") then get_weather(city="Oslo").'
    reply = parse(text)
    assert calls(reply) == [("get_time", {"tz": "UTC"}), ("get_weather", {"city": "Oslo"})]
    assert reply.content == "First  then ."


# ------------------------------------------------------------------------------------- dispatch


def test_dialects_tuple_and_unknown_dialect():
    assert DIALECTS == ("hermes", "json", "mistral", "pythonic", "function_tag")
    with pytest.raises(UserError, match="Unknown tool-call dialect"):
        parse_tool_calls("x", TOOLS, "xml")
    with pytest.raises(UserError):
        parse_tool_calls(None, TOOLS)  # type: ignore[arg-type]


def test_plain_text_has_no_calls():
    reply = parse("  The weather in Oslo is fine.\n")
    assert reply == ParsedReply("The weather in Oslo is fine.", [], [])


def test_explicit_dialect_only_reads_its_own_format():
    hermes = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
    assert parse_mistral(hermes, TOOLS).tool_calls == []
    assert parse_pythonic(hermes, TOOLS).tool_calls == []
    assert calls(parse_json('{"name": "get_time", "arguments": {}}', TOOLS)) == [("get_time", {})]


def test_markers_win_over_bare_json():
    text = '{"name": "web_search", "arguments": {"q": "a"}} <tool_call>{"name": "get_time", "arguments": {}}'
    assert calls(parse(text)) == [("get_time", {})]


def test_tool_names_may_be_a_mapping_or_empty():
    text = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
    assert calls(check(parse_tool_calls(text, {"get_time": object()}))) == [("get_time", {})]
    reply = check(parse_tool_calls(text, []))
    assert "no tools are available" in reply.invalid_tool_calls[0]["error"]
    assert parse_tool_calls('{"name": "get_time", "arguments": {}}', []).tool_calls == []


def test_ids_are_unique_across_dialect_parses():
    text = '[get_time(), get_time()]'
    ids = [c["id"] for _ in range(50) for c in parse(text).tool_calls]
    assert len(set(ids)) == len(ids) == 100


def test_markers_named_in_prose_stay_text():
    for text in ["Wrap each call in a <tool_call> tag, then {\"name\": \"Ann\"} follows.",
                 "Mistral starts calls with [TOOL_CALLS] as a special token."]:
        reply = parse(text)
        assert reply == ParsedReply(text, [], []), text
    reply = parse("Calling now <tool_call>")
    assert reply.content == "Calling now" and reply.invalid_tool_calls[0]["args"] == ""
    reply = parse("Calling [TOOL_CALLS]")
    assert reply.content == "Calling" and reply.invalid_tool_calls[0]["args"] == ""
    reply = parse("<tool_call>get weather for Oslo</tool_call>")
    assert reply.invalid_tool_calls[0]["args"] == "get weather for Oslo"


def test_hermes_pythonic_list_and_cut_off_pythonic_in_block():
    text = '<tool_call>[get_weather(city="Oslo"), get_date(d=1)]</tool_call> ok'
    reply = parse(text, "hermes")
    assert calls(reply) == [("get_weather", {"city": "Oslo"})]
    assert reply.invalid_tool_calls[0]["name"] == "get_date" and reply.content == "ok"
    reply = parse('<tool_call>get_weather(city="Pa', "hermes")
    assert reply.invalid_tool_calls[0]["error"].startswith("The call is cut off")


def test_a_nameless_call_in_a_marker_names_the_bound_tools():
    text = '<tool_call>{"name": "", "arguments": {"city": "Oslo"}}</tool_call>'
    bad = check(parse_tool_calls(text, ["get_time", "get_weather"])).invalid_tool_calls
    assert bad[0]["error"] == "The tool call has no name; call one of the available tools: get_time, get_weather."
    bad = check(parse_tool_calls(text, [])).invalid_tool_calls
    assert bad[0]["error"] == "The tool call has no name, and no tools are available, so answer in plain text."


# ----------------------------------------- review 3 #6: JSON repaired the JSON way, surrogate pairs joined

TRAILING = [
    ('{"city": "x", "exact": true, "page": null,}', {"city": "x", "exact": True, "page": None}),
    ('{"city": "a\\/b",}', {"city": "a/b"}),
    ('{"city": "smile \\ud83d\\ude00",}', {"city": "smile \U0001f600"}),
    ('{"city": ["x", false,], }', {"city": ["x", False]}),
    ('{"city": "a,}",}', {"city": "a,}"}),
]


@pytest.mark.parametrize(("args", "expected"), TRAILING)
@pytest.mark.parametrize("style", ["hermes", "bare", "list", "python_tag", "mistral", "mistral_args"])
def test_json_with_a_trailing_comma_is_repaired_with_json_semantics(args, expected, style):
    call = '{"name": "get_weather", "arguments": ' + args + "}"
    text = {
        "hermes": f"<tool_call>\n{call}\n</tool_call>",
        "bare": f"Checking. {call}",
        "list": f"[{call},]",
        "python_tag": f"<|python_tag|>{call.replace('arguments', 'parameters')}<|eom_id|>",
        "mistral": f"[TOOL_CALLS][{call},]",
        "mistral_args": f"[TOOL_CALLS]get_weather[ARGS]{args}",
    }[style]
    reply = parse(text)
    assert calls(reply) == [("get_weather", expected)] and reply.invalid_tool_calls == []
    json.dumps(reply.tool_calls[0]["args"], ensure_ascii=False).encode("utf-8")


def test_python_syntax_is_still_read_as_a_python_literal_and_its_escapes_joined():
    reply = parse("{'name': 'web_search', 'arguments': {'q': '\\ud83d\\ude00', 'exact': True,}}")
    assert calls(reply) == [("web_search", {"q": "\U0001f600", "exact": True})]
    reply = parse('[web_search(q="\\ud83d\\ude00 \\ud83d")]', "pythonic")
    assert calls(reply) == [("web_search", {"q": "\U0001f600 \ufffd"})]


def test_json_that_no_repair_fixes_is_an_invalid_call_keeping_the_raw_text():
    raw = '{"name": "get_weather", "arguments": {"city": "a\\/b" "x",}}'
    reply = parse(f"<tool_call>{raw}</tool_call>")
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["args"] == raw
    assert reply.invalid_tool_calls[0]["name"] == "get_weather"


def test_lone_surrogate_escapes_in_a_call_never_reach_the_arguments():
    reply = parse('<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo \\ud83d"}}</tool_call>')
    assert calls(reply) == [("get_weather", {"city": "Oslo \ufffd"})]
    reply = parse('<tool_call>{"name": "get_\\ud83d", "arguments": {"x": "\\ud83d"}}</tool_call>')
    [bad] = reply.invalid_tool_calls
    assert bad["name"] == "get_\ufffd"
    json.dumps(bad, ensure_ascii=False).encode("utf-8")


# --------------------------------------------------------------- review 3 #10: NaN and Infinity refused


@pytest.mark.parametrize(
    ("text", "number"),
    [('<tool_call>{"name": "calculate", "arguments": {"value": NaN}}</tool_call>', "NaN"),
     ('{"name": "calculate", "arguments": {"value": Infinity}}', "Infinity"),
     ('<|python_tag|>{"name": "calculate", "parameters": {"value": [-Infinity]}}', "-Infinity"),
     ('[TOOL_CALLS][{"name": "calculate", "arguments": {"value": 1e999}}]', "Infinity"),
     ('[TOOL_CALLS]calculate[ARGS]{"value": NaN}', "NaN"),
     ("{'name': 'calculate', 'arguments': {'value': 1e999}}", "Infinity"),
     ('[calculate(value=1e999)]', "Infinity"),
     ('calculate(value=-1e400)', "-Infinity")],
)
def test_non_finite_numbers_make_the_call_invalid_under_its_name(text, number):
    reply = parse(text)
    assert reply.tool_calls == []
    [bad] = reply.invalid_tool_calls
    assert bad["name"] == "calculate" and bad["args"]
    assert f"is not a finite number ({number}" in bad["error"] and "send a finite number" in bad["error"]
    json.dumps(bad, allow_nan=False)


def test_finite_numbers_next_to_a_non_finite_call_are_kept():
    text = ('<tool_call>{"name": "calculate", "arguments": {"value": 1e308}}</tool_call>'
            '<tool_call>{"name": "calculate", "arguments": {"value": NaN}}</tool_call>')
    reply = parse(text)
    assert calls(reply) == [("calculate", {"value": 1e308})] and len(reply.invalid_tool_calls) == 1


# -------------------------------- review 3 #5: a cut-off (or partly malformed) list keeps its whole calls

CUT_LIST = ('[{"name": "get_weather", "arguments": {"city": "Oslo"}}, '
            '{"name": "calculate", "arguments": {"expression": "12 * 3')


@pytest.mark.parametrize(
    ("text", "dialect"),
    [(CUT_LIST, "json"), (CUT_LIST, None), (f"Sure. {CUT_LIST}", "json"), ("[TOOL_CALLS]" + CUT_LIST, "mistral"),
     ("[TOOL_CALLS] " + CUT_LIST, None), ("<|python_tag|>" + CUT_LIST.replace("arguments", "parameters"), "json"),
     ("<tool_call>\n" + CUT_LIST, "hermes"), (f"```json\n{CUT_LIST}", "json")],
)
def test_cut_off_list_keeps_the_complete_calls_and_names_the_cut_one(text, dialect):
    reply = parse(text, dialect)
    assert calls(reply) == [("get_weather", {"city": "Oslo"})]
    [bad] = reply.invalid_tool_calls
    assert bad["name"] == "calculate" and "cut off" in bad["error"]
    assert bad["args"].startswith('{"name": "calculate", "') and bad["args"].endswith('"12 * 3')
    assert reply.content in ("", "Sure.", "```json")


def test_cut_off_list_edges():
    reply = parse('[{"name": "get_weather", "arguments": {"city": "Oslo"}}, ')  # cut between two calls
    assert calls(reply) == [("get_weather", {"city": "Oslo"})] and reply.invalid_tool_calls == []
    reply = parse('[TOOL_CALLS][{"name": "get_time", "arguments": {}}, {"na')  # the cut one has no name yet
    assert calls(reply) == [("get_time", {})]
    assert reply.invalid_tool_calls[0]["name"] is None and reply.invalid_tool_calls[0]["args"] == '{"na'
    reply = parse('[{"name": "web", "arguments": {}}, {"name": "get_time", "arguments": {"tz": "C')
    assert reply.tool_calls == [] and [b["name"] for b in reply.invalid_tool_calls] == ["web", "get_time"]
    for dialect in ("json", None):  # no marker, cut before the cut call's head is whole: the list is still calls
        for rest in ('{"na', '{"name": "get_time", "argu', "{"):
            reply = parse('[{"name": "get_weather", "arguments": {"city": "Oslo"}}, ' + rest, dialect)
            assert calls(reply) == [("get_weather", {"city": "Oslo"})] and reply.content == "", (rest, dialect)
            assert [b["args"] for b in reply.invalid_tool_calls] == [rest], (rest, dialect)
    text = 'Numbers: [{"a": 1}, {"b": 2'  # not a list of calls: text
    assert parse(text) == ParsedReply(text, [], [])
    text = 'Rows: [{"name": "Ann", "age": 3}, {"name": "Bo'
    assert parse(text) == ParsedReply(text, [], [])


def test_a_malformed_call_in_a_list_does_not_take_the_other_calls_with_it():
    items = ('{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "calculate", "arguments": {x}}, '
             '{"name": "get_time", "arguments": {}}')
    for text in (f"[TOOL_CALLS][{items}] Done.", f"Here: [{items}] Done.", f"<|python_tag|>[{items}] Done.",
                 f"<tool_call>[{items}]</tool_call> Done."):
        reply = parse(text)
        assert calls(reply) == [("get_weather", {"city": "Oslo"}), ("get_time", {})], text
        [bad] = reply.invalid_tool_calls
        assert bad["name"] == "calculate" and bad["args"] == '{"name": "calculate", "arguments": {x}}'
        assert reply.content.endswith("Done.") and "get_" not in reply.content


# -------------------------------------------- review 3 #4: several call objects in one <tool_call> block

QWEN_PARALLEL = ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
                 '{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>')


@pytest.mark.parametrize("dialect", [None, "hermes"])
def test_hermes_block_with_several_call_objects_gives_every_call(dialect):
    reply = parse(f"Checking both.\n{QWEN_PARALLEL}\nOne moment.", dialect)
    assert calls(reply) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})]
    assert reply.invalid_tool_calls == [] and reply.content == "Checking both.\n\nOne moment."
    three = ('<tool_call>\n```json\n{"name": "get_time", "arguments": {}}, {"name": "get_time", "arguments": '
             '{"tz": "CET"}};\n{"name": "get_weather", "arguments": {"city": "</tool_call>"}}\n```\n</tool_call>')
    reply = parse(three, dialect)
    assert calls(reply) == [("get_time", {}), ("get_time", {"tz": "CET"}), ("get_weather", {"city": "</tool_call>"})]
    assert reply.content == ""


def test_hermes_second_object_malformed_unknown_or_cut_off_is_invalid():
    first = '<tool_call>\n{"name": "get_time", "arguments": {}}\n'
    for second, name, error in [
        ('{"name": "get_weather", "arguments": {city}}\n</tool_call>', "get_weather", "neither valid JSON"),
        ('{"name": "get_date", "arguments": {}}\n</tool_call>', "get_date", "Unknown tool"),
        ('{"name": "get_weather", "arguments": {"city": "Pa', "get_weather", "cut off"),
        ('{"city": "Oslo"}\n</tool_call>', None, "must be a JSON object"),
    ]:
        reply = parse(first + second, "hermes")
        assert calls(reply) == [("get_time", {})], second
        [bad] = reply.invalid_tool_calls
        assert bad["name"] == name and error in bad["error"] and reply.content == ""


def test_hermes_json_after_an_unclosed_block_stays_text_unless_it_is_a_call():
    reply = parse('<tool_call>{"name": "get_time", "arguments": {}}\n{"x": 1} is the data', "hermes")
    assert calls(reply) == [("get_time", {})] and reply.content == '{"x": 1} is the data'
    reply = parse('<tool_call>{"name": "get_time", "arguments": {}}</tool_call>\n{"name": "Ann"}', "hermes")
    assert calls(reply) == [("get_time", {})] and reply.content == '{"name": "Ann"}'


def test_pythonic_non_finite_call_keeps_the_call_text():
    reply = parse('Setting it. [calculate(value=1e999), get_time()]', "pythonic")
    assert calls(reply) == [("get_time", {})]
    [bad] = reply.invalid_tool_calls
    assert bad["name"] == "calculate" and bad["args"] == "calculate(value=1e999)"
    assert "send a finite number" in bad["error"] and reply.content == "Setting it."


# -------------------- a name that differs from a bound one only in letter case and separators is that tool

@pytest.mark.parametrize(("text", "dialect"), [
    ('[brave_search_Call(query="x")]', None),
    ('[BraveSearch.call(query="x")]', "pythonic"),
    ('<tool_call>{"name": "brave-search-call", "arguments": {"query": "x"}}</tool_call>', "hermes"),
    ('[{"name": "BRAVE_SEARCH_CALL", "arguments": {"query": "x"}}]', "json"),
    ('{"name": "braveSearch.call", "parameters": {"query": "x"}}', None),
    ('[TOOL_CALLS][{"name": "brave_search_call", "arguments": {"query": "x"}}]', "mistral"),
])
def test_a_near_name_is_read_as_the_bound_tool(text, dialect):
    assert calls(parse(text, dialect)) == [("brave_search.call", {"query": "x"})]


def test_a_near_name_shared_by_two_bound_tools_is_not_guessed():
    names = ["get_weather", "getWeather"]
    reply = check(parse_tool_calls('<tool_call>{"name": "GET-WEATHER", "arguments": {}}</tool_call>', names))
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["name"] == "GET-WEATHER"
    assert "Unknown tool" in reply.invalid_tool_calls[0]["error"]
    text = '[GET_WEATHER(city="Oslo")]'  # no marker: not a call of a bound tool, so text
    assert check(parse_tool_calls(text, names)) == ParsedReply(text, [], [])
    assert calls(check(parse_tool_calls('[getweather(city="Oslo")]', ["get_weather", "get_time"]))) == [
        ("get_weather", {"city": "Oslo"})]


def test_other_names_stay_unknown_and_prose_stays_text():
    reply = parse('<tool_call>{"name": "get_weathers", "arguments": {}}</tool_call>')
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["name"] == "get_weathers"
    text = "Use getWeather(city) to look it up."
    assert parse(text) == ParsedReply(text, [], [])
