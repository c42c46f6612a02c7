"""File, document and audio content blocks: read from every form toolwire meets, written in each provider's own.

A user message may hold a PDF, a text document or a sound in any of these forms, whichever provider it goes to
(:func:`read_media` reads them; images have their own reader, :class:`~toolwire.models.lowering._common.ImageBlock`):

* LangChain's standard blocks: ``{"type": "file" | "audio" | "video", "base64" | "url" | "file_id": ...,
  "mime_type", "filename"?}`` (the file name may sit in ``extras`` or ``metadata``), their older form with
  ``"source_type": "base64" | "url" | "id" | "text"`` and ``"data"``/``"url"``/``"id"``/``"text"``, and
  ``{"type": "text-plain", "text", "mime_type": "text/plain"}``;
* OpenAI's: ``{"type": "file", "file": {"file_data": "data:<mime>;base64,...", "filename"} | {"file_id"}}`` and
  ``{"type": "input_audio", "input_audio": {"data", "format": "wav" | "mp3"}}`` (Chat Completions),
  ``{"type": "input_file", "file_data" | "file_id" | "file_url", "filename"?}`` (Responses);
* Anthropic's ``{"type": "document", "source": {"type": "base64" | "text" | "url" | "file", ...}}`` (its ``title``,
  ``context``, ``citations`` and ``cache_control`` kept for Anthropic, as they are from LangChain's blocks, where
  they may sit in ``extras`` or ``metadata``: :func:`anthropic_keys`).

Each becomes a :class:`MediaBlock`, and each codec writes it as its API reference takes it (:func:`chat_part`,
:func:`responses_part`, :func:`anthropic_part`; Gemini's parts are written by
:mod:`~toolwire.models.lowering._gemini_parts`), or refuses it with a :class:`~toolwire.errors.UserError` that says
what to do: OpenAI takes no video and no file URL in Chat Completions, audio only as wav or mp3 data and not in the
Responses API; Anthropic takes PDFs and text as documents, and no audio or video. A block of a type a codec does not
know (another provider's own, a misspelled type) is refused by :func:`refuse_block` rather than sent to come back
as the provider's 400.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from typing import Any

from toolwire.errors import UserError

__all__ = ["CHAT_PARTS", "RESPONSES_PARTS", "MediaBlock", "anthropic_keys", "anthropic_part", "chat_part",
           "data_not_text", "keys_text", "read_media", "refuse_block", "responses_part"]


class MediaBlock(dict):  # type: ignore[type-arg]
    """A file, audio or video block in toolwire's neutral form: ``{"type": "file" | "audio" | "video"}``, one
    source (``"data"``: base64 text, ``"url"``, ``"file_id"`` or ``"text"``: a plain-text document's text), and
    ``"mime_type"``, ``"filename"`` and ``"anthropic"`` (the Anthropic-only keys of a ``document`` block) when
    known."""


_ANTHROPIC_KEYS = ("title", "context", "citations", "cache_control")
_AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mp3"}  # OpenAI input_audio formats -> media types
_FORMAT_OF = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/vnd.wave": "wav",
              "audio/mp3": "mp3", "audio/mpeg": "mp3", "audio/mpeg3": "mp3", "audio/x-mp3": "mp3"}
_KINDS = ("file", "audio", "video")
CHAT_PARTS = frozenset({"text", "image_url", "input_audio", "file"})
"""Chat Completions' user content part types: sent as given when toolwire does not read them."""
RESPONSES_PARTS = frozenset({"input_text", "input_image", "input_file", "input_audio"})
"""The Responses API's input content types: sent as given when toolwire does not read them."""


def _media(kind: str, source: str, value: Any, mime: Any = None, filename: Any = None,
           **extra: Any) -> MediaBlock | None:
    if not isinstance(value, str):
        return None
    if source in ("data", "url") and value.startswith("data:") and ";base64," in value:  # a data URL: its parts
        head, value = value[5:].split(";base64,", 1)
        source, mime = "data", mime or head or None
    block = MediaBlock(type=kind, **{source: value})
    if not mime and isinstance(filename, str):  # "report.pdf" with no media type: the one its name gives
        mime = mimetypes.guess_type(filename)[0]
    if isinstance(mime, str) and mime:
        block["mime_type"] = mime
    if isinstance(filename, str) and filename:
        block["filename"] = filename
    block.update({k: v for k, v in extra.items() if v is not None})
    return block


def _filename(block: dict[str, Any]) -> Any:
    for holder in (block, block.get("extras"), block.get("metadata")):
        if isinstance(holder, dict) and isinstance(holder.get("filename"), str):
            return holder["filename"]
    return None


def anthropic_keys(block: dict[str, Any], keys: tuple[str, ...] = _ANTHROPIC_KEYS) -> dict[str, Any]:
    """The Anthropic-only keys (``cache_control``, ``title``, ``context``, ``citations``) a LangChain standard block
    gives, on the block itself, else in its ``extras``, else in its older ``metadata``, as langchain-anthropic's
    ``_format_data_content_block`` reads them (review 297 #4).

    Args:
        block: a content block in LangChain's standard form (a dict).
        keys: the keys to look for (an image block takes ``("cache_control",)`` only).

    Returns:
        ``{key: value}`` for the keys found (values not copied); ``{}`` when none.
    """
    found: dict[str, Any] = {}
    for key in keys:
        for holder in (block, block.get("extras"), block.get("metadata")):
            if isinstance(holder, dict) and holder.get(key) is not None:
                found[key] = holder[key]
                break
    return found


def _langchain(block: dict[str, Any], kind: str) -> MediaBlock | None:
    """LangChain's standard block (v1 keys, or the older ``source_type`` form), its Anthropic-only keys
    (:func:`anthropic_keys`) kept as ``"anthropic"``."""
    mime, name = block.get("mime_type"), _filename(block)
    extra = {"anthropic": kept} if (kept := anthropic_keys(block)) else {}
    source_type = block.get("source_type")
    if source_type is not None:  # (there "id" is the file's id; in the v1 form it is the block's own)
        where = {"base64": ("data", "data"), "url": ("url", "url"), "id": ("file_id", "id"),
                 "text": ("text", "text")}.get(source_type)
        return _media(kind, where[0], block.get(where[1]), mime, name, **extra) if where else None
    for key, source in (("base64", "data"), ("data", "data"), ("url", "url"), ("file_id", "file_id"),
                        ("text", "text")):
        if key in block:
            return _media(kind, source, block[key], mime, name, **extra)
    return None


def _anthropic(block: dict[str, Any]) -> MediaBlock | None:
    """Anthropic's ``document`` block; ``None`` for a source of another type (``content``) or unknown keys."""
    source = block.get("source")
    if not isinstance(source, dict) or set(block) - {"type", "source", *_ANTHROPIC_KEYS}:
        return None
    kept = {k: block[k] for k in _ANTHROPIC_KEYS if k in block}
    extra = {"anthropic": kept} if kept else {}
    kind = source.get("type")  # a document's URL is a PDF's (Anthropic takes no other), its text plain text
    mime = source.get("media_type") or {"url": "application/pdf", "text": "text/plain"}.get(kind)
    where = {"base64": ("data", "data"), "text": ("text", "data"), "url": ("url", "url"),
             "file": ("file_id", "file_id")}.get(kind)
    return _media("file", where[0], source.get(where[1]), mime, None, **extra) if where else None


def read_media(block: dict[str, Any]) -> MediaBlock | None:
    """A file, document or audio block of any form the module docs list, as a :class:`MediaBlock`.

    Args:
        block: one content block (a dict).

    Returns:
        The neutral block, or ``None`` when ``block`` is none of those forms (an image, text, a provider's own
        block that has no neutral form), which the codecs then pass on as given.
    """
    kind = block.get("type")
    if kind in _KINDS and "source" not in block:
        file = block.get("file")
        if kind == "file" and isinstance(file, dict):  # OpenAI Chat Completions
            if "file_data" in file:
                return _media("file", "data", file["file_data"], None, file.get("filename"))
            return _media("file", "file_id", file.get("file_id"))
        return _langchain(block, kind)
    if kind == "text-plain":  # LangChain's plain-text document (its title, context...: Anthropic's too)
        return _langchain({**block, "mime_type": block.get("mime_type") or "text/plain"}, "file")
    if kind == "input_audio" and isinstance(block.get("input_audio"), dict):  # OpenAI Chat Completions
        audio = block["input_audio"]
        fmt = str(audio.get("format") or "")
        return _media("audio", "data", audio.get("data"), _AUDIO_FORMATS.get(fmt, f"audio/{fmt}" if fmt else None))
    if kind == "input_file":  # OpenAI Responses
        for key, source in (("file_data", "data"), ("file_id", "file_id"), ("file_url", "url")):
            if key in block:
                return _media("file", source, block[key], None, block.get("filename"))
        return None
    if kind == "document":
        return _anthropic(block)
    return None


# --------------------------------------------------------------------------- writing


def _mime(block: MediaBlock) -> str | None:
    """The block's media type, else one guessed from its file name (``report.pdf``)."""
    mime = block.get("mime_type")
    if mime:
        return str(mime)
    guessed = mimetypes.guess_type(str(block.get("filename") or ""))[0]
    return guessed


def _described(block: MediaBlock) -> str:
    mime = block.get("mime_type")
    return f"{block['type']} block" + (f" ({mime})" if mime else "")


def _data_url(block: MediaBlock, provider: str) -> str:
    mime = _mime(block)
    if not mime:
        raise UserError(f"A {_described(block)} with base64 data needs its mime_type for {provider} (e.g. "
                        "'application/pdf'): add it to the block.")
    return f"data:{mime};base64,{block['data']}"


def _file_name(block: MediaBlock) -> str:
    """The file name OpenAI gets with file data (it asks for one): the block's, else ``file`` and the extension of
    its media type (``file.pdf``)."""
    name = block.get("filename")
    if isinstance(name, str) and name:
        return name
    return "file" + (mimetypes.guess_extension(_mime(block) or "") or "")


def _no_video(block: MediaBlock, provider: str) -> None:
    if block["type"] == "video":
        raise UserError(f"{provider} takes no video content blocks: send frames of it as images, or use a model "
                        "that reads video (ChatGoogleGenAI).")


def _audio_format(block: MediaBlock) -> str:
    if "data" not in block:
        raise UserError("OpenAI takes audio only as base64 data: put the sound itself in the block ('base64' and "
                        "'mime_type': 'audio/wav' or 'audio/mpeg'), not a URL or file id.")
    fmt = _FORMAT_OF.get(str(_mime(block) or "").lower())
    if fmt is None:
        raise UserError(f"OpenAI takes audio as wav or mp3 only, not {_mime(block) or 'audio of no mime_type'}: "
                        "convert it, and give its mime_type ('audio/wav' or 'audio/mpeg').")
    return fmt


def chat_part(block: MediaBlock) -> dict[str, Any]:
    """``block`` as a Chat Completions content part (OpenAI API reference, "Chat Completions", user message
    content parts): ``{"type": "file", "file": {"file_data": <data URL>, "filename"} | {"file_id"}}``,
    ``{"type": "input_audio", "input_audio": {"data", "format": "wav" | "mp3"}}``; a plain-text document as a
    ``text`` part.

    Raises:
        UserError: a file given by URL (Chat Completions takes none), audio that is not wav or mp3 data, video, or
            base64 data with no media type.
    """
    _no_video(block, "OpenAI")
    if block["type"] == "audio":
        fmt = _audio_format(block)  # (first: it refuses audio by URL or file id, which has no "data")
        return {"type": "input_audio", "input_audio": {"data": block["data"], "format": fmt}}
    if "text" in block:
        return {"type": "text", "text": block["text"]}
    if "file_id" in block:
        return {"type": "file", "file": {"file_id": block["file_id"]}}
    if "url" in block:
        raise UserError("OpenAI's Chat Completions API takes no file URL: give the file's base64 data or an "
                        "uploaded file_id, or use the Responses API (ChatOpenAI(..., use_responses_api=True)).")
    return {"type": "file", "file": {"file_data": _data_url(block, "OpenAI"), "filename": _file_name(block)}}


def responses_part(block: MediaBlock) -> dict[str, Any]:
    """``block`` as a Responses API input content part (OpenAI API reference, "Responses", input content):
    ``{"type": "input_file", "file_data": <data URL>, "filename"}``, ``{"type": "input_file", "file_id"}`` or
    ``{"type": "input_file", "file_url"}``; a plain-text document as ``input_text``.

    Raises:
        UserError: audio (the Responses API takes none as input), video, or base64 data with no media type.
    """
    _no_video(block, "OpenAI")
    if block["type"] == "audio":
        raise UserError("OpenAI's Responses API takes no audio input: use Chat Completions "
                        "(ChatOpenAI(..., use_responses_api=False)) with a model that reads audio.")
    if "text" in block:
        return {"type": "input_text", "text": block["text"]}
    if "file_id" in block:
        return {"type": "input_file", "file_id": block["file_id"]}
    if "url" in block:
        return {"type": "input_file", "file_url": block["url"]}
    return {"type": "input_file", "file_data": _data_url(block, "OpenAI"), "filename": _file_name(block)}


def _decoded_text(block: MediaBlock) -> str:
    try:
        text = str(block["data"])
        return base64.b64decode(text + "=" * (-len(text) % 4)).decode("utf-8")
    except (binascii.Error, ValueError) as exc:
        raise UserError(f"The data of a {_described(block)} is not base64 of UTF-8 text: give the text itself, "
                        "or base64 of its UTF-8 bytes.") from exc


def anthropic_part(block: MediaBlock) -> dict[str, Any]:
    """``block`` as an Anthropic Messages API content block (API reference, "Messages", document and image
    blocks): a PDF as ``{"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
    "data"}}``, text (given as text, or base64 of any ``text/*`` type) as a document with a ``text`` source, a URL
    or an uploaded file id (the Files API, a beta) as a document of that source, an image file as an ``image``
    block; a ``document``'s ``title``, ``context``, ``citations`` and ``cache_control`` kept.

    Raises:
        UserError: audio or video (the Messages API takes neither), base64 data of another type than PDF, text or an
            image, or with no media type.
    """
    if block["type"] in ("audio", "video"):
        raise UserError(f"Anthropic's Messages API takes no {block['type']}: transcribe it to text first, or send "
                        "it to a model that reads it (ChatGoogleGenAI, or ChatOpenAI with an audio model).")
    extra = dict(block.get("anthropic") or {})
    if "text" in block:
        source: dict[str, Any] = {"type": "text", "media_type": "text/plain", "data": block["text"]}
    elif "url" in block:
        source = {"type": "url", "url": block["url"]}
    elif "file_id" in block:
        source = {"type": "file", "file_id": block["file_id"]}
    else:
        mime = (_mime(block) or "").lower()
        if mime.startswith("image/"):  # (an image block takes cache_control alone of the document's keys)
            return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": block["data"]},
                    **{k: v for k, v in extra.items() if k == "cache_control"}}
        if mime.startswith("text/"):
            source = {"type": "text", "media_type": "text/plain", "data": _decoded_text(block)}
        elif mime == "application/pdf":
            source = {"type": "base64", "media_type": mime, "data": block["data"]}
        else:
            raise UserError(f"Anthropic takes PDF and plain-text documents, not a {_described(block)}: convert the "
                            "file to PDF or text (and give its mime_type), or send it to another provider.")
    return {"type": "document", "source": source, **extra}


