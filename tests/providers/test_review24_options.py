"""Review 24, defect 5: a bad ``timeout``, ``max_retries`` or ``retry_backoff`` fails when the model is built, in
one sentence, not at the first request ("not a openai reply (Timeout value out of range)"); and that message
names the provider properly ("an OpenAI reply"). Each test failed before the fix."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from toolwire.errors import ProviderError, UserError

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer

PROVIDERS = ["openai-chat", "anthropic", "gemini"]
URL = "http://127.0.0.1:9"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("timeout", [-1, 0, 0.0, math.nan, math.inf, "5", True, None])
def test_a_bad_timeout_fails_at_construction(provider, timeout):
    with pytest.raises(UserError, match=r"timeout must be a positive number of seconds, not .*; pass e\.g\. "
                                        r"timeout=60\.$"):
        build_model(provider, URL, timeout=timeout)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("retries", [-1, 1.5, 2.0, "2", True, None])
def test_a_bad_max_retries_fails_at_construction(provider, retries):
    with pytest.raises(UserError, match=r"max_retries must be a whole number of 0 or more .*not "):
        build_model(provider, URL, max_retries=retries)


@pytest.mark.parametrize("backoff", [-0.5, math.nan, math.inf, "1"])
def test_a_bad_retry_backoff_fails_at_construction(backoff):
    with pytest.raises(UserError, match=r"retry_backoff must be a number of seconds of 0 or more"):
        build_model("anthropic", URL, retry_backoff=backoff)


def test_an_openai_compatible_server_is_checked_too():
    from toolwire.models.openai import ChatOpenAI

    with pytest.raises(UserError, match=r"^ChatOpenAI: timeout must be"):
        ChatOpenAI("local-model", base_url=URL + "/v1", timeout=-3)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_good_values_are_kept(provider):
    model = build_model(provider, URL, timeout=Fraction(3, 2), max_retries=0, retry_backoff=0)
    assert model.timeout == 1.5 and isinstance(model.timeout, float)
    assert model.retry_policy.max_retries == 0 and model.retry_policy.initial_delay == 0.0
    model = build_model(provider, URL, timeout=30, max_retries=5)
    assert model.timeout == 30.0 and model.retry_policy.max_retries == 5


@pytest.mark.parametrize(("provider", "label"), [("openai-chat", "an OpenAI"), ("anthropic", "an Anthropic"),
                                                 ("gemini", "a Gemini")])
def test_a_body_that_is_not_a_reply_names_the_provider_properly(provider, label):
    page = Answer(body="<html>Please log in to the corporate proxy</html>", content_type="text/html")
    with ScriptedServer() as server:
        server.push(page)
        model = build_model(provider, server.url)
        with pytest.raises(ProviderError) as caught:
            model.invoke("hi")
    assert f"is not {label} reply (" in str(caught.value)
