"""Review 119: the parsing paths that took quadratic time now take about linear time, with the same results.

Each fix is checked two ways. Differential: the new function against a copy of the old logic (kept below) on
hypothesis-generated and hand-made inputs (unicode, escapes, triple quotes, nested brackets, cut-off text), and
whole replies against results stored from the old code. Growth: the work done is counted (characters the
scanning regexes read, lines split and encoded), never timed, and 10x the input must cost under 20x the work.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import ToolCallParseError
from toolwire.models._text_calls import read_text_calls
from toolwire.parsing import _scan, normalize_arguments, parse_tool_calls, pythonic

# -- the old logic, as it was before review 119 ---------------------------------------------------------------

_OLD_PY_SIGNS = re.compile(r""""(?:[^"\\]|\\[\s\S])*"|'|\b(?:True|False|None)\b|\(""")


def old_looks_pythonic(text: str) -> bool:
    """``_scan.looks_pythonic`` before review 119 #1."""
    return any(m.group()[0] != '"' for m in _OLD_PY_SIGNS.finditer(text))


class _Counted:
    """A compiled pattern that adds to ``count`` the characters each search or match reads (up to its match's
    end, or to the end of the text when nothing matched)."""

    def __init__(self, pattern: re.Pattern[str], count: list[int]) -> None:
        self.pattern, self.count = pattern, count

    def _counted(self, found: re.Match[str] | None, text: str, pos: int) -> re.Match[str] | None:
        self.count[0] += (found.end() if found is not None else len(text)) - pos
        return found

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """``pattern.search``, counted."""
        return self._counted(self.pattern.search(text, pos), text, pos)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """``pattern.match``, counted."""
        return self._counted(self.pattern.match(text, pos), text, pos)

    def findall(self, text: str) -> list[Any]:
        """``pattern.findall``, counted (the whole text)."""
        self.count[0] += len(text)
        return self.pattern.findall(text)


def _growth(work: Callable[[int], int], small: int) -> float:
    """How many times the work grows when the input grows 10x (the work counted must not be nothing)."""
    before = work(small)
    after = work(10 * small)
    assert before > 0
    print(f"work {before} -> {after}: x{after / before:.1f}")
    return after / before


_FRAGMENTS = ['"', "'", '"""', "'''", "\\", '\\"', "\\'", "(", ")", "[", "]", "{", "}", "#", "\n", "\r\n", " ",
              "True", "None", "False", "x", "é", "😀", "\ud83d", ":", ",", "get_weather", "=", "1", "Truex"]
_texts = st.lists(st.sampled_from(_FRAGMENTS), max_size=40).map("".join)


# -- #1: looks_pythonic on cut-off argument text ----------------------------------------------------------------

_PYTHONIC_CASES = [
    "", '"', '{"a": 1}', "{'a': 1}", '{"a": True}', '{"a": "True"}', '{"a": "x\\" True"}', '{"a": "x\\\\" True}',
    '{"a": "unterminated \\" True', '{"a": "unterminated \\" (', '{"a": "cut \\', '{"a": "x", "b": (1, 2)}',
    '{"a": "Truex"}', '{"a": xTrue}', '{"a": "é😀 \\u00e9"}', '{"a": "x\\\\"}', '"\\"\\"\\"', '{' + '"\\' * 50,
    '{"a": "\'"}', '{"a": "x"}\'', '{"a": "line\nbreak", "b": None}',
    json.dumps({"c": '<a href="/x">D</a>\n' * 5})[:-2],
]


@pytest.mark.parametrize("text", _PYTHONIC_CASES)
def test_looks_pythonic_same_as_before_by_hand(text: str) -> None:
    assert _scan.looks_pythonic(text) is old_looks_pythonic(text)


@settings(max_examples=3000)
@given(_texts)
def test_looks_pythonic_same_as_before(text: str) -> None:
    assert _scan.looks_pythonic(text) is old_looks_pythonic(text)


def _sign_work(monkeypatch: pytest.MonkeyPatch, text: str) -> int:
    count = [0]
    for name in ("_PY_SIGN_OR_QUOTE", "_PY_SIGN", "_DQ_REST"):
        monkeypatch.setattr(_scan, name, _Counted(getattr(_scan, name), count))
    with pytest.raises(ToolCallParseError, match="cut off"):
        normalize_arguments(text)
    return count[0]


