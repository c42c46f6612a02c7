"""Review 135, a new user's first hour: four defects of the ``toolwire`` command.

#3: a tools file that fails at import (a syntax error, an exception) and a broken BFCL data line gave one-line errors
that did not say where, or what to do (the BFCL one read cut off: json's "Unterminated string starting at").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire import cli
from toolwire.errors import UserError


def test_a_tools_file_with_a_syntax_error_names_its_line_and_says_to_fix_it(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("from toolwire import tool\n@tool\ndef f(x: int) -> int:\n    'Doc.'\n    return x +\n")
    with pytest.raises(UserError) as info:
        cli.load_tools(str(path))
    text = str(info.value)
    assert f"failed at {path}:5 with SyntaxError: invalid syntax: fix the code there" in text
    assert "\n" not in text and "(broken.py, line 5)" not in text


def test_a_tools_file_that_raises_at_import_names_the_line_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "raises.py"
    path.write_text("import os\n\nAPI = os.environ['R135_SURELY_MISSING_VARIABLE']\n")
    with pytest.raises(UserError) as info:
        cli.load_tools(str(path))
    text = str(info.value)
    assert f"failed at {path}:3 with KeyError: 'R135_SURELY_MISSING_VARIABLE': fix the code there" in text


def test_the_line_named_is_the_users_own_not_the_librarys(tmp_path: Path) -> None:
    (tmp_path / "helper_r135.py").write_text("import json\n\n\ndef load():\n    return json.loads('{')\n")
    path = tmp_path / "uses_helper.py"
    path.write_text("from helper_r135 import load\n\nCONFIG = load()\n")
    with pytest.raises(UserError) as info:
        cli.load_tools(str(path))
    assert f"failed at {tmp_path / 'helper_r135.py'}:5 with JSONDecodeError" in str(info.value)


def test_a_module_that_is_not_there_says_to_give_a_file_or_a_module() -> None:
    with pytest.raises(UserError, match=r"there is no module named 'no_such_module_r135': give a \.py file"):
        cli.load_tools("no_such_module_r135")


def test_a_broken_bfcl_line_gives_its_column_and_what_to_do(tmp_path: Path) -> None:
    from toolwire.evals.bfcl import _read_jsonl

    path = tmp_path / "BFCL_v4_simple_python.json"
    path.write_text('{"id": "a"}\n{"id": "b", "function": [{"name": "f", "descrip\n', encoding="utf-8")
    with pytest.raises(UserError) as info:
        _read_jsonl(path)
    assert str(info.value) == (f"{path}:2 is not valid JSON (Unterminated string starting at column 40): fix that "
                               "line, or get a fresh copy of the BFCL data.")
