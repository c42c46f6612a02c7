"""Session 35: a schema's default counts as found only for its own tool's argument; structured output names that
every provider takes."""

from __future__ import annotations

from pydantic import BaseModel

from toolwire.models._call_checks import conversation_texts, made_up_value
from toolwire.models._tool_text import default_values
from toolwire.tools import ToolSpec

_WEATHER = ToolSpec("get_weather", "Get the weather.", {"type": "object", "properties": {
    "city": {"type": "string"}, "units": {"type": "string", "default": "celsius"}}, "required": ["city"]})
_ORDER = ToolSpec("place-order", "Place an order.", {
    "type": "object",
    "properties": {"item": {"type": "string"}, "ship-to": {"$ref": "#/$defs/Address"}},
    "$defs": {"Address": {"type": "object", "properties": {
        "zip": {"type": "string", "default": "00000"},
        "country": {"$ref": "#/$defs/Country"}}},
        "Country": {"type": "string", "default": "Portugal"}},
    "required": ["item", "ship-to"]})


def _unsure(text: str, value: str) -> list[tuple[int, int, float]]:
    """Token spans for ``text``: sure everywhere but on ``value``."""
    start = text.index(value)
    end = start + len(value)
    return [(0, start, 0.99), (start, end, 0.05), (end, len(text), 0.99)]


def test_default_values_are_keyed_by_function_and_argument_as_each_format_writes_them() -> None:
    found = default_values([_WEATHER, _ORDER])
    assert found["get_weather"] == {"units": ["celsius"]}
    # a nested model's defaults, reached through $ref chains, belong to the argument that refers to them
    assert found["place-order"]["ship-to"] == ["00000", "Portugal"]  # as a JSON call writes the names
    assert found["place_order"]["ship_to"] == ["00000", "Portugal"]  # as a pythonic call does
    assert "city" not in found["get_weather"] and "item" not in found["place-order"]


def test_a_default_counts_as_found_for_its_own_argument() -> None:
    said = conversation_texts([])
    text = '[get_weather(city="Lisbon", units="celsius")]'
    spans = _unsure(text, '"celsius"')
    assert made_up_value(text, spans, said, 0.3) == 'units="celsius"'
    assert made_up_value(text, spans, said, 0.3, defaults=default_values([_WEATHER])) is None


def test_a_default_says_nothing_about_another_argument_or_another_tool() -> None:
    said = conversation_texts([])
    defaults = default_values([_WEATHER, _ORDER])
    # the same text as units' default, written for city: still made up
    text = '[get_weather(city="celsius")]'
    assert made_up_value(text, _unsure(text, '"celsius"'), said, 0.3, defaults=defaults) == 'city="celsius"'
    # another tool's default, written for this tool's argument: still made up
    text = '[place_order(item="celsius", ship_to={"zip": "1000-001"})]'
    assert made_up_value(text, _unsure(text, '"celsius"'), said, 0.3, defaults=defaults) == 'item="celsius"'


def test_a_nested_default_counts_inside_its_argument_in_json_calls_too() -> None:
    said = conversation_texts([])
    defaults = default_values([_ORDER])
    text = '[{"name": "place-order", "arguments": {"item": "tea", "ship-to": {"zip": "00000"}}}]'
    spans = _unsure(text, '"00000"')
    assert made_up_value(text, spans, [*said, "tea"], 0.3, fmt="json") == 'ship-to={"zip": "00000"}'
    assert made_up_value(text, spans, [*said, "tea"], 0.3, fmt="json", defaults=defaults) is None


def test_a_self_referring_schema_is_read_once() -> None:
    tree = ToolSpec("walk", "Walk a tree.", {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
                                             "$defs": {"Node": {"type": "object", "properties": {
                                                 "label": {"type": "string", "default": "leaf"},
                                                 "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}})
    assert default_values([tree]) == {"walk": {"root": ["leaf"]}}


def test_odd_schemas_give_no_defaults_rather_than_an_error() -> None:
    odd = [ToolSpec("a", "A.", {"type": "object", "properties": ["x"]}),
           ToolSpec("b", "B.", {"type": "object", "properties": {"x": {"$ref": "#/nowhere/at/all"}}}),
           ToolSpec("c", "C.", {"type": "object", "properties": {"x": {"$ref": 5, "default": 2}}})]
    assert default_values(odd) == {"c": {"x": ["2"]}}


def test_structured_output_names_start_with_a_letter_or_underscore() -> None:
    # Gemini's function names start with a letter or "_" (^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$); OpenAI's and
    # Anthropic's may start with a digit. A name toolwire makes for itself is taken by all three.
    from toolwire._tool_checks import NAME_RE
    from toolwire.models.structured import _output_name

    for title, name in [("1st Answer", "_1st_Answer"), ("2024", "_2024"), ("-x-", "_-x-"), ("Answer", "Answer"),
                        ("9" * 70, "_" + "9" * 63)]:
        made = _output_name(title)
        assert made == name
        assert NAME_RE.fullmatch(made) and (made[0].isalpha() or made[0] == "_")


class _Row(BaseModel):
    value: int


def test_with_structured_output_of_a_digit_title_sends_a_name_gemini_takes() -> None:
    from toolwire.models.structured import output_tool

    spec, _ = output_tool({"title": "2nd pass", "type": "object", "properties": {"value": {"type": "integer"}}})
    assert spec.name == "_2nd_pass"

