"""What the command line says about a run, and what ``toolwire chat`` keeps of its conversation: why an answer was
cut, whether a dropped question's tools had run, what a question stopped by Ctrl-C keeps when its tools had run, the
step-limit sentence with the commands' own option names, and the conversation without its oldest exchange when it
no longer fits the context window.

Kept apart from :mod:`toolwire.cli`, which prints them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from toolwire.errors import MaxStepsExceeded, ToolwireError, window_advice
from toolwire.messages import AIMessage, ToolMessage

__all__ = ["called_this_turn", "cut_off_answers", "cut_reason", "interrupted_turn", "marked_messages", "max_steps_text",
           "refusal_text", "result_line", "tools_ran", "without_oldest_exchange"]

_NEW = ", or type 'clear' to start a new conversation"


def without_oldest_exchange(conversation: list[Any]) -> list[Any] | None:
    """``conversation`` without its oldest exchange (its first user message and what answers it, up to the next user
    message; the system messages before it stay), or None when it holds no exchange to drop."""
    first = next((i for i, message in enumerate(conversation) if message.type == "human"), None)
    if first is None:
        return None
    after = next((i for i in range(first + 1, len(conversation)) if conversation[i].type == "human"), len(conversation))
    return [*conversation[:first], *conversation[after:]]


def cut_reason(messages: list[Any]) -> str:
    """Why an answer stopped at its token limit: the context window ran out (``response_metadata["context_full"]``,
    the embedded model's, or Anthropic's ``model_context_window_exceeded``), or the reply reached the most tokens it
    may have."""
    last = messages[-1] if messages else None
    metadata = getattr(last, "response_metadata", None) or {}
    if metadata.get("context_full"):
        return ("the answer was cut where the model's context window ran out: "
                + window_advice(metadata, "a larger --n-ctx", " (in chat, 'clear' starts a new conversation)"))
    if metadata.get("finish_reason") == "model_context_window_exceeded":  # Anthropic's (review 139 #7)
        return ("the answer was cut where the model's context window ran out: shorten the conversation (in chat, "
                "'clear' starts a new one)")
    return "the answer was cut at the most tokens a reply may have"


def refusal_text(messages: list[Any]) -> str:
    """What the commands say after the text of a run that ended on a refusal (``stop_reason="refusal"``: the model's
    last reply, in ``messages``, was a refusal or a safety block, by its ``finish_reason``): that text is not an
    answer, and the reply's tool calls were not run (review 135 #5: it was printed as the answer, twice)."""
    last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    calls = bool(last is not None and (last.tool_calls or last.invalid_tool_calls))
    return ("the run ended on a refusal: the model, or its provider's safety filter, refused this reply, so it is not "
            "an answer" + (" and its tool calls were not run" if calls else "") + "; ask in other words, or ask "
            "something else")


def _answered(exc: BaseException, conversation: list[Any], stopped: bool = False, tools: Any = None) -> int:
    """How many of the question's tool calls had run (``stopped``: were stopped while they ran) before its turn
    stopped with ``exc``, whose ``messages`` the Agent set to the run so far: ``conversation``, the question, then this
    turn. A stopped call's answer is the executor's error that ends "... before running it again."
    (:func:`~toolwire.execution.stopped_text`, :class:`~toolwire._tool_run.StillRunning`; review 168 #4). With
    ``tools`` (the bound tools by name), a call answered without its tool running (arguments the tool refuses, a
    call that could not be read, no such tool) is not counted as run (review 274 #7)."""
    turn = (getattr(exc, "messages", None) or [])[len(conversation) + 1:]
    answers = [m for m in turn if isinstance(m, ToolMessage) and _stopped(m) == stopped]
    if stopped or tools is None:
        return len(answers)
    calls, unread = _turn_calls(turn)
    return sum(_ran(answer, calls, unread, tools) for answer in answers)


def _turn_calls(turn: Sequence[Any]) -> tuple[dict[str, Any], set[str]]:
    """The calls of a turn's AIMessages by id, and the ids of the calls that could not be read."""
    calls: dict[str, Any] = {}
    unread: set[str] = set()
    for message in turn:
        if isinstance(message, AIMessage):
            calls.update((call.get("id") or "", call) for call in message.tool_calls)
            unread.update(bad.get("id") or "" for bad in message.invalid_tool_calls)
    return calls, unread


def _ran(answer: ToolMessage, calls: Mapping[str, Any], unread: Collection[str], tools: Any) -> bool:
    """Whether a tool ran for the call ``answer`` answers (``calls``: the turn's calls by id; ``unread``: the ids of
    calls that could not be read; ``tools``: the bound tools by name, or a container of names)."""
    if answer.name not in tools:
        return False
    if answer.status == "success":
        return True
    call = calls.get(answer.tool_call_id)
    if call is None and answer.tool_call_id in unread:  # a call that could not be read: nothing ran
        return False
    tool = tools.get(answer.name) if isinstance(tools, Mapping) else None
    return call is None or tool is None or _arguments_valid(tool, call)


