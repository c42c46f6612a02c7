"""How ``toolwire chat`` reads a question (review 274 #2, #3, #4).

In a terminal, lines are read with :mod:`readline` where Python has it: the terminal then leaves its canonical mode,
whose kernel line buffer cut a pasted line to 4095 characters without a word, and the line can be edited and
recalled. Each line is one question: joining the lines that arrived together (a multi-line paste) also joined lines
typed ahead while an answer printed, and a paste arriving in pieces was split anyway (review 276 #1-#2).
"""

from __future__ import annotations

import sys

__all__ = ["line_editing", "read_question"]


def line_editing() -> bool:
    """Read the next lines with :mod:`readline` when standard input and output are a terminal and Python has the
    module (not on Windows, nor in some builds).

    Returns:
        True when :mod:`readline` is in use, so that lines of any length are read whole and can be edited; False
        otherwise (``input()`` is then read as it is).
    """
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return False
    except (AttributeError, ValueError, OSError):  # (a closed or replaced stream)
        return False
    try:
        import readline  # noqa: F401  (importing it is what makes input() use it)
    except ImportError:
        return False
    return True


def read_question(prompt: str) -> str:
    """Read one question, a line, after ``prompt`` (with :mod:`readline` once :func:`line_editing` turned it on).

    Returns:
        The line, stripped.

    Raises:
        EOFError: the input ended (Ctrl-D) before a line.
        KeyboardInterrupt: Ctrl-C while reading.
        UnicodeDecodeError: a stream that could not be read tolerantly.
    """
    return input(prompt).strip()
