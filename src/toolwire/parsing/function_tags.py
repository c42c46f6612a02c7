"""Tool calls written as ``<function=NAME>`` tags: Qwen3-Coder's XML parameters and Llama 3.1's JSON body.

Format sources:

* Qwen3-Coder's chat template (``Qwen/Qwen3-Coder-*`` on Hugging Face; llama.cpp's
  ``COMMON_CHAT_FORMAT_QWEN3_CODER_XML``, vLLM's ``qwen3_coder`` / ``qwen3_xml`` tool parsers): one block
  per call, ``<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n...</function>\\n</tool_call>``.
  A value is raw text, not JSON: the template writes strings as they are and other values as JSON, and
  drops one newline after ``<parameter=KEY>`` and one before ``</parameter>`` (so do the parsers above).
* Meta's Llama 3.1 prompt format ("custom tools" answered as ``<function=NAME>{"arg": ...}</function>``),
  also written by Functionary v3.1: the body is a JSON object of arguments.

A raw value is typed with the bound tool's JSON Schema when it is known (a ``{name: parameters}`` mapping as
``tool_names``; arguments given as a top-level union of objects by its fold, every branch's properties): a property
that admits a string keeps the text; one that wants a number, a boolean, null, an object or an array gets the value
the text holds as JSON (or, for an object or array, as a Python literal, read with :func:`ast.literal_eval`, never
evaluated), and keeps the text when it holds none, so that the tool's validation reports the wrong type to the
model; where the only strings a property takes are an ``enum`` or ``const`` (``int | Literal["auto"]``), other text
is read as JSON too. A parameter name is read as the schema names it when it does (any characters:
``<parameter=first name>``). With names only, every value stays text (as vLLM does);
:func:`toolwire.parsing.normalize_arguments` and the tool's pydantic validation convert ``"3"`` to ``3`` for an
integer parameter when the call runs.

Where a call ends (the format has no escapes, so it is read by its structure): a value ends at its
``</parameter>``, the first one followed by another tag (``<parameter=``, ``</function>``, ``<function=``,
``<tool_call>``, ``</tool_call>``) or by the end of the text, so markup inside a value (even a ``</parameter>``
followed by more text) stays in it. A call quoted in a value (a file's content, notes on this very format: a
``<function=NAME>`` that opens call syntax, up to its ``</function>``, or a ``<tool_call>`` that opens a
``<function=`` or a JSON object, up to its ``</tool_call>``) stays in it whole, its tags not read, when text of the
value follows it up to the value's ``</parameter>`` or its call's end (calls quoted in a row too): a closing tag
followed by the end of the text or by another call ends a call the model made, and so does one followed by text
that reaches neither (a model that forgot its tags, review 259 #1). Only a value with no such ``</parameter>``
before its call's end (that ``</function>`` or ``</tool_call>``, or another call the model made) is tolerated as a
model that forgot the tag: it ends at the first ``<parameter=``, ``</function>`` or ``</tool_call>`` after it
outside quoted calls, else where that call starts (review 255 #1). A call ends at its ``</function>``, else where
its block or the next call starts. A call the text ends inside (no closing tag follows: a reply cut at its token
limit, even inside a call quoted in a ``<tool_call>`` block's value) is invalid, never a call with arguments
missing; outside a block such a cut cannot be told from a second call after a value that forgot its tags.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Collection, Mapping
from typing import Any

from toolwire.parsing._calls import Collector, ParsedReply
from toolwire.parsing._json_strings import _leaves, _resolve, _wanted_kinds, string_takes
from toolwire.parsing._scan import DecodeFailure, _literal, decode_value_at, skip_ws

__all__ = ["FUNCTION_TAG", "Finder", "parse_function_tags", "read_function_tag", "typed_parameter"]

FUNCTION_TAG = "<function="
FUNCTION_CLOSE = "</function>"
PARAMETER_TAG = "<parameter="
PARAMETER_CLOSE = "</parameter>"
WRAP_OPEN = "<tool_call>"
WRAP_CLOSE = "</tool_call>"
_NAME = re.compile(r"""[ \t]*["']?([^\s<>"'=]{1,200})["']?[ \t]*>""")
_KEY = re.compile(r"""[ \t]*["']?([^\s<>"'=]{1,200})["']?[ \t]*>""")
_DECODER = json.JSONDecoder()
_EXAMPLE = f"{FUNCTION_TAG}tool_name>\\n{PARAMETER_TAG}name>\\nvalue\\n{PARAMETER_CLOSE}\\n{FUNCTION_CLOSE}"
_CUT = "The tool call was cut off before its closing tag; send the whole call again."
_STRAY = (f"Text stands between the call's {PARAMETER_TAG}...> tags; send the call again with only its "
          f"parameters, such as {_EXAMPLE}.")


class Finder:
    """The next occurrence of a few fixed strings in one text, each searched at most once per stretch of
    text (positions asked for only grow in practice, so scanning a whole reply stays linear)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: dict[str, tuple[int, int]] = {}  # needle -> (searched from, index found or -1)
        self._values: _Values | None = None

    def next(self, needle: str, pos: int) -> int:
        """Return the index of the first ``needle`` at or after ``pos``, or -1."""
        known = self._found.get(needle)
        if known is not None and known[0] <= pos and (known[1] >= pos or known[1] < 0):
            return known[1]
        found = self.text.find(needle, pos)
        self._found[needle] = (pos, found)
        return found

    def first(self, needles: tuple[str, ...], pos: int, limit: int) -> int:
        """Return the index of the first of ``needles`` in ``[pos, limit)``, or ``limit``."""
        hits = [i for n in needles if 0 <= (i := self.next(n, pos)) < limit]
        return min(hits, default=limit)

    def values(self) -> _Values:
        """The text's tags read for finding where values end (:class:`_Values`), read on first use."""
        if self._values is None:
            self._values = _Values(self.text)
        return self._values


