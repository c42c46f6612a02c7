"""What a failed tool call leaves for the developer: the call's identity on its error, and a log record.

* :func:`identified`: a :class:`~toolwire.errors.ToolExecutionError` raised for a call (``handle_errors=False``) made
  without knowing the call (a ``ToolValidationError`` from the schema check, a ``ToolTimeoutError``, a
  ``ToolResultError`` from turning the result into text, one the tool raised itself) gets the call's ``tool_name``
  and ``tool_call_id``, as :class:`~toolwire.errors.ToolExecutionError` documents them, and a ``ToolResultError``'s
  message names the tool (review 289 #1: with several calls of one tool in a reply, nothing said which one failed).
* :func:`log_failure`: under ``handle_errors=True`` a failed call is answered with error text for the model, and its
  exception was kept nowhere (review 289 #2); it is logged at DEBUG on ``toolwire.tools``, traceback and cause
  included, once per failed call, also with ``hide_error_details=True`` (the log is the developer's; the model's
  text stays as it was).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
from typing import Any, TypeVar

from toolwire._error_state import exclusive, mark
from toolwire._tool_run import _CURRENT_CALL
from toolwire.errors import ToolExecutionError, ToolResultError

__all__ = ["identified", "log_failure"]

log = logging.getLogger("toolwire.tools")

E = TypeVar("E", bound=BaseException)

_FILLED = "_toolwire_call"
"""The attribute (in the error's ``__dict__``) holding ``(tool_name, tool_call_id, the message before, the enclosing
call)`` once :func:`identified` wrote the call's identity on the error, so that the same object raised again for
another call (a module-level error instance, a failed task two calls await) is told apart from an identity its
creator gave it, and from one a call made inside this one wrote (its error passing through: review 299 #1)."""

_LOCK = threading.Lock()  # (the check and the write in one step: two calls may raise one shared object at once)

_OWN_OPENINGS = (("The tool's result ", "The result of tool {} "), ("The tool ", "Tool {} "))
"""How toolwire's own ``ToolResultError`` messages open (:mod:`toolwire.results`), and the same opening naming the
tool: ``"The tool returned bytes..."`` -> ``"Tool 'raw' returned bytes..."``."""

_FROM_CONTEXT: Any = object()
"""``identified``'s default ``enclosing``: the current tool call (:func:`~toolwire.current_tool_call`'s)."""
_UNKNOWN = ("", "")
"""The enclosing call's key when it is not known (the context still holds the named call itself): matches no call."""


def _key(call: Any) -> tuple[str | None, str] | None:
    """A call's ``(name or None, id as text)``, None for no call (the top level), :data:`_UNKNOWN` for no id."""
    if call is None or call is contextvars.Token.MISSING:
        return None
    try:
        name, found = call.get("name"), call.get("id")
    except Exception:
        return _UNKNOWN
    if found is None or found == "":
        return _UNKNOWN
    return (name if isinstance(name, str) else None, found if isinstance(found, str) else str(found))


def _is_call(key: tuple[str | None, str] | None, tool_name: str, call_id: str) -> bool:
    """Whether ``key`` (:func:`_key`) is the call ``call_id`` of ``tool_name`` (a call given without a name: its id)."""
    return key is not None and key is not _UNKNOWN and key[1] == call_id and key[0] in (None, tool_name)


def identified(exc: E, tool_name: str | None, call_id: Any, enclosing: Any = _FROM_CONTEXT) -> E:
    """``exc`` with the identity of the tool call it is raised for, when it is a ToolExecutionError that has none.

    The error's ``tool_name`` and ``tool_call_id`` are set when its ``tool_call_id`` is None, also over the name of
    another tool it gives (one the tool ran with plain arguments: review 313 #3, the raised error named no call of
    the reply). A :class:`~toolwire.errors.ToolResultError` whose message opens as toolwire writes it (``"The tool
    returned..."``, ``"The tool's result..."``) has it name the tool (the one it named, if any); nothing else of the
    message changes, nor the error's type, cause, traceback or other attributes. An error this function already
    named for a call made inside this one (a nested ``Tool.invoke(tool_call)``, ``ToolExecutor`` or ``Agent`` run of
    the tool's own, whose error it let through) keeps that inner call's identity and message (review 299 #1). An
    error object it named for another call (one object raised for two calls, as a module-level error instance) is
    copied for this call (:func:`~toolwire._error_state.exclusive`), so each caller's error names its own call.

    Args:
        exc: the error a call failed with (any exception; only a ToolExecutionError is changed).
        tool_name: the called tool's name (None: unknown, nothing is set).
        call_id: the call's id (text; ``""`` or None: the call has none, and nothing is set).
        enclosing: the tool call this call was made in (a mapping with ``"name"`` and ``"id"``; None or
            ``contextvars.Token.MISSING``: none, the top level); by default the current tool call of the context,
            which is that call once the caller left this call's own context (while the context still holds this
            very call, the enclosing one is not known: an error named then passes out of no outer call).

    Returns:
        ``exc`` itself (changed or not), or its copy for this call; never raises.
    """
    if not isinstance(exc, ToolExecutionError) or tool_name is None or call_id is None or call_id == "":
        return exc
    call_id = call_id if isinstance(call_id, str) else str(call_id)
    if enclosing is _FROM_CONTEXT:
        enclosing = _CURRENT_CALL.get()
        outside = _key(enclosing)
        if _is_call(outside, tool_name, call_id):  # (still in this call's own context: Tool.invoke)
            outside = _UNKNOWN
    else:
        outside = _key(enclosing)
    with _LOCK:
        filled = exc.__dict__.get(_FILLED)
        if filled is None:
            if exc.tool_call_id is not None:
                return exc  # its creator's identity (an UnknownToolError's)
            target, before = exc, exc.args
            shown = exc.tool_name if isinstance(exc.tool_name, str) else tool_name  # (an inner call by arguments)
        else:
            if filled[:2] == (tool_name, call_id):  # named for this call before (an inner call with a fixed id made
                with contextlib.suppress(Exception):  # again): enclosed by this caller now (review 306 #3)
                    exc.__dict__[_FILLED] = (*filled[:3], outside)
                return exc
            if _is_call(filled[3], tool_name, call_id):  # named by a call made inside this one: passed through,
                with contextlib.suppress(Exception):  # as the call enclosing this one passes it (review 299 #1)
                    exc.__dict__[_FILLED] = (*filled[:3], outside)
                return exc
            try:
                mark(exc)  # taken by another call: this call's copy (copied with its attributes, cause and traceback)
                target, before = exclusive(exc), filled[2]
                shown = tool_name
            except Exception:
                return exc
        try:
            target.tool_name, target.tool_call_id = tool_name, call_id
            if isinstance(target, ToolResultError) and before and isinstance(before[0], str):
                target.args = (_naming(before[0], shown), *before[1:])
            target.__dict__[_FILLED] = (tool_name, call_id, before, outside)
        except Exception:  # (an error class that refuses attributes: left as it is)
            return exc
    return target


def _naming(message: str, tool_name: str) -> str:
    """``message`` (a ToolResultError's) opening with the tool's name in place of toolwire's "The tool" (unchanged
    when it does not open that way: the tool's own wording)."""
    for opening, named in _OWN_OPENINGS:
        if message.startswith(opening):
            return named.format(f"'{tool_name}'") + message[len(opening):]
    return message


def log_failure(exc: BaseException, tool_name: str | None, call_id: Any) -> None:
    """Log that the call ``call_id`` of the tool ``tool_name`` failed with ``exc`` and was answered with an error
    result for the model (``handle_errors=True``): one DEBUG record on the ``toolwire.tools`` logger, its
    ``exc_info`` the exception (traceback and cause included, whatever ``hide_error_details`` hides from the model),
    its message naming the tool, the call and the exception's type; the record's ``tool_name`` and ``tool_call_id``
    attributes hold them too, for a structured log handler (``tool_name`` None: the call named no tool by a text
    name). Nothing is done (no formatting) when DEBUG is off for that logger. Never raises.
    """
    if not log.isEnabledFor(logging.DEBUG):
        return
    with contextlib.suppress(Exception):  # (a filter that raises: the call is answered all the same)
        log.debug("Tool %r failed on call %r with %s; the model was sent an error result", tool_name, call_id,
                  type(exc).__name__, exc_info=(type(exc), exc, exc.__traceback__),
                  extra={"tool_name": tool_name, "tool_call_id": call_id})
