"""Review 248: tool results (masked narrow-float arrays, a model's JSON settings kept with date/enum/UUID dict keys,
enum members cheap to write, bounded cheapness checks for object arrays and other containers, narrow floats in
records and complex numbers)."""

from __future__ import annotations

import datetime
import enum
import json
import uuid
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel, ConfigDict, field_serializer

from toolwire import tool
from toolwire.results import is_cheap_result, json_ready, result_to_content


def _call(name: str) -> dict:
    return {"name": name, "args": {}, "id": "c1", "type": "tool_call"}


# ------------------------------------------------------------------ 1: a masked narrow-float array keeps null


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_masked_narrow_float_array_sends_null_for_masked_values(dtype):
    readings = np.ma.masked_array(np.array([21.5, -9999.0, 22.25], dtype=dtype), mask=[False, True, False])
    assert json.loads(result_to_content(readings)) == [21.5, None, 22.25]
    assert json_ready(readings) == [21.5, None, 22.25]


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_masked_float32_array_in_a_tool_result_and_artifact_and_in_two_dimensions():
    readings = np.ma.masked_equal(np.array([21.7, -9999.0, 22.25], dtype=np.float32), -9999.0)

    @tool(response_format="content_and_artifact")
    def sensor() -> tuple:
        """Readings."""
        return readings, readings

    message = sensor.invoke(_call("sensor"))
    assert message.content == "[21.7, null, 22.25]"
    assert message.to_dict()["artifact"] == [21.7, None, 22.25]
    grid = np.ma.masked_equal(np.array([[1.1, -1.0], [-1.0, 2.2]], dtype=np.float32), -1.0)
    assert json.loads(result_to_content(grid)) == [[1.1, None], [None, 2.2]]
    assert json.loads(result_to_content(np.matrix([[0.1, 0.2]], dtype=np.float32))) == [[0.1, 0.2]]
    one = np.ma.masked_array(np.float32(1.1), mask=True)
    assert json.loads(result_to_content({"v": one})) == {"v": None}


# ------------------------------------------------------------------ 2: date/enum/UUID keys keep the model's JSON form


class Region(enum.Enum):
    EU = "eu"


class Report(BaseModel):
    model_config = ConfigDict(ser_json_bytes="base64", ser_json_timedelta="float")
    cents: int = 12345
    checksum: bytes = b"\x00\xff\x10"
    window: datetime.timedelta = datetime.timedelta(minutes=5)
    sales: dict[Any, int]

    @field_serializer("cents", when_used="json")
    def euros(self, value: int) -> str:
        return f"{value / 100:.2f} EUR"


@pytest.mark.parametrize("key", [datetime.date(2024, 1, 1), Region.EU, uuid.UUID(int=7),
                                 datetime.datetime(2024, 1, 1, 12, 0)])
def test_model_with_date_enum_or_uuid_keys_is_written_in_its_own_json_form(key):
    report = Report(sales={key: 5})

    @tool
    def report_tool() -> Report:
        """Sales report."""
        return report

    message = report_tool.invoke(_call("report_tool"))
    assert message.status == "success"
    assert json.loads(message.content) == json.loads(report.model_dump_json())
    assert json.loads(message.content)["cents"] == "123.45 EUR"


def test_model_with_none_or_frozenset_key_writes_it_as_before_and_its_other_fields_in_json_form():
    content = json.loads(result_to_content(Report(sales={None: 5, "a": 1})))
    assert content == {"cents": "123.45 EUR", "checksum": "AP8Q", "window": 300.0, "sales": {"null": 5, "a": 1}}
    content = json.loads(result_to_content(Report(sales={frozenset({1}): 5})))
    assert content["cents"] == "123.45 EUR" and content["sales"] == {"frozenset({1})": 5}

    class Inner(BaseModel):
        window: datetime.timedelta = datetime.timedelta(minutes=5)
        by_key: dict[Any, int]

    class Outer(BaseModel):
        model_config = ConfigDict(ser_json_timedelta="float")
        inner: Inner
        other: datetime.timedelta = datetime.timedelta(seconds=2)

    content = json.loads(result_to_content(Outer(inner=Inner(by_key={None: 1}))))
    assert content["other"] == 2.0 and content["inner"]["by_key"] == {"null": 1}


# ------------------------------------------------------------------ 3: enum members are cheap


class Status(enum.Enum):
    OK = "ok"


class Order(BaseModel):
    id: int = 1
    status: Status = Status.OK


class Raises:
    def __len__(self) -> int:
        raise TypeError("no length")


@pytest.mark.parametrize("value", [Status.OK, {"status": Status.OK}, Order(), [Order()], {"x": Raises()},
                                   {"when": datetime.date(2024, 1, 1)}])
def test_small_result_holding_an_enum_member_is_cheap(value):
    assert is_cheap_result(value) is True


