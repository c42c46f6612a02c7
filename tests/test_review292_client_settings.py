"""Review 292: ``ChatAnthropic(default_headers=...)`` (langchain-anthropic's spelling) and the other client settings
only some classes take got "use one of ..." when given to the constructor, though docs/providers.md says a class
without such a setting names what does the same instead, as its ``bind(...)`` and ``model_kwargs`` did."""

from __future__ import annotations

import pytest

from toolwire.errors import UserError
from toolwire.models import ChatAnthropic, ChatGoogleGenAI


@pytest.mark.parametrize(("cls", "key", "advice"), [
    (ChatAnthropic, "default_headers", "extra_headers={...}, in model_kwargs"),
    (ChatAnthropic, "default_query", "extra_query={...}, in model_kwargs"),
    (ChatGoogleGenAI, "default_headers", "http_options={'headers': {...}}, in model_kwargs"),
    (ChatAnthropic, "organization", "leave it out (only ChatOpenAI takes it)"),
    (ChatGoogleGenAI, "default_query", "leave it out (only ChatOpenAI takes it)"),
])
def test_a_client_setting_the_class_has_not_names_what_does_the_same(cls: type, key: str, advice: str) -> None:
    with pytest.raises(UserError) as made:
        cls("m", api_key="k", **{key: {"x-a": "1"}})
    said = str(made.value)
    assert said.startswith(f"{cls.__name__} has no {key!r} option: ") and advice in said, said
    with pytest.raises(UserError) as bound:
        cls("m", api_key="k").bind(**{key: {"x-a": "1"}})
    assert advice.split(" (")[0] in str(bound.value)


def test_a_misspelt_option_still_gets_the_close_match() -> None:
    with pytest.raises(UserError, match="did you mean 'temperature'"):
        ChatAnthropic("m", api_key="k", temprature=0)