def parse_function_tags(text: str, tool_names: Collection[str] | Mapping[str, Any]) -> ParsedReply:
    """Find the ``<function=NAME>...</function>`` calls in a model's text reply.

    Args:
        text: the model's reply.
        tool_names: the bound tool names, or a mapping ``{name: parameters JSON Schema or None}`` whose
            schemas type the raw parameter values (see the module docstring).

    Returns:
        A :class:`~toolwire.parsing.ParsedReply`. Call syntax (removed from the content, with a
        ``<tool_call>`` / ``</tool_call>`` pair around it): a ``<function=NAME>`` tag followed by
        ``<parameter=...>`` tags, a JSON object, or nothing up to its ``</function>``; inside a
        ``<tool_call>`` block, any ``<function=NAME>`` tag. A bound name gives a ToolCall; an unknown
        name, a parameter given twice, text between the parameters, a call the text ends inside (cut
        off), or, inside a block, a body that is none of those gives an InvalidToolCall keeping the
        raw text. A value ends at its ``</parameter>``; a call quoted in a value (``<tool_call>...</tool_call>``
        or ``<function=...>...</function>`` followed by more of the value) stays in it, and only a value with no
        ``</parameter>`` before its call's end ends at the next ``<parameter=`` or closing tag (module docstring:
        review 255 #1). A missing ``</function>`` before ``</tool_call>`` or the next call is tolerated. Outside a
        block, a tag followed by anything else (the format named in a sentence) stays text.
    """
    return collect_function_tags(text, tool_names).result(text)


def collect_function_tags(text: str, tool_names: Collection[str] | Mapping[str, Any]) -> Collector:
    """:func:`parse_function_tags`' reading: the :class:`Collector` with the calls and the spans of their syntax."""
    collector = Collector(tool_names)
    schemas = tool_names if isinstance(tool_names, Mapping) else {}
    finder = Finder(text)
    pos = 0
    while (start := finder.next(FUNCTION_TAG, pos)) >= 0:
        opened = _wrap_start(text, start)
        end = read_function_tag(collector, text, start, schemas, marked=opened != start, finder=finder)
        if end is None:  # the tag named in prose, not a call
            pos = start + len(FUNCTION_TAG)
            continue
        collector.add_span(opened, _wrap_end(text, end))
        pos = end
    return collector


