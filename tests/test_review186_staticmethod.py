"""Review 186 #2, #3: a staticmethod's function that reaches ``tool()`` without its ``staticmethod`` wrapper
(``@staticmethod`` written above ``@tool``; ``tool(K.run)``, ``Tool.from_function(K.run)`` or
``StructuredTool.from_function(K.run)`` with ``K.run`` a staticmethod read from its class) keeps a first parameter
named ``cls`` or ``self`` as an argument: published and passed, never the class. Methods and classmethods stay
bound."""

from __future__ import annotations

import copy
import functools
import pickle
from typing import Any

from toolwire import StructuredTool, tool
from toolwire.tools import Tool


def _logged(func: Any) -> Any:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


class Geo:
    @staticmethod
    @tool
    def label(cls: str) -> str:
        """Echo a class label.

        Args:
            cls: the class label
        """
        return f"cls={cls}"

    @staticmethod  # a comment here too
    @tool(description="Echo self.")
    @_logged
    def wrapped(self: str, n: int = 1) -> str:
        return " ".join([self] * n)

    @tool
    def method(self, x: int) -> str:
        """A method."""
        return f"{type(self).__name__} {x}"

    @tool
    @classmethod
    def kind(cls, x: int) -> str:
        """The class's name and x."""
        return f"{cls.__name__} {x}"


class K:
    @staticmethod
    def run(cls: str) -> str:
        """Echo a label."""
        return f"sync {cls}"

    @staticmethod
    async def arun(cls: str) -> str:
        """Echo a label."""
        return f"async {cls}"

    def plain(self, x: int) -> str:
        """A method."""
        return f"plain {x}"


def _props(made: Tool) -> list[str]:
    return list(made.parameters.get("properties") or {})


def test_staticmethod_above_tool_keeps_cls_as_an_argument() -> None:
    for made in (Geo.label, Geo().label):
        assert _props(made) == ["cls"]
        assert made.parameters["properties"]["cls"]["description"] == "the class label"
        assert made.invoke({"cls": "big"}) == "cls=big"
    for made in (Geo.wrapped, Geo().wrapped):
        assert _props(made) == ["self", "n"]
        assert made.invoke({"self": "a", "n": 2}) == "a a"


def test_staticmethod_above_tool_pickles_and_copies() -> None:
    for made in (Geo.label, Geo.wrapped):
        assert pickle.loads(pickle.dumps(made)) is made
        assert copy.deepcopy(made).invoke(dict.fromkeys(_props(made)[:1], "x")) == made.invoke(
            dict.fromkeys(_props(made)[:1], "x"))


def test_a_staticmethod_read_from_its_class() -> None:
    for made in (tool(K.run), Tool.from_function(K.run), StructuredTool.from_function(K.run)):
        assert _props(made) == ["cls"]
        assert made.invoke({"cls": "x"}) == "sync x"
        again = pickle.loads(pickle.dumps(made))
        assert _props(again) == ["cls"] and again.invoke({"cls": "x"}) == "sync x"


def test_methods_and_classmethods_stay_bound() -> None:
    assert _props(Geo.method) == ["x"] and Geo().method.invoke({"x": 1}) == "Geo 1"
    assert _props(Geo.kind) == ["x"] and Geo.kind.invoke({"x": 2}) == "Geo 2"
    assert _props(tool(K.plain)) == ["x"]
    assert _props(tool(K().plain)) == ["x"] and tool(K().plain).invoke({"x": 3}) == "plain 3"


def test_a_class_local_to_a_function() -> None:
    class Local:
        @staticmethod
        @tool
        def label(cls: str) -> str:
            """Echo."""
            return f"local {cls}"

        @tool
        def method(self, x: int) -> int:
            """A method."""
            return x

    assert _props(Local.label) == ["cls"] and Local.label.invoke({"cls": "x"}) == "local x"
    assert _props(Local.method) == ["x"] and Local().method.invoke({"x": 4}) == 4
