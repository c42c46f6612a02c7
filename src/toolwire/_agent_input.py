"""What an :class:`~toolwire.agent.Agent` run makes of its input conversation before the first model call: its
system prompt put first, in place of the one an earlier run stored (review 105), and the calls the conversation's
last AIMessage left unanswered, run or answered without running (``run_pending_calls``, :func:`not_run`, which
also answers the calls of a refusal and of the reply after ``max_steps``).

Kept apart from :mod:`toolwire.agent` so that the loop stays short. Nothing here calls a model or runs a tool.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from toolwire._agent_checks import named
from toolwire._agent_stream import AgentEvent
from toolwire.messages import AIMessage, BaseMessage, InvalidToolCall, SystemMessage, ToolCall, ToolMessage

__all__ = ["PENDING_NOT_RUN", "PROMPT_MARK", "answered_since_question", "not_run", "put_system_prompt", "unanswered"]

PROMPT_MARK = "toolwire:system_prompt:"
"""How the ``id`` of the system message an Agent put first begins: ``toolwire:system_prompt:<n>``, where ``n`` is the
number of characters of the Agent's prompt at the start of the message's text, then ``:<id>`` when the caller's own
system message, merged after the prompt, had an id. A later run finds the earlier prompt by it and replaces it."""

PENDING_NOT_RUN = ("it was asked for before this run, and this Agent runs only the calls its model asks for "
                   "(run_pending_calls=False): call it again if it is still needed.")
"""Why a call the input conversation left unanswered is not run under ``Agent(..., run_pending_calls=False)`` (the
text of its error ToolMessage, after ``Error: <tool> was not run: ``)."""


def _parse_mark(message_id: object) -> tuple[int, str | None] | None:
    """``(characters of the Agent's prompt, the caller's own id or None)`` from a marked system message's ``id``;
    None when ``message_id`` is no such mark."""
    if not isinstance(message_id, str) or not message_id.startswith(PROMPT_MARK):
        return None
    count, _, own = message_id[len(PROMPT_MARK):].partition(":")
    return (int(count), own or None) if count.isdigit() and count.isascii() else None


def _mark_id(count: int, own: str | None) -> str:
    """The ``id`` of a system message that starts with an Agent prompt of ``count`` characters (:data:`PROMPT_MARK`);
    ``own``: the caller's id of the text after it."""
    return f"{PROMPT_MARK}{count}" + (f":{own}" if own else "")


def _callers_part(first: SystemMessage) -> SystemMessage | None:
    """The caller's own system message in ``first``, without the prompt an earlier Agent run put there (by its
    :data:`PROMPT_MARK`): ``first`` itself when it carries no mark (or one its text does not fit), None when it held
    the Agent's prompt alone."""
    mark = _parse_mark(first.id)
    if mark is None or not isinstance(first.content, str) or mark[0] > len(first.content):
        return first
    rest = first.content[mark[0]:]
    if rest and not rest.startswith("\n\n"):
        return first
    return SystemMessage(rest[2:], id=mark[1], name=first.name) if rest else None


def put_system_prompt(messages: list[BaseMessage], prompt: str | SystemMessage | None, mark: bool = False) -> None:
    """Put a ``prompt`` first in ``messages`` (in place), keeping a system message already there.

    With no system message first, ``prompt`` is inserted. A first system message that already starts with the
    prompt's text (a resumed run) is left as it is. Another one (the caller's instructions: "Today is 2025-05-01.")
    is merged after the prompt's text, a blank line between, into one system message (review 71: it used to be kept
    alone, and the Agent's instructions were dropped without a word); one whose content is not text (blocks) gets
    the prompt as a system message of its own before it.

    Args:
        messages: the conversation, changed in place.
        prompt: the text (or SystemMessage) to put first; nothing is done for None or an empty one.
        mark: for the Agent's own ``system_prompt`` (not the structured call's prompt): the message that holds the
            prompt gets an ``id`` saying where the prompt's text ends (:data:`PROMPT_MARK`), and a first system
            message so marked by an earlier run has that run's prompt replaced by this one rather than kept
            beside it (review 105: a stored conversation resumed after the prompt changed, a date in it, held
            every version of it, contradicting each other). Pydantic AI replaces a dynamic system prompt likewise.
    """
    if not prompt:
        return
    message = prompt if isinstance(prompt, SystemMessage) else SystemMessage(prompt)
    mark = mark and isinstance(message.content, str)
    first = messages[0] if messages else None
    if mark and isinstance(first, SystemMessage):
        caller = _callers_part(first)
        if caller is None:
            del messages[0]
        elif caller is not first:
            messages[0] = caller
        first = messages[0] if messages else None
    if not isinstance(first, SystemMessage):
        if mark:
            message = SystemMessage(message.content, id=_mark_id(len(message.content), message.id), name=message.name)
        messages.insert(0, message)
        return
    if not (isinstance(message.content, str) and isinstance(first.content, str)):
        if first.content != message.content:
            if mark:
                message = SystemMessage(message.content, id=_mark_id(len(message.content), message.id),
                                        name=message.name)
            messages.insert(0, message)
        return
    count, own = len(message.content), first.id
    if not first.content.startswith(message.content):
        merged = f"{message.content}\n\n{first.content}" if first.content else message.content
        messages[0] = SystemMessage(merged, id=_mark_id(count, own) if mark else own, name=first.name)
    elif mark and _parse_mark(own) is None and (first.content == message.content
                                                  or first.content[count:].startswith("\n\n")):
        # a conversation stored before marks, which starts with this prompt: marked now, for the next change
        messages[0] = SystemMessage(first.content, id=_mark_id(count, own), name=first.name)


def answered_since_question(messages: list[BaseMessage]) -> bool:
    """Whether a ToolMessage follows the newest user message of ``messages`` (tool calls of this turn answered)."""
    for message in reversed(messages):
        if message.type == "tool":
            return True
        if message.type == "human":
            return False
    return False


def unanswered(messages: list[BaseMessage]) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """The calls of the conversation's last AIMessage that no ToolMessage after it answers.

    Only ToolMessages may follow that AIMessage: after any other message, nothing is pending.

    Returns:
        ``(valid calls, invalid calls)``, each in the message's order.
    """
    answered: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id or "")
        elif isinstance(message, AIMessage):
            return ([call for call in message.tool_calls if (call["id"] or "") not in answered],
                    [bad for bad in message.invalid_tool_calls if (bad.get("id") or "") not in answered])
        else:
            break
    return [], []


def not_run(
    messages: list[BaseMessage], calls: list[Any], step: int, why: str,
) -> Generator[tuple[str, Any], Any, None]:
    """Answer each of ``calls`` in place with an error ToolMessage saying ``why`` it was not run, and yield their
    ``("event", AgentEvent)`` requests as the Agent's loop does: every ``tool_call`` first, then the results.

    Args:
        messages: the conversation, extended in place; calls: ToolCalls or InvalidToolCalls; step: the events'
            step; why: the end of the sentence ``Error: <tool> was not run: <why>``.
    """
    results = [ToolMessage(f"Error: {named(call.get('name'))} was not run: {why}", call.get("id") or "",
                           name=call.get("name"), status="error") for call in calls]
    messages.extend(results)
    for call in calls:
        yield ("event", AgentEvent("tool_call", call, step))
    for result in results:
        yield ("event", AgentEvent("tool_result", result, step))
