"""Reading a tool call's arguments, whatever shape the model or provider sent them in.

Providers send arguments as a JSON object string (OpenAI Chat Completions ``function.arguments``), as an
already-decoded object (Anthropic ``input``, Gemini ``args``, LangChain ``args``), or, with weaker models,
as an empty string, ``null``, a JSON string that holds the JSON object (double-encoded), a Python dict
literal, or cut-off text. :func:`normalize_arguments` turns each of these into a dict or raises
:class:`~toolwire.errors.ToolCallParseError` with one sentence the model can act on. Strings holding JSON
where the schema wants an object or array are decoded by :mod:`toolwire.parsing._json_strings`
(:func:`decode_json_strings` and :func:`json_string_plan` are re-exported here).
"""

from __future__ import annotations

import ast
import contextlib
import json
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from toolwire._printing import safe_text
from toolwire.errors import ToolCallParseError
from toolwire.messages import InvalidToolCall, ToolCall, invalid_tool_call, tool_call
from toolwire.parsing._decode_at import NOT_JSON_ADVICE, TOO_MANY_DIGITS
from toolwire.parsing._json_strings import (
    _MAX_SCHEMA_DEPTH,
    JsonStringPlan,
    JsonValuePlan,
    _decode_kinds,
    _decoded,
    _resolve,
    decode_json_strings,
    json_string_plan,
    repeated_key_error,
)
from toolwire.parsing._python_parse import parse_expr
from toolwire.parsing._repeated_keys import RepeatedKey, refuse_repeated_literal_keys
from toolwire.parsing._scan import (
    _DECODER,
    TOO_DEEP,
    NestedTooDeep,
    NonFiniteNumber,
    clean_value,
    fix_surrogates,
    is_truncation,
    looks_pythonic,
    to_jsonable,
)

__all__ = [
    "CallParts",
    "JsonStringPlan",
    "JsonValuePlan",
    "call_parts",
    "decode_json_strings",
    "json_string_plan",
    "no_name_error",
    "non_finite_error",
    "normalize_arguments",
    "raw_text",
    "tool_call_from_native",
    "unwrap_call",
]

EXAMPLE = '{"city": "Paris"}'
"""The example object of the parse errors below; callers that know the tool put its own shape in its place
(:func:`toolwire._tool_args.argument_example`)."""
TRUNCATED = "The arguments JSON is cut off before it is closed"
"""How the error of argument text that ends before its JSON is closed begins."""
_ARG_KEYS = ("arguments", "parameters")
_WRAPPER_KEYS = frozenset(("id", "type", "call_id", "function", "index"))  # OpenAI's {"function": {...}} wrapper's own


