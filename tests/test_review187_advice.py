"""Review 187 #4: the refusal of a class as ``response_format`` gives advice that works on the model it was given to:
on OpenAI Chat Completions ``with_structured_output(Model)`` or a JSON Schema dict; on the Responses API (whose format
is ``text.format``), Anthropic and Gemini (which have no ``response_format``) ``with_structured_output(Model)`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire.errors import UserError
from toolwire.models import ChatAnthropic, ChatGoogleGenAI, ChatOpenAI
from toolwire.testing import ScriptedChatModel

_URL = "http://127.0.0.1:9"  # nothing listens: a request would fail, and none is made


class Addr(BaseModel):
    """An address."""

    city: str


def _openai(**kwargs: Any) -> Any:
    return ChatOpenAI("gpt-4o", api_key="sk-test", base_url=_URL + "/v1", compatible=False, max_retries=0, **kwargs)


def _responses(**kwargs: Any) -> Any:
    return _openai(use_responses_api=True, **kwargs)


def _anthropic(**kwargs: Any) -> Any:
    return ChatAnthropic("claude-sonnet-4-5", api_key="sk-ant-test", base_url=_URL, max_retries=0, **kwargs)


def _gemini(**kwargs: Any) -> Any:
    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test", base_url=_URL, max_retries=0, **kwargs)


_ELSEWHERE: list[Callable[..., Any]] = [_responses, _anthropic, _gemini]


def _refusals(make: Callable[..., Any]) -> list[str]:
    """The refusal given at a call, at bind and in model_kwargs."""
    texts = []
    for attempt in (lambda: make().invoke("x", response_format=Addr), lambda: make().bind(response_format=Addr),
                    lambda: make(model_kwargs={"response_format": Addr})):
        with pytest.raises(UserError) as info:
            attempt()
        texts.append(str(info.value))
    return texts


def test_chat_completions_offers_a_json_schema_dict_too() -> None:
    for text in _refusals(_openai):
        assert "with_structured_output(Addr)" in text and "a JSON Schema dict" in text
        assert "'json_schema'" in text


@pytest.mark.parametrize("make", _ELSEWHERE, ids=["responses", "anthropic", "gemini"])
def test_other_apis_say_with_structured_output_only(make: Callable[..., Any]) -> None:
    for text in _refusals(make):
        assert "with_structured_output(Addr)" in text
        assert "JSON Schema dict" not in text and "json_schema" not in text
        assert text.endswith("to get the answer as Addr.")


def test_the_scripted_model_says_with_structured_output_only() -> None:
    with pytest.raises(UserError) as info:
        ScriptedChatModel([]).invoke("x", response_format=Addr)
    assert "with_structured_output(Addr)" in str(info.value) and "JSON Schema dict" not in str(info.value)
