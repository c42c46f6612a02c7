"""Review 303 #4, the Gemini provider's own ``tool_choice`` forms: one string for ``allowed_function_names`` is one
name (before: read letter by letter, so ``"sss"`` sent ``["s"]``), a dumped ``ToolConfig`` / ``FunctionCallingConfig``
(its ``None`` keys) is read, and a ``ToolConfig`` holding a location says where that goes."""
from __future__ import annotations

import pytest

from gemini_kit import gemini_model, named, other, search, sent_tool_config
from toolwire.errors import UserError

_named, _model, _sent = named, gemini_model, sent_tool_config


@pytest.mark.parametrize("key", ["allowed_function_names", "allowedFunctionNames"])
def test_one_string_of_names_is_one_name(key: str) -> None:
    assert _model().bind_tools([search, other], tool_choice={"mode": "ANY", key: "search"}).tool_choice == "search"
    with pytest.raises(UserError, match=r"names 'sss', which is not a bound function tool"):
        _model().bind_tools([_named("s")], tool_choice={"mode": "ANY", key: "sss"})


def test_a_dumped_tool_config_is_read() -> None:
    from google.genai import types

    calling = types.FunctionCallingConfig(mode="ANY", allowed_function_names=["search"])
    for dumped in (types.ToolConfig(function_calling_config=calling).model_dump(),
                   types.ToolConfig(function_calling_config=calling).model_dump(mode="json"),
                   calling.model_dump(), types.ToolConfig(
                       function_calling_config=types.FunctionCallingConfig(mode="AUTO")).model_dump()):
        assert _model().bind_tools([search, other], tool_choice=dumped).tool_choice in ("search", "auto")


def test_a_tool_config_with_a_location_is_refused_with_where_it_goes() -> None:
    given = {"function_calling_config": {"mode": "ANY"},
             "retrieval_config": {"lat_lng": {"latitude": 1.0, "longitude": 2.0}}}
    with pytest.raises(UserError, match=r"model_kwargs=\{'tool_config': \{'retrieval_config'"):
        _model().bind_tools([search], tool_choice=given)
