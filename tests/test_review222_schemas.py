"""Review 222: half-fixes in schemas, unions, dispatch and docstrings (#1, #4-#8)."""

from __future__ import annotations

import asyncio
import datetime as dt
import enum
import functools
import pickle
from typing import Annotated, Any, Literal

import pytest
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationInfo

from toolwire import ToolCall, ToolExecutor, tool
from toolwire.errors import SchemaError
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.lowering.openai import convert_to_openai_tool


def _call(t: Any, args: dict[str, Any]) -> str:
    return str(t.invoke({"type": "tool_call", "id": "c1", "name": t.name, "args": args}).content)


class _Note(BaseModel):
    model_config = ConfigDict(str_max_length=5, str_to_upper=True, str_strip_whitespace=True)
    when: dt.datetime | str = "NOW"


def _with_tz(value: str, info: ValidationInfo) -> str:
    return f"{value}@{info.data['tz']}"


class _Slot(BaseModel):
    tz: str = "UTC"
    when: dt.datetime | Annotated[str, AfterValidator(_with_tz)] = "now"


@tool
def _remind(note: _Note | None = None, slot: _Slot | None = None) -> str:
    """Set a reminder.

    Args:
        note: the note
        slot: the slot
    """
    return repr((note, slot))


def test_a_date_union_in_a_model_keeps_the_model_config() -> None:
    """(#1) ``datetime | str`` in a model with ``str_max_length``/``str_to_upper``/``str_strip_whitespace``."""
    assert _call(_remind, {"note": {"when": "  later  "}}) == "(_Note(when='LATER'), None)"
    assert _remind.invoke({"note": {"when": "  later  "}}) == "(_Note(when='LATER'), None)"
    text = _call(_remind, {"note": {"when": "next week please"}})
    assert text.startswith("Error: Invalid arguments") and "at most 5 characters" in text
    assert "'note.when'" in text


def test_a_date_union_member_validator_reads_the_other_fields() -> None:
    """(#1) A member's validator reading ``info.data`` gets the model's other fields."""
    assert _call(_remind, {"slot": {"tz": "CET", "when": "tomorrow"}}) == "(None, _Slot(tz='CET', when='tomorrow@CET'))"


def test_a_date_union_still_keeps_numbers_and_iso_text_apart() -> None:
    """(#1) What 1f56f66 fixed stays fixed: a number is not a timestamp, ISO text is still a date."""
    assert _call(_remind, {"note": {"when": "2025-01-01T10:00:00"}}) == \
        "(_Note(when=datetime.datetime(2025, 1, 1, 10, 0)), None)"
    assert _call(_remind, {"note": {"when": "17"}}) == "(_Note(when='17'), None)"
    assert _call(_remind, {"note": {"when": 1700000000}}).startswith("Error: Invalid arguments")
    assert _remind.parameters["properties"]["note"]["anyOf"][0]["properties"]["when"]["anyOf"] == [
        {"format": "date-time", "type": "string"}, {"maxLength": 5, "type": "string"}]


class _Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@tool
def _alert(level: bool | _Level = False, other: _Level | bool = False, pick: bool | Literal[0, 5] = False,
           two: bool | Literal[1, 2] = False) -> str:
    """Raise an alert.

    Args:
        level: False for none, or a level
        other: a level, or False for none
        pick: a literal or a flag
        two: a literal or a flag
    """
    return repr((level, other, pick, two))


def _paths(t: Any, args: dict[str, Any]) -> list[str]:
    """What the function gets (or the error) on invoke(args), invoke(tool_call), ainvoke and ToolExecutor."""
    call = {"type": "tool_call", "id": "c1", "name": t.name, "args": args}
    try:
        first = str(t.invoke(args))
    except Exception as exc:  # (invoke(args) raises what the tool call reports)
        first = f"raised {type(exc).__name__}"
    return [first, str(t.invoke(call).content), str(asyncio.run(t.ainvoke(call)).content),
            str(ToolExecutor([t]).execute([ToolCall(**call)])[0].content)]


@pytest.mark.parametrize("value", [1, 1.0])
def test_a_whole_number_beside_a_bool_goes_to_the_enum_or_literal_of_numbers(value: float) -> None:
    """(#4) ``bool | IntEnum`` and ``bool | Literal[1, 2]`` read ``1``/``1.0`` as the member, in either order."""
    want = "(<_Level.LOW: 1>, <_Level.LOW: 1>, False, 1)"
    assert _paths(_alert, {"level": value, "other": value, "two": value}) == [want] * 4


def test_a_whole_number_no_literal_takes_is_refused_not_read_as_a_bool() -> None:
    """(#4) ``bool | Literal[0, 5]`` given ``1.0``: neither branch of the schema takes it."""
    assert all(out.startswith(("raised", "Error: Invalid arguments")) for out in _paths(_alert, {"pick": 1.0}))
    assert _paths(_alert, {"level": True, "pick": True})[1] == "(True, False, True, False)"


