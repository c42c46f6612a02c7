"""Review 187 #5 and #6: with ``dialect=None``, a valid call written after a cut-off attempt is read also when the
model writes it again in the same format (a JSON call missing its last brace then the JSON call, a cut-off pythonic
call list then another), and also when the cut-off attempt quotes a marker of the later call's format in a string;
a marker quoted inside a string argument of a call still never becomes a call (review 178 #1), and reading stays
linear (work counted as in tests/test_parsing_linear.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from toolwire.parsing import _retries, _scan, dialects, parse_tool_calls

_NAMES = ["search", "write_file"]
_X = '{"name": "search", "arguments": {"q": "x"}'  # a JSON call missing its last brace
_Y = '{"name": "search", "arguments": {"q": "y"}}'
_HERMES_Y = f"<tool_call>\n{_Y}\n</tool_call>"


def _calls(reply: Any) -> list[tuple[str, Any]]:
    return [(c["name"], c["args"]) for c in reply.tool_calls]


@pytest.mark.parametrize(("text", "attempt"), [
    (f"{_X}\n{_Y}", _X),  # the review's reproductions
    (f'<tool_call>\n{_X}\n<|python_tag|>{{"name": "search", "parameters": {{"q": "y"}}}}', _X),
    (f'<|python_tag|>{{"name": "search", "parameters": {{"q": "x"}}\n```json\n{_Y}\n```',
     '{"name": "search", "parameters": {"q": "x"}'),
    ('[search(q="x"\n[search(q="y")]', '[search(q="x"'),
    (f"{_X} {_Y}", _X),  # on one line
    (f"{_X}\nSorry, again:\n{_Y}", _X),  # prose between (it stays text)
    (f"Sure.\n{_X}\n\n{_Y}\nDone.", _X),
    (f"```json\n{_X}\n```json\n{_Y}\n```", _X),
    (f"[{_X}\n[{_Y}]", f"[{_X}"),  # lists of calls
    (f"[TOOL_CALLS] [{_X}\n{_Y}", f"[{_X}"),
    (f'<|python_tag|>{{"name": "search", "parameters": {{"q": "x"}}\n{_Y}',
     '{"name": "search", "parameters": {"q": "x"}'),
    (f"<tool_call>\n{_X}\n{_Y}\n</tool_call>", _X),  # inside one closed block
    ('[search(q="x"\nAgain:\n[search(q="y")]', '[search(q="x"\nAgain:'),
    ('[search(q="x" [search(q="y")]', '[search(q="x"'),
    ('```python\n[search(q="x"\n```python\n[search(q="y")]\n```', '[search(q="x"\n```python'),
    ('search(q="x"\nsearch(q="y")', 'search(q="x"'),
    ('[search(q="x", n={"a": [1, 2]}\n[search(q="y")]', '[search(q="x", n={"a": [1, 2]}'),
])
def test_a_call_written_again_in_the_same_format_is_read(text: str, attempt: str) -> None:
    reply = parse_tool_calls(text, _NAMES)
    assert _calls(reply) == [("search", {"q": "y"})]
    assert [(c["name"], c["args"]) for c in reply.invalid_tool_calls] == [("search", attempt)]
    assert "cut off" in reply.invalid_tool_calls[0]["error"]


@pytest.mark.parametrize(("text", "dialect"), [
    (f"{_X}\n{_Y}", "json"), (f"<tool_call>\n{_X}\n{_Y}\n</tool_call>", "hermes"),
    ('[search(q="x"\n[search(q="y")]', "pythonic"),
])
def test_the_named_dialect_reads_it_too(text: str, dialect: str) -> None:
    reply = parse_tool_calls(text, _NAMES, dialect)
    assert _calls(reply) == [("search", {"q": "y"})] and len(reply.invalid_tool_calls) == 1


@pytest.mark.parametrize("text", [
    '[search(q="a"), search(q="x"\n[search(q="a"), search(q="y")]',
    '[{"name": "search", "arguments": {"q": "a"}}, ' + _X + '\n[{"name": "search", "arguments": {"q": "a"}}, '
    + _Y + "]",
])
def test_the_calls_an_attempt_completed_are_not_run_twice(text: str) -> None:
    """The attempt is one invalid call: the call written again holds its complete calls too."""
    reply = parse_tool_calls(text, _NAMES)
    assert _calls(reply) == [("search", {"q": "a"}), ("search", {"q": "y"})]
    assert len(reply.invalid_tool_calls) == 1


def test_a_cut_off_attempt_alone_is_read_as_before() -> None:
    text = '[search(q="a"), search(q="x"'
    reply = parse_tool_calls(text, _NAMES)
    assert _calls(reply) == [("search", {"q": "a"})] and len(reply.invalid_tool_calls) == 1
    reply = parse_tool_calls(f"{_X}\n{_X}", _NAMES)  # two cut-off attempts: one invalid call each
    assert reply.tool_calls == [] and [c["args"] for c in reply.invalid_tool_calls] == [_X, _X]


@pytest.mark.parametrize("text", [
    '[write_file(path="a", content="[search(q=\'y\')]"',  # closed string, cut off after it
    '[write_file(path="a", content="see\n[search(q=\'y\')]',  # cut off inside the string
    "[write_file(path='a', content='''see\n[search(q=\"y\")]\n'''",
    '[write_file(path="a", content=\nsearch(q="y")',  # a call as an argument's value (no literal)
    '[write_file(path="a", content=[search(q="y")]',
    '{"name": "write_file", "arguments": {"path": "a", "content": "{\'name\': \'search\', \'arguments\': {}}"}',
    '{"name": "write_file", "arguments": {"content": "line\n{\'name\': \'search\', \'arguments\': {\'q\': \'y\'}}',
    '{"name": "write_file", "arguments": {"path": "a", "content": ' + _Y,  # a call object as a value, not a string
    '{"name": "write_file", "arguments": {"path": "a", "content": \n' + _Y,
    '<tool_call>\n{"name": "write_file", "arguments": {"content": "x\n' + _Y + '\n</tool_call>',
])
def test_a_call_quoted_in_a_cut_off_attempt_is_still_not_read(text: str) -> None:
    reply = parse_tool_calls(text, _NAMES)
    assert reply.tool_calls == []
    assert [c["name"] for c in reply.invalid_tool_calls] == ["write_file"]


_QUOTED = '<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>'


@pytest.mark.parametrize("text", [
    'write_file(path="a", content="see <tool_call>...</tool_call>"\n' + _HERMES_Y,  # the review's reproduction
    f"write_file(path='a', content='see {_QUOTED}'\n" + _HERMES_Y,
    f"write_file(path='a', content='''see\n{_QUOTED}\n'''\n" + _HERMES_Y,
    '{"name": "write_file", "arguments": {"content": "see ' + _QUOTED.replace('"', '\\"') + '"}\n' + _HERMES_Y,
    'write_file(path="a", content="see [TOOL_CALLS]search[ARGS]{\\"q\\": \\"x\\"}"\n[TOOL_CALLS]search[ARGS]{"q": "y"}',
    'write_file(path="a", content="see <function=search>{}</function>"\n<function=search>{"q": "y"}</function>',
])
def test_a_quoted_marker_of_the_later_calls_format_hides_only_itself(text: str) -> None:
    reply = parse_tool_calls(text, _NAMES)
    assert _calls(reply) == [("search", {"q": "y"})]


def test_a_closed_call_quoting_a_marker_is_still_the_one_read() -> None:
    """A marker quoted in a call that was closed is passed over as before: that call is returned, not the quoted one
    (one format is read from a reply, so the later call of the other format is not)."""
    quoted = "see " + _QUOTED
    text = json.dumps({"name": "write_file", "arguments": {"path": "a", "content": quoted}}) + "\n" + _HERMES_Y
    reply = parse_tool_calls(text, _NAMES)
    assert _calls(reply)[0] == ("write_file", {"path": "a", "content": quoted}) and reply.invalid_tool_calls == []
    assert ("search", {"q": "x"}) not in _calls(reply)


# -- linear work ---------------------------------------------------------------------------------------------------


class _Counted:
    """A compiled pattern that adds to ``count`` the characters each search or match reads."""

    def __init__(self, pattern: re.Pattern[str], count: list[int]) -> None:
        self.pattern, self.count = pattern, count

    def _counted(self, found: re.Match[str] | None, text: str, pos: int, endpos: int | None) -> re.Match[str] | None:
        self.count[0] += (found.end() if found is not None else len(text) if endpos is None else endpos) - pos
        return found

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        """``pattern.search``, counted."""
        found = self.pattern.search(text, pos) if endpos is None else self.pattern.search(text, pos, endpos)
        return self._counted(found, text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        """``pattern.match``, counted."""
        found = self.pattern.match(text, pos) if endpos is None else self.pattern.match(text, pos, endpos)
        return self._counted(found, text, pos, endpos)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


class _CountedDecoder:
    """The JSON decoder of :mod:`toolwire.parsing._retries`, adding to ``count`` the characters each decode reads."""

    def __init__(self, count: list[int]) -> None:
        self.count = count

    def raw_decode(self, text: str, idx: int = 0) -> tuple[Any, int]:
        try:
            value, end = _scan._DECODER.raw_decode(text, idx)
        except json.JSONDecodeError as exc:
            self.count[0] += exc.pos - idx
            raise
        self.count[0] += end - idx
        return value, end


def _work(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any]) -> int:
    count = [0]
    monkeypatch.setattr(_scan, "_PY_SPECIAL", _Counted(_scan._PY_SPECIAL, count))
    monkeypatch.setattr(_scan, "_STRING_BODY", {k: _Counted(p, count) for k, p in _scan._STRING_BODY.items()})
    monkeypatch.setattr(_retries, "_NEXT_LINE", _Counted(_retries._NEXT_LINE, count))
    monkeypatch.setattr(_retries, "_DECODER", _CountedDecoder(count))
    monkeypatch.setattr(dialects, "_VALUE_OPENER", _Counted(dialects._VALUE_OPENER, count))
    monkeypatch.setattr(dialects, "_OPENERS", _Counted(dialects._OPENERS, count))
    monkeypatch.setattr(dialects, "_STRING_REST", {k: _Counted(p, count) for k, p in dialects._STRING_REST.items()})
    read()
    return count[0]


_UNITS = [
    '{"name": "search", "arguments": {"q": "x"}\n',
    '[{"name": "search", "arguments": {"q": "x"}\nAgain:\n',
    '[search(q="x"\n',
    'search(q="x", n=[1, {"a": (2,)}]\nok\n',
    '<tool_call>{"name": "search", "arguments": {"q": "x"}\n{"name": "search", "arguments": {"q": "y"}\n</tool_call>',
]


@pytest.mark.parametrize("unit", _UNITS)
@pytest.mark.parametrize("dialect", [None, "named"])
def test_many_attempts_are_read_in_linear_work(monkeypatch: pytest.MonkeyPatch, unit: str, dialect: str | None) -> None:
    """A reply of n cut-off attempts, each written again: one invalid call each, in about one pass over it."""
    named = "hermes" if unit.startswith("<") else "pythonic" if "(" in unit else "json"

    def work(n: int) -> int:
        text = unit * n
        reply = parse_tool_calls(text, _NAMES, None if dialect is None else named)
        assert len(reply.invalid_tool_calls) == n * unit.count('"name"') or unit.count('"name"') == 0
        return _work(monkeypatch, lambda: parse_tool_calls(text, _NAMES, None if dialect is None else named))
    before, after = work(40), work(400)
    assert before > 0 and after / before < 20, (before, after)


def test_many_quoted_markers_in_a_cut_off_attempt_are_read_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def work(n: int) -> int:
        text = "write_file(path='a', content='" + _QUOTED * n + "'\n" + _HERMES_Y
        assert _calls(parse_tool_calls(text, _NAMES)) == [("search", {"q": "y"})]
        return _work(monkeypatch, lambda: parse_tool_calls(text, _NAMES))
    before, after = work(40), work(400)
    assert before > 0 and after / before < 20, (before, after)
