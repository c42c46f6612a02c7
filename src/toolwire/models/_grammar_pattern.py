"""GBNF for the text of a string with a simple JSON Schema ``pattern``, for :mod:`toolwire.models.grammar`.

The grammar holds a pattern only where it states a type: a number written as text (review 128 #7; every other
pattern is a constraint on the value, left to validation). A ``dict[int, str]`` parameter's keys are JSON strings that
must read as integers, which its schema says with ``"propertyNames": {"pattern": "^(?:0|-?[1-9][0-9]*)$"}``, and a
``Decimal``'s string branch has the pattern of a number's text; the grammar writes only such texts there (review 94),
through :func:`pattern_rule`, for the patterns :func:`toolwire._schema_keys.number_text_patterns` lists. A model left
free writes ``{"abc": "x"}``, which validation then refuses. The translator itself is general (the subset below, ``\\w``
included, review 124), so a pattern pydantic may write differently for those types is still translated exactly.

:func:`pattern_rule` translates a pattern (ECMA-262 syntax, JSON Schema 2020-12 Validation section 6.3.3; in the
subset below ECMA-262 and Python's ``re`` agree but for ``\\w`` and ``\\d``, see below) into the GBNF of the text
that matches it, without quotes. Only what it can translate exactly is followed; anything else gives ``None`` (the
caller then allows any string, as before):

* the pattern is anchored at both ends (``^...$``): JSON Schema patterns are not anchored, and an unanchored one
  lets any text stand around its match;
* literal characters (``\\`` escapes of punctuation too), ``\\d`` (``[0-9]``, as ECMA-262 reads it; validation also
  takes other scripts' digits, which the grammar does not write), ``\\w`` (``[0-9A-Za-z_]`` and the letters of the
  common scripts, as validation reads it: :data:`_WORD`), character classes without negation (``[a-z0-9_-]``),
  groups (``(...)``, ``(?:...)``) with alternatives (``a|b``), and the quantifiers ``?``, ``*``, ``+``, ``{n}``,
  ``{n,}``, ``{n,m}`` (a lazy ``?`` after one changes nothing here), counts up to :data:`MAX_COUNT`;
* no character that a JSON string must escape (``"``, ``\\``, control characters) nor ``<`` (the ``function_tag``
  format ends a value at ``</``) may be written: such a pattern gives ``None``; nor may ``.``, ``\\s``, negated
  classes, ``\\D``/``\\W``/``\\S``, word boundaries, look-arounds, back references, an alternative outside a group
  (``^a|b$`` anchors each side apart) or an unbounded repetition of one (``^(a+)+$``: ambiguous, and costly for
  llama.cpp's sampler), which all give ``None``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolwire.models.grammar import Rules

__all__ = ["MAX_COUNT", "pattern_rule"]

MAX_COUNT = 32
"""The largest ``{n,m}`` count followed (llama.cpp expands every count into rules)."""

_DIGIT = [("0", "9")]
_WORD = [("0", "9"), ("A", "Z"), ("a", "z"), ("_", "_"),
         ("\u00c0", "\u00d6"), ("\u00d8", "\u00f6"), ("\u00f8", "\u024f"),  # Latin-1 letters, Latin Extended-A/B
         ("\u0300", "\u036f"),  # combining accents (a decomposed "é")
         ("\u0386", "\u03ff"), ("\u0400", "\u052f"),  # Greek, Cyrillic
         ("\u05d0", "\u05ea"), ("\u0620", "\u064a"),  # Hebrew, Arabic letters
         ("\u1e00", "\u1eff"),  # Latin Extended Additional (Vietnamese)
         ("\u3041", "\u30ff"), ("\u4e00", "\u9fff"), ("\uac00", "\ud7a3")]  # kana, CJK, Hangul
"""What ``\\w`` lets the grammar write: ASCII word characters and the letters of the common scripts. ECMA-262 reads
``\\w`` as ASCII only, but toolwire validates with pydantic, whose regex (Rust's) reads it as Unicode, so the
tool takes ``"São Paulo"`` for ``^[\\w ]+$``: an ASCII-only grammar made the model misspell it (review 124 #7). A
few signs inside these blocks (the Greek ano teleia, U+0387) are let through; validation refuses them."""
_CLASS_ESCAPES = {"d": _DIGIT, "w": _WORD}


class _Unsupported(Exception):
    """The pattern uses something :func:`pattern_rule` does not translate."""


_UNWRITABLE = '"\\<\x7f' + "".join(map(chr, range(0x20)))
"""The characters the grammar may not write unescaped inside a JSON string value (see :func:`_check`)."""


def _check(ch: str) -> str:
    """``ch`` if the grammar may write it inside a JSON string, else raise :class:`_Unsupported`."""
    if ch in '"\\<' or ord(ch) < 0x20 or ord(ch) == 0x7F:
        raise _Unsupported(ch)
    return ch


def _class_char(ch: str) -> str:
    """``ch`` as GBNF character-class text (letters and digits as they are, others as ``\\x``/``\\u`` escapes)."""
    if ch.isascii() and ch.isalnum():
        return ch
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else ch


def _class(ranges: list[tuple[str, str]]) -> str:
    """A GBNF character class of ``ranges`` (``-`` itself last, where both llama.cpp and a reader take it as is)."""
    parts, dash = [], False
    for low, high in ranges:
        for ch in {low, high}:
            _check(ch)
        if any(ord(low) <= ord(ch) <= ord(high) for ch in _UNWRITABLE):  # ([ -~] holds '"', '\\' and '<')
            raise _Unsupported(f"{low}-{high}")  # (review 95)
        if low == high == "-":
            dash = True
        elif low == high:
            parts.append(_class_char(low))
        else:
            parts.append(f"{_class_char(low)}-{_class_char(high)}")
    return "[" + "".join(parts) + ("\\x2d" if dash else "") + "]"


class _Parser:
    """A recursive-descent reader of the pattern subset in the module docstring, writing GBNF as it goes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def alternatives(self, top: bool) -> str:
        alts = [self.sequence()]
        while self.peek() == "|":
            if top:
                raise _Unsupported("|")  # (^a|b$ anchors each side apart)
            self.pos += 1
            alts.append(self.sequence())
        return alts[0] if len(alts) == 1 else "(" + " | ".join(a or '""' for a in alts) + ")"

    def sequence(self) -> str:
        items: list[str] = []
        while self.peek() not in ("", "|", ")"):
            items.append(self.quantified(self.atom()))
        return " ".join(items)

    def atom(self) -> str:
        ch = self.peek()
        self.pos += 1
        if ch == "(":
            if self.text.startswith("?:", self.pos):
                self.pos += 2
            elif self.peek() == "?":
                raise _Unsupported("(?")
            inner = self.alternatives(top=False)
            if self.peek() != ")":
                raise _Unsupported("(")
            self.pos += 1
            return f"({inner or chr(34) * 2})"
        if ch == "[":
            return self.char_class()
        if ch == "\\":
            return self.escape(in_class=False)
        if ch in ".^$*+?{}]":
            raise _Unsupported(ch)
        return _literal(_check(ch))

    def escape(self, in_class: bool) -> str:
        ch = self.peek()
        self.pos += 1
        if ch in _CLASS_ESCAPES:
            return _class(_CLASS_ESCAPES[ch])
        if ch and not ch.isalnum() and ch.isascii():
            return _literal(_check(ch)) if not in_class else ch
        raise _Unsupported("\\" + ch)

    def char_class(self) -> str:
        if self.peek() == "^":
            raise _Unsupported("[^")
        ranges: list[tuple[str, str]] = []
        first = True
        while True:
            ch = self.peek()
            if ch == "":
                raise _Unsupported("[")
            if ch == "]" and not first:
                self.pos += 1
                return _class(ranges)
            first = False
            self.pos += 1
            if ch == "\\":
                nxt = self.peek()
                if nxt in _CLASS_ESCAPES:
                    self.pos += 1
                    ranges += _CLASS_ESCAPES[nxt]
                    continue
                low = self.escape(in_class=True)
            else:
                low = ch
            if self.peek() == "-" and self.text[self.pos + 1:self.pos + 2] not in ("]", ""):
                self.pos += 1
                high = self.peek()
                self.pos += 1
                if high == "\\":
                    high = self.escape(in_class=True)
                if len(high) != 1 or high < low:
                    raise _Unsupported("range")
                ranges.append((low, high))
            else:
                ranges.append((low, low))

    def quantified(self, atom: str) -> str:
        ch = self.peek()
        unbounded = ch in ("*", "+") or (ch == "{" and self.text[self.pos:self.text.find("}", self.pos) + 1]
                                          .endswith(",}"))
        if unbounded and any(mark in atom for mark in (")*", ")+", ",}")):
            raise _Unsupported("nested repetition")  # ((a)+)+: ambiguous, costly for llama.cpp's sampler
        if ch in ("?", "*", "+"):
            self.pos += 1
            out = f"({atom}){ch}"
        elif ch == "{":
            end = self.text.find("}", self.pos)
            spec = self.text[self.pos + 1:end] if end > 0 else ""
            low, comma, high = spec.partition(",")
            if not low.isdigit() or (high and not high.isdigit()):
                raise _Unsupported("{")
            if int(low) > MAX_COUNT or (high and int(high) > MAX_COUNT) or (high and int(high) < int(low)):
                raise _Unsupported("count")
            self.pos = end + 1
            out = f"({atom}){{{low}{comma}{high}}}"
        else:
            return atom
        if self.peek() == "?":  # lazy: the same texts match
            self.pos += 1
        elif self.peek() in ("+", "*", "{"):
            raise _Unsupported("quantifier")
        return out


def _literal(ch: str) -> str:
    """``ch`` as a GBNF string literal (it holds no ``"`` nor ``\\``: :func:`_check` refused them)."""
    return f'"{ch}"'


def pattern_rule(pattern: object, rules: Rules, hint: str = "pattern") -> str | None:
    """The rule name of the text (without quotes) of a string matching ``pattern``, or ``None``.

    Args:
        pattern: a JSON Schema ``pattern`` (anything not a string gives ``None``).
        rules: the rule set to add the rule to.
        hint: a name hint for the rule.

    Returns:
        The rule name, or ``None`` when the pattern is outside the subset of the module docstring (the caller then
        allows any string). Each character the rule writes needs no escape in a JSON or Python string.
    """
    if not isinstance(pattern, str) or not pattern.startswith("^") or not pattern.endswith("$"):
        return None
    inner = pattern[1:-1]
    if inner.endswith("\\") and (len(inner) - len(inner.rstrip("\\"))) % 2:
        return None  # (the "$" was escaped: a literal dollar, not an anchor)
    parser = _Parser(inner)
    try:
        body = parser.alternatives(top=True)
        if parser.pos != len(inner) or not body:
            return None
    except (_Unsupported, IndexError, ValueError):
        return None
    return rules.add(hint, body)
