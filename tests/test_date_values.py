"""The value check finds a date or time in the conversation in the forms people write it (review 71).

The grammar writes a ``date-time`` parameter as ``2025-05-02T09:00`` and models write ``2025-05-02`` for "May 2nd";
the value check (``min_value_probability``) used to look for the value only as written, and declined the right
call to a forecast tool for "What's the weather in Berlin on 2025-05-02 at 09:00?" twice.
"""

from __future__ import annotations

import pytest

from toolwire.models._call_checks import context_numbers, context_words, in_context
from toolwire.models._date_values import date_time_in_context


def _found(value: str, *texts: str) -> bool:
    return in_context(value, context_words(texts), context_numbers(texts))


@pytest.mark.parametrize(("question", "value"), [
    ("What's the weather in Berlin on 2025-05-02 at 09:00?", "2025-05-02T09:00"),
    ("What's the weather in Berlin on 2025-05-02 at 09:00?", "2025-05-02T09:00:00Z"),  # seconds 0, a zone
    ("Weather tomorrow at 9am (2025-05-02)?", "2025-05-02T09:00"),
    ("Book it for May 2nd, 2025 at 9:30 pm", "2025-05-02T21:30"),
    ("Book it for May 2nd, 2025", "2025-05-02"),
    ("Book it for the 2nd of May 2025", "2025-05-02"),
    ("Marque para 2 de maio de 2025 às 9h", "2025-05-02T09:00"),
    ("Reserve para 15 de setembro de 2024 às 14h30", "2024-09-15T14:30"),
    ("Sept. 15, 2024 at 12 p.m.", "2024-09-15T12:00"),
    ("on 5/2/2025", "2025-05-02"),  # month/day or day/month: either reading is the user's
    ("on 5/2/2025", "2025-02-05"),
    ("meet at 14:05:30", "14:05:30"),
    ("meet at 7:45", "07:45"),
])
def test_a_date_or_time_the_user_wrote_another_way_is_found(question: str, value: str) -> None:
    assert _found(value, question)


@pytest.mark.parametrize(("question", "value"), [
    ("What's the weather in Berlin on 2025-05-02 at 09:00?", "2025-05-02T10:00"),  # another hour
    ("What's the weather in Berlin on 2025-05-02 at 09:00?", "2025-05-03T09:00"),  # another day
    ("Weather tomorrow at 9am (2025-05-02)?", "2025-05-02T21:00"),  # 9 pm is not 9 am
    ("Book it for May 2nd, 2025", "2024-05-02"),  # a year the conversation does not hold
    ("Book it for May 2nd", "2025-05-02"),
    ("Book it for May 2nd, 2025", "2025-05-20"),
    ("Who played for Clippers in NBA", "2023-04-15"),  # made up (a BFCL irrelevance decline)
    ("What was Albert Einstein's contribution to science on March 17, 1915?", "2015-03-17"),
    ("meet at 14:05:30", "14:05:31"),
])
def test_a_date_or_time_the_conversation_does_not_hold_is_not(question: str, value: str) -> None:
    assert not _found(value, question)


def test_only_iso_dates_and_times_are_read_so() -> None:
    assert date_time_in_context("may 2nd", "may 2nd, 2025", set()) is None
    assert date_time_in_context("2025-13-02", "whatever 2025", set()) is False  # no such month
    assert date_time_in_context("25:00", "at 25:00", set()) is False
