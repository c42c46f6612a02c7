"""Low-level text scanning shared by the dialect parsers.

Everything here is iterative (no recursion on the input's nesting) and never evaluates code: JSON is
read with :meth:`json.JSONDecoder.raw_decode`, Python literals with :func:`ast.literal_eval`.
:func:`clean_value` is the last step for every value read from model text: it joins UTF-16 surrogate
pairs and refuses NaN and infinities, so what comes out can always be sent on as JSON (UTF-8).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from toolwire.parsing._repeated_keys import RepeatedKey, unique_pairs


def read_int(digits: str) -> int | float:
    """A JSON integer as ``int``; one too long for Python to read (over ``sys.get_int_max_str_digits()``
    digits, 4300 by default) as an infinity, which :func:`clean_value` then refuses with a sentence the model
    can act on, instead of a bare ``ValueError`` from deep in the decoder."""
    try:
        return int(digits)
    except ValueError:
        return -math.inf if digits.startswith("-") else math.inf


class LenientDecoder:
    """``json.JSONDecoder(strict=False)`` (control characters allowed inside strings), with the C fast path kept
    for integers: only when it fails on an integer too long for Python to read (a plain ``ValueError``, not a
    ``JSONDecodeError``) is the text read again with :func:`read_int`, which gives such an integer as an
    infinity. ``decode`` and ``raw_decode`` are :class:`json.JSONDecoder`'s.

    Args:
        unique_keys: refuse an object that gives a key twice with different values (:func:`unique_pairs`
            raises :class:`RepeatedKey`, a :class:`json.JSONDecodeError`); else the last value is kept, as
            Python's ``json`` does.
    """

    def __init__(self, *, unique_keys: bool = False) -> None:
        hook = unique_pairs if unique_keys else None
        self._fast = json.JSONDecoder(strict=False, object_pairs_hook=hook)
        self._slow = json.JSONDecoder(strict=False, parse_int=read_int, object_pairs_hook=hook)

    def decode(self, text: str) -> Any:
        """The value of the whole ``text`` (raises :class:`json.JSONDecodeError` when it is not JSON)."""
        try:
            return self._fast.decode(text)
        except json.JSONDecodeError:
            raise
        except ValueError:  # an integer over sys.get_int_max_str_digits() digits
            return self._slow.decode(text)

    def raw_decode(self, text: str, idx: int = 0) -> tuple[Any, int]:
        """``(the value starting at idx, the index just past it)``.

        The value is first read from the next :data:`_WINDOW` characters only, and from the whole rest of
        ``text`` when it may go on past them: :class:`json.JSONDecodeError` counts the lines from the start of
        the text it was given, so each failed attempt on a long reply cost as much as the reply, and a reply
        with many places that open a JSON object took quadratic time to scan (review 51). The error raised
        counts them only when its ``lineno`` or ``colno`` is read.
        """
        if len(text) - idx <= _WINDOW:
            return self._raw(text, idx)
        window = text[idx:idx + _WINDOW]
        try:
            value, end = self._raw(window, 0)
        except RepeatedKey:
            raise
        except json.JSONDecodeError as exc:
            if exc.msg.startswith("Unterminated string") or exc.pos >= len(window) - 16:  # may go on past it
                return self._raw(text, idx)
            raise _DecodeError(exc.msg, text, idx + exc.pos) from None
        if end >= len(window):  # a number may go on past the window
            return self._raw(text, idx)
        return value, idx + end

    def _raw(self, text: str, idx: int) -> tuple[Any, int]:
        try:
            return self._fast.raw_decode(text, idx)
        except json.JSONDecodeError:
            raise
        except ValueError:
            return self._slow.raw_decode(text, idx)


_WINDOW = 4096  # characters a JSON value is first read from (LenientDecoder.raw_decode)


class _DecodeError(json.JSONDecodeError):
    """A :class:`json.JSONDecodeError` whose ``lineno`` and ``colno`` are counted when read, not when it is made."""

    def __init__(self, msg: str, doc: str, pos: int) -> None:  # (JSONDecodeError's own would count them now)
        ValueError.__init__(self, f"{msg}: char {pos}")
        self.msg, self.doc, self.pos = msg, doc, pos

    def __str__(self) -> str:
        return f"{self.msg}: line {self.lineno} column {self.colno} (char {self.pos})"

    @property  # type: ignore[override]
    def lineno(self) -> int:
        """The line of ``pos`` (from 1)."""
        return self.doc.count("\n", 0, self.pos) + 1

    @property  # type: ignore[override]
    def colno(self) -> int:
        """The column of ``pos`` (from 1)."""
        return self.pos - self.doc.rfind("\n", 0, self.pos)


_DECODER = LenientDecoder(unique_keys=True)
"""The decoder of tool calls and their arguments read from model text (a key given twice is refused)."""
_WS_RE = re.compile(r"\s*")
# characters that matter when balancing Python brackets
_PY_SPECIAL = re.compile(r"[\[\](){}'\"\n#]")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# a sign of Python syntax outside a double-quoted string, or the quote that opens one (looks_pythonic)
_PY_SIGN_OR_QUOTE = re.compile(r""""|'|\b(?:True|False|None)\b|\(""")
_PY_SIGN = re.compile(r"""'|\b(?:True|False|None)\b|\(""")
# the rest of a double-quoted string after its opening quote, read once (possessive: no re-reading)
_DQ_REST = re.compile(r'(?:[^"\\]|\\[\s\S])*+"')
# a double-quoted string, or a comma right before a closing bracket (a trailing comma)
_TRAILING_COMMA = re.compile(r""""(?:[^"\\]|\\[\s\S])*+"|,(?=\s*[}\]])""")

