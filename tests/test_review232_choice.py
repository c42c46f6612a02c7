"""The named-tool_choice fallback recognises OpenAI-style "Invalid type for 'tool_choice': ..." refusals, while a
request body echoed with a tool_choice key still does not count (review 232 #5)."""

from __future__ import annotations

import pytest

from toolwire.errors import ProviderError
from toolwire.models._openai_choice import refuses_choice


def _error(message: str) -> ProviderError:
    return ProviderError(message, provider="openai", status=400)


@pytest.mark.parametrize("message", [
    "Invalid type for 'tool_choice': expected one of 'none', 'auto', or 'required', but got an object instead.",
    "Invalid value for 'tool_choice': object form is not supported by this server.",
])
def test_openai_style_wording_is_a_refusal(message: str) -> None:
    assert refuses_choice(_error(message))


def test_an_echoed_body_is_not_a_refusal() -> None:
    echo = ("1 validation error: top_logprobs requires logprobs. Request: {'model': 'm', 'tool_choice': "
            "'required', 'top_logprobs': 3}")
    assert not refuses_choice(_error(echo))
