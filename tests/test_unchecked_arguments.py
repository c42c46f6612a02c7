"""Arguments whose validation raises a TypeError rather than a ValidationError (pydantic checking a ``date`` against
pandas' ``NaT``; a field validator's own TypeError) give a ToolValidationError saying the tool did not run, not
"tool raised TypeError" (review 272)."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import BaseModel, field_validator

from toolwire import tool
from toolwire.errors import ToolValidationError


class _Args(BaseModel):
    n: int

    @field_validator("n", mode="before")
    @classmethod
    def _refuse(cls, value: object) -> object:
        if value == 13:
            raise TypeError("thirteen is not served")
        return value


def test_a_type_error_in_a_field_validator_is_a_validation_error_and_the_tool_does_not_run() -> None:
    ran = []

    @tool(args_schema=_Args)
    def count(n: int) -> str:
        """Count."""
        ran.append(n)
        return str(n)

    with pytest.raises(ToolValidationError, match="did not run: checking its arguments failed with TypeError"):
        count.invoke({"n": 13})
    message = count.invoke({"name": "count", "args": {"n": 13}, "id": "c1", "type": "tool_call"})
    assert message.status == "error" and "did not run" in message.content and "raised TypeError" not in message.content
    assert ran == []
    assert count.invoke({"n": 2}) == "2"


def test_pandas_nat_for_a_date_parameter_is_a_validation_error() -> None:
    pd = pytest.importorskip("pandas")

    @tool
    def on_day(day: dt.date | None = None) -> str:
        """Events of a day."""
        return repr(day)

    with pytest.raises(ToolValidationError, match="did not run"):
        on_day.invoke({"day": pd.NaT})
    message = on_day.invoke({"name": "on_day", "args": {"day": pd.NaT}, "id": "c1", "type": "tool_call"})
    assert (message.status, message.tool_call_id) == ("error", "c1")
    assert "raised TypeError" not in message.content
