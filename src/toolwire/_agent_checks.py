"""The Agent's constructor checks and the conversation repairs it makes before and during a run.

Kept apart from :mod:`toolwire.agent` so that the loop stays short. Nothing here calls a model or runs a tool.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Literal

from toolwire._error_state import claimed
from toolwire.errors import UserError
from toolwire.messages import AIMessage, BaseMessage, InvalidToolCall, SystemMessage, ToolCall, ToolMessage
from toolwire.models.lowering._common import CallIds

log = logging.getLogger("toolwire.agent")

__all__ = [
    "ENDLESS",
    "ENDLESS_FIX",
    "LENGTH_REASONS",
    "REFUSAL_REASONS",
    "answer_stale_calls",
    "bound_beforehand",
    "check_model",
    "check_repeat_calls",
    "check_system_prompt",
    "check_tool_choice",
    "check_tools",
    "keep_run",
    "let_model_repeat",
    "max_steps_text",
    "no_answer_text",
    "stop_kind",
    "unique_call_ids",
    "warn_call_as_answer",
]

#: ``response_metadata["finish_reason"]`` values that mean the model declined to answer: Anthropic's
#: ``refusal`` stop reason, Gemini's safety and policy finish / block reasons, OpenAI's ``content_filter``.
REFUSAL_REASONS = frozenset({
    "refusal", "content_filter", "safety", "prohibited_content", "blocklist", "spii", "image_safety",
    "image_prohibited_content",
})

LENGTH_REASONS = frozenset({"length", "max_tokens", "max_output_tokens", "model_context_window_exceeded"})
"""``finish_reason`` values (lower-cased) of a reply cut at the output token limit: OpenAI Chat Completions' and
llama.cpp's ``length``, Anthropic's ``max_tokens`` stop reason, Gemini's ``MAX_TOKENS`` finish reason, and the
Responses API's ``incomplete_details.reason`` ``max_output_tokens``; and Anthropic's
``model_context_window_exceeded``, a reply cut where the model's context window ran out, cut all the same (review
136 #4)."""


def named(name: str | None) -> str:
    """How an error message names a call: ``tool 'name'``, or ``this call`` when it has no name."""
    return f"tool {name!r}" if name else "this call"


def check_model(model: Any) -> None:
    """A chat model has ``invoke``, ``ainvoke`` and ``bind_tools``; anything else (``None``, a string, a model class
    rather than a model built from it) is refused, and so is a LangChain chat model (or a LangChain runnable such as
    its ``bind_tools`` result), read by its classes' modules without importing LangChain.

    Raises:
        UserError: one sentence saying which toolwire model to build instead (review 93: a LangChain model failed
            later with a bare NotImplementedError or an AttributeError naming toolwire's internals).
    """
    if isinstance(model, type):
        raise UserError(f"Agent takes a chat model, not the class {model.__name__}: build one first, such as "
                        f"Agent({model.__name__}(...), [my_tool]).")
    if any(str(getattr(c, "__module__", "")).startswith("langchain_core.") for c in type(model).__mro__):
        raise UserError(f"Agent takes a toolwire chat model, not LangChain's {type(model).__name__}: build toolwire's "
                        "own for the same provider, such as toolwire.models.ChatOpenAI(model=...), ChatAnthropic, "
                        "ChatGoogleGenAI or ChatLlamaCpp, or toolwire.models.init_chat_model('gpt-4o-mini') "
                        "(LangChain tools and messages work with it as they are).")
    if isinstance(model, str):  # Pydantic AI's Agent("openai:gpt-4o") (review 152 #5)
        from toolwire.models.factory import ALIASES, PROVIDERS

        prefix, _, rest = model.partition(":")
        if prefix in ("google-gla", "google-vertex"):  # Pydantic AI's Gemini prefixes (review 153 #4)
            prefix, model = "google", f"google:{rest}"
        named = model if rest and ALIASES.get(prefix, prefix) in PROVIDERS else "openai:gpt-4o"
        raise UserError(f"Agent takes a chat model first, not a model's name: build one with "
                        f"toolwire.models.init_chat_model, such as Agent(init_chat_model({named!r}), [my_tool]) "
                        "(a 'provider:model' name; see the README's providers).")
    if not all(callable(getattr(model, attr, None)) for attr in ("invoke", "ainvoke", "bind_tools")):
        got = "None" if model is None else f"a {type(model).__name__}"
        raise UserError(f"Agent takes a chat model first, such as Agent(ChatOpenAI('gpt-4o-mini'), [my_tool]); "
                        f"got {got}.")


