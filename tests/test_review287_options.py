"""Review 287 #2-#6: ChatOpenAI's option handling.

#2: on the Responses API a call's (or ``bind``'s) ``reasoning_effort``/``verbosity`` was dropped when the constructor
gave ``reasoning={"effort": ...}`` (or ``text.verbosity`` in ``model_kwargs``). #3/#4: advice that led to another
error (``default_headers`` in ``model_kwargs``; the unknown-option refusal offering ``model_kwargs`` for
``parallel_tool_calls``). #5: an ``extra_headers`` given twice printed its values. #6: ``reasoning=`` on Chat
Completions was refused in the constructor only.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import HumanMessage
from toolwire.errors import UserError
from toolwire.models import ChatOpenAI

pytest.importorskip("openai")


def _model(**kwargs: Any) -> ChatOpenAI:
    return ChatOpenAI("gpt-5-mini", api_key="sk-x", **kwargs)


def _sent(model: ChatOpenAI, **options: Any) -> dict[str, Any]:
    """The body of a call made with ``options`` (checked and merged with the bound ones, as ``invoke`` does)."""
    return model._lower(model._request([HumanMessage("hi")], dict(options)))


# -- #2: a call's effort and verbosity win on the Responses API ---------------------------------------------------


def test_call_effort_wins_over_constructor_reasoning_dict() -> None:
    model = _model(use_responses_api=True, reasoning={"effort": "low", "summary": "auto"})
    assert _sent(model)["reasoning"] == {"effort": "low", "summary": "auto"}
    assert _sent(model, reasoning_effort="high")["reasoning"] == {"effort": "high", "summary": "auto"}
    assert _sent(model.bind(reasoning_effort="high"))["reasoning"] == {"effort": "high", "summary": "auto"}
    assert _sent(model.bind(reasoning_effort="high"), reasoning_effort="minimal")["reasoning"]["effort"] == "minimal"


def test_call_verbosity_wins_over_model_kwargs_text() -> None:
    model = _model(use_responses_api=True, model_kwargs={"text": {"verbosity": "low", "format": {"type": "text"}}})
    assert _sent(model, verbosity="high")["text"] == {"verbosity": "high", "format": {"type": "text"}}
    assert _sent(model.bind(verbosity="high"))["text"]["verbosity"] == "high"


def test_a_bound_form_gives_way_to_the_call_s_other_form() -> None:
    model = _model(use_responses_api=True).bind(reasoning_effort="high")
    assert _sent(model, reasoning={"effort": "low"})["reasoning"] == {"effort": "low"}
    said = _model(use_responses_api=True).bind(verbosity="high")
    assert _sent(said, text={"verbosity": "low"})["text"] == {"verbosity": "low"}


def test_constructor_s_own_effort_still_fills_a_call_s_dict() -> None:
    model = _model(use_responses_api=True, reasoning_effort="low")
    assert _sent(model, reasoning={"summary": "auto"})["reasoning"] == {"summary": "auto", "effort": "low"}
    assert _sent(model, reasoning={"effort": "high"})["reasoning"] == {"effort": "high"}


@pytest.mark.parametrize("kwargs", [
    {"reasoning": {"effort": "low"}, "reasoning_effort": "high"},
    {"reasoning_effort": "high", "model_kwargs": {"reasoning": {"effort": "low"}}},
    {"model_kwargs": {"reasoning_effort": "high", "reasoning": {"effort": "low"}}},
    {"verbosity": "high", "model_kwargs": {"text": {"verbosity": "low"}}},
])
def test_constructor_given_both_forms_differently_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(UserError, match=r"^ChatOpenAI got .* give .* once"):
        _model(use_responses_api=True, **kwargs)


def test_both_forms_alike_are_taken() -> None:
    model = _model(use_responses_api=True, reasoning={"effort": "low"}, reasoning_effort="low")
    assert _sent(model)["reasoning"] == {"effort": "low"}


def test_a_call_given_both_forms_differently_is_refused() -> None:
    model = _model(use_responses_api=True)
    with pytest.raises(UserError, match="once"):
        model.invoke("hi", reasoning_effort="high", reasoning={"effort": "low"})
    with pytest.raises(UserError, match="once"):
        model.bind(verbosity="high", text={"verbosity": "low"})


# -- #3/#4: advice that works ---------------------------------------------------------------------------------------


def test_default_headers_and_query_are_taken() -> None:
    model = ChatOpenAI("gpt-4o", api_key="sk-x", base_url="https://gw.example.com/v1?team=a",
                       default_headers={"X-Team": "a"}, default_query={"api-version": "1"})
    client = model._make_client(False)
    assert client.default_headers["X-Team"] == "a"
    assert dict(client._custom_query) == {"team": "a", "api-version": "1"}
    assert "X-Team" not in repr(model)


@pytest.mark.parametrize("kwargs", [{"default_headers": {"X-Team": 1}}, {"default_headers": "x"},
                                    {"default_query": ["a"]}])
def test_default_headers_and_query_of_the_wrong_kind_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(UserError, match=next(iter(kwargs))):
        ChatOpenAI("gpt-4o", api_key="sk-x", **kwargs)


def test_default_query_repeating_the_url_s_parameter_is_refused() -> None:
    with pytest.raises(UserError, match="once"):
        ChatOpenAI("gpt-4o", api_key="sk-x", base_url="https://gw.example.com/v1?team=a", default_query={"team": "b"})


@pytest.mark.parametrize("key", ["default_headers", "default_query"])
def test_model_kwargs_advice_for_a_client_setting_works(key: str) -> None:
    with pytest.raises(UserError, match=rf"ChatOpenAI\(\.\.\., {key}=\.\.\.\)"):
        _model(model_kwargs={key: {"a": "b"}})
    _model(**{key: {"a": "b"}})  # (what the advice says is taken)


def test_default_headers_secrets_are_masked_in_errors() -> None:
    model = ChatOpenAI("gpt-4o", api_key="sk-x", default_headers={"Authorization": "Bearer gw-SECRET-123456"})
    error = RuntimeError("proxy said: bad header Bearer gw-SECRET-123456")
    model._scrub(error)
    assert "SECRET" not in str(error)


@pytest.mark.parametrize(("owner", "key", "advice"), [
    ("ChatAnthropic", "default_headers", "extra_headers={...}"), ("ChatAnthropic", "default_query", "extra_query="),
    ("ChatAnthropic", "organization", "leave it out"), ("ChatGoogleGenAI", "default_headers", "http_options="),
    ("ChatGoogleGenAI", "default_query", "leave it out")])
def test_other_classes_are_not_sent_to_a_setting_they_have_not(owner: str, key: str, advice: str) -> None:
    from toolwire.models._sdk_options import check_model_kwargs

    with pytest.raises(UserError) as caught:
        check_model_kwargs(owner, {key: {"a": "b"}})
    assert advice in str(caught.value) and f"{owner}(" not in str(caught.value)


@pytest.mark.parametrize(("key", "advice"), [("parallel_tool_calls", "bind_tools(tools, parallel_tool_calls=...)"),
                                             ("tool_choice", "bind_tools(tools, tool_choice=...)"),
                                             ("stream_options", "stream_usage="),
                                             ("messages", "input of invoke")])
def test_unknown_option_model_kwargs_refuses_gets_the_advice_that_works(key: str, advice: str) -> None:
    with pytest.raises(UserError) as caught:
        _model(**{key: False})
    text = str(caught.value)
    assert "model_kwargs={" not in text and advice in text and key in text


# -- #5 (review #5): extra_headers given twice ----------------------------------------------------------------------


def test_extra_headers_given_twice_shows_no_value() -> None:
    model = _model()
    for how in (lambda **kw: model.bind(**kw), lambda **kw: model.invoke("hi", **kw)):
        with pytest.raises(UserError, match="give extra_headers once") as caught:
            how(extra_headers={"Authorization": "Bearer sk-LEAK-1"}, model_kwargs={"extra_headers": {"k": "sk-LEAK-2"}})
        assert "LEAK" not in str(caught.value)


def test_a_generation_option_given_twice_still_shows_its_values() -> None:
    with pytest.raises(UserError, match=r"temperature=0 .*'temperature': 1"):
        _model().bind(temperature=0, model_kwargs={"temperature": 1})


# -- #6 (review #6): reasoning= on Chat Completions ------------------------------------------------------------------


def test_reasoning_on_chat_completions_is_refused_wherever_given() -> None:
    with pytest.raises(UserError, match=r"reasoning=.*model_kwargs.*use_responses_api=True"):
        _model(model_kwargs={"reasoning": {"effort": "low"}})
    model = _model()
    with pytest.raises(UserError, match=r"reasoning=.*a call's options.*use_responses_api=True"):
        model.invoke("hi", reasoning={"effort": "low"})
    with pytest.raises(UserError, match=r"use_responses_api=True"):
        model.bind(reasoning={"effort": "low"})
    with pytest.raises(UserError, match=r"use_responses_api=True"):
        model.invoke("hi", model_kwargs={"reasoning": {"effort": "low"}})


def test_reasoning_elsewhere_is_still_sent() -> None:
    assert _sent(_model(use_responses_api=True), reasoning={"effort": "low"})["reasoning"] == {"effort": "low"}
    local = ChatOpenAI("m", base_url="http://127.0.0.1:9/v1", model_kwargs={"reasoning": {"effort": "low"}})
    assert _sent(local, reasoning={"effort": "high"})["reasoning"] == {"effort": "high"}
