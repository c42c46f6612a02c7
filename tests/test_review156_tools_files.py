"""Review 156 #7 and #8: a tools file named two ways is read once; one that raises a BaseException at import ends
the command with one line, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import cli
from toolwire.cli_tools import load_tools
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel

_TOOL = ("import builtins\nbuiltins.imports_156 = getattr(builtins, 'imports_156', 0) + 1\n"
         "from toolwire import tool\n\n\n@tool\ndef get_weather(city: str) -> str:\n"
         "    \"\"\"The weather.\n\n    Args:\n        city: a city.\n    \"\"\"\n    return 'sunny'\n")


def test_a_file_named_two_ways_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    (tmp_path / "tf").mkdir()
    (tmp_path / "tf" / "counted.py").write_text(_TOOL, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(builtins, "imports_156", 0, raising=False)
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: ScriptedChatModel(["ok"]))
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--tools", "tf/counted.py", "--tools",
                                          str(tmp_path / "tf" / "counted.py"), "--tools", "./tf/counted.py"])
    assert result.exit_code == 0, result.output
    assert builtins.imports_156 == 1  # type: ignore[attr-defined]


def test_a_base_exception_at_import_is_one_line(tmp_path: Path) -> None:
    script = tmp_path / "baseexc.py"
    script.write_text("class Cancelled(BaseException):\n    pass\n\n\nraise Cancelled('stopped while loading')\n",
                      encoding="utf-8")
    with pytest.raises(UserError, match=r"baseexc.py:5 with Cancelled: stopped while loading"):
        load_tools(str(script))


def test_ctrl_c_at_import_is_still_an_interrupt(tmp_path: Path) -> None:
    script = tmp_path / "ctrlc.py"
    script.write_text("raise KeyboardInterrupt\n", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        load_tools(str(script))