def let_model_repeat(*models: Any) -> None:
    """Turn off the embedded model's own decline of repeated calls (``ChatLlamaCpp.decline_repeat_calls``) on the
    Agent's bound copies of its model, for an Agent whose ``repeat_calls`` lets some calls run again (review 69:
    ``Agent(repeat_calls=["check_job"])`` polled once, then the model's rule declined the next identical call). The
    Agent's own rule still answers the repeats of the other tools with their earlier results.

    Args:
        models: models the Agent bound (copies made by ``bind_tools``); one without the attribute is left alone.
    """
    for model in models:
        if getattr(model, "decline_repeat_calls", False) is True:
            model.decline_repeat_calls = False


_USER_FRAME = 4
"""The ``stacklevel`` of :func:`bound_beforehand`'s warnings: the line that called ``Agent(...)``, past this
function, ``Agent.__init__`` and the keyword-checking wrapper around it (``refuses_unknown_keywords``; review 77:
with 3, the warnings pointed into ``_keywords.py``)."""


def bound_beforehand(model: Any, tools: list[Any]) -> tuple[list[Any], Any]:
    """What a model bound beforehand (``Agent(model.bind_tools([a], tool_choice="required"), [b])``) carries that
    the Agent would otherwise replace when it binds its own tools (review 57).

    Args:
        model: the model given to the Agent.
        tools: the Agent's tools.

    Returns:
        ``(tools, tool_choice)``: ``tools`` followed by each tool bound to ``model`` that can be run (a
        :class:`~toolwire.tools.Tool`, or a provider's server tool) and whose name ``tools`` lacks; and the
        model's bound ``tool_choice`` when it forces a call or forbids one (else None). A bound tool that is only a
        description (a schema dict) cannot be run, so it is left out, with a warning that says what to do; so is a
        ``tool_choice="none"`` when the Agent has tools of its own (it could never call them). The warnings point
        at the line that called ``Agent(...)`` (:data:`_USER_FRAME`).
    """
    import warnings

    from toolwire.models.base import BaseChatModel, ServerTool, to_tool
    from toolwire.tools import Tool

    if not isinstance(model, BaseChatModel) or not (model.tools or model.tool_choice not in (None, "auto")):
        return tools, None
    names = {to_tool(t).name for t in tools}
    kept = [t for t in model.tools if isinstance(t, Tool | ServerTool) and t.name not in names]
    lost = sorted(t.name for t in model.tools if not isinstance(t, Tool | ServerTool) and t.name not in names)
    choice = model.tool_choice if model.tool_choice not in (None, "auto") else None
    if lost:
        forced = f"; the tool_choice {choice!r} that forced one is dropped too" if choice in lost else ""
        warnings.warn(f"The model given to the Agent has tools bound that have no function to run ({', '.join(lost)}); "
                      f"the Agent leaves them out{forced}: pass them to Agent(model, tools) as functions or tools.",
                      UserWarning, stacklevel=_USER_FRAME)
        choice = None if choice in lost else choice
    if choice == "none" and tools:  # (review 62: the Agent could never call the tools it was given)
        warnings.warn("The model given to the Agent was bound with tool_choice='none', which would keep the Agent "
                      "from calling its tools; the Agent drops it: bind no tool_choice, or give the Agent no tools.",
                      UserWarning, stacklevel=_USER_FRAME)
        choice = None
    return [*tools, *kept], choice


def graph_messages(state: dict[str, Any]) -> Any:
    """The messages of LangGraph's agent state (``{"messages": [...]}``, what ``create_react_agent(...).invoke``
    takes), so a ported ``agent.invoke({"messages": [("user", "hi")]})`` runs unchanged.

    Raises:
        UserError: the state holds other keys, which the Agent has no place for.
    """
    if other := sorted(map(str, set(state) - {"messages"})):
        raise UserError(f"An Agent run reads only the 'messages' of a LangGraph state, not {', '.join(other)}: pass "
                        "the messages (a list, or {'messages': [...]}) and give the rest to the tools another way (see "
                        "the README's \"Passing dependencies to tools\").")  # (any run method: review 100)
    return state["messages"]


