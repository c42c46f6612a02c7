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


# ---------------------------------------------------------------------------------------------- #3


def _error(message: str, status: int = 400) -> ProviderError:
    return ProviderError(message, provider="openai", status=status)


def _vllm_body_error(msg: str, body: dict[str, Any]) -> str:
    """vLLM's 400 message: str() of FastAPI's RequestValidationError for a ('body',) error, the body as 'input'."""
    return str([{"type": "value_error", "loc": ("body",), "msg": msg, "input": body,
                 "ctx": {"error": "ValueError()"}}])


_BODY = {"model": "m", "messages": [{"role": "user", "content": "Where is 'Paris'?"}], "top_logprobs": 3,
         "tool_choice": "required", "tools": [{"type": "function", "function": {"name": "City"}}]}


@pytest.mark.parametrize("message", [
    _vllm_body_error("Value error, when using `top_logprobs`, `logprobs` must be set to true.", _BODY),
    _vllm_body_error("Value error, when using `top_logprobs`, `logprobs` must be set to true.",
                     {**_BODY, "tool_choice": {"type": "function", "function": {"name": "City"}}}),
    '{"error": "bad top_logprobs", "request": {"tool_choice": "required"}}',
    "Context too long",
])
def test_a_message_that_only_quotes_tool_choice_back_is_no_refusal(message: str) -> None:
    assert not refuses_choice(_error(message))


@pytest.mark.parametrize(("message", "status"), [
    ("Invalid tool_choice type: 'object'. Supported string values: none, auto, required", 400),  # LM Studio
    ('tool_choice = "required" is not supported!', 400),  # vLLM < 0.8.3
    (_vllm_body_error('Value error, tool_choice = "required" is not supported!', _BODY), 400),
    (_vllm_body_error('Value error, `tool_choice` must either be a named tool, "auto", or "none".', _BODY), 400),
    (str([{"type": "literal_error", "loc": ("body", "tool_choice"), "msg": "Input should be 'none' or 'auto'",
           "input": "required"}]), 422),
    ('{"detail": [{"loc": ["body", "tool_choice"], "msg": "bad", "input": {"type": "function"}}]}', 422),
])
def test_the_servers_refusals_of_the_choice_still_count(message: str, status: int) -> None:
    assert refuses_choice(_error(message, status))


class City(BaseModel):
    name: str
    country: str


def test_a_vllm_400_for_another_field_is_sent_once_with_its_own_hint() -> None:
    from toolwire.models import ChatOpenAI

    def vllm(body: dict[str, Any], n: int) -> Any:
        msg = "Value error, when using `top_logprobs`, `logprobs` must be set to true."
        return (400, {"object": "error", "message": _vllm_body_error(msg, body), "type": "BadRequestError",
                      "param": None, "code": 400})

    with serving("/v1") as server:
        server.answer = vllm
        model = ChatOpenAI("m", base_url=server.url, api_key="x", max_retries=0, model_kwargs={"top_logprobs": 3})
        with pytest.raises(ProviderError) as info:
            model.with_structured_output(City).invoke("Where is Paris?")
        assert [body.get("tool_choice") for body in server.requests] == [
            {"type": "function", "function": {"name": "City"}}]
        assert "force" not in (info.value.hint or "")


# ---------------------------------------------------------------------------------------------- #4


def _v1_tools() -> tuple[Any, Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_core.tools import StructuredTool
        from pydantic.v1 import BaseModel as V1Model
        from pydantic.v1 import Extra, Field, root_validator

        class Old(V1Model):
            city: str
            days: int = 1

            @root_validator(pre=True, allow_reuse=True)
            def old_key(cls, values: dict[str, Any]) -> dict[str, Any]:
                if "town" in values:
                    values["city"] = values.pop("town")
                return values

        class Aliased(V1Model):
            city_name: str = Field(alias="cityName")

            class Config:
                allow_population_by_field_name = True

        class Open(V1Model):
            class Config:
                extra = Extra.allow

        class Child(Open):
            city: str

        def forecast(city: str, days: int = 1) -> str:
            return f"{city} x{days}"

        def named(city_name: str) -> str:
            return city_name

        def anywhere(city: str, **more: Any) -> str:
            return f"{city} {sorted(more)}"

        return (StructuredTool.from_function(forecast, args_schema=Old, name="forecast", description="Forecast."),
                StructuredTool.from_function(named, args_schema=Aliased, name="named", description="Named."),
                StructuredTool.from_function(anywhere, args_schema=Child, name="anywhere", description="Any."))


def _run(lc_tool: Any, args: dict[str, Any]) -> str:
    from toolwire import AIMessage, ToolExecutor
    from toolwire.interop.langchain import from_langchain_tool

    call = {"name": lc_tool.name, "args": args, "id": "1"}
    return str(ToolExecutor([from_langchain_tool(lc_tool)]).execute(AIMessage("", tool_calls=[call]))[0].content)


def test_a_v1_schema_judges_its_own_keys_as_langchain_does() -> None:
    forecast, named, anywhere = _v1_tools()
    assert _run(forecast, {"town": "Oslo", "days": "3"}) == forecast.invoke({"town": "Oslo", "days": "3"}) == "Oslo x3"
    assert _run(forecast, {"city": "Oslo", "days": "3"}) == "Oslo x3"
    assert _run(named, {"city_name": "Oslo"}) == named.invoke({"city_name": "Oslo"}) == "Oslo"
    assert _run(named, {"cityName": "Oslo"}) == "Oslo"
    assert _run(anywhere, {"city": "Oslo"}).startswith("Oslo")  # extra=allow set on a base class's Config
    assert not _run(anywhere, {"city": "Oslo", "zip": "0150"}).startswith("Error")


def test_a_v1_schema_still_refuses_a_key_nothing_takes() -> None:
    forecast, named, _ = _v1_tools()
    text = _run(forecast, {"city": "Oslo", "dayz": 3})
    assert text.startswith("Error") and "'dayz' is not a parameter of this tool (got 3)" in text
    assert "Its parameters are: city, days." in text
    text = _run(named, {"cityName": "Oslo", "country": "NO"})
    assert "'country' is not a parameter of this tool" in text
    assert _run(forecast, {"city": "Oslo", "days": True}).startswith("Error")  # no boolean for a number
