"""Review 136 #7: a compatible server's 401 sent as an error event in a stream (or raised by the codec from one) said
to check OPENAI_API_KEY, which would send the user's OpenAI key to that server; the HTTP 401 said to pass the
server's own key."""

from __future__ import annotations

import pytest

from toolwire.errors import ProviderError
from toolwire.models.openai import _SERVER_KEY_HINT, ChatOpenAI


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("status", [401, 403])
def test_a_compatible_servers_key_error_says_to_pass_its_own_key_however_it_came(status: int) -> None:
    server = ChatOpenAI("m", base_url="http://127.0.0.1:9/v1", api_key="server-key-123")
    raised = ProviderError("The server sent an error in the stream: Invalid API key", provider="openai",
                           status=status, hint="Check the API key (OPENAI_API_KEY) and its permissions.")
    found = server._translate_any(raised)
    assert found is not None and found.hint == _SERVER_KEY_HINT and "OPENAI_API_KEY" not in str(found)


def test_openais_own_key_error_keeps_its_hint() -> None:
    hosted = ChatOpenAI("gpt-4o-mini", api_key="sk-test-0123456789")
    raised = ProviderError("Invalid API key", provider="openai", status=401,
                           hint="Check the API key (OPENAI_API_KEY) and its permissions.")
    found = hosted._translate_any(raised)
    assert found is not None and "OPENAI_API_KEY" in (found.hint or "")
