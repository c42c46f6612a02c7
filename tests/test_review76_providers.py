"""Faults a fresh user's review found in the hosted-provider classes (review 76), each kept fixed by a test here; no
model is loaded and no request leaves 127.0.0.1.

1. Audio given by URL to OpenAI's Chat Completions crashed with ``KeyError: 'data'``; it is the documented
   UserError (OpenAI takes audio only as base64 data).
4. An API key of only spaces or a line end (``api_key="   "``, ``"\\n"``) was taken, and the first request failed
   confusingly (an illegal header, the SDK's missing credentials); it is the same UserError as ``api_key=""``
   when the model is built.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import HumanMessage
from toolwire.errors import UserError

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("google.genai")

from toolwire.models import ChatAnthropic, ChatGoogleGenAI, ChatOpenAI

KEY = "sk-review76-0123456789"
_KEY_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL",
            "AZURE_OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")
CLOUD = (ChatOpenAI, ChatAnthropic, ChatGoogleGenAI)


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _KEY_ENV:
        monkeypatch.delenv(name, raising=False)


def _offline(cls: type, **kwargs: Any) -> Any:
    """A model aimed at a local port nothing listens on, tried once: what should be refused before any request
    fails fast here, never reaching the network."""
    return cls(model="m", api_key=KEY, base_url="http://127.0.0.1:9" + ("/v1" if cls is ChatOpenAI else ""),
               max_retries=0, **kwargs)


# -- 1: audio by URL to Chat Completions ------------------------------------------------------------------


@pytest.mark.parametrize("block", [
    {"type": "audio", "url": "https://example.org/a.wav", "mime_type": "audio/wav"},
    {"type": "audio", "file_id": "file-1", "mime_type": "audio/wav"},
])
def test_audio_by_url_or_file_id_to_chat_completions_is_a_user_error(block: dict[str, Any]) -> None:
    with pytest.raises(UserError, match="OpenAI takes audio only as base64 data"):
        _offline(ChatOpenAI, compatible=False).invoke([HumanMessage(["Transcribe.", block])])


# -- 4: a blank API key ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLOUD)
@pytest.mark.parametrize("blank", ["", "   ", "\n", " \r\n\t"])
def test_a_blank_key_is_refused_when_the_model_is_built(cls: type, blank: str) -> None:
    with pytest.raises(UserError, match=f"{cls.__name__} needs an API key: set "):
        cls(model="m", api_key=blank)


def test_a_blank_key_falls_back_to_the_environment_and_a_blank_variable_counts_as_unset(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert ChatAnthropic(model="m", api_key="  \n")._api_key.get() == KEY
    monkeypatch.setenv("ANTHROPIC_API_KEY", " \n")
    with pytest.raises(UserError, match="ChatAnthropic needs an API key"):
        ChatAnthropic(model="m")
