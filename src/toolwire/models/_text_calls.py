"""Tool calls that an OpenAI-compatible server left in the reply's text.

A server whose tool-call parser does not know the model's call format (vLLM or SGLang with the parser of another
model family, llama-cpp-python's server without a ``--chat_format``) sends the calls as text. (vLLM started without
``--enable-auto-tool-choice --tool-call-parser`` and llama.cpp's server without ``--jinja`` do not: they refuse every
request with tools, and the error names the flag to start them with: review 177 #1.)
:class:`ChatOpenAI <toolwire.models.openai.ChatOpenAI>` reads them, the same way in ``invoke`` and in ``stream``,
only where a line *starts* with call syntax (after spaces):

* ``<tool_call>`` blocks (Hermes, Qwen; Qwen3-Coder's ``<function=NAME>`` tags inside them too),
  ``[TOOL_CALLS]`` (Mistral), ``<|python_tag|>`` (Llama 3), ``<function=NAME>`` (Llama 3.1, Qwen3-Coder): read
  in that format;
* a JSON call object or a list of them, bare or in a ```` ``` ```` / ```` ```json ```` fence;
* a Python list of calls, ``[get_weather(city="Oslo")]``, bare or in a ```` ```python ```` fence (just
  that list: a call inside other code or inside prose, ``result = f(x)``, is not a call).

Only bound tool names make a call (:func:`~toolwire.parsing.parse_tool_calls`); the first such line that
holds one is where the calls start. The prose before it is the reply's text; the text the parser leaves
after marked calls follows, after a blank line. JSON calls and Python call lists carry no marker, so they are
calls only where they end the reply (nothing but whitespace, a closing fence or an end-of-turn token a server
left in after them, :data:`_FENCE_ONLY`): followed by more text ("...but I will not run it.", "Please confirm
first."), they are an example the reply shows, and stay text, since running them could do what the model
declined to do. Finding where such calls start takes time about linear in the reply's length (review 62).

A stream shows the text as it comes until a line starts with ``<``, ``{``, ``[``, a backtick or ``~``; from there
it is held back until the reply ends, then sent as the calls (and the text left), or as text when it holds
none. A reply with native ``tool_calls`` is never read again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from itertools import chain
from typing import Any

from toolwire.messages import AIMessage, AIMessageChunk, invalid_tool_call
from toolwire.models._cut_args import cut_arguments
from toolwire.models.lowering._calls import read_as_cut
from toolwire.models.lowering._common import native_call, split_calls
from toolwire.parsing import parse_tool_calls
from toolwire.parsing._calls import name_key
from toolwire.parsing._decode_at import TOO_MANY_DIGITS
from toolwire.parsing._json_suffixes import JsonSuffixes
from toolwire.parsing._scan import (
    DEEP,
    EOF,
    DecodeFailure,
    decode_value_at,
    forget_spans,
    hold_spans,
    python_span_end,
    skip_ws,
)

__all__ = ["METADATA_KEY", "TextCallStream", "read_text_calls", "with_text_calls"]

METADATA_KEY = "tool_calls_from_text"
"""``response_metadata`` key set to True on a reply whose calls were read from its text."""

_MAYBE = re.compile(r"(?m)^[ \t]*[<{\[`~]")
"""A line that may open a call (the stream holds text back from the first one)."""

_MAYBE_HERE = re.compile(r"[ \t]*[<{\[`~]")

_CALL_LINE = re.compile(
    r"(?m)^[ \t]*(?:"
    r"(?P<hermes><tool_call>)|(?P<mistral>\[TOOL_CALLS\])|(?P<tag><\|python_tag\|>)|(?P<function><function=)"
    r"|(?:```(?:json)?[ \t]*\n\s*)?(?P<json>\{|\[\s*\{)"
    r"|(?:```(?:python|py)?[ \t]*\n\s*)?(?P<py>\[)\s*(?P<name>[A-Za-z_][\w.\-]*)\s*\("
    r")")
"""A line that starts with call syntax; the group that matched names the format."""

_LONE_CLOSE_OR_FENCE = re.compile(
    r"(?m)(?P<close>^[ \t]*</think>[ \t]*\r?$|</think>(?=[ \t]*(?:\r?\n[ \t]*\r?\n|\s*\Z)))"
    r"|^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
"""A ``</think>`` alone on its line, as the thinking templates write it (``\n</think>\n\n``), or one glued to the
reasoning's last sentence but followed by a blank line or the end (``...destructive.</think>\n\nAnswer``), or a code
fence line. One ending a prose line that goes on ("Qwen3 closes its reasoning with </think>\nand then answers") or
inside a JSON string (an argument that quotes the tag) is neither (review 202 #5)."""


def _lone_close(text: str) -> re.Match[str] | None:
    """The first ``</think>`` of ``text`` alone on its line (:data:`_LONE_CLOSE_OR_FENCE`) and outside a code
    block (a reply quoting the tag in a fence: review 202 #5); one in a fence that no later fence line closes
    counts (that fence opened no block). A fence line with an info string (```` ```json ````) opens a block; a
    bare one of the opening kind, at least as long, closes it.

    Returns:
        The tag's match, or None.
    """
    opened: re.Match[str] | None = None
    pending: re.Match[str] | None = None  # the first tag inside the open block (counts if the block never closes)
    for line in _LONE_CLOSE_OR_FENCE.finditer(text):
        if line.group("close") is not None:
            if opened is None:
                return line
            pending = pending or line
        elif opened is None:
            opened = line
        elif (not line.group("info").strip() and line.group("fence")[0] == opened.group("fence")[0]
              and len(line.group("fence")) >= len(opened.group("fence"))):
            opened = pending = None
    return pending


def _thinking_spans(text: str) -> list[tuple[int, int]]:
    """The reasoning blocks of ``text`` as ``(start, end)`` spans, in order: the text up to a first
    ``</think>`` alone on its line (:func:`_lone_close`) that no ``<think>`` opens (DeepSeek-R1's and the Qwen3
    thinking templates end the prompt with ``<think>``, so the reply holds only the closing tag: review 193 #1),
    then each ``<think>`` block (:func:`_think_blocks`)."""
    spans: list[tuple[int, int]] = []
    start = 0
    close = _lone_close(text) if "</think>" in text else None
    if close is not None and "<think>" not in text[:close.start()]:
        start = close.end()
        spans.append((0, start))
    return (spans + _think_blocks(text, start)) if "<think>" in text[start:] else spans


_THINK_TAG = re.compile("<think>")


def _free_mark(text: str) -> str | None:
    """A private-use character that ``text`` does not hold (to stand for a reasoning block while the rest is
    parsed), or None when it holds them all."""
    used = set(text)
    return next((chr(c) for c in chain(range(0xE000, 0xF900), range(0xF0000, 0xFFFFE)) if chr(c) not in used), None)


def _think_blocks(text: str, start: int, plain: Collection[int] = ()) -> list[tuple[int, int]]:
    """The reasoning blocks of ``text`` from ``start`` as ``(start, end)`` spans, in order: ``<think>`` to the
    next ``</think>`` (DeepSeek-R1, Qwen3, QwQ write ``<think>...</think>`` in the text when the server does not
    split it out: calls drafted there are not calls the model made); an unclosed block runs to the end. A
    ``<think>`` at a position in ``plain`` is text, not an opening tag (a later one may open a block)."""
    spans: list[tuple[int, int]] = []
    pos = start
    while (begin := text.find("<think>", pos)) >= 0:
        if begin in plain:
            pos = begin + len("<think>")
            continue
        close = text.find("</think>", begin + len("<think>"))
        pos = len(text) if close < 0 else close + len("</think>")
        spans.append((begin, pos))
    return spans


def _marks_in(value: Any, placed: re.Pattern[str]) -> set[int]:
    """The indices of the marks (``placed``) in ``value``'s strings (a call's name and arguments)."""
    found = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, str) else value
    return {int(m.group(1)) for m in placed.finditer(found)}


