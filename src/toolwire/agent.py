"""The tool-calling loop: model -> tool calls -> results -> model, until the model answers in text.

The loop is written once, as a generator (:meth:`Agent._flow`) that yields requests ("call the model
with these messages", "run these tool calls", "report this event") and receives their results. Four
thin drivers run it: :meth:`Agent.stream` and :meth:`Agent.astream` (yielding events, with the loops of
:mod:`toolwire._agent_drivers`), and :meth:`Agent.invoke` / :meth:`Agent.ainvoke` on top of them. The same
trick drives httpx's auth flows.

The loop stops when a reply has no tool calls (the answer), when a ``return_direct`` tool ran (also in the last round of
a conversation it resumes: :mod:`toolwire._agent_direct`), or after ``max_steps`` model calls (then
:class:`~toolwire.errors.MaxStepsExceeded` carrying the messages, or a last call with tools off: ``on_max_steps``).

A run that fails keeps its work: an exception raised by a model call (a :class:`~toolwire.errors.ProviderError`, say; a
``StopIteration``, which asyncio cannot carry, becomes a ``RuntimeError`` naming it) or by the executor
(``handle_errors=False``) leaves the run with its own type, and carries the conversation so far as ``exc.messages``
(every reply and tool result up to the failure), as ``MaxStepsExceeded`` does; ``agent.invoke(exc.messages)`` resumes
it, and the calls already answered are not run again (:func:`~toolwire._agent_checks.keep_run`, review 24), nor is the
model's repeat of one, as in the stopped run (:class:`~toolwire._agent_repeats.RepeatedCalls` reads the answers since
the newest question: review 142 #6).

A forced ``tool_choice`` (``"required"`` or a tool name) applies until tool calls have been answered in
the run (normally: to the first model call only), or, calls of its own tools, since the newest user message of a
conversation the run resumes (answered there by an earlier run or by the application: to force a call after results
the application put in, end the input with a user message, or bind the model with that ``tool_choice`` and give it to
a run of its own);
later model calls use ``"auto"`` so the model can answer (``reset_tool_choice``, as in the OpenAI Agents SDK).

Every tool call gets exactly one ToolMessage. Calls the input conversation left unanswered (its last
AIMessage has calls with no ToolMessage after it: a saved conversation, a human-approval step, a crash
between the reply and the results) are run first, before the model is called; with ``run_pending_calls=False``
(a conversation a client sends and could edit) each is answered with an error instead. The last reply of
``on_max_steps="answer"`` should have no calls (tools are disabled); when a server ignores that, each call
it still has is answered with an error ToolMessage and not run.

A model that repeats a call it already got the result for (same tool, same arguments), with no other tool run
since, is not run again: that call's ToolMessage gives the earlier result again; so is one that failed
``FAILED_TRIES`` (3) times in a row with the same error, which gets that error, saying it was not run again. Once a
round runs a tool, the results of earlier rounds are not given again (the tool may have changed what they read:
review 71), and once another tool succeeds, a call given up on gets one more try, once per run (a read that failed
repeatedly runs again after a write: review 88).
``repeat_calls="run"`` turns this off, and a list of tool names turns it off for those tools only (polling, side
effects: review 9, finding 10). These rules are kept in :mod:`toolwire._agent_repeats`.

Ids: the calls of each reply get unique ids before they run (a repeated ``"c1"`` becomes ``"c1_2"``, with
:class:`~toolwire.models.lowering._common.CallIds`, as the lowerings do), and the AIMessage kept in the
conversation carries the new ids. A call of an earlier AIMessage that the input conversation went on past
without answering (``[AI(c1, c2), Tool(c1), Human(...)]``) is not run: it gets an error ToolMessage right
after that AIMessage's answers, so the conversation sent to the provider answers every call (review 9, 12).

Stop reasons (``response_metadata["finish_reason"]``, review 8, finding 4): Anthropic's ``pause_turn`` (a
long-running server tool paused the turn) sends the reply back as it is so the model continues, as
Anthropic's guide "Handling stop reasons" says; it counts as a step. A refusal (Anthropic ``refusal``,
Gemini's safety and policy blocks, OpenAI ``content_filter``: see
:data:`~toolwire._agent_checks.REFUSAL_REASONS`) ends the run with ``stop_reason="refusal"``; the calls of
that reply are not run, each gets an error ToolMessage. A reply cut where the embedded model's context window ran out
(``response_metadata["context_full"]``) ends the run with ``stop_reason="length"`` once its calls are answered (the cut
one with an error), since a longer request could only overflow (review 267 #1); one cut at ``max_tokens`` goes back.
"""

