"""Review 286 #7: the ASCII name the ``--tools`` loader suggests for a function named with letters beyond ASCII
(``preço`` -> ``preco``) could be the name of another tool of the same file, and following the advice word for word
then failed with "Two tools are named 'preco'"; now a free name is suggested (``preco_2``). Where the set of tools
is not known (a lone ``@tool``), the suggestion is as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire import SchemaError, UserError, tool
from toolwire._tool_checks import check_name, free_name
from toolwire.cli_tools import load_tools


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "names_tools.py"
    path.write_text(text, encoding="utf-8")
    return str(path)


CLASH = '''
def preco(item: str) -> float:
    """Price of an item (ASCII name)."""
    return 1.0

def preço(item: str) -> float:
    """Price of an item, in reais."""
    return 2.0
'''


def test_a_documented_function_is_told_a_free_name(tmp_path: Path) -> None:
    with pytest.raises(UserError) as info:
        load_tools(_file(tmp_path, CLASH))
    said = str(info.value)
    assert '@tool(name="preco_2")' in said and '@tool(name="preco")' not in said


def test_the_free_name_works_when_followed(tmp_path: Path) -> None:
    fixed = _file(tmp_path, "from toolwire import tool\n" + CLASH.replace("def preco(", "@tool\ndef preco(").replace(
        "def preço(", '@tool(name="preco_2")\ndef preço('))
    assert sorted(t.name for t in load_tools(fixed)) == ["preco", "preco_2"]


def test_the_next_free_number_is_taken(tmp_path: Path) -> None:
    more = CLASH + '''
def preco_2(item: str) -> float:
    """Price with tax."""
    return 3.0
'''
    with pytest.raises(UserError) as info:
        load_tools(_file(tmp_path, more))
    assert '@tool(name="preco_3")' in str(info.value)


def test_a_tools_list_is_told_a_free_name(tmp_path: Path) -> None:
    listed = CLASH + "\nTOOLS = [preco, preço]\n"
    with pytest.raises(UserError) as info:
        load_tools(_file(tmp_path, listed))
    said = str(info.value)
    assert "'preco_2'" in said and "'preco'" not in said.replace("'preço'", "")


def test_no_clash_keeps_the_plain_suggestion(tmp_path: Path) -> None:
    with pytest.raises(UserError) as info:
        load_tools(_file(tmp_path, CLASH.replace("def preco(", "def custo(")))
    assert '@tool(name="preco")' in str(info.value)


def test_a_lone_tool_is_as_before() -> None:
    with pytest.raises(SchemaError) as info:
        @tool
        def preço(item: str) -> float:
            """Price."""
            return 2.0
    assert '@tool(name="preco")' in str(info.value)


def test_free_name_and_check_name() -> None:
    assert free_name("preco", set()) == "preco"
    assert free_name("preco", {"preco", "preco_2"}) == "preco_3"
    assert len(free_name("p" * 64, {"p" * 64})) == 64
    with pytest.raises(SchemaError) as info:
        check_name("preço", taken={"preco"})
    assert "'preco_2'" in str(info.value) and '@tool(name="preco_2")' in str(info.value)
