"""Review 282 #3: a function whose name has letters beyond ASCII (``calcular_preço``, legal in Python) could not be
a tool, and the errors said the rule but not the fix, ``@tool(name="calcular_preco")``; the ``--tools`` loader's
advice ("mark the tools with @tool") led back to the same error."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire import SchemaError, Tool, UserError, tool
from toolwire.cli_tools import load_tools

RULE = "use 1 to 64 ASCII letters, digits, '_' or '-' (the rule of the OpenAI and Anthropic APIs)"


def test_a_function_named_with_accents_is_told_the_ascii_name_to_give() -> None:
    with pytest.raises(SchemaError) as info:
        @tool
        def calcular_preço(quantidade: int) -> int:
            """Calcula o preço."""
            return quantidade

    said = str(info.value)
    assert said.startswith(f"Tool name 'calcular_preço' is not allowed: {RULE}")
    assert "'calcular_preco'" in said and '@tool(name="calcular_preco")' in said
    assert said.count(". ") == 0 and said.endswith(".")  # (one sentence)


def test_the_advice_works() -> None:
    @tool(name="calcular_preco")
    def calcular_preço(quantidade: int) -> int:
        """Calcula o preço."""
        return quantidade * 2

    assert calcular_preço.name == "calcular_preco"
    assert calcular_preço.invoke({"quantidade": 2}) == 4


@pytest.mark.parametrize(("name", "suggested"), [
    ("número_de_série", "numero_de_serie"), ("Straße", "Stra_e"), ("café-☕", "cafe"), ("ｆｕｌｌ", "full"),
    ("calcular_天気", "calcular"),
])
def test_other_names_get_an_ascii_form(name: str, suggested: str) -> None:
    def f() -> str:
        """F."""
        return ""

    with pytest.raises(SchemaError) as info:
        Tool.from_function(f, name=name)
    assert f"is not allowed: {RULE}" in str(info.value)
    assert f'@tool(name="{suggested}")' in str(info.value)


def test_a_name_without_an_ascii_form_is_told_to_give_one() -> None:
    with pytest.raises(SchemaError) as info:
        @tool
        def 天気(city: str) -> str:
            """Weather."""
            return city

    said = str(info.value)
    assert said.startswith(f"Tool name '天気' is not allowed: {RULE}")
    assert '@tool(name="...")' in said and said.endswith(".")


PRICE_FUNCTION = 'def calcular_preço(quantidade: int) -> int:\n    """Calcula o preço."""\n    return quantidade\n'


def test_the_tools_file_loader_names_the_fix_for_a_function_named_with_accents(tmp_path: Path) -> None:
    path = tmp_path / "precos.py"
    path.write_text(PRICE_FUNCTION, encoding="utf-8")
    with pytest.raises(UserError) as info:
        load_tools(str(path))
    said = str(info.value)
    assert '@tool(name="calcular_preco")' in said
    assert "_calcular_preço" in said  # (a helper: the other way out)
    assert "mark the tools with @tool" not in said  # (which gave the same error)
    assert said.count("\n") == 0

    path.write_text('from toolwire import tool\n\n@tool(name="calcular_preco")\n' + PRICE_FUNCTION, encoding="utf-8")
    assert [t.name for t in load_tools(str(path))] == ["calcular_preco"]


def test_the_tools_entry_of_a_function_named_with_accents_is_told_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "precos_list.py"
    path.write_text(PRICE_FUNCTION + "\nTOOLS = [calcular_preço]\n", encoding="utf-8")
    with pytest.raises(UserError) as info:
        load_tools(str(path))
    assert '@tool(name="calcular_preco")' in str(info.value)
