"""Review 199 #1, #3, #8, #10: ``--mcp URL`` answering non-MCP JSON or HTML gives toolwire's line only; two
``--tools`` files whose sibling modules share a name; a tools file of a package given as a path; ``models list`` with
``TOOLWIRE_MODEL_PATH``."""

from __future__ import annotations

import http.server
import logging
import os
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import cli
from toolwire.cli_tools import load_tools
from toolwire.errors import UserError

# -- #1: the SDK's record of an answer toolwire reports itself -------------------------------------------------------


class _NotMCP(http.server.BaseHTTPRequestHandler):
    """Answers every POST as an OpenAI server's /mcp path (JSON that is not JSON-RPC) or a web page would."""

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.endswith("/html"):
            body, kind = b"<html><body>hello</body></html>", "text/html"
        else:
            body, kind = b'{"id": "x", "object": "chat.completion", "choices": []}', "application/json"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self.do_GET()


@pytest.fixture
def not_mcp() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotMCP)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("path", "said"), [("/mcp", "JSON that is not an MCP message"),
                                            ("/html", "Unexpected content type")])
def test_a_url_answering_non_mcp_gives_toolwires_line_and_no_sdk_record(
        not_mcp: str, path: str, said: str, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("mcp")
    from toolwire.mcp import load_tools

    caplog.set_level(logging.DEBUG, logger="mcp")
    with pytest.raises(UserError, match=said):
        load_tools(not_mcp + path, connect_timeout=20)
    sdk = [r for r in caplog.records if r.name.startswith("mcp.client") and r.levelno >= logging.WARNING]
    assert sdk == [], [r.getMessage() for r in sdk]


def test_the_sdks_records_pass_for_code_that_is_not_a_toolwire_session(caplog: pytest.LogCaptureFixture) -> None:
    from toolwire.mcp import _sdk_logs

    caplog.set_level(logging.DEBUG, logger="mcp")
    logging.getLogger("mcp.client.streamable_http").error("Error parsing JSON response")
    with _sdk_logs.toolwire_reports():
        logging.getLogger("mcp.client.streamable_http").error("Error parsing JSON response")
        logging.getLogger("mcp.client.streamable_http").warning("Session termination failed: 500")
    assert [r.getMessage() for r in caplog.records if r.name.startswith("mcp.client")] == [
        "Error parsing JSON response", "Session termination failed: 500"]


# -- #3: two tools files whose sibling modules share a name ----------------------------------------------------------


@pytest.fixture
def helper_name(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A module name no other test uses; forgotten by ``sys.modules`` (and the folders by ``sys.path``) after."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    name = f"helpers199_{uuid.uuid4().hex[:8]}"
    yield name
    for key in list(sys.modules):
        if key.partition(".")[0] == name or key.startswith(("toolwire_user_tools_", "pack199_")):
            sys.modules.pop(key, None)


def _pack(folder: Path, pack: str, helper: str | None, *, imports: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if helper is not None:
        (folder / f"{helper}.py").write_text(f"NAME = 'helpers of {folder.name}'\n", encoding="utf-8")
    file = folder / f"{pack}.py"
    use = f"import {helper}\n" if imports else ""
    back = f"{helper}.NAME" if imports else f"'no helpers in {folder.name}'"
    file.write_text(f"{use}from toolwire import tool\n\n\n@tool\ndef weather_{folder.name}(city: str) -> str:\n"
                    f"    \"\"\"Weather.\"\"\"\n    return {back}\n", encoding="utf-8")
    return file


def test_two_files_whose_own_helpers_share_a_name_are_refused_naming_both(tmp_path: Path, helper_name: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = _pack(tmp_path / "a", "pack199_a", helper_name)
    second = _pack(tmp_path / "b", "pack199_b", helper_name)
    with pytest.raises(UserError) as caught:
        cli._loaded([str(first.relative_to(tmp_path)), str(second.relative_to(tmp_path))])
    text = str(caught.value)
    assert "'a/pack199_a.py' and 'b/pack199_b.py'" in text and repr(helper_name) in text
    assert "rename one" in text
    assert sys.modules[helper_name].NAME == "helpers of a"  # the first file's module is left in place


def test_mcp_serve_refuses_them_too(tmp_path: Path, helper_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire.mcp.server as server

    monkeypatch.setattr(server, "serve", lambda tools, **kwargs: None)
    monkeypatch.chdir(tmp_path)
    _pack(tmp_path / "a", "pack199_a", helper_name)
    _pack(tmp_path / "b", "pack199_b", helper_name)
    result = CliRunner().invoke(cli.app, ["mcp", "serve", "--tools", "a/pack199_a.py", "--tools", "b/pack199_b.py",
                                          "--transport", "http", "--port", "1"])
    assert result.exit_code == 1
    assert "'a/pack199_a.py' and 'b/pack199_b.py' each import a module named" in " ".join(result.output.split())


def test_each_file_gets_the_helpers_beside_it_when_there_is_no_clash(tmp_path: Path, helper_name: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = _pack(tmp_path / "a", "pack199_a", helper_name)
    second = _pack(tmp_path / "b", "pack199_b", helper_name, imports=False)  # a helpers file it does not import
    third = tmp_path / "a" / "pack199_c.py"  # the same folder: the one module, shared
    third.write_text(f"import {helper_name}\nfrom toolwire import tool\n\n\n@tool\ndef shared() -> str:\n"
                     f"    \"\"\"Shared.\"\"\"\n    return {helper_name}.NAME\n", encoding="utf-8")
    tools = {t.name: t for t in cli._loaded([str(first), str(second), str(third)])}
    assert tools["weather_a"].invoke({"city": "x"}) == "helpers of a"
    assert tools["weather_b"].invoke({"city": "x"}) == "no helpers in b"
    assert tools["shared"].invoke({}) == "helpers of a"
    assert sys.modules[helper_name].NAME == "helpers of a"


def test_a_file_imports_the_helpers_beside_it_before_the_current_folders(tmp_path: Path, helper_name: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd(), str(tmp_path))])
    (tmp_path / f"{helper_name}.py").write_text("NAME = 'helpers of the current folder'\n", encoding="utf-8")
    second = _pack(tmp_path / "b", "pack199_b", helper_name)
    [weather] = cli._loaded([str(second)])
    assert weather.invoke({"city": "x"}) == "helpers of b"


# -- #8: a module of a package given as a path -----------------------------------------------------------------------


@pytest.mark.parametrize("where", ["here", "above"])
def test_a_package_file_with_a_relative_import_is_told_to_pass_the_module_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    package = f"shop199_{uuid.uuid4().hex[:8]}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / package / "helpers.py").write_text("BASE = 1.5\n", encoding="utf-8")
    (tmp_path / package / "tools.py").write_text(
        "from .helpers import BASE\nfrom toolwire import tool\n\n\n@tool\ndef price(item: str) -> float:\n"
        "    \"\"\"Price of an item.\"\"\"\n    return BASE\n", encoding="utf-8")
    if where == "here":
        monkeypatch.chdir(tmp_path)
        spec = f"{package}/tools.py"
    else:
        monkeypatch.chdir(tmp_path.parent)
        spec = f"{tmp_path.name}/{package}/tools.py"
    with pytest.raises(UserError) as caught:
        load_tools(spec)
    text = str(caught.value)
    assert f"pass --tools {package}.tools" in text and "fix the code there" not in text
    assert (f"from the folder {tmp_path}," in text) == (where == "above")


# -- #10: models list and TOOLWIRE_MODEL_PATH ------------------------------------------------------------------------


def test_models_list_shows_a_model_found_through_toolwire_model_path(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models.registry import DEFAULT_MODEL, REGISTRY

    entry = REGISTRY[DEFAULT_MODEL]
    files = tmp_path / "files"
    files.mkdir()
    with open(files / entry.filename, "wb") as handle:  # (sparse: the right size, no bytes written)
        handle.truncate(entry.size)
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TOOLWIRE_MODEL_PATH", str(files))
    monkeypatch.setenv("COLUMNS", "300")
    result = CliRunner().invoke(cli.app, ["models", "list"])
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if line.count("│") > 2}
    assert "unverified (TOOLWIRE_MODEL_PATH)" in rows[f"{DEFAULT_MODEL} (default)"]
    others = [row for name, row in rows.items() if name != f"{DEFAULT_MODEL} (default)" and name != "name"]
    assert others and all("TOOLWIRE_MODEL_PATH" not in row and "│ no" in row for row in others)
    assert f"TOOLWIRE_MODEL_PATH: {files}" in " ".join(result.output.split())


def test_a_tools_file_that_is_the_module_another_folders_file_imports_is_refused_too(
        tmp_path: Path, helper_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / f"{helper_name}.py").write_text(
        "from toolwire import tool\n\n\n@tool\ndef ha() -> str:\n    \"\"\"A.\"\"\"\n    return 'a'\n",
        encoding="utf-8")
    _pack(tmp_path / "b", "pack199_b", helper_name)
    with pytest.raises(UserError, match=f"'a/{helper_name}.py' and 'b/pack199_b.py' each use a module named"):
        cli._loaded([f"a/{helper_name}.py", "b/pack199_b.py"])
