"""A LangChain tool with a ``handle_validation_error`` keeps toolwire's refusal for what only toolwire refuses (a key
no field declares, which LangChain would drop), and the handler answers what LangChain's own schema refuses (review
181 #1); an aliased field is named in the error as it is validated (review 181 #5)."""

from __future__ import annotations

import pytest

from toolwire import AIMessage, ToolExecutor

lc_tools = pytest.importorskip("langchain_core.tools")
pydantic = pytest.importorskip("pydantic")


def search(query: str, limit: int = 10) -> str:
    """Search the catalogue."""
    return f"{limit} results for {query}"


def _answer(tool: object, args: dict[str, object]) -> tuple[str, str]:
    call = {"name": "search", "args": args, "id": "c1", "type": "tool_call"}
    [message] = ToolExecutor([tool]).execute(AIMessage("", tool_calls=[call]))
    return message.status, message.content


def test_a_misspelled_key_is_refused_with_or_without_a_handler() -> None:
    handled = lc_tools.StructuredTool.from_function(search, handle_validation_error="Check the arguments.")
    status, text = _answer(handled, {"query": "lamps", "limt": 3})
    assert status == "error" and "'limt' is not a parameter of this tool" in text


def test_what_langchain_refuses_is_answered_by_its_handler() -> None:
    handled = lc_tools.StructuredTool.from_function(search, handle_validation_error="Check the arguments.")
    assert _answer(handled, {"query": "lamps", "limit": "many"}) == ("error", "Check the arguments.")
    assert _answer(handled, {"query": "lamps", "limit": 3}) == ("success", "3 results for lamps")


def test_an_aliased_field_is_named_as_it_is_validated() -> None:
    class Route(pydantic.BaseModel):
        origin: str = pydantic.Field(alias="from")
        stops: int = 0

        @pydantic.field_validator("stops")
        @classmethod
        def _not_negative(cls, value: int) -> int:
            return max(value, 0)

    def route(**kwargs: object) -> str:
        return "ok"

    tool = lc_tools.StructuredTool.from_function(route, name="search", description="Plan a route.",
                                                 args_schema=Route)
    status, text = _answer(tool, {"origin": "Oslo"})
    assert status == "error"
    assert text.endswith("Its parameters are: from, stops.")
