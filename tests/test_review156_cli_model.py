"""Review 156 #2: --dialect, --n-ctx and --n-threads with a hosted model's bare name (provider inferred) are refused
in the option's words, as with a 'provider:' prefix."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from toolwire import cli
from toolwire._cli_model import hosted_provider


@pytest.mark.parametrize(("model", "options", "option"), [
    ("gpt-4o", ["--dialect", "json"], "--dialect"),
    ("gpt-4o", ["--n-ctx", "4096"], "--n-ctx"),
    ("claude-3-5-haiku", ["--n-threads", "2"], "--n-threads"),
    ("models/gemini-1.5-pro", ["--dialect", "json"], "--dialect"),
    ("ollama:llama3.1", ["--dialect", "json"], "--dialect"),
])
def test_local_options_with_an_inferred_provider_are_refused(monkeypatch: pytest.MonkeyPatch, model: str,
                                                             options: list[str], option: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-fake")
    result = CliRunner().invoke(cli.app, ["ask", "hi", "-m", model, *options])
    assert result.exit_code == 1
    assert f"{option} applies to local models only, not to {model!r}: leave it out." in result.output


@pytest.mark.parametrize("name", [None, "local", "smollm2-135m", "x.gguf", "dir/model.GGUF", "local:smollm2-135m",
                                  "unknown-name", "gpt-4o.gguf"])
def test_local_names_are_not_hosted(name: str | None) -> None:
    assert hosted_provider(name) is None


def test_inferred_names_are_hosted() -> None:
    assert hosted_provider("gpt-4o") == "openai"
    assert hosted_provider("o3-mini") == "openai"
    assert hosted_provider("claude-3-5-haiku") == "anthropic"
    assert hosted_provider("models/gemini-2.0-flash") == "google"
