"""What ``parse_tool_calls``' docstring says of a closed call quoting a marker, pinned (review 191 #5)."""

from __future__ import annotations

from toolwire.parsing import parse_tool_calls

NAMES = ["search", "write_file"]
BLOCK = '<tool_call>\n{"name": "search", "arguments": {"q": "y"}}\n</tool_call>'


def _calls(text: str) -> list[tuple[str, dict[str, object]]]:
    return [(call["name"], call["args"]) for call in parse_tool_calls(text, NAMES).tool_calls]


def test_a_closed_pythonic_call_quoting_a_marker_hides_a_later_call_of_that_format() -> None:
    text = 'write_file(content="see <tool_call>x</tool_call>")\n' + BLOCK
    assert _calls(text) == [("write_file", {"content": "see <tool_call>x</tool_call>"})]


def test_after_a_closed_json_call_the_json_dialect_reads_the_later_block_too() -> None:
    text = '{"name": "write_file", "arguments": {"content": "see <tool_call>x</tool_call>"}}\n' + BLOCK
    assert _calls(text) == [("write_file", {"content": "see <tool_call>x</tool_call>"}), ("search", {"q": "y"})]


def test_the_docstring_says_so() -> None:
    doc = " ".join((parse_tool_calls.__doc__ or "").split())
    assert "is passed over when that call is closed" in doc
    assert "In a closed call it hides that dialect's calls" in doc
