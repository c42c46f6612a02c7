"""A content block's base64 data as standard base64 text (RFC 4648 section 4): :func:`standard_base64`,
:func:`standard_block`. Moved from :mod:`toolwire._result_json` (review 272), which re-exports them.
"""

from __future__ import annotations

import base64
from typing import Any

__all__ = ["standard_base64", "standard_block"]

_MEDIA_BLOCKS = frozenset({"image", "audio", "file", "video", "document", "input_audio"})
_URL_SAFE = str.maketrans("-_", "+/")


def standard_base64(value: Any) -> Any:
    """A content block's base64 data as standard base64 text (RFC 4648 section 4, the alphabet with ``+`` and
    ``/`` that every provider takes): ``bytes`` (or a ``bytearray``, ``memoryview``) encoded; text in the URL-safe
    alphabet (``-`` and ``_``, RFC 4648 section 5, in which ``to_dict`` wrote a block's bytes before review 137)
    translated; anything else (standard text, a data URL, a value that is no data) itself."""
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, str) and ("-" in value or "_" in value) and "+" not in value and "/" not in value:
        return value.translate(_URL_SAFE)  # (standard base64 holds neither "-" nor "_", and a data URL has a "/")
    return value


def standard_block(block: dict[str, Any]) -> dict[str, Any]:
    """``block`` with its base64 data as standard base64 text (:func:`standard_base64`): the ``base64`` or
    ``data`` of an image, audio, file or video block (LangChain's and toolwire's forms), an Anthropic block's
    ``source["data"]`` when the source is ``base64``, an OpenAI ``input_audio``'s ``data``.

    Args:
        block: a content-block dict.

    Returns:
        A copy with the data changed, or ``block`` itself when it holds none to change (the common case).
    """
    if block.get("type") not in _MEDIA_BLOCKS:
        return block
    changed: dict[str, Any] = {}
    for key in ("base64", "data"):
        if key in block and (data := standard_base64(block[key])) is not block[key]:
            changed[key] = data
    for key in ("source", "input_audio"):
        inner = block.get(key)
        if (isinstance(inner, dict) and "data" in inner and (key != "source" or inner.get("type") == "base64")
                and (data := standard_base64(inner["data"])) is not inner["data"]):
            changed[key] = {**inner, "data": data}
    return {**block, **changed} if changed else block
