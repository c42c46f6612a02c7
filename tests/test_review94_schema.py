"""Review 94 (schema generation and argument validation): a model's arguments are JSON data and are validated by
pydantic's JSON-mode rules where those differ from its Python mode (strict settings, ``date | str``), dict keys
that are not strings, forward references in TypedDicts and dataclasses, and types no JSON value can satisfy."""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime
import decimal
import enum
import typing
import uuid
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict

from toolwire import AIMessage, tool
from toolwire._schema_json import json_mode_needed
from toolwire.errors import SchemaError, ToolCallParseError, ToolValidationError
from toolwire.testing import ScriptedChatModel

UID = "12345678-1234-5678-1234-567812345678"


def _call(t: Any, args: dict[str, Any]) -> str:
    """The content of ``t`` invoked with a tool call of ``args`` (as a model sends it)."""
    return str(t.invoke({"name": t.name, "args": args, "id": "c1", "type": "tool_call"}).content)


class Priority(enum.Enum):
    LOW = "low"


class Booking(BaseModel):
    model_config = ConfigDict(strict=True)
    day: datetime.date
    ref: uuid.UUID
    priority: Priority
    span: tuple[int, int] = (0, 0)


# -- finding 1: strict models and fields take the JSON forms their schema publishes ------------------------------


def test_a_strict_model_takes_the_json_forms_of_date_uuid_enum_and_tuple() -> None:
    @tool
    def book(b: Booking) -> str:
        """Book a table."""
        return repr(b)

    args = {"b": {"day": "2025-05-01", "ref": UID, "priority": "low", "span": [1, 2]}}
    expected = Booking(day=datetime.date(2025, 5, 1), ref=uuid.UUID(UID), priority=Priority.LOW, span=(1, 2))
    assert _call(book, args) == repr(expected)
    # a Python caller passing real objects is still served (Python mode)
    direct = book.invoke({"b": {"day": datetime.date(2025, 5, 1), "ref": uuid.UUID(UID), "priority": Priority.LOW}})
    assert "datetime.date(2025, 5, 1)" in direct


def test_a_strict_field_on_a_parameter_takes_an_iso_date() -> None:
    @tool
    def remind(day: Annotated[datetime.date, Field(strict=True)], times: int = 1) -> str:
        """Remind."""
        return f"{day!r} {times}"

    assert _call(remind, {"day": "2025-05-01"}) == "datetime.date(2025, 5, 1) 1"
    assert remind.invoke({"day": datetime.date(2025, 5, 2)}) == "datetime.date(2025, 5, 2) 1"


def test_a_strict_args_schema_takes_the_json_forms() -> None:
    @tool(args_schema=Booking)
    def book(day, ref, priority, span):  # type: ignore[no-untyped-def]
        """Book."""
        return repr((day, ref, priority, span))

    assert _call(book, {"day": "2025-05-01", "ref": UID, "priority": "low", "span": [3, 4]}) == repr(
        (datetime.date(2025, 5, 1), uuid.UUID(UID), Priority.LOW, (3, 4)))


def test_json_mode_keeps_toolwires_own_rules_and_wording() -> None:
    @tool
    def book(b: Booking, n: int = 1, x: float = 0.0) -> str:
        """Book."""
        return "ok"

    good = {"day": "2025-05-01", "ref": UID, "priority": "low"}
    assert "not a boolean (got True)" in _call(book, {"b": good, "n": True})
    assert "'x'" in _call(book, {"b": good, "x": "NaN"})
    with pytest.raises(ToolValidationError) as info:
        book.invoke({"b": {**good, "day": "someday"}})
    assert str(info.value).startswith("Invalid arguments for tool 'book': 'b.day': Input should be a valid date")
    with pytest.raises(ToolValidationError, match=r"'b\.zzz' is not an allowed field"):
        book.invoke({"b": {**good, "zzz": 1}})


