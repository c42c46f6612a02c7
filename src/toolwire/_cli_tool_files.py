"""What kind of file a ``--tools`` path is, for :mod:`toolwire.cli_tools`: a data file given by mistake, Python
source under another suffix (loaded without a bytecode cache), or text saved as UTF-16/32, which Python cannot import.
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path
from typing import Any

__all__ = ["DATA_SUFFIXES", "SourceOnly", "wide_encoding"]

DATA_SUFFIXES = frozenset({".json", ".jsonl", ".yaml", ".yml", ".toml", ".csv", ".md"})
"""Suffixes of data files: a ``--tools`` file named so is refused, not run as Python (review 322 #2)."""


class SourceOnly(importlib.machinery.SourceFileLoader):
    """Python source under another suffix, compiled from the file each time: no bytecode cache is read or written,
    as its name would be ``tools.py``'s beside it, which then ran the other file's code (review 322 #1)."""

    def get_code(self, fullname: str) -> Any:
        return self.source_to_code(self.get_data(self.path), self.path)


def wide_encoding(path: Path) -> str:
    """``"UTF-16"`` or ``"UTF-32"`` when the file at ``path`` is text saved in that encoding (its BOM, or, without
    one, ASCII text with a NUL byte beside each letter), which Python cannot import; "" otherwise, and for a path that
    is not a readable file. Raises nothing."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(64)
    except (OSError, ValueError):
        return ""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    halves = (head[0::2], head[1::2])
    return "UTF-16" if len(head) >= 8 and any(half.count(0) == len(half) for half in halves) else ""
