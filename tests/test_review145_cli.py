"""Review 145, command line: ``toolwire mcp serve --port/--host/--path`` without ``--transport http`` is refused in
one sentence rather than ignored (#4); an ``eval bfcl --out`` file that is not a toolwire report is left as it is and
the advice is a new file name, never to delete it (#5). No server is started and no model is loaded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.errors import UserError
from toolwire.evals.report import Report

# -- 4: mcp serve options that apply to HTTP only --------------------------------------------------------------------


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "mytools.py"
    path.write_text('from toolwire import tool\n\n\n@tool\ndef add(a: int, b: int) -> int:\n'
                    '    """Add a and b."""\n    return a + b\n')
    return path


@pytest.mark.parametrize(("options", "named"), [
    (["--port", "8767"], "--port applies"),
    (["--host", "0.0.0.0"], "--host applies"),
    (["--path=/api"], "--path applies"),
    (["--transport", "stdio", "--port", "8000"], "--port applies"),  # (the default value, given: still refused)
    (["--port", "8767", "--host", "127.0.0.1", "--path", "/x"], "--host, --port and --path apply"),
])
def test_http_options_without_the_http_transport_are_refused_in_one_sentence(tools_file: Path, options: list[str],
                                                                               named: str) -> None:
    result = CliRunner().invoke(app, ["mcp", "serve", "--tools", str(tools_file), *options])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {named} to --transport http only"), result.output
    assert "add --transport http" in lines[0]


def test_http_options_with_the_http_transport_are_still_checked_as_before(tools_file: Path) -> None:
    result = CliRunner().invoke(app, ["mcp", "serve", "--tools", str(tools_file), "--transport", "http",
                                      "--path", "api"])
    assert result.exit_code == 1 and "--path must start with '/'" in result.output, result.output


# -- 5: an --out file that is not a report ---------------------------------------------------------------------------


def _write_jsonl(path: Path, rows: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


@pytest.mark.parametrize(("name", "body", "other"), [
    ("results.json", '{"my": "precious data"}', "results-bfcl.json"),
    ("notes.txt", "not json at all", "notes.json"),
    ("passwd", "root:x:0:0", "passwd.json"),
])
def test_a_file_that_is_not_a_report_is_kept_and_a_new_file_name_advised(tmp_path: Path, name: str, body: str,
                                                                         other: str) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        Report.load(path)
    message = str(caught.value)
    assert "delete" not in message
    assert message.endswith(f"so it is left as it is: pass a new file name, such as {str(tmp_path / other)!r}.")
    assert path.read_text(encoding="utf-8") == body


def test_eval_bfcl_out_on_a_file_that_is_not_a_report_advises_a_new_name(tmp_path: Path) -> None:
    fn = {"name": "calc.add", "description": "Add.",
          "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}
    _write_jsonl(tmp_path / "data" / "BFCL_v4_simple_python.json",
                 [{"id": "simple_python_0", "question": [[{"role": "user", "content": "add 1"}]], "function": [fn]}])
    _write_jsonl(tmp_path / "data" / "possible_answer" / "BFCL_v4_simple_python.json",
                 [{"id": "simple_python_0", "ground_truth": [{"calc.add": {"a": [1]}}]}])
    out = tmp_path / "results.json"
    out.write_text('{"my": "precious data"}', encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "bfcl", "--data", str(tmp_path / "data"), "--category", "simple_python",
                                      "--out", str(out), "--limit", "1"])
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "delete" not in text and "pass a new file name, such as" in text and "results-bfcl.json" in text, text
    assert out.read_text(encoding="utf-8") == '{"my": "precious data"}'


def test_an_n_ctx_past_the_trained_context_is_said_with_the_option() -> None:
    # review 150 #3: the command line named the library's n_ctx= keyword
    from pathlib import Path

    from toolwire._cli_errors import error_text
    from toolwire.models._loaded import _beyond_training

    error = _beyond_training(20000, 8192, Path("/m/SmolLM2.gguf"))
    assert "pass n_ctx=8192 or less" in str(error)
    assert error_text(error) == ("--n-ctx 20000 is more than the 8192 tokens SmolLM2.gguf was trained on, so the "
                                 "model cannot use the rest: pass --n-ctx 8192 or less.")
