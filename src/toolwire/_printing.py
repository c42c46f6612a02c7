"""Turning any value into text for a message, also a value whose ``repr`` or ``str`` raises.

Malformed tool calls are answered in their place with an error that shows what was received; the text of what
was received must never be the thing that fails (an object whose ``__repr__`` raises, a lazy proxy whose
``__str__`` needs a lost connection). :func:`safe_text` falls back to ``<TypeName>`` then.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = ["ascii_json", "json_text", "printed", "safe_text", "terminal_json", "terminal_text", "type_label"]


def printed(value: Any, convert: Callable[[Any], str] = repr) -> str | None:
    """Return ``convert(value)`` (``repr`` by default, or ``str``), or None when it cannot be made.

    Returns:
        The text, or None when ``convert`` raised an ``Exception`` or returned something that is not a string.
        ``KeyboardInterrupt``, ``SystemExit`` and other ``BaseException`` s are not caught.
    """
    try:
        text = convert(value)
    except Exception:
        return None
    return text if isinstance(text, str) else None


def safe_text(value: Any, convert: Callable[[Any], str] = repr) -> str:
    """Return ``convert(value)`` (``repr`` by default, or ``str``), or ``"<TypeName>"`` when that fails.

    Returns:
        The text; ``"<TypeName>"`` (the name of the value's type) when ``convert`` raised an ``Exception`` or
        did not return a string. Never raises an ``Exception``.
    """
    text = printed(value, convert)
    return text if text is not None else f"<{type(value).__name__}>"


def type_label(value: Any) -> str:
    """Name the type of ``value`` for an error message, so that a class named like toolwire's is not taken for it.

    Returns:
        ``"int"`` for a builtin type; ``"a LangChain HumanMessage"`` for a class of a ``langchain*`` package;
        ``"<module>.<class>"`` for any other (``"openai.types.chat.chat_completion_message.ChatCompletionMessage"``).
    """
    kind = type(value)
    module = getattr(kind, "__module__", None) or "builtins"
    if module == "builtins":
        return kind.__name__
    if module.split(".")[0].startswith("langchain"):
        return f"a LangChain {kind.__name__}"
    return f"{module}.{kind.__qualname__}"


def json_text(value: Any) -> str:
    """Return ``value`` (an invalid call's arguments that are not text) as text: its JSON (objects JSON cannot
    hold as their ``str()``), else its ``repr()``, else ``"<TypeName>"`` (a value that cannot be printed at all).

    Returns:
        The text. Never raises an ``Exception``.
    """
    try:
        return json.dumps(value, ensure_ascii=False, default=lambda item: safe_text(item, str))
    except Exception:  # a circular container, a key JSON cannot hold, a failing __eq__ or __iter__
        return safe_text(value)


_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""The bidirectional-text controls (marks, embeddings, overrides, isolates): on a terminal that renders bidi text
they make a line show its characters in another order than they are (CVE-2021-42574, "Trojan Source")."""
_CONTROLS = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_BIDI}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """Return ``text`` (a model's reply, a tool's result) safe to print on a terminal: its control characters other
    than line ends and tabs (ESC, which starts the sequences that recolour, retitle or clear a terminal or write its
    clipboard; a lone carriage return that overwrites the line) shown as ``\\x1b``-style escapes instead of sent,
    and the bidirectional-text controls (U+202E, which shows the rest of a line right to left; U+202A-202D,
    U+2066-2069, U+200E, U+200F, U+061C) as ``\\u202e``-style escapes, so a line is shown in the order it is
    (review 192 #5). A Windows line end (CR LF) is a line end."""
    return _CONTROLS.sub(_escaped, text.replace("\r\n", "\n"))


_DEL_AND_C1 = re.compile(f"[\\x7f-\\x9f{_BIDI}]")


def terminal_json(value: Any) -> str:
    """Return ``value`` (JSON data) as indented JSON safe to print on a terminal: ``json.dumps`` escapes only the
    controls below U+0020, so DEL and the 8-bit C1 controls (U+009B, an 8-bit CSI; U+009D, an OSC) are written as
    ``\\u009b``-style escapes too, which a JSON reader reads back as the same characters (review 154 #3: they
    reached the terminal raw), and so are the bidirectional-text controls (U+202E and the others
    :func:`terminal_text` escapes; review 192 #5). Other text, Portuguese too, is kept as it is.

    Args:
        value: the data; what JSON cannot hold is written as its ``str()``.

    Returns:
        The JSON text. Raises what ``json.dumps`` raises for a circular container.
    """
    text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    return _DEL_AND_C1.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


_BEYOND_ASCII = re.compile("[^\\x00-\\x7f]")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # (JSON writes a character past the BMP as its UTF-16 surrogate pair)
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def ascii_json(text: str) -> str:
    """Return ``text`` (JSON, whole or any piece of it) with every character beyond ASCII
    written as a ``\\u00e1``-style escape (a pair of them past U+FFFF), as ``json.dumps(..., ensure_ascii=True)``
    writes it, so that it reads back as the same data from a stream whose encoding cannot hold those characters
    (review 282 #2: ``--json`` on a cp1252 or C-locale standard output wrote ``?`` in their place). Outside JSON's
    strings there is nothing but ASCII, so only the strings' characters change.

    Returns:
        The text, all ASCII. Raises nothing.
    """
    return text if text.isascii() else _BEYOND_ASCII.sub(_json_escape, text)