def test_structured_output_of_a_strict_model_reads_a_correct_reply() -> None:
    reply = AIMessage("", tool_calls=[{"name": "Booking", "args": {"day": "2025-05-01", "ref": UID, "priority": "low"},
                                       "id": "c"}])
    out = ScriptedChatModel([reply]).with_structured_output(Booking).invoke("book it")
    assert out == Booking(day=datetime.date(2025, 5, 1), ref=uuid.UUID(UID), priority=Priority.LOW)
    bad = AIMessage("", tool_calls=[{"name": "Booking", "args": {"day": "x", "ref": UID, "priority": "low"},
                                     "id": "c"}])
    with pytest.raises(ToolCallParseError, match="day"):
        ScriptedChatModel([bad]).with_structured_output(Booking).invoke("book it")


# -- finding 4: a union with str gives the typed value pydantic's JSON reading gives -----------------------------


@pytest.mark.parametrize(("annotation", "text", "expected"), [
    (datetime.date | str, "2025-05-01", datetime.date(2025, 5, 1)),
    (datetime.datetime | str, "2025-05-01T10:00:00", datetime.datetime(2025, 5, 1, 10, 0)),
    (uuid.UUID | str, UID, uuid.UUID(UID)),
    (decimal.Decimal | str, "1.5", decimal.Decimal("1.5")),
    (datetime.timedelta | str, "P1D", datetime.timedelta(days=1)),
    (bytes | str, "abc", b"abc"),
    (list[datetime.date] | list[str], ["2025-05-01"], [datetime.date(2025, 5, 1)]),
])
def test_a_union_with_str_gives_the_typed_value(annotation: Any, text: Any, expected: Any) -> None:
    def f(when):  # type: ignore[no-untyped-def]
        return repr(when)

    f.__annotations__ = {"when": annotation}
    t = tool(description="d")(f)
    assert _call(t, {"when": text}) == repr(expected)
    if annotation != bytes | str:  # (any string is bytes: pydantic's JSON reading picks bytes)
        word = ["tomorrow"] if isinstance(text, list) else "tomorrow"
        assert _call(t, {"when": word}) == repr(word)


def test_only_tools_that_need_it_are_validated_in_json_mode() -> None:
    def core(tp: Any) -> Any:
        return TypeAdapter(tp).core_schema

    assert not json_mode_needed(core(dict[str, int | str | None]))
    assert not json_mode_needed(core(datetime.date | None))  # one member besides null: the same in both modes
    assert json_mode_needed(core(datetime.date | str))
    assert json_mode_needed(core(Booking))
    assert json_mode_needed(core(int), {"strict": True})


# -- finding 5: dict keys that are not strings -------------------------------------------------------------------


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Plain(enum.Enum):
    ONE = 1
    TWO = 2


def test_dict_keys_publish_the_text_json_carries_and_are_read_back() -> None:
    import jsonschema

    @tool
    def weights(w: dict[Level, int], stars: dict[Literal[1, 2, 3], int] | None = None,
                ids: dict[int, str] | None = None, plain: dict[Plain, int] | None = None,
                ratio: dict[float, int] | None = None) -> str:
        """Set weights."""
        return repr((w, stars, ids, plain, ratio))

    props = weights.parameters["properties"]
    assert props["w"]["propertyNames"] == {"enum": ["1", "2"]}
    assert props["stars"]["anyOf"][0]["propertyNames"] == {"enum": ["1", "2", "3"]}
    assert props["ids"]["anyOf"][0]["propertyNames"] == {"pattern": "^(?:0|-?[1-9][0-9]*)$"}  # (review 158 #4)
    assert props["plain"]["anyOf"][0]["propertyNames"] == {"enum": ["1", "2"]}
    assert "pattern" in props["ratio"]["anyOf"][0]["propertyNames"]
    args = {"w": {"1": 5}, "stars": {"3": 1}, "ids": {"-7": "x"}, "plain": {"2": 4}, "ratio": {"1.5": 2}}
    validator = jsonschema.Draft202012Validator(weights.parameters)
    assert validator.is_valid(args)
    assert not validator.is_valid({"w": {}, "ids": {"abc": "x"}})
    assert not validator.is_valid({"w": {"3": 1}})
    assert _call(weights, args) == repr(({Level.LOW: 5}, {3: 1}, {-7: "x"}, {Plain.TWO: 4}, {1.5: 2}))
    assert "'stars.4.[key]'" in _call(weights, {"w": {}, "stars": {"4": 1}})


