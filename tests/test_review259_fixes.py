"""Review 259: Qwen3-Coder ``<function=`` calls after 9ba7a80 (review 255 #1).

#1 a call that forgot its closing tags, followed by a later call with text after it, still reads as separate calls;
#2 two calls quoted in a row inside a ``<parameter=>`` value stay in it; #3 a reply cut inside a call quoted in a
block's value gives an invalid cut-off call, never a valid call with cut-short arguments."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.parsing import parse_tool_calls

NAMES = ["a", "b", "c", "search", "write_file"]


def _calls(reply: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in reply.tool_calls]


B = "<function=b>\n<parameter=y>\n2\n</parameter>\n</function>"
C = "<function=c>\n<parameter=z>\n3\n</parameter>\n</function>"


@pytest.mark.parametrize("text, expected", [
    (f"<function=a>\n<parameter=x>\n1\n{B}\nDone.", [("a", {"x": "1"}), ("b", {"y": "2"})]),
    (f"<tool_call>\n<function=a>\n<parameter=x>\n1\n<tool_call>\n{B}\n</tool_call>\nDone.",
     [("a", {"x": "1"}), ("b", {"y": "2"})]),
    (f"<function=a>\n<parameter=x>\n1\n{B}\nNow c:\n{C}", [("a", {"x": "1"}), ("b", {"y": "2"}), ("c", {"z": "3"})]),
    (f"<function=a>\n<parameter=x>\n1\n{B}\nNow c:\n{C}\nDone.",
     [("a", {"x": "1"}), ("b", {"y": "2"}), ("c", {"z": "3"})]),
    (f"<function=a>\n<parameter=x>\n1\n{B}", [("a", {"x": "1"}), ("b", {"y": "2"})]),
])
def test_a_call_after_a_value_that_forgot_its_tags_is_still_a_call_with_text_after_it(
        text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    reply = parse_tool_calls(text, NAMES)
    assert _calls(reply) == expected and reply.invalid_tool_calls == []


TWO_QWEN = ("Parallel calls look like this:\n<tool_call>\n<function=search>\n<parameter=q>\na\n</parameter>\n"
            "</function>\n</tool_call>\n<tool_call>\n<function=search>\n<parameter=q>\nb\n</parameter>\n</function>\n"
            "</tool_call>\nThe client runs both.")
TWO_HERMES = ('Parallel calls:\n<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>\n'
              '<tool_call>\n{"name": "search", "arguments": {"q": "b"}}\n</tool_call>\nThe client runs both.')
TWO_BARE = ("Bare: <function=search><parameter=q>a</parameter></function>\n"
            "<function=search><parameter=q>b</parameter></function>\nboth run.")


def _write(content: str, wrapped: bool) -> str:
    text = ("<function=write_file>\n<parameter=path>\nREADME.md\n</parameter>\n<parameter=content>\n"
            f"{content}\n</parameter>\n</function>")
    return f"<tool_call>\n{text}\n</tool_call>" if wrapped else text


@pytest.mark.parametrize("wrapped", [True, False])
@pytest.mark.parametrize("content", [TWO_QWEN, TWO_HERMES, TWO_BARE])
@pytest.mark.parametrize("dialect", [None, "function_tag"])
def test_two_calls_quoted_in_a_row_stay_in_the_value(content: str, wrapped: bool, dialect: str | None) -> None:
    reply = parse_tool_calls(_write(content, wrapped), NAMES, dialect)
    assert _calls(reply) == [("write_file", {"path": "README.md", "content": content})]
    assert reply.invalid_tool_calls == []


FULL = _write("A call:\n<tool_call>\n<function=search>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>\n"
              "Done.", True)


@pytest.mark.parametrize("after", ["A call:\n<tool_call>", "<function=search>", "<function=search>\n<parameter=q>",
                                   "<parameter=q>\nx", "x\n</parameter>", "</parameter>\n</func"])
def test_a_reply_cut_inside_a_call_quoted_in_a_block_is_an_invalid_cut_off_call(after: str) -> None:
    reply = parse_tool_calls(FULL[: FULL.index(after) + len(after)], NAMES)
    assert reply.tool_calls == []
    assert [c["name"] for c in reply.invalid_tool_calls] == ["write_file"]
    assert "cut off" in (reply.invalid_tool_calls[0]["error"] or "")


@pytest.mark.parametrize("tail", ["", "\nDone."])
def test_a_block_after_a_value_that_forgot_its_tags_and_its_own_block_end_is_still_a_call(tail: str) -> None:
    # the text goes on past the second call's </function>: not a cut inside a quoted call (review 259 #3)
    text = f"<tool_call>\n<function=a>\n<parameter=x>\n1\n<tool_call>\n{B}{tail}"
    reply = parse_tool_calls(text, NAMES)
    assert _calls(reply) == [("a", {"x": "1"}), ("b", {"y": "2"})] and reply.invalid_tool_calls == []

def test_an_mcp_tool_whose_open_schema_is_a_top_level_ref_passes_other_keys_to_the_server() -> None:
    # review 259 #4: as for the same object inline; a $ref to a closed object still refuses them
    from tests.test_review250_open_schemas import _call, _mcp_tools

    args = {"type": "object", "properties": {"q": {"type": "string"}}}
    top_ref, closed = _mcp_tools({"type": "object", "$ref": "#/$defs/Args", "$defs": {"Args": args}},
                                 {"$ref": "#/$defs/Args", "$defs": {"Args": {**args, "additionalProperties": False}}})
    message = _call(top_ref, {"q": "x", "color": "red"})
    assert (message.status, message.text) == ("success", 'server got {"color": "red", "q": "x"}')
    message = _call(top_ref, {"q": 3})
    assert message.status == "error" and "'q': 3 is not of type 'string'" in message.text
    message = _call(closed, {"q": "x", "color": "red"})
    assert message.status == "error" and "'color' is not a parameter of this tool" in message.text
