"""A NumPy ``longdouble``/``clongdouble`` result or artifact is written as its value (review 176 #1).

Their ``tolist()`` gives back the same type (Python has no such number), so the fallback was called again on its own
output until pydantic's depth limit: the model was told the result "could not be written as JSON (Maximum
serialization depth exceeded)", and a saved artifact holding one became one Python-repr string.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from toolwire import ToolExecutor, tool
from toolwire.results import json_fallback, result_to_content

np = pytest.importorskip("numpy")


def _call(name: str) -> dict[str, object]:
    return {"name": name, "args": {}, "id": name, "type": "tool_call"}


@tool
def mean_precise() -> object:
    """Mean computed in extended precision."""
    return np.mean(np.array([1, 2], dtype=np.longdouble))


@tool
def precise_array() -> object:
    """An extended-precision array."""
    return np.array([[1.5, 2.5]], dtype=np.longdouble)


@tool
def complex_precise() -> object:
    """An extended-precision complex number."""
    return np.clongdouble(1 + 2j)


@tool
def in_a_dict() -> object:
    """Values in a dict."""
    return {"mean": np.longdouble(1.5), "z": [np.clongdouble(3 - 1j)], "plain": np.complex128(1 + 2j)}


@tool(response_format="content_and_artifact")
def stats() -> tuple[str, object]:
    """Stats with the raw value as artifact."""
    return "mean computed", {"mean": np.longdouble(1.5), "values": np.array([1.0, 2.0], dtype=np.longdouble)}


TOOLS = [mean_precise, precise_array, complex_precise, in_a_dict]
EXPECTED = {"mean_precise": 1.5, "precise_array": [[1.5, 2.5]], "complex_precise": "1+2j",
            "in_a_dict": {"mean": 1.5, "z": ["3-1j"], "plain": "1+2j"}}


def test_results_are_their_values_on_every_path() -> None:
    calls = [_call(t.name) for t in TOOLS]
    for messages in (ToolExecutor(TOOLS).execute(calls), asyncio.run(ToolExecutor(TOOLS).aexecute(calls)),
                     [t.invoke(_call(t.name)) for t in TOOLS]):
        for message in messages:
            assert message.status == "success", message.content
            assert json.loads(message.content) == EXPECTED[message.name]


def test_complex_is_written_as_a_complex128_is() -> None:
    assert complex_precise.invoke(_call("complex_precise")).content == result_to_content(1 + 2j)


def test_artifact_keeps_its_structure_when_saved() -> None:
    message = stats.invoke(_call("stats"))
    assert message.status == "success"
    assert json.loads(json.dumps(message.to_dict()))["artifact"] == {"mean": 1.5, "values": [1.0, 2.0]}


def test_fallback_never_returns_the_same_type() -> None:
    assert json_fallback(np.longdouble(2.5)) == 2.5 and type(json_fallback(np.longdouble(2.5))) is float
    assert json_fallback(np.clongdouble(1 + 2j)) == 1 + 2j
    assert type(json_fallback(np.clongdouble(1 + 2j))) is complex
    assert json_fallback(np.longdouble("inf")) == float("inf")


@pytest.mark.skipif(np.finfo(np.longdouble).max <= np.finfo(np.float64).max, reason="longdouble is float64 here")
def test_a_value_beyond_a_float_is_its_text_not_infinity() -> None:
    big = np.longdouble(10) ** 4000
    assert json_fallback(big) == str(big)
    assert json_fallback(np.clongdouble(big)) == str(np.clongdouble(big))
