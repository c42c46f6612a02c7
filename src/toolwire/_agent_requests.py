"""Which request of an Agent's loop a reply answers, and what that request allows: parts of
:meth:`Agent._flow <toolwire.agent.Agent>`.

Every reply is held to the ``tool_choice`` of the request that asked for it (README, "The Agent"; review 118): under
``"none"`` no call runs, under a tool's name only that tool's calls do. :func:`request_choice` says what each kind of
request allowed; :func:`pending_split` applies the same rule, and the refusal rule, to the calls a resumed run finds
pending, so that a run stopped between a reply and its tool calls does not run on resuming what it would have refused
(review 162 #1). :func:`held_to_force` marks a reply with no call to a request that forced one (review 177 #4).
:func:`answer_after_limit` is the run's end under ``on_max_steps="answer"``. :func:`resumed_end` ends a resumed run
that had already ended but for its last step: a ``return_direct`` result, or the answer awaiting ``response_format``'s
structured call (review 200 #1).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, NamedTuple

from toolwire._agent_checks import log, no_answer_text, stop_kind, unique_call_ids, warn_call_as_answer
from toolwire._agent_direct import last_direct
from toolwire._agent_input import (
    STEP_LIMIT,
    TOOLS_OFF,
    answered,
    answered_since_question,
    for_model,
    not_run,
    refuse_outside_choice,
    refused_end,
    reply_calls,
)
from toolwire._agent_repeats import RepeatedCalls
from toolwire._agent_response import STRUCTURED_STOPS, caller, finish
from toolwire._agent_stream import AgentEvent, AgentResult, StopReason
from toolwire.messages import AIMessage, BaseMessage, InvalidToolCall, ToolCall, ToolMessage

if TYPE_CHECKING:
    from toolwire.agent import Agent

__all__ = ["AFTER_MAX_STEPS", "CHOICE_IGNORED", "Pending", "answer_after_limit", "held_to_force", "pending_round",
           "pending_split", "replayed_state", "request_choice", "request_kind", "resumed_end", "structured_pending"]


def request_kind(agent: Agent, tools_ran: bool, only_repeats: bool) -> str:
    """The kind of the Agent's next request (:func:`~toolwire._agent_response.caller`): ``"finish"`` (its one
    ``return_direct`` tool forced) or ``"answer"`` (tools off) after a reply of repeats, ``"after_tools"`` once a
    tool ran since the question, else ``"model"``."""
    if only_repeats:
        return "finish" if agent._forced else "answer"
    return "after_tools" if tools_ran else "model"


def request_choice(agent: Agent, kind: str) -> Any:
    """The ``tool_choice`` a reply to a request of ``kind`` is held to: the caller's (or the copy after tools') for
    ``"model"`` and ``"after_tools"``, the forced ``return_direct`` tool for ``"finish"`` (review 162 #2: a server that
    ignored it got other tools' calls run), and for ``"answer"``, the loop's own tools-off call, ``"none"`` only when
    the Agent's own choice is ``"none"`` (otherwise that call only nudges the model to answer: a new call runs, a
    repeat gets "tools were off"; reviews 121, 141 #7). None: no rule."""
    if kind in ("model", "after_tools", "finish"):
        return getattr(caller(agent, kind), "tool_choice", None)
    return "none" if getattr(agent.model, "tool_choice", None) == "none" else None


AFTER_MAX_STEPS = "after_max_steps"
"""The ``response_metadata`` key (value ``True``) that marks the reply to the request ``on_max_steps="answer"`` makes
after the last step (tools off), so that a run stopped at that reply and resumed does not run its calls either (review
165 #2)."""

CHOICE_IGNORED = "tool_choice_ignored"
"""The ``response_metadata`` key that marks a reply with no tool call to a request that forced one (its value: that
``tool_choice``, ``"required"`` or the tool's name), as a server that ignores ``tool_choice`` gives (Ollama's ``/v1``;
a named choice reaches a compatible server as ``"required"`` with that one tool, review 214 #1): the run ends with its
text as ``result.output``, as any answer, and logs a warning, so the text is never taken silently for an answer
grounded in a tool's result (review 177 #4)."""


def held_to_force(agent: Agent, kind: str, reply: AIMessage) -> AIMessage:
    """``reply`` to the Agent's request of ``kind`` (:func:`request_kind`), its calls given unique ids
    (:func:`~toolwire._agent_checks.unique_call_ids`), and marked :data:`CHOICE_IGNORED` (a new
    message; a warning logged on the ``toolwire.agent`` logger) when that request forced a call of the Agent's own tools
    (``tool_choice="required"``, or one tool's name) and the reply makes none, neither a tool call nor an invalid one,
    and neither refuses nor pauses its turn (a forced server tool, which the provider runs, is not held); else
    that reply."""
    reply = unique_call_ids(reply)
    if reply.tool_calls or reply.invalid_tool_calls or stop_kind(reply) in ("refusal", "pause"):
        return reply
    choice = request_choice(agent, kind) if kind in ("model", "after_tools", "finish") else None
    own = agent.executor.tools
    if not (choice == "required" and all(getattr(t, "name", None) in own for t in agent.model.tools)) and not (
            isinstance(choice, str) and choice in own):
        return reply
    log.warning("The model answered in text without the tool call its request forced (tool_choice=%r): the server "
                "most likely ignores tool_choice (Ollama's /v1 does), so the "
                "answer, result.output, does not come from a tool (the reply is marked response_metadata[%r]): use a "
                "server that honours tool_choice, or ask for the tool in the question.", choice, CHOICE_IGNORED)
    return reply.copy(response_metadata={**reply.response_metadata, CHOICE_IGNORED: choice})  # type: ignore[return-value]


_CHOICE_REFUSED = "only (tool_choice), so its other calls are not run."  # (refuse_outside_choice's tool-name sentence)


def _refused(answer: BaseMessage) -> bool:
    """Whether ``answer`` is the Agent's answer to a call the ``tool_choice`` of its request did not allow."""
    text = str(getattr(answer, "content", ""))
    return (getattr(answer, "status", None) == "error" and text.startswith("Error: ")
            and (text.endswith(TOOLS_OFF) or text.endswith(_CHOICE_REFUSED)))


def replayed_state(agent: Agent, messages: list[BaseMessage]) -> tuple[bool, bool]:
    """The live loop's state after the answered rounds of ``messages`` since its newest user message, replayed as
    :meth:`Agent._flow <toolwire.agent.Agent>` keeps it: ``(tools_ran, only_repeats)``, whether a tool ran (a round
    whose every call was refused by its request's ``tool_choice`` leaves it as it was, so a forced tool stays forced:
    review 121) and whether the next request goes out with tools off or forcing the one ``return_direct`` tool (after a
    reply of repeats or a loop, or a round refused under such a request: review 165 #1). A reply none of whose calls
    has an answer is not a round (the pending reply, or one :func:`~toolwire._agent_checks.answer_stale_calls`
    answers)."""
    start = next((i + 1 for i in range(len(messages) - 1, -1, -1) if messages[i].type == "human"), 0)
    tools_ran = off = False
    index = start
    while index < len(messages):
        reply, end = messages[index], index + 1
        while end < len(messages) and isinstance(messages[end], ToolMessage):
            end += 1
        if isinstance(reply, AIMessage) and (reply.tool_calls or reply.invalid_tool_calls) and end > index + 1:
            kind = request_kind(agent, tools_ran, off)
            if all(_refused(answer) for answer in messages[index + 1:end]):  # the same request again, as in the loop
                off = request_choice(agent, kind) == "none" or kind in ("answer", "finish")
            else:
                tools_ran = tools_ran or answered_since_question(messages[index:end], agent.executor.tools)
                off = RepeatedCalls(agent.repeat_calls, agent.executor.tools, messages[:end]).tools_off_next
            off = off and (not agent._forced or agent._finish_model is not None)
        index = end
    return tools_ran, off


class Pending(NamedTuple):
    """How a resumed run answers its pending calls (:func:`pending_split`)."""

    reply: AIMessage  #: the pending reply
    ends: str | None  #: ``"refusal"`` or ``"max_steps"`` (its request came after the last step): none of its calls runs
    calls: list[ToolCall]  #: the calls to run
    invalid: list[InvalidToolCall]  #: the invalid calls to answer
    refused: list[tuple[Any, ToolMessage]]  #: ``(call, error answer)`` of each call outside the request's tool_choice
    off_next: bool  #: when every call is refused: whether the next request goes out with tools off, as in the loop
    order: list[Any]  #: the reply's pending calls in the model's order


def pending_split(agent: Agent, messages: list[BaseMessage], pending: list[ToolCall],
                  pending_invalid: list[InvalidToolCall], repeated: RepeatedCalls, tools_ran: bool, off: bool
                  ) -> Pending:
    """The pending calls of a resumed conversation (its last reply's unanswered calls) split as the stopped run would
    have split them: a refusal's calls are not run, nor are those of the reply to the request after the last step
    (marked :data:`AFTER_MAX_STEPS`), and a reply's calls outside the ``tool_choice`` of the request that asked for it
    are answered as refused (review 162 #1: a ``delete_all`` sent under ``tool_choice="none"`` ran on resuming a
    stream stopped at its ``model_reply`` event). That request is told from ``(tools_ran, off)``, the state of the loop
    before the reply (:func:`replayed_state`). The lists keep the reply's order
    (:func:`~toolwire._agent_input.reply_calls`)."""
    at = next(i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AIMessage))
    reply = messages[at]
    assert isinstance(reply, AIMessage)
    waiting = [*pending, *pending_invalid]
    order = [c for c in reply_calls(reply) if any(c is p for p in waiting)]  # (answered ones: no event again)
    ends = "refusal" if stop_kind(reply) == "refusal" else "max_steps" if reply.response_metadata.get(
        AFTER_MAX_STEPS) is True else None
    if ends is not None:
        return Pending(reply, ends, [], [], [], False, order)
    kind = request_kind(agent, tools_ran, off)
    choice = request_choice(agent, kind)
    allowed, invalid, refused = refuse_outside_choice(reply, choice,
                                                      repeated.refused_when_off if kind == "answer" else None)
    return Pending(reply, None, [c for c in allowed if any(c is p for p in pending)],
                   [c for c in invalid if any(c is p for p in pending_invalid)],
                   [pair for pair in refused if any(pair[0] is p for p in waiting)],
                   choice == "none" or kind in ("answer", "finish"), order)


