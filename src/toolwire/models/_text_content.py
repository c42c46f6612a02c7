"""Message content for a local model that reads only text (the dialects of :mod:`toolwire.models.dialects`).

* :func:`prompt_text`: the text of a user or system message. Text blocks are joined by newlines (where
  :attr:`~toolwire.messages.BaseMessage.text` joins them with nothing between, as LangChain does); an image
  (or audio, video, file, document) block is a :class:`~toolwire.errors.UserError`, since the model cannot
  see it and would make up an answer; any other block is written as its JSON text, never dropped.
* :func:`result_text`: the text of a tool result. The tool has run, so nothing raises: a media block
  becomes a short note saying what was returned and that it cannot be shown; any other block is its JSON
  text.
* :func:`json_form`: a value in its JSON form (dates, decimals, sets...), for call arguments in the
  history.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import to_jsonable_python

from toolwire.errors import UserError
from toolwire.messages import BaseMessage, HumanMessage, SystemMessage, content_text

__all__ = ["check_readable", "json_form", "media_note", "prompt_text", "result_text"]

_MEDIA = {"image": "image", "image_url": "image", "input_image": "image", "audio": "audio",
          "input_audio": "audio", "video": "video", "file": "file", "input_file": "file", "document": "document"}
"""Content block types a text-only model cannot read, and the noun each is called in messages."""


def _text(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # an object whose __str__ fails is still written
        return f"<{type(value).__name__}>"


def json_form(value: Any, _depth: int = 0) -> Any:
    """``value`` in its JSON form, as toolwire writes tool results: ``to_jsonable_python`` with a ``str``
    fallback (a date becomes ``"2025-01-02"``, a set a list, a pydantic model its dict), a NaN or infinite
    float as the string ``"NaN"``, ``"Infinity"`` or ``"-Infinity"``, as the hosted providers are sent it (review 229
    #5: the pythonic dialect wrote ``None``, the json ones bare ``NaN``, which is no JSON). Other JSON values come
    back equal; a value it cannot convert (bytes that are not UTF-8, a circular list) is converted part
    by part, and what is left becomes its ``str``."""
    from toolwire._result_json import _finite, _has_non_finite

    if _depth == 0:
        form = json_form(value, 1)
        return _finite(form) if _has_non_finite(form) else form
    try:
        return to_jsonable_python(value, fallback=_text)
    except Exception:
        if _depth < 32 and isinstance(value, dict):
            return {k if isinstance(k, str) else _text(json_form(k, _depth + 1)): json_form(v, _depth + 1)
                    for k, v in value.items()}
        if _depth < 32 and isinstance(value, list | tuple | set | frozenset):
            return [json_form(v, _depth + 1) for v in value]
        return _text(value)


def _media(block: Any) -> str | None:
    """The noun of a media block (``"image"``...), or None for text and any other block."""
    if isinstance(block, dict) and isinstance(block.get("type"), str):
        return _MEDIA.get(block["type"])
    return None


def _block_json(block: Any) -> str:
    from toolwire.models.lowering._common import block_as_text

    return block_as_text(block) if isinstance(block, dict) else _text(json_form(block))


def prompt_text(message: BaseMessage, model: str | None = None) -> str:
    """The text of a user or system message for a text-only model.

    Args:
        message: the message.
        model: the model's name, for the error (default: "This local model").

    Raises:
        UserError: the message holds an image, audio, video, file or document block, or a block only OpenAI's
            Responses API takes (an ``mcp_approval_response``: review 302 #3).
    """

    def other(block: Any) -> str:
        from toolwire.models.lowering._common import RESPONSES_ITEM_BLOCKS, responses_only

        if isinstance(block, dict) and block.get("type") in RESPONSES_ITEM_BLOCKS:
            raise responses_only(block["type"])
        noun = _media(block)
        if noun is not None:
            who = model or "This local model"
            raise UserError(f"{who} reads text only: describe the {noun} in text or use a model that takes "
                            f"{noun if noun == 'audio' else noun + 's'}.")
        return _block_json(block)

    return content_text(message.content, other, "\n")


def check_readable(messages: Any, model: str | None = None) -> None:
    """Refuse a conversation the text-only model cannot read, before it waits for its turn on the model (review 113:
    an image was refused only once the replies ahead of it were done): :func:`prompt_text` of each user and system
    message in ``messages`` (a sequence of :class:`~toolwire.messages.BaseMessage`; others are left to the dialect).

    Args:
        messages: the conversation.
        model: the model's name, for the error.

    Raises:
        UserError: a user or system message holds an image, audio, video, file or document block, or an
            ``mcp_approval_response`` block (:func:`prompt_text`).
    """
    for message in messages:
        if isinstance(message, HumanMessage | SystemMessage) and not isinstance(message.content, str):
            prompt_text(message, model)


def media_note(block: dict[str, Any], why: str = "this model reads text only") -> str | None:
    """The note that stands for a media block (``block``) in a tool result where it cannot be shown (``why``), or
    None for a block that is no media."""
    noun = _media(block)
    return None if noun is None else _note(block, noun, why)


def _note(block: dict[str, Any], noun: str, why: str = "this model reads text only") -> str:
    """The note that stands for a media block in a tool result: what it is, and that it is not shown."""
    ref = block.get("image_url") if block.get("type") == "image_url" else block.get("url")
    url = ref.get("url") if isinstance(ref, dict) else ref
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    kind = block.get("mime_type") or source.get("media_type")
    if isinstance(url, str) and url.startswith("data:"):
        kind, url = kind or url[5:].split(";", 1)[0].split(",", 1)[0], None
    if not isinstance(url, str):
        url = source.get("url") if isinstance(source.get("url"), str) else None
    detail = url if isinstance(url, str) and url else kind if isinstance(kind, str) and kind else ""
    what = f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}" + (f" ({detail})" if detail else "")
    return f"[The result holds {what} that cannot be shown here: {why}.]"


def result_text(content: str | list[Any]) -> str:
    """The text of a tool result for a text-only model: text blocks as their text, a media block as a short
    note that it was returned and cannot be shown, any other block as its JSON text. Never raises."""

    def other(block: Any) -> str:
        noun = _media(block)
        return _note(block, noun) if noun is not None else _block_json(block)

    return content_text(content, other, "\n")
