"""Incremental reading of a JSON value that arrives in fragments (streamed tool-call arguments).

Providers stream a tool call's arguments as text deltas (OpenAI ``function.arguments`` pieces,
Anthropic ``input_json_delta.partial_json``). :class:`PartialJSONParser` keeps a small state machine
(a stack of open containers, an in-string flag, an escape flag) so each :meth:`~PartialJSONParser.feed`
costs time proportional to its fragment, and :meth:`~PartialJSONParser.value` gives the best-effort
value so far by closing what is open.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolwire.parsing._scan import LenientDecoder

__all__ = ["PartialJSONParser", "partial_value"]

_DECODER = LenientDecoder()
_STRING_STOP = re.compile(r'["\\]')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_WS = frozenset(" \t\r\n")
_HEX = frozenset("0123456789abcdefABCDEF")
_LITERALS = {"t": "rue", "f": "alse", "n": "ull"}
_HIGH_HALF = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")  # the escape of a surrogate pair's first half

# modes: what the next significant character may be
_VALUE = 0  # a value (top level, after ':' or after ',' in an array)
_VALUE_OR_CLOSE = 1  # just after '['
_KEY_OR_CLOSE = 2  # just after '{'
_KEY = 3  # after ',' in an object
_COLON = 4  # after a key
_AFTER = 5  # after a value inside a container: ',' or the closing bracket
_DONE = 6  # the top-level value is complete; only whitespace may follow


class PartialJSONParser:
    """Read one JSON value fed in fragments, giving a best-effort value at any point.

    Usage::

        p = PartialJSONParser()
        p.feed('{"city": "Pa')      # -> {"city": "Pa"}
        p.feed('ris", "days": [1, 2')  # -> {"city": "Paris", "days": [1, 2]}
        p.text                       # everything fed so far

    Attributes:
        scanned: how many characters the state machine has examined (equals ``len(p.text)`` for valid
            input: each character is scanned once, so feeding costs time linear in the total text).
        error: ``None``, or a sentence saying where the text stopped being JSON; later fragments are
            kept in :attr:`text` but not scanned.

    The format is JSON (RFC 8259); raw control characters inside strings are tolerated, as models send
    them. Partial strings are kept (``"Pa`` gives ``"Pa"``, without the first half of a ``\\ud83d\\ude00``
    surrogate-pair escape); a partial key, literal (``tr``) or number (``1.``) is dropped until it
    completes; open arrays and objects are closed.
    """

    __slots__ = ("_cache", "_escape", "_key", "_length", "_literal", "_mode", "_number", "_parts",
                 "_safe", "_stack", "_string", "_text", "_unicode", "error", "scanned")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._text: str | None = ""
        self._length = 0
        self.scanned = 0
        self.error: str | None = None
        self._stack: list[str] = []  # closing characters of the open containers
        self._mode = _VALUE
        self._string = False  # inside a string
        self._key = False  # ... that is an object key
        self._escape = False  # just after a backslash in a string
        self._unicode = 0  # hex digits still expected after \u
        self._literal = ""  # rest of true/false/null being read
        self._number: list[str] | None = None  # characters of the number being read
        self._safe = -1  # text[:_safe] + closers is valid JSON (-1: no value yet)
        self._cache: tuple[Any] | None = None

    @property
    def text(self) -> str:
        """Everything fed so far (joined lazily)."""
        if self._text is None:
            self._text = "".join(self._parts)
            self._parts = [self._text]
        return self._text

    @property
    def complete(self) -> bool:
        """Whether a whole top-level JSON value has been read."""
        return self._mode == _DONE and self.error is None

    def feed(self, fragment: str, *, build: bool = True) -> Any:
        """Scan ``fragment`` (time proportional to its length) and return the current value.

        Args:
            fragment: the next piece of the JSON text.
            build: when True (default) return :meth:`value`; pass False when feeding many fragments and
                reading the value only at the end (building the value costs a ``json.loads`` of the
                whole text, done only in :meth:`value`).

        Returns:
            The best-effort current value (see :meth:`value`), or ``None`` when ``build`` is False.
        """
        if fragment:
            self._parts.append(fragment)
            self._text = None
            self._cache = None
            if self.error is None:
                self._scan(fragment, self._length)
            self._length += len(fragment)
        return self.value() if build else None

    def _fail(self, pos: int, what: str) -> None:
        self.error = f"The JSON text is invalid at character {pos}: {what}."

    def _value_done(self, end: int) -> None:
        self._safe = end
        self._mode = _AFTER if self._stack else _DONE

    def _scan(self, frag: str, base: int) -> None:
        i = 0
        n = len(frag)
        stack = self._stack
        while i < n:
            ch = frag[i]
            if self._string:
                if self._unicode:
                    if ch not in _HEX:
                        self._fail(base + i, "a \\u escape needs four hex digits")
                        break
                    self._unicode -= 1
                elif self._escape:
                    self._escape = False
                    if ch == "u":
                        self._unicode = 4
                    elif ch not in '"\\/bfnrt':
                        self._fail(base + i, f"unknown escape \\{ch}")
                        break
                else:
                    m = _STRING_STOP.search(frag, i)
                    if m is None:
                        i = n
                        break
                    i = m.start()
                    if frag[i] == "\\":
                        self._escape = True
                    else:
                        self._string = False
                        if self._key:
                            self._mode = _COLON
                        else:
                            self._value_done(base + i + 1)
                i += 1
                continue
            if self._literal:
                if ch != self._literal[0]:
                    self._fail(base + i, "expected true, false or null")
                    break
                self._literal = self._literal[1:]
                if not self._literal:
                    self._value_done(base + i + 1)
                i += 1
                continue
            if self._number is not None:
                if ch in _NUMBER_CHARS:
                    self._number.append(ch)
                    i += 1
                    continue
                if not _NUMBER.fullmatch("".join(self._number)):
                    self._fail(base + i, "a malformed number")
                    break
                self._number = None
                self._value_done(base + i)
            if ch in _WS:
                i += 1
                continue
            mode = self._mode
            if mode <= _VALUE_OR_CLOSE:
                if ch == "{":
                    stack.append("}")
                    self._mode = _KEY_OR_CLOSE
                    self._safe = base + i + 1
                elif ch == "[":
                    stack.append("]")
                    self._mode = _VALUE_OR_CLOSE
                    self._safe = base + i + 1
                elif ch == '"':
                    self._string, self._key = True, False
                elif ch == "-" or "0" <= ch <= "9":
                    self._number = [ch]
                elif ch in _LITERALS:
                    self._literal = _LITERALS[ch]
                elif ch == "]" and mode == _VALUE_OR_CLOSE:
                    stack.pop()
                    self._value_done(base + i + 1)
                else:
                    self._fail(base + i, f"expected a value, got {ch!r}")
                    break
            elif mode in (_KEY_OR_CLOSE, _KEY):
                if ch == '"':
                    self._string, self._key = True, True
                elif ch == "}" and mode == _KEY_OR_CLOSE:
                    stack.pop()
                    self._value_done(base + i + 1)
                else:
                    self._fail(base + i, f"expected a quoted key, got {ch!r}")
                    break
            elif mode == _COLON:
                if ch != ":":
                    self._fail(base + i, f"expected ':' after the key, got {ch!r}")
                    break
                self._mode = _VALUE
            elif mode == _AFTER:
                if ch == ",":
                    self._mode = _KEY if stack[-1] == "}" else _VALUE
                elif ch == stack[-1]:
                    stack.pop()
                    self._value_done(base + i + 1)
                else:
                    self._fail(base + i, f"expected ',' or {stack[-1]!r}, got {ch!r}")
                    break
            else:
                self._fail(base + i, "extra text after the JSON value")
                break
            i += 1
        self.scanned += i

    def value(self) -> Any:
        """Return the best-effort value of the text so far (``None`` before any value starts).

        Cost: O(depth) to close the open containers plus one ``json.loads`` of the text; the result is
        cached until the next :meth:`feed`. A partial string value is kept, a partial key, number or
        literal is dropped, open containers are closed. After an :attr:`error`, the value read before
        the error is returned.
        """
        if self._cache is not None:
            return self._cache[0]
        text = self.text
        closers = "".join(reversed(self._stack))
        candidates = []
        if self.error is None and self._string and not self._key:
            body = text
            if self._escape:
                body = body[:-1]
            elif self._unicode:
                body = body[: -(6 - self._unicode)]
            if _ends_in_high_half(body):
                body = body[:-6]  # wait for the pair's other half (a lone half cannot be encoded as UTF-8)
            candidates.append(body + '"' + closers)
        elif (self.error is None and self._number is not None
              and _NUMBER.fullmatch("".join(self._number))):
            candidates.append(text + closers)
        if self._safe >= 0:
            candidates.append(text[: self._safe] + closers)
        result = None
        for candidate in candidates:
            try:
                result = _DECODER.decode(candidate)
                break
            except (json.JSONDecodeError, RecursionError):
                continue
        self._cache = (result,)
        return result


def _ends_in_high_half(body: str) -> bool:
    """Whether ``body`` (JSON text inside a string) ends with an escape such as ``\\ud83d`` (of ``\\ud83d\\ude00``)."""
    start = len(body) - 6
    if start < 0 or not _HIGH_HALF.fullmatch(body, start):
        return False
    i = start - 1
    while i >= 0 and body[i] == "\\":  # "\\\\ud83d" is an escaped backslash and text, not an escape
        i -= 1
    return (start - 1 - i) % 2 == 0


def partial_value(text: str) -> Any:
    """Return the best-effort value of a (possibly cut-off) JSON text; ``None`` when nothing can be read.

    Args:
        text: JSON text, whole or cut off anywhere (a streamed tool call's argument text so far).
    """
    parser = PartialJSONParser()
    parser.feed(text, build=False)
    return parser.value()