def _quoted_in(args: str, placed: re.Pattern[str]) -> set[int]:
    """The indices of the marks (``placed``) inside the closed JSON value that an invalid call's arguments text
    ``args`` starts (at its first ``{`` or ``[``: the object of an unknown tool's call, say), not those in a call
    cut off before it closes, which the parser ran on over the text after it."""
    begin = min((i for i in (args.find("{"), args.find("[")) if i >= 0), default=-1)
    if begin < 0:
        return set()
    try:
        stop = json.JSONDecoder().raw_decode(args, begin)[1]
    except ValueError:
        return set()
    return _marks_in(args[begin:stop], placed)


def _parse_without(text: str, start: int, spans: list[tuple[int, int]], mark: str, placed: re.Pattern[str],
                   names: Collection[str] | Mapping[str, Any], dialect: str) -> tuple[Any, str, set[int], set[int]]:
    """Parse ``text`` from ``start`` in ``dialect`` with each span of ``spans`` (in order, after ``start``)
    written as a mark of its own (``placed``: the marks, ``mark`` + index + ``mark``).

    Returns:
        ``(the ParsedReply, the text parsed, the indices of the spans whose mark the parser took into a call read
        whole (a valid call, or an invalid one whose own arguments close around the mark: quoted text), the
        indices of those it took into an invalid call that runs on past its text (a call line cut off before
        the span: review 209 #1))``.
    """
    pieces, pos = [], start
    for index, (begin, end) in enumerate(spans):
        pieces += [text[pos:begin], f"{mark}{index}{mark}"]
        pos = end
    joined = "".join([*pieces, text[pos:]])
    parsed = parse_tool_calls(joined, names, dialect=dialect)
    quoted: set[int] = set()
    broken: set[int] = set()
    for call in parsed.tool_calls:
        quoted |= _marks_in(call, placed)
    for call in parsed.invalid_tool_calls:
        args = call.get("args")
        if not isinstance(args, str):
            quoted |= _marks_in(call, placed)
        elif mark in args:
            inside = _quoted_in(args, placed)
            quoted |= inside
            broken |= _marks_in(args, placed) - inside
    return parsed, joined, quoted, broken - quoted


