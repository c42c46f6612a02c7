"""Review 260 fixes on the proxy paths: Gemini's async client (aiohttp) names a proxy that drops or stalls the
connection (#1); ``NO_PROXY`` is read by the httpx package the SDK sent with (#2); a proxy variable written without
``http://`` is named, its password masked, on Gemini's async path (#4); a bracketed IPv6 ``NO_PROXY`` entry is one
clear error for the Anthropic SDK (#5)."""

from __future__ import annotations

import asyncio
import socket
import traceback
from typing import Any

import pytest
from tests.test_review256_fixes import _model, dropping_port, no_proxies, silent_port

from toolwire.errors import ProviderError, UserError

__all__ = ["dropping_port", "no_proxies", "silent_port"]  # (fixtures shared with review 256's tests)

_PROXY = "http://me:SecretPw-12345@127.0.0.1:{port}"


def _gemini(**options: Any) -> Any:
    pytest.importorskip("google.genai")
    pytest.importorskip("aiohttp")
    from toolwire.models import ChatGoogleGenAI

    return ChatGoogleGenAI(model="gemini-2.0-flash", api_key="AIzaKEY0123456789abcdef", max_retries=0, **options)


async def _run(model: Any, how: str) -> None:
    if how == "ainvoke":
        await model.ainvoke("hi")
    else:
        async for _ in model.astream("hi"):
            pass


def _dead_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


# -- 1. Gemini async: a proxy that drops or stalls the connection ---------------------------------------------


@pytest.mark.parametrize("how", ["ainvoke", "astream"])
def test_gemini_async_names_a_proxy_that_drops_the_connection(how: str, dropping_port: int,
                                                              no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", _PROXY.format(port=dropping_port))
    with pytest.raises(ProviderError) as failed:
        asyncio.run(_run(_gemini(timeout=0.5), how))
    assert "Could not connect to the proxy in HTTPS_PROXY" in str(failed.value)
    assert "timed out after 0.5 s" in str(failed.value) and failed.value.retryable
    assert "SecretPw" not in str(failed.value)


@pytest.mark.parametrize("how", ["ainvoke", "astream"])
def test_gemini_async_names_a_proxy_that_never_answers_connect(how: str, silent_port: int,
                                                               no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", _PROXY.format(port=silent_port))
    with pytest.raises(ProviderError) as failed:
        asyncio.run(_run(_gemini(timeout=0.3), how))
    assert "The proxy in HTTPS_PROXY" in str(failed.value)
    assert "did not answer the request to open a connection" in str(failed.value)
    assert "SecretPw" not in str(failed.value)


# -- 2. NO_PROXY read by the httpx package the SDK sends with -----------------------------------------------------


@pytest.mark.parametrize(("no_proxy", "url"), [("127.0.0.0/8", "http://127.0.0.1:{port}/v1"),
                                               ("localhost,127.0.0.0/8", "http://127.0.0.1:{port}/v1")])
@pytest.mark.parametrize(("provider", "sdk"), [("ChatOpenAI", "openai"), ("ChatAnthropic", "anthropic")])
def test_a_server_spared_by_a_cidr_no_proxy_is_blamed_not_the_proxy(provider: str, sdk: str, no_proxy: str,
                                                                    url: str,
                                                                    no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTP_PROXY", _PROXY.format(port=_dead_port()))
    no_proxies.setenv("NO_PROXY", no_proxy)
    with pytest.raises(ProviderError) as failed:
        _model(provider, sdk, base_url=url.format(port=_dead_port()), max_retries=0).invoke("hi")
    assert "proxy" not in str(failed.value).lower(), str(failed.value)
    assert "Could not connect" in str(failed.value)


def test_proxy_for_asks_the_package_the_exception_came_from(no_proxies: pytest.MonkeyPatch) -> None:
    httpx = pytest.importorskip("httpx")
    httpx2 = pytest.importorskip("httpx2")
    from toolwire.models._proxy_env import proxy_for

    no_proxies.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    no_proxies.setenv("NO_PROXY", "*.corp.example")
    url = "http://llm.corp.example/v1"
    with httpx2.Client() as client:  # (httpx2 spares *.corp.example: it connects directly, and fails there)
        request = client.build_request("GET", url)
    from_httpx2 = httpx2.ConnectError("refused", request=request)
    from_httpx = httpx.ConnectError("refused", request=httpx.Request("GET", url))
    assert proxy_for(url, from_httpx2) is None
    assert proxy_for(url, from_httpx) == ("HTTP_PROXY", "http://127.0.0.1:9")


# -- 4. a proxy variable without http://, on Gemini's async path --------------------------------------------------


@pytest.mark.parametrize("how", ["ainvoke", "astream"])
def test_gemini_async_schemeless_proxy_is_named_and_its_password_masked(how: str,
                                                                       no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", f"me:SecretPw-12345@127.0.0.1:{_dead_port()}")
    with pytest.raises(ProviderError) as failed:
        asyncio.run(_run(_gemini(timeout=2), how))
    error = failed.value
    assert "HTTPS_PROXY" in str(error) and "http://" in error.hint and not error.retryable
    assert "not a Gemini reply" not in str(error)
    shown = [str(error), repr(error), "".join(traceback.format_exception(error)), repr(error.__context__),
             repr(error.__cause__)]
    assert not [text for text in shown if "SecretPw" in text]


# -- 5. a bracketed IPv6 NO_PROXY entry ---------------------------------------------------------------------------


def test_a_bracketed_ipv6_no_proxy_entry_is_one_user_error(no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTP_PROXY", "http://127.0.0.1:3128")
    no_proxies.setenv("NO_PROXY", "localhost,[::1]")
    with pytest.raises(UserError) as failed:
        _model("ChatAnthropic", "anthropic", base_url="http://127.0.0.1:1", max_retries=0).invoke("hi")
    assert "NO_PROXY" in str(failed.value) and "'[::1]'" in str(failed.value) and "(::1)" in str(failed.value)
    assert "localhost" not in str(failed.value)
