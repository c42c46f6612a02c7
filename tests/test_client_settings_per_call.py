"""A client setting given to one call, ``bind`` or ``model_kwargs`` (``api_key``, ``max_retries``, ``base_url``...) is
refused in one sentence saying to give it when the model is made; before, it was sent as a request field, an
``api_key`` in the request's body (found after review 244)."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.errors import UserError
from toolwire.models import ChatOpenAI

SETTINGS = ["api_key", "base_url", "organization", "max_retries", "retry_backoff", "default_headers"]


def _model(**kwargs: Any) -> ChatOpenAI:
    return ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key="sk-test-SECRET", max_retries=0, **kwargs)


@pytest.mark.parametrize("key", SETTINGS)
def test_a_call_given_a_client_setting_is_refused_before_anything_is_sent(key: str) -> None:
    with pytest.raises(UserError, match=rf"^ChatOpenAI: a call's options cannot set '{key}', a setting of the client "
                                        rf"the model is made with: give it when the model is made, "
                                        rf"ChatOpenAI\(\.\.\., {key}=\.\.\.\)\.$") as refused:
        _model().invoke("hi", **{key: "sk-other-SECRET"})
    assert "SECRET" not in str(refused.value)


@pytest.mark.parametrize("key", ["api_key", "max_retries"])
def test_bind_and_model_kwargs_refuse_it_too(key: str) -> None:
    with pytest.raises(UserError, match=f"cannot set '{key}', a setting of the client"):
        _model().bind(**{key: 2}).invoke("hi")
    with pytest.raises(UserError, match=f"cannot set '{key}', a setting of the client"):
        _model(model_kwargs={key: 2})
