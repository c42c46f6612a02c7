"""A NamedTuple result keeps its field names: the model reads an object, not a bare list.

``json.dumps`` and pydantic write a NamedTuple as a list, so ``psutil.virtual_memory()`` or rows from a
``namedtuple`` cursor reached the model as ``[17179869184, 8589934592, 50.0]``: the numbers without what they
are. These tests fail before the fix.
"""

from __future__ import annotations

import asyncio
import json
from collections import namedtuple
from typing import NamedTuple

from toolwire import ToolExecutor, tool
from toolwire.messages import AIMessage
from toolwire.results import bounded_content, json_ready, result_to_content


class Memory(NamedTuple):
    total: int
    available: int
    percent: float


Row = namedtuple("Row", "id name")


def test_top_level_named_tuple_is_an_object() -> None:
    assert json.loads(result_to_content(Memory(16, 8, 50.0))) == {"total": 16, "available": 8, "percent": 50.0}


def test_named_tuples_inside_containers_are_objects() -> None:
    result = {"rows": [Row(1, "a"), Row(2, "b")], "pair": (1, 2), "memory": Memory(1, 2, 3.0)}
    assert json.loads(result_to_content(result)) == {
        "rows": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
        "pair": [1, 2],  # a plain tuple stays a list
        "memory": {"total": 1, "available": 2, "percent": 3.0},
    }


def test_nested_named_tuple_and_non_finite_float() -> None:
    assert json.loads(result_to_content([Memory(1, 2, float("nan"))])) == [
        {"total": 1, "available": 2, "percent": "NaN"}]


def test_result_without_named_tuples_is_unchanged() -> None:
    result = {"a": [1, (2, 3)], "b": "x"}
    assert result_to_content(result) == json.dumps(result, ensure_ascii=False)


def test_circular_result_still_gives_the_json_error() -> None:
    loop: list = []
    loop.append(loop)
    loop.append(Row(1, "a"))
    try:
        result_to_content(loop)
    except Exception as exc:  # the one error a model can act on, not a RecursionError
        assert type(exc).__name__ == "ToolResultError"  # (a ToolExecutionError whose text says the tool ran)
    else:
        raise AssertionError("a circular result must fail")


def test_big_result_path_keeps_field_names() -> None:
    rows = [Row(i, str(i)) for i in range(3)]
    assert json.loads(bounded_content(rows, None)) == [{"id": i, "name": str(i)} for i in range(3)]


def test_artifact_keeps_field_names() -> None:
    assert json_ready({"m": Memory(1, 2, 3.0)}) == {"m": {"total": 1, "available": 2, "percent": 3.0}}


def test_tool_message_and_executor_show_field_names() -> None:
    @tool
    def memory() -> Memory:
        """Memory use of this machine."""
        return Memory(16, 8, 50.0)

    message = memory.invoke({"name": "memory", "args": {}, "id": "c1", "type": "tool_call"})
    assert json.loads(message.content)["available"] == 8
    call = AIMessage("", tool_calls=[{"name": "memory", "args": {}, "id": "c2", "type": "tool_call"}])
    [answer] = asyncio.run(ToolExecutor([memory]).aexecute(call))
    assert json.loads(answer.content)["percent"] == 50.0


def test_named_tuples_in_dict_subclasses() -> None:
    from collections import Counter, OrderedDict

    assert json.loads(result_to_content(OrderedDict(a=Row(1, "x")))) == {"a": {"id": 1, "name": "x"}}
    assert result_to_content(Counter(a=2)) == '{"a": 2}'
