"""Gemini ``Part`` dicts: reading reply parts (REST camelCase or SDK snake_case), thought signatures, and
user content blocks lowered to parts.

Shapes, from the Gemini API reference (``Part``, ``Blob``, ``FileData``):

* ``{"text"}``, ``{"inline_data": {"mime_type", "data": <bytes>}}``, ``{"file_data": {"file_uri",
  "mime_type"?}}``, ``{"function_call"}``, ``{"function_response"}``, plus ``thought`` and
  ``thought_signature`` (bytes; base64 in JSON).
* Thought signatures are opaque bytes that must go back byte-identical. The REST API writes them in standard
  base64 and accepts both alphabets (proto3 JSON); the google-genai SDK dumps bytes as URL-safe base64
  (``-``/``_``) in JSON mode. toolwire keeps them in ``provider_data`` as standard base64 text
  (:func:`signature_text`) and decodes either alphabet (:func:`signature_bytes`).
"""

from __future__ import annotations

import base64
import binascii
import copy
import mimetypes
import urllib.parse
from typing import Any

from toolwire.errors import UserError
from toolwire.models.lowering._common import content_parts
from toolwire.models.lowering._media import data_not_text, keys_text

__all__ = ["add_content", "read_part", "sdk_part", "sign_rebuilt_calls", "signature_bytes", "signature_text",
           "start_with_user", "user_parts"]

_PART_KEYS = {"functionCall": "function_call", "functionResponse": "function_response", "inlineData": "inline_data",
              "fileData": "file_data", "thoughtSignature": "thought_signature", "mimeType": "mime_type",
              "fileUri": "file_uri", "executableCode": "executable_code",
              "codeExecutionResult": "code_execution_result", "videoMetadata": "video_metadata",
              "displayName": "display_name"}
_NATIVE = {"text", "inline_data", "file_data"}  # Gemini parts a user message may hold as they are
_AUDIO = {"wav": "audio/wav", "mp3": "audio/mp3", "aiff": "audio/aiff", "aac": "audio/aac", "ogg": "audio/ogg",
          "flac": "audio/flac", "pcm16": "audio/pcm", "webm": "audio/webm"}


def signature_bytes(value: str | bytes) -> bytes:
    """The bytes of a thought signature given as bytes or base64 text in either alphabet (``+/`` or ``-_``),
    padding optional.

    Raises:
        UserError: the text is not base64 (a ``provider_data`` edited by hand).
    """
    if isinstance(value, bytes):
        return value
    text = value.strip().replace("-", "+").replace("_", "/").rstrip("=")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise UserError(f"A Gemini thought signature in provider_data is not base64 ({value[:40]!r}...): "
                        "send back the AIMessage's provider_data unchanged.") from exc


def signature_text(value: str | bytes) -> str:
    """A thought signature as standard base64 text (how ``provider_data`` keeps it)."""
    return base64.b64encode(signature_bytes(value)).decode("ascii")


def read_part(part: dict[str, Any]) -> dict[str, Any]:
    """A reply part in snake_case, its thought signature as standard base64 text."""
    out = {}
    for key, value in part.items():
        key = _PART_KEYS.get(key, key)
        if key in ("inline_data", "file_data") and isinstance(value, dict):
            value = {_PART_KEYS.get(k, k): v for k, v in value.items()}
        if key == "thought_signature" and isinstance(value, str | bytes):
            value = signature_text(value)
        out[key] = value
    return out


def sdk_part(part: dict[str, Any]) -> dict[str, Any]:
    """A kept part for the SDK: a copy, its thought signature as the exact bytes."""
    part = copy.deepcopy(part)
    if isinstance(part.get("thought_signature"), str | bytes):
        part["thought_signature"] = signature_bytes(part["thought_signature"])
    return part


def is_empty_text(part: dict[str, Any]) -> bool:
    """An empty text part that carries nothing else (no signature): Gemini streams end with one at times."""
    return "text" in part and not part["text"] and "thought_signature" not in part and set(part) <= {"text", "thought"}