def _parse_marked(text: str, start: int, names: Collection[str] | Mapping[str, Any],
                  dialect: str) -> tuple[str, list[Any], list[Any]]:
    """Parse ``text`` from ``start`` (a marked call format's first line, outside reasoning) to its end in
    ``dialect``, without the ``<think>`` blocks after it (:func:`_think_blocks`): a call drafted in such a block
    after a real call is not read (review 202 #2). Each block is parsed as a mark of its own that the parser
    leaves in the text, and put back in place. When the parser takes a block's mark into a call, finds an invalid
    call, or a block runs on unclosed to the end (a string quoting the call's closing tag before a quoted
    ``<think>`` would end the call there, whether that block is closed later or not: reviews 215 #4, 222 #3),
    the ``<think>`` tags alone are parsed as marks, and those it takes into a call read whole (a
    valid call, or an invalid one whose own arguments close around the tag) are quoted text, not opening tags:
    the blocks the others open are left out of a last parse, and what it takes in is put back where it stands. A tag the
    parser folds into an invalid call that runs on past its text (a call line cut off before the block) still
    opens a block (review 209 #1): that call's text ends at the block, and the block and what follows go back
    to the text when the call ran on to the end. At most three parses, the calls from one, so their ids are
    unique and the time is linear.

    Returns:
        ``(the text the parser left, calls, invalid calls)``.
    """
    spans = _think_blocks(text, start) if "<think>" in text[start:] else []
    mark = _free_mark(text) if spans else None
    if mark is None:
        if spans:  # (a reply holding every private-use character: read no call from it)
            return text[start:], [], []
        parsed = parse_tool_calls(text[start:], names, dialect=dialect)
        return parsed.content, parsed.tool_calls, parsed.invalid_tool_calls
    placed = re.compile(re.escape(mark) + r"(\d+)" + re.escape(mark))
    parsed, joined, quoted, broken = _parse_without(text, start, spans, mark, placed, names, dialect)
    # (a <think> quoted after a string's quoted closing tag: the block it opens, to the end or to a real </think>
    # later, cuts the call there, </tool_call> read as its end, so the mark stays out of it and the cut call is
    # invalid: reviews 215 #4, 222 #3)
    if quoted or broken or parsed.invalid_tool_calls or spans[-1][1] == len(text):
        tags = [m.span() for m in _THINK_TAG.finditer(text, start)]
        inside = _parse_without(text, start, tags, mark, placed, names, dialect)[2]
        spans = _think_blocks(text, start, frozenset(tags[index][0] for index in inside))
        parsed, joined, quoted, broken = _parse_without(text, start, spans, mark, placed, names, dialect)

    def restore(value: Any) -> Any:
        if isinstance(value, str):
            return placed.sub(lambda m: text[slice(*spans[int(m.group(1))])], value) if mark in value else value
        if isinstance(value, dict):
            return {restore(k): restore(v) for k, v in value.items()}
        if isinstance(value, list):
            return [restore(v) for v in value]
        return value

    content, calls, invalid = parsed.content, parsed.tool_calls, parsed.invalid_tool_calls
    if broken:  # (a call cut off before a block ends there; when it ran on to the end, the rest is text again)
        kept = []
        for call in invalid:
            args = call.get("args")
            cut = placed.search(args) if isinstance(args, str) and mark in args else None
            if cut is not None and int(cut.group(1)) in broken and joined.endswith(args):
                call = {**call, "args": args[:cut.start()].rstrip()}
                content = "\n".join(part for part in (content.rstrip(), args[cut.start():]) if part)
            kept.append(call)
        invalid = kept
    if quoted or broken:  # (the last parse took in a block too: its text goes back where the parser put it)
        calls, invalid = restore(calls), restore(invalid)
    return restore(content), calls, invalid