#: ``python_span_end`` results that are not an end index
EOF = -1
BAD = -2
DEEP = -3
MAX_PY_DEPTH = 64  # well below CPython's 200-level parser limit
MAX_DEPTH = MAX_PY_DEPTH
"""How many levels of objects and arrays a tool call's arguments may nest (:func:`clean_value`, :func:`to_jsonable`):
deeper ones are refused as the model's mistake. Real arguments nest a few levels; the code that walks them later
(copies, validation, JSON encoding) recurses, and CPython stops at 1,000 frames (review 75: 500 levels crashed the
readers of a reply)."""


class DecodeFailure(Exception):
    """A value could not be decoded at a position.

    Attributes:
        kind: ``"truncated"`` (the text ends inside the value), ``"deep"`` (nested too deeply to read) or
            ``"invalid"`` (also for JSON whose object gives a key twice, see :class:`RepeatedKey`: ``message``
            then says which key).
        message: one sentence saying what was wrong.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def skip_ws(text: str, pos: int) -> int:
    """Return the first index at or after ``pos`` that is not whitespace (``len(text)`` at the end)."""
    return _WS_RE.match(text, pos).end()  # type: ignore[union-attr]


def to_jsonable(value: Any, _depth: int = 0, *, scalar_keys: bool = False) -> Any:
    """Return ``value`` as JSON-ready data (tuples become lists, surrogate pairs in strings joined).

    Args:
        value: a value read with :func:`ast.literal_eval`.
        scalar_keys: also take dict keys that are ``int``, finite ``float``, ``bool`` or ``None``, each as the text
            JSON writes for it (``{3: "a"}`` -> ``{"3": "a"}``; ``-1`` -> ``"-1"``, ``1.5`` -> ``"1.5"``, ``True`` ->
            ``"true"``, ``None`` -> ``"null"``), the text a JSON object key holds for such a key: a ``dict[int, str]``
            is published with ``"propertyNames": {"pattern": "^(?:0|-?[1-9][0-9]*)$"}`` and validation reads the texts
            back as ints (review 96). The pythonic call format uses it; two keys of the same text (``{3: "a", "3":
            "b"}``) are refused.

    Raises:
        ValueError: ``value`` holds something JSON cannot carry (a set, bytes, complex, a key that is not a string
            nor, with ``scalar_keys``, one of the scalars above); :class:`NestedTooDeep` for more than
            :data:`MAX_PY_DEPTH` levels.
    """
    if isinstance(value, str):
        return fix_surrogates(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if _depth > MAX_PY_DEPTH:
        raise NestedTooDeep
    if isinstance(value, list | tuple):
        return [to_jsonable(v, _depth + 1, scalar_keys=scalar_keys) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            text = _key_text(key, scalar_keys)
            if text in out:
                raise ValueError(f"two keys of the same text ({text!r})")
            out[text] = to_jsonable(item, _depth + 1, scalar_keys=scalar_keys)
        return out
    raise ValueError(f"a {type(value).__name__} value")


def _key_text(key: Any, scalar_keys: bool) -> str:
    """The JSON object key of the dict key ``key`` (:func:`to_jsonable`); ``ValueError`` for one JSON cannot hold."""
    if isinstance(key, str):
        return key
    if scalar_keys and (key is None or isinstance(key, bool | int) or (isinstance(key, float) and math.isfinite(key))):
        return json.dumps(key)
    if scalar_keys:
        raise ValueError(f"a key that is not a string, number, True, False or None ({key!r})")
    raise ValueError(f"a key that is not a string ({key!r})")


def fix_surrogates(text: str) -> str:
    """Return ``text`` with UTF-16 surrogate pairs joined into their characters.

    Python reads the escape ``"\\ud83d\\ude00"`` (what ``json.dumps`` writes for an emoji) as two lone
    surrogates, which cannot be encoded as UTF-8. A surrogate without its partner (a cut-off escape)
    becomes U+FFFD. Text without surrogates is returned as is.
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class NestedTooDeep(ValueError):
    """A value read from model text nests its objects and arrays more than :data:`MAX_DEPTH` levels deep."""

    def __init__(self) -> None:
        super().__init__(f"nested more than {MAX_DEPTH} levels deep")