def test_a_strict_model_takes_integer_keys_as_text() -> None:
    class Counts(BaseModel):
        model_config = ConfigDict(strict=True)
        by_id: dict[int, str]

    @tool
    def count(c: Counts) -> str:
        """Count."""
        return repr(c.by_id)

    assert _call(count, {"c": {"by_id": {"1": "a"}}}) == "{1: 'a'}"


def test_dict_keys_json_cannot_write_are_refused_at_decoration() -> None:
    with pytest.raises(SchemaError, match="parameter 'pairs'"):
        @tool
        def f(pairs: dict[tuple[int, int], str]) -> str:
            """F."""
            return ""


# -- findings 9 and 12: types no JSON value satisfies; tuple- and boolean-valued Enums ---------------------------


class Empty(enum.Enum):
    pass


class Pair(enum.Enum):
    A = (1, 2)
    B = (3, (4, 5))


class YesNo(enum.Enum):
    YES = True
    NO = False


def _tool_of(annotation: Any) -> Any:
    def f(a):  # type: ignore[no-untyped-def]
        return repr(a)

    f.__annotations__ = {"a": annotation}
    return tool(description="d")(f)


@pytest.mark.parametrize("annotation", [type[int], typing.Type[int], collections.abc.Hashable, Empty,  # noqa: UP006
                                        list[Empty]])
def test_a_type_no_json_value_satisfies_is_refused_at_decoration(annotation: Any) -> None:
    with pytest.raises(SchemaError, match=r"parameter 'a' is typed .* which has no JSON form"):
        _tool_of(annotation)


def test_a_tuple_valued_enum_takes_the_json_array() -> None:
    t = _tool_of(Pair)
    assert t.parameters["properties"]["a"] == {"enum": [[1, 2], [3, [4, 5]]], "type": "array"}
    assert _call(t, {"a": [1, 2]}) == repr(Pair.A)
    assert _call(t, {"a": [3, [4, 5]]}) == repr(Pair.B)
    assert t.invoke({"a": Pair.B}) == repr(Pair.B)
    assert "Input should be (1, 2) or (3, (4, 5)) (got [9])" in _call(t, {"a": [9]})


def test_a_boolean_valued_enum_refuses_one_and_zero() -> None:
    t = _tool_of(YesNo)
    assert _call(t, {"a": True}) == repr(YesNo.YES)
    assert _call(t, {"a": False}) == repr(YesNo.NO)
    for number in (1, 0, 1.0):
        assert "'a': Input should be True or False (got" in _call(t, {"a": number})
    assert t.invoke({"a": YesNo.NO}) == repr(YesNo.NO)
    assert "not a boolean" in _call(_tool_of(Plain), {"a": True})  # (review 63, unchanged)


# -- finding 7: forward references inside TypedDicts and dataclasses ---------------------------------------------


class Order(TypedDict):
    item: Itemm  # type: ignore[name-defined]  # noqa: F821  (defined nowhere)


@dataclasses.dataclass
class Parcel:
    weight: Weightt  # type: ignore[name-defined]  # noqa: F821  (defined nowhere)


