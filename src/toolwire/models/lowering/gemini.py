"""Gemini codec: tools, messages, requests and replies for the Gemini API (``generateContent``).

Pure functions, no I/O; :class:`toolwire.models.google.ChatGoogleGenAI` does the calls through the
google-genai SDK, whose Python field names (snake_case) the lowered dicts use; replies are read in either
that form or the REST form (camelCase). Formats, from the Gemini API reference ("Generating content",
"Caching"/"Function calling" guides, ``Schema``, ``FunctionDeclaration``, ``ToolConfig``):

* tools: ``[{"function_declarations": [{"name", "description", "parameters"}]}]`` where ``parameters`` is
  the OpenAPI subset ``Schema``: ``type`` (``STRING``, ``INTEGER``, ``NUMBER``, ``BOOLEAN``, ``ARRAY``,
  ``OBJECT``), ``description``, ``nullable``, ``enum`` (strings), ``format``, ``items``, ``properties``,
  ``required``, ``any_of``, ``min_items``, ``max_items``. No ``$defs``/``$ref`` (inlined here), no
  ``default``, ``title``, ``additionalProperties`` or ``$schema``; ``anyOf [X, null]`` becomes nullable X;
  a tool without parameters sends no ``parameters`` (an ``OBJECT`` needs non-empty ``properties``: the API
  answers 400 "should be non-empty for OBJECT type"), and a nested object without properties (``dict[str,
  X]``, ``dict``) is sent as a ``STRING`` holding its JSON text, which toolwire decodes before validating;
  so is an untyped node (``Any``, bare ``list`` items: every node needs a ``type``), decoded in the calls'
  args (:func:`json_text_plan`); a tuple is an ``ARRAY`` of the ``any_of`` of its item types
  (:mod:`toolwire.models.lowering._gemini_schema`). Other keywords (``minimum``, ``pattern``,
  ``minLength``...) are dropped with a debug log; toolwire still validates them before running the tool.
* ``tool_config.function_calling_config``: ``{"mode": "AUTO" | "ANY" | "NONE", "allowed_function_names"}``.
  Gemini has no switch for parallel calls: with ``parallel_tool_calls=False`` the reply is read whole, and
  :class:`~toolwire.models.base.BaseChatModel` keeps one call of it (:mod:`toolwire.models._one_call`: the first, or
  a structured output's first call that fits its schema), logs the others and counts them, as for every provider
  (review 185 #2: the first was kept here, before a structured output could pick the one that fits). A model turn
  sent back with fewer calls than its kept parts loses the dropped calls' parts (:func:`_model_parts`).
* ``contents``: ``{"role": "user" | "model", "parts": [...]}``; parts ``text``, ``inline_data``,
  ``function_call`` ``{"name", "args", "id"?}``, ``function_response`` ``{"name", "response", "id"?}``;
  ``thought`` / ``thought_signature`` parts, and the parts of a reply whose calls carry Gemini ids, are kept on
  the AIMessage
  (``provider_data["gemini"]["parts"]``, signatures as standard base64) and sent back byte-identical
  (:mod:`toolwire.models.lowering._gemini_parts`); empty text parts without a signature are dropped. User
  blocks (images, files, audio, video) become ``inline_data``/``file_data``. The results of one model turn go in one
  user turn of ``function_response`` parts, in the order of the calls.
* replies: ``finishReason``, ``promptFeedback.blockReason`` and, where the reply read has it, ``finishMessage``
  are kept in ``response_metadata`` (google-genai drops ``finishMessage`` from a Gemini API reply, so through
  ``ChatGoogleGenAI`` it is not there), and so are the sources of a grounded answer (``grounding_metadata``: the
  ``google_search`` tool's source URIs, supports, queries and Search Suggestions; ``url_context_metadata``,
  ``citation_metadata``) and requested logprobs (``logprobs``), never sent back
  (:mod:`toolwire.models.lowering._gemini_extras`); ``MALFORMED_FUNCTION_CALL`` and ``UNEXPECTED_TOOL_CALL`` (no
  ``functionCall`` part; the ``finishMessage``, when present, holds what the model wrote) become an InvalidToolCall,
  answered like any invalid call so the model retries; the function call a reply cut at ``MAX_TOKENS`` ended on is
  one with the cut-off error, never run (review 193 #2). The other reasons that end a candidate before an answer
  (google-genai's ``FinishReason``) are read by meaning (:mod:`toolwire.models.lowering._gemini_finish`): content
  blocks are refusals, the reasons of a request or reply that failed a :class:`~toolwire.errors.ProviderError`
  (review 136 #5).
  Code execution parts (``executableCode``, ``codeExecutionResult``) are kept with the other parts and sent
  back unchanged; the text shows them as fenced blocks (:mod:`toolwire.models.lowering._gemini_code`).
  A stream whose chunks never bring a ``finishReason`` (nor a ``blockReason``) was cut short: its
  :class:`StreamState` raises a retryable ProviderError when it ends.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from toolwire._gemini_tool_checks import check_tool_choice, check_tool_name
from toolwire.errors import UserError
from toolwire.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    SystemMessage,
    ToolMessage,
)
from toolwire.models._text_content import media_note
from toolwire.models.base import ChatRequest, ServerTool, to_tool_spec
from toolwire.models.lowering._calls import GEMINI_NAME, sent_call_name
from toolwire.models.lowering._common import (
    arguments_object,
    assistant_calls,
    call_names,
    group_messages,
    log,
    merge_options,
    native_call,
    sent_text,
    split_calls,
    system_text,
    tool_result_text,
)
from toolwire.models.lowering._gemini_code import CODE_PARTS, VisibleText
from toolwire.models.lowering._gemini_declarations import gemini_declaration
from toolwire.models.lowering._gemini_extras import ReplyExtras, gemini_usage
from toolwire.models.lowering._gemini_finish import cut_call, ended, malformed_call, no_candidate
from toolwire.models.lowering._gemini_parts import (
    add_content,
    is_empty_text,
    read_part,
    sdk_part,
    sign_rebuilt_calls,
    start_with_user,
    user_parts,
)
from toolwire.models.lowering._gemini_schema import (
    JsonPath,
    arguments_text,
    call_args,
    gemini_schema,
    json_text_plan,
)
from toolwire.models.lowering._stream import ToolCallMerger
from toolwire.models.lowering._stream_errors import cut_short, not_a_reply

__all__ = [
    "StreamState",
    "check_tool_choice",
    "check_tool_name",
    "convert_to_gemini_tool",
    "gemini_schema",
    "json_text_plan",
    "lower_messages",
    "lower_request",
    "parse_response",
]

def convert_to_gemini_tool(tool: Any) -> dict[str, Any]:
    """Return the Gemini ``FunctionDeclaration`` of a tool, function, pydantic model or tool dict.

    Args:
        tool: anything :meth:`~toolwire.models.base.BaseChatModel.bind_tools` takes as one tool, or a google-genai
            ``FunctionDeclaration`` (object or dict; its Gemini ``Schema`` read as JSON Schema: review 298 #2).

    Returns:
        ``{"name", "description", "parameters"?}`` (no ``parameters`` for a tool without arguments).
        What the subset cannot say is dropped and named in a debug log of ``toolwire.lowering``.

    Raises:
        SchemaError: the name is not valid for Gemini (a letter or ``_`` first, then letters, digits,
            ``_ . : -``, 64 at most), or the schema is recursive.
    """
    spec = to_tool_spec(gemini_declaration(tool))
    check_tool_name(spec.name)
    schema, dropped = gemini_schema(spec.parameters, spec.name)
    if dropped:
        log.debug("gemini: tool %s: dropped %s (toolwire still validates them before running the tool)",
                  spec.name, ", ".join(dropped))
    out: dict[str, Any] = {"name": spec.name, "description": spec.description}
    if schema is not None:
        out["parameters"] = schema
    return out


# --------------------------------------------------------------------------- messages

def _decoded(value: Any) -> Any:
    """``value`` with each string that is JSON text decoded (to compare kept args with decoded ones)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    if isinstance(value, dict):
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def _same_call(call: Any, kept: dict[str, Any]) -> bool:
    """Whether a call of the message is still the kept ``function_call`` part (so the parts go back as they
    are); its args may hold the decoded form of JSON text the kept part has (see :func:`json_text_plan`)."""
    if call.get("name") != kept.get("name"):
        return False
    if call.get("type") == "invalid_tool_call":
        return True
    args, kept_args = call.get("args"), kept.get("args") or {}
    return args == kept_args or _decoded(args) == _decoded(kept_args)


def _without_dropped(kept: list[dict[str, Any]], calls: list[Any]) -> list[dict[str, Any]]:
    """The kept parts of a reply whose message holds fewer calls than they do (``parallel_tool_calls=False`` or a
    structured output kept one: :mod:`toolwire.models._one_call`), without the dropped calls' parts, so that the
    turn goes back with its thoughts and signatures; ``[]`` (the turn is rebuilt from the message) when the calls
    are not those parts in order, or a dropped part carries a thought signature (Gemini signs a reply's first call,
    and a signature belongs to its own part)."""
    out: list[dict[str, Any]] = []
    left = list(calls)
    for part in kept:
        if "function_call" not in part:
            out.append(part)
        elif left and _same_call(left[0], part["function_call"]):
            out.append(part)
            left.pop(0)
        elif "thought_signature" in part:
            return []
    return out if not left else []


def _model_parts(message: AIMessage) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The parts of a model turn, and the Gemini ids of its calls (by toolwire call id)."""
    calls = assistant_calls(message, GEMINI_NAME)
    kept = ((message.provider_data or {}).get("gemini") or {}).get("parts") or []
    kept_calls = [p["function_call"] for p in kept if "function_call" in p]
    if kept and len(kept_calls) > len(calls):  # calls dropped after the reply was read (one call kept)
        kept = _without_dropped(kept, calls)
        kept_calls = [p["function_call"] for p in kept if "function_call" in p]
    if kept and len(kept_calls) == len(calls) and all(map(_same_call, calls, kept_calls)):
        ids = {str(c["id"]): str(k["id"]) for c, k in zip(calls, kept_calls, strict=True) if k.get("id")}
        if VisibleText().of(kept) != message.text:  # an edited copy (model_copy(update={"content": ...})): its
            # text replaces the kept text parts, where the first of them was; thoughts and calls, signed, stay as
            # they are (review 98 #3: the kept parts' original text went out)
            visible = [i for i, p in enumerate(kept) if "text" in p and not p.get("thought")]
            kept = [p for i, p in enumerate(kept) if i not in visible]
            if (text := sent_text(message)).strip():
                kept.insert(visible[0] if visible else 0, {"text": text})
        return [sdk_part(p) for p in kept if not is_empty_text(p)], ids
    text = sent_text(message)
    parts: list[dict[str, Any]] = [{"text": text}] if text.strip() else []
    parts.extend({"function_call": {"name": c.get("name") or "unknown_tool", "args": arguments_object(c)}}
                 for c in calls)
    return parts, {}


def _answered_name(message: ToolMessage, turn_names: dict[str, list[str]]) -> str | None:
    """The name, as sent, of the call that ``message`` answers, of the model turn right before its results
    (``turn_names``: that turn's call ids -> their names as sent, in call order; its names are taken as they are
    used): Gemini's reference says a ``FunctionResponse.name`` matches its ``FunctionCall.name``, and without call ids
    (Gemini 2.x) the name is how a response finds its call, so a ToolMessage's own ``name`` that says something else
    (a display label) is not sent (review 279 #3). Where the turn repeats the id, the call whose name is the
    message's, else the next in call order. None when no call of the turn has the message's id."""
    found = turn_names.get(message.tool_call_id)
    if not found:
        return None
    own = sent_call_name(message.name, GEMINI_NAME) if message.name else None
    name = own if own in found else found[0]
    if len(found) > 1:
        found.remove(name)
    return name


_MEDIA_WHY = "toolwire sends only the text of a tool result to Gemini"
_TOLD_MEDIA: list[bool] = []  # (logged once per process)


def _result_text(message: ToolMessage) -> str:
    """The text of a tool result (:func:`tool_result_text`), an image, audio or file block a note that toolwire
    does not send it, logged once: Gemini 3's ``FunctionResponse.parts`` takes media, so the note says what toolwire
    does, not that the API cannot (review 298 #3)."""
    if not _TOLD_MEDIA and not isinstance(message.content, str) and any(
            isinstance(b, dict) and media_note(b) is not None for b in message.content):
        _TOLD_MEDIA.append(True)
        log.warning("gemini: a tool result holds an image (or audio, or a file), which toolwire does not send to "
                    "Gemini (only the result's text): the model reads a note that it is not shown; to show it, put "
                    "it in a user message.")
    return tool_result_text(message, _MEDIA_WHY)


def lower_messages(messages: list[BaseMessage]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Lower a conversation to Gemini's ``(system_instruction, contents)``.

    System messages become the ``system_instruction`` (one after the conversation started with a logged warning:
    its place is lost); the results of one model turn become one ``user``
    content of ``function_response`` parts (``{"result": text}``, or ``{"error": text}`` for a failed call),
    in the order of the calls (text of list content joined, case E4); a kept model turn is sent back with
    its parts (thought signatures) unchanged; empty text is dropped. Consecutive model turns are one content (their
    parts joined, signatures kept), as are consecutive user turns, since Gemini answers 400 "function call turn
    comes immediately after a user turn or after a function response turn" otherwise (review 246 #1). A conversation
    whose first turn makes a function call is given as it is (:func:`lower_request` puts a short user turn first:
    :func:`~toolwire.models.lowering._gemini_parts.start_with_user`).

    Args:
        messages: the conversation, toolwire messages in order.

    Returns:
        ``(system_instruction or None, [{"role": "user" | "model", "parts": [...]}])``.
    """
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    names = call_names(messages)
    gemini_ids: dict[str, str] = {}
    turn_names: dict[str, list[str]] = {}  # the last model turn's call ids -> their names as sent, in call order
    for item in group_messages(messages):
        if isinstance(item, list):
            parts = []
            for m in item:
                key = "error" if m.status == "error" else "result"
                name = _answered_name(m, turn_names) or sent_call_name(m.name or names.get(m.tool_call_id),
                                                                       GEMINI_NAME)
                response: dict[str, Any] = {"name": name, "response": {key: _result_text(m)}}
                if m.tool_call_id in gemini_ids:
                    response["id"] = gemini_ids[m.tool_call_id]
                parts.append({"function_response": response})
            contents.append({"role": "user", "parts": parts})
        elif isinstance(item, SystemMessage):
            if (text := system_text(item, "Gemini")).strip():
                if contents:  # (logged as Anthropic's is: review 229 #4)
                    log.warning("gemini: a SystemMessage after the conversation started is sent in the "
                                "system_instruction (Gemini has no system role in contents), not at its place")
                system.append(text)
        elif isinstance(item, AIMessage):
            parts, ids = _model_parts(item)
            gemini_ids.update(ids)
            turn_names = {}
            for call in assistant_calls(item, GEMINI_NAME):
                turn_names.setdefault(str(call.get("id")), []).append(call.get("name") or "unknown_tool")
            add_content(contents, "model", parts)
        else:
            add_content(contents, "user", user_parts(item.content))
    instruction = {"parts": [{"text": "\n\n".join(system)}]} if system else None
    return instruction, contents


def lower_request(request: ChatRequest, model: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the keyword arguments of ``client.models.generate_content`` (``model``, ``contents``, ``config``).

    ``config`` holds ``system_instruction``, ``tools``, ``tool_config``, ``automatic_function_calling``
    (disabled: toolwire runs the tools) and the options: ``max_tokens`` becomes ``max_output_tokens``,
    ``stop`` ``stop_sequences``; a ``tool_config`` (its ``retrieval_config`` only, checked when given) is merged
    with the function calling config; ``temperature``, ``top_p``, ``seed`` and other keys pass as is. ``contents`` are
    :func:`lower_messages`'s, with a short user turn first when the first turn makes a function call (a history
    trimmed to start at a call, which Gemini refuses with 400; review 246 #1).

    Args:
        request: messages, tools, tool_choice, parallel_tool_calls, per-call options.
        model: the model name.
        options: model-level default options (overridden by ``request.options``).

    Returns:
        ``{"model", "contents", "config"}``.

    A ``tool_choice`` of ``"none"`` with only server tools bound is not sent (Gemini refuses a function calling
    config without function declarations), with a warning that the model may still use them.

    Raises:
        UserError: the ``tools`` option is not a list, a server tool is another provider's, or ``tool_choice``
            forces a server tool (:func:`check_tool_choice`).
        SchemaError: a bound tool cannot be written as a Gemini function declaration.
    """
    system, contents = lower_messages(request.messages)
    start_with_user(contents)  # (a history that starts at a call: review 246 #1)
    config: dict[str, Any] = {}
    if system:
        config["system_instruction"] = system
    functions = [t for t in request.tools if not isinstance(t, ServerTool)]
    servers = [_server_tool(t) for t in request.tools if isinstance(t, ServerTool)]
    if servers:  # each server tool is its own Tool entry, next to the function declarations
        config["tools"] = servers
    choice = request.tool_choice
    check_tool_choice(choice, request.tools)
    if servers and not functions and choice == "none":  # (no function calling config without functions: a 400)
        log.warning("gemini: tool_choice='none' cannot turn off Gemini's server tools (%s), so the model may still "
                    "use them: bind no server tools for a reply without them.",
                    ", ".join(t.name for t in request.tools))
    if functions:
        config["tools"] = [{"function_declarations": [convert_to_gemini_tool(t) for t in functions]}, *servers]
        if choice:
            mode = {"auto": "AUTO", "none": "NONE", "required": "ANY"}.get(choice, "ANY")
            calling: dict[str, Any] = {"mode": mode}
            if choice not in ("auto", "none", "required"):
                calling["allowed_function_names"] = [choice]
            config["tool_config"] = {"function_calling_config": calling}
        if request.parallel_tool_calls is False:
            log.debug("gemini: no setting disables parallel calls; toolwire keeps one call of each reply")
    config["automatic_function_calling"] = {"disable": True}
    for key, value in merge_options(options, request.options).items():
        if key == "max_tokens":
            config["max_output_tokens"] = value
        elif key == "stop":
            config["stop_sequences"] = [value] if isinstance(value, str) else list(value)
        elif key == "tools":  # model_kwargs={"tools": [...]} comes after the bound tools, never instead of them
            if not isinstance(value, list | tuple):
                raise UserError(f"The 'tools' option must be a list of Gemini Tool dicts, not {type(value).__name__}.")
            config["tools"] = [*config.get("tools", []), *value]
        elif key == "tool_config":  # its retrieval_config (a location), beside the calling config (review 303 #3)
            given = {k: v for k, v in value.items() if v is not None}  # (checked: _sdk_options._refuse_built)
            config["tool_config"] = {**given, **config.get("tool_config", {})}
        else:
            config[key] = value
    if _SIGNED.match(model):
        sign_rebuilt_calls(contents)
    return {"model": model, "contents": contents, "config": config}


def _server_tool(spec: ServerTool) -> dict[str, Any]:
    """A Gemini server tool's ``Tool`` dict, unchanged (``{"google_search": {}}``...).

    Raises:
        UserError: the server tool is another provider's (Anthropic's ``web_search_20250305``...).
    """
    if spec.provider != "google":
        raise UserError(f"Tool {spec.definition!r} is not a Gemini server tool, so Gemini cannot run it: bind it to "
                        "the provider it belongs to.")
    return copy.deepcopy(spec.definition)


_SIGNED = re.compile(r"^(models/)?gemini-3")  # models that refuse a function call without a thought signature


# --------------------------------------------------------------------------- replies


def _get(data: dict[str, Any], snake: str) -> Any:
    if snake in data:
        return data[snake]
    head, *rest = snake.split("_")
    return data.get(head + "".join(w.title() for w in rest))


def _as_dict(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return obj
    return obj.model_dump(mode="json", exclude_none=True)  # type: ignore[no-any-return]


def _reply_parts(data: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Candidate 0's parts (snake_case, empty text parts without a signature left out) and itself (``{}`` when the
    reply or chunk has none). Candidate 0 is the one whose ``index`` is 0 or absent (proto JSON leaves a 0 out): with
    ``candidate_count`` > 1 a stream chunk may carry only another candidate, whose text and calls are not the
    reply's (review 298 #5)."""
    candidate = next((c for c in data.get("candidates") or () if isinstance(c, dict) and not c.get("index")), {})
    parts = [read_part(p) for p in (candidate.get("content") or {}).get("parts") or ()]
    return [p for p in parts if not is_empty_text(p)], candidate


def _outcome(data: dict[str, Any], candidate: dict[str, Any]) -> dict[str, Any]:
    """What the reply says of how it ended: ``finish_reason`` and ``finish_message`` of the candidate
    (``STOP``, ``MAX_TOKENS``, ``SAFETY``, ``RECITATION``, ``MALFORMED_FUNCTION_CALL``...), ``block_reason``
    and ``block_reason_message`` of ``promptFeedback`` (a prompt blocked before any candidate)."""
    feedback = _get(data, "prompt_feedback") or {}
    found = {"finish_reason": _get(candidate, "finish_reason"), "finish_message": _get(candidate, "finish_message"),
             "block_reason": _get(feedback, "block_reason"),
             "block_reason_message": _get(feedback, "block_reason_message")}
    return {k: v for k, v in found.items() if v is not None}


def _metadata(model: Any, outcome: dict[str, Any], dropped: int, extras: ReplyExtras | None = None) -> dict[str, Any]:
    data = {"model": model, "model_name": model, **ended(outcome), "dropped_tool_calls": dropped or None,
            **(extras.metadata() if extras else {})}
    return {k: v for k, v in data.items() if v is not None}


def _opaque(parts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The reply's parts to send back as they are, when they hold what toolwire's own message cannot carry:
    thought signatures, code parts, or Gemini's call ids (each ``function_response`` then names its call's
    ``id``, as the API reference asks of a call that had one; review 53)."""
    if any("thought_signature" in p or p.get("thought") or any(k in p for k in CODE_PARTS)
           or (p.get("function_call") or {}).get("id") for p in parts):
        return {"gemini": {"parts": parts}}
    return None


def parse_response(obj: Any, *, single_call: bool = False, tool_names: Collection[str] | None = None,
                   json_text: Mapping[str, list[JsonPath]] | None = None) -> AIMessage:
    """Read a ``GenerateContentResponse`` (REST JSON, snake_case dict, or the SDK object).

    Args:
        obj: the reply.
        single_call: the request asked for one call (``parallel_tool_calls=False``). Every call is read all the
            same: :class:`~toolwire.models.base.BaseChatModel` keeps one of them (:func:`~toolwire.models._one_call.
            one_call`: the first, or a structured output's first call that fits its schema) and counts the others
            in ``response_metadata["dropped_tool_calls"]``, as for every provider (review 185 #2).
        tool_names: the bound tools' names, listed in the error of a call that has no name (``None``: not
            known, the error names no tools).
        json_text: :func:`json_text_plan` of the bound tools: the JSON text sent for untyped values there
            is decoded in the calls' args (the kept parts keep it as sent).

    Returns:
        An AIMessage: text of candidate 0's non-thought parts (the candidate whose ``index`` is 0 or absent; the
        others of ``candidate_count`` > 1 are left out, in a stream too; code execution parts as fenced blocks), one
        call per ``function_call`` part (id = Gemini's when sent, else a new one),
        ``provider_data["gemini"]["parts"]`` when parts carry thought signatures, thoughts, code
        execution or call ids, usage in tokens (input includes the tool-use prompt's, output the thinking tokens),
        ``response_metadata`` ``{"model", "finish_reason", "finish_message"?, "block_reason"?,
        "block_reason_message"?, "grounding_metadata"?, "url_context_metadata"?, "citation_metadata"?,
        "logprobs"?}`` (the sources of a grounded answer and the logprobs asked for, keys in snake_case; see
        :mod:`~toolwire.models.lowering._gemini_extras`); a ``MALFORMED_FUNCTION_CALL`` reply has one InvalidToolCall
        (see :func:`~toolwire.models.lowering._gemini_finish.malformed_call`), and so has a ``MAX_TOKENS`` reply for
        the call it ended on (:func:`~toolwire.models.lowering._gemini_finish.cut_call`: never run).

    Raises:
        NotAReply: ``obj`` has no ``candidates``, no ``promptFeedback`` and none of Gemini's own fields (not a Gemini
            reply: ``{}``, a gateway's JSON, another API's reply).
        ProviderError: a Gemini reply (``usageMetadata``, ``modelVersion``...) brought no candidate and no
            ``promptFeedback`` (retryable; :func:`~toolwire.models.lowering._gemini_finish.no_candidate`), or the
            candidate's finish reason says the request or the reply failed
            (``MISSING_THOUGHT_SIGNATURE``, ``MALFORMED_RESPONSE``...; see
            :func:`~toolwire.models.lowering._gemini_finish.ended`).
    """
    data = _as_dict(obj)
    if not _get(data, "candidates") and not _get(data, "prompt_feedback"):
        raise no_candidate(data) or not_a_reply(data, "candidates")
    kept_parts, candidate = _reply_parts(data)  # (every call, with single_call too: see above)
    text = VisibleText().of(kept_parts)
    called = [p["function_call"] for p in kept_parts if "function_call" in p]
    calls = [native_call(c.get("name"), call_args(c, json_text), c.get("id"), tool_names) for c in called]
    outcome = _outcome(data, candidate)
    if calls and (cut := cut_call(outcome, kept_parts, called[-1].get("name"), arguments_text(called[-1], json_text),
                                  calls[-1].get("id"))) is not None:
        calls[-1] = cut  # the call the token limit stopped the reply in: not run (review 193 #2)
    valid, invalid = split_calls(calls)
    extras = ReplyExtras()
    extras.add(candidate)
    malformed = malformed_call(outcome, tool_names, len(calls))
    if malformed is not None:
        invalid.append(malformed)
    return AIMessage(text, tool_calls=valid, invalid_tool_calls=invalid,
                     usage=gemini_usage(_get(data, "usage_metadata")),
                     response_metadata=_metadata(_get(data, "model_version"), outcome, 0, extras),
                     provider_data=_opaque(kept_parts), id=_get(data, "response_id"))


class StreamState:
    """Folds ``streamGenerateContent`` chunks (each a ``GenerateContentResponse``) into AIMessageChunks.

    Text parts are yielded as they come; each ``function_call`` part is one whole call. Consecutive text
    parts are joined (a thought signature stays on the part it came with) and empty ones without a signature
    are left out, so the kept parts, calls and metadata equal those of the same reply read by
    :func:`parse_response` (``tool_names`` and ``json_text`` as there); code execution parts give the same
    text there and here.

    Raises:
        ProviderError: in :meth:`finish`, no chunk brought a ``finishReason`` or a ``blockReason``: the stream
            was cut short (retryable).
    """

    def __init__(self, *, single_call: bool = False, tool_names: Collection[str] | None = None,
                 json_text: Mapping[str, list[JsonPath]] | None = None) -> None:
        self.merger = ToolCallMerger()
        self.single_call = single_call
        self.tool_names = tool_names
        self.json_text = json_text
        self.parts: list[dict[str, Any]] = []
        self.calls = 0
        self.id: str | None = None
        self.model: str | None = None
        self.outcome: dict[str, Any] = {}
        self.raw_usage: Any = None
        self.visible = VisibleText()
        self.extras = ReplyExtras()

    def _keep_text(self, part: dict[str, Any]) -> None:
        last = self.parts[-1] if self.parts else None
        if (last is not None and "text" in last and "thought_signature" not in last
                and bool(last.get("thought")) == bool(part.get("thought"))):
            last["text"] += part.get("text") or ""
            if "thought_signature" in part:
                last["thought_signature"] = part["thought_signature"]
        else:
            self.parts.append(dict(part))

    def feed(self, event: Any) -> AIMessageChunk | None:
        """Return the text and calls of one streamed ``event`` (a response chunk) as an AIMessageChunk, or ``None``."""
        data = _as_dict(event)
        parts, candidate = _reply_parts(data)
        self.id = self.id or _get(data, "response_id")
        self.model = _get(data, "model_version") or self.model
        self.outcome.update(_outcome(data, candidate))
        self.extras.add(candidate)
        if _get(data, "usage_metadata"):
            self.raw_usage = _get(data, "usage_metadata")
        text: list[str] = []
        pieces = []
        for part in parts:
            if "function_call" in part:
                self.calls += 1  # (every call, with single_call too: see parse_response)
                call = part["function_call"]
                pieces.append(self.merger.add(index=self.calls, id=call.get("id"), name=call.get("name"),
                                              args=call_args(call, self.json_text) or {}))
                self.parts.append(part)
            elif "text" in part:
                text.append(self.visible.add(part))
                self._keep_text(part)
            else:
                text.append(self.visible.add(part))
                self.parts.append(part)
        if not any(text) and not pieces:
            return None
        return AIMessageChunk("".join(text), tool_call_chunks=pieces, id=self.id)

    def finish(self) -> AIMessageChunk:
        """Return the closing chunk: usage, ``response_metadata`` as :func:`parse_response` has it, kept parts when
        opaque, the InvalidToolCall of a ``MALFORMED_FUNCTION_CALL`` reply, and that of the call a ``MAX_TOKENS``
        reply ended on (under the id its chunk had, so the merged message has it in place of that call: never run).

        Raises:
            ProviderError: no chunk brought a ``finishReason`` or a ``blockReason`` (retryable), or the finish reason
                says the request or the reply failed, as in :func:`parse_response`.
        """
        if not self.outcome.get("finish_reason") and not self.outcome.get("block_reason"):
            raise cut_short("google", "chunk with a finishReason")
        malformed = malformed_call(self.outcome, self.tool_names, self.calls)
        if len(self.merger) and (last := self.merger.tool_calls()[-1]):  # (review 193 #2)
            malformed = malformed or cut_call(self.outcome, self.parts, last.get("name"),
                                              self.merger.raw_args(len(self.merger) - 1), last.get("id"))
        return AIMessageChunk(usage=gemini_usage(self.raw_usage),
                              response_metadata=_metadata(self.model, self.outcome, 0, self.extras),
                              invalid_tool_calls=[malformed] if malformed else None,
                              provider_data=_opaque(self.parts), id=self.id)
