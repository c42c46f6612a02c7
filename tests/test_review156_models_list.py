"""Review 156 #9: `toolwire models list` to a file or a pipe shows the model files' names whole, not cut with '…'."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.models.registry import REGISTRY


def test_models_list_to_a_pipe_shows_the_file_names_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(app, ["models", "list"])
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout, result.stdout
    for entry in REGISTRY.values():
        assert entry.filename in result.stdout and entry.license in result.stdout