def _stopped(answer: ToolMessage) -> bool:
    return answer.status == "error" and str(answer.content).endswith("before running it again.")


def tools_ran(exc: ToolwireError, conversation: list[Any], why: str = " (the results left no room for the answer)",
              tools: Any = None) -> str:
    """`` after its N tool calls had run`` and ``why``, when the question's tools ran before its turn failed (the
    Agent's ``exc.messages``: the conversation, the question, then this turn; by default its answer overflowed the
    context), so a user whose question is dropped knows their side effects happened; else ``""``. ``tools``: the
    bound tools by name, so that calls no tool ran for are not counted (:func:`_answered`)."""
    ran = _answered(exc, conversation, tools=tools)
    if not ran:
        return ""
    calls = "tool call had" if ran == 1 else "tool calls had"
    return f" after its {ran} {calls} run{why}"


def interrupted_turn(exc: BaseException, conversation: list[Any], tools: Any = None
                     ) -> tuple[list[Any], str] | None:
    """What ``toolwire chat`` keeps of a question that Ctrl-C stopped after some of its tool calls had run.

    Dropping that turn made the model forget the calls, and asking again, as the user was told, ran them (a note
    saved, a mail sent) a second time (review 164 #1); so the run so far is kept, as for a failed turn. A call of
    the turn left unanswered is answered with an error when the next question goes on from it (the Agent's rule for
    a conversation that went on), so the conversation stays valid for every provider.

    Args:
        exc: the ``KeyboardInterrupt``, whose ``messages`` the Agent set to the run so far (``conversation``, the
            question, then its turn).
        conversation: the conversation the question was asked in.
        tools: the bound tools by name (the executor's ``tools``), so that a call answered without its tool running
            (arguments it refuses) is said as such, not as a call that had run (review 274 #7); None counts every
            answered call as run.

    Returns:
        ``(the conversation to keep, the sentence that says so)``, or None when no call of the question had been
        answered, or ``exc`` carries no run (the question is then dropped).
    """
    ran, stopped = _answered(exc, conversation, tools=tools), _answered(exc, conversation, stopped=True)
    messages = getattr(exc, "messages", None)
    if not (ran or stopped) or not isinstance(messages, list):
        return None
    refused = _answered(exc, conversation) - ran
    kept = []
    if ran:
        kept.append(f"{ran} tool call{'s' if ran > 1 else ''} that had run (with {'their' if ran > 1 else 'its'} "
                    f"result{'s' if ran > 1 else ''})")
    if stopped:
        kept.append(f"{stopped} call{'s' if stopped > 1 else ''} stopped while running (what "
                    f"{'they' if stopped > 1 else 'it'} did may have taken effect)")
    one = ran + stopped == 1
    unrun = (f" ({refused} other call{'s' if refused > 1 else ''} did not run: {'their' if refused > 1 else 'its'} "
             "arguments were refused)") if refused else ""
    return list(messages), (f"that question was stopped; its {' and '.join(kept)} {'stays' if one else 'stay'} in the "
                            f"conversation{unrun}, so the model knows of {'it' if one else 'them'} when you ask again; "
                            "ask again, or type 'exit' to leave.")


def max_steps_text(exc: MaxStepsExceeded, max_steps: int, chat: bool = False) -> str:
    """The command line's one sentence for a run that reached ``--max-steps``: the library's own message points
    to ``on_max_steps='answer'``, an ``Agent`` argument the commands do not offer (review 26); when the last reply's
    calls were cut off (by the context window, or at the reply's token limit), more steps would not help, and the
    sentence says what would (review 111); ``chat``: said in ``toolwire chat``, where 'clear' starts anew."""
    last = next((m for m in reversed(getattr(exc, "messages", None) or []) if isinstance(m, AIMessage)), None)
    if last is not None and last.invalid_tool_calls and last.response_metadata.get("finish_reason") == "length":
        if last.response_metadata.get("context_full"):
            return ("The model's tool calls were cut off where its context window ran out: "
                    f"{window_advice(last.response_metadata, 'a larger --n-ctx', _NEW if chat else '')}.")
        return ("The model's tool calls were cut off at the most tokens a reply may have: ask for fewer or smaller "
                "calls at a time.")
    calls = "model call" if exc.steps == 1 else "model calls"
    return (f"The model gave no final answer within {exc.steps} {calls}: raise --max-steps, e.g. "
            f"--max-steps {max(2 * max_steps, max_steps + 4)}.")