from __future__ import annotations

from collections.abc import Collection, Generator, Sequence
from typing import Any, Literal, overload

from toolwire._agent_checks import (
    answer_stale_calls,
    bound_beforehand,
    check_model,
    check_repeat_calls,
    check_system_prompt,
    check_tool_choice,
    check_tools,
    max_steps_text,
    stop_kind,
    unique_ids_in_turns,
    warn_call_as_answer,
)
from toolwire._agent_direct import direct_output, remember_wholes
from toolwire._agent_drivers import aevents, events
from toolwire._agent_input import (
    PENDING_NOT_RUN,
    answered,
    for_model,
    in_call_order,
    not_run,
    refuse_outside_choice,
    refused_end,
    reply_calls,
    unanswered,
)
from toolwire._agent_models import bind_models, warn_endless
from toolwire._agent_repeats import RepeatedCalls, ToolsJob, executor_invalid
from toolwire._agent_requests import (
    answer_after_limit,
    held_to_force,
    pending_round,
    replayed_state,
    request_choice,
    request_kind,
    resumed_end,
)
from toolwire._agent_response import ResponseFormat, finish, kept_results
from toolwire._agent_states import AsyncStateStream, StateStream, stream_options
from toolwire._agent_stream import (
    AgentEvent,
    AgentResult,
    AgentStream,
    AsyncAgentStream,
    StopReason,
)
from toolwire._batch import Batching
from toolwire._call_records import in_reply_order
from toolwire._keywords import AgentMethodAdvice, keyword_names, refuse_run_config, refuses_unknown_keywords
from toolwire._tool_run import whole_number
from toolwire.errors import MaxStepsExceeded, UserError
from toolwire.execution import DEFAULT_MAX_RESULT_CHARS, ToolExecutor
from toolwire.messages import (
    AIMessage,
    BaseMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from toolwire.models.base import BaseChatModel, ServerTool, ToolChoice, server_tool

__all__ = ["Agent", "AgentEvent", "AgentResult"]


class Agent(Batching, AgentMethodAdvice):
    """Runs the tool-calling loop with a chat model and a set of tools.

    Args:
        model: a chat model (toolwire's, any :class:`~toolwire.models.BaseChatModel`). The Agent binds its tools to
            it; of a model bound beforehand (``model.bind_tools([a], tool_choice="required", strict=True)``) the
            ``parallel_tool_calls``, ``strict``, a forcing or forbidding ``tool_choice`` (when the Agent is given
            none) and the bound tools the Agent can run (added to ``tools`` when their names are not there) are
            kept; a bound schema without a function is left out, with a warning, and so is a bound
            ``tool_choice="none"`` when the Agent has tools (it could never call them).
        tools: toolwire tools, plain functions with docstrings, or LangChain tools; a provider's server tool
            dict (``{"type": "web_search_20250305", "name": "web_search"}``, ``{"google_search": {}}``) is sent
            to the model, which runs it itself (its calls are not tool calls and get no ToolMessage).
        system_prompt: a system message put first (its text, or a SystemMessage, toolwire's or LangChain's); a
            conversation that opens with a system message of its own gets one that holds both texts, the Agent's
            first. Put in as a message of its own, it has the id ``"toolwire:system_prompt"``, by which a stored
            conversation resumed after the prompt changed gets the new prompt in place of the old
            (:func:`toolwire._agent_input.put_system_prompt`).
        max_steps: the most model calls in one run: a whole number of at least 1 (an int or a NumPy integer, kept as
            an ``int``; not a bool or a float), default 10.
        tool_choice: passed to ``bind_tools`` (default ``"auto"``: the model decides). A forcing choice
            (``"required"`` or a tool name) applies until tool calls have been answered in the run, which is
            normally the first model call only; see ``reset_tool_choice``. One call at a time asked in it (Anthropic's
            ``"disable_parallel_tool_use": True``) holds on every call, as ``parallel_tool_calls=False`` does.
        reset_tool_choice: ``True`` (default): once tool calls have been answered, later model calls use
            ``"auto"``, so a model that obeys a forced ``tool_choice`` can give its answer (the OpenAI Agents
            SDK does the same). ``False`` keeps ``tool_choice`` on every call: then a forced run ends only
            through a ``return_direct`` tool or ``max_steps`` (with no ``return_direct`` tool the choice allows, the
            Agent warns when it is made: each run would end in ``MaxStepsExceeded``).
        on_max_steps: ``"raise"`` (default) raises MaxStepsExceeded; ``"answer"`` makes one last
            model call with tools disabled and returns its text. If that reply still has tool calls (a
            server that ignores ``tool_choice="none"``), they are not run: each gets an error ToolMessage
            saying no more tool calls are allowed, and ``output`` says so when the reply has no text.
        repeat_calls: ``"answer"`` (default): a call identical to one already answered with success in the
            run (same tool, same arguments), with no tool run since that answer's round, is not run again; its
            ToolMessage gives the earlier result again (content, status and artifact); a call that failed three
            times in a row with the same error is answered with that error, saying it was not run again (review
            67: a small model sent one bad expression until ``max_steps``). ``"run"``: every call runs. A list of tool
            names: those tools' calls always run (tools whose result changes, such as polling a job, or that act
            each time), the others are answered; ``"run"`` or a list also turns off the embedded model's own
            decline of repeated calls on the Agent's copies (``ChatLlamaCpp(decline_repeat_calls=...)``).
            Identical calls within one reply are judged alike: a tool that does not run again runs once, and each
            of them gets that result (review 69: one reply held the same call 8 times); list a tool that acts
            each time it is called (adds, sends) so that each identical call runs.
            When every call of a reply is answered that way, or a reply and its answers are the same a third time in
            a row (``repeat_calls`` tools' too: its calls run, then), the next model call is made with tools off
            (``tool_choice="none"``), so the model answers from the results it has: a small model otherwise asks for
            the same call again and again until ``max_steps`` (review 59).
            With a forcing ``tool_choice``
            and ``reset_tool_choice=False``, which keeps it on every call, the next call forces the one
            ``return_direct`` tool instead (smolagents' ``final_answer``, review 109: the model repeated its calls
            until ``max_steps``); with no such tool, or several, nothing changes.
        response_format: LangGraph's: a schema (or a ``(prompt, schema)`` tuple) for one more model call after the run
            answers, ``model.with_structured_output(schema)``, whose value is ``result.structured_response``
            (:mod:`toolwire._agent_response` says when it is made and how it counts).
        run_pending_calls: ``True`` (default): calls the input conversation's last AIMessage left unanswered (see
            the module docs) are run before the first model call, to resume a run. ``False``: each gets an error
            ToolMessage and is not run, and the model is asked: for a conversation a client sends and could edit
            (a chat endpoint's request body), whose calls must not choose what runs (review 105).
        max_concurrency, timeout (seconds), handle_errors, max_result_chars, hide_error_details:
            passed to the :class:`~toolwire.execution.ToolExecutor` (``max_concurrency`` bounds the calls of one
            reply; concurrent runs sharing a resource need a lock of their own).

    Calls the input conversation left unanswered are run before the first model call (``run_pending_calls``).
    ``batch(inputs, max_concurrency=None)`` / ``abatch`` run one :meth:`invoke` per input, several at once, and return
    the :class:`AgentResult` of each in input order (:class:`~toolwire._batch.Batching`, as a model's batch).

    Raises:
        UserError: ``model`` is not a chat model (``None``), ``tools`` is ``None`` or a single tool rather than a
            list, ``tool_choice`` forces a call but there are no tools, ``max_steps`` is not a whole number of
            at least 1, ``on_max_steps`` is not ``"raise"`` or ``"answer"``, ``repeat_calls`` is not
            ``"answer"``, ``"run"`` or a list of the Agent's tool names, ``model`` is a class rather than an
            instance, ``system_prompt`` is neither text nor a system message, ``reset_tool_choice`` or
            ``run_pending_calls`` is not a bool,
            or an executor option (``max_concurrency``, ``timeout``, ``max_result_chars``, ``handle_errors``,
            ``hide_error_details``) is out of range, as :class:`~toolwire.execution.ToolExecutor` checks them, or a
            keyword is none of the above (``max_step=3``: the message names the close match, ``max_steps``).
        SchemaError: a tool cannot be converted to a tool definition, or two tools share one name, or
            ``response_format`` cannot be made into one (a ``UserError`` for a tuple that is not ``(text, schema)``).
    """

    batch_options = False  # (invoke takes the input alone: batch refuses options itself, naming Agent.batch())
    model: BaseChatModel  # the first request's: it and the other requests' copies are bound by
    _after_tools_model: BaseChatModel  # toolwire._agent_models.bind_models
    _answer_model: BaseChatModel
    _finish_model: BaseChatModel | None
    _forced: bool
    _endless: str | None

    @refuses_unknown_keywords("Agent")
    def __init__(
        self,
        model: BaseChatModel,
        tools: Sequence[Any] = (),
        *,
        system_prompt: str | SystemMessage | None = None,
        max_steps: int = 10,
        tool_choice: ToolChoice | dict[str, Any] | bool | None = None,
        reset_tool_choice: bool = True,
        on_max_steps: Literal["raise", "answer"] = "raise",
        repeat_calls: Literal["answer", "run"] | Collection[str] = "answer",
        response_format: Any = None,
        run_pending_calls: bool = True,
        max_concurrency: int | None = None,
        timeout: float | None = None,
        handle_errors: bool = True,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        hide_error_details: bool = False,
    ) -> None:
        check_model(model)
        check_tools(tools)
        for flag, value in (("reset_tool_choice", reset_tool_choice), ("run_pending_calls", run_pending_calls)):
            if not isinstance(value, bool):  # ("false" from a config file would count as true)
                raise UserError(f"{flag} must be True or False, not {value!r}.")
        from toolwire.models.lowering._gemini_declarations import gemini_tools

        # (a google-genai Tool or FunctionDeclaration, read as bind_tools reads it: review 303 #2)
        tools, bound_choice = bound_beforehand(model, gemini_tools(list(tools)))  # (a generator is read once here)
        tool_choice = bound_choice if tool_choice is None else tool_choice
        steps = whole_number(max_steps)  # (a NumPy integer too, kept as an int, as max_concurrency: review 280 #6)
        if steps is None or steps < 1:
            raise UserError(f"max_steps must be a whole number of at least 1, not {max_steps!r}.")
        if on_max_steps not in ("raise", "answer"):
            raise UserError(f"on_max_steps must be 'raise' or 'answer', not {on_max_steps!r}.")
        # a provider's server tools ({"type": "web_search_20250305", ...}) are run by the model; the executor, others
        servers = [t for t in tools if isinstance(t, ServerTool) or (isinstance(t, dict) and server_tool(t))]
        self.executor = ToolExecutor(
            [t for t in tools if not any(t is s for s in servers)], max_concurrency=max_concurrency,
            timeout=timeout, handle_errors=handle_errors, max_result_chars=max_result_chars,
            hide_error_details=hide_error_details,
        )
        self.executor._whole_results = frozenset(t.name for t in self.executor.tools.values() if t.return_direct)
        runnable = [*self.executor.tools.values(), *servers]
        check_tool_choice(tool_choice, runnable)
        self.repeat_calls = check_repeat_calls(repeat_calls, self.executor.tools)
        bind_models(self, model, runnable, tool_choice, reset_tool_choice)  # (its copies: toolwire._agent_models)
        self.system_prompt = check_system_prompt(system_prompt)
        self.max_steps = steps
        self.reset_tool_choice = reset_tool_choice
        self.run_pending_calls = run_pending_calls
        self.on_max_steps = on_max_steps
        warn_endless(self)  # (forced on every call, and nothing can end the run: review 268 #2)
        self._response = None if response_format is None else ResponseFormat(model, response_format, self.system_prompt)

    # -- the loop, once --------------------------------------------------------------------------------

    def _flow(self, messages: list[BaseMessage]) -> Generator[tuple[str, Any], Any, None]:
        unique_ids_in_turns(messages)  # a resumed conversation may repeat call ids (its answers follow suit)
        stale = answer_stale_calls(messages)
        for call, _ in stale:  # every tool_call first, then the results, as for a reply's calls
            yield ("event", AgentEvent("tool_call", call, 0))
        for _, result in stale:
            yield ("event", AgentEvent("tool_result", result, 0))
        repeated = RepeatedCalls(self.repeat_calls, self.executor.tools, messages)  # (a resumed run's: review 142 #6)
        pending, pending_invalid = unanswered(messages)
        waiting = bool(pending or pending_invalid)
        # the loop's state before the pending reply (or at the end), replayed from the conversation since its newest
        # question: whether a tool of this Agent ran (a forced tool_choice is then past: reviews 88, 152 #3), and
        # whether the next request goes with tools off (reviews 142 #6, 165 #1)
        at = max(i for i, m in enumerate(messages) if isinstance(m, AIMessage)) if waiting else len(messages)
        tools_ran, only_repeats = replayed_state(self, messages[:at])
        if waiting and not self.run_pending_calls:  # a history a client could edit (review 105)
            yield from not_run(messages, in_reply_order(pending, pending_invalid, pending_invalid), 0, PENDING_NOT_RUN)
        elif waiting:  # (none: no round to run, review 89), held as the stopped run held them
            ended, tools_ran, only_repeats = yield from pending_round(self, messages, pending, pending_invalid,
                                                                      repeated, tools_ran, only_repeats)
            if ended:
                return
        if (yield from resumed_end(self, messages, repeated)):  # after a return_direct result, or the answer awaiting
            return  # the structured call: as the stopped run would have ended (reviews 194 #3, 200 #1)
        only_repeats = only_repeats and (not self._forced or self._finish_model is not None)
        paused, cut = False, False
        off_ignored = None  # the tool_choice of the loop's own call the last reply broke, running nothing (r. 162 #4)
        for step in range(1, self.max_steps + 1):
            ask = request_kind(self, tools_ran, only_repeats)
            reply = held_to_force(self, ask, (yield (ask, for_model(messages, self.system_prompt))))
            messages.append(reply)
            yield ("event", AgentEvent("model_reply", reply, step))
            kind = stop_kind(reply)
            calls = reply_calls(reply)  # (the model's order: review 135 #1)
            if kind == "refusal":
                yield from refused_end(messages, calls, step, reply.text, repeated.positions(messages))
                return
            paused = kind == "pause" and not calls
            if paused:  # pause_turn: the reply goes back as it is, and the model continues its turn
                continue
            if not calls:
                stop: StopReason = "length" if kind == "length" else "answer"
                warn_call_as_answer(reply, self.executor.tools)
                yield from finish(messages, reply.text, step, stop, self._response, repeated.positions(messages))
                return
            cut = kind == "length" and bool(reply.invalid_tool_calls)  # (calls cut before their JSON closed)
            # the caller's tool_choice holds, whether the server kept it or not (review 118), a "none" in the loop's
            # own tools-off call too (review 121); otherwise that call only nudges the model to answer: a new call
            # runs, but a repeat gets "tools were off", not the earlier success again (review 141 #7: until max_steps)
            choice = request_choice(self, ask)
            reuses = repeated.refused_when_off if ask == "answer" else None  # (review 194 #2)
            allowed, invalid, refused = refuse_outside_choice(reply, choice, reuses)
            off_ignored = None if allowed or invalid or ask not in ("answer", "finish") else choice or "none"
            if allowed or invalid:
                tools_ran = True
                direct, only_repeats = yield from self._tool_round(messages, allowed, invalid, step, repeated,
                                                                   refused, calls)
            else:  # every call refused: the same request again (a forced tool stays forced: review 121)
                yield from answered(messages, refused, step)
                direct, only_repeats = None, choice == "none" or ask in ("answer", "finish")
            only_repeats = only_repeats and (not self._forced or self._finish_model is not None)  # (forced: see init)
            if direct is not None:
                final = AgentResult(messages, direct.text, step, "return_direct", None, repeated.positions(messages))
                yield ("event", AgentEvent("final", final, step))
                return
            if kind == "length" and reply.response_metadata.get("context_full"):  # more could not fit (r. 267 #1)
                yield from finish(messages, reply.text, step, "length", self._response, repeated.positions(messages))
                return
        if self.on_max_steps == "answer":
            yield from answer_after_limit(self, messages, repeated)
            return
        ignored = getattr(self.model, "tool_choice", None) == "none"  # (more steps would not help: review 123)
        raise MaxStepsExceeded(max_steps_text(self.max_steps, paused, cut, ignored, off_ignored, self._endless),
                               messages, self.max_steps, reused_calls=repeated.positions(messages))

    def _tool_round(
        self,
        messages: list[BaseMessage],
        calls: list[ToolCall],
        invalid: list[InvalidToolCall],
        step: int,
        repeated: RepeatedCalls,
        refused: Sequence[tuple[Any, ToolMessage]] = (),
        order: list[Any] | None = None,
    ) -> Generator[tuple[str, Any], Any, tuple[ToolMessage | None, bool]]:
        """Answer ``calls`` and ``invalid`` (one ToolMessage each, appended to ``messages`` in call order), with the
        answers of the reply's ``refused`` calls (``(call, answer)``: a tool_choice they broke) among them in the
        reply's call ``order`` (:func:`~toolwire._agent_input.reply_calls`; default: ``calls`` and ``invalid``'s).

        Every call, invalid ones too, gets its ``tool_call`` event first; the ``tool_result`` events follow once
        the executor has answered them all (it returns the whole round at once). A call identical to one answered
        with success in a round since which no tool ran is not run again, unless ``repeat_calls`` says it runs (nor is
        one identical to an earlier call of the same reply: it gets that call's result, whatever it is); nor is one
        that failed :data:`~toolwire._agent_repeats.FAILED_TRIES` times in a row with the same error: it gets that
        error, saying it was not run again (after another tool's success, one more try, once per run).
        Returns ``(the result of the first successful return_direct tool or None, whether every call was such a
        repeat)``.
        """
        order = order or in_reply_order(calls, invalid, invalid)  # the model's order (an invalid call's "index")
        start = len(messages)  # the refused calls answered first, so a round that fails keeps them (review 139 #6),
        messages.extend(answer for _, answer in refused)  # then put in call order with the others (below)
        for call in order:
            yield ("event", AgentEvent("tool_call", call, step))
        fresh, repeats, twins = repeated.sort(calls)
        job = ToolsJob(calls, fresh, repeats, twins, executor_invalid(calls, fresh, invalid,
                                                                      self.executor.handle_errors))
        results: list[ToolMessage] = yield ("tools", job)
        results, originals = kept_results(results, self.executor._whole_results, self.executor.max_result_chars)
        remember_wholes(results, originals)  # (for a run resumed after this round: review 194 #3)
        fresh_results = iter(results[: len(fresh)])
        ordered: list[ToolMessage] = []
        for i, call in enumerate(calls):
            twin = ordered[twins[i]] if i in twins else None
            ordered.append(repeats[i] if i in repeats else next(fresh_results) if twin is None else ToolMessage(
                twin.content, call["id"] or "", name=call["name"], status=twin.status, artifact=twin.artifact))
            if twin is not None:
                repeated.reused.append((ordered[-1], twin))
        pairs = [*zip(calls, ordered, strict=True), *zip(invalid, results[len(fresh):], strict=False), *refused]
        answers = in_call_order(order, pairs)
        direct: ToolMessage | None = None
        for call, result in repeated.record(calls, ordered, repeats, twins, ran=bool(fresh)):
            tool = self.executor.tools.get(call["name"])
            if tool is not None and tool.return_direct and direct is None:
                earlier = next((first for given, first in repeated.reused if given is result), None)  # (a repeat's:
                # the earlier one's whole, or marked as cut: review 194 #3; the conversation keeps it cut)
                direct = originals[id(result)] if id(result) in originals else direct_output(result, earlier)
        messages[start:] = answers  # all of them before the first event: a caller that stops there keeps them
        for result in answers:
            yield ("event", AgentEvent("tool_result", result, step))
        looping = repeated.looping(calls, ordered, pairs[len(calls):len(calls) + len(invalid)])  # (r. 122, 128)
        return direct, (bool(calls) and len(repeats) == len(calls) and not invalid) or looping

    # -- drivers --------------------------------------------------------------------------------------

    # (overloads on stream_mode, so that a type checker reads each item as the mode yields it: review 280 #2)
    @overload
    def stream(self, input: Any, *, stream_mode: Literal["values", "updates", "messages"],
               stream_tokens: bool = ...) -> StateStream: ...
    @overload
    def stream(self, input: Any, *, stream_mode: None = ..., stream_tokens: bool = ...) -> AgentStream: ...
    @overload
    def stream(self, input: Any, *rest: Any, **options: Any) -> AgentStream | StateStream: ...

    def stream(self, input: Any, *rest: Any, **options: Any) -> AgentStream | StateStream:
        """Run the loop and yield its :class:`AgentEvent` objects; the last is ``"final"``.

        Events come in loop order: each model reply as it arrives; then every call of that reply
        (``"tool_call"``, invalid calls too), before any of them runs; then their ``"tool_result"`` events, in
        call order, once the whole reply's calls have finished (the executor answers a reply's calls together,
        so a quick call's result is not yielded before a slow one's has finished).

        Args:
            input: a question (string), or a list of messages to continue (also as LangGraph's agent state,
                ``{"messages": [...]}``); calls its last AIMessage left unanswered are run first, or answered with
                an error under ``run_pending_calls=False`` (their events have ``step=0``).
            rest, options: nothing (a LangGraph habit such as ``config={"recursion_limit": 5}`` is refused with a
                ``UserError`` saying what toolwire uses instead: ``Agent(..., max_steps=...)``, the messages), but
                LangGraph's ``stream_mode="values"``, ``"updates"`` or ``"messages"``, and ``stream_tokens=True``:
                each model call streamed, its chunks yielded as ``"model_chunk"`` events before its ``"model_reply"``
                (for a chat UI that shows the answer as it is written).

        Returns:
            An :class:`~toolwire._agent_stream.AgentStream`: an iterator of the events whose ``messages`` is the
            conversation so far, so a caller that stops early (``break``) keeps the work done and can resume it
            with ``invoke(stream.messages)``. With ``stream_mode``, a :class:`~toolwire._agent_states.StateStream`
            of LangGraph's state dicts instead (``{"messages": [...]}`` after each step; or what each step added,
            ``{"agent": {"messages": [reply]}}`` / ``{"tools": {"messages": [results]}}``), or with ``"messages"``
            its ``(message, metadata)`` pairs (:mod:`toolwire._agent_states`), with the same ``messages`` and
            ``close``.

        Raises:
            UserError: ``input`` cannot be read as messages, or is an empty question (raised at the first ``next``);
                another argument was given (raised at once).
            MaxStepsExceeded: ``max_steps`` reached (``on_max_steps="raise"``).
            ProviderError: the model failed; ``exc.messages`` holds the conversation so far (see the module docs),
                and ``exc.usage`` the run's usage up to the failure, as ``result.usage`` would have it, as on any
                other exception from a model call or from the executor, and on a ``KeyboardInterrupt``
                (Ctrl-C) that stops one (inside ``asyncio.run`` too, where Ctrl-C would otherwise wait for the
                blocking call to end).
        """
        mode, tokens = stream_options("Agent.stream", rest, options, keyword_names(Agent.__init__)[2:])
        messages: list[BaseMessage] = []
        stream = AgentStream(events(self, input, messages, tokens), messages)
        return stream if mode is None else StateStream(stream, mode)

    @overload
    def astream(self, input: Any, *, stream_mode: Literal["values", "updates", "messages"],
                stream_tokens: bool = ...) -> AsyncStateStream: ...
    @overload
    def astream(self, input: Any, *, stream_mode: None = ..., stream_tokens: bool = ...) -> AsyncAgentStream: ...
    @overload
    def astream(self, input: Any, *rest: Any, **options: Any) -> AsyncAgentStream | AsyncStateStream: ...

    def astream(self, input: Any, *rest: Any, **options: Any) -> AsyncAgentStream | AsyncStateStream:
        """Async :meth:`stream`: the same loop, awaiting the model's ``ainvoke`` and the executor's ``acall``.

        Args:
            input: a question (string), or a list of messages to continue, as for :meth:`stream`.
            rest, options: nothing but ``stream_mode`` and ``stream_tokens``, as for :meth:`stream`.

        Returns:
            An :class:`~toolwire._agent_stream.AsyncAgentStream`: an async iterator of :class:`AgentEvent`
            objects, as :meth:`stream` yields them (the last one ``"final"``), whose ``messages`` is the
            conversation so far; with ``stream_mode``, an :class:`~toolwire._agent_states.AsyncStateStream` of
            LangGraph's state dicts, or with ``"messages"`` its ``(message, metadata)`` pairs.

        Raises:
            UserError, MaxStepsExceeded, ProviderError: as :meth:`stream`; a failure carries ``exc.messages`` in the
                same way, and so does the ``CancelledError`` of a run cancelled during a model call or its tools
                (``asyncio.wait_for`` raises ``TimeoutError`` from it, so the conversation is on that error's
                ``__cause__.messages``).
        """
        mode, tokens = stream_options("Agent.astream", rest, options, keyword_names(Agent.__init__)[2:])
        messages: list[BaseMessage] = []
        stream = AsyncAgentStream(aevents(self, input, messages, tokens), messages)
        return stream if mode is None else AsyncStateStream(stream, mode)

    def invoke(self, input: Any, *rest: Any, **options: Any) -> AgentResult:
        """Run the loop to the end and return the :class:`AgentResult`.

        Args:
            input: a question (string), or a list of messages to continue, as for :meth:`stream`.
            rest, options: nothing, as for :meth:`stream`.

        Returns:
            The :class:`AgentResult` of the run: ``output`` (the answer's text), ``messages`` (the whole
            conversation, the input first, every reply and tool result after it), ``steps`` (model calls made),
            ``stop_reason`` (``"answer"``, ``"return_direct"``, ``"max_steps"``, ``"refusal"`` or ``"length"``: see
            :class:`AgentResult`; a reply cut by the context window, ``context_full``, ends the run there),
            ``structured_response`` (``response_format``'s value, or ``None``) and ``usage`` (the tokens of every
            model request the run made, the structured call's included, summed; ``None`` when none reported usage).

        Raises:
            UserError: ``input`` cannot be read as messages (:func:`~toolwire.messages.coerce_messages`), or is an
                empty question, or another argument was given (LangGraph's ``config=``: the message says what to use).
            MaxStepsExceeded: ``max_steps`` reached (``on_max_steps="raise"``).
            ProviderError: the model failed. Like any exception from a model call or the executor, it carries the
                conversation so far as ``exc.messages`` (the tools that ran are in it): pass it to ``invoke`` to
                resume.
        """
        if rest or options:  # a LangGraph habit (review 76)
            refuse_run_config("Agent.invoke", rest, options, keyword_names(Agent.__init__)[2:])
        result: AgentResult | None = None
        for event in self.stream(input):
            if event.type == "final":
                result = event.data
        assert result is not None
        return result

    async def ainvoke(self, input: Any, *rest: Any, **options: Any) -> AgentResult:
        """Async :meth:`invoke`: run the loop to the end (:meth:`astream`) and return the :class:`AgentResult`.

        Args:
            input: a question (string), or a list of messages to continue, as for :meth:`stream`.
            rest, options: nothing, as for :meth:`stream`.

        Returns:
            The :class:`AgentResult` of the run, as :meth:`invoke` returns it.

        Raises:
            UserError, MaxStepsExceeded, ProviderError: as :meth:`invoke`; a failure carries ``exc.messages`` in
                the same way, and a cancelled run's ``CancelledError`` too (see :meth:`astream`).
        """
        if rest or options:  # a LangGraph habit (review 76)
            refuse_run_config("Agent.ainvoke", rest, options, keyword_names(Agent.__init__)[2:])
        result: AgentResult | None = None
        async for event in self.astream(input):
            if event.type == "final":
                result = event.data
        assert result is not None
        return result
