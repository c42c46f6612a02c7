"""Turning decoded call objects into :class:`~toolwire.messages.ToolCall` records.

:class:`Collector` is what every dialect parser fills: it knows the bound tool names, decides whether
an object is a call, keeps ids unique, and rebuilds the reply text without the call syntax.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from toolwire.errors import ToolCallParseError
from toolwire.messages import InvalidToolCall, ToolCall, invalid_tool_call, new_tool_call_id, tool_call
from toolwire.parsing._repeated_keys import same_json
from toolwire.parsing._scan import (
    TOO_DEEP,
    DecodeFailure,
    NestedTooDeep,
    NonFiniteNumber,
    clean_value,
    decode_value_at,
    fix_surrogates,
    python_span_end,
    skip_ws,
)
from toolwire.parsing.arguments import (
    EXAMPLE,
    CallParts,
    call_parts,
    no_name_error,
    non_finite_error,
    normalize_arguments,
    raw_text,
)
from toolwire.parsing.partial_json import partial_value


class ParsedReply(NamedTuple):
    """What :func:`~toolwire.parsing.parse_tool_calls` found in a model's text reply.

    Attributes:
        content: the text with the tool-call syntax removed, stripped of surrounding whitespace.
        tool_calls: the calls to bound tools, as :class:`~toolwire.messages.ToolCall` dicts, in order.
        invalid_tool_calls: calls that could not be read or name no bound tool (inside an explicit call
            marker), as :class:`~toolwire.messages.InvalidToolCall` dicts keeping the raw text.
    """

    content: str
    tool_calls: list[ToolCall]
    invalid_tool_calls: list[InvalidToolCall]


def tool_name_set(tool_names: Collection[str] | Mapping[str, Any] | None) -> frozenset[str]:
    """The bound tool names as a frozenset (a mapping contributes its keys; ``None`` means none)."""
    if tool_names is None:
        return frozenset()
    if isinstance(tool_names, str):
        return frozenset((tool_names,))
    return frozenset(name for name in tool_names if isinstance(name, str))


_EXAMPLE = '{"name": "tool_name", "arguments": {"param": "value"}}'
_NOT_KEY = re.compile(r"[\W_]+")


def name_key(name: str) -> str:
    """A tool name with letter case and separators taken out: ``get_weather``, ``get-weather``, ``GetWeather``
    and ``get.weather`` all give ``getweather``."""
    return _NOT_KEY.sub("", name.casefold())


def name_keys(names: Collection[str]) -> dict[str, str]:
    """The bound names by :func:`name_key`, keeping only keys that one name alone has.

    A call whose name is not bound but has one of these keys is a call of that tool: small models write
    ``protein_info_get_sequence_and_3d`` for ``protein_info.get_sequence_and_3D`` or ``getWeather`` for
    ``get_weather``, and answering with an unknown-tool error costs a round trip for a call whose meaning
    is plain. When two bound names share a key, neither is guessed.
    """
    found: dict[str, str | None] = {}
    for name in names:
        key = name_key(name)
        found[key] = None if key in found and found[key] != name else name
    return {key: name for key, name in found.items() if key and name is not None}


class Collector:
    """Accumulates the calls one parser finds in one reply.

    Args:
        tool_names: the bound tool names; only these make a :class:`ToolCall`. A mapping ``{name: parameters
            JSON Schema}`` also gives each tool's argument shape, shown in the error of its broken call.
    """

    def __init__(self, tool_names: Collection[str] | Mapping[str, Any] | None) -> None:
        self.names = tool_name_set(tool_names)
        self._schemas = dict(tool_names) if isinstance(tool_names, Mapping) else {}
        self._keys = name_keys(self.names)
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self._positions: list[int] = []  # each invalid call's place among all the calls, in the order they came
        self._last_valid = -1
        self.spans: list[tuple[int, int]] = []
        self._ids: set[str] = set()
        # (text, {(pattern, flags): (where its search began, its match)}): the retry searches of this parse
        # (toolwire.parsing._retries._search), dropped with it (review 222 #9)
        self.searches: tuple[str, dict[tuple[str, int], tuple[int, re.Match[str] | None]]] | None = None

    def _id(self, candidate: Any) -> str:
        call_id = fix_surrogates(candidate) if isinstance(candidate, str) and candidate.strip() else new_tool_call_id()
        while call_id in self._ids:
            call_id = new_tool_call_id()
        self._ids.add(call_id)
        return call_id

    def resolve(self, name: Any) -> str | None:
        """The bound tool a call's ``name`` means, or ``None``: the name itself when it is bound, else the one
        bound tool whose name differs from it only in letter case and separators (see :func:`name_keys`)."""
        if not isinstance(name, str):
            return None
        if name in self.names:
            return name
        return self._keys.get(name_key(name))

    def call_example(self, name: str | None) -> str:
        """A whole call to ``name`` for an error message: ``{"name": "f", "arguments": <the tool's own shape>}``
        (:func:`toolwire._tool_args.argument_example`) when its schema is known, else with a placeholder argument."""
        schema = self._schemas.get(name) if name else None
        if not isinstance(schema, Mapping):
            return _EXAMPLE if not name else _EXAMPLE.replace("tool_name", name)
        from toolwire._tool_args import argument_example  # (it imports the parsing package)

        return f'{{"name": {json.dumps(name)}, "arguments": {argument_example(schema)}}}'

    def unknown_error(self, name: str) -> str:
        """The error sentence for a call to a name that is not bound."""
        if not self.names:
            return f"Unknown tool {name!r}: no tools are available, so answer in plain text."
        return f"Unknown tool {name!r}; call one of the available tools: {', '.join(sorted(self.names))}."

    def add_call(self, name: str, args: dict[str, Any], call_id: Any = None, *, raw: Any = None) -> None:
        """Record a call (a fresh id is made when ``call_id`` is missing or already used).

        The arguments go through :func:`~toolwire.parsing._scan.clean_value`: surrogate pairs in strings are
        joined, and a NaN or infinite number makes the call invalid (keeping ``raw``, the call's text, or
        the arguments as text when it is not given).
        """
        try:
            args = clean_value(args)
        except NonFiniteNumber as exc:
            self.add_invalid(name, args if raw is None else raw, non_finite_error(exc), call_id)
            return
        except NestedTooDeep:
            self.add_invalid(name, args if raw is None else raw, f"{TOO_DEEP} such as {EXAMPLE}.",
                             call_id)
            return
        self._last_valid = len(self.calls) + len(self.invalid)
        self.calls.append(tool_call(fix_surrogates(name), args, self._id(call_id)))

    def add_invalid(self, name: str | None, raw: Any, error: str, call_id: Any = None) -> None:
        """Record an invalid call keeping ``raw`` (as text) and the ``error`` sentence."""
        name = fix_surrogates(name) if isinstance(name, str) else None
        self._positions.append(len(self.calls) + len(self.invalid))
        self.invalid.append(invalid_tool_call(name or None, raw_text(raw), self._id(call_id), error))

    def add_span(self, start: int, end: int) -> None:
        """Mark ``text[start:end]`` as call syntax to drop from the content."""
        if end > start:
            self.spans.append((start, end))

    def add_object(self, obj: Any, raw: str, *, marked: bool) -> bool:
        """Record the call that ``obj`` (a decoded JSON/Python object) stands for.

        Args:
            obj: the decoded value.
            raw: the text it was decoded from (kept on an invalid call).
            marked: whether it stood inside an explicit call marker (or a list of calls); then a
                malformed object or an unknown name is an invalid call, otherwise it is plain text.

        Returns:
            True when a call (valid or invalid) was recorded, False when ``obj`` is just text.
        """
        parts = call_parts(obj)
        if parts is None:
            if marked:
                self.add_invalid(None, raw, f"A tool call must be a JSON object such as {_EXAMPLE}.")
            return marked
        name, args, call_id, extra, inner = parts
        name = self.resolve(name) or name
        if name not in self.names:
            if not marked:
                return False
            if not name.strip():
                self.add_invalid(None, raw, no_name_error(self.names))
            else:
                self.add_invalid(name, raw, self.unknown_error(name), call_id)
            return True
        flat = _flat_call(self._schemas.get(name), inner, extra)
        if flat is not None:  # a tool taking a parameter named "parameters" (review 231 #6)
            if not marked:  # (flat arguments outside a marker are text, as for any tool)
                return False
            args, extra = flat, ()
        elif not marked and _looks_like_schema(inner, args):
            return False
        beside: tuple[str, ...] = ()
        if args is None and extra:
            if not marked:  # {"name": "search", "results": [...]} in prose is not a call
                return False
            args = {key: inner[key] for key in extra}  # flat arguments inside a call marker
        elif extra:
            beside = self._beside(name, extra)  # keys next to "arguments" that are arguments (reviews 148 #1, 151 #2)
        try:
            parsed = normalize_arguments(args)
            if beside:
                parsed = _merge_beside(parsed, inner, beside)
        except ToolCallParseError as exc:
            self.add_invalid(name, raw if beside else args if isinstance(args, str) or _finite(args) else raw,
                             str(exc), call_id)
        else:
            self.add_call(name, parsed, call_id, raw=raw if beside else None)
        return True

    def _beside(self, name: str, extra: tuple[str, ...]) -> tuple[str, ...]:
        """The keys of ``extra``, written beside a call's ``"arguments"``, that are arguments of tool ``name``.

        With the tool's schema known (``tool_names`` maps names to schemas), a key counts when it is one of its
        parameters, or when its schema says ``additionalProperties`` (takes other keys) and the key is none of
        :data:`_CALL_LEVEL`; without a schema, when it is none of :data:`_CALL_LEVEL` (a model's ``"reasoning"``,
        an OpenAI-style ``"index"``, a ``"tool_call_id"``: keys about the call). ``"arguments"`` and
        ``"parameters"`` always count (both written: see :func:`_merge_beside`). The other keys are ignored.
        """
        params, open_ = _parameters(self._schemas.get(name))
        return tuple(key for key in extra if key in _ARG_KEYS or key in params or (open_ and key not in _CALL_LEVEL))

    def result(self, text: str) -> ParsedReply:
        """Build the :class:`ParsedReply`: ``text`` without the recorded spans, stripped; an invalid call that a
        valid one follows keeps its place as ``index`` (see :class:`~toolwire.messages.InvalidToolCall`)."""
        invalid = [{**bad, "index": at} if at < self._last_valid else bad  # type: ignore[typeddict-item]
                   for bad, at in zip(self.invalid, self._positions, strict=True)]
        if not self.spans:
            return ParsedReply(text.strip(), self.calls, invalid)
        pieces: list[str] = []
        pos = 0
        for start, end in sorted(self.spans):
            if start > pos:
                pieces.append(text[pos:start])
            pos = max(pos, end)
        pieces.append(text[pos:])
        return ParsedReply("".join(pieces).strip(), self.calls, invalid)


_ARG_KEYS = ("arguments", "parameters")
# keys about a call, not arguments: read beside "arguments" they are ignored unless the tool's schema names them
_CALL_LEVEL = frozenset(("name", "id", "call_id", "tool_call_id", "type", "function", "index", "reasoning",
                         "reasoning_content", "thought", "thoughts", "thinking", "rationale"))


def _parameters(schema: Any) -> tuple[frozenset[str], bool]:
    """``(the parameter names of a tool's parameters schema, whether it takes other keys)``.

    A schema that is not known (``None``, not a mapping) or names no ``properties`` (its own, or those of the
    objects of a top-level ``anyOf``/``oneOf``/``allOf``) takes any key; one with ``properties`` takes other keys
    only when its ``additionalProperties`` says so (``true`` or a schema).
    """
    if not isinstance(schema, Mapping):
        return frozenset(), True
    names: set[str] = set()
    found = False
    for node in (schema, *(branch for key in ("anyOf", "oneOf", "allOf")
                           for branch in (schema.get(key) if isinstance(schema.get(key), list) else ()))):
        props = node.get("properties") if isinstance(node, Mapping) else None
        if isinstance(props, Mapping):
            found = True
            names.update(k for k in props if isinstance(k, str))
    extra = schema.get("additionalProperties")
    return frozenset(names), not found or extra is True or isinstance(extra, Mapping)


def _merge_beside(args: dict[str, Any], obj: dict[str, Any], beside: tuple[str, ...]) -> dict[str, Any]:
    """The arguments of call object ``obj`` with the keys written beside its ``"arguments"`` added to them.

    Small models write one argument inside ``"arguments"`` and another next to it (``{"name": "f", "arguments":
    {"city": "Paris"}, "unit": "F"}``); dropping it would run the tool with its default without a word.

    Args:
        args: the normalized arguments of the call (its ``"arguments"``, or ``"parameters"`` when it has no
            ``"arguments"``).
        obj: the call object.
        beside: its keys beside the arguments key that are arguments (:meth:`Collector._beside`), and the other
            arguments key when both are written.

    Returns:
        ``args`` with each key of ``beside`` added (a new dict); a key ``args`` already has with the same value,
        or a ``"parameters"`` holding the same arguments, adds nothing.

    Raises:
        ToolCallParseError: a key beside the arguments has another value inside them, or the call gives both
            ``"arguments"`` and ``"parameters"`` with different content.
    """
    out = dict(args)
    for key in beside:
        value = obj[key]
        if key in _ARG_KEYS:  # both "arguments" and "parameters"
            try:
                same = same_json(normalize_arguments(value), args)
            except ToolCallParseError:
                same = False
            if not same:
                raise ToolCallParseError('The tool call gives both "arguments" and "parameters", with different '
                                         'content; send all the arguments once, in "arguments".', obj)
            continue
        if key in out and not same_json(out[key], value):
            raise ToolCallParseError(f'Parameter {key!r} is given both inside "arguments" and beside it, with '
                                     'different values; give it once, inside "arguments".', obj)
        out[key] = value
    return out



def _looks_like_schema(obj: dict[str, Any], args: Any) -> bool:
    """A tool *definition* echoed in prose (``description`` or a JSON Schema as its parameters)."""
    if "description" in obj:
        return True
    return isinstance(args, dict) and args.get("type") == "object" and isinstance(args.get("properties"), dict)


_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema")  # where a tool definition holds its JSON Schema


def _flat_call(schema: Any, obj: dict[str, Any], extra: tuple[str, ...]) -> dict[str, Any] | None:
    """The flat arguments of call object ``obj`` (its keys besides the name: ``extra``, and ``"parameters"``) when
    the tool's known ``schema`` (closed: it lists its parameters) declares a ``parameters``, ``input_schema`` or
    ``inputSchema`` parameter that ``obj`` gives and declares every other key ``obj`` gives too
    (``{"name": "register_tool", "tool_name": "weather", "parameters": {...}}``: review 231 #6); else None. A
    ``"parameters"`` object whose keys are all the tool's parameters is the call's arguments, as before."""
    params, open_ = _parameters(schema)
    if open_ or "arguments" in obj or not any(key in obj and key in params for key in _SCHEMA_KEYS):
        return None
    wrapped = obj.get("parameters")
    if "parameters" in obj and not extra and isinstance(wrapped, dict) and all(k in params for k in wrapped):
        return None  # ({"name": "save_schema", "parameters": {"type": "object", "properties": {...}}})
    keys = (*extra, "parameters") if "parameters" in obj else extra
    if not all(key in params for key in keys):
        return None
    return {key: obj[key] for key in obj if key in keys}


def _is_definition(collector: Collector, item: Any, part: CallParts) -> bool:
    """Whether list item ``item`` (its :class:`~toolwire.parsing.arguments.CallParts`: ``part``) has the shape of a
    tool *definition*, not of a call: a JSON Schema object (``"type": "object"`` with ``"properties"``) as its
    ``parameters``, ``input_schema`` (Anthropic) or ``inputSchema`` (MCP), unless the named tool's known schema
    takes each of that object's keys as a parameter (a call of a tool whose arguments are a schema); or OpenAI's
    ``{"type": "function", "function": {...}}`` whose function has no ``arguments`` and a ``description`` without
    ``parameters``. Other keys, ``description`` included, are what a call may hold (flat arguments, or keys beside
    ``"arguments"``: review 222 #2)."""
    obj = part.obj
    schema = collector._schemas.get(collector.resolve(part.name) or part.name)
    if _flat_call(schema, obj, part.extra) is not None:  # (a call with flat arguments: review 231 #6)
        return False
    for key in _SCHEMA_KEYS:
        value = obj.get(key)
        if isinstance(value, dict) and value.get("type") == "object" and isinstance(value.get("properties"), dict):
            params, open_ = _parameters(schema)
            if open_ or not all(k in params for k in value):
                return True
    fn = item.get("function") if isinstance(item, dict) and item.get("type") == "function" else None
    return isinstance(fn, dict) and "arguments" not in fn and "parameters" not in fn and "description" in fn


def add_value(collector: Collector, value: Any, raw: str, *, marked: bool) -> bool:
    """Record the call(s) in a decoded value: one call object, or a list of call objects.

    A list counts only when every item is a call object and (outside a marker) at least one names a
    bound tool and none has the shape of a tool definition (:func:`_is_definition`: a JSON Schema as its
    ``parameters`` or ``input_schema``, or OpenAI's ``{"type": "function", "function": {...}}`` tool, as a model
    lists its tools: review 215 #3); a ``description`` key alone does not make one, as it is often an argument
    (review 222 #2). Its items then count as marked, so unknown names in it become invalid calls.

    Returns:
        True when something was recorded (the value's text is call syntax), else False.
    """
    if isinstance(value, list):
        if not value:
            return False
        parts = [call_parts(item) for item in value]
        if any(p is None for p in parts):
            if not marked:
                return False
        elif not marked and (not any(collector.resolve(p.name) for p in parts if p is not None)
                             or any(_is_definition(collector, item, p) for item, p in zip(value, parts, strict=True)
                                    if p is not None)):
            return False  # (a list of tool definitions in prose, as one definition: review 215 #3)
        for item in value:
            collector.add_object(item, raw_text(item) or "", marked=True)
        return True
    return collector.add_object(value, raw, marked=marked)


# the start of a call object, JSON or Python-dict syntax: {"name": "x", "arguments":
_HEAD = re.compile(
    r"""[\[\s]*\{\s*(["'])name\1\s*:\s*(["'])([^"'\\\n]{1,200})\2\s*,"""
    r"""\s*(["'])(?:arguments|parameters)\4\s*:"""
)


def call_head(text: str, pos: int = 0) -> str | None:
    """The tool name when ``text[pos:]`` starts like a call object (``{"name": "x", "arguments":``)."""
    m = _HEAD.match(text, pos)
    return m.group(3).strip() if m else None


def add_failure(collector: Collector, raw: str, message: str, *, marked: bool) -> bool:
    """Record a call whose text could not be decoded (cut off or malformed JSON or Python dict).

    The name is recovered from the partial JSON, or from the call's opening ``{"name": "x", "arguments":``.
    Outside a marker, only text that starts a call to a bound tool counts as a (broken) call.

    Returns:
        True when an invalid call was recorded.
    """
    value = partial_value(raw)
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, dict)), None)
    parts = call_parts(value)
    name = parts.name if parts is not None else None
    has_args = parts is not None and any(k in parts.obj for k in ("arguments", "parameters"))
    if name is None or not has_args:
        head = call_head(raw)
        if head is not None:
            name, has_args = head, True
    name = collector.resolve(name) or name
    if not marked and (name not in collector.names or not has_args):
        return False
    example = collector.call_example(name)
    collector.add_invalid(name, raw, f"{message} Send the whole tool call again as valid JSON, such as {example}.")
    return True


_ITEM_SEPARATOR = re.compile(r"\s*,?\s*")


def add_broken(collector: Collector, text: str, start: int, stop: int, failure: DecodeFailure, *,
               marked: bool) -> int | None:
    """Record the call(s) in ``text[start:stop]``, a value :func:`decode_value_at` could not read.

    A list of calls keeps its readable calls (see :func:`add_list_items`); anything else is one invalid
    call (see :func:`add_failure`).

    Returns:
        The end of the recorded call syntax (``stop``, or the end of a list closed before it), or ``None``
        when nothing was recorded.
    """
    if failure.kind != "deep" and text.startswith("[", start):
        end = add_list_items(collector, text, start, stop, failure.message, marked=marked)
        if end is not None:
            return end
    return stop if add_failure(collector, text[start:stop].strip(), failure.message, marked=marked) else None


def add_list_items(collector: Collector, text: str, start: int, stop: int, message: str, *,
                   marked: bool) -> int | None:
    """Record the items of a list of calls at ``text[start]`` that cannot be read whole.

    The list is cut off before ``stop`` (a reply hitting max_tokens) or holds a malformed item. Its items
    are read one by one, so every readable call is kept: each becomes a call (an invalid one when it
    names an unknown tool or is malformed), and a cut-off or unreadable rest becomes one invalid call,
    under its own name when it has one. Outside a marker, the readable items must all be call objects,
    the rest must start like a call (or be cut off), and one of the calls must name a bound tool.

    Args:
        message: the error sentence for the rest when the list is cut off.

    Returns:
        The end of the list (past its ``]``, or ``stop`` when it is cut off), or ``None`` (nothing recorded)
        when no item can be read or, outside a marker, the text does not look like a list of calls.
    """
    source = text[:stop]
    items: list[tuple[Any, str, str | None]] = []  # (value, raw text, error sentence of a malformed item)
    p = skip_ws(source, start + 1)
    closed = -1
    truncated = False  # the list ends inside an item (the text was cut off there)
    while p < stop:
        if source[p] == "]":
            closed = p + 1
            break
        if source[p] not in "{[":
            break
        try:
            value, end = decode_value_at(source, p)
        except DecodeFailure as failure:
            end = python_span_end(source, p) if failure.kind == "invalid" else -1
            if end < 0:  # cut off (or too deep): the rest
                message = failure.message
                truncated = failure.kind == "truncated"
                break
            items.append((None, source[p:end], failure.message))
        else:
            items.append((value, source[p:end], None))
        p = _ITEM_SEPARATOR.match(source, end).end()  # type: ignore[union-attr]
    rest = "" if closed >= 0 else source[p:].strip()
    if not items:
        return None
    if not marked:
        parts = [call_parts(value) for value, _, error in items if error is None]
        # a rest cut off before its call's head is complete (``{"na``) still ends a list of calls
        if any(part is None for part in parts) or (rest and call_head(rest) is None and not truncated):
            return None
        names = {part.name for part in parts if part is not None}
        names.update(call_head(raw) for _, raw, error in items if error is not None)
        if not any(collector.resolve(name) for name in names) and not collector.resolve(call_head(rest)):
            return None
    for value, raw, error in items:
        if error is None:
            collector.add_object(value, raw, marked=True)
        else:
            add_failure(collector, raw, error, marked=True)
    if rest:
        add_failure(collector, rest, message, marked=True)
    return closed if closed >= 0 else stop


def _finite(value: Any) -> bool:
    """Whether decoded arguments hold no NaN or infinity (else the call's text is kept on an invalid call:
    an integer too long to read was decoded as an infinity, and only the text still has its digits)."""
    try:
        clean_value(value)
    except NonFiniteNumber:
        return False
    except NestedTooDeep:
        return True  # the call is refused when it is added (add_call), with its own sentence
    return True