TOO_DEEP = (f"The arguments are nested too deeply to read (more than {MAX_DEPTH} levels of objects and arrays); "
            "send a flatter JSON object")
"""The start of the error sentence for such arguments; the caller ends it with an example."""


class NonFiniteNumber(ValueError):
    """A value read from model text holds NaN or an infinity, which JSON cannot carry.

    Attributes:
        where: the place of the number, such as ``'value'`` or ``'points[2]'`` (``""`` at the top).
        number: the number as JSON's extensions write it (``NaN``, ``Infinity``, ``-Infinity``).
    """

    def __init__(self, where: str, number: float) -> None:
        self.where = where
        self.number = "NaN" if math.isnan(number) else ("Infinity" if number > 0 else "-Infinity")
        super().__init__(f"{where or 'the value'} is {self.number}")


def _path_text(path: tuple[Any, Any] | None) -> str:
    keys: list[Any] = []
    while path is not None:
        path, key = path
        keys.append(key)
    out = ""
    for key in reversed(keys):
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return repr(out) if out else ""


def clean_value(value: Any) -> Any:
    """Check and tidy a value decoded from model text, so it can be sent on as JSON.

    Strings (and keys) get :func:`fix_surrogates`; NaN and infinite floats are refused, and so is nesting deeper
    than :data:`MAX_DEPTH`. The walk is iterative and copies only the containers that change.

    Returns:
        ``value`` itself when nothing had to change, else a copy with the strings fixed.

    Raises:
        NonFiniteNumber: a float in ``value`` is NaN or infinite.
        NestedTooDeep: ``value`` nests more than :data:`MAX_DEPTH` levels of dicts and lists.
    """
    if isinstance(value, str):
        return fix_surrogates(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NonFiniteNumber("", value)
        return value
    if not isinstance(value, dict | list):
        return value
    replaced: dict[int, Any] = {}  # id(container) -> its fixed copy
    seen: set[int] = set()
    stack: list[tuple[Any, Any, bool, int]] = [(value, None, False, 1)]
    while stack:
        node, path, expanded, depth = stack.pop()
        if not expanded:
            if id(node) in seen:  # shared or cyclic: already handled
                continue
            seen.add(id(node))
            stack.append((node, path, True, depth))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, item in items:
                if isinstance(item, float) and not math.isfinite(item):
                    raise NonFiniteNumber(_path_text((path, key)), item)
                if isinstance(item, dict | list):
                    if depth >= MAX_DEPTH:
                        raise NestedTooDeep
                    stack.append((item, (path, key), False, depth + 1))
            continue
        if isinstance(node, dict):
            pairs = [(fix_surrogates(k) if isinstance(k, str) else k, _fixed(v, replaced)) for k, v in node.items()]
            if any(k is not k0 or v is not v0 for (k, v), (k0, v0) in zip(pairs, node.items(), strict=True)):
                replaced[id(node)] = dict(pairs)
        else:
            items = [_fixed(v, replaced) for v in node]
            if any(a is not b for a, b in zip(items, node, strict=True)):
                replaced[id(node)] = items
    return replaced.get(id(value), value)


def _fixed(item: Any, replaced: dict[int, Any]) -> Any:
    if isinstance(item, str):
        return fix_surrogates(item)
    if isinstance(item, dict | list):
        return replaced.get(id(item), item)
    return item


def looks_pythonic(text: str) -> bool:
    """Whether ``text`` uses Python syntax JSON lacks (single quotes, True/False/None, tuples).

    A sign counts outside double-quoted strings (escapes respected). A double quote whose string never closes
    is passed over as one character and the signs after it still count; every later double quote is then
    inside that string's escapes (each is the second character of a ``\\"`` pair), so it cannot close a string
    either, and the rest of the text is searched for a sign in one pass (review 119: each escaped quote of a
    cut-off string was read again to the end of the text, quadratic time).
    """
    pos = 0
    while (m := _PY_SIGN_OR_QUOTE.search(text, pos)) is not None:
        if m.group() != '"':
            return True
        string = _DQ_REST.match(text, m.end())
        if string is None:  # never closed
            return _PY_SIGN.search(text, m.end()) is not None
        pos = string.end()
    return False


def python_span_end(text: str, start: int, max_depth: int = MAX_PY_DEPTH) -> int:
    """Find the end of the bracketed Python expression whose opening bracket is at ``start``.

    String literals (single, double and triple quoted, with backslash escapes) are skipped, so
    brackets inside them do not count. What is learnt about ``text`` is kept for the next call on the same
    text (:class:`_Spans`), so reading a reply from many candidate starts costs about one pass over it
    (review 119: each start read the rest of the text again, quadratic time).

    Returns:
        The index just past the matching closing bracket; :data:`EOF` when the text ends first;
        :data:`BAD` when brackets do not match or a one-line single-quoted string runs into a newline (a
        double-quoted one may hold raw line breaks, as a JSON string may); :data:`DEEP` when the nesting exceeds
        ``max_depth``.
    """
    spans = _spans_of(text)
    j = spans.next_bracket(start)
    if j < 0:
        return j
    if text[j] not in _CLOSERS:  # a closing bracket first
        return BAD
    end, height = spans.closing(j + 1, _CLOSERS[text[j]])
    # the scan stops at the first bracket past max_depth, which comes before the end it would have found
    return DEEP if 1 + height > max_depth else end


class _Spans:
    """What :func:`python_span_end` learnt about one text, kept between its calls.

    The scan's state outside strings is only its position and its stack of open brackets, so each fact is
    stored for a position (and, for :meth:`closing`, the one bracket waiting to be closed) and holds for
    every later scan that reaches that position: every position is worked out once.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.brackets: dict[int, int] = {}  # code position -> next bracket reached from it, or EOF / BAD
        self.closes: dict[tuple[int, str], tuple[int, int]] = {}  # (code position, closer) -> closing()
        self.strings: dict[tuple[str, bool], dict[int, int]] = {}  # (quote, triple) -> {body start: end}

    def next_bracket(self, i: int) -> int:
        """The index of the first bracket the scan meets from ``i`` (outside strings and comments), or
        :data:`EOF` / :data:`BAD` (a one-line single-quoted string runs into a newline) when it meets none."""
        text, known, n = self.text, self.brackets, len(self.text)
        path = []
        while (found := known.get(i)) is None:
            path.append(i)
            m = _PY_SPECIAL.search(text, i)
            if m is None:
                found = EOF
                break
            j = m.start()
            ch = text[j]
            if ch in "()[]{}":
                found = j
                break
            if ch in "'\"":
                triple = text.startswith(ch * 3, j)
                i = self.string_end(j + (3 if triple else 1), ch, triple)
                if i < 0:
                    found = i
                    break
            elif ch == "#":  # a comment runs to the end of the line
                nl = text.find("\n", j)
                i = EOF if nl < 0 else nl + 1
            else:  # newline outside a string
                i = j + 1
            if i < 0 or i >= n:
                found = EOF
                break
        for p in path:
            known[p] = found
        return found

    def closing(self, i: int, closer: str) -> tuple[int, int]:
        """``(end, height)`` for a scan from ``i`` with one open bracket waiting for ``closer``.

        ``end``: the index just past the bracket that closes it, or :data:`EOF` / :data:`BAD`; ``height``:
        how many more brackets are open at most before that (no depth limit: the caller compares it with
        its own). Iterative: the nesting of the text is never recursion here.
        """
        text, known = self.text, self.closes
        frames: list[tuple[str, list[int], list[int], int]] = []
        keys: list[int] = []  # positions of this level's chain: each runs to the same end
        heights: list[int] = []  # the height of the bracket opened right after each of them
        while True:
            got = known.get((i, closer))
            if got is None:
                j = self.next_bracket(i)
                if j >= 0 and text[j] in _CLOSERS:  # one more level: read it first
                    frames.append((closer, keys, heights, i))
                    i, closer, keys, heights = j + 1, _CLOSERS[text[j]], [], []
                    continue
                got = (j, 0) if j < 0 else (j + 1 if text[j] == closer else BAD, 0)
                known[(i, closer)] = got
            end, height = got
            while True:  # this level ends: store its chain, hand the result to the level around it
                for key, own in zip(reversed(keys), reversed(heights), strict=True):
                    height = max(height, own)
                    known[(key, closer)] = (end, height)
                if not frames:
                    return end, height
                closer, keys, heights, pending = frames.pop()
                keys.append(pending)
                heights.append(1 + height)
                if end >= 0:  # closed: the level around it goes on after the closing bracket
                    i = end
                    break
                height = 0  # EOF / BAD ends every level around it too

    def string_end(self, i: int, quote: str, triple: bool) -> int:
        """Index just past the string literal whose body starts at ``i`` (:data:`EOF` / :data:`BAD` as in
        :func:`python_span_end`).

        The body is read from quote to quote (:data:`_STRING_BODY`): each start stored is just past a
        ``quote`` character, and the text between two of them is read once.
        """
        text, n = self.text, len(self.text)
        known = self.strings.setdefault((quote, triple), {})
        body = _STRING_BODY[(quote, triple)]
        path = []
        while (found := known.get(i)) is None:
            path.append(i)
            p = body.match(text, i).end()  # type: ignore[union-attr]
            if p >= n:
                found = EOF
            elif text[p] == "\\":  # an escaped quote (the body goes on past it), or a backslash ending the text
                if p + 1 < n:
                    i = p + 2
                    continue
                found = EOF
            elif text[p] == "\n":
                found = BAD
            elif not triple or text.startswith(quote * 3, p):
                found = p + (3 if triple else 1)
            else:  # a quote inside a triple-quoted string
                i = p + 1
                continue
            break
        for p in path:
            known[p] = found
        return found


# a string body up to its next quote character, a newline (one-line single-quoted strings) or a backslash before a
# quote: a one-line double-quoted string may hold raw line breaks, as a JSON string may (review 178 #2: models write
# code so in a pythonic call), while an apostrophe in prose opens no string past its line
_STRING_BODY = {
    ('"', False): re.compile(r'(?:[^"\\]|\\[^"])*+'),
    ("'", False): re.compile(r"(?:[^'\\\n]|\\[^'])*+"),
    ('"', True): re.compile(r'(?:[^"\\]|\\[^"])*+'),
    ("'", True): re.compile(r"(?:[^'\\]|\\[^'])*+"),
}
class _Kept(threading.local):
    """What :func:`python_span_end` keeps, per thread (review 186 #1: one global list let a second thread reading
    another reply drop the first one's held reply, quadratic again in ``batch``)."""

    def __init__(self) -> None:
        self.last: list[_Spans] = []  # the text last read by python_span_end, with what was learnt about it
        self.held: list[_Spans] = []  # the text a reader holds (hold_spans), with what was learnt about it


_KEPT = _Kept()


def forget_spans(text: str) -> None:
    """Drop what :func:`python_span_end` learnt about ``text`` (about a hundred bytes per character of it), if it is
    the text it read last: a parse of a whole reply calls this at its end, so a long reply's facts do not outlive it
    (review 122: a 6 MB reply kept 770 MB until the next parse)."""
    last = _KEPT.last
    if last and last[0].text is text:
        last.clear()


@contextmanager
def hold_spans(text: str) -> Iterator[None]:
    """Keep what :func:`python_span_end` learns about ``text`` inside the ``with`` block, while other texts are read
    too, and drop it at its end.

    A reader of a whole reply that parses pieces of it in between (each piece a text of its own:
    :func:`toolwire.models._text_calls.read_text_calls`) holds the reply: only the text read last is kept
    otherwise, so each piece's parse dropped what was learnt about the reply, and every line of the reply that
    opened a call scanned the rest of it again, quadratic time (review 178 #3).
    """
    held = _KEPT.held
    held[:] = [_Spans(text)]
    try:
        yield
    finally:
        if held and held[0].text is text:
            held.clear()


def _spans_of(text: str) -> _Spans:
    """The :class:`_Spans` of ``text``: the held one (:func:`hold_spans`), or the one kept from the last call when it
    read this very string, else new."""
    kept = _KEPT
    if kept.held and kept.held[0].text is text:
        return kept.held[0]
    last = kept.last[0] if kept.last else None
    if last is not None and last.text is text:
        return last
    spans = _Spans(text)
    kept.last[:] = [spans]
    return spans


# (decode_value_at and its repairs live in _decode_at.py; re-exported here, where the parsers import them)
from toolwire.parsing._decode_at import _literal, _repaired_json, decode_value_at, is_truncation  # noqa: E402, F401
