"""Tool results: how a tool's return value or its failure becomes the content of a ToolMessage.

:func:`result_to_content` turns a return value into message content (text, JSON text, or a list of content
blocks), :func:`truncate_content` bounds its length, and :func:`error_text` writes the one-paragraph error a
model sees when a call fails. :class:`~toolwire.tools.Tool` and :class:`~toolwire.execution.ToolExecutor` use
them; providers lower the result afterwards (``toolwire.models.lowering``).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from toolwire.errors import ToolExecutionError, ToolTimeoutError, ToolValidationError

__all__ = ["error_text", "result_to_content", "truncate_content"]

_BLOCK_TYPES = frozenset({"text", "image", "image_url", "audio", "file", "document", "resource"})


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        raise TypeError("bytes")
    return to_jsonable_python(value, fallback=str)


_MEDIA_KEYS = ("base64", "data", "url", "file_id")
_BLOCK_KEYS = frozenset({"type", "text", "base64", "data", "url", "file_id", "mime_type", "image_url", "resource",
                         "id", "extras", "metadata", "cache_control", "detail", "filename", "annotations"})


def _is_block(block: Any) -> bool:
    """Whether ``block`` is a well-formed content block, not data that merely has a ``type`` key.

    Text needs a ``text`` string; image/audio/file/document need their payload (``base64``, ``data``, ``url``
    or ``file_id`` as a string, or an Anthropic-style ``source`` dict); OpenAI's ``image_url`` needs its URL;
    an MCP ``resource`` needs its ``resource`` dict; a block without ``source`` has only the keys of the
    neutral forms (LangChain's standard blocks: ``mime_type``, ``id``, ``extras``...). A folder listing
    such as ``[{"type": "file", "name": ...}]`` is data and becomes JSON text.
    """
    if not isinstance(block, dict):
        return False
    if not isinstance(block.get("source"), dict) and not block.keys() <= _BLOCK_KEYS:
        return False  # a key no neutral content block has (``name``, ``title``, ``size``...): data
    kind = block.get("type")
    if kind == "text":
        return isinstance(block.get("text"), str)
    if kind == "image_url":
        ref = block.get("image_url")
        return isinstance(ref, str) or (isinstance(ref, dict) and isinstance(ref.get("url"), str))
    if kind == "resource":
        return isinstance(block.get("resource"), dict)
    if kind in _BLOCK_TYPES:
        return isinstance(block.get("source"), dict) or any(isinstance(block.get(k), str) for k in _MEDIA_KEYS)
    return False


def _is_blocks(value: Any) -> bool:
    return bool(value) and isinstance(value, list) and all(_is_block(b) for b in value)


def result_to_content(result: Any) -> str | list[Any]:
    """Turn a tool's return value into message content.

    * ``str`` stays as is; a list of well-formed content blocks (``{"type": "text", "text"}``, image/audio/
      file/document blocks with their ``base64``/``data``/``url``/``file_id`` payload, ...) stays a list;
    * pydantic models, dataclasses, dicts, lists, tuples, numbers, bools and ``None`` become JSON text
      (UTF-8, ``ensure_ascii=False``); other objects (dates, UUIDs, enums...) take their JSON form.

    Raises:
        ToolExecutionError: the result is ``bytes`` (return text, or content blocks such as
            ``{"type": "image", "base64": ..., "mime_type": ...}``).
    """
    if isinstance(result, str):
        return result
    if isinstance(result, bytes | bytearray):
        raise ToolExecutionError(
            "The tool returned bytes, which a model cannot read: return text, or content blocks "
            "such as {'type': 'image', 'base64': ..., 'mime_type': 'image/png'}."
        )
    if _is_blocks(result):
        return result
    if isinstance(result, BaseModel):
        return result.model_dump_json()
    try:
        return json.dumps(result, ensure_ascii=False, default=_json_default)
    except TypeError as exc:
        raise ToolExecutionError(
            f"The tool's result could not be turned into JSON text ({exc}): return text or JSON-like data."
        ) from None
    except ValueError as exc:  # circular reference
        raise ToolExecutionError(f"The tool's result could not be turned into JSON text: {exc}.") from None


def truncate_content(content: str | list[Any], limit: int | None) -> str | list[Any]:
    """Cut text content longer than ``limit`` characters, ending it with a clear marker.

    Args:
        content: message content (a string, or blocks whose text blocks are cut the same way).
        limit: the most characters to keep; ``None`` keeps everything.
    """
    if limit is None:
        return content
    if isinstance(content, str):
        if len(content) <= limit:
            return content
        return (content[:limit] + f"\n[... result truncated: {len(content) - limit} of {len(content)} "
                "characters cut; ask for a narrower result ...]")
    return [
        {**b, "text": truncate_content(b["text"], limit)} if b.get("type") == "text" and "text" in b else b
        for b in content
    ]


def error_text(exc: BaseException, tool_name: str, *, hide_details: bool = False) -> str:
    """The text a model sees when a tool call fails.

    Validation, timeout and unknown-tool errors say what to change; any other exception gives its type
    and message (never a traceback), or only its type when ``hide_details`` is set (for tools whose
    errors may hold secrets).
    """
    if isinstance(exc, ToolValidationError | ToolTimeoutError) or (
        isinstance(exc, ToolExecutionError) and type(exc) is not ToolExecutionError
    ):
        return f"Error: {exc}"
    if isinstance(exc, ToolExecutionError) and str(exc).startswith("Error:"):
        return str(exc)  # already written for the model (an MCP server's error text, for one)
    if isinstance(exc, ToolExecutionError):
        return f"Error: tool '{tool_name}' failed: {exc}"
    kind = type(exc).__name__
    if hide_details:
        return f"Error: tool '{tool_name}' raised {kind}. Try different arguments or another approach."
    try:
        detail = str(exc).strip()
    except Exception:  # an exception whose __str__ itself fails still gets its error result
        detail = ""
    return f"Error: tool '{tool_name}' raised {kind}: {detail}" if detail else \
        f"Error: tool '{tool_name}' raised {kind}."
