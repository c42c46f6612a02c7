"""convert_to_openai_tool: its strict flag is checked as bind_tools checks it, and by default an OpenAI tool
dict keeps its own "strict" as langchain-core's convert_to_openai_tool keeps it (review 280 #4); and
with_structured_output checks include_raw as it checks strict (review 280 #6a)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from toolwire import AIMessage, UserError, convert_to_openai_tool
from toolwire.models.lowering.openai import convert_to_openai_responses_tool
from toolwire.testing import ScriptedChatModel


def weather(city: str) -> str:
    """Weather in a city."""
    return city


class Step(BaseModel):
    """One step."""

    a: int


def _tool_dict(strict: bool | None) -> dict:
    function = {"name": "get_weather", "description": "Weather.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                               "required": ["city"], "additionalProperties": False}}
    if strict is not None:
        function["strict"] = strict
    return {"type": "function", "function": function}


@pytest.mark.parametrize("bad", ["false", "true", 1, 0, 1.0])
@pytest.mark.parametrize("convert", [convert_to_openai_tool, convert_to_openai_responses_tool])
def test_strict_not_a_bool_is_refused_as_bind_tools_refuses_it(convert, bad):
    with pytest.raises(UserError) as bound:
        ScriptedChatModel(["x"]).bind_tools([weather], strict=bad)
    with pytest.raises(UserError) as converted:
        convert(weather, strict=bad)
    assert str(converted.value) == str(bound.value) == f"strict must be True, False or None, not {bad!r}."


def test_default_keeps_a_tool_dicts_own_strict_flag():
    assert convert_to_openai_tool(_tool_dict(True))["function"]["strict"] is True
    assert convert_to_openai_responses_tool(_tool_dict(True))["strict"] is True
    assert "strict" not in convert_to_openai_tool(_tool_dict(None))["function"]
    assert "strict" not in convert_to_openai_tool(_tool_dict(False))["function"]  # (false: the same as left out)
    assert convert_to_openai_responses_tool(_tool_dict(False))["strict"] is False


def test_an_explicit_strict_still_decides_for_a_tool_dict():
    assert "strict" not in convert_to_openai_tool(_tool_dict(True), strict=False)["function"]
    assert convert_to_openai_tool(_tool_dict(None), strict=True)["function"]["strict"] is True


@pytest.mark.parametrize("obj", [weather, Step])
def test_function_and_model_default_is_not_strict(obj):
    function = convert_to_openai_tool(obj)["function"]
    assert "strict" not in function
    assert convert_to_openai_tool(obj, strict=True)["function"]["strict"] is True


def test_matches_langchain_core_for_function_model_and_dict():
    lc = pytest.importorskip("langchain_core.utils.function_calling").convert_to_openai_tool
    cases = [(obj, kw) for obj in (weather, Step) for kw in ({}, {"strict": None}, {"strict": True})]
    # (a tool dict: langchain-core returns it as it is whatever strict says; toolwire's True or False decides)
    cases += [(obj, kw) for obj in (_tool_dict(True), _tool_dict(None)) for kw in ({}, {"strict": None})]
    for obj, kw in cases:
        ours, theirs = convert_to_openai_tool(obj, **kw)["function"], lc(obj, **kw)["function"]
        assert ours.get("strict") == theirs.get("strict"), (obj, kw)
        assert ours["name"] == theirs["name"]


def _structured_model() -> ScriptedChatModel:
    return ScriptedChatModel([AIMessage("", tool_calls=[{"name": "Step", "args": {"a": 3}, "id": "c1"}])],
                             cycle=True)


@pytest.mark.parametrize("bad", ["false", "true", 1, 0, None])
def test_include_raw_not_a_bool_is_refused(bad):
    with pytest.raises(UserError) as info:
        _structured_model().with_structured_output(Step, include_raw=bad)
    message = str(info.value)
    assert message == f"include_raw must be True or False, not {bad!r}."


@pytest.mark.parametrize("flag", [True, False])
def test_include_raw_bool_still_works(flag):
    out = _structured_model().with_structured_output(Step, include_raw=flag).invoke("x")
    if flag:
        assert out["parsed"] == Step(a=3) and out["parsing_error"] is None
    else:
        assert out == Step(a=3)
