"""Pythonic calls: Python-safe spellings of names read back, cut-off call lists, fenced call lists (review 3)."""

from __future__ import annotations

from toolwire.parsing import ParsedReply, parse_tool_calls
from toolwire.parsing.pythonic import PythonNames, parse_pythonic, python_name
from toolwire.tools import ToolSpec

NAMES = ["get_weather", "calc"]


def calls(reply: ParsedReply) -> list[tuple[str, dict]]:
    return [(c["name"], c["args"]) for c in reply.tool_calls]


def invalid(reply: ParsedReply) -> list[tuple[str | None, str | None]]:
    return [(c["name"], c["args"]) for c in reply.invalid_tool_calls]


# -- Python-safe spellings (#1) ---------------------------------------------------------------------------


def test_python_name_keeps_readable_names_and_respells_the_others():
    for name in ("get_weather", "city", "_x", "città", "名前", "match", "brave_search.call"):
        assert python_name(name, tool="." in name) == name
    assert python_name("get-weather", tool=True) == "get_weather"
    assert python_name("x.class", tool=True) == "x_class"
    assert python_name("None", tool=True) == "None_"
    assert python_name("from") == "from_" and python_name("class") == "class_"
    assert python_name("first-name") == "first_name" and python_name("a b") == "a_b"
    assert python_name("2nd") == "_2nd" and python_name("") == "_"
    assert python_name("ﬁle") == "_le"  # Python would read it as "file"
    assert python_name("città", tool=True) == "citt_"


def test_python_names_are_unique_and_reversible():
    names = PythonNames({
        "get-weather": {"properties": {"from": {}, "from_": {}, "first-name": {}, "q": {}}, "required": ["q"]},
        "get_weather": None,
    })
    assert names.tool("get_weather") == "get_weather" and names.tool("get-weather") == "get_weather_"
    assert names.params("get-weather") == {"q": "q", "from": "from__", "from_": "from_", "first-name": "first_name"}
    assert names.real_tool("get_weather_") == "get-weather" and names.real_tool("other") == "other"
    assert names.real_param("get-weather", "from__") == "from" and names.real_param("get-weather", "from_") == "from_"
    assert names.param("unbound", "class") == "class_"
    # the spelling depends on the set of names, not on their order
    assert PythonNames(["b-x", "b_x", "a"]).tool("b-x") == PythonNames(["a", "b_x", "b-x"]).tool("b-x") == "b_x_"


def test_python_spellings_are_read_back_as_the_real_names():
    flight = ToolSpec("book-flight", "Book.", {"type": "object", "properties": {
        "from": {"type": "string"}, "first-name": {"type": "string"}}, "required": ["from"]})
    text = 'Booking. [book_flight(from_="OSL", first_name="Ann"), calc(expression="1")]'
    reply = parse_pythonic(text, {"book-flight": flight, "calc": {"properties": {"expression": {}}}})
    assert calls(reply) == [("book-flight", {"from": "OSL", "first-name": "Ann"}), ("calc", {"expression": "1"})]
    assert reply.content == "Booking."
    # a mapping to parameter schemas works through parse_tool_calls too; names alone map tool names only
    reply = parse_tool_calls('book_flight(from_="OSL")', {"book-flight": flight.parameters}, "pythonic")
    assert calls(reply) == [("book-flight", {"from": "OSL"})]
    reply = parse_tool_calls('[book_flight(from_="OSL")]', ["book-flight"])
    assert calls(reply) == [("book-flight", {"from_": "OSL"})]


def test_unknown_names_are_told_in_the_python_spelling():
    reply = parse_pythonic('[get_time(), get_weather(city="Oslo")]', ["get-time", "get-weather"])
    assert calls(reply) == [("get-time", {}), ("get-weather", {"city": "Oslo"})]
    reply = parse_pythonic('[get_weather(city="Oslo"), get_date()]', ["get-weather"])
    assert reply.invalid_tool_calls[0]["error"] == (
        "Unknown tool 'get_date'; call one of the available tools: get_weather.")
    reply = parse_pythonic('[get_weather("Oslo")]', ["get-weather"])
    assert reply.invalid_tool_calls[0]["name"] == "get-weather"
    assert "such as get_weather(" in reply.invalid_tool_calls[0]["error"]


