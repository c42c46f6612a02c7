"""Review 178 #2: a pythonic call whose double-quoted string holds a raw line break (code, multi-line text) is read,
the line break taken as ``\\n`` as the JSON reader takes it, in parse_tool_calls, read_text_calls and a stream alike;
it no longer stays text with no call and no invalid call."""

from __future__ import annotations

import pytest

from toolwire.messages import AIMessageChunk
from toolwire.models._text_calls import TextCallStream, read_text_calls
from toolwire.parsing import parse_tool_calls

_NAMES = ["write_file"]
_ARGS = {"path": "a.py", "content": "import os\nprint(1)"}


@pytest.mark.parametrize("dialect", ["pythonic", None])
@pytest.mark.parametrize("text", [
    '[write_file(path="a.py", content="import os\nprint(1)")]',
    'write_file(path="a.py", content="import os\nprint(1)")',
    '```python\n[write_file(path="a.py", content="import os\nprint(1)")]\n```',
    '[write_file(path="a.py",\n            content="import os\nprint(1)")]',
])
def test_a_raw_line_break_in_a_string_is_read_as_in_json(text: str, dialect: str | None) -> None:
    reply = parse_tool_calls(text, _NAMES, dialect)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("write_file", _ARGS)]
    assert reply.invalid_tool_calls == [] and reply.content == ""


def test_crlf_and_the_other_formats_that_hold_a_pythonic_call() -> None:
    crlf = parse_tool_calls('[write_file(path="a.py", content="a\r\nb")]', _NAMES)
    assert crlf.tool_calls[0]["args"]["content"] == "a\r\nb"
    for text in ('<tool_call>[write_file(path="a.py", content="import os\nprint(1)")]</tool_call>',
                 '<|python_tag|>write_file(path="a.py", content="import os\nprint(1)")'):
        reply = parse_tool_calls(text, _NAMES)
        assert [c["args"] for c in reply.tool_calls] == [_ARGS] and reply.invalid_tool_calls == []
    python_dict = "{'name': 'write_file', 'arguments': {'path': 'a.py', 'content': \"import os\nprint(1)\"}}"
    as_dict = parse_tool_calls(python_dict, _NAMES)
    assert [c["args"] for c in as_dict.tool_calls] == [_ARGS]


def test_prose_around_it_stays_and_another_slip_is_reported() -> None:
    reply = parse_tool_calls('Writing it.\n[write_file(path="a.py", content="import os\nprint(1)")]\nDone.', _NAMES)
    assert reply.content == "Writing it.\n\nDone." and [c["args"] for c in reply.tool_calls] == [_ARGS]
    slip = parse_tool_calls('[write_file(path="a.py" content="import os\nprint(1)")]', _NAMES)
    assert slip.tool_calls == [] and "forgot a comma" in slip.invalid_tool_calls[0]["error"]


@pytest.mark.parametrize(("text", "content", "read"), [
    ('Sure.\n[write_file(path="a.py", content="import os\nprint(1)")]', "Sure.", True),
    ('```python\n[write_file(path="a.py", content="import os\nprint(1)")]\n```', "", True),
    # followed by more text: an example the reply shows, not a call (as for any Python call list)
    ('[write_file(path="a.py", content="import os\nprint(1)")]\nbut I will not run it.', None, False),
])
def test_server_text_and_stream_agree(text: str, content: str | None, read: bool) -> None:
    found = read_text_calls(text, _NAMES)
    if not read:
        assert found is None
    else:
        assert found is not None and found[0] == content and [c["args"] for c in found[1]] == [_ARGS]
    for size in (1, 4, 9):
        stream = TextCallStream(_NAMES)
        chunks = [out for i in range(0, len(text), size) for out in stream.feed(AIMessageChunk(text[i:i + size]))]
        chunks += list(stream.finish())
        calls = [c for chunk in chunks for c in chunk.tool_call_chunks]
        assert len(calls) == (1 if read else 0)
        assert "".join(str(c.content) for c in chunks).strip() == (content if read else text)