def test_an_undefined_name_in_a_typeddict_or_dataclass_is_a_schema_error_naming_it() -> None:
    with pytest.raises(SchemaError, match="TypedDict 'Order': 'Itemm' is not defined; import or define Itemm"):
        @tool
        def place(order: Order) -> str:
            """Place."""
            return ""
    with pytest.raises(SchemaError, match="tool 'ship': 'Weightt' is not defined; import or define Weightt"):
        @tool
        def ship(p: Parcel) -> str:
            """Ship."""
            return ""


def test_local_classes_named_in_typeddict_and_dataclass_fields_are_found() -> None:
    class Inner(TypedDict):
        n: int

    class Outer(TypedDict):
        i: Inner

    class Unit(BaseModel):
        name: str

    @dataclasses.dataclass
    class Qty:
        n: int
        unit: Unit

    @tool
    def use(o: Outer, q: Qty) -> str:
        """Use."""
        return f"{o} {q.unit.name}"

    assert _call(use, {"o": {"i": {"n": 1}}, "q": {"n": 2, "unit": {"name": "kg"}}}) == "{'i': {'n': 1}} kg"
    reply = AIMessage("", tool_calls=[{"name": "Outer", "args": {"i": {"n": 3}}, "id": "c"}])
    assert ScriptedChatModel([reply]).with_structured_output(Outer).invoke("x") == {"i": {"n": 3}}


def test_a_decimal_written_as_text_has_a_numeric_pattern_the_grammar_follows() -> None:
    """Review 94 #10: Decimal's string branch took any text ("ten"), which validation then refused."""
    import re as regex

    from toolwire.models.base import to_tool_spec
    from toolwire.models.grammar import call_grammar

    @tool
    def pay(amount: decimal.Decimal, fee: Annotated[decimal.Decimal, Field(max_digits=4, decimal_places=2)]) -> str:
        """Pay."""
        return f"{amount} {fee}"

    branches = [p["anyOf"][1] for p in pay.parameters["properties"].values()]
    assert all(b["type"] == "string" and "pattern" in b for b in branches)
    for text in ("12", "-1.5", ".5", "1e3", "+2.50"):
        assert regex.search(branches[0]["pattern"], text)
    for text in ("ten", "", "1.2.3", "NaN"):
        assert not regex.search(branches[0]["pattern"], text)
    assert pay.invoke({"amount": "1e3", "fee": "12.50"}) == "1E+3 12.50"
    assert "pattern-string" in call_grammar([to_tool_spec(pay)], "json")


def test_a_decimal_with_a_lower_bound_of_zero_has_no_minus_sign_in_its_text_pattern() -> None:
    """Review 95 #7: "-1.5" passed the text branch's pattern (and the grammar) of a Decimal with ge=0."""
    import re as regex

    @tool
    def refund(amount: Annotated[decimal.Decimal, Field(ge=0)], delta: decimal.Decimal) -> str:
        """Refund."""
        return str(amount)

    amount, delta = (refund.parameters["properties"][n]["anyOf"][1]["pattern"] for n in ("amount", "delta"))
    assert regex.search(amount, "1.5") and regex.search(amount, "+2") and not regex.search(amount, "-1.5")
    assert regex.search(delta, "-1.5")


def test_a_decimal_with_max_digits_has_the_plain_number_pattern_that_can_always_close() -> None:
    """Review 96 #1: pydantic's max_digits pattern ends in an alternative of any digits before a required exponent;
    under it the local model, past the allowed decimal places, wrote digits until max_tokens."""
    import re as regex

    @tool
    def refund(amount: Annotated[decimal.Decimal, Field(max_digits=6, decimal_places=2)]) -> str:
        """Refund."""
        return str(amount)

    pattern = refund.parameters["properties"]["amount"]["anyOf"][1]["pattern"]
    assert "{" not in pattern  # (no digit counts: the places are validation's)
    assert regex.search(pattern, "1234.5678")  # the text may close here; validation then says what is wrong
    with pytest.raises(ToolValidationError, match="no more than 6 digits"):
        refund.invoke({"amount": "1234.5678"})
