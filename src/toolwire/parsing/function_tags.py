"""Tool calls written as ``<function=NAME>`` tags: Qwen3-Coder's XML parameters and Llama 3.1's JSON body.

Format sources:

* Qwen3-Coder's chat template (``Qwen/Qwen3-Coder-*`` on Hugging Face; llama.cpp's
  ``COMMON_CHAT_FORMAT_QWEN3_CODER_XML``, vLLM's ``qwen3_coder`` / ``qwen3_xml`` tool parsers): one block
  per call, ``<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n...</function>\\n</tool_call>``.
  A value is raw text, not JSON: the template writes strings as they are and other values as JSON, and
  drops one newline after ``<parameter=KEY>`` and one before ``</parameter>`` (so do the parsers above).
* Meta's Llama 3.1 prompt format ("custom tools" answered as ``<function=NAME>{"arg": ...}</function>``),
  also written by Functionary v3.1: the body is a JSON object of arguments.

A raw value is typed with the bound tool's JSON Schema when it is known (a ``{name: parameters}`` mapping
as ``tool_names``): a property that admits a string keeps the text; one that wants a number, a boolean,
null, an object or an array gets the value the text holds as JSON (or, for an object or array, as a Python
literal, read with :func:`ast.literal_eval`, never evaluated), and keeps the text when it holds none, so
that the tool's validation reports the wrong type to the model. With names only, every value stays text
(as vLLM does); :func:`toolwire.parsing.normalize_arguments` and the tool's pydantic validation convert
``"3"`` to ``3`` for an integer parameter when the call runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from toolwire.parsing._calls import Collector, ParsedReply
from toolwire.parsing._scan import DecodeFailure, _literal, decode_value_at, skip_ws
from toolwire.parsing.arguments import _wanted_kinds

__all__ = ["FUNCTION_TAG", "parse_function_tags", "read_function_tag"]

FUNCTION_TAG = "<function="
FUNCTION_CLOSE = "</function>"
PARAMETER_TAG = "<parameter="
PARAMETER_CLOSE = "</parameter>"
_WRAP_OPEN = "<tool_call>"
_WRAP_CLOSE = "</tool_call>"
_NAME = re.compile(r"""\s*["']?([A-Za-z_][\w.\-]{0,199})["']?\s*>""")
_KEY = re.compile(r"""\s*["']?([^\s<>="']{1,200})["']?\s*>""")
_DECODER = json.JSONDecoder()
_EXAMPLE = (f"{FUNCTION_TAG}tool_name>\\n{PARAMETER_TAG}name>\\nvalue\\n{PARAMETER_CLOSE}\\n{FUNCTION_CLOSE}")


def parse_function_tags(text: str, tool_names: Collection[str] | Mapping[str, Any]) -> ParsedReply:
    """Find the ``<function=NAME>...</function>`` calls in a model's text reply.

    Args:
        text: the model's reply.
        tool_names: the bound tool names, or a mapping ``{name: parameters JSON Schema or None}`` whose
            schemas type the raw parameter values (see the module docstring).

    Returns:
        A :class:`~toolwire.parsing.ParsedReply`. Every ``<function=NAME>`` tag that opens a body of
        ``<parameter=...>`` tags or a JSON object is call syntax (removed from the content, with a
        ``<tool_call>`` / ``</tool_call>`` pair around it): a bound name gives a ToolCall; an unknown
        name, a parameter given twice, a value or body cut off before its closing tag (a reply that hit
        its token limit), or a body that is neither gives an InvalidToolCall keeping the raw text. A
        missing ``</parameter>`` before the next ``<parameter=`` or ``</function>`` is tolerated, as is a
        missing ``</function>`` after a complete body. A tag followed by prose and never closed (the
        format named in a sentence) stays text.
    """
    collector = Collector(tool_names)
    schemas = tool_names if isinstance(tool_names, Mapping) else {}
    pos = 0
    while (start := text.find(FUNCTION_TAG, pos)) >= 0:
        end = read_function_tag(collector, text, start, schemas)
        if end is None:  # the tag named in prose, not a call
            pos = start + len(FUNCTION_TAG)
            continue
        collector.add_span(_wrap_start(text, start), _wrap_end(text, end))
        pos = end
    return collector.result(text)


def read_function_tag(collector: Collector, text: str, start: int, schemas: Mapping[str, Any]) -> int | None:
    """Record the call whose ``<function=NAME>`` tag is at ``text[start]``.

    Args:
        collector: where the call (or invalid call) goes.
        text: the reply.
        start: the index of ``<function=``.
        schemas: ``{tool name: parameters JSON Schema}`` for typing raw values (may be empty).

    Returns:
        The end of the call's text (past its ``</function>``, or where the next ``<function=`` tag or the
        text begins or ends when it has none), or ``None`` when the tag opens no call (it stays text).
    """
    head = _NAME.match(text, start + len(FUNCTION_TAG))
    if head is None:
        return None
    body = head.end()
    following = text.find(FUNCTION_TAG, body)
    limit = following if following >= 0 else len(text)
    close = text.find(FUNCTION_CLOSE, body, limit)
    stop = close if close >= 0 else limit
    end = close + len(FUNCTION_CLOSE) if close >= 0 else limit
    first = skip_ws(text, body)
    name = head.group(1)
    if text.startswith("{", first):  # read by JSON boundaries: a tag inside a string value does no harm
        try:
            value, after = decode_value_at(text, first)
        except DecodeFailure as failure:
            collector.add_invalid(collector.resolve(name) or name, text[start:end].strip(),
                                  f"{failure.message} Send the whole tool call again, its arguments one JSON object.")
            return end
        j = skip_ws(text, after)
        end = j + len(FUNCTION_CLOSE) if text.startswith(FUNCTION_CLOSE, j) else after
        collector.add_object({"name": name, "arguments": value}, text[start:end].strip(), marked=True)
        return end
    raw = text[start:end].strip()
    if text.startswith(PARAMETER_TAG, first) or (close >= 0 and not text[body:close].strip()):
        _parameters(collector, text[body:stop], close >= 0, name, raw, schemas)
    elif close >= 0:
        collector.add_invalid(collector.resolve(name) or name, raw,
                              f"The call's body is neither {PARAMETER_TAG}...> tags nor a JSON object; "
                              f"write {_EXAMPLE}.")
    else:
        return None
    return end


def _parameters(collector: Collector, body: str, closed: bool, name: str, raw: str,
                schemas: Mapping[str, Any]) -> None:
    """Record the call whose arguments are the ``<parameter=KEY>VALUE</parameter>`` tags in ``body``."""
    resolved = collector.resolve(name)
    if resolved is None:
        collector.add_invalid(name, raw, collector.unknown_error(name))
        return
    schema = schemas.get(resolved) if isinstance(schemas.get(resolved), Mapping) else None
    args: dict[str, Any] = {}
    pos = 0
    while (at := body.find(PARAMETER_TAG, pos)) >= 0:
        key = _KEY.match(body, at + len(PARAMETER_TAG))
        if key is None:
            collector.add_invalid(resolved, raw, f"A {PARAMETER_TAG} tag has no readable name; write {_EXAMPLE}.")
            return
        start = key.end()
        ends = [i for i in (body.find(PARAMETER_CLOSE, start), body.find(PARAMETER_TAG, start)) if i >= 0]
        value_end = min(ends) if ends else len(body)
        if not ends and not closed:
            collector.add_invalid(resolved, raw, f"The value of {key.group(1)!r} was cut off before its "
                                  f"{PARAMETER_CLOSE}; send the whole tool call again.")
            return
        if key.group(1) in args:
            collector.add_invalid(resolved, raw, f"Parameter {key.group(1)!r} is given twice; give each "
                                  "parameter once.")
            return
        value = body[start:value_end].removeprefix("\n").removesuffix("\n")
        args[key.group(1)] = _typed(value, key.group(1), schema)
        pos = value_end + (len(PARAMETER_CLOSE) if body.startswith(PARAMETER_CLOSE, value_end) else 0)
    collector.add_call(resolved, args, raw=raw)


def _typed(value: str, key: str, schema: Mapping[str, Any] | None) -> Any:
    """``value`` typed by property ``key`` of ``schema``: text when it admits a string or is unknown."""
    props = schema.get("properties") if schema is not None else None
    if not isinstance(props, Mapping) or key not in props:
        return value
    kinds = _wanted_kinds(props[key], schema)  # type: ignore[arg-type]
    if not kinds or "string" in kinds:
        return value
    text = value.strip()
    try:
        decoded = _DECODER.decode(text)
    except (json.JSONDecodeError, RecursionError):
        decoded = _literal(text) if text[:1] in "[{(" else None
        if decoded is None:
            lowered = text.lower()
            if "boolean" in kinds and lowered in ("true", "false"):
                return lowered == "true"
            if "null" in kinds and lowered in ("none", "null"):
                return None
            return value
    return decoded if _fits(decoded, kinds) else value


def _fits(value: Any, kinds: set[str]) -> bool:
    """Whether a decoded value is of one of the JSON types ``kinds``."""
    if isinstance(value, bool):
        return "boolean" in kinds
    if isinstance(value, int):
        return bool(kinds & {"integer", "number"})
    if isinstance(value, float):
        return "number" in kinds or ("integer" in kinds and value.is_integer())
    if value is None:
        return "null" in kinds
    if isinstance(value, dict):
        return "object" in kinds
    if isinstance(value, list):
        return "array" in kinds
    return False


def _wrap_start(text: str, start: int) -> int:
    """``start``, or the start of a ``<tool_call>`` tag right before it (whitespace between)."""
    before = text[:start].rstrip()
    return len(before) - len(_WRAP_OPEN) if before.endswith(_WRAP_OPEN) else start


def _wrap_end(text: str, end: int) -> int:
    """``end``, or the end of a ``</tool_call>`` tag right after it (whitespace between)."""
    after = skip_ws(text, end)
    return after + len(_WRAP_CLOSE) if text.startswith(_WRAP_CLOSE, after) else end
