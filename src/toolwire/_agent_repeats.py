"""Repeated tool calls in an :class:`~toolwire.agent.Agent` run: which calls of a reply are answered with an
earlier result instead of being run.

A call identical to one answered with success (same tool, same arguments) in a round since which no tool ran is
not run again: it gets that answer. Nor is one that failed :data:`FAILED_TRIES` times in a row with the same
error (it gets that error, saying it was not run again; once another tool has succeeded since, it gets one more
try, once per run), nor one
identical to an earlier call of the same reply (it gets that call's result, whatever it is). The Agent's
``repeat_calls`` (``"run"``, or the names of tools whose calls always run) turns this off. :class:`RepeatedCalls`
keeps what one run needs for it; ``Agent._tool_round`` uses it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
from collections.abc import Collection, Sequence
from typing import Any

from toolwire._agent_checks import named
from toolwire._agent_input import TOOLS_OFF
from toolwire._call_records import in_reply_order
from toolwire.messages import AIMessage, InvalidToolCall, ToolCall, ToolMessage

__all__ = ["FAILED_TRIES", "RepeatedCalls", "ToolsJob", "call_key", "executor_invalid"]

FAILED_TRIES = 3
"""Times an identical call (same tool, same arguments) may fail in a row with the same error before a repeat of it
is answered with that error instead of being run (review 67: a small model sent one bad calculator expression until
``max_steps``); a transient failure (a dropped connection, a timeout) still gets two more tries (review 118: with one,
a third try that would have worked was answered with the second's error)."""


_NO_TOOL = "There is no tool named "  # (the executor's answer to a call of a tool it does not have: nothing ran)

SAME_CALLS_LIMIT = 5
"""The same reply this many times in a row, whatever its answers, turns tools off for the next model call."""


def call_key(call: ToolCall) -> str:
    """Return the key under which identical calls meet: the tool's name and its arguments as canonical JSON text.

    Args:
        call: a tool call.

    Returns:
        ``name``, a NUL character, and the arguments (JSON with sorted keys, else their ``repr``); a call whose
        arguments are nested too deeply to write gets a key of its own, never the same as another's (review 76).
    """
    try:
        return call["name"] + "\x00" + json.dumps(call.get("args"), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        try:
            return call["name"] + "\x00" + repr(call.get("args"))
        except (RecursionError, ValueError):  # nested too deeply to write out (review 76): never the same as another
            return call["name"] + "\x00" + str(id(call))
    except RecursionError:
        return call["name"] + "\x00" + str(id(call))


class RepeatedCalls:
    """What one Agent run remembers of the calls it answered, so that a repeat is answered without running it.

    Args:
        repeat_calls: the Agent's checked ``repeat_calls``: ``"answer"``, ``"run"``, or a frozenset of the names
            of the tools whose calls always run.
        tools: the names of the Agent's tools (None: any name is one); a repeated call of another name is answered
            the same way, without the warning that advises ``repeat_calls``, which takes only those names.
        messages: the conversation a run resumes (``exc.messages``, ``stream.messages``): its rounds since the newest
            user message are remembered as the run that made them did (:meth:`_seed`, review 142 #6).
    """

    def __init__(self, repeat_calls: Any, tools: Collection[str] | None = None, messages: Sequence[Any] = ()) -> None:
        self.repeat_calls = repeat_calls
        self.tools = tools
        self.answered: dict[str, ToolMessage] = {}  # call key -> its success answer, since the last round that ran
        self.last_round: dict[str, tuple[str, Any]] = {}  # the last round that ran: call key -> (status, content)
        self.last_reply: list[str] | None = None  # the call and answer keys of the last reply, sorted
        self.same_replies = 0  # how many replies in a row asked for exactly those calls, after the first
        self.last_calls: list[str] | None = None  # the call keys alone of the last reply, sorted
        self.same_calls = 0  # how many replies in a row asked for those calls, whatever the answers, after the first
        self.failed: dict[str, tuple[int, ToolMessage]] = {}  # call key -> (times it failed so in a row, last error)
        self.retried: set[str] = set()  # call keys given their one more try after another tool succeeded
        self.told: set[tuple[str, bool]] = set()  # (tool, failed): the repeats this run has said it did not run
        self.reused: list[tuple[ToolMessage, ToolMessage]] = []  # (an answer given without running, its source)
        self.tools_off_next = False  # the conversation's last reply was answered so that tools go off next (_seed)
        self._seed(messages)

    def _seed(self, messages: Sequence[Any]) -> None:
        """Remember the rounds of ``messages`` since its newest user message as the run that made them did, so that a
        resumed run answers a repeat as the run it resumes would have (review 142 #6: a resumed run ran an answered
        ``add_expense`` call again), and counts the same reply in a row from there (:meth:`looping`).

        Each reply's answered calls are sorted and recorded in turn (:meth:`sort`, :meth:`record`); a call answered
        without running (an answer ``Error: <tool> was not run: ...``: refused by ``tool_choice``, left stale) is left
        out, as the live run leaves it out, and a call :meth:`sort` would have answered from an earlier result but
        whose answer differs from that result counts as one that ran (an earlier run with other ``repeat_calls``).
        Calls with no answer (those the run is about to run), and calls of a tool this Agent does not have, are left
        out. Nothing is warned, nor counted in :attr:`reused`.
        """
        start = next((i + 1 for i in range(len(messages) - 1, -1, -1) if getattr(messages[i], "type", "") == "human"),
                     0)
        tools, self.tools = self.tools, ()  # (no RepeatedCallWarning for what an earlier run answered)
        try:
            for index in range(start, len(messages)):
                reply = messages[index]
                if isinstance(reply, AIMessage) and (reply.tool_calls or reply.invalid_tool_calls):
                    off = self._seed_round(reply, messages, index + 1, tools)
                    last = all(isinstance(later, ToolMessage) for later in itertools.islice(messages, index + 1, None))
                    self.tools_off_next = bool(off) and last
        finally:
            self.tools = tools
            self.reused.clear()

    def _seed_round(self, reply: AIMessage, messages: Sequence[Any], start: int,
                    known: Collection[str] | None = None) -> bool:
        """:meth:`_seed` for one reply, whose answers are the ToolMessages of ``messages`` from ``start`` on; a call
        of a tool not in ``known`` (the Agent's tools, when given) is left out: this Agent could not have run it, so
        its repeat gets "There is no tool named ..." as in a fresh run (review 144 #9); but when it was answered as
        having run (by the program that resumes the run), no earlier result, nor one of this reply, is given again
        (review 152 #1: a status read before an approved ``cancel_order`` was given again).

        Returns whether the live run would have made its next model call with tools off after this reply: every
        call of it answered, and those that were not refused all repeats answered from earlier results, or the reply
        a loop (:meth:`looping`), or every call refused because tool calls were off for that reply; a reply with a
        call unanswered or of another tool, or refused by a forcing ``tool_choice``, gives False."""
        answers: dict[str, ToolMessage] = {}
        for message in itertools.islice(messages, start, None):
            if not isinstance(message, ToolMessage):
                break
            answers.setdefault(message.tool_call_id or "", message)

        def ran(call: Any) -> bool:
            answer = answers.get(call.get("id") or "")
            refused = f"Error: {named(call.get('name'))} was not run: "
            return answer is not None and not (answer.status == "error" and str(answer.content).startswith(refused))

        calls = [call for call in reply.tool_calls if ran(call) and (known is None or call.get("name") in known)]
        invalid = [(bad, answers[bad.get("id") or ""]) for bad in reply.invalid_tool_calls if ran(bad)]
        # a call of another tool answered as run (by the program that resumes: an approved cancel_order, a handoff)
        # is a tool that ran: no result read before it, or beside it, is given again (review 152 #1)
        foreign = known is not None and any(
            call.get("name") not in known and ran(call) and _NO_TOOL not in str(answers[call.get("id") or ""].content)
            for call in reply.tool_calls)
        if foreign:
            self.answered.clear()
        if not calls and not invalid:  # every call refused (the live run records nothing either): tools stay off
            # when they were off for that reply, the Agent's own tools-off call or tool_choice="none" (review 151 #3)
            given = [answers.get(c.get("id") or "") for c in (*reply.tool_calls, *reply.invalid_tool_calls)]
            return bool(given) and all(a is not None and str(a.content).endswith(TOOLS_OFF) for a in given)
        ordered = [answers[call["id"] or ""] for call in calls]
        _, repeats, twins = self.sort(calls)
        def same(a: ToolMessage, b: ToolMessage) -> bool:
            return (a.status, a.content) == (b.status, b.content)

        repeats = {i: given for i, given in repeats.items() if same(given, ordered[i])}  # (else it ran)
        twins = {i: first for i, first in twins.items() if same(ordered[first], ordered[i])}
        self.record(calls, ordered, repeats, twins, ran=len(repeats) + len(twins) < len(calls))
        if foreign:
            self.answered.clear()
        looping = self.looping(calls, ordered, invalid)
        if not all((call.get("id") or "") in answers for call in (*reply.tool_calls, *reply.invalid_tool_calls)):
            return False  # (calls left to run: the run that resumes runs them first)
        if known is not None and any(call.get("name") not in known for call in reply.tool_calls):
            return False  # (a call of another tool: the live run ran it, "There is no tool named ...")
        return (bool(calls) and len(repeats) == len(calls) and not invalid) or looping

    def reruns(self, name: str) -> bool:
        """Return whether a repeated identical call of tool ``name`` runs again (``repeat_calls``).

        Args:
            name: the tool's name.

        Returns:
            True when ``repeat_calls`` is ``"run"`` or names the tool.
        """
        if isinstance(self.repeat_calls, frozenset):
            return name in self.repeat_calls
        return self.repeat_calls == "run"

    def reuses(self, call: ToolCall) -> bool:
        """Return whether ``call`` would be answered with an earlier success without running (:meth:`sort`).

        Args:
            call: a valid tool call.

        Returns:
            True when an identical call was answered with success in a round since which no tool ran, and
            ``repeat_calls`` does not make its tool run again.
        """
        earlier = self._earlier(call, call_key(call))
        return earlier is not None and earlier.status == "success"

    def refused_when_off(self, call: ToolCall) -> bool:
        """Return whether ``call``, in a reply to the Agent's own tools-off call (its loop breaker, which a server may
        ignore), is refused with "tool calls were off" instead of being run or answered.

        Args:
            call: a valid tool call.

        Returns:
            True when it would be answered with an earlier success (:meth:`reuses`), or when it is identical to a call
            of the reply that made the loop breaker turn tools off and would run again: a tool in ``repeat_calls``
            (review 194 #2: a server that ignored ``tool_choice`` got the same ``add_expense`` run on every step until
            ``max_steps``), or one whose earlier answer a tool run since made stale. A call that failed
            :data:`FAILED_TRIES` times in a row keeps its "not run again" answer; a new call runs.
        """
        key = call_key(call)
        if self.reuses(call):
            return True
        return key in (self.last_calls or ()) and self._earlier(call, key) is None

    def sort(self, calls: list[ToolCall]) -> tuple[list[ToolCall], dict[int, ToolMessage], dict[int, int]]:
        """Split a reply's ``calls`` into those to run and those answered without running.

        Args:
            calls: the reply's valid calls, in order.

        Returns:
            ``(fresh, repeats, twins)``: the calls to run; call index -> its answer (the earlier result, or the
            error it failed with :data:`FAILED_TRIES` times in a row); call index -> the index of the same call
            earlier in this reply (run once, its result given to both).
        """
        fresh: list[ToolCall] = []
        repeats: dict[int, ToolMessage] = {}
        twins: dict[int, int] = {}
        first: dict[str, int] = {}
        keys = [call_key(call) for call in calls]
        for index, call in enumerate(calls):
            key = keys[index]
            earlier = self._earlier(call, key)  # (a repeat beside a call that runs gets the earlier answer all the
            # same: the calls of one reply run in no set order, so it is the answer it might have got anyway)
            if earlier is None and key in first and not self.reruns(call["name"]):
                twins[index] = first[key]  # (review 69: one reply held the same call 8 times, and all 8 ran)
                self._tell(call["name"])
            elif earlier is None:
                first.setdefault(key, index)
                fresh.append(call)
            else:
                # the earlier answer itself: a note beside it ("do not call it again") was what small models
                # copied as their answer (review 59); the loop instead stops offering tools (``_flow``)
                content = earlier.content if earlier.status == "success" else _not_run_again(call["name"], earlier)
                repeats[index] = ToolMessage(content, call["id"] or "", name=call["name"],
                                             status=earlier.status, artifact=earlier.artifact)
                self.reused.append((repeats[index], earlier))
                self._tell(call["name"], earlier.status == "error")
        return fresh, repeats, twins

    def looping(self, calls: list[ToolCall], answers: list[ToolMessage],
                invalid: Sequence[tuple[Any, ToolMessage]] = ()) -> bool:
        """Whether ``calls`` make the third reply in a row that asks for exactly the same calls and gets exactly the
        same answers: a loop the rule of repeats cannot see when each round runs one of the calls and answers the
        other from the round before (review 122: two tools took turns until ``max_steps``), or when the calls are of
        tools in ``repeat_calls``, which run every time (review 126: a small model sent the same ``add_expense`` call
        ten times, and ten rows were added); the next model call then has tools off, as after a reply of repeats.
        The third reply's calls still run. A polling tool whose answer changes (``"done"`` after ``"running"``, a
        percentage) is no loop (review 128 #2); one whose answer stays the same three times is. Whatever the
        answers, the same reply a fifth time in a row is one (review 129 #2: an adding tool whose answer carries a new
        id each time, ``"Added expense #7"``, ran ten times). Call it once per reply; ``answers``: the calls'
        answers, in the same order; ``invalid``: the reply's invalid calls with their answers, which count alike
        (review 137 #2: a model that sent the same cut-off call every time kept tools on until ``max_steps``)."""
        pairs = [*zip(calls, answers, strict=False),
                 *(({"name": f"\x01{bad.get('name')!r}", "args": bad.get("args")}, answer) for bad, answer in invalid)]
        keys = sorted(f"{call_key(call)}\0{answer.status}\0{answer.content!r}" for call, answer in pairs)
        if not keys:
            self.last_reply, self.same_replies, self.last_calls, self.same_calls = None, 0, None, 0
            return False
        called = sorted(call_key(call) for call, _ in pairs)
        self.same_replies = self.same_replies + 1 if keys == self.last_reply else 0
        self.same_calls = self.same_calls + 1 if called == self.last_calls else 0
        self.last_reply, self.last_calls = keys, called
        return self.same_replies >= 2 or self.same_calls >= SAME_CALLS_LIMIT - 1

    def positions(self, messages: list[Any]) -> dict[int, int]:
        """Where the answers given without running are in ``messages`` (the run's conversation), for
        :attr:`AgentResult.reused_calls <toolwire.agent.AgentResult>`: ``{index of such a ToolMessage: index of the
        ToolMessage whose answer it got}``, in the order they were given. Positions, not call ids, which a server may
        give again in each reply (review 106: ``call_0`` every time)."""
        where = {id(message): index for index, message in enumerate(messages)}
        return {where[id(given)]: where[id(source)] for given, source in self.reused
                if id(given) in where and id(source) in where}

    def _tell(self, name: str, failed: bool = False) -> None:
        """Warn, once per run and tool, that a repeated call of tool ``name`` was answered without running it (review
        99: a tool with side effects, called three times by the model, ran once, and nothing said so), with the
        error it failed with ``FAILED_TRIES`` times (``failed``; review 118: that was silent)."""
        if (name, failed) in self.told or (self.tools is not None and name not in self.tools):
            return  # (review 137 #1: the advice named a tool that does not exist, and following it raised)
        self.told.add((name, failed))
        from toolwire._warn_site import warn_user
        from toolwire.errors import RepeatedCallWarning

        names = sorted(self.repeat_calls | {name}) if isinstance(self.repeat_calls, frozenset) else [name]
        what = (f"a call of {name!r} with the error it had given {FAILED_TRIES} times in a row"  # (review 170 #9)
                if failed else f"a repeated call of {name!r} with the result it already had")
        warn_user(RepeatedCallWarning(
            f"The Agent answered {what}, without running the tool again (it does so for every tool not in "
            "repeat_calls, which stops models that loop): for a tool that must run on every call, such as one that "
            f"adds or sends something or fails now and then, pass Agent(..., repeat_calls={names!r}).", name,
            tuple(names)))

    def _earlier(self, call: ToolCall, key: str) -> ToolMessage | None:
        """The answer a repeat of ``call`` gets without running: its earlier success, or the error it failed with
        :data:`FAILED_TRIES` times in a row; None when it is to run (never for a tool in ``repeat_calls``)."""
        if self.reruns(call["name"]):
            return None
        earlier = self.answered.get(key)
        tries, error = self.failed.get(key, (0, None))
        if earlier is None and tries >= FAILED_TRIES:
            earlier = error  # (failed the same way each time: a deterministic error, such as a bad expression)
        return earlier

    def record(self, calls: list[ToolCall], ordered: list[ToolMessage], repeats: dict[int, ToolMessage],
               twins: dict[int, int], ran: bool) -> list[tuple[ToolCall, ToolMessage]]:
        """Remember a round's answers: its successes, and how many times in a row each call failed the same way.

        Args:
            calls: the reply's valid calls, as given to :meth:`sort`.
            ordered: their answers, in the same order.
            repeats: the calls :meth:`sort` answered without running.
            twins: the calls :meth:`sort` gave an earlier call's result.
            ran: whether a tool ran in this round: the answers of earlier rounds are then forgotten (what they
                read may have changed since: review 71, a second ``list_tasks`` after ``add_task`` got the
                first list again).

        A success of a round in which calls of another tool ran too (at the same time: ``add_task`` and
        ``list_tasks`` in one reply) is not given again (review 117: the list read before the task was written was
        given again), as it cannot tell what ran first, unless the round repeated the round before it whole, every
        call giving the same answer (a model that loops on one reply of several calls; review 121: a second read
        beside a second write confirmed the first). Calls of one tool in one round are taken to be alike (weather
        for two cities); a tool that both reads and writes (a ``kv`` tool with ``op="get"``/``"set"``) belongs in
        ``repeat_calls``.

        Returns:
            The ``(call, answer)`` pairs remembered as successes, in call order.
        """
        if ran:
            self.answered.clear()
        fresh = [(call, result) for index, (call, result) in enumerate(zip(calls, ordered, strict=False))
                 if index not in repeats and index not in twins]
        ran_now = {call_key(call): (result.status, result.content) for call, result in fresh}
        settled = len({call["name"] for call, _ in fresh}) <= 1 or ran_now == self.last_round  # (one tool's calls,
        # or the same round again)
        if ran:
            self.last_round = ran_now
        successes: list[tuple[ToolCall, ToolMessage]] = []
        failed_now: set[str] = set()
        for index, (call, result) in enumerate(zip(calls, ordered, strict=False)):
            if result.status == "error" and index not in repeats and index not in twins:
                tries, error = self.failed.get(call_key(call), (0, None))
                same = error is not None and error.content == result.content
                self.failed[call_key(call)] = (tries + 1 if same else 1, result)
                failed_now.add(call_key(call))
            if result.status == "success" and not (ran and index in repeats):
                if settled or index in repeats:
                    self.answered.setdefault(call_key(call), result)
                successes.append((call, result))
        if ran and any(result.status == "success" for index, result in enumerate(ordered) if index not in repeats):
            # a tool ran and did its work: what a call given up on reads may have changed (review 88: a read of a
            # missing file, failed twice, was answered with that error after a write made the file), so it gets one
            # more try, once per run and only when it did not fail in this round too (review 89: each reply held
            # the bad expression and a call that succeeded, and the bad one ran until max_steps)
            for key, (tries, error) in list(self.failed.items()):
                if tries >= FAILED_TRIES and key not in failed_now and key not in self.retried:
                    self.failed[key] = (FAILED_TRIES - 1, error)
                    self.retried.add(key)
        return successes


def _not_run_again(name: str, error: ToolMessage) -> Any:
    """The answer of a repeat of a call that failed :data:`FAILED_TRIES` times in a row with ``error``: that error,
    saying that the tool was not run this time (the error alone told the model of a timeout that a call which never
    started "is still running": review 118)."""
    if not isinstance(error.content, str):
        return error.content
    text = error.content.removeprefix("Error: ")
    return (f"Error: tool {name!r} was not run again: this same call failed {FAILED_TRIES} times in a row, each time "
            f"with: {text}")


def executor_invalid(calls: list[ToolCall], fresh: list[ToolCall], invalid: list[InvalidToolCall],
                      handle_errors: bool) -> list[InvalidToolCall]:
    """The invalid calls as the executor gets them with the reply's ``fresh`` calls only: their place in the reply,
    ``"index"``, is counted among the fresh calls under ``handle_errors=False`` (the executor refuses an invalid call
    before the calls after it run: review 89), and dropped otherwise (the Agent puts their answers in place)."""
    if handle_errors or not invalid:
        return [{k: v for k, v in bad.items() if k != "index"} for bad in invalid]  # type: ignore[misc]
    running = {id(call) for call in fresh}
    out: list[InvalidToolCall] = []
    place = 0  # the item's place among the fresh and invalid calls, as the executor will order them
    for item in in_reply_order(calls, invalid, invalid):
        if id(item) in running:
            place += 1
        elif any(item is bad for bad in invalid):
            out.append({**item, "index": place})  # type: ignore[typeddict-item]
            place += 1  # (review 91: two in a row got the same index and swapped places)
    return out


@dataclasses.dataclass
class ToolsJob:
    """One round's calls as the Agent hands them to its executor, and what makes its failure keep every answer.

    ``fresh`` and ``invalid`` go to the executor; ``calls``, ``repeats`` and ``twins`` are the reply's valid calls
    and those :meth:`~toolwire._agent_repeats.RepeatedCalls.sort` answered without running them.
    """

    calls: list[ToolCall]
    fresh: list[ToolCall]
    repeats: dict[int, ToolMessage]
    twins: dict[int, int]
    invalid: list[InvalidToolCall]

    def with_answers(self, exc: BaseException) -> BaseException:
        """``exc`` with ``tool_messages`` holding, beside the answers of the run calls that finished before it (the
        executor's, ``handle_errors=False``), those of the calls answered without running: repeats, and twins of a
        call that finished (review 89: a twin was left unanswered, so resuming sent the same email again)."""
        finished = getattr(exc, "tool_messages", None)
        if not isinstance(finished, list) or not (self.repeats or self.twins):
            return exc
        by_id = {m.tool_call_id: m for m in finished if isinstance(m, ToolMessage)}
        answers: list[ToolMessage] = []
        for i, call in enumerate(self.calls):
            source = self.calls[self.twins[i]] if i in self.twins else call
            found = self.repeats.get(i) or by_id.get(source["id"])
            if found is not None:
                answers.append(found if found.tool_call_id == call["id"] else ToolMessage(
                    found.content, call["id"], name=call["name"], status=found.status, artifact=found.artifact))
        with contextlib.suppress(AttributeError, TypeError):
            exc.tool_messages = answers  # type: ignore[attr-defined]
        return exc