def keys_text(block: dict[str, Any]) -> str:
    """A block's keys as a plain list for a message (``base64, mime_type, type``), not a Python list's repr."""
    return ", ".join(sorted(map(str, block)))


def _type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def data_not_text(what: str, value: Any) -> UserError:
    """The error for base64 data that is not text (an int, ``None``, a list, bytes).

    Args:
        what: the field, as the message names it (``"image block's base64"``).
        value: the value given.

    Returns:
        The :class:`~toolwire.errors.UserError` to raise (one sentence: what to give instead).
    """
    return UserError(f"The {what} must be base64 text, not {_type_name(value)}: give the file's bytes as "
                     "base64.b64encode(content).decode('ascii').")


_NEUTRAL_KINDS = ("image", "file", "audio", "video")


def refuse_block(block: dict[str, Any], api: str) -> UserError:
    """The error for a user-message content block ``api`` cannot take and toolwire cannot translate: a block of an
    unknown type (``{"type": "weird"}``), another provider's own block (an Anthropic ``document`` of a ``content``
    source sent to OpenAI), or a known type in a shape toolwire does not read (an image whose ``base64`` is not
    text: review 170 #3).

    Args:
        block: the content block as given.
        api: the API, as the message names it (``"OpenAI's Chat Completions API"``).

    Returns:
        The :class:`~toolwire.errors.UserError` to raise (one sentence: what to send instead).
    """
    kind = block.get("type")
    source = block.get("source")
    extra = ", ".join(sorted(str(k) for k in block if k not in ("type", "source")))
    if kind == "image" and isinstance(source, dict) and source.get("type") == "base64" and not isinstance(
            source.get("data"), str):
        return data_not_text("image block's source data", source.get("data"))
    if kind == "image" and isinstance(source, dict) and source.get("type") in ("base64", "url") and extra:
        return UserError(f"{api} cannot take an Anthropic image block with other keys ({extra}): drop them (only "
                         "Anthropic reads them), or send the image as base64 data with a mime_type.")
    if kind in ("document", "image") and isinstance(source, dict):
        return UserError(f"{api} cannot take an Anthropic {kind} whose source is of type {source.get('type')!r}: "
                         + ("send the image as base64 data with a mime_type, or as a URL." if kind == "image" else
                            "send its text as text blocks, or the file as a file block with base64 data and a "
                            "mime_type."))
    if kind in _NEUTRAL_KINDS and source is None:  # LangChain's standard form, its source not usable
        for key in ("base64", "data"):
            if key in block and not isinstance(block[key], str):
                return data_not_text(f"{kind} block's {key}", block[key])
        if "url" in block and not isinstance(block["url"], str):
            return UserError(f"The {kind} block's url must be text, not {_type_name(block['url'])}: give the "
                             "address as a string.")
        return UserError(f"The {kind} block (keys: {keys_text(block)}) has no data toolwire reads: give it "
                         f"base64 text and a mime_type, such as {{'type': {kind!r}, 'base64': '...', 'mime_type': "
                         f"{_EXAMPLE_MIME[kind]!r}}}, or a url.")
    return UserError(f"{api} cannot take a content block of type {kind!r} (keys: {keys_text(block)}): write it as a "
                     "text, image or file block in LangChain's standard form, such as {'type': 'file', 'base64': "
                     "'...', 'mime_type': 'application/pdf'}, or put its content in a text block.")


_EXAMPLE_MIME = {"image": "image/png", "file": "application/pdf", "audio": "audio/wav", "video": "video/mp4"}
