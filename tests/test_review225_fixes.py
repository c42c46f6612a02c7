"""Review 225: a proxy variable httpx never reads under NO_PROXY=* (#1), pip's relative settings for a model pull
(#2), a vLLM 400 that only quotes tool_choice back (#3) and a pydantic.v1 args_schema judging its own keys (#4)."""

from __future__ import annotations

import asyncio
import importlib.util
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from tests._queued_http import serving

from toolwire.errors import ProviderError, UserError
from toolwire.models._openai_choice import refuses_choice
from toolwire.models._proxy_env import proxy_problem
from toolwire.models.pull import pip_download

# ---------------------------------------------------------------------------------------------- #1

_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy", "NO_PROXY",
               "no_proxy", "REQUEST_METHOD")


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _models() -> list[Any]:
    from toolwire.models.anthropic import ChatAnthropic
    from toolwire.models.google import ChatGoogleGenAI
    from toolwire.models.openai import ChatOpenAI

    return [ChatOpenAI(model="m", api_key="sk-test-000", base_url="http://127.0.0.1:9/v1", max_retries=0),
            ChatAnthropic(model="m", api_key="sk-test-000", base_url="http://127.0.0.1:9", max_retries=0),
            ChatGoogleGenAI(model="m", api_key="k-test-000", base_url="http://127.0.0.1:9", max_retries=0)]


@pytest.mark.parametrize(("name", "value"), [("NO_PROXY", "*"), ("no_proxy", "*"), ("NO_PROXY", "localhost, *")])
def test_no_proxy_star_means_no_proxy_variable_is_refused(no_proxies: pytest.MonkeyPatch, name: str,
                                                          value: str) -> None:
    import httpx

    no_proxies.setenv("HTTPS_PROXY", "http://corp-proxy:80ab")  # broken, but switched off by NO_PROXY=*
    no_proxies.setenv("HTTP_PROXY", "http://corp-proxy:80ab")
    no_proxies.setenv(name, value)
    httpx.Client().close()  # httpx itself reads no proxy then
    assert proxy_problem() is None
    for model in _models():
        with pytest.raises(ProviderError):  # the (closed) server is reached, not refused before
            model.invoke("hi")
    with pytest.raises(ProviderError):
        asyncio.run(_models()[0].ainvoke("hi"))


def test_a_socks_proxy_httpx_does_not_use_needs_no_socksio(no_proxies: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("socksio") is not None:
        pytest.skip("socksio is installed")
    no_proxies.setenv("ALL_PROXY", "socks5://127.0.0.1:1080")
    assert proxy_problem() is not None and "socksio" in str(proxy_problem())
    no_proxies.setenv("NO_PROXY", "*")
    assert proxy_problem() is None
    with pytest.raises(ProviderError):
        _models()[0].invoke("hi")


def test_a_no_proxy_host_list_leaves_the_check_as_httpx_has_it(no_proxies: pytest.MonkeyPatch) -> None:
    """httpx builds (and refuses) every proxy it reads when the client is made, whatever host NO_PROXY spares."""
    import httpx

    no_proxies.setenv("HTTPS_PROXY", "http://corp-proxy:80ab")
    no_proxies.setenv("NO_PROXY", "127.0.0.1,localhost")
    with pytest.raises(Exception):  # noqa: B017 - httpx's own InvalidURL: the client cannot be made at all
        httpx.Client()
    with pytest.raises(UserError, match="HTTPS_PROXY"):
        _models()[0].invoke("hi")


# ---------------------------------------------------------------------------------------------- #2


def _wheel(folder: Path) -> None:
    folder.mkdir()
    info = "tinypkg-0.1.dist-info"
    with zipfile.ZipFile(folder / "tinypkg-0.1-py3-none-any.whl", "w") as whl:
        whl.writestr("tinypkg/__init__.py", "")
        whl.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n")
        whl.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: x\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{info}/RECORD", f"tinypkg/__init__.py,,\n{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n")


def test_pip_download_keeps_relative_pip_settings_and_never_runs_a_local_pip(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """An offline pull from a wheelhouse named relative to the current folder (PIP_FIND_LINKS=./wheelhouse) works,
    while a ``pip/`` package (and a ``pip.py``) in that folder is never run: ``-P`` keeps the folder off sys.path."""
    project = tmp_path / "project"
    project.mkdir()
    _wheel(project / "wheelhouse")
    marker = tmp_path / "PWNED"
    (project / "pip").mkdir()
    (project / "pip" / "__init__.py").write_text("")
    for fake in (project / "pip" / "__main__.py", project / "pip.py"):
        fake.write_text(f"open({str(marker)!r}, 'w').write('ran')\nraise SystemExit(1)\n")
    dest = tmp_path / "wheels"
    dest.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", "./wheelhouse")
    pip_download(["tinypkg==0.1"], dest, lambda done, total: None)
    assert [path.name for path in dest.iterdir()] == ["tinypkg-0.1-py3-none-any.whl"]
    assert not marker.exists()
