"""Review 302 #3: an ``mcp_approval_response`` block (the answer to a Responses API ``mcp_approval_request``) sent
anywhere but OpenAI's Responses API is refused with one sentence that says only that API takes it and to leave it
out, not "write it as a text, image or file block"; the embedded model refuses it the same way rather than reading it
as JSON text. The Responses API still sends it as its own input item."""

from __future__ import annotations

import pytest

from toolwire import HumanMessage, SystemMessage
from toolwire.errors import UserError
from toolwire.messages import AIMessage
from toolwire.models._text_content import check_readable
from toolwire.models.lowering import anthropic, gemini, openai

ANSWER = {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}
REQUEST = {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "d", "name": "ask", "arguments": "{}"}


def _conversation(last: HumanMessage) -> list:
    return [HumanMessage("go"), AIMessage("", provider_data={"openai": {"output": [REQUEST]}}), last]


def _refusal(lower: object, content: list) -> str:
    with pytest.raises(UserError) as refused:
        lower(_conversation(HumanMessage(content)))  # type: ignore[operator]
    return str(refused.value)


def _says_only_responses_takes_it(said: str) -> None:
    assert "mcp_approval_response" in said and "only by OpenAI's Responses API" in said
    assert "use_responses_api=True" in said and "leave it out" in said
    assert "image or file block" not in said and "base64" not in said
    assert said.count(". ") == 0 and said.endswith(".")  # one sentence


@pytest.mark.parametrize("lower", [openai.lower_messages, anthropic.lower_messages, gemini.lower_messages],
                         ids=["chat", "anthropic", "gemini"])
@pytest.mark.parametrize("content", [[ANSWER], [{"type": "text", "text": "yes"}, ANSWER]], ids=["alone", "with text"])
def test_another_api_refuses_it_saying_only_the_responses_api_takes_it(lower: object, content: list) -> None:
    _says_only_responses_takes_it(_refusal(lower, content))


@pytest.mark.parametrize("message", [HumanMessage([ANSWER]), SystemMessage([{"type": "text", "text": "x"}, ANSWER])])
def test_the_embedded_model_refuses_it_the_same_way(message: HumanMessage) -> None:
    with pytest.raises(UserError) as refused:
        check_readable([HumanMessage("go"), message], "smollm2-135m")
    _says_only_responses_takes_it(str(refused.value))


def test_the_responses_api_still_sends_it_as_its_own_item() -> None:
    items = openai.lower_responses_messages(_conversation(HumanMessage([ANSWER])))
    assert items[-1] == ANSWER and items[-2] == REQUEST


def test_other_unknown_blocks_keep_their_advice() -> None:
    said = _refusal(openai.lower_messages, [{"type": "weird", "x": 1}])
    assert "write it as a text, image or file block" in said
