"""The process's standard streams as the command line uses them: what a run writes sent to standard error, so that
standard output holds one JSON document (``toolwire ask --json``), text the terminal cannot show printed as
``?`` rather than ending the command with a traceback, and a line read from standard input that is not UTF-8 told
apart from the others whatever the locale.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import re
import sys
from collections.abc import Iterator
from typing import TextIO

__all__ = ["closed_errors_dropped", "closed_output_fails", "output_failed", "output_to_stderr", "tolerant_input",
           "tolerant_output", "unwritable_output", "utf8_arg", "utf8_line", "utf_encoding"]

_SURROGATE = re.compile("[\ud800-\udfff]")


@contextlib.contextmanager
def output_to_stderr(*, until_exit: bool = False) -> Iterator[TextIO]:
    """Send what is written to standard output to standard error while the block runs: ``print`` (``sys.stdout``)
    and what writes to file descriptor 1 below Python, such as a command a tool runs or C code's printf (review 80, 82).

    Args:
        until_exit: leave it so when the block exits, up to the process's end, so that what a tool's thread prints
            after the run (waited for at exit) goes to standard error too, not after the command's JSON (review 251
            #2). Only where ``sys.stdout`` is the process's own (``sys.__stdout__``); elsewhere (a test runner's
            stream) the block ends as without it.

    Yields:
        A text stream to standard output as it was, for what the command itself writes there (``--json``'s JSON),
        which writes the characters beyond ASCII as JSON's ``\\u`` escapes when the stream's encoding is not a UTF
        one (cp1252, the C locale without Python's UTF-8 mode: review 282 #2, they were written ``?``), flushed
        (and closed, when made here) as the block exits. With no standard error (``sys.stderr`` is None), what is
        printed in the block goes nowhere, and the JSON still to this stream (review 258 #2).

    Raises:
        OSError: standard output is closed (:func:`closed_output_fails`; review 251 #4), raised at entry.

    Returns:
        A context manager; file descriptor 1 is itself again when it exits (left alone when it is closed, and with
        ``until_exit``).
    """
    stream = sys.stdout
    if stream is None or isinstance(stream, _ClosedOutput):
        raise _closed_error()
    stream.flush()
    keep = until_exit and stream is sys.__stdout__
    saved: int | None = None
    with contextlib.suppress(OSError):  # no file descriptor 1 or 2 (closed): sys.stdout alone is sent
        saved = os.dup(1)
        os.dup2(2, 1)
    real: TextIO = stream
    if saved is not None and _writes_to_fd1(stream):  # (its descriptor now goes to stderr: a stream of its own)
        real = open(os.dup(saved), "w", encoding=getattr(stream, "encoding", None) or "utf-8",  # noqa: SIM115
                    errors=getattr(stream, "errors", None) or "strict")
    sys.stdout = sys.stderr if sys.stderr is not None else _Discarded()  # (None: the JSON was sent nowhere too)
    try:
        yield real if utf_encoding(getattr(real, "encoding", None)) else _AsciiJson(real)
    finally:
        try:
            real.flush()
        finally:
            if real is not stream:
                with contextlib.suppress(OSError):
                    real.close()
            if not keep:
                sys.stdout = stream
            if saved is not None:
                if not keep:
                    with contextlib.suppress(Exception):  # C code's printf, still in the C library's buffer (r. 82)
                        import ctypes

                        ctypes.CDLL(None).fflush(None)
                    os.dup2(saved, 1)
                os.close(saved)


def utf_encoding(encoding: str | None) -> bool:
    """Whether ``encoding`` (a stream's, as Python names it: ``"UTF-8"``, ``"utf_8"``, ``"cp65001"``) is a UTF
    encoding (UTF-8, with its signature or not, UTF-16, UTF-32), one that holds every character.

    Returns:
        True for those; False for the others (``"ascii"``, ``"cp1252"``, UTF-7), an unknown one and None.
    """
    try:
        name = codecs.lookup(encoding or "").name
    except LookupError:
        return False
    return name.startswith(("utf-8", "utf-16", "utf-32"))


class _AsciiJson(io.TextIOBase):
    """A text stream for JSON that writes it to ``stream`` with its characters beyond ASCII as ``\\u`` escapes
    (:func:`~toolwire._printing.ascii_json`), so that none is lost to an encoding that cannot hold it (a stream
    reconfigured to write ``?`` for them: :func:`tolerant_output`). Closing it leaves ``stream`` open."""

    encoding = "ascii"
    errors = "strict"

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        from toolwire._printing import ascii_json

        self._stream.write(ascii_json(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        pass


def _writes_to_fd1(stream: TextIO) -> bool:
    try:
        return stream.fileno() == 1
    except (AttributeError, OSError, ValueError):  # (a stream of no descriptor: a test runner's)
        return False


class _ClosedOutput(io.TextIOBase):
    """``sys.stdout`` when the process started with file descriptor 1 closed (``>&-``): writing raises the
    ``OSError`` that :func:`output_failed` tells, so the command ends with one line (review 251 #4)."""

    encoding = "utf-8"
    errors = "strict"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise _closed_error()

    def isatty(self) -> bool:
        return False


class _Discarded(io.TextIOBase):
    """A text stream that takes what is written and keeps nothing: standard error when the process has none."""

    encoding = "utf-8"
    errors = "strict"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)

    def isatty(self) -> bool:
        return False


class _ClosedOutputError(OSError):
    """Standard output is closed (see :class:`_ClosedOutput`)."""


def _closed_error() -> OSError:
    return _ClosedOutputError(errno.EBADF, "standard output is closed")


def closed_output_fails() -> None:
    """When the process started with standard output closed (``sys.stdout`` is None: ``>&-``), let what the command
    writes there raise an ``OSError`` that :func:`output_failed` tells and :func:`unwritable_output` says in one line
    (review 251 #4: tracebacks, or exit 0 with the output lost). A command that writes nothing there runs as usual.

    Returns:
        None; ``sys.stdout`` is set when it was None. Raises nothing.
    """
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()


def closed_errors_dropped() -> None:
    """When the process started with standard error closed (``sys.stderr`` is None: ``2>&-``), send what is written
    there to the null device, so that the command runs as with ``2>/dev/null`` (review 258 #2, #3): its output and
    exit code as usual, its notes and errors unseen. Without it, ``ask --json`` wrote its JSON nowhere and exited 0,
    ``models pull`` wrote its progress on standard output around the path, and ``chat`` ended at its first prompt
    (``input()`` needs a standard error). File descriptor 2 is opened on the null device too when it is free, so that
    no file the command opens takes its number (and what C code or a tool's command writes to "standard error").

    Returns:
        None; ``sys.stderr`` is set when it was None. Raises nothing (when the null device cannot be opened,
        ``sys.stderr`` takes what is written and keeps nothing).
    """
    if sys.stderr is not None:
        return
    try:
        os.fstat(2)
        ours = False  # (descriptor 2 is some file's already: left alone)
    except OSError:
        ours = True
    stream: TextIO = _Discarded()
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        if ours and null != 2:  # (1 when standard output is closed too)
            os.dup2(null, 2)
            os.close(null)
        stream = open(2 if ours else null, "w", encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                      buffering=1)
    sys.stderr = stream


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

    Input that is not a terminal and starts with a UTF-16 BOM (``FF FE`` or ``FE FF``: a file saved as Notepad's
    "Unicode" or by PowerShell 5's ``>``) is read as UTF-16, its lines sent as the text they are rather than
    refused and then sent NUL-filled (review 286 #8); input that starts with a UTF-8 BOM (``EF BB BF``: Notepad's
    "UTF-8 with BOM") is read as UTF-8, the BOM dropped, whatever stdin's encoding (a Windows code page read it as
    ``ï»¿`` and the rest as cp1252: review 308 #3); this looks at its first bytes without taking them.

    Returns:
        None; ``sys.stdin`` is reconfigured in place (left as it is when it is closed or detached).
    """
    stdin = sys.stdin
    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is None:
        return
    with contextlib.suppress(ValueError, OSError, AttributeError):  # a closed or detached stream: read as it is
        if marked := _bom_encoding(stdin):
            reconfigure(encoding=marked, errors="surrogateescape")  # (the codec takes the BOM and its byte order)
        elif getattr(stdin, "errors", None) != "surrogateescape":
            reconfigure(errors="surrogateescape")


def _bom_encoding(stdin: TextIO) -> str:
    """``"utf-32"``, ``"utf-16"`` or ``"utf-8-sig"`` when ``stdin``, not a terminal (whose bytes a line editor reads
    itself), starts with that encoding's BOM, looked at without being read (its buffer's ``peek``); "" otherwise and
    for a stream without ``peek``. Raises what the stream raises."""
    peek = getattr(getattr(stdin, "buffer", None), "peek", None)
    if peek is None or stdin.isatty():
        return ""
    first = peek(4)[:4]
    if first in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):
        return "utf-32"
    if first.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    return "utf-16" if first[:2] in (b"\xff\xfe", b"\xfe\xff") else ""


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


_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""The errors of a disk (or quota, or file size limit) that takes no more."""


def output_failed(exc: BaseException) -> bool:
    """Whether ``exc`` says that what the command writes cannot be written: an ``OSError`` of a full disk, or one
    raised while standard output or error no longer takes what is written to it (a closed pipe aside, which click
    ends quietly; review 227 #2).

    Args:
        exc: the error a command ended with.

    Returns:
        True when the command's output cannot be written.
    """
    if not isinstance(exc, OSError) or exc.errno == errno.EPIPE:
        return False
    if exc.errno in _FULL or isinstance(exc, _ClosedOutputError):
        return True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            return True
        except (AttributeError, ValueError):  # (no such stream, or a closed one)
            continue
    return False


def unwritable_output(exc: OSError) -> str:
    """Say, in one line on standard error when it takes it, that the output cannot be written, and send what is left
    of it nowhere, so that the process ends without a traceback nor a second error as it flushes its streams at exit
    (review 227 #2: a full disk ended every command with a 40-line traceback).

    Args:
        exc: the error writing gave (:func:`output_failed` is true of it).

    Returns:
        The sentence said, without its ``error: `` lead (also when standard error did not take it).
    """
    why = exc.strerror or str(exc) or type(exc).__name__
    advice = "free some space, or write it elsewhere" if exc.errno in _FULL else "write it elsewhere"
    text = f"cannot write the output ({why}): {advice}."
    if not isinstance(exc, _ClosedOutputError):  # (a closed descriptor 1 may since be another file's: left alone)
        _nowhere(1)
    try:
        sys.stderr.write(f"error: {text}\n")
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):  # standard error is full, closed or gone too
        _nowhere(2)
    return text


def _nowhere(fd: int) -> None:
    """Point file descriptor ``fd`` (1 or 2) at the null device, so what is still buffered for it is dropped."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


def utf8_arg(text: str) -> str | None:
    """Return ``text``, a command-line argument as Python decoded it (``sys.argv``: bytes that are not UTF-8 come as
    lone surrogates), as text, or None when its bytes are not UTF-8 (a question typed on a Latin-1 terminal), which
    the command line refuses rather than send to the model with U+FFFD in place of the letters (review 227 #4).

    Args:
        text: an argument or option value as the command received it.

    Returns:
        ``text`` itself when it holds no lone surrogate, its bytes decoded as UTF-8 when they are UTF-8, else None.
    """
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    try:
        return os.fsencode(text).decode("utf-8")
    except (UnicodeError, LookupError):  # (a surrogate surrogateescape does not make)
        return None
