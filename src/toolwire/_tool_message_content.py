"""What a :class:`~toolwire.messages.ToolMessage` made from any value holds as its content (kept apart from
:mod:`toolwire.messages`, which imports it)."""

from __future__ import annotations

from typing import Any

from toolwire.results import result_to_content

Content = str | list[Any]  # (as toolwire.messages.Content)

__all__ = ["_tool_content"]


def _tool_content(content: Any) -> Content:
    """The content of a :class:`ToolMessage` made from any value (see its docstring).

    Raises:
        TypeError: ``content`` is ``bytes`` (or holds bytes in a list), which a model cannot read.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        if all(isinstance(item, str | dict) for item in content):
            return content
        out: list[Any] = []
        for item in content:
            if isinstance(item, str | dict):
                out.append(item)
                continue
            value = _result_content(item)
            if isinstance(value, list):
                out.extend(value)  # a nested list of content blocks: its blocks
            else:
                out.append(value)
        return out
    return _result_content(content)


def _result_content(value: Any) -> Content:
    """``value`` written as toolwire writes a tool's result (:func:`~toolwire.results.result_to_content`);
    a value that cannot be JSON (a circular reference) as its ``str()``.

    Raises:
        TypeError: ``value`` is bytes.
    """
    if isinstance(value, bytes | bytearray | memoryview):
        raise TypeError(
            "ToolMessage content cannot be bytes: decode it to text, or pass content blocks such as "
            "[{'type': 'image', 'base64': ..., 'mime_type': 'image/png'}]."
        )
    from toolwire.errors import ToolExecutionError

    try:
        return result_to_content(value)
    except ToolExecutionError:
        return str(value)
