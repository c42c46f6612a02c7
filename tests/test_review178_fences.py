"""Review 178 #5: a fenced JSON call whose string argument holds three backticks (a tool writing Markdown) is read
and its whole fence taken out of the content, not left behind as an empty code fence."""

from __future__ import annotations

import pytest

from toolwire.models._reply import read_reply
from toolwire.parsing import parse_tool_calls
from toolwire.tools import ToolSpec

_CALL = '{"name": "write_file", "arguments": {"path": "README.md", "content": "```sh\\nmake\\n```"}}'
_ARGS = {"path": "README.md", "content": "```sh\nmake\n```"}


@pytest.mark.parametrize("dialect", ["json", None])
@pytest.mark.parametrize(("text", "content"), [
    (f"```json\n{_CALL}\n```", ""),
    (f"Here it is:\n```json\n{_CALL}\n```\nDone.", "Here it is:\n\nDone."),
    (f"```\n{_CALL}\n```", ""),
    (f"```json\n{_CALL}\n{_CALL}\n```", ""),
    (f"<|python_tag|>```json\n{_CALL}\n```<|eom_id|>", ""),
    (f'<|python_tag|>```json\n{{"name": "write_file", "arguments": {{"path": "a"}}}};{_CALL}\n```<|eom_id|> ok', "ok"),
])
def test_the_fence_goes_with_the_call(text: str, content: str, dialect: str | None) -> None:
    reply = parse_tool_calls(text, ["write_file"], dialect)
    assert reply.content == content
    assert reply.tool_calls[-1]["args"] == _ARGS and reply.invalid_tool_calls == []


def test_a_fence_of_prose_after_the_call_is_kept() -> None:
    text = f"```json\n{_CALL}\n```\nThen run:\n```sh\nmake\n```"
    reply = parse_tool_calls(text, ["write_file"], "json")
    assert reply.content == "Then run:\n```sh\nmake\n```" and len(reply.tool_calls) == 1


def test_the_embedded_models_json_dialect_reads_it_so() -> None:
    spec = ToolSpec(name="write_file", description="Write a file.", parameters={
        "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}})
    reply = read_reply("", f"```json\n{_CALL}\n```", [spec], ("json",), "json", cut=False)
    assert reply.content == "" and [c["args"] for c in reply.tool_calls] == [_ARGS]
