"""Running code in a fresh interpreter where some modules cannot be imported: an install without an extra, simulated
in the project's venv (review 161)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def run_without(blocked: tuple[str, ...], code: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where the modules ``blocked`` cannot be imported (``sys.modules[name] =
    None``), with ``TOOLWIRE_HOME`` at ``home``."""
    prelude = f"import sys\nfor _name in {blocked!r}:\n    sys.modules[_name] = None\n"
    env = {**os.environ, "TOOLWIRE_HOME": str(home), "PYTHONPATH": SRC, "COLUMNS": "200"}
    env.pop("TOOLWIRE_MODEL_PATH", None)
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
