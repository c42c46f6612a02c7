"""Review 77 (CLI and Agent): findings 1, 2, 6 and 7, each test failing before its fix.

1. ``toolwire ask --model openai-compatible:<model>`` was refused even with ``OPENAI_BASE_URL`` set, which
   ``init_chat_model`` accepts; a URL that is not http(s), in the name or in the variable, got the CLI's garbled
   advice (``'openai-compatible:m@notaurl@http://...'``) instead of the library's "not an http(s) URL".
2. ``azure_openai:`` without ``AZURE_OPENAI_ENDPOINT`` told a command-line user to "pass base_url=...", a Python
   argument no option sets: that clause is now the error's ``api_advice``, which the CLI leaves out.
6. The Agent's two warnings about a model bound beforehand (a schema-only tool, ``tool_choice="none"``) pointed
   into ``_keywords.py`` (the keyword-checking wrapper of ``Agent.__init__``), not at the user's ``Agent(...)``.
7. ``Agent.batch([...], temperature=0)`` named ``Agent.invoke()``, and ``config=`` said "toolwire models".

No GGUF model is loaded and nothing reaches the network beyond a scripted server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from typer.testing import CliRunner

from providers.scripted_http import Answer, ScriptedServer
from toolwire import Agent, UserError, cli, tool
from toolwire.models import init_chat_model
from toolwire.testing import ScriptedChatModel

_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT")
CHAT_REPLY = {"id": "r1", "object": "chat.completion", "model": "m",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello from the server"},
                           "finish_reason": "stop"}]}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _said(result: Any) -> str:
    return " ".join(result.output.split())


@tool
def get_weather(city: str) -> str:
    """Get the weather of a city."""
    return f"sunny in {city}"


# -- 1. openai-compatible:<model> on the command line, as init_chat_model takes it ----------------------------


def test_cli_takes_openai_compatible_model_with_openai_base_url_set(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    with ScriptedServer() as server:
        server.push(Answer(200, CHAT_REPLY))
        clean_env.setenv("OPENAI_BASE_URL", server.url + "/v1")
        result = CliRunner().invoke(cli.app, ["ask", "hi", "--model", "openai-compatible:m"])
    assert result.exit_code == 0, result.output
    assert "hello from the server" in result.output
    # a server's replies are read whole (stream=false): one that ignores stream=true works, a cut one is retried
    assert server.requests and server.requests[0]["model"] == "m" and not server.requests[0].get("stream")


def test_cli_model_is_what_init_chat_model_builds_from_openai_base_url(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    clean_env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    cli.check_server_url("openai-compatible:m")  # no error
    model = cli._model("openai-compatible:m", None)
    assert model.model_name == "m" and model.base_url == "http://127.0.0.1:9/v1"


def test_cli_lets_the_librarys_error_through_for_a_name_url_that_is_not_http(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    result = CliRunner().invoke(cli.app, ["ask", "q", "--model", "openai-compatible:m@notaurl"])
    assert result.exit_code == 1
    said = _said(result)
    assert "base_url 'notaurl' is not an http(s) URL" in said
    assert "m@notaurl@" not in said and "openai:m@notaurl" not in said


def test_cli_lets_the_librarys_error_through_for_openai_base_url_not_http(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    clean_env.setenv("OPENAI_BASE_URL", "notaurl")
    result = CliRunner().invoke(cli.app, ["ask", "q", "--model", "openai-compatible:m"])
    assert result.exit_code == 1
    said = _said(result)
    assert "OPENAI_BASE_URL holds 'notaurl', which is not an http(s) URL" in said
    assert "needs the server's URL" not in said


def test_cli_still_says_how_to_give_the_url_when_there_is_none(clean_env: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(cli.app, ["ask", "q", "--model", "openai-compatible:m"])
    assert result.exit_code == 1
    said = _said(result)
    assert ("--model 'openai-compatible:m' needs the server's URL: write it in the name, as "
            "'openai-compatible:m@http://localhost:8000/v1', or set OPENAI_BASE_URL to it.") in said
    assert "base_url=" not in said
    with pytest.raises(UserError, match="needs the server's URL"):  # an "@" with nothing after it is no URL
        cli.check_server_url("openai-compatible:m@")


@pytest.mark.parametrize(("name", "shown"), [
    ("openai-compatible:http://gpu:8000/v1", "'openai-compatible:<model>@http://gpu:8000/v1'"),
    ("openai-compatible:@http://gpu:8000/v1", "'openai-compatible:<model>@http://gpu:8000/v1'"),
    ("openai-compatible:", "'openai-compatible:<model>@http://localhost:8000/v1'"),
])
def test_cli_names_a_missing_model_name_rather_than_garbling_the_url(clean_env: pytest.MonkeyPatch, name: str,
                                                                     shown: str) -> None:
    clean_env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # (not a model name, so no help here)
    with pytest.raises(UserError, match="names no model") as refused:
        cli.check_server_url(name)
    assert shown in str(refused.value) and "@http://localhost:8000/v1@" not in str(refused.value)


# -- 2. azure_openai: without AZURE_OPENAI_ENDPOINT -------------------------------------------------------------


def test_azure_endpoint_error_keeps_base_url_advice_apart(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    with pytest.raises(UserError) as refused:
        init_chat_model("azure_openai:dep")
    error = refused.value
    assert str(error) == ("Set AZURE_OPENAI_ENDPOINT to your Azure OpenAI resource URL "
                          "(https://RESOURCE.openai.azure.com), or pass it as base_url=.")
    assert error.api_advice == ", or pass it as base_url="
    assert "base_url" not in error.without_api_advice()


def test_cli_azure_endpoint_error_leaves_out_the_python_argument(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    result = CliRunner().invoke(cli.app, ["ask", "q", "--model", "azure_openai:dep"])
    assert result.exit_code == 1
    said = _said(result)
    assert ("Set AZURE_OPENAI_ENDPOINT to your Azure OpenAI resource URL (https://RESOURCE.openai.azure.com).") in said
    assert "base_url" not in said


def test_cli_main_leaves_out_python_advice_of_a_stray_error(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    def app() -> None:  # what `toolwire eval` lets through (its model is built outside the commands' handlers)
        raise UserError("Set X to it, or pass it as x=.", api_advice=", or pass it as x=")

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(SystemExit):
        cli.main()
    said = " ".join(capsys.readouterr().err.split())
    assert "Set X to it." in said and "x=" not in said


# -- 6. the Agent's warnings point at the user's line ------------------------------------------------------------

SCHEMA_ONLY = {"type": "function", "function": {"name": "SchemaOnly", "description": "A schema with no function.",
                                                "parameters": {"type": "object", "properties": {}}}}


def test_agent_warning_for_a_bound_schema_only_tool_points_at_the_callers_line() -> None:
    model = ScriptedChatModel(["x"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Agent(model.bind_tools([SCHEMA_ONLY]), [get_weather])
    said = [w for w in caught if "no function to run" in str(w.message)]
    assert len(said) == 1 and said[0].category is UserWarning
    assert said[0].filename == __file__, said[0].filename


def test_agent_warning_for_a_bound_tool_choice_none_points_at_the_callers_line() -> None:
    model = ScriptedChatModel(["x"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Agent(model.bind_tools([], tool_choice="none"), [get_weather])
    said = [w for w in caught if "tool_choice='none'" in str(w.message)]
    assert len(said) == 1 and said[0].filename == __file__, [w.filename for w in caught]


# -- 7. Agent.batch's errors name what was called ---------------------------------------------------------------


def _agent() -> Agent:
    return Agent(ScriptedChatModel(["x"], cycle=True), [get_weather])


def test_agent_batch_refuses_a_generation_option_naming_batch() -> None:
    with pytest.raises(UserError, match=r"^Agent\.batch\(\) takes only the inputs, not temperature=: .*"
                                        r"Agent\(model\.bind\(temperature=0\), tools\)\.$") as refused:
        _agent().batch(["A"], temperature=0)
    assert "invoke" not in str(refused.value)
    with pytest.raises(UserError, match=r"^Agent\.abatch\(\) takes only the inputs, not temperature=: .*"
                                        r"Agent\(model\.bind\(temperature=0\), tools\)\.$"):
        asyncio.run(_agent().abatch(["A"], temperature=0))


def test_agent_batch_refuses_config_as_an_agent_not_a_model() -> None:
    with pytest.raises(UserError, match=r"^Agent\.batch\(config=\.\.\.\) is LangChain's RunnableConfig, which an "
                                        r"Agent does not take: pass max_concurrency=2 ") as refused:
        _agent().batch(["A"], config={"max_concurrency": 2})
    assert "toolwire models" not in str(refused.value)
    with pytest.raises(UserError, match=r"^Agent\.abatch\(config=\.\.\.\) .*max_steps=2\) and leave config out\.$"):
        asyncio.run(_agent().abatch(["A"], config={"recursion_limit": 5}))


def test_agent_batch_names_the_agents_options_and_its_own() -> None:
    with pytest.raises(UserError, match=r"^Agent\.batch\(\) takes only the inputs: max_steps is an option of the "
                                        r"Agent, Agent\(model, tools, max_steps=\.\.\.\)\.$"):
        _agent().batch(["A"], max_steps=2)
    with pytest.raises(UserError, match=r"not max_concurency= \(did you mean max_concurrency=\?\)"):
        _agent().batch(["A"], max_concurency=2)


def test_agent_batch_argument_errors_name_agent_methods() -> None:
    with pytest.raises(UserError, match=r"^Agent\.batch\(\) takes a list of inputs, each one that Agent\.invoke\(\) "
                                        r"takes, not str; for a single input, call Agent\.invoke\(\)\.$"):
        _agent().batch("A")  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"^Agent\.abatch\(\) takes the inputs alone .*Agent\.abatch\(inputs, "):
        asyncio.run(_agent().abatch(["A"], {"max_concurrency": 2}))


def test_model_batch_messages_are_unchanged_and_agent_batch_still_runs() -> None:
    with pytest.raises(UserError, match=r"^batch\(config=\.\.\.\) is LangChain's RunnableConfig, which toolwire "
                                        r"models do not take"):
        ScriptedChatModel(["x"]).batch(["A"], config={})
    results = _agent().batch(["A", "B"], max_concurrency=1, return_exceptions=False)
    assert [r.output for r in results] == ["x", "x"]