def check_system_prompt(prompt: Any) -> Any:
    """``prompt`` when it is text, a :class:`~toolwire.messages.SystemMessage` or None; LangChain's ``SystemMessage``
    (what LangGraph's ``create_react_agent(prompt=...)`` takes), or anything else conversation input reads as one
    system message (``{"role": "system", "content": ...}``), as toolwire's ``SystemMessage`` (review 180 #3).

    Raises:
        UserError: anything else, such as a LangGraph callable or ``ChatPromptTemplate`` prompt, saying what to pass.
    """
    if prompt is None or isinstance(prompt, str | SystemMessage):
        return prompt
    if not callable(prompt):
        from toolwire.messages import coerce_messages

        try:
            read = coerce_messages([prompt])
        except (UserError, TypeError, ValueError):
            read = []
        if len(read) == 1 and isinstance(read[0], SystemMessage):
            return read[0]
    kind = type(prompt).__name__
    raise UserError(f"system_prompt takes the system text or a system message, toolwire's or LangChain's "
                    f"SystemMessage (got {kind}): pass the text as system_prompt=..., and put any other messages a "
                    "LangGraph prompt function or ChatPromptTemplate would add into the input you invoke the Agent "
                    "with.")


def check_tools(tools: Any, example: str = "Agent(model, [{}])") -> None:
    """``tools`` is a list (or other iterable) of tools, not ``None``, one tool, a string or a dict.

    A dict whose values are all tools (callables, or dicts with a ``"name"`` or ``"function"``), such as
    ``{"plain": plain}``, is told apart from one tool dict (``{"type": "function", ...}``, Gemini's
    ``{"google_search": {}}``): its error says a dict was passed and to pass ``list(d.values())``.

    Args:
        tools: what the caller passed.
        example: the call to show in the error, ``{}`` standing for the tool's name (``[{}]`` for
            ``list(d.values())`` when a dict of tools was passed).

    Raises:
        UserError: ``tools`` is not such a list.
    """
    if tools is None:
        raise UserError(f"Pass the tools as a list, such as {example.format('my_tool')}, or [] for no tools; "
                        "got None.")
    if isinstance(tools, Mapping) and all(
            callable(v) or (isinstance(v, Mapping) and ("name" in v or "function" in v)) for v in tools.values()):
        keys = ", ".join(repr(k) for k in list(tools)[:3]) + (", ..." if len(tools) > 3 else "")
        keys = f"keys {keys}" if keys else "empty"
        raise UserError(f"Pass the tools as a list, not a dict: got a dict of tools ({keys}); "
                        f"pass a list of its values, such as {example.replace('[{}]', 'list(d.values())')}.")
    if callable(tools) or isinstance(tools, str | bytes | dict) or not isinstance(tools, Iterable):
        name = getattr(tools, "name", None) or getattr(tools, "__name__", None) or "my_tool"
        raise UserError(f"Pass the tools as a list, such as {example.format(name)}, not a single tool.")


def check_tool_choice(tool_choice: Any, tools: Collection[Any]) -> None:
    """A forcing ``tool_choice`` (``"required"``, a tool name, a dict) needs tools to force; with none bound the
    model could never obey it, so the Agent refuses it at construction rather than ignoring it. With tools (server
    tools count: the model runs them), the model's ``bind_tools`` checks the choice against their names. The
    forms that force nothing are read as ``bind_tools`` reads them (:func:`toolwire.models.base._check_tool_choice`:
    None, ``"auto"``, ``"none"``, ``False``, Anthropic's ``{"type": "auto"}``...) and always taken."""
    from toolwire.models.base import _check_tool_choice

    if tools:
        return
    try:
        forces = _check_tool_choice(tool_choice, []) not in (None, "auto", "none")
    except UserError:  # a tool name (none is bound) or no form at all: it would force a call
        forces = True
    if forces:
        raise UserError(f"tool_choice={tool_choice!r} forces a tool call, but the Agent has no tools: pass the tools, "
                        "or leave tool_choice unset.")


