"""How many CPU threads the embedded model may use: :func:`check_n_threads` checks ``n_threads`` (of
:class:`~toolwire.models.llamacpp.ChatLlamaCpp`, :func:`~toolwire.models._loaded.load_model` and the commands'
``--n-threads``) against :data:`MOST_THREADS`, ggml's own bound, and :func:`default_n_threads` is the count used when
none is given: all cores, up to that bound.

Kept apart from :mod:`toolwire.models._loaded`, which loads the model, so that the command line's option parser can
name the bound without loading anything heavy.
"""

from __future__ import annotations

import numbers
import os
from typing import Any

from toolwire._warn_site import warn_user
from toolwire.errors import UserError

__all__ = ["MOST_THREADS", "check_n_threads", "default_n_threads"]

MOST_THREADS = 512
"""The most CPU threads toolwire lets llama.cpp use, given or by default: ggml's ``GGML_MAX_N_THREADS``, the size of
its thread pool's CPU mask. It is ggml's declared bound, not a measured breaking point: 1,000,000 threads aborted the
whole process in ggml (``std::bad_alloc`` and a gdb backtrace, exit 134) and a number past a C int was cut to another
one by ctypes (review 199 #2), while 1024 did run (review 208 #2)."""


def check_n_threads(n_threads: Any, *, warn: bool = True, name: str = "n_threads") -> int | None:
    """``n_threads`` checked: the CPU threads llama.cpp may use, a whole number from 1 to :data:`MOST_THREADS`, or
    None (all cores, up to :data:`MOST_THREADS`: :func:`default_n_threads`).

    Args:
        n_threads: the value given.
        name: what the caller calls it, in the messages (the command line's ``--n-threads``).
        warn: warn (``UserWarning``, at the caller's line) when it is more than ``os.cpu_count()``: the extra
            threads only take turns on the cores, and make every token slower (review 113: 200 threads on 2 cores
            were 8.5 times slower than 1).

    Returns:
        ``n_threads`` as an int, or None.

    Raises:
        UserError: a bool, a string, a float, a number below 1, or one above :data:`MOST_THREADS` (ggml's bound;
            far more aborted the process: review 199 #2). The advice names a count it takes: the cores here, or
            :data:`MOST_THREADS` on a host with more cores than that.
    """
    if n_threads is None:
        return None
    cores = os.cpu_count() or 1
    advised = default_n_threads()
    here = "the cores here" if advised == cores else f"the most, with {cores} cores here"
    if isinstance(n_threads, bool) or not isinstance(n_threads, numbers.Integral) or n_threads < 1:
        raise UserError(f"{name} must be a whole number of CPU threads, at least 1 (such as {advised}, {here}), "
                        f"or None to use all cores, not {n_threads!r}.")
    if n_threads > MOST_THREADS:
        raise UserError(f"{name}={n_threads} is more CPU threads than toolwire lets llama.cpp use ({MOST_THREADS} at "
                        f"most, ggml's own bound): pass {name}={advised} ({here}) or fewer, or leave it out to use "
                        f"all cores (up to {MOST_THREADS}).")
    if warn and n_threads > cores:
        warn_user(f"{name}={n_threads} is more than the {cores} CPU cores here, which makes the model slower, not "
                  f"faster: pass {name}={cores} or fewer, or leave it out to use all cores.")
    return int(n_threads)


def default_n_threads() -> int:
    """The CPU threads llama.cpp uses when no ``n_threads`` is given: all cores (``os.cpu_count()``, 1 when unknown),
    but at most :data:`MOST_THREADS`, the bound a given value is held to (review 208 #2: a host of 1024 cores got
    1024 by default while ``n_threads=1024`` was refused).

    Returns:
        A whole number from 1 to :data:`MOST_THREADS`.
    """
    return min(os.cpu_count() or 1, MOST_THREADS)
