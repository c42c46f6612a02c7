"""Review 28: the types real tools use, end to end (schema, provider lowering, invoke, result), no network.

1. A tool returning a dict keyed by dates, UUIDs, enums, Decimals or tuples (``dict[date, float]``: daily
   prices) failed with "could not be turned into JSON text (keys must be str, ...)": ``json.dumps`` never
   passes keys to its ``default`` hook (``results.py``).
2. OpenAI strict mode kept every ``format`` pydantic writes (``path`` for ``pathlib.Path``, ``binary`` for
   ``bytes``, ``uri`` for ``HttpUrl``, ``password``, ``ipvanyaddress``...), but strict mode accepts only the
   formats of the Structured Outputs guide ("Supported properties": date-time, time, date, duration, email,
   hostname, ipv4, ipv6, uuid) and answers 400 "'uri' is not a valid format" (``_openai_strict.py``).
3. Gemini's ``Schema`` takes ``enum`` for strings only, so the lowering dropped an ``IntEnum``'s or an
   ``int`` ``Literal``'s values, and the values of a mixed ``Literal`` sent as JSON text, without a word in
   the schema: the model was never told which values the tool accepts; a string enum with ``null``
   (``Literal["a", "b", None]``, or ``{"type": ["string", "null"], "enum": [..., null]}`` from an MCP server)
   lost its enum too (``_gemini_schema.py``).
4. (xfail) A dataclass field with ``init=False`` is in the schema (and required in strict mode) but a value
   sent for it is refused with a message that lists the field as allowed.
5. (xfail) With ``from __future__ import annotations``, a tool defined inside a function whose model is
   defined in that function fails at decoration; without the future import, or with pydantic's
   ``validate_call``, it works.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import json
import pathlib
import textwrap
import uuid
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from pydantic import BaseModel, HttpUrl

from toolwire import convert_to_openai_tool, tool
from toolwire.models.lowering.gemini import convert_to_gemini_tool, json_text_plan, parse_response
from toolwire.models.lowering.openai import convert_to_openai_responses_tool
from toolwire.results import bounded_content, result_to_content

# --------------------------------------------------------------------------- 1. dict results keyed by non-strings


class Unit(enum.Enum):
    CELSIUS = "c"
    KELVIN = 1


@tool
def daily_prices(start: dt.date, days: int = 2) -> dict[dt.date, float]:
    """Daily closing prices from a start date."""
    return {start + dt.timedelta(days=i): 1.5 + i for i in range(days)}


def test_a_dict_result_keyed_by_dates_reaches_the_model_as_json() -> None:
    message = daily_prices.invoke({"name": "daily_prices", "args": {"start": "2024-01-01"}, "id": "c1",
                                   "type": "tool_call"})
    assert message.status == "success", message.content
    assert json.loads(message.content) == {"2024-01-01": 1.5, "2024-01-02": 2.5}


@pytest.mark.parametrize(("result", "expected"), [
    ({uuid.UUID(int=1): "a"}, {"00000000-0000-0000-0000-000000000001": "a"}),
    ({decimal.Decimal("1.50"): "a"}, {"1.50": "a"}),
    ({Unit.CELSIUS: 1, Unit.KELVIN: 2}, {"c": 1, "1": 2}),
    ({dt.datetime(2024, 1, 2, 3, 4): [1]}, {"2024-01-02T03:04:00": [1]}),
    ([{"nested": {dt.time(10, 30): float("nan")}}], [{"nested": {"10:30:00": "NaN"}}]),
    ({("a", 1): True}, {"a,1": True}),
])
def test_dict_keys_json_cannot_hold_are_written_as_text(result: Any, expected: Any) -> None:
    assert json.loads(result_to_content(result)) == expected  # type: ignore[arg-type]


def test_a_big_dict_result_keyed_by_dates_is_encoded_piece_by_piece_too() -> None:
    big = {dt.date(2000, 1, 1) + dt.timedelta(days=i): float(i) for i in range(6000)}
    text = bounded_content(big, None)
    assert isinstance(text, str) and json.loads(text)["2000-01-01"] == 0.0
    cut = bounded_content(big, 50)
    assert isinstance(cut, str) and cut.startswith('{"2000-01-01": 0.0') and "result truncated" in cut


# --------------------------------------------------------------------------- 2. OpenAI strict mode formats

STRICT_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}


def _formats(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["format"]] if isinstance(node.get("format"), str) else []
        return own + [f for value in node.values() for f in _formats(value)]
    if isinstance(node, list):
        return [f for value in node for f in _formats(value)]
    return []


class Upload(BaseModel):
    target: pathlib.Path
    source: HttpUrl | None = None


@tool
def upload(path: pathlib.Path, data: bytes, url: HttpUrl, when: dt.date, key: uuid.UUID, spec: Upload) -> str:
    """Upload a file.

    Args:
        path: where it goes
        data: the content
        url: where it comes from
        when: the day it is due
        key: the upload key
        spec: more of the same
    """
    assert isinstance(path, pathlib.Path) and isinstance(url, HttpUrl) and isinstance(spec.target, pathlib.Path)
    return f"{path} {data!r} {url} {when.isoformat()} {key}"


@pytest.mark.parametrize("convert", [convert_to_openai_tool, convert_to_openai_responses_tool])
def test_strict_mode_sends_only_the_formats_openai_supports(convert: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (still strict: no StrictSchemaWarning)
        spec = convert(upload, strict=True)
    function = spec.get("function", spec)
    assert function["strict"] is True
    params = function["parameters"]
    assert set(_formats(params)) <= STRICT_FORMATS, _formats(params)
    props = params["properties"]
    assert props["when"]["format"] == "date" and props["key"]["format"] == "uuid"  # supported ones kept
    assert "path" in props["path"]["description"] and "uri" in props["url"]["description"]  # the model is told
    # non-strict tools keep the schema as it is
    assert convert_to_openai_tool(upload)["function"]["parameters"]["properties"]["path"]["format"] == "path"


def test_what_strict_mode_leaves_out_is_still_validated() -> None:
    good = {"path": "/tmp/a", "data": "xyz", "url": "https://example.org/a", "when": "2024-05-01",
            "key": "12345678-1234-5678-1234-567812345678", "spec": {"target": "/tmp/b", "source": None}}
    assert upload.invoke(good).startswith("/tmp/a b'xyz' https://example.org/a 2024-05-01")
    bad = upload.invoke({"name": "upload", "args": {**good, "url": "not a url"}, "id": "c1", "type": "tool_call"})
    assert bad.status == "error" and "'url'" in bad.content


# --------------------------------------------------------------------------- 3. Gemini enum values


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@tool
def set_level(level: Level, retries: Literal[0, 3, 5], mode: Literal["a", 1, True, None],
              backup: Level | None = None, ratio: Literal[0.5, 1.5] = 0.5) -> str:
    """Set the level.

    Args:
        level: how high
        retries: how many retries
        mode: the mode
        backup: the level to fall back to
        ratio: a ratio
    """
    return f"{level!r} {retries!r} {mode!r} {backup!r} {ratio!r}"


def test_gemini_tells_the_model_the_values_it_cannot_send_as_an_enum() -> None:
    props = convert_to_gemini_tool(set_level)["parameters"]["properties"]
    assert props["level"]["type"] == "INTEGER" and "enum" not in props["level"]
    assert "how high" in props["level"]["description"] and "1, 2" in props["level"]["description"]
    assert "0, 3, 5" in props["retries"]["description"]
    assert props["mode"]["type"] == "STRING" and '"a", 1, true, null' in props["mode"]["description"]
    assert "JSON text" in props["mode"]["description"]  # (still said: it is sent as JSON text)
    assert props["backup"]["nullable"] is True and "1, 2" in props["backup"]["description"]
    assert "0.5, 1.5" in props["ratio"]["description"]


@tool
def pick(color: Literal["red", "blue", None], unit: Literal["c", "f"] | None = None) -> str:
    """Pick a color."""
    return f"{color} {unit}"


def test_gemini_sends_a_string_enum_with_null_as_a_nullable_enum() -> None:
    # Literal["red", "blue", None] is {"enum": ["red", "blue", null]} (no type): it was sent as JSON text
    props = convert_to_gemini_tool(pick)["parameters"]["properties"]
    assert props["color"] == {"type": "STRING", "nullable": True, "enum": ["red", "blue"]}
    assert props["unit"] == {"type": "STRING", "nullable": True, "enum": ["c", "f"]}
    # the strict-mode shape (an MCP server's or tool_from_schema's): the enum was dropped without a word
    mcp = {"type": "object", "properties": {"unit": {"type": ["string", "null"], "enum": ["c", "f", None]}},
           "required": ["unit"]}
    assert convert_to_gemini_tool({"name": "t", "description": "", "parameters": mcp})["parameters"] == {
        "type": "OBJECT", "properties": {"unit": {"type": "STRING", "nullable": True, "enum": ["c", "f"]}},
        "required": ["unit"]}
    reply = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "pick", "args": {"color": None, "unit": "f"}}}]}, "finishReason": "STOP"}]}
    message = parse_response(reply, tool_names=["pick"], json_text=json_text_plan([pick]))
    assert pick.invoke(message.tool_calls[0]).content == "None f"


def test_gemini_enum_values_reach_the_function_as_python_values() -> None:
    args = {"level": 2, "retries": 3, "mode": "1", "backup": 1}
    reply = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "set_level", "args": args}}]}, "finishReason": "STOP"}]}
    message = parse_response(reply, tool_names=["set_level"], json_text=json_text_plan([set_level]))
    result = set_level.invoke(message.tool_calls[0])
    assert result.status == "success"
    assert result.content == "<Level.HIGH: 2> 3 1 <Level.LOW: 1> 0.5"


# --------------------------------------------------------------------------- 4. dataclass init=False fields


@dataclass
class Counter:
    start: int
    step: int = 1
    total: int = field(init=False, default=0)


@tool
def count(counter: Counter) -> int:
    """Count."""
    return counter.start + counter.step + counter.total


def test_a_dataclass_field_the_schema_offers_is_accepted() -> None:
    strict = convert_to_openai_tool(count, strict=True)["function"]["parameters"]
    offered = "total" in strict["properties"]["counter"]["properties"]
    message = count.invoke({"name": "count", "args": {"counter": {"start": 1, "step": 1, "total": 0}}, "id": "c1",
                            "type": "tool_call"})
    # either the field is not offered, or a value the schema allows for it is taken
    assert not offered or message.status == "success", message.content
    plain = convert_to_openai_tool(count)["function"]["parameters"]["properties"]["counter"]
    assert list(plain["properties"]) == ["start", "step"] and plain["additionalProperties"] is False
    if not offered:  # the error for a value sent anyway does not list the field as allowed
        assert "are: start, step." in message.content, message.content
    assert count.invoke({"counter": {"start": 2}}) == 3


# --------------------------------------------------------------------------- 5. future annotations, local models


def test_a_tool_using_a_model_defined_in_the_same_function_under_future_annotations() -> None:
    source = textwrap.dedent('''
        from __future__ import annotations
        from pydantic import BaseModel
        from toolwire import tool

        def make_tools(client):
            class Query(BaseModel):
                text: str
                limit: int = 5

            @tool
            def search(query: Query) -> str:
                """Search."""
                return f"{client}: {query.text} {query.limit}"

            return [search]
    ''')
    namespace: dict[str, Any] = {"__name__": "review28_future"}
    exec(compile(source, "<review28_future>", "exec"), namespace)
    search = namespace["make_tools"]("db")[0]
    assert search.invoke({"query": {"text": "x"}}) == "db: x 5"


class _Outer(BaseModel):
    text: str


def test_local_models_resolve_through_every_way_of_making_a_tool_and_unknown_names_still_fail() -> None:
    from toolwire import SchemaError, Tool

    class Local(BaseModel):  # annotations below are text (this module uses future annotations)
        n: int

    def count(item: Local, outer: _Outer) -> int:
        """Count."""
        return item.n + len(outer.text)

    @tool("counted", timeout=5)
    def counted(item: Local) -> int:
        """Count."""
        return item.n

    assert Tool.from_function(count).invoke({"item": {"n": 2}, "outer": {"text": "abc"}}) == 5
    assert counted.invoke({"item": {"n": 4}}) == 4
    made = [tool(f) for f in (count,)]  # from a comprehension: its frame's caller holds Local
    assert made[0].args["item"]["properties"]["n"]["type"] == "integer"

    def broken(item: Missing) -> int:  # type: ignore[name-defined]  # noqa: F821
        """Broken."""
        return 0

    with pytest.raises(SchemaError, match="Missing"):
        tool(broken)
