"""Which request of an Agent's loop a reply answers, and what that request allows: parts of
:meth:`Agent._flow <toolwire.agent.Agent>`.

Every reply is held to the ``tool_choice`` of the request that asked for it (README, "The Agent"; review 118): under
``"none"`` no call runs, under a tool's name only that tool's calls do. :func:`request_choice` says what each kind of
request allowed; :func:`pending_split` applies the same rule, and the refusal rule, to the calls a resumed run finds
pending, so that a run stopped between a reply and its tool calls does not run on resuming what it would have refused
(review 162 #1). :func:`answer_after_limit` is the run's end under ``on_max_steps="answer"``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, NamedTuple

from toolwire._agent_checks import no_answer_text, stop_kind, unique_call_ids, warn_call_as_answer
from toolwire._agent_input import (
    STEP_LIMIT,
    answered_since_question,
    for_model,
    not_run,
    refuse_outside_choice,
    refused_end,
    reply_calls,
)
from toolwire._agent_repeats import RepeatedCalls
from toolwire._agent_response import caller, finish
from toolwire._agent_stream import AgentEvent, StopReason
from toolwire.messages import AIMessage, BaseMessage, InvalidToolCall, ToolCall, ToolMessage

if TYPE_CHECKING:
    from toolwire.agent import Agent

__all__ = ["Pending", "answer_after_limit", "pending_split", "request_choice", "request_kind"]


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


class Pending(NamedTuple):
    """How a resumed run answers its pending calls (:func:`pending_split`)."""

    refusal: AIMessage | None  #: the pending reply, when it was a refusal: its calls are answered as refused, not run
    calls: list[ToolCall]  #: the calls to run
    invalid: list[InvalidToolCall]  #: the invalid calls to answer
    refused: list[tuple[Any, ToolMessage]]  #: ``(call, error answer)`` of each call outside the request's tool_choice
    off_next: bool  #: when every call is refused: whether the next request goes out with tools off, as in the loop
    order: list[Any]  #: the reply's pending calls in the model's order


def pending_split(agent: Agent, messages: list[BaseMessage], pending: list[ToolCall],
                  pending_invalid: list[InvalidToolCall], repeated: RepeatedCalls) -> Pending:
    """The pending calls of a resumed conversation (its last reply's unanswered calls) split as the stopped run would
    have split them: a refusal's calls are not run, and a reply's calls outside the ``tool_choice`` of the request that
    asked for it are answered as refused (review 162 #1: a ``delete_all`` sent under ``tool_choice="none"`` ran on
    resuming a stream stopped at its ``model_reply`` event). That request is told from the conversation before the
    reply, as the live loop tells it (:func:`request_kind`). The lists keep the reply's order
    (:func:`~toolwire._agent_input.reply_calls`)."""
    at = next(i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AIMessage))
    reply = messages[at]
    assert isinstance(reply, AIMessage)
    waiting = [*pending, *pending_invalid]
    order = [c for c in reply_calls(reply) if any(c is p for p in waiting)]  # (answered ones: no event again)
    if stop_kind(reply) == "refusal":
        return Pending(reply, [], [], [], False, order)
    before = messages[:at]
    off = RepeatedCalls(agent.repeat_calls, agent.executor.tools, before).tools_off_next
    off = off and (not agent._forced or agent._finish_model is not None)
    kind = request_kind(agent, answered_since_question(before, agent.executor.tools), off)
    choice = request_choice(agent, kind)
    allowed, invalid, refused = refuse_outside_choice(reply, choice, repeated.reuses if kind == "answer" else None)
    return Pending(None, [c for c in allowed if any(c is p for p in pending)],
                   [c for c in invalid if any(c is p for p in pending_invalid)],
                   [pair for pair in refused if any(pair[0] is p for p in waiting)],
                   choice == "none" or kind in ("answer", "finish"), order)


def answer_after_limit(agent: Agent, messages: list[BaseMessage], repeated: RepeatedCalls
                       ) -> Generator[tuple[str, Any], Any, None]:
    """The end of a run out of steps under ``on_max_steps="answer"``: one more request with tools off; each call its
    reply still makes is answered with :data:`~toolwire._agent_input.STEP_LIMIT` and not run (the server ignored
    ``tool_choice="none"``), a refusal ends the run as one, and a reply cut at the output token limit without calls
    ends it with ``stop_reason="length"`` and no structured call, as within the steps (review 162 #3); otherwise
    ``"max_steps"`` with the reply's text as the output. ``repeated``: the run's repeats, for ``reused_calls``."""
    reply = unique_call_ids((yield ("answer", for_model(messages, agent.system_prompt))))
    messages.append(reply)
    steps = agent.max_steps + 1
    yield ("event", AgentEvent("model_reply", reply, steps))
    output = reply.text
    calls = reply_calls(reply)
    if not calls:
        warn_call_as_answer(reply, agent.executor.tools)
    kind = stop_kind(reply)
    if kind == "refusal":
        yield from refused_end(messages, calls, steps, output, repeated.positions(messages))
        return
    yield from not_run(messages, calls, steps, STEP_LIMIT)
    if calls and not output:
        output = no_answer_text(agent.max_steps, calls, getattr(agent.model, "tool_choice", None) == "none")
    stop: StopReason = "length" if kind == "length" and not calls else "max_steps"
    yield from finish(messages, output, steps, stop, agent._response, repeated.positions(messages))
