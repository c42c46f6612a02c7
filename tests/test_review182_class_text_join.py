"""Review 182, closing note: a documented parameter whose type is a class with a docstring gets its own text, then
the class's; the join reads as two sentences in every rendering (the JSON Schema description, and the embedded
model's prompt, which writes a description on one line): the parameter's text ends with a full stop when it has no
closing punctuation of its own."""

from __future__ import annotations

import enum
from typing import NamedTuple

from pydantic import BaseModel

from toolwire import tool
from toolwire.models._tool_text import python_signature
from toolwire.models.base import to_tool_spec


class Coord(NamedTuple):
    """A point on Earth."""

    lat: float
    lon: float


class Unit(enum.Enum):
    """C is Celsius, F is Fahrenheit."""

    C = "C"
    F = "F"


class Window(BaseModel):
    """A time window."""

    start: str


@tool
def trip(start: Coord, end: Coord, unit: Unit, window: Window, back: Window, span: Window, note: Window,
         quoted: Window) -> str:
    """Plan a trip.

    Args:
        start: where it starts
        end: where it ends?
        unit: the unit (metric)
        window: when to go.
        back: when to come back:
        span: how long (see the calendar.)
        note: "a note."
        quoted: a "quoted"
    """
    return "ok"


def test_parameter_text_ends_with_a_full_stop_before_the_class_text():
    props = trip.parameters["properties"]
    assert props["start"]["description"] == "where it starts.\n\nA point on Earth."
    assert props["end"]["description"] == "where it ends?\n\nA point on Earth."
    assert props["unit"]["description"] == "the unit (metric).\n\nC is Celsius, F is Fahrenheit."
    assert props["window"]["description"] == "when to go.\n\nA time window."
    assert props["back"]["description"] == "when to come back:\n\nA time window."
    assert props["span"]["description"] == "how long (see the calendar.)\n\nA time window."
    assert props["note"]["description"] == '"a note."\n\nA time window.'
    assert props["quoted"]["description"] == 'a "quoted".\n\nA time window.'


def test_the_prompt_reads_two_sentences():
    text = python_signature(to_tool_spec(trip))
    assert "start: where it starts. A point on Earth." in text
    assert "unit: the unit (metric). C is Celsius, F is Fahrenheit." in text


def test_a_parameter_text_alone_is_left_as_written():
    @tool
    def go(start: Coord, count: int) -> str:
        """Go.

        Args:
            start: A point on Earth
            count: how many
        """
        return "ok"

    props = go.parameters["properties"]
    assert props["start"]["description"] == "A point on Earth"  # (the class says the same: its text once, unchanged)
    assert props["count"]["description"] == "how many"
