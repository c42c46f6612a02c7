"""Review 277 #1 and #3: ChatOpenAI options a langchain-openai user passes.

#1: ``ChatOpenAI(model="gpt-5-mini", temperature=0)`` sent the temperature, which OpenAI refuses for its reasoning
models (400 "Only the default (1) value is supported"); langchain-openai leaves it out. #3: ``reasoning_effort="low"``
(a langchain-openai constructor field) was refused with a list of options that did not name ``model_kwargs``.
"""

from __future__ import annotations

import warnings

import pytest

from toolwire import HumanMessage
from toolwire.errors import UserError
from toolwire.models import ChatOpenAI
from toolwire.models.base import ChatRequest

pytest.importorskip("openai")

_ASK = ChatRequest(messages=[HumanMessage("hi")])


def _body(model: ChatOpenAI, **options: object) -> dict:
    return model._lower(ChatRequest(messages=[HumanMessage("hi")], options=dict(options)) if options else _ASK)


def _built(*args: object, **kwargs: object) -> tuple[ChatOpenAI, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ChatOpenAI(*args, **kwargs)  # type: ignore[arg-type]
    return model, [str(w.message) for w in caught]


# -- #1: the temperature a reasoning model refuses --------------------------------------------------------------


@pytest.mark.parametrize("name", ["gpt-5-mini", "gpt-5", "o3-mini", "o4-mini", "o1", "ft:o4-mini-2025:org::x"])
def test_reasoning_model_on_openai_leaves_temperature_out_with_a_warning(name: str) -> None:
    model, said = _built(name, api_key="sk-x", temperature=0)
    assert "temperature" not in _body(model)
    assert len(said) == 1 and "temperature=0" in said[0] and "left out" in said[0] and "(1)" in said[0]


def test_azure_is_openai_too() -> None:
    model, said = _built("gpt-5-mini", api_key="k", base_url="https://res.openai.azure.com/openai/v1", temperature=0.2)
    assert "temperature" not in _body(model) and said


def test_gateway_with_openai_rules_too() -> None:
    model, said = _built("gpt-5-mini", api_key="k", base_url="http://127.0.0.1:9/v1", compatible=False, temperature=0)
    assert "temperature" not in _body(model) and said


def test_temperature_1_is_kept_without_a_warning() -> None:
    model, said = _built("gpt-5-mini", api_key="sk-x", temperature=1)
    assert _body(model)["temperature"] == 1 and not said


def test_model_kwargs_temperature_is_left_out_too() -> None:
    model, said = _built("o3", api_key="sk-x", model_kwargs={"temperature": 0})
    assert "temperature" not in _body(model) and said


@pytest.mark.parametrize("name", ["gpt-5-chat-latest", "gpt-4o-mini", "gpt-4.1"])
def test_other_models_keep_it(name: str) -> None:
    model, said = _built(name, api_key="sk-x", temperature=0)
    assert _body(model)["temperature"] == 0 and not said


def test_compatible_server_keeps_it() -> None:  # a local server may serve a model of that name, taking any temperature
    model, said = _built("gpt-5-mini", base_url="http://127.0.0.1:9/v1", temperature=0)
    assert _body(model)["temperature"] == 0 and not said


def test_reasoning_effort_none_keeps_it() -> None:  # gpt-5.1 takes a temperature with reasoning off (langchain-openai)
    model, said = _built("gpt-5.1", api_key="sk-x", temperature=0, reasoning_effort="none")
    assert _body(model)["temperature"] == 0 and not said


def test_responses_api_leaves_it_out_too() -> None:
    model, said = _built("gpt-5-mini", api_key="sk-x", temperature=0, use_responses_api=True)
    assert "temperature" not in _body(model) and said


def test_a_call_s_own_temperature_is_sent_as_given() -> None:
    model, _ = _built("gpt-5-mini", api_key="sk-x")
    assert _body(model, temperature=0)["temperature"] == 0


# -- #3: reasoning_effort and langchain-openai's other request options --------------------------------------------


def test_reasoning_effort_is_taken_and_sent() -> None:
    model = ChatOpenAI("gpt-5-mini", api_key="sk-x", reasoning_effort="low")
    assert _body(model)["reasoning_effort"] == "low"
    assert _body(model, reasoning_effort="high")["reasoning_effort"] == "high"  # a call's wins


def test_verbosity_and_service_tier_are_sent() -> None:
    body = _body(ChatOpenAI("gpt-5-mini", api_key="sk-x", verbosity="low", service_tier="flex"))
    assert body["verbosity"] == "low" and body["service_tier"] == "flex"


def test_responses_api_gets_them_in_its_own_fields() -> None:
    model = ChatOpenAI("gpt-5-mini", api_key="sk-x", use_responses_api=True, reasoning_effort="low",
                       verbosity="high", service_tier="flex")
    body = _body(model)
    assert body["reasoning"] == {"effort": "low"} and body["text"] == {"verbosity": "high"}
    assert body["service_tier"] == "flex" and "reasoning_effort" not in body and "verbosity" not in body
    both = ChatOpenAI("gpt-5-mini", api_key="sk-x", use_responses_api=True, reasoning={"summary": "auto"},
                      reasoning_effort="low")
    assert _body(both)["reasoning"] == {"summary": "auto", "effort": "low"}
    assert _body(both, reasoning_effort="high")["reasoning"] == {"summary": "auto", "effort": "high"}


def test_responses_api_call_option_mapped_too() -> None:
    model = ChatOpenAI("gpt-5-mini", api_key="sk-x", use_responses_api=True)
    assert _body(model, reasoning_effort="minimal")["reasoning"] == {"effort": "minimal"}


def test_reasoning_dict_needs_the_responses_api_on_openai() -> None:
    with pytest.raises(UserError, match=r"use_responses_api=True.*reasoning_effort"):
        ChatOpenAI("gpt-5-mini", api_key="sk-x", reasoning={"effort": "low"})
    local = ChatOpenAI("m", base_url="http://127.0.0.1:9/v1", reasoning={"effort": "low"})  # (OpenRouter takes it)
    assert _body(local)["reasoning"] == {"effort": "low"}


@pytest.mark.parametrize(("key", "value"), [("reasoning_effort", 3), ("reasoning_effort", ""), ("verbosity", 1),
                                            ("service_tier", 5), ("reasoning", "low")])
def test_wrong_kinds_are_refused(key: str, value: object) -> None:
    with pytest.raises(UserError, match=key):
        ChatOpenAI("gpt-5-mini", api_key="sk-x", use_responses_api=True, **{key: value})


def test_given_twice_differently_is_refused() -> None:
    with pytest.raises(UserError, match="once"):
        ChatOpenAI("gpt-5-mini", api_key="sk-x", reasoning_effort="low", model_kwargs={"reasoning_effort": "high"})


def test_init_chat_model_takes_it() -> None:
    from toolwire.models import init_chat_model

    model = init_chat_model("openai:gpt-5-mini", api_key="sk-x", reasoning_effort="low")
    assert _body(model)["reasoning_effort"] == "low"


def test_an_unknown_option_names_model_kwargs() -> None:
    with pytest.raises(UserError) as caught:
        ChatOpenAI("gpt-5-mini", api_key="sk-x", logprobs=True)
    text = str(caught.value)
    assert "Unknown ChatOpenAI option 'logprobs'" in text and "model_kwargs={'logprobs': ...}" in text
    assert "True" not in text  # (the value is never shown: it may be a credential)


def test_close_matches_and_renames_keep_their_advice() -> None:
    with pytest.raises(UserError, match="did you mean 'temperature'"):
        ChatOpenAI("gpt-5-mini", api_key="sk-x", temprature=0)
    with pytest.raises(UserError, match="did you mean 'base_url'"):
        ChatOpenAI("gpt-5-mini", api_key="sk-x", openai_api_base="http://x")
    ChatOpenAI("gpt-5-mini", api_key="sk-x", default_headers={"a": "b"})  # taken, as langchain-openai takes it (287 #3)
    with pytest.raises(UserError) as caught:  # a setting of langchain-openai's client: no request field either
        ChatOpenAI("gpt-5-mini", api_key="sk-x", http_client=object())
    assert "model_kwargs={" not in str(caught.value)
