"""Review 294 #3: ``ChatGoogleGenAI.bind_tools`` accepted a tool name Gemini refuses (``1abc``, ``2fa_check``: a
letter or ``_`` first), and the error came only when the first request was built, so an ``Agent`` on the model was made
without complaint. The name is now refused at bind time (so when the Agent is made), with the sentence the request
gives; other providers still take such names. The tests below failed before the fix.
"""

from __future__ import annotations

import warnings

import pytest

from toolwire import Agent, tool
from toolwire.errors import SchemaError
from toolwire.models.google import ChatGoogleGenAI
from toolwire.models.lowering.gemini import convert_to_gemini_tool
from toolwire.models.openai import ChatOpenAI


def _gemini() -> ChatGoogleGenAI:
    return ChatGoogleGenAI(model="gemini-2.5-flash", api_key="x", base_url="http://127.0.0.1:9", max_retries=0)


def _dict_tool(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": "d",
                                             "parameters": {"type": "object", "properties": {}}}}


def _two_fa() -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the ToolDefinitionWarning that Gemini refuses the name)

        @tool("2fa_check")
        def check(code: str) -> str:
            """Check a 2FA code."""
            return "ok"
    return check


def test_bind_tools_refuses_a_tool_dict_name_gemini_refuses_with_the_request_sentence() -> None:
    with pytest.raises(SchemaError) as at_request:
        convert_to_gemini_tool(_dict_tool("1abc"))
    with pytest.raises(SchemaError) as at_bind:
        _gemini().bind_tools([_dict_tool("1abc")])
    assert str(at_bind.value) == str(at_request.value)
    assert str(at_bind.value).startswith("Tool name '1abc' is not valid for Gemini: start with a letter or '_'")


def test_bind_tools_and_an_agent_refuse_a_decorated_tool_gemini_refuses() -> None:
    check = _two_fa()
    with pytest.raises(SchemaError, match="Tool name '2fa_check' is not valid for Gemini"):
        _gemini().bind_tools([check])
    with pytest.raises(SchemaError, match="Tool name '2fa_check' is not valid for Gemini"):
        Agent(_gemini(), [check])


def test_names_gemini_takes_and_server_tools_still_bind() -> None:
    bound = _gemini().bind_tools([_dict_tool("_a-b_c"), _dict_tool("x" * 64), {"google_search": {}}])
    assert [t.name for t in bound.tools][:2] == ["_a-b_c", "x" * 64]


def test_other_providers_still_take_the_name() -> None:
    bound = ChatOpenAI(model="gpt-4o", api_key="sk-x", base_url="http://127.0.0.1:9/v1").bind_tools([_two_fa()])
    assert [t.name for t in bound.tools] == ["2fa_check"]
