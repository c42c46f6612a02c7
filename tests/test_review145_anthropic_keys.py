"""Review 145 #2: Anthropic refuses a whole request when a key of a tool's top-level ``input_schema.properties`` does
not match ``^[a-zA-Z0-9_.-]{1,64}$`` (legal Python such as ``número_de_dias``, an MCP tool's ``filter[id]``), so
toolwire sent it and every request failed with a 400 naming no parameter. It is now refused before anything is
sent, with an error naming the tool, the parameter and a name that fits."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import Field

from providers.scripted_http import Answer, ScriptedServer
from toolwire import tool
from toolwire.errors import UserError
from toolwire.messages import HumanMessage
from toolwire.models import ChatAnthropic
from toolwire.models.base import ChatRequest, to_tool_spec
from toolwire.models.lowering.anthropic import convert_to_anthropic_tool, lower_request


@tool
def previsao(cidade: str, número_de_dias: int = 1) -> str:
    """Previsão do tempo de uma cidade.

    Args:
        cidade: A cidade.
        número_de_dias: Quantos dias de previsão.
    """
    return f"{cidade}: {número_de_dias}"


@tool
def previsao_alias(cidade: str, número_de_dias: Annotated[int, Field(alias="numero_de_dias")] = 1) -> str:
    """Previsão do tempo de uma cidade.

    Args:
        cidade: A cidade.
        número_de_dias: Quantos dias de previsão.
    """
    return f"{cidade}: {número_de_dias}"


def _dict_tool(*keys: str, nested: dict[str, Any] | None = None) -> dict[str, Any]:
    properties: dict[str, Any] = {key: {"type": "string"} for key in keys}
    if nested is not None:
        properties["inner"] = nested
    return {"name": "lookup", "description": "Look up.", "input_schema": {"type": "object", "properties": properties}}


def test_a_non_ascii_parameter_name_is_refused_with_the_tool_the_key_and_a_name_that_fits() -> None:
    with pytest.raises(UserError) as info:
        convert_to_anthropic_tool(previsao)
    text = str(info.value)
    assert "'previsao'" in text and "'número_de_dias'" in text
    assert "Field(alias='numero_de_dias')" in text and "rename the parameter" in text


@pytest.mark.parametrize("key", ["filter[id]", "$top", "my field", "x" * 65, "@microsoft.graph.conflict", ""])
def test_keys_outside_the_rule_are_refused(key: str) -> None:
    with pytest.raises(UserError, match="parameter name"):
        convert_to_anthropic_tool(_dict_tool(key))


def test_keys_inside_the_rule_and_nested_keys_pass_unchanged() -> None:
    keys = ("a", "filter.id", "page-size", "snake_case_9", "y" * 64)
    nested = {"type": "object", "properties": {"número": {"type": "string"}}}  # (the API checks the top level only)
    out = convert_to_anthropic_tool(_dict_tool(*keys, nested=nested))
    assert list(out["input_schema"]["properties"]) == [*keys, "inner"]
    assert list(out["input_schema"]["properties"]["inner"]["properties"]) == ["número"]


def test_the_alias_the_error_advises_is_sent_and_strict_is_checked_too() -> None:
    assert list(convert_to_anthropic_tool(previsao_alias)["input_schema"]["properties"]) == ["cidade", "numero_de_dias"]
    with pytest.raises(UserError, match="número_de_dias"):
        convert_to_anthropic_tool(previsao, strict=True)


def test_a_tools_option_in_anthropics_form_is_checked_too() -> None:
    request = ChatRequest(messages=[HumanMessage("hi")], tools=[to_tool_spec(previsao_alias)],
                          options={"tools": [_dict_tool("filter[id]")]})
    with pytest.raises(UserError, match=r"'lookup'.*'filter\[id\]'"):
        lower_request(request, "claude-sonnet-4-6")


def test_chat_anthropic_refuses_before_sending_anything() -> None:
    with ScriptedServer() as server:
        server.push(Answer(200, {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                                 "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                                 "usage": {"input_tokens": 1, "output_tokens": 1}}))
        model = ChatAnthropic("claude-sonnet-4-6", api_key="sk-ant-test-key", base_url=server.url, max_retries=0)
        with pytest.raises(UserError, match="número_de_dias"):  # at the bind_tools line
            model.bind_tools([previsao])
        with pytest.raises(UserError, match="número_de_dias"):  # a call's own tools: at the call
            model.invoke("Previsão para Lisboa?", tools=[previsao])
        with pytest.raises(UserError, match="número_de_dias"):
            list(model.stream("Previsão para Lisboa?", tools=[previsao]))
        assert server.requests == []
        assert model.bind_tools([previsao_alias]).invoke("Previsão para Lisboa?").text == "ok"
        assert list(server.requests[0]["tools"][0]["input_schema"]["properties"]) == ["cidade", "numero_de_dias"]


def test_a_top_level_union_is_checked_at_bind_tools_as_it_is_sent() -> None:
    # review 151 #7: the keys of a top-level anyOf's branches, folded into one object when sent, went unchecked there
    union = {"name": "lookup", "description": "Look up an order.", "parameters": {"anyOf": [
        {"type": "object", "properties": {"número": {"type": "integer"}}, "required": ["número"]},
        {"type": "object", "properties": {"nombre": {"type": "string"}}, "required": ["nombre"]}]}}
    model = ChatAnthropic("claude-sonnet-4-6", api_key="sk-ant-test-key")
    with pytest.raises(UserError, match="número"):
        model.bind_tools([union])
    union["parameters"]["anyOf"][0]["properties"] = {"numero": {"type": "integer"}}
    union["parameters"]["anyOf"][0]["required"] = ["numero"]
    model.bind_tools([union])