def read_function_tag(collector: Collector, text: str, start: int, schemas: Mapping[str, Any], *,
                      marked: bool, limit: int | None = None, finder: Finder | None = None) -> int | None:
    """Record the call whose ``<function=NAME>`` tag is at ``text[start]``.

    Args:
        collector: where the call (or invalid call) goes.
        text: the reply.
        start: the index of ``<function=``.
        schemas: ``{tool name: parameters JSON Schema}`` for typing raw values (may be empty).
        marked: whether the tag stands inside a ``<tool_call>`` block (then whatever follows it is a call,
            an invalid one when it cannot be read).
        limit: where the call ends at the latest (the next block), default the end of ``text``; a value holding a
            quoted call that starts the next block (module docstring) goes on past it, and so does the call.
        finder: a :class:`Finder` over ``text`` shared by the calls of one reply (keeps the scan linear).

    Returns:
        The end of the call's text (past its ``</function>``, or where its block ends; past ``limit`` when a
        value quotes a call), or ``None`` when the tag opens no call (it stays text).
    """
    finder = finder or Finder(text)
    limit = len(text) if limit is None else limit
    head = _NAME.match(text, start + len(FUNCTION_TAG), limit)
    if head is None:
        if marked:  # a block holding a tag without a name: cut off, or unreadable
            stop = finder.first((WRAP_CLOSE, WRAP_OPEN), start, limit)
            cut = stop == len(text) and ">" not in text[start:stop]
            collector.add_invalid(None, text[start:stop].strip(), _CUT if cut else
                                  f"The {FUNCTION_TAG}...> tag names no tool; write {_EXAMPLE}.")
            return stop
        return None
    name = head.group(1)
    body = head.end()
    block = finder.first((FUNCTION_TAG, WRAP_OPEN, WRAP_CLOSE), body, limit)
    first = skip_ws(text, body)
    if text.startswith("{", first) and first < block:  # read by JSON boundaries
        return _json_body(collector, text, start, first, block, name, finder)
    if text.startswith(PARAMETER_TAG, first) and first < block:
        return _parameters(collector, text, start, first, block, name, schemas, finder)
    close = finder.next(FUNCTION_CLOSE, body)
    if 0 <= close < block and not text[body:close].strip():  # a call without arguments
        end = close + len(FUNCTION_CLOSE)
        _record(collector, name, {}, text[start:end].strip())
        return end
    rest = text[first:block]
    if block == len(text) and _closing(rest):  # a call without arguments, the text ending inside its </function>
        _record(collector, name, {}, text[start:block].strip())
        return block
    if block == len(text) and (not rest or PARAMETER_TAG.startswith(rest) or FUNCTION_CLOSE.startswith(rest)):
        if marked or collector.resolve(name):  # cut off right after the tag
            collector.add_invalid(collector.resolve(name) or name, text[start:block].strip(), _CUT)
            return block
        return None
    if not marked:
        return None
    end = close + len(FUNCTION_CLOSE) if 0 <= close < block else block
    collector.add_invalid(collector.resolve(name) or name, text[start:end].strip(),
                          f"The call's body is neither {PARAMETER_TAG}...> tags nor a JSON object; write {_EXAMPLE}.")
    return end


def _json_body(collector: Collector, text: str, start: int, first: int, block: int, name: str,
               finder: Finder) -> int:
    """Record the call whose arguments are the JSON object at ``text[first]`` (Llama 3.1's form)."""
    try:
        value, after = decode_value_at(text, first)
    except DecodeFailure as failure:
        close = finder.next(FUNCTION_CLOSE, first)
        end = close + len(FUNCTION_CLOSE) if 0 <= close < block else block
        reason = failure.message.rstrip(".")
        collector.add_invalid(collector.resolve(name) or name, text[start:end].strip(),
                              f"{reason}; send the whole tool call again with its arguments as one JSON object.")
        return end
    j = skip_ws(text, after)
    end = j + len(FUNCTION_CLOSE) if text.startswith(FUNCTION_CLOSE, j) else after
    collector.add_object({"name": name, "arguments": value}, text[start:end].strip(), marked=True)
    return end


