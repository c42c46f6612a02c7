"""Review 96 (a user leaning on with_structured_output): what it found in the code this session did not own."""

from __future__ import annotations

import logging

import pytest
from pydantic import BaseModel

from toolwire.messages import AIMessage
from toolwire.testing import ScriptedChatModel


class P(BaseModel):
    a: int


def test_one_call_per_reply_keeps_the_call_tool_choice_forces(caplog: pytest.LogCaptureFixture) -> None:
    """A reply [search(...), P(a=1)] to with_structured_output(P) kept search, then said P was not called."""
    reply = AIMessage("", tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "1"},
                                      {"name": "P", "args": {"a": 1}, "id": "2"}])
    with caplog.at_level(logging.WARNING, "toolwire.models"):
        assert ScriptedChatModel([reply]).with_structured_output(P).invoke("x") == P(a=1)
    assert "kept the call of P, forced by tool_choice of the reply, dropped 1" in caplog.text
    first = ScriptedChatModel([reply]).bind_tools([P], parallel_tool_calls=False).invoke("x")  # no tool forced
    assert [c["name"] for c in first.tool_calls] == ["search"]


def test_a_reply_that_breaks_the_schema_names_every_problem_and_keeps_pydantics_error() -> None:
    """Only the first problem was named, and the ValidationError was dropped (raise ... from None)."""
    from pydantic import ValidationError

    class Person(BaseModel):
        name: str
        age: int
        email: str

    reply = AIMessage("", tool_calls=[{"name": "Person", "args": {"name": 1, "age": "x"}, "id": "1"}])
    error = ScriptedChatModel([reply]).with_structured_output(Person, include_raw=True).invoke("x")["parsing_error"]
    assert str(error).startswith("The model's Person does not fit the schema: name: Input should be a valid string; "
                                 "age: Input should be a valid integer")
    assert str(error).endswith("; email: Field required.")
    assert isinstance(error.__cause__, ValidationError) and error.__cause__.error_count() == 3


def test_more_than_five_problems_are_counted() -> None:
    class Many(BaseModel):
        a: int
        b: int
        c: int
        d: int
        e: int
        f: int
        g: int

    reply = AIMessage("", tool_calls=[{"name": "Many", "args": {}, "id": "1"}])
    with pytest.raises(Exception, match=r"e: Field required; and 2 more\.$"):
        ScriptedChatModel([reply]).with_structured_output(Many).invoke("x")
