"""Tool calls as the codecs read and write them: native calls read into records, and past calls written back.

* **Reading** (:func:`native_call`): a provider's call (name, arguments as JSON text or an object, id) becomes a
  :class:`~toolwire.messages.ToolCall`, or an :class:`~toolwire.messages.InvalidToolCall` whose ``error`` the
  executor sends to the model. Where the bound tools' schemas are known (``tool_names`` given as a mapping
  ``{name: parameters}``) that error shows the called tool's own argument shape, as a tool's validation errors do
  (:func:`toolwire._tool_args.argument_example`), not a fixed example. Arguments that end before their JSON is
  closed get :data:`CUT_OFF` (the sentence Anthropic's codec gives a call a reply stopped at ``max_tokens`` cut
  short) only in a reply the token limit cut (``cut``); a stream that lost its end gives :data:`STREAM_CUT`, and a
  reply that finished normally the parser's own "not valid JSON" error, naming where the text breaks off. A call a
  model streamed (:func:`remember_streamed`) shows its tool's shape even where the chunks are merged without the
  schemas (``merge_chunks(model.stream(...), as_chunk=False)``), so the merged message equals ``invoke``'s.
* **Writing back** (:func:`arguments_json`, :func:`arguments_object`): the arguments of a call of an earlier turn,
  as the next request carries them. Always a JSON object: vLLM and SGLang ``json.loads`` the ``arguments`` of every
  past call and answer 400 for one that does not parse, on every later request (vllm-project/vllm#43995), so an
  invalid call is sent with what can be read of its text (the error result that answers it tells the model what
  was wrong). Arguments holding Python values JSON has no form for (a ``date``, ``Decimal``, ``UUID``, ``set``,
  NaN), as a conversation the application wrote may, are written by :func:`json_arguments` for every provider alike,
  as a tool's result is (:mod:`toolwire._result_json`), or refused alike with a UserError (review 136 #8).
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from toolwire._call_records import _id_text, invalid_tool_call
from toolwire._result_json import _dumps
from toolwire.errors import ToolCallParseError, UserError
from toolwire.messages import InvalidToolCall, ToolCall
from toolwire.parsing.arguments import EXAMPLE, TRUNCATED, call_parts, normalize_arguments, tool_call_from_native
from toolwire.parsing.partial_json import partial_value

_FUNCTION_TAG = "<function="  # a call written as a <function=NAME> tag (parsing.function_tags)

__all__ = [
    "CUT_OFF",
    "GEMINI_NAME",
    "STREAM_CUT",
    "arguments_json",
    "arguments_object",
    "cut_call",
    "json_arguments",
    "native_call",
    "read_as_cut",
    "recovered_arguments",
    "remember_streamed",
    "sent_call_name",
    "unclosed_arguments",
    "unopened",
]

CUT_OFF = ("The call's arguments were cut off before they were complete, as happens when the reply reaches its "
           "output token limit (max_tokens), so it was not run: send the call again with shorter arguments (split "
           "long content over several calls), or raise max_tokens.")
"""The error of a call whose arguments a reply's token limit cut short (OpenAI ``finish_reason: "length"``,
Anthropic ``stop_reason: "max_tokens"``: "Handling stop reasons"), the same for every provider. The model cannot
"send the complete JSON" of a call it has no room to finish: it can send shorter arguments, and the user can raise
``max_tokens``."""

STREAM_CUT = ("The call's arguments were cut off before they were complete because the reply's stream ended early, "
              "without saying why (a server failure or the output token limit), so it was not run: send the call "
              "again, with shorter arguments if they are long.")
"""The error of a call whose argument text was not closed (or never began) when a stream ended without a finish
reason (an OpenAI-compatible server's stream that lost its end, which toolwire still reads): it was cut short, but
not necessarily by the token limit."""


_SENT_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A function name every provider takes in a past call (OpenAI's ``^[a-zA-Z0-9_-]+$``, at most 64 characters;
Anthropic's ``^[a-zA-Z0-9_-]{1,64}$``; Gemini takes these characters and more)."""

GEMINI_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
"""The characters Gemini takes in a function name (its API reference: letters, digits, underscores, dots, colons and
dashes, at most 64): a past call's name with a dot keeps it there, so its kept parts (thought signatures) still match
(review 139 #5)."""


def sent_call_name(name: Any, allowed: re.Pattern[str] = _SENT_NAME) -> str:
    """The name a past call (and its result, where the API names it) is sent back under: ``name`` itself when every
    provider takes it, else ``name`` with each other character written as ``_``, cut to 64 characters
    (``"multi_tool_use.parallel"`` -> ``"multi_tool_use_parallel"``; review 136 #12: gpt-4o's wrapper call, answered
    with an error, went back as it was, and OpenAI refused the next request with a 400), or ``"unknown_tool"`` for no
    name; ``allowed``: the names the provider takes (:data:`GEMINI_NAME` for Gemini), the others' characters written as
    ``_``. The call's own record keeps the name the model wrote."""
    text = name if isinstance(name, str) else ""
    if allowed.fullmatch(text):
        return text
    kept = "A-Za-z0-9_.:-" if allowed is GEMINI_NAME else "A-Za-z0-9_-"
    return re.sub(f"[^{kept}]", "_", text)[:64] or "unknown_tool"


def unopened(arguments: Any) -> bool:
    """Whether a call's argument text never began: ``None``, or text that is empty or only whitespace (not JSON,
    which a finished reply's call may still mean as ``{}``, but a cut reply's call was cut off before it)."""
    return arguments is None or (isinstance(arguments, str) and not arguments.strip())


def cut_call(call: ToolCall | InvalidToolCall, arguments: Any, error: str = CUT_OFF) -> ToolCall | InvalidToolCall:
    """``call`` (read from ``arguments``) as a reply that was cut short leaves it: an InvalidToolCall with ``error``
    (:data:`CUT_OFF`, or :data:`STREAM_CUT`) when it is valid only because its argument text never began
    (:func:`unopened`), else itself.

    Argument text that began but is not closed is already invalid with that error (:func:`native_call` with ``cut``).
    """
    if call.get("type") != "tool_call" or not unopened(arguments):
        return call
    return invalid_tool_call(call.get("name") or None, arguments if isinstance(arguments, str) else "", call.get("id"),
                             error)


def unclosed_error(text: str) -> str:
    """The error of argument text that ends before its JSON is closed, in a reply that finished normally (no token
    limit cut it, so "cut off" would be wrong): the parser's "not valid JSON" sentence, naming where it breaks off
    (``Expecting ',' delimiter at line 1 column 17``)."""
    try:
        json.loads(text)
        where = "the text ends before its JSON is closed"
    except json.JSONDecodeError as exc:
        what = exc.msg.removesuffix(" at")  # "Unterminated string starting at" names its place itself
        where = f"{what} at line {exc.lineno} column {exc.colno}, where the text ends before its JSON is closed"
    except (ValueError, RecursionError):
        where = "the text ends before its JSON is closed"
    return f"The arguments are not valid JSON ({where}); send one complete JSON object such as {EXAMPLE}."


_STREAMED: OrderedDict[str, tuple[str, Mapping[str, Any]]] = OrderedDict()  # call id -> (name, parameters)
_STREAMED_LIMIT = 4096  # the most recent streamed calls remembered (a merge reads them right after the stream)
_STREAMED_LOCK = threading.Lock()


def remember_streamed(pieces: Iterable[Mapping[str, Any]], parameters: Mapping[str, Mapping[str, Any]]) -> None:
    """Remember the called tool's parameters for each streamed tool-call piece that names its call's id and tool,
    so that merging the chunks without the schemas (``merge_chunks(model.stream(...), as_chunk=False)``, which reads
    each call with :func:`native_call` and no ``tool_names``) still shows that tool's shape in the error of
    unreadable arguments, as ``invoke`` does.

    Args:
        pieces: a chunk's ``tool_call_chunks``.
        parameters: ``{tool name: parameters JSON Schema}`` of the request's bound tools.
    """
    for piece in pieces:
        call_id, name = piece.get("id"), piece.get("name")
        if isinstance(call_id, str) and call_id and isinstance(name, str) and isinstance(parameters.get(name), Mapping):
            with _STREAMED_LOCK:
                _STREAMED[call_id] = (name, parameters[name])
                _STREAMED.move_to_end(call_id)
                while len(_STREAMED) > _STREAMED_LIMIT:
                    _STREAMED.popitem(last=False)


def _streamed_parameters(call_id: Any, name: Any) -> Mapping[str, Any] | None:
    """The parameters :func:`remember_streamed` kept for this call (``None``: not streamed here, or another tool)."""
    with _STREAMED_LOCK:
        kept = _STREAMED.get(call_id) if isinstance(call_id, str) else None
    return kept[1] if kept is not None and kept[0] == name else None


def native_call(name: Any, arguments: Any, call_id: Any,
                tool_names: Collection[str] | None = None, *, cut: bool | str = False) -> ToolCall | InvalidToolCall:
    """A provider's native call as a record: valid, or invalid (raw text kept) when the arguments are not a
    JSON object or the name is empty. Streams and whole replies go through this same function.

    Args:
        name: the function name the provider sent.
        arguments: its arguments: JSON text (OpenAI), an object (Anthropic, Gemini), or ``None``.
        call_id: its id. One that is not a string (a number, as some OpenAI-compatible servers send) is kept as
            its text, as the stream keeps it; an empty one gets a new id.
        tool_names: the bound tools' names, listed in the error of a call with no name (``None``: not known
            here, that error names no tools). A mapping ``{name: parameters JSON Schema}`` also gives each tool's
            argument shape, which the error of its unreadable arguments shows as the example
            (``{"path": <string>, "text": <string>}``) instead of a fixed one; without it, the shape
            :func:`remember_streamed` kept for a streamed call of this id.
        cut: the reply was cut short: ``True`` by the token limit (OpenAI ``finish_reason: "length"``, the
            Responses API's ``max_output_tokens``), or the error sentence of another cut (:data:`STREAM_CUT`, a
            stream that ended without a finish reason). Argument text that ends before its JSON is closed, or that
            never began (empty, ``None``: :func:`cut_call`, not ``{}``), then gets :data:`CUT_OFF` (or that
            sentence). ``False``: the reply finished normally.

    Returns:
        A ToolCall, or an InvalidToolCall whose ``error`` is one sentence for the model: with ``cut``,
        :data:`CUT_OFF` (or the sentence given) for argument text that ends before its JSON is closed or never
        began; without, the parser's "not valid JSON" error naming where such text breaks off (:func:`unclosed_error`).
    """
    call = tool_call_from_native(name if isinstance(name, str) else None, arguments,
                                 _id_text(call_id), tool_names=tool_names,
                                 require_name=True)
    cut_error = (CUT_OFF if cut is True else cut) if cut else None
    if call.get("type") != "invalid_tool_call":
        return cut_call(call, arguments, cut_error) if cut_error else call
    error = str(call.get("error") or "")
    if error.startswith(TRUNCATED):
        if cut_error:
            return {**call, "error": cut_error}  # type: ignore[return-value]
        error = unclosed_error(arguments) if isinstance(arguments, str) else error
    parameters = (tool_names.get(call.get("name")) if isinstance(tool_names, Mapping)
                  else _streamed_parameters(call.get("id"), call.get("name")))
    if EXAMPLE in error and isinstance(parameters, Mapping):
        from toolwire._tool_args import argument_example  # (it imports the parsing package)

        error = error.replace(EXAMPLE, argument_example(parameters))
    return {**call, "error": error} if error != call.get("error") else call  # type: ignore[return-value]


def _object_text(text: str) -> bool:
    """Whether ``text`` is the JSON text of an object that every JSON reader takes (no ``NaN`` or
    ``Infinity``, which Python's ``json`` reads but JSON has not)."""
    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    try:
        return isinstance(json.loads(text, parse_constant=refuse), dict)
    except (ValueError, RecursionError):
        return False


def recovered_arguments(text: str, name: str | None = None) -> dict[str, Any]:
    """What can be read of argument text that is not a JSON object, as an object.

    Args:
        text: the raw argument text of an invalid call.
        name: the call's tool name: text holding a whole call to it (what an invalid call read from a reply's text
            keeps: ``{"name": name, "arguments": {...}}``, its arguments also as the JSON text of an object, or a
            ``<function=NAME>`` call with a JSON body or ``<parameter=KEY>`` tags) gives the arguments inside.

    Returns:
        The object :func:`~toolwire.parsing.normalize_arguments` reads from it (a Python dict literal, JSON
        encoded twice); else, for text that opens an object but breaks off or goes wrong, the keys and values
        written before that point (:func:`~toolwire.parsing.partial_value`: a string cut short is kept as far as
        it goes); else ``{}`` (an array, text that is no JSON).
    """
    if name and text.lstrip().startswith(_FUNCTION_TAG):
        return _tag_arguments(text.strip(), name)
    try:
        value: Any = normalize_arguments(text)
    except (ToolCallParseError, RecursionError):
        if not text.lstrip().startswith("{"):
            return {}
        try:
            value = partial_value(text)
        except (ValueError, RecursionError):
            return {}
    if not isinstance(value, dict):
        return {}
    inner = _call_arguments(value, name)
    return value if inner is None else inner  # (a whole call, cut short: its arguments)


def _inner_arguments(text: str, name: Any) -> dict[str, Any] | None:
    """The arguments inside ``text`` when it is the JSON text of a whole call to ``name`` (``{"name": name,
    "arguments": {...}}`` and nothing else), else None."""
    if not isinstance(name, str) or not name:
        return None
    if text.lstrip().startswith(_FUNCTION_TAG):
        return _tag_arguments(text.strip(), name)
    try:
        return _call_arguments(json.loads(text), name)
    except (ValueError, RecursionError):
        return None


def _call_arguments(value: Any, name: Any) -> dict[str, Any] | None:
    """The arguments of ``value`` when it is a whole call to ``name`` (``{"name": name, "arguments": ...}`` and nothing
    else), its arguments an object or the JSON text of one (OpenAI's wire form, which models copy), else None."""
    parts = call_parts(value) if isinstance(name, str) and name else None
    if parts is None or parts.name != name or parts.extra:
        return None
    args = parts.args
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except (ValueError, RecursionError):
            return None
    return args if isinstance(args, dict) else None


def _tag_arguments(text: str, name: str) -> dict[str, Any]:
    """The arguments of ``text``, a ``<function=NAME>`` call to ``name`` (Llama 3.1's JSON body, Qwen3-Coder's
    ``<parameter=KEY>`` tags), read as the function-tag reader reads a call to a bound tool; for a call cut short, what
    its JSON body holds so far; else ``{}``."""
    from toolwire.parsing.function_tags import parse_function_tags

    read = parse_function_tags(text, {name: None})
    if len(read.tool_calls) == 1 and not read.invalid_tool_calls and read.tool_calls[0]["name"] == name:
        return dict(read.tool_calls[0]["args"])
    body = text[text.find(">") + 1:].strip() if text.startswith(f"{_FUNCTION_TAG}{name}>") else ""
    if body.endswith("</function>"):
        body = body[:-len("</function>")]
    return recovered_arguments(body) if body.startswith("{") else {}


def arguments_json(call: ToolCall | InvalidToolCall) -> str:
    """A past call's arguments as the JSON text of an object, for the APIs that carry them as text (OpenAI Chat
    Completions ``function.arguments``, the Responses API's ``function_call`` items).

    Args:
        call: a call of an earlier assistant turn, valid or invalid.

    Returns:
        Its arguments' JSON text: a valid call's arguments (as :func:`json_arguments` writes them); an invalid
        call's raw text when it is a JSON object already (a call without a name, say) other than a whole call to its
        own tool (``{"name": <its name>, "arguments": {...}}``, what a call read from a reply's text keeps: review 177
        #5), else :func:`recovered_arguments` of it (the arguments inside such a call; ``{}`` when nothing can be
        read); ``{}`` for none. Never text that does
        not parse: vLLM and SGLang read every past call's ``arguments`` with ``json.loads`` and answer 400 for one
        that fails, on every later request of the conversation (vllm-project/vllm#43995); the call's error result
        tells the model what was wrong with it.

    Raises:
        UserError: the arguments hold a value JSON cannot carry (see :func:`json_arguments`).
    """
    raw = call.get("args")
    if isinstance(raw, str):
        if _object_text(raw) and _inner_arguments(raw, call.get("name")) is None:
            return raw
        recovered: Any = recovered_arguments(raw, call.get("name")) if raw.strip() else {}
    else:
        recovered = raw if isinstance(raw, dict) else {}
    return json.dumps(json_arguments(call, recovered), ensure_ascii=False, allow_nan=False)


def json_arguments(call: ToolCall | InvalidToolCall, args: dict[str, Any]) -> dict[str, Any]:
    """A past call's arguments as JSON data, the same for every provider (OpenAI's argument text, Anthropic's
    ``input``, Gemini's ``args``): written as a tool's result is (:mod:`toolwire._result_json`), so a ``date`` or
    ``datetime`` becomes its ISO text, a ``Decimal`` or ``UUID`` its text, a set or tuple a list, UTF-8 ``bytes``
    text, and a NaN or infinite float the string ``"NaN"``, ``"Infinity"`` or ``"-Infinity"`` (JSON has no such
    number; review 136 #8).

    Args:
        call: the call of an earlier assistant turn (its name and id are named in the error).
        args: its arguments, a dict.

    Returns:
        ``args`` itself when it is JSON data already, else a new dict of its JSON form.

    Raises:
        UserError: a value has no JSON form (``bytes`` that are not UTF-8 text, a dict or list that holds itself).
    """
    try:
        json.dumps(args, allow_nan=False)
        return args
    except (TypeError, ValueError, RecursionError):  # not JSON data as it is: its JSON form, as a result's
        pass
    try:
        return json.loads(_dumps(args))  # type: ignore[no-any-return]
    except (TypeError, ValueError, RecursionError) as exc:
        what = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        name = call.get("name")
        which = f"the earlier call to {name!r}" if name else "an earlier call"
        raise UserError(f"The arguments of {which} (id {call.get('id')!r}) hold a value JSON cannot carry ({what}): "
                        "give a call's arguments as text, numbers, True/False, None, lists and dicts.") from None


def arguments_object(call: ToolCall | InvalidToolCall) -> dict[str, Any]:
    """A past call's arguments as an object, for the APIs that carry them decoded (Anthropic's ``tool_use``
    ``input``, Gemini's ``function_call`` ``args``).

    Args:
        call: a call of an earlier assistant turn, valid or invalid.

    Returns:
        A valid call's arguments (``{}`` when they are not an object); for an invalid call, what can be read of its
        text, as :func:`arguments_json` sends it to the OpenAI APIs (``{}`` when nothing can be read). The call's
        error result tells the model what was wrong with it. Python values JSON has no form for are written as
        :func:`json_arguments` writes them, as for the OpenAI APIs.

    Raises:
        UserError: the arguments hold a value JSON cannot carry (see :func:`json_arguments`).
    """
    if call.get("type") == "invalid_tool_call":
        try:
            value = json.loads(arguments_json(call))
        except (ValueError, RecursionError):
            return {}
        return value if isinstance(value, dict) else {}
    args = call.get("args")
    return json_arguments(call, args) if isinstance(args, dict) else {}


def unclosed_arguments(arguments: Any) -> bool:
    """Whether a call's argument text ends before its JSON is closed (the parser's ``TRUNCATED`` error): text that
    a token limit may have cut. Empty or blank text is not (it reads as ``{}``, a call of no arguments), nor is
    anything but text.
    """
    if not isinstance(arguments, str):
        return False
    try:
        normalize_arguments(arguments)
    except ToolCallParseError as exc:
        return str(exc).startswith(TRUNCATED)
    except Exception:  # any other reading failure: not a cut
        return False
    return False


_SAID_CUT = re.compile(r"\bcut off\b", re.IGNORECASE)
"""What the text readers' errors for a call whose text ends before it is closed say: the pythonic reader's "The call is
cut off before its closing parenthesis", the ``<function=NAME>`` reader's "The call ends before it is closed (it looks
cut off)", the Qwen3-Coder XML reader's "The tool call was cut off before its closing tag", Mistral's "ends right after
[ARGS] (it looks cut off)"."""


def _read_as_unclosed(bad: Mapping[str, Any]) -> bool:
    """Whether the reader of a call written in the reply's text (pythonic, ``<function=NAME>``, Qwen3-Coder XML,
    Mistral) found its text ending before the call was closed, which its error says (:data:`_SAID_CUT`): text a token
    limit may have cut, as :func:`unclosed_arguments` is for JSON (review 214 #2)."""
    return isinstance(bad.get("args"), str) and bool(_SAID_CUT.search(str(bad.get("error") or "")))


def read_as_cut(invalid: list[InvalidToolCall], finish: Any, usage: Any,
                limit: Any) -> tuple[list[InvalidToolCall], Any]:
    """The invalid calls of an OpenAI chat reply with those whose argument text is not closed given the
    :data:`CUT_OFF` error, when the reply was cut at its output token limit; the one rule of ``ChatOpenAI.invoke``
    and its stream, for calls the server sent and calls read from the reply's text alike.

    A reply was cut when its ``finish_reason`` is ``"length"`` (OpenAI's chat completions reference), or when
    ``limit`` is given and ``usage`` shows every output token of it used while the server said otherwise
    (llama-cpp-python's server answers ``"tool_calls"`` or ``"stop"`` for a reply it stopped at ``max_tokens``;
    reviews 90 and 91). A call is taken as not closed when its JSON argument text is not (:func:`unclosed_arguments`)
    or when the reader of a call written as text (pythonic ``name(...)``, ``<function=NAME>``, Qwen3-Coder XML,
    Mistral ``[ARGS]``) said its text ends before the call is closed (review 214 #2). Other invalid calls (an unknown
    tool, a value that is not JSON) keep their own error.

    Args:
        invalid: the reply's ``invalid_tool_calls``.
        finish: the reply's ``finish_reason`` as the server sent it (None when it sent none).
        usage: the reply's token counts (``{"output_tokens": int, ...}``), or None.
        limit: the request's output token limit in tokens (``max_tokens``) where the server's ``finish_reason``
            is not to be trusted (an OpenAI-compatible server), else None.

    Returns:
        ``(calls, finish_reason)``: the calls (``invalid`` itself when none changed) and ``"length"`` when the
        limit rule changed a call, else ``finish``.
    """
    used = usage.get("output_tokens") if isinstance(usage, dict) else None
    at_limit = type(limit) is int and type(used) is int and used >= limit
    if not invalid or not (finish == "length" or at_limit):
        return invalid, finish
    cut = [{**bad, "error": CUT_OFF} if bad.get("error") != CUT_OFF and (unclosed_arguments(bad.get("args")) or
                                                                          _read_as_unclosed(bad)) else bad
           for bad in invalid]
    if cut == invalid:
        return invalid, finish
    return cut, "length"  # type: ignore[return-value]
