"""How a served tool's answer (a :class:`~toolwire.messages.ToolMessage`'s content) becomes MCP content blocks:
:func:`_blocks`, used by :func:`toolwire.mcp.server.message_to_result`. Kept apart from :mod:`toolwire.mcp.server`,
which re-exports it.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any
from urllib.parse import quote

_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)$", re.S)


def _blocks(content: str | list[Any]) -> list[dict[str, Any]]:
    """A ToolMessage's content as MCP content blocks: text as ``text``, images and audio (toolwire's, LangChain's,
    Anthropic's, OpenAI's ``image_url``/``input_audio`` and the Responses API's ``input_text``/``input_image``/
    ``input_file`` parts, review 248 #5) as ``image``/``audio``, files as an embedded ``resource``, an image by
    URL as text naming it; any other block as the text of its JSON, its base64 payloads cut to a note of their
    length (:func:`_shortened`)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str):
            out.append({"type": "text", "text": block})
            continue
        kind = block.get("type")
        data, mime = _payload(block)
        if kind in ("text", "input_text"):
            out.append({"type": "text", "text": str(block.get("text", ""))})
        elif kind in ("image", "audio") and data:
            mime = mime or ("image/png" if kind == "image" else "audio/wav")
            out.append({"type": kind, "data": data, "mimeType": mime})
        elif kind == "resource" and isinstance(block.get("resource"), dict):  # an MCP embedded resource, as it is
            out.append({"type": "resource", "resource": block["resource"]})
        elif kind == "resource_link" and _links_sent():  # valid MCP content (2025-06-18 on), as it is
            out.append(block)
        elif kind == "input_audio" and isinstance(audio := block.get("input_audio"), dict) and audio.get("data"):
            out.append({"type": "audio", "data": audio["data"], "mimeType": f"audio/{audio.get('format') or 'wav'}"})
        elif kind in ("file", "document", "input_file") and data:  # binary content: an embedded resource (review 32)
            name = str(block.get("filename") or block.get("name") or "attachment")  # (RFC 3986 escaped: review 224 #3)
            out.append({"type": "resource", "resource": {"uri": f"attachment:///{quote(name, safe='')}", "blob": data,
                                                         "mimeType": mime or "application/octet-stream"}})
        elif (kind == "image_url" or (kind == "image" and isinstance(block.get("url"), str))
              or (kind == "input_image" and block.get("image_url"))):  # an image by URL, or a data URL
            url = block["url"] if kind == "image" else block.get("image_url")
            url = url.get("url") if isinstance(url, dict) else url
            match = _DATA_URL.match(str(url or ""))
            out.append({"type": "image", "data": match["data"], "mimeType": match["mime"]} if match
                       else {"type": "text", "text": f"Image: {url}"})
        else:
            out.append({"type": "text", "text": json.dumps(_shortened(block), ensure_ascii=False, default=str)})
    return out


@functools.cache
def _links_sent() -> bool:
    """Whether the installed SDK's types have MCP's ``resource_link`` content block (else it goes out as JSON text)."""
    try:
        import mcp.types
    except ImportError:
        return False
    return hasattr(mcp.types, "ResourceLink")


def _payload(block: dict[str, Any]) -> tuple[Any, Any]:
    """``(base64 data, MIME type)`` of a content block in any form toolwire keeps as binary content: ``base64``,
    ``data`` or ``file_data`` with ``mime_type``/``mimeType``, an Anthropic-style ``source`` dict (``data``,
    ``media_type``), or a ``url``/``data``/``file_data`` holding a ``data:`` URL (LangChain's form, a Responses
    ``input_file``'s); ``(None, None)`` when it carries none."""
    source = block.get("source")
    if isinstance(source, dict) and source.get("data"):
        return source["data"], source.get("media_type") or source.get("mime_type")
    for key in ("url", "data", "file_data"):  # (file_data: a Responses API input_file's, review 248 #5)
        match = _DATA_URL.match(block[key]) if isinstance(block.get(key), str) else None
        if match:
            return match["data"], match["mime"]
    data = block.get("base64") or block.get("data") or block.get("file_data")
    return data, block.get("mime_type") or block.get("mimeType")


_LONG = 120  # characters of a base64 payload kept in a block sent as text


def _shortened(value: Any) -> Any:
    """``value`` with each long ``data``/``blob``/``base64``/``file_data`` string and each long ``data:`` URL cut to
    its start and its length."""
    if isinstance(value, dict):
        return {k: f"{v[:_LONG]}... ({len(v)} characters)" if isinstance(v, str) and len(v) > _LONG
                and (k in ("data", "blob", "base64", "file_data") or v.startswith("data:")) else _shortened(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_shortened(v) for v in value]
    return value
