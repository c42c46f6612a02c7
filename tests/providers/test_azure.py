"""Azure OpenAI through its v1 API: ``ChatOpenAI`` with an Azure ``base_url`` and ``azure_openai:<deployment>``.

The Azure host name is resolved to the local wire server (plain HTTP on its port), so the official SDK sends
its real requests: the path, the bearer key and the body (``max_completion_tokens``, as OpenAI) are checked.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire import Agent
from toolwire.errors import UserError
from toolwire.examples.book import BOOK_TOOLS
from toolwire.models import init_chat_model
from toolwire.models.openai import ChatOpenAI, azure_v1_url

from .conftest import KEY
from .wire_openai import OpenAIChat, OpenAIResponses
from .wire_servers import Reply, WireServer

HOST = "my-resource.openai.azure.com"


@pytest.fixture
def azure_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolve :data:`HOST` to this machine (the conftest guard refuses every other name)."""
    guarded = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        return guarded("127.0.0.1" if host == HOST else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture(params=["chat", "responses"])
def azure(request: pytest.FixtureRequest, azure_host: None) -> Iterator[tuple[WireServer, str, bool]]:
    """The wire server, the Azure resource URL that reaches it, and whether the Responses API is used."""
    responses = request.param == "responses"
    with WireServer(OpenAIResponses() if responses else OpenAIChat()) as wire:
        port = wire.url.rsplit(":", 1)[1]
        yield wire, f"http://{HOST}:{port}", responses
    assert not wire.problems, f"requests the real API would reject: {wire.problems}"


@pytest.mark.parametrize(("given", "expected"), [
    ("https://r.openai.azure.com", "https://r.openai.azure.com/openai/v1"),
    ("https://r.openai.azure.com/", "https://r.openai.azure.com/openai/v1"),
    ("https://R.OpenAI.Azure.com/openai", "https://R.OpenAI.Azure.com/openai/v1"),
    ("https://r.openai.azure.com/openai/v1/", "https://r.openai.azure.com/openai/v1"),
    ("https://r.cognitiveservices.azure.com", "https://r.cognitiveservices.azure.com/openai/v1"),
    ("https://r.services.ai.azure.com/openai/v1", "https://r.services.ai.azure.com/openai/v1"),
    ("https://r.openai.azure.us", "https://r.openai.azure.us/openai/v1"),
    ("http://localhost:8000/v1", None),
    ("https://api.openai.com/v1", None),
    ("https://openai.azure.com.example.org/v1", None),  # an Azure name inside another host is not Azure
    (None, None),
])
def test_azure_v1_url(given: str | None, expected: str | None) -> None:
    assert azure_v1_url(given) == expected


@pytest.mark.parametrize("path", ["/openai/deployments/gpt-4o", "/openai/deployments/gpt-4o/chat/completions",
                                  "/models"])
def test_an_azure_url_of_another_api_names_the_v1_url(path: str) -> None:
    with pytest.raises(UserError) as refused:
        ChatOpenAI("gpt-4o", base_url=f"https://user:s3cr3t@r.openai.azure.com{path}", api_key=KEY)
    message = str(refused.value)
    assert "https://****@r.openai.azure.com/openai/v1" in message and "deployment name" in message
    assert "s3cr3t" not in message


def test_azure_needs_a_key_and_reads_its_own_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match="set AZURE_OPENAI_API_KEY or OPENAI_API_KEY"):
        ChatOpenAI("gpt-4o", base_url="https://r.openai.azure.com")  # not a local server: no dummy key
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-key-0123456789")
    monkeypatch.setenv("OPENAI_API_KEY", "openai-key-0123456789")
    model = ChatOpenAI("gpt-4o", base_url="https://r.openai.azure.com")
    assert model._api_key is not None and model._api_key.get() == "azure-key-0123456789"
    assert ChatOpenAI("gpt-4o")._api_key.get() == "openai-key-0123456789"  # type: ignore[union-attr]
    assert "azure-key" not in repr(model)


def test_the_book_runs_on_azure_as_on_openai(azure: tuple[WireServer, str, bool]) -> None:
    wire, url, responses = azure
    model = ChatOpenAI("my-gpt-deployment", base_url=url, api_key=KEY, max_tokens=64, max_retries=0,
                       use_responses_api=responses)
    assert not model.text_tool_calls
    result = Agent(model, BOOK_TOOLS).invoke("Quanto é 123 multiplicado por 456?")
    assert result.output == "Resposta: 56088"
    first = wire.requests[0]
    assert first.path == ("/openai/v1/responses" if responses else "/openai/v1/chat/completions")
    assert first.headers.get("authorization") == f"Bearer {KEY}"
    assert first.body["model"] == "my-gpt-deployment"
    if responses:
        assert first.body["max_output_tokens"] == 64
    else:  # Azure's reasoning deployments refuse max_tokens, as OpenAI's do
        assert first.body["max_completion_tokens"] == 64 and "max_tokens" not in first.body


def test_init_chat_model_azure_openai(azure_host: None, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match="Set AZURE_OPENAI_ENDPOINT"):
        init_chat_model("azure_openai:my-gpt-deployment", api_key=KEY)
    with WireServer(OpenAIChat()) as wire:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", f"http://{HOST}:{wire.url.rsplit(':', 1)[1]}")
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
        model = init_chat_model("azure_openai:my-gpt-deployment", max_retries=0)
        wire.queue(Reply(text="ok"))
        assert model.invoke("oi").text == "ok"
    assert not wire.problems
    assert wire.requests[-1].path == "/openai/v1/chat/completions"
    assert model.model_name == "my-gpt-deployment"
