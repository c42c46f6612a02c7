"""The process's standard streams as the command line uses them: what a run writes sent to standard error, so that
standard output holds one JSON document (``toolwire ask --json``), and text the terminal cannot show printed as
``?`` rather than ending the command with a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

__all__ = ["output_to_stderr", "tolerant_output"]


@contextlib.contextmanager
def output_to_stderr() -> Iterator[None]:
    """Send what is written to standard output to standard error while the block runs: ``print`` (``sys.stdout``)
    and what writes to file descriptor 1 below Python, such as a command a tool runs or C code's printf (review 80, 82).

    Returns:
        A context manager; file descriptor 1 is itself again when it exits (left alone when it is closed).
    """
    sys.stdout.flush()
    saved: int | None = None
    with contextlib.suppress(OSError):  # no file descriptor 1 or 2 (closed): sys.stdout alone is sent
        saved = os.dup(1)
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            with contextlib.suppress(Exception):  # C code's printf, still in the C library's buffer (review 82)
                import ctypes

                ctypes.CDLL(None).fflush(None)
            os.dup2(saved, 1)
            os.close(saved)


def tolerant_output() -> None:
    """Let text that the terminal's encoding cannot show (Portuguese in an ASCII ``LC_ALL=C`` shell) print as ``?``
    instead of ending the command with a UnicodeEncodeError traceback (review 26): a stream that encodes strictly,
    and one that is not UTF-8 with ``surrogateescape`` (what Python opens in the C/POSIX locale when its UTF-8 mode
    is off: review 156 #4). Streams that are not text files with ``reconfigure`` (a test runner's) are left as
    they are."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        errors = getattr(stream, "errors", None)
        utf8 = str(getattr(stream, "encoding", "") or "").lower().replace("-", "").replace("_", "") == "utf8"
        if reconfigure is not None and (errors == "strict" or (errors == "surrogateescape" and not utf8)):
            with contextlib.suppress(ValueError, OSError):  # a closed or detached stream
                reconfigure(errors="replace")
