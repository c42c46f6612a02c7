"""Review 161 #2: the CLI's ``--n-ctx``/``--n-threads``/``--dialect`` imported the dialects (which need numpy) before
refusing a hosted model's name, so an install without the ``[local]`` extra got a traceback instead of the one-line
refusal; ``--dialect`` with the default local model now says to install the extra, in one line.

A missing numpy is simulated in a child process with ``sys.modules["numpy"] = None`` (the project's venv has it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _blocked import run_without

CLI = """
import sys
from toolwire.cli import main
sys.argv = ["toolwire", *{args!r}]
main()
"""


@pytest.mark.parametrize(("args", "expected"), [
    (["ask", "q", "--model", "openai:gpt-4o", "--n-ctx", "4096"],
     "error: --n-ctx applies to local models only, not to 'openai:gpt-4o': leave it out."),
    (["ask", "q", "--model", "openai:gpt-4o", "--n-threads", "2"],
     "error: --n-threads applies to local models only, not to 'openai:gpt-4o': leave it out."),
    (["chat", "--model", "gpt-4o", "--dialect", "json"],
     "error: --dialect applies to local models only, not to 'gpt-4o': leave it out."),
    (["ask", "q", "--dialect", "json"], "error: Local models need numpy, toolwire's [local] extra: run pip install"),
])
def test_cli_local_options_without_numpy_are_refused_in_one_line(tmp_path: Path, args: list[str],
                                                                 expected: str) -> None:
    done = run_without(("numpy",), CLI.format(args=args), tmp_path)
    assert done.returncode == 1, done.stderr
    output = (done.stdout + done.stderr).strip()
    assert "Traceback" not in output and len(output.splitlines()) == 1, output
    assert output.startswith(expected), output
