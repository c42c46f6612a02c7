"""The process's standard streams as the command line uses them: what a run writes sent to standard error, so that
standard output holds one JSON document (``toolwire ask --json``), text the terminal cannot show printed as
``?`` rather than ending the command with a traceback, and a line read from standard input that is not UTF-8 told
apart from the others whatever the locale.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator

__all__ = ["output_to_stderr", "tolerant_input", "tolerant_output", "utf8_line"]

_SURROGATE = re.compile("[\ud800-\udfff]")


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


def tolerant_input() -> None:
    """Read standard input with ``surrogateescape`` whatever Python opened it with, so that a line that is not UTF-8
    fails alone (read strictly, the decoding error threw away every line read with it: review 156 #1) and can be
    told apart from a U+FFFD typed on purpose (read with ``replace``). Under the C, C.UTF-8 and POSIX locales and
    with ``PYTHONUTF8=1``, Python opens it that way already. A stream that is not a text file with ``reconfigure``
    (a test runner's) is left as it is.

    Returns:
        None; ``sys.stdin`` is reconfigured in place (left as it is when it is closed or detached).
    """
    stdin = sys.stdin
    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is not None and getattr(stdin, "errors", None) != "surrogateescape":
        with contextlib.suppress(ValueError, OSError):  # a closed or detached stream: read as it is
            reconfigure(errors="surrogateescape")


def utf8_line(line: str) -> str | None:
    """Return ``line``, read from standard input after :func:`tolerant_input`, as text, or None when its bytes are
    not UTF-8 (review 157 #1): they came as lone surrogates, which the command line must refuse rather than send to
    the model as U+FFFD. UTF-8 read by a stream of another encoding that did not take it (ASCII, the C locale
    without Python's UTF-8 mode) is decoded as UTF-8.

    Args:
        line: a line as ``input()`` returned it.

    Returns:
        ``line`` itself when it holds no surrogate, its bytes decoded as UTF-8 when they are UTF-8, else None.
    """
    if line.isascii() or _SURROGATE.search(line) is None:
        return line
    try:
        return line.encode(getattr(sys.stdin, "encoding", None) or "utf-8", "surrogateescape").decode("utf-8")
    except (UnicodeError, LookupError):  # (a surrogate surrogateescape does not make, an unknown encoding)
        return None
