"""Review 178 #3: reading calls from a server's reply text (``read_text_calls``, ``TextCallStream``, what
``ChatOpenAI(text_tool_calls=True)`` uses in ``invoke`` and ``stream``) takes about linear time on replies whose lines
open a call of a bound tool and leave it unclosed, with the same results.

The work is counted, never timed (as in tests/test_parsing_linear.py): the characters the bracket scanner reads, the
characters handed to the JSON parser, and the places the parser reads from; 10x the reply must cost under 20x the
work. Each place of the reply used to be read again from every such line (quadratic time: 25 kB took seconds).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.messages import AIMessageChunk
from toolwire.models import _text_calls
from toolwire.models._text_calls import TextCallStream, read_text_calls
from toolwire.parsing import _json_suffixes, _scan, parse_tool_calls
from toolwire.parsing._json_suffixes import JsonSuffixes

_NAMES = ["get_weather", "search"]

# a unit repeated: each line opens a call (or a value holding one) that the reply never closes
_UNITS = [
    '{"name": "get_weather", "arguments": {"city": "Paris"}\nThanks.\n',  # the review's reproduction
    '{"name": "get_weather", "arguments": {"city": "x"}\n[get_weather(city="x")]\nok\n',
    '[[get_weather(```python\n[get_weather(city="x")]\n{"name": "get_weather", "arguments": ',
    '```python\n[get_weather(city="x")]\n{"name": "get_weather", "arguments": ',
    '""""{"name": "get_weather", "arguments": {}}\n{',  # a value left open by a string, not by brackets
    '{x{"city": "x"}""""{"name": "get_weather", "arguments": {}}\n',
]


class _Counted:
    """A compiled pattern that adds to ``count`` the characters each search or match reads."""

    def __init__(self, pattern: re.Pattern[str], count: list[int]) -> None:
        self.pattern, self.count = pattern, count

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """``pattern.search``, counted."""
        found = self.pattern.search(text, pos)
        self.count[0] += (found.end() if found is not None else len(text)) - pos
        return found

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """``pattern.match``, counted."""
        found = self.pattern.match(text, pos)
        self.count[0] += (found.end() if found is not None else len(text)) - pos
        return found


def _work(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any]) -> int:
    """The work ``read`` does: bracket scanning, text given to the JSON parser, places the parser reads from."""
    count = [0]
    monkeypatch.setattr(_scan, "_PY_SPECIAL", _Counted(_scan._PY_SPECIAL, count))
    monkeypatch.setattr(_scan, "_STRING_BODY", {k: _Counted(p, count) for k, p in _scan._STRING_BODY.items()})

    def parse(text: str, names: Any, dialect: str | None = None) -> Any:
        count[0] += len(text)
        return parse_tool_calls(text, names, dialect)  # type: ignore[arg-type]

    monkeypatch.setattr(_text_calls, "parse_tool_calls", parse)
    bare = _json_suffixes._bare

    def counted_bare(collector: Any, text: str, start: int) -> int | None:
        count[0] += 1
        return bare(collector, text, start)

    monkeypatch.setattr(_json_suffixes, "_bare", counted_bare)
    read()
    return count[0]


def _growth(work: Callable[[int], int], small: int) -> float:
    before, after = work(small), work(10 * small)
    assert before > 0
    print(f"work {before} -> {after}: x{after / before:.1f}")
    return after / before


