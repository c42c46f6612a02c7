"""Review 145, command line: ``toolwire mcp serve --port/--host/--path`` without ``--transport http`` is refused in
one sentence rather than ignored (#4). No server is started and no model is loaded."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire.cli import app

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
