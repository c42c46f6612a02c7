"""made_up_value: a tool call's value the model was unsure of and did not take from the conversation."""

from __future__ import annotations

from toolwire.models._call_checks import made_up_value


def _spans(text: str, probability: float) -> list[tuple[int, int, float]]:
    """One token per character, each with ``probability``."""
    return [(i, i + 1, probability) for i in range(len(text))]


def test_an_unsure_value_not_in_the_conversation_is_made_up() -> None:
    text = '[find_roots(a=1.5, b=2)]'
    assert made_up_value(text, _spans(text, 0.5), ["What are the roots of bx + c = 0?"], 0.3) == "a=1.5"
    # the same value written in the conversation (a number, however written), or the model sure of it
    assert made_up_value(text, _spans(text, 0.5), ["Roots for a = 1.50 and b = 2"], 0.3) is None
    assert made_up_value(text, _spans(text, 0.99), ["roots?"], 0.3) is None
    assert made_up_value(text, _spans(text, 0.5), ["roots?"], 0.0) is None  # the check off


def test_strings_match_without_letter_case_or_extra_spaces_and_nested_values_count() -> None:
    text = '[search(query="new  York", filters={"tags": ["Museum", 12]}, exact=True)]'
    context = ["Find museums in New York City", "tags: museum"]
    assert made_up_value(text, _spans(text, 0.5), context, 0.3) == 'filters={"tags": ["Museum", 12]}'
    assert made_up_value(text, _spans(text, 0.5), [*context, "at most 12"], 0.3) is None
    # numbers with thousands separators, booleans and None carry no evidence either way
    text = '[pay(amount=1500000, note=None, urgent=False)]'
    assert made_up_value(text, _spans(text, 0.1), ["Pay 1,500,000 now"], 0.3) is None


def test_only_the_values_own_tokens_count_and_offsets_survive_multibyte_text() -> None:
    text = '[get_weather(city="São Paulo", units="metric")]'
    start = text.index('"metric"')
    spans = [(i, i + 1, 0.2 if start <= i < start + 8 else 1.0) for i in range(len(text))]
    assert made_up_value(text, spans, ["Tempo em São Paulo?"], 0.3) == 'units="metric"'
    # tokens of the call that were not generated (a kept opening) may be missing from the spans
    assert made_up_value(text, spans[start:], ["Tempo em São Paulo?"], 0.3) == 'units="metric"'
    assert made_up_value(text, spans[:start], ["Tempo?"], 0.3) is None  # city: sure


def test_text_that_is_not_a_pythonic_call_list_is_never_judged() -> None:
    for text in ('{"name": "f", "arguments": {"a": 1}}', "[f(a=1", "[1, 2]", "[f(*x)]", ""):
        assert made_up_value(text, _spans(text, 0.01), ["nothing"], 0.5) is None
    fenced = '```python\n[f(a="zz")]\n```'
    assert made_up_value(fenced, _spans(fenced, 0.01), ["nothing"], 0.5) == 'a="zz"'
