"""Loading a model quietly without silencing the rest of the process (review 286 #4).

llama-cpp-python, with ``verbose=False``, wraps the load in ``suppress_stdout_stderr``, which ``dup2``s /dev/null over
file descriptors 1 and 2 for the whole process while the weights load (seconds): every other thread's prints and
log lines of that time were lost (a server's access and error logs). :func:`quiet_load` turns that redirect off during
toolwire's loads and, unless ``verbose``, gives llama.cpp a log callback that drops its lines for that time instead
(what the redirect did to them; a failed load is still reported by the exception). llama-cpp-python's own prints are
behind ``verbose`` already.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["quiet_load"]

_MODULES = ("llama_cpp.llama", "llama_cpp._internals")  # where llama-cpp-python imported suppress_stdout_stderr
_SILENT: list[Any] = []  # toolwire's do-nothing llama.cpp log callback (made once, kept alive while llama.cpp has it)


def _no_redirect(disable: bool = True) -> contextlib.nullcontext[None]:
    """llama-cpp-python's ``suppress_stdout_stderr(disable)``, redirecting nothing."""
    return contextlib.nullcontext()


def _silence(llama_cpp: Any) -> Any:
    """Set a llama.cpp log callback that drops every line; return the ``(callback, user data)`` set before it, a
    user's own or llama-cpp-python's (read with ``llama_log_get`` where this llama.cpp has it), to put back (None when
    this llama-cpp-python has no such callback: nothing is changed)."""
    logger = sys.modules.get("llama_cpp._logger")
    own: Any = getattr(logger, "llama_log_callback", None)
    make, set_log = getattr(llama_cpp, "llama_log_callback", None), getattr(llama_cpp, "llama_log_set", None)
    if own is None or make is None or set_log is None:
        return None
    own = (own, ctypes.c_void_p(0))
    get_log = getattr(llama_cpp, "llama_log_get", None)
    if get_log is not None:  # the callback set now, a user's own too (review 288 #3), with its user data
        with contextlib.suppress(Exception):
            current, data = make(), ctypes.c_void_p()
            get_log(ctypes.byref(current), ctypes.byref(data))
            if ctypes.cast(current, ctypes.c_void_p).value:
                own = (current, data)
    if not _SILENT:
        _SILENT.append(make(lambda level, text, user_data: None))
    set_log(_SILENT[0], ctypes.c_void_p(0))
    return own


@contextlib.contextmanager
def quiet_load(llama_cpp: Any, verbose: bool, modules: dict[str, Any] | None = None) -> Iterator[None]:
    """Within the block, llama-cpp-python's ``suppress_stdout_stderr`` redirects nothing, and (unless ``verbose``)
    llama.cpp's log lines are dropped; both are put back after.

    Args:
        llama_cpp: the ``llama_cpp`` module.
        verbose: let llama.cpp's lines through (its usual callback).
        modules: the modules by name (default: ``sys.modules``); those not imported, or without that name, are
            left alone. Call it with toolwire's load lock held (loads are not run two at a time).
    """
    found = sys.modules if modules is None else modules
    patched = [(module, module.suppress_stdout_stderr) for name in _MODULES
               if (module := found.get(name)) is not None and hasattr(module, "suppress_stdout_stderr")]
    own = None if verbose else _silence(llama_cpp)
    for module, _ in patched:
        module.suppress_stdout_stderr = _no_redirect
    try:
        yield
    finally:
        for module, original in patched:
            module.suppress_stdout_stderr = original
        if own is not None:
            llama_cpp.llama_log_set(*own)
