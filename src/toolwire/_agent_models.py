"""The model copies an :class:`~toolwire.agent.Agent` binds its tools to, one for each kind of request its loop makes
(:func:`~toolwire._agent_response.caller` picks among them): part of ``Agent.__init__``, moved here when
``agent.py`` reached 600 lines.

* ``agent.model``: the first request, with the Agent's ``tool_choice``;
* ``agent._after_tools_model``: the requests after tools ran, with ``"auto"`` when a forced choice is reset
  (``reset_tool_choice``), else ``agent.model``;
* ``agent._answer_model``: tools off (``"none"``), for ``on_max_steps="answer"`` and after repeated calls;
* ``agent._finish_model``: the one ``return_direct`` tool forced, after repeated calls of a run forced on every call
  (review 109), or None.

A run forced on every call that no tool can end (:func:`endless_choice`) ends only in ``MaxStepsExceeded``, whatever
``max_steps`` is: the Agent warns when it is made (:func:`warn_endless`; a warning, not an error, as a tool of the
user's may still end the run by raising), and the error says the cause (review 268 #2).

Each copy keeps the ``parallel_tool_calls`` and ``strict`` of the model given to the Agent, and one call at a time
asked in the Agent's ``tool_choice`` itself (Anthropic's ``{"type": "tool", "name": ...,
"disable_parallel_tool_use": True}``, which ``bind_tools`` reads as ``parallel_tool_calls=False``): resetting the
forced choice to ``"auto"`` resets the forcing only (review 268 #1: two calls of a later reply ran at once).
A strict-mode fallback the copies' tools cause is warned of once, not once per copy
(:func:`~toolwire.models._strict_notes.warned_once`, review 281 #2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolwire._agent_checks import ENDLESS, ENDLESS_FIX, let_model_repeat
from toolwire.models._strict_notes import warned_once
from toolwire.models.base import BaseChatModel

if TYPE_CHECKING:
    from toolwire.agent import Agent

__all__ = ["bind_models", "endless_choice", "warn_endless"]


def bind_models(agent: Agent, model: BaseChatModel, runnable: Sequence[Any], tool_choice: Any,
                reset_tool_choice: bool) -> None:
    """Set ``agent.model``, ``_after_tools_model``, ``_answer_model``, ``_finish_model``, ``_forced`` (whether
    every request forces a call: a forcing ``tool_choice`` with ``reset_tool_choice=False``) and ``_endless``
    (:func:`endless_choice`), as the module docs say.

    Args:
        agent: the Agent being made (its ``executor`` and ``repeat_calls`` already set).
        model: the model given to the Agent.
        runnable: the tools the Agent binds (its executor's tools, then the server tools); none: ``model`` unchanged.
        tool_choice: the Agent's ``tool_choice`` (None: ``"auto"``).
        reset_tool_choice: the Agent's setting.

    Raises:
        UserError, SchemaError: as ``model.bind_tools`` raises them.
    """
    with warned_once():  # (one strict-mode warning for all the copies: review 281 #2)
        _bind_copies(agent, model, runnable, tool_choice, reset_tool_choice)


def _bind_copies(agent: Agent, model: BaseChatModel, runnable: Sequence[Any], tool_choice: Any,
                 reset_tool_choice: bool) -> None:
    """:func:`bind_models`' work, its arguments as there."""
    # a model bound beforehand keeps its parallel_tool_calls and strict (the Agent takes no such arguments)
    keep = {name: value for name in ("parallel_tool_calls", "strict")
            if isinstance(model, BaseChatModel) and (value := getattr(model, name, None)) is not None}
    choice = "auto" if tool_choice is None else tool_choice  # (False is "none", as bind_tools reads it)
    agent.model = first = model.bind_tools(runnable, tool_choice=choice, **keep) if runnable else model
    if runnable and first.parallel_tool_calls is not None:  # (read from the choice dict too: review 268 #1)
        keep["parallel_tool_calls"] = first.parallel_tool_calls
    reset = bool(runnable) and reset_tool_choice and first.tool_choice not in ("auto", "none")
    agent._after_tools_model = model.bind_tools(runnable, tool_choice="auto", **keep) if reset else first
    agent._answer_model = model.bind_tools(runnable, tool_choice="none", **keep) if runnable else model
    direct = sorted(agent.executor._whole_results)  # the return_direct tools
    forced = bool(runnable) and not reset_tool_choice and first.tool_choice not in ("auto", "none")
    agent._finish_model = (model.bind_tools(runnable, tool_choice=direct[0], **keep)  # (out of repeats: review 109)
                           if forced and len(direct) == 1 and first.tool_choice != direct[0] else None)
    agent._forced = forced
    agent._endless = endless_choice(agent, runnable)
    if runnable and agent.repeat_calls != "answer":  # the Agent's bound copies only, never the caller's model
        let_model_repeat(first, agent._after_tools_model, agent._answer_model, agent._finish_model)


def endless_choice(agent: Agent, runnable: Sequence[Any]) -> str | None:
    """The forced ``tool_choice`` (``"required"`` or a tool's name) of an Agent whose every request forces a call
    (``agent._forced``) when no reply can end its run, else None. A reply ends the run when it calls a
    ``return_direct`` tool (one the choice allows: any under ``"required"``, or the one named), or has no tool call:
    under ``"required"`` with server tools bound, a server tool's call satisfies it (the provider runs it, and the
    reply may be text), as does a forced server tool's. The Agent's own forcing of its one ``return_direct`` tool
    after repeated calls (``agent._finish_model``, review 109) ends it too.

    Args:
        agent: the Agent, its model copies bound (:func:`bind_models`).
        runnable: the tools it binds (its executor's, then the server tools).
    """
    choice = getattr(agent.model, "tool_choice", None)
    if not agent._forced or agent._finish_model is not None or not isinstance(choice, str):
        return None
    direct = agent.executor._whole_results
    servers = [t for t in runnable if getattr(t, "name", None) not in agent.executor.tools]
    if choice == "required":
        return None if direct or servers else choice
    return None if choice in direct or choice not in agent.executor.tools else choice


def warn_endless(agent: Agent) -> None:
    """Warn (a ``UserWarning`` at the line that made the Agent) when ``agent``'s runs can only end in
    ``MaxStepsExceeded`` (``agent._endless``, :func:`endless_choice`) and it raises that (``on_max_steps="raise"``)."""
    if agent._endless is None or agent.on_max_steps != "raise":
        return
    from toolwire._warn_site import warn_user

    warn_user(f"Agent(tool_choice={agent._endless!r}, reset_tool_choice=False) {ENDLESS}: {ENDLESS_FIX}.",
              UserWarning)
