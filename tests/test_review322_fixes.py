"""Review 322: ``--tools`` files named otherwise than ``.py``.

#1: such a file was loaded through a loader that read and wrote the bytecode cache, whose name (``tools.cpython-*.pyc``)
is that of ``tools.py`` beside it: one then ran the other's code. #2: a JSON (or other data) file given to ``--tools``
was run as Python and failed with a ``NameError`` about ``false``; it is refused in one sentence.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolwire.cli_tools import load_tools
from toolwire.errors import UserError


def _names(tools: list) -> list[str]:
    return [t.name for t in tools]


def test_a_file_named_otherwise_than_py_shares_no_bytecode_cache_with_tools_py(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    source = "from toolwire import tool\n\n@tool\ndef {0}() -> str:\n    \"\"\"Say {0}.\"\"\"\n    return '{0}'\n"
    py, txt = tmp_path / "tools.py", tmp_path / "tools.txt"
    py.write_text(source.format("alpha"))
    txt.write_text(source.format("gamma"))
    os.utime(txt, (py.stat().st_mtime, py.stat().st_mtime))  # (the same size and mtime: the cache cannot tell them)
    assert _names(load_tools("tools.txt")) == ["gamma"]
    assert not (tmp_path / "__pycache__").exists() or not list((tmp_path / "__pycache__").glob("tools.*"))
    assert _names(load_tools(str(py))) == ["alpha"]
    assert _names(load_tools("tools.txt")) == ["gamma"]


@pytest.mark.parametrize("name", ["tools.json", "tools.yaml", "tools.toml"])
def test_a_data_file_given_to_tools_is_refused_in_one_sentence(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text('[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}, "x": false}]')
    with pytest.raises(UserError) as caught:
        load_tools(str(path))
    text = str(caught.value)
    assert "--tools takes a Python file of @tool functions" in text and text.count(". ") == 0