def _field(block: dict[str, Any]) -> str:
    """The field that holds a block's data, as a message names it (``image block's base64``)."""
    kind = block.get("type")
    if kind == "data URL":
        return "data URL's base64"
    key = "source data" if isinstance(block.get("source"), dict) else "base64" if "base64" in block else "data"
    return f"{kind} block's {key}"


def _data(block: dict[str, Any], data: Any) -> bytes:
    if not isinstance(data, str):
        raise data_not_text(_field(block), data)
    text = "".join(data.split()).replace("-", "+").replace("_", "/").rstrip("=")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise UserError(f"The {_field(block)} is not base64: give the file's bytes as "
                        "base64.b64encode(content).decode('ascii').") from exc


def _inline(block: dict[str, Any], data: Any, mime: Any) -> dict[str, Any]:
    raw = _data(block, data)
    if not isinstance(mime, str) or not mime:
        raise UserError(f"The {block.get('type')} block needs a mime_type for Gemini: add one, such as "
                        "'application/pdf' or 'audio/wav'.")
    return {"inline_data": {"mime_type": mime, "data": raw}}


def _linked(url: str, mime: Any) -> dict[str, Any]:
    if url.startswith("data:") and ";base64," in url:
        head, data = url[5:].split(";base64,", 1)
        return _inline({"type": "data URL"}, data, head or mime)
    return {"file_data": {"file_uri": url, **({"mime_type": mime} if isinstance(mime, str) and mime else {})}}


def _url_mime(url: str, kind: Any, fallback: str | None) -> str | None:
    """The media type of a block given by URL with none of its own: guessed from the URL's path (``cat.jpg``
    -> ``image/jpeg``, ``doc.pdf`` -> ``application/pdf``, review 58) when it is a media type Gemini reads
    files of (image, audio, video, PDF), else ``fallback`` (a ``kind`` of ``file`` or ``document`` takes any)."""
    if url.startswith("data:"):
        return fallback
    guessed = mimetypes.guess_type(urllib.parse.urlsplit(url).path)[0]
    if guessed and (kind in ("document", "file") or guessed.split("/")[0] in ("image", "audio", "video")
                    or guessed == "application/pdf"):
        return guessed
    return fallback


def _block_part(block: dict[str, Any]) -> dict[str, Any]:
    """One content block (not text) as a Gemini part; UserError naming the block when none fits."""
    kind = block.get("type")
    source = block.get("source")
    if kind in ("image", "document") and isinstance(source, dict):  # Anthropic {"source": {...}}
        mime = source.get("media_type") or block.get("mime_type")
        if source.get("type") == "base64":
            return _inline(block, source.get("data"), mime)
        if source.get("type") == "url" and isinstance(source.get("url"), str):
            url = source["url"]
            return _linked(url, mime or _url_mime(url, kind, "image/png" if kind == "image" else "application/pdf"))
        raise UserError(f"Gemini cannot take a {kind!r} block whose source is of type {source.get('type')!r}: "
                        "send base64 data or a URL.")
    if kind in ("image", "file", "audio", "video"):  # neutral {"base64"|"data", "mime_type"} or {"url"}
        mime = block.get("mime_type") or ("image/png" if kind == "image" else None)
        if isinstance(block.get("text"), str):  # a plain-text document (_media.MediaBlock): its UTF-8 bytes
            return {"inline_data": {"mime_type": mime or "text/plain", "data": block["text"].encode("utf-8")}}
        data = block.get("base64", block.get("data"))
        if data is not None or (("base64" in block or "data" in block) and not isinstance(block.get("url"), str)):
            return _inline(block, data, mime)
        if isinstance(block.get("url"), str):
            url = block["url"]
            return _linked(url, block.get("mime_type") or _url_mime(url, kind, mime))
        file = block.get("file")
        if kind == "file" and isinstance(file, dict) and isinstance(file.get("file_data"), str):  # OpenAI form
            return _linked(file["file_data"], None)
        raise UserError(f"Gemini cannot take this {kind!r} content block: give base64 data with a mime_type, "
                        "or a URL (file ids are not supported).")
    if kind == "input_audio" and isinstance(block.get("input_audio"), dict):  # OpenAI {"data", "format"}
        audio = block["input_audio"]
        fmt = str(audio.get("format") or "")
        return _inline(block, audio.get("data"), _AUDIO.get(fmt, f"audio/{fmt}" if fmt else None))
    if kind is None and block and set(map(lambda k: _PART_KEYS.get(k, k), block)) <= _NATIVE:
        return read_part(block)  # a Gemini part given as is
    raise UserError(f"Gemini cannot take a content block of type {kind!r} (keys: {keys_text(block)}): use text, "
                    "image, file, audio or video blocks with base64 data and a mime_type, or a URL.")


