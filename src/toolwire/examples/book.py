"""The three tools of the book chapter "Conectando Ferramentas ao LLM" (chapter 13).

``get_weather`` and ``search_web`` are as in the chapter (canned answers). ``calculate`` keeps the
chapter's name, docstring and behaviour (``str`` of the value) but never uses ``eval``: it goes through
:func:`toolwire.examples.arith.evaluate`, which reads only numbers, + - * / // % ** and parentheses,
and bounds the work so hostile input cannot hang or exhaust memory.
"""

from __future__ import annotations

from toolwire.examples.arith import evaluate
from toolwire.tools import tool

__all__ = ["BOOK_TOOLS", "calculate", "get_weather", "search_web"]


@tool
def get_weather(city: str) -> str:
    """Obtém o clima atual de uma determinada cidade."""
    return f"It's always sunny in {city}!"


@tool
def calculate(expression: str) -> str:
    """Avalia uma expressão aritmética simples como '123 * 456'."""
    return str(evaluate(expression))


@tool
def search_web(query: str) -> str:
    """Pesquisa na web informações atuais sobre um tópico."""
    return f"Top result for '{query}': ..."


BOOK_TOOLS = [get_weather, calculate, search_web]