def pending_round(agent: Agent, messages: list[BaseMessage], pending: list[ToolCall],
                  pending_invalid: list[InvalidToolCall], repeated: RepeatedCalls, tools_ran: bool, off: bool
                  ) -> Generator[tuple[str, Any], Any, tuple[bool, bool, bool]]:
    """A resumed run's round of its pending calls, held as the stopped run would have held them (:func:`pending_split`;
    ``tools_ran`` and ``off``: the loop's state before the pending reply, :func:`replayed_state`): a refusal, or the
    reply after the last step, ends the run with its calls answered and not run; the calls its request allowed run
    (:meth:`Agent._tool_round <toolwire.agent.Agent>`), the others are answered as refused.

    Returns:
        ``(whether the run ended, tools_ran, only_repeats)`` after the round (a successful ``return_direct`` tool ends
        the run too, with its ``"final"`` event).
    """
    held = pending_split(agent, messages, pending, pending_invalid, repeated, tools_ran, off)
    if held.ends == "refusal":  # (reviews 162 #1, 165 #2)
        yield from refused_end(messages, held.order, 0, held.reply.text, repeated.positions(messages))
        return True, tools_ran, off
    if held.ends is not None:
        yield from _limit_end(agent, messages, held.reply, held.order, 0, repeated)
        return True, tools_ran, off
    if held.calls or held.invalid:
        tools_ran = True
        direct, off = yield from agent._tool_round(messages, held.calls, held.invalid, 0, repeated, held.refused,
                                                   held.order)
    else:
        yield from answered(messages, held.refused, 0)
        direct, off = None, held.off_next
    if direct is not None:
        final = AgentResult(messages, direct.text, 0, "return_direct", None, repeated.positions(messages))
        yield ("event", AgentEvent("final", final, 0))
        return True, tools_ran, off
    return False, tools_ran, off


