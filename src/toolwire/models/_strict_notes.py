"""The warnings of a provider's strict mode, given where the user binds the tools rather than at the first call.

A hosted model lowers its tools when a request is built, and the lowering warns (a
:class:`~toolwire.models.lowering.openai.StrictSchemaWarning`) when a tool cannot be strict: its schema is outside
the provider's strict subset, or past its per-request limits. Raised there, the warning came at the first
``invoke``, pointing into toolwire (review 98 #9). :func:`strict_probe` lowers the bound tools once at
``bind_tools`` (also what ``with_structured_output`` and an ``Agent`` call) and gives each warning at the user's
line; :func:`lowered` then leaves those same warnings out of every request, passing any other on. Inside
:func:`warned_once` (an ``Agent`` binding its model copies) each warning text is given once, however many bindings
probe it (review 281 #2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from toolwire._warn_site import collected_warnings, warn_user
from toolwire.models.base import ChatRequest

__all__ = ["lowered", "strict_probe", "warned_once"]

_GIVEN: ContextVar[set[str] | None] = ContextVar("toolwire_strict_given", default=None)
"""The strict-mode warning texts given so far inside :func:`warned_once` (None outside one)."""


@contextmanager
def warned_once() -> Iterator[None]:
    """Within the ``with`` (in this thread or task only), :func:`strict_probe` gives each strict-mode warning text
    once, however many bindings probe it: an ``Agent`` binds its tools to several model copies, and each warned
    again (review 281 #2). A binding's ``_strict_notes`` still hold every text, so requests leave them all out."""
    token = _GIVEN.set(set())
    try:
        yield
    finally:
        _GIVEN.reset(token)


def _caught(lower: Callable[[ChatRequest], Any], request: ChatRequest) -> tuple[Any, list[tuple[str, type[Warning]]]]:
    """``lower(request)`` and the warnings it gave (``(text, category)``), kept rather than issued."""
    with collected_warnings() as caught:
        body = lower(request)
    return body, caught


def strict_probe(model: Any, known: frozenset[str]) -> frozenset[str]:
    """Lower ``model``'s bound tools as a request would and warn now, at the user's line, of each strict-mode warning
    not in ``known`` (the ones a model it was bound from gave already: an ``Agent`` binds again what a user bound),
    nor given already inside :func:`warned_once` (the Agent's other copies).

    Args:
        model: a bound hosted model (its ``_lower(request) -> dict`` builds a request body).
        known: warning texts already given.

    Returns:
        The texts of all the strict-mode warnings the bound tools give (``known`` ones too), for :func:`lowered`.
        A request that cannot be built here (its error is raised at the call, as before) gives none.
    """
    from toolwire.messages import HumanMessage
    from toolwire.models.lowering.openai import StrictSchemaWarning

    probe = ChatRequest(messages=[HumanMessage("-")], tools=model.tool_specs, tool_choice=model.tool_choice,
                        parallel_tool_calls=model.parallel_tool_calls, strict=True)
    try:
        _, caught = _caught(model._lower, probe)
    except Exception:  # (the same error comes at the call, with its own message)
        return known
    notes = [text for text, category in caught if issubclass(category, StrictSchemaWarning)]
    given = _GIVEN.get()
    for note in dict.fromkeys(notes):
        if note not in known and (given is None or note not in given):
            warn_user(note, StrictSchemaWarning)
        if given is not None:
            given.add(note)
    return frozenset(notes) | known


def lowered(model: Any, request: ChatRequest) -> Any:
    """``model._lower(request)``, without the strict-mode warnings :func:`strict_probe` gave at bind time (any other
    warning is given again, at the user's line).

    Args:
        model: a hosted model; ``model._strict_notes`` holds the texts its binding warned of.
        request: the request to lower.

    Returns:
        The request body ``_lower`` builds.

    Raises:
        Whatever ``model._lower`` raises.
    """
    notes: frozenset[str] = model._strict_notes
    if not (request.strict and notes):
        return model._lower(request)
    from toolwire.models.lowering.openai import StrictSchemaWarning

    body, caught = _caught(model._lower, request)
    for text, category in caught:
        if not (issubclass(category, StrictSchemaWarning) and text in notes):
            warn_user(text, category)
    return body
