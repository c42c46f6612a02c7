"""Review 178 #4: a Mistral v11 call ``[TOOL_CALLS]name[ARGS]{...}`` of a tool whose name starts with a digit or
``-`` (names ``@tool`` accepts) is read, not left as text."""

from __future__ import annotations

import pytest

from toolwire.models._text_calls import read_text_calls
from toolwire.parsing import parse_tool_calls


@pytest.mark.parametrize("name", ["3d_plot", "-x", "3d", "7"])
@pytest.mark.parametrize("dialect", ["mistral", None])
def test_a_name_starting_with_a_digit_or_dash_is_read_after_the_marker(name: str, dialect: str | None) -> None:
    text = f'[TOOL_CALLS]{name}[ARGS]{{"points": [1, 2]}}'
    reply = parse_tool_calls(text, [name], dialect)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [(name, {"points": [1, 2]})]
    assert reply.invalid_tool_calls == [] and reply.content == ""


def test_several_such_calls_and_the_call_id_form() -> None:
    text = '[TOOL_CALLS]3d[ARGS]{"a": 1}[TOOL_CALLS]-y[CALL_ID]abc123def[ARGS]{"b": 2}'
    reply = parse_tool_calls(text, ["3d", "-y"], "mistral")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("3d", {"a": 1}), ("-y", {"b": 2})]
    assert reply.tool_calls[1]["id"] == "abc123def"


def test_the_server_text_path_reads_it_too() -> None:
    found = read_text_calls('[TOOL_CALLS]3d_plot[ARGS]{"points": [1]}', ["3d_plot"])
    assert found is not None
    content, calls, invalid = found
    assert content == "" and invalid == [] and [(c["name"], c["args"]) for c in calls] == [("3d_plot", {"points": [1]})]


def test_an_unknown_such_name_is_an_invalid_call_and_prose_after_the_marker_stays_text() -> None:
    reply = parse_tool_calls('[TOOL_CALLS]3d[ARGS]{"a": 1}', ["plot"], "mistral")
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["name"] == "3d"
    prose = "The model writes [TOOL_CALLS] 2 times before its calls."
    assert parse_tool_calls(prose, ["plot"], "mistral") == (prose, [], [])
