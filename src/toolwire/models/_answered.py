"""Tool calls the conversation has already answered, for declining a reply that only asks for them again.

A small model handed the results of its calls sometimes asks for the very same calls again instead of
answering: qwen2.5-coder-0.5b did so after each of the nine questions of ``benchmarks/answer_turn.py`` it answered
with calls (thirtieth session), so a loop written as in the book got an empty answer each time, and an agent's loop
would have run until its step limit. :class:`~toolwire.agent.Agent` already answers such a repeat with the earlier
result instead of running it (``repeat_calls="answer"``); this is the embedded model's side of the same rule:
``ChatLlamaCpp(decline_repeat_calls=True)`` declines a reply whose every call repeats a call answered since the
newest user message and since the last reply that asked for a new call (same tool, same arguments, answered with
status ``"success"``), as it declines a call whose
value is made up, and the model goes on in text. A call answered with an error may be asked again (a retry), and
so may any call once the user has spoken again. Where the repeat was declined, the reply may neither end nor open a
list (:func:`answer_bans`): the model answers in text there.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from toolwire.models._loaded import LoadedModel
from toolwire.models._reply import read_reply
from toolwire.tools import ToolSpec

__all__ = ["answer_bans", "answered_calls", "only_answered", "results_since_user"]

CallKey = tuple[str, str]
"""A call's name and its arguments as canonical JSON text (keys sorted)."""


def _key(name: str, args: Any) -> CallKey:
    return name, json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)


def answered_calls(messages: Iterable[Any]) -> frozenset[CallKey]:
    """The calls answered with success since the newest user message and since the last reply that asked for a call
    not answered before (a tool run since may have changed what those results read: review 71, ``list_tasks`` after
    ``add_task``).

    Args:
        messages: the conversation, toolwire messages (``HumanMessage``, ``AIMessage`` with ``tool_calls``,
            ``ToolMessage`` with ``tool_call_id`` and ``status``); other objects are skipped.

    Returns:
        ``(name, canonical JSON of the arguments)`` of every call of an AIMessage after the newest user message
        that a later ToolMessage answers with ``status`` ``"success"``, counting from the last AIMessage with a
        call not among those before it; empty when there is none. The calls of a reply that asked for calls of
        several tools (``add_task`` and ``list_tasks``, which may run in any order) count only when the reply
        repeated the one before it whole and every answer came out the same (a model looping on one reply), as the
        Agent's own rule has it (review 117; review 121: an answer the Agent gave without running counted as fresh).
    """
    answered: set[CallKey] = set()
    reply: dict[str, CallKey] = {}  # tool_call_id -> key, of the newest reply's calls
    results: dict[CallKey, Any] = {}  # key -> the content of its success, for the newest reply
    previous: dict[CallKey, Any] | None = None  # the same for the reply before it

    def settle() -> None:
        nonlocal previous
        if reply and (len({key[0] for key in reply.values()}) <= 1 or results == previous):
            answered.update(results)
        previous = dict(results) if reply else previous

    for message in messages:
        kind = getattr(message, "type", None)
        if kind == "human":
            reply, results, previous = {}, {}, None
            answered.clear()
        elif kind == "ai":
            keys = {call["id"]: _key(call["name"], call.get("args") or {})
                    for call in getattr(message, "tool_calls", None) or ()}
            if not keys:
                continue
            settle()
            if any(key not in answered for key in keys.values()):  # a new call ran: earlier results may be stale
                answered.clear()
            reply, results = keys, {}
        elif kind == "tool" and getattr(message, "status", "success") == "success":
            key = reply.get(getattr(message, "tool_call_id", None) or "")
            if key is not None:
                results[key] = getattr(message, "content", None)
    settle()
    return frozenset(answered)


def only_answered(call_text: str, tools: Sequence[ToolSpec], fmt: str, answered: frozenset[CallKey]) -> bool:
    """Whether every call of ``call_text`` (a whole call or call list in the call format ``fmt``, read as the reply
    would be) is one of ``answered``; False for text that holds no readable call."""
    calls = read_reply("", call_text, tools, (fmt,), fmt, cut=False).tool_calls
    return bool(calls) and all(_key(call["name"], call["args"]) in answered for call in calls)


def results_since_user(messages: Sequence[Any]) -> bool:
    """Whether a tool result (an object with ``type`` ``"tool"``, a ``ToolMessage``) follows the newest user message
    (``type`` ``"human"``) of ``messages``; False for a conversation without either."""
    for message in reversed(messages):
        kind = getattr(message, "type", None)
        if kind == "tool":
            return True
        if kind == "human":
            return False
    return False


def answer_bans(loaded: LoadedModel) -> list[int]:
    """The tokens banned where a repeated call was declined, besides the call's opening: those that end the reply and
    those that open a list (``[``, `` [``, ``[]``...). Banning only the opening left qwen2.5-coder-0.5b free to end its
    reply there, or to write ``[]``, so the Agent got an empty answer although the results were in hand (review 172
    #1); the model now writes its answer in text. Token ids, in no particular order."""
    found = [*loaded.end_tokens.tolist()]
    for prefix in (b"[", b" ["):
        found += loaded.tokens_starting_with(prefix).tolist()
    return found
