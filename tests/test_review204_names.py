"""White space around the provider and the model in 'provider:model' is left out, for every provider, in the
library and the command line alike (review 204 #4)."""

from __future__ import annotations

import pytest

from toolwire._cli_model import hosted_provider
from toolwire.models import init_chat_model


@pytest.mark.parametrize(("name", "model"), [("openai: gpt-4o", "gpt-4o"), ("openai :gpt-4o ", "gpt-4o"),
                                              ("anthropic:  claude-3-5-haiku-latest", "claude-3-5-haiku-latest"),
                                              ("ollama: llama3.1", "llama3.1"),
                                              (" openai-compatible: m @ http://h/v1", "m")])
def test_white_space_around_the_parts_is_left_out(name: str, model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    assert init_chat_model(name).model == model


def test_the_command_line_reads_the_provider_alike() -> None:
    assert hosted_provider("openai : gpt-4o") == "openai"
