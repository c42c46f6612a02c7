"""Review 242 #1, #3, #4, #5, #7: LangChain tools and structured output word a tagged union's errors as a toolwire
tool does, leave a non-finite default out of the published schema as a function tool does, and a request that cannot
be written as JSON is one error that says what in it is not JSON, not retried and not blamed on the server."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any, Literal

import pytest
from pydantic import BaseModel, model_validator

from toolwire.errors import ProviderError

# -- #7: a request that cannot be encoded -------------------------------------------------------------------------

_INF_TOOL = {"type": "function", "function": {"name": "scale", "description": "Scale a value.", "parameters": {
    "type": "object", "properties": {"factor": {"type": "number", "maximum": math.inf}}, "required": ["factor"]}}}


def test_unencodable_openai_request_is_not_retried_nor_blamed_on_the_server() -> None:
    from toolwire.models.openai import ChatOpenAI

    # (port 9, discard: nothing listens; the request is refused before a connection is tried)
    model = ChatOpenAI(model="gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="sk-test", max_retries=2)
    with pytest.raises(ProviderError) as caught:
        model.bind_tools([_INF_TOOL]).invoke("Scale by 2.")
    error = caught.value
    text = str(error)
    assert error.retryable is False
    assert "gave up after" not in text and "base_url" not in text and "proxy" not in text
    assert "not an OpenAI reply" not in text
    assert "tools[0].function.parameters.properties.factor.maximum" in text and "'scale'" in text
    assert "inf" in text and "nothing was sent" in text


def test_unencodable_anthropic_request_is_not_retried() -> None:
    pytest.importorskip("anthropic")
    from toolwire.models.anthropic import ChatAnthropic

    model = ChatAnthropic(model="claude-3-5-haiku-latest", base_url="http://127.0.0.1:9", api_key="sk-ant-test",
                          max_retries=2)
    with pytest.raises(ProviderError) as caught:
        model.bind_tools([_INF_TOOL]).invoke("Scale by 2.")
    assert caught.value.retryable is False
    assert "factor.maximum" in str(caught.value) and "gave up after" not in str(caught.value)


# -- #5: with_structured_output(dataclass) and its non-finite defaults --------------------------------------------

def test_structured_dataclass_leaves_non_finite_defaults_out() -> None:
    import dataclasses
    import json
    from decimal import Decimal

    from toolwire.models.structured import output_tool

    @dataclasses.dataclass
    class Range:
        low: float = 0.0
        high: Decimal = Decimal("Infinity")

    @dataclasses.dataclass
    class Quote:
        """A price quote."""

        item: str
        price: Decimal = Decimal("NaN")
        ratio: float = math.inf
        count: int = 2
        span: Range = dataclasses.field(default_factory=Range)

    spec, read = output_tool(Quote)
    json.dumps(spec.parameters, allow_nan=False)  # (sendable)
    props = spec.parameters["properties"]
    assert "default" not in props["price"] and "default" not in props["ratio"]
    assert props["count"]["default"] == 2  # (a finite default is still published)
    assert "NaN" not in json.dumps(spec.parameters) and "Infinity" not in json.dumps(spec.parameters)
    value = read({"item": "pen"})
    assert value.price.is_nan() and value.ratio == math.inf and value.count == 2


# -- #4: a LangChain tool's non-finite defaults ---------------------------------------------------------------------

class _Limits(BaseModel):
    ceiling: Decimal = Decimal("Infinity")
    floor: float = -math.inf
    step: int = 1


def _price(item: str, amount: Decimal = Decimal("NaN"), ratio: float = math.inf, note: str = "NaN",
           limits: _Limits | None = None) -> str:
    """Price an item."""
    return f"{item} {amount} {ratio} {note}"


def test_langchain_tool_leaves_non_finite_defaults_out() -> None:
    lc_tools = pytest.importorskip("langchain_core.tools")
    from toolwire.interop.langchain import from_langchain_tool

    tool = from_langchain_tool(lc_tools.tool(_price))
    text = json.dumps(tool.spec.parameters, allow_nan=False)  # (sendable)
    props = tool.spec.parameters["properties"]
    assert "default" not in props["amount"] and "default" not in props["ratio"]
    assert props["note"]["default"] == "NaN"  # (a string default that reads "NaN" is the default)
    assert "Infinity" not in text and text.count('"default": "NaN"') == 1
    assert '"default": 1' in text  # (the nested model's finite default stays)
    answer = tool.invoke({"type": "tool_call", "name": "_price", "id": "c", "args": {"item": "pen"}})
    assert answer.content == "pen NaN inf NaN"


# -- #1: a LangChain tool's tagged-union errors ---------------------------------------------------------------------

class _Add(BaseModel):
    op: Literal["add"]
    text: str


class _Delete(BaseModel):
    op: Literal["delete"]
    id: int


def _edit(step: _Add | _Delete) -> str:
    """Edit the document."""
    return "ok"


class _EditArgs(BaseModel):
    step: _Add | _Delete

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:  # (a validator of its own: checked against this model, not tool_call_schema)
        return data


_BAD_STEPS = ({"op": "add", "text": "x", "id": 3}, {"op": "delete", "id": "seven"})


@pytest.mark.parametrize("step", _BAD_STEPS)
def test_langchain_tool_tagged_union_error_is_a_toolwire_tools(step: dict[str, Any]) -> None:
    lc_tools = pytest.importorskip("langchain_core.tools")
    from toolwire import Tool
    from toolwire.interop.langchain import from_langchain_tool

    call = {"type": "tool_call", "name": "_edit", "id": "c", "args": {"step": step}}
    own = Tool.from_function(_edit).invoke(call).content
    assert own.startswith(f"Error: Invalid arguments for tool '_edit': with op \"{step['op']}\": ")
    assert from_langchain_tool(lc_tools.tool(_edit)).invoke(call).content == own
    with_validator = lc_tools.StructuredTool.from_function(_edit, args_schema=_EditArgs)
    assert from_langchain_tool(with_validator).invoke(call).content == own


# -- #3: structured output's tagged-union errors --------------------------------------------------------------------

class _Plan(BaseModel):
    """A plan."""

    steps: list[_Add | _Delete]


def _plan(steps: list[_Add | _Delete]) -> str:
    """Plan."""
    return "ok"


@pytest.mark.parametrize("step", [{"op": "add", "text": 5}, {"op": "delete", "id": "seven"}])
def test_structured_output_tagged_union_error_is_a_toolwire_tools(step: dict[str, Any]) -> None:
    from toolwire import AIMessage, Tool
    from toolwire.errors import ToolCallParseError
    from toolwire.messages import tool_call
    from toolwire.testing import ScriptedChatModel

    own = Tool.from_function(_plan).invoke({"type": "tool_call", "name": "_plan", "id": "c",
                                            "args": {"steps": [step]}}).content
    said = own.removeprefix("Error: Invalid arguments for tool '_plan': ")
    assert said.startswith(f"with op \"{step['op']}\": 'steps.0.")
    bad = AIMessage("", tool_calls=[tool_call("_Plan", {"steps": [step]}, "c1")])
    good = AIMessage("", tool_calls=[tool_call("_Plan", {"steps": [{"op": "delete", "id": 7}]}, "c2")])
    model = ScriptedChatModel([bad, good])
    assert model.with_structured_output(_Plan, retries=1).invoke("Plan it.").steps[0] == _Delete(op="delete", id=7)
    feedback = model.requests[-1].messages[-1].content
    assert feedback.startswith(f"_Plan was not accepted: {said} ")
    with pytest.raises(ToolCallParseError) as caught:
        ScriptedChatModel([bad]).with_structured_output(_Plan).invoke("Plan it.")
    assert str(caught.value) == f"The model's _Plan does not fit the schema: {said}"
