"""Whole characters in every streamed piece of text (review 282 #4).

A server that cuts text by UTF-16 code units (a JavaScript or Java one) can split a character outside the Basic
Multilingual Plane, an emoji, into its surrogate pair across two stream events, each escaped in JSON
(``"\\ud83d"`` then ``"\\ude00"``). Read as they come, the pieces hold lone surrogates, which no UTF-8 stream can
print (``print(chunk.content)`` raises ``UnicodeEncodeError``) and no request can send. :class:`SurrogateCarry`
holds a piece's trailing high surrogate back and puts it before the next piece of the same text, so each piece
holds whole characters and the pieces join to the same text; a high surrogate left at the end, or a lone one
anywhere, becomes U+FFFD, as :func:`~toolwire.results.valid_text` makes it in a message.
"""

from __future__ import annotations

from collections.abc import Hashable

from toolwire.results import valid_text

__all__ = ["SurrogateCarry"]

_REPLACEMENT = "\ufffd"


class SurrogateCarry:
    """The high surrogates held back at the end of streamed pieces of text, one per text (``key``: a call's index, a
    content part...). Text without surrogates passes through with a cheap test (``str.isascii`` or a scan)."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held: dict[Hashable, str] = {}

    def take(self, text: str, key: Hashable = None) -> str:
        """``text``, the next piece of text ``key``, with the high surrogate held back before it put in front and a
        trailing high surrogate of its own held back; surrogate pairs in it joined, a lone surrogate U+FFFD.

        Args:
            text: the piece as the server sent it.
            key: which text it continues.

        Returns:
            The piece to pass on: every character in it can be encoded as UTF-8 (it may be ``""``, when all it had
            was a held surrogate).
        """
        if self.held:
            text = self.held.pop(key, "") + text
        if text.isascii():
            return text
        last = text[-1]
        if "\ud800" <= last <= "\udbff":
            self.held[key] = last
            text = text[:-1]
        return valid_text(text)

    def drop(self, key: Hashable = None) -> None:
        """Forget the surrogate held for ``key`` (the server sent that text whole, which supersedes its pieces)."""
        if self.held:
            self.held.pop(key, None)

    def rest(self, key: Hashable = None) -> str:
        """What is left of text ``key`` at the end of the stream: U+FFFD for a high surrogate no piece completed,
        else ``""``."""
        return _REPLACEMENT if self.held and self.held.pop(key, None) else ""

    def waiting(self) -> list[Hashable]:
        """The texts that have a surrogate held back, in the order they were held."""
        return list(self.held)
