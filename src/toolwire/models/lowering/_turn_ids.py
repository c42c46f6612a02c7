"""Call ids made unique across a whole conversation as it is sent, for the APIs that refuse a repeated one.

A conversation's calls can repeat an id when they come from several sources: a provider that numbers each reply's
calls ``call_0``, ``call_1``... (llama.cpp, vLLM and other OpenAI-compatible servers), hand-written history, a
conversation carried over from another provider. Anthropic refuses a request whose ``tool_use`` ids repeat ("tool_use
ids must be unique") and the OpenAI Responses API one whose ``call_id`` repeats ("Duplicate function_call_output for
call_id '...'. Each function_call must have exactly one matching function_call_output"; review 279 #1). Both
lowerings rename through :class:`TurnIds`, so one conversation gets the same ids on either API: the first use of an id
keeps it (a longer conversation keeps the prefix a prompt cache holds), a repeat becomes ``<id>_2``, ``<id>_3``...
(:class:`~toolwire.models.lowering._common.CallIds`), and the results that answer it follow. Only the request is
renamed: toolwire's messages keep the ids they hold.
"""

from __future__ import annotations

from toolwire.models.lowering._common import CallIds

__all__ = ["TurnIds"]


class TurnIds:
    """The call ids of a conversation, made unique over all its assistant turns, and the ids their results take.

    Feed the turns in order: :meth:`turn` when an assistant turn begins, :meth:`call` for each of its calls (in call
    order), then :meth:`answer` for each result that answers that turn (the results sit right after their turn:
    :func:`~toolwire.models.lowering._common.group_messages`).

    Usage::

        ids = TurnIds()
        ids.turn(); ids.call("call_0")        # "call_0"
        ids.answer("call_0")                  # "call_0"
        ids.turn(); ids.call("call_0")        # "call_0_2"
        ids.answer("call_0")                  # "call_0_2"
    """

    __slots__ = ("_ids", "_renamed")

    def __init__(self) -> None:
        self._ids = CallIds()
        self._renamed: dict[str, list[str]] = {}  # an id of the current turn -> the ids its calls got, in order

    def turn(self) -> None:
        """Begin an assistant turn: the results from now on answer its calls."""
        self._renamed = {}

    def call(self, call_id: str) -> str:
        """The id to send for a call of the current turn whose id is ``call_id``: ``call_id`` when no earlier call of
        the conversation had it, else ``<call_id>_<n>`` (n = 2, 3...: the first no earlier call had)."""
        new = self._ids.unique(call_id)
        self._renamed.setdefault(call_id, []).append(new)
        return new

    def answer(self, call_id: str) -> str:
        """The id to send for a result of the current turn that answers ``call_id``: the id its call got (when the
        turn repeats ``call_id``, each result takes the next of its calls' ids, in call order; the last is kept for
        any further one), or ``call_id`` unchanged when no call of the turn had it."""
        ids = self._renamed.get(call_id)
        if not ids:
            return call_id
        return ids.pop(0) if len(ids) > 1 else ids[0]
