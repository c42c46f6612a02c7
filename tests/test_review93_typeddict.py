"""Review 93 #4: LangChain's TypedDict convention ``Annotated[T, default, "description"]`` (its structured-output
guide's ``Joke``) makes the field optional with that default and description, as LangChain's own
``convert_to_openai_tool`` reads it, for tool arguments and structured output alike."""

from __future__ import annotations

from typing import Annotated, Optional

import pytest
from typing_extensions import TypedDict

from toolwire import AIMessage, convert_to_openai_tool, tool
from toolwire.testing import ScriptedChatModel


class Joke(TypedDict):
    """Joke to tell user."""

    setup: Annotated[str, ..., "The setup of the joke"]
    punchline: Annotated[str, ..., "The punchline of the joke"]
    rating: Annotated[Optional[int], None, "How funny the joke is, from 1 to 10"]  # noqa: UP045  (the guide's words)
    tone: Annotated[str, "dry", "The tone"]


def test_the_default_makes_the_field_optional_with_its_description() -> None:
    params = convert_to_openai_tool(Joke)["function"]["parameters"]
    assert params["required"] == ["setup", "punchline"]
    assert params["properties"]["rating"]["description"] == "How funny the joke is, from 1 to 10"
    assert params["properties"]["rating"]["default"] is None
    assert params["properties"]["tone"] == {"default": "dry", "description": "The tone", "type": "string"}
    assert params["properties"]["setup"] == {"description": "The setup of the joke", "type": "string"}


def test_it_matches_langchains_reading() -> None:
    lc = pytest.importorskip("langchain_core.utils.function_calling")
    theirs = lc.convert_to_openai_tool(Joke)["function"]["parameters"]
    ours = convert_to_openai_tool(Joke)["function"]["parameters"]
    assert sorted(ours["required"]) == sorted(theirs["required"])
    for name, prop in theirs["properties"].items():
        assert ours["properties"][name]["description"] == prop["description"]


def test_structured_output_and_tool_arguments_fill_the_default() -> None:
    reply = AIMessage("", tool_calls=[{"name": "Joke", "args": {"setup": "s", "punchline": "p"}, "id": "c"}])
    joke = ScriptedChatModel([reply]).with_structured_output(Joke).invoke("tell me a joke")
    assert joke == {"setup": "s", "punchline": "p", "rating": None, "tone": "dry"}

    @tool
    def tell(joke: Joke) -> str:
        """Tell a joke."""
        return repr(joke)

    assert tell.invoke({"joke": {"setup": "s", "punchline": "p", "rating": 7}}) == repr(
        {"setup": "s", "punchline": "p", "rating": 7, "tone": "dry"})
