"""Review 156 #3: `toolwire eval bfcl` says library errors in the command line's words, as `ask` does: no advice to
pass Python arguments (api_key=, base_url=, max_retries) that no option sets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.errors import UserError
from toolwire.models.openai import _SERVER_KEY_HINT


def _data(tmp_path: Path) -> Path:
    fn = {"name": "calc.add", "description": "Add.",
          "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}
    for sub, row in (("", {"id": "simple_python_0", "question": [[{"role": "user", "content": "add 1"}]],
                           "function": [fn]}),
                     ("possible_answer", {"id": "simple_python_0", "ground_truth": [{"calc.add": {"a": [1]}}]})):
        path = tmp_path / "data" / sub / "BFCL_v4_simple_python.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return tmp_path / "data"


def _eval(tmp_path: Path, model: str) -> str:
    result = CliRunner().invoke(app, ["eval", "bfcl", "--data", str(_data(tmp_path)), "--category", "simple_python",
                                      "--limit", "1", "--model", model])
    assert result.exit_code == 1, result.output
    return " ".join(result.output.split())


def test_azure_without_endpoint_names_the_variable_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    text = _eval(tmp_path, "azure_openai:dep")
    assert "Set AZURE_OPENAI_ENDPOINT" in text and "base_url" not in text, text


def test_no_key_names_the_variable_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    text = _eval(tmp_path, "openai:gpt-4o")
    assert "set OPENAI_API_KEY" in text and "api_key" not in text, text


def test_a_run_stopped_on_a_401_says_to_set_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.evals import cli as eval_cli

    def stopped(*args: Any, **kwargs: Any) -> Any:
        raise UserError("The model failed on 5 items in a row, the last with: ProviderError: openai (status 401): "
                        f"Invalid API key. {_SERVER_KEY_HINT} Check the model and its server, then run again.")

    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setattr(eval_cli, "run_bfcl", stopped)
    text = _eval(tmp_path, "openai-compatible:x@http://127.0.0.1:9/v1")
    assert "Set OPENAI_API_KEY to this server's own API key" in text and "api_key=" not in text, text


def test_retry_advice_is_left_out_of_a_quoted_failure() -> None:
    from toolwire._cli_errors import recorded_text

    assert recorded_text("openai timed out after 60 s: try again later, or raise timeout / max_retries. Check") \
        == "openai timed out after 60 s: try again later. Check"