@pytest.mark.parametrize("unit", ['"\\', '<a href="/docs/page.html" class="nav-link">Docs</a>\n'])
def test_cut_off_arguments_are_read_in_linear_work(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    """A write_file call cut off inside its content (many escaped quotes): the Python-literal check reads the text
    about once (it read it again from every escaped quote)."""
    def work(n: int) -> int:
        if unit == '"\\':
            return _sign_work(monkeypatch, "{" + unit * n)
        return _sign_work(monkeypatch, json.dumps({"path": "index.html", "content": unit * n})[:-2])
    assert _growth(work, 100) < 20


# -- whole replies and arguments: results stored from the code before review 119 -------------------------------

_LINE = '<a href="/docs/page.html" class="nav-link">Docs</a>\n'
_REPLIES = [
    ('[get_weather(city="Oslo"), get_weather(city="Tóquio 😀")]', None),
    ('[get_weather(city="a\\"b"),\n get_weather(city="""x\ny"""),\r\n get_weather(city=\'é\')]', "pythonic"),
    ('Sure.\n```python\nget_weather(city="Paris (FR)")\n```', None),
    ('<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>', "hermes"),
    ('<tool_call>{"name": "get_weather", "arguments": {"city": \'Oslo\', "x": True}}</tool_call>', "hermes"),
    ('<tool_call>{"name": "get_weather", "arguments": {"city": "Os', "hermes"),
    ('{"name": "get_weather", "parameters": {"city": "Oslo",}}', "json"),
    ('{"name": "get_weather", "parameters": {"city": "a\\"b\\"c', "json"),
    ('{""""' * 30, "json"),
    ('get_weather(""""' * 20, "pythonic"),
    ('<tool_call>{""""' * 10, "hermes"),
    ('"id": "x" -Infinity{ "id": ""' * 10, "json"),
    ('{"name": "get_weather", "arguments": \n' * 5, None),
    ('[get_weather(city="x"), get_weather(city="y"', "pythonic"),
    ('[get_weather(city="x"), get_weather(city="y")' + "(" * 70, "pythonic"),
    ('{"name": "get_weather", "arguments": {"city": "# not a comment", "n": (1, 2)}}', None),
    ("[get_weather(city='''it''s'''), get_weather(city=\"\\\\\")]", None),
]
_ARGUMENTS = [
    json.dumps({"path": "index.html", "content": _LINE * 20})[:-2],
    "{" + '"\\' * 50,
    '{"a": "x\\" (", "b": True}',
    "{'a': \"x\\\" \", 'b': None}",
    '{"a": "unterminated \\" True',
    '{"a": 1,}',
]
# sha256 (first 16 hex digits) of each result's JSON, computed with the code before review 119;
# items 5, 7, 12 and 13 since review 267 #2 (a cut call read by read_text_calls keeps only its argument text)
_EXPECTED = [
    "2834fe1b8efb7263", "2584a38f39ab44e1", "c22393fa7b58430e", "56e750b68f873499", "16b0e98f1e449c48",
    "a810ff79ca8ef16d", "56e750b68f873499", "d4a85ef9aa4b51e0", "52ea6f12dacdecbc", "a9ce456d1712e00e",
    "449e177cfb9968dc", "bcd123c982fc87e7", "1c10a1e9ea63003c", "43fb876715d3287a", "837cb55fd3900ea6",
    "04d3dc972382bc02", "0adf4d8abfe08860",
    "e298a915645d6398", "e298a915645d6398", "2bc23cf6f9d56f6f", "979b05011e11cb88", "e298a915645d6398",
    "af68d8a717a0039b",
]


def _reply_result(text: str, dialect: str | None) -> Any:
    parsed = parse_tool_calls(text, ["get_weather"], dialect)  # type: ignore[arg-type]
    found = read_text_calls(text, ["get_weather"])
    return [{"content": parsed.content, "calls": [[c["name"], c["args"]] for c in parsed.tool_calls],
             "invalid": [[c["name"], c["args"], c["error"]] for c in parsed.invalid_tool_calls]},
            None if found is None else [found[0], [[c["name"], c["args"]] for c in found[1]],
                                        [[c["name"], c["args"], c["error"]] for c in found[2]]]]


def _arguments_result(raw: str) -> Any:
    try:
        return normalize_arguments(raw)
    except ToolCallParseError as exc:
        return str(exc)


@pytest.mark.parametrize("index", range(len(_EXPECTED)))
def test_results_are_the_stored_ones(index: int) -> None:
    if index < len(_REPLIES):
        result = _reply_result(*_REPLIES[index])
    else:
        result = _arguments_result(_ARGUMENTS[index - len(_REPLIES)])
    digest = hashlib.sha256(json.dumps(result, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]
    assert digest == _EXPECTED[index], result


# -- #2: python_span_end from many candidate starts -------------------------------------------------------------

_OLD_SPECIAL = re.compile(r"[\[\](){}'\"\n#]")
_OLD_CLOSERS = {"(": ")", "[": "]", "{": "}"}


def old_python_span_end(text: str, start: int, max_depth: int = 64) -> int:
    """``_scan.python_span_end`` before review 119 #2 (-1 EOF, -2 BAD, -3 DEEP)."""
    n = len(text)
    stack: list[str] = []
    i = start
    while True:
        m = _OLD_SPECIAL.search(text, i)
        if m is None:
            return -1
        i = m.start()
        ch = text[i]
        if ch in _OLD_CLOSERS:
            if len(stack) >= max_depth:
                return -3
            stack.append(_OLD_CLOSERS[ch])
            i += 1
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return -2
            i += 1
            if not stack:
                return i
        elif ch in "'\"":
            triple = text.startswith(ch * 3, i)
            i = _old_string_end(text, i + (3 if triple else 1), ch, triple)
            if i < 0:
                return i
        elif ch == "#":
            nl = text.find("\n", i)
            if nl < 0:
                return -1
            i = nl + 1
        else:
            i += 1
        if i >= n:
            return -1


def _old_string_end(text: str, i: int, quote: str, triple: bool) -> int:
    n = len(text)
    closing = quote * 3 if triple else quote
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif text.startswith(closing, i):
            return i + len(closing)
        elif ch == "\n" and not triple and quote == "'":  # (a double-quoted one may hold line breaks: review 178 #2)
            return -2
        else:
            i += 1
    return -1


def _all_starts_agree(text: str, order: list[int], max_depth: int) -> None:
    """Every start of ``text``, in ``order`` (what is learnt about the text is kept between the calls)."""
    for start in order:
        assert _scan.python_span_end(text, start, max_depth) == old_python_span_end(text, start, max_depth), (
            text, start, max_depth)


_SPAN_CASES = [
    '{""""' * 12, '{"a": [1, (2, {3})]}', "{'a': '''x\n)'''}", '{"a": "x\n"}', "(# )\n)", "(# )", "[\\", '["\\',
    '("""\\""")', "('\\'')", "({[)]}", ")(", "(" * 70 + ")" * 70, "(" * 64 + ")" * 64, '{"é😀": "(["}',
    'get_weather(""""' * 6, '<tool_call>{""""' * 5, '"id": "x" -Infinity{ "id": ""' * 4, "(\r\n'x'\r\n)",
    '{"name": "get_weather", "arguments": \n' * 4, "(''')", "('''''')", '("\\\n")', "(\ud83d)",
]


@pytest.mark.parametrize("text", _SPAN_CASES)
def test_span_end_same_as_before_by_hand(text: str) -> None:
    for max_depth in (64, 3, 1, 0):
        text = "".join(list(text))  # a new string each time: a new scan
        _all_starts_agree(text, list(range(len(text) + 1)), max_depth)
        text = "".join(list(text))
        _all_starts_agree(text, list(reversed(range(len(text) + 1))), max_depth)


@settings(max_examples=1500)
@given(_texts, st.randoms(use_true_random=False), st.sampled_from([64, 64, 4, 2, 1]))
def test_span_end_same_as_before(text: str, rnd: Any, max_depth: int) -> None:
    order = list(range(len(text) + 1)) * 2
    rnd.shuffle(order)
    _all_starts_agree(text, order, max_depth)


def test_span_end_of_two_texts_in_turn() -> None:
    """What was learnt about one text is never used for another (two texts read in turn, equal ones too)."""
    one, two, same = '{""""' * 8 + "}", '{"a": ("""x""")}' * 3, "".join(['{""""' * 8, "}"])
    for start in range(len(one)):
        for text in (one, two, same):
            if start < len(text):
                assert _scan.python_span_end(text, start) == old_python_span_end(text, start)


def _span_work(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any]) -> int:
    count = [0]
    monkeypatch.setattr(_scan, "_PY_SPECIAL", _Counted(_scan._PY_SPECIAL, count))
    monkeypatch.setattr(_scan, "_STRING_BODY", {k: _Counted(p, count) for k, p in _scan._STRING_BODY.items()})
    read()
    return count[0]


@pytest.mark.parametrize(("unit", "dialect"), [
    ('{""""', "json"), ('{""""', None), ('get_weather(""""', "pythonic"), ('get_weather(""""', None),
    ('<tool_call>{""""', "hermes"), ('"id": "x" -Infinity{ "id": ""', "json"),
    ('{"name": "get_weather", "arguments": \n', None), ('{""""', "text_calls"),
])
def test_span_scanning_is_linear(monkeypatch: pytest.MonkeyPatch, unit: str, dialect: str | None) -> None:
    """Text with a candidate call start at every unit, none of them closed: about one pass over the text (each
    start read the whole rest of it)."""
    def work(n: int) -> int:
        text = unit * n
        if dialect == "text_calls":
            return _span_work(monkeypatch, lambda: read_text_calls(text, ["get_weather"]))
        return _span_work(monkeypatch, lambda: parse_tool_calls(text, ["get_weather"], dialect))  # type: ignore[arg-type]
    assert _growth(work, 40) < 20


# -- #3: the source text of each call of a long call list --------------------------------------------------------

_sources = st.lists(st.sampled_from(['"x"', '"é😀"', "'\\''", '"""a\nb"""', "'''c\r\nd'''", '"\\\\"', "1", "-2.5",
                                     "True", "None", "[1, (2,)]", '{"k": "v"}', "'\\n'", '"\\ud83d"']),
                    min_size=1, max_size=6)


@settings(max_examples=400)
@given(st.lists(_sources, min_size=1, max_size=6), st.sampled_from([", ", ",\n", ",\r\n  ", ",\r"]))
def test_call_segments_same_as_get_source_segment(values: list[list[str]], sep: str) -> None:
    src = "[" + sep.join("get_weather(" + ", ".join(f"a{i}={v}" for i, v in enumerate(vs)) + ")" for vs in values) + "]"
    body = ast.parse(src, mode="eval").body
    segments = pythonic._Segments(src)
    for node in ast.walk(body):
        if isinstance(node, ast.expr):
            assert segments.of(node) == ast.get_source_segment(src, node)


@settings(max_examples=2000)
@given(st.lists(st.sampled_from(["\r", "\n", "\r\n", "a", "é", "😀", " ", "\x0c", "\u2028", "\x0b"]), max_size=20))
def test_lines_split_as_ast_splits_them(parts: list[str]) -> None:
    src = "".join(parts)
    assert pythonic._LINE.findall(src) == ast._splitlines_no_ff(src)  # type: ignore[attr-defined]


@pytest.mark.parametrize("sep", [", ", ",\n", ",\r\n"])
@pytest.mark.parametrize("dialect", [None, "pythonic", "hermes"])
def test_call_lists_are_read_in_linear_work(monkeypatch: pytest.MonkeyPatch, dialect: str | None, sep: str) -> None:
    """A valid list of n calls: its lines are split and encoded once (each call split the whole list again)."""
    count = [0]
    real_line = pythonic._Segments._line

    def line(self: Any, index: int) -> bytes:
        new = index not in self._encoded
        out = real_line(self, index)
        count[0] += len(out) if new else 0
        return out

    monkeypatch.setattr(pythonic._Segments, "_line", line)
    monkeypatch.setattr(pythonic, "_LINE", _Counted(pythonic._LINE, count))
    monkeypatch.setattr(ast, "get_source_segment", None)  # not used any more

    def work(n: int) -> int:
        count[0] = 0
        calls = "[" + sep.join(['get_weather(city="Tóquio")'] * n) + "]"
        text = f"<tool_call>{calls}</tool_call>" if dialect == "hermes" else calls
        parsed = parse_tool_calls(text, ["get_weather"], dialect)  # type: ignore[arg-type]
        assert [c["args"] for c in parsed.tool_calls] == [{"city": "Tóquio"}] * n
        return count[0]
    assert _growth(work, 30) < 20
