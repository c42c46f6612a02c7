"""Review 24: ``models pull --path`` that does not exist is an error (finding 2); ``--dialect`` with a provider's
model, or an unknown dialect, is an error, and ``--help`` shows boolean flags without a ``<bool>`` type (finding 7).
No model is loaded: every case ends before one is built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire import cli, cli_models


def _no_model(*args: Any) -> Any:
    raise AssertionError("no model should be built")


def test_pull_with_a_path_that_does_not_exist_fails_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pulled: list[Any] = []

    def fake_pull(name: str, **options: Any) -> Path:  # as when a copy is already pulled: it would be used
        pulled.append(options)
        return tmp_path / "already-pulled.gguf"

    monkeypatch.setattr(cli_models, "pull_model", fake_pull)
    missing = tmp_path / "nonexistent.gguf"
    result = CliRunner().invoke(cli.app, ["models", "pull", "--path", str(missing), "--source", "local"])
    assert result.exit_code == 1, result.output
    assert f"--path {missing} does not exist" in result.output and "leave out --path" in result.output
    assert result.output.strip().count("\n") <= 1  # one sentence (rich may wrap it)
    assert pulled == []
    present = tmp_path / "mine.gguf"
    present.write_bytes(b"GGUF")
    checked: list[Any] = []
    monkeypatch.setattr(cli_models, "explicit_copy", lambda name, path, **o: checked.append(path) or Path(path))
    result = CliRunner().invoke(cli.app, ["models", "pull", "--path", str(present), "--source", "local", "-q"])
    assert result.exit_code == 0, result.output
    assert checked == [str(present)] and pulled == []  # that file, checked, and no other source tried


@pytest.mark.parametrize("model", ["openai:gpt-4o-mini", "anthropic:claude-3-5-haiku-latest", "google:gemini-2.0-flash",
                                   "openai-compatible:qwen@http://127.0.0.1:1/v1"])
@pytest.mark.parametrize("dialect", ["bogus", "json"])
def test_a_dialect_with_a_providers_model_is_an_error(model: str, dialect: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_model", _no_model)
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--model", model, "--dialect", dialect])
    assert result.exit_code == 1, result.output
    assert "--dialect applies to local models only" in result.output and "leave it out" in result.output


@pytest.mark.parametrize("model", [None, "local", "qwen2.5-coder-0.5b", "/tmp/some.gguf"])
def test_an_unknown_dialect_for_a_local_model_is_an_error(model: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_model", _no_model)
    chosen = ["--model", model] if model else []
    for command in (["ask", "hi"], ["chat"]):
        result = CliRunner().invoke(cli.app, [*command, *chosen, "--dialect", "bogus"], input="exit\n")
        assert result.exit_code == 1, result.output
        assert "Unknown dialect 'bogus': use one of template, pythonic, json" in result.output


def test_a_known_dialect_for_a_local_model_reaches_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    def fake_model(name: str | None, dialect: str | None, n_ctx: int | None = None,
                   n_threads: int | None = None) -> Any:
        seen.append((name, dialect))
        raise cli.UserError("stop here.")

    monkeypatch.setattr(cli, "_model", fake_model)
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--model", "local", "--dialect", "pythonic"])
    assert result.exit_code == 1 and seen == [("local", "pythonic")]


@pytest.mark.parametrize("command", [["ask", "--help"], ["chat", "--help"], ["--help"], ["models", "pull", "--help"],
                                     ["models", "--help"], ["mcp", "serve", "--help"]])
def test_help_shows_boolean_flags_without_a_type(command: list[str]) -> None:
    result = CliRunner().invoke(cli.app, command)
    assert result.exit_code == 0, result.output
    assert "--help" in result.output and "<bool>" not in result.output
    if command[0] == "ask":
        assert "--json" in result.output and "<str>" in result.output  # other options keep their type


def test_chat_keeps_the_calls_already_run_when_a_turn_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider error after a tool ran: the next question goes on from the tool's result instead of dropping it
    (so the tool is not run again)."""
    from toolwire import AIMessage, ProviderError
    from toolwire.messages import tool_call
    from toolwire.testing import ScriptedChatModel

    def fail(messages: list) -> AIMessage:
        raise ProviderError("The server is overloaded.", provider="openai", status=503)

    model = ScriptedChatModel([
        AIMessage("", tool_calls=[tool_call("calculate", {"expression": "2 + 2"}, "c1")]), fail, "It is 4."])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["chat"], input="2 + 2?\nand so?\nexit\n")
    assert result.exit_code == 0, result.output
    assert "overloaded" in result.output and "It is 4." in result.output
    last = model.requests[-1].messages
    assert [type(m).__name__ for m in last] == ["HumanMessage", "AIMessage", "ToolMessage", "HumanMessage"]
