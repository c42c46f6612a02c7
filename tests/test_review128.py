"""Review 128: a skeptic's pass over the fixes of reviews 125-127."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from toolwire import tool


class _A(BaseModel):
    x: int
    y: int = 0


class _Bounded(BaseModel):
    x: int
    page: int = Field(0, ge=1)  # 0: "not given", a sentinel its own bound refuses


def test_a_strict_mode_null_is_not_given_back_a_default_its_own_bound_refuses() -> None:
    # #3: review 127 #1 checked a default against its type only; Field(0, ge=1) was given back and the call refused
    @tool
    def pick(v: _A | _Bounded) -> str:
        """Take one.

        Args:
            v: the value
        """
        return repr(v)

    assert pick.invoke({"v": {"x": 1, "page": None}}) == "_A(x=1, y=0)"


def test_parses_of_model_text_and_of_the_calculator_leave_once_only_warnings_once() -> None:
    # #6: the two pseudo-files' filters took turns at the front of the list, and each move cleared the record of
    # warnings already shown, so a tool's "default" (once per location) warning came at every step
    import warnings

    from toolwire.examples.arith import evaluate
    from toolwire.parsing import normalize_arguments

    def step() -> None:
        normalize_arguments(r"{'path': 'C:\data'}")
        warnings.warn("rates are from yesterday", UserWarning, stacklevel=1)
        evaluate("2 + 2")

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        for _ in range(5):
            step()
    assert [str(w.message) for w in seen] == ["rates are from yesterday"]


def test_the_pythonic_prompt_says_the_form_of_a_date() -> None:
    # #5: with the grammar no longer holding the ISO form (review 126 #2), a date parameter showed as a bare str
    import datetime

    from toolwire.models._tool_text import python_signature
    from toolwire.models.base import to_tool_spec

    class Slot(BaseModel):
        start: datetime.datetime = Field(description="when it starts")

    @tool
    def add_task(title: str, due: datetime.date, slot: Slot | None = None) -> str:
        """Add a task.

        Args:
            title: the task
            due: the day it is due
            slot: when to work on it
        """
        return title

    text = python_signature(to_tool_spec(add_task))
    assert "due: the day it is due. Written YYYY-MM-DD." in text
    assert "start (str): when it starts. Written YYYY-MM-DDTHH:MM:SS (ISO 8601)." in text


def test_a_polling_tool_in_repeat_calls_whose_answer_changes_keeps_its_tools() -> None:
    # #2: after review 126 #1, three identical polls turned tools off even when the third said "done", so the model
    # could not fetch the result; only the same reply with the same answers a third time is a loop
    from toolwire import Agent
    from toolwire.messages import AIMessage
    from toolwire.testing import ScriptedChatModel

    states = iter(["running", "running", "done"])

    @tool
    def job_status(job: str) -> str:
        """The state of a job."""
        return next(states)

    @tool
    def fetch_result(job: str) -> str:
        """The result of a finished job."""
        return "42"

    def poll(n: int) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": "job_status", "args": {"job": "j1"}, "id": f"p{n}",
                                          "type": "tool_call"}])

    fetch = AIMessage("", tool_calls=[{"name": "fetch_result", "args": {"job": "j1"}, "id": "f", "type": "tool_call"}])
    model = ScriptedChatModel([poll(1), poll(2), poll(3), fetch, "The result is 42."])
    result = Agent(model, [job_status, fetch_result], repeat_calls=["job_status"]).invoke("Run j1, give me its result")
    assert result.output == "The result is 42."
    assert [request.tool_choice for request in model.requests] == ["auto"] * 5


def test_a_date_given_as_digits_or_a_number_is_refused_not_read_as_a_timestamp() -> None:
    # #1: with the grammar no longer holding the ISO form, "20260515" reached pydantic, which read it as a Unix
    # timestamp: a 1970 date, valid and wrong
    import datetime

    @tool
    def book(day: datetime.date, at: datetime.time, starts: datetime.datetime) -> str:
        """Book a slot."""
        return f"{day} {at} {starts}"

    good = {"day": "2026-05-15", "at": "10:30", "starts": "2026-05-15T10:30:00"}
    assert book.invoke(good) == "2026-05-15 10:30:00 2026-05-15 10:30:00"
    for key, bad in (("day", "20260515"), ("day", 20260515), ("at", "1030"), ("starts", 1778840000)):
        message = book.invoke({"name": "book", "args": {**good, key: bad}, "id": "c", "type": "tool_call"})
        assert message.status == "error" and "not a number or digits alone" in message.text, message.text
    assert book.invoke({"day": datetime.date(2026, 5, 15), "at": datetime.time(10, 30),
                        "starts": datetime.datetime(2026, 5, 15, 10, 30)}).startswith("2026-05-15")
    assert book.args["day"] == {"format": "date", "type": "string"}  # the JSON Schema is as before


def test_review129_the_same_reply_a_fifth_time_is_a_loop_whatever_its_answers() -> None:
    # review 129 #2: an adding tool whose answer carries a new id each time escaped the answer-aware rule
    from toolwire import Agent
    from toolwire.messages import AIMessage
    from toolwire.testing import ScriptedChatModel

    rows: list[int] = []

    @tool
    def add_expense(amount: float) -> str:
        """Add an expense."""
        rows.append(1)
        return f"Added expense #{len(rows)}"

    same = [AIMessage("", tool_calls=[{"name": "add_expense", "args": {"amount": 30}, "id": f"c{n}",
                                       "type": "tool_call"}]) for n in range(5)]
    model = ScriptedChatModel([*same, "Added it."])
    assert Agent(model, [add_expense], repeat_calls=["add_expense"]).invoke("Add 30").output == "Added it."
    assert len(rows) == 5 and [r.tool_choice for r in model.requests] == ["auto"] * 5 + ["none"]


def test_review129_a_date_member_of_a_union_with_str_still_gives_a_date() -> None:
    import datetime

    @tool
    def when(at: datetime.datetime | str, days: list[datetime.date] | list[str], day: datetime.date | None = None,
             n: str = "") -> str:
        """When."""
        return f"{type(at).__name__} {type(days[0]).__name__} {type(day).__name__}"

    good = {"at": "2026-05-15T10:00:00", "days": ["2026-05-15"], "day": "2026-05-15"}
    assert when.invoke(good) == "datetime date date"
    for bad in ("20260515", "+20260515", "20260515.0"):  # (an Optional date is no union: still refused)
        message = when.invoke({"name": "when", "args": {**good, "day": bad}, "id": "c", "type": "tool_call"})
        assert message.status == "error" and "digits alone" in message.text


def test_review129_the_date_form_is_said_for_optional_and_listed_dates() -> None:
    import datetime

    from toolwire.models._tool_text import python_signature
    from toolwire.models.base import to_tool_spec

    @tool
    def plan(days: list[datetime.date], remind_at: datetime.datetime | None = None) -> str:
        """Plan.

        Args:
            days: the days to block
            remind_at: when to remind
        """
        return ""

    text = python_signature(to_tool_spec(plan))
    assert "days: the days to block. Each written YYYY-MM-DD." in text
    assert "remind_at: when to remind. Written YYYY-MM-DDTHH:MM:SS (ISO 8601)." in text


def test_review129_the_cli_note_does_not_follow_an_answer_from_a_tool_that_raised(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from toolwire import cli
    from toolwire.messages import AIMessage, tool_call
    from toolwire.testing import ScriptedChatModel

    def scripted(name: object, dialect: object, n_ctx: object = None, n_threads: object = None) -> ScriptedChatModel:
        return ScriptedChatModel([AIMessage("", tool_calls=[tool_call("calculate", {"expression": "1 / 0"}, "c1")]),
                                  "It cannot be divided by zero."])

    monkeypatch.setattr(cli, "_model", scripted)
    result = CliRunner().invoke(cli.app, ["ask", "1 / 0?"])
    assert result.exit_code == 0 and "divided by zero" in result.output and "no tool was called" not in result.output