# ------------------------------------------------------------------ 4: big values inside other containers


class Extra(BaseModel):
    model_config = ConfigDict(extra="allow")


def _big_ones():
    import collections
    import types

    big = list(range(20_000))
    return [np.array([big, big[:-1]], dtype=object), np.array(["x" * 300_000] * 4),
            types.MappingProxyType({"a": big}), collections.UserList([big]), Extra(rows=big),
            collections.UserDict({"a": big}), {"a": big}.values(), np.array([{"rows": big}], dtype=object)]


@pytest.mark.parametrize("index", range(8))
def test_big_values_in_object_arrays_mapping_proxies_user_lists_and_extra_fields_are_not_cheap(index):
    assert is_cheap_result(_big_ones()[index]) is False


def test_small_values_of_those_kinds_stay_cheap():
    import collections
    import types

    small = [1, 2, 3]
    for value in (np.array([small, small], dtype=object), types.MappingProxyType({"a": small}),
                  collections.UserList([small]), Extra(rows=small), np.zeros(10), range(10**30), "x" * 10,
                  collections.UserString("abc"), {"a": 1}.keys()):
        assert is_cheap_result(value) is (type(value) is not range), value


def test_bounded_content_of_mappings_and_user_lists_is_the_content_and_stops_early():
    import collections
    import types

    from toolwire.results import bounded_content

    small = {"a": [1, 2.5, None], "b": datetime.date(2024, 1, 1)}
    for value in (types.MappingProxyType(small), collections.UserDict(small), collections.ChainMap(small),
                  collections.UserList([small, 3])):
        assert bounded_content(value, None) == result_to_content(value)
    big = collections.UserList(range(100_000))
    text = bounded_content(big, 100)
    assert "its first 100 characters kept, of more than" in text
    text = bounded_content(types.MappingProxyType({"rows": list(range(100_000))}), 100)
    assert "its first 100 characters kept, of more than" in text


# ------------------------------------------------------------------ 6: narrow floats in records, complex64, edges


def test_structured_array_and_complex64_are_written_with_their_short_float_text():
    records = np.array([(1, 21.7)], dtype=[("id", "i4"), ("temp", "f4")])
    assert json.loads(result_to_content(records)) == [[1, 21.7]]
    assert json.loads(result_to_content(records[0])) == [1, 21.7]
    assert json.loads(result_to_content(np.array([1.1 + 2.2j], dtype=np.complex64))) == ["1.1+2.2j"]
    masked = np.ma.masked_array(np.array([1.1 + 1j, 2j], dtype=np.complex64), mask=[False, True])
    assert json.loads(result_to_content(masked)) == ["1.1+1j", None]


def test_narrow_floats_are_numpy_s_own_text_at_large_exponents_and_binade_edges():
    values = np.array([-8.6632096e30, 3.4028235e38, 1e-45], dtype=np.float32)
    assert json.loads(result_to_content(values)) == [float(str(v)) for v in values]
    halves = np.arange(1, 0x7C00, dtype=np.uint16).view(np.float16)  # every positive finite float16
    assert json.loads(result_to_content(halves)) == [float(str(v)) for v in halves]
    assert json.loads(result_to_content(np.array([0.015625], dtype=np.float16))) == [0.01563]


# ------------------------------------------------------------------ 5: Responses parts on the MCP server


def test_mcp_server_sends_responses_parts_as_mcp_blocks_not_json_text():
    import base64

    from toolwire.mcp.server import _served, message_to_result

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 300).decode()
    pdf = base64.b64encode(b"%PDF-1.4" + b"\x00" * 300).decode()

    @tool
    def chart() -> list:
        """Sales chart."""
        return [{"type": "input_text", "text": "Sales chart:"},
                {"type": "input_image", "image_url": f"data:image/png;base64,{png}"},
                {"type": "input_image", "image_url": "https://example.com/c.png"},
                {"type": "input_file", "filename": "r.pdf", "file_data": f"data:application/pdf;base64,{pdf}"},
                {"type": "input_file", "file_id": "file-1"}]

    blocks = message_to_result(_served(chart).invoke(_call("chart")))["content"]
    assert blocks[0] == {"type": "text", "text": "Sales chart:"}
    assert blocks[1] == {"type": "image", "data": png, "mimeType": "image/png"}
    assert blocks[2] == {"type": "text", "text": "Image: https://example.com/c.png"}
    assert blocks[3] == {"type": "resource", "resource": {"uri": "attachment:///r.pdf", "blob": pdf,
                                                          "mimeType": "application/pdf"}}
    assert blocks[4]["type"] == "text" and "file-1" in blocks[4]["text"]
    assert all(png not in b.get("text", "") and pdf not in b.get("text", "") for b in blocks)