def test_a_cut_off_python_spelled_call_keeps_its_real_name():
    tools = {"get_weather": None, "book-flight": None}
    reply = parse_pythonic('[get_weather(city="Oslo"), book_flight(from_="OS', tools)
    assert calls(reply) == [("get_weather", {"city": "Oslo"})]
    assert invalid(reply) == [("book-flight", 'book_flight(from_="OS')]
    assert "such as book_flight(" in reply.invalid_tool_calls[0]["error"]


# -- a cut-off call list (#5) -------------------------------------------------------------------------------


def test_a_cut_off_list_keeps_its_complete_calls_and_blames_the_cut_one():
    for text in ('[get_weather(city="Oslo"), calc(expression="12 * 3', 'Sure: [get_weather(city="Oslo"), calc(',
                 '<tool_call>[get_weather(city="Oslo"), calc(expression="12'):
        reply = parse_tool_calls(text, NAMES, "hermes" if text.startswith("<") else "pythonic")
        assert calls(reply) == [("get_weather", {"city": "Oslo"})], text
        assert [c["name"] for c in reply.invalid_tool_calls] == ["calc"], text
        assert reply.invalid_tool_calls[0]["args"].startswith("calc(")
        assert reply.invalid_tool_calls[0]["error"].startswith("The call is cut off")
        assert reply.content in ("", "Sure:")
    reply = parse_pythonic('[get_weather(city="Oslo"), calc(expression="1"), get_weather(city="Be', NAMES)
    assert calls(reply) == [("get_weather", {"city": "Oslo"}), ("calc", {"expression": "1"})]
    assert invalid(reply) == [("get_weather", 'get_weather(city="Be')]


def test_a_list_cut_between_calls_keeps_them_and_loses_no_text():
    reply = parse_pythonic('[get_weather(city="Oslo"), ', NAMES)
    assert calls(reply) == [("get_weather", {"city": "Oslo"})] and reply.invalid_tool_calls == []
    reply = parse_pythonic('[get_weather(city="Oslo"), cal', NAMES)
    assert calls(reply) == [("get_weather", {"city": "Oslo"})] and invalid(reply) == [(None, "cal")]
    # complete items that are not good calls are invalid under their own names
    reply = parse_pythonic('[get_weather(city=x y), get_date(), calc(expression="1', NAMES)
    assert invalid(reply) == [("get_weather", "get_weather(city=x y)"), ("get_date", "get_date()"),
                              ("calc", 'calc(expression="1')]
    # a list whose first call is cut keeps the whole text on one invalid call, as before
    reply = parse_pythonic('[get_weather(city="Pa', NAMES)
    assert calls(reply) == [] and invalid(reply) == [("get_weather", '[get_weather(city="Pa')]


# -- a fenced call list (#7) ----------------------------------------------------------------------------------


def test_a_fence_holding_only_calls_goes_with_them():
    for text in ('```python\n[get_weather(city="Oslo")]\n```', '```\n[get_weather(city="Oslo")]\n```',
                 '```py\n[get_weather(city="Oslo")]\n```', '```tool_code\nget_weather(city="Oslo")\n```',
                 '```python\n[get_weather(city="Oslo")]\n[calc(expression="1")]\n```'):
        reply = parse_pythonic(text, NAMES)
        assert calls(reply)[0] == ("get_weather", {"city": "Oslo"}) and reply.content == "", text
    reply = parse_pythonic('Sure.\n```python\n[get_weather(city="Oslo")]\n```\nDone.', NAMES)
    assert reply.content == "Sure.\n\nDone."
    reply = parse_pythonic('```python\n[get_weather(city="Oslo"), calc(expression="1', NAMES)  # cut off
    assert reply.content == "" and [c["name"] for c in reply.invalid_tool_calls] == ["calc"]


def test_a_fence_holding_more_than_calls_stays():
    text = '```python\n[get_weather(city="Oslo")]\nprint(1)\n```'
    assert parse_pythonic(text, NAMES).content == '```python\n\nprint(1)\n```'
    text = '```js\nx\n```\n[get_weather(city="Oslo")]'  # the closing fence of another block
    assert parse_pythonic(text, NAMES).content == "```js\nx\n```"
