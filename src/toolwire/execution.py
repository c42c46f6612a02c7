"""Running the tool calls of one model reply: concurrently, in order, every call answered.

:class:`ToolExecutor` takes an :class:`~toolwire.messages.AIMessage` and returns one
:class:`~toolwire.messages.ToolMessage` per tool call and per invalid tool call, in the order the model
sent them. Whatever happens (unknown tool, invalid arguments, an exception, a timeout) the call gets a
``status="error"`` result the model can act on, unless ``handle_errors=False``.

All calls of one reply run at once: async tools on the event loop, sync tools on a thread pool, both
bounded by ``max_concurrency``. The sync entry point :meth:`ToolExecutor.execute` drives the same async
implementation (:meth:`ToolExecutor.aexecute`), so the two cannot drift apart.

Timeouts: an async tool past its timeout is cancelled. A sync tool's thread cannot be killed in
Python, so the executor stops waiting for it at the timeout, answers the call with a timeout error, and
lets the thread finish in the background (its result is discarded). Such an abandoned thread no longer
counts against ``max_concurrency``: the slot is given to the next call at the timeout, so with tools that
hang past their timeout more threads than ``max_concurrency`` may be running at once. A sync generator
tool that times out is closed (its ``finally`` blocks run) rather than drained for nobody. A sync tool's result
that its thread had ready in time is kept even when another tool blocked the event loop at the deadline; an
async tool's result that arrives after its deadline is a timeout, whichever tool blocked the loop (async
tools must not block it: ``time.sleep`` or a sync client belong in a sync tool). Work an async tool moved to a
thread (``await asyncio.to_thread(...)``) goes on past the tool's timeout too, as a thread cannot be stopped. Under
the sync API (:meth:`ToolExecutor.execute`, an Agent's ``invoke``) toolwire owns the event loop, whose default
executor then runs on daemon threads: the work of a call given up at its timeout does not keep the process from
exiting, and is cut off when it exits (review 240 #1), and the call's answer says it is still running; any other work
there (a fire-and-forget ``run_in_executor``) runs to its end, the process's exit waiting for it as ``asyncio.run``'s
end would (review 243 #1). Under your own loop (``await executor.aexecute(...)`` inside ``asyncio.run``) the default
executor is yours, left as it is: its threads are not daemon threads, and ``asyncio.run``'s end and the process's
exit wait for them, so give a blocking call in an async tool a timeout of its own.

A big result (thousands of items, or hundreds of thousands of characters) is turned into text on a worker
thread, piece by piece, so the event loop keeps running and toolwire's own work is not counted against
another async tool's timeout; small results, the common case, are turned into text on the spot.

Failures: every ``Exception`` from a tool, and any other ``BaseException`` except ``KeyboardInterrupt``,
becomes the call's error result: a ``GeneratorExit`` the tool raises is answered as ``RuntimeError: GeneratorExit
raised inside the tool`` and a ``SystemExit`` as a :class:`ToolExecutionError`. An ``asyncio.CancelledError`` is
the tool's own failure (an inner task of the tool was cancelled) while the task running the calls is not
being cancelled; when the run itself is cancelled, the cancellation propagates, also when a tool catches the
``CancelledError`` and returns (the run stops all the same, and its answers are not given). The calls still running
then get ``CANCEL_GRACE`` seconds to end, and one that ignores its cancellation is given up (its coroutine closed, as
at a timeout), so a cancelled run always ends; the answers of the calls that finished are on the ``CancelledError``
(or a Ctrl-C's ``KeyboardInterrupt`` in the sync API, and one a tool raises itself) as ``tool_messages``, with an
error answer for each async call stopped while it ran (or given up) saying that what it did may have taken effect
(:func:`stopped_text`), or, for a bridge (a sync wrapper running its ``async def`` on a worker thread, which cannot be
stopped), that it may still finish and take effect, as for a sync tool's thread (review 313 #2), so a resumed run
does not run it again; only the calls that had not started are left unanswered.

A call answered with an error result (``handle_errors=True``) is logged once, at DEBUG on the ``toolwire.tools``
logger, with its exception as the record's ``exc_info`` (traceback and cause, also under ``hide_error_details``, which
hides them from the model only) and the record's ``tool_name`` and ``tool_call_id`` (review 289 #2): a call whose tool
failed, and one that did not run (no such tool, argument text that is no JSON object, an ``invalid_tool_calls`` entry:
review 299 #3); not a call answered as stopped because the run was stopped (a given-up one is logged at WARNING). Under
``handle_errors=False`` the error raised for a call, a :class:`~toolwire.errors.ToolExecutionError`, names that call
by its ``tool_name`` and ``tool_call_id`` (review 289 #1).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolwire import _grace
from toolwire._bridges import BRIDGE
from toolwire._call_records import _checked_invalid, in_reply_order
from toolwire._concurrency import answers_sink, run_coroutine_sync
from toolwire._error_state import claimed
from toolwire._executor_input import prepared, refuse_conversation
from toolwire._executor_input import reply as reply_message
from toolwire._failed_calls import identified, log_failure
from toolwire._keywords import refuses_unknown_keywords
from toolwire._printing import safe_text, type_label
from toolwire._raising_calls import checked_first, raises
from toolwire._stop_calls import stop_calls
from toolwire._tool_args import argument_example
from toolwire._tool_checks import unbound_method_error
from toolwire._tool_run import StillRunning, TaskInterrupt, _running, bad_flags, bad_timeout, whole_number
from toolwire.chunks import AIMessageChunk
from toolwire.errors import ToolExecutionError, ToolResultError, UnknownToolError, UserError
from toolwire.messages import AIMessage, InvalidToolCall, ToolCall, ToolMessage
from toolwire.parsing.arguments import EXAMPLE
from toolwire.results import bounded_content, error_text, is_cheap_result, truncate_content, unsent_result
from toolwire.tools import Tool

__all__ = ["DEFAULT_MAX_RESULT_CHARS", "ToolExecutor"]

log = logging.getLogger("toolwire.tools")

DEFAULT_MAX_RESULT_CHARS = 20_000
"""The most characters of a tool result sent to the model by default (``max_result_chars``); a longer result is
cut with a clear marker."""


class ToolExecutor:
    """Runs tool calls against a set of tools.

    Args:
        tools: the tools that may be called (toolwire tools, functions with docstrings, LangChain tools).
        max_concurrency: how many calls of one reply may run at once, a whole number of at least 1 (an int or a
            NumPy integer, kept as an ``int``; not a bool or a float), or None: all of them (sync tools without a
            timeout share a pool of 64 threads, so at most 64 of those at once). A sync call abandoned at its
            timeout gives its slot back at once, though its thread may still run.
        timeout: seconds each call may take, unless the tool sets its own (None: no limit).
        handle_errors: True (default) turns every failure into a ``status="error"`` ToolMessage, but those of a
            tool made with ``handle_errors=False``, whose calls raise under the rules below (the other calls'
            failures are still answered); False re-raises the first failure, in call order: every call
            is checked before any runs, and one that cannot run (unknown tool, invalid arguments) keeps the calls
            after it from starting; its error is raised once the calls before it have run, unless one failed. A
            tool that raises while running stops the other running calls at once (they are cancelled) and its
            exception is raised. ``execute()`` and ``aexecute()`` follow these rules alike.
            Nothing that ran is lost: the raised exception carries the ToolMessages of the calls that finished
            before it, in call order, as ``exc.tool_messages`` (an :class:`~toolwire.agent.Agent` adds them to
            the conversation it keeps on the exception, so resuming does not run those calls again).
        max_result_chars: results longer than this many characters are cut with a clear marker, so
            one tool cannot fill the context window (default 20,000; None keeps everything; a whole number as
            ``max_concurrency`` is). The limit
            applies to error results too, and to the total text of a result made of several text blocks.
        hide_error_details: show the model only the exception type of a failing tool, not its message.

    Raises:
        SchemaError: a tool cannot be converted, or two tools share a name.
        UserError: ``tools`` is not a list (one tool alone, None), ``max_concurrency``, ``timeout`` or
            ``max_result_chars`` is not a valid value (a bool is not a number here), ``handle_errors`` or
            ``hide_error_details`` is not a bool, or a keyword is none of the above (``timout=1``: the message names
            the close match, ``timeout``), or a tool is a method read from its class (``Svc.m``: the message
            says to take it from an instance).
    """

    @refuses_unknown_keywords("ToolExecutor")
    def __init__(
        self,
        tools: Sequence[Any],
        *,
        max_concurrency: int | None = None,
        timeout: float | None = None,
        handle_errors: bool = True,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        hide_error_details: bool = False,
    ) -> None:
        from toolwire._agent_checks import check_tools
        from toolwire.errors import SchemaError
        from toolwire.models.base import to_tool

        check_tools(tools, "ToolExecutor([{}])")
        self.tools: dict[str, Tool] = {}
        for item in tools:
            converted = to_tool(item)
            if not isinstance(converted, Tool):
                raise SchemaError(f"Tool {converted.name!r} has a schema but no function to run.")
            if converted.name in self.tools:
                raise SchemaError(f"Two tools are named {converted.name!r}: give each tool a unique name.")
            if converted._method == "self" and "self" not in converted.parameters.get("properties", ()):
                raise unbound_method_error(converted.name, converted.func)  # (Svc.m: every call would fail; review 83)
            self.tools[converted.name] = converted
        max_concurrency = _count(max_concurrency, "max_concurrency must be a whole number of at least 1, or None")
        if (problem := bad_timeout(timeout) or bad_flags(handle_errors=handle_errors,
                                                         hide_error_details=hide_error_details)) is not None:
            raise UserError(problem)
        max_result_chars = _count(max_result_chars, "max_result_chars must be a whole number of at least 1, or None "
                                  "to keep whole results")
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self.handle_errors = handle_errors
        self.max_result_chars = max_result_chars
        self.hide_error_details = hide_error_details
        # the tools whose results come back whole, for an Agent to cut itself: a return_direct tool's result is the
        # user's answer, whole, and is kept cut in the conversation (review 110; toolwire.agent sets it)
        self._whole_results: frozenset[str] = frozenset()

    def _error(self, text: str, call: ToolCall | InvalidToolCall, name: str | None,
               artifact: Any = None) -> ToolMessage:
        if self.max_result_chars is not None:
            text = truncate_content(text, self.max_result_chars, error=True)  # type: ignore[assignment]
        return ToolMessage(text, call.get("id") or "", status="error", name=name, artifact=artifact)

    def _unknown(self, call: ToolCall) -> UnknownToolError:
        """The error of a call whose name is no tool's (or not text: shown as its ``repr()``, or its type's name
        when that fails): it names the available tools, or, when there are none, tells the model to answer without
        calling one.

        Returns:
            The error, to be raised or answered; never raises itself.
        """
        name = call.get("name")
        if not self.tools:  # (not "Available tools: none. Call one of them": review 176 #2)
            return UnknownToolError(f"There is no tool named {safe_text(name)}: no tools are available. Answer "
                                    "without calling a tool.", name, call.get("id"))
        return UnknownToolError(
            f"There is no tool named {safe_text(name)}. Available tools: {', '.join(sorted(self.tools))}. Call one "
            "of them by its exact name.", name, call.get("id"),
        )

    async def _one(self, call: ToolCall, gate: asyncio.Semaphore | None,
                   kwargs: dict[str, Any] | None = None) -> ToolMessage:
        """Run ``call`` and answer it (``kwargs``: its arguments, when
        :func:`~toolwire._raising_calls.checked_first` checked them)."""
        name = call.get("name")
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            exc = self._unknown(call)
            if not self.handle_errors:
                raise exc
            shown = name if isinstance(name, str) else None  # a ToolMessage's name is text
            log_failure(exc, shown, call.get("id"))  # (as any call answered with an error result: review 299 #3)
            return self._error(error_text(exc, safe_text(name, str)), call, shown)
        timeout = tool.timeout if tool.timeout is not None else self.timeout
        started = False  # whether the tool began to run (a call still waiting for the gate has not)
        result: Any = _NOT_RETURNED
        try:
            with _running(call):  # this task's context: current_tool_call() inside the tool, and while its
                if kwargs is None:  # arguments are checked (an InjectedToolCallId parameter is filled then)
                    kwargs = tool.call_args(call.get("args"))
                if gate is None:
                    started = True
                    result = await tool._arun(kwargs, timeout, settle=True)
                else:
                    async with gate:
                        started = True
                        result = await tool._arun(kwargs, timeout, settle=True)
            if is_cheap_result(_content_part(tool, result)):
                return self._finish(tool, result, call)
            return await asyncio.to_thread(self._finish_big, tool, result, call)
        except StillRunning as exc:  # the run stopped while its thread ran on: answered, so it is not run again
            return self._error(f"Error: {exc}", call, tool.name)
        except Exception as exc:
            if not (self.handle_errors and tool.handle_errors):  # (the tool's own False too: review 152 #2), naming
                if (own := identified(exc, tool.name, call.get("id"), call=call)) is exc:  # its call (review 289 #1)
                    raise
                raise own from own.__cause__  # (one error object raised for another call too: this call's copy)
            failure: BaseException = exc
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):  # a sync tool's, from its thread: out of this task as
                raise TaskInterrupt(exc) from None  # itself, asyncio would end the event loop with it
            if isinstance(exc, TaskInterrupt | SystemExit | GeneratorExit):
                raise
            if isinstance(exc, asyncio.CancelledError):
                task = asyncio.current_task()
                stopping = task is None or bool(task.cancelling())
                if stopping and result is not _NOT_RETURNED:  # it had returned (its result being turned into text)
                    with contextlib.suppress(Exception):  # (review 115: it was answered "stopped while it ran")
                        return self._finish(tool, result, call)
                if stopping and started and tool.is_async:  # stopped while it ran: answered, so a resumed run does
                    text = f"Error: {StillRunning(tool.name)}" if tool._off_loop == BRIDGE else stopped_text(tool.name)
                    return self._error(text, call, tool.name)  # not run it again (review 113; a bridge's thread runs
                    # on as a sync tool's does: review 313 #2)
                if stopping:
                    raise  # the run itself is being cancelled (a sync tool's thread is waited for: settled)
                if not self.handle_errors:  # not passed on as is: the caller would take it for its own
                    raise ToolExecutionError(f"Tool '{tool.name}' raised CancelledError (a task of its own was "
                                             "cancelled).", tool.name, call.get("id")) from exc
            elif not (self.handle_errors and tool.handle_errors):
                raise
            failure = exc
        hide = self.hide_error_details or tool.hide_error_details
        log_failure(failure, tool.name, call.get("id"))  # (the developer's trace of it, at DEBUG: review 289 #2)
        return self._error(error_text(failure, tool.name, hide_details=hide), call, tool.name,
                           unsent_result(failure, tool.name))

    def _finish(self, tool: Tool, result: Any, call: ToolCall) -> ToolMessage:
        message = tool._to_message(result, call)
        error = message.status == "error"  # (a tool's own error result: cut as an error is, "Error:" kept, no advice
        # to narrow it; also a return_direct tool's, which is no run's output and no Agent cuts: review 284 #6)
        if self.max_result_chars is not None and (error or tool.name not in self._whole_results):
            content = truncate_content(message.content, self.max_result_chars, error=error)
            if content is not message.content:
                message = message.copy(content=content)  # type: ignore[assignment]
        return message

    def _finish_big(self, tool: Tool, result: Any, call: ToolCall) -> ToolMessage:
        """:meth:`_finish` for a big result, on a worker thread: encoded piece by piece, cut at the limit."""
        limit = None if tool.name in self._whole_results else self.max_result_chars
        try:
            if tool.response_format == "content_and_artifact":
                if not (isinstance(result, tuple) and len(result) == 2):
                    return tool._to_message(result, call)  # raises its clear error
                return tool._to_message((bounded_content(result[0], limit), result[1]), call)
            return tool._to_message(bounded_content(result, limit), call)
        except ToolResultError as exc:
            exc.result = result  # the whole value the tool returned, as Tool._to_message keeps it
            raise

    def _invalid(self, bad: InvalidToolCall) -> ToolMessage:
        detail = (bad.get("error") or "it could not be parsed").strip()
        tool = self.tools.get(bad.get("name")) if isinstance(bad.get("name"), str) else None
        if tool is not None and EXAMPLE in detail:  # the parser's generic example: this tool's own shape instead
            detail = detail.replace(EXAMPLE, argument_example(tool.parameters))  # (review 88; review 61 for why)
        if not detail.endswith((".", "!", "?")):
            detail += "."
        called = f"The call to {bad['name']!r}" if bad.get("name") else "A tool call"
        refused = f"{called} was not valid, so it did not run: {detail}"
        if not self.handle_errors:
            raise ToolExecutionError(f"{refused} Ask the model again, or run with handle_errors=True to send the model "
                                     "this error.", bad.get("name"), bad.get("id"))
        name = bad.get("name") if isinstance(bad.get("name"), str) else None  # (logged as any call answered with an
        log_failure(ToolExecutionError(refused, name, bad.get("id")), name, bad.get("id"))  # error: review 299 #3)
        raw = bad.get("args")
        shown = f" The arguments received were: {raw[:500]}." if isinstance(raw, str) and raw else ""
        called = f"the call to {bad['name']!r}" if bad.get("name") else "a tool call"
        if detail[:1].isupper() and detail[1:2].islower():  # no capital after "...: " ("JSON" stays: review 170 #8)
            detail = detail[0].lower() + detail[1:]
        again = "" if _says_send(detail, raw) else (
            " Send the call again with the arguments as a JSON object.")
        text = f"Error: {called} was not valid: {detail}{shown}{again}"  # (one instruction, not two: review 170 #8)
        return self._error(text, bad, bad.get("name"))

    async def acall(self, calls: Iterable[ToolCall], invalid: Iterable[InvalidToolCall] = ()) -> list[ToolMessage]:
        """Run ``calls`` concurrently and answer each call and each ``invalid`` call, in the order the model sent them.

        Args:
            calls: the tool calls (``{"name", "args", "id", "type"}`` dicts), or an AIMessage, whose
                ``tool_calls`` and ``invalid_tool_calls`` are then answered (``invalid`` after its own).
            invalid: the calls that could not be parsed (:class:`~toolwire.messages.InvalidToolCall`).

        Returns:
            One ToolMessage per call and per invalid call, in the model's order: every call in ``calls``' order,
            an invalid call with an ``index`` (its place in the reply, as the parsers set it) in that place, and
            one without an ``index`` after the calls. A call without an id gets one first, and a
            number as an id becomes its text, as :class:`~toolwire.messages.AIMessage` does, so each answer can
            be matched to its call. Calls that share an id (a hand-made AIMessage) are answered under it in call
            order: toolwire's models and the Agent pair the k-th answer with the k-th call (review 83). A call
            that is not a dict is answered in its place as an invalid call, and one without a text name as a call
            of an unknown tool.

        Raises:
            UserError: ``calls`` (or ``invalid``) is one call, a dict, rather than a list of them, or a list
                holding messages (a conversation, where the reply was meant).
            ToolExecutionError, or the tool's own exception: only when ``handle_errors=False`` (the executor's,
                or a called tool's for its own calls): the first failure in call order (see ``handle_errors`` in
                the class docs); the other calls still running are cancelled first, as the sync :meth:`call` does.
            asyncio.CancelledError: the run was cancelled while the tools ran (also when a tool swallowed it).
        """
        if not isinstance(calls, list | tuple) and isinstance(reply := reply_message(calls), AIMessage):  # as execute()
            own = reply.invalid_tool_calls  # with the invalid calls given beside it, each once (reviews 137 #6, 139 #4)
            more = isinstance(invalid, Iterable) and not isinstance(invalid, str | bytes | Mapping)
            calls, invalid = reply.tool_calls, [*own, *(b for b in invalid if all(b is not o for o in own))] if (
                more) else invalid if invalid is not None else own
        if isinstance(calls, Mapping) or isinstance(invalid, Mapping):
            raise UserError("call() takes a list of tool calls (and a list of invalid ones), not one call.")
        if not isinstance(calls, Iterable) or isinstance(calls, str | bytes):
            raise UserError(f"call() takes a list of tool calls or an AIMessage, not {safe_text(calls, repr):.80}: "
                            "pass reply.tool_calls, or the reply itself.")
        if not isinstance(invalid, Iterable) or isinstance(invalid, str | bytes):
            raise UserError(f"call()'s invalid calls must be a list, not {safe_text(invalid, repr):.80}: pass "
                            "reply.invalid_tool_calls, or leave it out.")
        calls = list(calls)
        refuse_conversation(calls, "call")
        checked = [prepared(c) for c in calls]
        bad = [_checked_invalid(c) if isinstance(c, dict) else prepared(c) for c in invalid]
        gate = asyncio.Semaphore(self.max_concurrency) if self.max_concurrency else None
        refused: BaseException | None = None
        checked_args: list[dict[str, Any] | None] = [None] * len(checked)
        if not self.handle_errors or any(raises(self, c) for c in checked):  # (a handle_errors=False tool's too:
            # review 213 #2) the calls after the first refused one never start; an invalid call is refused (or
            # answered) at its place in the reply, before the calls after it run (review 88: it was refused after
            # every valid call had run, and their answers were lost)
            ordered = in_reply_order(checked, bad, bad) if bad else checked
            checked, checked_args, refused = checked_first(self, ordered)
            if refused is not None:  # (invalid arguments: the error names its call, review 289 #1)
                at = ordered[len(checked)]
                refused = identified(refused, at.get("name") if isinstance(at.get("name"), str) else None, at.get("id"))
            bad = []  # each invalid call is refused or answered there, or after one that was refused

        async def answer(call: Any, kwargs: dict[str, Any] | None) -> ToolMessage:
            _grace.mark_call()  # (the tasks the call starts can be found to give them up with it: stop_calls)
            try:
                return await self._one(call, gate, kwargs) if call["type"] == "tool_call" else self._invalid(call)
            except RuntimeError:  # (its run closed by _grace.give_up_calls in stop_calls: cancelled, review 203 #1)
                if _grace.given_up():
                    raise asyncio.CancelledError from None
                raise

        if checked:  # each call a task, one too: a run cancelled while a tool ignores it must still end (stop_calls)
            tasks = [asyncio.ensure_future(answer(c, a)) for c, a in zip(checked, checked_args, strict=True)]
            if (sink := answers_sink()) is not None:  # a sync call: its Ctrl-C gets the answers finished by then,
                sink(lambda: _finished(tasks))  # listed only when asked (review 266 #2: relisted per call, O(N^2))
            try:  # (not gather: cancelled, it waits for every call to end, a stuck one too; review 65)
                await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
                for task in tasks:  # the first failure in call order, raised
                    if task.done() and (task.cancelled() or task.exception() is not None):
                        task.result()
                results = [task.result() for task in tasks]
            except BaseException as caught:  # handle_errors=False (or the run cancelled): stop the other calls too
                exc = caught.interrupt if isinstance(caught, TaskInterrupt) else caught  # (raised in this task)
                threads = {i for i, call in enumerate(checked) if self._threaded(call)}
                failure, stuck = await stop_calls(tasks, checked, exc, threads)
                given_up = {}  # (calls that ignored their cancellation, or raised KeyboardInterrupt themselves: they
                for i, task in enumerate(tasks):  # ran, so they are answered too; review 137 #3)
                    own = task.done() and not task.cancelled() and isinstance(task.exception(), TaskInterrupt)
                    name = checked[i].get("name") if isinstance(checked[i].get("name"), str) else "?"
                    if i in stuck and not own and i in threads:  # a sync tool's thread runs on: as at one Ctrl-C
                        given_up[i] = self._error(f"Error: {StillRunning(name)}", checked[i], name)  # (review 272 #4)
                    elif i in stuck or own:
                        given_up[i] = self._error(stopped_text(name, own), checked[i], name)
                answers = [given_up[i] if i in given_up else t.result() for i, t in enumerate(tasks)
                           if i in given_up or _answered(t)]
                if sink is not None:  # (with the answers of the calls given up, which a listing would leave out)
                    sink(answers)
                own = _keep_answers(failure, answers)
                if own is caught:
                    raise
                raise own from own.__cause__  # (another run's error object: this run's copy of it; or a new Ctrl-C)
        else:
            results = []
        if refused is not None:  # the calls before it ran without failing
            raise _keep_answers(refused, results)
        # the invalid calls' answers at their places in the reply (InvalidToolCall "index"), else after the others
        return in_reply_order(results, [self._invalid(b) for b in bad], bad)

    def _threaded(self, call: Any) -> bool:
        """Whether ``call`` names a sync tool or a bridge (a sync wrapper running its ``async def`` on a worker thread:
        review 313 #2), whose thread cannot be stopped once it runs."""
        tool = self.tools.get(call.get("name")) if isinstance(call.get("name"), str) else None
        return tool is not None and (not tool.is_async or tool._off_loop == BRIDGE)

    async def aexecute(self, message: AIMessage | AIMessageChunk | Sequence[ToolCall]) -> list[ToolMessage]:
        """Run every tool call of ``message`` (async) and return their results in the order the model sent them.

        Args:
            message: the model's reply (or its streamed chunks merged: an
                :class:`~toolwire.messages.AIMessageChunk`; a LangChain ``AIMessage`` or ``AIMessageChunk`` too,
                converted as :func:`~toolwire.messages.coerce_messages` converts it), or a list of its tool calls
                (``ai_message.tool_calls``).

        Every tool call and every invalid tool call gets exactly one ToolMessage; an item of a list that is not a
        well-formed call (not a dict, a name that is not text) gets an error ToolMessage in its place, as in
        :meth:`acall`.

        Returns:
            A new list of :class:`~toolwire.messages.ToolMessage`, one per tool call and per invalid tool call,
            in the model's order: every tool call in the reply's order, an invalid call with an ``index`` in its
            place, and one without an ``index`` after the tool calls (as :meth:`acall`). Each answers its call's
            id (``status="error"`` for a call that failed, unless ``handle_errors=False``).

        Raises:
            UserError: ``message`` is neither an AIMessage nor a list (or tuple) of tool calls (or is a LangChain
                message toolwire cannot convert), or is a list of messages (a conversation: pass its reply).
            ToolExecutionError, or the tool's own exception: only when ``handle_errors=False`` (the executor's, or
                a called tool's), as :meth:`acall`.
        """
        if isinstance(message, list | tuple):  # shaped as acall shapes them: a malformed item answered in its place
            refuse_conversation(list(message), "execute")
            return await self.acall(list(message))
        reply = reply_message(message)
        if isinstance(reply, AIMessage):
            return await self.acall(reply.tool_calls, reply.invalid_tool_calls)
        raise UserError(
            f"execute() takes the model's AIMessage (toolwire's or LangChain's, or its .tool_calls list), not "
            f"{type_label(message)}."
        )

    def execute(self, message: AIMessage | AIMessageChunk | Sequence[ToolCall]) -> list[ToolMessage]:
        """Sync :meth:`aexecute`: the same implementation, run on an event loop of its own.

        Args:
            message: an AIMessage (or a streamed AIMessageChunk), or a list of tool calls.

        Returns:
            One ToolMessage per tool call and per invalid call, in the model's order: an invalid call with an
            ``index`` in its place, one without after the tool calls (see :meth:`acall`).

        Raises:
            UserError, ToolExecutionError, the tool's own exception: as :meth:`aexecute`.
        """
        return run_coroutine_sync(self.aexecute(message))

    def call(self, calls: Iterable[ToolCall], invalid: Iterable[InvalidToolCall] = ()) -> list[ToolMessage]:
        """Sync :meth:`acall`: the same implementation, run on an event loop of its own.

        Args:
            calls: the tool calls, or an AIMessage (see :meth:`acall`).
            invalid: the calls that could not be parsed.

        Returns:
            One ToolMessage per call and per invalid call, in the model's order: an invalid call with an
            ``index`` in its place, one without after the calls (see :meth:`acall`).

        Raises:
            UserError, ToolExecutionError, the tool's own exception: as :meth:`acall`.
        """
        return run_coroutine_sync(self.acall(calls, invalid))

    def __repr__(self) -> str:
        return f"ToolExecutor(tools={list(self.tools)}, max_concurrency={self.max_concurrency})"


def _keep_answers(exc: BaseException, answers: list[ToolMessage]) -> BaseException:
    """Put ``answers``, the ToolMessages of the calls that finished before ``exc`` stopped the others
    (``handle_errors=False``), on ``exc`` as ``exc.tool_messages``, in call order, so the work done is not
    lost, and return the error to raise: ``exc``, or this run's copy of it when another run already wrote its
    state on that object (:func:`~toolwire._error_state.exclusive`). An exception that refuses new attributes
    is left as it is."""
    return claimed(exc, "tool_messages", answers)[0]  # (checked and written at once for all threads: review 125 #6)


_SAYS_SEND = re.compile(r"(?:^|[.;:]\s+)[Ss]end\b|\sSend\b")
"""toolwire's own instruction in an invalid call's detail ("...; send it again as ...", "... Send the whole tool call
again ..."): a clause that opens with "send", or "Send" after a space (no second instruction is added)."""


def _says_send(detail: str, raw: Any) -> bool:
    """Whether an invalid call's ``detail`` already tells the model what to send, read from toolwire's words only:
    the call's own argument text, which a detail may quote (LangChain's "Function email arguments: {...} are not
    valid JSON"), is taken out first, and only a clause that opens with "send" counts (not "please send the report"
    in the model's arguments, nor a tool named send-sms: review 173 #4)."""
    if isinstance(raw, str) and _SAYS_SEND.search(raw):
        detail = detail.replace(raw, " ")
    return _SAYS_SEND.search(detail) is not None


_NOT_RETURNED = object()  # (ToolExecutor._one: the tool has not returned a result yet)


def _finished(tasks: list[asyncio.Future[ToolMessage]]) -> list[ToolMessage]:
    """The answers of the calls whose ``tasks`` finished with one, in call order."""
    return [t.result() for t in tasks if _answered(t)]


def _answered(task: asyncio.Future[ToolMessage]) -> bool:
    return task.done() and not task.cancelled() and task.exception() is None


def stopped_text(name: str, interrupted: bool = False) -> str:
    """The answer of an async tool call stopped while it ran, because its run was cancelled or stopped, or of a call
    whose tool raised ``KeyboardInterrupt`` itself (``interrupted``, which stops the run): what it did before may
    have taken effect, so a resumed run must not simply run it again (review 113: a payment was made twice; review
    137 #3: an email was sent twice), as for a sync tool's or a bridge's thread still running then
    (:class:`~toolwire._tool_run.StillRunning`)."""
    how = "raised KeyboardInterrupt, which stopped the run;" if interrupted else (
        "was stopped while it ran, because the run was stopped;")
    return f"Error: Tool '{name}' {how} what it did before that may have taken effect: check before running it again."


def _count(value: Any, rule: str) -> int | None:
    """``value`` (a ``max_concurrency`` or ``max_result_chars``) as an ``int``: a whole number of at least 1, a NumPy
    integer too (:func:`~toolwire._tool_run.whole_number`), or None.

    Raises:
        UserError: ``value`` is not one (a bool, a float, 0): the message is ``rule`` and the value given.
    """
    if value is None:
        return None
    number = whole_number(value)
    if number is None or number < 1:
        raise UserError(f"{rule}, not {safe_text(value)}.")
    return number


def _content_part(tool: Tool, result: Any) -> Any:
    """The part of ``result`` that becomes content (the first of a (content, artifact) pair)."""
    if tool.response_format == "content_and_artifact" and isinstance(result, tuple) and len(result) == 2:
        return result[0]
    return result
