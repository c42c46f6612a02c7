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
"""The attribute (in the error's ``__dict__``) holding a :class:`_Named` once :func:`identified` wrote a call's
identity on the error, so that the same object raised again for another call (a module-level error instance, a failed
task two calls await) is told apart from an identity its creator gave it, and from one a call made inside this one
wrote (its error passing through: review 299 #1)."""

_LOCK = threading.Lock()  # (the check and the write in one step: two calls may raise one shared object at once)

_OWN_OPENINGS = (("The tool's result ", "The result of tool {} "), ("The tool ", "Tool {} "))
"""How toolwire's own ``ToolResultError`` messages open (:mod:`toolwire.results`), and the same opening naming the
tool: ``"The tool returned bytes..."`` -> ``"Tool 'raw' returned bytes..."``."""

_FROM_CONTEXT: Any = object()
"""``identified``'s default ``enclosing``: the current tool call (:func:`~toolwire.current_tool_call`'s)."""
_UNKNOWN = ("", "")
"""The enclosing call's key when it is not known (the context still holds the named call itself): matches no call."""
_UNKNOWN_CALL: Any = object()
"""The enclosing call when it is not known: no call is it."""


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


class _Named:
    """The call :func:`identified` named an error for (never changed: replaced, since a copy of the error made
    elsewhere, as for run state, shares it).

    Attributes:
        call: ``(tool_name, tool_call_id)`` written on the error.
        before: the error's ``args`` before (a ToolResultError's message is reworded from them for a copy).
        creator: the ``tool_name`` the error had before (its creator's, the tool an inner call by arguments ran), or
            None.
        within: the tool call object the named call was made in (None: the top level; :data:`_UNKNOWN_CALL`), the
            very object, so that a later call that has the same name and id is not taken for it (review 306 #4).
        within_key: ``within``'s :func:`_key`, for a caller that does not give its call object.
    """

    __slots__ = ("before", "call", "creator", "within", "within_key")

    def __init__(self, call: tuple[str, str], before: tuple[Any, ...], creator: str | None, within: Any) -> None:
        self.call, self.before, self.creator = call, before, creator
        self.within, self.within_key = within, _key(within)

    def moved(self, within: Any) -> _Named:
        """The same naming, passed out to the call ``within`` (the one the call it came out of was made in)."""
        return _Named(self.call, self.before, self.creator, within)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and deep-copied without the call object (a call's arguments may not pickle): the copy's is no call.
        """
        return _unlinked, (self.call, self.before, self.creator, self.within_key)


def _unlinked(call: tuple[str, str], before: tuple[Any, ...], creator: str | None, within_key: Any) -> _Named:
    """A :class:`_Named` rebuilt from its pickled parts: its ``within`` is no call, its ``within_key`` as it was."""
    named = _Named(call, before, creator, None)
    named.within, named.within_key = _UNKNOWN_CALL, within_key
    return named


def identified(exc: E, tool_name: str | None, call_id: Any, enclosing: Any = _FROM_CONTEXT, *, call: Any = None) -> E:
    """``exc`` with the identity of the tool call it is raised for, when it is a ToolExecutionError that has none.

    The rule, in order:

    1. An error this function named for a call made inside this one (a nested ``Tool.invoke(tool_call)``,
       ``ToolExecutor`` or ``Agent`` run of the tool's own, or one on a thread that runs in a copy of the caller's
       context, as ``asyncio.to_thread``'s does), whose error the tool let through, keeps that inner call's identity
       and message (review 299 #1), as does one it named for this very call (made in the same call). "Inside" is
       known from the tool call the inner call's context held, so an inner call made on a thread without it (a
       ``ThreadPoolExecutor``'s, ``loop.run_in_executor``) is not known to be inside: its error is named for this
       call, one of the reply's (review 306 #5).
    2. An error object it named for any other call (one object raised for two calls, as a module-level error
       instance; one a tool caught from an inner call in an earlier call and now raises itself: review 306 #4) is
       copied for this call (:func:`~toolwire._error_state.exclusive`), so that each caller's error names its own
       call, and concurrent calls that let one shared inner error through each keep their inner call's (review 306
       #3).
    3. An error whose creator gave it a ``tool_call_id`` keeps it (an UnknownToolError's).
    4. Any other gets this call's ``tool_name`` and ``tool_call_id``, also over the name of another tool it gives
       (one the tool ran with plain arguments: review 313 #3, the raised error named no call of the reply).

    A :class:`~toolwire.errors.ToolResultError` named for a call whose message opens as toolwire writes it (``"The
    tool returned..."``, ``"The tool's result..."``) has it name the tool (the one it named before, if any); nothing
    else of the message changes, nor the error's type, cause, traceback or other attributes.

    Args:
        exc: the error a call failed with (any exception; only a ToolExecutionError is changed).
        tool_name: the called tool's name (None: unknown, nothing is set).
        call_id: the call's id (text; ``""`` or None: the call has none, and nothing is set).
        enclosing: the tool call this call was made in (a mapping with ``"name"`` and ``"id"``; None or
            ``contextvars.Token.MISSING``: none, the top level); by default the current tool call of the context,
            which is that call once the caller left this call's own context (while the context still holds this
            very call, the enclosing one is not known: an error named then passes out of no outer call).
        call: the tool call object this call's context held (what ``current_tool_call()`` read inside it); None:
            not given, and an error named inside a call with this name and id is taken for one named inside this
            call (then a stale naming, as in review 306 #4, is not told apart).

    Returns:
        ``exc`` itself (changed or not), or its copy for this call; never raises.
    """
    if not isinstance(exc, ToolExecutionError) or tool_name is None or call_id is None or call_id == "":
        return exc
    call_id = call_id if isinstance(call_id, str) else str(call_id)
    if enclosing is _FROM_CONTEXT:
        enclosing = _CURRENT_CALL.get()
        if enclosing is not None and (enclosing is call if call is not None else
                                      _is_call(_key(enclosing), tool_name, call_id)):
            enclosing = _UNKNOWN_CALL  # (still in this call's own context)
    elif enclosing is contextvars.Token.MISSING:
        enclosing = None
    with _LOCK:
        named = exc.__dict__.get(_FILLED)
        if isinstance(named, _Named):
            if ((named.within is call) if call is not None else _is_call(named.within_key, tool_name, call_id)) or (
                    named.call == (tool_name, call_id) and named.within is enclosing):  # 1: passed out of a call
                with contextlib.suppress(Exception):  # made inside this one, or named for this one
                    exc.__dict__[_FILLED] = named.moved(enclosing)
                return exc
            try:  # 2: taken by another call: this call's copy (with its attributes, cause and traceback)
                mark(exc)
                target, before, creator = exclusive(exc), named.before, named.creator
            except Exception:
                return exc
        elif exc.tool_call_id is not None:
            return exc  # 3: its creator's identity
        else:  # 4
            target, before = exc, exc.args
            creator = exc.tool_name if isinstance(exc.tool_name, str) else None
        try:
            target.tool_name, target.tool_call_id = tool_name, call_id
            if isinstance(target, ToolResultError) and before and isinstance(before[0], str):
                target.args = (_naming(before[0], creator or tool_name), *before[1:])
            target.__dict__[_FILLED] = _Named((tool_name, call_id), before, creator, enclosing)
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
