"""Review 233 #5: a union's date member refusing a badly written date (not a number) says what it expects, without
"not a number or digits alone", which only a number or digits earn; pydantic's own reason is kept where given."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

import pytest

from toolwire import tool


def _error(annotation: Any, value: Any) -> str:
    def f(x: Any) -> str:
        """F."""
        return repr(x)

    f.__annotations__ = {"x": annotation, "return": str}
    made = tool(f)
    text = made.invoke({"name": "f", "args": {"x": value}, "id": "1", "type": "tool_call"}).content
    assert isinstance(text, str)
    return text


UNIONS = [dt.date | Literal["today", "tomorrow"], dt.date | int, dt.datetime | float, dt.date | None,
          dt.time | Literal["noon"], list[dt.date] | list[int], dt.date | Literal[1, 2]]


@pytest.mark.parametrize("annotation", UNIONS, ids=str)
@pytest.mark.parametrize("value", ["2024-13-45", "next week", "12:99"])
def test_a_badly_written_date_is_not_called_a_number(annotation: Any, value: str) -> None:
    text = _error(list[dt.date] if annotation is None else annotation,
                  [value] if "list" in str(annotation) else value)
    assert text.startswith("Error: Invalid arguments"), text
    assert "not a number or digits alone" not in text, text
    assert ("written" in text) or ("valid date" in text) or ("valid time" in text) or ("valid datetime" in text), text


@pytest.mark.parametrize("annotation", UNIONS, ids=str)
@pytest.mark.parametrize("value", ["20240515", "1700000000"])
def test_digits_are_still_told_to_be_written_as_a_date(annotation: Any, value: str) -> None:
    text = _error(annotation, [value] if "list" in str(annotation) else value)
    if not text.startswith("Error"):  # (a member that takes digits: an int, a float)
        return
    assert "not a number or digits alone" in text, text


def test_pydantics_own_reason_is_given_once() -> None:
    text = _error(dt.date | Literal["today", "tomorrow"], "2024-13-45")
    assert text == ("Error: Invalid arguments for tool 'f': 'x': Input should be a valid date or datetime, month value "
                    "is outside expected range of 1-12, or input should be 'today' or 'tomorrow' (got '2024-13-45').")
