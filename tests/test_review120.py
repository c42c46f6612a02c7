"""Review 120 (the fresh-machine path): toolwire eval bfcl refuses an --out report of another embedded model or
dialect before the model is fetched or loaded; a TOOLWIRE_HOME that is a file is named as the fault."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import BFCL
from toolwire.evals import cli
from toolwire.evals.report import Report


@pytest.mark.skipif(not (BFCL / "README.md").is_file(), reason="no BFCL data beside the repo")
@pytest.mark.parametrize(("args", "message"), [
    (["--model", "smollm2-135m"], "holds a report of 'qwen2.5-coder-0.5b', not 'smollm2-135m'"),
    ([], "holds a report of 'qwen2.5-coder-0.5b', not 'qwen2.5-coder-1.5b'"),  # (the default model)
    (["--model", "local:qwen2.5-coder-0.5b", "--dialect", "pythonic"],
     "dialect the model's default there, 'pythonic' now"),
])
def test_a_report_of_another_embedded_model_is_refused_before_the_model_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str) -> None:
    out = tmp_path / "report.json"
    Report(model="qwen2.5-coder-0.5b", categories=["simple_python"], data_dir=str(BFCL),
           settings={"dialect": None, "temperature": 0}).save(out)
    monkeypatch.setattr(cli, "_load_model", lambda *a: pytest.fail("the model was fetched and loaded first"))
    result = CliRunner().invoke(cli.app, ["bfcl", "--data", str(BFCL), "--category", "simple", "--limit", "1",
                                          "--out", str(out), *args])
    assert result.exit_code == 1, result.output
    assert message in result.output


def test_a_toolwire_home_that_is_a_file_is_named_as_the_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.errors import UserError
    from toolwire.models import pull

    home = tmp_path / "afile"
    home.write_text("not a folder")
    monkeypatch.setenv("TOOLWIRE_HOME", str(home))
    from toolwire import cli as main_cli

    result = CliRunner().invoke(main_cli.app, ["models", "pull", "smollm2-135m"])
    assert result.exit_code == 1
    assert f"TOOLWIRE_HOME ({home}) or a folder on its path is a file" in result.output  # was: "set TOOLWIRE_HOME."
    assert isinstance(pull._home_error(home, NotADirectoryError(20, "Not a directory")), UserError)
    monkeypatch.delenv("TOOLWIRE_HOME")
    assert "set TOOLWIRE_HOME to a folder you can write" in str(pull._home_error(home, PermissionError(13, "denied")))
