"""The tool-call records a message carries (:class:`ToolCall`, :class:`InvalidToolCall`, :class:`ToolCallChunk`),
token :class:`Usage`, and the checks that give every record the shape the rest of toolwire relies on.

Kept apart from :mod:`toolwire.messages`, which re-exports the public names (import them from there).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from toolwire._printing import json_text, printed, safe_text
from toolwire.results import valid_text

__all__ = [
    "InvalidToolCall",
    "ToolCall",
    "ToolCallChunk",
    "Usage",
    "in_reply_order",
    "invalid_tool_call",
    "new_tool_call_id",
    "split_in_order",
    "tool_call",
]

_JSON_CONTAINERS = (dict, list)


class ToolCall(TypedDict):
    """A request from the model to run one tool: ``{"name", "args", "id", "type": "tool_call"}``.

    ``args`` is the parsed argument object (a dict); ``id`` pairs the call with its
    :class:`ToolMessage` (``tool_call_id``). ``type`` may be left out of a call written by hand (as in LangChain's
    ``ToolCall``), or be another library's word for a call (OpenAI's ``"function"``): an :class:`AIMessage` and
    :class:`~toolwire.execution.ToolExecutor` make it ``"tool_call"``, and the calls toolwire makes always have it.
    ``Tool.invoke`` reads a mapping as a tool call only when it has ``"type": "tool_call"``.
    """

    name: str
    args: dict[str, Any]
    id: str | None
    type: NotRequired[Literal["tool_call"]]  # (review 166 #8)


class InvalidToolCall(TypedDict):
    """A tool call the model sent that could not be parsed or resolved.

    ``name`` is the tool name as sent (None when missing), ``args`` keeps the raw argument text exactly as the
    model sent it, ``id`` the call's id (generated when the model sent none), ``error`` says what was wrong.
    The executor still answers it with one ``status="error"`` :class:`ToolMessage`.

    ``index`` (only when a valid call came after it in the reply) is its 0-based position among all the reply's
    calls, valid and invalid: an AIMessage keeps the two kinds in two lists, as LangChain's does, and this is how
    the calls are written back to the provider and answered in the order the model sent them
    (:func:`split_in_order`, :func:`in_reply_order`; review 74).
    """

    name: str | None
    args: str | None
    id: str | None
    error: str | None
    type: Literal["invalid_tool_call"]
    index: NotRequired[int]


class ToolCallChunk(TypedDict):
    """A streamed piece of a tool call: ``args`` is a fragment of the argument JSON text.

    Pieces with the same ``index`` (or, without an index, the same ``id``) belong to one call; ``name`` and
    ``id`` usually come with a call's first piece only (None on the others).
    """

    name: str | None
    args: str | None
    id: str | None
    index: int | None
    type: Literal["tool_call_chunk"]


class Usage(TypedDict):
    """Token counts of one model call (tokens, not characters); the field names are LangChain's ``UsageMetadata``.

    Attributes:
        input_tokens: the prompt's tokens, cached ones included (each provider's figure made to include them:
            OpenAI's ``prompt_tokens``, Anthropic's ``input_tokens`` plus its cache reads and writes).
        output_tokens: the tokens generated, as the provider counts them.
        total_tokens: ``input_tokens + output_tokens``.
        cached_tokens: of ``input_tokens``, those read from a cache instead of processed (OpenAI's
            ``cached_tokens``, Anthropic's ``cache_read_input_tokens``, the embedded model's reused KV cache);
            absent when the provider does not say.
        input_token_details: LangChain's breakdown of ``input_tokens`` other than ``cache_read``
            (``cache_creation``, ``audio``...: tokens by key), as a provider, a custom model or LangChain's
            ``usage_metadata`` gives it; a given ``cache_read`` is read as ``cached_tokens``, and
            :attr:`AIMessage.usage_metadata <toolwire.messages.AIMessage.usage_metadata>` and an Agent run's summed
            ``usage`` give it back as ``cache_read``; absent when none is known (an empty dict is left out).
        output_token_details: LangChain's breakdown of ``output_tokens`` (``reasoning``, ``audio``...): ``reasoning``
            is OpenAI's ``reasoning_tokens`` (Responses API ``output_tokens_details``, Chat Completions
            ``completion_tokens_details``; when more than 0), as langchain-openai maps it, and Gemini's
            ``thoughtsTokenCount`` (when more than 0), as langchain-google-genai maps it; a custom model or
            LangChain's ``usage_metadata`` may give other keys; absent when none is known.

    The detail dicts are typed ``dict[str, int]``, not LangChain's closed ``InputTokenDetails``, as providers add keys
    of their own; read a key that may be missing with ``.get(key, 0)`` (review 285 #4).
    """

    input_tokens: int
    output_tokens: int
    total_tokens: int
    cached_tokens: NotRequired[int]
    input_token_details: NotRequired[dict[str, int]]
    output_token_details: NotRequired[dict[str, int]]


_ids = itertools.count(1)
_id_prefix = os.urandom(4).hex()


def new_tool_call_id() -> str:
    """Return a new tool-call id, unique within this process (``"call_<8 hex><n>"``: a random prefix made once
    per process, then a counter)."""
    return f"call_{_id_prefix}{next(_ids)}"


def tool_call(name: str, args: dict[str, Any] | None = None, id: str | None = None) -> ToolCall:
    """Return a new :class:`ToolCall` dict calling the tool ``name`` with the arguments ``args`` (None gives
    ``{}``); a missing ``id`` (None or ``""``) is generated with :func:`new_tool_call_id`."""
    return {"name": name, "args": args if args is not None else {}, "id": id or new_tool_call_id(),
            "type": "tool_call"}


def invalid_tool_call(
    name: str | None, args: str | None, id: str | None = None, error: str | None = None
) -> InvalidToolCall:
    """Return a new :class:`InvalidToolCall` dict: ``name`` and ``args`` (the raw argument text) as the model sent
    them, each possibly None, and ``error`` saying why the call is unusable; a missing ``id`` (None or ``""``) is
    generated."""
    return {"name": name, "args": args, "id": id or new_tool_call_id(), "error": error,
            "type": "invalid_tool_call"}


def split_in_order(calls: Iterable[ToolCall | InvalidToolCall]) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Split a reply's call records, in the order the model sent them, into ``(valid, invalid)``; an invalid call
    that a valid one follows gets its position as ``index`` (see :class:`InvalidToolCall`), so the order can be
    rebuilt with :func:`in_reply_order`. The records are not copied, but an indexed one is a new dict."""
    valid: list[ToolCall] = []
    invalid: list[tuple[int, Any]] = []
    last_valid = -1
    for position, call in enumerate(calls):
        if call.get("type") == "invalid_tool_call":
            invalid.append((position, call))
        else:
            valid.append(call)  # type: ignore[arg-type]
            last_valid = position
    return valid, [{**bad, "index": position} if position < last_valid else bad for position, bad in invalid]


def in_reply_order(valid: Sequence[Any], invalid: Sequence[Any], invalid_calls: Sequence[Any]) -> list[Any]:
    """``valid`` then ``invalid``, except that each item of ``invalid`` whose call (the same position of
    ``invalid_calls``, :class:`InvalidToolCall` dicts) has an ``index`` goes to that position: the calls of a
    reply, or their answers, in the order the model sent the calls.

    Args:
        valid: one item per valid call, in order (the calls themselves, or their ToolMessages).
        invalid: one item per invalid call, in order. invalid_calls: the invalid calls, parallel to ``invalid``.

    Returns:
        A new list of all the items.
    """
    out = list(valid)
    if not any(isinstance(bad, dict) and type(bad.get("index")) is int for bad in invalid_calls):
        return [*out, *invalid]
    placed = sorted((bad["index"], i) for i, bad in enumerate(invalid_calls)
                    if isinstance(bad, dict) and type(bad.get("index")) is int)
    for position, i in placed:
        out.insert(min(position, len(out)), invalid[i])
    chosen = {i for _, i in placed}
    return out + [item for i, item in enumerate(invalid) if i not in chosen]


def _id_text(value: Any) -> str | None:
    """A call id as text: None and ``""`` give None (a new id is then made: ids are never empty,
    docs/architecture.md), a string is kept, anything else (a number, as some servers send) becomes
    ``str(value)``, as :class:`ToolMessage` turns its ``tool_call_id``, so a call and its answer still match; a lone
    surrogate becomes U+FFFD (:func:`~toolwire.results.valid_text`), as in the ``tool_call_id`` (review 83).

    Returns: the id's text, or None: no id, or one whose ``str()`` fails (a new id is made then too). Never raises.
    """
    if isinstance(value, str):
        return (value if value.isascii() else valid_text(value)) or None
    text = None if value is None else printed(value, str)
    return text if text is None or text.isascii() else valid_text(text)


def _call_list(calls: Any, field: str, owner: str = "AIMessage") -> Any:
    """``calls``, the ``tool_calls`` (or ``invalid_tool_calls``..., the ``field``) given to an ``owner`` (AIMessage,
    AIMessageChunk), as something to iterate over: None (or another empty value) gives none.

    Raises:
        UserError: ``calls`` is one call (a dict) or text rather than a list of calls: iterated, it gave its keys or
            characters, refused as calls with a message naming one of them (review 68).
    """
    if not calls:  # (None, an empty list; an empty text or dict too, read as no calls as before)
        return ()
    if isinstance(calls, Mapping | str | bytes):
        from toolwire.errors import UserError

        what = "one call (a dict)" if isinstance(calls, Mapping) else type(calls).__name__
        raise UserError(f"{owner} {field} takes a list of tool calls, not {what}: wrap it in a list, "
                        f"{field}=[call].")
    return calls


def _checked_call(call: Any) -> ToolCall | InvalidToolCall:
    """A copy of a tool call with the shape the rest of toolwire relies on: ``id`` a non-empty string (made
    when missing or empty, a number as its text) and ``"type": "tool_call"``, whatever ``type`` the call gave
    (OpenAI's ``"function"``, Anthropic's ``"tool_use"``, None...: a call all the same, as LangChain's
    ``AIMessage`` reads it; only ``"invalid_tool_call"`` is kept, so an invalid call given among the calls stays
    one; review 195 #1). Arguments under another library's key (:data:`_ARGUMENT_KEYS`: OpenAI's and MCP's
    ``"arguments"``, Anthropic's ``tool_use`` ``"input"``, Llama's ``"parameters"``) are read as ``args`` when
    ``"args"`` is missing or None; given under two of these keys with different values, the call is an
    :class:`InvalidToolCall` (which arguments were meant cannot be told; review 160 #2: the others were dropped
    and the tool ran with its defaults). Arguments given as text (JSON, or
    what :func:`toolwire.parsing.arguments.normalize_arguments` repairs) become the dict they hold, so providers
    get an object, and another mapping becomes a dict. Arguments that cannot be read as an object (cut-off or
    invalid JSON, a JSON array, a number...) make an :class:`InvalidToolCall` instead, keeping the raw text and the
    parser's error, as :func:`~toolwire.messages.message_from_dict` and the providers' parsers make it (review 77).
    A call typed ``"invalid_tool_call"`` is checked as the invalid calls are (:func:`_given_invalid`: its arguments
    as text, an ``error``; review 201 #2).

    Raises:
        UserError: ``call`` is not a dict with a string ``name`` (nor one typed ``"invalid_tool_call"``).
    """
    if isinstance(call, dict) and type(call.get("type")) is str and call["type"] == "invalid_tool_call":
        return _given_invalid(call)
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        from toolwire.errors import UserError

        raise UserError("Each tool call must be a dict {'name': str, 'args': dict, 'id': str}; "
                        f"got {safe_text(call):.80}.")
    args = call.get("args")
    call_id = call.get("id")
    if args is None or not _OTHER_ARGUMENT_KEYS.isdisjoint(call):  # (review 68; review 160 #2: input, parameters)
        args, clash = _given_arguments(call)
        if clash is not None:
            return invalid_tool_call(call["name"], clash[0], _id_text(call_id), clash[1])
    if args is not None and not isinstance(args, dict):
        if isinstance(args, Mapping):
            args = dict(args)
        else:  # text, or a value that is no object: read as a provider's arguments are (review 77)
            from toolwire.errors import ToolCallParseError
            from toolwire.parsing.arguments import normalize_arguments, raw_text

            try:
                args = normalize_arguments(args)
            except ToolCallParseError as exc:
                raw = bytes(args).decode("utf-8", "replace") if isinstance(args, bytes | bytearray) else args
                return invalid_tool_call(call["name"], raw_text(raw), _id_text(call_id), str(exc))
    if args:  # (review 101: arguments nested too deeply raised RecursionError here, where a provider's reply gets
        copied = _copy_args(args)  # an invalid call; review 102: checked while copying, in one pass)
        if copied is None:
            return _deep_call(call["name"], args, call_id)
        args = copied
    if "type" not in call or not isinstance(call_id, str) or not call_id or args is None or "args" not in call:
        # a missing or empty id is made; a number (some servers) is kept as its text
        out = tool_call(call["name"], {}, _id_text(call_id))
        out["args"] = args or {}
        return out
    out = {key: args if key == "args" else _copy_containers(value) for key, value in call.items()}
    out["type"] = "tool_call"  # another type word (OpenAI's "function"...): a call, as LangChain reads it (r. 195 #1)
    if not call_id.isascii():
        out["id"] = valid_text(call_id)  # a lone surrogate could not be sent or saved as UTF-8 (review 83)
    return out  # type: ignore[no-any-return]


_ARGUMENT_KEYS = ("args", "arguments", "input", "parameters")
"""The keys a tool call dict may hold its arguments under, the first found used: toolwire's and LangChain's,
OpenAI's and MCP's, Anthropic's ``tool_use`` block's, Llama's."""
_OTHER_ARGUMENT_KEYS = frozenset(_ARGUMENT_KEYS[1:])


def _given_arguments(call: dict[str, Any]) -> tuple[Any, tuple[str, str] | None]:
    """The arguments of ``call``, under the first of :data:`_ARGUMENT_KEYS` whose value is not None (None when
    there is none), and None; or, when another of these keys holds different arguments (compared as the objects
    they read as, so ``{"a": 1}`` and its JSON text agree), None and ``(raw text, error)`` for the invalid call it
    makes: the raw text is the JSON of the clashing keys and their values, nothing dropped. Never raises."""
    given = [(key, call[key]) for key in _ARGUMENT_KEYS if call.get(key) is not None]
    if not given:
        return None, None
    first_key, first = given[0]
    for key, value in given[1:]:
        if not _same_arguments(first, value):
            raw = json_text({k: v for k, v in given})
            return None, (raw, f"the call gives its arguments under both {first_key!r} and {key!r}, with different "
                               f"values, so which were meant cannot be told; give them once, under 'args'.")
    return first, None


def _same_arguments(first: Any, other: Any) -> bool:
    """Whether two values given as one call's arguments hold the same arguments: equal, or read as equal objects
    (text by :func:`~toolwire.parsing.arguments.normalize_arguments`). Never raises (a value whose ``==`` raises,
    or that cannot be read, is not the same)."""
    from toolwire.errors import ToolCallParseError
    from toolwire.parsing.arguments import normalize_arguments

    def read(value: Any) -> Any:
        if isinstance(value, Mapping):
            return dict(value)
        try:
            return normalize_arguments(value)
        except ToolCallParseError:
            return value

    try:
        return bool(first == other) or bool(read(first) == read(other))
    except Exception:  # (an object whose __eq__ raises: the two cannot be told the same)
        return False


def _checked_calls(calls: Any, invalid: Any, owner: str = "AIMessage") -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """The ``tool_calls`` and ``invalid_tool_calls`` given to an ``owner`` (AIMessage), checked (:func:`_checked_call`,
    :func:`_checked_invalid`): a call whose arguments cannot be read as an object moves to the invalid calls, keeping
    its place in the reply as ``index`` (:func:`split_in_order`) among the calls and the invalid calls given
    (placed by their own ``index``, :func:`in_reply_order`).

    Raises:
        UserError: as :func:`_call_list`, :func:`_checked_call` and :func:`_checked_invalid`.
    """
    checked = [_checked_call(call) for call in _call_list(calls, "tool_calls", owner)]
    bad = [_checked_invalid(item) for item in _call_list(invalid, "invalid_tool_calls", owner)]
    for call in checked:
        if call["type"] != "tool_call":
            return split_in_order(in_reply_order(checked, bad, bad))
    return checked, bad  # type: ignore[return-value]


def _checked_invalid(bad: Any) -> InvalidToolCall:
    """A copy of an invalid tool call with the shape the rest of toolwire relies on: ``id`` a non-empty string
    (made when missing or empty, a number as its text), ``name``, ``args`` and ``error`` strings or None (other
    values as text); an ``index`` that is no whole number of 0 or more is left out (the call then goes after
    the others).

    Raises:
        UserError: ``bad`` is not a dict.
    """
    if not isinstance(bad, dict):
        from toolwire.errors import UserError

        raise UserError("Each invalid tool call must be a dict {'name', 'args', 'id', 'error'}; "
                        f"got {safe_text(bad):.80}.")
    out = _copy_containers({key: value for key, value in bad.items() if key != "args"})  # (args: text, below)
    call_id = _id_text(bad.get("id"))
    out["id"] = new_tool_call_id() if call_id is None else call_id
    for key in ("name", "args", "error"):
        value = bad.get(key)
        if value is not None and not isinstance(value, str):
            out[key] = json_text(value) if key == "args" else safe_text(value, str)
        else:
            out[key] = value
    if "index" in out and not (type(out["index"]) is int and out["index"] >= 0):
        del out["index"]  # no place in the reply ("0", True, -1): the call goes after the others (review 78)
    out["type"] = "invalid_tool_call"
    return out  # type: ignore[no-any-return]


GIVEN_INVALID = ("the call was given already marked invalid ('type': 'invalid_tool_call') with no error saying "
                 "why, so it was not run")
"""The ``error`` of an invalid call given among the calls without one (:func:`_given_invalid`)."""


def _given_invalid(call: dict[str, Any]) -> InvalidToolCall:
    """A call given among the ``tool_calls`` with ``"type": "invalid_tool_call"``, as the :class:`InvalidToolCall` the
    same call given in ``invalid_tool_calls`` makes (:func:`_checked_invalid`; review 201 #2: its ``args`` stayed a
    dict and it had no ``error``, so LangChain could not load the message): its arguments (under ``args``, else
    another library's key, :data:`_ARGUMENT_KEYS`) as text, JSON for an object, and :data:`GIVEN_INVALID` as its
    ``error`` when it gives none. Its ``index`` is dropped: its place among the calls given is its place in the
    reply. An OpenAI-format ``function`` (``{"name", "arguments"}``) gives the name and arguments the call itself does
    not (review 203 #5). Never raises."""
    function = call.get("function")
    if isinstance(function, dict):
        call = {**{k: v for k, v in call.items() if k != "function"},
                "name": call.get("name") if call.get("name") is not None else function.get("name"),
                "args": call.get("args") if call.get("args") is not None else function.get("arguments")}
    args, key = next(((call[key], key) for key in _ARGUMENT_KEYS if call.get(key) is not None), (None, "args"))
    bad = {k: v for k, v in call.items() if k not in (key, "args", "index")}
    bad["args"] = args
    out = _checked_invalid(bad)
    if out["error"] is None:
        out["error"] = GIVEN_INVALID
    return out


def _deep_call(name: str, args: dict[str, Any], call_id: Any) -> InvalidToolCall:
    """The invalid call a call of ``name`` with arguments nested too deeply (:func:`_too_deep`) becomes, with the
    error a provider's reply gets for them (:func:`toolwire.parsing.arguments.normalize_arguments`)."""
    from toolwire.parsing._scan import TOO_DEEP
    from toolwire.parsing.arguments import EXAMPLE

    return invalid_tool_call(name, json_text(args), _id_text(call_id), f"{TOO_DEEP} such as {EXAMPLE}.")


def _copy_args(args: dict[str, Any]) -> dict[str, Any] | None:
    """A copy of ``args``'s plain dicts and lists (other values, dict and list subclasses included, shared as they
    are), or None when they nest more than :data:`~toolwire.parsing._scan.MAX_DEPTH` levels (``args`` itself the
    first: the limit on the arguments read from a provider's reply). The recursion never goes past that limit, so
    any depth is measured, a circular container included (it is too deep)."""
    from toolwire.parsing._scan import MAX_DEPTH

    try:
        return _copy_within(args, MAX_DEPTH)  # type: ignore[no-any-return]
    except _TooDeep:
        return None


class _TooDeep(Exception):
    """Raised by :func:`_copy_within` past its limit."""


def _copy_within(value: dict[str, Any] | list[Any], levels: int) -> Any:
    """``value`` (a dict or list) with its plain containers copied, ``levels`` the levels of containers it and its
    contents may still take (at least 1).

    Raises:
        _TooDeep: they take more.
    """
    if levels <= 0:
        raise _TooDeep
    if isinstance(value, dict):
        mapping = {k: _copy_within(v, levels - 1) if isinstance(v, (dict, list)) else v for k, v in value.items()}
        return mapping if type(value) is dict else value
    items = [_copy_within(v, levels - 1) if isinstance(v, (dict, list)) else v for v in value]
    return items if type(value) is list else value


def _copy_containers(value: Any) -> Any:
    """Copy nested plain dicts and lists (the JSON containers); every other value, tuples and dict or
    list subclasses included, is shared as it is."""
    kind = type(value)
    if kind is dict:
        return {k: _copy_containers(v) if type(v) in _JSON_CONTAINERS else v for k, v in value.items()}
    if kind is list:
        return [_copy_containers(v) if type(v) in _JSON_CONTAINERS else v for v in value]
    return value