def answer_after_limit(agent: Agent, messages: list[BaseMessage], repeated: RepeatedCalls
                       ) -> Generator[tuple[str, Any], Any, None]:
    """The end of a run out of steps under ``on_max_steps="answer"``: one more request with tools off, whose reply is
    marked :data:`AFTER_MAX_STEPS`; each call the reply still makes is answered with
    :data:`~toolwire._agent_input.STEP_LIMIT` and not run (the server ignored ``tool_choice="none"``), a refusal ends
    the run as one, and a reply cut at the output token limit without calls ends it with ``stop_reason="length"`` and
    no structured call, as within the steps (review 162 #3); otherwise ``"max_steps"`` with the reply's text as the
    output. ``repeated``: the run's repeats, for ``reused_calls``."""
    reply = unique_call_ids((yield ("answer", for_model(messages, agent.system_prompt))))
    reply = reply.copy(response_metadata={**reply.response_metadata, AFTER_MAX_STEPS: True})  # type: ignore[assignment]
    messages.append(reply)
    steps = agent.max_steps + 1
    yield ("event", AgentEvent("model_reply", reply, steps))
    calls = reply_calls(reply)
    if not calls:
        warn_call_as_answer(reply, agent.executor.tools)
    if stop_kind(reply) == "refusal":
        yield from refused_end(messages, calls, steps, reply.text, repeated.positions(messages))
        return
    yield from _limit_end(agent, messages, reply, calls, steps, repeated)