def check_repeat_calls(repeat_calls: Any, names: Collection[str]) -> Literal["answer", "run"] | frozenset[str]:
    """``"answer"``, ``"run"``, or a collection of bound tool names (returned as a frozenset)."""
    if repeat_calls in ("answer", "run"):
        return repeat_calls  # type: ignore[no-any-return]
    if isinstance(repeat_calls, str | bytes) or not isinstance(repeat_calls, Iterable):
        raise UserError(f"repeat_calls must be 'answer', 'run', or a list of tool names, not {repeat_calls!r}.")
    chosen = frozenset(repeat_calls)
    unknown = sorted(str(name) for name in chosen - set(names))
    if unknown:
        raise UserError(f"repeat_calls names tools the Agent does not have: {', '.join(unknown)} "
                        f"(its tools: {', '.join(names) or 'none'}).")
    return chosen


def keep_run(exc: BaseException, messages: list[BaseMessage]) -> BaseException:
    """Attach the Agent run so far to ``exc``, an error raised by a model call or the executor, in place.

    ``exc.messages`` becomes a copy of ``messages`` (the whole conversation: the input, every reply and every
    tool result up to the failure; with the executor's ``exc.tool_messages``, the answers of the calls of the
    last reply that finished before the failure, which are added to ``messages`` itself too, the run's own list
    behind a stream's ``.messages``: review 113, resuming from the stream ran them again), so the work already done,
    tools with side effects included, is not lost:
    ``agent.invoke(exc.messages)`` resumes the run (calls left unanswered are run first, as for any input). The
    exception keeps its type (a :class:`~toolwire.errors.ProviderError` stays one) and gets a note saying so. An
    exception that refuses new attributes is left as it is.

    Returns:
        The error to raise: ``exc``, or this run's copy of it when another run already wrote its state on that
        object (one error raised in two runs: :func:`~toolwire._error_state.exclusive`).
    """
    answered = getattr(exc, "tool_messages", None)  # the executor's: calls that finished before the failure
    if isinstance(answered, list) and all(isinstance(m, ToolMessage) for m in answered):
        messages.extend(answered)  # (this run's: the executor raised it just now, with no await since)
    kept = list(messages)
    exc, written = claimed(exc, "messages", kept, taken_by="messages")  # (another Agent run's, at once too: review
    if not written:  # 125 #6)
        return exc
    count = f"{len(kept)} message" + ("" if len(kept) == 1 else "s")
    exc.add_note(f"toolwire: the Agent run so far ({count}) is on this error's .messages: pass them to invoke() to "
                 "resume it.")
    return exc


def stop_kind(reply: AIMessage) -> Literal["pause", "refusal", "length"] | None:
    """What the reply's ``response_metadata["finish_reason"]`` asks of the loop.

    ``"pause"``: Anthropic's ``pause_turn`` (a long-running server tool paused the turn; the guide "Handling stop
    reasons" says to send the reply back as it is so Claude continues). ``"refusal"``: one of
    :data:`REFUSAL_REASONS` (compared case-insensitively; an enum's ``value`` is read), or any Gemini
    ``response_metadata["block_reason"]`` (a blocked prompt). ``"length"``: the reply was cut at the output token
    limit (:data:`LENGTH_REASONS`: OpenAI's and llama.cpp's ``length``, Anthropic's ``max_tokens``, Gemini's
    ``MAX_TOKENS``, the Responses API's ``max_output_tokens``) or at the context window (Anthropic's
    ``model_context_window_exceeded``). ``None``: anything else.
    """
    metadata = reply.response_metadata or {}
    blocked = getattr(metadata.get("block_reason"), "value", metadata.get("block_reason"))
    if blocked and str(blocked).upper() != "BLOCK_REASON_UNSPECIFIED":
        return "refusal"  # Gemini's promptFeedback.blockReason: the prompt was blocked, no candidate came
    reason = metadata.get("finish_reason")
    reason = getattr(reason, "value", reason)
    if not isinstance(reason, str):
        return None
    reason = reason.lower()
    if reason == "pause_turn":
        return "pause"
    if reason in LENGTH_REASONS:
        return "length"
    return "refusal" if reason in REFUSAL_REASONS else None


