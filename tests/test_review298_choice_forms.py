"""Review 298 #4, the Gemini provider: langchain-google-genai's ``tool_choice`` forms (a list of names, ``{"mode",
"allowed_function_names"}``, ``{"function_calling_config": {...}}``) are read where toolwire's neutral choice can say
them (a mode, one name, every bound function tool), and a true subset of two or more of the bound tools, which toolwire
cannot send, is refused with a sentence saying what to do instead (before: "is not 'auto', 'none', ...")."""

from __future__ import annotations

from typing import Any

import pytest

from gemini_kit import gemini_model, search
from toolwire import tool
from toolwire.errors import UserError


@tool
def fetch(url: str) -> str:
    """Fetch."""
    return url


@tool
def delete_all() -> str:
    """Delete everything."""
    return "gone"


_model = gemini_model


@pytest.mark.parametrize(("given", "neutral"), [
    (["fetch"], "fetch"),
    (["search", "fetch", "delete_all"], "required"),
    ({"mode": "ANY"}, "required"),
    ({"mode": "any", "allowed_function_names": ["search"]}, "search"),
    ({"mode": "AUTO"}, "auto"),
    ({"mode": "NONE"}, "none"),
    ({"function_calling_config": {"mode": "ANY", "allowed_function_names": ["fetch"]}}, "fetch"),
    ({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["delete_all", "fetch", "search"]}},
     "required"),
])
def test_gemini_forms_toolwire_can_say(given: Any, neutral: str) -> None:
    assert _model().bind_tools([search, fetch, delete_all], tool_choice=given).tool_choice == neutral


@pytest.mark.parametrize("given", [
    ["search", "fetch"],
    {"mode": "ANY", "allowed_function_names": ["search", "fetch"]},
    {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["search", "fetch"]}},
])
def test_a_subset_is_refused_with_what_to_do(given: Any) -> None:
    with pytest.raises(UserError, match=r"bind only those tools") as caught:
        _model().bind_tools([search, fetch, delete_all], tool_choice=given)
    assert "'search', 'fetch'" in str(caught.value)


@pytest.mark.parametrize(("given", "words"), [
    ({"mode": "AUTO", "allowed_function_names": ["search"]}, "mode 'ANY'"),
    ({"mode": "VALIDATED"}, "'AUTO', 'ANY' or 'NONE'"),
    (["search", "nope"], "not a bound function tool"),
])
def test_other_gemini_forms_are_refused_clearly(given: Any, words: str) -> None:
    with pytest.raises(UserError, match=words):
        _model().bind_tools([search, fetch, delete_all], tool_choice=given)


def test_the_neutral_forms_are_unchanged() -> None:
    model = _model()
    assert model.bind_tools([search, fetch], tool_choice={"type": "tool", "name": "fetch"}).tool_choice == "fetch"
    assert model.bind_tools([search, fetch], tool_choice="any").tool_choice == "required"
    assert model.bind_tools([search, fetch]).tool_choice == "auto"
