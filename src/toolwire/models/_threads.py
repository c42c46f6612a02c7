"""How many CPU threads the embedded model may use: :func:`check_n_threads` checks ``n_threads`` (of
:class:`~toolwire.models.llamacpp.ChatLlamaCpp`, :func:`~toolwire.models._loaded.load_model` and the commands'
``--n-threads``) against :data:`MOST_THREADS`, the most llama.cpp's ggml takes.

Kept apart from :mod:`toolwire.models._loaded`, which loads the model, so that the command line's option parser can
name the bound without loading anything heavy.
"""

from __future__ import annotations

import numbers
import os
from typing import Any

from toolwire._warn_site import warn_user
from toolwire.errors import UserError

__all__ = ["MOST_THREADS", "check_n_threads"]

MOST_THREADS = 512
"""The most CPU threads llama.cpp can run a model on: ggml's ``GGML_MAX_N_THREADS``. More aborted the whole process
in ggml (``std::bad_alloc`` and a gdb backtrace, exit 134), and a number past a C int was cut to another one by
ctypes (review 199 #2)."""


def check_n_threads(n_threads: Any, *, warn: bool = True, name: str = "n_threads") -> int | None:
    """``n_threads`` checked: the CPU threads llama.cpp may use, a whole number from 1 to :data:`MOST_THREADS`, or
    None (all cores).

    Args:
        n_threads: the value given.
        name: what the caller calls it, in the messages (the command line's ``--n-threads``).
        warn: warn (``UserWarning``, at the caller's line) when it is more than ``os.cpu_count()``: the extra
            threads only take turns on the cores, and make every token slower (review 113: 200 threads on 2 cores
            were 8.5 times slower than 1).

    Returns:
        ``n_threads`` as an int, or None.

    Raises:
        UserError: a bool, a string, a float, a number below 1, or one above :data:`MOST_THREADS` (which llama.cpp
            cannot run: review 199 #2).
    """
    if n_threads is None:
        return None
    cores = os.cpu_count() or 1
    if isinstance(n_threads, bool) or not isinstance(n_threads, numbers.Integral) or n_threads < 1:
        raise UserError(f"{name} must be a whole number of CPU threads, at least 1 (such as {cores}, the cores "
                        f"here), or None to use all cores, not {n_threads!r}.")
    if n_threads > MOST_THREADS:
        raise UserError(f"{name}={n_threads} is more CPU threads than llama.cpp can run a model on ({MOST_THREADS} "
                        f"at most): pass {name}={cores} (the cores here) or fewer, or leave it out to use all cores.")
    if warn and n_threads > cores:
        warn_user(f"{name}={n_threads} is more than the {cores} CPU cores here, which makes the model slower, not "
                  f"faster: pass {name}={cores} or fewer, or leave it out to use all cores.")
    return int(n_threads)
