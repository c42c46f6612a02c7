"""Ctrl-C while llama.cpp loads a model (review 274 #1).

llama.cpp calls llama-cpp-python's ctypes log callback again and again while it loads, so the ``KeyboardInterrupt``
that Python's SIGINT handler raises lands inside that callback, where ctypes prints it as "ignored" and drops it: the
load went on and the question was answered as if no Ctrl-C had come. :func:`load_or_interrupt` notes a SIGINT during
the load instead, and raises ``KeyboardInterrupt`` once the load is back in Python, after closing what was loaded.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["load_or_interrupt"]


def load_or_interrupt(make: Callable[[], Any]) -> Any:
    """Return ``make()`` (a ``llama_cpp.Llama`` being made), or raise ``KeyboardInterrupt`` when a SIGINT came while
    it ran, after closing its result, so that nothing half-loaded is kept.

    Only in the main thread, and only while SIGINT has Python's default handler: a program's own handler is left as
    it is, and is called as usual.

    Args:
        make: makes the model (no arguments); any exception it raises passes through.

    Returns:
        What ``make`` returned.

    Raises:
        KeyboardInterrupt: a SIGINT (Ctrl-C) arrived while ``make`` ran.
    """
    if threading.current_thread() is not threading.main_thread() or (
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        return make()
    interrupted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(signum))
    try:
        made = make()
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        close = getattr(made, "close", None)
        if close is not None:
            close()
        raise KeyboardInterrupt
    return made
