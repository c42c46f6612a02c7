"""Review 147: docstrings that docstring_parser's Google parser stops at (#1), and Napoleon's section aliases (#2)."""

from __future__ import annotations

import warnings

import pytest

from toolwire import ToolDefinitionWarning, tool


def _made(func):  # the tool, and the warnings its making gave
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = tool(func)
    return made, [str(w.message) for w in caught if issubclass(w.category, ToolDefinitionWarning)]


@pytest.mark.parametrize("raises", ["ValueError if q is empty.", "ValueError: if q is empty.\n        TypeError"])
def test_a_raises_entry_with_no_colon_keeps_the_parameters_descriptions(raises: str) -> None:
    def lookup(q: str, k: int = 5) -> list[str]:
        return []

    lookup.__doc__ = f"""Look up documents.

    Searches the full-text index.

    Args:
        q: the query text
        k: how many hits to return

    Returns:
        the hits, best first.

    Raises:
        {raises}
    """
    made, said = _made(lookup)
    assert made.description == "Look up documents.\n\nSearches the full-text index."
    properties = made.spec.parameters["properties"]
    assert properties["q"]["description"] == "the query text"
    assert properties["k"]["description"] == "how many hits to return"
    assert said == []


def test_a_parameter_section_no_style_reads_is_warned_about() -> None:
    def lookup(q: str, k: int = 5) -> list[str]:
        """Look up documents.

        Args:
            q - the query text
            k - how many hits to return
        """
        return []

    made, said = _made(lookup)
    assert "description" not in made.spec.parameters["properties"]["q"]
    assert said == ["The docstring of tool 'lookup' could not be read (Expected a colon in 'q - the query text'), so "
                    "its parameters get no description and the whole docstring is the tool's description: write each "
                    "parameter entry as 'name: text' (Google style) or ':param name: text'."]


def test_a_docstring_with_no_parameter_section_is_not_warned_about() -> None:
    def ping(host: str) -> str:
        """Ping a host - any host: it answers with its name."""
        return host

    assert _made(ping)[1] == []


@pytest.mark.parametrize("title", ["Return", "Yield", "Raise"])
def test_napoleons_singular_section_titles_stay_out_of_the_description(title: str) -> None:
    def lookup(q: str) -> list[str]:
        return []

    lookup.__doc__ = f"""Look up documents.

    Args:
        q: the query text

    {title}:
        ValueError: if q is empty.
    """
    made, said = _made(lookup)
    assert made.description == "Look up documents."
    assert made.spec.parameters["properties"]["q"]["description"] == "the query text" and said == []
