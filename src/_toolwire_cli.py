"""The ``toolwire`` command's entry point: it makes a Ctrl-C during start-up one line and exit code 130.

Importing :mod:`toolwire.cli` (pydantic, typer, rich, the providers' lowering) takes about a second, several under
load, before any of the command's own Ctrl-C handling exists: a Ctrl-C then printed a Python traceback from deep in an
import, or, inside pydantic-core's native start-up, a Rust panic with exit code 1 (review 293 #2). This module lives
outside the ``toolwire`` package, whose ``__init__`` is itself part of that import, so that the handler is in place
before it starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from types import FrameType


def _stop(signum: int, frame: FrameType | None) -> None:
    """SIGINT handler while the command starts: say so in the command's own words and exit with 130 (128 + SIGINT, as
    after start-up). Nothing has been done yet, so nothing is lost by exiting at once."""
    with contextlib.suppress(OSError):  # (stderr closed: 2>&-)
        os.write(2, b"error: interrupted.\n")
    os._exit(130)


def main() -> None:
    """Run ``toolwire.cli.main`` (the console script ``toolwire``), with Ctrl-C during its import handled by
    :func:`_stop`. A SIGINT handler other than Python's default (ignored, as for a job started with ``&`` in a script,
    or a parent's own) is left alone.

    Raises:
        SystemExit: the command's exit code (130 for a Ctrl-C no command caught, after "error: interrupted.").
    """
    guarded = (threading.current_thread() is threading.main_thread()
               and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if guarded:
        signal.signal(signal.SIGINT, _stop)
    try:
        from toolwire.cli import main as run
    finally:
        if guarded:  # (setting the handler back runs a pending SIGINT's _stop first)
            signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        run()
    except KeyboardInterrupt:  # (one that no command caught: while typer builds the commands, review 327 #1)
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write("error: interrupted.\n")
        raise SystemExit(130) from None
