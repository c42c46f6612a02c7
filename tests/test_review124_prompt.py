"""Review 124 #6: the ``pythonic`` dialect's prompt (the default model's, with one tool bound) showed a union of
objects as a bare ``dict`` with none of its keys, and no bound the grammar does not enforce (``max_length``,
``le=500``), so the model learnt them only from a refused call."""

from __future__ import annotations

import ast
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from toolwire import tool
from toolwire.models._tool_text import python_signature
from toolwire.models.base import to_tool_spec


class Card(BaseModel):
    method: Literal["card"]
    number: str = Field(description="the card number, 16 digits")


class Transfer(BaseModel):
    method: Literal["transfer"]
    iban: str = Field(description="the IBAN to debit")


@tool
def pay(payment: Annotated[Card | Transfer, Field(discriminator="method")],
        memo: Annotated[str, Field(max_length=12)] = "",
        amount: Annotated[int, Field(ge=1, le=500)] = 1,
        refunds: list[Card | Transfer] | None = None) -> str:
    """Pay an order.

    Args:
        payment: how to pay
        memo: a note for the statement
        amount: euros to pay.
        refunds: earlier payments to give back
    """
    return "paid"


def test_a_union_of_objects_lists_each_form_s_keys() -> None:
    text = python_signature(to_tool_spec(pay))
    assert "payment: how to pay A dict in one of these forms:" in text
    lines = text.splitlines()
    first, second = lines.index("            Form 1:"), lines.index("            Form 2:")
    assert 'method (Literal["card"])' in lines[first + 1]
    assert "number (str): the card number, 16 digits" in lines[first + 2]
    assert "iban (str): the IBAN to debit" in lines[second + 2]
    assert "refunds: earlier payments to give back A list of dicts, each in one of these forms:" in text
    ast.parse(text + "\n    pass")  # still a valid definition


def test_bounds_the_grammar_does_not_hold_are_said() -> None:
    text = python_signature(to_tool_spec(pay))
    assert "memo: a note for the statement. Must be at most 12 characters long." in text
    assert "amount: euros to pay. Must be at least 1, at most 500." in text


def test_a_nested_key_s_bounds_are_said() -> None:
    class Room(BaseModel):
        guests: int = Field(ge=1, le=8, description="how many people")

    @tool
    def book(room: Room) -> str:
        """Book a room.

        Args:
            room: the room
        """
        return "ok"

    assert "guests (int): how many people. Must be at least 1, at most 8." in python_signature(to_tool_spec(book))
