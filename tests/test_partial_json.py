"""PartialJSONParser: best-effort values of streamed JSON, in linear time."""

from __future__ import annotations

import json

import pytest

from toolwire.parsing import PartialJSONParser
from toolwire.parsing.partial_json import partial_value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"city": "Pa', {"city": "Pa"}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ("", None),
        ("   ", None),
        ("{", {}),
        ('{"ci', {}),
        ('{"city"', {}),
        ('{"city":', {}),
        ('{"city": ', {}),
        ('{"a": 1,', {"a": 1}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": tr', {}),
        ('{"a": true', {"a": True}),
        ('{"a": nul', {}),
        ('{"a": 1.', {}),
        ('{"a": 1.5', {"a": 1.5}),
        ('{"a": -', {}),
        ('{"a": 1e', {}),
        ('{"a": 12e3', {"a": 12000.0}),
        ('{"a": "x\\', {"a": "x"}),
        ('{"a": "x\\u00', {"a": "x"}),
        ('{"a": "x\\u00e9', {"a": "xé"}),
        ('{"a": "Tóquio 🌧', {"a": "Tóquio 🌧"}),
        ('{"a": {"b": [{"c": "d', {"a": {"b": [{"c": "d"}]}}),
        ('[1, [2, [3', [1, [2, [3]]]),
        ("[", []),
        ('"abc', "abc"),
        ("12", 12),
        ('{"a": "} ] \\" {"', {"a": '} ] " {'}),
        ('{"a": 1}', {"a": 1}),
        ('{"a": 1}  \n', {"a": 1}),
    ],
)
def test_best_effort_values(text, expected):
    parser = PartialJSONParser()
    assert parser.feed(text) == expected
    assert parser.text == text
    assert parser.value() == expected


def test_feeding_pieces_grows_the_value():
    parser = PartialJSONParser()
    assert parser.feed('{"city": "Pa') == {"city": "Pa"}
    assert parser.feed('ris", "days": [1') == {"city": "Paris", "days": [1]}
    assert parser.feed(", 2]}") == {"city": "Paris", "days": [1, 2]}
    assert parser.complete and parser.error is None
    assert parser.text == '{"city": "Paris", "days": [1, 2]}'


SAMPLE = json.dumps(
    {"city": "São Paulo", "n": -12.5e-3, "ok": True, "none": None, "list": [1, [2, {"x": "\"}"}], []],
     "esc": "tab\there \\ \u00e9 \ud83c\udf27", "empty": {}},
    ensure_ascii=False,
)


def test_every_prefix_gives_a_value_and_the_whole_text_gives_json_loads():
    expected = json.loads(SAMPLE)
    for cut in range(len(SAMPLE) + 1):
        parser = PartialJSONParser()
        parser.feed(SAMPLE[:cut], build=False)
        value = parser.value()
        assert cut == 0 or isinstance(value, dict)
        assert parser.error is None
    parser = PartialJSONParser()
    for ch in SAMPLE:
        parser.feed(ch, build=False)
    assert parser.value() == expected
    assert parser.scanned == len(SAMPLE)


def test_ten_thousand_fragments_scan_each_character_once():
    payload = {"items": [{"id": i, "name": f"item-{i}", "tags": ["a", "b"]} for i in range(700)]}
    text = json.dumps(payload)
    size = max(1, len(text) // 10_000)
    fragments = [text[i:i + size] for i in range(0, len(text), size)]
    assert len(fragments) >= 10_000
    parser = PartialJSONParser()
    for fragment in fragments:
        parser.feed(fragment, build=False)
    assert parser.scanned == len(text) == len(parser.text)
    assert parser.value() == payload


def test_long_string_streamed_in_pieces_is_linear():
    parser = PartialJSONParser()
    parser.feed('{"code": "', build=False)
    for _ in range(10_000):
        parser.feed("x = 1\\n", build=False)
    parser.feed('"}', build=False)
    assert parser.scanned == len(parser.text)
    assert parser.value() == {"code": "x = 1\n" * 10_000}


def test_value_is_cached_until_the_next_feed():
    parser = PartialJSONParser()
    parser.feed('{"a": [1', build=False)
    first = parser.value()
    assert parser.value() is first
    parser.feed(", 2", build=False)
    assert parser.value() == {"a": [1, 2]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [('{"a": 1} extra', {"a": 1}), ('{"a": 1 "b": 2}', {"a": 1}), ("{'a': 1}", {}), ('{"a": 01}', {}),
     ('{"a": "\\x"}', {}), ('{"a": tx}', {}), ("}", None), ('{"a": [1}', {"a": [1]}), ('["a": 1]', ["a"])],
)
def test_invalid_json_stops_scanning_and_keeps_what_was_read(text, expected):
    parser = PartialJSONParser()
    assert parser.feed(text) == expected
    assert parser.error is not None and parser.error.startswith("The JSON text is invalid at character")
    assert not parser.complete
    parser.feed("more", build=False)
    assert parser.text == text + "more"


def test_deep_nesting_does_not_raise():
    parser = PartialJSONParser()
    parser.feed("[" * 5000, build=False)
    assert parser.scanned == 5000
    assert parser.value() is None or isinstance(parser.value(), list)
    assert partial_value('{"a":' * 3000) is None or isinstance(partial_value('{"a":' * 3000), dict)


def test_raw_control_characters_in_strings_are_tolerated():
    assert partial_value('{"a": "line\nbreak"}') == {"a": "line\nbreak"}


def test_a_partial_string_never_ends_in_half_a_surrogate_pair():
    """Review 3 #6: ``\\ud83d`` of ``\\ud83d\\ude00`` waits for its other half (a lone one is not UTF-8)."""
    text = json.dumps({"q": "smile \U0001f600!", "r": "\\ud83d"})  # ensure_ascii: the emoji as a pair
    parser = PartialJSONParser()
    for ch in text:
        value = parser.feed(ch)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        assert "\ufffd" not in json.dumps(value, ensure_ascii=False)
    assert value == {"q": "smile \U0001f600!", "r": "\\ud83d"}
    assert partial_value('{"q": "a\\ud83d') == {"q": "a"}
    assert partial_value('{"q": "a\\\\ud83d') == {"q": "a\\ud83d"}  # an escaped backslash, then text
    assert partial_value('{"q": "a\\\\\\ud83d\\ude') == {"q": "a\\"}