def _kind(value: Any) -> str:
    """A JSON value's kind as a noun: ``"array"``, ``"string"``, ``"number"``, ``"boolean"``, ``"null"``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _not_object(value: Any, raw: Any, decoded: bool) -> ToolCallParseError:
    what = f"a JSON {_kind(value)}" if decoded else f"a Python {type(value).__name__}"
    return ToolCallParseError(f"The arguments must be a JSON object such as {EXAMPLE}; got {what}.", raw)


def normalize_arguments(raw: Any, schema: Mapping[str, Any] | None = None, *, tool_name: str | None = None
                        ) -> dict[str, Any]:
    """Return a tool call's arguments as a dict.

    Args:
        raw: what the provider or model sent: a dict (returned as is); a JSON object string (one
            ``json.loads``, the common case); ``None``, ``""``, whitespace or ``"null"`` (``{}``); a JSON
            string holding a JSON object string (decoded one more level); a Python dict literal with
            single quotes, ``True``/``None`` (read with :func:`ast.literal_eval`, never ``eval``; only
            JSON-able values are accepted, and a dict key that is an int, finite float, bool or None becomes its JSON
            text, ``{3: 'a'}`` -> ``{"3": "a"}``, as in a call written as a Python dict); bytes (UTF-8).
        schema: optional JSON Schema object (``{"type": "object", "properties": {...}}``) of the tool.
            With it, a string value whose property wants an object or array is decoded when it holds
            JSON of that kind (string-typed properties keep their text), and a wrapper
            ``{"name": ..., "arguments"|"parameters": {...}}`` is unwrapped when the schema has no such
            properties.
        tool_name: the name of the tool the arguments are for: a wrapper is then unwrapped only when it names
            that tool (a wrapper naming another tool is an error, so that tool's arguments never run this one).

    Returns:
        The arguments dict (the given dict itself when nothing had to change).

    Raises:
        ToolCallParseError: the value is not an object (``[1, 2]``, ``"x"``, ``5``), the JSON is cut off
            or invalid, an object in the JSON text (or a dict of a Python literal) gives a key twice with
            different values (two equal values are kept once; with ``schema``, also one in a string decoded for an
            object or array parameter: the message names the parameter and the key), a wrapper names a tool other
            than ``tool_name``, or it holds values JSON cannot carry (a set, a tuple key or two keys of one text
            such as ``{1: 'a', '1': 'b'}`` in a literal; ``NaN``, ``Infinity`` or ``1e999``, which Python's ``json``
            reads but JSON has not). ``.raw`` keeps the input; the message is one sentence the model can act on.
            Never returns ``{}`` for such input.

    UTF-16 surrogate pairs left in strings (``'\\ud83d\\ude00'`` read the Python way) are joined, so the
    arguments always encode as UTF-8.
    """
    if isinstance(raw, dict):
        args = raw
    elif isinstance(raw, str):
        args = _from_text(raw)
    elif raw is None:
        return {}
    elif isinstance(raw, bytes | bytearray):
        try:
            text = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise ToolCallParseError("The arguments must be UTF-8 text holding a JSON object.", raw) from None
        args = _from_text(text)
    else:
        raise _not_object(raw, raw, decoded=False)
    if schema and isinstance(schema, Mapping):
        args = _apply_schema(args, schema, schema, 0, tool_name)
    try:
        return clean_value(args)  # type: ignore[no-any-return]
    except NonFiniteNumber as exc:
        raise ToolCallParseError(non_finite_error(exc), raw) from None
    except NestedTooDeep:
        raise ToolCallParseError(f"{TOO_DEEP} such as {EXAMPLE}.", raw) from None


def non_finite_error(exc: NonFiniteNumber) -> str:
    """Return the error sentence for arguments holding NaN or an infinity (JSON has neither), as ``exc`` found."""
    where = f"The argument {exc.where}" if exc.where else "The arguments"
    what = "NaN" if exc.number == "NaN" else f"{exc.number}, or a number too large to read"
    return f"{where} is not a finite number ({what}), which JSON cannot carry; send a finite number instead."


def _from_text(raw: str) -> dict[str, Any]:
    if not raw or raw.isspace():
        return {}
    try:
        value = _DECODER.decode(raw)
    except RepeatedKey as exc:
        raise ToolCallParseError(exc.msg, raw) from None
    except json.JSONDecodeError as exc:
        return _from_bad_json(raw, exc)
    except RecursionError:
        raise ToolCallParseError(f"{TOO_DEEP} such as {EXAMPLE}.", raw) from None
    if isinstance(value, dict):
        return value
    if value is None:
        return {}
    if isinstance(value, str):
        return _from_inner(raw, value)
    raise _not_object(value, raw, decoded=True)


def _from_inner(raw: str, inner: str) -> dict[str, Any]:
    """A JSON string whose content should be the object (double-encoded arguments)."""
    text = inner.strip()
    if not text:
        return {}
    if text[0] == "{":
        try:
            value = _DECODER.decode(text)
        except RepeatedKey as exc:
            raise ToolCallParseError(exc.msg, raw) from None
        except (json.JSONDecodeError, RecursionError):
            value = _python_dict(text, raw)
        if isinstance(value, dict):
            return value
    what = "a JSON string whose text is not a complete JSON object" if text[0] == "{" else "a JSON string"
    raise ToolCallParseError(f"The arguments must be a JSON object such as {EXAMPLE}; got {what}.", raw)


def _from_bad_json(raw: str, exc: json.JSONDecodeError) -> dict[str, Any]:
    text = raw.strip()
    if text[0] == "{":
        value = _python_dict(text, raw)
        if value is not None:
            return value
    if exc.msg == "Extra data":
        raise ToolCallParseError(f"The arguments must be exactly one JSON object such as {EXAMPLE}; other text "
                                 f"follows it at character {exc.pos}.", raw)
    if text[0] in "{[\"" and is_truncation(raw, exc):
        raise ToolCallParseError(f"{TRUNCATED}; send the complete JSON object such as {EXAMPLE}.", raw)
    if text[0] not in "{[\"-0123456789tfn":
        raise ToolCallParseError(f"The arguments must be a JSON object such as {EXAMPLE}; got text that is not JSON.",
                                 raw)
    raise ToolCallParseError(f"The arguments are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                             f"send one JSON object such as {EXAMPLE}.", raw)


def _python_dict(text: str, raw: Any) -> dict[str, Any] | None:
    """Read a Python dict literal (``{'a': True}``) safely; ``None`` when ``text`` is not one.

    Text without Python syntax (only JSON with, say, a trailing comma) is not read: JSON stays strict. Dict keys that
    are an int, finite float, bool or None become their JSON text, as in a call written as a Python dict
    (:func:`~toolwire.parsing._scan.to_jsonable` with ``scalar_keys``); a value JSON cannot carry is named in the
    error.
    """
    if not looks_pythonic(text):
        return None
    try:
        node = parse_expr(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        if isinstance(exc, RecursionError) or "too many nested" in str(exc):  # (CPython's parser stops at 200)
            raise ToolCallParseError(f"{TOO_DEEP} such as {EXAMPLE}.", raw) from None  # (review 75: read on as
        if "Exceeds the limit" in str(exc):  # an int too long to write as text, in any base (review 253 #1)
            raise ToolCallParseError(TOO_MANY_DIGITS.replace("in the call", "in the arguments"), raw) from None
        return None  # JSON, the error then named a JSON syntax fault)
    if not isinstance(node, ast.Dict):
        return None
    try:  # a key given twice: refused as in JSON, not the last value kept (review 215 #1)
        refuse_repeated_literal_keys(node)
    except RepeatedKey as exc:
        raise ToolCallParseError(exc.msg, raw) from None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    try:  # an int, float, bool or None dict key as its JSON text, as a call written as a Python dict reads it
        return to_jsonable(value, scalar_keys=True)  # type: ignore[no-any-return]  # (review 269 #4)
    except NestedTooDeep:
        raise ToolCallParseError(f"{TOO_DEEP} such as {EXAMPLE}.", raw) from None
    except ValueError as exc:  # a set, a tuple key, two keys of one text: named, with the pythonic reader's advice
        raise ToolCallParseError(
            f"The arguments hold {exc}, which JSON cannot carry; {NOT_JSON_ADVICE} in a JSON object such as "
            f"{EXAMPLE}.", raw) from None


# ----------------------------------------------------------------------------------------- schema rules



def _wrapper_inner(args: Mapping[str, Any], props: Mapping[str, Any]) -> Any:
    if len(args) != 2 or not isinstance(args.get("name"), str) or "name" in props:
        return None
    for key in _ARG_KEYS:
        if key in args and key not in props and isinstance(args[key], dict | str):
            return args[key]
    return None


def _same_tool(written: str, name: str) -> bool:
    """Whether ``written``, the name in a ``{"name", "arguments"}`` wrapper, is the tool ``name`` spelled another
    way: ``getWeather``, ``get-weather``, ``"get_weather "`` or ``functions.get_weather`` for ``get_weather``."""
    from toolwire.parsing._calls import name_key  # not at the top: _calls imports this module

    key = name_key(written.strip().removeprefix("functions."))
    return written == name or (bool(key) and key == name_key(name))


def _apply_schema(args: dict[str, Any], schema: Mapping[str, Any], root: Mapping[str, Any],
                  depth: int, tool_name: str | None = None) -> dict[str, Any]:
    props = schema.get("properties")
    if not isinstance(props, Mapping) or depth > _MAX_SCHEMA_DEPTH:
        return args
    if depth == 0:
        inner = _wrapper_inner(args, props)
        if inner is not None:
            if tool_name is not None and not _same_tool(args["name"], tool_name):
                raise ToolCallParseError(f"The arguments are a call of another tool, '{args['name']}'; send this "
                                         f"tool's own arguments, or call '{args['name']}' by its name.", args)
            args = normalize_arguments(inner)
    out = args
    for key, value in args.items():
        prop = _resolve(props.get(key), root)
        if not isinstance(prop, Mapping):
            continue
        new = value
        if isinstance(value, str) and (kinds := _decode_kinds(prop, root)):
            try:
                new = _decoded(value, kinds)
            except RepeatedKey as exc:  # (review 151 #6: was kept as text, then refused as "not a dictionary")
                raise ToolCallParseError(repeated_key_error(key, exc), args) from None
        if isinstance(new, dict):
            new = _apply_schema(new, prop, root, depth + 1)
        elif isinstance(new, list) and isinstance(items := _resolve(prop.get("items"), root), Mapping):
            new = [_apply_schema(v, items, root, depth + 1) if isinstance(v, dict) else v for v in new]
            if isinstance(value, list) and all(a is b for a, b in zip(new, value, strict=True)):
                new = value
        if new is not value:
            if out is args:
                out = dict(args)
            out[key] = new
    return out


# ------------------------------------------------------------------------------------- call wrappers


def raw_text(value: Any) -> str | None:
    """Return the argument text of ``value`` to keep on an InvalidToolCall: strings and None as is, others as JSON."""
    if value is None or isinstance(value, str):
        return value
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        return safe_text(value)  # (its repr, or "<dict>" for one nested too deeply for repr too: review 101)
    return text if fix_surrogates(text) is text else json.dumps(value, default=repr)  # lone surrogates escaped


class CallParts(NamedTuple):
    """The pieces of a call object: ``name``, raw ``args``, ``id``, the other keys (``extra``: those beside the
    name and the arguments that are not the call's own ``id``, ``type``, ``call_id`` or ``function``) and ``obj``
    (the object holding the name, the arguments and the ``extra`` keys)."""

    name: str
    args: Any
    id: Any
    extra: tuple[str, ...]
    obj: dict[str, Any]


def _inner_call(args: Any) -> tuple[str, Any] | None:
    """``(name, arguments)`` when ``args`` (a dict or JSON text) is itself a ``{"name", "arguments"}``."""
    if isinstance(args, str):
        text = args.strip()
        if not text.startswith("{"):
            return None
        try:
            args = _DECODER.decode(text)
        except (json.JSONDecodeError, RecursionError):
            return None
    if not isinstance(args, dict) or not isinstance(args.get("name"), str) or not args["name"].strip():
        return None
    for key in _ARG_KEYS:
        if key in args:
            return args["name"].strip(), args[key]
    return None


def call_parts(obj: Any) -> CallParts | None:
    """Return the :class:`CallParts` of a call object ``obj``; ``None`` when ``obj`` is not a dict with a name.

    Accepted shapes: ``{"name", "arguments"}``, ``{"name", "parameters"}`` (Llama 3), OpenAI's
    ``{"id", "type": "function", "function": {"name", "arguments"}}``, and a call with an empty name whose
    arguments wrap ``{"name", "arguments"}`` (seen from some servers), which yields the inner call. In OpenAI's
    shape, the keys written beside ``"function"`` (other than ``id``, ``type``, ``call_id`` and ``index``, the
    wrapper's own) count as keys beside the arguments too: they are in ``extra``, and ``obj`` is the
    ``"function"`` object with them added (a key the ``"function"`` object has itself keeps its value there).
    """
    if not isinstance(obj, dict):
        return None
    call_id = obj.get("id") if isinstance(obj.get("id"), str) else None
    fn = obj.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
        outer = [k for k in obj if k not in _WRAPPER_KEYS and k not in fn]
        obj = {**fn, **{k: obj[k] for k in outer}} if outer else fn  # {"function": {...}, "unit": "F"} (review 151 #2)
    name = obj.get("name")
    if not isinstance(name, str):
        return None
    key = next((k for k in _ARG_KEYS if k in obj), None)
    args = obj[key] if key else None
    extra = tuple(k for k in obj if k not in ("name", "id", "type", "call_id", "function", key))
    name = name.strip()
    if not name:
        inner = _inner_call(args)
        if inner is not None:
            name, args = inner
    return CallParts(name, args, call_id, extra, obj)


def unwrap_call(obj: Any) -> tuple[str, Any]:
    """Return ``(name, args_raw)`` from a call wrapper.

    Args:
        obj: a dict (or JSON object text) ``{"name": ..., "arguments": ...}``; ``"parameters"`` is
            accepted for ``"arguments"`` (Llama 3), OpenAI's ``{"function": {...}}`` form too. A call whose
            name is empty and whose arguments wrap ``{"name", "arguments"}`` gives the inner name and
            arguments.

    Returns:
        ``(name, args_raw)``: ``args_raw`` as found (a dict, a string, or ``None`` when absent);
        pass it to :func:`normalize_arguments`.

    Raises:
        ToolCallParseError: ``obj`` is not an object with a string ``"name"``.
    """
    if isinstance(obj, str | bytes | bytearray):
        obj = normalize_arguments(obj)
    parts = call_parts(obj)
    if parts is None:
        raise ToolCallParseError(
            'A tool call must be an object such as {"name": "get_weather", "arguments": {"city": "Paris"}}.',
            obj,
        )
    return parts.name, parts.args


def no_name_error(tool_names: Collection[str] | None) -> str:
    """Return the error sentence for a tool call that has no name.

    Args:
        tool_names: the bound tool names, listed in the sentence; ``None`` when they are not known where
            the call is read (then the sentence says nothing about which tools exist).
    """
    if tool_names is None:
        return "The tool call has no name; send it again with the name of the tool to call."
    names = sorted({n for n in ((tool_names,) if isinstance(tool_names, str) else tool_names) if isinstance(n, str)})
    if not names:
        return "The tool call has no name, and no tools are available, so answer in plain text."
    return f"The tool call has no name; call one of the available tools: {', '.join(names)}."


def tool_call_from_native(
    name: str | None,
    arguments: Any,
    id: str | None = None,
    *,
    tool_names: Collection[str] | None = None,
    schema: Mapping[str, Any] | None = None,
    require_name: bool = False,
) -> ToolCall | InvalidToolCall:
    """Build a call record from a provider's native tool call (OpenAI-style name + arguments).

    Args:
        name: the function name the provider sent (may be empty or ``None``).
        arguments: the arguments as sent: a JSON string, a dict, ``None``/``""`` (see
            :func:`normalize_arguments`).
        id: the provider's call id; a unique one is generated when missing.
        tool_names: the bound tool names; when given, an empty name makes an invalid call whose error
            lists them (see :func:`no_name_error`). An unknown name is *not* invalid here (the executor
            answers it, listing the available tools).
        schema: the tool's JSON Schema, passed to :func:`normalize_arguments` with ``name`` as its ``tool_name``
            (arguments that wrap a call of another tool make an invalid call).
        require_name: make an empty name an invalid call even when ``tool_names`` is not given (the
            error then names no tools: they are not known here).

    Returns:
        A :class:`~toolwire.messages.ToolCall`, or an :class:`~toolwire.messages.InvalidToolCall` that keeps
        the raw argument text when the arguments cannot be read (or the name is empty, see above). A call
        with an empty name whose arguments wrap ``{"name", "arguments"}`` is read as the inner call.
    """
    name = (name or "").strip() if isinstance(name, str | None) else str(name)
    if not name:
        inner = _inner_call(arguments)
        if inner is not None:
            name, arguments = inner
    try:
        args = normalize_arguments(arguments, schema, tool_name=name or None)
    except ToolCallParseError as exc:
        return invalid_tool_call(name or None, raw_text(arguments), id, str(exc))
    if not name:
        if tool_names is not None or require_name:
            return invalid_tool_call(None, raw_text(arguments), id, no_name_error(tool_names))
        return tool_call(name, args, id)
    if schema is None:
        inner = _inner_call(args)
        if inner is not None and _same_tool(inner[0], name) and len(args) == 2:
            # not a wrapper after all when the inner part is no object (a tool with arguments ``name`` and
            # ``parameters``, say): the call is read as sent
            with contextlib.suppress(ToolCallParseError):
                args = normalize_arguments(inner[1])
    return tool_call(name, args, id)