_UNMARKED = frozenset({"json", "py"})
"""The call formats without a marker of their own: read only where the calls end the reply (review 57)."""

_FENCE_END = re.compile(r"\s*```")
_END_TOKEN = r"(?:<\|[\w.-]+\|>|<\uff5c[\w\u2581.-]+\uff5c>|</s>|<eos>|<end_of_turn>)"
"""An end-of-turn token a server may leave in the text: ``<|...|>`` (``<|im_end|>``, ``<|eot_id|>``,
``<|eom_id|>``, ``<|end|>``, ``<|endoftext|>``), DeepSeek's ``<\uff5cend\u2581of\u2581sentence\uff5c>`` (full-width
bars), ``</s>`` (Llama 2, Mistral), ``<eos>`` and ``<end_of_turn>`` (Gemma)."""
_FENCE_ONLY = re.compile(rf"\s*(?:(?:`{{3,}}|~{{3,}})[\w.+-]*\s*)*(?:{_END_TOKEN}\s*)*")
"""The text left after calls when it is only fences (the closing one of an opening ``_CALL_LINE`` does not take
in: ```` ```tool_code ```` (Gemma), ```` ```JSON ````, ``~~~json``, a CRLF reply; and those between calls written
one fenced block each, ```` ``` ```` then ```` ```json ````: review 90, whose last block was cut at max_tokens) or
end-of-turn tokens a server left in (:data:`_END_TOKEN`): the calls still end the reply, and the tokens are
dropped."""
_FENCE_LINE = re.compile(r"(?m)^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
"""A code fence line: its backticks or tildes, then the info string (```` ```json ````)."""
_FENCE_HERE = re.compile(r"(?:`{3,}|~{3,})(?P<info>[^\n]*)")
_TOKENS_ONLY = re.compile(rf"\s*(?:{_END_TOKEN}\s*)*")
_TOKENS_AT_END = re.compile(rf"(?:\s*{_END_TOKEN})+\s*\Z")
"""End-of-turn tokens a server left after the text that follows marked calls (``</tool_call><|im_end|>``): dropped,
as after unmarked calls, so they are not sent back as the assistant's text."""
_FENCED = re.compile(r"```[^\n`]*\n.*?```", re.DOTALL)
"""A ```` ``` ```` fence and its body, up to the next three backticks (where the JSON parser ends one)."""
_NEXT_LIST = re.compile(r"[ \t]*\n\s*(?P<py>\[)\s*(?P<name>[A-Za-z_][\w.\-]*)\s*\(")


def _py_calls_at(text: str, match: re.Match[str], tool_names: Collection[str] | Mapping[str, Any],
                 keys: Collection[str]) -> tuple[int, list[Any], list[Any]]:
    """Parse the Python call list that starts at ``match`` (a :data:`_CALL_LINE` match of the ``py`` group;
    ``keys``: the tool names' :func:`name_key`) and any list of calls on the lines right after it.

    Returns:
        ``(end, calls, invalid calls)``: ``end`` is where the lists (and the closing fence of an opening one
        the match took in) end; ``len(text)`` when a list is cut off or unbalanced (the parser then read the rest).
        No calls when the parser leaves text of a list (a list comprehension): it is code, not a list of calls.
    """
    calls: list[Any] = []
    invalid: list[Any] = []
    bracket = match.start("py")
    while True:  # the list, and any list of calls on the lines right after it
        end = python_span_end(text, bracket)
        if end < 0:  # cut off or unbalanced: what the parser makes of the rest (an invalid call, or nothing)
            end = len(text)
        parsed = parse_tool_calls(text[bracket:end], tool_names, dialect="pythonic")
        if parsed.content.strip():  # code around a call, not a list of calls: [f(q=x) for x in xs] (review 215 #6)
            return end, [], []
        calls += parsed.tool_calls
        invalid += parsed.invalid_tool_calls
        following = _NEXT_LIST.match(text, end)
        if following is None or name_key(following.group("name")) not in keys:
            break
        bracket = following.start("py")
    if "```" in text[match.start():match.start("py")] and (fence := _FENCE_END.match(text, end)):
        end = fence.end()
    return end, calls, invalid


def _value_end(text: str, start: int) -> tuple[int, bool]:
    """Where the bracketed value at ``start`` ends, as the JSON parser reads it: the decoded value's end; for
    text that does not decode, its last bracket, or the end of its line when its brackets do not match.

    Returns:
        ``(end, whether it runs on unclosed to the end of the text)``.
    """
    try:
        return decode_value_at(text, start)[1], False
    except DecodeFailure as failure:
        end = DEEP if failure.kind == "deep" else python_span_end(text, start)
    if end == EOF:
        return len(text), True
    if end < 0:  # unbalanced, or nested too deeply: the line
        line_end = text.find("\n", start)
        return (len(text) if line_end < 0 else line_end), False
    return end, False


def _json_run(text: str, start: int, tool_names: Collection[str] | Mapping[str, Any],
              suffixes: JsonSuffixes) -> tuple[bool, int]:
    """Whether the text from ``start`` (a :data:`_CALL_LINE` match of the ``json`` group) is JSON calls to its
    end: call objects, lists of them or ```` ``` ```` fences holding them, separated by whitespace, then only
    :data:`_FENCE_ONLY`. Each piece is parsed on its own, so a walk costs time linear in what it reads (review
    62); a value left open to the end of the reply is read with ``suffixes`` (the :class:`JsonSuffixes` of the
    whole reply), which reads each place of the reply once however many lines open such a value (review 178 #3:
    each parsed the rest of the reply again, quadratic time). A fence line at ``start`` that no fence closes (the
    closing fence of an earlier block, say) stays in the text, as the parser leaves it: the calls after it end the
    reply only when it is a bare fence and no other fence follows them.

    Returns:
        ``(ends the reply, next)``: when it does not, ``next`` is where a later JSON line may still start calls
        that do: past the text that is not a call (a line before it reaches that text too), past a value that
        is not a call (a line inside it is followed by its closing bracket), but inside a fence or a value
        left open to the end of the reply that holds a call (it may end the reply); past the end when such a
        value holds none (the parser reads no further).
    """
    pos = skip_ws(text, start)
    fence = None if _FENCED.match(text, pos) else _FENCE_HERE.match(text, pos)
    if fence is not None:
        pos = fence.end()
    first, found = skip_ws(text, pos), False
    while True:
        pos = skip_ws(text, pos)
        if found and _FENCE_ONLY.fullmatch(text, pos):
            if fence is None or (not fence.group("info").strip() and _TOKENS_ONLY.fullmatch(text, pos)):
                return True, len(text)
            return False, first + 1  # (the calls after the first may still end the reply)
        fenced = _FENCED.match(text, pos) if text.startswith("```", pos) else None
        open_to_end = False
        if fenced is not None:
            end = fenced.end()
        elif pos < len(text) and text[pos] in "{[":
            end, open_to_end = _value_end(text, pos)
        else:  # prose (or a fence left open)
            return False, max(pos, start + 1)
        if open_to_end:  # what the parser reads from here to the end: (finds calls, leaves no text)
            calls, empty = suffixes.read(pos)
            if not (calls and empty):
                return False, pos + 1 if calls else len(text)
            pos, found = end, True
            continue
        parsed = parse_tool_calls(text[pos:end], tool_names, dialect="json")
        if parsed.content or not (parsed.tool_calls or parsed.invalid_tool_calls):
            return False, pos + 1 if fenced is not None else max(end, start + 1)
        pos, found = end, True


def _without_opening_fence(head: str) -> str:
    """``head`` (the text before calls) without its last line when that line opens a code block, not when it
    closes an earlier one (review 62): the fence belongs to the calls. A fence line with an info string
    (```` ```json ````) opens a block; a bare one closes the open block of its kind, else opens one."""
    opened: re.Match[str] | None = None
    for line in _FENCE_LINE.finditer(head):
        closes = (opened is not None and not line.group("info").strip()
                  and line.group("fence")[0] == opened.group("fence")[0]
                  and len(line.group("fence")) >= len(opened.group("fence")))
        opened = None if closes else line
    if opened is None or opened.end() < len(head):
        return head
    return head[:opened.start()].rstrip()


def read_text_calls(text: str,
                    tool_names: Collection[str] | Mapping[str, Any]) -> tuple[str, list[Any], list[Any]] | None:
    """The tool calls written in a reply's text, by the rules of this module.

    Args:
        text: the reply's text.
        tool_names: the bound tools' names; only they make a call. A mapping ``{name: parameters JSON Schema}`` also
            types raw values (Qwen3-Coder's ``<parameter=...>`` tags, see :mod:`toolwire.parsing.function_tags`).

    Returns:
        ``(content, tool_calls, invalid_tool_calls)``: the prose before the first line that starts with calls to
        bound tools (trailing whitespace removed), then, after a blank line, the text the parser left after them;
        the calls (arguments read as a native call's are, so a call wrapped twice, ``{"name": "f", "arguments":
        {...}}`` inside the arguments of ``f``, is unwrapped) and the calls that could not be read (an unknown name
        inside a call marker: the error lists the tools; a call cut off: its argument text as ``args``). None when
        no such line holds a call. The text inside a ``<think>`` block (:func:`_think_blocks`, an unclosed one runs
        to the end), or before a ``</think>`` alone on its line, outside a code block, that no ``<think>`` opens
        (the prompt opened the block), is never read, also after a call (it stays in the content where it stood).
    """
    try:
        with hold_spans(text):  # (kept while its pieces are parsed: review 178 #3)
            return _read_text_calls(text, tool_names)
    finally:
        forget_spans(text)  # (what the scan learnt about the reply is not kept past it: review 122)


def _read_text_calls(text: str,
                     tool_names: Collection[str] | Mapping[str, Any]) -> tuple[str, list[Any], list[Any]] | None:
    """:func:`read_text_calls`' work."""
    if not tool_names:
        return None
    names = tool_names if isinstance(tool_names, Mapping) else tuple(tool_names)  # a mapping keeps the schemas
    keys = {name_key(n) for n in names}
    # a family's lines before skip[family] hold no calls that end the reply, or were read already (a marked
    # format is parsed once, from its first line: the parser reads on to the end)
    skip: dict[str, int] = {}
    suffixes = JsonSuffixes(text, names)  # (what the JSON parser reads from each place, read once: review 178 #3)
    thinking = _thinking_spans(text)
    block = 0  # the first block that does not end before the line (the lines come in order: linear time)
    for match in _CALL_LINE.finditer(text):
        while block < len(thinking) and thinking[block][1] <= match.start():
            block += 1
        if block < len(thinking) and thinking[block][0] <= match.start():
            continue
        family = next(k for k in ("hermes", "mistral", "tag", "function", "json", "py") if match.group(k) is not None)
        if match.start(family) < skip.get(family, 0) or (family == "py" and name_key(match.group("name")) not in keys):
            continue
        if family in _UNMARKED:  # calls only where they end the reply (review 57), found in linear time (62)
            found = _ending_calls(text, match, names, keys, skip, suffixes)
            if found is None:
                continue
            calls, invalid = found
            # the fence line before the calls is theirs when it opens a block (not when it closes an earlier one)
            head, rest = _without_opening_fence(text[:match.start(family)].rstrip()), ""
        else:
            dialect = ("hermes" if family == "hermes" else "mistral" if family == "mistral"
                       else "function_tag" if family == "function" else "json")
            # the parser reads on to the end, past the reasoning blocks after the line (review 202 #2)
            left, calls, invalid = _parse_marked(text, match.start(), names, dialect)
            skip[family] = len(text)  # the parser read on to the end: a later line of this family holds nothing new
            if not calls and not invalid:
                continue
            head, rest = text[:match.start()].rstrip(), _TOKENS_AT_END.sub("", left)
        valid, bad = split_calls([_record(c, names) for c in calls])
        return head + ("\n\n" if head and rest else "") + rest, valid, [*bad, *cut_arguments(invalid)]
    return None


def _record(call: Any, names: Collection[str] | Mapping[str, Any]) -> Any:
    """The record of ``call`` (a parsed call) as a native call's; an invalid call, not an error, when its arguments
    hold something JSON cannot write (an int of more than ``sys.get_int_max_str_digits()`` digits, which the parsers
    refuse already: a reply never becomes an error for its calls' arguments, review 253 #1)."""
    try:
        arguments = json.dumps(call["args"], ensure_ascii=False, default=str)
    except ValueError:
        return invalid_tool_call(call["name"], None, call["id"], TOO_MANY_DIGITS)
    return native_call(call["name"], arguments, call["id"], names)


def _ending_calls(text: str, match: re.Match[str], names: Collection[str] | Mapping[str, Any],
                  keys: Collection[str], skip: dict[str, int],
                  suffixes: JsonSuffixes) -> tuple[list[Any], list[Any]] | None:
    """The JSON calls or Python call lists that start at ``match`` (a :data:`_CALL_LINE` match of the ``json``
    or ``py`` group) when they end the reply, as ``(calls, invalid calls)``; else None, with ``skip`` (as in
    :func:`read_text_calls`) moved past the lines of the family that cannot start such calls either (``suffixes``:
    see :func:`_json_run`)."""
    if match.group("py") is not None:
        end, calls, invalid = _py_calls_at(text, match, names, keys)
        if (calls or invalid) and _FENCE_ONLY.fullmatch(text, end):
            return calls, invalid
        skip["py"] = end  # a later line up to there ends no calls either
        return None
    parsed = None
    if "json" not in skip:  # the first JSON line: the parser reads every JSON call from there on, once
        parsed = parse_tool_calls(text[match.start():], names, dialect="json")
        if not (parsed.tool_calls or parsed.invalid_tool_calls):
            skip["json"] = len(text)  # none at all
            return None
    if parsed is None or not _FENCE_ONLY.fullmatch(parsed.content):  # some text follows: piece by piece
        ends, skip["json"] = _json_run(text, match.start(), names, suffixes)
        if not ends:
            return None
        parsed = parse_tool_calls(text[match.start():], names, dialect="json")
        if not _FENCE_ONLY.fullmatch(parsed.content) or not (parsed.tool_calls or parsed.invalid_tool_calls):
            return None  # (the parser read the text otherwise than piece by piece; skip is past the end)
    return parsed.tool_calls, parsed.invalid_tool_calls


def with_text_calls(message: AIMessage, tool_names: Collection[str] | Mapping[str, Any]) -> AIMessage:
    """``message`` with the calls its text holds (:func:`read_text_calls`) moved into ``tool_calls``, when it
    has no native calls and its content is a string; else ``message`` unchanged."""
    if message.tool_calls or message.invalid_tool_calls or not isinstance(message.content, str):
        return message
    found = read_text_calls(message.content, tool_names)
    if found is None:
        return message
    content, calls, invalid = found
    return message.copy(content=content, tool_calls=calls, invalid_tool_calls=invalid,  # type: ignore[return-value]
                        response_metadata={**message.response_metadata, METADATA_KEY: True})


class TextCallStream:
    """Reads the calls left in a streamed reply's text, chunk by chunk, as :func:`with_text_calls` does for
    a whole reply (so the merged chunks equal what ``invoke`` returns). The work per chunk is proportional
    to the chunk (the text is scanned once).

    Args:
        tool_names: the bound tools' names, or a mapping ``{name: parameters JSON Schema}``
            (see :func:`read_text_calls`).
        limit: the request's output token limit in tokens (``max_tokens``) on a server whose ``finish_reason``
            may not say that the limit cut the reply (an OpenAI-compatible server), else None. A call whose text is
            not closed in a reply cut at the limit gets the cut-off error, as ``invoke`` gives it
            (:func:`~toolwire.models.lowering._calls.read_as_cut`).
    """

    def __init__(self, tool_names: Collection[str] | Mapping[str, Any], limit: int | None = None) -> None:
        self.tool_names = dict(tool_names) if isinstance(tool_names, Mapping) else tuple(tool_names)
        self.limit = limit
        self.finish_reason: Any = None  # the last the chunks gave
        self.used: int | None = None  # output tokens, summed over the chunks as merge_chunks sums them
        self.text = ""
        self.shown = 0  # how much of ``text`` was sent on
        self.hold: int | None = None  # where the first line that may open a call starts
        self.native = False  # the server sent calls of its own (or content that is not text)

    def feed(self, chunk: AIMessageChunk) -> Iterator[AIMessageChunk]:
        """Pass ``chunk`` on, holding back the text from the first line that may open a call."""
        if chunk.response_metadata.get("finish_reason") is not None:
            self.finish_reason = chunk.response_metadata["finish_reason"]
        if isinstance(chunk.usage, dict) and type(used := chunk.usage.get("output_tokens")) is int:
            self.used = (self.used or 0) + used
        if chunk.tool_call_chunks or chunk.invalid_tool_calls or not isinstance(chunk.content, str):
            if not self.native:
                self.native = True
                yield from self._flush()
            yield chunk
            return
        if self.native or not chunk.content:
            yield chunk
            return
        before = len(self.text)
        self.text += chunk.content
        if self.hold is None:  # the line the new text continues, then the lines it starts
            line = self.text.rfind("\n", 0, before) + 1
            if _MAYBE_HERE.match(self.text, line):
                self.hold = line
            elif found := _MAYBE.search(self.text, before):
                self.hold = found.start()
        # shown: the text before the hold, without trailing whitespace (a last line that is only whitespace
        # so far may still open a call)
        end = len(self.text) if self.hold is None else self.hold
        while end > self.shown and self.text[end - 1].isspace():
            end -= 1
        piece = self.text[self.shown:end] if end > self.shown else ""
        self.shown = max(self.shown, end)
        yield AIMessageChunk(piece, usage=chunk.usage, response_metadata=chunk.response_metadata,
                             provider_data=chunk.provider_data, id=chunk.id, name=chunk.name)

    def finish(self) -> Iterator[AIMessageChunk]:
        """The rest of the reply: the calls read from the held text and the text left, or the held text."""
        found = None if self.native or self.hold is None else read_text_calls(self.text, self.tool_names)
        if found is None:
            yield from self._flush()
            return
        content, calls, invalid = found
        invalid, finish = read_as_cut(invalid, self.finish_reason, {"output_tokens": self.used}, self.limit)
        metadata: dict[str, Any] = {METADATA_KEY: True}
        if finish != self.finish_reason:  # the limit cut the reply, though the server said otherwise
            metadata.update(finish_reason=finish, server_finish_reason=self.finish_reason)
        chunks = [{"name": call["name"], "args": json.dumps(call["args"], ensure_ascii=False, default=str),
                   "id": call["id"], "index": index, "type": "tool_call_chunk"} for index, call in enumerate(calls)]
        yield AIMessageChunk(content[self.shown:], tool_call_chunks=chunks,  # type: ignore[arg-type]
                             invalid_tool_calls=invalid, response_metadata=metadata)

    def _flush(self) -> Iterator[AIMessageChunk]:
        if len(self.text) > self.shown:
            yield AIMessageChunk(self.text[self.shown:])
        self.shown = len(self.text)
