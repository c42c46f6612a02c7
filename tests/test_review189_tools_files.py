"""Review 189 #1: a ``--tools`` file that another tools file imports is loaded once, as the module the other file
imports, and a tool both files give is one tool, not two tools of one name."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import cli
from toolwire.cli_tools import load_tools
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel


@pytest.fixture
def names(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """Two module names no other test uses; forgotten by ``sys.modules`` (and their folder by ``sys.path``) after."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    tag = uuid.uuid4().hex[:8]
    base, more = f"base189_{tag}", f"more189_{tag}"
    yield base, more
    for name in list(sys.modules):
        if name in (base, more) or name.startswith("toolwire_user_tools_"):
            sys.modules.pop(name, None)


def _write(folder: Path, base: str, more: str, *, more_has_tools: bool = True) -> None:
    (folder / f"{base}.py").write_text(
        "RUNS = [__name__]\nfrom toolwire import tool\nCOUNTER = {'n': 0}\n\n\n@tool\ndef bump() -> int:\n"
        "    \"\"\"Add one to the counter.\"\"\"\n    COUNTER['n'] += 1\n    return COUNTER['n']\n", encoding="utf-8")
    (folder / f"{more}.py").write_text(
        f"from toolwire import tool\nimport {base}\nfrom {base} import bump\n\n\n@tool\ndef peek() -> int:\n"
        f"    \"\"\"The counter.\"\"\"\n    return {base}.COUNTER['n']\n"
        + ("\nTOOLS = [peek]\n" if more_has_tools else ""), encoding="utf-8")


@pytest.mark.parametrize("order", ["base first", "more first"])
def test_a_file_another_imports_is_one_module(tmp_path: Path, names: tuple[str, str], order: str) -> None:
    base, more = names
    _write(tmp_path, base, more)
    specs = [str(tmp_path / f"{base}.py"), str(tmp_path / f"{more}.py")]
    loaded = cli._loaded(specs if order == "base first" else specs[::-1])
    tools = {tool.name: tool for tool in loaded}
    assert sorted(tools) == ["bump", "peek"]
    runs = sys.modules[base].RUNS
    assert runs == [base]  # run once, under the name the other file imports
    assert tools["bump"].invoke({}) == 1
    assert tools["peek"].invoke({}) == 1  # the one COUNTER


def test_a_tool_two_files_give_is_one_tool(tmp_path: Path, names: tuple[str, str]) -> None:
    base, more = names
    _write(tmp_path, base, more, more_has_tools=False)  # more publishes the bump it imports, as well as peek
    loaded = cli._loaded([str(tmp_path / f"{base}.py"), str(tmp_path / f"{more}.py")])
    assert [tool.name for tool in loaded] == ["bump", "peek"]


def test_a_plain_function_in_two_tools_lists_is_one_tool(tmp_path: Path, names: tuple[str, str]) -> None:
    base, more = names
    (tmp_path / f"{base}.py").write_text(
        "def area(side: float) -> float:\n    \"\"\"A square's area.\n\n    Args:\n        side: its side.\n"
        "    \"\"\"\n    return side * side\n\n\nTOOLS = [area]\n", encoding="utf-8")
    (tmp_path / f"{more}.py").write_text(f"from {base} import area\n\nTOOLS = [area]\n", encoding="utf-8")
    loaded = cli._loaded([str(tmp_path / f"{base}.py"), str(tmp_path / f"{more}.py")])
    assert [tool.name for tool in loaded] == ["area"]


def test_two_different_tools_of_one_name_are_still_refused(tmp_path: Path, names: tuple[str, str]) -> None:
    base, more = names
    for name in names:
        (tmp_path / f"{name}.py").write_text(
            "from toolwire import tool\n\n\n@tool\ndef bump() -> int:\n    \"\"\"Add one.\"\"\"\n    return 1\n",
            encoding="utf-8")
    with pytest.raises(UserError, match="Two tools are named 'bump'"):
        cli._loaded([str(tmp_path / f"{base}.py"), str(tmp_path / f"{more}.py")])


def test_a_name_that_is_not_importable_keeps_a_made_up_module(tmp_path: Path, names: tuple[str, str]) -> None:
    script = tmp_path / "my-tools.py"
    script.write_text("from toolwire import tool\nNAME = __name__\n\n\n@tool\ndef hello() -> str:\n"
                      "    \"\"\"Say hello.\"\"\"\n    return 'hi'\n", encoding="utf-8")
    [hello] = load_tools(str(script))
    assert sys.modules[hello.func.__module__].NAME.startswith("toolwire_user_tools_")


def test_a_file_named_like_another_module_does_not_take_its_place(tmp_path: Path, names: tuple[str, str]) -> None:
    import json

    script = tmp_path / "json.py"  # the standard library's json comes first on the path
    script.write_text("from toolwire import tool\n\n\n@tool\ndef hello() -> str:\n    \"\"\"Say hello.\"\"\"\n"
                      "    return 'hi'\n", encoding="utf-8")
    [hello] = load_tools(str(script))
    assert hello.func.__module__.startswith("toolwire_user_tools_")
    assert sys.modules["json"] is json


@pytest.mark.parametrize("command", ["ask", "mcp"])
def test_the_commands_load_the_two_files(tmp_path: Path, names: tuple[str, str], command: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    base, more = names
    _write(tmp_path, base, more, more_has_tools=False)
    args = ["--tools", str(tmp_path / f"{base}.py"), "--tools", str(tmp_path / f"{more}.py")]
    if command == "ask":
        monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel(["ok"]))
        result = CliRunner().invoke(cli.app, ["ask", "hi", *args])
    else:
        import toolwire.mcp.server as server

        served: list[list[str]] = []
        monkeypatch.setattr(server, "serve", lambda tools, **kwargs: served.append([t.name for t in tools]))
        import socket

        with socket.socket() as probe:  # (http: stdio would hand stdout over to the protocol)
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        result = CliRunner().invoke(cli.app, ["mcp", "serve", *args, "--transport", "http", "--port", str(port)])
        assert served == [["bump", "peek"]]
    assert result.exit_code == 0, result.output
    assert "Two tools" not in result.output
