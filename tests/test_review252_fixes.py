"""Review 252: structured output.

#1: OpenAI strict mode refuses an ``enum``/``const`` string holding a double quote or a line feed (a 400 for every
request: '" is not allowed in string literals for structured outputs (strict=true)'): such a schema is sent
non-strict with a :class:`StrictSchemaWarning` naming the value, as other refused schemas are, for tools and
structured output, Chat Completions, Responses and OpenAI-compatible servers alike.

#2: OpenAI's response-format ``name`` is made a valid tool name as a JSON Schema's ``title`` is (``1st-answer``, which
OpenAI takes, starts with a digit, which Gemini refuses), so the ported dict works on every provider, with no advice
about an MCP ``prefix=``.

#3: Anthropic's error for a parameter name it refuses gives advice that fits: a key of a JSON Schema dict given to
``with_structured_output`` is renamed in that schema (no pydantic ``Field(alias=...)``, no "leave the tool out": the
tool is the answer), and a tool's error says how to rename in each form (a dict's key, a field's or parameter's
alias).
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


# -- 2: a response-format name made a valid tool name ----------------------------------------------------------------

_PARAMS = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


@pytest.mark.parametrize("schema", [
    {"name": "1st-answer", "strict": True, "schema": _PARAMS},
    {"type": "json_schema", "json_schema": {"name": "1st-answer", "schema": _PARAMS}},
    {"title": "1st-answer", **_PARAMS},
])
def test_a_response_format_name_is_made_valid_as_a_title_is(schema: dict[str, Any]) -> None:
    from toolwire.models.lowering.gemini import convert_to_gemini_tool
    from toolwire.models.structured import output_tool

    spec, read = output_tool(schema)
    assert spec.name == "_1st-answer"
    assert convert_to_gemini_tool(spec)["name"] == "_1st-answer"  # (Gemini took it: no SchemaError)
    assert read({"a": 1}) == {"a": 1}


def test_a_response_format_name_with_a_space_is_made_valid_too() -> None:
    from toolwire.models.structured import output_tool

    spec, _ = output_tool({"name": "Weather Report", "schema": _PARAMS})
    assert spec.name == "Weather_Report"
    assert "Weather Report" in spec.description


def test_gemini_structured_output_sends_the_made_name() -> None:
    from _queued_http import serving
    from toolwire.models import ChatGoogleGenAI

    with serving() as server:
        server.queue = [{"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "_1st-answer", "args": {"a": 1}}}]}, "finishReason": "STOP"}]}]
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key="x", base_url=server.url, max_retries=0)
        assert model.with_structured_output({"name": "1st-answer", "schema": _PARAMS}).invoke("hi") == {"a": 1}
        sent = server.requests[0]["tools"][0]["functionDeclarations"][0]["name"]
    assert sent == "_1st-answer"


# -- 3: Anthropic's advice for a parameter name it refuses -----------------------------------------------------------


def _anthropic() -> Any:
    from toolwire.models import ChatAnthropic

    return ChatAnthropic("claude-sonnet-4-5", api_key="x", base_url="http://127.0.0.1:9", max_retries=0)


_BAD_KEYS = {"type": "object", "properties": {"$top": {"type": "integer"}, "filter[id]": {"type": "string"}}}


@pytest.mark.parametrize("schema", [
    {"title": "Query", **_BAD_KEYS},
    {"name": "Query", "schema": _BAD_KEYS},
    {"type": "json_schema", "json_schema": {"name": "Query", "schema": _BAD_KEYS}},
    {"name": "Query", "description": "A query.", "parameters": _BAD_KEYS},
])
def test_structured_output_from_a_dict_is_told_to_rename_the_schema_key(schema: dict[str, Any]) -> None:
    from toolwire.errors import UserError

    with pytest.raises(UserError) as info:
        _anthropic().with_structured_output(schema)
    message = str(info.value)
    assert "'$top'" in message and "with_structured_output" in message
    assert "rename that key in the schema" in message and "'top'" in message
    assert "Field(alias" not in message and "leave the tool out" not in message


def test_a_tool_dict_is_told_to_rename_the_key_in_the_dict() -> None:
    from toolwire.errors import UserError

    with pytest.raises(UserError) as info:
        _anthropic().bind_tools([{"name": "query", "description": "Run a query.", "parameters": _BAD_KEYS}])
    message = str(info.value)
    assert message.startswith("Tool 'query' cannot be sent to Anthropic: its parameter name '$top'")
    assert "in a JSON Schema or tool dict, rename the key" in message
    assert "leave the tool out for Anthropic" in message


def test_the_lowering_gives_the_same_advice_for_structured_output() -> None:
    from toolwire.errors import UserError
    from toolwire.models.lowering.anthropic import convert_to_anthropic_tool
    from toolwire.models.structured import output_tool

    spec, _ = output_tool({"title": "Query", **_BAD_KEYS})
    with pytest.raises(UserError, match="rename that key in the schema given to with_structured_output"):
        convert_to_anthropic_tool(spec)


def test_the_strict_fallback_warning_for_a_string_literal_says_to_take_the_character_out() -> None:
    import warnings

    from toolwire import tool
    from toolwire.errors import StrictSchemaWarning
    from toolwire.models.lowering.openai import convert_to_openai_tool

    @tool
    def pick(x: Literal['a"b', "c"]) -> str:
        """Picks."""
        return x

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        convert_to_openai_tool(pick, strict=True)
    (warning,) = [w for w in seen if issubclass(w.category, StrictSchemaWarning)]
    assert "Take that character out" in str(warning.message) and "pydantic model" not in str(warning.message)
