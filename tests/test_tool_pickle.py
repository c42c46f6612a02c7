"""Tools can be pickled (process pools, multiprocessing) and copied; what cannot be pickled says why."""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import functools
import multiprocessing
import pickle

import pytest
from pydantic import BaseModel

from toolwire import Tool, ToolCall, ToolMessage, tool


class Point(BaseModel):
    x: int
    y: int = 0


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool("far", timeout=3.0)
def distance(p: Point, scale: float = 1.0) -> float:
    """Distance of a point from the origin.

    Args:
        p: the point.
        scale: a factor.
    """
    return ((p.x**2 + p.y**2) ** 0.5) * scale


@tool
async def shout(text: str) -> str:
    """Shout some text."""
    await asyncio.sleep(0)
    return text.upper()


def multiply(a: int, b: int = 2) -> int:
    """Multiply two integers.

    Args:
        a: the first factor.
        b: the second factor.
    """
    return a * b


class MoveArgs(BaseModel):
    """Move a point."""

    p: Point
    dx: int


def move(p: Point, dx: int) -> dict:
    return {"x": p.x + dx, "y": p.y}


def echo(**kwargs: object) -> dict:
    return dict(kwargs)


class Counter:
    """A counter whose tools read its state."""

    def __init__(self, start: int) -> None:
        self.start = start

    @tool
    def count(self, step: int) -> int:
        """Count from the start."""
        return self.start + step

    @tool
    @classmethod
    def kind(cls, upper: bool = False) -> str:
        """The class name."""
        return cls.__name__.upper() if upper else cls.__name__


def roundtrip(obj: object) -> object:
    return pickle.loads(pickle.dumps(obj))


def test_a_module_level_tool_is_pickled_by_reference() -> None:
    for made in (add, distance, shout):
        assert roundtrip(made) is made
    assert len(pickle.dumps(add)) < 200  # a reference, not the schema and validator


def test_a_tool_made_from_a_plain_function_is_made_again_with_its_options() -> None:
    made = Tool.from_function(multiply, name="times", timeout=2.5, handle_errors=False, return_direct=True)
    made.hide_error_details = True  # set after creation: kept too
    back = roundtrip(made)
    assert isinstance(back, Tool) and back is not made
    assert (back.name, back.description, back.timeout, back.handle_errors, back.return_direct,
            back.hide_error_details) == ("times", made.description, 2.5, False, True, True)
    assert back.parameters == made.parameters
    assert back.args["a"]["description"] == "the first factor."
    assert back.invoke({"a": "3"}) == 6  # the validator was built again (lax str -> int as before)
    with pytest.raises(Exception, match="a"):
        back.invoke({"a": "x"})  # handle_errors=False: the error is raised


def test_args_schema_tools_and_schema_tools_are_made_again() -> None:
    by_model = Tool.from_function(move, args_schema=MoveArgs)
    back = roundtrip(by_model)
    assert back.parameters == by_model.parameters and back.description == "Move a point."
    assert back.invoke({"p": {"x": 1}, "dx": 2}) == {"x": 3, "y": 0}

    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}
    by_schema = Tool.from_schema(echo, "echo", "Echo the arguments.", schema)
    back = roundtrip(by_schema)
    assert back.parameters == by_schema.parameters
    assert back.invoke({"n": 2}) == {"n": 2}
    message = back.invoke(ToolCall(name="echo", args={"n": 0}, id="c1", type="tool_call"))
    assert isinstance(message, ToolMessage) and message.status == "error" and "n" in message.content


def test_a_partial_and_a_description_given_are_kept() -> None:
    made = Tool.from_function(functools.partial(multiply, b=10), name="tenfold", description="Multiply by ten.")
    back = roundtrip(made)
    assert back.description == "Multiply by ten." and list(back.args) == ["a"]
    assert back.invoke({"a": 4}) == 40


def test_tools_bound_to_an_instance_or_a_class_keep_it() -> None:
    bound = Counter(10).count
    back = roundtrip(bound)
    assert back.invoke({"step": 5}) == 15 and list(back.args) == ["step"]
    assert roundtrip(Counter.kind).invoke({"upper": True}) == "COUNTER"
    assert roundtrip(Counter.__dict__["count"]) is Counter.__dict__["count"]


def test_a_pickled_tool_runs_in_a_process_pool() -> None:
    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    made = Tool.from_function(multiply, name="times")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        got = pool.submit(made.invoke, {"a": 7}).result(timeout=60)
        request = ToolCall(name="add", args={"a": 1, "b": 2}, id="c9", type="tool_call")
        message = pool.submit(add.invoke, request).result(timeout=60)
    assert got == 14
    assert message == ToolMessage("3", "c9", name="add")


def test_what_cannot_be_pickled_says_what_to_do() -> None:
    def local(x: int) -> int:
        """A local function."""
        return x

    with pytest.raises(pickle.PicklingError, match="define the function at module level"):
        pickle.dumps(tool(local))
    with pytest.raises(pickle.PicklingError, match="lambda"):
        pickle.dumps(Tool.from_function(lambda x: x, name="ident", description="Identity."))  # type: ignore[arg-type]
    own = Tool.from_schema(echo, "echo", "Echo.", {"type": "object", "properties": {}}, validate=lambda a: dict(a))
    with pytest.raises(pickle.PicklingError, match=r"Tool\.from_function"):
        pickle.dumps(own)


def test_copies_are_independent_and_keep_everything() -> None:
    made = Tool.from_function(multiply, name="times", timeout=4.0)
    shallow = copy.copy(made)
    shallow.timeout = 9.0
    assert made.timeout == 4.0 and shallow.invoke({"a": 2}) == 4 and shallow.timeout == 9.0
    deep = copy.deepcopy(made)
    assert deep is not made and deep.parameters == made.parameters and deep.parameters is not made.parameters
    assert deep.invoke({"a": 3, "b": 3}) == 9
    assert copy.copy(add) is not add and copy.copy(add).invoke({"a": 1, "b": 1}) == 2