def user_parts(content: str | list[Any]) -> list[dict[str, Any]]:
    """The parts of a user message.

    Blocks read: text; images (neutral ``{"type": "image", "base64"|"data", "mime_type"}`` or ``"url"``,
    OpenAI ``image_url``, Anthropic ``{"type": "image"|"document", "source": {"type": "base64"|"url"}}``);
    ``{"type": "file"|"audio"|"video", "base64"|"data", "mime_type"}`` or ``"url"``; OpenAI ``input_audio``
    ``{"data", "format"}`` and ``{"type": "file", "file": {"file_data": <data URL>}}``; a Gemini part dict
    (``inline_data``/``file_data``). Base64 data becomes ``inline_data`` bytes, a URL ``file_data``.

    Raises:
        UserError: a block Gemini cannot take, named by its type.
    """
    parts: list[dict[str, Any]] = []
    for block in content_parts(content):
        if block.get("type") == "text":
            parts.append({"text": block["text"]})
        else:
            parts.append(_block_part(block))
    return parts


def add_content(contents: list[dict[str, Any]], role: str, parts: list[dict[str, Any]]) -> None:
    """Append a ``role`` turn of ``parts`` to ``contents`` in place, joined to the last content when that is of the
    same role (a user turn not to one of ``function_response`` parts, nor those to it), so model turns never follow
    each other: Gemini refuses a function-call turn that comes right after a model turn (400 "Please ensure that
    function call turn comes immediately after a user turn or after a function response turn"; review 246 #1).
    Nothing is added for no ``parts`` (an empty message), so the turns around it join."""
    if not parts:
        return
    last = contents[-1] if contents else None
    responses = last is not None and any("function_response" in p for p in last["parts"])
    if last is not None and last["role"] == role and (role == "model" or not responses):
        last["parts"].extend(parts)
    else:
        contents.append({"role": role, "parts": parts})


STARTED_BEFORE = "(The conversation before this point is not included.)"
"""The text of the user turn put before a conversation whose first turn is a function call (:func:`start_with_user`)."""


def start_with_user(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``contents``, with a user turn of :data:`STARTED_BEFORE` put first when its first turn is a model turn that
    makes a function call (a history trimmed to start at a call), which Gemini refuses with 400 (a function-call turn
    comes after a user turn or a function-response turn; review 246 #1). Changed in place and returned."""
    if contents and contents[0]["role"] == "model" and any("function_call" in p for p in contents[0]["parts"]):
        contents.insert(0, {"role": "user", "parts": [{"text": STARTED_BEFORE}]})
    return contents


_SKIP = signature_bytes("skip_thought_signature_validator")


def sign_rebuilt_calls(contents: list[dict[str, Any]]) -> None:
    """Gemini 3 answers 400 "Function call is missing a thought_signature" for a model turn whose first call
    carries none: a turn toolwire rebuilt (a ``MALFORMED_FUNCTION_CALL`` answered, a history from another
    model, one joined to a model turn of text before it) gets on its first call the stand-in value the "Thought
    signatures" guide documents for calls that Gemini did not make (``skip_thought_signature_validator``), in place.
    (Gemini 3 signs the first call of each step itself, so a kept turn of its own goes back unchanged.)"""
    for content in contents:
        parts = content["parts"]
        if content["role"] != "model":
            continue
        first = next((p for p in parts if "function_call" in p), None)
        if first is not None and "thought_signature" not in first:
            first["thought_signature"] = _SKIP