@pytest.mark.parametrize("unit", _UNITS)
def test_read_text_calls_is_linear(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    """Was: each line that opens a call scanned (and parsed) the rest of the reply again."""
    def work(n: int) -> int:
        text = unit * n
        return _work(monkeypatch, lambda: read_text_calls(text, _NAMES))
    assert _growth(work, 100) < 20


@pytest.mark.parametrize("unit", _UNITS[:1] + _UNITS[4:5])
def test_a_stream_is_linear(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    """``TextCallStream`` (``ChatOpenAI(text_tool_calls=True).stream``) reads the held text the same way."""
    def work(n: int) -> int:
        text = unit * n

        def stream() -> list[AIMessageChunk]:
            reader = TextCallStream(_NAMES)
            out = [c for i in range(0, len(text), 50) for c in reader.feed(AIMessageChunk(text[i:i + 50]))]
            return out + list(reader.finish())
        return _work(monkeypatch, stream)
    assert _growth(work, 100) < 20


def test_the_review_reproduction_still_gives_invalid_calls_only() -> None:
    """Each cut-off call written again after the one before is an invalid call of its own (review 187 #5: it was one
    invalid call holding the lines of all of them)."""
    text = _UNITS[0] * 400
    content, calls, invalid = read_text_calls(text, ["get_weather"])  # type: ignore[misc]
    assert calls == [] and invalid and {c["name"] for c in invalid} == {"get_weather"}
    assert all(c["args"] == _UNITS[0].strip() for c in invalid)
    assert text.startswith(content) and content.endswith("Thanks.")  # the lines before the call's stay text


_FRAGMENTS = ['{"name": "get_weather", "arguments": ', '{"city": "x"}', "}", "]", "\n", "ok", " ", ",", ";", '"', "'",
              '"""', "{", "[", "(", '{"a": ', "[{", "```json\n", "```\n", "```", "<|python_tag|>", "<|eom_id|>",
              "[get_weather(", 'get_weather(city="a")', '{"name": "x", "arguments": {}}', "\\",
              '{"name": "get_weather", "arguments": {}}', "{'name': 'get_weather', 'arguments': {}}",
              '{"name": "search", "parameters": {"q": 1,}}', "1e999"]
_texts = st.lists(st.sampled_from(_FRAGMENTS), max_size=16).map("".join)


@settings(max_examples=400, deadline=None)
@given(_texts, st.randoms(use_true_random=False))
def test_json_suffixes_read_what_the_parser_reads(text: str, rnd: Any) -> None:
    """``JsonSuffixes.read(start)`` is what ``parse_json(text[start:])`` finds, for every start in any order (what
    was read from one start is kept for the others)."""
    suffixes = JsonSuffixes(text, _NAMES)
    starts = list(range(len(text) + 1))
    rnd.shuffle(starts)
    for start in starts:
        parsed = parse_tool_calls(text[start:], _NAMES, "json")
        assert suffixes.read(start) == (bool(parsed.tool_calls or parsed.invalid_tool_calls), not parsed.content), (
            text, start)


def test_the_scan_keeps_the_reply_while_reading_its_pieces() -> None:
    """What the bracket scanner learnt about a held reply survives the parse of a piece of it in between (review 178
    #3: it was dropped, so each line scanned the rest of the reply again), and is dropped at the end (review 122)."""
    reply = '{"name": "get_weather", "arguments": {' * 3
    with _scan.hold_spans(reply):
        assert _scan.python_span_end(reply, 0) == _scan.EOF
        spans = _scan._spans_of(reply)
        parse_tool_calls(reply[5:], _NAMES, "json")  # another text, forgotten at its end
        assert _scan._spans_of(reply) is spans
    assert not _scan._KEPT.held
    read_text_calls(_UNITS[0] * 80, _NAMES)
    assert not _scan._KEPT.held and not _scan._KEPT.last


def test_two_threads_each_keep_their_own_held_reply() -> None:
    """Review 186 #1: the held reply was one global, so a second thread reading another reply dropped the first
    thread's, and each of its lines scanned the rest of the reply again (quadratic in ``batch``)."""
    import threading

    seen: dict[str, bool] = {}
    ready = threading.Barrier(2)

    def read(name: str, text: str) -> None:
        with _scan.hold_spans(text):
            ready.wait()  # both hold their reply at once
            _scan.python_span_end(text, 0)
            ready.wait()
            seen[name] = bool(_scan._KEPT.held) and _scan._KEPT.held[0].text is text
        seen[name + " dropped"] = not _scan._KEPT.held

    first, second = "[f(a=1)]" * 50, "[g(b=2)]" * 50
    threads = [threading.Thread(target=read, args=("a", first)), threading.Thread(target=read, args=("b", second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"a": True, "b": True, "a dropped": True, "b dropped": True}
