"""Review 128 #7: the embedded model's grammar holds a call's shape, never a constraint on a value.

A ``uuid`` format, a string's ``pattern`` and a list's or a dict's counts were held, so the grammar bent what the
model meant into a different valid value with no error (an order id ``"ORD-1001"`` became a made-up UUID; a list of
five names under ``maxItems`` 3 lost two of them). Now the value is written as meant and the tool's validation
refuses it with a message the model sees; the prompt states each such constraint beside the parameter. Each test
failed on the code before the change; none loads a model.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Annotated

from pydantic import Field

from test_grammar import Gbnf
from toolwire import tool
from toolwire._schema_keys import KEY_TEXT, number_text_patterns
from toolwire.messages import tool_call
from toolwire.models._tool_text import python_signature
from toolwire.models.base import to_tool_spec
from toolwire.models.dialects import format_calls
from toolwire.models.grammar import FORMATS, call_grammar
from toolwire.tools import ToolSpec


@tool
def invite(names: Annotated[list[str], Field(min_length=1, max_length=3)], order: uuid.UUID,
           tags: Annotated[list[str], Field(max_length=1)] | None = None,
           scores: Annotated[dict[str, int], Field(min_length=2)] | None = None,
           zip_code: Annotated[str, Field(pattern=r"^[0-9]{5}$")] = "00000") -> str:
    """Invite people to an order's event.

    Args:
        names: who to invite
        order: the order id
        tags: labels
        scores: points per team
        zip_code: postal code
    """
    return f"{names} {order}"


SPEC = to_tool_spec(invite)
FIVE = ["Ana", "Bruno", "Carla", "Davi", "Elisa"]


def _text(fmt: str, **args: object) -> str:
    return format_calls([tool_call("invite", {"names": ["Ana"], "order": "ORD-1001", **args}, "c1")], fmt, [SPEC])


def test_the_values_the_grammar_bent_are_written_as_meant_in_every_format() -> None:
    for fmt in FORMATS:
        grammar = Gbnf(call_grammar([SPEC], fmt))
        for args in ({}, {"names": FIVE}, {"names": []}, {"tags": ["a", "b"]}, {"zip_code": "1234"},
                     {"scores": {"red": 1}}, {"order": "1001"}):
            assert grammar.accepts(_text(fmt, **args)), (fmt, args)
        assert not grammar.accepts(_text(fmt, names=[1])), fmt  # a list's item type is still held
        if fmt != "function_tag":  # (where a string is raw text, 7 is the text "7")
            assert not grammar.accepts(_text(fmt, order=7)), fmt  # and a string is still a string


def test_validation_refuses_them_with_a_message_naming_the_parameter() -> None:
    good = {"names": ["Ana"], "order": "123e4567-e89b-12d3-a456-426614174000"}
    assert invite.invoke(tool_call("invite", good, "c0")).status == "success"
    for key, value in (("names", FIVE), ("names", []), ("order", "ORD-1001"), ("zip_code", "1234"),
                       ("scores", {"red": 1})):
        result = invite.invoke(tool_call("invite", {**good, key: value}, "c1"))
        assert result.status == "error" and key in result.content, (key, result.content)


def test_the_prompt_states_the_counts_and_the_uuid_form() -> None:
    text = python_signature(SPEC)
    assert "names: who to invite. Holds at least 1 item, at most 3 items." in text
    assert "tags: labels. Holds at most 1 item." in text  # through Optional's branch
    assert "scores: points per team. Holds at least 2 entries." in text
    assert "order: the order id. Written as a UUID, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" in text
    assert "zip_code: postal code. Must match the regular expression `^[0-9]{5}$`." in text


def test_a_tuple_keeps_its_positions_and_says_no_count() -> None:
    @tool
    def place(at: tuple[int, str]) -> str:
        """Place it.

        Args:
            at: row and label
        """
        return str(at)

    spec = to_tool_spec(place)
    grammar = Gbnf(call_grammar([spec], "json"))
    assert grammar.accepts('{"name": "place", "arguments": {"at": [1, "a"]}}')
    assert not grammar.accepts('{"name": "place", "arguments": {"at": [1, "a", "b"]}}')
    assert not grammar.accepts('{"name": "place", "arguments": {"at": ["a", 1]}}')
    assert "Holds" not in python_signature(spec)


def test_a_number_written_as_text_is_a_type_and_stays_held() -> None:
    patterns = number_text_patterns()
    assert patterns[KEY_TEXT["integer"]["pattern"]] == KEY_TEXT["integer"]["pattern"]
    unsigned = [p for p in patterns if p.startswith("^[+]?")]
    signed = [p for p in patterns if p.startswith("^[+-]?")]
    assert len(unsigned) == 2 and len(signed) == 2  # with and without allow_inf_nan (review 131 #2)
    for pattern in unsigned:  # a bound is not a type
        assert patterns[pattern] == "^[+-]?" + pattern.removeprefix("^[+]?")

    @tool
    def tally(points: dict[int, str]) -> str:
        """Tally.

        Args:
            points: label per score
        """
        return str(points)

    grammar = Gbnf(call_grammar([to_tool_spec(tally)], "json"))
    assert grammar.accepts('{"name": "tally", "arguments": {"points": {"3": "x"}}}')
    assert not grammar.accepts('{"name": "tally", "arguments": {"points": {"three": "x"}}}')


# -- review 131: what the first version of the change missed ---------------------------------------------------------


@tool
def ship(a: Annotated[str, Field(pattern=r"^[0-9]{5}$")] | None = None,
         b: list[Annotated[str, Field(pattern=r"^[0-9]{5}$")]] | None = None,
         c: dict[str, uuid.UUID] | None = None,
         d: list[uuid.UUID] | None = None,
         e: list[Annotated[list[int], Field(min_length=2, max_length=2)]] | None = None,
         f: tuple[Annotated[str, Field(pattern=r"^[0-9]{5}$")], uuid.UUID] | None = None,
         g: Annotated[Decimal, Field(ge=0)] | None = None,
         h: Annotated[list[int], Field(min_length=1, max_length=1)] | None = None,
         k: Annotated[list[int], Field(max_length=0)] | None = None) -> str:
    """Ship.

    Args:
        a: postal code
        b: postal codes
        c: order per person
        d: orders
        e: points
        f: code and order
        g: amount
        h: one number
        k: nothing
    """
    return "shipped"


def test_1_the_prompt_states_constraints_one_level_down_and_readably() -> None:
    text = python_signature(to_tool_spec(ship))
    uuid_form = "Written as a UUID, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx in hexadecimal digits."
    for line in ("a: postal code. Must match the regular expression `^[0-9]{5}$`.",
                 "b: postal codes. Each item: Must match the regular expression `^[0-9]{5}$`.",
                 f"c: order per person. Each value: {uuid_form}",
                 "d: orders. Each written as a UUID,",
                 "e: points. Each item: Holds exactly 2 items.",
                 f"f: code and order. Item 1: Must match the regular expression `^[0-9]{{5}}$`. Item 2: {uuid_form}",
                 "g: amount. Must be at least 0",  # the Decimal's number branch; its text pattern is a type
                 "h: one number. Holds exactly 1 item.",
                 "k: nothing. Holds no items."):
        assert line in text, (line, text)
    assert "Must match the regular expression `^[+" not in text


def test_1_a_count_on_another_type_says_nothing() -> None:
    """BFCL's irrelevance_128 puts minItems/maxItems on an integer (its list's items): no sentence for it."""
    spec = ToolSpec("score", "", {"type": "object", "properties": {"answers": {
        "type": "array", "items": {"type": "integer", "minItems": 5, "maxItems": 100}}}, "required": ["answers"]})
    assert "Holds" not in python_signature(spec)


def test_2_a_decimal_allowing_inf_and_nan_keeps_its_number_type() -> None:
    @tool
    def pay(amount: Annotated[Decimal, Field(allow_inf_nan=True)]) -> str:
        """Pay."""
        return str(amount)

    spec = to_tool_spec(pay)
    for fmt in FORMATS:
        grammar = Gbnf(call_grammar([spec], fmt))
        assert grammar.accepts(format_calls([tool_call("pay", {"amount": "12.5"}, "c1")], fmt, [spec])), fmt
        assert grammar.accepts(format_calls([tool_call("pay", {"amount": "inf"}, "c1")], fmt, [spec])), fmt
        assert not grammar.accepts(format_calls([tool_call("pay", {"amount": "ten dollars"}, "c1")], fmt, [spec]))


def test_3_a_user_s_own_number_pattern_on_a_plain_string_is_not_held() -> None:
    @tool
    def dial(account: Annotated[str, Field(pattern=r"^-?[0-9]+$")]) -> str:
        """Dial."""
        return account

    spec = to_tool_spec(dial)
    for fmt in FORMATS:
        text = format_calls([tool_call("dial", {"account": "555-1234"}, "c1")], fmt, [spec])
        assert Gbnf(call_grammar([spec], fmt)).accepts(text), fmt
    assert dial.invoke(tool_call("dial", {"account": "555-1234"}, "c1")).status == "error"


def test_4_values_past_a_tuple_s_positions_are_not_counted() -> None:
    spec = ToolSpec("route", "", {"type": "object", "properties": {"stops": {
        "type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string"}, "maxItems": 3}},
        "required": ["stops"]})
    grammar = Gbnf(call_grammar([spec], "json"))
    assert grammar.accepts('{"name": "route", "arguments": {"stops": ["a", "b", "c", "d", "e"]}}')
    assert not grammar.accepts('{"name": "route", "arguments": {"stops": [1]}}')
    assert "Holds at most 3 items." in python_signature(spec)


# -- review 133: what the fixes of review 131 got wrong ---------------------------------------------------------------


def test_133_3_a_user_s_number_pattern_on_a_plain_string_is_stated_in_the_prompt() -> None:
    @tool
    def lookup(account: Annotated[str, Field(pattern=r"^-?[0-9]+$")], points: dict[int, str]) -> str:
        """Look up an account.

        Args:
            account: the account number
            points: label per score
        """
        return account

    text = python_signature(to_tool_spec(lookup))
    assert "account: the account number. Must match the regular expression `^-?[0-9]+$`." in text
    assert "points: label per score\n" in text  # a dict[int, X]'s keys: a type the grammar holds, not a note


def test_133_4_a_union_whose_branches_differ_says_nothing_of_one_branch() -> None:
    @tool
    def book(guests: Annotated[int, Field(ge=1, le=8)] | str,
             seats: Annotated[int, Field(ge=1)] | Annotated[int, Field(ge=1)] | None = None) -> str:
        """Book a table.

        Args:
            guests: a head count, or a group's name
            seats: seats wanted
        """
        return "booked"

    text = python_signature(to_tool_spec(book))
    assert "guests: a head count, or a group's name\n" in text
    assert "seats: seats wanted. Must be at least 1." in text  # (branches that agree)
