"""The cut of a tool result's content at ``max_result_chars``: :func:`truncate_content` (re-exported by
:mod:`toolwire.results`), and what the model reads of each item of a content list (:func:`item_text`), which the
cut counts and which the later readers of a cut result (``models/_fit.py``'s fit into a small context window,
``_agent_direct.py``'s note after a cut ``return_direct`` output) look at for the marker (review 284 #3, #4).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ERROR_START", "TEXT_PARTS", "cut_marker", "ends_text", "item_text", "truncate_content", "with_text"]

TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
"""The block types whose ``text`` string the model reads as the text itself: toolwire's text block, and OpenAI
Responses' text parts (``input_text``, which a tool may return and the Responses API takes in a tool result;
``output_text``), counted and cut alike (review 284 #8: an 18,000-character ``input_text`` passed a 100-character
limit uncounted)."""

ERROR_START = "Error:"
"""How every error result starts (``error_text``, the executor's answers to invalid calls)."""


def cut_marker(cut: int, total: int, *, error: bool = False) -> str:
    """The marker that ends a cut text: ``cut`` of ``total`` characters were cut; an error result's gives no advice to
    narrow the result (review 83)."""
    if error:
        return f"\n[... error text truncated: {cut} of {total} characters cut ...]"
    return f"\n[... result truncated: {cut} of {total} characters cut; ask for a narrower result ...]"


def truncate_content(content: str | list[Any], limit: int | None, *, error: bool = False) -> str | list[Any]:
    """Cut text content longer than ``limit`` characters, ending it with a clear marker.

    Args:
        content: message content: a string, or a list whose text counts together (the limit is on the total
            text of the result, not per item): its strings, its text blocks' text (OpenAI Responses' ``input_text``
            and ``output_text`` parts' too: review 284 #8), and each dict that is no content block (a record such as
            ``{"url": ..., "text": ...}``) as the JSON text the model gets for it (:func:`item_text`). The item
            where the limit is reached is cut and ends with the marker (a record then becomes that cut JSON text, a
            string), the text items after it are dropped, other blocks (images...) kept whole.
        limit: the most characters to keep; ``None`` keeps everything.
        error: ``content`` is an error result's (a string or a list alike: review 284 #6).

    Returns:
        ``content`` itself when it fits, else a new string or list. The marker says how many characters
        were cut of how many: ``[... result truncated: 2 of 6 characters cut; ask for a narrower result ...]``.
        With ``error`` (the text of an error result, which starts ``Error:``), that word is kept however small
        ``limit`` is, and the marker gives no advice to narrow a result: ``[... error text truncated: 2 of 30
        characters cut ...]`` (review 83).
    """
    if limit is None:
        return content
    if isinstance(content, str):
        if len(content) <= limit:
            return content
        keep = max(limit, len(ERROR_START)) if error else limit  # (review 83: max_result_chars=1 left "E")
        return content[:keep] + cut_marker(len(content) - keep, len(content), error=error)
    texts = [item_text(item) for item in content]
    total = sum(len(text) for text in texts if text is not None)
    if total <= limit:
        return content
    keep = max(limit, len(ERROR_START)) if error else limit
    if total <= keep:
        return content
    out: list[Any] = []
    room = keep
    for item, text in zip(content, texts, strict=True):
        if text is None:
            out.append(item)  # an image or other block: kept whole
        elif room < 0:
            continue  # past the cut: dropped (counted in the marker)
        elif len(text) < room:  # (an exact fit with text after it takes the marker)
            out.append(item)
            room -= len(text)
        else:
            out.append(with_text(item, text[:room] + cut_marker(total - keep, total, error=error)))
            room = -1
    return out


def item_text(item: Any) -> str | None:
    """The text the model gets for one item of a content list, as ``lowering._common.content_parts`` reads it: a
    string itself, a text block (or an ``input_text``/``output_text`` part) its ``text``, a dict that is no content
    block (a tool's record) its whole JSON text (review 280 #1: strings and records were not counted against the
    limit); ``None`` for any other item (an image or other block, kept whole)."""
    kind = _kind(item)
    if kind == "text":
        return item if isinstance(item, str) else str(item["text"])
    if kind == "record":
        from toolwire.models.lowering._common import record_text

        return record_text(item)
    return None


def _kind(item: Any) -> str | None:
    """``"text"`` for a string, a text block or a Responses text part; ``"record"`` for a dict that is no content
    block (as ``lowering._common.content_parts`` tells one: no string ``type``, or a ``"text"`` one whose ``text`` is
    no string, and no Gemini part); None for any other item (an image or other block)."""
    if isinstance(item, str) or _is_text_part(item):
        return "text"
    if not isinstance(item, dict):
        return None
    from toolwire.models.lowering._common import _GEMINI_PART_KEYS

    if (not isinstance(item.get("type"), str) or item["type"] == "text") and not (
            "type" not in item and item.keys() <= _GEMINI_PART_KEYS):
        return "record"
    return None


def with_text(item: Any, text: str) -> Any:
    """``item`` (a content list's item that has text: :func:`item_text`) with ``text`` for its text: a text block or
    part a copy with that ``text``, a string or a record the string ``text`` (a record cut is its cut JSON text)."""
    return {**item, "text": text} if _is_text_part(item) else text


def ends_text(content: str | list[Any]) -> tuple[int | None, str]:
    """Where the text of ``content`` ends, where a cut result's marker is: ``(None, content)`` for a string, else
    ``(index, text)`` of the last item of the list that has text (:func:`item_text`), ``(None, "")`` when none has.
    (Review 284 #3, #4: a plain string or a record turned cut string ends a cut list, not only a text block.)"""
    if isinstance(content, str):
        return None, content
    for index in range(len(content) - 1, -1, -1):
        item = content[index]
        kind = _kind(item)
        if kind == "text":
            return index, item if isinstance(item, str) else str(item["text"])
        if kind == "record":  # (its JSON text, which a cut never ends with: not written here)
            return index, ""
    return None, ""


def _is_text_part(item: Any) -> bool:
    """Whether ``item`` is a text block (:func:`toolwire.messages.is_text_block`, whose module imports this one's
    importer) or an OpenAI Responses text part: a dict whose ``text`` is a string, of a type in :data:`TEXT_PARTS` (or
    with no other key)."""
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return False
    kind = item.get("type")
    return (isinstance(kind, str) and kind in TEXT_PARTS) or ("type" not in item and len(item) == 1)
