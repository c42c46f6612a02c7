"""Review 124 #7: the embedded model's grammar read a pattern's ``\\w`` as ASCII only, while validation (pydantic's
regex) reads it as Unicode, so the model could not write ``"São Paulo"`` for ``^[\\w ]+$`` and had to misspell it."""

from __future__ import annotations

import json
import re
from typing import Annotated

import pytest
from pydantic import Field

from test_grammar import Gbnf
from toolwire import tool
from toolwire.models._grammar_pattern import pattern_rule
from toolwire.models.base import to_tool_spec
from toolwire.models.grammar import Rules, call_grammar

NAMES = ["Paris", "São Paulo", "Zürich", "Kraków", "Ærøskøbing", "Hà Nội", "Москва", "Αθήνα", "東京", "서울",
         "ירושלים", "القاهرة", "Cafe\u0301"]  # (the last one's accent is a combining mark)


@tool
def weather(city: Annotated[str, Field(pattern=r"^[\w ]+$")]) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize("name", NAMES)
def test_a_word_pattern_takes_the_letters_validation_takes(name: str) -> None:
    assert weather.invoke({"city": name}) == f"sunny in {name}"  # what the tool takes...
    grammar = Gbnf(call_grammar([to_tool_spec(weather)], "json", parallel=False))
    assert grammar.accepts(json.dumps({"name": "weather", "arguments": {"city": name}}, ensure_ascii=False))


@pytest.mark.parametrize("text", ["a-b", "x.y", "São!", "€5", "a×b", "a÷b"])
def test_a_word_pattern_still_refuses_signs(text: str) -> None:
    rules = Rules("json")
    grammar = Gbnf(rules.text(pattern_rule(r"^\w+$", rules)))
    assert re.fullmatch(r"\w+", text) is None
    assert not grammar.accepts(text)


def test_llama_cpp_parses_the_word_class() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    llama_cpp.LlamaGrammar.from_string(call_grammar([to_tool_spec(weather)], "json"), verbose=False)
