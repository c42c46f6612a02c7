"""The run state toolwire puts on an error (``exc.messages``, ``exc.tool_messages``), kept to the one run it is for.

A failed call is answered by raising its exception with the work done so far on it (review 24). One exception
object can reach two runs at once, though: two conversations awaiting one shared task (a single-flight token
refresh that failed), or a module-level error instance raised twice. Written on that shared object, the
second run's conversation replaced the first one's, so one caller found the other's messages on its error, and
resuming from them answered the wrong user (review 34). :func:`exclusive` gives each run an object of its own, and
:func:`claimed` makes the check and the write one step, so two threads writing at once cannot both take the shared
object (review 125 #6).
"""

from __future__ import annotations

import contextlib
import copy
import threading
import types
from typing import Any, TypeVar

__all__ = ["STATE", "claimed", "exclusive", "mark"]

E = TypeVar("E", bound=BaseException)

#: The attributes toolwire writes on an error for one run (and its marker).
STATE = ("messages", "tool_messages", "_toolwire_run_state")
_MARK = "_toolwire_run_state"
_NOTE = "toolwire: "
_CLAIMS = threading.RLock()  # (reentrant: copying an error runs its own code, which may raise one toolwire keeps)


def mark(exc: BaseException) -> None:
    """Record that run state was written on ``exc`` (an error that refuses attributes is left as it is)."""
    with contextlib.suppress(AttributeError, TypeError):
        setattr(exc, _MARK, True)


def exclusive(exc: E) -> E:
    """``exc`` itself when no run has written its state on it yet, else a copy for this run: same type, arguments,
    attributes, traceback and cause, without the other run's state (:data:`STATE`) and notes.

    The copy is made without calling ``__init__`` when ``copy.copy`` cannot rebuild the error from its
    arguments (``httpx.HTTPStatusError`` takes keyword-only ones); the values of the class's ``__slots__`` are
    copied too (``copy.copy`` of an exception keeps only its arguments and ``__dict__``: review 299 #4). An error
    that cannot be copied at all, or whose slots cannot be, is returned as it is.
    """
    if not getattr(exc, _MARK, False):
        return exc
    try:
        twin = copy.copy(exc)
    except Exception:
        try:
            twin = type(exc).__new__(type(exc))
            twin.args = exc.args
            twin.__dict__.update(vars(exc))
        except Exception:
            return exc
    if not _slots_copied(exc, twin):
        return exc
    for name in STATE:
        twin.__dict__.pop(name, None)
    notes = [n for n in getattr(exc, "__notes__", ()) if not (isinstance(n, str) and n.startswith(_NOTE))]
    if notes:
        twin.__notes__ = notes
    else:
        twin.__dict__.pop("__notes__", None)
    twin.__traceback__ = exc.__traceback__
    twin.__cause__ = exc.__cause__
    twin.__context__ = exc.__context__
    twin.__suppress_context__ = exc.__suppress_context__
    return twin


def _slots_copied(exc: BaseException, twin: BaseException) -> bool:
    """Set on ``twin`` the values ``exc`` holds in the ``__slots__`` of its classes (an unset slot stays unset).

    Returns:
        Whether all were copied (False: a slot refused its value; never raises).
    """
    for cls in type(exc).__mro__:
        names = cls.__dict__.get("__slots__", ())
        for name in (names,) if isinstance(names, str) else names:
            if not isinstance(name, str) or name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{cls.__name__.lstrip('_')}{name}"  # (a private slot's member: its mangled name)
            member = cls.__dict__.get(name)
            if not isinstance(member, types.MemberDescriptorType):
                continue
            try:
                value = member.__get__(exc, cls)
            except AttributeError:  # (not set)
                continue
            try:
                member.__set__(twin, value)
            except Exception:
                return False
    return True


def claimed(exc: E, name: str, value: Any, *, taken_by: str | None = None) -> tuple[E, bool]:
    """Write ``value`` as ``exc.<name>`` for one run and :func:`mark` it, the check and the write in one step for
    all threads: on ``exc`` itself when no run has taken it yet, else on this run's copy (:func:`exclusive`). Checked
    and written apart, two threads raising one shared error could both find it free and both write on it, and one
    caller's error then held the other's conversation (review 125 #6).

    Args:
        exc: the error; name: the attribute (``"messages"``, ``"tool_messages"``); value: what to write.
        taken_by: the attribute whose presence on ``exc`` (in its ``__dict__``) means another run has taken it;
            None: the :func:`mark` of any run.

    Returns:
        ``(the error to raise, whether value was written)``: not written on an error that refuses new attributes
        (it is returned as it is).
    """
    with _CLAIMS:
        if taken_by is None or taken_by in getattr(exc, "__dict__", {}):
            exc = exclusive(exc)
        try:
            setattr(exc, name, value)
        except (AttributeError, TypeError):
            return exc, False
        mark(exc)
    return exc, True
