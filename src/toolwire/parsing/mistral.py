"""The Mistral tool-call format: ``[TOOL_CALLS]`` followed by the calls.

Format source: Mistral's tokenizer versions (mistral-common). v2/v3 (Mistral 7B v0.3, Mixtral 8x22B):
``[TOOL_CALLS] [{"name": ..., "arguments": {...}, "id": "abc123def"}, ...]``. v11+ (Mistral Small 3.x,
Mistral Large 2411+): ``[TOOL_CALLS]name[ARGS]{json}`` per call, sometimes ``[TOOL_CALLS]name{json}``,
and ``[TOOL_CALLS]name[CALL_ID]id[ARGS]{json}``; several calls follow one another.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Collection

from toolwire.parsing._calls import Collector, ParsedReply, add_broken, add_value
from toolwire.parsing._scan import DecodeFailure, decode_value_at, skip_ws
from toolwire.parsing.arguments import normalize_arguments

__all__ = ["MARKER", "parse_mistral"]

MARKER = "[TOOL_CALLS]"
# a tool name: any name toolwire takes (``NAME_RE``, which lets one start with a digit or ``-``: review 178 #4), dotted
_NAME = re.compile(r"([\w\-][\w.\-]*)\s*(?:\[CALL_ID\]\s*([\w\-]+)\s*)?(\[ARGS\])?\s*")
_NO_CALL = (f"{MARKER} must be followed by the calls, such as "
            f'{MARKER}[{{"name": "tool_name", "arguments": {{...}}}}].')


def parse_mistral(text: str, tool_names: Collection[str]) -> ParsedReply:
    """Find Mistral ``[TOOL_CALLS]`` calls in a model's text reply.

    Args:
        text: the model's reply.
        tool_names: the bound tool names.

    Returns:
        A :class:`~toolwire.parsing.ParsedReply`. Everything read after a marker is call syntax: bound
        names give ToolCalls (a model-sent ``"id"`` is kept when unique), unknown names and cut-off or
        malformed JSON give InvalidToolCalls that keep the raw text; a marker with nothing after it (cut
        off) is an InvalidToolCall too, and so is ``name[ARGS]`` followed by nothing or by anything other than a
        JSON object (text that is not JSON, a string, an array: up to the end of its JSON value or line). Text
        after the calls stays content, and a marker followed by prose (named in a sentence) stays text.
    """
    return collect_mistral(text, tool_names).result(text)


def collect_mistral(text: str, tool_names: Collection[str]) -> Collector:
    """:func:`parse_mistral`' reading: the :class:`Collector` with the calls and the spans of their syntax."""
    from toolwire.errors import ToolCallParseError

    collector = Collector(tool_names)
    n = len(text)
    pos = 0
    while True:
        start = text.find(MARKER, pos)
        if start < 0:
            break
        nxt = text.find(MARKER, start + len(MARKER))
        limit = nxt if nxt >= 0 else n
        j = skip_ws(text, start + len(MARKER))
        if j < n and text[j] in "[{":
            try:
                value, end = decode_value_at(text, j)
            except DecodeFailure as failure:
                end = add_broken(collector, text, j, limit, failure, marked=True)
                end = limit if end is None else end
            else:
                add_value(collector, value, text[j:end], marked=True)
            collector.add_span(start, end)
            pos = end
            continue
        end = last = j
        count = 0
        while True:  # name[ARGS]{...} name{...} ...
            m = _NAME.match(text, last)
            if m is not None and m.group(3) and (m.end() >= limit or text[m.end()] != "{"):
                end = _not_object(collector, text, m, limit)  # [ARGS] is call syntax, never prose
                last = skip_ws(text, end)
                count += 1
                continue
            if m is None or m.end() >= n or text[m.end()] != "{":
                break
            name, call_id = m.group(1), m.group(2)
            k = m.end()
            try:
                args, end = decode_value_at(text, k)
            except DecodeFailure as failure:
                end = last = limit
                raw = text[k:limit].strip()
                collector.add_invalid(name, raw, f"{failure.message} Send the complete arguments of {name} "
                                                 'as one JSON object such as {"param": "value"}.', call_id)
                count += 1
                break
            count += 1
            name = collector.resolve(name) or name
            if name not in collector.names:
                collector.add_invalid(name, text[k:end], collector.unknown_error(name), call_id)
            else:
                try:
                    collector.add_call(name, normalize_arguments(args), call_id)
                except ToolCallParseError as exc:
                    collector.add_invalid(name, text[k:end], str(exc), call_id)
            last = skip_ws(text, end)
        if count == 0:
            end = text.find("\n", j, limit)
            end = limit if end < 0 else end
            if text[j:end].strip():  # the marker named in prose, not a call
                pos = start + len(MARKER)
                continue
            collector.add_invalid(None, "", _NO_CALL)
        collector.add_span(start, end)
        pos = max(end, start + len(MARKER))
    return collector


def _not_object(collector: Collector, text: str, m: re.Match[str], limit: int) -> int:
    """Record the call ``name[ARGS]`` matched by ``m`` whose arguments are not a JSON object (or are missing);
    return the end of its text: past its JSON value, else at the end of its line (or at ``limit``)."""
    from toolwire.errors import ToolCallParseError

    name, call_id, k = m.group(1), m.group(2), m.end()
    end = text.find("\n", k, limit)
    end = limit if end < 0 else end
    if k < end:
        with contextlib.suppress(DecodeFailure):
            end = min(decode_value_at(text, k)[1], limit)
    raw = text[k:end].strip()
    resolved = collector.resolve(name) or name
    if resolved not in collector.names:
        collector.add_invalid(resolved, raw, collector.unknown_error(resolved), call_id)
        return end
    if not raw:
        collector.add_invalid(resolved, raw, f"The call to {name} ends right after [ARGS] (it looks cut off); send its "
                                             'arguments after [ARGS] as one JSON object such as {"param": "value"}.',
                              call_id)
        return end
    try:
        args = normalize_arguments(raw)
    except ToolCallParseError as exc:
        collector.add_invalid(resolved, raw, str(exc), call_id)
    else:  # (null: no arguments)
        collector.add_call(resolved, args, call_id)
    return end