def _limit_end(agent: Agent, messages: list[BaseMessage], reply: AIMessage, calls: list[Any], step: int,
               repeated: RepeatedCalls) -> Generator[tuple[str, Any], Any, None]:
    """:func:`answer_after_limit`'s end for ``reply``: its ``calls`` answered with the step limit, not run."""
    yield from not_run(messages, calls, step, STEP_LIMIT)
    output = reply.text
    if calls and not output:
        output = no_answer_text(agent.max_steps, calls, getattr(agent.model, "tool_choice", None) == "none")
    stop: StopReason = "length" if stop_kind(reply) == "length" and not calls else "max_steps"
    yield from finish(messages, output, step, stop, agent._response, repeated.positions(messages))


def structured_pending(agent: Agent, messages: list[BaseMessage]) -> StopReason | None:
    """The stop reason of the run whose answer ``messages`` end with, when that run's only step left is its
    ``response_format`` structured call (a run whose structured call failed, ``exc.messages``; or a stream stopped
    between the answer and its ``"final"`` event, ``stream.messages``): the Agent has a ``response_format``, the
    conversation ends with an AIMessage with no calls (neither tool calls nor invalid ones) that follows a user
    message, and that reply ended the run with a stop the structured call follows
    (:data:`~toolwire._agent_response.STRUCTURED_STOPS`): ``"answer"``, or ``"max_steps"`` for the reply marked
    :data:`AFTER_MAX_STEPS`; not a refusal, a paused turn or a reply cut at the token limit. None otherwise: a
    conversation the user continues ends with their new question, which the model is asked (review 200 #1)."""
    if agent._response is None or not messages or not isinstance(reply := messages[-1], AIMessage):
        return None
    if reply.tool_calls or reply.invalid_tool_calls or stop_kind(reply) is not None:
        return None
    if not any(message.type == "human" for message in messages[:-1]):
        return None
    stop: StopReason = "max_steps" if reply.response_metadata.get(AFTER_MAX_STEPS) is True else "answer"
    return stop if stop in STRUCTURED_STOPS else None


def resumed_end(agent: Agent, messages: list[BaseMessage], repeated: RepeatedCalls
                ) -> Generator[tuple[str, Any], Any, bool]:
    """End a resumed run (its pending calls answered) as the stopped run would have ended, with no call to the
    model with tools: after a ``return_direct`` tool's result, its ``"final"`` event with that result as the output
    (:func:`~toolwire._agent_direct.last_direct`, review 194 #3); after the answer awaiting the structured call
    (:func:`structured_pending`), that call alone and the ``"final"`` event, the answer's text as the output and the
    call the run's one step (review 200 #1: the model was asked again with the answer last, a prefill Claude 4.6 and
    later refuse, and a second answer was added). ``repeated``: the run's repeats, for ``reused_calls``.

    Returns:
        Whether the run ended (its ``"final"`` event given); False: the loop asks the model.
    """
    if (direct := last_direct(agent, messages)) is not None:
        final = AgentResult(messages, direct.text, 0, "return_direct", None, repeated.positions(messages))
        yield ("event", AgentEvent("final", final, 0))
        return True
    if (stop := structured_pending(agent, messages)) is None:
        return False
    yield from finish(messages, messages[-1].text, 0, stop, agent._response, repeated.positions(messages))
    return True
