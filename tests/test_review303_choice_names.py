"""Review 303 #1, the Gemini provider's own ``tool_choice`` forms: a list of names or
``allowed_function_names`` naming a tool called ``none``/``auto``/``any``/``required`` is a
tool's name, never the mode of that name (before: ``["none"]`` sent ``mode: NONE``, so the tool could not be called):
it forces the tool when that is the one bound function tool, and is refused otherwise with the generic forms' sentence.
"""

from __future__ import annotations

from typing import Any

import pytest

from gemini_kit import gemini_model, named, other, sent_tool_config
from toolwire.errors import UserError

_named, _model, _sent = named, gemini_model, sent_tool_config


def _forms(name: str) -> list[Any]:
    return [[name], {"mode": "ANY", "allowed_function_names": [name]},
            {"function_calling_config": {"mode": "ANY", "allowed_function_names": [name]}},
            {"functionCallingConfig": {"mode": "any", "allowedFunctionNames": [name, name]}}]


@pytest.mark.parametrize("name", ["none", "auto", "any", "required"])
def test_a_mode_word_name_alone_is_forced(name: str) -> None:
    for given in _forms(name):
        bound = _model().bind_tools([_named(name), {"google_search": {}}], tool_choice=given)
        assert bound.tool_choice == "required", given
        assert _sent(bound) == {"function_calling_config": {"mode": "ANY"}}


@pytest.mark.parametrize("name", ["none", "auto", "any", "required"])
def test_a_mode_word_name_among_others_is_refused_never_a_mode(name: str) -> None:
    for given in _forms(name):
        with pytest.raises(UserError, match=rf"forces the tool named '{name}'.*rename the tool"):
            _model().bind_tools([_named(name), other], tool_choice=given)


@pytest.mark.parametrize("name", ["none", "auto", "any", "required"])
def test_a_mode_word_name_not_bound_is_refused(name: str) -> None:
    with pytest.raises(UserError, match=rf"names '{name}', which is not a bound function tool"):
        _model().bind_tools([other], tool_choice={"mode": "ANY", "allowed_function_names": [name]})


def test_every_tool_named_with_a_mode_word_among_them_is_required() -> None:
    bound = _model().bind_tools([_named("none"), other], tool_choice=["none", "other"])
    assert bound.tool_choice == "required"


def test_the_bare_mode_strings_keep_their_meaning() -> None:
    model = _model()
    assert model.bind_tools([_named("none"), other], tool_choice="none").tool_choice == "none"
    assert model.bind_tools([other], tool_choice={"mode": "NONE"}).tool_choice == "none"
