"""The install commands toolwire's errors give (review 87: ``pip install 'toolwire[openai]'`` fails, since toolwire
is not on PyPI): they name the extra's own packages, pinned as ``pyproject.toml`` pins them."""

from __future__ import annotations

import sys
import tomllib

import pytest

from _paths import REPO
from toolwire._extras import EXTRAS, install_hint
from toolwire.errors import UserError


def test_the_extras_match_pyproject() -> None:
    listed = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    for extra, packages in EXTRAS.items():
        assert tuple(listed[extra]) == packages, extra


def test_install_hint() -> None:
    assert install_hint("openai") == "pip install 'openai>=1.40' (toolwire's [openai] extra)"
    assert install_hint("openai", upgrade=True).startswith("pip install -U 'openai>=1.40'")
    assert install_hint("nope") == "pip install -e '.[nope]' in toolwire's repository"


def test_missing_packages_name_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.interop import langchain
    from toolwire.mcp import common

    monkeypatch.setitem(sys.modules, "langchain_core", None)
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(UserError, match=r"run pip install 'langchain-core>=0\.3\.36' \(toolwire's \[langchain\]"):
        langchain._lc()
    with pytest.raises(UserError, match=r"run pip install 'mcp>=1\.12' \(toolwire's \[mcp\] extra\)\.$"):
        common._mcp()
