"""How ``toolwire chat`` reads a question (review 274 #2, #3, #4).

In a terminal, lines are read with :mod:`readline` where Python has it: the terminal then leaves its canonical mode,
whose kernel line buffer cut a pasted line to 4095 characters without a word, and the line can be edited and
recalled. ``toolwire chat`` reads each line as one question: joining the lines that arrive together (a multi-line
paste, ``together``) also joined lines typed ahead while an answer printed, and a paste arriving in pieces was split
anyway (review 276 #1-#2).
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass

__all__ = ["Question", "line_editing", "read_question"]


@dataclass
class Question:
    """A question as read: its ``text`` (the lines of one paste joined with newlines, ends stripped), and whether it
    was ``typed`` alone (one line, nothing else waiting), the only way ``clear``/``exit`` are taken as commands."""

    text: str
    typed: bool = True


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


def _waiting() -> bool:
    """Whether more of standard input is already waiting to be read (the rest of a paste), on a terminal that
    ``select`` can watch; False when that cannot be told."""
    try:
        import select

        return bool(select.select([sys.stdin.fileno()], [], [], 0)[0])
    except (ImportError, ValueError, OSError, AttributeError):
        return False


def read_question(prompt: str, together: bool) -> Question:
    """Read one question after ``prompt``.

    Args:
        prompt: what ``input`` shows first.
        together: join the lines already waiting after the first one (a paste, in a terminal read with
            :mod:`readline`) into the same question.

    Returns:
        The :class:`Question`; its ``text`` is stripped.

    Raises:
        EOFError: the input ended (Ctrl-D) before a line.
        KeyboardInterrupt: Ctrl-C while reading.
        UnicodeDecodeError: a stream that could not be read tolerantly.
    """
    lines = [input(prompt)]
    while together and _waiting():
        with contextlib.suppress(EOFError):
            lines.append(input(""))
            continue
        break
    return Question("\n".join(lines).strip(), typed=len(lines) == 1)
