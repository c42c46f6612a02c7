"""Which call each streamed tool-call piece belongs to: the rule :func:`~toolwire.chunks.merge_chunks` follows
(:class:`_Calls`), and the pieces of it that :class:`~toolwire.models.lowering._stream.ToolCallMerger` shares
(:func:`continues_name`, :func:`opens_value`, :func:`may_resend`, :func:`same_arguments`), so that a stream and its
merge agree; the ids
made for calls whose first piece came without one (:func:`provisional_call_id`). Re-exported by
:mod:`toolwire.chunks`.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable
from typing import Any

from toolwire._call_records import _id_text
from toolwire.messages import ToolCallChunk, new_tool_call_id

__all__ = ["continues_name", "is_provisional", "may_resend", "merge_call_pieces", "opens_value",
           "provisional_call_id", "same_arguments"]

_PROVISIONAL: OrderedDict[str, None] = OrderedDict()  # the ids provisional_call_id made, most recent last
_PROVISIONAL_LIMIT = 4096  # the most recent ones remembered (a merge reads them right after the stream)
_PROVISIONAL_LOCK = threading.Lock()


def provisional_call_id() -> str:
    """A new call id for a streamed call whose first piece came without the provider's: remembered, so that
    :func:`merge_chunks` gives the call the provider's id when a later piece of the call brings it, as the stream
    itself does (:class:`~toolwire.models.lowering._stream.ToolCallMerger`) and as ``invoke`` reads the whole reply
    (review 142 #1).

    Returns:
        A new id (:func:`~toolwire.messages.new_tool_call_id`'s form).
    """
    call_id = new_tool_call_id()
    with _PROVISIONAL_LOCK:
        _PROVISIONAL[call_id] = None
        while len(_PROVISIONAL) > _PROVISIONAL_LIMIT:
            _PROVISIONAL.popitem(last=False)
    return call_id


def is_provisional(call_id: Any) -> bool:
    """Whether ``call_id`` was made by :func:`provisional_call_id` (and is still remembered)."""
    with _PROVISIONAL_LOCK:
        return isinstance(call_id, str) and call_id in _PROVISIONAL




class _Calls:
    """The tool calls of a stream being merged: which call each :class:`ToolCallChunk` belongs to.

    A piece with an ``index`` joins the call its ``id`` opened on that index (the latest one, when the id
    opened several there), else the call open on that index; one with only an ``id`` joins the latest call
    with that id; one with neither continues the last call. An id seen on another index does not count:
    a new index is a new call, whatever its id (DeepSeek, GLM, Kimi and OpenRouter reuse one id across
    parallel calls). A piece that does not carry the id of the call it would join starts a new call
    instead when it has a name and that call has argument text but no name, or another name, or complete
    JSON arguments while the piece brings a new id or argument text. That keeps apart a provider's index 0
    reused for every parallel call (Ollama) and whole calls sent one per chunk with no index or id, while
    pieces whose id changes on every delta of one call (Poolside, mlx-openai-server, vLLM gpt-oss) stay
    one call, as the OpenAI SDK and LangChain merge them by index. A piece with the call's own id starts a
    new call only when that call has a name and the piece another, or the same name with argument text
    after complete JSON (OpenRouter: one id and index 0 for every parallel call). Such a piece with the same name
    (:func:`may_resend`) opens a copy that takes the pieces on its index (whatever their id) until its argument text
    is complete JSON; then, when its arguments are the call's own (:func:`same_arguments`: the same JSON value,
    whatever the spacing, escapes, key order, or a JSON string holding it), it is the call sent again (LiteLLM's
    summary chunk, GLM's resent payload) and is dropped, the pieces after it continuing the call as before
    (review 177 #2, review 183 #1, #2); else it is a call of its own. Another name on the call's index from a piece
    with no id, before any argument text, is the next piece of the name (:func:`continues_name`), unless
    ``tool_names`` has both names and not the two joined (two calls of tools without parameters, review 177 #7).
    Ids are kept as given (the provider codecs have made them unique).

    Args:
        tool_names: the bound tools' names, when known (``None``: not known).
    """

    __slots__ = ("by_id", "by_index", "by_key", "groups", "last", "names")

    def __init__(self, tool_names: Collection[str] | None = None) -> None:
        self.names = tool_names
        self.groups: list[dict[str, Any]] = []
        self.by_index: dict[Any, dict[str, Any]] = {}  # index -> the call now open on it
        self.by_key: dict[tuple[Any, str], dict[str, Any]] = {}  # (index, id) -> the latest call it opened
        self.by_id: dict[str, dict[str, Any]] = {}  # id -> the latest call with that id
        self.last: dict[str, Any] | None = None

    def add(self, part: ToolCallChunk) -> None:
        """File one piece under its call (a new one when it starts one).

        Odd fields are read as what they stand for, never failing the merge: an ``index`` that is a numeral
        string counts as that number (any other non-integer index as none), an ``id`` that is not a string as
        its text (as :class:`~toolwire.messages.AIMessage` keeps call ids), decoded ``args`` (a dict or list)
        as their JSON text.
        """
        index = part.get("index")
        if type(index) is not int and index is not None:
            index = _index(index)
        call_id = _id_text(part.get("id"))  # a number (some servers; 0 too) as its text, as AIMessage keeps it
        name = part.get("name") or None
        if name is not None and type(name) is not str:
            name = None
        restates = None  # the call this piece may be sending again, under its id
        if index is not None:
            group = self.by_key.get((index, call_id)) if call_id else None
            if group is not None:
                if _restarts(group, part, name):
                    group, restates = None, group
                elif _starts_new_call(group, part, call_id, same_id=True):
                    group = None  # the next call under the same id
            else:
                group = self.by_index.get(index)
                if group is not None and _starts_new_call(group, part, call_id, names=self.names):
                    group = None  # the index is reused for the next call
        elif call_id:
            group = self.by_id.get(call_id)
            if group is not None and _restarts(group, part, name):
                group, restates = None, group
            elif group is not None and _starts_new_call(group, part, call_id, same_id=True):
                group = None
        else:  # no index, no id: a named piece after a named call starts the next one (as ToolCallMerger)
            group = self.last
            if group is not None and (_starts_new_call(group, part, call_id) or (
                    name and group["name"] and name != group["name"])):
                group = None
        if group is None:
            group = {"name": None, "id": None, "index": index, "args": [], "parser": None, "fed": 0,
                     "restates": restates, "dropped": False, "names": None,
                     "prior": self.by_id.get(call_id) if restates is not None else None}
            self.groups.append(group)
        if index is not None:
            self.by_index[index] = group
        if name and not group["name"]:
            group["name"] = name
        elif name and index is not None and continues_name(group["name"], bool(group["args"]), name, call_id,
                                                           self.names):
            group["names"] = [*(group["names"] or [group["name"]]), name]  # (kept apart for a later merge: chunks)
            group["name"] += name  # the name streamed in pieces on one index (the group was kept: no id came)
        if call_id and (not group["id"] or (call_id != group["id"] and is_provisional(group["id"])
                                            and not is_provisional(call_id))):
            group["id"] = call_id  # (the provider's id replaces one a stream made before it came: review 142 #1)
            self.by_id[call_id] = group
            if index is not None:
                self.by_key[index, call_id] = group
        args = part.get("args")
        if args:
            group["args"].append(args if type(args) is str else _args_text(args))
        self.last = group
        if group["restates"] is not None and args and _complete(group):
            self._settle(group, index)

    def _settle(self, copy: dict[str, Any], index: Any) -> None:
        """Decide, once its argument text is complete, whether ``copy`` (a piece under a call's own id and name after
        that call's arguments were complete) sent the call again: then it is dropped, and the pieces after it
        continue the call as they did before it; else it is a call of its own."""
        first, copy["restates"] = copy["restates"], None
        if copy["name"] != first["name"] or not same_arguments("".join(first["args"]), "".join(copy["args"])):
            return
        copy["dropped"] = True
        call_id = copy["id"]
        if index is not None:
            self.by_index[index] = first
            self.by_key[index, call_id] = first
        self.by_id[call_id] = copy["prior"] or first
        self.last = first

    def chunks(self, final: bool = True) -> list[ToolCallChunk]:
        """The merged calls, in index order when every call has an index (else in the order they started); a call
        sent again (its name, id and the same arguments) is left out.

        Args:
            final: the calls are read now (:meth:`~toolwire.chunks.AIMessageChunk.to_message`): a copy whose
                argument text never completed is left out too. Else (a merged chunk that later chunks may be merged
                with: ``a + b``, :func:`~toolwire.chunks.merge_chunks`) such a copy is kept as its own piece after
                the call, and, when the bound tools' names are not known, a name joined from pieces on one index
                is kept as those pieces, so that the next merge, or ``to_message(tool_names=...)``, reads them as
                one merge of all the pieces would (review 183 #7).

        Returns:
            One ``{"name", "args", "id", "index", "type": "tool_call_chunk"}`` per call (per kept piece, see above).
        """
        ordered = [g for g in self.groups if not g["dropped"] and not (final and g["restates"] is not None)]
        if all(g["index"] is not None for g in ordered):
            ordered = sorted(ordered, key=lambda g: g["index"])
        out: list[ToolCallChunk] = []
        for g in ordered:
            names = g["names"] if not final and self.names is None and g["names"] else [g["name"]]
            for position, name in enumerate(names):
                last = position == len(names) - 1
                out.append({"name": name, "args": "".join(g["args"]) if last else "",
                            "id": g["id"] if not position else None, "index": g["index"], "type": "tool_call_chunk"})
        return out


def merge_call_pieces(pieces: Iterable[ToolCallChunk],
                      tool_names: Collection[str] | None = None) -> list[ToolCallChunk]:
    """The streamed tool-call pieces ``pieces`` merged into one piece per call, by the rule :func:`merge_chunks`
    follows (:class:`_Calls`): what one chunk holding them all reads as, whichever provider made it.

    Args:
        pieces: :class:`ToolCallChunk` dicts in arrival order (odd fields read as :meth:`_Calls.add` reads them).
        tool_names: the bound tools' names, when known: two names on one index are then two calls when both are
            tools and the two joined are not (:func:`continues_name`).

    Returns:
        One ``{"name", "args", "id", "index", "type": "tool_call_chunk"}`` per call, the argument text joined, in
        index order when every call has an index (else in the order the calls started).
    """
    calls = _Calls(tool_names)
    for part in pieces:
        calls.add(part)
    return calls.chunks()


def _args_text(value: Any) -> str:
    """A chunk's ``args`` as text: a str subclass as its string, decoded arguments as their JSON text."""
    if isinstance(value, str):
        return str(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _index(value: Any) -> int | None:
    """A chunk's ``index`` as an int (a numeral string too), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdecimal():
        return int(value)
    return None


def _starts_new_call(group: dict[str, Any], part: ToolCallChunk, call_id: str | None, same_id: bool = False,
                     names: Collection[str] | None = None) -> bool:
    """Whether ``part`` (its id read as ``call_id``), which would join ``group``, starts another call: it has a name,
    and ``group`` has argument text but no name, or another name, or complete JSON arguments while the piece brings a
    new id or more argument text. With the group's own id (``same_id``) the piece must bring another name, or
    the same one with more argument text after complete JSON (the same rule as ``ToolCallMerger``). ``names``: the
    bound tools' names (:func:`continues_name`)."""
    name = part.get("name")
    if not name:
        return False
    if not group["name"]:
        return not same_id and bool(group["args"])
    if part.get("index") is not None and continues_name(group["name"], bool(group["args"]), name, call_id, names):
        return False  # the name streamed in pieces: only on an index, and only by a piece with no id
    if name != group["name"]:
        return True
    if not ((call_id and not same_id) or part.get("args")):
        return False  # a repeated name and nothing else: nothing to tell apart
    if same_id and not opens_value(part.get("args")):
        return False  # whitespace after complete arguments continues the call (as ToolCallMerger reads it)
    return _complete(group)


def _complete(group: dict[str, Any]) -> bool:
    """Whether ``group``'s arguments so far are complete JSON (read once, and only when a repeated name asks:
    linear in total)."""
    from toolwire.parsing.partial_json import PartialJSONParser

    parser = group["parser"] = group["parser"] or PartialJSONParser()
    for fragment in group["args"][group["fed"]:]:
        parser.feed(fragment, build=False)
    group["fed"] = len(group["args"])
    return bool(parser.complete)


def _restarts(group: dict[str, Any], part: ToolCallChunk, name: str | None) -> bool:
    """Whether ``part``, with ``group``'s own id, may be sending ``group`` again: its name, after ``group``'s
    arguments are complete, with no argument text or text that opens a JSON value or string (:func:`may_resend`;
    :meth:`_Calls._settle` tells once its text is complete whether it sent the same arguments)."""
    if not name or name != group["name"] or group["restates"] is not None:
        return False
    return may_resend(part.get("args")) and _complete(group)


def may_resend(args: Any) -> bool:
    """Whether a streamed piece's arguments may begin a call sent again, when the piece has the id and name of a call
    whose arguments are complete: none yet, a JSON object or array (:func:`opens_value`), or a JSON string (arguments
    encoded twice, as some proxies resend them: BerriAI/litellm#20480)."""
    if not args:
        return True
    return opens_value(args) or (isinstance(args, str) and args.lstrip()[:1] == '"')


def same_arguments(first: str, again: str) -> bool:
    """Whether the complete argument text ``again`` is the same arguments as ``first``: both decode to the same JSON
    value, whatever the spacing, ``\\u`` escapes and key order (a JSON string holding the value is decoded once more;
    numbers compare by value, ``true`` is no ``1``); text that does not decode is compared without the whitespace
    outside its strings. Linear in the text.

    Args:
        first: a call's complete argument text.
        again: the complete argument text of a piece under the call's id and name.

    Returns:
        True when ``again`` sends ``first`` again.
    """
    one, two = _decoded(first), _decoded(again)
    if one is _UNREAD or two is _UNREAD:
        return one is two and _squeezed(first) == _squeezed(again)
    return _same_value(one, two)


_UNREAD = object()  # text that is no JSON


def _decoded(text: str) -> Any:
    """``text`` decoded as JSON (a JSON string holding JSON decoded once more), else ``_UNREAD``."""
    try:
        value = json.loads(text, strict=False)
    except (ValueError, RecursionError):
        return _UNREAD
    if isinstance(value, str):
        with contextlib.suppress(ValueError, RecursionError):
            value = json.loads(value, strict=False)
    return value


def _same_value(one: Any, two: Any) -> bool:
    """Whether two decoded JSON values are equal, a bool equal to a bool only (without recursion: any depth)."""
    stack = [(one, two)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, dict):
            if not isinstance(b, dict) or a.keys() != b.keys():
                return False
            stack.extend((a[key], b[key]) for key in a)
        elif isinstance(a, list):
            if not isinstance(b, list) or len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif isinstance(a, bool) or isinstance(b, bool):
            if a is not b:
                return False
        elif a != b or (type(a) is not type(b) and not isinstance(a, int | float)):
            return False  # (an int and a float of the same value are the same number)
    return True


def _squeezed(text: str) -> str:
    """``text`` without the whitespace outside JSON strings."""
    out: list[str] = []
    quoted = escaped = False
    for char in text:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char in " \t\r\n":
            continue
        elif char == '"':
            quoted = True
        out.append(char)
    return "".join(out)


def continues_name(current: str | None, has_args: bool, name: str, other_id: Any,
                   tool_names: Collection[str] | None = None) -> bool:
    """Whether a streamed piece's ``name`` is the next piece of the call's name rather than another call.

    Args:
        current: the call's name so far (``None``: no name yet, nothing to continue).
        has_args: whether the call has any argument text yet.
        name: the piece's name.
        other_id: the piece's id, if any: a piece with an id (even the call's own: OpenRouter, DeepSeek, GLM
            and Kimi send parallel calls under one id) is never a name piece, since OpenAI sends the id only
            with the first piece of a call.
        tool_names: the bound tools' names, when known: a ``current`` and a ``name`` that are both tools, joined
            into no tool, are two calls (a server that sends no ids and ``""`` for a tool without parameters,
            every call on index 0; review 177 #7).

    Returns:
        True when the call has a name and no argument text, the piece brings another name and no id (and, with
        ``tool_names``, the two are not two tools whose names joined are none): the OpenAI Chat Completions stream
        may split ``function.name`` over deltas, and the official SDK's stream accumulator joins the pieces. A name
        equal to the call's is a repeat (some servers send the name on every delta), never joined.
    """
    if not current or has_args or name == current or other_id:
        return False
    return not (tool_names and current in tool_names and name in tool_names and current + name not in tool_names)


def opens_value(args: Any) -> bool:
    """Whether a streamed piece's arguments start a JSON object or array (a decoded one counts): under the
    id of a call whose arguments are complete, such a piece starts another call, while whitespace or
    other text continues the one it follows (``merge_chunks`` and ``ToolCallMerger`` alike)."""
    if isinstance(args, dict | list):
        return True
    return isinstance(args, str) and args.lstrip()[:1] in ("{", "[")
