"""``@tool`` above ``@staticmethod`` whose first parameter is named ``cls`` or ``self``: it is an argument the model
gives, never the class or instance (review 181 #4; under another decorator too, which e03b1f0 had made bind)."""

from __future__ import annotations

import functools
import pickle
from typing import Any

from toolwire import StructuredTool, tool
from toolwire._tool_pickle import rebuild_tool
from toolwire.tools import Tool


def _logged(func: Any) -> Any:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


class Labels:
    @tool
    @staticmethod
    def describe(cls: str) -> str:
        """Describe a class label.

        Args:
            cls: the label.
        """
        return f"label {cls}"

    @tool
    @staticmethod
    @_logged
    def describe2(self: str, n: int = 1) -> str:
        """Describe a label n times."""
        return " ".join([self] * n)

    @tool
    @classmethod
    def kind(cls, x: int) -> str:
        """The class's name and x."""
        return f"{cls.__name__} {x}"


def test_the_first_parameter_is_published_and_passed() -> None:
    for made in (Labels.describe, Labels().describe):
        assert list(made.parameters["properties"]) == ["cls"]
        assert made.invoke({"cls": "cat"}) == "label cat"
    assert list(Labels.describe2.parameters["properties"]) == ["self", "n"]
    assert Labels().describe2.invoke({"self": "dog", "n": 2}) == "dog dog"
    answer = Labels.describe.invoke({"name": "describe", "args": {"cls": "cat"}, "id": "c1", "type": "tool_call"})
    assert answer.content == "label cat"


def test_a_classmethod_is_still_bound() -> None:
    assert list(Labels.kind.parameters["properties"]) == ["x"]
    assert Labels.kind.invoke({"x": 3}) == "Labels 3"


def test_pickled_again_it_stays_a_staticmethod_tool() -> None:
    again = pickle.loads(pickle.dumps(Labels.describe))
    assert again.invoke({"cls": "cat"}) == "label cat"
    made = Labels.describe
    remade = rebuild_tool(Tool, "function", made.func, made._source[1], made.name, made.description, {})
    assert list(remade.parameters["properties"]) == ["cls"] and remade.invoke({"cls": "cat"}) == "label cat"


def test_a_structured_tool_made_from_a_function_still_pickles() -> None:
    made = StructuredTool.from_function(func=_module_level, name="double", description="Double x.")
    assert pickle.loads(pickle.dumps(made)).invoke({"x": 2}) == 4


def _module_level(x: int) -> int:
    return 2 * x
