"""Reading a reply of the embedded model into its text, its tool calls and its invalid calls.

:class:`~toolwire.models.llamacpp.ChatLlamaCpp` generates a reply in two parts: ``head``, the text before a
call starts (streamed as it is generated), and ``call_text``, from the call's opening on (constrained by
the grammar, then read with the dialect's parser). :func:`read_reply` turns them into the message, and no
generated text but a cut call's wrapper is lost on the way (all of it is in ``provider_data["llamacpp"]["text"]``):

* text the parser leaves around the calls is content, after the head;
* a reply cut off by ``max_tokens`` inside a call reports that call as an
  :class:`~toolwire.messages.InvalidToolCall` whose ``args`` is its raw argument text (all of the call's text
  when its arguments had not started: review 267 #2), with the error the hosted providers'
  cut-off calls get (:data:`~toolwire.models.lowering._calls.CUT_OFF`: send shorter arguments, or raise
  ``max_tokens``; the model has no room to send the whole call again: review 184 #2), or :data:`WINDOW_CUT` where
  the context window ran out; also when it was cut before the parser could tell it is a call
  (``{"name": "get_weather", "`` or ``[get_weather(city``); text the parser took along before it (a code fence's
  opening) stays content.

Also here: the ``stop`` strings of a request (:func:`stop_list`, :func:`find_stop`) and the part of a streamed
reply not shown yet (:func:`visible_part`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from toolwire.messages import InvalidToolCall, ToolCall, invalid_tool_call
from toolwire.models._cut_args import argument_text
from toolwire.models.dialects import parse_reply
from toolwire.models.lowering._calls import CUT_OFF
from toolwire.models.openers import OpenerScanner
from toolwire.parsing._calls import name_key
from toolwire.parsing.pythonic import PythonNames
from toolwire.tools import ToolSpec

__all__ = ["WINDOW_CUT", "ReadReply", "cut_call", "find_stop", "read_reply", "stop_list", "visible_part"]

WINDOW_CUT = ("The call's arguments were cut off before they were complete because the model's context window (n_ctx) "
              "ran out, so it was not run: send the call again with shorter arguments; to leave more room, shorten the "
              "conversation (fewer or shorter messages and tool results) or pass a larger n_ctx.")
"""The error of a call the embedded model's reply ended on where its context window ran out (``response_metadata``
``context_full``): a higher ``max_tokens`` cannot help there, as with Anthropic's
:data:`~toolwire.models.lowering._anthropic_replies.WINDOW_CUT`. Its instruction opens a clause ("send the call
again"), so the Agent's error result adds no second one (``execution._says_send``)."""
_PYTHON_NAME = re.compile(r"\s*(?:```[^\n]*\n)?\s*\[?\s*['\"]?([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)")
_JSON_NAME = re.compile(r'"name"\s*:\s*"([^"\\]*)"')


@dataclasses.dataclass(slots=True)
class ReadReply:
    """A reply's content, calls and invalid calls (see :func:`read_reply`)."""

    content: str
    tool_calls: list[ToolCall]
    invalid_tool_calls: list[InvalidToolCall]


def read_reply(head: str, call_text: str, tools: Sequence[ToolSpec], formats: Sequence[str], fmt: str | None, *,
               cut: bool | str) -> ReadReply:
    """Read a generated reply.

    Args:
        head: the text before the call's opening (all of the reply when no call started).
        call_text: the text from the call's opening on.
        tools: the tools offered.
        formats: the dialect's call formats, the primary one first.
        fmt: the format of the call's opening (None: no call started).
        cut: what cut the reply off (``finish_reason`` ``"length"``): ``True`` or ``"max_tokens"``, its token
            limit; ``"n_ctx"``, the context window; False: it was not cut. The call it ended inside gets
            :data:`~toolwire.models.lowering._calls.CUT_OFF`, or :data:`WINDOW_CUT` for ``"n_ctx"``.

    Returns:
        The content (starting with ``head.strip()``, the text already streamed), the calls and the invalid
        calls.
    """
    shown = head.strip()
    if fmt is None:
        return ReadReply(shown, [], [])
    reply = parse_reply(call_text, tools, fmt)
    for other in formats:  # unconstrained (grammar=False) replies may use another format
        if reply.tool_calls or reply.invalid_tool_calls or other == fmt:
            continue
        reply = parse_reply(call_text, tools, other)
    calls, invalid, rest = list(reply.tool_calls), list(reply.invalid_tool_calls), reply.content
    error = WINDOW_CUT if cut == "n_ctx" else CUT_OFF
    if cut and not invalid and rest:
        bad = cut_call(rest, tools, (fmt, *formats), error)
        if bad is not None:
            invalid.append(bad)
            rest = ""
    elif cut and invalid:
        if not calls and not rest:  # (where the call's raw text starts: before _as_cut keeps its arguments alone)
            at = call_text.find(invalid[0]["args"] or "\0")
            rest = call_text[:at].strip() if at > 0 else ""
        invalid = [_as_cut(bad, call_text, error) for bad in invalid]
    if not shown or not rest:
        content = shown or rest
    elif not calls and not invalid and rest == call_text.strip():
        content = (head + call_text).strip()  # nothing was read as a call: the text as generated
    else:
        content = f"{shown}\n{rest}"
    return ReadReply(content, calls, invalid)


def _as_cut(bad: InvalidToolCall, call_text: str, error: str) -> InvalidToolCall:
    """``bad``, an invalid call the parser read in a reply that was cut off, with ``error`` when it is the call the
    reply ended inside: its raw text runs to the reply's end, or the parser's error says it is cut off (the
    parser's own advice, to send the whole call again, is what the model has no room to do: review 184 #2). That
    call's ``args`` become its argument text (:func:`~toolwire.models._cut_args.argument_text`: review 267 #2)."""
    raw = (bad.get("args") or "").strip()
    at_end = bool(raw) and call_text.rstrip().endswith(raw)
    if at_end or "cut off" in (bad.get("error") or ""):
        args = argument_text(raw) if raw else bad.get("args")
        return {**bad, "args": args, "error": error}  # type: ignore[typeddict-item]
    return bad


def cut_call(text: str, tools: Sequence[ToolSpec], formats: Sequence[str],
             error: str = CUT_OFF) -> InvalidToolCall | None:
    """The InvalidToolCall of a call cut off in ``text`` (the reply from the call's opening on), or None when
    ``text`` does not start like a call in any of ``formats`` (to a bound tool).

    The name is the bound tool's when the text names one in full, else None; ``args`` is the call's argument text
    (:func:`~toolwire.models._cut_args.argument_text`: what follows ``"arguments":``, ``<function=NAME>`` or the
    Python call's parenthesis; all of ``text``, stripped, when the arguments had not started: review 267 #2); the
    error is ``error`` (:data:`~toolwire.models.lowering._calls.CUT_OFF` by default, the hosted providers' sentence).
    """
    names = [t.name for t in tools]
    fmt = next((f for f in formats if OpenerScanner((f,), names).opens(text, 0)), None)
    if fmt is None:
        return None
    if fmt == "pythonic":
        spelling = PythonNames(names)
        found = _PYTHON_NAME.match(text)
        written = re.sub(r"\s", "", found.group(1)) if found else ""
        name = next((n for n in names if spelling.tool(n) == written), None) or next(
            (n for n in names if name_key(spelling.tool(n)) == name_key(written)), None)
    else:
        found = _JSON_NAME.search(text)
        written = found.group(1) if found else ""
        name = next((n for n in names if n == written), None) or next(
            (n for n in names if name_key(n) == name_key(written)), None)
    return invalid_tool_call(name, argument_text(text), error=error)


def stop_list(stop: Any) -> list[str]:
    """The stop strings of the ``stop`` option (a string, a list of them, or None), empty ones left out."""
    if not stop:
        return []
    return [stop] if isinstance(stop, str) else [s for s in stop if s]


def find_stop(text: str, stops: Sequence[str]) -> int:
    """Where the first of ``stops`` starts in ``text``; -1 when none is there."""
    cuts = [at for s in stops if (at := text.find(s)) >= 0]
    return min(cuts) if cuts else -1


def visible_part(text: str, shown: int, end: int) -> str:
    """The part of ``text[:end]`` not shown yet, skipping the reply's leading whitespace."""
    lead = len(text) - len(text.lstrip())
    start = max(shown, lead)
    return text[start:end] if end > start else ""