def result_line(message: ToolMessage) -> str:
    """What the commands print for a tool result: its text, with each other block of its content (an image, audio,
    a file) named with its MIME type and size, ``[image/png, 67 bytes]`` (review 117: an image result printed as an
    empty line, which read as a tool that returned nothing)."""
    if isinstance(message.content, str):
        return message.content
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text"):
            parts.append(block if isinstance(block, str) else str(block.get("text", "")))
            continue
        kind = str(block.get("type", "block")) if isinstance(block, dict) else type(block).__name__
        mime = block.get("mime_type") if isinstance(block, dict) else None
        data = block.get("base64") if isinstance(block, dict) else None
        size = f", {len(data) * 3 // 4 - data[-2:].count('=')} bytes" if isinstance(data, str) else ""
        url = block.get("url") if isinstance(block, dict) and isinstance(block.get("url"), str) else ""
        parts.append(f"[{mime or kind}{size}{', ' + url[:80] if url and not size else ''}]")
    return " ".join(part for part in parts if part)


def called_this_turn(result: Any, tools: Any) -> bool:
    """Whether a tool of ``tools`` ran for a call since the newest question of ``result.messages`` (an
    ``AgentResult``), its result or its error answering the call: a small model may answer a later question of a
    chat from what it makes up, a file "written" that it never touched, and ``ask``/``chat`` then say so (review 126
    #5). A tool that ran and raised backs the answer, its error being what the answer reports (review 129 #5); a
    call answered without the tool running backs nothing: a call of no such tool (review 128 #4), a call that could
    not be read (one of its reply's ``invalid_tool_calls``), a call whose arguments the tool refuses, and the calls
    of a refused reply (``stop_reason="refusal"``: those after the last reply) (review 135 #2).

    A ToolMessage carries no mark of a tool that never ran, so a call answered with an error has its arguments
    checked again here with the tool's own ``call_args``, as the executor checks them before it runs the tool (it
    calls no tool function).

    Args:
        result: the run's ``AgentResult`` (``messages``, ``stop_reason``).
        tools: the bound tools by name (the executor's ``tools`` dict); a container of names alone counts every
            error result of a named tool as run, not being able to check its arguments.

    Returns:
        True when some tool ran for this question.
    """
    from toolwire.messages import HumanMessage

    turn: list[Any] = []
    for message in reversed(result.messages):
        if isinstance(message, HumanMessage):
            break
        turn.append(message)
    turn.reverse()
    replies = [i for i, message in enumerate(turn) if isinstance(message, AIMessage)]
    refused_after = replies[-1] if replies and getattr(result, "stop_reason", None) == "refusal" else len(turn)
    calls, unread = _turn_calls(turn)
    return any(isinstance(message, ToolMessage) and index <= refused_after and _ran(message, calls, unread, tools)
               for index, message in enumerate(turn))


def _arguments_valid(tool: Any, call: Any) -> bool:
    """Whether ``tool`` (a toolwire Tool) takes ``call``'s arguments, as the executor checks them before running it;
    True when that cannot be told (a tool without ``call_args``, a check that fails otherwise)."""
    from toolwire._tool_run import _running
    from toolwire.errors import ToolValidationError

    check = getattr(tool, "call_args", None)
    if check is None:
        return True
    try:
        with _running(call):  # (an InjectedToolCallId parameter is filled from the call, as when it runs)
            check(call.get("args"))
    except ToolValidationError:
        return False
    except Exception:
        return True
    return True


def marked_messages(messages: list[Any], reused: Any) -> list[dict[str, Any]]:
    """The run's ``messages`` as dicts for ``--json``; the ToolMessage of a call answered without running the tool (a
    repeated call, ``--repeat-calls``) has ``"answer_reused_from"``: the index, in the list, of the tool result whose
    answer it got (review 104: only the warning said so). ``reused``: the run's ``reused_calls``."""
    dicts = [m.to_dict() for m in messages]
    for index, source in (reused or {}).items():
        dicts[index]["answer_reused_from"] = source
    return dicts


def cut_off_answers(dicts: list[dict[str, Any]], running: Collection[str]) -> list[dict[str, Any]]:
    """``ask --json``'s messages (``dicts``, as :func:`marked_messages` gives them) as the command ends: the answer of
    a call whose thread ran on when the run was stopped (:class:`~toolwire._tool_run.StillRunning`'s), of a tool in
    ``running`` (:func:`~toolwire._concurrency.still_running`), says that the call is stopped part-way now, not that it
    "may still finish", which it cannot once the process has ended (review 199 #5). Its last words stay "before running
    it again.", which tells such an answer (:func:`_stopped`).

    Args:
        dicts: the messages as dicts (changed in place).
        running: the names of the tools whose calls still run.

    Returns:
        ``dicts``. Raises nothing.
    """
    from toolwire._tool_run import StillRunning

    for message in dicts:
        name = message.get("name")
        if message.get("type") != "tool" or name not in running:
            continue
        if message.get("content") == f"Error: {StillRunning(name)}":
            message["content"] = (f"Error: Tool '{name}' was still running when the run was stopped, and is stopped "
                                  "part-way now that the command ends: check what it did before running it again.")
    return dicts
