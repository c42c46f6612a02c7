"""A namespace package (no ``__init__.py``) whose ``tools.py`` imports a sibling relatively, for the ``--tools``
advice tests of reviews 208 #6 and 218 #5."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def fresh_namespace(monkeypatch: pytest.MonkeyPatch, prefix: str) -> Iterator[str]:
    """Yield a package name no other test uses; forget it in ``sys.modules`` (and the folders in ``sys.path``) after."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    yield name
    for key in list(sys.modules):
        if key.partition(".")[0] == name or key.startswith("toolwire_user_tools_"):
            sys.modules.pop(key, None)


def namespace_package(root: Path, name: str) -> None:
    """Write ``root/name/util.py`` and ``root/name/tools.py`` (a tool ``nst`` returning ``"<name>.util"``)."""
    (root / name).mkdir(parents=True)
    (root / name / "util.py").write_text(f"WHO = '{name}.util'\n", encoding="utf-8")
    (root / name / "tools.py").write_text(
        "from . import util\nfrom toolwire import tool\n\n\n@tool\ndef nst(x: int) -> str:\n    \"\"\"Who.\"\"\"\n"
        "    return util.WHO\n", encoding="utf-8")
