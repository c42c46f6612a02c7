"""Review 55 (a fresh code review of the twenty-fourth session's changes; no model loaded):

1. ``group_messages`` renumbered every turn for each result group even when the group only went at the end.
2. ``Tool.ainvoke`` did not get the untyped-tool-call hint; the hint also fired for a tool whose own parameters
   are named ``name`` and ``args``.
3. A ``pydantic.v1`` model with a described nested model wrote an ``allOf`` strict mode refuses.
4. An option a provider subclass passed on to ``SDKChatModel`` was dropped without a word.
5. The ``StrictSchemaWarning`` came again when the Agent bound the tools a user had bound with ``strict=True``.
6. Structured output dropped a ``null`` for a JSON Schema dict, whose plain-dict reader applies no default.
   (Review 96 #4 reversed this for a ``null`` the schema refuses at a key it does not require: dropped, so that the
   answer fits the schema.)
"""

from __future__ import annotations

import asyncio
import warnings

import pytest

from toolwire import AIMessage, ToolValidationError, tool
from toolwire.messages import HumanMessage, ToolMessage, tool_call
from toolwire.models.lowering._common import group_messages
from toolwire.models.lowering.openai import StrictSchemaWarning
from toolwire.testing import ScriptedChatModel


@tool
def get_weather(city: str) -> str:
    """Get the weather.

    Args:
        city: the city.
    """
    return city


@tool
def register(name: str, args: int) -> str:
    """Register a name.

    Args:
        name: the name.
        args: how many.
    """
    return name


def test_results_right_after_their_turns_are_grouped_without_renumbering() -> None:
    messages: list = [HumanMessage("q")]
    for i in range(3):
        messages += [AIMessage("", tool_calls=[tool_call("t", {}, f"c{i}")]), ToolMessage("r", tool_call_id=f"c{i}")]
    out = group_messages(messages)
    assert [type(m).__name__ if not isinstance(m, list) else [r.tool_call_id for r in m] for m in out] == [
        "HumanMessage", "AIMessage", ["c0"], "AIMessage", ["c1"], "AIMessage", ["c2"]]


def test_the_untyped_call_hint_on_both_paths_and_only_where_it_applies() -> None:
    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}
    hint = 'To pass a tool call rather than arguments, add "type": "tool_call" to it.'
    for run in (lambda: get_weather.invoke(call), lambda: asyncio.run(get_weather.ainvoke(call))):
        with pytest.raises(ToolValidationError) as info:
            run()
        assert str(info.value).endswith(hint)
    with pytest.raises(ToolValidationError) as info:
        register.invoke({"name": "x", "args": "many"})  # its own arguments: no hint
    assert "tool_call" not in str(info.value)


with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # (pydantic.v1 warns on newer Pythons)
    from pydantic import v1

    class Address(v1.BaseModel):  # (module level: v1 reads postponed annotations in the module's namespace)
        city: str

    class Person(v1.BaseModel):
        """A person."""

        home: Address = v1.Field(..., description="where they live")


def test_a_pydantic_v1_described_nested_model_stays_strict() -> None:
    from toolwire.models.base import to_tool_spec
    from toolwire.models.lowering.openai import convert_to_openai_tool

    spec = to_tool_spec(Person)
    assert spec.parameters["properties"]["home"]["description"] == "where they live"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert convert_to_openai_tool(spec, strict=True)["function"]["strict"] is True


def test_an_option_a_subclass_passes_on_is_refused() -> None:
    from toolwire import UserError
    from toolwire.models import ChatOpenAI

    class Regional(ChatOpenAI):
        def __init__(self, model: str, *, region: str = "eu", **kwargs: object) -> None:
            super().__init__(model, region=region, **kwargs)  # type: ignore[arg-type]

    with pytest.raises(UserError, match=r"^Unknown Regional option 'region': Regional passes it on"):
        Regional("gpt", api_key="k")


def test_the_strict_warning_comes_once_for_a_bound_model_the_agent_binds_again() -> None:
    from toolwire import Agent
    from toolwire.models import ChatGoogleGenAI

    pytest.importorskip("google.genai")  # (a provider without strict mode: Anthropic has one since session 38)
    with pytest.warns(StrictSchemaWarning):
        bound = ChatGoogleGenAI("gemini", api_key="k").bind_tools([], strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Agent(bound, [get_weather])


def test_a_json_schema_answer_keeps_the_null_its_schema_allows() -> None:
    # (review 96 #4 changed this: a null the schema refuses at a key it does not require is dropped, so that the
    # answer fits the schema; only a null the schema allows, or one at a required key, is kept as sent)
    schema = {"title": "Answer", "type": "object", "required": ["temp"],
              "properties": {"unit": {"type": "string", "default": "C"}, "temp": {"type": "number"},
                             "note": {"type": ["string", "null"]}}}
    sent = {"temp": 3, "unit": None, "note": None}
    model = ScriptedChatModel([AIMessage("", tool_calls=[tool_call("Answer", sent, "c")])])
    assert model.with_structured_output(schema).invoke("q") == {"temp": 3, "note": None}
