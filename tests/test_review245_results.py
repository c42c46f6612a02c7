"""Review 245: tool results of every kind (images in big results, big arrays and sets off the event loop, a pydantic
model's keys, provider-native blocks, whitespace-only results for Anthropic, images in models, model dict keys,
float32 values)."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
from collections import deque

import numpy as np
import pytest
from pydantic import BaseModel, ConfigDict, Field

from toolwire import ToolExecutor, tool
from toolwire.messages import AIMessage, HumanMessage, ToolMessage
from toolwire.models.lowering import anthropic as la
from toolwire.models.lowering import openai as lo
from toolwire.results import bounded_content, is_cheap_result, json_ready, result_to_content

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40
PNG_B64 = base64.b64encode(PNG).decode()


def _call(name: str) -> dict:
    return {"name": name, "args": {}, "id": "c1", "type": "tool_call"}


# ------------------------------------------------------------------ 1: an image in a big result


def test_big_result_holding_an_image_is_text_and_image_on_every_path():
    @tool
    def big_report() -> dict:
        """Chart plus many rows."""
        return {"chart": PNG, "rows": list(range(6000))}

    call = _call("big_report")
    messages = [big_report.invoke(call), ToolExecutor([big_report]).execute(AIMessage("", tool_calls=[call]))[0],
                asyncio.run(ToolExecutor([big_report]).aexecute(AIMessage("", tool_calls=[call])))[0]]
    for message in messages:
        assert message.status == "success"
        assert [b["type"] for b in message.content] == ["text", "image"]
        assert message.content[0]["text"].startswith('{"chart": "<image 1>", "rows": [0, 1, 2')


def test_bounded_content_of_a_result_with_an_image_is_cut_and_keeps_the_image():
    blocks = bounded_content({"chart": PNG, "rows": list(range(6000))}, 100)
    assert [b["type"] for b in blocks] == ["text", "image"]
    assert "result truncated" in blocks[0]["text"]
    assert blocks[1]["base64"] == PNG_B64


# ------------------------------------------------------------------ 2: big arrays, sets, deques, ranges


@pytest.mark.parametrize("make", [lambda n: np.zeros(n), lambda n: set(range(n)), lambda n: frozenset(range(n)),
                                  lambda n: deque(range(n)), lambda n: range(n), lambda n: [set(range(n))],
                                  lambda n: {"a": np.zeros((n, 2))}])
def test_big_arrays_and_sets_are_not_cheap(make):
    assert is_cheap_result(make(10)) is True
    assert is_cheap_result(make(100_000)) is False


def test_a_set_of_long_strings_is_not_cheap():
    assert is_cheap_result({"x" * 600_000}) is False
    assert is_cheap_result(deque(["x" * 600_000])) is False


def test_dict_and_list_subclasses_are_walked():
    from collections import OrderedDict, defaultdict

    assert is_cheap_result(defaultdict(int, {i: i for i in range(10_000)})) is False
    assert is_cheap_result(OrderedDict(a="x" * 600_000)) is False
    assert is_cheap_result(defaultdict(int, a=1)) is True


def test_a_huge_range_is_not_cheap():
    assert is_cheap_result(range(10**30)) is False


def test_bounded_content_of_a_big_array_stops_at_twice_the_limit():
    text = bounded_content(np.arange(1_000_000), 1000)
    assert "of more than" in text and text.startswith("[0, 1, 2, 3")
    assert len(text) < 1200
    assert bounded_content(set(range(200_000)), 50).startswith("[0, 1, 2")
    assert "of more than" in bounded_content(deque(range(200_000)), 50)


def test_small_array_and_set_are_written_as_before():
    assert bounded_content(np.arange(3), None) == result_to_content(np.arange(3)) == "[0, 1, 2]"
    assert bounded_content({3, 1, 2}, None) == result_to_content({3, 1, 2})


def test_a_quick_tool_beside_a_big_array_is_not_timed_out():
    @tool
    async def readings() -> object:
        """Sensor readings."""
        return np.arange(300_000, dtype=float)

    @tool
    async def status() -> str:
        """Status."""
        return "up"

    reply = AIMessage("", tool_calls=[_call("readings"), {**_call("status"), "id": "c2"}])
    out = ToolExecutor([readings, status], max_result_chars=100).execute(reply)
    assert [m.status for m in out] == ["success", "success"]
    assert "of more than" in out[0].content


# ------------------------------------------------------------------ 3: one naming of a model's keys


class User(BaseModel):
    user_id: int = Field(alias="userId")
    full_name: str = Field(alias="fullName")


def test_a_model_has_the_same_keys_alone_and_nested():
    user = User(userId=1, fullName="Alice")
    alone = json.loads(result_to_content(user))
    in_list = json.loads(result_to_content([user]))[0]
    in_dict = json.loads(result_to_content({"matches": [user]}))["matches"][0]
    assert alone == in_list == in_dict == {"userId": 1, "fullName": "Alice"}
    assert json_ready(user) == alone


def test_a_model_with_colliding_keys_keeps_its_aliases():
    class Tally(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        per_key: dict = Field(alias="perKey")

    out = json.loads(result_to_content(Tally(perKey={1: "a", "1": "b"})))
    assert out == {"perKey": [[1, "a"], ["1", "b"]]}


# ------------------------------------------------------------------ 4: provider-native blocks


RESPONSES_PARTS = [{"type": "input_text", "text": "Sales chart:"},
                   {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}"}]
MCP_IMAGE = [{"type": "image", "data": PNG_B64, "mimeType": "image/png"}]
SEARCH_RESULT = [{"type": "search_result", "source": "https://docs.example/a", "title": "A",
                  "content": [{"type": "text", "text": "The answer is 42."}]}]


@pytest.mark.parametrize("blocks", [RESPONSES_PARTS, MCP_IMAGE, SEARCH_RESULT])
def test_native_blocks_returned_by_a_tool_stay_blocks(blocks):
    assert result_to_content(blocks) == blocks
    assert bounded_content(blocks, 10_000) == blocks


def _lowered(message: ToolMessage) -> dict:
    convo = [HumanMessage("q"), AIMessage("", tool_calls=[_call("chart")]), message]
    return {"responses": lo.lower_responses_messages(convo)[-1]["output"],
            "anthropic": la.lower_messages(convo)[1][-1]["content"][0].get("content"),
            "chat": lo.lower_messages(convo)[-1]["content"]}


@pytest.mark.parametrize("blocks", [RESPONSES_PARTS, MCP_IMAGE, SEARCH_RESULT])
def test_native_blocks_returned_are_lowered_as_a_tool_message_of_them(blocks):
    @tool
    def chart() -> list:
        """Draw the chart."""
        return blocks

    returned = chart.invoke(_call("chart"))
    wrapped = ToolMessage(blocks, tool_call_id="c1", name="chart")
    assert _lowered(returned) == _lowered(wrapped)
    assert PNG_B64 not in json.dumps(_lowered(returned)["chat"])


def test_data_with_a_type_key_stays_data():
    listing = [{"type": "file", "name": "a.txt", "size": 3}]
    assert isinstance(result_to_content(listing), str)
    rows = [{"type": "search_result", "title": "A", "score": 3}]
    assert isinstance(result_to_content(rows), str)
    assert isinstance(result_to_content([{"type": "input_text", "text": 3}]), str)


# ------------------------------------------------------------------ 5: whitespace-only results for Anthropic


def _anthropic_result(message: ToolMessage) -> dict:
    call = {"name": "run_shell", "args": {}, "id": "toolu_1", "type": "tool_call"}
    _, turns = la.lower_messages([HumanMessage("q"), AIMessage("", tool_calls=[call]), message])
    return turns[-1]["content"][0]


@pytest.mark.parametrize("text", ["\n", " ", " \t\r\n"])
def test_a_whitespace_only_result_is_sent_as_an_empty_result(text):
    assert _anthropic_result(ToolMessage(text, tool_call_id="toolu_1")) == {
        "type": "tool_result", "tool_use_id": "toolu_1"}
    error = _anthropic_result(ToolMessage(text, tool_call_id="toolu_1", status="error"))
    assert error["content"] == "Error" and error["is_error"] is True


def test_text_with_content_is_sent_as_is():
    assert _anthropic_result(ToolMessage(" ok\n", tool_call_id="toolu_1"))["content"] == " ok\n"


# ------------------------------------------------------------------ 6: an image in a model or dataclass


class Chart(BaseModel):
    title: str
    png: bytes


@dataclasses.dataclass
class ChartData:
    title: str
    png: bytes


@pytest.mark.parametrize("value", [Chart(title="Sales", png=PNG), ChartData("Sales", PNG),
                                   {"charts": [Chart(title="Sales", png=PNG)]}])
def test_an_image_in_a_model_or_dataclass_is_text_and_image(value):
    content = result_to_content(value)
    assert [b["type"] for b in content] == ["text", "image"]
    assert '"title": "Sales"' in content[0]["text"] and '"<image 1>"' in content[0]["text"]
    assert content[1]["base64"] == PNG_B64


# ------------------------------------------------------------------ 7: dict keys inside a model


class Counts(BaseModel):
    by_key: dict


@dataclasses.dataclass
class CountsData:
    by_key: dict


@pytest.mark.parametrize("kind", [Counts, CountsData])
def test_dict_keys_in_a_model_are_written_as_in_a_dict(kind):
    for key, plain in ((None, "null"), (float("nan"), "NaN"), (frozenset({"a"}), "frozenset({'a'})")):
        value = kind(by_key={key: 1})
        assert json.loads(result_to_content(value)) == {"by_key": {plain: 1}}
        assert json_ready(value) == {"by_key": {plain: 1}}


# ------------------------------------------------------------------ 8: float32


def test_float32_is_written_with_its_shortest_text():
    assert result_to_content(np.float32(21.7)) == "21.7"
    readings = np.array([21.7, 21.9, 22.1], dtype=np.float32)
    assert result_to_content({"celsius": readings}) == '{"celsius": [21.7, 21.9, 22.1]}'
    assert result_to_content({"celsius": list(readings)}) == '{"celsius": [21.7, 21.9, 22.1]}'
    assert result_to_content(np.array([0.1, np.nan], dtype=np.float16)) == '[0.1, "NaN"]'
    assert json_ready(readings) == [21.7, 21.9, 22.1]
    assert result_to_content(np.array([1.5, 2.5])) == "[1.5, 2.5]"


def test_responses_parts_in_a_tool_result_reach_anthropic_as_text_and_image():
    content = _lowered(ToolMessage(RESPONSES_PARTS, tool_call_id="c1"))["anthropic"]
    assert content == [{"type": "text", "text": "Sales chart:"},
                       {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}]
