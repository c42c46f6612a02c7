"""Where toolwire's warnings point: at the user's line that led to them, never into toolwire, asyncio or a worker
thread.

A warning issued deep inside toolwire (a tool's schema, a strict schema, the Agent's repeated-call note) is
attributed to the first frame outside toolwire, as ``warnings.warn(stacklevel=n)`` does with the right ``n``. Under
an event loop or a worker thread that frame is asyncio's or threading's: the task's own stack starts in the loop,
and a ``batch`` input runs on a thread whose stack does not reach the caller at all. So :func:`warn_user` skips
those frames too, and when the stack it has no user frame (a ``batch`` worker, an ``abatch`` task) it uses the line
that :func:`remember_call_site` kept (``batch``/``abatch`` keep theirs in a context variable, which their threads and
tasks inherit) through ``warnings.warn_explicit``, the filter and once-per-line rules of ``warnings.warn`` kept.
Python 3.12's ``skip_file_prefixes`` does the skipping alone but not the thread case, and toolwire supports 3.11.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import os
import sys
import threading
import warnings
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["collected_warnings", "quiet_warnings", "remember_call_site", "warn_user"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
"""toolwire's own files: every frame from them is skipped."""

_MACHINERY = (os.path.dirname(os.path.abspath(asyncio.__file__)) + os.sep,
              os.path.dirname(os.path.abspath(concurrent.futures.__file__)) + os.sep,
              os.path.abspath(threading.__file__))
"""The standard library's event loop, executors and threads, which a task's or a worker thread's stack starts in."""

_CALL_SITE: contextvars.ContextVar[tuple[str, int, dict[str, Any], frozenset[int]] | None] = contextvars.ContextVar(
    "toolwire_call_site", default=None)
"""The user's line (file name, line number, module globals) that started the ``batch``/``abatch`` running now, and
the ids of the frames on the stack then (that line's frame and its callers)."""


def _first_outside(frame: FrameType | None, prefixes: tuple[str, ...]) -> tuple[FrameType | None, int]:
    """The first frame from ``frame`` outward whose file starts with none of ``prefixes``, and how many frames out
    it is (0: ``frame`` itself); (None, depth) when the stack ends first."""
    depth = 0
    while frame is not None and frame.f_code.co_filename.startswith(prefixes):
        frame, depth = frame.f_back, depth + 1
    return frame, depth


@contextlib.contextmanager
def remember_call_site() -> Iterator[None]:
    """Keep the first line outside toolwire, asyncio and threading that called the code inside the ``with`` (a
    ``batch`` line, or the ``asyncio.run`` line of an ``abatch``), for the warnings issued on its threads and tasks
    (:func:`warn_user`); an outer one already kept wins, and nothing is kept when no such line is on the stack."""
    if _CALL_SITE.get() is not None:
        yield
        return
    frame, _ = _first_outside(sys._getframe(2), (_PACKAGE,))  # (past contextlib's own frame)
    if frame is not None and frame.f_code.co_filename.startswith(_MACHINERY):  # (an abatch run by asyncio.run)
        frame, _ = _first_outside(frame, (_PACKAGE, *_MACHINERY))
    if frame is None:
        yield
        return
    outer: set[int] = set()
    caller: FrameType | None = frame
    while caller is not None:
        outer.add(id(caller))
        caller = caller.f_back
    token = _CALL_SITE.set((frame.f_code.co_filename, frame.f_lineno, frame.f_globals, frozenset(outer)))
    try:
        yield
    finally:
        _CALL_SITE.reset(token)


_SINK: contextvars.ContextVar[list[tuple[str, type[Warning]]] | None] = contextvars.ContextVar(
    "toolwire_warning_sink", default=None)
"""Where :func:`warn_user` puts its warnings inside :func:`collected_warnings`, instead of issuing them."""


@contextlib.contextmanager
def collected_warnings() -> Iterator[list[tuple[str, type[Warning]]]]:
    """Keep the warnings :func:`warn_user` gives inside the ``with`` (in this thread or task only) in the list it
    yields, as ``(text, category)`` pairs, instead of issuing them.

    The thread-safe form of ``warnings.catch_warnings(record=True)`` for toolwire's own warnings:
    ``catch_warnings`` swaps the process-wide filter list, and two threads interleaving it could leave their
    filters in place for good before Python 3.14 (review 125 #1)."""
    kept: list[tuple[str, type[Warning]]] = []
    token = _SINK.set(kept)
    try:
        yield kept
    finally:
        _SINK.reset(token)


_QUIET = threading.Lock()


@contextlib.contextmanager
def quiet_warnings() -> Iterator[None]:
    """Every warning ignored inside the ``with`` (``warnings.catch_warnings`` and ``simplefilter("ignore")``), for
    code toolwire calls whose warnings say nothing to the user (pydantic's, on a model toolwire builds).

    ``catch_warnings`` swaps the process-wide filter list, which is not thread-safe before Python 3.14: two blocks
    interleaving in two threads could leave "ignore" in place for good (review 125 #1). toolwire's own blocks take
    turns here, so they cannot interleave with each other; prefer :func:`collected_warnings` for toolwire's own
    warnings, and a filter narrowed to a pseudo-file for the parser's (``parsing/_python_parse.parse_source``)."""
    with _QUIET, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def warn_user(message: str | Warning, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the user's line that led here.

    That line is the first frame outside toolwire; when that frame is an event loop's or a worker thread's, the
    first user frame past the loop's and threads' frames, when it is one that a running ``batch``/``abatch`` did not
    have on its stack (a tool of the batch's run, which started this run itself: review 102); else the line that
    ``batch``/``abatch`` kept (:func:`remember_call_site`); else that first user frame (the line that called
    ``asyncio.run``); else the loop's own frame (as plain ``warnings.warn`` would).

    Args:
        message: the warning's one-sentence text, or a warning instance (whose class is then the category).
        category: the warning class (``UserWarning``, ``ToolDefinitionWarning``, ``StrictSchemaWarning``...).
    """
    sink = _SINK.get()
    if sink is not None:  # (collected_warnings)
        sink.append((str(message), type(message) if isinstance(message, Warning) else category))
        return
    start = sys._getframe(1)
    frame, depth = _first_outside(start, (_PACKAGE,))
    if frame is None or not frame.f_code.co_filename.startswith(_MACHINERY):
        warnings.warn(message, category, stacklevel=depth + 2)
        return
    user, more = _first_outside(frame, (_PACKAGE, *_MACHINERY))
    site = _CALL_SITE.get()
    if site is not None and (user is None or id(user) in site[3]):  # no user frame inside the batch's own work
        filename, lineno, module_globals, _ = site
        registry = module_globals.setdefault("__warningregistry__", {})
        warnings.warn_explicit(message, category, filename, lineno, module=module_globals.get("__name__", filename),
                               registry=registry, module_globals=module_globals)
        return
    warnings.warn(message, category, stacklevel=depth + (more if user is not None else 0) + 2)
