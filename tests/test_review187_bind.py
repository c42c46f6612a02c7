"""Review 187 #3: ``bind_tools`` refuses OpenAI's whole ``response_format`` dict, ``{"type": "json_schema",
"json_schema": {...}}``, with the sentence its bare ``{"name", "schema"}`` form gets, on every provider and in an
Agent, before any request (it was taken for a built-in tool: ChatOpenAI advised the Responses API, which, like
Anthropic, was then sent it as a tool and answered 400).
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import Agent
from toolwire.errors import SchemaError
from toolwire.models import ChatAnthropic, ChatGoogleGenAI, ChatOpenAI
from toolwire.models.base import to_tool
from toolwire.testing import ScriptedChatModel

_CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
_BARE = {"name": "Answer", "schema": _CITY, "strict": True}
_WRAPPED = {"type": "json_schema", "json_schema": _BARE}
_URL = "http://127.0.0.1:9"  # nothing listens: a request would fail, and none is made


def _models() -> list[Any]:
    return [ChatOpenAI("gpt-4o", api_key="sk-test", base_url=_URL + "/v1", compatible=False, max_retries=0),
            ChatOpenAI("gpt-4o", api_key="sk-test", base_url=_URL + "/v1", compatible=False, max_retries=0,
                       use_responses_api=True),
            ChatAnthropic("claude-sonnet-4-5", api_key="sk-ant-test", base_url=_URL, max_retries=0),
            ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test", base_url=_URL, max_retries=0),
            ScriptedChatModel([])]


def _bare_refusal() -> str:
    with pytest.raises(SchemaError) as info:
        to_tool(_BARE)
    return str(info.value)


@pytest.mark.parametrize("index", range(5))
def test_bind_tools_refuses_the_whole_response_format_dict_with_the_bare_forms_sentence(index: int) -> None:
    model = _models()[index]
    with pytest.raises(SchemaError) as info:
        model.bind_tools([_WRAPPED])
    assert str(info.value) == _bare_refusal()
    assert "'parameters'" in str(info.value) and "with_structured_output" in str(info.value)


def test_an_agent_refuses_it_too() -> None:
    with pytest.raises(SchemaError, match="'parameters'"):
        Agent(ScriptedChatModel([]), tools=[_WRAPPED])


@pytest.mark.parametrize("inner", [{}, {"schema": _CITY}, "Answer", None])
def test_one_without_a_name_is_refused_too(inner: Any) -> None:
    with pytest.raises(SchemaError, match="response_format"):
        to_tool({"type": "json_schema", "json_schema": inner})


def test_with_structured_output_still_takes_it() -> None:
    from toolwire.messages import AIMessage

    model = ScriptedChatModel([AIMessage("", tool_calls=[{"name": "Answer", "args": {"city": "Paris"}, "id": "c"}])])
    assert model.with_structured_output(_WRAPPED).invoke("x") == {"city": "Paris"}