def unique_call_ids(reply: AIMessage) -> AIMessage:
    """The reply, or a copy whose repeated call ids are renamed ``<id>_2``, ``<id>_3``... in reply order (valid
    calls, then invalid ones) with :class:`~toolwire.models.lowering._common.CallIds`, as the lowerings do: each
    ToolMessage must answer exactly one call (review 9, finding 12). Calls without a string id are left alone."""
    ids = CallIds()
    changed = False

    def rename(call: Any) -> Any:
        nonlocal changed
        call_id = call.get("id")
        if not isinstance(call_id, str):
            return call
        unique = ids.unique(call_id)
        if unique == call_id:
            return call
        changed = True
        return {**call, "id": unique}

    calls = [rename(call) for call in reply.tool_calls]
    invalid = [rename(bad) for bad in reply.invalid_tool_calls]
    return reply.copy(tool_calls=calls, invalid_tool_calls=invalid) if changed else reply  # type: ignore[return-value]


def unique_ids_in_turns(messages: list[BaseMessage]) -> None:
    """Make call ids unique in every turn of a conversation, in place (a resumed or loaded one may repeat them).

    Each AIMessage whose calls repeat an id is replaced by :func:`unique_call_ids`'s copy, and the
    ToolMessages after it (up to the next AIMessage) that answer a repeated id are renamed in the same order:
    the k-th answer with id ``X`` answers the k-th call with id ``X``. So a turn ``[c, c]`` answered once
    leaves exactly its second call pending, and no call is run twice.

    Then the ToolMessages of each turn with an empty (or ``None``) ``tool_call_id`` answer, in order, the calls
    of its AIMessage that no ToolMessage answers by id, and get those calls' ids (:func:`_fill_empty_answers`):
    an AIMessage gives a call with an empty id a new generated one, so its answer would otherwise match no call
    and the call would be run again.
    """
    for index, message in enumerate(messages):
        if not isinstance(message, AIMessage):
            continue
        renamed = unique_call_ids(message)
        if renamed is message:
            _fill_empty_answers(messages, index)
            continue
        messages[index] = renamed
        new_ids: dict[str, list[str]] = {}
        for old, new in zip([*message.tool_calls, *message.invalid_tool_calls],
                            [*renamed.tool_calls, *renamed.invalid_tool_calls], strict=True):
            if isinstance(old.get("id"), str):
                new_ids.setdefault(old["id"], []).append(new["id"])
        seen: dict[str, int] = {}
        for later in range(index + 1, len(messages)):
            answer = messages[later]
            if isinstance(answer, AIMessage):
                break
            if isinstance(answer, ToolMessage) and answer.tool_call_id in new_ids:
                order = seen.get(answer.tool_call_id, 0)
                seen[answer.tool_call_id] = order + 1
                targets = new_ids[answer.tool_call_id]
                if order < len(targets) and targets[order] != answer.tool_call_id:
                    messages[later] = answer.copy(tool_call_id=targets[order])
        _fill_empty_answers(messages, index)


def _fill_empty_answers(messages: list[BaseMessage], index: int) -> None:
    """Give the ToolMessages with no ``tool_call_id`` after the AIMessage at ``index`` (up to the next
    AIMessage) the ids of its calls that no ToolMessage answers by id, in call order (valid calls, then invalid
    ones), in place; each such ToolMessage is replaced by a copy. Those left over when every call is answered
    stay as they are."""
    ai: AIMessage = messages[index]  # type: ignore[assignment]
    answers: list[tuple[int, ToolMessage]] = []
    for later in range(index + 1, len(messages)):
        message = messages[later]
        if isinstance(message, AIMessage):
            break
        if isinstance(message, ToolMessage):
            answers.append((later, message))
    empty = [(later, answer) for later, answer in answers if not answer.tool_call_id]
    if not empty:
        return
    answered = {answer.tool_call_id for _, answer in answers}
    unanswered = [call["id"] for call in [*ai.tool_calls, *ai.invalid_tool_calls]
                  if isinstance(call.get("id"), str) and call["id"] and call["id"] not in answered]
    for (later, answer), call_id in zip(empty, unanswered, strict=False):
        messages[later] = answer.copy(tool_call_id=call_id)


def stale_answer(call: ToolCall | InvalidToolCall) -> ToolMessage:
    """The error ToolMessage for a call that a conversation went on past without answering."""
    return ToolMessage(f"Error: {named(call.get('name'))} was not run: the conversation went on without its result.",
                       call.get("id") or "", name=call.get("name"), status="error")


