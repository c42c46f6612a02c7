"""Reading a ``toolwire eval bfcl --out`` report file for the benchmark scripts (``bfcl_diff.py``,
``bfcl_rescore.py``): a wrong path or a file that is no report is one ``error:`` line, not a traceback (review 238
#4)."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any


def load_json(path: Path) -> Any:
    """The JSON value in the file at ``path`` (a ``.gz`` file is read through gzip).

    Raises:
        SystemExit: the file cannot be read, or holds no JSON; its message is one line starting with ``error:``.
    """
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            return json.load(handle)
    except (gzip.BadGzipFile, EOFError, zlib.error, ValueError) as exc:  # (ValueError: not JSON, or not UTF-8)
        raise SystemExit(not_a_report(path, f"{type(exc).__name__}: {exc}")) from None
    except OSError as exc:
        raise SystemExit(f"error: cannot read the BFCL report {str(path)!r} ({exc.strerror or exc}): check the "
                         "path.") from None


def not_a_report(path: Path, detail: str) -> str:
    """The one-line error for a file at ``path`` that is no BFCL report (``detail``: why)."""
    return (f"error: {str(path)!r} is not a BFCL report toolwire wrote ({detail}): pass the JSON (or .json.gz) file "
            "that toolwire eval bfcl --out wrote.")
