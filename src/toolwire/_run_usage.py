"""The token usage of an :class:`~toolwire.agent.Agent` run: :attr:`AgentResult.usage
<toolwire.agent.AgentResult>`, summed over every model request the run made (review 281 #1).

A run's model replies are in ``result.messages``, but the reply of ``response_format``'s structured call is not (as in
LangGraph), and ``with_structured_output(..., retries=n)`` keeps none of the replies it sent back: their tokens were
billed and could be counted nowhere. The Agent's drivers (:mod:`toolwire._agent_drivers`) keep a :class:`RunUsage`:
each model reply's usage is added as it comes, and the structured call is made inside
:meth:`RunUsage.structured`, during which each reply :class:`~toolwire.models._structured_retry.Attempts` reads
is recorded (:func:`record_attempt`, through a context variable, so that a structured-output model needs no new
argument; a tool's own structured call, made while tools run, is not recorded). The ``"final"`` event's result
then gets the total, and ``steps`` counts each of those requests (:meth:`RunUsage.final`).

A run that raises has no result, and the replies of its structured call are not in ``exc.messages`` (which must stay
the conversation, to resume from), so the error the run raises gets the same total as ``exc.usage``
(:meth:`RunUsage.onto`, review 285 #2): every request the run made before it failed, the structured call's attempts
(across ``with_retry``'s tries too) included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from typing import Any

__all__ = ["RunUsage", "record_attempt"]

_ATTEMPTS: ContextVar[list[Any] | None] = ContextVar("toolwire_structured_attempts", default=None)
"""The usage (or None) of each reply read by a structured-output call made inside :meth:`RunUsage.structured`."""


def record_attempt(reply: Any) -> None:
    """Note ``reply`` (a structured-output request's reply, an AIMessage) for the Agent run whose structured call it
    belongs to; nothing outside :meth:`RunUsage.structured`. Cheap: one context-variable read."""
    sink = _ATTEMPTS.get()
    if sink is not None:
        sink.append(getattr(reply, "usage", None))


def _sum(total: Any, usage: Any) -> Any:
    """``total`` and ``usage`` (a reply's :class:`~toolwire.messages.Usage`, or None) summed key by key, in
    ``AIMessage.usage_metadata``'s shape (``cached_tokens`` also as ``input_token_details["cache_read"]``), as
    :func:`~toolwire.messages.merge_chunks` sums the usage of a reply's chunks (``toolwire.chunks._add_usage``)."""
    if not isinstance(usage, dict):
        return total
    from toolwire._message_history import langchain_usage
    from toolwire.chunks import _add_usage

    return _add_usage(total, langchain_usage(usage))  # type: ignore[arg-type]


def _copied(total: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of ``total`` whose detail dicts are copies too (None for None)."""
    return None if total is None else {key: dict(value) if isinstance(value, dict) else value
                                       for key, value in total.items()}


class RunUsage:
    """The usage and model requests of one Agent run, kept by its driver.

    Attributes:
        total: the usage summed so far (a dict, ``AIMessage.usage_metadata``'s shape), or None while no request
            reported any.
        extra_steps: the structured call's requests beyond its first (``retries``, ``with_retry``), which the loop,
            counting that call as one step, does not count.
    """

    def __init__(self) -> None:
        self.total: dict[str, Any] | None = None
        self.extra_steps = 0

    def add(self, reply: Any) -> None:
        """Add the usage of ``reply``, a model call's AIMessage (nothing for one without usage)."""
        self.total = _sum(self.total, getattr(reply, "usage", None))

    @contextmanager
    def structured(self) -> Iterator[None]:
        """Record the replies of the structured-output call made in the block, each as a request of the run, also
        when it raises (the run then fails, and its result is never made)."""
        sink: list[Any] = []
        token = _ATTEMPTS.set(sink)
        try:
            yield
        finally:
            _ATTEMPTS.reset(token)
            for usage in sink:
                self.total = _sum(self.total, usage)
            self.extra_steps += max(len(sink) - 1, 0)

    def final(self, event: Any) -> Any:
        """``event`` (an :class:`~toolwire.agent.AgentEvent` of the loop), or for the ``"final"`` one a copy whose
        result has :attr:`total` as ``usage`` (a copy of it) and the structured call's extra requests in ``steps``,
        its ``step`` counting them too."""
        if event.type != "final":
            return event
        result = dataclasses.replace(event.data, steps=event.data.steps + self.extra_steps,
                                     usage=_copied(self.total))
        return dataclasses.replace(event, data=result, step=event.step + self.extra_steps)

    def onto(self, exc: BaseException) -> BaseException:
        """Write a copy of :attr:`total` (None when no request reported usage) on ``exc``, the error that ends the
        run, as ``exc.usage``: what the run's result would have had as ``usage``, written over any value there (the
        driver writes it on this run's own error object, after :func:`~toolwire._agent_checks.keep_run`). An error
        that refuses new attributes is left as it is.

        Returns:
            ``exc``.
        """
        with suppress(AttributeError, TypeError):
            exc.usage = _copied(self.total)  # type: ignore[attr-defined]
        return exc