def answer_stale_calls(messages: list[BaseMessage]) -> list[tuple[ToolCall | InvalidToolCall, ToolMessage]]:
    """Answer, in place, the calls of earlier AIMessages that the conversation went on past without answering.

    A history such as ``[AI(c1, c2), Tool(c1), Human(...)]`` has ``c2`` unanswered; providers reject it (every
    call needs its ToolMessage). Such a call is not run (the user has moved on; its side effects could surprise):
    it gets an error ToolMessage placed right after that AIMessage's existing answers (review 9, finding 12).
    A call counts as answered when a ToolMessage with its id comes before the next AIMessage. The last
    AIMessage, when only ToolMessages follow it, is left alone: the Agent runs its unanswered calls.

    Returns:
        ``(call, answer)`` pairs, in conversation order.
    """
    last = len(messages)
    while last > 0 and isinstance(messages[last - 1], ToolMessage):
        last -= 1
    pending_at = last - 1 if last > 0 and isinstance(messages[last - 1], AIMessage) else -1
    added: list[tuple[ToolCall | InvalidToolCall, ToolMessage]] = []
    out: list[BaseMessage] = []
    for index, message in enumerate(messages):
        out.append(message)
        if index + 1 < len(messages) and isinstance(messages[index + 1], ToolMessage):
            continue  # act at the end of the AIMessage's block of answers
        owner = _owner(messages, index)
        if owner is None or owner == pending_at:
            continue
        missing = _missing(messages, owner)
        for call in missing:
            answer = stale_answer(call)
            out.append(answer)
            added.append((call, answer))
    if added:
        messages[:] = out
    return added


def _owner(messages: Sequence[BaseMessage], index: int) -> int | None:
    """The index of the AIMessage whose block of answers ends at ``index`` (itself, or its last ToolMessage)."""
    start = index
    while start >= 0 and isinstance(messages[start], ToolMessage):
        start -= 1
    if start < 0 or not isinstance(messages[start], AIMessage):
        return None
    ai = messages[start]
    return start if ai.tool_calls or ai.invalid_tool_calls else None  # type: ignore[attr-defined]


def _missing(messages: Sequence[BaseMessage], owner: int) -> list[ToolCall | InvalidToolCall]:
    ai: AIMessage = messages[owner]  # type: ignore[assignment]
    answered: set[str] = set()
    for index in range(owner + 1, len(messages)):  # (by index: a slice copied the rest of the conversation for each
        message = messages[index]  # AIMessage, quadratic in a stored conversation: review 266 #1)
        if isinstance(message, AIMessage):
            break
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id or "")
    return [call for call in [*ai.tool_calls, *ai.invalid_tool_calls] if (call.get("id") or "") not in answered]


def warn_call_as_answer(reply: AIMessage, tool_names: Collection[str]) -> None:
    """Log a warning when the run's final answer (``reply``, with no calls) is only a call of a bound tool written
    as text (review 90: a server whose chat template showed earlier calls with their arguments as a JSON string
    got the model to write ``{"name": "get_weather", "arguments": "{...}"}`` once tools were off, and that text
    was the run's output), or is empty after the embedded model declined the call it began (review 109: a sure call
    with one made-up optional value ended the run with no answer, and nothing said why). The output is left as it
    is; the warning says what it is and where to look."""
    text = reply.text.strip()
    meta = reply.response_metadata
    if not text and (meta.get("declined_calls") or meta.get("declined_unknown_calls")):
        made_up = meta.get("made_up_values") or []
        if made_up:  # (each cause with its own fix: review 172 #1 was told to lower min_call_probability for a repeat)
            why = (f"values it looked to have made up ({', '.join(map(str, made_up))}; ChatLlamaCpp's "
                   "min_value_probability)", "give those values in the question, or lower that option")
        elif meta.get("declined_repeat_calls"):
            why = ("a repeat of a call already answered (ChatLlamaCpp's decline_repeat_calls)",
                   "ask again, or pass decline_repeat_calls=False to let the Agent answer the repeat itself")
        elif meta.get("declined_unknown_calls"):
            why = ("a call of a tool it does not have (ChatLlamaCpp's decline_unknown_calls)",
                   "bind a tool that fits the question, or ask it in other words")
        else:
            why = ("too unsure a call (ChatLlamaCpp's min_call_probability)",
                   "give the values in the question, or lower that option")
        log.warning("The model gave no answer: the embedded model declined the tool call it began, for %s, and "
                    "wrote nothing else; %s.", *why)
        return
    if not text or text[0] not in "{[<`" or not tool_names:
        return
    from toolwire.parsing.dialects import parse_tool_calls

    parsed = parse_tool_calls(text, tool_names)
    if parsed.tool_calls and not parsed.content.strip():
        names = ", ".join(sorted({call["name"] for call in parsed.tool_calls}))
        log.warning("The model's final answer is a call of %s written as text, not an answer: the model (or its "
                    "server's chat template or tool parser) did not make it a tool call; the run's output is that "
                    "text.", names)


