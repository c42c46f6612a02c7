"""Review 252: structured output.

#1: OpenAI strict mode refuses an ``enum``/``const`` string holding a double quote or a line feed (a 400 for every
request: '" is not allowed in string literals for structured outputs (strict=true)'): such a schema is sent
non-strict with a :class:`StrictSchemaWarning` naming the value, as other refused schemas are, for tools and
structured output, Chat Completions, Responses and OpenAI-compatible servers alike.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from toolwire import tool
from toolwire.models import ChatOpenAI
from toolwire.models.lowering._openai_strict import strict_schema
from toolwire.models.lowering.openai import (
    StrictSchemaWarning,
    convert_to_openai_responses_tool,
    convert_to_openai_tool,
)

# -- 1: enum/const strings strict mode refuses ---------------------------------------------------------------------


class Answer(BaseModel):
    tone: Literal['say "hi"', "plain"]


class Lines(BaseModel):
    tone: Literal["line one\nline two", "plain"]


class Quote(BaseModel):
    quote: Literal['He said "no"'] = 'He said "no"'


class Fine(BaseModel):
    tone: Literal["it's fine", "tab\there", "back\\slash", "crlf\r", "plain"]


def _strict_warnings(convert: Any, one: Any) -> tuple[dict[str, Any], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = convert(one, strict=True)
    out = out.get("function", out)
    return out, [str(w.message) for w in caught if issubclass(w.category, StrictSchemaWarning)]


@pytest.mark.parametrize("convert", [convert_to_openai_tool, convert_to_openai_responses_tool])
@pytest.mark.parametrize(("model", "shown"), [(Answer, "'say \"hi\"'"), (Lines, r"'line one\nline two'"),
                                              (Quote, "'He said \"no\"'")])
def test_a_string_literal_strict_mode_refuses_is_sent_non_strict_with_a_warning(convert: Any, model: type,
                                                                                 shown: str) -> None:
    out, said = _strict_warnings(convert, model)
    assert not out.get("strict")
    assert len(said) == 1, said
    assert f"Tool {model.__name__!r} cannot use OpenAI strict mode" in said[0]
    assert shown in said[0]


def test_other_characters_stay_strict() -> None:
    out, said = _strict_warnings(convert_to_openai_tool, Fine)
    assert out.get("strict") is True and said == []


def test_strict_schema_names_the_value_and_the_character() -> None:
    with pytest.raises(ValueError, match=r"enum value 'say \"hi\"' holds a double quote"):
        strict_schema(Answer.model_json_schema())
    with pytest.raises(ValueError, match=r"const value 'He said \"no\"' holds a double quote"):
        strict_schema({"type": "object", "properties": {"q": {"const": 'He said "no"'}}, "required": ["q"]})
    with pytest.raises(ValueError, match=r"holds a line feed"):
        strict_schema({"type": "object", "properties": {"q": {"type": "array", "items": {
            "enum": ["a", "b\nc"]}}}, "required": ["q"]})


def test_a_tool_with_such_an_enum_warns_too() -> None:
    @tool
    def say(tone: Literal['say "hi"', "plain"]) -> str:
        """Say it."""
        return tone

    out, said = _strict_warnings(convert_to_openai_tool, say)
    assert not out.get("strict") and len(said) == 1 and "'say \"hi\"'" in said[0]


@pytest.mark.parametrize("settings", [{"use_responses_api": False, "compatible": False},
                                      {"use_responses_api": True, "compatible": False},
                                      {"compatible": True}])
def test_with_structured_output_warns_at_its_line(settings: dict[str, Any]) -> None:
    model = ChatOpenAI("gpt-4o", api_key="sk-test", base_url="http://127.0.0.1:9/v1", max_retries=0, **settings)
    with pytest.warns(StrictSchemaWarning, match=r"'say \"hi\"'") as caught:
        model.with_structured_output(Answer, strict=True)
    assert caught[0].filename == __file__

