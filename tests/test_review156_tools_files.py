"""Review 156 #7 and #8: a tools file named two ways is read once; one that raises a BaseException at import ends
the command with one line, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.cli_tools import load_tools
from toolwire.errors import UserError


def test_a_base_exception_at_import_is_one_line(tmp_path: Path) -> None:
    script = tmp_path / "baseexc.py"
    script.write_text("class Cancelled(BaseException):\n    pass\n\n\nraise Cancelled('stopped while loading')\n",
                      encoding="utf-8")
    with pytest.raises(UserError, match=r"baseexc.py:5 with Cancelled: stopped while loading"):
        load_tools(str(script))


def test_ctrl_c_at_import_is_still_an_interrupt(tmp_path: Path) -> None:
    script = tmp_path / "ctrlc.py"
    script.write_text("raise KeyboardInterrupt\n", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        load_tools(str(script))