def _parameters(collector: Collector, text: str, start: int, p: int, block: int, name: str,
                schemas: Mapping[str, Any], finder: Finder) -> int:
    """Record the call whose arguments are the ``<parameter=KEY>VALUE</parameter>`` tags from ``p``; return
    where it ends."""
    resolved = collector.resolve(name)
    schema = _one_object(schemas.get(resolved)) if resolved is not None else None
    args: dict[str, Any] = {}
    problem: str | None = None
    while True:
        p = skip_ws(text, p)
        if p >= block:
            end = block
            if block == len(text):
                problem = problem or _CUT
            break
        if text.startswith(FUNCTION_CLOSE, p):
            end = p + len(FUNCTION_CLOSE)
            break
        if not text.startswith(PARAMETER_TAG, p):
            rest = text[p:block]
            if block == len(text) and _closing(rest):  # the text ends inside the </function>: the call is whole
                end = block
                break
            cut = block == len(text) and (PARAMETER_TAG.startswith(rest) or FUNCTION_CLOSE.startswith(rest))
            problem = problem or (_CUT if cut else _STRAY)
            close = finder.next(FUNCTION_CLOSE, p)
            end = close + len(FUNCTION_CLOSE) if 0 <= close < block else block
            break
        key = _key(text, p + len(PARAMETER_TAG), block, schema)
        if key is None:
            cut = block == len(text) and ">" not in text[p:block]
            problem = problem or (_CUT if cut else f"A {PARAMETER_TAG}...> tag has no readable name; write {_EXAMPLE}.")
            close = finder.next(FUNCTION_CLOSE, p)
            end = close + len(FUNCTION_CLOSE) if 0 <= close < block else block
            break
        key_name, key_end = key
        value_end, p, issue = _value_end(text, key_end, finder)
        problem = problem or issue
        if p > block:  # a call quoted in the value: the call goes on past it (review 255 #1)
            block = finder.first((FUNCTION_TAG, WRAP_OPEN, WRAP_CLOSE), p, len(text))
        if key_name in args:
            problem = problem or f"Parameter {key_name!r} is given twice; give each parameter once."
        if problem is None:
            args[key_name] = typed_parameter(_trimmed(text[key_end:value_end]), key_name, schema)
    raw = text[start:end].strip()
    if problem is not None:
        collector.add_invalid(resolved or name, raw, problem)
    else:
        _record(collector, name, args, raw)
    return end