class _Formatter:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    @functools.singledispatchmethod
    def show(self, value: int) -> str:
        """Show a value.

        Args:
            value: the value to show
        """
        return f"{self.prefix} int {value}"

    @show.register
    def _(self, value: str) -> str:
        return f"{self.prefix} str {value}"

    @functools.singledispatchmethod
    @classmethod
    def kind(cls, value: int) -> str:
        """Name a value's kind.

        Args:
            value: the value
        """
        return f"{cls.__name__} int {value}"


def test_a_singledispatchmethod_tool_from_an_instance_pickles() -> None:
    """(#5) ``tool(instance.method)`` of a ``singledispatchmethod`` pickles with its instance, as a method does."""
    made = tool(_Formatter("at").show)
    again = pickle.loads(pickle.dumps(made))
    assert again.invoke({"value": 3}) == "at int 3"
    assert (again.name, again.description) == (made.name, made.description)
    for receiver in (_Formatter("x"), _Formatter):
        assert pickle.loads(pickle.dumps(tool(receiver.kind))).invoke({"value": 4}) == "_Formatter int 4"


@functools.singledispatch
def _describe(value: int, unit: str = "") -> str:
    """Describe a value.

    Args:
        value: the value to describe
        unit: the unit
    """
    return f"int {value} {unit}"


@_describe.register
def _(value: str, unit: str = "") -> str:
    return f"str {value} {unit}"


def test_a_partial_of_a_singledispatch_function_runs() -> None:
    """(#6) ``functools.partial(dispatcher, unit=...)`` passes the dispatched parameter by position."""
    made = tool(functools.partial(_describe, unit="kg"), name="describe_kg")
    assert list(made.parameters["properties"]) == ["value"]
    assert _paths(made, {"value": 3}) == ["int 3 kg"] * 4
    assert tool(functools.partial(_describe, 5), name="five").invoke({"unit": "g"}) == "int 5 g"
    with pytest.raises(SchemaError, match="by position"):
        tool(functools.partial(_describe, value=3), name="three")


class _Perm(enum.Flag):
    READ = 1
    WRITE = 2
    EXEC = 4


class _Opt(enum.IntFlag):
    A = 1
    B = 2
    C = 4
    D = 8
    E = 16
    F = 32
    G = 64
    VERBOSE = 256  # (no 128: the bits are not adjacent)


@tool
def _grant(perm: _Perm, opts: _Opt = _Opt.A, maybe: _Perm | None = None) -> str:
    """Grant.

    Args:
        perm: the permissions
        opts: options
        maybe: the permissions, or none
    """
    return repr((perm, opts, maybe))


def test_a_flag_of_many_gap_bits_takes_combinations() -> None:
    """(#7a) More than six flags with a gap in their bits: the range of combinations, not the single flags."""
    opts = convert_to_openai_tool(_grant, strict=True)["function"]["parameters"]["properties"]["opts"]
    assert "enum" not in opts and (opts["minimum"], opts["maximum"]) == (0, 383)
    assert "VERBOSE = 256" in opts["description"]
    assert _paths(_grant, {"perm": 3, "opts": 257})[1] == "(<_Perm.READ|WRITE: 3>, <_Opt.A|VERBOSE: 257>, None)"


def test_a_flag_value_out_of_range_is_refused_naming_combinations() -> None:
    """(#7b) The error says combinations are taken, not "Input should be 1, 2 or 4"."""
    text = _call(_grant, {"perm": 8})
    assert text.startswith("Error: Invalid arguments")
    assert "Input should be a combination of the flags READ = 1, WRITE = 2, EXEC = 4" in text
    assert "1, 2 or 4" not in text


def test_gemini_keeps_the_flag_names_of_an_optional_flag() -> None:
    """(#7c) Gemini's nullable form of ``Optional[Flag]`` keeps the note naming the flags."""
    maybe = convert_to_gemini_tool(_grant)["parameters"]["properties"]["maybe"]
    assert maybe["nullable"] is True
    assert maybe["description"].startswith("the permissions, or none. The sum of the chosen flags: READ = 1")


@tool
def _resize(size: tuple[int, int] | None = None, mode: str = "fit", note: str = "") -> str:
    """Resize the image.

    Args:
        size (tuple (int, int) or :obj:`None`, optional): The new width and height.
        mode (:obj:`str`, optional): How to fit the image.
        note (str): A note (free text: anything).
    """
    return "ok"


def test_a_napoleon_type_holding_parentheses_keeps_the_description() -> None:
    """(#8) The type ends at its own closing parenthesis, not the first ``)``."""
    props = _resize.parameters["properties"]
    assert props["size"]["description"] == "The new width and height."
    assert props["mode"]["description"] == "How to fit the image."
    assert props["note"]["description"] == "A note (free text: anything)."
