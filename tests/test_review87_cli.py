"""Review 87: ``toolwire models pull --path FILE`` with a FILE that exists but is not the model's used the copy
already pulled instead and exited 0, although the command says an explicit path is the file the user asked for
(a missing one already exited 1). It now exits 1 with one sentence; the right file (or its folder) is printed."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from _llama_fixtures import fake_entry
from toolwire.cli_models import app
from toolwire.models.registry import REGISTRY, ModelEntry


@pytest.fixture
def entry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModelEntry:
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TOOLWIRE_MODEL_PATH", raising=False)
    made = fake_entry([b"GGUF" + bytes(range(200)) * 3], name="review87-model")
    monkeypatch.setitem(REGISTRY, made.name, made)
    pulled = tmp_path / "home" / "models" / made.filename  # a good copy already pulled: it must not be used
    pulled.parent.mkdir(parents=True)
    pulled.write_bytes(b"GGUF" + bytes(range(200)) * 3)
    return made


def test_a_path_to_another_file_is_an_error_not_the_pulled_copy(entry, tmp_path: Path) -> None:
    wrong = tmp_path / "x.txt"
    wrong.write_text("hi\n")
    result = CliRunner().invoke(app, ["pull", entry.name, "--path", str(wrong), "-q"])
    assert result.exit_code == 1, result.output  # (was: 0, printing the pulled copy's path)
    assert result.output.startswith(f"error: --path: {wrong} is not {entry.filename} (size or sha256 differ)")
    assert "leave out --path" in result.output and result.output.count("\n") == 1
    folder = tmp_path / "empty"
    folder.mkdir()
    result = CliRunner().invoke(app, ["pull", entry.name, "--path", str(folder), "-q"])
    assert result.exit_code == 1 and f"the folder {folder} holds no {entry.filename}" in result.output


def test_the_right_file_or_its_folder_is_printed(entry, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / entry.filename).write_bytes(b"GGUF" + bytes(range(200)) * 3)
    for given in (mine / entry.filename, mine):
        result = CliRunner().invoke(app, ["pull", entry.name, "--path", str(given), "-q"])
        assert result.exit_code == 0, result.output
        assert result.stdout.strip() == str(mine / entry.filename)
        assert "already holds a verified copy" in result.stderr  # (review 97: the pulled copy is kept, not linked)


def test_path_with_force_or_an_unknown_source_is_refused(entry, tmp_path: Path) -> None:
    """Review 89: the early answer for --path skipped the check of --source names and ignored --force."""
    mine = tmp_path / entry.filename
    mine.write_bytes(b"GGUF" + bytes(range(200)) * 3)
    result = CliRunner().invoke(app, ["pull", entry.name, "--path", str(mine), "--source", "bogus", "--source",
                                      "local", "-q"])
    assert result.exit_code == 1 and "Unknown model source 'bogus': use one of local, hub, pypi." in result.output
    result = CliRunner().invoke(app, ["pull", entry.name, "--path", str(mine), "--force", "-q"])
    assert result.exit_code == 1 and "leave out one of them" in result.output