def _key(text: str, at: int, block: int, schema: Mapping[str, Any] | None) -> tuple[str, int] | None:
    """The parameter name after ``<parameter=`` at ``text[at]`` and where its tag ends: a property of the tool's
    schema written as it is and closed by ``>`` (the longest such name; JSON Schema allows any property name,
    ``"first name"`` or ``"a=b"``, and the template writes it unchanged), else a name :data:`_KEY` reads (a
    model's own spelling: quoted, spaces before the ``>``), else None."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if isinstance(props, Mapping):
        known = [k for k in props if isinstance(k, str) and text.startswith(f"{k}>", at) and at + len(k) < block]
        if known:
            name = max(known, key=len)
            return name, at + len(name) + 1
    key = _KEY.match(text, at, block)
    return None if key is None else (key.group(1), key.end())


def _value_end(text: str, start: int, finder: Finder) -> tuple[int, int, str | None]:
    """Where the value from ``start`` ends: ``(its end, where scanning goes on, a problem or None)`` (the rule: the
    module docstring, read by :class:`_Values`)."""
    values = finder.values()
    i = bisect_left(values.pos, start)
    found = values.first(i, _TERMINAL)
    stray = values.first(i, _TO_STRAY)  # the first </parameter> followed by text that is not a tag
    stray = -1 if stray == found else stray
    if found < len(values.kind) and values.kind[found] == _CLOSED:
        if stray >= 0 and values.kind[values.first(values.nxt[stray], _TO_PARAM)] == _PARAM:
            return values.pos[stray], values.pos[found], _STRAY  # a parameter after text after a closed value
        return values.pos[found], values.pos[found] + len(PARAMETER_CLOSE), None
    # no </parameter>: the value runs to the next <parameter=, closing tag or call (tolerated), else it is cut off
    lenient = values.first(i, _TO_LENIENT)
    end = values.pos[lenient] if lenient < len(values.kind) else len(text)
    if stray >= 0:
        return values.pos[stray], end, _STRAY
    return end, end, _CUT if end == len(text) else None


# the kinds of tag :class:`_Values` tells apart
_CLOSED, _STRAY_CLOSE, _PARAM, _MENTIONED_CLOSE, _ENDING_CLOSE, _REAL_CALL, _QUOTED_CALL, _TEXT = range(8)
_TERMINAL = frozenset({_CLOSED, _ENDING_CLOSE, _REAL_CALL})  # where a value's search for its </parameter> stops
_TO_STRAY, _TO_PARAM = _TERMINAL | {_STRAY_CLOSE}, _TERMINAL | {_PARAM}
_TO_LENIENT = _TERMINAL | {_PARAM, _MENTIONED_CLOSE}  # where a value without its </parameter> may end
_TAGS = re.compile("|".join(re.escape(t) for t in (PARAMETER_CLOSE, PARAMETER_TAG, FUNCTION_CLOSE, FUNCTION_TAG,
                                                    WRAP_OPEN, WRAP_CLOSE)))
_VALUE_FOLLOWERS = (PARAMETER_TAG, FUNCTION_CLOSE, WRAP_CLOSE, FUNCTION_TAG, WRAP_OPEN)


class _Values:
    """The tags of one text, read once, for finding where ``<parameter=>`` values end (module docstring) in time
    linear in the text: each tag's kind, and the next tag a value's search goes on to (past a quoted call: the tag
    after its closing tag). :meth:`first` follows those links, remembering what it found for every tag passed."""

    def __init__(self, text: str) -> None:
        n = len(text)
        found = [(m.start(), m.group()) for m in _TAGS.finditer(text)]
        self.pos = [at for at, _ in found]
        count = len(found)
        self.kind = [_TEXT] * count
        self.nxt = list(range(1, count + 1))
        self._memo: dict[frozenset[int], dict[int, int]] = {}
        closer = {FUNCTION_CLOSE: count, WRAP_CLOSE: count}  # the next of each closing tag, from the end back
        nested = _nested(text, found)
        for i in range(count - 1, -1, -1):
            at, tag = found[i]
            after = skip_ws(text, at + len(tag))
            if tag == PARAMETER_CLOSE:
                follows = after >= n or text.startswith(_VALUE_FOLLOWERS, after) or _partial(text, after,
                                                                                              _VALUE_FOLLOWERS, 1)
                self.kind[i] = _CLOSED if follows else _STRAY_CLOSE
            elif tag == PARAMETER_TAG:
                self.kind[i] = _PARAM
            elif tag in closer:
                # a closing tag right before a quoted call is quoted too (calls quoted in a row, review 259 #2)
                before_quote = i + 1 < count and self.pos[i + 1] == after and self.kind[i + 1] == _QUOTED_CALL
                ending = _ends_call(text, tag, after) and not before_quote
                self.kind[i] = _ENDING_CLOSE if ending else _MENTIONED_CLOSE
                closer[tag] = i
            elif _opens_call(text, tag, at):
                close = closer[FUNCTION_CLOSE if tag == FUNCTION_TAG else WRAP_CLOSE]
                # the text cut inside a call quoted in a block's value, before its </function> (review 259 #3)
                quoted = close == count and nested[i] and closer[FUNCTION_CLOSE] == count
                if close < count and self.kind[close] == _MENTIONED_CLOSE:
                    # quoted when the value goes on to its </parameter> or its call's end; a call after a value
                    # that forgot its </parameter>, followed by prose or a call, is still a call (review 259 #1)
                    ends = self.first(close + 1, _TERMINAL)
                    quoted = (self.kind[ends] in (_CLOSED, _ENDING_CLOSE) if ends < count
                              else tag == FUNCTION_TAG and nested[i])
                self.kind[i] = _QUOTED_CALL if quoted else _REAL_CALL
                if quoted:
                    self.nxt[i] = min(close + 1, count)

    def first(self, i: int, kinds: frozenset[int]) -> int:
        """The first tag from the ``i``-th on, following :attr:`nxt`, whose kind is in ``kinds``; ``len(kind)`` if
        none."""
        memo = self._memo.setdefault(kinds, {})
        end = len(self.kind)
        passed = []
        while i < end and self.kind[i] not in kinds:
            known = memo.get(i)
            if known is not None:
                i = known
                break
            passed.append(i)
            i = self.nxt[i]
        for j in passed:
            memo[j] = i
        return i


def _nested(text: str, found: list[tuple[int, str]]) -> list[bool]:
    """For each of the ``found`` tags ``(index, tag)``: whether it opens a call inside a ``<tool_call>`` block that
    already holds its own call (quoted in that call's value, unless the model forgot its closing tags)."""
    nested = [False] * len(found)
    blocks: list[bool] = []  # the open blocks, innermost last: whether each holds its call yet
    for i, (at, tag) in enumerate(found):
        if tag == WRAP_OPEN and _opens_call(text, tag, at):
            nested[i] = bool(blocks)
            blocks.append(text.startswith("{", skip_ws(text, at + len(tag))))
        elif tag == WRAP_CLOSE and blocks:
            blocks.pop()
        elif tag == FUNCTION_TAG and blocks:
            nested[i], blocks[-1] = blocks[-1], True
    return nested


def _partial(text: str, at: int, tags: tuple[str, ...], shortest: int = 2) -> bool:
    """Whether the text ends at ``at`` inside one of ``tags`` (its first ``shortest`` characters at least)."""
    rest = text[at:at + 13]
    return at + len(rest) == len(text) and len(rest) >= shortest and any(tag.startswith(rest) for tag in tags)


def _ends_call(text: str, tag: str, after: int) -> bool:
    """Whether the closing ``tag`` (followed by ``text[after]``, after whitespace) ends a call the model made: the
    text ends there or another call follows (a ``</function>`` may also be followed by its block's ``</tool_call>``);
    otherwise it stands in a value (quoted, or named in prose)."""
    ends = (FUNCTION_TAG, WRAP_OPEN, WRAP_CLOSE) if tag == FUNCTION_CLOSE else (FUNCTION_TAG, WRAP_OPEN)
    return after >= len(text) or text.startswith(ends, after) or _partial(text, after, ends)


def _opens_call(text: str, tag: str, at: int) -> bool:
    """Whether the opening ``tag`` at ``text[at]`` opens call syntax: a ``<function=NAME>`` followed by a
    ``<parameter=``, a JSON object or its ``</function>``; a ``<tool_call>`` followed by a ``<function=`` or a JSON
    object (else the tag is named in prose)."""
    if tag == FUNCTION_TAG:
        head = _NAME.match(text, at + len(tag))
        if head is None:
            return False
        first = skip_ws(text, head.end())
        return text.startswith((PARAMETER_TAG, "{", FUNCTION_CLOSE), first)
    return text.startswith((FUNCTION_TAG, "{"), skip_ws(text, at + len(tag)))


def _closing(rest: str) -> bool:
    """Whether ``rest`` (the end of the text) is the start of a ``</function>`` (``</`` at least)."""
    return len(rest) >= 2 and FUNCTION_CLOSE.startswith(rest)


def _trimmed(value: str) -> str:
    """``value`` without one line break at each end (the template writes the value on its own lines)."""
    for brk in ("\r\n", "\n"):
        if value.startswith(brk):
            value = value[len(brk):]
            break
    for brk in ("\r\n", "\n"):
        if value.endswith(brk):
            return value[: -len(brk)]
    return value


def _record(collector: Collector, name: str, args: dict[str, Any], raw: str) -> None:
    """A call of ``name`` with ``args``, or an invalid call when no bound tool has that name."""
    resolved = collector.resolve(name)
    if resolved is None:
        collector.add_invalid(name, raw, collector.unknown_error(name))
    else:
        collector.add_call(resolved, args, raw=raw)


def typed_parameter(value: str, key: str, schema: Mapping[str, Any] | None) -> Any:
    """Return the raw text ``value`` of parameter ``key`` typed by ``schema`` (a tool's parameters), as a call is
    read back (module docstring): the text itself when the property admits that string or is unknown, else the JSON
    value it holds. :mod:`toolwire.models.grammar` writes only the ``enum`` values this reads back as themselves. A
    schema whose arguments are a top-level union of objects types them by its fold (:func:`_one_object`)."""
    schema = _one_object(schema)
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping) or key not in props:
        return value
    prop = _resolve(props[key], schema)  # type: ignore[arg-type]
    kinds = _wanted_kinds(prop, schema)  # type: ignore[arg-type]
    text = value.strip()
    decoded = _decoded(text)
    options = _options(prop, schema)  # type: ignore[arg-type]
    if (decoded is not _NONE and not isinstance(decoded, str)
            and any(decoded == o and type(decoded) is type(o) for o in options)):
        return decoded  # (also in a union: Optional[Literal["auto", 1]] given 1, review 94)
    if "null" in kinds and text == "null":  # how the template writes None, whatever else the type admits
        return None
    if not kinds or ("string" in kinds and (decoded is _NONE or _takes_text(prop, schema, value))):
        return value
    if decoded is _NONE:
        lowered = text.lower()
        if "boolean" in kinds and lowered in ("true", "false"):
            return lowered == "true"
        if "null" in kinds and lowered == "none":
            return None
        return value
    if isinstance(decoded, float) and decoded.is_integer() and "integer" in kinds and "number" not in kinds:
        return int(decoded)
    return decoded if _fits(decoded, kinds) else value


