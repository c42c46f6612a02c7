"""Fixtures of the provider tests: one wire server per provider, models pointed at it, no real network.

``provider`` is parametrised over the four APIs; ``server`` is that API's local :class:`WireServer`;
``make_model(**kw)`` builds the matching toolwire model with its official SDK aimed at the server.
Every test also runs under a guard that refuses any connection that is not to 127.0.0.1.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("google.genai")

from toolwire.models.base import BaseChatModel

from .wire_anthropic import Anthropic
from .wire_gemini import Gemini
from .wire_openai import OpenAIChat, OpenAIResponses
from .wire_raw import RawChat, RawServer
from .wire_servers import WireServer

PROVIDERS = ["openai-chat", "openai-responses", "anthropic", "gemini"]
ADAPTERS: dict[str, Callable[[], Any]] = {"openai-chat": OpenAIChat, "openai-responses": OpenAIResponses,
                                          "anthropic": Anthropic, "gemini": Gemini}
MODEL_NAMES = {"openai-chat": "gpt-5-mini", "openai-responses": "gpt-5-mini", "anthropic": "claude-sonnet-4-6",
               "gemini": "gemini-2.5-flash"}
KEY = "sk-wire-test-SECRET-0123456789abcdef"
KEY_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL",
           "ANTHROPIC_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
           "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT")
_LOCAL = {"127.0.0.1", "localhost", "::1"}


def build_model(provider: str, url: str, **kwargs: Any) -> BaseChatModel:
    """The toolwire model of ``provider`` with its SDK aimed at ``url`` (a wire server or any address)."""
    kwargs.setdefault("api_key", KEY)
    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("retry_backoff", 0.001)
    name = MODEL_NAMES[provider]
    if provider.startswith("openai"):
        from toolwire.models.openai import ChatOpenAI

        return ChatOpenAI(name, base_url=url + "/v1", use_responses_api=provider == "openai-responses", **kwargs)
    if provider == "anthropic":
        from toolwire.models.anthropic import ChatAnthropic

        return ChatAnthropic(name, base_url=url, **kwargs)
    from toolwire.models.google import ChatGoogleGenAI

    return ChatGoogleGenAI(name, base_url=url, **kwargs)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse DNS look-ups and connections to anything but this machine; clear provider variables."""
    for name in KEY_ENV:
        monkeypatch.delenv(name, raising=False)
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in _LOCAL and host is not None:
            raise OSError(f"test guard: no network access to {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and address[0] not in _LOCAL:
            raise OSError(f"test guard: no network access to {address[0]!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    """The API under test."""
    return str(request.param)


@pytest.fixture
def server(provider: str) -> Iterator[WireServer]:
    """The provider's local wire server; fails the test if a request broke the API's shapes."""
    with WireServer(ADAPTERS[provider]()) as wire:
        yield wire
    assert not wire.problems, f"requests the real API would reject: {wire.problems}"


@pytest.fixture
def make_model(provider: str, server: WireServer) -> Callable[..., BaseChatModel]:
    """``make_model(**kwargs)``: the provider's model aimed at the wire server."""
    return lambda **kwargs: build_model(provider, server.url, **kwargs)


@pytest.fixture
def raw() -> Iterator[RawServer]:
    """A Chat Completions server answering scripted replies exactly (:mod:`.wire_raw`)."""
    with RawServer(RawChat(), brain=None) as server:
        yield server
    assert not server.problems, f"requests the real API would reject: {server.problems}"


@pytest.fixture
def make(raw: RawServer) -> Callable[..., BaseChatModel]:
    """``make(**kw)``: a ChatOpenAI aimed at :func:`raw`."""
    return lambda **kw: build_model("openai-chat", raw.url, **kw)
