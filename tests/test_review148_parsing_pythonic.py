"""Review 148 #3: a bracketed pythonic call list that opens with a bound tool's call but that Python cannot
read gives invalid calls saying what to fix; a parameter named after a Python keyword (``from=``) is read."""

from __future__ import annotations

import pytest

from _parsed import calls, errors
from toolwire.parsing import parse_tool_calls

FLIGHTS = {"book_flight": {"type": "object", "properties": {"origin": {"type": "string"}, "days": {"type": "integer"}}},
           "get_flights": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}}}


@pytest.mark.parametrize("text", [
    '[book_flight(origin="NYC" days=3)]',
    '[book_flight(origin="NYC", days=3,, )]',
    '[book_flight(origin: "NYC", days: 3)]',
])
def test_a_call_list_with_a_syntax_slip_is_an_invalid_call(text: str) -> None:
    for dialect in (None, "pythonic"):
        reply = parse_tool_calls(text, FLIGHTS, dialect)
        assert calls(reply) == [] and reply.content == "", (text, dialect)
        assert [(bad["name"], bad["args"]) for bad in reply.invalid_tool_calls] == [("book_flight", text[1:-1])]
        assert errors(reply)[0].startswith("The call to book_flight is not valid Python (")
        assert 'send it again as book_flight(param="value", other=1)' in errors(reply)[0]


def test_the_readable_calls_of_a_broken_call_list_are_kept() -> None:
    reply = parse_tool_calls('[get_flights(to="LA"), book_flight(origin="NYC" days=3)]', FLIGHTS)
    assert calls(reply) == [("get_flights", {"to": "LA"})]
    assert [bad["args"] for bad in reply.invalid_tool_calls] == ['book_flight(origin="NYC" days=3)']
    reply = parse_tool_calls('[book_flight(origin="NYC") get_flights(to="LA")]', FLIGHTS)  # no comma between calls
    assert calls(reply) == [] and len(reply.invalid_tool_calls) == 1 and reply.content == ""


def test_a_keyword_parameter_written_as_the_schema_spells_it_is_read() -> None:
    reply = parse_tool_calls('[get_flights(from="NYC", to="LA")]', FLIGHTS)
    assert calls(reply) == [("get_flights", {"from": "NYC", "to": "LA"})] and reply.content == ""
    reply = parse_tool_calls('get_flights(from="NYC", to="LA, from=x")', ["get_flights"])  # names only
    assert calls(reply) == [("get_flights", {"from": "NYC", "to": "LA, from=x"})]
    reply = parse_tool_calls('[get_flights(from="NYC", from="LA")]', FLIGHTS)
    assert calls(reply) == [] and "'from' is repeated" in errors(reply)[0]
    assert reply.invalid_tool_calls[0]["args"] == 'get_flights(from="NYC", from="LA")'


@pytest.mark.parametrize("text", [
    "See [book_flight(origin) for details] here.",  # prose in brackets
    "Call [book_flight(origin) then get_flights(to)] later.",  # no argument written name=value
    '[other_tool(origin="NYC" days=3)]',  # no bound tool
    'book_flight(origin="NYC" days=3)',  # no list
])
def test_prose_naming_a_tool_stays_text(text: str) -> None:
    reply = parse_tool_calls(text, FLIGHTS, "pythonic")
    assert reply.invalid_tool_calls == [] and reply.tool_calls == [] and reply.content == text


def test_a_broken_call_list_inside_a_marker_is_an_invalid_call() -> None:
    reply = parse_tool_calls('<tool_call>[book_flight(origin="NYC" days=3)]</tool_call>', FLIGHTS)
    assert calls(reply) == [] and reply.content == ""
    assert errors(reply)[0].startswith("The call to book_flight is not valid Python (")


def test_a_tool_name_python_cannot_read_written_as_it_is_in_a_call_list_is_read() -> None:
    for dialect in (None, "pythonic"):
        reply = parse_tool_calls('[get-weather(city="Oslo"), calc(expression="get-weather(1)")]',
                                 ["get-weather", "calc"], dialect)
        assert calls(reply) == [("get-weather", {"city": "Oslo"}), ("calc", {"expression": "get-weather(1)"})]
        assert reply.content == ""
    reply = parse_tool_calls('[get-weather(city="Oslo" days=2)]', ["get-weather"])
    assert calls(reply) == [] and reply.invalid_tool_calls[0]["name"] == "get-weather"
    assert 'send it again as get_weather(param="value", other=1)' in errors(reply)[0]
    reply = parse_tool_calls("Try [get-weather(x) later]", ["get-weather"])  # prose stays
    assert reply.tool_calls == [] and reply.invalid_tool_calls == [] and reply.content == "Try [get-weather(x) later]"
