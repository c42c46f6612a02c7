"""Review 180 #1, #2: a LangChain tool's own ``args_schema`` validators and config, and its ``handle_validation_error``,
work when toolwire runs the tool as they do when LangChain runs it."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.tools import InjectedToolArg, StructuredTool
from langchain_core.tools import tool as lc_tool
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from toolwire import AIMessage, ToolExecutor
from toolwire.errors import ToolValidationError
from toolwire.interop.langchain import from_langchain_tool


class TagArgs(BaseModel):
    tags: list[str]

    @field_validator("tags", mode="before")
    @classmethod
    def split(cls, value: Any) -> Any:
        return value.split(",") if isinstance(value, str) else value


class Legacy(BaseModel):
    city: str

    @model_validator(mode="before")
    @classmethod
    def old_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "town" in data:
            data = {**data}
            data["city"] = data.pop("town")
        return data


class Positive(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def positive(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("n must be positive")
        return value


class Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")
    q: str


@lc_tool(args_schema=TagArgs)
def tag(tags: list[str]) -> str:
    """Tag the document."""
    return "tagged: " + "|".join(tags)


@lc_tool(args_schema=Legacy)
def weather(city: str) -> str:
    """Weather."""
    return f"sunny in {city}"


@lc_tool(args_schema=Positive)
def count(n: int) -> str:
    """Count."""
    return str(n)


@lc_tool(args_schema=Loose)
def search(q: str) -> str:
    """Search."""
    return f"found {q}"


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "args": args, "id": "c1", "type": "tool_call"}


def _run(tool: Any, args: dict[str, Any]) -> Any:
    return ToolExecutor([tool]).execute(AIMessage("", tool_calls=[_call(tool.name, args)]))[0]


@pytest.mark.parametrize(("tool", "args", "expected"), [
    (tag, {"tags": "a,b"}, "tagged: a|b"),
    (weather, {"town": "Oslo"}, "sunny in Oslo"),
    (search, {"q": "x", "page": 2}, "found x"),  # the model ignores unknown keys itself
])
def test_own_validators_and_config_run(tool: Any, args: dict[str, Any], expected: str) -> None:
    assert tool.invoke(_call(tool.name, args)).content == expected  # as LangChain runs it
    message = _run(tool, args)
    assert (message.status, message.content) == ("success", expected)
    message = asyncio.run(ToolExecutor([tool]).aexecute(AIMessage("", tool_calls=[_call(tool.name, args)])))[0]
    assert (message.status, message.content) == ("success", expected)
    assert from_langchain_tool(tool).invoke(args) == expected


def test_refusals_keep_toolwire_text() -> None:
    message = _run(weather, {"town": "Oslo", "country": "NO"})  # still unknown after the model's validator
    assert message.status == "error" and "'country' is not a parameter of this tool" in message.content
    message = _run(count, {"n": -1})  # the model's own validator refuses: toolwire's text, not a crash
    assert message.status == "error" and "n must be positive" in message.content
    assert message.content.startswith("Error: Invalid arguments for tool 'count'")
    with pytest.raises(ToolValidationError):
        from_langchain_tool(count).invoke({"n": -1})


def test_injected_argument_still_refused() -> None:
    class WithUser(BaseModel):
        city: str
        user_id: Annotated[str, InjectedToolArg]

        @field_validator("city", mode="before")
        @classmethod
        def strip(cls, value: Any) -> Any:
            return value.strip() if isinstance(value, str) else value

    @lc_tool(args_schema=WithUser)
    def where(city: str, user_id: str) -> str:
        """Where."""
        return f"{user_id} in {city}"

    converted = from_langchain_tool(where, injected={"user_id": "bob"})
    assert converted.invoke(_call("where", {"city": " Oslo "})).content == "bob in Oslo"
    message = ToolExecutor([converted]).execute(AIMessage("", tool_calls=[_call("where", {
        "city": "Oslo", "user_id": "eve"})]))[0]
    assert message.status == "error" and "injected" in message.content


def _div(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


@pytest.mark.parametrize("handler", [True, "Pass numbers for a and b.", lambda exc: "Pass numbers for a and b."])
def test_handle_validation_error_answers(handler: Any) -> None:
    tool = StructuredTool.from_function(_div, name="div", handle_validation_error=handler)
    args = {"a": "x", "b": 2}
    expected = tool.invoke(_call("div", args))
    assert expected.status == "error"
    message = _run(tool, args)
    assert (message.status, message.content) == ("error", expected.content)
    message = from_langchain_tool(tool).invoke(_call("div", args))
    assert (message.status, message.content) == ("error", expected.content)
    assert from_langchain_tool(tool).invoke(args) == tool.invoke(args)  # bare arguments: its text, as LangChain's
    message = asyncio.run(ToolExecutor([tool]).aexecute(AIMessage("", tool_calls=[_call("div", args)])))[0]
    assert (message.status, message.content) == ("error", expected.content)


def test_without_handler_toolwire_text() -> None:
    tool = StructuredTool.from_function(_div, name="div")
    message = _run(tool, {"a": "x", "b": 2})
    assert message.status == "error" and message.content.startswith("Error: Invalid arguments for tool 'div'")
    with pytest.raises(ToolValidationError):
        from_langchain_tool(tool).invoke({"a": "x", "b": 2})
