"""What an :class:`~toolwire.agent.Agent` run makes of its input conversation before the first model call: its
system prompt put first, in place of the one an earlier run stored (review 105), and the calls the conversation's
last AIMessage left unanswered, run or answered without running (``run_pending_calls``, :func:`not_run`, which
also answers the calls of a refusal and of the reply after ``max_steps``).

Kept apart from :mod:`toolwire.agent` so that the loop stays short. Nothing here calls a model or runs a tool.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Generator, Sequence
from typing import Any

from toolwire._agent_checks import graph_messages, named
from toolwire._agent_stream import AgentEvent, AgentResult
from toolwire._call_records import in_reply_order
from toolwire.errors import UserError
from toolwire.messages import (
    AIMessage,
    BaseMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
    coerce_messages,
)

__all__ = ["PENDING_NOT_RUN", "PROMPT_ID", "REFUSED", "STEP_LIMIT", "TOOLS_OFF", "answered",
           "answered_since_question", "for_model", "in_call_order", "not_run", "not_run_answers", "put_system_prompt",
           "read_reply", "refuse_outside_choice", "refused_end", "reply_calls", "start_messages", "unanswered"]

PROMPT_ID = "toolwire:system_prompt"
"""The ``id`` of the system message an Agent puts first when the conversation has none of its own (unless its
``system_prompt`` is a SystemMessage with an id: that id). A later run finds its earlier prompt by it and replaces
the text, so a stored conversation follows a changed prompt (review 105); LangGraph's ``add_messages``, which merges
messages by id, likewise keeps one prompt in place."""

PENDING_NOT_RUN = ("it was asked for before this run, and this Agent runs only the calls its model asks for "
                   "(run_pending_calls=False): call it again if it is still needed.")
"""Why a call the input conversation left unanswered is not run under ``Agent(..., run_pending_calls=False)`` (the
text of its error ToolMessage, after ``Error: <tool> was not run: ``)."""


def put_system_prompt(messages: list[BaseMessage], prompt: str | SystemMessage | None, mark: bool = False) -> None:
    """Put a ``prompt`` first in ``messages`` (in place), keeping a system message already there.

    With no system message first, ``prompt`` is inserted. A first system message that already starts with the
    prompt's text (a resumed run) is left as it is. Another one (the caller's instructions: "Today is 2025-05-01.")
    is merged after the prompt's text, a blank line between, into one system message that keeps its ``id`` (review
    71: it used to be kept alone, and the Agent's instructions were dropped without a word); one whose content is not
    text (blocks) gets the prompt as a system message of its own before it. With ``mark``, the prompt is a message of
    its own before the caller's in every case, and :func:`for_model` merges the two into one for each model call.

    Args:
        messages: the conversation, changed in place.
        prompt: the text (or SystemMessage) to put first; nothing is done for None or an empty one.
        mark: for the Agent's own ``system_prompt`` (not the structured call's prompt): the prompt's message gets the
            id :data:`PROMPT_ID` (or keeps its own), and a first system message with that id (an earlier run's
            prompt, in a stored conversation) gets this prompt's text in its place rather than beside it (review 105:
            a conversation resumed after the prompt changed, a date in it, held every version of it; review 109: the
            same with the caller's own system message after it, where a merged prompt had no boundary and every
            version piled up in it). Pydantic AI replaces its dynamic system prompts likewise, by a reference kept
            on the message.
    """
    if not prompt:
        return
    message = prompt if isinstance(prompt, SystemMessage) else SystemMessage(prompt)
    if not message.content:
        return
    first = messages[0] if messages else None
    if mark:
        ours = message.id or PROMPT_ID
        message = message if message.id else SystemMessage(message.content, id=ours, name=message.name)
        if isinstance(first, SystemMessage) and first.id in (ours, PROMPT_ID):  # an earlier run's prompt
            if first.content != message.content or first.id != message.id:
                messages[0] = message
            return
    if not isinstance(first, SystemMessage):
        messages.insert(0, message)
        return
    if mark and not (isinstance(first.content, str) and isinstance(message.content, str)
                     and first.content.startswith(message.content)):
        messages.insert(0, message)  # its own message, found by its id next time; sent merged (for_model)
        return
    if not (isinstance(message.content, str) and isinstance(first.content, str)):
        if first.content != message.content:
            messages.insert(0, message)
        return
    if not first.content.startswith(message.content):
        merged = f"{message.content}\n\n{first.content}" if first.content else message.content
        messages[0] = SystemMessage(merged, id=first.id, name=first.name)
    elif mark and first.id is None and first.content == message.content:  # the prompt alone, stored before ids
        messages[0] = message


def start_messages(input: Any, prompt: str | SystemMessage | None) -> list[BaseMessage]:
    """The conversation an Agent run starts from: ``input`` (a question, a list of messages, or LangGraph's agent
    state ``{"messages": [...]}``) read as messages, with the Agent's system ``prompt`` put first
    (:func:`put_system_prompt`, marked with its id).

    Raises:
        UserError: ``input`` is an empty question (the model made up calls for one: review 67), or cannot be read as
            messages (:func:`~toolwire.messages.coerce_messages`).
    """
    if isinstance(input, str) and not input.strip():
        raise UserError("The question is empty: pass the text to ask, or a list of messages to continue.")
    if isinstance(input, dict) and "messages" in input and "role" not in input and "type" not in input:
        input = graph_messages(input)  # LangGraph's agent state, {"messages": [...]}
    messages = coerce_messages(input)
    put_system_prompt(messages, prompt, mark=True)
    return messages


def for_model(messages: list[BaseMessage], prompt: str | SystemMessage | None) -> list[BaseMessage]:
    """``messages`` as a model call gets them: an Agent's own system prompt (the first message, with the id
    :func:`put_system_prompt` gave it) and the system messages right after it (the caller's) merged into one, the
    prompt's text first and a blank line between each, under the last one's ``id`` and ``name`` (what review 71's
    merge sent). Many chat templates take one system message, first; the conversation keeps them apart so that a
    later run can replace the prompt (review 109), and every one after the prompt is merged (review 111: an earlier
    prompt kept without its id, from role dicts, made two system messages).

    Returns:
        ``messages`` itself when there is nothing to merge (no prompt, no system message after it, or content that
        is not text), else a new list.
    """
    if prompt is None or len(messages) < 2:
        return messages
    ours = (prompt.id if isinstance(prompt, SystemMessage) else None) or PROMPT_ID
    first = messages[0]
    if not (isinstance(first, SystemMessage) and first.id == ours and isinstance(first.content, str)):
        return messages
    end = 1
    while end < len(messages) and isinstance(messages[end], SystemMessage) and isinstance(messages[end].content, str):
        end += 1
    if end == 1:
        return messages
    last = messages[end - 1]
    merged = "\n\n".join(text for message in messages[:end] if (text := str(message.content)))
    return [SystemMessage(merged, id=last.id, name=last.name), *messages[end:]]


def answered_since_question(messages: list[BaseMessage], tools: Collection[str] | None = None) -> bool:
    """Whether a ToolMessage follows the newest user message of ``messages`` (tool calls of this turn answered); with
    ``tools`` (an Agent's tool names), an answer of a call of another tool does not count (review 152 #3: the target
    of a handoff, given the answered calls of the agent before it, was never forced, where the OpenAI Agents SDK
    tracks tool use per agent). An answer whose tool cannot be told counts, and so does the Agent's own answer to a
    call of a tool it does not have ("There is no tool named ..."), as in the live run."""
    start = next((i + 1 for i in range(len(messages) - 1, -1, -1) if messages[i].type == "human"), 0)
    names: dict[str, Any] = {}
    for message in itertools.islice(messages, start, None):
        if isinstance(message, AIMessage):
            names.update((call.get("id") or "", call.get("name")) for call in message.tool_calls)
        elif message.type == "tool" and (tools is None or (message.name or names.get(
                getattr(message, "tool_call_id", "") or "")) in (*tools, None) or _NO_TOOL in str(message.content)):
            return True  # (the Agent's own answer to a call of a tool it does not have counts: review 153 #1)
    return False


_NO_TOOL = "There is no tool named "  # (the executor's answer to a call of no tool of its own)


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


STEP_LIMIT = "the step limit was reached, so no more tool calls are allowed; answer with the results you already have."
"""Why a call of the reply after ``max_steps`` (``on_max_steps="answer"``, tools off) is not run."""

REFUSED = "the reply that asked for it was a refusal (or a safety block), so its calls are not run."
"""Why a call of a refused reply (Anthropic ``refusal``, OpenAI ``content_filter``, Gemini's blocks) is not run."""


def refused_end(messages: list[BaseMessage], calls: list[Any], step: int, output: str, reused: dict[int, int]
                ) -> Generator[tuple[str, Any], Any, None]:
    """The end of a run whose reply was a refusal: each of its ``calls`` (in the reply's order) answered with
    :data:`REFUSED` and not run (:func:`not_run`), then the ``"final"`` event of an ``AgentResult`` with
    ``stop_reason="refusal"``, ``output`` (the reply's text) and ``reused`` (its ``reused_calls``)."""
    yield from not_run(messages, calls, step, REFUSED)
    yield ("event", AgentEvent("final", AgentResult(messages, output, step, "refusal", reused_calls=reused), step))


def not_run_answers(calls: list[Any], why: str) -> list[tuple[Any, ToolMessage]]:
    """``(call, answer)`` for each of ``calls`` (ToolCalls or InvalidToolCalls), the answer an error ToolMessage
    saying ``why`` the call was not run: ``Error: <tool> was not run: <why>``."""
    return [(call, ToolMessage(f"Error: {named(call.get('name'))} was not run: {why}", call.get("id") or "",
                               name=call.get("name"), status="error")) for call in calls]


def not_run(
    messages: list[BaseMessage], calls: list[Any], step: int, why: str,
) -> Generator[tuple[str, Any], Any, None]:
    """Answer each of ``calls`` in place with an error ToolMessage saying ``why`` it was not run, and yield their
    ``("event", AgentEvent)`` requests as the Agent's loop does: every ``tool_call`` first, then the results.

    Args:
        messages: the conversation, extended in place; calls: ToolCalls or InvalidToolCalls, in the reply's order
            (:func:`~toolwire._call_records.in_reply_order`); step: the events' step; why: the end of the sentence
            ``Error: <tool> was not run: <why>``.
    """
    yield from answered(messages, not_run_answers(calls, why), step)


def answered(messages: list[BaseMessage], pairs: list[tuple[Any, ToolMessage]], step: int
             ) -> Generator[tuple[str, Any], Any, None]:
    """Append the answers of ``pairs`` (``(call, answer)``, in call order) to ``messages`` and yield their events as
    the Agent's loop does: every ``tool_call`` first, then the results."""
    messages.extend(answer for _, answer in pairs)
    for call, _ in pairs:
        yield ("event", AgentEvent("tool_call", call, step))
    for _, answer in pairs:
        yield ("event", AgentEvent("tool_result", answer, step))


def read_reply(value: Any) -> Any:
    """``value``, what an Agent's driver got for a request of its loop, with a model reply's Anthropic ``tool_use``
    content blocks read as its calls (:func:`~toolwire._content_calls.content_calls`), as the same message given
    back as input is read (review 226 #4: such a call ended the run as an answer, and a resumed run ran it).

    Args:
        value: an :class:`~toolwire.messages.AIMessage` (a model reply), or anything else (tool results, a
            structured value, None), returned as it is.

    Returns:
        ``value``, or a new AIMessage whose ``tool_calls``/``invalid_tool_calls`` hold the blocks' calls.
    """
    from toolwire._content_calls import content_calls

    return content_calls(value) if isinstance(value, AIMessage) and isinstance(value.content, list) else value


def reply_calls(reply: AIMessage) -> list[Any]:
    """The calls of ``reply``, valid and invalid, in the order the model sent them (an invalid call's ``index``)."""
    return in_reply_order(reply.tool_calls, reply.invalid_tool_calls, reply.invalid_tool_calls)


def in_call_order(order: list[Any], pairs: Sequence[tuple[Any, ToolMessage]]) -> list[ToolMessage]:
    """The answers of ``pairs`` (``(call, answer)``) in the order of their calls in ``order`` (the reply's calls,
    :func:`reply_calls`; a call is found by identity), those of calls not in it last, in their own order: a reply's
    refused calls and its calls that ran are answered together in the model's order (reviews 135 #1, 137 #7)."""
    position = {id(call): i for i, call in enumerate(order)}
    ranked = sorted(range(len(pairs)), key=lambda i: (position.get(id(pairs[i][0]), len(order)), i))
    return [pairs[i][1] for i in ranked]


TOOLS_OFF = "tool calls were off for this reply (tool_choice='none'); answer with the results you already have."
"""Why a call of a reply whose request had ``tool_choice="none"`` is not run."""


def refuse_outside_choice(reply: AIMessage, choice: Any, reuses: Callable[[ToolCall], bool] | None = None
                          ) -> tuple[list[ToolCall], list[InvalidToolCall], list[tuple[Any, ToolMessage]]]:
    """Split the calls of ``reply`` into those the ``tool_choice`` of its request allowed and the answers of those it
    did not allow, which a server that ignores ``tool_choice`` (many OpenAI-compatible ones do) may still send.

    Args:
        reply: the model's reply; choice: its request's ``tool_choice`` as a bound model keeps it (``"auto"``,
            ``"none"``, ``"required"``, a tool's name, or None); reuses: for the Agent's own tools-off call (its
            loop breaker), which only nudges the model, whether a call is a repeat (one that would be answered with
            an earlier success, or identical to a call of the reply that set the breaker off:
            :meth:`~toolwire._agent_repeats.RepeatedCalls.refused_when_off`): such a call is refused as under
            ``"none"`` (review 141 #7: a server that ignored it got that success again, and asked again until
            ``max_steps``; review 194 #2: a ``repeat_calls`` tool's call ran again), while a new call runs.

    Returns:
        ``(calls, invalid, refused)``: the reply's tool calls and invalid tool calls left to run as usual, and
        ``(call, error answer)`` for each call refused (:func:`not_run_answers`), in the reply's order; the Agent
        adds the answers to the conversation in call order with those of the calls that run. With ``"none"`` no
        call runs (review 118: ``Agent(..., tool_choice="none")`` ran a ``delete_all`` a server sent anyway); with
        a tool's name, that tool's calls; otherwise all of them.
    """
    calls, invalid = reply.tool_calls, reply.invalid_tool_calls
    if choice == "none":
        why, kept = TOOLS_OFF, []
    elif reuses is not None:
        why, kept = TOOLS_OFF, [*(call for call in calls if not reuses(call)), *invalid]
    elif isinstance(choice, str) and choice not in ("auto", "required", "any"):
        why = f"this reply was to call {choice!r} only (tool_choice), so its other calls are not run."
        kept = [call for call in (*calls, *invalid) if call.get("name") == choice]
    else:
        return calls, invalid, []
    refused = [call for call in reply_calls(reply) if not any(call is k for k in kept)]
    return ([call for call in calls if any(call is k for k in kept)],
            [call for call in invalid if any(call is k for k in kept)], not_run_answers(refused, why))
