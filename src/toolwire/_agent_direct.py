"""The run's output from a ``return_direct`` tool's result, and the end of a resumed run whose last round held one.

An Agent keeps a ``return_direct`` tool's successful result cut to ``max_result_chars`` in the conversation (review
110), and gives it whole as the run's ``output``. A run stopped after that result but before its ``"final"`` event
(``break``, ``stream.close()``, Ctrl-C), or whose round failed after it (``handle_errors=False``), ends, when resumed,
as it would have: with that result as ``output``, ``stop_reason="return_direct"`` and no model call (review 194 #3).

The whole results of the latest cut copies are remembered here (:func:`remember_wholes`), by the identity of the copy
kept in the conversation, so that a resumed run given the same message objects (``stream.messages``,
``exc.messages``) gives the whole result, as the stopped run would have. A copy read back from storage, or one of
the oldest, is not known: the output is then the cut copy followed by :data:`CUT_NOTE`, so that it is never taken
for the whole result.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolwire._result_cut import ends_text
from toolwire.messages import AIMessage, BaseMessage, ToolMessage

if TYPE_CHECKING:
    from toolwire.agent import Agent

log = logging.getLogger("toolwire.agent")

KEPT_WHOLES = 8
"""How many whole ``return_direct`` results (of those cut in the conversation) are remembered, the newest kept."""

CUT_NOTE = ("\n[toolwire: this is the copy of the tool's result kept in the conversation, cut as above; its whole "
            "result is not known to this run: call the tool again for it]")
"""The sentence after a ``return_direct`` output that is a cut copy whose whole result is not known."""

_CUT_MARKER = re.compile(r"\n\[\.\.\. result truncated: \d+ of \d+ characters cut; ask for a narrower result \.\.\.\]$")
"""The end :func:`~toolwire.results.truncate_content` gives a result it cut."""

_wholes: OrderedDict[int, tuple[ToolMessage, ToolMessage]] = OrderedDict()  # id(cut copy) -> (cut copy, whole)
_lock = threading.Lock()


def remember_wholes(kept: Iterable[ToolMessage], originals: Mapping[int, ToolMessage]) -> None:
    """Remember the whole result of each cut copy in ``kept`` (``originals``: by the copy's id, as
    :func:`~toolwire._agent_response.kept_results` returns them); only the newest :data:`KEPT_WHOLES` are kept.

    Args:
        kept: the round's results as the conversation keeps them.
        originals: the whole result of each one cut, by ``id()`` of its cut copy.
    """
    with _lock:
        for copy in kept:
            whole = originals.get(id(copy))
            if whole is None:
                continue
            _wholes[id(copy)] = (copy, whole)  # (the copy is held: its id is not reused while it is here)
            _wholes.move_to_end(id(copy))
            while len(_wholes) > KEPT_WHOLES:
                _wholes.popitem(last=False)


def _whole_of(copy: ToolMessage) -> ToolMessage | None:
    with _lock:
        entry = _wholes.get(id(copy))
    return entry[1] if entry is not None and entry[0] is copy else None


def _cut(result: ToolMessage) -> bool:
    """Whether ``result``'s text ends with the cut marker: at the end of its last item that has text, a plain string
    (or a record cut, a string then) as well as a text block (review 284 #4: only text blocks were looked at)."""
    return _CUT_MARKER.search(ends_text(result.content)[1]) is not None


def direct_output(result: ToolMessage, source: ToolMessage | None = None) -> ToolMessage:
    """The ``return_direct`` result to give as the run's ``output`` for ``result``, a copy kept in the conversation.

    Args:
        result: the call's answer as the conversation keeps it.
        source: the earlier answer ``result`` repeats (a repeated call answered without running), if any.

    Returns:
        The whole result when it is known (:func:`remember_wholes`); ``result`` itself when it was not cut; else
        ``result`` with :data:`CUT_NOTE` after its text (and a warning logged on ``toolwire.agent``), so that a cut
        copy is never given as the whole output.
    """
    for kept in (result, source):
        if kept is not None and (whole := _whole_of(kept)) is not None:
            return whole
    if not _cut(result):
        return result
    log.warning("The return_direct tool %r's result given as the output is the copy kept in the conversation, which "
                "was cut; its whole result is not known to this run (a conversation read back from storage): call "
                "the tool again for it.", result.name)
    content = result.content
    if isinstance(content, str):
        return result.copy(content=content + CUT_NOTE)  # type: ignore[return-value]
    return result.copy(content=[*content, {"type": "text", "text": CUT_NOTE}])  # type: ignore[return-value]


def last_direct(agent: Agent, messages: Sequence[BaseMessage]) -> ToolMessage | None:
    """The ``return_direct`` result a resumed run ends with: when ``messages`` end with the answers of their last
    AIMessage's calls (every one answered) and one of them is a successful result of a ``return_direct`` tool of
    ``agent``, the first such in the reply's call order, as :func:`direct_output` gives it; else None.

    Args:
        agent: the Agent that resumes the run.
        messages: the conversation, its stale and pending calls already answered.

    Returns:
        The result to end the run with (``stop_reason="return_direct"``), or None to go on.
    """
    end = len(messages)
    at = end
    while at > 0 and isinstance(messages[at - 1], ToolMessage):
        at -= 1
    if at == end or at == 0 or not isinstance(reply := messages[at - 1], AIMessage):
        return None
    answers: dict[str, ToolMessage] = {}
    for message in messages[at:]:
        assert isinstance(message, ToolMessage)
        answers.setdefault(message.tool_call_id or "", message)
    calls: list[Any] = [*reply.tool_calls, *reply.invalid_tool_calls]
    if not calls or any((call.get("id") or "") not in answers for call in calls):
        return None
    for call in reply.tool_calls:
        tool = agent.executor.tools.get(call.get("name"))
        answer = answers[call.get("id") or ""]
        if tool is not None and tool.return_direct and answer.status == "success":
            return direct_output(answer)
    return None
