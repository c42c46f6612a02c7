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
    assert install_hint("openai") == "toolwire's [openai] extra: run pip install 'openai>=1.40'"
    assert install_hint("openai", upgrade=True).endswith("run pip install -U 'openai>=1.40'")  # the command last
    assert install_hint("nope") == "toolwire's [nope] extra: run pip install -e '.[nope]' in toolwire's repository"


def test_missing_packages_name_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.interop import langchain
    from toolwire.mcp import common

    monkeypatch.setitem(sys.modules, "langchain_core", None)
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(UserError, match=r"\[langchain\] extra: run pip install 'langchain-core>=0\.3\.36'\.$"):
        langchain._lc()
    with pytest.raises(UserError, match=r"^MCP support needs the mcp SDK, toolwire's \[mcp\] extra: run pip install "
                                        r"'mcp>=1\.12'\.$"):
        common._mcp()