def _one_object(schema: Any) -> Any:
    """``schema`` (a tool's parameters) as one object when its arguments are a top-level ``anyOf``/``oneOf``/``allOf``
    of objects: the fold the providers are sent, every branch's properties in it
    (:func:`toolwire.models._local_union.local_parameters`; review 198 #1), so that ``<parameter=x>3`` is typed as
    the branch declaring ``x`` wants; else ``schema`` itself. Never raises."""
    if not isinstance(schema, dict) or not any(key in schema for key in ("anyOf", "oneOf", "allOf")):
        return schema
    from toolwire.models._local_union import local_parameters  # (here: toolwire.models imports this package)

    return local_parameters(schema)


_NONE = object()


def _takes_text(prop: Any, root: Mapping[str, Any], value: str) -> bool:
    """Whether a string branch of ``prop`` takes ``value`` as it is: one of any string (a string type without
    ``enum`` or ``const``, or a schema saying nothing), an ``enum``/``const`` holding it, or a string whose
    ``format``, ``pattern`` or length allow it (:func:`toolwire.parsing._json_strings.string_takes`). False when the
    only strings are other values (``int | Literal["auto"]`` given ``5``: then the number is meant; ``UUID | Lookup``
    given a JSON object: then the object is meant, review 94)."""
    leaves = _leaves(prop, root)
    if not leaves:
        return True  # True / {} schemas: anything
    for node in leaves:  # (the union's alternatives, as json_string_plan reads them)
        options = [node["const"]] if "const" in node else node.get("enum")
        if isinstance(options, list):
            if value in options:
                return True
            continue
        kinds = _wanted_kinds(node, root)
        if not kinds or ("string" in kinds and string_takes(node, value)):
            return True
    return False


