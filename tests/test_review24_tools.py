"""Review 24, defining and running tools: a wrapped docstring summary stays one paragraph (finding 3); non-finite
numbers in results are written recognisably (finding 4); ``*args``/``**kwargs``, a docstring entry for no
parameter and a name Gemini refuses are warned about at definition time (finding 5); an unbound method tool says
to call it on an instance (finding 8)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import warnings

import pytest
from pydantic import BaseModel

from toolwire import Agent, AIMessage, Tool, ToolExecutor, tool
from toolwire.errors import SchemaError, ToolDefinitionWarning, UserError
from toolwire.messages import tool_call
from toolwire.results import bounded_content, result_to_content
from toolwire.testing import ScriptedChatModel

# -- finding 3: a summary wrapped over two lines ----------------------------------------------------------------


def test_a_wrapped_summary_is_one_paragraph() -> None:
    @tool
    def forecast(days: int) -> str:
        """Multi-line summary that
        spans lines.

        Args:
            days: how many days.
        """
        return ""

    assert forecast.description == "Multi-line summary that\nspans lines."
    assert forecast.args["days"]["description"] == "how many days."


def test_a_wrapped_summary_then_a_paragraph_keeps_the_blank_line_between_them() -> None:
    def forecast(days: int) -> str:
        """Multi-line summary that
        spans lines.

        A second paragraph
        on two lines.

        :param days: how many days.
        """
        return ""

    made = Tool.from_function(forecast)
    assert made.description == "Multi-line summary that\nspans lines.\n\nA second paragraph\non two lines."
    assert made.args["days"]["description"] == "how many days."


def test_a_one_line_summary_and_a_paragraph_are_unchanged() -> None:
    @tool
    def forecast(days: int) -> str:
        """Forecast the weather.

        Uses the national service.

        Args:
            days: how many days.
        """
        return ""

    assert forecast.description == "Forecast the weather.\n\nUses the national service."


# -- finding 4: NaN and infinities in results -------------------------------------------------------------------


@dataclasses.dataclass
class _Point:
    x: float


class _Reading(BaseModel):
    value: float
    note: str | None = None


def test_non_finite_numbers_are_written_by_name() -> None:
    assert result_to_content(float("inf")) == '"Infinity"'
    assert result_to_content(float("-inf")) == '"-Infinity"'
    assert result_to_content(float("nan")) == '"NaN"'
    assert result_to_content({"a": float("nan")}) == '{"a": "NaN"}'
    assert json.loads(result_to_content([1.5, float("inf"), None])) == [1.5, "Infinity", None]  # strict JSON
    assert result_to_content([_Point(float("nan"))]) == '[{"x": "NaN"}]'
    assert json.loads(result_to_content(_Reading(value=float("-inf")))) == {"value": "-Infinity", "note": None}
    assert result_to_content(_Reading(value=2.0)) == '{"value":2.0,"note":null}'  # finite: as pydantic writes it
    big = bounded_content([_Point(float("inf"))] * 6000, None)
    assert isinstance(big, str) and json.loads(big)[:2] == [{"x": "Infinity"}, {"x": "Infinity"}]


def test_a_tool_returning_infinity_gives_a_result_the_model_can_read() -> None:
    @tool
    def ratio(a: float, b: float) -> float:
        """Divide a by b."""
        return a / b if b else float("inf")

    [result] = ToolExecutor([ratio]).execute(AIMessage("", tool_calls=[tool_call("ratio", {"a": 1, "b": 0}, "r")]))
    assert (result.status, result.content) == ("success", '"Infinity"')
    message = ratio.invoke(tool_call("ratio", {"a": 1, "b": 0}, "r2"))
    assert message.content == '"Infinity"'


# -- finding 5: warnings at definition time ---------------------------------------------------------------------


def _definition_warnings(make: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make()  # type: ignore[operator]
    return [str(w.message) for w in caught if issubclass(w.category, ToolDefinitionWarning)]


def test_var_args_are_warned_about_once_with_the_users_line() -> None:
    def make() -> Tool:
        @tool
        def search(query: str, *args: str, **options: str) -> str:
            """Search."""
            return query

        return search

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = make()
    found = [w for w in caught if issubclass(w.category, ToolDefinitionWarning)]
    assert len(found) == 1 and found[0].filename == __file__
    assert "takes *args and **options" in str(found[0].message) and "the model can never pass them" in str(
        found[0].message)
    assert list(made.args) == ["query"]


def test_a_docstring_entry_for_no_parameter_is_warned_about() -> None:
    def make() -> None:
        @tool
        def weather(days: int) -> str:
            """Weather for some days.

            Args:
                dayz: how many days.
            """
            return ""

    [message] = _definition_warnings(make)
    assert "describes 'dayz', which the function does not take (its parameters: days)" in message


def test_documented_var_args_and_partial_keywords_are_not_typos() -> None:
    def base(days: int, unit: str, *rest: int) -> str:
        """Weather.

        Args:
            days: how many days.
            unit: the unit.
            *rest: more.
        """
        return ""

    assert _definition_warnings(lambda: Tool.from_function(base, name="w")) == [
        "Tool 'w' takes *rest, which are left out of its schema, so the model can never pass them: give the "
        "function a named parameter for each value the model should send."]

    def fixed(days: int, unit: str) -> str:
        """Weather.

        Args:
            days: how many days.
            unit: the unit.
        """
        return ""

    made: list[Tool] = []
    assert _definition_warnings(lambda: made.append(Tool.from_function(functools.partial(fixed, unit="C"),
                                                                       name="w"))) == []
    assert list(made[0].args) == ["days"]


def test_a_clean_tool_gives_no_warning() -> None:
    def make() -> None:
        @tool
        def weather(days: int) -> str:
            """Weather for some days.

            Args:
                days: how many days.
            """
            return ""

        class Svc:
            @tool
            def lookup(self, key: str) -> str:
                """Look up.

                Args:
                    key: the key.
                """
                return key

    assert _definition_warnings(make) == []


@pytest.mark.parametrize("name", ["1abc", "-x", "9"])
def test_a_name_gemini_refuses_is_warned_about(name: str) -> None:
    def make() -> None:
        @tool(name)
        def f() -> str:
            """F."""
            return ""

    [message] = _definition_warnings(make)
    assert f"Tool name {name!r} does not start with a letter or '_', so Gemini refuses it" in message


def test_names_every_provider_takes_give_no_warning_and_bad_names_stay_errors() -> None:
    for name in ("_x", "get_weather", "a-b", "A1"):
        assert _definition_warnings(functools.partial(Tool.from_function, _doc, name=name)) == []
    with pytest.raises(SchemaError, match="is not allowed"):
        Tool.from_function(_doc, name="a.b")


def _doc() -> str:
    """Documented."""
    return ""


# -- finding 8: a method tool read from its class ---------------------------------------------------------------


class Svc:
    def __init__(self, factor: int = 3) -> None:
        self.factor = factor

    @tool
    def scale(self, x: int) -> int:
        """Scale x.

        Args:
            x: the number.
        """
        return x * self.factor


def test_an_unbound_method_tool_says_to_use_an_instance() -> None:
    with pytest.raises(UserError, match=r"Tool 'scale' is a method of Svc: call it on an instance, such as "
                                        r"Svc\(\)\.scale\.invoke\(\.\.\.\)"):
        Svc.scale.invoke({"x": 1})
    with pytest.raises(UserError, match="call it on an instance"):
        asyncio.run(Svc.scale.ainvoke({"x": 1}))
    message = Svc.scale.invoke(tool_call("scale", {"x": 1}, "c1"))
    assert message.status == "error" and "call it on an instance" in message.text and "self" not in message.text
    assert Svc().scale.invoke({"x": 2}) == 6 and Svc(5).scale.invoke(tool_call("scale", {"x": 2}, "c2")).text == "10"


def test_the_executor_and_the_agent_refuse_an_unbound_method_tool_clearly() -> None:
    # review 24 had every call answered with this error; review 83: the model cannot act on it, so the executor
    # and the Agent refuse the tool when they are made, with the same advice for the programmer
    with pytest.raises(UserError, match="call it on an instance"):
        ToolExecutor([Svc.scale])
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("scale", {"x": 1}, "c1")]), "ok"])
    with pytest.raises(UserError, match="call it on an instance"):
        Agent(model, [Svc.scale])


def test_a_plain_function_whose_first_parameter_is_self_is_not_a_method() -> None:
    def echo(self: str) -> str:
        """Echo.

        Args:
            self: the text.
        """
        return self

    made = Tool.from_function(echo)
    assert made.invoke({"self": "hi"}) == "hi"