ENDLESS = ("forces a tool call on every model call and no return_direct tool can end the run, so each run ends in "
           "MaxStepsExceeded whatever max_steps is")
"""What a run forced on every call that no tool can end does (review 268 #2), as the warning and the error say it."""

ENDLESS_FIX = ("leave reset_tool_choice at True, add a tool made with @tool(return_direct=True) for the model to end "
               "the run with, or pass on_max_steps='answer' to get a final answer after max_steps")
"""What to do about it."""

_IGNORED_NONE = ("its server ignores tool_choice='none' (none of those calls ran): use a server that honours it, or "
                 "give the Agent no tools")


def max_steps_text(max_steps: int, paused: bool, cut: bool, ignored_none: bool = False,
                   ignored_off: str | None = None, endless: str | None = None) -> str:
    """The message of the :class:`~toolwire.errors.MaxStepsExceeded` an Agent run raises after ``max_steps`` model
    calls, saying what to change: the model was still working (``paused``: Anthropic's ``pause_turn``), its calls
    were cut at the output token limit (``cut``; calls the context window cut, ``response_metadata["context_full"]``,
    end the run with ``stop_reason="length"`` instead: review 267 #1), it still asked for tools under
    the Agent's ``tool_choice="none"`` (``ignored_none``: more steps would not help; review 123) or under the call the
    Agent makes after repeated calls (``ignored_off``: that call's ``tool_choice``, ``"none"`` or its one
    ``return_direct`` tool, which the last reply broke, every call of it refused; review 162 #4), or the Agent forces
    a call on every request and no tool can end the run (``endless``: that ``tool_choice``, as
    :func:`~toolwire._agent_models.endless_choice` gives it; more steps would not help: review 268 #2), or it still
    asked for tools."""
    steps = f"{max_steps} step" if max_steps == 1 else f"{max_steps} steps"
    if ignored_none:
        return f"The model still asked for tools after {steps}: {_IGNORED_NONE}."
    if ignored_off is not None:
        did = ("repeating calls already answered although the Agent turned tool calls off" if ignored_off == "none"
               else f"calling other tools although the Agent forced its tool {ignored_off!r}")
        return (f"The model still asked for tools after {steps}, {did} (tool_choice={ignored_off!r}), which its "
                "server ignores (none of those calls ran): use a server that honours tool_choice.")
    if endless is not None:
        return (f"The model still asked for tools after {steps} because tool_choice={endless!r} with "
                f"reset_tool_choice=False {ENDLESS}: {ENDLESS_FIX}.")
    if paused:
        return (f"The model was still working (it paused its turn, pause_turn) after {steps}: raise max_steps, or use "
                "on_max_steps='answer' to get a final answer.")
    if cut:
        return (f"The model's tool calls were still cut off at the output token limit after {steps}: raise max_tokens "
                "so that a whole call fits.")
    return (f"The model still asked for tools after {steps}: raise max_steps, or use on_max_steps='answer' to get a "
            "final answer.")


def no_answer_text(max_steps: int, calls: list[Any], ignored_none: bool) -> str:
    """The ``output`` of a run whose last reply (``on_max_steps="answer"``, tools off) asked for ``calls`` and gave no
    text; ``ignored_none``: the Agent's own ``tool_choice`` was ``"none"``, so more steps would not help."""
    names = ", ".join(dict.fromkeys(str(call.get("name") or "?") for call in calls))
    why = _IGNORED_NONE if ignored_none else "raise max_steps to let it finish"
    return (f"The model gave no answer within max_steps={max_steps}: its last reply asked for more tool calls "
            f"({names}), which were not run; {why}.")