def _options(prop: Any, root: Mapping[str, Any]) -> list[Any]:
    """The values the ``enum``/``const`` alternatives of ``prop`` pin (its own, and its ``anyOf``/``oneOf``
    branches'), in order."""
    out: list[Any] = []
    for leaf in _leaves(prop, root):
        options = [leaf["const"]] if "const" in leaf else leaf.get("enum")
        if isinstance(options, list):
            out.extend(options)
    return out


def _decoded(text: str) -> Any:
    """The JSON value of ``text`` (or, for a bracketed one, its Python-literal value), else ``_NONE``."""
    try:
        return _DECODER.decode(text)
    except (ValueError, RecursionError):  # JSONDecodeError, and int() refusing over 4,300 digits
        pass
    if text[:1] in "[{(":
        value = _literal(text)
        if value is not None:
            return value
    return _NONE


def _fits(value: Any, kinds: set[str]) -> bool:
    """Whether a decoded value is of one of the JSON types ``kinds``."""
    if isinstance(value, bool):
        return "boolean" in kinds
    if isinstance(value, int):
        return bool(kinds & {"integer", "number"})
    if isinstance(value, float):
        return "number" in kinds
    if value is None:
        return "null" in kinds
    if isinstance(value, dict):
        return "object" in kinds
    if isinstance(value, list):
        return "array" in kinds
    return False


def _wrap_start(text: str, start: int) -> int:
    """``start``, or the start of a ``<tool_call>`` tag right before it (whitespace between)."""
    j = start
    while j > 0 and text[j - 1].isspace():
        j -= 1
    return j - len(WRAP_OPEN) if text.startswith(WRAP_OPEN, j - len(WRAP_OPEN)) and j >= len(WRAP_OPEN) else start


def _wrap_end(text: str, end: int) -> int:
    """``end``, or the end of a ``</tool_call>`` tag right after it (whitespace between; a tag the text
    ends inside counts)."""
    after = skip_ws(text, end)
    if text.startswith(WRAP_CLOSE, after):
        return after + len(WRAP_CLOSE)
    rest = text[after:]
    return len(text) if rest and len(rest) < len(WRAP_CLOSE) and WRAP_CLOSE.startswith(rest) else end
