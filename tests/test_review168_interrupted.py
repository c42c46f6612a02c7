"""Review 168 #6: Ctrl-C before any item is scored, with a blank --out file, does not say the items are saved there."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from toolwire.evals.cli import _interrupted


@pytest.mark.parametrize("text", ["", "\n", "  \n\t"])
def test_a_blank_out_file_is_not_said_to_hold_the_items(tmp_path: Path, text: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    out.write_text(text, encoding="utf-8")
    _interrupted(None, Console(file=None), out, None, {})
    assert capsys.readouterr().err.strip() == "Interrupted."
