"""How an MCP ``CallToolResult`` becomes toolwire message parts (:func:`convert_call_result`), split from
:mod:`toolwire.mcp.common`, which imports it from here.

Format: MCP revision 2025-11-25, "Server features > Tools > Tool Result" (content blocks ``text``, ``image``,
``audio``, ``resource_link``, ``resource``; ``structuredContent``; ``isError``).
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from typing import Any

from toolwire._printing import type_label

__all__ = ["convert_call_result"]


def _wire(model: Any) -> dict[str, Any]:
    """An SDK pydantic model as its JSON-RPC wire dict (camelCase keys in mcp 1.x and 2.x alike)."""
    if isinstance(model, dict):
        return model
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)  # type: ignore[no-any-return]


def _block(raw: Mapping[str, Any]) -> dict[str, Any]:
    """One MCP content block as a toolwire content block (see :func:`convert_call_result`)."""
    kind = raw.get("type")
    if kind == "text":
        return {"type": "text", "text": str(raw.get("text", ""))}
    if kind in ("image", "audio"):
        return {"type": kind, "base64": raw.get("data", ""), "mime_type": raw.get("mimeType")}
    if kind == "resource":
        return _embedded(raw.get("resource") or {})
    if kind == "resource_link":
        words = [raw.get("name") or raw.get("title") or "", f"<{raw.get('uri')}>", raw.get("description") or ""]
        return {"type": "text", "text": "Resource: " + " ".join(w for w in words if w)}
    return {"type": "text", "text": json.dumps(raw, ensure_ascii=False)}


def _embedded(res: Mapping[str, Any]) -> dict[str, Any]:
    """An embedded resource (``{"uri", "mimeType"?, "text" | "blob"}``) as a content block that keeps its ``uri``
    where the model reads it (review 149 #4: two files of one result could not be told apart): text as
    ``Resource <uri>:`` and the text on the next lines; a blob as an ``image``, ``audio`` or ``file`` block by its
    media type, a ``file`` block named after the last part of the URI's path (when it has one)."""
    uri = res.get("uri")
    uri = uri if isinstance(uri, str) and uri.strip() else None
    if "text" in res:
        text = str(res["text"])
        return {"type": "text", "text": f"Resource <{uri}>:\n{text}" if uri else text}
    mime = res.get("mimeType") or "application/octet-stream"
    kind = "image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else "file"
    block: dict[str, Any] = {"type": kind, "base64": res.get("blob", ""), "mime_type": mime}
    path = urllib.parse.urlsplit(uri).path if uri else ""  # ("urn:x" names no file)
    name = urllib.parse.unquote(path.rstrip("/").rpartition("/")[2]) if "/" in path else ""
    if kind == "file" and name:
        block["filename"] = name
    return block


def convert_call_result(result: Any) -> tuple[str | list[dict[str, Any]], dict[str, Any], bool]:
    """Map an MCP ``CallToolResult`` (an SDK model or its wire dict) to toolwire message parts.

    Args:
        result: the ``CallToolResult`` (MCP specification, "Tools": ``content``, ``structuredContent``, ``isError``).

    Returns:
        ``(content, artifact, is_error)``: ``content`` is the text when every block is text (joined by
        newlines), else a list of content blocks (``text``; ``image``/``audio`` with ``base64`` and
        ``mime_type``; embedded text resources as text that starts ``Resource <uri>:``; embedded binary resources
        as ``image``, ``audio`` or ``file`` blocks by their media type, a ``file`` block with the ``filename``
        its URI ends with; resource links as text, ``Resource: name <uri>``); when the
        result has no blocks, the JSON text of ``structuredContent``. ``artifact`` is
        ``{"structured_content": dict | None, "content": [raw MCP blocks]}`` (plus ``"meta"`` when the
        result has ``_meta``).

    Raises:
        TypeError: ``result`` is neither a dict nor a pydantic model (what ``ClientSession.call_tool`` returns), its
            ``content`` is not a list of block dicts, or (with no blocks) its ``structuredContent`` is not JSON data.
    """
    if not isinstance(result, dict) and not callable(getattr(result, "model_dump", None)):
        raise TypeError(f"convert_call_result takes an MCP CallToolResult (the SDK's model or its wire dict), not "
                        f"{type_label(result)}; pass what ClientSession.call_tool returned.")
    data = _wire(result)
    content_given = data.get("content") or []
    if not isinstance(content_given, list | tuple) or not all(isinstance(b, Mapping) for b in content_given):
        raise TypeError("The 'content' of an MCP CallToolResult must be a list of content block dicts, such as "
                        "[{'type': 'text', 'text': '...'}]; pass the result as ClientSession.call_tool returned it.")
    raw_blocks = list(content_given)
    structured = data.get("structuredContent")
    blocks = [_block(b) for b in raw_blocks]
    content: str | list[dict[str, Any]]
    if not blocks:
        try:
            content = json.dumps(structured, ensure_ascii=False) if structured is not None else ""
        except (TypeError, ValueError):  # a value JSON cannot hold, a circular container
            raise TypeError("The 'structuredContent' of an MCP CallToolResult must be JSON data (dicts, lists, "
                            "text, numbers, booleans, None); pass the result as ClientSession.call_tool returned "
                            "it.") from None
    elif all(b["type"] == "text" for b in blocks):
        content = "\n".join(b["text"] for b in blocks)
    else:
        content = blocks
    artifact: dict[str, Any] = {"structured_content": structured, "content": raw_blocks}
    if data.get("_meta"):
        artifact["meta"] = data["_meta"]
    return content, artifact, bool(data.get("isError"))
