"""init_chat_model with an OpenAI-compatible name that is a server URL alone names no model, rather than a model
named after the URL's user info (review 192 #1, the library side)."""

from __future__ import annotations

import pytest

from toolwire.errors import UserError
from toolwire.models import init_chat_model


@pytest.mark.parametrize("name", ["openai-compatible:http://bob:pw42@gpu-box:8000/v1",
                                  "openai-compatible:HTTPS://bob:pw42@gpu-box/v1",
                                  "openai-compatible:@http://bob:pw42@gpu-box:8000/v1"])
def test_a_url_alone_names_no_model(name: str) -> None:
    with pytest.raises(UserError) as caught:
        init_chat_model(name)
    assert "openai-compatible:<model>@<base_url>" in str(caught.value)
    assert "pw42" not in str(caught.value) and "gpu-box:8000/v1' is not" not in str(caught.value)


def test_model_then_url_with_user_info_still_splits_before_the_scheme() -> None:
    model = init_chat_model("openai-compatible:m@http://bob:pw42@gpu-box:8000/v1")
    assert model.model == "m" and "pw42" not in repr(model)
